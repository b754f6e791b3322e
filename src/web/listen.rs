//! Where the service listens, set from the web: the field on the Consoles page and on
//! the welcome page (a console can reach the service only once it listens on the
//! network), and `POST /api/listen`, which moves the listener at once
//! (`http::listening`) and keeps the address for the next starts. `--listen` and
//! `LUDOTHEQUE_LISTEN` win: the field is then shown fixed, and the route refuses.

use std::net::SocketAddr;

use maud::{html, Markup};
use serde::Deserialize;

use super::body;
use super::view::Viewer;
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::auth::{host_only, is_loopback_host};
use crate::http::{listening, Ctx, Reply};

/// The field, for an admin: the address in use, two choices that fill it, and why
/// it is fixed when a flag sets it.
pub fn form(c: &Ctx, v: &Viewer, warn: bool) -> Markup {
    let addr = c.app.listening.addr();
    let fixed = c.app.config.serve.listen.is_some();
    let port = addr.port();
    html! {
        h3 #listen { (v.t(M::ListenHeading)) }
        @if warn && addr.ip().is_loopback() {
            p.warn #listen-loopback role="note" {
                (v.t(M::ShopLoopback))
                @if fixed { " " (v.t(M::RestartListening)) " " code { "--listen 0.0.0.0:" (port) } }
                @else { " " (v.t(M::ListenBelow)) }
            }
        }
        form.stack #listen-form data-api="/api/listen" data-then="listen" {
            label { (v.t(M::ListenAddress))
                input #listen-address name="address" value=(addr) required disabled[fixed]
                    spellcheck="false" autocomplete="off" aria-describedby="listen-note";
            }
            p.note #listen-note {
                @if fixed {
                    (v.t(M::SetByFlag)) " " code.flag { "--listen" } " (LUDOTHEQUE_LISTEN)"
                } @else { (v.t(M::ListenNote)) }
            }
            @if !fixed {
                div.actions {
                    button type="submit" { (v.t(M::Listen)) }
                    button.secondary type="button" data-fill="listen-address" data-value={ "0.0.0.0:" (port) } { (v.t(M::ListenNetwork)) }
                    button.secondary type="button" data-fill="listen-address" data-value={ "127.0.0.1:" (port) } { (v.t(M::ListenLocal)) }
                }
            }
        }
    }
}

#[derive(Deserialize)]
struct ListenForm {
    address: String,
}

/// `POST /api/listen` `{address}`: listen there from now on (`IP:PORT`). Answers the
/// address bound, the page's address to go on with (another port or interface may
/// leave the one in the browser dead) and a sentence saying so.
pub fn set_listen(c: &Ctx) -> Result<Reply, Error> {
    if c.app.config.serve.listen.is_some() {
        return Err(Error::conflict(Msg::ListenByFlag));
    }
    let form: ListenForm = body(c, "address, such as 0.0.0.0:8080")?;
    let to = listening::parse(&form.address)?;
    let bound = c.app.listening.move_to(to)?;
    crate::store::settings::LISTEN.set(c.db, &bound.to_string())?;
    let address = bound.to_string();
    Reply::json(
        200,
        &serde_json::json!({
            "listen": address,
            "origin": origin(c, bound),
            "said": Viewer::of(c).msg(&Msg::ListeningOn { address: address.clone() }),
        }),
    )
}

/// Where the browser reaches the service now: the host it typed, when the new
/// listener takes it (every interface, or loopback typed as loopback), else the new
/// address itself; with the new port.
fn origin(c: &Ctx, bound: SocketAddr) -> String {
    let typed = c.req.header("host").map(host_only).unwrap_or("");
    let ip = bound.ip();
    let keeps = !typed.is_empty()
        && (ip.is_unspecified()
            || (ip.is_loopback() && is_loopback_host(typed))
            || typed.trim_matches(['[', ']']).parse() == Ok(ip));
    match keeps {
        true => format!("http://{typed}:{}", bound.port()),
        false => format!("http://{bound}"),
    }
}
