//! The title-centred library: one row per title (a base game with its updates and
//! DLC) with what it has and what it lacks, a page per title, and the title data's
//! settings (counting missing DLC, icons). Everything shown was computed by
//! `titles::model::refresh` when the last scan or import completed; a page only
//! reads one page of `title_state`.

use maud::{html, Markup};
use serde::Deserialize;

use super::body;
use super::pager;
use super::view::{count, key_path, kind, page, query_value, redirect, size, Size, Viewer};
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::params::Paging;
use crate::http::{Ctx, Reply};
use crate::library::search::{search_query, trim_blank};
use crate::store::title_ignore;
use crate::store::title_state::{Filter, Sort, TitleState};
use crate::store::{db, title_catalog, title_imports, title_sources};
use crate::titles::{details, icons, model};
use crate::words::{GameKind, MissingKind, Task, TitleId, TitleStatus};

/// What the "show" filter offers: everything, the incomplete, or one status.
fn show_filter(raw: Option<&str>) -> (&'static str, Filter) {
    let mut filter = Filter::default();
    let value = match raw {
        Some("incomplete") => {
            filter.incomplete = true;
            "incomplete"
        }
        Some(s) => match TitleStatus::parse(s) {
            Some(st) => {
                filter.status = Some(st);
                st.as_str()
            }
            None => "",
        },
        None => "",
    };
    (value, filter)
}

/// The title list's orders: the `sort` value, the list's order, whether it is read
/// from its end, and its words (the column, the direction). Reading a list backwards
/// gives the other direction without a list of its own.
const SORTS: [(&str, Sort, bool, M, M); 6] = [
    ("name", Sort::Name, false, M::SortName, M::OrderAtoZ),
    ("name-desc", Sort::Name, true, M::SortName, M::OrderZtoA),
    ("added", Sort::Added, false, M::SortAdded, M::OrderNewest),
    ("added-asc", Sort::Added, true, M::SortAdded, M::OrderOldest),
    ("size", Sort::Size, false, M::SortSize, M::OrderLargest),
    ("size-asc", Sort::Size, true, M::SortSize, M::OrderSmallest),
];

/// The order asked for (an unknown one is by name), as its `sort` value, the list's
/// order and whether to read it backwards.
fn sort_of(raw: Option<&str>) -> (&'static str, Sort, bool) {
    let (name, sort, reverse, _, _) = SORTS
        .iter()
        .find(|s| Some(s.0) == raw)
        .copied()
        .unwrap_or(SORTS[0]);
    (name, sort, reverse)
}

/// `GET /library?q=&show=&sort=&page=&limit=`: one row per title. A link made before
/// titles (with the file list's `type` or `platform`) goes on to `/files`, where that
/// list now lives.
pub fn library_page(c: &Ctx) -> Result<Reply, Error> {
    if c.req.query("type").is_some() || c.req.query("platform").is_some() {
        let query: Vec<String> = c
            .req
            .query
            .iter()
            .map(|(k, v)| format!("{}={}", query_value(k), query_value(v)))
            .collect();
        return Ok(redirect(&format!("/files?{}", query.join("&"))));
    }
    let v = Viewer::of(c);
    let q = c.req.query("q").map(trim_blank).transpose()?.unwrap_or("");
    let (show, mut filter) = show_filter(c.req.query("show"));
    let (sort_name, sort, reverse) = sort_of(c.req.query("sort"));
    let query = search_query(q)?;
    filter.named = c.app.views.names.titles_named(c.db, &query.words)?;
    filter.id_prefix = query.id_prefix;
    let paging = Paging::from_req(c.req);
    let (shown, total, rows) = pager::read(paging, reverse, |limit, offset| {
        c.app.views.titles.page(c.db, &filter, sort, limit, offset)
    })?;
    let mut rows: Vec<&TitleState> = rows.iter().collect();
    if reverse {
        rows.reverse();
    }
    let grid = ViewChoice::of(c.req);
    let mut links = pager::Links::new("/library", paging.limit);
    links.keep("q", q);
    links.keep("show", show);
    links.keep("sort", if sort_name == "name" { "" } else { sort_name });
    let empty = super::first_steps::empty_library(c, &v)?;
    let list = html! {
        @if let Some(empty) = empty {
            (empty)
        } @else if rows.is_empty() {
            p.empty #no-titles { (v.t(M::NoTitles)) }
            (did_you_mean(c, &v, &links, &query.words, |words| finds(c, &filter, sort, words))?)
        } @else if grid.grid {
            (title_grid(c, &v, &rows)?)
        } @else {
            (title_table(c, &v, &links, sort_name, &rows)?)
        }
        (pager::pager(&v, &links, shown, paging.pages(total)))
    };
    let body = html! {
        (super::tasks::first_scan_note(c, &v)?)
        @if title_catalog::is_empty(c.db)? { p.note #no-title-data { (v.t(M::NoTitleData)) } }
        (filters(&v, &links, q, show, sort_name))
        div #results {
            div.list-head { (result_count(c, &v, total)?) (view_switch(&v, &links, grid.grid)) }
            (list)
        }
        @if !rows.is_empty() { (wanted_links(&v, show)) }
    };
    let mut reply = page(&v, v.t(M::Library), "/library", body)?;
    reply.headers.extend(grid.set_cookie());
    Ok(reply)
}

