//! The `api_keys` table. A key itself is never stored, only its SHA-256; revoked keys
//! stay listed.

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::error::Error;

#[derive(Debug, Clone)]
pub struct ApiKey {
    pub id: i64,
    pub name: String,
    pub prefix: String,
    pub read_only: bool,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

const COLUMNS: &str = "id, name, prefix, read_only, created_at, last_used_at, revoked_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<ApiKey> {
    Ok(ApiKey {
        id: r.get(0)?,
        name: r.get(1)?,
        prefix: r.get(2)?,
        read_only: r.get(3)?,
        created_at: r.get(4)?,
        last_used_at: r.get(5)?,
        revoked_at: r.get(6)?,
    })
}

pub fn insert(
    conn: &Connection,
    name: &str,
    hash: &[u8],
    prefix: &str,
    read_only: bool,
    now: i64,
) -> Result<i64, Error> {
    conn.execute(
        "INSERT INTO api_keys (name, hash, prefix, read_only, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![name, hash, prefix, read_only, now],
    )?;
    Ok(conn.last_insert_rowid())
}

/// The key with this hash, revoked or not.
pub fn find_by_hash(conn: &Connection, hash: &[u8]) -> Result<Option<ApiKey>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE hash = ?1");
    Ok(conn.query_row(&sql, [hash], from_row).optional()?)
}

pub fn list(conn: &Connection) -> Result<Vec<ApiKey>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM api_keys ORDER BY id");
    let mut stmt = conn.prepare(&sql)?;
    super::all(&mut stmt, [], from_row)
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<ApiKey>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE id = ?1");
    Ok(conn.query_row(&sql, [id], from_row).optional()?)
}

/// Revoke a key; false when it was already revoked.
pub fn revoke(conn: &Connection, id: i64, now: i64) -> Result<bool, Error> {
    Ok(conn.execute(
        "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
        params![id, now],
    )? == 1)
}

pub fn touch(conn: &Connection, id: i64, now: i64) -> Result<(), Error> {
    conn.execute(
        "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1",
        params![id, now],
    )?;
    Ok(())
}
