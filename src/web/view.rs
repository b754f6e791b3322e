//! What every page shares: who is looking and in which language, the page shell
//! (header, menu, main), and small formatting helpers (sizes, dates, links to keys).

use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::error::i18n::{Lang, M};
use crate::error::{Error, Msg};
use crate::http::auth::Principal;
use crate::http::{Ctx, Reply};
use crate::words::{GameKind, IdSource};

/// A game key as a URL path (its segments escaped, the slashes kept), and a value
/// for a query string, as the pages write them.
pub use crate::text::{encode_segment as query_value, key_path};

/// Headers of every HTML page: no framing, no foreign scripts or styles, no caching
/// of pages that show private data (`nosniff` is on every answer: `Reply::into_tiny`).
const PAGE_HEADERS: [(&str, &str); 4] = [
    (
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    ),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
];

/// Who is looking at a page.
pub struct Viewer {
    pub lang: Lang,
    /// The account's name; `None` for the loopback rule without an account.
    pub name: Option<String>,
    pub admin: bool,
}

impl Viewer {
    pub fn of(c: &Ctx) -> Viewer {
        match &c.principal {
            Principal::User(u) => Viewer {
                lang: u.lang,
                name: Some(u.name.clone()),
                admin: u.is_admin(),
            },
            p => Viewer {
                lang: c.req.lang(),
                name: None,
                admin: p.is_admin(),
            },
        }
    }

    pub fn t(&self, m: M) -> &'static str {
        m.get(self.lang)
    }

    /// A message in the reader's language, as it is (inside a sentence).
    pub fn msg(&self, m: &Msg) -> String {
        self.lang.msg(m)
    }

    /// A message (an error's, a task's) in the reader's language, as a sentence.
    pub fn say(&self, m: &Msg) -> String {
        let text = self.msg(m);
        let mut chars = text.chars();
        match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect(),
            None => text,
        }
    }

    /// A label and its value's separator: "Dernier résultat : ", "Last result: ".
    pub fn colon(&self) -> &'static str {
        self.lang.colon()
    }
}

/// The menu: path, message. Platforms and API keys are Settings' pages (linked from
/// it), as Jellyfin and Sonarr keep theirs under their settings; Upkeep (dedupe and
/// organize) is Library health's, which links it.
const MENU: [(&str, M); 7] = [
    ("/", M::Dashboard),
    ("/library", M::Library),
    ("/tasks", M::Tasks),
    ("/device", M::Device),
    ("/health", M::HealthMenu),
    ("/trash", M::Trash),
    ("/settings", M::Settings),
];

/// The menu entry a page belongs to: Settings' own pages mark Settings.
fn menu_entry(active: &str) -> &str {
    match active {
        "/platforms" | "/settings/keys" => "/settings",
        "/upkeep" => "/health",
        "/push" => "/device",
        other => other,
    }
}

/// The script's words in the reader's language: the same on every page, so made once
/// per language.
fn messages_of(v: &Viewer) -> &'static str {
    static MADE: [std::sync::OnceLock<String>; 2] = [const { std::sync::OnceLock::new() }; 2];
    MADE[v.lang as usize].get_or_init(|| script_messages(v))
}

/// The error texts the page's script shows, by slug, and the words of the live task
/// panel, as one JSON object.
fn script_messages(v: &Viewer) -> String {
    let pairs = [
        ("bad_request", M::ErrBadRequest),
        ("missing_parameter", M::ErrBadRequest),
        ("payload_too_large", M::ErrBadRequest),
        ("unauthorized", M::ErrUnauthorized),
        ("forbidden", M::ErrForbidden),
        ("cross_origin", M::ErrForbidden),
        ("not_found", M::ErrNotFound),
        ("conflict", M::ErrConflict),
        ("busy", M::ErrBusy),
        ("rate_limited", M::ErrRateLimited),
        ("internal_error", M::ErrInternal),
        ("network", M::ErrNetwork),
        ("confirm", M::ConfirmAgain),
        ("copied", M::Copied),
        ("passwords_differ", M::PasswordsDiffer),
        ("cancel", M::CancelAction),
        ("undo", M::Undo),
        ("in_trash", M::InTrash),
    ];
    // The live task panel's texts come rendered from `GET /api/job`.
    let map: serde_json::Map<String, serde_json::Value> = pairs
        .iter()
        .map(|(slug, m)| (slug.to_string(), v.t(*m).into()))
        .collect();
    // `</` cannot end the script element from inside a JSON string.
    serde_json::Value::Object(map)
        .to_string()
        .replace("</", "<\\/")
}