/// Whether the title list, as filtered, shows anything for these search words.
fn finds(c: &Ctx, filter: &Filter, sort: Sort, words: &[String]) -> Result<bool, Error> {
    let mut f = filter.clone();
    f.named = c.app.views.names.titles_named(c.db, words)?;
    Ok(c.app.views.titles.page(c.db, &f, sort, 1, 0)?.0 > 0)
}

/// Under a list of what lacks something: the whole wanted list to download (the public
/// API's, which a signed-in reader may read), of the kind the list shows.
fn wanted_links(v: &Viewer, show: &str) -> Markup {
    let kind = match show {
        "incomplete" => "",
        "update_available" => "update",
        "dlc_missing" => "dlc",
        _ => return html! {},
    };
    html! { p #wanted-list { (wanted_download(v, kind)) } }
}

/// The links to the wanted list as CSV and JSON: of one `kind`, or of both ("").
pub(super) fn wanted_download(v: &Viewer, kind: &str) -> Markup {
    let (words, kind) = match kind {
        "" => (M::WantedListDownload, String::new()),
        kind => (M::WantedKindDownload, format!("&kind={kind}")),
    };
    html! {
        (v.t(words)) " "
        a href={ "/api/v1/missing?format=csv" (kind) } download { "CSV" } " · "
        a href={ "/api/v1/missing?format=json" (kind) } download { "JSON" }
    }
}

/// Covers or a table: asked in the address (`view=grid` or `view=table`), then kept
/// in a cookie so the library opens as it was left (as Jellyfin keeps its view).
struct ViewChoice {
    grid: bool,
    /// The choice the address made, to keep.
    asked: Option<bool>,
}

const VIEW_COOKIE: &str = "library_view";

impl ViewChoice {
    fn of(req: &crate::http::Req) -> ViewChoice {
        let asked = match req.query("view") {
            Some("grid") => Some(true),
            Some("table") => Some(false),
            _ => None,
        };
        let kept = req.cookie(VIEW_COOKIE) == Some("grid");
        ViewChoice {
            grid: asked.unwrap_or(kept),
            asked,
        }
    }

    fn set_cookie(&self) -> Option<(&'static str, String)> {
        let value = match self.asked? {
            true => "grid",
            false => "table",
        };
        let cookie =
            format!("{VIEW_COOKIE}={value}; Path=/library; Max-Age=31536000; SameSite=Lax");
        Some(("Set-Cookie", cookie))
    }
}

/// The two views, the current one marked.
fn view_switch(v: &Viewer, links: &pager::Links, grid: bool) -> Markup {
    html! {
        span.views role="group" aria-label=(v.t(M::ViewAs)) {
            a href=(links.url_with(1, Some(("view", "table")))) aria-current=[(!grid).then_some("true")] { (v.t(M::ViewTable)) }
            a href=(links.url_with(1, Some(("view", "grid")))) aria-current=[grid.then_some("true")] { (v.t(M::ViewGrid)) }
        }
    }
}

/// The titles as covers, each with what it lacks below.
fn title_grid(c: &Ctx, v: &Viewer, rows: &[&TitleState]) -> Result<Markup, Error> {
    let mut tiles = Vec::with_capacity(rows.len());
    for t in rows {
        tiles.push(html! { div.tile { (cover(c, t)) (StatusBadges(v, t)) } });
    }
    Ok(html! { div.covers #title-grid { @for tile in tiles { (tile) } } })
}

/// When a search by words found nothing: the nearest spelling that finds something
/// on this very page, as a link (see `library::suggest`). The spelling comes from the
/// files' names; `finds` asks the page's own list (its filters, titles rather than
/// files) whether the corrected words show anything, so a link never leads to an
/// empty list ("zelda" → "delta", a word of a file no title of the list has).
pub fn did_you_mean(
    c: &Ctx,
    v: &Viewer,
    links: &pager::Links,
    words: &[String],
    finds: impl Fn(&[String]) -> Result<bool, Error>,
) -> Result<Markup, Error> {
    if words.is_empty() {
        return Ok(html! {});
    }
    let index = c.app.views.names.get(c.db)?;
    let Some(better) = crate::library::suggest::suggest(&*index, words) else {
        return Ok(html! {});
    };
    if !finds(&search_query(&better)?.words)? {
        return Ok(html! {});
    }
    let (before, after) = v.t(M::DidYouMean).split_once("{q}").unwrap_or(("", ""));
    Ok(html! {
        p #did-you-mean { (before) a href=(links.url_with(1, Some(("q", &better)))) { (better) } (after) }
    })
}

/// How many titles, and links to the files without a title and to every file.
fn result_count(c: &Ctx, v: &Viewer, total: u64) -> Result<Markup, Error> {
    let unknown = c.app.views.stats(c.db)?.unknown;
    Ok(html! {
        p #result-count {
            (count(v, total, M::TitleOne, M::TitlesCount))
            @if unknown > 0 {
                " · " a href={ "/files?type=" (GameKind::Unknown.as_str()) } { (count(v, unknown, M::UnknownFileOne, M::UnknownFiles)) }
            }
            " · " a href="/files" { (v.t(M::AllFiles)) }
        }
    })
}

/// The search box, what to show and the order of the title list. A change of what to
/// show or of the order applies at once (`data-autosubmit`, see the end of `app.js`).
fn filters(v: &Viewer, links: &pager::Links, q: &str, show: &str, sort: &str) -> Markup {
    let shows = [
        ("", M::All),
        ("incomplete", M::IncompleteOnly),
        (
            TitleStatus::UpdateAvailable.as_str(),
            M::StatusUpdateAvailable,
        ),
        (TitleStatus::DlcMissing.as_str(), M::StatusDlcMissing),
        (TitleStatus::BaseMissing.as_str(), M::StatusBaseMissing),
        (TitleStatus::BaseDamaged.as_str(), M::StatusBaseDamaged),
        (TitleStatus::Complete.as_str(), M::StatusComplete),
        (TitleStatus::Unknown.as_str(), M::StatusUnknown),
    ];
    let limit = links.params.iter().find(|(n, _)| *n == "limit");
    html! {
        form.filters method="get" action="/library" role="search" data-autosubmit {
            @if let Some((_, limit)) = limit { input type="hidden" name="limit" value=(limit); }
            label { (v.t(M::Search)) input type="search" name="q" value=(q) placeholder=(v.t(M::SearchHint)); }
            label { (v.t(M::Show))
                select name="show" {
                    @for (value, m) in shows { option value=(value) selected[show == value] { (v.t(m)) } }
                }
            }
            label { (v.t(M::SortBy))
                select name="sort" {
                    @for (value, _, _, column, order) in SORTS {
                        option value=(value) selected[sort == value] { (v.t(column)) " (" (v.t(order)) ")" }
                    }
                }
            }
            button type="submit" { (v.t(M::Filter)) }
        }
    }
}

/// A column heading that sorts the list: `aria-sort` says how it is sorted now, and
/// its link gives the other direction (or, from another order, the column's usual
/// one, the first of `orders`).
fn sort_heading(
    v: &Viewer,
    links: &pager::Links,
    th: (M, &str),
    now: &str,
    orders: [&str; 2],
) -> Markup {
    let (label, class) = th;
    let [usual, other] = orders;
    let ascending = matches!(now, "name" | "added-asc" | "size-asc");
    let sorted = (now == usual || now == other).then_some(ascending);
    let aria = sorted.map(|up| if up { "ascending" } else { "descending" });
    let next = if now == usual { other } else { usual };
    html! {
        th class=[(!class.is_empty()).then_some(class)] aria-sort=[aria] {
            a.sort href=(links.url_with(1, Some(("sort", next)))) title=(v.t(M::SortedHint)) {
                (v.t(label))
                @if let Some(up) = sorted { span aria-hidden="true" { (if up { " ↑" } else { " ↓" }) } }
            }
        }
    }
}

fn title_table(
    c: &Ctx,
    v: &Viewer,
    links: &pager::Links,
    sort: &str,
    rows: &[&TitleState],
) -> Result<Markup, Error> {
    let keyed = !crate::store::title_control::is_empty(c.db)?;
    Ok(html! {
        div.scroll {
            table #titles {
                thead { tr {
                    (sort_heading(v, links, (M::TitleWord, ""), sort, ["name", "name-desc"]))
                    th.wide { (v.t(M::Contents)) } th.wide { (v.t(M::Version)) }
                    th { (v.t(M::Status)) }
                    (sort_heading(v, links, (M::Size, "num wide"), sort, ["size", "size-asc"]))
                } }
                tbody {
                    @for t in rows {
                        tr data-title=(t.base_id) {
                            td.title {
                                (icon(c, t.base_id))
                                a href={ "/title/" (t.base_id) } { (t.name) }
                                br.wide; code.id.wide { (t.base_id) }
                            }
                            td.wide { (Contents(v, t)) }
                            @let shown = match keyed { true => details::installed_shown(c.db, t)?, false => None };
                            td.wide { (versions_cell(v, t, shown.as_deref())) }
                            td { (StatusBadges(v, t)) }
                            td.num.wide { (Size(v, t.size)) }
                        }
                    }
                }
            }
        }
    })
}

/// A title as a cover: its icon when one is cached and may be shown (the title's
/// own, read from its files with the console keys, or the opt-in icon cache), else
/// a placeholder drawn in CSS with the name's first letter; the name below. Images
/// load lazily: a grid of a hundred titles asks only for those in sight.
pub fn cover(c: &Ctx, t: &TitleState) -> Markup {
    // Whatever cached it (a file read with the keys, the demo, the titles task when
    // an admin let it fetch), an icon in the cache is shown: no setting hides it.
    let shown = icons::path(&c.app.config.data, t.base_id).is_file();
    let initial: String = t
        .name
        .chars()
        .find(|ch| ch.is_alphanumeric())
        .into_iter()
        .collect();
    // One of twelve hues per title, so two placeholders side by side read apart (a
    // class: the pages' policy allows no inline style).
    let hue = t
        .base_id
        .digits()
        .iter()
        .fold(0u32, |h, &b| h.wrapping_mul(31).wrapping_add(b as u32))
        % 12;
    html! {
        a.cover href={ "/title/" (t.base_id) } {
            @if shown {
                img src={ "/icon/" (t.base_id) } alt="" width="256" height="256" loading="lazy" decoding="async";
            } @else {
                span class={ "placeholder h" (hue) } aria-hidden="true" { (initial.to_uppercase()) }
            }
            span.name { (t.name) }
        }
    }
}

/// The cached icon of a title, or nothing: a page never waits on the icon host.
pub(super) fn icon(c: &Ctx, title_id: TitleId) -> Markup {
    let cached = icons::path(&c.app.config.data, title_id).is_file();
    html! { @if cached { img.icon src={ "/icon/" (title_id) } alt="" width="48" height="48" loading="lazy"; } }
}

/// The cached icon of a title as a page's header (a title's page, a game's), or
/// nothing.
pub(super) fn header_icon(c: &Ctx, title_id: TitleId) -> Markup {
    let cached = icons::path(&c.app.config.data, title_id).is_file();
    html! { @if cached { img.icon.header-icon src={ "/icon/" (title_id) } alt="" width="160" height="160"; } }
}

/// What files the title has: its base, how many updates, how many DLC, written
/// straight into the page rather than rendered aside.
struct Contents<'a>(&'a Viewer, &'a TitleState);

impl maud::Render for Contents<'_> {
    fn render_to(&self, out: &mut String) {
        use std::fmt::Write;
        let Contents(v, t) = self;
        out.push_str("<span class=\"badges\">");
        if t.base_files > 0 {
            badge(out, "badge", |out| text(out, kind(v, GameKind::Base)));
        }
        for (n, name) in [
            (t.update_files, kind(v, GameKind::Update)),
            (t.dlc_files, v.t(M::Dlc)),
        ] {
            if n > 0 {
                badge(out, "badge", |out| {
                    text(out, name);
                    let _ = write!(out, " ×{n}");
                });
            }
        }
        out.push_str("</span>");
    }
}

