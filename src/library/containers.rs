//! Readers for the containers of Switch game files: PFS0 (.nsp/.nsz), HFS0 and the
//! XCI header (.xci/.xcz), and the NCZ header (a compressed NCA). Shared by the scan,
//! convert and push.
//!
//! Every offset and count is checked against the end of the region it lives in
//! before it is used, header regions are read whole only below [`MAX_HEADER`], and no
//! allocation is sized by a field that was not checked first. Any input gives `Ok` or
//! a [`FormatError`], never a panic. Offsets in the results are absolute file offsets.

use crate::words::Container;
use std::fmt;
use std::io::{Read, Seek, SeekFrom};

/// The largest header region read into memory. Real headers are a few KiB.
pub const MAX_HEADER: u64 = 1 << 20;

/// Why a container could not be read. The text is safe to show (no path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError(pub String);

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn bad(msg: impl Into<String>) -> FormatError {
    FormatError(msg.into())
}

/// Read exactly `len` bytes at `offset`.
pub fn read_at<R: Read + Seek>(r: &mut R, offset: u64, len: usize) -> Result<Vec<u8>, FormatError> {
    let mut buf = vec![0; len];
    r.seek(SeekFrom::Start(offset))
        .and_then(|_| r.read_exact(&mut buf))
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => bad("the file is truncated"),
            _ => bad("the file could not be read"),
        })?;
    Ok(buf)
}

fn u32le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]))
}

fn u64le(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// A file inside a PFS0 or HFS0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    /// Absolute offset of the file's data.
    pub offset: u64,
    pub size: u64,
}

impl Entry {
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }
}

/// A parsed PFS0 or HFS0 header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSystem {
    pub entries: Vec<Entry>,
    /// Size of the string table as declared (padding included).
    pub string_table_size: u32,
    /// Absolute offset of the header, and its size (the data area starts after it).
    pub base: u64,
    pub header_size: u64,
}

