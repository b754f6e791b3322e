//! The user's console keys (`prod.keys`, as Lockpick_RCM dumps it from their own
//! console): parsing, checking and deriving the keys the readers need. Not to be
//! confused with the API keys of `crate::keys`: these never leave the data folder,
//! and no text this service writes ever holds one.
//!
//! A file is lines of `name = hex` (names in any case, `;` and `#` comments, blank
//! lines). A line that is not of that form, or a key this service uses with the
//! wrong length, refuses the whole file, naming the line and why (never the value);
//! names it does not use are checked for form only, then dropped. What is absent
//! is derived the way hactool (`pki_derive_keys`) and nsz (`Keys.load`) do, every
//! step an AES-128-ECB *decrypt* with the key first:
//!
//! - `key_area_key_{application,ocean,system}_XX` from `master_key_XX`,
//!   `aes_kek_generation_source`, `key_area_key_*_source` and
//!   `aes_key_generation_source`;
//! - `titlekek_XX` from `master_key_XX` and `titlekek_source`;
//! - `header_key` from `master_key_00`, `header_kek_source` and `header_key_source`.
//!
//! The file itself, where it lives and how a running service sees it change, is
//! [`file`].

pub mod file;

use std::collections::BTreeMap;

use aes::cipher::{generic_array::GenericArray, BlockDecrypt, KeyInit};
use aes::Aes128;
use sha2::{Digest, Sha256};

use crate::error::i18n::M;
use crate::error::{Error, KeysLine, Msg};

/// Key revisions (`_00` … `_1f`) a keys file may name.
pub const REVISIONS: usize = 0x20;

/// The largest keys file read: Lockpick_RCM's is about 10 KiB.
pub const MAX_FILE: usize = 256 * 1024;

/// The keys the NCA readers use, all derived already. `Debug` never prints a value.
#[derive(Clone, Default)]
pub struct ProdKeys {
    /// `header_key`: the NCA headers' XTS key (data key, then tweak key).
    pub header_key: Option<[u8; 32]>,
    /// `key_area_key_{application,ocean,system}_XX`, by revision then key-area index.
    pub key_area: [[Option<[u8; 16]>; 3]; REVISIONS],
    /// `titlekek_XX`, by revision: opens a common ticket's title key.
    pub titlekek: [Option<[u8; 16]>; REVISIONS],
}

impl std::fmt::Debug for ProdKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProdKeys { .. }")
    }
}

impl ProdKeys {
    /// The key that opens the key area of an NCA with this key-area index (0
    /// application, 1 ocean, 2 system) and key revision.
    pub fn key_area_key(&self, index: u8, revision: u8) -> Option<[u8; 16]> {
        self.key_area
            .get(revision as usize)
            .and_then(|keys| keys.get(index as usize).copied().flatten())
    }

    pub fn titlekek(&self, revision: u8) -> Option<[u8; 16]> {
        self.titlekek.get(revision as usize).copied().flatten()
    }

    /// A short name for this set of keys (16 hex digits: 8 bytes of a SHA-256 over
    /// every derived key): what a file read under other keys was read with must be
    /// read again. It tells nothing of the keys themselves.
    pub fn fingerprint(&self) -> String {
        let mut h = Sha256::new();
        h.update(b"ludotheque console keys 1\0");
        let mut put = |key: Option<&[u8]>| match key {
            Some(bytes) => {
                h.update([1]);
                h.update(bytes);
            }
            None => h.update([0]),
        };
        put(self.header_key.as_ref().map(|k| &k[..]));
        for revision in 0..REVISIONS {
            for key in &self.key_area[revision] {
                put(key.as_ref().map(|k| &k[..]));
            }
            put(self.titlekek[revision].as_ref().map(|k| &k[..]));
        }
        hex::encode(&h.finalize()[..8])
    }
}

/// Where a key of the status came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Written in the file.
    Present,
    /// Computed from a master key and the sources.
    Derived,
    /// Neither.
    Missing,
}