/// `<span class="{class}">…</span>`, what `inner` writes inside.
fn badge(out: &mut String, class: &str, inner: impl FnOnce(&mut String)) {
    status_badge(out, (class, None), inner)
}

/// A badge of the title's status, with the status's one spelling (`TitleStatus`, or
/// `damaged`) in `data-status`, whatever the language.
fn status_badge(
    out: &mut String,
    (class, status): (&str, Option<&str>),
    inner: impl FnOnce(&mut String),
) {
    out.push_str("<span class=\"");
    out.push_str(class);
    if let Some(status) = status {
        out.push_str("\" data-status=\"");
        out.push_str(status);
    }
    out.push_str("\">");
    inner(out);
    out.push_str("</span>");
}

/// Text, escaped for HTML.
fn text(out: &mut String, s: &str) {
    use std::fmt::Write;
    let _ = maud::Escaper::new(out).write_str(s);
}

/// The installed version against the latest known: `1.2.0 → v393216` (a display
/// version with its number on hover); when the library is ahead of the title data,
/// the installed one and a word saying so.
fn versions_cell(v: &Viewer, t: &TitleState, shown: Option<&str>) -> Markup {
    let installed = super::view::version(shown, t.installed_version);
    html! {
        @match (t.installed_version, t.latest_version) {
            (Some(a), Some(b)) if a > b => { (installed) br; span.note.older { (v.t(M::NewerThanData)) } },
            (Some(a), Some(b)) if a == b => (installed),
            (_, None) => (installed),
            // The arrow stays with what it leaves: "v4 →" never ends a line alone.
            (_, latest) => { (installed) "\u{a0}→ " (super::view::version(None, latest)) },
        }
    }
}

