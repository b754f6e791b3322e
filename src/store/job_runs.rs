//! The `job_runs` table: one row per task run, the history behind `last`.

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::error::Error;
use crate::words::{Task, TaskResult};

/// A finished (or still running) task run.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRun {
    pub id: i64,
    pub task: Task,
    pub result: TaskResult,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    pub done: u64,
    pub total: u64,
    pub errors: u64,
    pub message: String,
}

const COLUMNS: &str = "id, label, result, started_at, finished_at, done, total, errors, message";

fn from_row(r: &Row<'_>) -> rusqlite::Result<JobRun> {
    Ok(JobRun {
        id: r.get(0)?,
        task: r.get(1)?,
        result: r.get(2)?,
        started_at: r.get(3)?,
        finished_at: r.get(4)?,
        done: r.get::<_, i64>(5)? as u64,
        total: r.get::<_, i64>(6)? as u64,
        errors: r.get::<_, i64>(7)? as u64,
        message: r.get(8)?,
    })
}

/// Record that a run has begun; returns its id.
pub fn start(conn: &Connection, label: &str, started_at: i64) -> Result<i64, Error> {
    conn.execute(
        "INSERT INTO job_runs (label, result, started_at) VALUES (?1, 'running', ?2)",
        params![label, started_at],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Record how a run ended.
pub fn finish(conn: &Connection, run: &JobRun) -> Result<(), Error> {
    conn.execute(
        "UPDATE job_runs SET result = ?2, finished_at = ?3, done = ?4, total = ?5,
                             errors = ?6, message = ?7
         WHERE id = ?1",
        params![
            run.id,
            run.result,
            run.finished_at,
            run.done as i64,
            run.total as i64,
            run.errors as i64,
            run.message
        ],
    )?;
    Ok(())
}

/// Runs still marked `running` belong to a process that died: mark them
/// `interrupted`. Returns how many there were.
pub fn mark_interrupted(conn: &Connection, now: i64) -> Result<usize, Error> {
    Ok(conn.execute(
        "UPDATE job_runs SET result = 'interrupted', finished_at = ?1,
                message = 'The service stopped while this task was running.'
         WHERE result = 'running'",
        [now],
    )?)
}

/// The most recent finished run.
pub fn last(conn: &Connection) -> Result<Option<JobRun>, Error> {
    let sql = format!(
        "SELECT {COLUMNS} FROM job_runs WHERE result <> 'running' ORDER BY id DESC LIMIT 1"
    );
    Ok(conn.query_row(&sql, [], from_row).optional()?)
}

/// The newest runs first.
pub fn recent(conn: &Connection, limit: u32) -> Result<Vec<JobRun>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM job_runs ORDER BY id DESC LIMIT ?1 + 0");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([limit], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}
