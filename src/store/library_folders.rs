//! The `library_folders` table: the folders an admin added to the library (from
//! Settings or `ludotheque library add`), which the service mounts at every start
//! after those `--library` gives (`tree::folders`).

use std::path::PathBuf;

use rusqlite::{params, Connection};

use crate::error::Error;

/// The added folders, in the order they were added: (name, folder).
pub fn list(conn: &Connection) -> Result<Vec<(String, PathBuf)>, Error> {
    let mut stmt = conn.prepare("SELECT name, dir FROM library_folders ORDER BY rowid")?;
    super::all(&mut stmt, [], |r| {
        Ok((r.get(0)?, PathBuf::from(r.get::<_, String>(1)?)))
    })
}

pub fn insert(conn: &Connection, name: &str, dir: &str) -> Result<(), Error> {
    conn.execute(
        "INSERT INTO library_folders (name, dir, added_at) VALUES (?1, ?2, ?3)",
        params![name, dir, crate::time::now()],
    )?;
    Ok(())
}

/// Forget an added folder; false when there was none of that name.
pub fn delete(conn: &Connection, name: &str) -> Result<bool, Error> {
    Ok(conn.execute("DELETE FROM library_folders WHERE name = ?1", [name])? > 0)
}
