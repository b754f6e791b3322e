//! The pages of the web interface, rendered on the server with maud. A page only
//! reads; every change goes through an internal `/api/` route, called by the page's
//! small script (`static/app.js`) from a form or a button carrying `data-api`.

use maud::{html, Markup};

use super::i18n::{Lang, M};
use super::view::{self, date, key_path, kind, page, query_value, size, Viewer};
use crate::api::v1::games::search_query;
use crate::api::v1::params::{self, Paging};
use crate::api::v1::types::JobStatus;
use crate::error::Error;
use crate::http::auth;
use crate::http::{Ctx, Reply, Req};
use crate::library;
use crate::store::{
    api_keys, device, games, job_runs, platforms, push_list, trash, users, Connection,
};

/// Where a caller who is not signed in is sent: the first-run page while no account
/// exists, the sign-in page otherwise (remembering the page asked for, with its query).
pub fn to_sign_in(db: &Connection, req: &Req) -> Reply {
    let reads = matches!(req.method.as_str(), "GET" | "HEAD");
    if reads && users::count(db).is_ok_and(|n| n == 0) {
        return view::redirect("/setup");
    }
    if reads && req.path != "/" {
        let mut target = req.path.clone();
        if !req.raw_query.is_empty() {
            target = format!("{target}?{}", req.raw_query);
        }
        return view::redirect(&format!("/login?next={}", query_value(&target)));
    }
    view::redirect("/login")
}

/// `GET /login`. Where the form leads once signed in is decided here, on the server:
/// `next` is kept only when it is a path of this site.
pub fn login(c: &Ctx) -> Result<Reply, Error> {
    let next = view::same_origin_path(c.req.query("next").unwrap_or("/"));
    if auth::session_user(c.db, c.req)?.is_some() {
        // A header carries ASCII only: the rest of the path goes percent-encoded.
        let location = percent_encoding::utf8_percent_encode(next, percent_encoding::CONTROLS);
        return Ok(view::redirect(&location.to_string()));
    }
    let lang = view::browser_lang(c.req);
    let t = |m: M| m.get(lang);
    let no_account = users::count(c.db)? == 0;
    let body = html! {
        @if no_account {
            p.note { (t(M::NoAccountYet)) " " a href="/setup" { (t(M::FirstRun)) } }
        }
        form.stack data-api="/api/login" data-then=(next) {
            label { (t(M::Name)) input name="name" autocomplete="username" required autofocus; }
            label { (t(M::Password)) input name="password" type="password" autocomplete="current-password" required; }
            button type="submit" { (t(M::SignIn)) }
        }
    };
    Ok(view::bare_page(lang, t(M::SignIn), body))
}

/// `GET /setup`: the first-run page, served while no account exists. A caller who is
/// not on this machine under the loopback rule is asked for the setup code too (the
/// route behind it checks the same).
pub fn setup(c: &Ctx) -> Result<Reply, Error> {
    if users::count(c.db)? > 0 {
        return Ok(view::redirect("/login"));
    }
    let needs_code = !super::api::setup_is_local(c);
    let lang = view::browser_lang(c.req);
    let t = |m: M| m.get(lang);
    let body = html! {
        p { (t(M::FirstRunIntro)) }
        @if needs_code { p.note { (t(M::SetupCodeIntro)) } }
        form.stack data-api="/api/setup" data-then="/" data-same="password,password2" {
            @if needs_code {
                label { (t(M::SetupCode)) input name="setup_code" autocomplete="off" required; }
            }
            label { (t(M::Name)) input name="name" autocomplete="username" required autofocus[!needs_code]; }
            label { (t(M::Password)) input name="password" type="password" autocomplete="new-password" minlength="8" required; }
            label { (t(M::PasswordAgain)) input name="password2" type="password" autocomplete="new-password" minlength="8" required; }
            button type="submit" { (t(M::CreateAdmin)) }
        }
    };
    Ok(view::bare_page(lang, t(M::FirstRun), body))
}