/// The one `<head>` of every page: the title, the style, the script and its words.
fn head(v: &Viewer, title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { (title) " · Ludothèque" }
            link rel="stylesheet" href={ "/static/app.css?v=" (env!("CARGO_PKG_VERSION")) };
            script type="application/json" id="i18n" { (PreEscaped(messages_of(v))) }
            script src={ "/static/app.js?v=" (env!("CARGO_PKG_VERSION")) } defer {}
        }
    }
}

/// A whole page: the shell around `body`. `active` is the menu entry to mark.
pub fn page(v: &Viewer, title: &str, active: &str, body: Markup) -> Result<Reply, Error> {
    let markup = html! {
        (DOCTYPE)
        html lang=(v.lang.code()) {
            (head(v, title))
            body {
                a.skip href="#main" { (v.t(M::SkipToContent)) }
                (header(v, active))
                // Focusable by script only, so the skip link's Enter moves focus here.
                main #main tabindex="-1" {
                    h1 { (title) }
                    @if !v.admin { p.note { (v.t(M::ViewerNote)) } }
                    p #msg role="alert" {}
                    (body)
                }
            }
        }
    };
    Ok(html_reply(200, markup))
}

/// The header: the brand, the menu (behind a button on a phone: a checkbox and its
/// label, so it opens without the script), who is signed in, the other language and
/// signing out.
fn header(v: &Viewer, active: &str) -> Markup {
    let active = menu_entry(active);
    html! {
        header {
            a.brand href="/" { "Ludothèque" }
            input.menu-toggle #menu-open type="checkbox" aria-controls="menu";
            label.menu-button for="menu-open" { span aria-hidden="true" { "☰ " } (v.t(M::Menu)) }
            nav #menu aria-label=(v.t(M::MainMenu)) {
                ul {
                    @for (path, m) in MENU {
                        li {
                            a href=(path) aria-current=[(path == active).then_some("page")] { (v.t(m)) }
                        }
                    }
                }
            }
            div.who {
                @match &v.name {
                    Some(name) => {
                        span.name { (name) span.role { " · " (role(v)) } }
                        " "
                        (other_language(v))
                        " "
                        button.link type="button" data-api="/api/logout" data-then="signed-out" { (v.t(M::SignOut)) }
                    }
                    None => span #local-access { (v.t(M::LocalAccess)) },
                }
            }
        }
    }
}

/// The switch to the other language, named in that language (as Immich and Jellyfin
/// name their languages); it changes the account's language.
fn other_language(v: &Viewer) -> Markup {
    let (other, name) = v.lang.other();
    let code = other.code();
    html! {
        button.link.lang type="button" lang=(code) data-api="/api/me/lang"
            data-body={ "{\"lang\":\"" (code) "\"}" } { (name) }
    }
}

/// A page outside the shell (sign-in, first run).
pub fn bare_page(lang: Lang, title: &str, body: Markup) -> Reply {
    let v = Viewer {
        lang,
        name: None,
        admin: true,
    };
    let markup = html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            (head(&v, title))
            body.bare {
                main #main {
                    p.brand { "Ludothèque" }
                    h1 { (title) }
                    p #msg role="alert" {}
                    (body)
                }
            }
        }
    };
    html_reply(200, markup)
}

pub fn html_reply(status: u16, markup: Markup) -> Reply {
    let body = markup.into_string().into_bytes();
    Reply {
        headers: PAGE_HEADERS
            .iter()
            .map(|(k, v)| (*k, v.to_string()))
            .collect(),
        ..Reply::new(status, "text/html; charset=utf-8", body)
    }
}

/// A 303 to a page of this service.
pub fn redirect(to: &str) -> Reply {
    Reply::new(303, "text/plain; charset=utf-8", Vec::new())
        .with("Location", to)
        .with("Cache-Control", "no-store")
}

pub fn role(v: &Viewer) -> &'static str {
    v.t(if v.admin { M::RoleAdmin } else { M::RoleViewer })
}

/// Where to go after signing in: a path of this site, or `/`. Only a path that starts
/// with `/` and holds no `//`, no backslash and no control character is kept: browsers
/// read `//host` and `/\host` as another host, and drop tabs and newlines before
/// reading (so `/<tab>/evil.example` is `//evil.example` to them).
pub fn same_origin_path(next: &str) -> &str {
    let ok = next.starts_with('/')
        && !next.contains("//")
        && !next.contains('\\')
        && !next.chars().any(char::is_control);
    if ok {
        next
    } else {
        "/"
    }
}

/// A size for people: French units (o, Ko, Mo…) with a decimal comma, or English.
pub fn size(v: &Viewer, bytes: u64) -> String {
    let mut text = String::new();
    write_size(v, bytes, &mut text);
    text
}

