//! Signing in and out, and the first-run page that creates the first admin.

use maud::html;
use serde::{Deserialize, Serialize};

use super::body;
use super::view::{self, query_value};
use crate::accounts;
use crate::error::i18n::M;
use crate::error::{Error, Kind, Msg};
use crate::http::auth::{self};
use crate::http::{Ctx, Reply, Req};
use crate::store::users::{self, User};
use crate::store::Connection;
use crate::words::{Lang, Role};

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
pub fn login_page(c: &Ctx) -> Result<Reply, Error> {
    let next = view::same_origin_path(c.req.query("next").unwrap_or("/"));
    if auth::session_user(c.db, c.req)?.is_some() {
        // A header carries ASCII only: the rest of the path goes percent-encoded.
        let location = percent_encoding::utf8_percent_encode(next, percent_encoding::CONTROLS);
        return Ok(view::redirect(&location.to_string()));
    }
    let lang = c.req.lang();
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
pub fn setup_page(c: &Ctx) -> Result<Reply, Error> {
    if users::count(c.db)? > 0 {
        return Ok(view::redirect("/login"));
    }
    let needs_code = !setup_is_local(c);
    let lang = c.req.lang();
    let t = |m: M| m.get(lang);
    let body = html! {
        p { (t(M::FirstRunIntro)) }
        @if needs_code { p.note { (t(M::SetupCodeIntro)) } }
        form.stack data-api="/api/setup" data-then="/welcome" data-same="password,password2" {
            // The first account keeps the language this page speaks.
            input type="hidden" name="lang" value=(lang.code());
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

#[derive(Deserialize)]
struct Credentials {
    name: String,
    password: String,
}

/// The `Set-Cookie` of a session: `Secure` when the request came over HTTPS through a
/// trusted proxy (the service itself speaks plain HTTP).
pub(super) fn session_cookie(c: &Ctx, token: &str, max_age: i64) -> (&'static str, String) {
    // A proxy chain appends: the first value is what the client used.
    let proxied_https = auth::from_trusted_proxy(&c.app.config, c.req)
        && c.req.header("x-forwarded-proto").is_some_and(|v| {
            let first = v.split(',').next().unwrap_or("");
            first.trim().eq_ignore_ascii_case("https")
        });
    let secure = if proxied_https { "; Secure" } else { "" };
    (
        "Set-Cookie",
        format!(
            "{}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{secure}",
            accounts::COOKIE
        ),
    )
}

/// Who the interface is talking to (`GET /api/me`, and the answer to a sign-in).
#[derive(Serialize)]
pub(super) struct Me<'a> {
    pub(super) name: Option<&'a str>,
    pub(super) role: Role,
    pub(super) lang: Lang,
}

impl<'a> From<&'a User> for Me<'a> {
    fn from(u: &'a User) -> Self {
        Me {
            name: Some(&u.name),
            role: u.role,
            lang: u.lang,
        }
    }
}

fn signed_in(c: &Ctx, user: &User) -> Result<Reply, Error> {
    let token = accounts::open_session(c.db, user)?;
    let mut reply = Reply::json(200, &Me::from(user))?;
    reply
        .headers
        .push(session_cookie(c, &token, accounts::SESSION_DAYS * 86_400));
    Ok(reply)
}

/// Every password check costs the peer address a token of the sign-in limiter.
pub(super) fn take_login_token(c: &Ctx) -> Result<(), Error> {
    match auth::client_ip(&c.app.config, c.req) {
        Some(ip) => c
            .app
            .limits
            .logins
            .take(&auth::client_net(ip))
            .map_err(Error::rate_limited),
        None => Ok(()),
    }
}

/// `POST /api/login` `{name, password}`: every attempt costs the peer address a token
/// (an Argon2 check is expensive by design); a wrong name or password is 401 and
/// counts as a failed authentication too. An address out of failed attempts (wrong
/// keys, console passwords, sign-ins, setup codes) is 429 before its password is
/// looked at, the right one too.
pub fn login(c: &Ctx) -> Result<Reply, Error> {
    // A public route skips `authorize`, which checks the origin of every change.
    auth::check_origin(c.req)?;
    auth::check_failures(c.app, c.req)?;
    take_login_token(c)?;
    let form: Credentials = body(c, "name and password")?;
    let user = match accounts::check_login(c.db, &form.name, &form.password) {
        Err(e) if e.kind == Kind::Unauthorized => {
            // For the admin, or fail2ban; the name is quoted so that it cannot forge lines.
            let peer = auth::client_ip(&c.app.config, c.req);
            let peer = peer.map(|ip| ip.to_string()).unwrap_or_default();
            log::warn!("failed sign-in as {:?} from {peer}", form.name);
            auth::count_failure(c.app, c.req)?;
            return Err(e);
        }
        other => other?,
    };
    log::info!("sign-in: {:?}", user.name);
    signed_in(c, &user)
}

#[derive(Deserialize)]
struct SetupForm {
    name: String,
    password: String,
    #[serde(default)]
    setup_code: Option<String>,
    /// The language of the account's pages; the browser's when not sent.
    #[serde(default)]
    lang: Option<String>,
}

/// May this caller create the first account without the setup code? Only with local
/// access (the loopback rule, for a program the rule admits), never with
/// `--no-local-access` (behind a proxy on the same machine every client looks local).
pub fn setup_is_local(c: &Ctx) -> bool {
    auth::local_access(c.app, c.req)
}

/// `POST /api/setup` `{name, password, setup_code?, lang?}`: the first admin, while no
/// account exists, in the language of the page (else the browser's); from another
/// machine, or under `--no-local-access`, with the setup code the service wrote to its
/// log at start.
pub fn setup(c: &Ctx) -> Result<Reply, Error> {
    // A public route skips `authorize`, which checks the origin of every change.
    auth::check_origin(c.req)?;
    let form: SetupForm = body(c, "name, password and, from another machine, setup_code")?;
    if !setup_is_local(c) {
        check_setup_code(c, form.setup_code.as_deref().unwrap_or(""))?;
    }
    let lang = match &form.lang {
        Some(lang) => accounts::parse_lang(lang)?,
        None => c.req.lang(),
    };
    accounts::add_first(c.db, &form.name, &form.password, lang)?;
    // The code has done its work: it never opens anything again.
    *c.app.setup_code.lock().unwrap_or_else(|p| p.into_inner()) = None;
    let (user, _) = users::by_name(c.db, &form.name)?
        .ok_or_else(|| Error::internal("the first account vanished as it was made"))?;
    log::info!("first admin created: {:?}", user.name);
    signed_in(c, &user)
}

/// The setup code, as a secret: none given is 403 at no cost; from an address out of
/// failed attempts it is 429 before it is compared, the right one too; a wrong one
/// costs a token.
fn check_setup_code(c: &Ctx, given: &str) -> Result<(), Error> {
    if given.is_empty() {
        return Err(Error::forbidden(Msg::SetupCodeNeeded));
    }
    auth::check_failures(c.app, c.req)?;
    let expected = c
        .app
        .setup_code
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    if expected.is_some_and(|code| accounts::same_secret(given, &code)) {
        return Ok(());
    }
    auth::count_failure(c.app, c.req)?;
    Err(Error::forbidden(Msg::SetupCodeWrong))
}

#[derive(Serialize)]
pub(super) struct SignedOut {
    pub(super) signed_in: bool,
    /// Where the browser goes next: the sign-in page, or `--auth-logout-url` (the
    /// proxy's sign-out, which otherwise signs the user in again at once).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) then: Option<String>,
}

/// `POST /api/logout`: end this session (and drop the cookie).
pub fn logout(c: &Ctx) -> Result<Reply, Error> {
    if let Some(token) = auth::session_cookie(c.req) {
        accounts::close_session(c.db, token)?;
    }
    let then = (c.app.config.serve.auth_logout_url.clone()).unwrap_or_else(|| "/login".into());
    let signed_out = SignedOut {
        signed_in: false,
        then: Some(then),
    };
    let mut reply = Reply::json(200, &signed_out)?;
    reply.headers.push(session_cookie(c, "", 0));
    Ok(reply)
}
