//! Matching a request to a route of the table (`crate::routes`) and running it.
//! Every request goes through the same steps: `decide` finds the route and checks
//! access from the request's head, the server reads the body (or hands a download
//! to the download threads), and `run` calls the handler.

use rusqlite::Connection;

use super::auth::{self, Principal};
use super::request::decode_segment;
use super::{App, Reply, Req};
use crate::error::{Error, Kind, Msg};

/// Everything a handler may look at.
pub struct Ctx<'a> {
    pub app: &'a App,
    pub db: &'a Connection,
    pub req: &'a Req,
    /// Path parameters in pattern order, percent-decoded.
    pub params: Vec<String>,
    /// Who called (`Anonymous` on public routes).
    pub principal: Principal,
    /// The request's body, still on the socket, for a route of `Table::uploads`
    /// (taken once, by [`Ctx::take_body`]); other routes get theirs in `req.body`.
    pub stream: std::cell::RefCell<Option<&'a mut (dyn std::io::Read + 'a)>>,
}

impl<'a> Ctx<'a> {
    pub fn param(&self, i: usize) -> &str {
        self.params.get(i).map(String::as_str).unwrap_or("")
    }

    /// The body of an upload route, to be read as it arrives (`http::upload`).
    pub fn take_body(&self) -> Option<&'a mut (dyn std::io::Read + 'a)> {
        self.stream.borrow_mut().take()
    }

    /// The body of an upload route as a `multipart/form-data` form, read as it arrives.
    pub fn multipart(&self) -> Result<super::multipart::Multipart<'a>, Error> {
        let boundary = self
            .req
            .header("content-type")
            .and_then(super::multipart::boundary)
            .ok_or_else(|| Error::invalid(Msg::NotMultipart))?;
        let body = self
            .take_body()
            .ok_or_else(|| Error::invalid(Msg::NotMultipart))?;
        Ok(super::multipart::Multipart::new(&boundary, body))
    }
}

pub type Handler = fn(&Ctx) -> Result<Reply, Error>;

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone (liveness probes, the API description).
    Public,
    /// Needs an API key, a session or the loopback rule (see `auth`); a viewer
    /// session only reads.
    Private,
    /// Like `Private`, but a viewer may call it too: the caller's own settings.
    Own,
    /// A web page: like `Private`, but a caller who is not signed in is sent to the
    /// sign-in page instead of getting a 401.
    Page,
    /// The shop: a console's password (HTTP Basic), or anyone with `--shop-public`;
    /// never an API key, a session or the loopback rule (see `auth::authorize_shop`).
    Shop,
    /// A console's own space (its save backups): a console's password (HTTP Basic)
    /// and nothing else: not `--shop-public`, an API key, a session or the loopback
    /// rule (see `auth::authorize_console`).
    Console,
    /// Mounted only with the hidden `--test-routes` flag.
    Test,
}

#[derive(Debug)]
pub struct Route {
    pub method: &'static str,
    /// `/a/b/{name}` matches one segment; `{name*}` the rest of the path (one or more
    /// segments, each decoded, joined with `/`).
    pub pattern: &'static str,
    pub access: Access,
    pub handler: Handler,
    /// Matches only the requests this says yes to (an installer asking `/`).
    pub when: Option<fn(&App, &Req) -> bool>,
}

pub const fn route(
    method: &'static str,
    pattern: &'static str,
    access: Access,
    handler: Handler,
) -> Route {
    Route {
        method,
        pattern,
        access,
        handler,
        when: None,
    }
}

/// A route that matches only the requests `when` says yes to; the next route of the
/// same pattern takes the others.
pub const fn route_if(
    method: &'static str,
    pattern: &'static str,
    access: Access,
    when: fn(&App, &Req) -> bool,
    handler: Handler,
) -> Route {
    Route {
        method,
        pattern,
        access,
        handler,
        when: Some(when),
    }
}

/// The routes, and where a page sends a caller who is not signed in.
pub struct Table {
    pub routes: &'static [Route],
    pub sign_in: fn(&Connection, &Req) -> Reply,
    /// Shop requests whose path starts with one of these are served by the download
    /// threads, once a worker has checked the console: a download holds its thread
    /// for minutes.
    pub downloads: &'static [&'static str],
    /// Console routes whose body is read by the handler as it arrives, to a file,
    /// within the save cap (`http::upload`) rather than into memory.
    pub uploads: &'static [&'static str],
    /// What a person gets at an address no route knows: a page (a 404 in the page
    /// shell), for a `GET` or `HEAD` whose path is outside `not_pages` and `downloads`.
    pub missing_page: Handler,
    /// What a person gets when a page's handler fails (a file gone from under its
    /// download link, a search past its bounds): the reason, in the page shell and the
    /// reader's language, with the error's status, rather than the API's JSON.
    pub error_page: ErrorPage,
    /// Where a missing address keeps its JSON or plain 404 (the API, the shop, the
    /// static files): programs read those, not people.
    pub not_pages: &'static [&'static str],
}

