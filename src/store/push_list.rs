//! The `push_list` table: the games waiting to be offered to the handheld.

use rusqlite::{params, Connection};

use crate::error::Error;

/// The pending games in the order they were added: key and size (0 when the library
/// no longer has it).
pub fn list(conn: &Connection) -> Result<Vec<(String, u64)>, Error> {
    let mut stmt = conn.prepare(
        "SELECT p.key, coalesce(g.size, 0) FROM push_list p LEFT JOIN games g ON g.key = p.key
         ORDER BY p.rowid",
    )?;
    super::all(&mut stmt, [], |r| {
        Ok((r.get(0)?, r.get::<_, i64>(1)? as u64))
    })
}

/// A pending game as the console page shows it: what the library knows of it
/// (nothing when it left the library).
#[derive(Debug, Clone)]
pub struct PendingGame {
    pub key: String,
    pub size: u64,
    pub name: Option<String>,
    pub kind: Option<crate::words::GameKind>,
    pub version: Option<u32>,
    /// Its header did not read, or a task found it broken: the list flags it.
    pub damaged: bool,
}

/// The pending games with their names, in the order they were added.
pub fn entries(conn: &Connection) -> Result<Vec<PendingGame>, Error> {
    let mut stmt = conn.prepare(
        "SELECT p.key, coalesce(g.size, 0), g.name, g.type, g.version,
                coalesce(NOT (g.header_ok AND g.damage IS NULL), 0)
         FROM push_list p LEFT JOIN games g ON g.key = p.key ORDER BY p.rowid",
    )?;
    super::all(&mut stmt, [], |r| {
        Ok(PendingGame {
            key: r.get(0)?,
            size: r.get::<_, i64>(1)? as u64,
            name: r.get(2)?,
            kind: r.get(3)?,
            version: r.get(4)?,
            damaged: r.get(5)?,
        })
    })
}

pub fn add(conn: &Connection, key: &str, now: i64) -> Result<(), Error> {
    conn.execute(
        "INSERT OR IGNORE INTO push_list (key, added_at) VALUES (?1, ?2)",
        params![key, now],
    )?;
    Ok(())
}

/// False when the key was not in the list.
pub fn remove(conn: &Connection, key: &str) -> Result<bool, Error> {
    Ok(conn.execute("DELETE FROM push_list WHERE key = ?1", [key])? == 1)
}

/// Take off the list every key starting with `prefix` (a removed library folder's).
pub fn remove_under(conn: &Connection, prefix: &str) -> Result<(), Error> {
    let (start, end) = super::under(prefix);
    conn.execute(
        "DELETE FROM push_list WHERE key >= ?1 AND key < ?2",
        params![start, end],
    )?;
    Ok(())
}

pub fn clear(conn: &Connection) -> Result<(), Error> {
    conn.execute("DELETE FROM push_list", [])?;
    Ok(())
}

/// The file at `from` now lives at `to` (`organize`).
pub fn rekey(conn: &Connection, from: &str, to: &str) -> Result<(), Error> {
    conn.prepare_cached("UPDATE push_list SET key = ?2 WHERE key = ?1")?
        .execute(params![from, to])?;
    Ok(())
}
