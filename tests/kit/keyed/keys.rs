//! Made-up console keys: random sources and master keys, the keys derived from them the
//! way hactool (`pki.c`) and nsz (`nut/Keys.py`) derive them, and `prod.keys` texts in
//! the shapes a user may have. Nothing here is a real key.
//!
//! Each made-up source and master key is random except its last four bytes, chosen so
//! that its CRC32 is the one nsz's table lists for that name (CRC32 is linear: any
//! 12 random bytes can be completed to any checksum). Readers that check those
//! checksums, as nsz does before it derives anything, then accept the file as they
//! would a real one, while no byte of a real key is known or needed.

use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit};
use aes::Aes128;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use ludotheque::testkit::switchfs::ProdKeys;
use ludotheque::testkit::REVISIONS;

/// Revisions a default [`TestKeys`] has: `_00` to `_12`, as a console on a recent
/// firmware.
pub const DEFAULT_REVISIONS: u8 = 0x13;

/// The line of [`KeysFile::Malformed`] that is not `name = hex` (1-based).
pub const MALFORMED_LINE: usize = 3;

/// nsz 5.0.0's public CRC32 table (`nut/Keys.py`): checksums, not keys; the one the
/// service checks keys files against.
use ludotheque::testkit::CHECKSUMS as NSZ_CRC32;

/// Key-area key kinds, in key-area index order (0 application, 1 ocean, 2 system).
pub const KEY_AREA_KINDS: [&str; 3] = ["application", "ocean", "system"];

/// The shapes of `prod.keys` a test may hand the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeysFile {
    /// Everything, as Lockpick_RCM writes it: sources, `header_key`, master keys and the
    /// derived key-area keys and title keks, one `name = hex` a line, sorted.
    Full,
    /// `Full` with comments (`;` and `#`), blank lines, upper-case hex and uneven
    /// spacing around `=`.
    Commented,
    /// `header_key` alone: enough for headers, nothing else.
    HeaderOnly,
    /// `header_key`, `key_area_key_application_XX` and `titlekek_XX`; no master key,
    /// no source.
    Derived,
    /// `header_key`, the master keys and the sources: the reader must derive the
    /// key-area keys and title keks.
    MasterAndSources,
    /// `Full` with line [`MALFORMED_LINE`] not of the form `name = hex`.
    Malformed,
}

/// A made-up set of console keys and what derives from it.
#[derive(Clone)]
pub struct TestKeys {
    pub header_key: [u8; 32],
    pub aes_kek_generation_source: [u8; 16],
    pub aes_key_generation_source: [u8; 16],
    /// `key_area_key_{application,ocean,system}_source`.
    pub key_area_sources: [[u8; 16]; 3],
    pub titlekek_source: [u8; 16],
    /// `master_key_00` … in revision order, no gap.
    pub master_keys: Vec<[u8; 16]>,
    /// Derived: `key_area_key_{application,ocean,system}_XX` by revision.
    pub key_area: Vec<[[u8; 16]; 3]>,
    /// Derived: `titlekek_XX` by revision.
    pub titlekek: Vec<[u8; 16]>,
}

impl std::fmt::Debug for TestKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TestKeys {{ {} revisions }}", self.master_keys.len())
    }
}

impl TestKeys {
    /// [`DEFAULT_REVISIONS`] revisions from `seed`, checksums matching nsz's table.
    pub fn new(seed: u64) -> TestKeys {
        TestKeys::with_revisions(seed, DEFAULT_REVISIONS)
    }

    /// Master keys `_00` up to `revisions − 1`.
    pub fn with_revisions(seed: u64, revisions: u8) -> TestKeys {
        TestKeys::generate(seed, revisions, true)
    }

    /// Random keys whose CRC32 match nothing: a reader that checks nsz's table flags
    /// every source and master key, though the keys are consistent and open the files.
    pub fn without_checksums(seed: u64) -> TestKeys {
        TestKeys::generate(seed, DEFAULT_REVISIONS, false)
    }

    fn generate(seed: u64, revisions: u8, checksums: bool) -> TestKeys {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut key = |name: &str| -> [u8; 16] {
            match NSZ_CRC32.iter().find(|(n, _)| *n == name) {
                Some((_, crc)) if checksums => forge_crc32(&mut rng, *crc),
                _ => rng.random(),
            }
        };
        let aes_kek_generation_source = key("aes_kek_generation_source");
        let aes_key_generation_source = key("aes_key_generation_source");
        let key_area_sources = [
            key("key_area_key_application_source"),
            key("key_area_key_ocean_source"),
            key("key_area_key_system_source"),
        ];
        let titlekek_source = key("titlekek_source");
        let revisions = revisions.min(REVISIONS as u8);
        let master_keys: Vec<[u8; 16]> = (0..revisions)
            .map(|r| key(&format!("master_key_{r:02x}")))
            .collect();
        let mut header_key = [0u8; 32];
        header_key[..16].copy_from_slice(&key("header_key_data"));
        header_key[16..].copy_from_slice(&key("header_key_tweak"));
        let mut keys = TestKeys {
            header_key,
            aes_kek_generation_source,
            aes_key_generation_source,
            key_area_sources,
            titlekek_source,
            master_keys,
            key_area: Vec::new(),
            titlekek: Vec::new(),
        };
        keys.derive();
        keys
    }

