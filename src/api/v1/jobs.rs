//! The task slot: its status, and starting a scan, a convert or a push.

use super::types::JobStatus;
use crate::error::Error;
use crate::http::{Ctx, Reply};
use crate::jobs::Task;

pub fn job(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(200, &JobStatus::from(&c.app.jobs.snapshot()))
}

/// 202 with the status of the task just started; 409 `busy` when one runs. The web
/// interface's own task buttons answer the same way.
pub fn start(c: &Ctx, task: Task) -> Result<Reply, Error> {
    let snapshot = c.app.jobs.try_start(task, &starter(c))?;
    Reply::json(202, &JobStatus::from(&snapshot))
}

pub fn scan(c: &Ctx) -> Result<Reply, Error> {
    start(c, Task::Scan)
}

pub fn convert(c: &Ctx) -> Result<Reply, Error> {
    start(c, Task::Convert)
}

pub fn push(c: &Ctx) -> Result<Reply, Error> {
    start(c, Task::Push)
}

/// Who starts a task, as the job status's `started_by` says it: `user:NAME`,
/// `key:NAME` or `local` (the loopback rule).
pub fn starter(c: &Ctx) -> String {
    use crate::http::auth::Principal;
    match &c.principal {
        Principal::User(u) => format!("user:{}", u.name),
        Principal::Key { id, prefix } => match crate::store::api_keys::get(c.db, *id) {
            Ok(Some(key)) => format!("key:{}", key.name),
            _ => format!("key:{prefix}"),
        },
        _ => "local".into(),
    }
}
