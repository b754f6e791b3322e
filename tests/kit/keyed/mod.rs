//! Synthetic game files readable with made-up console keys, for the tests and the
//! benchmarks of reading files with keys (issue 38). Everything is built from
//! [`TestKeys`] (random keys, never real ones) and is deterministic: the same keys and
//! [`Title`]s give the same bytes.
//!
//! This is the *encrypting* side, written from hactool, nsz and switchbrew apart from
//! the service's readers (`switchfs`), so that each checks the other; the
//! `keys_conformance` integration test has nsz 5.0.0 read these files too.
//!
//! ```text
//! use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
//!
//! let keys = TestKeys::new(7);
//! let base = Title { name: "Synthetic Quest".into(), ..Title::application(0x0100_0000_000A_0000) };
//! let update = Title::patch(0x0100_0000_000A_0000, 0x10000);
//! let dlc = Title { titlekey: true, ..Title::addon(0x0100_0000_000A_0000, 1) };
//! let nsp: Vec<u8> = keyed::nsp(&keys, &[base.clone(), dlc]);
//! let xci: Vec<u8> = keyed::xci(&keys, &[base, update]);
//! let text: String = keys.prod_keys_file(KeysFile::Derived);
//! ```
//!
//! - Keys: [`TestKeys::new`], [`TestKeys::prod_keys`] (a `ProdKeys`, no parsing),
//!   [`TestKeys::prod_keys_file`] (the text, in each [`KeysFile`] shape),
//!   [`TestKeys::truncated`] (a console that lacks the newer revisions).
//! - One title's NCAs: [`title_files`] → [`TitleFiles`] (Program or PublicData NCA,
//!   Control NCA, Meta NCA last; ticket and certificate when `titlekey`).
//! - Whole files: [`nsp`], [`nsz`] (Program/PublicData NCAs as solid NCZs, the rest as
//!   they are, as nsz does), [`xci`] (`secure` partition, gamecard NCAs, no tickets),
//!   [`xcz`] (block NCZs); `*_files` give the entries to add to or take from.
//! - Damage and names: [`entries`], [`flip_byte`], [`tagged_name`].
//! - Parts: `nca` (NCA3/NCA2 writer, PFS0 and RomFS sections), `content` (CNMT, NACP,
//!   JPEG, ticket).

pub mod content;
pub mod keys;
pub mod nca;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

use content::TicketKind;
pub use keys::{KeysFile, TestKeys, MALFORMED_LINE};
use ludotheque::testkit::synth::{self, File, Nca};
use nca::{Crypto, NcaSpec};

/// What a title is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// CNMT type 0x80.
    Application,
    /// CNMT type 0x81: an update.
    Patch,
    /// CNMT type 0x82: a DLC.
    AddOn,
}

impl Kind {
    pub fn meta_type(self) -> u8 {
        match self {
            Kind::Application => 0x80,
            Kind::Patch => 0x81,
            Kind::AddOn => 0x82,
        }
    }

    fn cnmt_prefix(self) -> &'static str {
        match self {
            Kind::Application => "Application",
            Kind::Patch => "Patch",
            Kind::AddOn => "AddOnContent",
        }
    }
}

/// The key revision [`Title`]'s constructors use (`master_key_0a`).
pub const DEFAULT_REVISION: u8 = 0x0A;

/// One content of a file: a base game, an update or a DLC.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Title {
    pub id: u64,
    pub version: u32,
    pub kind: Kind,
    /// The AmericanEnglish name in the NACP; empty for none.
    pub name: String,
    /// Names in other languages: (index in [`content::LANGUAGES`], name).
    pub names: Vec<(u8, String)>,
    pub publisher: String,
    pub display_version: String,
    /// A Control NCA (ignored for DLC, which have none).
    pub control: bool,
    /// `icon_<Language>.dat` in the Control NCA, one per named language.
    pub icon: bool,
    /// Titlekey crypto: rights ID in the headers, a ticket and a certificate in NSPs.
    /// The Meta NCA keeps the key area, as on eShop titles.
    pub titlekey: bool,
    /// With `titlekey`: a personalized ticket (title-key type 1) instead of a common one.
    pub personalized: bool,
    /// The key revision of every NCA (`master_key_XX`).
    pub revision: u8,
    /// Bytes of the Program (or DLC PublicData) NCA's payload; at least 0x4000.
    pub program_size: usize,
    /// NCA2 headers instead of NCA3.
    pub nca2: bool,
    /// The base game of an update or DLC; `None`: derived from `id`.
    pub application_id: Option<u64>,
    /// A Program NCA whose section is CTR-Ex (BKTR) in this many subsections, as an
    /// update's; 0: plain CTR.
    pub bktr_parts: u64,
}