impl Table {
    /// Is this request a person looking for a page: a read, outside `not_pages` and
    /// `downloads` (a prefix `/api/` also covers the bare `/api`)?
    fn wants_a_page(&self, req: &Req) -> bool {
        let outside = |prefix: &&str| {
            req.path.starts_with(prefix) || req.path == prefix.trim_end_matches('/')
        };
        matches!(req.method.as_str(), "GET" | "HEAD")
            && !self.not_pages.iter().chain(self.downloads).any(outside)
    }
}

/// The route for a method and path, or the 404 / 405 (with `Allow`) to answer. `HEAD`
/// is answered wherever `GET` is, by the `GET` route (tiny_http sends no body for it).
/// A route with a `when` is considered only for a `req` it says yes to.
pub fn find<'t>(
    routes: &'t [Route],
    method: &str,
    segments: &[String],
    test_routes: bool,
    req: Option<(&App, &Req)>,
) -> Result<(&'t Route, Vec<String>), Error> {
    let mut allow = Vec::new();
    for r in routes {
        if r.access == Access::Test && !test_routes {
            continue;
        }
        if r.when
            .is_some_and(|when| !req.is_some_and(|(app, req)| when(app, req)))
        {
            continue;
        }
        if let Some(params) = match_pattern(r.pattern, segments) {
            if r.method == method || r.method == "*" || (method == "HEAD" && r.method == "GET") {
                return Ok((r, params));
            }
            for m in [r.method]
                .into_iter()
                .chain((r.method == "GET").then_some("HEAD"))
            {
                if !allow.contains(&m) {
                    allow.push(m);
                }
            }
        }
    }
    if allow.is_empty() {
        Err(Error::not_found(Msg::NoRoute))
    } else {
        Err(Error::method_not_allowed(&allow))
    }
}

fn match_pattern(pattern: &str, segments: &[String]) -> Option<Vec<String>> {
    let mut params = Vec::new();
    let mut count = 0;
    for (i, p) in pattern.trim_start_matches('/').split('/').enumerate() {
        count += 1;
        if p.starts_with('{') && p.ends_with("*}") {
            let rest = segments.get(i..).filter(|r| !r.is_empty())?;
            let decoded: Option<Vec<String>> = rest.iter().map(|s| decode_segment(s)).collect();
            params.push(decoded?.join("/"));
            return Some(params);
        }
        let seg = segments.get(i)?;
        if p.starts_with('{') {
            params.push(decode_segment(seg)?);
        } else if p != seg {
            return None;
        }
    }
    (segments.len() == count).then_some(params)
}

/// What routing and access decided from a request's head, before its body is read.
pub enum Routed {
    /// Answer this at once: no handler runs and the body is never read (refused,
    /// sent to sign in).
    Answer(Result<Reply, Error>),
    /// Run a handler for this caller.
    Run(Call),
}

/// A page showing why a page's handler failed (`Table::error_page`).
pub type ErrorPage = fn(&Ctx, &Error) -> Reply;

/// A handler to run, with what `decide` learnt.
pub struct Call {
    pub handler: Handler,
    pub params: Vec<String>,
    pub principal: Principal,
    /// A shop path the download threads serve (`Table::downloads`), not a worker.
    pub download: bool,
    /// A body the handler reads as it arrives (`Table::uploads`).
    pub upload: bool,
    /// For a page: how its errors are shown.
    pub error_page: Option<ErrorPage>,
}

