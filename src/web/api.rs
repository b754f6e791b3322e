//! Internal JSON routes for the web interface (not `/api/v1/`): sign-in, the account,
//! API keys, platforms, the trash, the device and push list, task control. A session,
//! or the loopback rule, reaches them; an API key never does (403).

use serde::{Deserialize, Serialize};

use crate::accounts;
use crate::api::v1::types::TrashEntry;
use crate::error::Error;
use crate::http::auth::{self, Principal};
use crate::http::{Ctx, Reply};
use crate::store::api_keys::{self, ApiKey};
use crate::store::job_runs;
use crate::store::platforms::{self, Platform};
use crate::store::users::{self, User};
use crate::{keys, library, time, trash};

fn id(c: &Ctx) -> Result<i64, Error> {
    c.param(0)
        .parse()
        .map_err(|_| Error::not_found("No trash entry has that id."))
}

/// `DELETE /api/library/{key}`: move the game's file into the trash.
pub fn delete_game(c: &Ctx) -> Result<Reply, Error> {
    let cfg = &c.app.config;
    let row = trash::move_in(
        c.db,
        &cfg.library,
        c.param(0),
        "deleted",
        cfg.trash_retention_days,
    )?;
    Reply::json(200, &TrashEntry::from(&row))
}

pub fn restore(c: &Ctx) -> Result<Reply, Error> {
    let row = trash::restore(c.db, &c.app.config.library, id(c)?)?;
    Reply::json(200, &TrashEntry::from(&row))
}

pub fn purge(c: &Ctx) -> Result<Reply, Error> {
    let row = trash::purge(c.db, &c.app.config.library, id(c)?)?;
    Reply::json(200, &TrashEntry::from(&row))
}

#[derive(Serialize)]
struct Purged {
    purged: usize,
}

pub fn purge_expired(c: &Ctx) -> Result<Reply, Error> {
    let purged = trash::purge_expired(c.db, &c.app.config.library, crate::time::now())?;
    Reply::json(200, &Purged { purged })
}

#[derive(serde::Deserialize)]
struct DeviceForm {
    host: String,
    #[serde(default)]
    port: Option<u16>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    offer_address: Option<String>,
}

/// `POST /api/device`: `{host, port?, name?, offer_address?}`.
pub fn set_device(c: &Ctx) -> Result<Reply, Error> {
    let form: DeviceForm = serde_json::from_slice(&c.req.body).map_err(|_| {
        Error::bad_request(
            "Expected a JSON object with host, and optionally port, name, offer_address.",
        )
    })?;
    crate::device::configure(
        c.db,
        form.name.as_deref().unwrap_or(""),
        &form.host,
        form.port.unwrap_or(2000),
        form.offer_address.as_deref().filter(|a| !a.is_empty()),
    )?;
    crate::api::v1::device(c)
}

pub fn clear_device(c: &Ctx) -> Result<Reply, Error> {
    crate::store::device::clear(c.db)?;
    crate::api::v1::device(c)
}

#[derive(Serialize)]
struct PushItem {
    key: String,
    size: u64,
}

#[derive(Serialize)]
struct PushList {
    items: Vec<PushItem>,
}

pub fn push_list(c: &Ctx) -> Result<Reply, Error> {
    let items = crate::store::push_list::list(c.db)?
        .into_iter()
        .map(|(key, size)| PushItem { key, size })
        .collect();
    Reply::json(200, &PushList { items })
}

pub fn push_add(c: &Ctx) -> Result<Reply, Error> {
    crate::device::add_game(c.db, c.param(0))?;
    push_list(c)
}

pub fn push_add_title(c: &Ctx) -> Result<Reply, Error> {
    crate::device::add_title(c.db, c.param(0))?;
    push_list(c)
}

pub fn push_remove(c: &Ctx) -> Result<Reply, Error> {
    if !crate::store::push_list::remove(c.db, c.param(0))? {
        return Err(Error::not_found("That game is not in the push list."));
    }
    push_list(c)
}

pub fn push_clear(c: &Ctx) -> Result<Reply, Error> {
    crate::store::push_list::clear(c.db)?;
    push_list(c)
}

#[derive(Serialize)]
struct Cancelled {
    cancelled: bool,
}

