//! Readers for the containers of Switch game files: PFS0 (.nsp/.nsz), HFS0 and the
//! XCI header (.xci/.xcz), and the NCZ header (a compressed NCA). Shared by the scan,
//! convert and push.
//!
//! Every offset and count is checked against the end of the region it lives in
//! before it is used, header regions are read whole only below [`MAX_HEADER`], and no
//! allocation is sized by a field that was not checked first. Any input gives `Ok` or
//! a [`FormatError`], never a panic. Offsets in the results are absolute file offsets.
//!
//! A file's tables are read once each: the files of one table may not share bytes
//! (many entries pointing at one region would otherwise have that region read and
//! kept once per entry), a cartridge's root lists at most the four partitions real
//! ones have, and one [`Budget`] per file bounds the entries and header bytes read
//! across all of its tables, whoever reads them (scan, verify, convert, compress).

use std::cell::Cell;
use std::fmt;
use std::io::{Read, Seek, SeekFrom};

use super::bytes::{array, u32le, u64le};
use crate::error::{Reason, Why};
use crate::words::Container;

/// The largest header region read into memory. Real headers are a few KiB.
pub const MAX_HEADER: u64 = 1 << 20;

/// Why a container could not be read: a reason, safe to show (no path), said in the
/// reader's language where it is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError(pub Why);

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<Reason> for FormatError {
    fn from(reason: Reason) -> FormatError {
        FormatError(reason.into())
    }
}

impl FormatError {
    /// A read that failed for the disk's sake, not the file's.
    pub fn is_read_failure(&self) -> bool {
        self.0.is(&Reason::ReadFailed)
    }
}

fn bad(reason: Reason) -> FormatError {
    reason.into()
}

/// Run the reading of one file: a panic in it (a fault of ours that the file found)
/// is that file's damage, [`Reason::ReaderFailed`], never the end of a task or of the
/// service. The log gets what failed; the caller names the file.
pub fn guard<T>(work: impl FnOnce() -> T) -> Result<T, FormatError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        log::error!("a reader failed: {what}");
        bad(Reason::ReaderFailed)
    })
}

/// A field the length checks should already have kept within its table.
fn field<T>(v: Option<T>) -> Result<T, FormatError> {
    v.ok_or_else(|| bad(Reason::FieldPastTable))
}

/// The most entries one file's tables may list, all tables together. A real file
/// lists tens, a cartridge with every DLC some hundreds.
pub const MAX_ENTRIES: u64 = 1 << 16;
/// The most header bytes read from one file, all tables together (the keyed
/// reader's NCA headers, sections and tickets included). The largest real table, an
/// NCZ block table for a 32 GiB game in 16 KiB blocks, is 8 MiB.
pub const MAX_HEADER_BYTES: u64 = 32 << 20;

/// What reading one file's headers may cost: entries listed and header bytes read,
/// counted across every table of the file. Made once per file ([`Budget::file`]) and
/// handed to every reader of it; a file past it is damaged, with that reason.
#[derive(Debug)]
pub struct Budget {
    entries: Cell<u64>,
    bytes: Cell<u64>,
}

impl Budget {
    pub fn file() -> Budget {
        Budget {
            entries: Cell::new(MAX_ENTRIES),
            bytes: Cell::new(MAX_HEADER_BYTES),
        }
    }

    fn take(left: &Cell<u64>, n: u64, past: Reason) -> Result<(), FormatError> {
        match left.get().checked_sub(n) {
            Some(rest) => {
                left.set(rest);
                Ok(())
            }
            None => Err(bad(past)),
        }
    }

    /// Count `n` entries of a table before they are kept.
    pub fn entries(&self, n: u64) -> Result<(), FormatError> {
        let past = Reason::TooManyEntries;
        Self::take(&self.entries, n, past)
    }