/// Find the route and check the caller, from the request line and headers alone.
/// Also returns who called, for the access log. Authentication comes before 404 and
/// 405, so that an anonymous caller learns nothing about which private routes exist;
/// a console with valid credentials gets the 404 of a path that does not exist, and
/// it never counts as a failed sign-in.
pub fn decide(app: &App, db: &Connection, table: &Table, req: &Req) -> (Routed, Option<String>) {
    let found = find(
        table.routes,
        &req.method,
        &req.segments,
        app.config.serve.test_routes,
        Some((app, req)),
    );
    // A page, or an address no route knows that a person asked for.
    let page = match &found {
        Ok((r, _)) => r.access == Access::Page,
        Err(e) => e.kind == Kind::NotFound && table.wants_a_page(req),
    };
    // A console's credentials at a path no route knows: the shop's rules answer it.
    let console_lost = matches!(&found, Err(e) if e.kind == Kind::NotFound)
        && auth::basic_credentials(req).is_some()
        && req.header("x-api-key").is_none()
        && req.query("apikey").is_none();
    let shop = console_lost || matches!(&found, Ok((r, _)) if r.access == Access::Shop);
    let access = found.as_ref().ok().map(|(r, _)| r.access);
    let principal = match caller(app, db, (table, req), (access, page, shop)) {
        Ok(p) => p,
        Err(answer) => return (answer, None),
    };
    let who = principal.log_name();
    let (handler, params, access) = match found {
        Ok((route, params)) => (route.handler, params, route.access),
        Err(_) if page => (table.missing_page, Vec::new(), Access::Page),
        Err(e) => return (Routed::Answer(Err(e)), who),
    };
    // The web interface's file downloads (`/download/`) go there too, like the shop's.
    let download = matches!(access, Access::Shop | Access::Page | Access::Console)
        && matches!(req.method.as_str(), "GET" | "HEAD")
        && table.downloads.iter().any(|p| req.path.starts_with(p));
    let upload = matches!(access, Access::Console | Access::Private)
        && matches!(req.method.as_str(), "POST" | "PUT")
        && table.uploads.iter().any(|p| req.path.starts_with(p));
    let call = Call {
        handler,
        params,
        principal,
        download,
        upload,
        error_page: (access == Access::Page).then_some(table.error_page),
    };
    (Routed::Run(call), who)
}

/// Who calls, by the route's access (`None`: no route knows the address); or what to
/// answer at once: refused, or a person sent to sign in.
fn caller(
    app: &App,
    db: &Connection,
    (table, req): (&Table, &Req),
    (access, page, shop): (Option<Access>, bool, bool),
) -> Result<Principal, Routed> {
    let refused = |e| Routed::Answer(Err(e));
    match access {
        Some(Access::Console) => auth::authorize_console(app, db, req).map_err(refused),
        _ if shop => auth::authorize_shop(app, db, req).map_err(refused),
        Some(Access::Public) => Ok(Principal::Anonymous),
        _ => match auth::authorize(app, db, req, access == Some(Access::Own)) {
            Ok(p) => Ok(p),
            // Not signed in (or out of failed attempts): a person goes to sign in.
            Err(e) if matches!(e.kind, Kind::Unauthorized | Kind::RateLimited { .. }) && page => {
                Err(Routed::Answer(Ok((table.sign_in)(db, req))))
            }
            Err(e) => Err(refused(e)),
        },
    }
}

/// Run the handler `decide` chose; `stream` is the body of an upload route.
pub fn run<'a>(
    app: &'a App,
    db: &'a Connection,
    req: &'a Req,
    call: Call,
    stream: Option<&'a mut (dyn std::io::Read + 'a)>,
) -> Result<Reply, Error> {
    let ctx = Ctx {
        app,
        db,
        req,
        params: call.params,
        principal: call.principal,
        stream: std::cell::RefCell::new(stream),
    };
    let result = (call.handler)(&ctx);
    // The web interface's own routes answer errors in the reader's language too.
    let internal = req.path.starts_with("/api/") && !req.path.starts_with("/api/v1/");
    match (result, call.error_page) {
        (Err(e), _) if internal => Err(e.in_french(reader_is_french(&ctx))),
        (Err(e), Some(error_page)) => {
            // The page shows the safe message; the cause goes to the log.
            if super::response::status_and_slug(&e.kind).0 >= 500 {
                log::error!("{} {}: {e}", req.method, req.path);
            }
            Ok(error_page(&ctx, &e))
        }
        (other, _) => other,
    }
}

/// The reader's language: the account's, or the browser's first choice between French
/// and English (French by default, like the interface).
pub fn reader_is_french(c: &Ctx) -> bool {
    match &c.principal {
        Principal::User(u) => u.lang != crate::words::Lang::En,
        _ => c.req.lang() == crate::words::Lang::Fr,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A path split in its raw segments, as `Req` holds them.
    pub(crate) fn segs(path: &str) -> Vec<String> {
        path.trim_start_matches('/')
            .split('/')
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn tail_parameter_takes_the_rest_decoded() {
        let p = match_pattern(
            "/api/v1/library/{key*}",
            &segs("/api/v1/library/a%2Fb/c%20d.nsp"),
        );
        assert_eq!(p.unwrap(), ["a/b/c d.nsp"]);
        assert!(match_pattern("/api/v1/library/{key*}", &segs("/api/v1/library")).is_none());
    }

    #[test]
    fn exact_patterns_need_every_segment() {
        assert!(match_pattern("/api/v1/job", &segs("/api/v1/job")).is_some());
        assert!(match_pattern("/api/v1/job", &segs("/api/v1/job/")).is_none());
        assert!(match_pattern("/api/v1/job", &segs("/api/v1")).is_none());
    }
}
