//! The accounts, administered from the browser: the list in Settings (admins only:
//! names are not for viewers, as `GET /api/users` already says), and the internal
//! routes that add one, remove one, change its role or reset its password. The rules
//! are `accounts`' (names, passwords, the last admin, never on yourself), the same
//! the command line's `user` commands follow.

use maud::{html, Markup};
use serde::{Deserialize, Serialize};

use super::body;
use super::view::{query_value, Viewer};
use crate::accounts;
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::auth::Principal;
use crate::http::{Ctx, Reply};
use crate::store::users::{self, User};
use crate::words::{Lang, Role};

/// A language by its own name, whichever language the page is in.
fn lang_name(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "English",
        Lang::Fr => "Français",
    }
}

/// The signed-in account's id (none under the loopback rule).
fn me(c: &Ctx) -> Option<i64> {
    match &c.principal {
        Principal::User(u) => Some(u.id),
        _ => None,
    }
}

/// The accounts' part of the Settings page: empty for a viewer.
pub fn section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    if !v.admin {
        return Ok(html! {});
    }
    let list = users::list(c.db)?;
    let me = me(c);
    Ok(html! {
        h2 #accounts-title { (v.t(M::Accounts)) }
        p.note { (v.t(M::AccountsNote)) }
        div.scroll {
            table #accounts {
                thead { tr { th { (v.t(M::Name)) } th { (v.t(M::Role)) } th.wide { (v.t(M::Language)) } } }
                tbody {
                    @for u in &list {
                        tr data-account=(u.name) {
                            td {
                                (u.name)
                                @if me == Some(u.id) { " · " small { (v.t(M::You)) } }
                                @else { (actions(v, u)) }
                            }
                            td data-role=(u.role.as_str()) { (v.t(M::of_role(u.role))) }
                            td.wide data-lang=(u.lang.as_str()) { (lang_name(u.lang)) }
                        }
                    }
                }
            }
        }
        h3 { (v.t(M::AddAccount)) }
        form.stack #account-form data-api="/api/users" data-same="password,password2" {
            label { (v.t(M::Name)) input name="name" required maxlength="100" autocomplete="off"; }
            label { (v.t(M::Password)) input name="password" type="password" autocomplete="new-password" minlength="8" required; }
            label { (v.t(M::PasswordAgain)) input name="password2" type="password" autocomplete="new-password" minlength="8" required; }
            label { (v.t(M::Role))
                select name="role" {
                    option value="viewer" selected { (v.t(M::RoleViewer)) }
                    option value="admin" { (v.t(M::RoleAdmin)) }
                }
            }
            label { (v.t(M::Language))
                select name="lang" {
                    @for lang in Lang::ALL {
                        option value=(lang.code()) selected[*lang == v.lang] { (lang_name(*lang)) }
                    }
                }
            }
            button type="submit" { (v.t(M::CreateAccount)) }
        }
    })
}

/// Another account's buttons, and its password form (folded: it is seldom used).
fn actions(v: &Viewer, u: &User) -> Markup {
    let api = format!("/api/users/{}", query_value(&u.name));
    let name = || u.name.clone();
    html! {
        div.actions {
            @if u.is_admin() {
                button type="button" data-api={ (api) "/role/viewer" }
                    data-confirm=(v.msg(&Msg::ConfirmMakeViewer { name: name() })) { (v.t(M::MakeViewer)) }
            } @else {
                button type="button" data-api={ (api) "/role/admin" } { (v.t(M::MakeAdmin)) }
            }
            button.danger type="button" data-method="DELETE" data-api=(api)
                data-confirm=(v.msg(&Msg::ConfirmRemoveAccount { name: name() })) { (v.t(M::RemoveAccount)) }
        }
        details.reset {
            summary { (v.t(M::ResetPassword)) }
            form.stack data-api={ (api) "/password" } data-same="password,password2" {
                label { (v.t(M::NewPassword)) input name="password" type="password" autocomplete="new-password" minlength="8" required; }
                label { (v.t(M::PasswordAgain)) input name="password2" type="password" autocomplete="new-password" minlength="8" required; }
                button type="submit" { (v.t(M::SetPassword)) }
            }
        }
    }
}

#[derive(Serialize)]
struct AccountView<'a> {
    name: &'a str,
    role: Role,
    lang: Lang,
}

impl<'a> From<&'a User> for AccountView<'a> {
    fn from(u: &'a User) -> Self {
        AccountView {
            name: &u.name,
            role: u.role,
            lang: u.lang,
        }
    }
}

/// A new password, typed twice: the second copy, when sent, must be the first.
#[derive(Deserialize)]
struct NewPassword {
    password: String,
    password2: Option<String>,
}

impl NewPassword {
    fn checked(&self) -> Result<&str, Error> {
        match &self.password2 {
            Some(again) if *again != self.password => Err(Error::invalid(Msg::PasswordsDiffer)),
            _ => Ok(&self.password),
        }
    }
}

#[derive(Deserialize)]
struct AccountForm {
    name: String,
    #[serde(flatten)]
    password: NewPassword,
    role: String,
    /// The language of the new account's pages; the admin's own when not sent.
    #[serde(default)]
    lang: Option<String>,
}

/// Admins only, whoever the route's access class lets through.
fn admin_only(c: &Ctx) -> Result<(), Error> {
    if c.principal.is_admin() {
        Ok(())
    } else {
        Err(Error::forbidden(Msg::AdminOnly))
    }
}

/// `POST /api/users` `{name, password, password2?, role, lang?}`: 201 with the account.
pub fn add(c: &Ctx) -> Result<Reply, Error> {
    admin_only(c)?;
    let form: AccountForm = body(
        c,
        "name, password, password2, role (admin or viewer) and lang (fr or en)",
    )?;
    let password = form.password.checked()?;
    let role = accounts::parse_role(&form.role)?;
    let lang = match &form.lang {
        Some(lang) => accounts::parse_lang(lang)?,
        None => Viewer::of(c).lang,
    };
    accounts::add_in(c.db, &form.name, password, role, lang)?;
    let (user, _) =
        users::by_name(c.db, &form.name)?.ok_or_else(|| Error::internal("just added"))?;
    Reply::json(201, &AccountView::from(&user))
}

/// `DELETE /api/users/{name}`: the account and its sessions go.
pub fn remove(c: &Ctx) -> Result<Reply, Error> {
    admin_only(c)?;
    let user = accounts::remove(c.db, c.param(0), me(c))?;
    Reply::json(200, &AccountView::from(&user))
}

/// `POST /api/users/{name}/role/{role}`: `admin` or `viewer`.
pub fn set_role(c: &Ctx) -> Result<Reply, Error> {
    admin_only(c)?;
    let user = accounts::set_role(c.db, c.param(0), accounts::parse_role(c.param(1))?, me(c))?;
    Reply::json(200, &AccountView::from(&user))
}

/// `POST /api/users/{name}/password` `{password, password2?}`: the account is
/// signed out everywhere.
pub fn reset_password(c: &Ctx) -> Result<Reply, Error> {
    admin_only(c)?;
    let form: NewPassword = body(c, "password and password2")?;
    let ended = accounts::reset_password(c.db, c.param(0), form.checked()?, me(c))?;
    Reply::json(200, &serde_json::json!({ "sessions_ended": ended }))
}
