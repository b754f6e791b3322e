//! The library's files: the list of every file with its search and filters, a
//! game's page, and the platforms (the folders the scan reads). The title-centred
//! list is `titles`.

use maud::{html, Markup};
use serde::Deserialize;

use super::body;
use super::pager;
use super::view::{self, date, key_path, kind, page, query_value, size, Viewer};
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::params::{self, Paging};
use crate::http::{Ctx, Reply};
use crate::library;
use crate::library::search::{format_of, search_query, trim_blank, FORMATS};
use crate::store::platforms::{self, Platform};
use crate::store::{games, title_state};
use crate::words::{GameKind, TitleId};

/// `GET /files?q=&type=&platform=&sort=&page=&limit=`: every file, one row each (the
/// library's main page lists titles; files without a title ID are only here), by
/// name, A to Z or (`sort=name-desc`) Z to A.
pub fn files_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let q = c.req.query("q").map(trim_blank).transpose()?.unwrap_or("");
    let kind_filter = params::game_type(c.req).ok().flatten();
    let platform = c.req.query("platform").filter(|p| !p.is_empty());
    let damaged = c.req.query("damaged").is_some_and(|d| !d.is_empty());
    // Another value is no filter, like a platform no file has.
    let format = c
        .req
        .query("format")
        .and_then(|f| FORMATS.into_iter().find(|x| *x == f));
    let desc = c.req.query("sort") == Some("name-desc");
    let paging = Paging::from_req(c.req);
    let only = Only {
        kind: kind_filter,
        platform,
        damaged,
        format,
    };
    let (shown, total, mut items) = pager::read(paging, desc, |limit, offset| {
        files_of(c, q, &only, limit, offset)
    })?;
    if desc {
        items.reverse();
    }
    let all_platforms = platforms::list(c.db)?;
    let mut links = pager::Links::new("/files", paging.limit);
    links.keep("q", q);
    links.keep("type", kind_filter.map_or("", GameKind::as_str));
    links.keep("platform", platform.unwrap_or(""));
    links.keep("damaged", if damaged { "1" } else { "" });
    links.keep("format", format.unwrap_or(""));
    links.keep("sort", if desc { "name-desc" } else { "" });
    let body = html! {
        (super::tasks::first_scan_note(c, &v)?)
        (filters(&v, &links, &only, &all_platforms))
        div #results {
            p #result-count { (view::count(&v, total, M::ResultOne, M::Results)) }
            @if items.is_empty() {
                p.empty { (v.t(M::NoGames)) }
                (super::titles::did_you_mean(c, &v, &links, &search_query(q)?.words, |words| {
                    Ok(files_of(c, &words.join(" "), &only, 1, 0)?.0 > 0)
                })?)
            } @else {
                @let pick = v.admin;
                @if v.admin { (super::selection::bar(c, &v)) }
                (file_table(&v, &links, desc, &items, pick))
            }
            (pager::pager(&v, &links, shown, paging.pages(total)))
        }
    };
    page(&v, v.t(M::AllFiles), "/library", body)
}

