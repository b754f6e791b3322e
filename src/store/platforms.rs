//! The `platforms` table: which folders hold which kinds of files.

use rusqlite::Connection;

use crate::error::Error;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    pub slug: String,
    pub name: String,
    /// Relative to the library root; empty for the whole root.
    pub folder: String,
    /// Lower case, without the dot.
    pub extensions: Vec<String>,
}

pub fn list(conn: &Connection) -> Result<Vec<Platform>, Error> {
    let mut stmt =
        conn.prepare("SELECT slug, name, folder, extensions FROM platforms ORDER BY slug")?;
    let rows = stmt.query_map([], |r| {
        let extensions: String = r.get(3)?;
        Ok(Platform {
            slug: r.get(0)?,
            name: r.get(1)?,
            folder: r.get(2)?,
            extensions: extensions
                .split(',')
                .map(|e| e.trim().to_ascii_lowercase())
                .collect(),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
