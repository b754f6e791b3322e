//! Identification without keys: title IDs and their bit rules, file-name tags, the
//! keyless hints inside containers, and the folded form of names used for sorting and
//! search. See `docs/title-ids.md`.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use crate::words::{GameKind, TitleId};

/// The kind of a title, from its ID alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    pub kind: GameKind,
    /// `dlc_update` for an update of a DLC (its kind is `DLC`).
    pub subtype: Option<&'static str>,
    /// The application (base game) this title belongs to.
    pub base: Option<u64>,
}

const UNKNOWN: Class = Class {
    kind: GameKind::Unknown,
    subtype: None,
    base: None,
};

/// Classify a title ID by its low bits. IDs that do not start with `01` are not
/// Switch titles; never group by a string prefix.
pub fn classify(id: u64) -> Class {
    if id >> 56 != 0x01 {
        return UNKNOWN;
    }
    let low13 = id & 0x1FFF;
    let low12 = id & 0xFFF;
    let class = |kind, subtype, base| Class {
        kind,
        subtype,
        base: Some(base),
    };
    if low13 == 0 {
        class(GameKind::Base, None, id)
    } else if low13 == 0x800 {
        class(GameKind::Update, None, id - 0x800)
    } else if id & 0x1000 != 0 && (0x001..=0x7FF).contains(&low12) {
        class(GameKind::Dlc, None, (id - 0x1000) & !0xFFF)
    } else if id & 0x1000 != 0 && (0x801..=0xFFF).contains(&low12) {
        class(
            GameKind::Dlc,
            Some("dlc_update"),
            ((id - 0x800) - 0x1000) & !0xFFF,
        )
    } else {
        UNKNOWN // deltas (0xC00) and everything else
    }
}

/// Exactly 16 hex digits, any case (see [`TitleId::parse`]).
pub fn parse_title_id(s: &str) -> Option<u64> {
    TitleId::parse(s).map(|id| id.0)
}

/// What a file name says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTags {
    pub title_id: Option<u64>,
    pub version: Option<u32>,
    /// What precedes the first tag, trimmed of spaces, `-`, `_` and `.`.
    pub name: String,
    /// More than one title-ID tag: the first was taken.
    pub ambiguous: bool,
}

/// Parse `Name [0100ABCDEF012000][v131072] [US].nsp`. Strict: a title ID is exactly 16
/// hex digits in square brackets; a version is `[v` + decimal digits + `]`.
pub fn parse_file_name(file_name: &str) -> NameTags {
    let stem = match file_name.rsplit_once('.') {
        Some((stem, _ext)) if !stem.is_empty() => stem,
        _ => file_name,
    };
    let mut tags = NameTags {
        title_id: None,
        version: None,
        name: String::new(),
        ambiguous: false,
    };
    let mut rest = stem;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else {
            break;
        };
        let inner = &rest[open + 1..open + close];
        if let Some(id) = parse_title_id(inner) {
            if tags.title_id.is_some_and(|first| first != id) {
                tags.ambiguous = true;
            }
            tags.title_id.get_or_insert(id);
        } else if let Some(digits) = inner.strip_prefix('v').or_else(|| inner.strip_prefix('V')) {
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(v) = digits.parse() {
                    tags.version.get_or_insert(v);
                }
            }
        }
        rest = &rest[open + close + 1..];
    }
    let before = stem.split('[').next().unwrap_or(stem);
    let name = before.trim_matches(|c: char| c.is_whitespace() || matches!(c, '-' | '_' | '.'));
    tags.name = if name.is_empty() { stem.trim() } else { name }.to_string();
    tags
}

/// The library's order of two folded names: natural, a run of digits read as its
/// number ("Game 2" before "Game 10", "107" before "1015"), as a reader expects.
/// The title list and the file list follow it (their ties go by ID, by key).
pub fn name_order(a: &str, b: &str) -> std::cmp::Ordering {
    alphanumeric_sort::compare_str(a, b)
}

