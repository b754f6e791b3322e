//! Reading what a game file holds with the user's console keys: the NCA headers
//! (`nca`), the CNMT of each Meta NCA (`cnmt`), and the names and icons of each
//! Control NCA's RomFS (`romfs`, `nacp`). The keyless readers of `containers` find
//! the NCAs; this opens them.
//!
//! Like `containers`, every offset and size is checked before it is used and no
//! allocation is sized by an unchecked field: any input gives `Ok` or a
//! [`FormatError`] with a reason safe to show, never a panic. Only headers, the CNMT
//! and the Control NCA's few files are read, never a whole NCA.

pub mod cnmt;
pub mod nacp;
pub mod nca;
pub mod prodkeys;
pub mod romfs;

pub use prodkeys::ProdKeys;

use std::io::{Read, Seek};

use crate::error::{Reason, Why};
use crate::library::bytes;
use crate::library::containers::{self, read_at, Budget, ContainerFile, FormatError, MAX_HEADER};
use crate::words::Container;
use nca::{Header, HeaderError, NcaSection, SectionReader, TitleKey};

/// What a CNMT says a content is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaType {
    /// 0x80: a base game.
    Application,
    /// 0x81: an update.
    Patch,
    /// 0x82: a DLC.
    AddOn,
    /// 0x83: a delta (an update's differences, not installable on its own).
    Delta,
    /// Any other (system titles): kept, shown as unknown.
    Other(u8),
}

/// One NCA a content is made of, as its CNMT records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentRecord {
    /// The NCA's ID: the file `<id>.nca` (or `.ncz`) in the container.
    pub nca_id: [u8; 16],
    /// SHA-256 of the whole NCA as stored (encrypted).
    pub sha256: [u8; 32],
    pub size: u64,
    /// 0 Meta, 1 Program, 2 Data, 3 Control, 4 HtmlDocument, 5 LegalInformation,
    /// 6 DeltaFragment.
    pub kind: u8,
}

/// A content of the file: one CNMT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    pub title_id: u64,
    pub meta_type: MetaType,
    pub version: u32,
    /// The base game an update or DLC belongs to (the CNMT's extended header).
    pub application_id: Option<u64>,
    pub records: Vec<ContentRecord>,
}

/// The names a Control NCA gives its title, one per language that has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    /// The title the Control NCA belongs to (its CNMT's title ID).
    pub title_id: u64,
    /// (language index 0–15 as in the NACP, name, publisher), non-empty names only.
    pub names: Vec<(u8, String, String)>,
    /// Such as "1.2.0"; empty when absent.
    pub display_version: String,
    /// The first icon in the languages' order (JPEG bytes, at most [`MAX_ICON`]).
    pub icon: Option<Vec<u8>>,
}

/// The largest icon kept (real ones are 256×256 JPEGs of about 100 KiB).
pub const MAX_ICON: u64 = 512 * 1024;

/// What one file may make the readers do, whatever its tables say. Real files hold a
/// few NCAs, one Meta NCA per content (a bundle: a dozen) and a Control NCA per game
/// or update; past these, a crafted file would multiply the work and the memory.
const MAX_NCAS: usize = 1024;
const MAX_METAS: usize = 64;
const MAX_CONTROLS: usize = 16;

/// Why part of a file could not be read with the keys; the text is safe to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// No `header_key` in the keys file.
    NoHeaderKey,
    /// The header does not decrypt to an NCA with this header key.
    WrongKeys { nca: String },
    /// The NCA needs a key of this revision the keys file lacks (and cannot derive).
    MissingKey { nca: String, revision: u8 },
    /// The ticket's title key needs `titlekek_XX` of this revision, which the keys
    /// file lacks (and cannot derive).
    MissingTitlekek { nca: String, revision: u8 },
    /// The title key is in a personalized ticket (tied to one console's account).
    PersonalizedTicket { nca: String },
    /// No ticket for the NCA's rights ID.
    NoTicket { nca: String },
    /// The NCA or a structure inside it is malformed.
    Malformed { nca: String, why: Why },
}

/// Everything read from one file with the keys.
#[derive(Debug, Clone, Default)]
pub struct Inside {
    /// Every CNMT found, in the container's order.
    pub contents: Vec<Content>,
    /// The Control NCAs' names and icons (only when asked for).
    pub controls: Vec<Control>,
    /// The highest key revision among the file's NCA headers (what it needs).
    pub key_revision: Option<u8>,
    pub problems: Vec<Problem>,
}

/// What to read besides the CNMTs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Want {
    /// Names, publisher, display version from the Control NCAs.
    pub control: bool,
    /// And their icons.
    pub icon: bool,
}

