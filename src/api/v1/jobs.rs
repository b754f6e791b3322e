//! The task slot: its status, and starting a scan, a convert, a push or a compress.

use super::types::JobStatus;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::jobs::Task;
use crate::words::StartedBy;

pub fn job(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(200, &JobStatus::from(&c.app.jobs.snapshot()))
}

/// 202 with the status of the task just started; 409 `busy` when one runs. The web
/// interface's own task buttons answer the same way.
pub fn start(c: &Ctx, task: Task) -> Result<Reply, Error> {
    start_on(c, task, Vec::new())
}

/// [`start`] on the files at `only` (library keys; empty: the whole library).
pub fn start_on(c: &Ctx, task: Task, only: Vec<String>) -> Result<Reply, Error> {
    let start = crate::jobs::Start {
        only,
        ..Default::default()
    };
    let snapshot = c.app.jobs.try_start_with(task, starter(c), start)?;
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

/// The optional body of `POST /api/v1/compress`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CompressBody {
    #[serde(default)]
    keys: Vec<String>,
}

/// `POST /api/v1/compress`: every `.nsp` and `.xci`, or only the games of the body's
/// `keys` (400 when the body is not that object, 404 when a key names no game, both
/// before anything starts; 409 while a task runs).
pub fn compress(c: &Ctx) -> Result<Reply, Error> {
    let body = &c.req.body;
    let keys = if body.iter().all(u8::is_ascii_whitespace) {
        Vec::new()
    } else {
        let bad = || {
            Error::invalid(Msg::BadJson {
                expected: "\"keys\": an array of game keys".into(),
            })
        };
        // An object only: serde reads a struct from an array too, and `[]` would
        // then mean "every file" (found by the conformance run's fuzzing).
        let value: serde_json::Value =
            serde_json::from_slice(body).map_err(|e| bad().with_cause(e))?;
        if !value.is_object() {
            return Err(bad().with_cause("the body is not a JSON object"));
        }
        let parsed: CompressBody =
            serde_json::from_value(value).map_err(|e| bad().with_cause(e))?;
        parsed.keys
    };
    let mut only = Vec::with_capacity(keys.len());
    for key in keys {
        match crate::library::find(c.db, &key)? {
            Some(g) => only.push(g.item.key),
            None => return Err(Error::not_found(Msg::NoGame { key })),
        }
    }
    start_on(c, Task::Compress, only)
}

/// Who starts a task, as the job status's `started_by` says it: `user:NAME`,
/// `key:NAME` or `local` (the loopback rule).
pub fn starter(c: &Ctx) -> StartedBy {
    use crate::http::auth::Principal;
    match &c.principal {
        Principal::User(u) => StartedBy::User(u.name.clone()),
        Principal::Key { id, prefix } => match crate::store::api_keys::get(c.db, *id) {
            Ok(Some(key)) => StartedBy::Key(key.name),
            _ => StartedBy::Key(prefix.clone()),
        },
        _ => StartedBy::Local,
    }
}