impl Origin {
    /// The word the status uses, in JSON and in the tests.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Present => "present",
            Origin::Derived => "derived",
            Origin::Missing => "missing",
        }
    }

    /// The word a person reads, on the page and on the command line.
    pub fn word(self) -> M {
        match self {
            Origin::Present => M::KeyPresent,
            Origin::Derived => M::KeyDerived,
            Origin::Missing => M::KeyMissing,
        }
    }
}

/// One key revision as the status shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    pub revision: u8,
    /// `master_key_XX` is in the file.
    pub master_key: bool,
    /// `key_area_key_application_XX`: what reads the NCAs of this revision.
    pub key_area: Origin,
    /// `titlekek_XX`: what opens the title keys of this revision's tickets.
    pub titlekek: Origin,
}

/// What a keys file gives, without a single value: safe to show anyone who may
/// see the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub header_key: Origin,
    /// From revision 0x00 to the last one with a key, each with what it has.
    pub revisions: Vec<Revision>,
    /// Keys whose CRC32 is not the public one nsz lists: probably mistyped. A
    /// warning only: the file is used as it is.
    pub suspect: Vec<String>,
}

/// A keys file read: its derived keys, what it gives, and their fingerprint.
#[derive(Debug)]
pub struct Loaded {
    pub keys: ProdKeys,
    pub status: Status,
    /// [`ProdKeys::fingerprint`].
    pub fingerprint: String,
}

impl Loaded {
    /// Read a keys file's bytes: a malformed line, or no key this service uses, is
    /// an error that names the line and why.
    pub fn from_bytes(bytes: &[u8]) -> Result<Loaded, Error> {
        if bytes.len() > MAX_FILE {
            return Err(Error::invalid(Msg::ConsoleKeysTooLarge {
                limit: MAX_FILE as u64,
            }));
        }
        let entries = parse(bytes)?;
        if entries.0.is_empty() {
            return Err(Error::invalid(Msg::ConsoleKeysEmpty));
        }
        let (keys, status) = derive(&entries);
        let fingerprint = keys.fingerprint();
        Ok(Loaded {
            keys,
            status,
            fingerprint,
        })
    }
}

/// The keys this service uses, by their lower-case names; zero keys (what some
/// tools write for a key they lack) are left out.
struct Entries(BTreeMap<String, Vec<u8>>);

impl Entries {
    fn key16(&self, name: &str) -> Option<[u8; 16]> {
        self.0.get(name).and_then(|v| v.as_slice().try_into().ok())
    }

    fn key32(&self, name: &str) -> Option<[u8; 32]> {
        self.0.get(name).and_then(|v| v.as_slice().try_into().ok())
    }
}

/// The key-area kinds, in the order of their index in an NCA header.
const AREAS: [&str; 3] = ["application", "ocean", "system"];

/// How many bytes a key this service uses holds; `None` for a name it does not use.
fn known_length(name: &str) -> Option<usize> {
    match name {
        "header_key" | "header_key_source" => Some(32),
        "header_kek_source"
        | "aes_kek_generation_source"
        | "aes_key_generation_source"
        | "titlekek_source"
        | "key_area_key_application_source"
        | "key_area_key_ocean_source"
        | "key_area_key_system_source" => Some(16),
        _ => revisioned(name).map(|_| 16),
    }
}

/// `master_key_XX`, `titlekek_XX` or `key_area_key_*_XX` with XX a revision.
fn revisioned(name: &str) -> Option<u8> {
    let (stem, digits) = name.rsplit_once('_')?;
    let known = stem == "master_key"
        || stem == "titlekek"
        || AREAS.iter().any(|a| stem == format!("key_area_key_{a}"));
    if !known || digits.len() != 2 {
        return None;
    }
    u8::from_str_radix(digits, 16)
        .ok()
        .filter(|&r| (r as usize) < REVISIONS)
}

