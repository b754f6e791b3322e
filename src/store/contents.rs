//! The `contents` table: what a file read with the console keys holds, one row per
//! CNMT (a cartridge with its update, a bundle with its DLC hold several). The titles'
//! model counts each; a file without rows counts as its `games` row says.

use rusqlite::{params, Connection};

use crate::error::Error;
use crate::words::{GameKind, TitleId};

/// One content of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentRow {
    pub title_id: TitleId,
    pub kind: GameKind,
    pub subtype: Option<String>,
    pub base_title_id: Option<TitleId>,
    pub version: u32,
}

/// Replace the contents of the file at `key` (none: it holds nothing read with keys).
pub fn set(conn: &Connection, key: &str, rows: &[ContentRow]) -> Result<(), Error> {
    conn.prepare_cached("DELETE FROM contents WHERE key = ?1")?
        .execute([key])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO contents (key, seq, title_id, type, subtype, base_title_id, version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (seq, c) in rows.iter().enumerate() {
        insert.execute(params![
            key,
            seq as i64,
            c.title_id,
            c.kind,
            c.subtype,
            c.base_title_id,
            c.version
        ])?;
    }
    Ok(())
}

/// The contents of one file, in order.
pub fn of(conn: &Connection, key: &str) -> Result<Vec<ContentRow>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT title_id, type, subtype, base_title_id, version FROM contents
         WHERE key = ?1 ORDER BY seq",
    )?;
    super::all(&mut stmt, [key], |r| {
        Ok(ContentRow {
            title_id: r.get(0)?,
            kind: r.get(1)?,
            subtype: r.get(2)?,
            base_title_id: r.get(3)?,
            version: r.get(4)?,
        })
    })
}
