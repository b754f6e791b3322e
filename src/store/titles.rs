//! The `titles` table: names from an imported title database, by title ID.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;

pub fn name(conn: &Connection, title_id: &str) -> Result<Option<String>, Error> {
    let mut stmt = conn.prepare_cached("SELECT name FROM titles WHERE id = ?1")?;
    Ok(stmt.query_row([title_id], |r| r.get(0)).optional()?)
}

pub fn upsert(conn: &Connection, title_id: &str, name: &str) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO titles (id, name) VALUES (?1, ?2)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name",
    )?;
    stmt.execute(params![title_id, name])?;
    Ok(())
}
