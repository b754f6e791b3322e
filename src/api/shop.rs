//! The shop's routes: what each console installer asks for (see `crate::shop` for
//! the forms). Every route is `Access::Shop`: a console's password, or anyone with
//! `--shop-public`. Downloads run on the download threads (the route table names
//! the paths served there), each console within its share (`http::downloads`).
//!
//! One URL for every installer: the service's root. Tinfoil and CyberFoil asking `/`
//! get the Tinfoil index (CyberFoil asks it for its `success` only, after
//! `/api/shop/sections`); DBI and Sphaira asking `/` get the listing, whose relative
//! links (`base/`…) the root also answers for them. A browser asking `/` gets the web
//! interface (`is_installer`). What each installer sends, from its source, is in
//! docs/installers.md.

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Instant, UNIX_EPOCH};

use crate::error::{Error, Msg};
use crate::http::auth::{basic_credentials, Principal};
use crate::http::range;
use crate::http::{App, Ctx, Reply, Req};
use crate::shop::{Folder, Form, Inputs};
use crate::store::shop_downloads;
use crate::tree::LibraryKey;
use crate::words::TitleId;

/// Is this request to `/` an installer's rather than a browser's? Browsers all send a
/// `User-Agent` starting with `Mozilla/`; no installer does. Tinfoil sends its headers
/// and no agent; CyberFoil sends Tinfoil's headers and the agent `tinfoil`
/// (shopInstall.cpp, `FetchShopResponse`); Sphaira no agent (curl's default, unset);
/// DBI, whose source is closed, console credentials in its URL. With `--shop-public`
/// an installer may send none of these, so anything but a browser is one.
pub fn is_installer(app: &App, req: &Req) -> bool {
    let agent = req.header("user-agent").unwrap_or("");
    if agent.starts_with("Mozilla/") {
        return false;
    }
    tinfoil_headers(req)
        || names_tinfoil(req)
        || agent.is_empty()
        || basic_credentials(req).is_some()
        || app.config.serve.shop_public
}

/// An installer asking for a listing folder from the root (`/base/`, `/dlc/x.nsp`).
pub fn is_installer_in_folder(app: &App, req: &Req) -> bool {
    let folder = req.segments.first().map(String::as_str).unwrap_or("");
    Folder::parse(folder).is_some() && req.segments.len() > 1 && is_installer(app, req)
}

/// Tinfoil sends these with every folder request (docs/network.md), and CyberFoil
/// with each of its requests for the shop (`BuildTinfoilHeaders`).
fn tinfoil_headers(req: &Req) -> bool {
    ["theme", "uid", "hauth", "uauth"]
        .iter()
        .any(|h| req.header(h).is_some())
}

/// CyberFoil's agent is `tinfoil`, on every request but its icon downloads.
fn names_tinfoil(req: &Req) -> bool {
    req.header("user-agent")
        .is_some_and(|a| a.to_ascii_lowercase().contains("tinfoil"))
}

/// `GET /` from an installer: the Tinfoil index for Tinfoil and CyberFoil, the listing
/// for the others.
pub fn root(c: &Ctx) -> Result<Reply, Error> {
    if tinfoil_headers(c.req) || names_tinfoil(c.req) || wants_json(c.req) {
        form(c, Form::Tinfoil)
    } else {
        form(c, Form::ListingTop)
    }
}

/// `GET /shop`: Tinfoil's index, for Tinfoil and for CyberFoil given `…/shop` (it asks
/// its shop URL itself for the `success` message; its sections are asked below it).
pub fn shop(c: &Ctx) -> Result<Reply, Error> {
    form(c, Form::Tinfoil)
}

fn wants_json(req: &Req) -> bool {
    req.header("accept")
        .is_some_and(|a| a.contains("application/json"))
}

/// `GET /api/shop/sections`.
pub fn sections(c: &Ctx) -> Result<Reply, Error> {
    form(c, Form::Sections)
}

/// `GET /shop/api/shop/sections`: CyberFoil given `…/shop` as its shop URL.
pub fn sections_under_shop(c: &Ctx) -> Result<Reply, Error> {
    form(c, Form::SectionsUnderShop)
}

/// `GET /shop/versions.txt`.
pub fn versions(c: &Ctx) -> Result<Reply, Error> {
    form(c, Form::Versions)
}

/// `GET /shop/files/` and below: a folder's listing, or a download.
pub fn files(c: &Ctx) -> Result<Reply, Error> {
    let path = c.param(0);
    if path.is_empty() {
        return form(c, Form::ListingTop);
    }
    if let Some(folder) = path.strip_suffix('/').and_then(Folder::parse) {
        return form(c, Form::Listing(folder));
    }
    if Folder::parse(path).is_some() {
        // Apache sends a folder asked without its slash to the folder.
        let mut reply = range::empty(301);
        reply.headers.push(("Location", format!("{path}/")));
        return Ok(reply);
    }
    download(c, path)
}