    /// Count `n` header bytes read some other way (a section decrypted whole).
    pub fn bytes(&self, n: u64) -> Result<(), FormatError> {
        let past = Reason::TooManyHeaderBytes;
        Self::take(&self.bytes, n, past)
    }

    /// [`read_at`], counted against the file's header bytes first.
    pub fn read<R: Read + Seek>(
        &self,
        r: &mut R,
        offset: u64,
        len: usize,
    ) -> Result<Vec<u8>, FormatError> {
        self.bytes(len as u64)?;
        read_at(r, offset, len)
    }
}

/// Read exactly `len` bytes at `offset`.
pub fn read_at<R: Read + Seek>(r: &mut R, offset: u64, len: usize) -> Result<Vec<u8>, FormatError> {
    let mut buf = vec![0; len];
    r.seek(SeekFrom::Start(offset))
        .and_then(|_| r.read_exact(&mut buf))
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => bad(Reason::Truncated),
            _ => bad(Reason::ReadFailed),
        })?;
    Ok(buf)
}

/// A file inside a PFS0 or HFS0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerFile {
    pub name: String,
    /// Absolute offset of the file's data.
    pub offset: u64,
    pub size: u64,
}

impl ContainerFile {
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }
}

/// A parsed PFS0 or HFS0 header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSystem {
    pub entries: Vec<ContainerFile>,
    /// Size of the string table as declared (padding included).
    pub string_table_size: u32,
    /// Absolute offset of the header, and its size (the data area starts after it).
    pub base: u64,
    pub header_size: u64,
}

/// Read a PFS0 at `base`, inside a region that ends at `limit`.
pub fn read_pfs0<R: Read + Seek>(
    r: &mut R,
    base: u64,
    limit: u64,
    budget: &Budget,
) -> Result<FileSystem, FormatError> {
    read_fs(r, base, limit, b"PFS0", 0x18, false, budget)
}

/// The longest file name taken from a string table. Real names are 40-odd bytes
/// (`<content id>.cnmt.nca`); without a cap, entries all pointing at one long name
/// would each copy the rest of the table.
const MAX_NAME: usize = 255;

/// The NUL-ended name at `at` in a string table.
fn name_in(names: &[u8], at: usize, kind: &str) -> Result<String, FormatError> {
    let raw = names
        .get(at..)
        .filter(|raw| !raw.is_empty())
        .ok_or_else(|| bad(Reason::NameOutside(kind.into())))?;
    let raw = &raw[..raw.len().min(MAX_NAME + 1)];
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    if end > MAX_NAME {
        return Err(bad(Reason::NameTooLong(kind.into())));
    }
    Ok(String::from_utf8_lossy(&raw[..end]).into_owned())
}

/// The shared layout of PFS0 and HFS0. With `lenient`, entries whose data runs past
/// `limit` are kept (an XCI's last, empty partition may declare more than the file).
fn read_fs<R: Read + Seek>(
    r: &mut R,
    base: u64,
    limit: u64,
    magic: &[u8; 4],
    entry_size: u64,
    lenient: bool,
    budget: &Budget,
) -> Result<FileSystem, FormatError> {
    let kind = String::from_utf8_lossy(magic).into_owned();
    if base.checked_add(0x10).is_none_or(|end| end > limit) {
        return Err(bad(Reason::HeaderTruncated(kind)));
    }
    let head = budget.read(r, base, 0x10)?;
    if head[..4] != magic[..] {
        return Err(bad(Reason::NoHeader(kind)));
    }
    let count = field(u32le(&head, 4))? as u64;
    let strings = field(u32le(&head, 8))? as u64;
    let header_size = 0x10 + entry_size * count + strings;
    if header_size > MAX_HEADER {
        return Err(bad(Reason::TooManyFiles(kind)));
    }
    if base + header_size > limit {
        return Err(bad(Reason::HeaderPastEnd(kind)));
    }
    budget.entries(count)?;
    let table = budget.read(r, base + 0x10, (header_size - 0x10) as usize)?;
    let names = &table[(entry_size * count) as usize..];
    let data = base + header_size;
    let mut entries = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let e = &table[i * entry_size as usize..];
        let (offset, size) = (field(u64le(e, 0))?, field(u64le(e, 8))?);
        let entry = ContainerFile {
            name: name_in(names, field(u32le(e, 16))? as usize, &kind)?,
            offset: data
                .checked_add(offset)
                .ok_or_else(|| bad(Reason::OffsetOverflows))?,
            size,
        };
        if !lenient && entry.offset.checked_add(size).is_none_or(|end| end > limit) {
            return Err(bad(Reason::FilePastEnd(kind)));
        }
        entries.push(entry);
    }
    no_shared_bytes(&entries, &kind)?;
    Ok(FileSystem {
        entries,
        string_table_size: strings as u32,
        base,
        header_size,
    })
}