fn parse(bytes: &[u8]) -> Result<Entries, Error> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut entries = BTreeMap::new();
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let bad = |why| {
            Error::invalid(Msg::ConsoleKeysLine {
                line: index as u64 + 1,
                why,
            })
        };
        let Some((name, value)) = parse_line(line).map_err(bad)? else {
            continue;
        };
        let Some(expected) = known_length(&name) else {
            continue;
        };
        if value.len() != expected {
            return Err(bad(KeysLine::WrongLength {
                name,
                digits: value.len() as u64 * 2,
                expected: expected as u64 * 2,
            }));
        }
        if value.iter().all(|&b| b == 0) {
            continue;
        }
        match entries.get(&name) {
            Some(earlier) if *earlier != value => return Err(bad(KeysLine::Twice { name })),
            _ => {
                entries.insert(name, value);
            }
        }
    }
    Ok(Entries(entries))
}

/// One line: `None` when blank or a comment, else its lower-case name and value.
fn parse_line(line: &[u8]) -> Result<Option<(String, Vec<u8>)>, KeysLine> {
    let end = line
        .iter()
        .position(|&b| b == b';' || b == b'#')
        .unwrap_or(line.len());
    let line = line[..end].trim_ascii();
    if line.is_empty() {
        return Ok(None);
    }
    if !line.is_ascii() || line.iter().any(|b| b.is_ascii_control() && *b != b'\t') {
        return Err(KeysLine::NotText);
    }
    let equals = line
        .iter()
        .position(|&b| b == b'=')
        .ok_or(KeysLine::NoEquals)?;
    let name = line[..equals].trim_ascii();
    let value = line[equals + 1..].trim_ascii();
    let good_name = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    if name.is_empty() || !name.iter().all(good_name) {
        return Err(KeysLine::BadName);
    }
    if value.is_empty() {
        return Err(KeysLine::NoValue);
    }
    if !value.iter().all(u8::is_ascii_hexdigit) {
        return Err(KeysLine::NotHex);
    }
    if !value.len().is_multiple_of(2) {
        return Err(KeysLine::OddDigits);
    }
    let name = String::from_utf8_lossy(name).to_ascii_lowercase();
    Ok(Some((
        name,
        hex::decode(value).map_err(|_| KeysLine::NotHex)?,
    )))
}

/// AES-128-ECB decrypt of one block.
fn dec(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    let mut b = GenericArray::clone_from_slice(block);
    Aes128::new(GenericArray::from_slice(key)).decrypt_block(&mut b);
    b.into()
}

/// hactool's `generate_kek`: the key a master key makes of a source.
fn generate_kek(
    source: &[u8; 16],
    master: &[u8; 16],
    kek_seed: &[u8; 16],
    key_seed: &[u8; 16],
) -> [u8; 16] {
    let kek = dec(master, kek_seed);
    let source_kek = dec(&kek, source);
    dec(&source_kek, key_seed)
}

/// The keys of a file, what is absent derived where it can be, and the status.
fn derive(e: &Entries) -> (ProdKeys, Status) {
    let mut keys = ProdKeys::default();
    let seeds = e
        .key16("aes_kek_generation_source")
        .zip(e.key16("aes_key_generation_source"));
    let mut revisions = Vec::new();
    for revision in 0..REVISIONS {
        let master = e.key16(&format!("master_key_{revision:02x}"));
        let mut origins = [Origin::Missing; 3];
        for (index, area) in AREAS.iter().enumerate() {
            let written = e.key16(&format!("key_area_key_{area}_{revision:02x}"));
            let source = e.key16(&format!("key_area_key_{area}_source"));
            let derived = match (master, source, seeds) {
                (Some(m), Some(s), Some((kek_seed, key_seed))) => {
                    Some(generate_kek(&s, &m, &kek_seed, &key_seed))
                }
                _ => None,
            };
            (keys.key_area[revision][index], origins[index]) = pick(written, derived);
        }
        let written = e.key16(&format!("titlekek_{revision:02x}"));
        let derived = master
            .zip(e.key16("titlekek_source"))
            .map(|(m, s)| dec(&m, &s));
        let titlekek;
        (keys.titlekek[revision], titlekek) = pick(written, derived);
        revisions.push(Revision {
            revision: revision as u8,
            master_key: master.is_some(),
            key_area: origins[0],
            titlekek,
        });
    }
    let header_origin;
    (keys.header_key, header_origin) = pick(e.key32("header_key"), derive_header_key(e));
    // Revisions past the last one with anything are of no interest.
    let last = revisions.iter().rposition(|r| {
        r.master_key || r.key_area != Origin::Missing || r.titlekek != Origin::Missing
    });
    revisions.truncate(last.map_or(0, |i| i + 1));
    let status = Status {
        header_key: header_origin,
        revisions,
        suspect: suspects(e),
    };
    (keys, status)
}