impl Title {
    /// A base game, version 0, named, with a Control NCA and an icon, key-area crypto.
    pub fn application(id: u64) -> Title {
        Title {
            id,
            version: 0,
            kind: Kind::Application,
            name: format!("Synthetic Title {id:016X}"),
            names: Vec::new(),
            publisher: "Ludotheque Test Publisher".into(),
            display_version: "1.0.0".into(),
            control: true,
            icon: true,
            titlekey: false,
            personalized: false,
            revision: DEFAULT_REVISION,
            program_size: 0x8000,
            nca2: false,
            application_id: None,
            bktr_parts: 0,
        }
    }

    /// The update `version` of `application` (ID `application | 0x800`).
    pub fn patch(application: u64, version: u32) -> Title {
        Title {
            kind: Kind::Patch,
            version,
            display_version: format!("1.{}.0", version >> 16),
            ..Title::application(application | 0x800)
        }
    }

    /// DLC number `index` (1 …) of `application`: ID `application + 0x1000 + index`.
    pub fn addon(application: u64, index: u16) -> Title {
        Title {
            kind: Kind::AddOn,
            name: String::new(),
            control: false,
            icon: false,
            ..Title::application((application & !0xFFF) + 0x1000 + (index as u64 & 0xFFF))
        }
    }

    /// The base game this content belongs to (itself for a base game).
    pub fn application_id(&self) -> u64 {
        self.application_id.unwrap_or(match self.kind {
            Kind::Application => self.id,
            Kind::Patch => self.id & !0xFFF,
            Kind::AddOn => (self.id & !0xFFF).wrapping_sub(0x1000),
        })
    }

    /// `Application_0100….cnmt` and the like: the CNMT's name in the Meta NCA.
    pub fn cnmt_name(&self) -> String {
        format!("{}_{:016x}.cnmt", self.kind.cnmt_prefix(), self.id)
    }

    /// Rights ID (title ID, zeros, key generation); used only with `titlekey`.
    pub fn rights_id(&self) -> [u8; 16] {
        let (old, new) = nca::key_generation(self.revision);
        content::rights_id(self.id, old.max(new))
    }

    fn seed(&self, distribution: u8) -> u64 {
        let digest = Sha256::digest(format!("{self:?}/{distribution}"));
        u64::from_le_bytes(digest[..8].try_into().unwrap_or_default())
    }
}

/// One NCA of a title, with its name in a container.
pub struct NcaFile {
    /// `<content id>.nca`, or `<content id>.cnmt.nca` for the Meta NCA.
    pub name: String,
    /// Header content type (`nca::PROGRAM`, `META`, `CONTROL`, `PUBLIC_DATA`).
    pub content_type: u8,
    pub nca: Nca,
}

/// Everything one title puts in a container.
pub struct TitleFiles {
    /// Program or PublicData, then Control when there is one, then Meta.
    pub ncas: Vec<NcaFile>,
    /// `<rights id>.tik` and `<rights id>.cert` with `titlekey`, else empty.
    pub tickets: Vec<File>,
    /// The title key in clear, with `titlekey`.
    pub title_key: Option<[u8; 16]>,
}

/// Where the NCAs are distributed: header byte 0x204.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// eShop, NSP: 0.
    Download,
    /// Cartridge, XCI: 1.
    Gamecard,
}

