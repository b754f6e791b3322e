//! WebDAV class 1 (RFC 4918) at `/dav/`: each console's own space of the save vault
//! (`saves::dav`), with its login only, for JKSV and any WebDAV client. No locks:
//! `OPTIONS` says `DAV: 1`. What JKSV and litmus need of each method is in
//! `docs/saves.md`.

mod xml;

use crate::error::{Error, Kind, Msg};
use crate::http::router::Ctx;
use crate::http::{range, Reply};
use crate::saves::dav::{DavPath, Node, Space};
use crate::store::dav_props;
use xml::{Change, Want, DAV};

const ALLOW: &str = "OPTIONS, GET, HEAD, PUT, DELETE, MKCOL, COPY, MOVE, PROPFIND, PROPPATCH";
/// A listing stops past this many entries (403).
const MAX_LISTED: usize = crate::saves::dav::MAX_ENTRIES;
/// A `PROPFIND` names at most this many properties (400)…
const MAX_ASKED: usize = 64;
/// …and its answer is at most this long (403): it is built in memory, and held
/// until the client takes it.
const MAX_ANSWER: usize = 4 << 20;
/// A dead property's value, how many a resource has, and their bytes in all, at most
/// (413).
const MAX_VALUE: usize = 64 * 1024;
const MAX_PROPS: usize = 256;
const MAX_PROPS_BYTES: usize = 256 * 1024;

fn space<'c>(c: &'c Ctx) -> Result<Space<'c>, Error> {
    let space = Space::of(c.db, &c.app.config, c.principal.console()?);
    space.open()?;
    Ok(space)
}

fn status(code: u16) -> Reply {
    range::empty(code)
}

/// Every method at `/dav/` and below.
pub fn handle(c: &Ctx) -> Result<Reply, Error> {
    let space = space(c)?;
    let path = DavPath::parse(c.param(0))?;
    match c.req.method.as_str() {
        "OPTIONS" => {
            let mut reply = status(200);
            reply.headers.push(("DAV", "1".into()));
            reply.headers.push(("Allow", ALLOW.into()));
            reply.headers.push(("MS-Author-Via", "DAV".into()));
            Ok(reply)
        }
        "GET" | "HEAD" => get(c, &space, &path),
        "PUT" => put(c, &space, &path),
        "DELETE" => space.remove(&path).map(|_| status(204)),
        "MKCOL" if !c.req.body.is_empty() => {
            Err(Error::new(Kind::UnsupportedMediaType, Msg::DavBody))
        }
        "MKCOL" => space.mkcol(&path).map(|_| status(201)),
        "COPY" | "MOVE" => copy_or_move(c, &space, &path),
        "PROPFIND" => propfind(c, &space, &path),
        "PROPPATCH" => proppatch(c, &space, &path),
        _ => Err(Error::new(
            Kind::MethodNotAllowed {
                allow: ALLOW.into(),
            },
            Msg::MethodNotAllowed,
        )),
    }
}

fn get(c: &Ctx, space: &Space, path: &DavPath) -> Result<Reply, Error> {
    let node = space
        .node(path)
        .ok_or_else(|| Error::not_found(Msg::NoSave))?;
    if node.dir {
        // A folder read as a file: its names, one a line.
        let mut reply = status(200);
        reply.content_type = "text/plain; charset=utf-8";
        for (child, n) in space.children(path) {
            reply.body.extend_from_slice(child.name().as_bytes());
            reply
                .body
                .extend_from_slice(if n.dir { b"/\n" } else { b"\n" });
        }
        return Ok(reply);
    }
    let (file, node) = space.read(path)?;
    let mut reply = range::file(c.req, file, node.len)?;
    let modified = httpdate::fmt_http_date(node.modified);
    reply.headers.push(("Last-Modified", modified));
    reply.headers.push(("ETag", etag(&node)));
    Ok(reply)
}

fn etag(node: &Node) -> String {
    let t = node
        .modified
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("\"{:x}-{t:x}\"", node.len)
}