/// The files of one table each have bytes of their own. Entries that point at one
/// region (or overlap) are what turns a small file into a bomb: every reader after
/// this one would read and keep that region once per entry. Empty files are exempt.
fn no_shared_bytes(entries: &[ContainerFile], kind: &str) -> Result<(), FormatError> {
    let mut spans: Vec<(u64, u64)> = entries
        .iter()
        .filter(|e| e.size > 0)
        .map(|e| (e.offset, e.end()))
        .collect();
    spans.sort_unstable();
    match spans.windows(2).any(|w| w[1].0 < w[0].1) {
        true => Err(bad(Reason::SharedBytes(kind.into()))),
        false => Ok(()),
    }
}

/// A parsed XCI: where its header is and the partitions of its root HFS0.
#[derive(Debug, Clone)]
pub struct Xci {
    /// 0, or 0x1000 for a "full" XCI with a key area before the header.
    pub header_base: u64,
    pub root: FileSystem,
    /// The partitions (`update`, `normal`, `secure`, `logo`) that could be read.
    pub partitions: Vec<(String, FileSystem)>,
}

impl Xci {
    pub fn partition(&self, name: &str) -> Option<&FileSystem> {
        self.partitions
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
    }
}

/// Read an XCI (or XCZ) of `len` bytes.
pub fn read_xci<R: Read + Seek>(r: &mut R, len: u64, budget: &Budget) -> Result<Xci, FormatError> {
    read_xci_with(r, len, false, budget)
}

/// The files of the container: the PFS0's, or the XCI's `secure` partition's (`None`
/// when it has none); `Err` for a damaged container.
pub fn game_files<R: Read + Seek>(
    r: &mut R,
    len: u64,
    format: &str,
    budget: &Budget,
) -> Result<Option<Vec<ContainerFile>>, FormatError> {
    Ok(
        match Container::of(format).is_some_and(Container::is_pfs0) {
            true => Some(read_pfs0(r, 0, len, budget)?.entries),
            false => read_xci(r, len, budget)?
                .partition("secure")
                .map(|p| p.entries.clone()),
        },
    )
}

/// The partitions of a real cartridge's root: `update`, `normal`, `secure`, `logo`.
pub const MAX_PARTITIONS: usize = 4;

/// The first file of a container (`nsp`, `nsz`: its PFS0; `xci`, `xcz`: its secure
/// partition) whose data runs past the end of the file: what a cut download lost.
/// The headers are read leniently, since the strict readers refuse such a file
/// whole; `None` when no file runs past the end or the headers do not read.
pub fn cut_by_end<R: Read + Seek>(r: &mut R, format: &str, len: u64) -> Option<String> {
    let budget = &Budget::file();
    let files = match Container::of(format)? {
        c if c.is_pfs0() => read_fs(r, 0, len, b"PFS0", 0x18, true, budget).ok()?,
        _ => read_xci_with(r, len, true, budget)
            .ok()?
            .partition("secure")?
            .clone(),
    };
    files
        .entries
        .into_iter()
        .find(|e| e.offset.checked_add(e.size).is_none_or(|end| end > len))
        .map(|e| e.name)
}