/// `GET /`: counts, the running task with its live progress, the last result.
pub fn dashboard(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let s = c.app.pages.stats(c.db)?;
    let cards = [
        (M::Games, s.total.to_string()),
        (M::Base, s.base.to_string()),
        (M::Updates, s.update.to_string()),
        (M::Dlc, s.dlc.to_string()),
        (M::Unknown, s.unknown.to_string()),
        (M::TotalSize, size(&v, s.bytes)),
        (M::ToConvert, s.to_convert.to_string()),
    ];
    let no_account = matches!(c.principal, auth::Principal::Local) && users::count(c.db)? == 0;
    let body = html! {
        @if no_account {
            p.note { a href="/setup" { (v.t(M::NoAccountCreateOne)) } }
        }
        section.cards {
            @for (m, value) in &cards {
                div.card { span.label { (v.t(*m)) } span.value { (value) } }
            }
        }
        (task_panel(c, &v))
    };
    page(&v, v.t(M::Dashboard), "/", body)
}

/// The running task (updated live by the script) and the buttons that start one.
fn task_panel(c: &Ctx, v: &Viewer) -> Markup {
    let job = JobStatus::from(&c.app.jobs.snapshot());
    let (done, total) = match (&job.last, job.running) {
        (_, true) => (job.done, job.total),
        (Some(last), false) => (last.done, last.total),
        (None, false) => (0, 0),
    };
    let state = if job.running { "running" } else { "idle" };
    html! {
        section.panel #job data-state=(state) {
            h2 { (v.t(M::RunningTask)) }
            p #job-label { @if job.running { (view::word(v, &job.label)) " · " (job.detail) } @else { (v.t(M::NoTask)) } }
            progress #job-progress max=(total.max(1)) value=(done) aria-label=(v.t(M::Progress)) {}
            p #job-count { (done) " / " (total) }
            p #job-last hidden[job.last.is_none()] {
                (v.t(M::LastResult)) " : "
                span #job-result {
                    @if let Some(last) = &job.last { (view::word(v, &last.label)) " · " (view::word(v, &last.result)) " · " (last.message) }
                }
            }
            @if v.admin {
                div.actions {
                    button type="button" #start-scan data-api="/api/scan" data-then="stay" { (v.t(M::StartScan)) }
                    button type="button" data-api="/api/convert" data-then="stay" { (v.t(M::StartConvert)) }
                    button type="button" data-api="/api/push" data-then="stay" { (v.t(M::StartPush)) }
                    button.secondary type="button" #cancel data-api="/api/job/cancel" data-then="stay" { (v.t(M::Cancel)) }
                }
            }
        }
    }
}

/// `GET /library?q=&type=&platform=&page=`.
pub fn library_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let q = c.req.query("q").map(str::trim).unwrap_or("");
    let kind_filter = params::game_type(c.req).ok().flatten();
    let platform = c.req.query("platform").filter(|p| !p.is_empty());
    let paging = Paging {
        limit: 50,
        ..Paging::from_req(c.req)
    };
    let (total, items) = if q.is_empty() && platform.is_none() {
        games::page(c.db, kind_filter, paging.limit, paging.offset())?
    } else {
        let mut query = search_query(q)?;
        query.kind = kind_filter.map(str::to_string);
        query.platform = platform.map(str::to_string);
        games::search(c.db, &query, paging.limit, paging.offset())?
    };
    let all_platforms = platforms::list(c.db)?;
    let pages = paging.pages(total);
    let link = |n: u64| {
        let mut url = format!("/library?page={n}");
        for (name, value) in [
            ("q", Some(q)),
            ("type", kind_filter),
            ("platform", platform),
        ] {
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                url.push_str(&format!("&{name}={}", query_value(value)));
            }
        }
        url
    };
    let body = html! {
        form.filters method="get" action="/library" role="search" {
            label { (v.t(M::Search)) input type="search" name="q" value=(q) placeholder=(v.t(M::SearchHint)); }
            label { (v.t(M::Type))
                select name="type" {
                    option value="" { (v.t(M::All)) }
                    @for t in ["BASE", "UPDATE", "DLC", "INCONNU"] {
                        option value=(t) selected[kind_filter == Some(t)] { (kind(&v, t)) }
                    }
                }
            }
            label { (v.t(M::Platform))
                select name="platform" {
                    option value="" { (v.t(M::All)) }
                    @for p in &all_platforms {
                        option value=(p.slug) selected[platform == Some(p.slug.as_str())] { (p.name) }
                    }
                }
            }
            button type="submit" { (v.t(M::Filter)) }
        }
        p #result-count { (total) " " (v.t(M::Results)) }
        @if items.is_empty() {
            p.empty { (v.t(M::NoGames)) }
        } @else {
            div.scroll {
                table #games {
                    thead { tr { th { (v.t(M::Name)) } th { (v.t(M::Type)) } th.num { (v.t(M::Size)) } th.wide { (v.t(M::TitleId)) } } }
                    tbody {
                        @for g in &items {
                            tr {
                                td { a href={ "/game/" (key_path(&g.key)) } { (g.name) } }
                                td { (kind(&v, &g.kind)) }
                                td.num { (size(&v, g.size)) }
                                td.wide { code { (g.title_id.as_deref().unwrap_or("—")) } }
                            }
                        }
                    }
                }
            }
        }
        @if pages > 1 {
            nav.pager aria-label=(v.t(M::PageOf)) {
                @if paging.page > 1 { a href=(link(paging.page - 1)) rel="prev" { "← " (v.t(M::Previous)) } }
                span { (v.t(M::PageOf)) " " (paging.page) " " (v.t(M::Of)) " " (pages) }
                @if paging.page < pages { a href=(link(paging.page + 1)) rel="next" { (v.t(M::Next)) " →" } }
            }
        }
    };
    page(&v, v.t(M::Library), "/library", body)
}

