//! Numbers and counted nouns in French: every count the command line prints, and the
//! counts inside messages' French (`error::french`). It sits in the bottom layer so
//! that both reach it. French writes 0 and 1 in the singular ("0 fichier", "1 fichier")
//! and groups thousands with a narrow no-break space ("12 705").

use crate::words::Unit;

/// `n` with its thousands grouped the French way: "12 705", "1 048 576".
pub fn number(n: u64) -> String {
    crate::numbers::group(n, crate::numbers::FR_GROUP)
}

/// `n` and its noun agreeing with it: "0 fichier", "1 fichier", "12 705 fichiers".
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", number(n), agree(n, one, many))
}

/// The word (a verb, an adjective) agreeing with a count of `n`: singular for 0 and 1.
pub fn agree<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n < 2 {
        one
    } else {
        many
    }
}

/// A size in French units with a decimal comma: "1,5 Go".
pub fn size(bytes: u64) -> String {
    crate::numbers::size(bytes, &crate::numbers::FR_UNITS, ',')
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
