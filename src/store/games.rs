//! The `games` table: one row per game file of the library, keyed by its path
//! relative to the root.

use std::collections::HashMap;

use rusqlite::{params, Connection};

use crate::error::Error;

/// A game as the scan writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRow {
    pub key: String,
    pub platform: String,
    pub name: String,
    pub file_name_name: String,
    pub folded: String,
    pub kind: String,
    pub subtype: Option<String>,
    pub title_id: Option<String>,
    pub base_title_id: Option<String>,
    pub version: Option<u32>,
    pub format: String,
    pub size: u64,
    pub mtime: i64,
    pub header_ok: bool,
    pub identified_by: String,
    pub note: Option<String>,
}

/// Size and modification time of every known file: what a rescan compares against.
pub fn fingerprints(conn: &Connection) -> Result<HashMap<String, (u64, i64)>, Error> {
    let mut stmt = conn.prepare("SELECT key, size, mtime FROM games")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            (r.get::<_, i64>(1)? as u64, r.get(2)?),
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn upsert(conn: &Connection, g: &GameRow) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO games (key, platform, name, file_name_name, folded, type, subtype,
                            title_id, base_title_id, version, format, size, mtime,
                            header_ok, identified_by, note)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
         ON CONFLICT(key) DO UPDATE SET
             platform = excluded.platform, name = excluded.name,
             file_name_name = excluded.file_name_name, folded = excluded.folded,
             type = excluded.type, subtype = excluded.subtype, title_id = excluded.title_id,
             base_title_id = excluded.base_title_id, version = excluded.version,
             format = excluded.format, size = excluded.size, mtime = excluded.mtime,
             header_ok = excluded.header_ok, identified_by = excluded.identified_by,
             note = excluded.note",
    )?;
    stmt.execute(params![
        g.key,
        g.platform,
        g.name,
        g.file_name_name,
        g.folded,
        g.kind,
        g.subtype,
        g.title_id,
        g.base_title_id,
        g.version,
        g.format,
        g.size as i64,
        g.mtime,
        g.header_ok,
        g.identified_by,
        g.note
    ])?;
    Ok(())
}

pub fn delete(conn: &Connection, key: &str) -> Result<(), Error> {
    conn.prepare_cached("DELETE FROM games WHERE key = ?1")?
        .execute([key])?;
    Ok(())
}

/// Recompute `playable`: the header parsed, the type is known, and an update or DLC
/// has its base game in the library. Only rows whose value changes are written.
pub fn refresh_playable(conn: &Connection) -> Result<(), Error> {
    conn.execute_batch(
        "UPDATE games SET playable = p.value
         FROM (SELECT g.key AS key,
                      CASE WHEN g.header_ok = 0 OR g.type = 'INCONNU' THEN 0
                           WHEN g.type = 'BASE' THEN 1
                           WHEN EXISTS (SELECT 1 FROM games b
                                        WHERE b.title_id = g.base_title_id AND b.type = 'BASE')
                           THEN 1
                           ELSE 0 END AS value
               FROM games g) AS p
         WHERE games.key = p.key AND games.playable <> p.value",
    )?;
    Ok(())
}

/// A game's key, title ID, name from its file name, and current display name.
pub type Names = (String, Option<String>, String, String);

/// Every game's names, for renaming after a title import.
pub fn names(conn: &Connection) -> Result<Vec<Names>, Error> {
    let mut stmt = conn.prepare("SELECT key, title_id, file_name_name, name FROM games")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn rename(conn: &Connection, key: &str, name: &str, folded: &str) -> Result<(), Error> {
    conn.prepare_cached("UPDATE games SET name = ?2, folded = ?3 WHERE key = ?1")?
        .execute(params![key, name, folded])?;
    Ok(())
}
