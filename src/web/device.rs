//! The Consoles page: the shop (`web::shop`), then the console pushed to: its
//! settings, the push list, and what the last push did.
//!
//! Its pages only read; every change goes through its internal `/api/` routes
//! (not part of the public contract), called by the page script.

use maud::html;
use serde::Serialize;

use super::body;
use super::i18n::M;
use super::view::{date, key_path, page, size, Viewer};
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::store::{device, push_list};

/// `GET /device`: the console, and the push list.
pub fn device_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let d = device::get(c.db)?;
    let pending = push_list::list(c.db)?;
    let shop = super::shop::section(c, &v)?;
    let body = html! {
        (shop)
        h2 { (v.t(M::Push)) }
        @match &d {
            Some(d) => dl.facts {
                dt { (v.t(M::Name)) } dd { (d.name) }
                dt { (v.t(M::Host)) } dd { (d.host) ":" (d.port) }
                dt { (v.t(M::LastContact)) } dd { (date(&v, d.last_contact)) }
                dt { (v.t(M::Result)) } dd { (d.last_result.as_deref().unwrap_or("—")) }
                dt { (v.t(M::Client)) } dd { (d.client.as_deref().unwrap_or("—")) }
                dt { (v.t(M::LastPush)) } dd { (date(&v, d.last_push)) }
            },
            None => p.empty { (v.t(M::DeviceNone)) },
        }
        @if v.admin { (device_form(&v, d.as_ref())) }
        h2 { (v.t(M::PushList)) " (" (pending.len()) " · " (size(&v, pending.iter().map(|(_, s)| s).sum())) ")" }
        @if pending.is_empty() {
            p.empty #push-empty { (v.t(M::PushEmpty)) }
        } @else {
            div.scroll {
                table #push {
                    tbody {
                        @for (key, bytes) in &pending {
                            tr {
                                td { a href={ "/game/" (key_path(key)) } { (key) } }
                                td.num { (size(&v, *bytes)) }
                                @if v.admin {
                                    td { button.secondary type="button" data-method="DELETE" data-api={ "/api/push/" (key_path(key)) } { (v.t(M::Remove)) } }
                                }
                            }
                        }
                    }
                }
            }
            @if v.admin {
                div.actions {
                    button type="button" data-api="/api/push" data-then="/" { (v.t(M::StartPush)) }
                    button.secondary type="button" data-method="DELETE" data-api="/api/push" data-confirm { (v.t(M::ClearList)) }
                }
            }
        }
    };
    page(&v, v.t(M::Device), "/device", body)
}

/// The console's settings, for an admin.
fn device_form(v: &Viewer, d: Option<&device::Device>) -> maud::Markup {
    html! {
        form.stack data-api="/api/device" {
            label { (v.t(M::Name)) input name="name" value=[d.map(|d| &d.name)]; }
            label { (v.t(M::Host)) input name="host" required value=[d.map(|d| &d.host)] inputmode="decimal"; }
            label { (v.t(M::Port)) input name="port" type="number" min="1" max="65535" value=(d.map_or(2000, |d| d.port)); }
            label { (v.t(M::OfferAddress)) input name="offer_address" value=[d.and_then(|d| d.offer_address.as_ref())]; }
            div.actions {
                button type="submit" { (v.t(M::Save)) }
                @if d.is_some() {
                    button.secondary type="button" data-method="DELETE" data-api="/api/device" data-confirm { (v.t(M::Forget)) }
                }
            }
        }
    }
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
