//! A notification target, given as a URL in the form the self-hosted world already
//! uses (Apprise's schemes), and the request each one's own API expects. What each
//! sends was read from the targets' documentation and source:
//!
//! - `ntfy://[user:pass@ | token@]host[:port]/topic` (`ntfys://`: https): `POST` to
//!   the topic, the message as the body, `X-Title` (RFC 2047 when not ASCII, which
//!   ntfy decodes), `X-Tags` (emoji short codes), `X-Priority` (1–5), `X-Click`;
//!   Basic auth, or a bearer token (`tk_…`) given alone before the `@`.
//! - `gotify://host[:port][/path]/TOKEN` (`gotifys://`): `POST path/message` with
//!   `X-Gotify-Key` and `{title, message, priority, extras}` (the click URL in
//!   `client::notification`).
//! - `discord://WEBHOOK_ID/TOKEN`: `POST https://discord.com/api/webhooks/ID/TOKEN`
//!   with one embed (title ≤ 256, description ≤ 4096, url, color).
//! - `tgram://BOT_TOKEN/CHAT_ID`: `POST https://api.telegram.org/botTOKEN/sendMessage`
//!   with `{chat_id, text, parse_mode: HTML}` (text ≤ 4096, escaped).
//! - `json://[user:pass@]host[:port]/path` (`jsons://`): Apprise's plain JSON POST,
//!   `{version, title, message, type}`, with our `event` and `link` beside.
//!
//! A URL's secrets (a password, a token, and the last segment of a JSON target's
//! path, where receivers such as Home Assistant put theirs) are never shown back
//! whole nor logged: `shown` keeps their first characters only, and a URL that is no
//! target is shown by its scheme and host alone.

use base64ct::{Base64, Encoding};
use percent_encoding::percent_decode_str;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::error::{Error, Msg};
use crate::words::NoticeEvent;

/// What a notification says, in the admin's language.
#[derive(Debug, Clone)]
pub struct Note {
    pub event: Option<NoticeEvent>,
    pub title: String,
    pub body: String,
    /// The page it is about, a whole URL (`--public-url`), when there is one.
    pub link: Option<String>,
    /// 1 (min) to 5 (max), ntfy's scale; 3 is the default.
    pub priority: u8,
    /// ntfy's tags: emoji short codes.
    pub tags: &'static [&'static str],
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Ntfy {
        base: String,
        topic: String,
        auth: Option<String>,
    },
    Gotify {
        base: String,
        token: String,
    },
    Discord {
        id: String,
        token: String,
    },
    Telegram {
        token: String,
        chat: String,
    },
    Json {
        url: String,
        auth: Option<String>,
    },
}

/// A target parsed from its URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    url: String,
    kind: Kind,
}

/// One request to send: method POST, URL, headers, body.
pub struct Request {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

/// A URL split as the schemes need it: scheme, user and password (decoded), host
/// with its port, and the path's segments (decoded, empty ones dropped).
struct Parts {
    scheme: String,
    /// A name and a password (`user:pass@`), or a token alone (`token@`).
    user: Option<(String, Option<String>)>,
    host: String,
    path: Vec<String>,
}

fn split(url: &str) -> Option<Parts> {
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    // Apprise's options (`?priority=high`, `?token=`) are not read here: a URL holding
    // one is refused rather than sent without what it asked for.
    if url.contains(['?', '#']) {
        return None;
    }
    let (scheme, rest) = url.split_once("://")?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let decode = |s: &str| {
        percent_decode_str(s)
            .decode_utf8()
            .ok()
            .map(|d| d.into_owned())
    };
    let (user, host) = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((name, pass)) => (Some((decode(name)?, Some(decode(pass)?))), host),
            None => (Some((decode(userinfo)?, None)), host),
        },
        None => (None, authority),
    };
    let path = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(decode)
        .collect::<Option<Vec<_>>>()?;
    (!host.is_empty()).then(|| Parts {
        scheme: scheme.to_ascii_lowercase(),
        user,
        host: host.to_string(),
        path,
    })
}