/// The key written in the file wins over the one derived.
fn pick<K>(written: Option<K>, derived: Option<K>) -> (Option<K>, Origin) {
    match (written, derived) {
        (Some(k), _) => (Some(k), Origin::Present),
        (None, Some(k)) => (Some(k), Origin::Derived),
        (None, None) => (None, Origin::Missing),
    }
}

fn derive_header_key(e: &Entries) -> Option<[u8; 32]> {
    let master = e.key16("master_key_00")?;
    let kek = generate_kek(
        &e.key16("header_kek_source")?,
        &master,
        &e.key16("aes_kek_generation_source")?,
        &e.key16("aes_key_generation_source")?,
    );
    let source = e.key32("header_key_source")?;
    let mut key = [0u8; 32];
    for (out, block) in key.chunks_mut(16).zip(source.chunks(16)) {
        let block: &[u8; 16] = block.try_into().ok()?;
        out.copy_from_slice(&dec(&kek, block));
    }
    Some(key)
}

/// The public CRC32 of the sources and master keys, as nsz lists them
/// (`nut/Keys.py`, `crc32_checksum`): a checksum, which says nothing of a key, only
/// whether one was typed right.
pub const CHECKSUMS: &[(&str, u32)] = &[
    ("aes_kek_generation_source", 2545229389),
    ("aes_key_generation_source", 459881589),
    ("titlekek_source", 3510501772),
    ("key_area_key_application_source", 4130296074),
    ("key_area_key_ocean_source", 3975316347),
    ("key_area_key_system_source", 4024798875),
    ("master_key_00", 3540309694),
    ("master_key_01", 3477638116),
    ("master_key_02", 2087460235),
    ("master_key_03", 4095912905),
    ("master_key_04", 3833085536),
    ("master_key_05", 2078263136),
    ("master_key_06", 2812171174),
    ("master_key_07", 1146095808),
    ("master_key_08", 1605958034),
    ("master_key_09", 3456782962),
    ("master_key_0a", 2012895168),
    ("master_key_0b", 3813624150),
    ("master_key_0c", 3881579466),
    ("master_key_0d", 723654444),
    ("master_key_0e", 2690905064),
    ("master_key_0f", 4082108335),
    ("master_key_10", 788455323),
    ("master_key_11", 1214507020),
    ("master_key_12", 1051942134),
    ("master_key_13", 2476807835),
    ("master_key_14", 2448653557),
    ("master_key_15", 4071812001),
];

