//! The dashboard (`GET /`): what the library lacks, the titles added last, the files'
//! counts, and the tasks' panel (`web::tasks`). Apart from the tasks, because it shows
//! titles' covers (`web::titles`), whose pages show the tasks' buttons in turn.

use maud::{html, Markup};

use super::tasks::{failures_of_last, first_scan_note, task_panel};
use super::view::{number, page, size, Viewer};
use crate::error::i18n::M;
use crate::error::Error;
use crate::http::auth::{self};
use crate::http::{Ctx, Reply};
use crate::store::users::{self};

/// `GET /`: what the library lacks (titles with an update or DLC missing, damaged
/// files), each card a link to that list; the titles added last; the files' counts;
/// the running task with its live progress, the last result. Every count is one the
/// lists keep per library generation: the dashboard reads no table.
pub fn dashboard(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let s = c.app.views.stats(c.db)?;
    let no_account = matches!(c.principal, auth::Principal::Local) && users::count(c.db)? == 0;
    // Scanned and empty: where games go, rather than a wall of zeros.
    let empty = s.total == 0 && crate::library::is_ready(c.db, &c.app.config)?;
    let body = html! {
        @if no_account {
            p.note { a href="/setup" { (v.t(M::NoAccountCreateOne)) } }
        }
        (first_scan_note(c, &v)?)
        @if empty { (empty_library(c, &v)) } @else {
            (missing_cards(c, &v, &s)?)
            (recently_added(c, &v)?)
            (file_cards(&v, &s))
        }
        (task_panel(c, &v, s.to_convert)?)
        (failures_of_last(c, &v))
    };
    page(&v, v.t(M::Dashboard), "/", body)
}

/// An empty library: where the files go (the library folder by its own name, never
/// its path), whether they appear by themselves, and what else helps.
fn empty_library(c: &Ctx, v: &Viewer) -> Markup {
    let config = &c.app.config;
    let folder = config
        .folders()
        .root()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let watched = config.serve.watch != crate::words::WatchMode::Off;
    html! {
        section #empty-library {
            h2 { (v.t(M::EmptyLibrary)) }
            p { (v.msg(&crate::error::Msg::WhereGamesGo { folder: folder.unwrap_or_default() })) }
            p { (v.t(if watched { M::EmptyWatched } else { M::EmptyNotWatched })) }
            ul {
                li { a href="/settings#console-keys" { (v.t(M::EmptyKeys)) } }
                li { (v.t(M::EmptyDemo)) }
            }
        }
    }
}

/// A card: its label, its value, and the list it stands for; `data-card` names it
/// for scripts and tests whatever the language. `warn` marks a count of something
/// lacking that is not zero.
fn card(
    v: &Viewer,
    name: &str,
    (label, value, href): (M, String, Option<String>),
    warn: bool,
) -> Markup {
    html! {
        @match href {
            Some(href) => a.card.warn[warn] data-card=(name) href=(href) { span.label { (v.t(label)) } span.value { (value) } },
            None => div.card data-card=(name) { span.label { (v.t(label)) } span.value { (value) } },
        }
    }
}

/// "What am I missing?": the titles, those with an update available, with DLC
/// missing, and the damaged files.
fn missing_cards(c: &Ctx, v: &Viewer, s: &crate::store::games::Counts) -> Result<Markup, Error> {
    let t = c.app.views.titles.counts(c.db)?;
    let n = |x: u64| number(v, x);
    let show =
        |status: crate::words::TitleStatus| Some(format!("/library?show={}", status.as_str()));
    use crate::words::TitleStatus::{DlcMissing, UpdateAvailable};
    Ok(html! {
        section.cards #missing-cards aria-label=(v.t(M::WhatIsMissing)) {
            (card(v, "titles", (M::Titles, n(t.titles), Some("/library".into())), false))
            (card(v, "update_available", (M::TitlesToUpdate, n(t.update_available), show(UpdateAvailable)), t.update_available > 0))
            (card(v, "dlc_missing", (M::TitlesMissingDlc, n(t.dlc_missing), show(DlcMissing)), t.dlc_missing > 0))
            (card(v, "damaged", (M::DamagedFiles, n(s.damaged), Some("/files?damaged=1".into())), s.damaged > 0))
        }
    })
}

/// The files by type and size. The compressed files are a fact, not a to-do:
/// installers take them as they are.
fn file_cards(v: &Viewer, s: &crate::store::games::Counts) -> Markup {
    let n = |x: u64| number(v, x);
    let of = |kind: crate::words::GameKind| Some(format!("/files?type={}", kind.as_str()));
    use crate::words::GameKind::{Base, Dlc, Unknown, Update};
    html! {
        h2 { (v.t(M::Files)) }
        section.cards #file-cards {
            (card(v, "files", (M::AllFiles, n(s.total), Some("/files".into())), false))
            (card(v, "base", (M::Base, n(s.base), of(Base)), false))
            (card(v, "updates", (M::Updates, n(s.update), of(Update)), false))
            (card(v, "dlc", (M::Dlc, n(s.dlc), of(Dlc)), false))
            (card(v, "unknown", (M::Unknown, n(s.unknown), of(Unknown)), false))
            (card(v, "size", (M::TotalSize, size(v, s.bytes), None), false))
            (card(v, "compressed", (M::ToConvert, n(s.to_convert), None), false))
        }
    }
}

/// The titles added last, as covers (nothing before the first scan).
fn recently_added(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    use crate::store::title_state::{Filter, Sort};
    let (_, rows) = c
        .app
        .views
        .titles
        .page(c.db, &Filter::default(), Sort::Added, 8, 0)?;
    if rows.is_empty() {
        return Ok(html! {});
    }
    let covers: Vec<_> = rows.iter().map(|t| super::titles::cover(c, t)).collect();
    Ok(html! {
        h2 { (v.t(M::RecentlyAdded)) " " a.more href="/library?sort=added" { (v.t(M::SeeAll)) } }
        div.covers.row #recently-added { @for cover in covers { (cover) } }
    })
}