/// The files' table; its name column sorts, A to Z or Z to A.
/// With `pick`, each file has a box that adds it to the selection (`selection`).
fn file_table(
    v: &Viewer,
    links: &pager::Links,
    desc: bool,
    items: &[FileRow],
    pick: bool,
) -> Markup {
    let (aria, other) = match desc {
        true => ("descending", ""),
        false => ("ascending", "name-desc"),
    };
    html! {
        div.scroll {
            table #games {
                thead { tr {
                    th aria-sort=(aria) {
                        @if pick { input #pick-all type="checkbox" aria-label=(v.t(M::SelectAllShown)); " " }
                        a.sort href=(links.url_with(1, Some(("sort", other)))) title=(v.t(M::SortedHint)) {
                            (v.t(M::Name)) " " span aria-hidden="true" { (if desc { "↓" } else { "↑" }) }
                        }
                    }
                    th.wide { (v.t(M::Type)) } th { (v.t(M::Version)) } th.num { (v.t(M::Size)) } th.wide { (v.t(M::TitleId)) }
                } }
                tbody {
                    @for FileRow { item: g, damage, shown } in items {
                        tr {
                            td {
                                @if pick {
                                    @let (convert, compress) = super::selection::row_data(&g.key);
                                    input.pick type="checkbox" value=(g.key) data-size=(g.size)
                                        data-convert=(convert) data-compress=(compress)
                                        aria-label={ (v.t(M::SelectFile)) " " (g.name) };
                                    " "
                                }
                                a href={ "/game/" (key_path(&g.key)) } { (g.name) }
                                @if let Some(f) = format_of(&g.key) { " " span.badge.format data-format=(f) { (f) } }
                                @if let Some(why) = damage { " " span.badge.damaged title=(v.say(why)) { (v.t(M::Damaged)) } }
                            }
                            td.wide { (kind(v, g.kind)) }
                            td { (view::version(shown.as_deref(), g.version)) }
                            td.num { (size(v, g.size)) }
                            td.wide { code { @if let Some(id) = g.title_id { (id) } @else { "—" } } }
                        }
                    }
                }
            }
        }
    }
}

/// A file as the list shows it.
struct FileRow {
    item: games::GameItem,
    /// Why it is damaged: its header did not read, or a task found it broken.
    damage: Option<Msg>,
    /// Its display version ("1.2.0"), when its Control NCA gave one.
    shown: Option<String>,
}

/// A page of the files: the library in order (of one type), or what a search and
/// the platform filter keep.
/// The file list's filters besides the search text.
struct Only<'a> {
    kind: Option<GameKind>,
    platform: Option<&'a str>,
    /// Only the damaged files.
    damaged: bool,
    /// Only the files of one format (`nsp`…).
    format: Option<&'static str>,
}

fn files_of(
    c: &Ctx,
    q: &str,
    only: &Only,
    limit: u64,
    offset: u64,
) -> Result<(u64, Vec<FileRow>), Error> {
    let index = c.app.views.names.get(c.db)?;
    let plain = only.platform.is_none() && !only.damaged && only.format.is_none();
    let (total, at) = if q.is_empty() && plain {
        index.page(only.kind, limit, offset)
    } else {
        let mut query = search_query(q)?;
        query.kind = only.kind;
        query.platform = only.platform.map(str::to_string);
        query.damaged = only.damaged;
        query.format = only.format;
        index.search(&query, limit, offset)
    };
    let keyed = !crate::store::title_control::is_empty(c.db)?;
    let mut rows = Vec::with_capacity(at.len());
    for &i in &at {
        let listed = index.listed(i);
        let item = listed.to_item();
        // The reason is read for the few damaged files of the page only.
        let damage = match listed.damaged {
            true => games::get(c.db, &item.key)?.and_then(|g| g.damage),
            false => None,
        };
        let shown = match keyed {
            true => view::display_version(c, item.title_id, item.version)?,
            false => None,
        };
        rows.push(FileRow {
            item,
            damage,
            shown,
        });
    }
    Ok((total, rows))
}

