//! A console's own page (`/consoles/{name}`): its last request (when, from where, by
//! which program, followed live until the first one arrives), what it downloaded from
//! the shop, and its saves, CyberFoil's versions and the files a WebDAV client put,
//! each to download or to move to the trash, and those in the trash to restore. With
//! the `webdav.json` JKSV reads.

use maud::{html, Markup};

use super::view::{date, moment, page, size, Viewer};
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::saves::dav::{DavPath, Node, Space};
use crate::store::consoles::{self, Console};
use crate::store::saves::{self as versions, SaveRow};
use crate::store::{shop_downloads, trash};
use crate::text::encode_segment;
use crate::words::{TitleId, TrashReason};

/// A console's page lists at most this many files.
const MAX_FILES: usize = 2000;
/// Its saves in the trash shown, the latest first.
const TRASH_SHOWN: usize = 20;

fn console(c: &Ctx) -> Result<Console, Error> {
    consoles::by_name(c.db, c.param(0))?
        .map(|(console, _)| console)
        .ok_or_else(|| {
            Error::not_found(Msg::NoConsole {
                name: crate::text::cut(c.param(0), 64).into(),
            })
        })
}

fn space<'c>(c: &'c Ctx, console: &'c Console) -> Space<'c> {
    Space::of(c.db, &c.app.config, &console.name)
}

/// The console's last request in one line, in the reader's words.
fn status_line(v: &Viewer, con: &Console) -> String {
    match (&con.last_client, &con.last_address, con.last_used_at) {
        (Some(client), Some(address), Some(at)) => format!(
            "{} — {} {} {} ({})",
            v.t(M::ConsoleConnected),
            if client.is_empty() { "?" } else { client },
            v.t(M::From),
            address,
            moment(v, at)
        ),
        (_, _, Some(at)) => format!("{} ({})", v.t(M::ConsoleConnected), moment(v, at)),
        _ => v.t(M::ConsoleWaiting).to_string(),
    }
}

/// `GET /consoles/{name}`.
pub fn console_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let con = console(c)?;
    let space = space(c, &con);
    space.open()?;
    let api = format!("/api/consoles/{}", encode_segment(&con.name));
    let body = html! {
        p { a href="/device#shop" { "← " (v.t(M::Consoles)) } }
        p #console-status data-status=(api) data-waiting[con.last_used_at.is_none()] {
            (status_line(&v, &con))
        }
        h3 #saves { (v.t(M::Saves)) }
        p.note { (v.t(M::SavesIntro)) }
        (saves(c, &v, &space, &con)?)
        (trashed(c, &v, &con)?)
        h3 #jksv { (v.t(M::JksvHeading)) }
        p { (v.t(M::JksvIntro)) }
        (webdav_json(c, &v, &con))
        h3 #downloads { (v.t(M::RecentDownloads)) }
        (downloads(c, &v, &con)?)
    };
    page(&v, &con.name, "/device", body)
}

/// The saves, by the space's top folder: a title's versions under its name and icon,
/// a client's own folders (JKSV's) under their names.
fn saves(c: &Ctx, v: &Viewer, space: &Space, con: &Console) -> Result<Markup, Error> {
    let (files, _) = space.files(&DavPath::parse("")?, MAX_FILES);
    let rows = versions::of_console(c.db, &con.name)?;
    let mut groups: Vec<(String, Vec<(DavPath, Node)>)> = Vec::new();
    for (path, node) in files {
        let top = path.names()[0].clone();
        match groups.last_mut() {
            Some((name, list)) if *name == top => list.push((path, node)),
            _ => groups.push((top, vec![(path, node)])),
        }
    }
    Ok(html! {
        @if groups.is_empty() { p.empty #no-saves { (v.t(M::NoSaves)) } }
        @for (top, list) in &groups {
            section.save-group {
                (group_heading(c, top))
                ul.saves { @for (path, node) in list {
                    (save_row(v, con, path, node, version_of(&rows, path)))
                } }
            }
        }
    })
}

/// A top folder's heading: a title's name and icon, or the folder's name.
fn group_heading(c: &Ctx, top: &str) -> Markup {
    match TitleId::parse(top) {
        Some(id) => {
            let name = crate::store::titles::name(c.db, id).ok().flatten();
            html! { h4.title-head {
                (super::titles::icon(c, id))
                @match name {
                    Some(name) => { span { (name) } code { (id) } }
                    None => code { (id) },
                }
            } }
        }
        None => html! { h4 { (top) "/" } },
    }
}

/// The version CyberFoil uploaded at `path`, if it is one.
fn version_of<'r>(rows: &'r [SaveRow], path: &DavPath) -> Option<&'r SaveRow> {
    let [title, file] = path.names() else {
        return None;
    };
    rows.iter()
        .find(|r| r.title_id.to_string() == *title && format!("{}.zip", r.save_id) == *file)
}