/// [`read_xci`]; with `lenient`, a partition's files may run past the end of the file.
fn read_xci_with<R: Read + Seek>(
    r: &mut R,
    len: u64,
    lenient: bool,
    budget: &Budget,
) -> Result<Xci, FormatError> {
    if len < 0x200 {
        return Err(bad(Reason::TooShortForXci));
    }
    let header_base = if budget.read(r, 0x100, 4)? == b"HEAD" {
        0
    } else if len >= 0x1200 && budget.read(r, 0x1100, 4)? == b"HEAD" {
        0x1000
    } else {
        return Err(bad(Reason::NoXciHeader));
    };
    let header = budget.read(r, header_base, 0x200)?;
    let declared = header_base.saturating_add(field(u64le(&header, 0x130))?);
    // Tolerate a root HFS0 that is at the usual place when the header says otherwise.
    let hfs0 = |r: &mut R, at| read_fs(r, at, len, b"HFS0", 0x40, true, budget);
    let root = hfs0(r, declared).or_else(|e| {
        let usual = header_base + 0xF000;
        if declared != usual {
            hfs0(r, usual)
        } else {
            Err(e)
        }
    })?;
    if root.entries.len() > MAX_PARTITIONS {
        return Err(bad(Reason::TooManyPartitions));
    }
    let mut partitions = Vec::new();
    for entry in &root.entries {
        let limit = entry.end().min(len);
        if entry.size == 0 || entry.offset >= len {
            continue;
        }
        let partition = read_fs(r, entry.offset, limit, b"HFS0", 0x40, lenient, budget)?;
        partitions.push((entry.name.clone(), partition));
    }
    Ok(Xci {
        header_base,
        root,
        partitions,
    })
}

/// One section of an NCZ: a region of the NCA and how it was encrypted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NczSection {
    pub offset: u64,
    pub size: u64,
    pub crypto_type: u64,
    pub key: [u8; 16],
    pub counter: [u8; 16],
}