/// Its damaged files, then what the title lacks or "complete" (the same as the
/// API's status and the page's filter), as badges written straight into the page.
struct StatusBadges<'a>(&'a Viewer, &'a TitleState);

impl maud::Render for StatusBadges<'_> {
    fn render_to(&self, out: &mut String) {
        use std::fmt::Write;
        let StatusBadges(v, t) = self;
        out.push_str("<span class=\"badges\">");
        if t.damaged_files > 0 {
            let n = super::view::count(v, t.damaged_files, M::DamagedFileWord, M::DamagedFilesWord);
            status_badge(out, ("badge bad", Some("damaged")), |out| text(out, &n));
        }
        for s in t.status() {
            let (class, m) = match s {
                TitleStatus::UpdateAvailable => ("badge warn", M::StatusUpdateAvailable),
                TitleStatus::DlcMissing if t.missing_dlc == 1 => {
                    ("badge warn", M::StatusOneDlcMissing)
                }
                TitleStatus::DlcMissing => ("badge warn", M::StatusDlcMissing),
                TitleStatus::BaseMissing => ("badge bad", M::StatusBaseMissing),
                TitleStatus::BaseDamaged => ("badge bad", M::StatusBaseDamaged),
                TitleStatus::Complete => ("badge good", M::StatusComplete),
                TitleStatus::Unknown => ("badge", M::StatusUnknown),
            };
            status_badge(out, (class, Some(s.as_str())), |out| {
                if s == TitleStatus::DlcMissing {
                    let _ = write!(out, "{} ", t.missing_dlc);
                }
                text(out, v.t(m));
            });
        }
        out.push_str("</span>");
    }
}