/// `Authorization` for `user:pass@` (Basic), or for a token alone (Bearer).
fn authorization((name, pass): &(String, Option<String>)) -> String {
    match pass {
        Some(pass) => {
            let pair = format!("{name}:{pass}");
            format!("Basic {}", Base64::encode_string(pair.as_bytes()))
        }
        None => format!("Bearer {name}"),
    }
}

/// A host (and port) a URL may hold: letters, digits, `.-_:[]`.
fn plain_host(host: &str) -> bool {
    host.chars()
        .all(|c| c.is_ascii_alphanumeric() || ".-_:[]".contains(c))
}

impl Target {
    /// The target a URL names, or `bad_notify_url` (saying the URL with its secrets
    /// hidden).
    pub fn parse(url: &str) -> Result<Target, Error> {
        let url = url.trim();
        let bad = || {
            Error::invalid(Msg::BadNotifyUrl {
                shown: scheme_and_host(url),
            })
        };
        let p = split(url).ok_or_else(bad)?;
        let web = |secure: bool| if secure { "https" } else { "http" };
        let kind = match p.scheme.as_str() {
            "ntfy" | "ntfys" if plain_host(&p.host) && p.path.len() == 1 => Kind::Ntfy {
                base: format!("{}://{}", web(p.scheme == "ntfys"), p.host),
                topic: p.path[0].clone(),
                auth: p.user.as_ref().map(authorization),
            },
            "gotify" | "gotifys" if plain_host(&p.host) && !p.path.is_empty() => {
                let (token, prefix) = p.path.split_last().ok_or_else(bad)?;
                let prefix: String = prefix.iter().map(|s| format!("/{s}")).collect();
                Kind::Gotify {
                    base: format!("{}://{}{prefix}", web(p.scheme == "gotifys"), p.host),
                    token: token.clone(),
                }
            }
            "discord" if p.path.len() == 1 && p.host.chars().all(|c| c.is_ascii_digit()) => {
                Kind::Discord {
                    id: p.host.clone(),
                    token: p.path[0].clone(),
                }
            }
            // A bot token holds a colon (`123456:ABC-DEF`), which reads as a port.
            "tgram" if p.path.len() == 1 && p.host.contains(':') => Kind::Telegram {
                token: p.host.trim_start_matches("bot").to_string(),
                chat: p.path[0].clone(),
            },
            "json" | "jsons" if plain_host(&p.host) => Kind::Json {
                url: format!(
                    "{}://{}/{}",
                    web(p.scheme == "jsons"),
                    p.host,
                    p.path.join("/")
                ),
                auth: p.user.as_ref().map(authorization),
            },
            _ => return Err(bad()),
        };
        Ok(Target {
            url: url.to_string(),
            kind,
        })
    }

    /// The URL as given (to store it; never to show).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A stable name for it that gives nothing of it away: the first 12 hex digits of
    /// the SHA-256 of its URL.
    pub fn id(&self) -> String {
        hex::encode(&Sha256::digest(self.url.as_bytes())[..6])
    }

    /// The URL with its secrets cut to their first characters, to be shown and logged.
    pub fn shown(&self) -> String {
        hide(&self.url)
    }

    /// Does its URL hold a secret (a password, a token)?
    pub fn has_secret(&self) -> bool {
        match &self.kind {
            Kind::Ntfy { auth, .. } => auth.is_some(),
            // A receiver's secret is often the path's last segment.
            Kind::Json { auth, url } => auth.is_some() || !url.ends_with('/'),
            Kind::Gotify { .. } | Kind::Discord { .. } | Kind::Telegram { .. } => true,
        }
    }

