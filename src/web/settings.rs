//! The signed-in account's settings (language, password), the API keys and, for an
//! admin, the accounts.

use maud::{html, Markup};
use serde::{Deserialize, Serialize};

use super::body;
use super::first_steps::{server_folder, Folder};
use super::sign_in::{session_cookie, take_login_token, Me, SignedOut};
use super::view::{self, date, page, size, Viewer};
use crate::error::i18n::{Lang, M};
use crate::error::{Error, Msg};
use crate::http::auth::Principal;
use crate::http::{Ctx, Reply};
use crate::store::api_keys::{self, ApiKey};
use crate::store::users::{self, User};
use crate::words::Role;
use crate::{accounts, keys, library, time};

/// The signed-in account's own settings: language and password.
fn own_account(v: &Viewer, name: &str) -> Markup {
    html! {
        h2 { (name) " · " (view::role(v)) }
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
}

/// The settings' other pages.
pub fn sub_nav(v: &Viewer) -> Markup {
    html! {
        nav.sub aria-label=(v.t(M::SettingsPages)) {
            ul.links {
                li { a href="/platforms" { (v.t(M::Platforms)) } }
                li { a href="/settings/keys" { (v.t(M::ApiKeys)) } }
                li { a href="/settings/notifications" { (v.t(M::Notifications)) } }
            }
        }
    }
}

/// `GET /settings`: the library, the device, the retention, the limits, the account.
pub fn settings_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let cfg = &c.app.config;
    let ready = library::is_ready(c.db, cfg)?;
    let limits = [
        (M::KeyRate, cfg.serve.key_rate.to_string(), "--key-rate"),
        (M::KeyBurst, cfg.serve.key_burst.to_string(), "--key-burst"),
        (
            M::AuthFailures,
            cfg.serve.auth_failures_per_minute.to_string(),
            "--auth-failures-per-minute",
        ),
        (
            M::MaxBody,
            size(&v, cfg.serve.max_body as u64),
            "--max-body",
        ),
        (M::Workers, cfg.workers.to_string(), "--workers"),
        (
            M::MaxConnections,
            cfg.serve.max_connections.to_string(),
            "--max-connections",
        ),
    ];
    let body = html! {
        (sub_nav(&v))
        h2 { (v.t(M::LibrarySettings)) }
        dl.facts {
            // The folders are server paths: an admin's to see, no one else's
            // (`first_steps::server_folder`).
            dt { (v.t(M::DataFolder)) } dd #data-folder { (folder(c, &v, Folder::Data, M::DataFolderNote)) }
            dt { (v.t(M::Ready)) } dd { (v.t(if ready { M::Yes } else { M::No })) }
            dt { (v.t(M::Retention)) } dd #retention { (super::trash::retention_setting(c, &v)) }
            dt { (v.t(M::OrganizeTemplateLabel)) } dd #organize-template { (super::upkeep::template_setting(c, &v)) }
        }
        (super::folders::section(c, &v)?)
        (super::titles::settings_section(c, &v)?)
        (super::console_keys::section(c, &v)?)
        (super::compress::settings_section(c, &v)?)
        h2 { (v.t(M::Limits)) }
        dl.facts {
            @for (m, value, flag) in &limits {
                dt { (v.t(*m)) } dd { (value) " · " (v.t(M::SetByFlag)) " " code.flag { (flag) } }
            }
        }
        h2 { (v.t(M::Access)) }
        p { a href="/settings/keys" { (v.t(M::ApiKeys)) } }
        @if let Some(name) = &v.name { (own_account(&v, name)) }
        (super::accounts::section(c, &v)?)
    };
    page(&v, v.t(M::Settings), "/settings", body)
}

/// A server folder: its path for an admin, with what it is for; for anyone else, only
/// what it is for (`note`).
fn folder(c: &Ctx, v: &Viewer, which: Folder, note: M) -> Markup {
    html! {
        @match server_folder(c, v, which) {
            Some(path) => { code.server-path { (path) } br; span.note { (v.t(note)) } }
            None => (v.t(note)),
        }
    }
}