    /// hactool's `generate_kek` and nsz's `generateKek`: three AES-128-ECB decryptions.
    fn derive(&mut self) {
        self.key_area = self
            .master_keys
            .iter()
            .map(|master| {
                let kek = ecb_decrypt(master, &self.aes_kek_generation_source);
                self.key_area_sources.map(|source| {
                    let source_kek = ecb_decrypt(&kek, &source);
                    ecb_decrypt(&source_kek, &self.aes_key_generation_source)
                })
            })
            .collect();
        self.titlekek = self
            .master_keys
            .iter()
            .map(|master| ecb_decrypt(master, &self.titlekek_source))
            .collect();
    }

    /// Revisions `0..revisions` only: a keys file that lacks the newer ones.
    pub fn truncated(&self, revisions: u8) -> TestKeys {
        let n = (revisions as usize).min(self.master_keys.len());
        let mut keys = self.clone();
        keys.master_keys.truncate(n);
        keys.key_area.truncate(n);
        keys.titlekek.truncate(n);
        keys
    }

    /// The number of revisions (`master_key_00` … `_{n−1}`).
    pub fn revisions(&self) -> u8 {
        self.master_keys.len() as u8
    }

    /// The derived keys as the readers take them, without a text to parse.
    pub fn prod_keys(&self) -> ProdKeys {
        let mut keys = ProdKeys {
            header_key: Some(self.header_key),
            ..ProdKeys::default()
        };
        for (revision, area) in self.key_area.iter().enumerate() {
            keys.key_area[revision] = area.map(Some);
        }
        for (revision, kek) in self.titlekek.iter().enumerate() {
            keys.titlekek[revision] = Some(*kek);
        }
        keys
    }

    /// `prod.keys` text of this shape.
    pub fn prod_keys_file(&self, shape: KeysFile) -> String {
        let mut lines = self.lines(shape);
        lines.sort();
        match shape {
            KeysFile::Commented => {
                let mut out = String::from("; prod.keys (made-up keys for tests)\n\n");
                for (i, (name, value)) in lines.iter().enumerate() {
                    if i % 7 == 3 {
                        out.push_str("# a comment line\n\n");
                    }
                    out.push_str(&format!("{name}={}\n", value.to_uppercase()));
                }
                out
            }
            KeysFile::Malformed => {
                let mut out: Vec<String> = lines
                    .iter()
                    .map(|(name, value)| format!("{name} = {value}"))
                    .collect();
                out.insert(
                    MALFORMED_LINE - 1,
                    "key_area_key_application_zz 0123 = xyz".into(),
                );
                out.join("\n") + "\n"
            }
            _ => lines
                .iter()
                .map(|(name, value)| format!("{name} = {value}\n"))
                .collect(),
        }
    }

    fn lines(&self, shape: KeysFile) -> Vec<(String, String)> {
        let mut out = vec![("header_key".to_string(), hex::encode(self.header_key))];
        if shape == KeysFile::HeaderOnly {
            return out;
        }
        let full = !matches!(shape, KeysFile::Derived | KeysFile::MasterAndSources);
        if shape != KeysFile::Derived {
            let sources = [
                ("aes_kek_generation_source", &self.aes_kek_generation_source),
                ("aes_key_generation_source", &self.aes_key_generation_source),
                ("titlekek_source", &self.titlekek_source),
            ];
            for (name, key) in sources {
                out.push((name.into(), hex::encode(key)));
            }
            for (kind, key) in KEY_AREA_KINDS.iter().zip(&self.key_area_sources) {
                out.push((format!("key_area_key_{kind}_source"), hex::encode(key)));
            }
            for (r, key) in self.master_keys.iter().enumerate() {
                out.push((format!("master_key_{r:02x}"), hex::encode(key)));
            }
        }
        if shape != KeysFile::MasterAndSources {
            for (r, area) in self.key_area.iter().enumerate() {
                for (i, kind) in KEY_AREA_KINDS.iter().enumerate() {
                    if full || i == 0 {
                        out.push((format!("key_area_key_{kind}_{r:02x}"), hex::encode(area[i])));
                    }
                }
            }
            for (r, kek) in self.titlekek.iter().enumerate() {
                out.push((format!("titlekek_{r:02x}"), hex::encode(kek)));
            }
        }
        out
    }
}

pub(crate) fn ecb_decrypt(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    let mut b = (*block).into();
    Aes128::new(key.into()).decrypt_block(&mut b);
    b.into()
}

pub(crate) fn ecb_encrypt(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    let mut b = (*block).into();
    Aes128::new(key.into()).encrypt_block(&mut b);
    b.into()
}

/// The reflected CRC32 table (polynomial 0xEDB88320), as zlib's.
fn crc_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    for (i, entry) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *entry = c;
    }
    table
}

/// 16 bytes whose CRC32 is `target`: 12 random bytes, then the 4 that bring the CRC
/// register to the wanted state, found by running the register backwards (each table
/// entry has a distinct top byte, so every step back has exactly one answer).
fn forge_crc32(rng: &mut impl Rng, target: u32) -> [u8; 16] {
    let table = crc_table();
    let mut key = [0u8; 16];
    rng.fill_bytes(&mut key[..12]);
    let mut reg = !0u32;
    for &b in &key[..12] {
        reg = (reg >> 8) ^ table[((reg ^ b as u32) & 0xFF) as usize];
    }
    let mut back = !target;
    for _ in 0..4 {
        let index = (0..256)
            .find(|&i| table[i] >> 24 == back >> 24)
            .unwrap_or_default();
        back = ((back ^ table[index]) << 8) | index as u32;
    }
    key[12..].copy_from_slice(&(back ^ reg).to_le_bytes());
    key
}