    /// The request that delivers `note`; Discord's and Telegram's go to `test_base`
    /// instead of their hosts when it is given (the test suite's own server).
    pub fn request(&self, note: &Note, test_base: Option<&str>) -> Request {
        let origin = |real: &str| test_base.unwrap_or(real).trim_end_matches('/').to_string();
        match &self.kind {
            Kind::Ntfy { base, topic, auth } => ntfy(note, base, topic, auth.as_deref()),
            Kind::Gotify { base, token } => gotify(note, base, token),
            Kind::Discord { id, token } => {
                let url = format!(
                    "{}/api/webhooks/{id}/{token}",
                    origin("https://discord.com")
                );
                discord(note, url)
            }
            Kind::Telegram { token, chat } => {
                let base = origin("https://api.telegram.org");
                telegram(note, format!("{base}/bot{token}/sendMessage"), chat)
            }
            Kind::Json { url, auth } => plain_json(note, url, auth.as_deref()),
        }
    }
}

/// A URL that is no target, as an error may show it: its scheme and host, nothing of
/// what may be a secret.
fn scheme_and_host(url: &str) -> String {
    let scheme = url.split_once("://").map_or("", |(s, _)| s);
    let scheme: String = scheme
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(12)
        .collect();
    let host: String = crate::outbound::host_of(url).chars().take(100).collect();
    format!("{scheme}://{host}/…")
}

/// `url` with each secret cut to its first three characters: the password of
/// `user:pass@` (a token alone before the `@`), the last path segment of the schemes
/// where it is a token (Gotify, Discord, JSON), and a Telegram bot's token (its host
/// part).
fn hide(url: &str) -> String {
    let cut = |s: &str| {
        let head: String = s.chars().take(3).collect();
        format!("{head}…")
    };
    let Some((scheme, rest)) = url.split_once("://") else {
        return cut(url);
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((name, _)) => format!("{name}:{}@{host}", cut("")),
            None => format!("{}@{host}", cut(userinfo)),
        },
        None => authority.to_string(),
    };
    let scheme_lower = scheme.to_ascii_lowercase();
    let token_last = matches!(
        scheme_lower.as_str(),
        "gotify" | "gotifys" | "discord" | "json" | "jsons"
    );
    let authority = match scheme_lower.as_str() {
        "tgram" => cut(&authority),
        _ => authority,
    };
    let mut segments: Vec<String> = path.split('/').map(str::to_string).collect();
    if let Some(last) = segments.iter_mut().rev().find(|s| !s.is_empty()) {
        if token_last {
            *last = cut(last);
        }
    }
    let path = segments.join("/");
    if path.is_empty() {
        format!("{scheme}://{authority}")
    } else {
        format!("{scheme}://{authority}/{path}")
    }
}

/// A header value ntfy reads whatever its characters: as it is when ASCII, else an
/// RFC 2047 encoded word (`=?UTF-8?B?…?=`).
fn header_text(text: &str) -> String {
    if text.chars().all(|c| c.is_ascii() && !c.is_ascii_control()) {
        text.to_string()
    } else {
        format!("=?UTF-8?B?{}?=", Base64::encode_string(text.as_bytes()))
    }
}

fn ntfy(note: &Note, base: &str, topic: &str, auth: Option<&str>) -> Request {
    let mut headers = vec![
        ("Content-Type", "text/plain; charset=utf-8".to_string()),
        ("X-Title", header_text(&note.title)),
        ("X-Priority", note.priority.to_string()),
    ];
    if !note.tags.is_empty() {
        headers.push(("X-Tags", note.tags.join(",")));
    }
    if let Some(link) = &note.link {
        headers.push(("X-Click", link.clone()));
    }
    if let Some(auth) = auth {
        headers.push(("Authorization", auth.to_string()));
    }
    let topic = percent_encoding::utf8_percent_encode(topic, percent_encoding::NON_ALPHANUMERIC);
    Request {
        url: format!("{base}/{topic}"),
        headers,
        body: note.body.clone().into_bytes(),
    }
}