/// `POST /api/job/cancel`: ask the running task to stop at its next safe point.
pub fn cancel_job(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(
        200,
        &Cancelled {
            cancelled: c.app.jobs.cancel(),
        },
    )
}

/// The JSON body of a request, or a 400 that says what was expected.
fn body<T: for<'de> Deserialize<'de>>(c: &Ctx, expected: &str) -> Result<T, Error> {
    serde_json::from_slice(&c.req.body)
        .map_err(|_| Error::bad_request(format!("Expected a JSON object with {expected}.")))
}

#[derive(Deserialize)]
struct Credentials {
    name: String,
    password: String,
}

#[derive(Serialize)]
struct Me<'a> {
    name: Option<&'a str>,
    role: &'a str,
    lang: &'a str,
}

impl<'a> From<&'a User> for Me<'a> {
    fn from(u: &'a User) -> Self {
        Me {
            name: Some(&u.name),
            role: &u.role,
            lang: &u.lang,
        }
    }
}

/// The `Set-Cookie` of a session: `Secure` when the request came over HTTPS through a
/// trusted proxy (the service itself speaks plain HTTP).
fn session_cookie(c: &Ctx, token: &str, max_age: i64) -> (&'static str, String) {
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

fn signed_in(c: &Ctx, user: &User) -> Result<Reply, Error> {
    let token = accounts::open_session(c.db, user)?;
    let mut reply = Reply::json(200, &Me::from(user))?;
    reply
        .headers
        .push(session_cookie(c, &token, accounts::SESSION_DAYS * 86_400));
    Ok(reply)
}

/// Every password check costs the peer address a token of the sign-in limiter.
fn take_login_token(c: &Ctx) -> Result<(), Error> {
    match c.req.peer {
        Some(peer) => c
            .app
            .limits
            .logins
            .take(&auth::client_net(peer.ip()))
            .map_err(Error::rate_limited),
        None => Ok(()),
    }
}

/// `POST /api/login` `{name, password}`: every attempt costs the peer address a token
/// (an Argon2 check is expensive by design); a wrong name or password is 401.
pub fn login(c: &Ctx) -> Result<Reply, Error> {
    // A public route skips `authorize`, which checks the origin of every change.
    auth::check_origin(c.req)?;
    take_login_token(c)?;
    let form: Credentials = body(c, "name and password")?;
    let user = accounts::check_login(c.db, &form.name, &form.password).inspect_err(|_| {
        // For the admin, or fail2ban; the name is quoted so that it cannot forge lines.
        let peer = c.req.peer.map(|p| p.ip().to_string()).unwrap_or_default();
        log::warn!("failed sign-in as {:?} from {peer}", form.name);
    })?;
    log::info!("sign-in: {:?}", user.name);
    signed_in(c, &user)
}

#[derive(Deserialize)]
struct SetupForm {
    name: String,
    password: String,
    #[serde(default)]
    setup_code: Option<String>,
}

/// May this caller create the first account without the setup code? Only under the
/// loopback rule, and never with `--no-local-access` (behind a proxy on the same
/// machine every client looks local).
pub fn setup_is_local(c: &Ctx) -> bool {
    c.app.config.local_access && auth::is_local(c.req)
}

/// `POST /api/setup` `{name, password, setup_code?}`: the first admin, while no account
/// exists; from another machine, or under `--no-local-access`, with the setup code the
/// service wrote to its log at start. A wrong code counts as a failed authentication.
pub fn setup(c: &Ctx) -> Result<Reply, Error> {
    // A public route skips `authorize`, which checks the origin of every change.
    auth::check_origin(c.req)?;
    let form: SetupForm = body(c, "name, password and, from another machine, setup_code")?;
    if !setup_is_local(c) {
        let expected = c
            .app
            .setup_code
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let given = form.setup_code.as_deref().unwrap_or("");
        let right = expected.is_some_and(|code| accounts::same_secret(given, &code));
        if !right {
            auth::count_failure(c.app, c.req)?;
            return Err(Error::forbidden(
                "The first account needs the setup code from the service's log (or `ludotheque user add` on its machine).",
            ));
        }
    }
    accounts::add_first(c.db, &form.name, &form.password)?;
    // The code has done its work: it never opens anything again.
    *c.app.setup_code.lock().unwrap_or_else(|p| p.into_inner()) = None;
    let (user, _) = users::by_name(c.db, &form.name)?
        .ok_or_else(|| Error::internal("the first account vanished as it was made"))?;
    log::info!("first admin created: {:?}", user.name);
    signed_in(c, &user)
}

#[derive(Serialize)]
struct SignedOut {
    signed_in: bool,
}

/// `POST /api/logout`: end this session (and drop the cookie).
pub fn logout(c: &Ctx) -> Result<Reply, Error> {
    if let Some(token) = auth::session_cookie(c.req) {
        accounts::close_session(c.db, token)?;
    }
    let mut reply = Reply::json(200, &SignedOut { signed_in: false })?;
    reply.headers.push(session_cookie(c, "", 0));
    Ok(reply)
}

/// `GET /api/me`: who the interface is talking to.
pub fn me(c: &Ctx) -> Result<Reply, Error> {
    let me = match &c.principal {
        Principal::User(u) => Me::from(u),
        // No account: the loopback rule, in the language its pages use.
        p => Me {
            name: None,
            role: if p.is_admin() { "admin" } else { "viewer" },
            lang: crate::web::view::browser_lang(c.req).code(),
        },
    };
    Reply::json(200, &me)
}

fn account<'a>(c: &'a Ctx) -> Result<&'a User, Error> {
    match &c.principal {
        Principal::User(u) => Ok(u),
        _ => Err(Error::bad_request(
            "Only a signed-in account has a language and a password.",
        )),
    }
}