/// The search box and the type and platform filters of the library page.
/// The form keeps the order and page size in hidden fields, and applies a change of
/// type or platform at once (`data-autosubmit`, see the end of `app.js`).
fn filters(v: &Viewer, links: &pager::Links, only: &Only, all_platforms: &[Platform]) -> Markup {
    let (kind_filter, platform) = (only.kind, only.platform);
    let kept = |name: &str| {
        links
            .params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    };
    html! {
        form.filters method="get" action="/files" role="search" data-autosubmit {
            @for name in ["sort", "limit"] {
                @if let Some(value) = kept(name) { input type="hidden" name=(name) value=(value); }
            }
            label { (v.t(M::Search)) input type="search" name="q" value=(kept("q").unwrap_or("")) placeholder=(v.t(M::SearchHint)); }
            label { (v.t(M::Type))
                select name="type" {
                    option value="" { (v.t(M::All)) }
                    @for t in GameKind::ALL {
                        option value=(t.as_str()) selected[kind_filter == Some(*t)] { (kind(v, *t)) }
                    }
                }
            }
            label { (v.t(M::Platform))
                select name="platform" {
                    option value="" { (v.t(M::All)) }
                    @for p in all_platforms {
                        option value=(p.slug) selected[platform == Some(p.slug.as_str())] { (p.name) }
                    }
                }
            }
            label { (v.t(M::Format))
                select name="format" {
                    option value="" { (v.t(M::All)) }
                    @for f in FORMATS { option value=(f) selected[only.format == Some(f)] { "." (f) } }
                }
            }
            label.check { input type="checkbox" name="damaged" value="1" checked[only.damaged]; (v.t(M::DamagedOnly)) }
            button type="submit" { (v.t(M::Filter)) }
        }
    }
}

