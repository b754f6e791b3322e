//! THE route table: every route of the service in one list you can read in one
//! screen, with the access class that says who may call it. `dispatch` runs the same
//! steps for every request: find the route, check access, call the handler.

use rusqlite::Connection;

use super::auth::{self, Principal};
use super::request::decode_segment;
use super::{Reply, Req};
use crate::api::{download, v1};
use crate::app::App;
use crate::error::Error;
use crate::web;

/// Everything a handler may look at.
pub struct Ctx<'a> {
    pub app: &'a App,
    pub db: &'a Connection,
    pub req: &'a Req,
    /// Path parameters in pattern order, percent-decoded.
    pub params: Vec<String>,
    /// Who called (`Anonymous` on public routes).
    pub principal: Principal,
}

impl Ctx<'_> {
    pub fn param(&self, i: usize) -> &str {
        self.params.get(i).map(String::as_str).unwrap_or("")
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
}

const fn route(
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
    }
}

use Access::*;

#[rustfmt::skip]
pub const ROUTES: &[Route] = &[
    route("GET", "/api/v1/health", Public, v1::health),
    route("GET", "/api/v1/openapi.json", Public, v1::openapi),
    route("GET", "/api/v1/system", Private, v1::system),
    route("GET", "/api/v1/stats", Private, v1::games::stats),
    route("GET", "/api/v1/library", Private, v1::games::list),
    route("GET", "/api/v1/library/{key*}", Private, v1::games::one),
    route("GET", "/api/v1/search", Private, v1::games::search),
    route("GET", "/api/v1/platforms", Private, v1::games::platforms),
    route("GET", "/api/v1/job", Private, v1::job),
    route("GET", "/api/v1/trash", Private, v1::trash),
    route("POST", "/api/v1/scan", Private, v1::scan),
    route("POST", "/api/v1/convert", Private, v1::convert),
    route("GET", "/api/v1/device", Private, v1::device),
    route("POST", "/api/v1/push", Private, v1::push),
    // The console's downloads during a push: gated by the push's token, not by a key.
    route("GET", "/dl/{token}/{name}", Public, download::download),
    route("DROP", "/dl/{token}/{name}", Public, download::download),
    // The web interface's pages and assets.
    route("GET", "/", Page, web::pages::dashboard),
    route("GET", "/library", Page, web::pages::library_page),
    route("GET", "/game/{key*}", Page, web::pages::game),
    route("GET", "/tasks", Page, web::pages::tasks),
    route("GET", "/device", Page, web::pages::device_page),
    route("GET", "/trash", Page, web::pages::trash_page),
    route("GET", "/platforms", Page, web::pages::platforms_page),
    route("GET", "/settings", Page, web::pages::settings),
    route("GET", "/settings/keys", Page, web::pages::keys),
    route("GET", "/login", Public, web::pages::login),
    route("GET", "/setup", Public, web::pages::setup),
    route("GET", "/static/{name}", Public, web::assets::asset),
    // Internal routes of the web interface: not part of the public contract.
    route("POST", "/api/login", Public, web::api::login),
    route("POST", "/api/setup", Public, web::api::setup),
    route("POST", "/api/logout", Own, web::api::logout),
    route("GET", "/api/me", Own, web::api::me),
    route("POST", "/api/me/lang", Own, web::api::set_lang),
    route("POST", "/api/me/password", Own, web::api::set_password),
    route("GET", "/api/users", Private, web::api::list_users),
    route("GET", "/api/keys", Private, web::api::list_keys),
    route("POST", "/api/keys", Private, web::api::create_key),
    route("DELETE", "/api/keys/{id}", Private, web::api::revoke_key),
    route("GET", "/api/stats", Private, v1::games::stats),
    route("GET", "/api/job", Private, v1::job),
    route("GET", "/api/tasks", Private, web::api::task_history),
    route("POST", "/api/scan", Private, v1::scan),
    route("POST", "/api/convert", Private, v1::convert),
    route("POST", "/api/push", Private, v1::push),
    route("GET", "/api/platforms", Private, v1::games::platforms),
    route("POST", "/api/platforms", Private, web::api::add_platform),
    route("DELETE", "/api/platforms/{slug}", Private, web::api::delete_platform),
    route("GET", "/api/device", Private, v1::device),
    route("DELETE", "/api/library/{key*}", Private, web::api::delete_game),
    route("GET", "/api/trash", Private, v1::trash),
    route("POST", "/api/trash/purge", Private, web::api::purge_expired),
    route("POST", "/api/trash/{id}/restore", Private, web::api::restore),
    route("DELETE", "/api/trash/{id}", Private, web::api::purge),
    route("POST", "/api/job/cancel", Private, web::api::cancel_job),
    route("POST", "/api/device", Private, web::api::set_device),
    route("DELETE", "/api/device", Private, web::api::clear_device),
    route("GET", "/api/push", Private, web::api::push_list),
    route("DELETE", "/api/push", Private, web::api::push_clear),
    route("POST", "/api/push-title/{id}", Private, web::api::push_add_title),
    route("POST", "/api/push/{key*}", Private, web::api::push_add),
    route("DELETE", "/api/push/{key*}", Private, web::api::push_remove),
    route("GET", "/api/test/panic", Test, test_panic),
];

