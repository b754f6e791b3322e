//! The `titles` table: what a region file of the title data says of each title ID
//! (name, publisher, release date, icon, size).

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;
use crate::words::TitleId;

/// What a region file says of one title ID.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    pub id: TitleId,
    pub name: String,
    pub publisher: Option<String>,
    /// `YYYY-MM-DD`.
    pub release_date: Option<String>,
    pub icon_url: Option<String>,
    pub size: Option<u64>,
}

pub fn name(conn: &Connection, title_id: TitleId) -> Result<Option<String>, Error> {
    let mut stmt = conn.prepare_cached("SELECT name FROM titles WHERE id = ?1")?;
    Ok(stmt.query_row([title_id], |r| r.get(0)).optional()?)
}

/// A row of `id, name, publisher, release_date, icon_url, size`.
fn facts(r: &rusqlite::Row<'_>) -> rusqlite::Result<Facts> {
    Ok(Facts {
        id: r.get(0)?,
        name: r.get(1)?,
        publisher: r.get(2)?,
        release_date: r.get(3)?,
        icon_url: r.get(4)?,
        size: r.get::<_, Option<i64>>(5)?.map(|n| n as u64),
    })
}

/// A title's facts, when the data knows it.
pub fn get(conn: &Connection, title_id: TitleId) -> Result<Option<Facts>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, name, publisher, release_date, icon_url, size FROM titles WHERE id = ?1",
    )?;
    Ok(stmt.query_row([title_id], facts).optional()?)
}

/// Write what a region file says; a later entry for the same ID wins.
pub fn upsert(conn: &Connection, f: &Facts) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO titles (id, name, publisher, release_date, icon_url, size)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, publisher = excluded.publisher,
             release_date = excluded.release_date, icon_url = excluded.icon_url,
             size = excluded.size",
    )?;
    stmt.execute(params![
        f.id,
        f.name,
        f.publisher,
        f.release_date,
        f.icon_url,
        f.size.map(|n| n as i64)
    ])?;
    Ok(())
}

pub fn count(conn: &Connection) -> Result<u64, Error> {
    Ok(conn.query_row("SELECT count(*) FROM titles", [], |r| r.get::<_, i64>(0))? as u64)
}

/// The facts of every title ID of the library's identified files.
pub fn of_library(conn: &Connection) -> Result<Vec<Facts>, Error> {
    let mut stmt = conn.prepare(
        "SELECT id, name, publisher, release_date, icon_url, size FROM titles
         WHERE id IN (SELECT title_id FROM games WHERE title_id IS NOT NULL)
         ORDER BY id",
    )?;
    super::all(&mut stmt, [], facts)
}

/// The icon URL (an `http…` one) of each title of the library (`title_state`), by
/// base title ID, in the titles' order.
pub fn library_icons(conn: &Connection) -> Result<Vec<(TitleId, String)>, Error> {
    let mut stmt = conn.prepare(
        "SELECT s.base_id, t.icon_url FROM title_state s JOIN titles t ON t.id = s.base_id
         WHERE t.icon_url LIKE 'http%' ORDER BY s.rank",
    )?;
    super::all(&mut stmt, [], |r| Ok((r.get(0)?, r.get(1)?)))
}