/// `GET /settings/keys`: Settings → Access → API keys.
pub fn keys_page(c: &Ctx) -> Result<Reply, Error> {
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
                table #keys hidden[keys.is_empty()] data-revoke=(v.t(M::Revoke)) data-read-only=(v.t(M::ReadOnly)) data-full-access=(v.t(M::FullAccess)) data-never=(v.t(M::Never)) data-confirm-revoke=(v.msg(&Msg::ConfirmRevokeKey { name: "{name}".into() })) {
                    thead { tr {
                        th { (v.t(M::Name)) } th { (v.t(M::Prefix)) } th.wide { (v.t(M::Access)) }
                        th.wide { (v.t(M::Created)) } th { (v.t(M::LastUsed)) } th {}
                    } }
                    tbody {
                        @for k in &keys {
                            tr data-key-id=(k.id) {
                                td { (k.name) }
                                td { code { (k.prefix) "…" } }
                                td.wide { @if k.read_only { (v.t(M::ReadOnly)) } @else { (v.t(M::FullAccess)) } }
                                td.wide { (date(&v, Some(k.created_at))) }
                                td { (date(&v, k.last_used_at)) }
                                td {
                                    @if k.revoked_at.is_some() { (v.t(M::Revoked)) }
                                    @else if v.admin {
                                        button.danger type="button" data-method="DELETE" data-api={ "/api/keys/" (k.id) } data-confirm=(v.msg(&Msg::ConfirmRevokeKey { name: k.name.clone() })) { (v.t(M::Revoke)) }
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

/// `GET /api/me`: who the interface is talking to.
pub fn me(c: &Ctx) -> Result<Reply, Error> {
    let me = match &c.principal {
        Principal::User(u) => Me::from(u),
        // No account: the loopback rule, in the language its pages use.
        p => Me {
            name: None,
            role: if p.is_admin() {
                Role::Admin
            } else {
                Role::Viewer
            },
            lang: c.req.lang(),
        },
    };
    Reply::json(200, &me)
}

fn account<'a>(c: &'a Ctx) -> Result<&'a User, Error> {
    match &c.principal {
        Principal::User(u) => Ok(u),
        _ => Err(Error::invalid(Msg::NotSignedIn)),
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
    let lang = accounts::parse_lang(&form.lang)?;
    users::set_lang(c.db, user.id, lang)?;
    Reply::json(
        200,
        &Me {
            lang,
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
    let mut reply = Reply::json(
        200,
        &SignedOut {
            signed_in: false,
            then: None,
        },
    )?;
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

/// `GET /api/keys`.
pub fn list_keys(c: &Ctx) -> Result<Reply, Error> {
    let items: Vec<KeyView> = api_keys::list(c.db)?.iter().map(KeyView::from).collect();
    Reply::json(200, &serde_json::json!({ "items": items }))
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
    let not_found = || {
        Error::not_found(Msg::NoApiKey {
            id: c.param(0).into(),
        })
    };
    let id: i64 = c.param(0).parse().map_err(|_| not_found())?;
    api_keys::get(c.db, id)?.ok_or_else(not_found)?;
    api_keys::revoke(c.db, id, time::now())?;
    let key = api_keys::get(c.db, id)?.ok_or_else(not_found)?;
    Reply::json(200, &KeyView::from(&key))
}

#[derive(Serialize)]
struct UserView {
    name: String,
    role: Role,
    lang: Lang,
    created_at: String,
}

/// `GET /api/users`: the accounts (admins only: names are not for viewers).
pub fn list_users(c: &Ctx) -> Result<Reply, Error> {
    if !c.principal.is_admin() {
        return Err(Error::forbidden(Msg::AdminOnly));
    }
    let items: Vec<UserView> = users::list(c.db)?
        .into_iter()
        .map(|u| UserView {
            name: u.name,
            role: u.role,
            lang: u.lang,
            created_at: time::rfc3339(u.created_at),
        })
        .collect();
    Reply::json(200, &serde_json::json!({ "items": items }))
}