/// The route for a method and path, or the 404 / 405 (with `Allow`) to answer. `HEAD`
/// is answered wherever `GET` is, by the `GET` route (tiny_http sends no body for it).
pub fn find(
    method: &str,
    segments: &[String],
    test_routes: bool,
) -> Result<(&'static Route, Vec<String>), Error> {
    let mut allow = Vec::new();
    for r in ROUTES {
        if r.access == Test && !test_routes {
            continue;
        }
        if let Some(params) = match_pattern(r.pattern, segments) {
            if r.method == method || (method == "HEAD" && r.method == "GET") {
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
        Err(Error::not_found("There is no such route."))
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

/// Route a request and run its handler. Also returns who called, for the access log.
/// Authentication comes before 404 and 405, so that an anonymous caller learns
/// nothing about which private routes exist.
pub fn dispatch(app: &App, db: &Connection, req: &Req) -> (Result<Reply, Error>, Option<String>) {
    let found = find(&req.method, &req.segments, app.config.test_routes);
    let mut principal = Principal::Anonymous;
    if !matches!(&found, Ok((r, _)) if r.access == Public) {
        let own = matches!(&found, Ok((r, _)) if r.access == Own);
        match auth::authorize(app, db, req, own) {
            Ok(p) => principal = p,
            // Not signed in (or out of failed attempts): a person goes to sign in.
            Err(e)
                if [401, 429].contains(&e.status)
                    && matches!(&found, Ok((r, _)) if r.access == Page) =>
            {
                return (Ok(web::pages::to_sign_in(db, req)), None);
            }
            Err(e) => return (Err(e), None),
        }
    }
    let who = principal.log_name();
    let (route, params) = match found {
        Ok(found) => found,
        Err(e) => return (Err(e), who),
    };
    let ctx = Ctx {
        app,
        db,
        req,
        params,
        principal,
    };
    ((route.handler)(&ctx), who)
}

/// Lets the tests check that a panicking handler becomes a 500 and the pool survives.
fn test_panic(_: &Ctx) -> Result<Reply, Error> {
    panic!("deliberate panic from the test route")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(path: &str) -> Vec<String> {
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

    #[test]
    fn the_router_and_the_openapi_document_have_the_same_routes() {
        let doc: serde_json::Value = serde_json::from_str(v1::OPENAPI).unwrap();
        let mut documented: Vec<String> = Vec::new();
        for (path, ops) in doc["paths"].as_object().unwrap() {
            for method in ops.as_object().unwrap().keys() {
                documented.push(format!("{} {path}", method.to_uppercase()));
            }
        }
        let mut routed: Vec<String> = ROUTES
            .iter()
            .filter(|r| r.pattern.starts_with("/api/v1/"))
            .map(|r| format!("{} {}", r.method, r.pattern.replace("*}", "}")))
            .collect();
        documented.sort();
        routed.sort();
        assert_eq!(routed, documented);
    }

    #[test]
    fn wrong_method_lists_the_allowed_ones() {
        let e = find("DELETE", &segs("/api/v1/health"), false).unwrap_err();
        assert_eq!(e.status, 405);
        assert_eq!(e.headers, vec![("Allow", "GET, HEAD".to_string())]);
        let (head, _) = find("HEAD", &segs("/api/v1/health"), false).unwrap();
        assert_eq!(head.pattern, "/api/v1/health");
        assert_eq!(
            find("GET", &segs("/api/test/panic"), false)
                .unwrap_err()
                .status,
            404
        );
    }
}