/// `GET /game/{key}`: what the file is, how it was identified, its family.
pub fn game(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let key = c.param(0);
    let found = if library::valid_key(key) {
        games::get(c.db, key)?
    } else {
        None
    };
    let Some(g) = found else {
        let mut reply = page(
            &v,
            v.t(M::NotFound),
            "/library",
            html! { p { (v.t(M::NoSuchGame)) } },
        )?;
        reply.status = 404;
        return Ok(reply);
    };
    let family = match (&g.item.kind[..], &g.item.title_id) {
        ("BASE", Some(id)) => Some((
            games::related(c.db, id, "UPDATE")?,
            games::related(c.db, id, "DLC")?,
        )),
        _ => None,
    };
    let yes_no = |b: bool| v.t(if b { M::Yes } else { M::No });
    let api_key = key_path(&g.item.key);
    let body = html! {
        dl.facts {
            dt { (v.t(M::Type)) } dd #game-type { (kind(&v, &g.item.kind)) }
            dt { (v.t(M::Size)) } dd { (size(&v, g.item.size)) }
            dt { (v.t(M::Format)) } dd { (g.format) }
            dt { (v.t(M::Platform)) } dd { (g.platform) }
            dt { (v.t(M::Modified)) } dd { (date(&v, Some(g.mtime / 1_000_000_000))) }
            dt { (v.t(M::Playable)) } dd { (yes_no(g.item.playable)) }
            dt { (v.t(M::Key)) } dd { code { (g.item.key) } }
        }
        h2 { (v.t(M::Evidence)) }
        dl.facts {
            dt { (v.t(M::TitleId)) } dd { code { (g.item.title_id.as_deref().unwrap_or("—")) } }
            dt { (v.t(M::Version)) } dd { (g.version.map(|n| n.to_string()).unwrap_or_else(|| "—".into())) }
            dt { (v.t(M::IdentifiedBy)) } dd { (evidence(&v, &g.identified_by)) " (" code { (g.identified_by) } ")" }
            @if let Some(sub) = &g.subtype { dt { (v.t(M::Subtype)) } dd { (sub) } }
            @if let Some(base) = &g.base_title_id {
                dt { (v.t(M::BaseTitle)) } dd { a href={ "/library?q=" (query_value(base)) } { code { (base) } } }
            }
            @if let Some(note) = &g.note { dt { (v.t(M::Note)) } dd { (note) } }
        }
        @if let Some((updates, dlc)) = &family {
            h2 { (v.t(M::Updates)) }
            (key_list(updates))
            h2 { (v.t(M::Dlc)) }
            (key_list(dlc))
        }
        @if v.admin {
            div.actions {
                button type="button" #add-push data-api={ "/api/push/" (api_key) } data-then="/device" { (v.t(M::AddToPush)) }
                @if let (Some(id), Some(_)) = (&g.item.title_id, &family) {
                    button type="button" data-api={ "/api/push-title/" (id) } data-then="/device" { (v.t(M::AddTitleToPush)) }
                }
                button.danger type="button" #delete data-method="DELETE" data-api={ "/api/library/" (api_key) } data-then="/trash" { (v.t(M::DeleteToTrash)) }
            }
        }
    };
    page(&v, &g.item.name, "/library", body)
}