/// Read every NCA of the file (`format`: `nsp`, `nsz`, `xci` or `xcz`) of `len`
/// bytes with `keys`. A container that does not parse is an `Err`; an NCA that does
/// not open is a [`Problem`] and the others are still read. Meta and Control NCAs
/// are read where they lie: nsz compresses only Program and PublicData NCAs, and the
/// part of an NCZ that is kept verbatim (0x4000 bytes) holds a header; a Meta or
/// Control NCA stored as an NCZ past that is a per-file reason.
pub fn read<R: Read + Seek>(
    file: &mut R,
    format: &str,
    len: u64,
    keys: &ProdKeys,
    want: Want,
    budget: &Budget,
) -> Result<Inside, FormatError> {
    if Container::of(format).is_none() {
        return Ok(Inside::default());
    }
    let entries = containers::game_files(file, len, format, budget)?;
    let entries = entries.ok_or_else(|| FormatError::from(Reason::NoSecure))?;
    Ok(read_entries(file, &entries, keys, want, budget))
}

/// [`read`], from the entries of the container's file list (the PFS0's, or the XCI's
/// `secure` partition's) that the caller has read already.
pub fn read_entries<R: Read + Seek>(
    file: &mut R,
    entries: &[ContainerFile],
    keys: &ProdKeys,
    want: Want,
    budget: &Budget,
) -> Inside {
    let mut inside = Inside::default();
    let ncas = headers(file, entries, keys, &mut inside, budget);
    let tickets = Tickets {
        entries,
        budget: Some(budget),
    };
    let metas = ncas.iter().filter(|(_, h)| h.content_type == nca::META);
    for (entry, header) in metas.take(MAX_METAS) {
        match meta(file, entry, header, keys, &tickets, budget) {
            // The same CNMT twice (two entries naming one NCA) is one content.
            Ok(content) if inside.contents.contains(&content) => {}
            Ok(content) => inside.contents.push(content),
            Err(problem) => inside.problems.push(problem),
        }
    }
    if want.control {
        let controls = ncas.iter().filter(|(_, h)| h.content_type == nca::CONTROL);
        for (entry, header) in controls.take(MAX_CONTROLS) {
            let title_id = owner(&inside.contents, &entry.name).unwrap_or(header.program_id);
            let read = control(file, entry, header, keys, &tickets, want, budget);
            match read {
                Ok((names, display_version, icon)) => inside.controls.push(Control {
                    title_id,
                    names,
                    display_version,
                    icon,
                }),
                Err(problem) => inside.problems.push(problem),
            }
        }
    }
    inside
}

/// Decrypt the header of every NCA (or NCZ) entry; the ones that open, with their
/// entry. The highest key revision among them is what the file needs.
fn headers<R: Read + Seek>(
    file: &mut R,
    entries: &[ContainerFile],
    keys: &ProdKeys,
    inside: &mut Inside,
    budget: &Budget,
) -> Vec<(ContainerFile, Header)> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let ncas = entries
        .iter()
        .filter(|e| e.name.ends_with(".nca") || e.name.ends_with(".ncz"))
        // Two entries of one region are one NCA read once.
        .filter(|e| seen.insert((e.offset, e.size)));
    for entry in ncas.take(MAX_NCAS) {
        let nca = entry.name.clone();
        let raw = match entry.size {
            n if n < nca::HEADER_SIZE as u64 => Err(FormatError::from(Reason::NcaShort)),
            _ => budget.read(file, entry.offset, nca::HEADER_SIZE),
        };
        let raw = match raw {
            Ok(raw) => raw,
            Err(e) => {
                inside.problems.push(malformed(&nca, e.0));
                continue;
            }
        };
        // An NCZ's size is not its NCA's: its sections are checked when read.
        let limit = if nca.ends_with(".ncz") {
            u64::MAX
        } else {
            entry.size
        };
        match nca::header(&raw, limit, keys) {
            Ok(header) => {
                let revision = inside.key_revision.unwrap_or(0).max(header.key_revision);
                inside.key_revision = Some(revision);
                out.push((entry.clone(), header));
            }
            Err(HeaderError::NoHeaderKey) => {
                inside.problems.push(Problem::NoHeaderKey);
                return Vec::new();
            }
            Err(HeaderError::WrongKeys) => inside.problems.push(Problem::WrongKeys { nca }),
            Err(HeaderError::Malformed(why)) => inside.problems.push(malformed(&nca, why)),
        }
    }
    out
}

