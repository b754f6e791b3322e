//! Setting up each console installer, one tab each (Tinfoil, CyberFoil, DBI,
//! Sphaira), with this server's values filled in and a copy button per value, and
//! for DBI and Sphaira their whole file to download (`docs/installers.md` says what
//! each reads and why).
//!
//! A console's password is kept only as a hash (`consoles`): the page shows it in the
//! fields and files only just after the login is added or given a new one (the
//! script fills `.fill-password` then, and rewrites the downloads); otherwise they
//! hold a placeholder saying so. The login's name is filled when there is one login.

use maud::{html, Markup};

use super::view::Viewer;
use crate::error::i18n::M;
use crate::store::consoles::Console;

/// The tabs: id, the installer's name.
const INSTALLERS: [(&str, &str); 4] = [
    ("tinfoil", "Tinfoil"),
    ("cyberfoil", "CyberFoil"),
    ("dbi", "DBI"),
    ("sphaira", "Sphaira"),
];

/// What fills the fields: the address consoles use, the login's name (or what to
/// put there), the password's placeholder.
struct Fill<'a> {
    address: &'a str,
    user: Option<&'a str>,
    user_word: &'a str,
    password_word: &'a str,
}

impl Fill<'_> {
    fn user(&self) -> &str {
        self.user.unwrap_or(self.user_word)
    }

    /// The name as a URL carries it (DBI's source holds `user:password@`).
    fn user_in_url(&self) -> String {
        crate::text::encode_segment(self.user())
    }

    fn user_span(&self) -> Markup {
        html! { span.fill-user { (self.user()) } }
    }

    fn password_span(&self) -> Markup {
        html! { span.fill-password { (self.password_word) } }
    }
}

/// The tabs and their panels.
pub fn tabs(v: &Viewer, address: &str, all: &[Console]) -> Markup {
    let fill = Fill {
        address,
        user: match all {
            [only] => Some(only.name.as_str()),
            _ => None,
        },
        user_word: v.t(M::LoginName),
        password_word: v.t(M::ShownOnAdd),
    };
    html! {
        h3 #setup { (v.t(M::HowToInstall)) }
        div.tabs role="tablist" aria-label=(v.t(M::HowToInstall)) {
            @for (i, (id, name)) in INSTALLERS.iter().enumerate() {
                button type="button" role="tab" id={ "tab-" (id) } aria-controls={ "setup-" (id) }
                    aria-selected=(if i == 0 { "true" } else { "false" }) { (name) }
            }
        }
        section.tab-panel #setup-tinfoil role="tabpanel" aria-labelledby="tab-tinfoil" { (tinfoil(v, &fill)) }
        section.tab-panel #setup-cyberfoil role="tabpanel" aria-labelledby="tab-cyberfoil" { (cyberfoil(v, &fill)) }
        section.tab-panel #setup-dbi role="tabpanel" aria-labelledby="tab-dbi" { (dbi(v, &fill)) }
        section.tab-panel #setup-sphaira role="tabpanel" aria-labelledby="tab-sphaira" { (sphaira(v, &fill)) }
    }
}

/// One value and its copy button.
fn copied(id: &str, value: Markup, v: &Viewer) -> Markup {
    html! {
        span.copyable {
            code #(id) { (value) }
            " " button.secondary.small type="button" data-copy-text=(id) { (v.t(M::Copy)) }
        }
    }
}

/// What Tinfoil's "new location" asks for, field by field as it names them.
fn tinfoil(v: &Viewer, fill: &Fill) -> Markup {
    let (host, port) = split_host_port(fill.address);
    html! {
        p { (v.t(M::TinfoilFields)) }
        dl.facts #tinfoil {
            dt { "Protocol" } dd { "http" }
            dt { "Host" } dd { (copied("tinfoil-host", html! { (host) }, v)) }
            dt { "Port" } dd { (copied("tinfoil-port", html! { (port) }, v)) }
            dt { "Path" } dd { "/" }
            dt { "Username" } dd { (copied("tinfoil-user", fill.user_span(), v)) }
            dt { "Password" } dd { (copied("tinfoil-password", fill.password_span(), v)) }
            dt { "Title" } dd { "Ludothèque" }
        }
    }
}

