//! Numbers and counted nouns in both languages: the one place that knows how French
//! and English count, for the messages (`error::msg`, `error::french`), the web
//! pages and the command line alike. French writes 0 and 1 in the
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

/// A duration for people, the same in both languages: "45 s", "3 min 20 s", "2 h 05 min".
pub fn duration(secs: u64) -> String {
    match secs {
        0..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min {:02} s", secs / 60, secs % 60),
        _ => format!("{} h {:02} min", secs / 3600, secs % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_one_are_singular_two_is_plural() {
        let fr = |n| Grammar::French.count(n, "fichier", "fichiers");
        assert_eq!(
            [fr(0), fr(1), fr(2)],
            ["0 fichier", "1 fichier", "2 fichiers"]
        );
        assert_eq!(
            Grammar::French.agree(1, "supprimée", "supprimées"),
            "supprimée"
        );
        assert_eq!(
            Grammar::French.agree(3, "supprimée", "supprimées"),
            "supprimées"
        );
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
        let number = |n| Grammar::French.number(n);
        assert_eq!(number(0), "0");
        assert_eq!(number(999), "999");
        assert_eq!(number(1000), "1\u{202F}000");
        assert_eq!(number(12_705), "12\u{202F}705");
        assert_eq!(number(1_048_576), "1\u{202F}048\u{202F}576");
        assert_eq!(
            number(u64::MAX),
            "18\u{202F}446\u{202F}744\u{202F}073\u{202F}709\u{202F}551\u{202F}615"
        );
        let titles = Grammar::French.count(12_705, "titre", "titres");
        assert_eq!(titles, "12\u{202F}705 titres");
    }
}