fn json_request(url: String, value: serde_json::Value) -> Request {
    Request {
        url,
        headers: vec![("Content-Type", "application/json".to_string())],
        body: serde_json::to_vec(&value).unwrap_or_default(),
    }
}

fn gotify(note: &Note, base: &str, token: &str) -> Request {
    // Gotify's scale is 0–10; ntfy's 3 (default) is Gotify's 5.
    let priority = [0, 2, 5, 5, 8, 10][usize::from(note.priority.min(5))];
    let mut extras = json!({"client::display": {"contentType": "text/plain"}});
    if let Some(link) = &note.link {
        extras["client::notification"] = json!({"click": {"url": link}});
    }
    let body =
        json!({"title": note.title, "message": note.body, "priority": priority, "extras": extras});
    let mut r = json_request(format!("{base}/message"), body);
    r.headers.push(("X-Gotify-Key", token.to_string()));
    r
}

/// At most `n` characters of `text` (Discord's and Telegram's limits count characters).
fn at_most(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        return text.to_string();
    }
    let head: String = text.chars().take(n.saturating_sub(1)).collect();
    format!("{head}…")
}

fn discord(note: &Note, url: String) -> Request {
    let color = match note.priority {
        0..=3 => 0x5865F2,
        4 => 0xE67E22,
        _ => 0xE74C3C,
    };
    let mut embed = json!({
        "title": at_most(&note.title, 256),
        "description": at_most(&note.body, 4096),
        "color": color,
    });
    if let Some(link) = &note.link {
        embed["url"] = json!(link);
    }
    json_request(url, json!({"username": "Ludothèque", "embeds": [embed]}))
}

/// Telegram's HTML needs `&`, `<` and `>` escaped, and nothing else.
fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn telegram(note: &Note, url: String, chat: &str) -> Request {
    let mut text = format!(
        "<b>{}</b>\n{}",
        html_escape(&note.title),
        html_escape(&note.body)
    );
    if let Some(link) = &note.link {
        text.push('\n');
        text.push_str(&html_escape(link));
    }
    let body = json!({
        "chat_id": chat,
        "text": at_most(&text, 4000),
        "parse_mode": "HTML",
        "link_preview_options": {"is_disabled": true},
    });
    json_request(url, body)
}

