//! Strings that come from outside: the names people give things, and how any outside
//! string (a file name, a key name, a user agent) is written to a log or a terminal.
//!
//! A name with a newline breaks every listing that shows it one per line, and a file
//! name with a newline followed by a fake "failed sign-in" line could forge a log line
//! that fail2ban acts on. So names are checked where they are made, and everything
//! written to the log or the terminal goes through [`printable`].

use std::borrow::Cow;

use crate::error::{Error, Msg};

/// The most characters in a name (of an API key, an account, a device, a platform).
pub const MAX_NAME: usize = 64;

/// A name: 1 to [`MAX_NAME`] characters, no control characters, no spaces at either
/// end. `what` names the thing in the message ("An API key's name").
pub fn check_name(what: &str, name: &str) -> Result<(), Error> {
    let count = name.chars().count();
    if count == 0 || count > MAX_NAME || name.trim() != name {
        return Err(Error::invalid(Msg::NameLength {
            what: what.into(),
            max: MAX_NAME,
        }));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::invalid(Msg::NameControl { what: what.into() }));
    }
    Ok(())
}

/// The string with every control character written as an escape (`\n`, `\t`,
/// `\u{1b}`…), so that it stays on its line and cannot pass for another one. Other
/// characters, accents included, stay as they are.
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// At most `max` characters of `s`, with `…` when it was cut: what a client sent may
/// be quoted back in a message, but not at any length.
pub fn cut(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((at, _)) => Cow::Owned(format!("{}…", &s[..at])),
    }
}

/// Everything but unreserved characters is escaped inside one path segment.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One path segment, escaped: a `/`, `#`, `?` or `%` in it stays data.
pub fn encode_segment(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, SEGMENT).to_string()
}

/// A game key as a URL path (each of its segments escaped, the slashes kept).
pub fn key_path(key: &str) -> String {
    key.split('/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

/// Percent-decode one path segment; `None` when the bytes are not UTF-8.
pub fn decode_segment(raw: &str) -> Option<String> {
    percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .ok()
        .map(|s| s.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Kind;

    #[test]
    fn names_are_short_and_on_one_line() {
        assert!(check_name("A name", "Mario's cron").is_ok());
        assert!(check_name("A name", &"é".repeat(64)).is_ok());
        for bad in [
            "",
            " padded",
            "padded ",
            "two\nlines",
            "tab\there",
            "bell\u{7}",
        ] {
            let e = check_name("A name", bad).unwrap_err();
            assert_eq!(e.kind, Kind::Invalid, "{bad:?}");
        }
        let long = check_name("A name", &"x".repeat(65)).unwrap_err();
        assert!(long.message().contains("64"), "{}", long.message());
    }

    #[test]
    fn control_characters_are_escaped_and_nothing_else() {
        assert_eq!(printable("Zelda [0100].nsp"), "Zelda [0100].nsp");
        assert_eq!(printable("é ü 日本"), "é ü 日本");
        assert_eq!(
            printable("x.nsp\nWARN failed sign-in"),
            "x.nsp\\nWARN failed sign-in"
        );
        assert_eq!(printable("a\tb\r\u{1b}[31m"), "a\\tb\\r\\u{1b}[31m");
        assert!(!printable("a\u{85}b").contains('\u{85}'));
    }
}