/// What `identified_by` means, in words (the probe's vocabulary, `library::probe`).
fn evidence(v: &Viewer, by: &str) -> &'static str {
    v.t(match by {
        "filename" => M::ByFilename,
        "cnmt_xml" => M::ByCnmt,
        "ticket" => M::ByTicket,
        _ => M::ByNothing,
    })
}

fn key_list(keys: &[String]) -> Markup {
    html! {
        @if keys.is_empty() { p.empty { "—" } }
        @else {
            ul.keys { @for k in keys { li { a href={ "/game/" (key_path(k)) } { (k) } } } }
        }
    }
}

/// `GET /tasks`: start, cancel, and the history.
pub fn tasks(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let runs = job_runs::recent(c.db, 50)?;
    let body = html! {
        (task_panel(c, &v))
        h2 { (v.t(M::History)) }
        div.scroll {
            table #history {
                thead { tr {
                    th { (v.t(M::Task)) } th { (v.t(M::Result)) } th { (v.t(M::Started)) }
                    th.wide { (v.t(M::Finished)) } th.num { (v.t(M::Progress)) } th.num { (v.t(M::Errors)) } th.wide { (v.t(M::Message)) }
                } }
                tbody {
                    @for r in &runs {
                        tr {
                            td { (view::word(&v, &r.label)) } td { (view::word(&v, &r.result)) } td { (date(&v, Some(r.started_at))) }
                            td.wide { (date(&v, r.finished_at)) } td.num { (r.done) " / " (r.total) }
                            td.num { (r.errors) } td.wide { (r.message) }
                        }
                    }
                }
            }
        }
    };
    page(&v, v.t(M::Tasks), "/tasks", body)
}

/// `GET /device`: the console, and the push list.
pub fn device_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let d = device::get(c.db)?;
    let pending = push_list::list(c.db)?;
    let body = html! {
        @match &d {
            Some(d) => dl.facts {
                dt { (v.t(M::Name)) } dd { (d.name) }
                dt { (v.t(M::Host)) } dd { (d.host) ":" (d.port) }
                dt { (v.t(M::LastContact)) } dd { (date(&v, d.last_contact)) }
                dt { (v.t(M::Result)) } dd { (d.last_result.as_deref().unwrap_or("—")) }
                dt { (v.t(M::Client)) } dd { (d.client.as_deref().unwrap_or("—")) }
                dt { (v.t(M::LastPush)) } dd { (date(&v, d.last_push)) }
            },
            None => p.empty { (v.t(M::DeviceNone)) },
        }
        @if v.admin {
            form.stack data-api="/api/device" {
                label { (v.t(M::Name)) input name="name" value=[d.as_ref().map(|d| &d.name)]; }
                label { (v.t(M::Host)) input name="host" required value=[d.as_ref().map(|d| &d.host)] inputmode="decimal"; }
                label { (v.t(M::Port)) input name="port" type="number" min="1" max="65535" value=(d.as_ref().map_or(2000, |d| d.port)); }
                label { (v.t(M::OfferAddress)) input name="offer_address" value=[d.as_ref().and_then(|d| d.offer_address.as_ref())]; }
                div.actions {
                    button type="submit" { (v.t(M::Save)) }
                    @if d.is_some() {
                        button.secondary type="button" data-method="DELETE" data-api="/api/device" data-confirm { (v.t(M::Forget)) }
                    }
                }
            }
        }
        h2 { (v.t(M::PushList)) " (" (pending.len()) " · " (size(&v, pending.iter().map(|(_, s)| s).sum())) ")" }
        @if pending.is_empty() {
            p.empty #push-empty { (v.t(M::PushEmpty)) }
        } @else {
            div.scroll {
                table #push {
                    tbody {
                        @for (key, bytes) in &pending {
                            tr {
                                td { a href={ "/game/" (key_path(key)) } { (key) } }
                                td.num { (size(&v, *bytes)) }
                                @if v.admin {
                                    td { button.secondary type="button" data-method="DELETE" data-api={ "/api/push/" (key_path(key)) } { (v.t(M::Remove)) } }
                                }
                            }
                        }
                    }
                }
            }
            @if v.admin {
                div.actions {
                    button type="button" data-api="/api/push" data-then="/" { (v.t(M::StartPush)) }
                    button.secondary type="button" data-method="DELETE" data-api="/api/push" data-confirm { (v.t(M::ClearList)) }
                }
            }
        }
    };
    page(&v, v.t(M::Device), "/device", body)
}