/// `PUT`: the body, read as it arrives into the vault's incoming folder, then put in
/// place whole.
fn put(c: &Ctx, space: &Space, path: &DavPath) -> Result<Reply, Error> {
    if path.is_root() {
        return Err(Error::forbidden(Msg::DavRoot));
    }
    let mut incoming = crate::saves::incoming(&c.app.config.data)?;
    match c.take_body() {
        Some(body) => {
            // Large writes: `io::copy`'s own buffer is 8 KiB.
            let mut out = std::io::BufWriter::with_capacity(256 * 1024, &mut incoming);
            let copied =
                std::io::copy(body, &mut out).and_then(|_| std::io::Write::flush(&mut out));
            drop(out);
            incoming.took(copied.map_err(Error::from))?;
        }
        None => {
            let written = std::io::Write::write_all(&mut incoming, &c.req.body);
            incoming.took(written.map_err(Error::from))?;
        }
    }
    let created = space.put(path, incoming)?;
    Ok(status(if created { 201 } else { 204 }))
}

/// The path a `Destination` header names in the space: an absolute URL or path,
/// under `/dav`.
fn destination(c: &Ctx) -> Result<DavPath, Error> {
    let bad = || Error::invalid(Msg::DavBadDestination);
    let raw = c.req.header("destination").ok_or_else(bad)?;
    let path = match raw.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |at| &rest[at..]),
        None => raw,
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let rest = path.strip_prefix("/dav").ok_or_else(bad)?;
    if !(rest.is_empty() || rest.starts_with('/')) {
        return Err(bad());
    }
    let decoded = percent_encoding::percent_decode_str(rest)
        .decode_utf8()
        .map_err(|_| bad())?;
    DavPath::parse(&decoded)
}

fn copy_or_move(c: &Ctx, space: &Space, path: &DavPath) -> Result<Reply, Error> {
    let to = destination(c)?;
    let overwrite = !c
        .req
        .header("overwrite")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("F"));
    let created = if c.req.method == "MOVE" {
        space.rename(path, &to, overwrite)?
    } else {
        let deep = c.req.header("depth").map(str::trim) != Some("0");
        space.copy(path, &to, deep, overwrite)?
    };
    Ok(status(if created { 201 } else { 204 }))
}

/// A `<D:href>`: `/dav/` and the names, each percent-encoded; a folder ends in `/`.
fn href(path: &DavPath, dir: bool) -> String {
    let mut out = String::from("/dav/");
    for (i, name) in path.names().iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(&crate::text::encode_segment(name));
    }
    if dir && !path.is_root() {
        out.push('/');
    }
    out
}

/// The live properties of a resource (`DAV:`), with their values as XML.
fn live(space: &Space, path: &DavPath, node: &Node) -> Vec<(&'static str, String)> {
    let name = if path.is_root() {
        space.console
    } else {
        path.name()
    };
    let mut props = vec![
        ("displayname", quick_xml::escape::escape(name).into_owned()),
        ("getlastmodified", httpdate::fmt_http_date(node.modified)),
        (
            "getetag",
            quick_xml::escape::escape(etag(node)).into_owned(),
        ),
    ];
    if node.dir {
        props.push(("resourcetype", "<D:collection/>".into()));
    } else {
        props.push(("resourcetype", String::new()));
        props.push(("getcontentlength", node.len.to_string()));
        props.push(("getcontenttype", "application/octet-stream".into()));
    }
    props
}

/// One `<D:response>` of a `PROPFIND`.
fn response(space: &Space, path: &DavPath, node: &Node, want: &Want) -> Result<String, Error> {
    let live = live(space, path, node);
    let dead = dav_props::of(space.db, space.console, &path.text())?;
    let (mut found, mut missing) = (String::new(), String::new());
    let mut n = 0;
    let mut put = |out: &mut String, ns: &str, name: &str, value: Option<&str>| {
        n += 1;
        out.push_str(&xml::element(ns, name, value, n));
    };
    match want {
        Want::All | Want::Names => {
            let names = matches!(want, Want::Names);
            for (name, value) in &live {
                put(&mut found, DAV, name, (!names).then_some(value.as_str()));
            }
            for p in &dead {
                put(
                    &mut found,
                    &p.ns,
                    &p.name,
                    (!names).then_some(p.value.as_str()),
                );
            }
        }
        Want::Some(asked) => {
            for (ns, name) in asked {
                let value = if ns == DAV {
                    live.iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, v)| v.as_str())
                } else {
                    dead.iter()
                        .find(|p| &p.ns == ns && &p.name == name)
                        .map(|p| p.value.as_str())
                };
                match value {
                    Some(v) => put(&mut found, ns, name, Some(v)),
                    None => put(&mut missing, ns, name, None),
                }
            }
        }
    }
    let mut out = format!("<D:response><D:href>{}</D:href>", href(path, node.dir));
    if !found.is_empty() || missing.is_empty() {
        out.push_str(&xml::propstat(&found, "200 OK"));
    }
    if !missing.is_empty() {
        out.push_str(&xml::propstat(&missing, "404 Not Found"));
    }
    out.push_str("</D:response>");
    Ok(out)
}

