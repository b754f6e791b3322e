//! The shop on the Consoles page: the address to give installers and how each one
//! takes it, the consoles allowed in (add, remove), the message installers show, and
//! what consoles downloaded. Its internal routes (`/api/consoles`, `/api/shop/message`)
//! are the page script's, not part of the public contract.

use std::net::{IpAddr, SocketAddr};

use maud::{html, Markup};
use serde::Deserialize;

use super::body;
use super::view::{date, size, Viewer};
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::auth::{host_only, is_loopback_host};
use crate::http::{Ctx, Reply};
use crate::store::{consoles, settings, shop_downloads};

/// The longest message installers show.
const MAX_MESSAGE: usize = 200;

/// The shop's part of the Consoles page: "installers on your consoles", apart from
/// the console games are sent to (`web::device`), which the page names differently.
pub fn section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let (address, loopback) = address(c);
    let all = consoles::list(c.db)?;
    let message = settings::shop_message(c.db)?;
    Ok(html! {
        h2 #shop { (v.t(M::ShopHeading)) }
        p { (v.t(M::ShopIntro)) }
        p { code #shop-url { "http://" (address) "/" } }
        @if let Some(port) = loopback {
            p.warn #shop-loopback role="note" {
                (v.t(M::ShopLoopback))
                @if c.app.config.serve.listen.is_some() { " " (v.t(M::RestartListening)) " " code { "--listen 0.0.0.0:" (port) } }
                @else { " " (v.t(M::ListenBelow)) }
            }
        }
        @if v.admin { (super::listen::form(c, v, false)) }
        p.note { (v.t(if c.app.config.serve.shop_public { M::ShopPublic } else { M::ShopPrivate })) }
        h3 { (v.t(M::Consoles)) }
        (console_table(v, &all))
        @if v.admin { (add_console_form(v, &address)) }
        (super::setup::tabs(v, &address, &all))
        @if v.admin {
            h3 #shop-message { (v.t(M::ShopMessageHeading)) }
            form.stack data-api="/api/shop/message" {
                label { (v.t(M::ShopMessage)) input name="message" maxlength=(MAX_MESSAGE) value=(message); }
                button type="submit" { (v.t(M::Save)) }
            }
        }
        h3 #recent-downloads { (v.t(M::RecentDownloads)) }
        (downloads(c, v)?)
    })
}

/// Adding a console's login, and where its password shows once (also after a reset).
fn add_console_form(v: &Viewer, address: &str) -> Markup {
    html! {
        form.stack #console-form data-api="/api/consoles" data-then="console" data-address=(address) {
            label { (v.t(M::Name)) input name="name" required maxlength="64" pattern="[^:]+"; }
            button type="submit" { (v.t(M::AddConsole)) }
        }
        div #new-console hidden {
            p.note { (v.t(M::ConsolePasswordOnce)) }
            div.copy {
                input #new-console-password readonly aria-label=(v.t(M::Password));
                button.secondary type="button" data-copy="new-console-password" { (v.t(M::Copy)) }
            }
            p.note { (v.t(M::ConsoleFullUrl)) }
            div.copy {
                input #new-console-url readonly aria-label=(v.t(M::Shop));
                button.secondary type="button" data-copy="new-console-url" { (v.t(M::Copy)) }
            }
        }
    }
}

fn console_table(v: &Viewer, all: &[consoles::Console]) -> Markup {
    html! {
        p.empty #consoles-empty hidden[!all.is_empty()] { (v.t(M::NoConsoles)) }
        div.scroll {
            table #consoles hidden[all.is_empty()] data-never=(v.t(M::Never))
                data-new-password=(v.t(M::NewConsolePassword)) data-remove=(v.t(M::Remove))
                data-confirm-new-password=(v.msg(&Msg::ConfirmNewConsolePassword { name: "{name}".into() }))
                data-confirm-remove=(v.msg(&Msg::ConfirmRemoveConsole { name: "{name}".into() })) {
                thead { tr {
                    th { (v.t(M::Name)) } th.wide { (v.t(M::Added)) } th { (v.t(M::LastUsed)) } th {}
                } }
                tbody {
                    @for con in all {
                        tr {
                            td { a href={ "/consoles/" (crate::text::encode_segment(&con.name)) } { (con.name) } }
                            td.wide { (date(v, Some(con.created_at))) }
                            td { (date(v, con.last_used_at)) }
                            td { @if v.admin { (console_actions(v, &con.name)) } }
                        }
                    }
                }
            }
        }
    }
}

/// A login's buttons: a new password (the old one lost), or removing it.
fn console_actions(v: &Viewer, name: &str) -> Markup {
    let api = format!("/api/consoles/{}", crate::text::encode_segment(name));
    html! {
        div.actions {
            button.secondary type="button" data-api={ (api) "/password" } data-then="console-password"
                data-confirm=(v.msg(&Msg::ConfirmNewConsolePassword { name: name.into() })) { (v.t(M::NewConsolePassword)) }
            button.danger type="button" data-method="DELETE" data-api=(api)
                data-confirm=(v.msg(&Msg::ConfirmRemoveConsole { name: name.into() })) { (v.t(M::Remove)) }
        }
    }
}

