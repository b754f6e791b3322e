//! The `title_versions` table: the dated version history of `versions.json`.

use std::collections::HashMap;

use rusqlite::{params, Connection};

use crate::error::Error;
use crate::words::TitleId;

pub fn insert(conn: &Connection, id: TitleId, version: u32, released: &str) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO title_versions (id, version, released) VALUES (?1, ?2, ?3)
         ON CONFLICT(id, version) DO UPDATE SET released = excluded.released",
    )?
    .execute(params![id, version, released])?;
    Ok(())
}

/// Every dated version, by (ID, version).
pub fn all(conn: &Connection) -> Result<HashMap<(TitleId, u32), String>, Error> {
    let mut stmt = conn.prepare("SELECT id, version, released FROM title_versions")?;
    let rows = stmt.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One ID's history, oldest first.
pub fn of(conn: &Connection, id: TitleId) -> Result<Vec<(u32, String)>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT version, released FROM title_versions WHERE id = ?1 ORDER BY version",
    )?;
    let rows = stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