/// `GET /api/shop/icon/{title_id}` and the pages' `/icon/{title_id}`: a cached icon,
/// when icons are on or the icon came from the user's own files (read with the
/// console keys: the opt-in governs fetching from a third-party host, not the
/// library's own files). Only a title ID names a file, and only bytes that are an
/// image are served (`titles::icons`).
pub fn icon(c: &Ctx) -> Result<Reply, Error> {
    let not_found = || Error::not_found(Msg::NoSuchFile);
    let id = TitleId::parse(c.param(0)).ok_or_else(not_found)?;
    let (bytes, content_type) =
        crate::titles::icons::read_cached(&c.app.config.data, id).ok_or_else(not_found)?;
    Ok(Reply::new(200, content_type, bytes).with("Cache-Control", "private, max-age=86400"))
}

fn form(c: &Ctx, form: Form) -> Result<Reply, Error> {
    let snapshot = c.app.views.shop.snapshot(c.db, &c.app.config.data)?;
    let content_type = match form {
        Form::Tinfoil | Form::Sections | Form::SectionsUnderShop => "application/json",
        Form::ListingTop | Form::Listing(_) => "text/html;charset=UTF-8",
        Form::Versions => "text/plain; charset=utf-8",
    };
    let inputs = Inputs {
        db: c.db,
        keep: c.app.config.dedupe_keep,
    };
    Ok(Reply::shared(content_type, snapshot.form(form, &inputs)?))
}

/// A file, whole or one range, streamed from disk within the console's share.
fn download(c: &Ctx, path: &str) -> Result<Reply, Error> {
    let snapshot = c.app.views.shop.snapshot(c.db, &c.app.config.data)?;
    let item = snapshot
        .find(path)
        .ok_or_else(|| Error::not_found(Msg::NoSuchFile))?;
    let console = match &c.principal {
        // A visitor's downloads are noted under its address.
        Principal::Console(name) | Principal::Visitor(name) => name.clone(),
        _ => return Err(Error::internal("a shop route without a console")),
    };
    // The metrics count every visitor of a public shop as one.
    let counted = match &c.principal {
        Principal::Visitor(_) => crate::metrics::shop_bytes("(visitors)"),
        _ => crate::metrics::shop_bytes(&console),
    };
    let mut reply = send(c, &item.file.key, console)?;
    if let Some((stream, len)) = reply.stream.take() {
        let stream = Box::new(Counted {
            inner: stream,
            sent: counted,
        });
        reply.stream = Some((stream, len));
    }
    Ok(reply)
}

/// The file at `key`, whole or one range, streamed from disk; once sent, its bytes
/// are noted in the shop's downloads under `who`. The shop's downloads and the web
/// interface's (`web::library::download_file`) both go through here.
pub fn send(c: &Ctx, key: &str, who: String) -> Result<Reply, Error> {
    let (file, size, modified) = open(c, key)?;
    let mut reply = range::file(c.req, file, size)?;
    if reply.status == 416 {
        return Ok(reply);
    }
    let modified = httpdate::fmt_http_date(modified);
    reply.headers.push(("Last-Modified", modified));
    // A HEAD's stream is empty: nothing to count, nothing to note.
    let Some((inner, len)) = reply.stream.take_if(|_| c.req.method != "HEAD") else {
        return Ok(reply);
    };
    let sent = Arc::new(AtomicU64::new(0));
    let counted = Counted {
        inner,
        sent: Arc::clone(&sent),
    };
    reply.stream = Some((Box::new(counted), len));
    let (key, started) = (key.to_string(), Instant::now());
    reply.after = Some(Box::new(move |db| {
        let bytes = sent.load(Ordering::Relaxed);
        let ms = started.elapsed().as_millis() as u64;
        if let Err(e) = shop_downloads::record(db, &who, &key, bytes, ms, crate::time::now()) {
            log::warn!("noting a download of {key} by {who}: {e}");
        }
    }));
    Ok(reply)
}

/// The file of an item, never through a link out of the library, with its size and
/// time as they are now (the file may have changed since the scan).
fn open(c: &Ctx, key: &str) -> Result<(std::fs::File, u64, std::time::SystemTime), Error> {
    let key = LibraryKey::parse(key).ok_or_else(|| Error::not_found(Msg::FileGone))?;
    let file = crate::library::safe::open_for_client(&c.app.config.folders(), &key)?;
    let meta = file.metadata()?;
    Ok((file, meta.len(), meta.modified().unwrap_or(UNIX_EPOCH)))
}

/// A download's bytes, counted as they are read.
struct Counted<R> {
    inner: R,
    sent: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.sent.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}