/// `GET /trash`.
pub fn trash_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let rows = trash::list(c.db)?;
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
                                            button.danger type="button" data-method="DELETE" data-api={ "/api/trash/" (r.id) } data-confirm { (v.t(M::Purge)) }
                                        }
                                    }
                                }
                                td.num { (size(&v, r.size)) }
                                td.wide { (view::word(&v, &r.reason)) }
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

/// `GET /platforms`.
pub fn platforms_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let counts = c.app.pages.stats_by_platform(c.db)?;
    let list = platforms::list(c.db)?;
    let body = html! {
        div.scroll {
            table #platforms {
                thead { tr {
                    th { (v.t(M::Name)) } th.wide { (v.t(M::Slug)) } th { (v.t(M::Folder)) }
                    th.wide { (v.t(M::Extensions)) } th.num { (v.t(M::Games)) } th.num.wide { (v.t(M::Size)) }
                } }
                tbody {
                    @for p in &list {
                        @let n = counts.get(&p.slug).cloned().unwrap_or_default();
                        tr {
                            td {
                                a href={ "/library?platform=" (query_value(&p.slug)) } { (p.name) }
                                @if v.admin {
                                    div.actions {
                                        button.danger type="button" data-method="DELETE" data-api={ "/api/platforms/" (query_value(&p.slug)) } data-confirm { (v.t(M::Delete)) }
                                    }
                                }
                            }
                            td.wide { code { (p.slug) } }
                            td { @if p.folder.is_empty() { (v.t(M::WholeLibrary)) } @else { code { (p.folder) } } }
                            td.wide { (p.extensions.join(", ")) }
                            td.num { (n.total) } td.num.wide { (size(&v, n.bytes)) }
                        }
                    }
                }
            }
        }
        @if v.admin {
            h2 { (v.t(M::AddPlatform)) }
            form.stack data-api="/api/platforms" {
                label { (v.t(M::Slug)) input name="slug" required pattern="[a-z0-9-]{1,32}"; }
                label { (v.t(M::Name)) input name="name" required; }
                label { (v.t(M::Folder)) input name="folder" required; }
                label { (v.t(M::Extensions)) input name="extensions" required placeholder="nsp, nsz, xci, xcz"; }
                button type="submit" { (v.t(M::Add)) }
            }
        }
    };
    page(&v, v.t(M::Platforms), "/platforms", body)
}

