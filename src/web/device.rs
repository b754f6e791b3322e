//! The Consoles page: the shop (`web::shop`), where installers on the consoles pull
//! from; and the push page, for the console games are sent to: what to do on it
//! before a push, its settings and a connection test, the push list by game name, and
//! what the last push did.

use std::time::Duration;

use maud::{html, Markup};
use serde::Serialize;

use super::body;
use super::view::{count, date, key_path, kind, page, size, Viewer};
use crate::device::Reach;
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::store::{device, push_list};

/// How long the connection test waits for the console.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// `GET /device`: the shop, and a way to the push page.
pub fn device_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let shop = super::shop::section(c, &v)?;
    let files = push_list::entries(c.db)?.len() as u64;
    let body = html! {
        (shop)
        h2 #push-to-console { (v.t(M::PushPage)) }
        p #push-link {
            (v.t(M::PushElsewhere)) " " a href="/push" { (v.t(M::OpenPushPage)) }
            " (" (v.t(M::PushList)) (v.colon()) (count(&v, files, M::FileWord, M::FilesWord)) ")"
        }
    };
    page(&v, v.t(M::Device), "/device", body)
}

/// `GET /push`: the console games are sent to: what to do on it before a push, its
/// settings and the connection test, and the push list.
pub fn push_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let d = device::get(c.db)?;
    let pending = push_list::entries(c.db)?;
    let blocked = super::shop::push_blocked(c, &v, d.as_ref());
    let start =
        super::tasks::start_button(c, &v, ("start-push", "/api/push", "/"), v.t(M::StartPush));
    let body = html! {
        p { a href="/device" { "← " (v.t(M::Device)) } }
        (guidance(&v))
        @match &d {
            Some(d) => dl.facts {
                dt { (v.t(M::Name)) } dd { (d.name) }
                dt { (v.t(M::Host)) } dd { (d.host) ":" (d.port) }
                dt { (v.t(M::LastContact)) } dd { (date(&v, d.last_contact)) }
                dt { (v.t(M::Result)) } dd { (last_result(&v, d.last_result.as_deref())) }
                dt { (v.t(M::Client)) } dd { (d.client.as_deref().unwrap_or("—")) }
                dt { (v.t(M::LastPush)) } dd { (date(&v, d.last_push)) }
            },
            // The push's reason below says there is none.
            None => {},
        }
        @if v.admin && d.is_some() { (test_button(&v)) }
        (push_section(&v, &pending, blocked, start))
        @if v.admin {
            h3 { (v.t(M::ConsoleSettings)) }
            (device_form(&v, d.as_ref()))
        }
    };
    page(&v, v.t(M::PushPage), "/push", body)
}

/// How the last push ended, in the reader's words (the store keeps the API's).
fn last_result<'a>(v: &Viewer, stored: Option<&'a str>) -> &'a str {
    match stored {
        Some(r) => crate::words::TaskResult::parse(r).map_or(r, |t| v.t(M::of_result(t))),
        None => "—",
    }
}

/// What to do on the console before a push: which installers take one (those that
/// speak Tinfoil's network protocol, `docs/push.md`), which screen, which network.
fn guidance(v: &Viewer) -> Markup {
    html! {
        h3 { (v.t(M::PushBefore)) }
        ol.how #push-how {
            @for m in [M::PushStepInstaller, M::PushStepScreen, M::PushStepNetwork, M::PushStepChoose] {
                li { (v.t(m)) }
            }
        }
        p.note #push-not-dbi { (v.t(M::PushNotDbi)) }
    }
}

/// The connection test: a button, and where its answer shows (`app.js`, at its end).
fn test_button(v: &Viewer) -> Markup {
    html! {
        div.actions {
            button.secondary type="button" #device-test data-probe="/api/device/test"
                data-wait=(v.t(M::TestingConnection)) aria-describedby="device-test-note" { (v.t(M::TestConnection)) }
        }
        p.note #device-test-note { (v.t(M::TestNote)) }
        p #device-test-result role="status" aria-live="polite" {}
    }
}