fn plain_json(note: &Note, url: &str, auth: Option<&str>) -> Request {
    let kind = match note.priority {
        0..=3 => "info",
        4 => "warning",
        _ => "failure",
    };
    let body = json!({
        "version": "1.0",
        "title": note.title,
        "message": note.body,
        "type": kind,
        "event": note.event.map(|e| e.as_str()),
        "link": note.link,
    });
    let mut r = json_request(url.to_string(), body);
    if let Some(auth) = auth {
        r.headers.push(("Authorization", auth.to_string()));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note() -> Note {
        Note {
            event: Some(NoticeEvent::NewGames),
            title: "Ludothèque · Nouveaux jeux".into(),
            body: "2 <titres> & plus".into(),
            link: Some("https://ludo.example/library".into()),
            priority: 4,
            tags: &["video_game"],
        }
    }

    #[test]
    fn each_scheme_becomes_its_request() {
        let n = note();
        let r = Target::parse("ntfys://bob:s3cret@ntfy.example:8443/jeux")
            .unwrap()
            .request(&n, None);
        assert_eq!(r.url, "https://ntfy.example:8443/jeux");
        let h = |r: &Request, name: &str| {
            r.headers
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        };
        let word = format!("=?UTF-8?B?{}?=", Base64::encode_string(n.title.as_bytes()));
        assert_eq!(h(&r, "X-Title").unwrap(), word);
        assert_eq!(h(&r, "X-Priority").unwrap(), "4");
        assert_eq!(h(&r, "Authorization").unwrap(), "Basic Ym9iOnMzY3JldA==");
        assert_eq!(r.body, n.body.as_bytes());
        let r = Target::parse("gotify://push.lan/sub/AbCdEf")
            .unwrap()
            .request(&n, None);
        assert_eq!(r.url, "http://push.lan/sub/message");
        assert_eq!(h(&r, "X-Gotify-Key").unwrap(), "AbCdEf");
        let r = Target::parse("tgram://123456:ABC-def/-100200")
            .unwrap()
            .request(&n, None);
        assert_eq!(
            r.url,
            "https://api.telegram.org/bot123456:ABC-def/sendMessage"
        );
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["chat_id"], "-100200");
        assert!(v["text"]
            .as_str()
            .unwrap()
            .contains("2 &lt;titres&gt; &amp; plus"));
        let r = Target::parse("discord://1234/tok-en")
            .unwrap()
            .request(&n, Some("http://127.0.0.1:9"));
        assert_eq!(r.url, "http://127.0.0.1:9/api/webhooks/1234/tok-en");
        let r = Target::parse("jsons://hooks.lan:8080/in/ludo")
            .unwrap()
            .request(&n, None);
        assert_eq!(r.url, "https://hooks.lan:8080/in/ludo");
    }

    #[test]
    fn what_is_not_a_target_is_refused_without_its_secret() {
        for bad in [
            "https://example.org/hook",
            "ntfy://host",
            "ntfy://host/a/b",
            "discord://notdigits/tok",
            "tgram://nocolon/123",
            "gotify://host",
            "ntfy://ho st/x",
            "mailto:x@y",
            "json://hooks.lan/ludo?token=x",
            "ntfys://ntfy.sh/games?priority=high",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
        for url in [
            "discord://x1/verysecrettoken",
            "https://discord.com/api/webhooks/1/verysecrettoken",
            "ntfy://bob:verysecret#token@host/t",
            "https://api.telegram.org/botverysecret/sendMessage",
        ] {
            let e = Target::parse(url).unwrap_err();
            assert!(!format!("{:?}", e.msg).contains("verysecret"), "{e:?}");
        }
    }

    #[test]
    fn secrets_are_shown_cut() {
        let shown = |u: &str| Target::parse(u).unwrap().shown();
        assert_eq!(shown("ntfys://ntfy.sh/games"), "ntfys://ntfy.sh/games");
        assert_eq!(
            shown("ntfy://bob:hunter22@ntfy.lan/games"),
            "ntfy://bob:…@ntfy.lan/games"
        );
        assert_eq!(
            shown("gotify://push.lan/AbCdEfGh"),
            "gotify://push.lan/AbC…"
        );
        assert_eq!(
            shown("discord://1234567/abcdefgh"),
            "discord://1234567/abc…"
        );
        assert_eq!(shown("tgram://123456:ABCDEF/42"), "tgram://123…/42");
        assert_eq!(
            shown("ntfys://tk_AbCdEfGh@ntfy.sh/games"),
            "ntfys://tk_…@ntfy.sh/games"
        );
        assert_eq!(
            shown("jsons://ha.lan/api/webhook/s3cr3t-id"),
            "jsons://ha.lan/api/webhook/s3c…"
        );
        let token = Target::parse("ntfys://tk_AbCdEfGh@ntfy.sh/games").unwrap();
        let r = token.request(&note(), None);
        assert!(r
            .headers
            .contains(&("Authorization", "Bearer tk_AbCdEfGh".to_string())));
        for u in [
            "ntfy://a:b@h/t",
            "gotify://h/T",
            "discord://1/T",
            "tgram://1:T/2",
        ] {
            assert!(Target::parse(u).unwrap().has_secret(), "{u}");
        }
        assert!(!Target::parse("ntfys://ntfy.sh/games").unwrap().has_secret());
        assert_eq!(at_most("ééé", 2), "é…");
        assert_eq!(at_most("abc", 3), "abc");
    }
}