/// `GET /title/{title_id}`: the title's facts, its files by kind, what it lacks.
pub fn title_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let found = match TitleId::parse(c.param(0)) {
        Some(id) => details::get(c.db, id)?,
        None => None,
    };
    let Some(d) = found else {
        let mut reply = page(
            &v,
            v.t(M::NotFound),
            "/library",
            html! { p { (v.t(M::NoSuchTitle)) } },
        )?;
        reply.status = 404;
        return Ok(reply);
    };
    let t = &d.state;
    let own = details::page(c.db, &d)?;
    let dash = || "—".to_string();
    let body = html! {
        (header_icon(c, t.base_id))
        dl.facts #title-facts {
            dt { (v.t(M::TitleId)) } dd { code { (t.base_id) } }
            dt { (v.t(M::Publisher)) } dd { (d.facts.publisher.clone().unwrap_or_else(dash)) }
            dt { (v.t(M::Released)) } dd { @match &d.facts.release_date { Some(day) => (super::view::day(&v, day)), None => (dash()) } }
            dt { (v.t(M::InstalledVersion)) } dd #installed-version { (super::view::version(own.installed_shown.as_deref(), t.installed_version)) }
            dt { (v.t(M::LatestVersion)) } dd #latest-version {
                (super::view::version(None, t.latest_version))
                @if let Some(date) = &t.latest_date { " (" (super::view::day(&v, date)) ")" }
                @if newer_than_data(t) { br; span.note #older-title-data { (v.t(M::TitleDataOlder)) } }
            }
            dt { (v.t(M::Status)) } dd #title-status { (StatusBadges(&v, t)) }
            dt { (v.t(M::Size)) } dd { (size(&v, t.size)) }
        }
        @if let Some(control) = &d.control {
            h2 { (v.t(M::FromTheFiles)) }
            dl.facts #from-the-files {
                dt { (v.t(M::Name)) } dd { (super::view::own_name(&v, control)) }
                @if !control.publisher.is_empty() { dt { (v.t(M::Publisher)) } dd { (control.publisher) } }
                @if !control.display_version.is_empty() {
                    dt { (v.t(M::DisplayVersion)) } dd { (control.display_version) }
                }
            }
        }
        (file_tables(&v, &d, &own))
        h2 { (v.t(M::WhatIsMissing)) }
        (missing_list(&v, &d, c.app.prod_keys.current().is_some()))
        @if !d.versions.is_empty() {
            h2 { (v.t(M::VersionHistory)) }
            ul #versions { @for (n, date) in &d.versions { li { (super::view::version(None, Some(*n))) " · " (super::view::day(&v, date)) } } }
        }
        @if v.admin { (title_actions(c, &v, &d, own.ignored)) }
    };
    page(&v, &t.name, "/library", body)
}

