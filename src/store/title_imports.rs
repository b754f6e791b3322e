//! The `title_imports` table: when title data was imported, from which files, and
//! what the import made of them.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;

#[derive(Debug, Clone)]
pub struct Import {
    pub imported_at: i64,
    pub files: String,
}

pub fn insert(conn: &Connection, at: i64, files: &str, summary: &str) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO title_imports (imported_at, files, summary) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![at, files, summary])?;
    Ok(())
}

pub fn last(conn: &Connection) -> Result<Option<Import>, Error> {
    Ok(conn
        .prepare_cached("SELECT imported_at, files FROM title_imports ORDER BY id DESC LIMIT 1")?
        .query_row([], |r| {
            Ok(Import {
                imported_at: r.get(0)?,
                files: r.get(1)?,
            })
        })
        .optional()?)
}
