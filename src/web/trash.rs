//! The trash: moving a game into it, and the page that restores or purges entries.

use maud::{html, Markup};
use serde::{Deserialize, Serialize};

use super::body;
use super::view::{count, date, page, size, Viewer};
use crate::api::v1::types::TrashEntry;
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::library::LibraryKey;
use crate::store::trash::{self as trash_store, TrashRow};
use crate::trash;
use crate::words::TrashReason;

/// `GET /trash`. After a purge of many entries the script comes back here with
/// `?purged=N&bytes=B` (the route's answer), and the page says what was freed.
pub fn trash_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let rows = trash_store::list(c.db)?;
    let folders = c.app.config.folders();
    let body = html! {
        (freed(c, &v))
        @if rows.is_empty() {
            p.empty #trash-empty { (v.t(M::TrashEmpty)) }
        } @else {
            p #trash-count data-files=(rows.len()) { (count(&v, rows.len() as u64, M::FileWord, M::FilesWord)) " · " (size(&v, rows.iter().map(|r| r.size).sum())) }
            // Above the list, which may be long.
            @if v.admin { (purges(&v, &rows)) }
            div.scroll {
                table #trash {
                    thead { tr {
                        th { (v.t(M::Name)) } th.num { (v.t(M::Size)) } th.wide { (v.t(M::Reason)) }
                        th.wide { (v.t(M::Deleted)) } th { (v.t(M::Expires)) }
                    } }
                    tbody {
                        @for r in &rows {
                            tr data-entry=(r.id) {
                                td {
                                    (r.name) br; small { code { (r.key) } }
                                    @if let Some(name) = folder_of(&folders, r) {
                                        br; small.folder data-folder=(name) { (v.t(M::LibraryFolderLabel)) (v.colon()) (name) }
                                    }
                                    // Under the name, not in a column of their own: a
                                    // phone has no room for one.
                                    @if v.admin { (entry_actions(&v, &folders, r)) }
                                }
                                td.num { (size(&v, r.size)) }
                                td.wide { (v.t(M::of_reason(r.reason))) }
                                td.wide { (date(&v, Some(r.deleted_at))) }
                                td { (date(&v, Some(r.expires_at))) }
                            }
                        }
                    }
                }
            }
        }
    };
    page(&v, v.t(M::Trash), "/trash", body)
}

/// The further library folder whose trash holds a game's entry (none in the first).
fn folder_of<'a>(folders: &'a crate::tree::Folders, r: &TrashRow) -> Option<&'a str> {
    let i = folders.index_of(&r.key);
    (r.reason != TrashReason::Save && i > 0).then(|| folders.all()[i].name.as_str())
}

/// An entry's buttons, and its "restore under another name" form: shown at once
/// when a file already holds the entry's place, hidden otherwise (the script shows
/// it when a restore meets a file that appeared since). Its name is one free now.
fn entry_actions(v: &Viewer, folders: &crate::tree::Folders, r: &TrashRow) -> Markup {
    let restore = format!("/api/trash/{}/restore", r.id);
    let key = LibraryKey::parse(&r.key);
    let occupied = key
        .as_ref()
        .is_some_and(|k| std::fs::symlink_metadata(folders.locate(k).path()).is_ok());
    let free = key.as_ref().map(|k| trash::free_name(folders, k));
    html! {
        div.actions {
            button type="button" data-api=(restore) hidden[occupied] { (v.t(M::Restore)) }
            button.danger type="button" data-method="DELETE" data-api={ "/api/trash/" (r.id) }
                data-confirm=(v.msg(&Msg::ConfirmPurgeOne { name: r.key.clone(), bytes: r.size })) { (v.t(M::Purge)) }
        }
        @if let Some(free) = free {
            form.stack.restore-as data-api=(restore) hidden[!occupied] {
                p.note { (v.t(M::RestoreAsNote)) }
                label { (v.t(M::NewName)) input name="name" value=(free) required maxlength="255"; }
                button type="submit" { (v.t(M::RestoreAs)) }
            }
        }
    }
}

/// "3 files, 12.4 GB" in the reader's language.
fn files_and_size(v: &Viewer, n: usize, bytes: u64) -> String {
    let files = count(v, n as u64, M::FileWord, M::FilesWord);
    format!("{files}, {}", size(v, bytes))
}

/// The buttons that purge many entries at once, each saying what it frees.
fn purges(v: &Viewer, rows: &[TrashRow]) -> Markup {
    let all = (rows.len(), rows.iter().map(|r| r.size).sum::<u64>());
    let converted: Vec<&TrashRow> = rows
        .iter()
        .filter(|r| r.reason == TrashReason::Converted)
        .collect();
    let conv = (
        converted.len(),
        converted.iter().map(|r| r.size).sum::<u64>(),
    );
    let what = |(n, bytes): (usize, u64)| files_and_size(v, n, bytes);
    html! {
        div.actions #purges {
            @if conv.0 > 0 {
                button.danger type="button" #purge-converted data-files=(conv.0) data-bytes=(conv.1) data-api="/api/trash/purge-converted" data-then="freed"
                    data-confirm=(v.msg(&Msg::ConfirmPurgeConverted { files: conv.0 as u64, bytes: conv.1 })) {
                    (v.t(M::PurgeConverted)) " (" (what(conv)) ")"
                }
            }
            button.danger type="button" #empty-trash data-files=(all.0) data-bytes=(all.1) data-api="/api/trash/empty" data-then="freed"
                data-confirm=(v.msg(&Msg::ConfirmEmptyTrash { files: all.0 as u64, bytes: all.1 })) {
                (v.t(M::EmptyTrash)) " (" (what(all)) ")"
            }
            button.secondary type="button" data-api="/api/trash/purge" { (v.t(M::PurgeExpired)) }
        }
    }
}