/// The push list, each game by its name, and the button that starts the push (off,
/// with the reason beside it, when the push cannot work).
fn push_section(
    v: &Viewer,
    pending: &[push_list::PendingGame],
    blocked: Option<String>,
    start: Markup,
) -> Markup {
    let total = size(v, pending.iter().map(|e| e.size).sum());
    let files = count(v, pending.len() as u64, M::FileWord, M::FilesWord);
    html! {
        h3 #push-list { (v.t(M::PushList)) " (" (files) " · " (total) ")" }
        @if let Some(why) = &blocked { p.warn #push-blocked role="note" { (why) } }
        @if pending.is_empty() {
            p.empty #push-empty { (v.t(M::PushEmpty)) }
        } @else {
            (push_table(v, pending))
            @if v.admin {
                div.actions {
                    @if blocked.is_some() {
                        button.blocked #start-push type="button" disabled aria-describedby="push-blocked" { (v.t(M::StartPush)) }
                    } @else {
                        (start)
                    }
                    @let confirm = v.msg(&Msg::ConfirmClearPush { files: pending.len() as u64, bytes: pending.iter().map(|e| e.size).sum() });
                    button.secondary type="button" data-method="DELETE" data-api="/api/push" data-confirm=(confirm) { (v.t(M::ClearList)) }
                }
            }
        }
    }
}

fn push_table(v: &Viewer, pending: &[push_list::PendingGame]) -> Markup {
    html! {
        div.scroll {
            table #push {
                thead { tr {
                    th { (v.t(M::Name)) } th.wide { (v.t(M::Type)) } th.num { (v.t(M::Size)) }
                    @if v.admin { th {} }
                } }
                tbody {
                    @for e in pending {
                        tr {
                            td.title {
                                a href={ "/game/" (key_path(&e.key)) } { (e.name.as_deref().unwrap_or(&e.key)) }
                                @if let Some(n) = e.version { " " span.badge title={ "v" (n) } { (crate::numbers::version(n)) } }
                                @if e.damaged { " " span.badge.damaged { (v.t(M::Damaged)) } }
                                br; code.id { (e.key) }
                            }
                            td.wide { (e.kind.map_or("—", |k| kind(v, k))) }
                            td.num { (size(v, e.size)) }
                            @if v.admin {
                                td { button.secondary type="button" data-method="DELETE" data-api={ "/api/push/" (key_path(&e.key)) } { (v.t(M::Remove)) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The console's settings, for an admin.
fn device_form(v: &Viewer, d: Option<&device::Device>) -> maud::Markup {
    let forget = d.map(|d| {
        v.msg(&Msg::ConfirmForgetDevice {
            name: d.name.clone(),
            host: format!("{}:{}", d.host, d.port),
        })
    });
    html! {
        form.stack data-api="/api/device" {
            label { (v.t(M::Name)) input name="name" value=[d.map(|d| &d.name)]; }
            label { (v.t(M::Host)) input name="host" required value=[d.map(|d| &d.host)] inputmode="decimal"; }
            label { (v.t(M::Port)) input name="port" type="number" min="1" max="65535" value=(d.map_or(2000, |d| d.port)); }
            label { (v.t(M::OfferAddress)) input name="offer_address" value=[d.and_then(|d| d.offer_address.as_ref())]; }
            div.actions {
                button type="submit" { (v.t(M::Save)) }
                @if let Some(confirm) = forget {
                    button.secondary type="button" data-method="DELETE" data-api="/api/device" data-confirm=(confirm) { (v.t(M::Forget)) }
                }
            }
        }
    }
}

/// `POST /api/device/test`: try a TCP connection to the configured console (3 s at
/// most) and say whether an installer waits there, and if not the likely reason, in
/// the reader's language. Only this click probes the console.
pub fn test_device(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let d = device::get(c.db)?.ok_or_else(|| Error::invalid(Msg::NoDevice))?;
    let reach = crate::device::probe(&d.host, d.port, PROBE_TIMEOUT)?;
    let message = v.t(match reach {
        Reach::Open => M::ProbeOpen,
        Reach::Refused => M::ProbeRefused,
        Reach::TimedOut => M::ProbeTimedOut,
        Reach::NoRoute => M::ProbeNoRoute,
    });
    Reply::json(
        200,
        &serde_json::json!({
            "reachable": reach == Reach::Open,
            "reason": reach.as_str(),
            "address": format!("{}:{}", d.host, d.port),
            "message": message,
        }),
    )
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
    let form: DeviceForm = body(c, "host, and optionally port, name, offer_address")?;
    crate::device::configure(
        c.db,
        form.name.as_deref().unwrap_or(""),
        &form.host,
        form.port.unwrap_or(2000),
        form.offer_address.as_deref().filter(|a| !a.is_empty()),
    )?;
    crate::api::v1::device::device(c)
}

pub fn clear_device(c: &Ctx) -> Result<Reply, Error> {
    crate::store::device::clear(c.db)?;
    crate::api::v1::device::device(c)
}

#[derive(Serialize)]
struct PushItem {
    key: String,
    size: u64,
}

#[derive(Serialize)]
struct PushList {
    items: Vec<PushItem>,
    /// After an addition: how many files it added, said for the page's message.
    #[serde(skip_serializing_if = "Option::is_none")]
    said: Option<String>,
}

pub fn push_list(c: &Ctx) -> Result<Reply, Error> {
    push_list_saying(c, None)
}

/// The push list, and after `added` files were added, a sentence saying so.
fn push_list_saying(c: &Ctx, added: Option<u64>) -> Result<Reply, Error> {
    let items: Vec<PushItem> = crate::store::push_list::list(c.db)?
        .into_iter()
        .map(|(key, size)| PushItem { key, size })
        .collect();
    let said = added.map(|files| {
        let total = items.len() as u64;
        Viewer::of(c).msg(&Msg::AddedToPush { files, total })
    });
    Reply::json(200, &PushList { items, said })
}

pub fn push_add(c: &Ctx) -> Result<Reply, Error> {
    crate::device::add_game(c.db, c.param(0))?;
    push_list_saying(c, Some(1))
}

pub fn push_add_title(c: &Ctx) -> Result<Reply, Error> {
    let keys = crate::device::add_title(c.db, crate::device::title_id(c.param(0))?)?;
    push_list_saying(c, Some(keys.len() as u64))
}

pub fn push_remove(c: &Ctx) -> Result<Reply, Error> {
    if !crate::store::push_list::remove(c.db, c.param(0))? {
        return Err(Error::not_found(Msg::NotInPushList {
            key: c.param(0).into(),
        }));
    }
    push_list(c)
}

pub fn push_clear(c: &Ctx) -> Result<Reply, Error> {
    crate::store::push_list::clear(c.db)?;
    push_list(c)
}
