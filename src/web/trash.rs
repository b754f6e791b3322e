//! The trash: moving a game into it, and the page that restores or purges entries.
//!
//! Its pages only read; every change goes through its internal `/api/` routes
//! (not part of the public contract), called by the page script.

use maud::html;
use serde::Serialize;

use super::i18n::M;
use super::view::{self, date, page, size, Viewer};
use crate::api::v1::types::TrashEntry;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::library::LibraryKey;
use crate::store::trash as trash_store;
use crate::trash;
use crate::words::TrashReason;

/// `GET /trash`.
pub fn trash_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let rows = trash_store::list(c.db)?;
    let body = html! {
        @if rows.is_empty() {
            p.empty #trash-empty { (v.t(M::TrashEmpty)) }
        } @else {
            p { (rows.len()) " · " (size(&v, rows.iter().map(|r| r.size).sum())) }
            div.scroll {
                table #trash {
                    thead { tr {
                        th { (v.t(M::Name)) } th.num { (v.t(M::Size)) } th.wide { (v.t(M::Reason)) }
                        th.wide { (v.t(M::Deleted)) } th { (v.t(M::Expires)) }
                    } }
                    tbody {
                        @for r in &rows {
                            tr {
                                td {
                                    (r.name) br; small { code { (r.key) } }
                                    // Under the name, not in a column of their own: a
                                    // phone has no room for one.
                                    @if v.admin {
                                        div.actions {
                                            button type="button" data-api={ "/api/trash/" (r.id) "/restore" } { (v.t(M::Restore)) }
                                            button.danger type="button" data-method="DELETE" data-api={ "/api/trash/" (r.id) }
                                                data-confirm=(super::phrases::purge_one(&v, &r.name, r.size)) { (v.t(M::Purge)) }
                                        }
                                    }
                                }
                                td.num { (size(&v, r.size)) }
                                td.wide { (view::reason_word(&v, r.reason)) }
                                td.wide { (date(&v, Some(r.deleted_at))) }
                                td { (date(&v, Some(r.expires_at))) }
                            }
                        }
                    }
                }
            }
            @if v.admin {
                div.actions { button.secondary type="button" data-api="/api/trash/purge" { (v.t(M::PurgeExpired)) } }
            }
        }
    };
    page(&v, v.t(M::Trash), "/trash", body)
}

fn id(c: &Ctx) -> Result<i64, Error> {
    c.param(0)
        .parse()
        .map_err(|_| Error::not_found(Msg::NoTrashEntry))
}

/// `DELETE /api/library/{key}`: move the game's file into the trash.
pub fn delete_game(c: &Ctx) -> Result<Reply, Error> {
    let cfg = &c.app.config;
    let raw = c.param(0);
    let key =
        LibraryKey::parse(raw).ok_or_else(|| Error::not_found(Msg::NoGame { key: raw.into() }))?;
    let row = trash::move_in(
        c.db,
        &cfg.library,
        &key,
        TrashReason::Deleted,
        cfg.trash_retention_days,
    )?;
    crate::titles::model::refresh_after_change(c.db);
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
