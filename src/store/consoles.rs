//! The `consoles` table: the consoles allowed to pull from the shop. A console's
//! password is never stored, only its SHA-256 (see `crate::consoles`).

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::error::Error;

#[derive(Debug, Clone)]
pub struct Console {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    /// The address and the program of its last request (`http::auth::client_name`).
    pub last_address: Option<String>,
    pub last_client: Option<String>,
}

const COLUMNS: &str = "id, name, created_at, last_used_at, last_address, last_client";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Console> {
    Ok(Console {
        id: r.get(0)?,
        name: r.get(1)?,
        created_at: r.get(2)?,
        last_used_at: r.get(3)?,
        last_address: r.get(4)?,
        last_client: r.get(5)?,
    })
}

/// Add a console; false when the name is taken, whatever its case and form (the
/// unique `folded` column, `text::fold`).
pub fn insert(conn: &Connection, name: &str, hash: &[u8], now: i64) -> Result<bool, Error> {
    Ok(conn.execute(
        "INSERT INTO consoles (name, folded, hash, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT DO NOTHING",
        params![name, crate::text::fold(name), hash, now],
    )? == 1)
}

/// The console of that name and its password hash: the one of exactly that name, or
/// else the one whose name is the same whatever its case and Unicode form.
pub fn by_name(conn: &Connection, name: &str) -> Result<Option<(Console, Vec<u8>)>, Error> {
    let sql = format!(
        "SELECT {COLUMNS}, hash FROM consoles WHERE name = ?1 OR folded = ?2
         ORDER BY name = ?1 DESC LIMIT 1"
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(params![name, crate::text::fold(name)], |r| {
            Ok((from_row(r)?, r.get(6)?))
        })
        .optional()?)
}

pub fn list(conn: &Connection) -> Result<Vec<Console>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM consoles ORDER BY name");
    let mut stmt = conn.prepare(&sql)?;
    super::all(&mut stmt, [], from_row)
}

/// Remove a console; false when there was none.
pub fn delete(conn: &Connection, id: i64) -> Result<bool, Error> {
    Ok(conn.execute("DELETE FROM consoles WHERE id = ?1", [id])? == 1)
}

/// Replace a console's password hash; false when there is no such console.
pub fn set_hash(conn: &Connection, id: i64, hash: &[u8]) -> Result<bool, Error> {
    Ok(conn.execute(
        "UPDATE consoles SET hash = ?2 WHERE id = ?1",
        params![id, hash],
    )? == 1)
}

/// A request of the console: when, from where, by which program.
pub fn touch(
    conn: &Connection,
    id: i64,
    now: i64,
    address: &str,
    client: &str,
) -> Result<(), Error> {
    conn.prepare_cached(
        "UPDATE consoles SET last_used_at = ?2, last_address = ?3, last_client = ?4 WHERE id = ?1",
    )?
    .execute(params![id, now, address, client])?;
    Ok(())
}
