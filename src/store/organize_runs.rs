//! The `organize_runs` table: one row per `organize` run that moved files.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;

/// A run, with how many of its moves are done and undone.
#[derive(Debug, Clone)]
pub struct OrganizeRun {
    pub id: i64,
    pub started_at: i64,
    pub template: String,
    pub undone_at: Option<i64>,
    pub moved: u64,
    pub undone: u64,
}

pub fn insert(conn: &Connection, started_at: i64, template: &str) -> Result<i64, Error> {
    conn.execute(
        "INSERT INTO organize_runs (started_at, template) VALUES (?1, ?2)",
        params![started_at, template],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Forget a run that moved nothing (its moves went first).
pub fn delete(conn: &Connection, id: i64) -> Result<(), Error> {
    conn.execute("DELETE FROM organize_runs WHERE id = ?1", [id])?;
    Ok(())
}

pub fn mark_undone(conn: &Connection, id: i64, at: i64) -> Result<(), Error> {
    conn.execute(
        "UPDATE organize_runs SET undone_at = ?2 WHERE id = ?1",
        params![id, at],
    )?;
    Ok(())
}

const SELECT: &str = "SELECT r.id, r.started_at, r.template, r.undone_at,
        (SELECT count(*) FROM organize_moves m WHERE m.run = r.id AND m.state IN ('moved', 'undoing')),
        (SELECT count(*) FROM organize_moves m WHERE m.run = r.id AND m.state = 'undone')
     FROM organize_runs r";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<OrganizeRun> {
    Ok(OrganizeRun {
        id: r.get(0)?,
        started_at: r.get(1)?,
        template: r.get(2)?,
        undone_at: r.get(3)?,
        moved: r.get::<_, i64>(4)? as u64,
        undone: r.get::<_, i64>(5)? as u64,
    })
}

/// The runs, newest first.
pub fn list(conn: &Connection, limit: u32) -> Result<Vec<OrganizeRun>, Error> {
    let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY r.id DESC LIMIT ?1 + 0"))?;
    super::all(&mut stmt, [limit], from_row)
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<OrganizeRun>, Error> {
    Ok(conn
        .prepare(&format!("{SELECT} WHERE r.id = ?1"))?
        .query_row([id], from_row)
        .optional()?)
}