/// The Program NCA of a game (a PFS0 section), or the PublicData NCA of a DLC (a
/// RomFS section), from `base` (its other fields), with its CNMT record type.
fn main_nca(title: &Title, rng: &mut StdRng, base: NcaSpec) -> (NcaSpec, u8) {
    let payload = synth::filler(rng, title.program_size.max(0x4000));
    if title.kind == Kind::AddOn {
        let section = nca::romfs_section(&[("data.bin".into(), payload)]);
        let spec = NcaSpec {
            content_type: nca::PUBLIC_DATA,
            sections: vec![section],
            ..base
        };
        return (spec, content::RECORD_DATA);
    }
    let block = if title.program_size > 0x100000 {
        0x10000
    } else {
        0x1000
    };
    let mut section = nca::pfs0_section(&[("main".into(), payload)], block);
    if title.bktr_parts > 0 {
        section = nca::bktr_section(section, title.bktr_parts);
    }
    let spec = NcaSpec {
        content_type: nca::PROGRAM,
        sections: vec![section],
        ..base
    };
    (spec, content::RECORD_PROGRAM)
}

/// The Meta NCA of a title: its CNMT over these content records, in a PFS0 section;
/// always key-area crypto, as on eShop titles. `base` gives the other fields.
fn meta_nca(
    keys: &TestKeys,
    rng: &mut StdRng,
    title: &Title,
    records: &[[u8; 0x38]],
    base: NcaSpec,
) -> Nca {
    let other = match title.kind {
        Kind::Application => title.id | 0x800,
        _ => title.application_id(),
    };
    let cnmt = content::cnmt(
        title.id,
        title.version,
        title.kind.meta_type(),
        other,
        records,
    );
    let section = nca::pfs0_section(&[(title.cnmt_name(), cnmt)], 0x1000);
    nca::build(
        keys,
        rng,
        NcaSpec {
            sections: vec![section],
            ..base
        },
    )
}

/// The NCAs (and ticket) of one title.
pub fn title_files(keys: &TestKeys, title: &Title, distribution: Distribution) -> TitleFiles {
    let dist = match distribution {
        Distribution::Download => 0,
        Distribution::Gamecard => 1,
    };
    let rng = &mut StdRng::seed_from_u64(title.seed(dist));
    let title_key: Option<[u8; 16]> = title.titlekey.then(|| rng.random());
    let crypto = title_key.map_or(Crypto::KeyArea { index: 0 }, |title_key| Crypto::TitleKey {
        rights_id: title.rights_id(),
        title_key,
    });
    let spec = |content_type: u8, crypto: Crypto, sections: Vec<nca::PlainSection>| NcaSpec {
        content_type,
        program_id: title.id,
        revision: title.revision,
        distribution: dist,
        crypto,
        nca2: title.nca2,
        sections,
    };
    let mut ncas = Vec::new();
    let mut records = Vec::new();
    let (main, record) = main_nca(title, rng, spec(0, crypto, Vec::new()));
    push(
        &mut ncas,
        &mut records,
        nca::build(keys, rng, main),
        main_type(title),
        record,
        false,
    );
    if title.control && title.kind != Kind::AddOn {
        let section = nca::romfs_section(&control_files(title));
        let control = nca::build(keys, rng, spec(nca::CONTROL, crypto, vec![section]));
        push(
            &mut ncas,
            &mut records,
            control,
            nca::CONTROL,
            content::RECORD_CONTROL,
            false,
        );
    }
    let meta_spec = spec(nca::META, Crypto::KeyArea { index: 0 }, Vec::new());
    let meta = meta_nca(keys, rng, title, &records, meta_spec);
    push(&mut ncas, &mut records, meta, nca::META, 0, true);
    let tickets = title_key
        .map(|key| tickets(keys, title, key, rng))
        .unwrap_or_default();
    TitleFiles {
        ncas,
        tickets,
        title_key,
    }
}

fn main_type(title: &Title) -> u8 {
    if title.kind == Kind::AddOn {
        nca::PUBLIC_DATA
    } else {
        nca::PROGRAM
    }
}