/// `GET /game/{key}`: what the file is, how it was identified, its family.
pub fn game(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let key = c.param(0);
    let Some(g) = library::find(c.db, key)? else {
        let mut reply = page(
            &v,
            v.t(M::NotFound),
            "/library",
            html! { p { (v.t(M::NoSuchGame)) } },
        )?;
        reply.status = 404;
        return Ok(reply);
    };
    let family = family_of(c, &g)?;
    let yes_no = |b: bool| v.t(if b { M::Yes } else { M::No });
    let contents = crate::store::contents::of(c.db, &g.item.key)?;
    let control = match g.item.title_id {
        Some(id) => crate::store::title_control::get(c.db, id)?,
        None => None,
    };
    // People read the platform's name ("Nintendo Switch"), not its slug.
    let platform_name = platforms::list(c.db)?
        .into_iter()
        .find(|p| p.slug == g.platform)
        .map_or_else(|| g.platform.clone(), |p| p.name);
    // As the last scan (or the watch's) saw it: a dead network share is never asked
    // again on every view.
    let away = g.offline.then(|| {
        let lib = c.app.config.folders();
        let name = lib.all()[lib.index_of(&g.item.key)].name.clone();
        Msg::FolderAway { name }
    });
    let body = html! {
        @if let Some(base) = g.item.base_title_id { (super::titles::header_icon(c, base)) }
        @if let Some(away) = &away { p.warn #folder-away { (v.msg(away)) } }
        @if let Some(why) = &g.damage {
            p.warn #damaged { strong { (v.t(M::Damaged)) } (v.colon()) (v.say(why)) }
        }
        dl.facts {
            dt { (v.t(M::Type)) } dd #game-type { (kind(&v, g.item.kind)) }
            dt { (v.t(M::Size)) } dd { (size(&v, g.item.size)) }
            dt { (v.t(M::Format)) } dd { (g.format) }
            dt { (v.t(M::Platform)) } dd { a href={ "/files?platform=" (query_value(&g.platform)) } { (platform_name) } }
            dt { (v.t(M::Modified)) } dd { (date(&v, Some(g.mtime / 1_000_000_000))) }
            dt { (v.t(M::Playable)) } dd { (yes_no(g.item.playable)) }
            dt { (v.t(M::Key)) } dd { code { (g.item.key) } }
        }
        p.actions { a.button #download href={ "/download/" (key_path(&g.item.key)) } download { (v.t(M::Download)) } }
        (evidence(&v, &g, view::display_version(c, g.item.title_id, g.item.version)?))
        (held(&v, &g, &contents, control.as_ref()))
        @if let Some(f) = &family {
            h2 { (v.t(M::Updates)) }
            (file_list(c, &f.updates)?)
            h2 { (v.t(M::Dlc)) }
            (file_list(c, &f.dlc)?)
        }
        @if v.admin { (game_actions(c, &v, &g, family.as_ref())) }
    };
    page(&v, &g.item.name, "/library", body)
}

/// `GET /download/{key}`: the file, whole or one range, for any signed-in role, on
/// the download threads like the shop's files and noted with them (under the
/// account's name: the Consoles page shows it beside the consoles).
pub fn download_file(c: &Ctx) -> Result<Reply, Error> {
    let Some(g) = crate::store::games::get(c.db, c.param(0))? else {
        return Err(Error::not_found(Msg::NoSuchFile));
    };
    let who = c.principal.log_name().unwrap_or_else(|| "local".into());
    let mut reply = crate::api::shop::send(c, &g.item.key, who)?;
    reply.content_type = "application/octet-stream";
    Ok(reply.attachment(&g.item.key))
}

/// What an admin may do with a file: push it (or its whole title), verify it or
/// compress it with the console keys, delete it.
fn game_actions(c: &Ctx, v: &Viewer, g: &games::GameDetail, family: Option<&Family>) -> Markup {
    let api_key = key_path(&g.item.key);
    let push_warning = g.damage.as_ref().map(|_| v.t(M::PushDamaged));
    let verifiable = crate::convert::verify::is_verifiable(&g.format);
    let no_keys = verifiable && c.app.prod_keys.current().is_none();
    // Compressing decrypts the NCAs, which only the console keys open.
    let compressible = crate::web::compress::compressible(&g.format);
    let no_compress_keys = compressible && c.app.prod_keys.current().is_none();
    html! {
        div.actions {
            button type="button" #add-push data-api={ "/api/push/" (api_key) } data-then="said" data-confirm=[push_warning] { (v.t(M::AddToPush)) }
            @if verifiable {
                button type="button" #verify data-api={ "/api/verify/" (api_key) } data-then="/tasks"
                    disabled[no_keys] title=[no_keys.then(|| v.t(M::VerifyNoKeys))] { (v.t(M::VerifyFile)) }
            }
            @if compressible {
                button type="button" #compress data-api={ "/api/compress/" (api_key) } data-then="/tasks"
                    disabled[no_compress_keys] title=[no_compress_keys.then(|| v.t(M::CompressNoKeys))]
                    aria-describedby="compress-estimate" { (v.t(M::CompressFile)) }
            }
            @if let Some(f) = family {
                (super::titles::push_title_button(v, f.title_id, f.damaged))
            }
            button.danger type="button" #delete data-method="DELETE" data-api={ "/api/library/" (api_key) } data-then="/trash" data-undo { (v.t(M::DeleteToTrash)) }
        }
        @if compressible {
            p.hint #compress-estimate { (super::compress::estimate(v, g.item.size)) }
        }
    }
}

/// A base game's updates and DLC in the library, and how many of its title's files are
/// damaged (adding the whole title to the push list then asks first).
struct Family {
    title_id: TitleId,
    updates: Vec<String>,
    dlc: Vec<String>,
    damaged: u64,
}

fn family_of(c: &Ctx, g: &games::GameDetail) -> Result<Option<Family>, Error> {
    let (GameKind::Base, Some(id)) = (g.item.kind, g.item.title_id) else {
        return Ok(None);
    };
    // A cartridge holding its update is not its own update.
    let others = |kind| -> Result<Vec<String>, Error> {
        let mut keys = games::related(c.db, id, kind)?;
        keys.retain(|k| *k != g.item.key);
        Ok(keys)
    };
    Ok(Some(Family {
        title_id: id,
        updates: others(GameKind::Update)?,
        dlc: others(GameKind::Dlc)?,
        damaged: title_state::get(c.db, id)?.map_or(0, |t| t.damaged_files),
    }))
}

/// How the game was identified, for the game page.
fn evidence(v: &Viewer, g: &games::GameDetail, shown: Option<String>) -> Markup {
    html! {
        h2 { (v.t(M::Evidence)) }
        dl.facts {
            dt { (v.t(M::TitleId)) } dd { code { @if let Some(id) = g.item.title_id { (id) } @else { "—" } } }
            dt { (v.t(M::Version)) } dd #version { (view::version(shown.as_deref(), g.item.version)) }
            dt { (v.t(M::IdentifiedBy)) } dd data-source=(g.identified_by.as_str()) { (view::evidence(v, g.identified_by)) }
            @if let Some(sub) = &g.subtype {
                dt { (v.t(M::Subtype)) } dd data-subtype=(sub) { @if sub == "dlc_update" { (v.t(M::SubtypeDlcUpdate)) } @else { (sub) } }
            }
            @if let Some(base) = g.item.base_title_id {
                dt { (v.t(M::BaseTitle)) } dd { a href={ "/library?q=" (query_value(&base.to_string())) } { code { (base) } } }
            }
            @if let Some(note) = g.note.as_ref().filter(|n| !said_above(v, g, n)) {
                dt { (v.t(M::Note)) } dd { (v.lang.detail(note)) }
            }
        }
    }
}

/// The parser's note says what the damage banner above says already (a file whose
/// header could not be read): once is enough.
fn said_above(v: &Viewer, g: &games::GameDetail, note: &crate::error::Detail) -> bool {
    let note = v.lang.detail(note).to_lowercase();
    g.damage
        .as_ref()
        .is_some_and(|why| v.say(why).to_lowercase().contains(&note))
}

/// What the file holds when it was read with the console keys: every content, the
/// name tags that disagree with it, and the names its Control NCA gives.
fn held(
    v: &Viewer,
    g: &games::GameDetail,
    contents: &[crate::store::contents::ContentRow],
    control: Option<&crate::store::title_control::ControlRow>,
) -> Markup {
    // The content that speaks for the file: the one its row names.
    let first = contents
        .iter()
        .find(|c| g.item.title_id == Some(c.title_id))
        .or(contents.first());
    let conflict = g.name_conflict.as_deref().zip(first).map(|(named, c)| {
        // Inside a sentence: "holds update 0100… v196608", raw as the file name's own tag
        // it is set against (`[v131072]`).
        let word = kind(v, c.kind).to_lowercase();
        let holds = format!("{word} {} v{}", c.title_id, c.version);
        v.msg(&Msg::NameConflict {
            named: named.into(),
            holds,
        })
    });
    html! {
        @if let Some(conflict) = conflict { p.warn #name-conflict { (conflict) } }
        @if !contents.is_empty() {
            h2 { (v.t(M::FileContents)) }
            div.scroll { table #contents {
                thead { tr { th { (v.t(M::Type)) } th { (v.t(M::TitleId)) } th.num { (v.t(M::Version)) } } }
                tbody { @for c in contents {
                    tr { td { (kind(v, c.kind)) } td { code { (c.title_id) } } td.num { (view::version(None, Some(c.version))) } }
                } }
            } }
        }
        @if let Some(control) = control {
            h2 { (v.t(M::FromTheFile)) }
            dl.facts #from-the-file {
                dt { (v.t(M::Name)) } dd { (view::own_name(v, control)) }
                @if !control.publisher.is_empty() { dt { (v.t(M::Publisher)) } dd { (control.publisher) } }
                @if !control.display_version.is_empty() {
                    dt { (v.t(M::DisplayVersion)) } dd { (control.display_version) }
                }
            }
        }
    }
}

/// A title's other files, each by its name and version ("v3 · 1.3.0", the raw
/// number in its tooltip), its path small under it.
fn file_list(c: &Ctx, keys: &[String]) -> Result<Markup, Error> {
    let mut rows = Vec::with_capacity(keys.len());
    for key in keys {
        let Some(g) = library::find(c.db, key)? else {
            continue;
        };
        let shown = view::display_version(c, g.item.title_id, g.item.version)?;
        rows.push((g.item, shown));
    }
    Ok(html! {
        @if rows.is_empty() { p.empty { "—" } }
        @else {
            ul.keys { @for (item, shown) in &rows { li {
                a href={ "/game/" (key_path(&item.key)) } { (item.name) }
                " " (view::version(shown.as_deref(), item.version))
                br; code.id { (item.key) }
            } } }
        }
    })
}

/// `GET /platforms`.
pub fn platforms_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let counts = c.app.views.stats_by_platform(c.db)?;
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
                                a href={ "/files?platform=" (query_value(&p.slug)) } { (p.name) }
                                // The only platform cannot go (`delete_platform`): no button for it.
                                @if v.admin && list.len() > 1 {
                                    div.actions {
                                        button.danger type="button" data-method="DELETE" data-api={ "/api/platforms/" (query_value(&p.slug)) } data-confirm=(v.msg(&Msg::ConfirmRemovePlatform { name: p.name.clone() })) { (v.t(M::Delete)) }
                                    }
                                }
                            }
                            td.wide { code { (p.slug) } }
                            td { @if p.folder.is_empty() { (v.t(M::WholeLibrary)) } @else { code { (p.folder) } } }
                            td.wide { (p.extensions.join(", ")) }
                            td.num { (super::view::number(&v, n.total)) } td.num.wide { (size(&v, n.bytes)) }
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

