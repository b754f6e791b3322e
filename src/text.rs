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

/// A name as it is kept: `raw` in Unicode NFC (so that `Émile` typed composed or
/// decomposed is one name), 1 to [`MAX_NAME`] characters, no spaces at either end, no
/// control characters, and nothing invisible ([`invisible`]): a name is what people
/// read to tell things apart, so `salon` and `salon` followed by a zero-width space,
/// or a name turned around by a right-to-left override, must not both exist. `what`
/// names the thing in the message ("An API key's name"). Returns the NFC form, which
/// is what the caller stores.
pub fn name(what: &str, raw: &str) -> Result<String, Error> {
    use unicode_normalization::UnicodeNormalization;
    let name: String = raw.nfc().collect();
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
    if name.chars().any(invisible) {
        return Err(Error::invalid(Msg::NameInvisible { what: what.into() }));
    }
    Ok(name)
}

/// The form in which names are compared for uniqueness ("whatever its case"): NFC,
/// then Unicode's full default case folding (`caseless`: `É` and `é`, `Σ` and `ς`,
/// `ß` and `ss`, `ﬀ` and `ff` are one), then NFC again (folding can decompose).
pub fn fold(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let nfc: String = name.nfc().collect();
    caseless::default_case_fold_str(&nfc).nfc().collect()
}

/// A character that shows nothing, or nothing of itself, where it stands: the format
/// characters (Unicode general category Cf: zero-width space, joiners and non-joiners,
/// direction marks, embeddings, overrides and isolates, the byte order mark, tags…),
/// the other default-ignorable code points (variation selectors, Hangul fillers, the
/// soft hyphen, the combining grapheme joiner…), and every space but the ordinary one
/// (a no-break or thin space looks like a space and is not one). The ranges are those
/// of Unicode 15.1 (`DerivedCoreProperties.txt`, `Default_Ignorable_Code_Point`, and
/// the `Cf` entries of `UnicodeData.txt`); both lists move seldom and only by adding.
pub fn invisible(c: char) -> bool {
    const RANGES: &[(u32, u32)] = &[
        (0x00AD, 0x00AD),   // soft hyphen
        (0x034F, 0x034F),   // combining grapheme joiner
        (0x0600, 0x0605),   // Arabic number signs (Cf)
        (0x061C, 0x061C),   // Arabic letter mark
        (0x06DD, 0x06DD),   // Arabic end of ayah (Cf)
        (0x070F, 0x070F),   // Syriac abbreviation mark (Cf)
        (0x0890, 0x0891),   // Arabic pound and piastre marks above (Cf)
        (0x08E2, 0x08E2),   // Arabic disputed end of ayah (Cf)
        (0x115F, 0x1160),   // Hangul fillers
        (0x17B4, 0x17B5),   // Khmer inherent vowels
        (0x180B, 0x180F),   // Mongolian variation selectors and vowel separator
        (0x200B, 0x200F),   // zero-width space, (non-)joiner, LRM, RLM
        (0x202A, 0x202E),   // bidi embeddings and overrides
        (0x2060, 0x206F),   // word joiner, invisible operators, bidi isolates…
        (0x3164, 0x3164),   // Hangul filler
        (0xFE00, 0xFE0F),   // variation selectors
        (0xFEFF, 0xFEFF),   // byte order mark, zero-width no-break space
        (0xFFA0, 0xFFA0),   // halfwidth Hangul filler
        (0xFFF0, 0xFFFB),   // unassigned ignorables, interlinear annotation (Cf)
        (0x110BD, 0x110BD), // Kaithi number sign (Cf)
        (0x110CD, 0x110CD), // Kaithi number sign above (Cf)
        (0x13430, 0x1343F), // Egyptian hieroglyph format controls (Cf)
        (0x1BCA0, 0x1BCA3), // shorthand format controls
        (0x1D173, 0x1D17A), // musical symbol format controls
        (0xE0000, 0xE0FFF), // tags, variation selectors supplement
    ];
    let n = c as u32;
    (c.is_whitespace() && c != ' ') || RANGES.iter().any(|&(lo, hi)| (lo..=hi).contains(&n))
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

/// The largest char boundary of `s` at most `at`.
pub fn floor_char(s: &str, at: usize) -> usize {
    (0..=at.min(s.len()))
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
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
        assert!(name("A name", "Mario's cron").is_ok());
        assert!(name("A name", &"é".repeat(64)).is_ok());
        for bad in [
            "",
            " padded",
            "padded ",
            "two\nlines",
            "tab\there",
            "bell\u{7}",
        ] {
            let e = name("A name", bad).unwrap_err();
            assert_eq!(e.kind, Kind::Invalid, "{bad:?}");
        }
        let long = name("A name", &"x".repeat(65)).unwrap_err();
        assert!(long.message().contains("64"), "{}", long.message());
    }

    #[test]
    fn names_are_kept_in_nfc_and_hold_nothing_invisible() {
        // Decomposed É (E + U+0301) is kept composed, and counts as one character.
        assert_eq!(name("A name", "E\u{301}mile").unwrap(), "\u{c9}mile");
        assert!(name("A name", &"e\u{301}".repeat(64)).is_ok());
        for bad in [
            "salon\u{200b}",
            "sa\u{200d}lon",
            "\u{202e}evil",
            "\u{2066}x\u{2069}",
            "\u{feff}bom",
            "soft\u{ad}hyphen",
            "no\u{a0}break",
            "thin\u{2009}space",
            "tag\u{e0041}",
            "vs\u{fe0f}",
        ] {
            let e = name("A name", bad).unwrap_err();
            assert_eq!(
                e.msg,
                Msg::NameInvisible {
                    what: "A name".into()
                },
                "{bad:?}"
            );
        }
        assert!(name("A name", "Zoë's 日本 Ωmega").is_ok());
    }

    #[test]
    fn names_fold_in_nfc_and_every_case() {
        assert_eq!(fold("\u{c9}MILE"), fold("e\u{301}mile"));
        assert_eq!(fold("SALON"), "salon");
        assert_eq!(fold("ΣΑΛΟΝΙ"), fold("σαλονι"));
        assert_ne!(fold("salon"), fold("salons"));
        // The foldings that change a letter's length.
        assert_eq!(fold("Straße"), fold("STRASSE"));
        assert_eq!(fold("\u{fb00}"), fold("FF"));
        assert_eq!(fold("ὈΔΥΣΣΕΎΣ"), fold("ὀδυσσεύς"));
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