/// Whether the library holds a newer version than the title data knows: the data
/// was fetched before that update came out, not a version from nowhere.
fn newer_than_data(t: &TitleState) -> bool {
    matches!((t.installed_version, t.latest_version), (Some(a), Some(b)) if a > b)
}

/// The title's files, a table per kind, each with its version and whether it is
/// superseded.
fn file_tables(v: &Viewer, d: &details::Details, own: &details::PageFacts) -> Markup {
    let groups = [
        (M::BaseTitle, GameKind::Base),
        (M::Updates, GameKind::Update),
        (M::Dlc, GameKind::Dlc),
    ];
    html! {
        @for (heading, k) in groups {
            @let files: Vec<_> = d.files.iter().filter(|(g, _)| g.item.kind == k).collect();
            @if !files.is_empty() {
                h2 { (v.t(heading)) }
                div.scroll { table.files {
                    thead { tr { th { (v.t(M::Name)) } th { (v.t(M::Version)) } th.num { (v.t(M::Size)) } } }
                    tbody { @for (g, superseded) in files {
                        tr {
                            td {
                                a href={ "/game/" (key_path(&g.item.key)) } { (g.item.name) }
                                @if k == GameKind::Dlc { br; code.id { @if let Some(id) = g.item.title_id { (id) } @else { "—" } } }
                                @if *superseded { " " span.badge title=(v.t(M::SupersededHint)) { (v.t(M::Superseded)) } }
                                @if let Some(why) = &g.damage { " " span.badge.damaged title=(v.say(why)) { (v.t(M::Damaged)) } }
                            }
                            td { (super::view::version(own.shown.get(&g.item.key).map(String::as_str), g.item.version)) }
                            td.num { (size(v, g.item.size)) }
                        }
                    } }
                } }
            }
        }
    }
}

/// What the title lacks: its base game (none, or only damaged copies, each with
/// what an admin can do about it), then the updates and DLC the title data knows.
/// "Nothing is missing" only when the title data lists the title.
fn missing_list(v: &Viewer, d: &details::Details, keys: bool) -> Markup {
    let version = |n: Option<u32>| super::view::version(None, n);
    let t = &d.state;
    let damaged_bases = d
        .files
        .iter()
        .filter(|(g, _)| g.item.kind == GameKind::Base && g.damage.is_some());
    html! {
        @if t.has(TitleStatus::BaseMissing) { p #base-missing { (v.t(M::BaseGameMissing)) } }
        @if t.has(TitleStatus::BaseDamaged) {
            p #base-damaged { (v.t(M::BaseGameDamaged)) }
            ul #damaged-base { @for (g, _) in damaged_bases {
                li {
                    a href={ "/game/" (key_path(&g.item.key)) } { (g.item.name) }
                    @if v.admin {
                        " " button type="button" data-api={ "/api/verify/" (key_path(&g.item.key)) } data-then="/tasks"
                            disabled[!keys] title=[(!keys).then(|| v.t(M::VerifyNoKeys))] { (v.t(M::VerifyAgain)) }
                        " " button.danger type="button" data-method="DELETE" data-api={ "/api/library/" (key_path(&g.item.key)) } data-then="/trash" data-undo { (v.t(M::DeleteToTrash)) }
                    }
                }
            } }
        }
        @if t.has(TitleStatus::Unknown) {
            p.empty #unknown-to-data { (v.t(M::UnknownToData)) " " a href="/settings#title-data" { (v.t(M::TitleData)) } }
        } @else if d.missing.is_empty() && !t.base_missing { p.empty #nothing-missing { (v.t(M::NothingMissing)) } }
        @if !d.missing.is_empty() {
            ul #missing { @for m in &d.missing {
                li { @match m.kind {
                    MissingKind::Update => {
                        (v.t(M::MissingUpdate)) " " code { (m.id) } (v.colon()) (version(m.installed_version)) " → " (version(m.latest_version))
                        @if let Some(date) = &m.latest_date { " (" (super::view::day(v, date)) ")" }
                    }
                    MissingKind::Dlc => {
                        (v.t(M::Dlc)) " " code { (m.id) }
                        @if let Some(name) = &m.name { " · " (name) }
                    }
                } }
            } }
        }
    }
}