impl FileSystem {
    pub fn find(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// Read a PFS0 at `base`, inside a region that ends at `limit`.
pub fn read_pfs0<R: Read + Seek>(
    r: &mut R,
    base: u64,
    limit: u64,
) -> Result<FileSystem, FormatError> {
    read_fs(r, base, limit, b"PFS0", 0x18, false)
}

/// Read an HFS0 at `base`, inside a region that ends at `limit`.
pub fn read_hfs0<R: Read + Seek>(
    r: &mut R,
    base: u64,
    limit: u64,
) -> Result<FileSystem, FormatError> {
    read_fs(r, base, limit, b"HFS0", 0x40, false)
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
        .ok_or_else(|| bad(format!("a {kind} file name lies outside the string table")))?;
    let raw = &raw[..raw.len().min(MAX_NAME + 1)];
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    if end > MAX_NAME {
        return Err(bad(format!("a {kind} file name is too long")));
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
) -> Result<FileSystem, FormatError> {
    let kind = String::from_utf8_lossy(magic).into_owned();
    if base.checked_add(0x10).is_none_or(|end| end > limit) {
        return Err(bad(format!("the {kind} header is truncated")));
    }
    let head = read_at(r, base, 0x10)?;
    if &head[..4] != magic {
        return Err(bad(format!("no {kind} header where one is expected")));
    }
    let count = u32le(&head, 4) as u64;
    let strings = u32le(&head, 8) as u64;
    let header_size = 0x10 + entry_size * count + strings;
    if header_size > MAX_HEADER {
        return Err(bad(format!("the {kind} header declares too many files")));
    }
    if base + header_size > limit {
        return Err(bad(format!(
            "the {kind} header runs past the end of the file"
        )));
    }
    let table = read_at(r, base + 0x10, (header_size - 0x10) as usize)?;
    let names = &table[(entry_size * count) as usize..];
    let data = base + header_size;
    let mut entries = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let e = &table[i * entry_size as usize..];
        let (offset, size, name_at) = (u64le(e, 0), u64le(e, 8), u32le(e, 16) as usize);
        let entry = Entry {
            name: name_in(names, name_at, &kind)?,
            offset: data
                .checked_add(offset)
                .ok_or_else(|| bad("a file offset overflows"))?,
            size,
        };
        if !lenient && entry.offset.checked_add(size).is_none_or(|end| end > limit) {
            return Err(bad(format!(
                "a file inside the {kind} runs past the end of the file"
            )));
        }
        entries.push(entry);
    }
    Ok(FileSystem {
        entries,
        string_table_size: strings as u32,
        base,
        header_size,
    })
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
pub fn read_xci<R: Read + Seek>(r: &mut R, len: u64) -> Result<Xci, FormatError> {
    read_xci_with(r, len, false)
}

/// The first file of a container (`nsp`, `nsz`: its PFS0; `xci`, `xcz`: its secure
/// partition) whose data runs past the end of the file: what a cut download lost.
/// The headers are read leniently, since the strict readers refuse such a file
/// whole; `None` when no file runs past the end or the headers do not read.
pub fn cut_by_end<R: Read + Seek>(r: &mut R, format: &str, len: u64) -> Option<String> {
    let files = match Container::of(format)? {
        c if c.is_pfs0() => read_fs(r, 0, len, b"PFS0", 0x18, true).ok()?,
        _ => read_xci_with(r, len, true)
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
fn read_xci_with<R: Read + Seek>(r: &mut R, len: u64, lenient: bool) -> Result<Xci, FormatError> {
    if len < 0x200 {
        return Err(bad("the file is too short to be a cartridge image"));
    }
    let header_base = if &read_at(r, 0x100, 4)?[..] == b"HEAD" {
        0
    } else if len >= 0x1200 && &read_at(r, 0x1100, 4)?[..] == b"HEAD" {
        0x1000
    } else {
        return Err(bad("no cartridge header (HEAD) where one is expected"));
    };
    let header = read_at(r, header_base, 0x200)?;
    let declared = header_base.saturating_add(u64le(&header, 0x130));
    // Tolerate a root HFS0 that is at the usual place when the header says otherwise.
    let root = read_fs(r, declared, len, b"HFS0", 0x40, true).or_else(|e| {
        let usual = header_base + 0xF000;
        if declared != usual {
            read_fs(r, usual, len, b"HFS0", 0x40, true)
        } else {
            Err(e)
        }
    })?;
    let mut partitions = Vec::new();
    for entry in &root.entries {
        let limit = entry.end().min(len);
        if entry.size == 0 || entry.offset >= len {
            continue;
        }
        let partition = read_fs(r, entry.offset, limit, b"HFS0", 0x40, lenient)?;
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

/// Read the header of an NCZ stored at `base`, inside a region ending at `limit`.
pub fn read_ncz<R: Read + Seek>(r: &mut R, base: u64, limit: u64) -> Result<Ncz, FormatError> {
    let room = limit.saturating_sub(base);
    if room < 0x4010 {
        return Err(bad("the compressed NCA is truncated"));
    }
    let head = read_at(r, base + 0x4000, 0x10)?;
    if &head[..8] != b"NCZSECTN" {
        return Err(bad("no NCZ section header where one is expected"));
    }
    let count = u64le(&head, 8);
    // Bound the count by the entry's size, not by a small constant (patches have many).
    if count == 0 || count > (room - 0x4010) / 0x40 || count * 0x40 > MAX_HEADER {
        return Err(bad("the NCZ section count does not fit in the file"));
    }
    let raw = read_at(r, base + 0x4010, (count * 0x40) as usize)?;
    let sections = raw
        .chunks_exact(0x40)
        .map(|s| NczSection {
            offset: u64le(s, 0),
            size: u64le(s, 8),
            crypto_type: u64le(s, 16),
            key: s[0x20..0x30].try_into().unwrap_or([0; 16]),
            counter: s[0x30..0x40].try_into().unwrap_or([0; 16]),
        })
        .collect();
    let at = base + 0x4010 + count * 0x40;
    if limit - at < 8 {
        return Err(bad("the compressed NCA has no data after its sections"));
    }
    let magic = read_at(r, at, 8)?;
    let body = if &magic[..] == b"NCZBLOCK" {
        read_block_header(r, at, limit)?
    } else if magic[..4] == [0x28, 0xB5, 0x2F, 0xFD] {
        NczBody::Solid { offset: at }
    } else {
        return Err(bad(
            "the compressed NCA has neither a block header nor a zstd stream",
        ));
    };
    Ok(Ncz {
        base,
        sections,
        body,
    })
}

fn read_block_header<R: Read + Seek>(
    r: &mut R,
    at: u64,
    limit: u64,
) -> Result<NczBody, FormatError> {
    if limit - at < 0x18 {
        return Err(bad("the NCZ block header is truncated"));
    }
    let h = read_at(r, at, 0x18)?;
    let exponent = h[0x0B];
    if !(14..=32).contains(&exponent) {
        return Err(bad("the NCZ block size is out of range"));
    }
    let count = u32le(&h, 0x0C) as u64;
    let decompressed = u64le(&h, 0x10);
    let expected = decompressed.div_ceil(1u64 << exponent);
    if count != expected {
        return Err(bad("the NCZ block count does not match the declared size"));
    }
    if 0x18 + 4 * count > limit - at || 4 * count > MAX_HEADER {
        return Err(bad("the NCZ block table runs past the end of the file"));
    }
    let table = read_at(r, at + 0x18, (4 * count) as usize)?;
    let sizes: Vec<u32> = table.chunks_exact(4).map(|c| u32le(c, 0)).collect();
    let offset = at + 0x18 + 4 * count;
    let total: u64 = sizes.iter().map(|&s| s as u64).sum();
    if total > limit - offset {
        return Err(bad("the NCZ blocks run past the end of the file"));
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
        let _ = read_pfs0(&mut c, 0, len);
        let _ = read_hfs0(&mut c, 0, len);
        let _ = read_xci(&mut c, len);
        let _ = read_ncz(&mut c, 0, len);
        if let Ok(fs) = read_pfs0(&mut c, 0, len) {
            for e in &fs.entries {
                let _ = read_ncz(&mut c, e.offset, e.end());
            }
        }
        if let Ok(xci) = read_xci(&mut c, len) {
            for (_, p) in &xci.partitions {
                for e in &p.entries {
                    let _ = read_ncz(&mut c, e.offset, e.end());
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

    #[test]
    fn huge_declared_counts_are_refused_before_allocating() {
        let mut pfs0 = b"PFS0".to_vec();
        pfs0.extend_from_slice(&u32::MAX.to_le_bytes());
        pfs0.extend_from_slice(&u32::MAX.to_le_bytes());
        pfs0.extend_from_slice(&[0; 4]);
        let e = read_pfs0(&mut Cursor::new(&pfs0), 0, pfs0.len() as u64).unwrap_err();
        assert!(e.0.contains("too many"), "{e}");
    }

    #[test]
    fn synthetic_containers_read_back() {
        let mut rng = StdRng::seed_from_u64(3);
        let nca = synth::simple_nca(&mut rng, 0x9000);
        let ncz = synth::ncz_block(&nca, 14);
        let nsz = synth::pfs0(&[(nca.ncz_name(), ncz.clone()), ("x.tik".into(), vec![7; 10])]);
        let fs = read_pfs0(&mut Cursor::new(&nsz), 0, nsz.len() as u64).unwrap();
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
        let parsed = read_xci(&mut Cursor::new(&xci), xci.len() as u64).unwrap();
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
            let fs = read_pfs0(&mut Cursor::new(&bytes), 0, bytes.len() as u64).unwrap();
            let ncz = fs
                .entries
                .iter()
                .find(|e| e.name.ends_with(".ncz"))
                .unwrap();
            read_ncz(&mut Cursor::new(&bytes), ncz.offset, ncz.end()).unwrap();
        }
        for name in ["synth_block.xcz", "stress_block.xcz", "synth.expected.xci"] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let xci = read_xci(&mut Cursor::new(&bytes), bytes.len() as u64).unwrap();
            assert!(xci.partition("secure").is_some(), "{name}");
        }
    }
}