#[derive(Deserialize)]
struct PlatformForm {
    slug: String,
    name: String,
    folder: String,
    /// A list, or one comma-separated string (as a form sends it).
    extensions: serde_json::Value,
}

/// `POST /api/platforms` `{slug, name, folder, extensions}`: 201 with the platform
/// list. The folder is relative to the library root and may not climb out of it.
pub fn add_platform(c: &Ctx) -> Result<Reply, Error> {
    let form: PlatformForm = body(c, "slug, name, folder and extensions")?;
    let slug = form.slug.trim();
    if slug.is_empty()
        || slug.len() > 32
        || !slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(Error::invalid(Msg::BadSlug));
    }
    let name = crate::text::name("A platform's name", form.name.trim())?;
    // Relative to the library: a leading '/' would mean a server path, so it is refused.
    let folder = form.folder.trim().trim_end_matches('/');
    let Some(key) = library::LibraryKey::parse(folder) else {
        return Err(Error::invalid(Msg::BadFolder));
    };
    // The scan walks neither links nor hidden folders (the trash is one), in
    // whichever library folder the folder lies.
    let lib = c.app.config.folders();
    let place = lib.locate(&key);
    if !lib.is_mounted(folder) && !library::safe::walkable_folder(place.dir(), &place.key) {
        return Err(Error::invalid(Msg::FolderRefused));
    }
    let words: Vec<String> = match &form.extensions {
        serde_json::Value::String(s) => s.split([',', ' ']).map(str::to_string).collect(),
        serde_json::Value::Array(a) => a
            .iter()
            .map(|v| v.as_str().unwrap_or("").to_string())
            .collect(),
        _ => Vec::new(),
    };
    let extensions: Vec<String> = words
        .iter()
        .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .collect();
    if extensions.is_empty()
        || extensions
            .iter()
            .any(|e| e.len() > 10 || !e.bytes().all(|b| b.is_ascii_alphanumeric()))
    {
        return Err(Error::invalid(Msg::BadExtensions));
    }
    let platform = Platform {
        slug: slug.to_string(),
        name,
        folder: folder.to_string(),
        extensions,
    };
    if !platforms::insert(c.db, &platform)? {
        return Err(Error::conflict(Msg::PlatformExists));
    }
    let mut reply = crate::api::v1::library::platforms(c)?;
    reply.status = 201;
    Ok(reply)
}

/// `DELETE /api/platforms/{slug}`: the platform and its games leave the index; their
/// files stay. The last platform cannot go (nothing would be scanned).
pub fn delete_platform(c: &Ctx) -> Result<Reply, Error> {
    let list = platforms::list(c.db)?;
    if !list.iter().any(|p| p.slug == c.param(0)) {
        return Err(Error::not_found(Msg::NoPlatform));
    }
    if list.len() == 1 {
        return Err(Error::conflict(Msg::LastPlatform));
    }
    platforms::delete(c.db, c.param(0))?;
    crate::api::v1::library::platforms(c)
}