#[derive(Deserialize)]
struct LangForm {
    lang: String,
}

/// `POST /api/me/lang` `{lang: "fr"|"en"}`.
pub fn set_lang(c: &Ctx) -> Result<Reply, Error> {
    let user = account(c)?;
    let form: LangForm = body(c, "lang (fr or en)")?;
    if !accounts::LANGS.contains(&form.lang.as_str()) {
        return Err(Error::bad_request("The language is 'fr' or 'en'."));
    }
    users::set_lang(c.db, user.id, &form.lang)?;
    Reply::json(
        200,
        &Me {
            lang: &form.lang,
            ..Me::from(user)
        },
    )
}

#[derive(Deserialize)]
struct PasswordForm {
    current: String,
    new: String,
}

/// `POST /api/me/password` `{current, new}`: every session of the account ends,
/// this one included.
pub fn set_password(c: &Ctx) -> Result<Reply, Error> {
    let user = account(c)?;
    let form: PasswordForm = body(c, "current and new")?;
    take_login_token(c)?;
    accounts::check_login(c.db, &user.name, &form.current)?;
    accounts::set_password(c.db, &user.name, &form.new)?;
    let mut reply = Reply::json(200, &SignedOut { signed_in: false })?;
    reply.headers.push(session_cookie(c, "", 0));
    Ok(reply)
}

#[derive(Serialize)]
struct KeyView {
    id: i64,
    name: String,
    prefix: String,
    read_only: bool,
    created_at: String,
    last_used_at: Option<String>,
    revoked_at: Option<String>,
}

impl From<&ApiKey> for KeyView {
    fn from(k: &ApiKey) -> Self {
        KeyView {
            id: k.id,
            name: k.name.clone(),
            prefix: k.prefix.clone(),
            read_only: k.read_only,
            created_at: time::rfc3339(k.created_at),
            last_used_at: k.last_used_at.map(time::rfc3339),
            revoked_at: k.revoked_at.map(time::rfc3339),
        }
    }
}

#[derive(Serialize)]
struct KeyList {
    items: Vec<KeyView>,
}

/// `GET /api/keys`.
pub fn list_keys(c: &Ctx) -> Result<Reply, Error> {
    let items = api_keys::list(c.db)?.iter().map(KeyView::from).collect();
    Reply::json(200, &KeyList { items })
}

#[derive(Deserialize)]
struct KeyForm {
    name: String,
    #[serde(default)]
    read_only: bool,
}

#[derive(Serialize)]
struct CreatedKey {
    /// The secret, shown this once.
    key: String,
    #[serde(flatten)]
    view: KeyView,
}

/// `POST /api/keys` `{name, read_only?}`: 201 with the key, which is never shown again.
pub fn create_key(c: &Ctx) -> Result<Reply, Error> {
    let form: KeyForm = body(c, "name, and optionally read_only")?;
    let new = keys::create(c.db, &form.name, form.read_only)?;
    Reply::json(
        201,
        &CreatedKey {
            key: new.secret,
            view: KeyView::from(&new.key),
        },
    )
}

