//! The `organize_moves` table: each file an `organize` run moved, from where to where,
//! and how far its move (or its undoing) got.

use rusqlite::{params, Connection};

use crate::error::Error;
use crate::words::MoveState;

#[derive(Debug, Clone)]
pub struct MoveRow {
    pub id: i64,
    pub from_key: String,
    pub to_key: String,
    pub state: MoveState,
}

pub fn insert(conn: &Connection, run: i64, from: &str, to: &str) -> Result<i64, Error> {
    conn.prepare_cached(
        "INSERT INTO organize_moves (run, from_key, to_key, state) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![run, from, to, MoveState::Moving])?;
    Ok(conn.last_insert_rowid())
}

pub fn set_state(conn: &Connection, id: i64, state: MoveState) -> Result<(), Error> {
    conn.prepare_cached("UPDATE organize_moves SET state = ?2 WHERE id = ?1")?
        .execute(params![id, state])?;
    Ok(())
}

/// Forget a move that did not happen.
pub fn delete(conn: &Connection, id: i64) -> Result<(), Error> {
    conn.prepare_cached("DELETE FROM organize_moves WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

const COLUMNS: &str = "id, from_key, to_key, state";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<MoveRow> {
    Ok(MoveRow {
        id: r.get(0)?,
        from_key: r.get(1)?,
        to_key: r.get(2)?,
        state: r.get(3)?,
    })
}

/// A run's moves, last first (the order an undo takes them in).
pub fn of_run(conn: &Connection, run: i64) -> Result<Vec<MoveRow>, Error> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM organize_moves WHERE run = ?1 ORDER BY id DESC"
    ))?;
    super::all(&mut stmt, [run], from_row)
}

/// Moves a kill left halfway (`moving` or `undoing`).
pub fn unfinished(conn: &Connection) -> Result<Vec<MoveRow>, Error> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM organize_moves WHERE state IN ('moving', 'undoing') ORDER BY id"
    ))?;
    super::all(&mut stmt, [], from_row)
}

/// How many moves a run has in a state.
pub fn count(conn: &Connection, run: i64, state: MoveState) -> Result<u64, Error> {
    Ok(conn.query_row(
        "SELECT count(*) FROM organize_moves WHERE run = ?1 AND state = ?2",
        params![run, state],
        |r| r.get::<_, i64>(0),
    )? as u64)
}