/// The NCA `nca` or a structure inside it is malformed.
fn malformed(nca: &str, why: impl Into<Why>) -> Problem {
    let (nca, why) = (nca.to_string(), why.into());
    Problem::Malformed { nca, why }
}

/// The container's tickets, found by rights ID, and the file's budget their reads
/// count against (none where the caller reads the file whole anyway: compress).
pub(crate) struct Tickets<'a> {
    pub(crate) entries: &'a [ContainerFile],
    pub(crate) budget: Option<&'a Budget>,
}

impl Tickets<'_> {
    fn find(&self, rights_id: &[u8; 16]) -> Option<&ContainerFile> {
        let hex = hex::encode(rights_id);
        self.entries.iter().find(|e| {
            e.name
                .strip_suffix(".tik")
                .is_some_and(|stem| stem.eq_ignore_ascii_case(&hex))
        })
    }
}

/// The key that opens `section`: none for a clear one, the key area's CTR key, or the
/// title key of the ticket with the header's rights ID.
pub(crate) fn section_key<R: Read + Seek>(
    file: &mut R,
    name: &str,
    header: &Header,
    section: &NcaSection,
    keys: &ProdKeys,
    tickets: &Tickets<'_>,
) -> Result<Option<[u8; 16]>, Problem> {
    let nca = name.to_string();
    let missing = Problem::MissingKey {
        nca: nca.clone(),
        revision: header.key_revision,
    };
    match section.crypto() {
        1 => return Ok(None),
        3 | 4 => {}
        _ => return Err(malformed(&nca, Reason::Encryption)),
    }
    if !header.uses_title_key() {
        return header.key_area_ctr_key(keys).map(Some).ok_or(missing);
    }
    let ticket = tickets
        .find(&header.rights_id)
        .ok_or(Problem::NoTicket { nca: nca.clone() })?;
    let len = ticket.size.min(0x400) as usize;
    let bytes = match tickets.budget {
        Some(budget) => budget.read(file, ticket.offset, len),
        None => read_at(file, ticket.offset, len),
    };
    let bytes = bytes.map_err(|e| malformed(&nca, e.0))?;
    match nca::title_key(&bytes, header.key_revision, keys) {
        TitleKey::Key(key) => Ok(Some(key)),
        TitleKey::Personalized => Err(Problem::PersonalizedTicket { nca }),
        TitleKey::MissingKek => Err(Problem::MissingTitlekek {
            nca,
            revision: header.key_revision,
        }),
        TitleKey::Malformed => Err(malformed(&nca, Reason::TicketMalformed)),
    }
}

/// The first section of an NCA, which holds what Meta and Control NCAs carry. An
/// NCZ keeps its NCA's first 0x4000 bytes as they were: a section past them is
/// compressed.
fn first_section<'h>(entry: &ContainerFile, header: &'h Header) -> Result<&'h NcaSection, Problem> {
    let nca = &entry.name;
    let section = header.sections.iter().flatten().next();
    let section = section.ok_or_else(|| malformed(nca, Reason::NoSection))?;
    let compressed = entry.name.ends_with(".ncz");
    if compressed && section.end > 0x4000 {
        return Err(malformed(nca, Reason::SectionCompressed));
    }
    if !compressed && section.end > entry.size {
        return Err(malformed(nca, Reason::SectionPastEnd));
    }
    Ok(section)
}

/// The CNMT of a Meta NCA: its section is a PFS0 holding one `*.cnmt` file.
fn meta<R: Read + Seek>(
    file: &mut R,
    entry: &ContainerFile,
    header: &Header,
    keys: &ProdKeys,
    tickets: &Tickets<'_>,
    budget: &Budget,
) -> Result<Content, Problem> {
    let malformed = |why: Why| malformed(&entry.name, why);
    let section = first_section(entry, header)?;
    if section.fs_type() != 1 || section.hash_type() != 2 {
        return Err(malformed(Reason::SectionNotA("PFS0".into()).into()));
    }
    let key = section_key(file, &entry.name, header, section, keys, tickets)?;
    let mut reader = SectionReader::new(file, entry.offset, section, key);
    let (at, size) = (fs_u64(section, 0x40), fs_u64(section, 0x48));
    let end = at
        .checked_add(size)
        .filter(|&end| end <= reader.size())
        .ok_or_else(|| malformed(Reason::OutsideSection("PFS0".into()).into()))?;
    // A Meta NCA's section is a few KiB: read and decrypted whole, in one go.
    if end > MAX_HEADER {
        return Err(malformed(Reason::CnmtTooLarge.into()));
    }
    budget.bytes(end).map_err(|e| malformed(e.0))?;
    let mut clear = vec![0u8; end as usize];
    reader
        .read_exact(&mut clear)
        .map_err(|_| malformed(Reason::Truncated.into()))?;
    let mut reader = std::io::Cursor::new(clear);
    let pfs0 = containers::read_pfs0(&mut reader, at, end, budget).map_err(|e| malformed(e.0))?;
    let cnmt = pfs0
        .entries
        .iter()
        .find(|e| e.name.ends_with(".cnmt") && e.size <= MAX_HEADER)
        .ok_or_else(|| malformed(Reason::HoldsNo("CNMT".into()).into()))?;
    let bytes =
        read_at(&mut reader, cnmt.offset, cnmt.size as usize).map_err(|e| malformed(e.0))?;
    cnmt::parse(&bytes).map_err(|why| malformed(why.into()))
}

