//! The `title_ignore` table: what the user does not want counted as missing, per
//! title (a base ID) or for every title (`*`).

use std::collections::HashMap;

use rusqlite::{params, Connection};

use crate::error::Error;

/// The row that stands for every title.
pub const EVERY_TITLE: &str = "*";

/// What is ignored: (DLC, updates).
pub type Ignored = (bool, bool);

/// Add to (or, with `on` false, take from) what is ignored for `title_id`.
pub fn set(
    conn: &Connection,
    title_id: &str,
    dlc: bool,
    updates: bool,
    on: bool,
) -> Result<(), Error> {
    let (was_dlc, was_updates) = all(conn)?.get(title_id).copied().unwrap_or_default();
    let dlc = if dlc { on } else { was_dlc };
    let updates = if updates { on } else { was_updates };
    if dlc || updates {
        conn.prepare_cached(
            "INSERT INTO title_ignore (title_id, dlc, updates) VALUES (?1, ?2, ?3)
             ON CONFLICT(title_id) DO UPDATE SET dlc = excluded.dlc, updates = excluded.updates",
        )?
        .execute(params![title_id, dlc, updates])?;
    } else {
        conn.prepare_cached("DELETE FROM title_ignore WHERE title_id = ?1")?
            .execute([title_id])?;
    }
    Ok(())
}

pub fn all(conn: &Connection) -> Result<HashMap<String, Ignored>, Error> {
    let mut stmt = conn.prepare_cached("SELECT title_id, dlc, updates FROM title_ignore")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
