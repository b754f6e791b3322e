//! The `saves` table: the save backups consoles uploaded (`crate::saves`), one row
//! per kept version. The row's id is the upload order, so "the latest" is exact even
//! for two uploads within the same second.

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::error::Error;
use crate::words::TitleId;

#[derive(Debug, Clone, PartialEq)]
pub struct SaveRow {
    pub id: i64,
    pub console: String,
    pub title_id: TitleId,
    pub save_id: String,
    pub note: String,
    pub size: u64,
    pub created_ms: i64,
}

const COLUMNS: &str = "id, console, title_id, save_id, note, size, created_ms";

fn from_row(r: &Row<'_>) -> rusqlite::Result<SaveRow> {
    Ok(SaveRow {
        id: r.get(0)?,
        console: r.get(1)?,
        title_id: r.get(2)?,
        save_id: r.get(3)?,
        note: r.get(4)?,
        size: r.get::<_, i64>(5)? as u64,
        created_ms: r.get(6)?,
    })
}

/// Keep a new version; its id.
pub fn insert(conn: &Connection, row: &SaveRow) -> Result<i64, Error> {
    conn.execute(
        "INSERT INTO saves (console, title_id, save_id, note, size, created_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            row.console,
            row.title_id,
            row.save_id,
            row.note,
            row.size as i64,
            row.created_ms
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// A console's kept versions (none in the trash): by title, the latest first.
pub fn of_console(conn: &Connection, console: &str) -> Result<Vec<SaveRow>, Error> {
    let sql = format!(
        "SELECT {COLUMNS} FROM saves WHERE console = ?1 AND trash IS NULL
         ORDER BY title_id, id DESC"
    );
    let mut stmt = conn.prepare(&sql)?;
    super::all(&mut stmt, [console], from_row)
}

/// One kept version: the one with `save_id`, or the latest when it is `None`.
pub fn find(
    conn: &Connection,
    console: &str,
    title_id: TitleId,
    save_id: Option<&str>,
) -> Result<Option<SaveRow>, Error> {
    let sql = format!(
        "SELECT {COLUMNS} FROM saves
         WHERE console = ?1 AND title_id = ?2 AND (?3 IS NULL OR save_id = ?3)
           AND trash IS NULL
         ORDER BY id DESC LIMIT 1"
    );
    Ok(conn
        .query_row(&sql, params![console, title_id, save_id], from_row)
        .optional()?)
}

/// Whether a version of that ID exists, kept or in the trash (IDs are never reused).
pub fn taken(
    conn: &Connection,
    console: &str,
    title_id: TitleId,
    save_id: &str,
) -> Result<bool, Error> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM saves WHERE console = ?1 AND title_id = ?2 AND save_id = ?3",
            params![console, title_id, save_id],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// The kept versions of a console's title past the `keep` latest: oldest last.
pub fn beyond(
    conn: &Connection,
    console: &str,
    title_id: TitleId,
    keep: u32,
) -> Result<Vec<SaveRow>, Error> {
    let sql = format!(
        "SELECT {COLUMNS} FROM saves WHERE console = ?1 AND title_id = ?2 AND trash IS NULL
         ORDER BY id DESC LIMIT -1 OFFSET ?3"
    );
    let mut stmt = conn.prepare(&sql)?;
    super::all(&mut stmt, params![console, title_id, keep], from_row)
}

/// The version is in the trash as entry `trash` (`None`: back out of it).
pub fn set_trash(conn: &Connection, id: i64, trash: Option<i64>) -> Result<(), Error> {
    conn.execute(
        "UPDATE saves SET trash = ?2 WHERE id = ?1",
        params![id, trash],
    )?;
    Ok(())
}

/// The version the trash entry `trash` holds.
pub fn in_trash(conn: &Connection, trash: i64) -> Result<Option<SaveRow>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM saves WHERE trash = ?1");
    Ok(conn.query_row(&sql, [trash], from_row).optional()?)
}

/// Forget the version the trash entry `trash` held (purged).
pub fn forget_trashed(conn: &Connection, trash: i64) -> Result<(), Error> {
    conn.execute("DELETE FROM saves WHERE trash = ?1", [trash])?;
    Ok(())
}

/// Forget a version whose file became something else (moved over WebDAV).
pub fn forget(conn: &Connection, id: i64) -> Result<(), Error> {
    conn.execute("DELETE FROM saves WHERE id = ?1", [id])?;
    Ok(())
}
