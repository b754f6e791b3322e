//! The request view handed to handlers: method, the raw path split on `/` *before*
//! any percent-decoding (so a `%2F` inside a game key stays inside the key), decoded
//! query pairs, lower-cased headers, the TCP peer, and the body once `body::read`
//! has read it.

use std::net::SocketAddr;

use percent_encoding::percent_decode_str;

use crate::error::{Error, Kind, Msg};

#[derive(Debug)]
pub struct Req {
    pub method: String,
    /// The raw path, without the query string.
    pub path: String,
    /// Raw segments of the path (still percent-encoded), without the leading empty one.
    pub segments: Vec<String>,
    pub query: Vec<(String, String)>,
    /// The query string as sent (without the `?`), to send a reader back to it.
    pub raw_query: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub peer: Option<SocketAddr>,
    /// The kernel's cookie of the connection's socket, for a loopback peer only: what
    /// the loopback rule remembers a connection's owner by (`auth::owner`).
    pub connection: Option<u64>,
    pub body: Vec<u8>,
}

/// The longest request target: a library key is at most 4 KiB, three times that
/// once percent-encoded, plus the rest.
pub const MAX_TARGET: usize = 16 * 1024;
/// The most header bytes (names and values) a request may carry.
pub const MAX_HEADERS: usize = 64 * 1024;

impl Req {
    /// Build the view from the request line and headers; the body stays unread
    /// (`body::read` fills it once the route and the caller are known). A target or
    /// headers past their limits are refused first. Repeated slashes in the path are
    /// one: installers that join their base URL with `/` ask `//` and `//base/`.
    pub fn head(rq: &tiny_http::Request) -> Result<Req, Error> {
        check_head(rq)?;
        let target = origin_form(rq.url())?;
        let (path, query) = split_url(&target);
        let path = collapse_slashes(path);
        Ok(Req {
            method: rq.method().as_str().to_string(),
            segments: split_path(&path),
            path,
            query: parse_query(query),
            raw_query: query.to_string(),
            headers: rq
                .headers()
                .iter()
                .map(|h| {
                    (
                        h.field.as_str().as_str().to_ascii_lowercase(),
                        h.value.as_str().to_string(),
                    )
                })
                .collect(),
            peer: rq.remote_addr().copied(),
            connection: rq
                .remote_addr()
                .filter(|a| a.ip().to_canonical().is_loopback())
                .and(rq.socket_fd())
                .and_then(crate::http::auth::owner::cookie),
            body: Vec::new(),
        })
    }

    /// The first header of that name (give it in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The browser's first choice between French and English, French by default: of
    /// the `Accept-Language` entries for either (`fr`, `fr-CA`, `en-GB`…), the one of
    /// highest quality (`q`, 1 when absent), the earlier among equals; `q=0` refuses a
    /// language. The language of a caller without an account (the sign-in page, the
    /// loopback rule, a new account the proxy signs in).
    pub fn lang(&self) -> crate::words::Lang {
        match prefers_french(self.header("accept-language").unwrap_or("")) {
            true => crate::words::Lang::Fr,
            false => crate::words::Lang::En,
        }
    }

    /// The value of the first cookie of that name the request carries.
    pub fn cookie(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .filter(|(header, _)| header == "cookie")
            .flat_map(|(_, value)| value.split(';'))
            .find_map(|pair| {
                let (n, value) = pair.trim().split_once('=')?;
                (n == name).then_some(value)
            })
    }

    /// The first query parameter of that name, decoded.
    pub fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The limits a request's line and headers are held to, before its body is read.
fn check_head(rq: &tiny_http::Request) -> Result<(), Error> {
    if rq.url().len() > MAX_TARGET {
        return Err(Error::new(
            Kind::UriTooLong,
            Msg::UriTooLong { limit: MAX_TARGET },
        ));
    }
    let header_bytes: usize = rq
        .headers()
        .iter()
        .map(|h| h.field.as_str().len() + h.value.len() + 4)
        .sum();
    if header_bytes > MAX_HEADERS {
        return Err(Error::new(
            Kind::HeadersTooLarge,
            Msg::HeadersTooLarge { limit: MAX_HEADERS },
        ));
    }
    // Two Host headers: which one a proxy checked is anyone's guess.
    let hosts = rq
        .headers()
        .iter()
        .filter(|h| h.field.equiv("Host"))
        .count();
    if hosts > 1 {
        return Err(Error::invalid(Msg::OneHostHeader));
    }
    Ok(())
}

/// The path and query of a request target: the origin form (`/a?b`) as sent, `*` as
/// sent (it routes nowhere), or the absolute form (`http://host/a?b`, which RFC 9112
/// §3.2.2 asks a server to accept, whatever the scheme's case) without its scheme and
/// host. Anything else (an empty target, `a/b`) is refused.
fn origin_form(url: &str) -> Result<std::borrow::Cow<'_, str>, Error> {
    if url.starts_with('/') || url == "*" {
        return Ok(url.into());
    }
    let bytes = url.as_bytes();
    let scheme = ["http://", "https://"]
        .into_iter()
        .find(|s| bytes.len() >= s.len() && bytes[..s.len()].eq_ignore_ascii_case(s.as_bytes()));
    let Some(scheme) = scheme else {
        return Err(Error::invalid(Msg::BadTarget));
    };
    let rest = &url[scheme.len()..];
    Ok(match rest.find(['/', '?']) {
        Some(i) if rest[i..].starts_with('/') => rest[i..].into(),
        Some(i) => format!("/{}", &rest[i..]).into(),
        None => "/".into(),
    })
}