/// `GET /settings`: the library, the device, the retention, the limits, the account.
pub fn settings(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let cfg = &c.app.config;
    let ready = library::is_ready(c.db, &cfg.library)?;
    let accounts = if v.admin {
        users::list(c.db)?
    } else {
        Vec::new()
    };
    let limits = [
        (M::KeyRate, cfg.key_rate.to_string(), "--key-rate"),
        (M::KeyBurst, cfg.key_burst.to_string(), "--key-burst"),
        (
            M::AuthFailures,
            cfg.auth_failures_per_minute.to_string(),
            "--auth-failures-per-minute",
        ),
        (M::MaxBody, size(&v, cfg.max_body as u64), "--max-body"),
        (M::Workers, cfg.workers.to_string(), "--workers"),
        (
            M::MaxConnections,
            cfg.max_connections.to_string(),
            "--max-connections",
        ),
    ];
    let body = html! {
        h2 { (v.t(M::LibrarySettings)) }
        dl.facts {
            // The folder itself is a server path, which the interface never shows.
            dt { (v.t(M::LibraryFolder)) } dd { (v.t(M::LibraryFolderNote)) }
            dt { (v.t(M::Ready)) } dd { (v.t(if ready { M::Yes } else { M::No })) }
            dt { (v.t(M::Platforms)) } dd { a href="/platforms" { (v.t(M::Platforms)) } }
            dt { (v.t(M::Device)) } dd { a href="/device" { (v.t(M::Device)) } }
            dt { (v.t(M::Retention)) } dd { (cfg.trash_retention_days) " " (v.t(M::Days)) " · " (v.t(M::SetByFlag)) " " code.flag { "--trash-retention-days" } }
        }
        h2 { (v.t(M::Limits)) }
        dl.facts {
            @for (m, value, flag) in &limits {
                dt { (v.t(*m)) } dd { (value) " · " (v.t(M::SetByFlag)) " " code.flag { (flag) } }
            }
        }
        h2 { (v.t(M::Access)) }
        p { a href="/settings/keys" { (v.t(M::ApiKeys)) } }
        @if let Some(name) = &v.name {
            h2 { (name) " · " (view::role(&v)) }
            form.stack #lang-form data-api="/api/me/lang" {
                label { (v.t(M::Language))
                    select name="lang" {
                        option value="fr" selected[v.lang == Lang::Fr] { "Français" }
                        option value="en" selected[v.lang == Lang::En] { "English" }
                    }
                }
                button type="submit" { (v.t(M::Save)) }
            }
            form.stack data-api="/api/me/password" data-then="/login" data-same="new,new2" {
                label { (v.t(M::CurrentPassword)) input name="current" type="password" autocomplete="current-password" required; }
                label { (v.t(M::NewPassword)) input name="new" type="password" autocomplete="new-password" minlength="8" required; }
                label { (v.t(M::PasswordAgain)) input name="new2" type="password" autocomplete="new-password" minlength="8" required; }
                button type="submit" { (v.t(M::ChangePassword)) }
            }
        }
        @if v.admin {
            h2 { (v.t(M::Accounts)) }
            p.note { (v.t(M::AccountsHint)) }
            @if !accounts.is_empty() {
                ul #accounts { @for u in &accounts { li { (u.name) " · " (u.role) " · " (u.lang) } } }
            }
        }
    };
    page(&v, v.t(M::Settings), "/settings", body)
}

/// `GET /settings/keys`: Settings → Access → API keys.
pub fn keys(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let keys = api_keys::list(c.db)?;
    let body = html! {
        @if v.admin {
            form.stack #key-form data-api="/api/keys" data-then="key" {
                label { (v.t(M::Name)) input name="name" required maxlength="100"; }
                label.check { input name="read_only" type="checkbox"; (v.t(M::ReadOnly)) }
                button type="submit" { (v.t(M::CreateKey)) }
            }
            div #new-key hidden {
                p.note { (v.t(M::KeyShownOnce)) }
                div.copy {
                    input #new-key-value readonly aria-label=(v.t(M::ApiKeys));
                    button type="button" data-copy="new-key-value" { (v.t(M::Copy)) }
                }
            }
        }
        p.empty #keys-empty hidden[!keys.is_empty()] { (v.t(M::NoKeys)) }
        {
            // Always there, even empty: the script adds a key just created to it.
            div.scroll {
                table #keys hidden[keys.is_empty()] data-revoke=(v.t(M::Revoke)) data-read-only=(v.t(M::ReadOnly)) data-never=(v.t(M::Never)) {
                    thead { tr {
                        th { (v.t(M::Name)) } th { (v.t(M::Prefix)) } th.wide { (v.t(M::Access)) }
                        th.wide { (v.t(M::Created)) } th { (v.t(M::LastUsed)) } th {}
                    } }
                    tbody {
                        @for k in &keys {
                            tr data-key-id=(k.id) {
                                td { (k.name) }
                                td { code { (k.prefix) "…" } }
                                td.wide { @if k.read_only { (v.t(M::ReadOnly)) } @else { "—" } }
                                td.wide { (date(&v, Some(k.created_at))) }
                                td { (date(&v, k.last_used_at)) }
                                td {
                                    @if k.revoked_at.is_some() { (v.t(M::Revoked)) }
                                    @else if v.admin {
                                        button.danger type="button" data-method="DELETE" data-api={ "/api/keys/" (k.id) } data-confirm { (v.t(M::Revoke)) }
                                    } @else { (v.t(M::Active)) }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    page(&v, v.t(M::ApiKeys), "/settings/keys", body)
}
