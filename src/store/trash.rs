//! The `trash` table: what was moved into the trash and until when it is kept.

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::error::Error;
use crate::words::{GameKind, TrashReason};

#[derive(Debug, Clone, PartialEq)]
pub struct TrashRow {
    pub id: i64,
    pub key: String,
    pub name: String,
    pub kind: GameKind,
    pub size: u64,
    pub reason: TrashReason,
    pub deleted_at: i64,
    pub expires_at: i64,
}

const COLUMNS: &str = "id, key, name, type, size, reason, deleted_at, expires_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<TrashRow> {
    Ok(TrashRow {
        id: r.get(0)?,
        key: r.get(1)?,
        name: r.get(2)?,
        kind: r.get(3)?,
        size: r.get::<_, i64>(4)? as u64,
        reason: r.get(5)?,
        deleted_at: r.get(6)?,
        expires_at: r.get(7)?,
    })
}

/// Insert an entry; `id` None lets SQLite choose (a recovered entry keeps its folder's).
/// The highest id an entry has had that is still in the table (0: none).
pub fn max_id(conn: &Connection) -> Result<i64, Error> {
    Ok(conn.query_row("SELECT COALESCE(MAX(id), 0) FROM trash", [], |r| r.get(0))?)
}

pub fn insert(conn: &Connection, id: Option<i64>, row: &TrashRow) -> Result<i64, Error> {
    conn.execute(
        "INSERT INTO trash (id, key, name, type, size, reason, deleted_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            id,
            row.key,
            row.name,
            row.kind,
            row.size as i64,
            row.reason,
            row.deleted_at,
            row.expires_at
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<TrashRow>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM trash WHERE id = ?1");
    Ok(conn.query_row(&sql, [id], from_row).optional()?)
}

/// Newest first.
pub fn list(conn: &Connection) -> Result<Vec<TrashRow>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM trash ORDER BY deleted_at DESC, id DESC");
    let mut stmt = conn.prepare(&sql)?;
    super::all(&mut stmt, [], from_row)
}

pub fn expired(conn: &Connection, now: i64) -> Result<Vec<TrashRow>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM trash WHERE expires_at <= ?1 ORDER BY id");
    let mut stmt = conn.prepare(&sql)?;
    super::all(&mut stmt, [now], from_row)
}

pub fn delete(conn: &Connection, id: i64) -> Result<(), Error> {
    conn.execute("DELETE FROM trash WHERE id = ?1", [id])?;
    Ok(())
}

/// The entries that go back to `key`.
pub fn with_key(conn: &Connection, key: &str) -> Result<Vec<TrashRow>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM trash WHERE key = ?1 ORDER BY id");
    let mut stmt = conn.prepare_cached(&sql)?;
    super::all(&mut stmt, [key], from_row)
}

/// An entry now goes back to `key` (its file moved with it: `trash::follow`).
pub fn set_key(conn: &Connection, id: i64, key: &str) -> Result<(), Error> {
    conn.execute("UPDATE trash SET key = ?2 WHERE id = ?1", params![id, key])?;
    Ok(())
}