/// A size written straight into the page, without a string of its own: lists show
/// one per row.
pub struct Size<'a>(pub &'a Viewer, pub u64);

impl maud::Render for Size<'_> {
    fn render_to(&self, out: &mut String) {
        write_size(self.0, self.1, out);
    }
}

fn write_size(v: &Viewer, bytes: u64, out: &mut String) {
    use std::fmt::Write;
    let grammar = v.lang.grammar();
    let (units, point) = (grammar.units(), grammar.point());
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < units.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    let start = out.len();
    let _ = match unit {
        0 => write!(out, "{bytes} {}", units[0]),
        _ => write!(out, "{value:.1} {}", units[unit]),
    };
    if let Some(dot) = out[start..].find('.').filter(|_| point != '.') {
        out.replace_range(start + dot..start + dot + 1, point.encode_utf8(&mut [0; 4]));
    }
}

/// A count for people, its digits grouped by thousands: `12 705` in French (the
/// narrow no-break space U+202F, so a number never breaks across lines), `12,705` in
/// English.
pub fn number(v: &Viewer, n: u64) -> String {
    v.lang.grammar().number(n)
}

/// `n` and the word that goes with it, `one` or `many`: French takes the singular
/// for 0 and 1 (« 0 titre », « 1 titre »), English for 1 only ("0 titles"). The one
/// plural rule is `error::counts`'s.
pub fn count(v: &Viewer, n: u64, one: M, many: M) -> String {
    v.lang.grammar().count(n, one.get(v.lang), many.get(v.lang))
}

/// A hint that a task needs the console keys, with the link to where an admin
/// uploads them (Settings), rather than a command to type.
pub fn keys_hint(v: &Viewer, hint: M) -> Markup {
    html! { (v.t(hint)) " " a.keys-link href="/settings#console-keys" { (v.t(M::ImportKeys)) } }
}

/// A moment in the reader's language, to the minute: "28 nov. 2026, 10:36". Written
/// in the host's zone, in a `<time data-moment>` whose `datetime` the page's script
/// (`app.js`) reads to write it again in the reader's own zone; without the script,
/// the host's zone stands.
pub fn date(v: &Viewer, unix_s: Option<i64>) -> Markup {
    let Some(t) = unix_s else {
        return html! { (v.t(M::Never)) };
    };
    html! { time datetime=(crate::time::rfc3339(t)) data-moment { (moment(v, t)) } }
}

/// A moment as plain text, in the host's zone (a line a script puts in place whole).
pub fn moment(v: &Viewer, unix_s: i64) -> String {
    // The host's wall clock: "2026-11-28T10:36:05+01:00".
    let local = crate::time::local(unix_s);
    match ymd(&local[..10]) {
        Some((y, m, d)) => format!("{}, {}", v.lang.day(y, m, d), &local[11..16]),
        None => local,
    }
}

/// A day the title data gives ("2025-06-25"), in the reader's language: "25 juin
/// 2025", "Jun 25, 2025"; a text of another shape as it is.
pub fn day(v: &Viewer, iso: &str) -> Markup {
    match ymd(iso) {
        Some((y, m, d)) => html! { time datetime=(iso) { (v.lang.day(y, m, d)) } },
        None => html! { (iso) },
    }
}

/// `YYYY-MM-DD` read as its year, month (1–12) and day.
fn ymd(iso: &str) -> Option<(i64, usize, u32)> {
    let mut parts = iso.splitn(3, '-');
    let year = parts.next()?.parse().ok()?;
    let month = parts
        .next()?
        .parse()
        .ok()
        .filter(|m| (1..=12).contains(m))?;
    let day = parts
        .next()?
        .parse()
        .ok()
        .filter(|d| (1..=31).contains(d))?;
    Some((year, month, day))
}

/// How long ago `unix_s` was, roughly, for people: "12 min", "5 h", "3 j" / "3 d".
pub fn age(v: &Viewer, unix_s: i64) -> String {
    let secs = (crate::time::now() - unix_s).max(0);
    match secs {
        0..=3599 => format!("{} min", secs / 60),
        3600..=172_799 => format!("{} h", secs / 3600),
        _ => format!("{} {}", secs / 86_400, v.t(M::DaysShort)),
    }
}

/// The name of a game type, as the library shows it.
pub fn kind(v: &Viewer, kind: GameKind) -> &'static str {
    v.t(match kind {
        GameKind::Base => M::TypeBase,
        GameKind::Update => M::TypeUpdate,
        GameKind::Dlc => M::Dlc,
        GameKind::Unknown => M::TypeUnknown,
    })
}

