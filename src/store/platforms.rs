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

/// Add a platform; false when the slug is taken.
pub fn insert(conn: &Connection, p: &Platform) -> Result<bool, Error> {
    Ok(conn.execute(
        "INSERT INTO platforms (slug, name, folder, extensions) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(slug) DO NOTHING",
        rusqlite::params![p.slug, p.name, p.folder, p.extensions.join(",")],
    )? == 1)
}

/// Remove a platform and forget its games (their files stay where they are); false
/// when there was none.
pub fn delete(conn: &Connection, slug: &str) -> Result<bool, Error> {
    Ok(conn.execute("DELETE FROM platforms WHERE slug = ?1", [slug])? == 1)
}
