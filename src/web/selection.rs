//! The file list's selection: tick files, then move them to the trash, add them to
//! the push list, decompress or compress them, each after one confirmation that
//! names how many files and how many bytes it acts on (as RomM and Immich do for a
//! selection). The page script writes that sentence from the rows' sizes and the
//! templates given here; the routes check every key before they change anything.

use maud::{html, Markup};
use serde::Deserialize;

use super::body;
use super::view::Viewer;
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::library::LibraryKey;
use crate::store::games::GameDetail;
use crate::words::{Container, Task, TrashReason};

/// What each ticked row carries for the script: its key (the box's value), its size
/// and whether decompress or compress apply to it.
pub fn row_data(key: &str) -> (&'static str, &'static str) {
    let convertible = is_compressed(key);
    let compressible = super::compress::compressible(key);
    (
        if convertible { "true" } else { "false" },
        if compressible { "true" } else { "false" },
    )
}

/// Whether a key's extension is one decompress works on.
fn is_compressed(key: &str) -> bool {
    Container::of_name(key).is_some_and(Container::is_compressed)
}

/// The bar above the list: what is ticked, and the four actions. Each button's
/// `data-confirm` sentence and `data-body` are written by the script as boxes are
/// ticked; the templates, the count's words and the units come from here, in the
/// reader's language. Compress is off without the console keys.
pub fn bar(c: &Ctx, v: &Viewer) -> Markup {
    let no_keys = c.app.prod_keys.current().is_none();
    let grammar = v.lang.grammar();
    let (units, comma) = (grammar.units().join(","), grammar.point() == ',');
    let estimate = super::compress::ESTIMATE;
    let action = |id: &str, which: &str, api: &str, then: &str, label: M, ask: M| {
        let danger = id == "trash-selected";
        html! {
            button.danger[danger] type="button" id=(id) data-selection=(which) data-api=(api) data-then=(then)
                data-confirm="" data-ask=(v.t(ask)) disabled { (v.t(label)) }
        }
    };
    html! {
        div.selection #selection data-one=(v.t(M::FileCountOne)) data-many=(v.t(M::FileCountMany))
            data-picked=(v.t(M::SelectionSummary)) data-units=(units) data-comma=(comma)
            data-estimate=(v.t(M::CompressEstimate)) data-low=(estimate.0) data-high=(estimate.1) {
            p.hint #selection-summary aria-live="polite" { (v.t(M::SelectionHint)) }
            div.actions {
                (action("trash-selected", "all", "/api/files/trash", "reload", M::DeleteToTrash, M::ConfirmTrashSelection))
                (action("push-selected", "all", "/api/files/push", "/push", M::AddToPush, M::ConfirmPushSelection))
                (action("convert-selected", "convert", "/api/files/convert", "/tasks", M::ConvertSelected, M::ConfirmConvertSelection))
                button type="button" #compress-selected data-selection="compress" data-api="/api/compress-files"
                    data-then="/tasks" data-confirm="" data-ask=(v.t(M::ConfirmCompressSelection))
                    data-blocked[no_keys] disabled aria-describedby="compress-selected-estimate" { (v.t(M::CompressSelected)) }
            }
            p.hint #compress-selected-estimate {
                @if no_keys { (super::view::keys_hint(v, M::CompressNoKeys)) } @else { (v.t(M::CompressSelectHint)) }
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    keys: Vec<String>,
}

const EXPECTED: &str = "\"keys\": a non-empty array of game keys";

/// The games a selection names, every one checked before anything changes: an
/// empty list is a 400, a key that names no game a 404.
fn games_of(c: &Ctx) -> Result<Vec<GameDetail>, Error> {
    let form: Keys = body(c, EXPECTED)?;
    if form.keys.is_empty() {
        return Err(Error::invalid(Msg::BadJson {
            expected: EXPECTED.into(),
        }));
    }
    let mut games = Vec::with_capacity(form.keys.len());
    for key in form.keys {
        match crate::library::find(c.db, &key)? {
            Some(g) => games.push(g),
            None => return Err(Error::not_found(Msg::NoGame { key })),
        }
    }
    games.sort_by(|a, b| a.item.key.cmp(&b.item.key));
    games.dedup_by(|a, b| a.item.key == b.item.key);
    Ok(games)
}

/// What a selection's action did: how many files, how many bytes.
fn done(files: usize, bytes: u64) -> Result<Reply, Error> {
    Reply::json(200, &serde_json::json!({ "files": files, "bytes": bytes }))
}

/// `POST /api/files/trash` `{keys}`: each file to the trash (restorable there), then
/// the titles computed again once. `{files, bytes}`: what moved.
pub fn trash(c: &Ctx) -> Result<Reply, Error> {
    let games = games_of(c)?;
    let cfg = &c.app.config;
    let keys = games
        .iter()
        .map(|g| {
            LibraryKey::parse(&g.item.key).ok_or_else(|| {
                Error::not_found(Msg::NoGame {
                    key: g.item.key.clone(),
                })
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    // Every file is checked on disk before any moves (a FIFO or a file gone since the
    // scan refuses the whole selection); only a failing disk can stop it halfway.
    let folders = cfg.folders();
    for key in &keys {
        crate::trash::movable(c.db, &folders, key)?;
    }
    let (mut files, mut bytes) = (0, 0);
    for (g, key) in games.iter().zip(&keys) {
        let moved = crate::trash::move_in(
            c.db,
            &folders,
            key,
            TrashReason::Deleted,
            cfg.retention_days(c.db),
        );
        if let Err(e) = moved {
            // What moved before stays in the trash: the titles follow it.
            crate::titles::model::refresh_after_change(c.db);
            return Err(e);
        }
        files += 1;
        bytes += g.item.size;
    }
    crate::titles::model::refresh_after_change(c.db);
    done(files, bytes)
}

/// `POST /api/files/push` `{keys}`: each file onto the push list. `{files, bytes}`.
pub fn push(c: &Ctx) -> Result<Reply, Error> {
    let games = games_of(c)?;
    let now = crate::time::now();
    for g in &games {
        crate::store::push_list::add(c.db, &g.item.key, now)?;
    }
    done(games.len(), games.iter().map(|g| g.item.size).sum())
}

/// `POST /api/files/convert` `{keys}`: decompress these `.nsz`/`.xcz` files (never
/// the whole library: that is `POST /api/convert`). A key of another format is a
/// 400 before anything starts; 409 while a task runs.
pub fn convert(c: &Ctx) -> Result<Reply, Error> {
    let games = games_of(c)?;
    if let Some(g) = games.iter().find(|g| !is_compressed(&g.item.key)) {
        return Err(Error::invalid(Msg::NotCompressed {
            key: g.item.key.clone(),
        }));
    }
    let only = games.into_iter().map(|g| g.item.key).collect();
    crate::api::v1::jobs::start_on(c, Task::Convert, only)
}

/// `POST /api/compress-files` `{keys: [...]}`: compress these games (a title's, a
/// selection's). Never the whole library: an empty list is a 400, a key that names
/// no game a 404, both before anything starts; 409 while a task runs.
pub fn compress(c: &Ctx) -> Result<Reply, Error> {
    let only = games_of(c)?.into_iter().map(|g| g.item.key).collect();
    crate::api::v1::jobs::start_on(c, Task::Compress, only)
}