/// Path and query of a request target.
pub fn split_url(url: &str) -> (&str, &str) {
    url.split_once('?').unwrap_or((url, ""))
}

/// `//a///b/` → `/a/b/`. A `%2F` inside a segment is not a slash, and stays.
pub fn collapse_slashes(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    out
}

fn split_path(path: &str) -> Vec<String> {
    path.strip_prefix('/')
        .unwrap_or(path)
        .split('/')
        .map(str::to_string)
        .collect()
}

/// `a=1&b=x+y` → pairs, `+` read as a space as HTML forms send it.
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode_form(k), decode_form(v))
        })
        .collect()
}

fn decode_form(s: &str) -> String {
    percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

pub use crate::text::decode_segment;

fn prefers_french(accept: &str) -> bool {
    let mut best: Option<(bool, f32)> = None;
    for entry in accept.split(',') {
        let mut parts = entry.split(';');
        let tag = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let french = match tag.split('-').next() {
            Some("fr") => true,
            Some("en") => false,
            _ => continue,
        };
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if q > 0.0 && best.is_none_or(|(_, b)| q > b) {
            best = Some((french, q));
        }
    }
    best.is_none_or(|(french, _)| french)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_of_highest_quality_wins() {
        for (accept, french) in [
            ("", true),
            ("de", true),
            ("en-US,en;q=0.9", false),
            ("fr-CA, en;q=0.8", true),
            ("de, en-GB;q=0.5, fr;q=0.4", false),
            ("fr;q=0.1, en;q=0.9", false),
            ("en;q=0, fr;q=0.2", true),
            ("en;q=0", true),
            ("fr;q=0.5, en;q=0.5", true),
            ("en ; q=0.7, fr;q=0.6", false),
            ("fry, en", false),
        ] {
            assert_eq!(prefers_french(accept), french, "{accept}");
        }
    }

    #[test]
    fn encoded_slash_stays_inside_its_segment() {
        let segs = split_path("/api/v1/library/a%2Fb/c%20d.nsp");
        assert_eq!(segs, ["api", "v1", "library", "a%2Fb", "c%20d.nsp"]);
        assert_eq!(decode_segment("a%2Fb").unwrap(), "a/b");
        assert_eq!(decode_segment("%5Bx%5D").unwrap(), "[x]");
        assert!(decode_segment("%FF").is_none());
    }

    #[test]
    fn absolute_targets_become_their_path() {
        for (target, path) in [
            ("/a?b", "/a?b"),
            ("*", "*"),
            ("http://host/api/v1/health", "/api/v1/health"),
            ("HTTP://Host:8080/a/b?q=1", "/a/b?q=1"),
            ("https://host", "/"),
            ("http://host?q=1", "/?q=1"),
        ] {
            assert_eq!(origin_form(target).unwrap(), path, "{target}");
        }
        for target in ["", "a/b", "ftp://host/a", "http:/a", "é"] {
            assert!(origin_form(target).is_err(), "{target}");
        }
    }

    #[test]
    fn repeated_slashes_are_one() {
        assert_eq!(collapse_slashes("//"), "/");
        assert_eq!(collapse_slashes("//base/"), "/base/");
        assert_eq!(
            collapse_slashes("/shop/files//x%2F%2Fy"),
            "/shop/files/x%2F%2Fy"
        );
        assert_eq!(collapse_slashes("/api/v1/health"), "/api/v1/health");
    }

    #[test]
    fn query_pairs_are_decoded() {
        let q = parse_query("q=mario+kart&page=2&x&&apikey=a%3Db");
        assert_eq!(q[0], ("q".into(), "mario kart".into()));
        assert_eq!(q[1], ("page".into(), "2".into()));
        assert_eq!(q[2], ("x".into(), "".into()));
        assert_eq!(q[3], ("apikey".into(), "a=b".into()));
    }
}