fn multistatus(body: String) -> Reply {
    let mut reply = status(207);
    reply.content_type = "application/xml; charset=utf-8";
    reply.body = xml::multistatus(&body).into_bytes();
    reply
}

/// `PROPFIND`: the resource first, then (with `Depth: 1` or infinity) what it holds.
fn propfind(c: &Ctx, space: &Space, path: &DavPath) -> Result<Reply, Error> {
    let node = space
        .node(path)
        .ok_or_else(|| Error::not_found(Msg::NoSave))?;
    let want = xml::propfind(&c.req.body)?;
    if matches!(&want, Want::Some(asked) if asked.len() > MAX_ASKED) {
        return Err(Error::invalid(Msg::DavTooMany { max: MAX_ASKED }));
    }
    let depth = match c.req.header("depth").map(str::trim) {
        Some("0") => 0,
        Some("1") => 1,
        _ => usize::MAX,
    };
    let mut body = response(space, path, &node, &want)?;
    let mut todo = if node.dir && depth > 0 {
        vec![(path.clone(), 1)]
    } else {
        Vec::new()
    };
    let mut listed = 0;
    while let Some((folder, level)) = todo.pop() {
        for (child, n) in space.children(&folder) {
            listed += 1;
            if listed > MAX_LISTED || body.len() > MAX_ANSWER {
                return Err(Error::forbidden(Msg::DavTooMany { max: MAX_LISTED }));
            }
            body.push_str(&response(space, &child, &n, &want)?);
            if n.dir && level < depth {
                todo.push((child, level + 1));
            }
        }
    }
    Ok(multistatus(body))
}

/// `PROPPATCH`: the changes in their order, all or none: a `DAV:` property is the
/// service's own (403, and 424 for the others).
fn proppatch(c: &Ctx, space: &Space, path: &DavPath) -> Result<Reply, Error> {
    let node = space
        .node(path)
        .ok_or_else(|| Error::not_found(Msg::NoSave))?;
    let changes = xml::proppatch(&c.req.body)?;
    let name = |ch: &Change| match ch {
        Change::Set(p) => (p.ns.clone(), p.name.clone()),
        Change::Remove { ns, name } => (ns.clone(), name.clone()),
    };
    let refused = changes.iter().any(|ch| name(ch).0 == DAV);
    let too_large = || Error::new(Kind::PayloadTooLarge, Msg::DavPropsTooLarge);
    if changes
        .iter()
        .any(|ch| matches!(ch, Change::Set(p) if p.value.len() > MAX_VALUE))
    {
        return Err(too_large());
    }
    let key = path.text();
    if !refused {
        let _writing = crate::saves::dav::writing();
        let adding = changes.iter().map(|ch| match ch {
            Change::Set(p) => p.value.len() as u64,
            Change::Remove { .. } => 0,
        });
        space.room_for(adding.sum())?;
        let tx = space.db.unchecked_transaction()?;
        for ch in &changes {
            match ch {
                Change::Set(p) => dav_props::set(&tx, space.console, &key, p)?,
                Change::Remove { ns, name } => {
                    dav_props::remove(&tx, space.console, &key, ns, name)?
                }
            }
        }
        // Dropped without a commit: the transaction rolls back.
        let kept = dav_props::of(&tx, space.console, &key)?;
        let bytes: usize = kept.iter().map(|p| p.value.len()).sum();
        if kept.len() > MAX_PROPS || bytes > MAX_PROPS_BYTES {
            return Err(too_large());
        }
        tx.commit()?;
    }
    let mut out = format!("<D:response><D:href>{}</D:href>", href(path, node.dir));
    for (i, ch) in changes.iter().enumerate() {
        let (ns, local) = name(ch);
        let code = match (refused, ns == DAV) {
            (false, _) => "200 OK",
            (true, true) => "403 Forbidden",
            (true, false) => "424 Failed Dependency",
        };
        out.push_str(&xml::propstat(&xml::element(&ns, &local, None, i), code));
    }
    out.push_str("</D:response>");
    Ok(multistatus(out))
}
