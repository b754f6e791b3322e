//! The library's generation: a counter that triggers on `games` bump at every insert,
//! update and delete, whoever writes. Whatever was computed from the games at one
//! generation is still true while the number has not moved.

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
