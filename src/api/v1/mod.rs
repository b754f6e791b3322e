//! Handlers of the public API v1 (`../shared/spec/api-v1.md`). Each is short: read
//! the request, call the domain, shape the answer with `types`.

pub mod cache;
pub mod games;
pub mod params;
pub mod types;

use types::{Health, JobStatus, System, Trash};

use crate::error::Error;
use crate::http::{Ctx, Reply};
use crate::jobs::Task;
use crate::library;

/// The OpenAPI 3.1 description of this API, checked in beside the handlers.
pub const OPENAPI: &str = include_str!("openapi.json");

pub fn openapi(_: &Ctx) -> Result<Reply, Error> {
    Ok(Reply {
        status: 200,
        content_type: "application/json",
        headers: Vec::new(),
        body: OPENAPI.as_bytes().to_vec(),
        stream: None,
    })
}

/// Liveness: 200 when the database answers.
pub fn health(c: &Ctx) -> Result<Reply, Error> {
    c.db.query_row("SELECT 1", [], |_| Ok(()))?;
    Reply::json(200, &Health { status: "ok" })
}

pub fn system(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(
        200,
        &System {
            version: env!("CARGO_PKG_VERSION"),
            api: "v1",
            uptime_s: c.app.started.elapsed().as_secs(),
            licence: env!("CARGO_PKG_LICENSE"),
            library_ready: library::is_ready(c.db, &c.app.config.library)?,
        },
    )
}

pub fn job(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(200, &JobStatus::from(&c.app.jobs.snapshot()))
}

/// 202 with the status of the task just started; 409 `busy` when one runs.
fn start(c: &Ctx, task: Task) -> Result<Reply, Error> {
    let snapshot = c.app.jobs.try_start(task)?;
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

/// The handheld and what waits to be pushed to it.
pub fn device(c: &Ctx) -> Result<Reply, Error> {
    let d = crate::store::device::get(c.db)?;
    let pending = crate::store::push_list::list(c.db)?;
    Reply::json(
        200,
        &types::DeviceState {
            configured: d.is_some(),
            name: d.as_ref().map(|d| d.name.clone()),
            transport: "lan",
            host: d.as_ref().map(|d| d.host.clone()),
            port: d.as_ref().map(|d| d.port),
            last_contact: d
                .as_ref()
                .and_then(|d| d.last_contact)
                .map(crate::time::rfc3339),
            last_result: d.as_ref().and_then(|d| d.last_result.clone()),
            client: d.as_ref().and_then(|d| d.client.clone()),
            pending: pending.len() as u64,
            pending_bytes: pending.iter().map(|(_, size)| size).sum(),
            last_push: d
                .as_ref()
                .and_then(|d| d.last_push)
                .map(crate::time::rfc3339),
        },
    )
}

/// What the trash holds and can still be restored.
pub fn trash(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(200, &Trash::new(&crate::store::trash::list(c.db)?))
}