/// What the last purge freed, from the query the script came back with.
fn freed(c: &Ctx, v: &Viewer) -> Markup {
    let number = |name: &str| c.req.query(name).and_then(|n| n.parse::<u64>().ok());
    let (Some(n), Some(bytes)) = (number("purged"), number("bytes")) else {
        return html! {};
    };
    let text = v.msg(&Msg::Freed { files: n, bytes });
    html! { p.freed.ok #freed data-files=(n) data-bytes=(bytes) role="status" { (text) } }
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
        &cfg.folders(),
        &key,
        TrashReason::Deleted,
        cfg.retention_days(c.db),
    )?;
    crate::titles::model::refresh_after_change(c.db);
    Reply::json(200, &TrashEntry::from(&row))
}

#[derive(Deserialize)]
struct RestoreForm {
    name: String,
}

/// `POST /api/trash/{id}/restore`, with an optional body `{"name": "..."}`: back at
/// its key, or under that file name in the same folder. Never over a file (409).
pub fn restore(c: &Ctx) -> Result<Reply, Error> {
    let name = match c.req.body.iter().all(u8::is_ascii_whitespace) {
        true => None,
        false => Some(body::<RestoreForm>(c, "nothing, or name")?.name),
    };
    let keys = c.app.prod_keys.current();
    let keys = keys.as_ref().map(|loaded| &loaded.keys);
    let row = trash::restore_as(
        c.db,
        &trash::Places::of(&c.app.config, c.db)?,
        id(c)?,
        name.as_deref(),
        keys,
    )?;
    Reply::json(200, &TrashEntry::from(&row))
}

pub fn purge(c: &Ctx) -> Result<Reply, Error> {
    let row = trash::purge(c.db, &trash::Places::of(&c.app.config, c.db)?, id(c)?)?;
    Reply::json(200, &TrashEntry::from(&row))
}

pub fn purge_expired(c: &Ctx) -> Result<Reply, Error> {
    let purged = trash::purge_expired(
        c.db,
        &trash::Places::of(&c.app.config, c.db)?,
        crate::time::now(),
    )?;
    Reply::json(200, &serde_json::json!({ "purged": purged }))
}

#[derive(Serialize)]
struct Freed {
    purged: usize,
    bytes: u64,
}

/// `POST /api/trash/empty`: every entry, for good.
pub fn empty(c: &Ctx) -> Result<Reply, Error> {
    let (purged, bytes) =
        trash::purge_where(c.db, &trash::Places::of(&c.app.config, c.db)?, |_| true)?;
    Reply::json(200, &Freed { purged, bytes })
}

/// `POST /api/trash/purge-converted`: the originals a conversion replaced (their
/// converted files stay in the library), for good.
pub fn purge_converted(c: &Ctx) -> Result<Reply, Error> {
    let (purged, bytes) =
        trash::purge_where(c.db, &trash::Places::of(&c.app.config, c.db)?, |r| {
            r.reason == TrashReason::Converted
        })?;
    Reply::json(200, &Freed { purged, bytes })
}

#[derive(Deserialize)]
struct RetentionForm {
    days: u32,
}

/// `POST /api/trash/settings` `{days}`: how long a file put in the trash from now on
/// is kept (1 to 3650 days; those already there keep their date). Refused while
/// `--trash-retention-days` sets it: the flag wins, and the page says so.
pub fn set_retention(c: &Ctx) -> Result<Reply, Error> {
    if c.app.config.serve.trash_retention_days.is_some() {
        return Err(Error::conflict(Msg::RetentionByFlag));
    }
    let form: RetentionForm = body(c, "days, 1 to 3650")?;
    if !(1..=3650).contains(&form.days) {
        return Err(Error::invalid(Msg::BadRetention));
    }
    crate::store::settings::set_trash_retention(c.db, form.days)?;
    Reply::json(200, &serde_json::json!({"days": form.days}))
}

/// Settings' row for the trash's retention: a form for an admin, the flag when one
/// sets it.
pub fn retention_setting(c: &Ctx, v: &Viewer) -> Markup {
    let days = c.app.config.retention_days(c.db);
    let by_flag = c.app.config.serve.trash_retention_days.is_some();
    html! {
        @if v.admin && !by_flag {
            form.inline #retention-form data-api="/api/trash/settings" {
                input type="number" name="days" min="1" max="3650" value=(days) required aria-label=(v.t(M::Retention));
                " " (v.t(M::Days)) " "
                button type="submit" { (v.t(M::Save)) }
            }
        } @else {
            (days) " " (v.t(M::Days))
            @if by_flag { " · " (v.t(M::SetByFlag)) " " code.flag { "--trash-retention-days" } }
        }
    }
}