/// How the compressed stream after the section table is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NczBody {
    /// One zstd stream starting at `offset` (absolute).
    Solid { offset: u64 },
    /// Independent blocks of `2^exponent` bytes.
    Block {
        exponent: u8,
        /// Decompressed size of the stream: NCA size − 0x4000.
        decompressed: u64,
        /// Compressed size of each block.
        sizes: Vec<u32>,
        /// Absolute offset of the first block.
        offset: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ncz {
    /// Absolute offset of the NCZ (its first 0x4000 bytes are the NCA's, verbatim).
    pub base: u64,
    pub sections: Vec<NczSection>,
    pub body: NczBody,
}

/// How many times its compressed size a zstd stream can hold at the most: a block of
/// 128 KiB of one byte repeated is 4 bytes (a 3-byte block header and the byte). An
/// NCZ that declares more than this is lying, however it would decompress.
pub const MAX_RATIO: u64 = 1 << 15;

/// Read the header of an NCZ stored at `base`, inside a region ending at `limit`.
/// The sections' ends are checked sums, and the size they declare must fit in what
/// the compressed bytes after them could hold ([`MAX_RATIO`]): a size no real content
/// could have is damage, never a number to plan with.
pub fn read_ncz<R: Read + Seek>(
    r: &mut R,
    base: u64,
    limit: u64,
    budget: &Budget,
) -> Result<Ncz, FormatError> {
    let room = limit.saturating_sub(base);
    if room < 0x4010 {
        return Err(bad(Reason::NczTruncated));
    }
    let head = budget.read(r, base + 0x4000, 0x10)?;
    if head[..8] != b"NCZSECTN"[..] {
        return Err(bad(Reason::NoNczSections));
    }
    let count = field(u64le(&head, 8))?;
    // Bound the count by the entry's size, not by a small constant (patches have many).
    if count == 0 || count > (room - 0x4010) / 0x40 || count * 0x40 > MAX_HEADER {
        return Err(bad(Reason::NczSectionCount));
    }
    budget.entries(count)?;
    let raw = budget.read(r, base + 0x4010, (count * 0x40) as usize)?;
    let sections = raw
        .chunks_exact(0x40)
        .map(ncz_section)
        .collect::<Result<Vec<_>, _>>()?;
    let at = base + 0x4010 + count * 0x40;
    if limit - at < 8 {
        return Err(bad(Reason::NczNoData));
    }
    let declared = sections
        .iter()
        .map(|s| s.offset + s.size)
        .max()
        .unwrap_or(0)
        .saturating_sub(0x4000);
    plausible(declared, limit - at)?;
    let magic = budget.read(r, at, 8)?;
    let body = if magic[..] == b"NCZBLOCK"[..] {
        read_block_header(r, at, limit, budget)?
    } else if magic[..4] == [0x28, 0xB5, 0x2F, 0xFD] {
        NczBody::Solid { offset: at }
    } else {
        return Err(bad(Reason::NczNoStream));
    };
    Ok(Ncz {
        base,
        sections,
        body,
    })
}

/// One entry of an NCZ's section table, its end a checked sum.
fn ncz_section(s: &[u8]) -> Result<NczSection, FormatError> {
    let section = NczSection {
        offset: field(u64le(s, 0))?,
        size: field(u64le(s, 8))?,
        crypto_type: field(u64le(s, 16))?,
        key: field(array(s, 0x20))?,
        counter: field(array(s, 0x30))?,
    };
    match section.offset.checked_add(section.size) {
        Some(_) => Ok(section),
        None => Err(bad(Reason::NczSectionOverflows)),
    }
}

/// `declared` bytes can come out of `compressed` bytes of zstd.
fn plausible(declared: u64, compressed: u64) -> Result<(), FormatError> {
    match compressed.checked_mul(MAX_RATIO) {
        Some(most) if declared > most => Err(bad(Reason::NczImplausible)),
        _ => Ok(()),
    }
}

fn read_block_header<R: Read + Seek>(
    r: &mut R,
    at: u64,
    limit: u64,
    budget: &Budget,
) -> Result<NczBody, FormatError> {
    if limit - at < 0x18 {
        return Err(bad(Reason::NczBlockHeaderTruncated));
    }
    let h = budget.read(r, at, 0x18)?;
    let exponent = h[0x0B];
    if !(14..=32).contains(&exponent) {
        return Err(bad(Reason::NczBlockSize));
    }
    let count = field(u32le(&h, 0x0C))? as u64;
    let decompressed = field(u64le(&h, 0x10))?;
    plausible(decompressed, limit - at)?;
    let expected = decompressed.div_ceil(1u64 << exponent);
    if count != expected {
        return Err(bad(Reason::NczBlockCount));
    }
    // The file's budget bounds the table: a real 32 GiB game in 16 KiB blocks has 8 MiB.
    if 0x18 + 4 * count > limit - at || 4 * count > MAX_HEADER_BYTES {
        return Err(bad(Reason::NczBlockTable));
    }
    // Its blocks are counted as the bytes of their table: a real game's run to the
    // hundreds of thousands.
    let table = budget.read(r, at + 0x18, (4 * count) as usize)?;
    let sizes: Vec<u32> = table
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let offset = at + 0x18 + 4 * count;
    let total: u64 = sizes.iter().map(|&s| s as u64).sum();
    if total > limit - offset {
        return Err(bad(Reason::NczBlocksPastEnd));
    }
    Ok(NczBody::Block {
        exponent,
        decompressed,
        sizes,
        offset,
    })
}

/// Property tests over random and mutated inputs: every reader returns `Ok` or an
/// error on anything, never panics, and never allocates past what it checked.
#[cfg(test)]
mod fuzz {
    use std::io::Cursor;

    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::library::synth;

    fn all_readers(bytes: &[u8]) {
        let len = bytes.len() as u64;
        let mut c = Cursor::new(bytes);
        let _ = read_pfs0(&mut c, 0, len, &Budget::file());
        let _ = read_xci(&mut c, len, &Budget::file());
        let _ = read_ncz(&mut c, 0, len, &Budget::file());
        if let Ok(fs) = read_pfs0(&mut c, 0, len, &Budget::file()) {
            for e in &fs.entries {
                let _ = read_ncz(&mut c, e.offset, e.end(), &Budget::file());
            }
        }
        if let Ok(xci) = read_xci(&mut c, len, &Budget::file()) {
            for (_, p) in &xci.partitions {
                for e in &p.entries {
                    let _ = read_ncz(&mut c, e.offset, e.end(), &Budget::file());
                }
            }
        }
    }

    fn seeds(rng: &mut StdRng) -> Vec<Vec<u8>> {
        let nca = synth::simple_nca(rng, 0x9000);
        let ncz_b = synth::ncz_block(&nca, 14);
        let ncz_s = synth::ncz_solid(&nca);
        vec![
            synth::pfs0(&[
                (nca.ncz_name(), ncz_b.clone()),
                ("a.tik".into(), vec![1; 64]),
            ]),
            synth::pfs0(&[(nca.ncz_name(), ncz_s)]),
            synth::xci(&[
                ("update", vec![]),
                ("secure", vec![(nca.ncz_name(), ncz_b.clone())]),
            ]),
            ncz_b,
        ]
    }

    /// Mutations that hit the fields that matter: counts, sizes, offsets, magics.
    fn mutate(rng: &mut StdRng, seed: &[u8]) -> Vec<u8> {
        let mut b = seed.to_vec();
        match rng.random_range(0..5) {
            0 => b.truncate(rng.random_range(0..b.len())),
            1 => {
                for _ in 0..rng.random_range(1..8) {
                    let i = rng.random_range(0..b.len());
                    b[i] = rng.random();
                }
            }
            2 => {
                // Overwrite a little-endian word with an extreme value.
                let i = rng.random_range(0..b.len().saturating_sub(8).max(1));
                let v: u64 =
                    [0, 1, u32::MAX as u64, u64::MAX, 1 << 40, 0x4000][rng.random_range(0..6)];
                let n = (b.len() - i).min(8);
                b[i..i + n].copy_from_slice(&v.to_le_bytes()[..n]);
            }
            3 => {
                // Header region only: where counts and offsets live.
                let end = b.len().min(0x4100);
                for _ in 0..4 {
                    let i = rng.random_range(0..end);
                    b[i] ^= 1 << rng.random_range(0..8);
                }
            }
            _ => b.extend((0..rng.random_range(0..64)).map(|_| rng.random::<u8>())),
        }
        b
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..3000 {
            let len = rng.random_range(0..0x5000);
            let mut bytes = vec![0u8; len];
            rng.fill(&mut bytes[..]);
            if len >= 4 && rng.random_bool(0.5) {
                let magic: &[u8] = [&b"PFS0"[..], b"HFS0"][rng.random_range(0..2)];
                bytes[..4].copy_from_slice(magic);
            }
            all_readers(&bytes);
        }
    }

    #[test]
    fn mutated_containers_never_panic() {
        let mut rng = StdRng::seed_from_u64(2);
        let seeds = seeds(&mut rng);
        for _ in 0..4000 {
            let seed = &seeds[rng.random_range(0..seeds.len())];
            all_readers(&mutate(&mut rng, seed));
        }
    }

    /// Every entry of a real container cut to 0 to 8 bytes: errors, never panics.
    #[test]
    fn every_entry_cut_short_never_panics() {
        let mut rng = StdRng::seed_from_u64(4);
        for seed in seeds(&mut rng) {
            let len = seed.len() as u64;
            let Ok(fs) = read_pfs0(&mut Cursor::new(&seed), 0, len, &Budget::file()) else {
                continue;
            };
            for e in &fs.entries {
                for keep in 0..=8u64 {
                    let mut cut = seed.clone();
                    let at = e.offset as usize + keep.min(e.size) as usize;
                    cut.truncate(at);
                    all_readers(&cut);
                }
            }
        }
    }

    #[test]
    fn huge_declared_counts_are_refused_before_allocating() {
        let mut pfs0 = b"PFS0".to_vec();
        pfs0.extend_from_slice(&u32::MAX.to_le_bytes());
        pfs0.extend_from_slice(&u32::MAX.to_le_bytes());
        pfs0.extend_from_slice(&[0; 4]);
        let e = read_pfs0(
            &mut Cursor::new(&pfs0),
            0,
            pfs0.len() as u64,
            &Budget::file(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("too many"), "{e}");
    }

    #[test]
    fn synthetic_containers_read_back() {
        let mut rng = StdRng::seed_from_u64(3);
        let nca = synth::simple_nca(&mut rng, 0x9000);
        let ncz = synth::ncz_block(&nca, 14);
        let nsz = synth::pfs0(&[(nca.ncz_name(), ncz.clone()), ("x.tik".into(), vec![7; 10])]);
        let fs = read_pfs0(&mut Cursor::new(&nsz), 0, nsz.len() as u64, &Budget::file()).unwrap();
        assert_eq!(fs.entries.len(), 2);
        assert_eq!(fs.entries[0].name, nca.ncz_name());
        assert_eq!(
            &nsz[fs.entries[1].offset as usize..fs.entries[1].end() as usize],
            &[7; 10]
        );
        let parsed = read_ncz(
            &mut Cursor::new(&nsz),
            fs.entries[0].offset,
            fs.entries[0].end(),
            &Budget::file(),
        )
        .unwrap();
        assert_eq!(parsed.sections.len(), 2);
        match parsed.body {
            NczBody::Block {
                exponent,
                decompressed,
                ref sizes,
                ..
            } => {
                assert_eq!((exponent, decompressed), (14, 0x9000 - 0x4000));
                assert_eq!(sizes.len(), 2);
            }
            _ => panic!("block mode expected"),
        }
        let xci = synth::xci(&[
            ("update", vec![]),
            ("normal", vec![]),
            ("secure", vec![("t.tik".into(), vec![1; 5])]),
        ]);
        let parsed = read_xci(&mut Cursor::new(&xci), xci.len() as u64, &Budget::file()).unwrap();
        assert_eq!(parsed.root.entries.len(), 3);
        assert_eq!(parsed.partition("secure").unwrap().entries[0].name, "t.tik");
    }

    /// The reference fixtures (made by the reference tool's inputs) parse too.
    #[test]
    fn the_reference_fixtures_parse() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nsz");
        assert!(dir.exists(), "tests/fixtures/nsz is part of the repository");
        for name in [
            "synth_block.nsz",
            "synth_solid.nsz",
            "stress_block.nsz",
            "stress_solid.nsz",
        ] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let fs = read_pfs0(
                &mut Cursor::new(&bytes),
                0,
                bytes.len() as u64,
                &Budget::file(),
            )
            .unwrap();
            let ncz = fs
                .entries
                .iter()
                .find(|e| e.name.ends_with(".ncz"))
                .unwrap();
            read_ncz(
                &mut Cursor::new(&bytes),
                ncz.offset,
                ncz.end(),
                &Budget::file(),
            )
            .unwrap();
        }
        for name in ["synth_block.xcz", "stress_block.xcz", "synth.expected.xci"] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let xci = read_xci(
                &mut Cursor::new(&bytes),
                bytes.len() as u64,
                &Budget::file(),
            )
            .unwrap();
            assert!(xci.partition("secure").is_some(), "{name}");
        }
    }
}