/// A version as people read it, one form everywhere: the update number, then the
/// display version when a file says it ("v6 · 1.3.0"), the raw number on hover
/// (`numbers::version`); "—" for none.
pub fn version(shown: Option<&str>, raw: Option<u32>) -> Markup {
    html! {
        @match (shown, raw) {
            (Some(shown), Some(n)) => span.version title={ "v" (n) } { (crate::numbers::version(n)) " · " (shown) },
            (_, Some(n)) => span.version title={ "v" (n) } { (crate::numbers::version(n)) },
            (_, None) => "—",
        }
    }
}

/// The display version of a title at a version, when a file of it says it.
pub fn display_version(
    c: &Ctx,
    title_id: Option<crate::words::TitleId>,
    version: Option<u32>,
) -> Result<Option<String>, Error> {
    match (title_id, version) {
        (Some(id), Some(n)) => crate::store::title_control::display_version(c.db, id, n),
        _ => Ok(None),
    }
}

/// The name a title's own files give it, in the reader's language when they carry
/// one (French, else Canadian French, for a French reader), else their first.
pub fn own_name(v: &Viewer, control: &crate::store::title_control::ControlRow) -> String {
    let names: Vec<(u8, String, String)> = serde_json::from_str(&control.names).unwrap_or_default();
    v.lang
        .control_langs()
        .iter()
        .find_map(|lang| names.iter().find(|n| n.0 == *lang))
        .map_or_else(|| control.name.clone(), |n| n.1.clone())
}

/// How a game was identified, for people.
pub fn evidence(v: &Viewer, by: IdSource) -> &'static str {
    v.t(match by {
        IdSource::Filename => M::ByFilename,
        IdSource::CnmtXml => M::ByCnmt,
        IdSource::Ticket => M::ByTicket,
        IdSource::Keys => M::ByKeys,
        IdSource::None => M::ByNothing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A day of the title data (a third party's text) reads as a day only when it is
    /// one; anything else is shown as it is, never a panic.
    #[test]
    fn only_a_real_day_is_read_as_one() {
        assert_eq!(ymd("2025-06-25"), Some((2025, 6, 25)));
        for text in [
            "",
            "2025",
            "2025-13-01",
            "2025-00-10",
            "2025-06-32",
            "2025-06-0",
            "x-y-z",
            "2025-06-25-01",
            "９９-01-01",
            "-1-01-01",
            "2025--06",
        ] {
            assert_eq!(ymd(text), None, "{text}");
        }
        assert_eq!(ymd("99999999999-01-01"), Some((99_999_999_999, 1, 1)));
        let v = Viewer {
            lang: Lang::Fr,
            name: None,
            admin: false,
        };
        assert_eq!(
            day(&v, "2025-06-25").into_string(),
            "<time datetime=\"2025-06-25\">25 juin 2025</time>"
        );
        assert_eq!(day(&v, "<b>").into_string(), "&lt;b&gt;");
    }

    #[test]
    fn numbers_are_grouped_and_words_agree_with_them() {
        let [fr, en] = [Lang::Fr, Lang::En].map(|lang| Viewer {
            lang,
            name: None,
            admin: false,
        });
        assert_eq!(number(&fr, 12_705), "12\u{202f}705");
        assert_eq!(number(&en, 12_705), "12,705");
        assert_eq!(number(&en, 999), "999");
        assert_eq!(number(&en, 1_000), "1,000");
        assert_eq!(number(&fr, 1_234_567), "1\u{202f}234\u{202f}567");
        assert_eq!(number(&en, 0), "0");
        assert_eq!(number(&en, u64::MAX), "18,446,744,073,709,551,615");
        let titles = |v: &Viewer, n| count(v, n, M::TitleOne, M::TitlesCount);
        assert_eq!(titles(&fr, 0), "0 titre");
        assert_eq!(titles(&fr, 1), "1 titre");
        assert_eq!(titles(&fr, 2), "2 titres");
        assert_eq!(titles(&fr, 12_705), "12\u{202f}705 titres");
        assert_eq!(titles(&en, 0), "0 titles");
        assert_eq!(titles(&en, 1), "1 title");
        assert_eq!(titles(&en, 12_705), "12,705 titles");
    }

    #[test]
    fn sizes_read_well_in_both_languages() {
        let fr = Viewer {
            lang: Lang::Fr,
            name: None,
            admin: true,
        };
        let en = Viewer {
            lang: Lang::En,
            name: None,
            admin: true,
        };
        assert_eq!(size(&en, 999), "999 B");
        assert_eq!(size(&en, 1_500_000_000), "1.5 GB");
        assert_eq!(size(&fr, 1_500_000_000), "1,5 Go");
        assert_eq!(key_path("a b/c#d.nsp"), "a%20b/c%23d.nsp");
    }
}
