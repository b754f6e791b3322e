//! The `job_runs` table: one row per task run, the history behind `last`.

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::error::{Error, Failure, Msg};
use crate::store::job_failures;
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
    /// The message in English (the API's `message`).
    pub message: String,
    /// The same message as data, to render in a reader's language; `None` for runs
    /// recorded before messages were kept as data.
    pub msg: Option<Msg>,
}

const COLUMNS: &str =
    "id, label, result, started_at, finished_at, done, total, errors, message, msg";

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
        msg: r
            .get::<_, Option<String>>(9)?
            .map(|m| job_failures::read_msg(&m)),
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

/// Record how a run ended, and the files that failed.
pub fn finish(conn: &Connection, run: &JobRun, failures: &[Failure]) -> Result<(), Error> {
    let msg = run
        .msg
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| Error::internal(e.to_string()))?;
    let tx = crate::store::db::write_transaction(conn)?;
    tx.execute(
        "UPDATE job_runs SET result = ?2, finished_at = ?3, done = ?4, total = ?5,
                             errors = ?6, message = ?7, msg = ?8
         WHERE id = ?1",
        params![
            run.id,
            run.result,
            run.finished_at,
            run.done as i64,
            run.total as i64,
            run.errors as i64,
            run.message,
            msg
        ],
    )?;
    job_failures::insert(&tx, run.id, failures)?;
    tx.commit()?;
    Ok(())
}

/// One run, by id.
pub fn get(conn: &Connection, id: i64) -> Result<Option<JobRun>, Error> {
    let sql = format!("SELECT {COLUMNS} FROM job_runs WHERE id = ?1");
    Ok(conn.query_row(&sql, [id], from_row).optional()?)
}

/// Runs still marked `running` belong to a process that died: mark them
/// `interrupted`. Returns how many there were.
pub fn mark_interrupted(conn: &Connection, now: i64) -> Result<usize, Error> {
    Ok(conn.execute(
        r#"UPDATE job_runs SET result = 'interrupted', finished_at = ?1,
                message = 'The service stopped while this task was running.',
                msg = '{"slug":"task_stopped"}'
         WHERE result = 'running'"#,
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
    super::all(&mut stmt, [limit], from_row)
}
