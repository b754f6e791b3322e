//! The library's generation: a counter that triggers on `games` bump at every insert,
//! update and delete, whoever writes. Whatever was computed from the games at one
//! generation is still true while the number has not moved.

use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use crate::error::Error;

pub fn current(conn: &Connection) -> Result<i64, Error> {
    Ok(conn
        .prepare_cached("SELECT n FROM library_generation")?
        .query_row([], |r| r.get(0))?)
}

/// For writes the triggers do not see (the titles' states computed again).
pub fn bump(conn: &Connection) -> Result<(), Error> {
    conn.execute("UPDATE library_generation SET n = n + 1", [])?;
    Ok(())
}

/// What the shop's answers are made of, in one read: the games' generation, the last
/// title data import, the last task's end (icons are fetched by the titles task) and
/// the shop's message. Answers built at one stamp hold while it does not move.
pub fn shop_stamp(conn: &Connection) -> Result<(i64, i64, i64, Option<String>), Error> {
    Ok(conn
        .prepare_cached(
            "SELECT (SELECT n FROM library_generation),
                    (SELECT coalesce(max(id), 0) FROM title_imports),
                    (SELECT coalesce(max(finished_at), 0) FROM job_runs),
                    (SELECT value FROM settings WHERE name = ?1)",
        )?
        .query_row([super::settings::SHOP_MESSAGE], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?)
}

/// A value computed from the games (an index, a list), kept until the generation it
/// was computed at is passed. Only one caller computes; the others asking meanwhile
/// wait and take its value, even when it is newer than the generation they read: a
/// newer value is as good (during a scan the library moves every 512 files, and each
/// waiting request would otherwise compute it again).
pub struct Kept<T> {
    current: Mutex<Option<(i64, Arc<T>)>>,
    computing: Mutex<()>,
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept {
            current: Mutex::new(None),
            computing: Mutex::new(()),
        }
    }
}

impl<T> Kept<T> {
    /// The value at `generation` or newer; `compute` returns a new one and the
    /// generation it was computed at.
    pub fn get(
        &self,
        generation: i64,
        compute: impl FnOnce() -> Result<(i64, T), Error>,
    ) -> Result<Arc<T>, Error> {
        if let Some(value) = self.at_least(generation) {
            return Ok(value);
        }
        let _computing = self.computing.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(value) = self.at_least(generation) {
            return Ok(value);
        }
        let (at, value) = compute()?;
        let value = Arc::new(value);
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some((at, Arc::clone(&value)));
        Ok(value)
    }

    fn at_least(&self, generation: i64) -> Option<Arc<T>> {
        let current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        current
            .as_ref()
            .filter(|(at, _)| *at >= generation)
            .map(|(_, value)| Arc::clone(value))
    }
}