/// The title ID of the CNMT that lists the NCA named `name` (`<id>.nca`).
fn owner(contents: &[Content], name: &str) -> Option<u64> {
    let stem = name.split('.').next()?;
    contents
        .iter()
        .find(|c| {
            c.records.iter().any(|r| {
                let id = hex::encode(r.nca_id);
                id.eq_ignore_ascii_case(stem)
            })
        })
        .map(|c| c.title_id)
}

type ControlData = (nacp::Names, String, Option<Vec<u8>>);

/// Names, display version and icon of a Control NCA: its section is a RomFS.
fn control<R: Read + Seek>(
    file: &mut R,
    entry: &ContainerFile,
    header: &Header,
    keys: &ProdKeys,
    tickets: &Tickets<'_>,
    want: Want,
    budget: &Budget,
) -> Result<ControlData, Problem> {
    let malformed = |why: Why| malformed(&entry.name, why);
    let section = first_section(entry, header)?;
    if section.fs_type() != 0
        || section.hash_type() != 3
        || section.fs.get(0x8..0xC) != Some(b"IVFC")
    {
        return Err(malformed(Reason::SectionNotA("RomFS".into()).into()));
    }
    let key = section_key(file, &entry.name, header, section, keys, tickets)?;
    let mut reader = SectionReader::new(file, entry.offset, section, key);
    // The IVFC's last level (the sixth, at 0x90) is the RomFS itself.
    let (at, size) = (fs_u64(section, 0x90), fs_u64(section, 0x98));
    if at.checked_add(size).is_none_or(|end| end > reader.size()) {
        return Err(malformed(Reason::OutsideSection("RomFS".into()).into()));
    }
    let icons: Vec<String> = match want.icon {
        true => nacp::LANGUAGES
            .iter()
            .map(|l| format!("icon_{l}.dat"))
            .collect(),
        false => Vec::new(),
    };
    let wanted =
        |name: &[u8]| name == b"control.nacp" || icons.iter().any(|i| i.as_bytes() == name);
    let files =
        romfs::root_files(&mut reader, at, size, wanted, budget).map_err(|e| malformed(e.0))?;
    let nacp = files
        .iter()
        .find(|f| f.name == "control.nacp" && f.size >= nacp::SIZE as u64)
        .ok_or_else(|| malformed(Reason::HoldsNo("control.nacp".into()).into()))?;
    let bytes = budget
        .read(&mut reader, nacp.offset, nacp::SIZE)
        .map_err(|e| malformed(e.0))?;
    let (names, version) = nacp::parse(&bytes).map_err(|why| malformed(why.into()))?;
    let icon = match want.icon {
        true => icon(&mut reader, &names, &files, budget).map_err(|e| malformed(e.0))?,
        false => None,
    };
    Ok((names, version, icon))
}

/// The icon of the first language that has a name, else of any language.
fn icon<R: Read + Seek>(
    reader: &mut R,
    names: &nacp::Names,
    files: &[romfs::RootFile],
    budget: &Budget,
) -> Result<Option<Vec<u8>>, FormatError> {
    let order = names.iter().map(|n| n.0 as usize).chain(0..16);
    let found = order
        .filter_map(|i| {
            let name = format!("icon_{}.dat", nacp::LANGUAGES[i]);
            files.iter().find(|f| f.name == name)
        })
        .next();
    match found.filter(|f| f.size > 0 && f.size <= MAX_ICON) {
        Some(f) => budget.read(reader, f.offset, f.size as usize).map(Some),
        None => Ok(None),
    }
}

/// A field of a section's FS header; past its end (never, for a header `nca` made)
/// it reads as a size no section has, which the caller's checks refuse.
fn fs_u64(section: &NcaSection, at: usize) -> u64 {
    bytes::u64le(&section.fs, at).unwrap_or(u64::MAX)
}
