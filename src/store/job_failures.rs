//! The `job_failures` table: the files a task run could not handle, each with its
//! reason, so that a `partial` run names them (the API's `last.failures`, the tasks
//! page, the command line).

use rusqlite::{params, Connection};

use crate::error::{Error, Failure, Msg};

/// Record the failures of run `run` (inside the caller's transaction).
pub fn insert(conn: &Connection, run: i64, failures: &[Failure]) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO job_failures (run, seq, key, msg, message) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (seq, f) in failures.iter().enumerate() {
        let msg = serde_json::to_string(&f.msg).map_err(|e| Error::internal(e.to_string()))?;
        stmt.execute(params![run, seq as i64, f.key, msg, f.msg.english()])?;
    }
    Ok(())
}

/// The failures of run `run`, in the order they happened.
pub fn of_run(conn: &Connection, run: i64) -> Result<Vec<Failure>, Error> {
    let mut stmt =
        conn.prepare_cached("SELECT key, msg FROM job_failures WHERE run = ?1 ORDER BY seq")?;
    let rows = stmt.query_map([run], |r| {
        Ok((r.get::<_, Option<String>>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (key, msg) = row?;
        out.push(Failure {
            key,
            msg: read_msg(&msg),
        });
    }
    Ok(out)
}

/// A stored message; one a newer build wrote that this one cannot read shows as the
/// generic internal sentence rather than failing the page.
pub fn read_msg(json: &str) -> Msg {
    serde_json::from_str(json).unwrap_or(Msg::Internal)
}
