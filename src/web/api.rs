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