/// An admin's actions on a title: push it whole, or stop counting what it lacks.
fn title_actions(c: &Ctx, v: &Viewer, d: &details::Details, ignored: (bool, bool)) -> Markup {
    let (t, (dlc, updates)) = (&d.state, ignored);
    let id = t.base_id;
    html! {
        div.actions {
            (push_title_button(v, id, t.damaged_files))
            (super::compress::title_button(c, v, &compressible_files(d)))
        }
        form.stack #ignore data-api={ "/api/titles/" (id) "/ignore" } {
            label.check { input type="checkbox" name="dlc" checked[dlc]; (v.t(M::IgnoreDlc)) }
            label.check { input type="checkbox" name="updates" checked[updates]; (v.t(M::IgnoreUpdates)) }
            button type="submit" { (v.t(M::Save)) }
        }
    }
}

/// The title's files compress works on, with their sizes.
fn compressible_files(d: &details::Details) -> Vec<(String, u64)> {
    d.files
        .iter()
        .filter(|(g, _)| super::compress::compressible(&g.format))
        .map(|(g, _)| (g.item.key.clone(), g.item.size))
        .collect()
}

/// "Add the whole title to the push list": it asks first when one of the title's
/// files is damaged, as adding that file alone does.
pub fn push_title_button(v: &Viewer, id: TitleId, damaged: u64) -> Markup {
    let warning = (damaged > 0).then(|| v.t(M::PushDamagedTitle));
    html! {
        button type="button" #add-title-push data-api={ "/api/push-title/" (id) } data-then="said"
            data-confirm=[warning] { (v.t(M::AddTitleToPush)) }
    }
}

#[derive(Deserialize)]
struct IgnoreForm {
    dlc: bool,
    updates: bool,
}

/// `POST /api/titles/{title_id}/ignore` `{dlc, updates}`: what is not counted as
/// missing for this title; the titles are computed again at once.
pub fn set_ignore(c: &Ctx) -> Result<Reply, Error> {
    let form: IgnoreForm = body(c, "dlc and updates, true or false")?;
    let found = match TitleId::parse(c.param(0)) {
        Some(id) => crate::store::title_state::get(c.db, id)?,
        None => None,
    };
    let Some(state) = found else {
        return Err(Error::not_found(Msg::NoTitle {
            id: crate::text::cut(c.param(0), 40).into(),
        }));
    };
    let id = Some(state.base_id);
    let tx = db::write_transaction(c.db)?;
    title_ignore::set(&tx, id, true, false, form.dlc)?;
    title_ignore::set(&tx, id, false, true, form.updates)?;
    model::refresh(&tx)?;
    tx.commit()?;
    Reply::json(
        200,
        &serde_json::json!({"dlc": form.dlc, "updates": form.updates}),
    )
}

/// The title data's part of the settings page: how old the data is, whether
/// missing DLC count, whether icons are shown.
pub fn settings_section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let last = title_imports::last(c.db)?;
    let count_dlc = !title_ignore::all(c.db)?.get(&None).is_some_and(|i| i.0);
    let with_icons = icons::enabled(c.db)?;
    Ok(html! {
        h2 #title-data { (v.t(M::TitleData)) }
        dl.facts {
            dt { (v.t(M::LastImport)) } dd #title-data-age { (super::view::date(v, last.as_ref().map(|i| i.imported_at))) }
            dt { (v.t(M::KnownTitles)) } dd { (super::view::number(v, title_catalog::count(c.db)?)) }
            dt { (v.t(M::RefreshEvery)) } dd #title-refresh { (refresh_every(c, v)) }
        }
        (sources_section(c, v)?)
        @if v.admin {
            div.actions {
                // The update runs here, followed on this page, which shows its result
                // once it ends (the sources' table): the reader stays where they were.
                (super::tasks::start_button(c, v, ("update-titles", "/api/titles/update", "stay"), v.t(M::UpdateTitleData)))
                span.hint #update-titles-progress data-follow-job="line" data-task="titles" aria-live="polite" {}
            }
            (super::title_files::form(v))
            form.stack #title-settings data-api="/api/titles/settings" {
                label.check { input type="checkbox" name="count_dlc" checked[count_dlc]; (v.t(M::CountMissingDlc)) }
                label.check { input type="checkbox" name="icons" checked[with_icons]; (v.t(M::ShowIcons)) }
                p.note { (v.t(M::IconsNote)) }
                button type="submit" { (v.t(M::Save)) }
            }
        }
    })
}