fn save_row(
    v: &Viewer,
    con: &Console,
    path: &DavPath,
    node: &Node,
    version: Option<&SaveRow>,
) -> Markup {
    let rel: Vec<String> = path.names().iter().map(|n| encode_segment(n)).collect();
    let (name, rel) = (encode_segment(&con.name), rel.join("/"));
    let when = match version {
        Some(r) => r.created_ms / 1000,
        None => node
            .modified
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    };
    let shown = path.names()[1..].join("/");
    html! {
        li data-save=(path.text()) {
            span.save-name { (if shown.is_empty() { path.text() } else { shown }) }
            span.save-meta {
                (date(v, Some(when))) " · " (size(v, node.len))
                @if let Some(r) = version { @if !r.note.is_empty() { " · " q { (r.note) } } }
            }
            div.actions {
                a.button.secondary href={ "/consoles/" (name) "/files/" (rel) } download { (v.t(M::Download)) }
                @if v.admin {
                    button.danger type="button" data-method="DELETE" data-api={ "/api/consoles/" (name) "/files/" (rel) }
                        data-confirm=(v.msg(&Msg::ConfirmTrashSave { name: path.text() })) { (v.t(M::DeleteToTrash)) }
                }
            }
        }
    }
}

/// The console's saves in the trash, the latest [`TRASH_SHOWN`], to restore; the
/// Trash page has them all.
fn trashed(c: &Ctx, v: &Viewer, con: &Console) -> Result<Markup, Error> {
    let prefix = format!(
        "{}/{}/",
        crate::saves::FOLDER,
        crate::saves::console_folder(&con.name)
    );
    let rows: Vec<_> = trash::list(c.db)?
        .into_iter()
        .filter(|r| r.reason == TrashReason::Save && r.key.starts_with(&prefix))
        .collect();
    let more = rows.len().saturating_sub(TRASH_SHOWN);
    Ok(html! {
        @if !rows.is_empty() {
            h4 #saves-trash { (v.t(M::SavesInTrash)) }
            ul.trashed { @for r in rows.iter().take(TRASH_SHOWN) {
                li {
                    span { (r.key[prefix.len()..]) } " · " (size(v, r.size)) " · " (date(v, Some(r.deleted_at))) " "
                    @if v.admin {
                        button.secondary type="button" data-api={ "/api/trash/" (r.id) "/restore" } { (v.t(M::Restore)) }
                    }
                }
            } }
            @if more > 0 { p { a href="/trash" { (v.t(M::MoreInTrash)) } } }
        }
    })
}

/// What JKSV reads from `SD:/config/JKSV/webdav.json`, with this service's address.
fn webdav_json(c: &Ctx, v: &Viewer, con: &Console) -> Markup {
    let (address, _) = super::shop::address(c);
    let json = serde_json::json!({
        "origin": format!("http://{address}"),
        "basepath": "dav",
        "username": con.name,
        "password": v.t(M::ConsolePasswordHere),
    });
    let text = serde_json::to_string_pretty(&json).unwrap_or_default();
    html! {
        textarea #webdav-json readonly rows="6" aria-label="webdav.json" { (text) }
        button.secondary type="button" data-copy="webdav-json" { (v.t(M::Copy)) }
    }
}

fn downloads(c: &Ctx, v: &Viewer, con: &Console) -> Result<Markup, Error> {
    let recent = shop_downloads::of_console(c.db, &con.name, 20)?;
    Ok(html! {
        @if recent.is_empty() { p.empty { (v.t(M::NoDownloads)) } }
        @else { ul { @for d in &recent {
            li { a href={ "/game/" (crate::text::key_path(&d.key)) } { (d.key) } " · " (size(v, d.bytes)) " · " (date(v, Some(d.last_at))) }
        } } }
    })
}

/// `GET /api/consoles/{name}`: the page's live status line.
pub fn status(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let con = console(c)?;
    let line = status_line(&v, &con);
    let connected = con.last_used_at.is_some();
    Reply::json(
        200,
        &serde_json::json!({ "connected": connected, "line": line }),
    )
}

fn file_path(c: &Ctx) -> Result<DavPath, Error> {
    let path = DavPath::parse(c.param(1))?;
    if path.is_root() {
        return Err(Error::not_found(Msg::NoSave));
    }
    Ok(path)
}

/// `GET /consoles/{name}/files/{path}`: a save's file, for an admin.
pub fn download(c: &Ctx) -> Result<Reply, Error> {
    if !c.principal.is_admin() {
        return Err(Error::forbidden(Msg::SavesAdminOnly));
    }
    let con = console(c)?;
    let path = file_path(c)?;
    let (file, node) = space(c, &con).read(&path)?;
    let reply = crate::http::range::file(c.req, file, node.len)?;
    Ok(reply.attachment(path.name()))
}

/// `DELETE /api/consoles/{name}/files/{path}`: a save's file to the trash.
pub fn delete(c: &Ctx) -> Result<Reply, Error> {
    let con = console(c)?;
    let path = file_path(c)?;
    space(c, &con).remove(&path)?;
    Reply::json(200, &serde_json::json!({ "trashed": path.text() }))
}
