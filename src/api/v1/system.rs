//! Who the service is and whether it is alive: health, system, the API description.

use super::types::{Health, System};
use crate::error::Error;
use crate::http::{Ctx, Reply};
use crate::library;

/// The OpenAPI 3.1 description of this API, checked in beside the handlers.
pub const OPENAPI: &str = include_str!("openapi.json");

pub fn openapi(_: &Ctx) -> Result<Reply, Error> {
    Ok(Reply::new(
        200,
        "application/json",
        OPENAPI.as_bytes().to_vec(),
    ))
}

/// Liveness: 200 when the database answers.
pub fn health(c: &Ctx) -> Result<Reply, Error> {
    crate::store::db::answers(c.db)?;
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
            library_ready: library::is_ready(c.db, &c.app.config)?,
        },
    )
}
