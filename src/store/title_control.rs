//! The `title_control` table: a title's names, publisher, display version and whether
//! an icon was cached, as its own files' Control NCAs give them (read with the console
//! keys). Title data wins where it knows the title; these fill the gaps (homebrew,
//! cartridge-only and new titles) and are shown beside it.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;
use crate::words::TitleId;

/// What a Control NCA says of a title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlRow {
    pub title_id: TitleId,
    /// The first language's name and publisher (American English when there is one).
    pub name: String,
    pub publisher: String,
    pub display_version: String,
    /// JSON: `[[language index, name, publisher], …]`.
    pub names: String,
    pub icon: bool,
    /// The file it was read from.
    pub from_key: String,
}

pub fn upsert(conn: &Connection, c: &ControlRow) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO title_control (title_id, name, publisher, display_version, names, icon,
                                    from_key)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT(title_id) DO UPDATE SET
             name = excluded.name, publisher = excluded.publisher,
             display_version = excluded.display_version, names = excluded.names,
             icon = excluded.icon OR icon, from_key = excluded.from_key",
    )?
    .execute(params![
        c.title_id,
        c.name,
        c.publisher,
        c.display_version,
        c.names,
        c.icon,
        c.from_key
    ])?;
    Ok(())
}

/// The name the files give `title_id`, if any.
pub fn name(conn: &Connection, title_id: TitleId) -> Result<Option<String>, Error> {
    let mut stmt = conn.prepare_cached("SELECT name FROM title_control WHERE title_id = ?1")?;
    Ok(stmt.query_row([title_id], |r| r.get(0)).optional()?)
}

/// Whether no file was read with the console keys yet: the lists then look up no
/// display version, row by row, for nothing.
pub fn is_empty(conn: &Connection) -> Result<bool, Error> {
    let mut stmt = conn.prepare_cached("SELECT NOT EXISTS (SELECT 1 FROM title_control)")?;
    Ok(stmt.query_row([], |r| r.get(0))?)
}

/// The display version ("1.2.0") of `title_id` at `version`: what the Control NCA
/// says, when it was read from a file of that version (a later scan of an older
/// update may have written the row).
pub fn display_version(
    conn: &Connection,
    title_id: TitleId,
    version: u32,
) -> Result<Option<String>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.display_version FROM title_control t JOIN games g ON g.key = t.from_key
         WHERE t.title_id = ?1 AND g.version = ?2 AND t.display_version <> ''",
    )?;
    Ok(stmt
        .query_row(rusqlite::params![title_id, version], |r| r.get(0))
        .optional()?)
}

pub fn get(conn: &Connection, title_id: TitleId) -> Result<Option<ControlRow>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT title_id, name, publisher, display_version, names, icon, from_key
         FROM title_control WHERE title_id = ?1",
    )?;
    Ok(stmt
        .query_row([title_id], |r| {
            Ok(ControlRow {
                title_id: r.get(0)?,
                name: r.get(1)?,
                publisher: r.get(2)?,
                display_version: r.get(3)?,
                names: r.get(4)?,
                icon: r.get(5)?,
                from_key: r.get(6)?,
            })
        })
        .optional()?)
}
