//! The library's health (`GET /health`): everything that needs a hand, on one page,
//! each with its count, the list it stands for and its fix. The fixes are the
//! pages' own, with their previews and their undo: the wanted list to download, the
//! dedupe dialog that lists what goes to the trash (restorable from there), the
//! file list of the damaged or unidentified, the keys' upload. Counts come from the
//! lists kept per library generation, plus the dedupe plan, read on each view as
//! the upkeep page reads it.

use maud::{html, Markup};

use super::tasks::{start_button_asking, Ask};
use super::view::{count, page, size, Viewer};
use crate::error::i18n::M;
use crate::error::Error;
use crate::http::{Ctx, Reply};
use crate::jobs::dedupe;
use crate::store::missing;
use crate::words::{GameKind, MissingKind, TitleStatus};

/// One thing that may need a hand: its name (`data-item`, for scripts and tests
/// whatever the language), how many, what they are, the list, and its fix.
struct Item {
    name: &'static str,
    n: u64,
    words: (M, M),
    list: String,
    fix: Markup,
}

/// `GET /health`.
pub fn health_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let items = items(c, &v)?;
    let all_good = items.iter().all(|i| i.n == 0);
    let body = html! {
        p.note { (v.t(M::HealthIntro)) }
        @if all_good { p.ok #health-good { (v.t(M::HealthAllGood)) } }
        ul #health {
            @for i in &items {
                li.health-item.good[i.n == 0] data-item=(i.name) data-count=(i.n) {
                    a href=(i.list) { strong { (count(&v, i.n, i.words.0, i.words.1)) } }
                    @if i.n > 0 { div.fix { (i.fix) } }
                }
            }
        }
        p #wanted-list { (super::titles::wanted_download(&v, "")) }
        p { a href="/upkeep" { (v.t(M::UpkeepLink)) } }
    };
    page(&v, v.t(M::Health), "/health", body)
}

fn items(c: &Ctx, v: &Viewer) -> Result<Vec<Item>, Error> {
    let mut items = title_items(c, v)?;
    items.append(&mut file_items(c, v)?);
    Ok(items)
}

fn show(status: TitleStatus) -> String {
    format!("/library?show={}", status.as_str())
}

/// What the titles lack, and the titles nothing can be known of.
fn title_items(c: &Ctx, v: &Viewer) -> Result<Vec<Item>, Error> {
    let titles = c.app.views.titles.counts(c.db)?;
    let lacking = |kind| Ok::<_, Error>(missing::page(c.db, Some(kind), None, 0, 0)?.0);
    let wanted = |kind: &str| super::titles::wanted_download(v, kind);
    Ok(vec![
        Item {
            name: "updates",
            n: lacking(MissingKind::Update)?,
            words: (M::HealthUpdateOne, M::HealthUpdates),
            list: show(TitleStatus::UpdateAvailable),
            fix: wanted("update"),
        },
        Item {
            name: "dlc",
            n: lacking(MissingKind::Dlc)?,
            words: (M::HealthDlcOne, M::HealthDlc),
            list: show(TitleStatus::DlcMissing),
            fix: wanted("dlc"),
        },
        Item {
            name: "base_missing",
            n: titles.base_missing,
            words: (M::HealthBaseOne, M::HealthBase),
            list: show(TitleStatus::BaseMissing),
            fix: html! { (v.t(M::HealthFixBase)) },
        },
        Item {
            name: "base_damaged",
            n: titles.base_damaged,
            words: (M::HealthBaseDamagedOne, M::HealthBaseDamaged),
            list: show(TitleStatus::BaseDamaged),
            fix: html! { (v.t(M::HealthFixBaseDamaged)) },
        },
        Item {
            name: "unknown_titles",
            n: titles.unknown,
            words: (M::HealthUnknownTitleOne, M::HealthUnknownTitles),
            list: show(TitleStatus::Unknown),
            fix: html! { (v.t(M::HealthFixUnknownTitles)) " " a href="/settings#title-data" { (v.t(M::TitleData)) } },
        },
    ])
}

/// The files that need a hand: damaged, duplicate, unidentified.
fn file_items(c: &Ctx, v: &Viewer) -> Result<Vec<Item>, Error> {
    let files = c.app.views.stats(c.db)?;
    let config = &c.app.config;
    let drops = dedupe::plan(c.db, &config.folders(), config.dedupe_keep)?;
    let dropped: u64 = drops.iter().map(|d| d.size).sum();
    Ok(vec![
        Item {
            name: "damaged",
            n: files.damaged,
            words: (M::DamagedFileWord, M::DamagedFilesWord),
            list: "/files?damaged=1".into(),
            fix: html! { (v.t(M::HealthFixDamaged)) },
        },
        Item {
            name: "duplicates",
            n: drops.len() as u64,
            words: (M::HealthDuplicateOne, M::HealthDuplicates),
            list: "/upkeep#dedupe".into(),
            fix: duplicates_fix(c, v, dropped),
        },
        Item {
            name: "unidentified",
            n: files.unknown,
            words: (M::UnknownFileOne, M::HealthUnknown),
            list: format!("/files?type={}", GameKind::Unknown.as_str()),
            fix: html! { (v.t(M::HealthFixUnknown)) " " a href="/settings#console-keys" { (v.t(M::ImportKeys)) } },
        },
    ])
}

/// What dedupe frees, and for an admin its button: the dialog lists every file
/// before anything moves, and the trash gives each back.
fn duplicates_fix(c: &Ctx, v: &Viewer, bytes: u64) -> Markup {
    let start = ("start-dedupe", "/api/dedupe", "/tasks");
    html! {
        (v.t(M::HealthFixDuplicates)) " (" (size(v, bytes)) ")"
        @if v.admin {
            div.actions {
                (start_button_asking(c, v, start, v.t(M::DedupeStart), Ask::Preview("/api/dedupe/preview")))
            }
        }
    }
}
