//! The `settings` table: small named values the service keeps between runs.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;

pub fn get(conn: &Connection, name: &str) -> Result<Option<String>, Error> {
    Ok(conn
        .prepare_cached("SELECT value FROM settings WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?)
}

pub fn set(conn: &Connection, name: &str, value: &str) -> Result<(), Error> {
    conn.execute(
        "INSERT INTO settings (name, value) VALUES (?1, ?2)
         ON CONFLICT(name) DO UPDATE SET value = excluded.value",
        params![name, value],
    )?;
    Ok(())
}

/// The library root the service last ran with (absolute; `cli::remembered_library`):
/// a command given no `--library` uses it, so that one run in another folder never
/// meets an empty `./library`.
pub const LIBRARY: &str = "library_path";