/// How often the title data is fetched by itself, or "never".
fn refresh_every(c: &Ctx, v: &Viewer) -> String {
    match c.app.config.titledb_refresh(c.db) {
        // In units both languages write alike: "24 h", "30 min", "90 s".
        Some(every) => {
            let secs = every.as_secs();
            let every = match secs {
                s if s % 3600 == 0 => format!("{} h", s / 3600),
                s if s % 60 == 0 => format!("{} min", s / 60),
                s => format!("{s} s"),
            };
            format!("{} {every}", v.t(M::EveryDuration))
        }
        None => v.t(M::Never).to_string(),
    }
}

/// Each source as configured, in order, with its last success and failure (in the
/// reader's language), and where each kept file came from and when.
fn sources_section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let known = title_sources::all(c.db)?;
    let configured = &c.app.config.serve.titledb.titledb_url;
    let region = format!("{}.json", c.app.config.serve.titledb.titledb_region);
    let mut files = Vec::new();
    for name in ["versions.txt", "versions.json", region.as_str()] {
        if let Some((url, at)) = crate::store::settings::titledb_from(c.db, name)? {
            files.push((name.to_string(), url, at));
        }
    }
    // An admin sees the whole address; anyone else its host (a private mirror's path
    // may hold a token).
    let shown = |url: &str| match v.admin {
        true => crate::outbound::without_credentials(url),
        false => crate::outbound::host_of(url).to_string(),
    };
    Ok(html! {
        h3 { (v.t(M::TitleSources)) }
        table #title-sources {
            thead { tr { th { (v.t(M::TitleSource)) } th { (v.t(M::LastSuccess)) } th { (v.t(M::LastFailure)) } } }
            tbody {
                @for url in configured {
                    @let row = known.iter().find(|r| r.url == *url);
                    @let ok_at = row.and_then(|r| r.ok_at);
                    @let failure = row.and_then(|r| r.error.as_ref().zip(r.error_at));
                    tr data-source=(shown(url)) data-ok=(ok_at.is_some()) data-failed=(failure.is_some()) {
                        td { code { (shown(url)) } }
                        td { (super::view::date(v, ok_at)) }
                        td {
                            @match failure {
                                Some((msg, at)) => { (super::view::date(v, Some(at))) " — " span.failure { (v.msg(msg)) } }
                                None => { "—" }
                            }
                        }
                    }
                }
            }
        }
        @if !files.is_empty() {
            h3 { (v.t(M::FilesInUse)) }
            table #title-files {
                thead { tr { th { (v.t(M::TitleFile)) } th { (v.t(M::FetchedFrom)) } th.wide { (v.t(M::FetchedAt)) } th { (v.t(M::CopyAge)) } } }
                tbody {
                    @for (name, url, at) in &files {
                        tr data-file=(name) data-from=(shown(url)) {
                            td { code { (name) } } td { (crate::outbound::host_of(url)) } td.wide { (super::view::date(v, Some(*at))) }
                            td.age { (super::view::age(v, *at)) }
                        }
                    }
                }
            }
        }
    })
}

#[derive(Deserialize)]
struct TitleSettings {
    count_dlc: Option<bool>,
    icons: Option<bool>,
}

/// `POST /api/titles/settings` `{count_dlc?, icons?}`: each one given is set (the
/// welcome page's icons choice gives only `icons`). Answers both as they are now.
pub fn set_settings(c: &Ctx) -> Result<Reply, Error> {
    let form: TitleSettings = body(c, "count_dlc and icons, true or false")?;
    let tx = db::write_transaction(c.db)?;
    if let Some(count_dlc) = form.count_dlc {
        title_ignore::set(&tx, None, true, false, !count_dlc)?;
        model::refresh(&tx)?;
    }
    if let Some(on) = form.icons {
        icons::set_enabled(&tx, on)?;
    }
    let count_dlc = !title_ignore::all(&tx)?.get(&None).is_some_and(|i| i.0);
    let on = icons::enabled(&tx)?;
    tx.commit()?;
    Reply::json(
        200,
        &serde_json::json!({"count_dlc": count_dlc, "icons": on}),
    )
}

/// `POST /api/titles/update`: start the title data task (409 while a task runs).
pub fn start_update(c: &Ctx) -> Result<Reply, Error> {
    crate::api::v1::jobs::start(c, Task::Titles)
}