fn downloads(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let recent = shop_downloads::recent(c.db, 20)?;
    Ok(html! {
        @if recent.is_empty() {
            p.empty { (v.t(M::NoDownloads)) }
        } @else {
            div.scroll { table {
                thead { tr {
                    th { "Console" } th { (v.t(M::Name)) } th.num { (v.t(M::Sent)) }
                    th.num { (v.t(M::Duration)) } th { (v.t(M::When)) }
                } }
                tbody { @for d in &recent { tr {
                    td { (d.console) }
                    td { a href={ "/game/" (crate::text::key_path(&d.key)) } { (d.key) } }
                    td.num { (size(v, d.bytes)) }
                    td.num { (seconds(v, d.duration_ms)) }
                    td { (date(v, Some(d.last_at))) }
                } } }
            } }
        }
    })
}

/// A duration in seconds, with the reader's decimal mark.
fn seconds(v: &Viewer, ms: u64) -> String {
    let point = v.lang.grammar().point().to_string();
    format!("{:.1} s", ms as f64 / 1000.0).replace('.', &point)
}

/// Why a push cannot work from here, said before anyone tries: no console, or a
/// service that listens on loopback only (see [`address`]) while the console is
/// elsewhere (the push task refuses the same case, `jobs::push`). Here, below the
/// console page (`device`) and the tasks page, which both say it.
pub(super) fn push_blocked(
    c: &Ctx,
    v: &Viewer,
    d: Option<&crate::store::device::Device>,
) -> Option<String> {
    let Some(d) = d else {
        return Some(v.t(M::PushNeedsDevice).to_string());
    };
    let console_local = d.host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    let (_, loopback) = address(c);
    loopback
        .filter(|_| !console_local)
        .map(|_| v.t(M::PushLoopback).to_string())
}

/// The `host:port` a console should use, and the port when the service listens on
/// loopback only (no console can reach it). Listening on every address, the address
/// the browser used is the one to give, unless that is this machine's own name; then
/// the address of the default route.
pub(super) fn address(c: &Ctx) -> (String, Option<u16>) {
    let listen: SocketAddr = c
        .app
        .push
        .listen()
        .unwrap_or_else(|| c.app.listening.addr());
    let port = listen.port();
    if listen.ip().is_loopback() {
        return (listen.to_string(), Some(port));
    }
    if !listen.ip().is_unspecified() {
        return (listen.to_string(), None);
    }
    let typed = c.req.header("host").map(host_only).unwrap_or("");
    let ip: Option<IpAddr> = if typed.is_empty() || is_loopback_host(typed) {
        // A documentation address: the kernel names the route to it, nothing is sent.
        crate::device::route_address("192.0.2.1", 9)
    } else {
        return (format!("{typed}:{port}"), None);
    };
    let host = ip.map_or("ADRESSE".to_string(), |ip| {
        SocketAddr::new(ip, port).to_string()
    });
    (host, None)
}

#[derive(Deserialize)]
struct NewConsole {
    name: String,
}

/// `POST /api/consoles` `{name}`: the password, once.
pub fn add_console(c: &Ctx) -> Result<Reply, Error> {
    let form: NewConsole = body(c, "name")?;
    let (console, password) = crate::consoles::add(c.db, &form.name)?;
    Reply::json(
        201,
        &serde_json::json!({ "name": console.name, "password": password }),
    )
}

/// `POST /api/consoles/{name}/password`: a new password for a console that lost its
/// own, shown once (as when it was added); the old one stops working.
pub fn new_console_password(c: &Ctx) -> Result<Reply, Error> {
    let (console, password) = crate::consoles::reset_password(c.db, c.param(0))?;
    Reply::json(
        200,
        &serde_json::json!({ "name": console.name, "password": password }),
    )
}

/// `DELETE /api/consoles/{name}`.
pub fn remove_console(c: &Ctx) -> Result<Reply, Error> {
    crate::consoles::remove(c.db, c.param(0))?;
    Reply::json(200, &serde_json::json!({"removed": c.param(0)}))
}

#[derive(Deserialize)]
struct MessageForm {
    message: String,
}

/// `POST /api/shop/message` `{message}`: empty for the default.
pub fn set_message(c: &Ctx) -> Result<Reply, Error> {
    let form: MessageForm = body(c, "message")?;
    let message = form.message.trim();
    if message.chars().count() > MAX_MESSAGE || message.chars().any(char::is_control) {
        return Err(Error::invalid(Msg::ShopMessage { max: MAX_MESSAGE }));
    }
    settings::set_shop_message(c.db, message)?;
    Reply::json(200, &serde_json::json!({"message": message}))
}
