//! Numbers and counted nouns in both languages: the one place that knows how French
//! and English count. The command line and messages' French (`error::french`) use
//! its French shorthands; the web pages and the web's messages use [`Grammar`]. It
//! sits in the bottom layer so that all of them reach it. French writes 0 and 1 in the
//! singular ("0 fichier", "1 fichier") and groups thousands with a narrow no-break
//! space ("12 705"); English takes the singular for 1 only and groups with a comma.

use crate::numbers;

/// How a language writes numbers, sizes and counted nouns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    French,
    English,
}

impl Grammar {
    /// `n` with its thousands grouped: "12 705", "12,705".
    pub fn number(self, n: u64) -> String {
        numbers::group(n, self.group())
    }

    /// The thousands separator.
    pub fn group(self) -> char {
        match self {
            Grammar::French => numbers::FR_GROUP,
            Grammar::English => ',',
        }
    }

    /// The decimal mark: "1,5", "1.5".
    pub fn point(self) -> char {
        match self {
            Grammar::French => ',',
            Grammar::English => '.',
        }
    }

    /// The size units, bytes first.
    pub fn units(self) -> &'static [&'static str; 6] {
        match self {
            Grammar::French => &numbers::FR_UNITS,
            Grammar::English => &numbers::EN_UNITS,
        }
    }

    /// A size in the language's units with its decimal mark: "1,5 Go", "1.5 GB".
    pub fn size(self, bytes: u64) -> String {
        numbers::size(bytes, self.units(), self.point())
    }

    /// The word (a noun, a verb, an adjective) agreeing with a count of `n`: French
    /// takes the singular for 0 and 1, English for 1 only.
    pub fn agree<'a>(self, n: u64, one: &'a str, many: &'a str) -> &'a str {
        let singular = match self {
            Grammar::French => n < 2,
            Grammar::English => n == 1,
        };
        if singular {
            one
        } else {
            many
        }
    }

    /// `n` and its noun agreeing with it: "0 fichier", "12 705 fichiers", "0 files".
    pub fn count(self, n: u64, one: &str, many: &str) -> String {
        format!("{} {}", self.number(n), self.agree(n, one, many))
    }
}

use crate::words::Unit;

/// `n` with its thousands grouped the French way: "12 705", "1 048 576".
pub fn number(n: u64) -> String {
    Grammar::French.number(n)
}

/// `n` and its French noun agreeing with it: "0 fichier", "1 fichier", "12 705 fichiers".
pub fn count(n: u64, one: &str, many: &str) -> String {
    Grammar::French.count(n, one, many)
}

/// The French word (a verb, an adjective) agreeing with a count of `n`.
pub fn agree<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    Grammar::French.agree(n, one, many)
}

/// A size in French units with a decimal comma: "1,5 Go".
pub fn size(bytes: u64) -> String {
    Grammar::French.size(bytes)
}

/// A duration for people, the same in both languages: "45 s", "3 min 20 s", "2 h 05 min".
pub fn duration(secs: u64) -> String {
    match secs {
        0..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min {:02} s", secs / 60, secs % 60),
        _ => format!("{} h {:02} min", secs / 3600, secs % 3600 / 60),
    }
}

/// An amount of a task's unit: "1 fichier", "12 705 octets".
pub fn amount(n: u64, unit: Unit) -> String {
    match unit {
        Unit::Bytes => count(n, "octet", "octets"),
        Unit::Files => count(n, "fichier", "fichiers"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_one_are_singular_two_is_plural() {
        assert_eq!(count(0, "fichier", "fichiers"), "0 fichier");
        assert_eq!(count(1, "fichier", "fichiers"), "1 fichier");
        assert_eq!(count(2, "fichier", "fichiers"), "2 fichiers");
        assert_eq!(agree(1, "supprimée", "supprimées"), "supprimée");
        assert_eq!(agree(3, "supprimée", "supprimées"), "supprimées");
        let en = |n| Grammar::English.count(n, "file", "files");
        assert_eq!(
            [en(0), en(1), en(12_705)],
            ["0 files", "1 file", "12,705 files"]
        );
        assert_eq!(Grammar::English.size(1_500_000_000), "1.5 GB");
        assert_eq!(duration(200), "3 min 20 s");
        assert_eq!(duration(7500), "2 h 05 min");
    }

    #[test]
    fn thousands_are_grouped_with_a_narrow_no_break_space() {
        assert_eq!(number(0), "0");
        assert_eq!(number(999), "999");
        assert_eq!(number(1000), "1\u{202F}000");
        assert_eq!(number(12_705), "12\u{202F}705");
        assert_eq!(number(1_048_576), "1\u{202F}048\u{202F}576");
        assert_eq!(
            number(u64::MAX),
            "18\u{202F}446\u{202F}744\u{202F}073\u{202F}709\u{202F}551\u{202F}615"
        );
        assert_eq!(count(12_705, "titre", "titres"), "12\u{202F}705 titres");
    }
}