/// CyberFoil's shop settings: the address, the name, the password.
fn cyberfoil(v: &Viewer, fill: &Fill) -> Markup {
    html! {
        p { (v.t(M::HowCyberfoil)) }
        dl.facts #cyberfoil {
            dt { "URL" } dd { (copied("cyberfoil-url", html! { "http://" (fill.address) "/" }, v)) }
            dt { (v.t(M::Name)) } dd { (copied("cyberfoil-user", fill.user_span(), v)) }
            dt { (v.t(M::Password)) } dd { (copied("cyberfoil-password", fill.password_span(), v)) }
        }
    }
}

/// A piece of a file: its own text, or a value the script fills in.
enum Piece {
    Text(String),
    User,
    UserInUrl,
    Password,
}

/// DBI's `dbi.config` lines: the shop as a network source, and its versions.txt.
fn dbi(v: &Viewer, fill: &Fill) -> Markup {
    let address = fill.address;
    // Both addresses carry the login: the shop's versions.txt is the shop's too.
    let file = [
        Piece::Text("[General]\nVersionsURL=http://".into()),
        Piece::UserInUrl,
        Piece::Text(":".into()),
        Piece::Password,
        Piece::Text(format!(
            "@{address}/shop/versions.txt\n\n[Network sources]\nLudotheque=ApacheHTTP|http://"
        )),
        Piece::UserInUrl,
        Piece::Text(":".into()),
        Piece::Password,
        Piece::Text(format!("@{address}/\n")),
    ];
    html! {
        p { (v.t(M::HowDbi)) }
        (file_box(v, fill, "dbi-config", "dbi.config", &file))
    }
}

/// Sphaira's `HTTP.ini`, section line first (without it Sphaira skips the mount).
fn sphaira(v: &Viewer, fill: &Fill) -> Markup {
    let file = [
        Piece::Text(format!("[Ludotheque]\nurl=http://{}/\nuser=", fill.address)),
        Piece::User,
        Piece::Text("\npass=".into()),
        Piece::Password,
        Piece::Text("\n".into()),
    ];
    html! {
        p { (v.t(M::HowSphaira)) }
        (file_box(v, fill, "sphaira-ini", "HTTP.ini", &file))
    }
}

/// A file's text, a copy button and its download (a `data:` link the script rewrites
/// once the password is known).
fn file_box(v: &Viewer, fill: &Fill, id: &str, name: &str, file: &[Piece]) -> Markup {
    let text: String = file
        .iter()
        .map(|piece| match piece {
            Piece::Text(t) => t.clone(),
            Piece::User => fill.user().to_string(),
            Piece::UserInUrl => fill.user_in_url(),
            Piece::Password => fill.password_word.to_string(),
        })
        .collect();
    let encoded = percent_encoding::utf8_percent_encode(&text, percent_encoding::NON_ALPHANUMERIC);
    html! {
        pre.file #(id) {
            @for piece in file {
                @match piece {
                    Piece::Text(t) => (t),
                    Piece::User => (fill.user_span()),
                    Piece::UserInUrl => span.fill-user-url { (fill.user_in_url()) },
                    Piece::Password => (fill.password_span()),
                }
            }
        }
        div.actions {
            button.secondary type="button" data-copy-text=(id) { (v.t(M::Copy)) }
            a.button.secondary download=(name) href={ "data:text/plain;charset=utf-8," (encoded) } data-file=(id) {
                (v.t(M::Download)) " " (name)
            }
        }
    }
}

/// `host:port` as two fields (an IPv6 host loses its brackets: Tinfoil asks for the
/// address alone).
fn split_host_port(address: &str) -> (&str, &str) {
    match address.rsplit_once(':') {
        Some((host, port)) => (host.trim_start_matches('[').trim_end_matches(']'), port),
        None => (address, "80"),
    }
}