/// The keys of the file whose checksum is known and differs.
fn suspects(e: &Entries) -> Vec<String> {
    CHECKSUMS
        .iter()
        .filter(|(name, crc)| e.0.get(*name).is_some_and(|v| crc32fast::hash(v) != *crc))
        .map(|(name, _)| name.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Made-up keys (random bytes, not any console's), and what Python's
    /// `cryptography` package derives from them with hactool's recipe (AES-128-ECB
    /// decrypt): an independent computation, not this module's.
    const MADE_UP: &str = "\
; made-up keys for the tests
master_key_00 = dc5cbbf2f2ebcaae269e9d0ee6de1ab1
MASTER_KEY_05 = 6FD190FDF53CB69C5DAAA7A7712B0741
aes_kek_generation_source = 7032966b120cc6937348ba2ce4246e42
aes_key_generation_source = c339ed2348bd24f211f547de66c5e48c
key_area_key_application_source = 79c07fb8666698c6824e010b01d665af
key_area_key_ocean_source = a3d223e43acc30502d9c0a9e8530cea0
key_area_key_system_source = b517b00034ecd18bb681a626bb22918d
titlekek_source = eaad295dde21b646fb8f1d4953ade050
header_kek_source = 0b00ff0574949408e5b6b94d78b6cbf0
header_key_source = 3f59ea05bb6293a70e82c3b186476182a94e34fccd320ac8439a77bc61c7566f
";

    fn h16(hex: &str) -> [u8; 16] {
        hex::decode(hex).unwrap().try_into().unwrap()
    }

    #[test]
    fn absent_keys_are_derived_as_hactool_derives_them() {
        let loaded = Loaded::from_bytes(MADE_UP.as_bytes()).unwrap();
        let k = &loaded.keys;
        let expected = [
            (0, 0, "e230ba4d1976e7792af402891a358ebe"),
            (0, 1, "33721388d15dffd0ce25a286605a4af7"),
            (0, 2, "b15bfb7fb0e41397edb4d3a736ca17c6"),
            (5, 0, "29ccd03df61d5768a4262e5a3953d5cc"),
            (5, 1, "7d08542af23fbf64ce707b2e6fad8820"),
            (5, 2, "9130962686251c49e865d08943b962d8"),
        ];
        for (revision, index, hex) in expected {
            assert_eq!(k.key_area_key(index, revision), Some(h16(hex)));
        }
        assert_eq!(k.titlekek(0), Some(h16("963830f9d17f1de839b69dcfa90ea36a")));
        assert_eq!(k.titlekek(5), Some(h16("88277296a3c12866cf14d212644a821d")));
        let header: Vec<u8> =
            hex::decode("f98fd2e84c5d3e794c90cc83158acfbe2744bd522b39d818557035d00e02ee5f")
                .unwrap();
        assert_eq!(k.header_key.map(|h| h.to_vec()), Some(header));
        assert_eq!(k.key_area_key(0, 1), None, "no master_key_01");
        assert_eq!(k.titlekek(1), None);
        let s = &loaded.status;
        assert_eq!(s.header_key, Origin::Derived);
        assert_eq!(s.revisions.len(), 6, "0x00 to 0x05");
        assert_eq!(s.revisions[5].key_area, Origin::Derived);
        assert_eq!(s.revisions[5].titlekek, Origin::Derived);
        assert_eq!(s.revisions[3].key_area, Origin::Missing);
        assert!(s.revisions[5].master_key && !s.revisions[3].master_key);
    }

    /// The derivation run backwards with the `aes` crate's encrypt: each step's
    /// input comes back from its output.
    #[test]
    fn each_derivation_step_encrypts_back_to_its_input() {
        use aes::cipher::BlockEncrypt;
        let enc = |key: &[u8; 16], block: [u8; 16]| {
            let mut b = GenericArray::from(block);
            Aes128::new(GenericArray::from_slice(key)).encrypt_block(&mut b);
            <[u8; 16]>::from(b)
        };
        let (master, kek_seed, key_seed, source) = ([7u8; 16], [1u8; 16], [2u8; 16], [3u8; 16]);
        let kek = dec(&master, &kek_seed);
        let source_kek = dec(&kek, &source);
        let key = generate_kek(&source, &master, &kek_seed, &key_seed);
        assert_eq!(enc(&source_kek, key), key_seed);
        assert_eq!(enc(&kek, source_kek), source);
        assert_eq!(enc(&master, kek), kek_seed);
    }

    #[test]
    fn keys_written_win_over_keys_derived() {
        let text = format!(
            "{MADE_UP}key_area_key_application_05 = 000102030405060708090a0b0c0d0e0f\n\
             titlekek_05 = 0f0e0d0c0b0a09080706050403020100\n\
             header_key = {}\n",
            "ab".repeat(32)
        );
        let loaded = Loaded::from_bytes(text.as_bytes()).unwrap();
        assert_eq!(
            loaded.keys.key_area_key(0, 5),
            Some(h16("000102030405060708090a0b0c0d0e0f"))
        );
        assert_eq!(loaded.keys.header_key, Some([0xab; 32]));
        assert_eq!(loaded.status.header_key, Origin::Present);
        assert_eq!(loaded.status.revisions[5].key_area, Origin::Present);
        assert_eq!(loaded.status.revisions[5].titlekek, Origin::Present);
        // Ocean is still derived.
        assert_eq!(
            loaded.keys.key_area_key(1, 5),
            Some(h16("7d08542af23fbf64ce707b2e6fad8820"))
        );
    }

    #[test]
    fn a_header_key_alone_is_a_file_with_no_revision() {
        let text = format!("header_key = {}\n", "5a".repeat(32));
        let loaded = Loaded::from_bytes(text.as_bytes()).unwrap();
        assert_eq!(loaded.status.header_key, Origin::Present);
        assert!(loaded.status.revisions.is_empty());
        assert!(loaded.status.suspect.is_empty());
    }

    fn refusal(text: &str) -> Msg {
        Loaded::from_bytes(text.as_bytes()).unwrap_err().msg
    }

    fn line(line: u64, why: KeysLine) -> Msg {
        Msg::ConsoleKeysLine { line, why }
    }

    #[test]
    fn a_malformed_line_is_named_with_why_and_never_its_value() {
        let good = format!("header_key = {}\n", "11".repeat(32));
        let cases = [
            (
                "\n; ok\nthis line has no equals\n",
                line(3, KeysLine::NoEquals),
            ),
            ("bad name! = 00112233\n", line(1, KeysLine::BadName)),
            ("= 00112233\n", line(1, KeysLine::BadName)),
            ("titlekek_00 =\n", line(1, KeysLine::NoValue)),
            ("titlekek_00 = 0011zz33\n", line(1, KeysLine::NotHex)),
            ("something_else = 123\n", line(1, KeysLine::OddDigits)),
            ("nul = 00\0\n", line(1, KeysLine::NotText)),
            ("ké = 00\n", line(1, KeysLine::NotText)),
        ];
        for (bad, msg) in cases {
            assert_eq!(
                refusal(&format!("{good}{bad}")).without_first(),
                msg,
                "{bad:?}"
            );
        }
        let short = format!("{good}master_key_0a = {}\n", "cd".repeat(15));
        let msg = refusal(&short);
        assert_eq!(
            msg,
            line(
                2,
                KeysLine::WrongLength {
                    name: "master_key_0a".into(),
                    digits: 30,
                    expected: 32
                }
            )
        );
        for text in [msg.english(), msg.french()] {
            assert!(text.contains("2") && !text.contains("cdcd"), "{text}");
        }
        let twice = format!("{good}header_key = {}\n", "22".repeat(32));
        assert_eq!(
            refusal(&twice),
            line(
                2,
                KeysLine::Twice {
                    name: "header_key".into()
                }
            )
        );
    }

    /// Test helper: a message whose line is the one after the good first line.
    trait WithoutFirst {
        fn without_first(self) -> Msg;
    }

    impl WithoutFirst for Msg {
        fn without_first(self) -> Msg {
            match self {
                Msg::ConsoleKeysLine { line, why } => Msg::ConsoleKeysLine {
                    line: line - 1,
                    why,
                },
                other => other,
            }
        }
    }

    #[test]
    fn comments_blank_lines_case_crlf_and_unknown_names_are_fine() {
        let text = "\u{feff}# Lockpick_RCM\r\n\r\n  HEADER_KEY = ".to_string()
            + &"Ab".repeat(32)
            + " ; trailing comment\r\nsd_seed = 0123\r\nsome_unknown_key_1f = 00ff\r\n\tmaster_key_20 = 00\n";
        let loaded = Loaded::from_bytes(text.as_bytes()).unwrap();
        assert_eq!(loaded.keys.header_key, Some([0xab; 32]));
    }

    #[test]
    fn a_file_without_any_key_used_is_refused() {
        assert_eq!(refusal(""), Msg::ConsoleKeysEmpty);
        assert_eq!(refusal("; nothing\n\n"), Msg::ConsoleKeysEmpty);
        assert_eq!(
            refusal("0100000000001000000000000000000a = 00112233445566778899aabbccddeeff\n"),
            Msg::ConsoleKeysEmpty,
            "a title.keys file"
        );
        assert_eq!(
            refusal(&format!("header_key = {}\n", "00".repeat(32))),
            Msg::ConsoleKeysEmpty,
            "zero keys are no keys"
        );
        let huge = "; padding\n".repeat(MAX_FILE / 10 + 1);
        assert!(matches!(refusal(&huge), Msg::ConsoleKeysTooLarge { .. }));
    }

    #[test]
    fn made_up_keys_fail_the_public_checksums_as_a_warning() {
        let loaded = Loaded::from_bytes(MADE_UP.as_bytes()).unwrap();
        let suspect = &loaded.status.suspect;
        assert!(
            suspect.contains(&"master_key_05".to_string()),
            "{suspect:?}"
        );
        assert!(suspect.contains(&"titlekek_source".to_string()));
        assert!(
            !suspect.contains(&"header_kek_source".to_string()),
            "no public checksum"
        );
        // The checksum is CRC32 over the key's bytes, as nsz computes it: a key of
        // the right checksum is not flagged.
        assert_eq!(crc32fast::hash(b"123456789"), 0xCBF43926);
    }

    #[test]
    fn the_fingerprint_follows_the_derived_keys_and_debug_says_nothing() {
        let a = Loaded::from_bytes(MADE_UP.as_bytes()).unwrap();
        let same = Loaded::from_bytes(format!("; again\n{MADE_UP}").as_bytes()).unwrap();
        let other = MADE_UP.replace("master_key_00 = dc", "master_key_00 = dd");
        let b = Loaded::from_bytes(other.as_bytes()).unwrap();
        assert_eq!(a.fingerprint.len(), 16);
        assert_eq!(a.fingerprint, same.fingerprint);
        assert_ne!(a.fingerprint, b.fingerprint);
        let shown = format!("{a:?}");
        assert!(!shown.contains("dc5c") && !shown.contains("220"), "{shown}");
        assert_eq!(format!("{:?}", a.keys), "ProdKeys { .. }");
    }

    /// A keys file is the user's, and may be anything: mutated copies of a real one
    /// (bytes flipped, cut, inserted, removed) and every value cut to 0–8 digits are
    /// refused or read, never a panic.
    #[test]
    fn mutated_keys_files_are_refused_or_read_never_a_panic() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let base = MADE_UP.as_bytes();
        const PIECES: &[u8] = b"0123456789abcdefXYZ=_ \n\r\xff";
        let (mut read, mut refused) = (0, 0);
        for _ in 0..3000 {
            let mut b = base.to_vec();
            for _ in 0..rng.random_range(1..8) {
                let at = rng.random_range(0..b.len());
                match rng.random_range(0..4) {
                    0 => b[at] = rng.random(),
                    1 => b.truncate(at.max(1)),
                    2 => b.insert(at, PIECES[rng.random_range(0..PIECES.len())]),
                    _ => {
                        b.remove(at);
                    }
                }
                if b.is_empty() {
                    break;
                }
            }
            match Loaded::from_bytes(&b) {
                Ok(_) => read += 1,
                Err(_) => refused += 1,
            }
        }
        // Both ways taken: the mutants reach the checks, not only the first one.
        assert!(
            read > 100 && refused > 100,
            "{read} read, {refused} refused"
        );
        for (n, line) in MADE_UP.lines().enumerate() {
            let Some((name, _)) = line.split_once(" = ") else {
                continue;
            };
            for digits in 0..=8 {
                let cut = format!("{name} = {}", &"0123456789abcdef"[..digits]);
                let mut lines: Vec<&str> = MADE_UP.lines().collect();
                lines[n] = &cut;
                let _ = Loaded::from_bytes(lines.join("\n").as_bytes());
            }
        }
    }
}