fn push(
    ncas: &mut Vec<NcaFile>,
    records: &mut Vec<[u8; 0x38]>,
    nca: Nca,
    content_type: u8,
    record: u8,
    meta: bool,
) {
    let id = synth::content_id(&nca.bytes);
    if !meta {
        records.push(content::content_record(&nca.bytes, record));
    }
    let name = if meta {
        format!("{id}.cnmt.nca")
    } else {
        format!("{id}.nca")
    };
    ncas.push(NcaFile {
        name,
        content_type,
        nca,
    });
}

/// `control.nacp` and the icons, in the Control NCA's RomFS.
fn control_files(title: &Title) -> Vec<File> {
    let mut names: Vec<(u8, String)> = Vec::new();
    if !title.name.is_empty() {
        names.push((0, title.name.clone()));
    }
    names.extend(title.names.iter().cloned());
    let mut files = vec![(
        "control.nacp".to_string(),
        content::nacp(&names, &title.publisher, &title.display_version),
    )];
    if title.icon {
        let level = (title.id >> 16) as u8 ^ title.version as u8;
        let mut langs: Vec<u8> = names.iter().map(|(l, _)| l % 16).collect();
        if langs.is_empty() {
            langs.push(0);
        }
        langs.sort_unstable();
        langs.dedup();
        for lang in langs {
            let name = format!("icon_{}.dat", content::LANGUAGES[lang as usize]);
            files.push((name, content::jpeg(level)));
        }
    }
    files
}

fn tickets(keys: &TestKeys, title: &Title, title_key: [u8; 16], rng: &mut StdRng) -> Vec<File> {
    let rights_id = title.rights_id();
    let kek = keys
        .titlekek
        .get(title.revision as usize)
        .copied()
        .unwrap_or_default();
    let kind = if title.personalized {
        TicketKind::Personalized
    } else {
        TicketKind::Common
    };
    let name = hex::encode(rights_id);
    vec![
        (
            format!("{name}.tik"),
            content::ticket(rights_id, title_key, &kek, kind, rng.random()),
        ),
        (format!("{name}.cert"), content::cert(rights_id)),
    ]
}

/// The entries of an NSP holding these titles: each title's NCAs, then its ticket and
/// certificate.
pub fn nsp_files(keys: &TestKeys, titles: &[Title]) -> Vec<File> {
    container_files(
        keys,
        titles,
        Distribution::Download,
        |nf| (nf.name, nf.nca.bytes),
        true,
    )
}

/// An NSP (PFS0) holding these titles.
pub fn nsp(keys: &TestKeys, titles: &[Title]) -> Vec<u8> {
    synth::pfs0(&nsp_files(keys, titles))
}

/// The entries of an NSZ: as [`nsp_files`], the Program and PublicData NCAs as
/// solid-mode NCZs (nsz compresses only those; the Meta and Control NCAs stay as they
/// are).
pub fn nsz_files(keys: &TestKeys, titles: &[Title]) -> Vec<File> {
    container_files(
        keys,
        titles,
        Distribution::Download,
        |nf| compressed(nf, None),
        true,
    )
}

/// An NSZ holding these titles.
pub fn nsz(keys: &TestKeys, titles: &[Title]) -> Vec<u8> {
    synth::pfs0(&nsz_files(keys, titles))
}

/// The `secure` partition of an XCI holding these titles: gamecard NCAs, no tickets.
pub fn xci_files(keys: &TestKeys, titles: &[Title]) -> Vec<File> {
    container_files(
        keys,
        titles,
        Distribution::Gamecard,
        |nf| (nf.name, nf.nca.bytes),
        false,
    )
}

/// A cartridge image holding these titles in its `secure` partition (a base and its
/// update, say).
pub fn xci(keys: &TestKeys, titles: &[Title]) -> Vec<u8> {
    cartridge(xci_files(keys, titles))
}

/// An XCZ: [`xci`] with the Program and PublicData NCAs as block-mode NCZs (2^20-byte
/// blocks, nsz's default).
pub fn xcz(keys: &TestKeys, titles: &[Title]) -> Vec<u8> {
    let files = container_files(
        keys,
        titles,
        Distribution::Gamecard,
        |nf| compressed(nf, Some(20)),
        false,
    );
    cartridge(files)
}