/// Lower case, accents removed: `Pokémon` → `pokemon`. Sorting and search use it.
pub fn fold(s: &str) -> String {
    // Most names are ASCII, where decomposing changes nothing: the scan folds one name
    // a file on its critical path.
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// A title ID hidden in a ticket name: `<rights id>.tik`, 32 hex digits, whose first
/// 16 are the title ID.
pub fn ticket_title_id(entry_name: &str) -> Option<u64> {
    let rights = entry_name.strip_suffix(".tik")?;
    if rights.len() == 32 && rights.bytes().all(|b| b.is_ascii_hexdigit()) {
        parse_title_id(&rights[..16])
    } else {
        None
    }
}

/// What a plain `*.cnmt.xml` says: title ID and version.
pub fn parse_cnmt_xml(xml: &str) -> (Option<u64>, Option<u32>) {
    let tag = |name: &str| -> Option<&str> {
        let open = format!("<{name}>");
        let start = xml.find(&open)? + open.len();
        let len = xml[start..].find('<')?;
        Some(xml[start..start + len].trim())
    };
    let id =
        tag("Id").and_then(|s| parse_title_id(s.trim_start_matches("0x").trim_start_matches("0X")));
    let version = tag("Version").and_then(|s| s.parse().ok());
    (id, version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_id_is_sixteen_upper_case_hex_digits() {
        for id in [0, 1, 0x0100_ABCD_EF01_2000, u64::MAX, 0x0123_4567_89AB_CDEF] {
            assert_eq!(TitleId(id).to_string(), format!("{id:016X}"));
            assert_eq!(parse_title_id(&TitleId(id).to_string()), Some(id));
        }
    }

    fn kind(id: &str) -> (&'static str, Option<&'static str>, Option<String>) {
        let c = classify(parse_title_id(id).unwrap());
        (
            c.kind.as_str(),
            c.subtype,
            c.base.map(|b| TitleId(b).to_string()),
        )
    }

    #[test]
    fn the_vectors_of_switch_ids() {
        assert_eq!(
            kind("01007EF00011E000"),
            ("BASE", None, Some("01007EF00011E000".into()))
        );
        assert_eq!(
            kind("01007EF00011E800"),
            ("UPDATE", None, Some("01007EF00011E000".into()))
        );
        assert_eq!(
            kind("01007EF00011F001"),
            ("DLC", None, Some("01007EF00011E000".into()))
        );
        assert_eq!(
            kind("010040C01D249001"),
            ("DLC", None, Some("010040C01D248000".into()))
        );
        assert_eq!(
            kind("010078D000F893EB"),
            ("DLC", None, Some("010078D000F88000".into()))
        );
        assert_eq!(
            kind("01007EF00011F801"),
            ("DLC", Some("dlc_update"), Some("01007EF00011E000".into()))
        );
        assert_eq!(kind("01009E7013B2C000").2, Some("01009E7013B2C000".into()));
        assert_eq!(kind("01009E7013B2A000").2, Some("01009E7013B2A000".into()));
    }

    #[test]
    fn invalid_ids_are_unknown() {
        for id in [
            "02007EF00011E000", // not 01
            "00007EF00011E000",
            "FFFFFFFFFFFFFFFF",
            "01007EF00011EC00", // delta
            "01007EF00011E001", // low bits set without the DLC bit
            "01007EF00011F000", // DLC bit, low 12 zero
            "01007EF00011F800", // DLC bit, low 12 = 0x800
        ] {
            assert_eq!(kind(id).0, "INCONNU", "{id}");
        }
        assert_eq!(parse_title_id("01007EF00011E00"), None);
        assert_eq!(parse_title_id("01007EF00011E000A"), None);
        assert_eq!(parse_title_id("01007EF00011E00G"), None);
        assert_eq!(parse_title_id("01007ef00011e000"), Some(0x01007EF00011E000));
    }

    #[test]
    fn name_tags_on_odd_names() {
        let t = parse_file_name("Super Game [0100ABCDEF012000][v131072].nsp");
        assert_eq!(
            (t.name.as_str(), t.title_id, t.version),
            ("Super Game", Some(0x0100ABCDEF012000), Some(131072))
        );
        let t = parse_file_name("Pokémon - Épée_ [0100abcdef012000] [US] (1.2.0) [v0].nsz");
        assert_eq!(t.name, "Pokémon - Épée");
        assert_eq!((t.title_id, t.version), (Some(0x0100ABCDEF012000), Some(0)));
        let t = parse_file_name("No tags at all.xci");
        assert_eq!(
            (t.name.as_str(), t.title_id, t.version),
            ("No tags at all", None, None)
        );
        let t = parse_file_name("Game [0100ABCDEF01200].nsp"); // 15 digits
        assert_eq!(t.title_id, None);
        let t = parse_file_name("Game [ 0100ABCDEF012000 ].nsp"); // spaces inside
        assert_eq!(t.title_id, None);
        let t = parse_file_name("Game [v12a] [vX] [v].nsp");
        assert_eq!(t.version, None);
        let t = parse_file_name("Two [0100ABCDEF012000][0100ABCDEF013000].nsp");
        assert_eq!((t.title_id, t.ambiguous), (Some(0x0100ABCDEF012000), true));
        let t = parse_file_name("[0100ABCDEF012000].nsp");
        assert_eq!(t.name, "[0100ABCDEF012000]");
        let t = parse_file_name("Unclosed [0100ABCDEF012000.nsp");
        assert_eq!((t.name.as_str(), t.title_id), ("Unclosed", None));
        let t = parse_file_name("Huge [v99999999999].nsp");
        assert_eq!(t.version, None);
        let t = parse_file_name("...Dots - [0100ABCDEF012000].nsp");
        assert_eq!(t.name, "Dots");
    }

    #[test]
    fn folding_removes_case_and_accents() {
        assert_eq!(fold("Pokémon ÉPÉE"), "pokemon epee");
        assert_eq!(fold("Ça Ôù"), "ca ou");
        // The ASCII shortcut folds as the general path does.
        let ascii: String = (0u8..128).map(char::from).collect();
        let general: String = ascii.nfd().flat_map(char::to_lowercase).collect();
        assert_eq!(fold(&ascii), general);
    }

    #[test]
    fn keyless_hints() {
        assert_eq!(
            ticket_title_id("0100ABCDEF0120000000000000000001.tik"),
            Some(0x0100ABCDEF012000)
        );
        assert_eq!(ticket_title_id("0100ABCDEF012000.tik"), None);
        assert_eq!(
            ticket_title_id("0100ABCDEF0120000000000000000001.cert"),
            None
        );
        let xml = "<ContentMeta><Type>Patch</Type><Id>0x0100abcdef012800</Id><Version>65536</Version></ContentMeta>";
        assert_eq!(parse_cnmt_xml(xml), (Some(0x0100ABCDEF012800), Some(65536)));
        assert_eq!(parse_cnmt_xml("<x/>"), (None, None));
    }
}
