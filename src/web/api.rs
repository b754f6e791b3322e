//! Internal JSON routes for the web interface: delete a game into the trash, restore,
//! purge.

use serde::Serialize;

use crate::api::v1::types::TrashEntry;
use crate::error::Error;
use crate::http::{Ctx, Reply};
use crate::trash;

fn id(c: &Ctx) -> Result<i64, Error> {
    c.param(0)
        .parse()
        .map_err(|_| Error::not_found("No trash entry has that id."))
}

/// `DELETE /api/library/{key}`: move the game's file into the trash.
pub fn delete_game(c: &Ctx) -> Result<Reply, Error> {
    let cfg = &c.app.config;
    let row = trash::move_in(
        c.db,
        &cfg.library,
        c.param(0),
        "deleted",
        cfg.trash_retention_days,
    )?;
    Reply::json(200, &TrashEntry::from(&row))
}

pub fn restore(c: &Ctx) -> Result<Reply, Error> {
    let row = trash::restore(c.db, &c.app.config.library, id(c)?)?;
    Reply::json(200, &TrashEntry::from(&row))
}

pub fn purge(c: &Ctx) -> Result<Reply, Error> {
    let row = trash::purge(c.db, &c.app.config.library, id(c)?)?;
    Reply::json(200, &TrashEntry::from(&row))
}

#[derive(Serialize)]
struct Purged {
    purged: usize,
}

pub fn purge_expired(c: &Ctx) -> Result<Reply, Error> {
    let purged = trash::purge_expired(c.db, &c.app.config.library, crate::time::now())?;
    Reply::json(200, &Purged { purged })
}

#[derive(serde::Deserialize)]
struct DeviceForm {
    host: String,
    #[serde(default)]
    port: Option<u16>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    offer_address: Option<String>,
}

/// `POST /api/device`: `{host, port?, name?, offer_address?}`.
pub fn set_device(c: &Ctx) -> Result<Reply, Error> {
    let form: DeviceForm = serde_json::from_slice(&c.req.body).map_err(|_| {
        Error::bad_request(
            "Expected a JSON object with host, and optionally port, name, offer_address.",
        )
    })?;
    crate::device::configure(
        c.db,
        form.name.as_deref().unwrap_or(""),
        &form.host,
        form.port.unwrap_or(2000),
        form.offer_address.as_deref().filter(|a| !a.is_empty()),
    )?;
    crate::api::v1::device(c)
}

pub fn clear_device(c: &Ctx) -> Result<Reply, Error> {
    crate::store::device::clear(c.db)?;
    crate::api::v1::device(c)
}

#[derive(Serialize)]
struct PushItem {
    key: String,
    size: u64,
}

#[derive(Serialize)]
struct PushList {
    items: Vec<PushItem>,
}

pub fn push_list(c: &Ctx) -> Result<Reply, Error> {
    let items = crate::store::push_list::list(c.db)?
        .into_iter()
        .map(|(key, size)| PushItem { key, size })
        .collect();
    Reply::json(200, &PushList { items })
}

pub fn push_add(c: &Ctx) -> Result<Reply, Error> {
    crate::device::add_game(c.db, c.param(0))?;
    push_list(c)
}

pub fn push_add_title(c: &Ctx) -> Result<Reply, Error> {
    crate::device::add_title(c.db, c.param(0))?;
    push_list(c)
}

pub fn push_remove(c: &Ctx) -> Result<Reply, Error> {
    if !crate::store::push_list::remove(c.db, c.param(0))? {
        return Err(Error::not_found("That game is not in the push list."));
    }
    push_list(c)
}

pub fn push_clear(c: &Ctx) -> Result<Reply, Error> {
    crate::store::push_list::clear(c.db)?;
    push_list(c)
}

#[derive(Serialize)]
struct Cancelled {
    cancelled: bool,
}

/// `POST /api/job/cancel`: ask the running task to stop at its next safe point.
pub fn cancel_job(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(
        200,
        &Cancelled {
            cancelled: c.app.jobs.cancel(),
        },
    )
}