fn cartridge(secure: Vec<File>) -> Vec<u8> {
    synth::xci(&[("update", vec![]), ("normal", vec![]), ("secure", secure)])
}

fn compressed(nf: NcaFile, block: Option<u8>) -> File {
    if !matches!(nf.content_type, nca::PROGRAM | nca::PUBLIC_DATA) {
        return (nf.name, nf.nca.bytes);
    }
    let body = match block {
        Some(exponent) => synth::ncz_block(&nf.nca, exponent),
        None => synth::ncz_solid(&nf.nca),
    };
    (nf.name.replace(".nca", ".ncz"), body)
}

fn container_files(
    keys: &TestKeys,
    titles: &[Title],
    distribution: Distribution,
    each: impl Fn(NcaFile) -> File,
    with_tickets: bool,
) -> Vec<File> {
    let mut out = Vec::new();
    for title in titles {
        let files = title_files(keys, title, distribution);
        out.extend(files.ncas.into_iter().map(&each));
        if with_tickets {
            out.extend(files.tickets);
        }
    }
    out
}

/// A file name with tags, true or not: `Name [0100…][v0].nsp`.
pub fn tagged_name(name: &str, id: u64, version: u32, ext: &str) -> String {
    format!("{name} [{id:016X}][v{version}].{ext}")
}

/// An entry of a container: its name and where its bytes are in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltFile {
    pub name: String,
    pub offset: usize,
    pub size: usize,
}

/// The files of an NSP/NSZ, or of every partition of an XCI/XCZ built here (the bytes
/// are trusted: this reads only what `synth` writes).
pub fn entries(container: &[u8]) -> Vec<BuiltFile> {
    if container.starts_with(b"PFS0") {
        return table(container, 0, 0x18);
    }
    if container.len() < 0x200 || &container[0x100..0x104] != b"HEAD" {
        return Vec::new();
    }
    let root = u64::from_le_bytes(container[0x130..0x138].try_into().unwrap_or_default()) as usize;
    table(container, root, 0x40)
        .into_iter()
        .flat_map(|partition| table(container, partition.offset, 0x40))
        .collect()
}

/// The entries of a PFS0 or HFS0 at `at` with entries of `entry_len` bytes.
fn table(data: &[u8], at: usize, entry_len: usize) -> Vec<BuiltFile> {
    let u32_at =
        |p: usize| u32::from_le_bytes(data[p..p + 4].try_into().unwrap_or_default()) as usize;
    let u64_at =
        |p: usize| u64::from_le_bytes(data[p..p + 8].try_into().unwrap_or_default()) as usize;
    let (count, strings) = (u32_at(at + 4), u32_at(at + 8));
    let names_at = at + 0x10 + entry_len * count;
    let data_at = names_at + strings;
    (0..count)
        .map(|i| {
            let e = at + 0x10 + entry_len * i;
            let name_at = names_at + u32_at(e + 0x10);
            let end = data[name_at..].iter().position(|&b| b == 0).unwrap_or(0);
            BuiltFile {
                name: String::from_utf8_lossy(&data[name_at..name_at + end]).into_owned(),
                offset: data_at + u64_at(e),
                size: u64_at(e + 8),
            }
        })
        .collect()
}

/// Damage the entry named `name`: flip every bit of one byte in the middle of its data
/// (past an NCA's 0xC00-byte header, so the header still opens and only the hash
/// differs). Returns the offset flipped in the container, `None` without that entry.
pub fn flip_byte(container: &mut [u8], name: &str) -> Option<usize> {
    let entry = entries(container).into_iter().find(|e| e.name == name)?;
    let past = if entry.size > nca::HEADER + 1 {
        nca::HEADER
    } else {
        0
    };
    let at = entry.offset + past + (entry.size - past) / 2;
    *container.get_mut(at)? ^= 0xFF;
    Some(at)
}
