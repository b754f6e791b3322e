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
    super::all(&mut stmt, [], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))
}

/// One ID's history, oldest first.
pub fn of(conn: &Connection, id: TitleId) -> Result<Vec<(u32, String)>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT version, released FROM title_versions WHERE id = ?1 ORDER BY version",
    )?;
    super::all(&mut stmt, [id], |r| Ok((r.get(0)?, r.get(1)?)))
}