/// `DELETE /api/keys/{id}`: revoke (the key stays listed); revoking twice is fine.
pub fn revoke_key(c: &Ctx) -> Result<Reply, Error> {
    let not_found = || Error::not_found("No API key has that id.");
    let id: i64 = c.param(0).parse().map_err(|_| not_found())?;
    api_keys::get(c.db, id)?.ok_or_else(not_found)?;
    api_keys::revoke(c.db, id, time::now())?;
    let key = api_keys::get(c.db, id)?.ok_or_else(not_found)?;
    Reply::json(200, &KeyView::from(&key))
}

#[derive(Serialize)]
struct Run {
    id: i64,
    label: String,
    result: String,
    started_at: String,
    finished_at: Option<String>,
    done: u64,
    total: u64,
    errors: u64,
    message: String,
}

#[derive(Serialize)]
struct Runs {
    items: Vec<Run>,
}

/// `GET /api/tasks`: the last 50 task runs, newest first.
pub fn task_history(c: &Ctx) -> Result<Reply, Error> {
    let items = job_runs::recent(c.db, 50)?
        .into_iter()
        .map(|r| Run {
            id: r.id,
            label: r.label,
            result: r.result,
            started_at: time::rfc3339(r.started_at),
            finished_at: r.finished_at.map(time::rfc3339),
            done: r.done,
            total: r.total,
            errors: r.errors,
            message: r.message,
        })
        .collect();
    Reply::json(200, &Runs { items })
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
        return Err(Error::bad_request(
            "A slug has 1 to 32 characters among a-z, 0-9 and '-'.",
        ));
    }
    let name = form.name.trim();
    crate::text::check_name("A platform's name", name)?;
    // Relative to the library: a leading '/' would mean a server path, so it is refused.
    let folder = form.folder.trim().trim_end_matches('/');
    if !library::valid_key(folder) {
        return Err(Error::bad_request(
            "The folder is a path inside the library, like 'retro/gba', without '..'.",
        ));
    }
    // The scan walks neither links nor hidden folders (the trash is one).
    if !library::safe::walkable_folder(&c.app.config.library, folder) {
        return Err(Error::bad_request(
            "The folder cannot be a link, a hidden folder or the trash.",
        ));
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
        return Err(Error::bad_request(
            "Extensions are short words of letters and digits, like 'gba, zip'.",
        ));
    }
    let platform = Platform {
        slug: slug.to_string(),
        name: name.to_string(),
        folder: folder.to_string(),
        extensions,
    };
    if !platforms::insert(c.db, &platform)? {
        return Err(Error::conflict("A platform with that slug already exists."));
    }
    let mut reply = crate::api::v1::games::platforms(c)?;
    reply.status = 201;
    Ok(reply)
}

/// `DELETE /api/platforms/{slug}`: the platform and its games leave the index; their
/// files stay. The last platform cannot go (nothing would be scanned).
pub fn delete_platform(c: &Ctx) -> Result<Reply, Error> {
    let list = platforms::list(c.db)?;
    if !list.iter().any(|p| p.slug == c.param(0)) {
        return Err(Error::not_found("No platform has that slug."));
    }
    if list.len() == 1 {
        return Err(Error::conflict("The last platform cannot be removed."));
    }
    platforms::delete(c.db, c.param(0))?;
    crate::api::v1::games::platforms(c)
}

#[derive(Serialize)]
struct UserView {
    name: String,
    role: String,
    lang: String,
    created_at: String,
}

#[derive(Serialize)]
struct UserList {
    items: Vec<UserView>,
}

/// `GET /api/users`: the accounts (admins only: names are not for viewers).
pub fn list_users(c: &Ctx) -> Result<Reply, Error> {
    if !c.principal.is_admin() {
        return Err(Error::forbidden("Only an admin sees the accounts."));
    }
    let items = users::list(c.db)?
        .into_iter()
        .map(|u| UserView {
            name: u.name,
            role: u.role,
            lang: u.lang,
            created_at: time::rfc3339(u.created_at),
        })
        .collect();
    Reply::json(200, &UserList { items })
}
