//! Converting one compressed file: `.nsz` → `.nsp`, `.xcz` → `.xci`.
//!
//! The output is rebuilt exactly as `docs/nsz.md` says (so that it matches
//! the reference tool byte for byte), written to `NAME.part` beside the original,
//! checked NCA by NCA against the content IDs in their names, fsynced, and linked to
//! its final name (never over an existing file). Only then does the original go to
//! the trash (reason `converted`). On any failure the part file is removed and the
//! original stays where it is. The one part file in progress is recorded in the
//! database first, so a process killed mid-way leaves nothing behind after a restart.

mod bktr;
pub mod compress;
pub mod compress_one;
pub mod ncz;
pub(crate) mod replace;
pub mod verify;

use crate::tree::Folders;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use crate::error::{Error, Msg, Reason};
use crate::library::containers::{self, Budget, ContainerFile, FileSystem, FormatError};
use crate::library::safe::{start_writeback, WRITEBACK_EVERY};
use crate::library::{self, LibraryKey};
use crate::store::settings;
use crate::words::{Container, TrashReason};
pub use replace::clean_work;
use replace::{replace_via_part, PartFail, Swap};

const BUFFER: usize = 1 << 20;

/// What a conversion needs to know besides the file.
pub struct Options {
    pub retention_days: u32,
    /// Keep an output whose NCAs do not match their content IDs (off by default).
    pub accept_unverified: bool,
    /// The console keys the output is identified with, as a scan would.
    pub keys: Option<std::sync::Arc<crate::library::switchfs::prodkeys::Loaded>>,
    /// Where the output is written while it is made (`--work-dir`).
    pub work: Option<std::path::PathBuf>,
    /// Set to stop (the task's cancel), looked at where `on_write` is not called.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// One file of the output container and where its bytes come from. An NCZ's
/// tables are not kept here: its header is read again when its turn comes to be
/// written, so a plan costs a few bytes per file whatever the file declares.
struct Part {
    name: String,
    size: u64,
    src: ContainerFile,
    compressed: bool,
}

/// Sizes that add up past what any disk holds: only a hostile file declares them.
fn total(mut sizes: impl Iterator<Item = u64>, first: u64) -> Result<u64, FormatError> {
    sizes
        .try_fold(first, u64::checked_add)
        .ok_or_else(|| FormatError::from(Reason::SizesPastDisk))
}

/// The output file's key for a compressed key: same folder, same base name.
fn output_key(key: &LibraryKey) -> Option<LibraryKey> {
    let (stem, ext) = key.rsplit_once('.')?;
    let out = match Container::of(ext) {
        Some(c) if c.is_compressed() => format!("{stem}.{}", c.decompressed()),
        _ => return None,
    };
    LibraryKey::parse(&out)
}

/// The size the output of a compressed file will have (for progress totals and the
/// free-space check): read from the headers one NCZ at a time, with checked sums.
/// 0 when the file cannot be opened (the conversion will say why); an `Err` when its
/// headers are damaged or declare what no real file could, which the caller records
/// ([`planned_or_flagged`]) so the file is never planned again.
pub fn planned_size(lib: &Folders, key: &LibraryKey) -> Result<u64, FormatError> {
    let Ok(mut f) = library::safe::open_key(lib, key) else {
        return Ok(0);
    };
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return Ok(0);
    };
    let budget = &Budget::file();
    if Container::of_name(key) == Some(Container::Nsz) {
        let fs = containers::read_pfs0(&mut f, 0, len, budget)?;
        Ok(NspLayout::new(&fs, plan(&mut f, &fs, budget)?)?.size)
    } else {
        let xci = containers::read_xci(&mut f, len, budget)?;
        Ok(XciLayout::new(&mut f, &xci, budget)?.size)
    }
}

/// [`planned_size`]; a file whose headers are damaged is flagged damaged with the
/// reason (it then leaves the files to convert and verify) and counts 0.
pub fn planned_or_flagged(db: &Connection, lib: &Folders, key: &LibraryKey) -> u64 {
    match containers::guard(|| planned_size(lib, key)).and_then(|planned| planned) {
        Ok(size) => size,
        // A read that failed (a disk or a share's hiccup) says nothing of the file.
        Err(e) if e.is_read_failure() => 0,
        Err(e) => {
            log::warn!("{key}: not planned, damaged: {e}");
            let why = Msg::FileDamaged { detail: e.0.into() };
            if let Err(e) = crate::store::games::set_damage(db, key, &why) {
                log::error!("{key}: could not be flagged damaged: {e}");
            }
            0
        }
    }
}

/// Where everything goes in a rebuilt .nsp (the spec's PFS0 rule).
struct NspLayout {
    parts: Vec<Part>,
    strings: usize,
    header_size: u64,
    /// Where the first file's data starts (the input's first data offset).
    first: u64,
    /// The whole output's size: every sum that writing it makes is within it.
    size: u64,
}

impl NspLayout {
    fn new(fs: &FileSystem, parts: Vec<Part>) -> Result<NspLayout, FormatError> {
        let names_len: usize = parts.iter().map(|p| p.name.len() + 1).sum();
        let strings = (fs.string_table_size as usize).max(names_len);
        let header_size = 0x10 + 0x18 * parts.len() as u64 + strings as u64;
        let first = parts
            .first()
            .map_or(header_size, |p| p.src.offset)
            .max(header_size);
        let size = total(parts.iter().map(|p| p.size), first)?;
        Ok(NspLayout {
            parts,
            strings,
            header_size,
            first,
            size,
        })
    }

    fn header(&self) -> Vec<u8> {
        let mut header = Vec::with_capacity(self.header_size as usize);
        header.extend_from_slice(b"PFS0");
        header.extend_from_slice(&(self.parts.len() as u32).to_le_bytes());
        header.extend_from_slice(&(self.strings as u32).to_le_bytes());
        header.extend_from_slice(&[0; 4]);
        let (mut data_at, mut name_at) = (self.first - self.header_size, 0u32);
        for p in &self.parts {
            header.extend_from_slice(&data_at.to_le_bytes());
            header.extend_from_slice(&p.size.to_le_bytes());
            header.extend_from_slice(&name_at.to_le_bytes());
            header.extend_from_slice(&[0; 4]);
            data_at += p.size;
            name_at += p.name.len() as u32 + 1;
        }
        for p in &self.parts {
            header.extend_from_slice(p.name.as_bytes());
            header.push(0);
        }
        header.resize(self.header_size as usize, 0);
        header
    }
}

/// One partition of a rebuilt .xci.
struct Partition {
    name: String,
    parts: Vec<Part>,
    hlen: u64,
    size: u64,
}

/// Where everything goes in a rebuilt .xci (the spec's XCI rule): the root HFS0 at
/// 0xF000, the first partition at 0xF000 + 0x8000, each partition's header 0x8000
/// before its data, an empty partition as a bare header.
struct XciLayout {
    partitions: Vec<Partition>,
    /// The whole output's size: every sum that writing it makes is within it.
    size: u64,
}

impl XciLayout {
    fn new(
        input: &mut File,
        xci: &containers::Xci,
        budget: &Budget,
    ) -> Result<XciLayout, FormatError> {
        let mut partitions = Vec::new();
        for entry in &xci.root.entries {
            let parts = match xci.partition(&entry.name) {
                Some(fs) => plan(input, fs, budget)?,
                None => Vec::new(),
            };
            let strtab = hfs0_strings(parts.iter().map(|p| p.name.as_str()));
            let hlen = 0x10 + 0x40 * parts.len() as u64 + strtab.len() as u64;
            // The rebuilt partition's header must fit before its data, 0x8000 in.
            if hlen > 0x8000 {
                return Err(Reason::PartitionTooLarge.into());
            }
            let size = if parts.is_empty() {
                hlen
            } else {
                total(parts.iter().map(|p| p.size), 0x8000)?
            };
            partitions.push(Partition {
                name: entry.name.clone(),
                parts,
                hlen,
                size,
            });
        }
        let names = hfs0_strings(partitions.iter().map(|p| p.name.as_str()));
        if 0x10 + 0x40 * partitions.len() + names.len() > 0x8000 {
            return Err(Reason::RootTooLarge.into());
        }
        let size = total(partitions.iter().map(|p| p.size), 0xF000 + 0x8000)?;
        Ok(XciLayout { partitions, size })
    }

    fn root_header(&self) -> Vec<u8> {
        hfs0(self.partitions.iter().map(|p| (p.name.as_str(), p.size)))
    }
}

impl Partition {
    fn header(&self) -> Vec<u8> {
        hfs0(self.parts.iter().map(|p| (p.name.as_str(), p.size)))
    }
}

/// Remove the part file a killed conversion left, if any.
pub fn clean_leftover(db: &Connection, lib: &Folders) -> Result<(), Error> {
    if let Some(raw) = settings::CONVERT_PART.get(db)? {
        // Only a plain file reached through real folders: never through a link.
        let plain = LibraryKey::parse(&raw).filter(|k| {
            let place = lib.locate(k);
            library::safe::check_folders(place.dir(), &place.key).is_ok()
                && std::fs::symlink_metadata(place.path()).is_ok_and(|m| m.is_file())
        });
        if let Some(key) = plain {
            match std::fs::remove_file(lib.locate(&key).path()) {
                Ok(()) => log::warn!("convert: removed {key}, left by an interrupted conversion"),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e.into()),
            }
        }
        settings::CONVERT_PART.set(db, "")?;
    }
    Ok(())
}

/// Convert the file at `key` in its place (`replace::replace_via_part`); returns the
/// key of the new file. `on_write` is told of every byte written and may stop the
/// work (cancel) by returning an error.
pub fn convert(
    db: &Connection,
    lib: &Folders,
    key: &LibraryKey,
    opts: &Options,
    on_write: &mut dyn FnMut(u64) -> std::io::Result<()>,
) -> Result<LibraryKey, Error> {
    let out_key = output_key(key).ok_or_else(|| {
        Error::invalid(Msg::ConvertFailed {
            key: key.to_string(),
            reason: Reason::NotCompressed.into(),
        })
    })?;
    let swap = Swap {
        key,
        out_key: &out_key,
        reason: TrashReason::Converted,
        retention_days: opts.retention_days,
        purge: false,
        keys: opts.keys.as_ref().map(|loaded| &loaded.keys),
        work: opts.work.as_deref(),
        stop: opts.stop.as_deref(),
    };
    let made = replace_via_part(db, lib, &swap, |input, part| {
        write_part(key, input, part, opts, on_write)
    })?;
    // Converting never skips a file by choice.
    made.map_err(Error::invalid)?;
    Ok(out_key)
}

pub fn write_part(
    key: &LibraryKey,
    input: &mut File,
    part: &Path,
    opts: &Options,
    on_write: &mut dyn FnMut(u64) -> std::io::Result<()>,
) -> Result<(), PartFail> {
    let len = input.metadata().map_err(PartFail::Write)?.len();
    let file = File::options()
        .write(true)
        .create_new(true)
        .open(part)
        .map_err(PartFail::Write)?;
    let mut out = ThreadedWriter::new(file);
    let mut w = Writer {
        out: &mut out,
        on_write,
        accept_unverified: opts.accept_unverified,
        budget: &Budget::file(),
    };
    if Container::of_name(key) == Some(Container::Nsz) {
        let fs = containers::read_pfs0(input, 0, len, w.budget)?;
        w.nsp(input, &fs)?;
    } else {
        let xci = containers::read_xci(input, len, w.budget)?;
        if xci.header_base != 0 {
            return Err(PartFail::Unsupported(Reason::KeyArea));
        }
        w.xci(input, &xci)?;
    }
    let file = out.finish().map_err(PartFail::Write)?;
    file.sync_all().map_err(PartFail::Write)?;
    Ok(())
}

/// Writes a file on its own thread, so the disk is written while the next bytes are
/// computed. Buffers of 1 MiB go over a channel four deep: memory stays bounded. An
/// error on the writer's side (a full disk) surfaces at the next write or at the end.
struct ThreadedWriter {
    buf: Vec<u8>,
    tx: Option<crossbeam_channel::Sender<Vec<u8>>>,
    writer: Option<std::thread::JoinHandle<std::io::Result<File>>>,
}

impl ThreadedWriter {
    fn new(mut file: File) -> ThreadedWriter {
        let (tx, rx) = crossbeam_channel::bounded::<Vec<u8>>(4);
        let writer = std::thread::Builder::new().name("convert-write".into());
        let writer = writer.spawn(move || {
            let (mut written, mut flushed) = (0u64, 0u64);
            for buf in rx {
                file.write_all(&buf)?;
                written += buf.len() as u64;
                if written - flushed >= WRITEBACK_EVERY {
                    start_writeback(&file, flushed, written - flushed);
                    flushed = written;
                }
            }
            Ok(file)
        });
        ThreadedWriter {
            buf: Vec::with_capacity(BUFFER),
            tx: Some(tx),
            // Could not start: the first send finds the channel closed.
            writer: writer.ok(),
        }
    }

    fn send(&mut self) -> std::io::Result<()> {
        let full = std::mem::replace(&mut self.buf, Vec::with_capacity(BUFFER));
        match self.tx.as_ref().map(|tx| tx.send(full)) {
            Some(Ok(())) => Ok(()),
            _ => Err(self
                .join()
                .err()
                .unwrap_or_else(|| std::io::Error::other("the writer stopped"))),
        }
    }

    fn join(&mut self) -> std::io::Result<File> {
        self.tx = None;
        match self.writer.take().map(|w| w.join()) {
            Some(Ok(result)) => result,
            _ => Err(std::io::Error::other("the writer thread failed")),
        }
    }

    /// Write what is left and hand the file back.
    fn finish(mut self) -> std::io::Result<File> {
        if !self.buf.is_empty() {
            self.send()?;
        }
        self.join()
    }
}

impl Write for ThreadedWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= BUFFER {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The files of a PFS0 or HFS0 as they will be in the output: an NCZ's header is
/// read for its size and let go.
fn plan(input: &mut File, fs: &FileSystem, budget: &Budget) -> Result<Vec<Part>, FormatError> {
    fs.entries
        .iter()
        .map(|e| {
            if let Some(stem) = e.name.strip_suffix(".ncz") {
                let header = containers::read_ncz(input, e.offset, e.end(), budget)?;
                Ok(Part {
                    name: format!("{stem}.nca"),
                    size: ncz::nca_size(&header),
                    src: e.clone(),
                    compressed: true,
                })
            } else {
                Ok(Part {
                    name: e.name.clone(),
                    size: e.size,
                    src: e.clone(),
                    compressed: false,
                })
            }
        })
        .collect()
}

struct Writer<'a, W: Write> {
    out: &'a mut W,
    on_write: &'a mut dyn FnMut(u64) -> std::io::Result<()>,
    accept_unverified: bool,
    /// The input's budget: its tables, and each NCZ's header read again to write it.
    budget: &'a Budget,
}

impl<W: Write> Writer<'_, W> {
    fn raw(&mut self, bytes: &[u8]) -> Result<(), PartFail> {
        self.out.write_all(bytes).map_err(PartFail::Write)?;
        (self.on_write)(bytes.len() as u64).map_err(PartFail::Write)
    }

    fn zeros(&mut self, mut n: u64) -> Result<(), PartFail> {
        let zero = [0u8; 4096];
        while n > 0 {
            let k = n.min(4096) as usize;
            self.raw(&zero[..k])?;
            n -= k as u64;
        }
        Ok(())
    }

    /// One file's bytes: decompressed when it is an NCZ, copied otherwise; NCAs are
    /// checked against the content ID in their name.
    fn file(&mut self, input: &mut File, part: &Part) -> Result<(), PartFail> {
        let hash = match part.compressed {
            true => {
                let src = &part.src;
                let header = containers::read_ncz(input, src.offset, src.end(), self.budget)?;
                ncz::decompress(input, &header, src.end(), self.out, self.on_write)?
            }
            false => self.copy(input, &part.src)?,
        };
        let id = hex::encode(&hash[..16]);
        match expected_id(&part.name) {
            Some(expected) if expected != id && !self.accept_unverified => {
                Err(FormatError::from(Reason::ContentIdMismatch(part.name.clone())).into())
            }
            _ => Ok(()),
        }
    }

    fn copy(&mut self, input: &mut File, e: &ContainerFile) -> Result<[u8; 32], PartFail> {
        input
            .seek(SeekFrom::Start(e.offset))
            .map_err(|_| FormatError::from(Reason::ReadFailed))?;
        let mut hash = Sha256::new();
        let mut left = e.size;
        let mut buf = vec![0u8; BUFFER.min(e.size as usize).max(1)];
        while left > 0 {
            let n = left.min(buf.len() as u64) as usize;
            input
                .read_exact(&mut buf[..n])
                .map_err(|_| FormatError::from(Reason::Truncated))?;
            hash.update(&buf[..n]);
            self.raw(&buf[..n])?;
            left -= n as u64;
        }
        Ok(hash.finalize().into())
    }

    /// The PFS0 rule: header, zeros up to the input's first data offset, the files.
    fn nsp(&mut self, input: &mut File, fs: &FileSystem) -> Result<(), PartFail> {
        let layout = NspLayout::new(fs, plan(input, fs, self.budget)?)?;
        self.raw(&layout.header())?;
        self.zeros(layout.first - layout.header_size)?;
        for p in &layout.parts {
            self.file(input, p)?;
        }
        Ok(())
    }

    /// The XCI rule: the signed header copied, the root HFS0, then each partition.
    fn xci(&mut self, input: &mut File, xci: &containers::Xci) -> Result<(), PartFail> {
        let layout = XciLayout::new(input, xci, self.budget)?;
        let root = layout.root_header();
        self.raw(&containers::read_at(input, 0, 0x200)?)?;
        self.zeros(0xF000 - 0x200)?;
        self.raw(&root)?;
        self.zeros(0x8000 - root.len() as u64)?;
        for p in &layout.partitions {
            let header = p.header();
            self.raw(&header)?;
            if !p.parts.is_empty() {
                self.zeros(0x8000 - p.hlen)?;
                for part in &p.parts {
                    self.file(input, part)?;
                }
            }
        }
        Ok(())
    }
}

fn hfs0_strings<'a>(names: impl Iterator<Item = &'a str>) -> Vec<u8> {
    let mut out = Vec::new();
    for n in names {
        out.extend_from_slice(n.as_bytes());
        out.push(0);
    }
    if out.is_empty() {
        out.push(0);
    }
    out
}

/// An HFS0 header whose files (name, size) lie back to back from 0x8000 after its start.
fn hfs0<'a>(files: impl Iterator<Item = (&'a str, u64)> + Clone) -> Vec<u8> {
    let (count, strtab) = (
        files.clone().count(),
        hfs0_strings(files.clone().map(|f| f.0)),
    );
    let mut h = b"HFS0".to_vec();
    h.extend_from_slice(&(count as u32).to_le_bytes());
    h.extend_from_slice(&(strtab.len() as u32).to_le_bytes());
    h.extend_from_slice(&[0; 4]);
    let mut at = 0x8000 - (0x10 + 0x40 * count as u64 + strtab.len() as u64);
    let mut name_at = 0u32;
    for (name, size) in files {
        h.extend_from_slice(&at.to_le_bytes());
        h.extend_from_slice(&size.to_le_bytes());
        h.extend_from_slice(&name_at.to_le_bytes());
        h.extend_from_slice(&[0; 4 + 8 + 32]);
        at += size;
        name_at += name.len() as u32 + 1;
    }
    h.extend_from_slice(&strtab);
    h
}

/// The content ID a file's name claims: 32 hex digits before the first dot of an NCA.
fn expected_id(name: &str) -> Option<String> {
    let (id, rest) = name.split_once('.')?;
    (rest.ends_with("nca") && id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| id.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert_bytes(name: &str, bytes: &[u8]) -> Result<Vec<u8>, PartFail> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), bytes).unwrap();
        let part = dir.path().join("out.part");
        let opts = Options {
            retention_days: 30,
            accept_unverified: false,
            keys: None,
            work: None,
            stop: None,
        };
        let key = LibraryKey::parse(name).unwrap();
        let mut input = File::open(dir.path().join(name)).unwrap();
        write_part(&key, &mut input, &part, &opts, &mut |_| Ok(()))?;
        Ok(std::fs::read(part).unwrap())
    }

    use crate::library::synth::{self, Nca, SectionSpec};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn spec(offset: u64, size: u64, crypto_type: u64) -> SectionSpec {
        SectionSpec {
            offset,
            size,
            crypto_type,
        }
    }

    /// Contiguous sections of the given sizes and types from `start`.
    fn run(start: u64, parts: &[(u64, u64)]) -> Vec<SectionSpec> {
        let mut at = start;
        parts
            .iter()
            .map(|&(size, t)| {
                let s = spec(at, size, t);
                at += size;
                s
            })
            .collect()
    }

    fn size_of(sections: &[SectionSpec]) -> usize {
        sections
            .last()
            .map_or(0x4000, |s| (s.offset + s.size) as usize)
    }

    /// Convert an .nsz holding `nca` (compressed as asked) beside a ticket, and check
    /// the output NCA is the original byte for byte.
    fn roundtrip(nca: &Nca, block: Option<u8>) {
        let ncz = match block {
            Some(e) => synth::ncz_block(nca, e),
            None => synth::ncz_solid(nca),
        };
        let nsz = synth::pfs0(&[(nca.ncz_name(), ncz), ("t.tik".into(), vec![9; 0x2C0])]);
        let out = convert_bytes("x.nsz", &nsz).unwrap_or_else(|e| panic!("{e:?}"));
        let fs = containers::read_pfs0(
            &mut std::io::Cursor::new(&out),
            0,
            out.len() as u64,
            &crate::library::containers::Budget::file(),
        )
        .unwrap();
        assert_eq!(fs.entries[0].name, nca.name());
        let e = &fs.entries[0];
        assert!(
            out[e.offset as usize..e.end() as usize] == nca.bytes[..],
            "NCA bytes differ"
        );
        assert_eq!(
            &out[fs.entries[1].offset as usize..fs.entries[1].end() as usize],
            &[9; 0x2C0]
        );
    }

    #[test]
    fn solid_and_block_modes() {
        let mut rng = StdRng::seed_from_u64(10);
        let nca = synth::nca(
            &mut rng,
            0x40000,
            &run(0x4000, &[(0x20000, 3), (0x1C000, 1)]),
        );
        roundtrip(&nca, None);
        roundtrip(&nca, Some(14));
        roundtrip(&nca, Some(16));
    }

    #[test]
    fn a_stored_raw_last_block() {
        let mut rng = StdRng::seed_from_u64(11);
        let mut plain = synth::filler(&mut rng, 0x4000 + 3 * 0x4000 + 0x1234);
        let tail = plain.len() - 0x1234;
        rng.fill(&mut plain[tail..]); // random bytes do not compress: stored raw
        let nca = synth::nca_with(&mut rng, plain, &run(0x4000, &[(3 * 0x4000 + 0x1234, 3)]));
        let ncz = synth::ncz_block(&nca, 14);
        let body = containers::read_ncz(
            &mut std::io::Cursor::new(&ncz),
            0,
            ncz.len() as u64,
            &crate::library::containers::Budget::file(),
        )
        .unwrap()
        .body;
        let containers::NczBody::Block { sizes, .. } = body else {
            panic!()
        };
        assert_eq!(
            *sizes.last().unwrap(),
            0x1234,
            "the last block is stored raw"
        );
        roundtrip(&nca, Some(14));
    }

    #[test]
    fn a_size_that_is_an_exact_multiple_of_the_block_size() {
        let mut rng = StdRng::seed_from_u64(12);
        let nca = synth::nca(
            &mut rng,
            0x4000 + 4 * 0x4000,
            &run(0x4000, &[(2 * 0x4000, 4), (2 * 0x4000, 3)]),
        );
        roundtrip(&nca, Some(14));
        roundtrip(&nca, None);
    }

    #[test]
    fn a_plaintext_gap_after_0x4000() {
        let mut rng = StdRng::seed_from_u64(13);
        let sections = run(0x5800, &[(0x8000, 3), (0x3000, 1)]);
        let nca = synth::nca(&mut rng, size_of(&sections), &sections);
        roundtrip(&nca, None);
        roundtrip(&nca, Some(14));
    }

    #[test]
    fn sections_starting_mid_aes_block() {
        let mut rng = StdRng::seed_from_u64(14);
        let sections = run(
            0x4000,
            &[(0x12345, 3), (0x777, 4), (0x10001, 3), (0x20003, 1)],
        );
        let nca = synth::nca(&mut rng, size_of(&sections), &sections);
        roundtrip(&nca, None);
        roundtrip(&nca, Some(15));
    }

    #[test]
    fn many_small_sections_like_a_patch() {
        let mut rng = StdRng::seed_from_u64(15);
        let parts: Vec<(u64, u64)> = (0..300)
            .map(|i| (0x100 + (i * 37) % 0x200, [3, 4, 1, 2][i as usize % 4]))
            .collect();
        let sections = run(0x4000, &parts);
        let nca = synth::nca(&mut rng, size_of(&sections), &sections);
        roundtrip(&nca, None);
        roundtrip(&nca, Some(14));
    }

    #[test]
    fn a_non_ctr_section_is_copied_as_is() {
        let mut rng = StdRng::seed_from_u64(16);
        let sections = run(0x4000, &[(0x6000, 2), (0x6000, 5)]);
        let nca = synth::nca(&mut rng, size_of(&sections), &sections);
        assert!(nca.bytes == nca.plain, "nothing encrypted");
        roundtrip(&nca, Some(14));
    }

    #[test]
    fn an_xcz_with_empty_partitions_and_files_in_secure() {
        let mut rng = StdRng::seed_from_u64(17);
        let nca = synth::simple_nca(&mut rng, 0x30000);
        let xcz = synth::xci(&[
            ("update", vec![]),
            ("normal", vec![]),
            (
                "secure",
                vec![
                    (nca.ncz_name(), synth::ncz_block(&nca, 14)),
                    ("opaque.bin".into(), vec![5; 1000]),
                ],
            ),
            ("logo", vec![("logo.bin".into(), vec![6; 300])]),
        ]);
        let out = convert_bytes("x.xcz", &xcz).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(&out[..0x200], &xcz[..0x200], "the signed header is copied");
        let xci = containers::read_xci(
            &mut std::io::Cursor::new(&out),
            out.len() as u64,
            &crate::library::containers::Budget::file(),
        )
        .unwrap();
        let names: Vec<&str> = xci.root.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["update", "normal", "secure", "logo"]);
        let secure = xci.partition("secure").unwrap();
        let find = |n: &str| secure.entries.iter().find(|e| e.name == n).unwrap();
        let e = find(&nca.name());
        assert!(out[e.offset as usize..e.end() as usize] == nca.bytes[..]);
        let o = find("opaque.bin");
        assert_eq!(&out[o.offset as usize..o.end() as usize], &[5; 1000][..]);
        assert_eq!(
            out.len() as u64,
            xci.root.entries.last().unwrap().end(),
            "ends with the last partition"
        );
    }

    /// A partition whose header cannot fit in the 0x8000 bytes before its data is
    /// refused with a reason, not written with a wrapped-around length.
    #[test]
    fn a_partition_header_too_long_to_rebuild_is_refused() {
        let files = (0..600)
            .map(|i| (format!("file-{i:04}.bin"), vec![1u8; 8]))
            .collect();
        let xcz = synth::xci(&[("update", vec![]), ("secure", files)]);
        match convert_bytes("x.xcz", &xcz) {
            Err(PartFail::Input(e)) => assert!(e.to_string().contains("too many files"), "{e}"),
            other => panic!("expected a refusal, got {:?}", other.map(|v| v.len())),
        }
    }

    #[test]
    fn damaged_inputs_fail_with_a_reason() {
        let mut rng = StdRng::seed_from_u64(18);
        let nca = synth::nca(
            &mut rng,
            0x20000,
            &run(0x4000, &[(0x10000, 3), (0xC000, 1)]),
        );
        let good = synth::pfs0(&[(nca.ncz_name(), synth::ncz_solid(&nca))]);
        let ncz_at = containers::read_pfs0(
            &mut std::io::Cursor::new(&good),
            0,
            good.len() as u64,
            &crate::library::containers::Budget::file(),
        )
        .unwrap()
        .entries[0]
            .offset as usize;
        let sections_at = ncz_at + 0x4010;
        let reason = |bytes: &[u8]| match convert_bytes("x.nsz", bytes) {
            Err(PartFail::Input(e)) => e.to_string(),
            other => panic!("expected a failure, got {:?}", other.map(|v| v.len())),
        };
        assert!(reason(&good[..good.len() / 2]).contains("past the end"));
        let mut magic = good.clone();
        magic[..4].copy_from_slice(b"XXXX");
        assert!(reason(&magic).contains("PFS0"));
        let mut zstd = good.clone();
        let stream = sections_at + 2 * 0x40;
        for b in &mut zstd[stream + 4..stream + 40] {
            *b ^= 0x5A;
        }
        let r = reason(&zstd);
        assert!(r.contains("zstd") || r.contains("content ID"), "{r}");
        let mut overlap = good.clone();
        overlap[sections_at + 0x40..sections_at + 0x48].copy_from_slice(&0x5000u64.to_le_bytes());
        assert!(reason(&overlap).contains("overlap"));
        let mut count = good.clone();
        count[ncz_at + 0x4008..ncz_at + 0x4010].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(reason(&count).contains("section count"));
        let mut short = good.clone();
        short[sections_at + 0x48..sections_at + 0x50].copy_from_slice(&0xD000u64.to_le_bytes());
        assert!(reason(&short).contains("too short"), "{}", reason(&short));
        // The stream says other bytes than the NCA the name was computed from.
        let mut modified = nca.plain.clone();
        modified[0x8000] ^= 1;
        let lying = Nca {
            bytes: nca.bytes.clone(),
            plain: modified,
            sections: nca.sections.clone(),
        };
        let renamed = synth::pfs0(&[(nca.ncz_name(), synth::ncz_solid(&lying))]);
        assert!(reason(&renamed).contains("content ID"));
    }

    /// A fixture cut short anywhere never converts: the cut may fall in a header, in
    /// a compressed stream, in a copied file or in the padding between partitions.
    #[test]
    fn a_truncated_input_never_converts() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nsz");
        for input in [
            "synth_block.nsz",
            "synth_solid.nsz",
            "synth_block.xcz",
            "stress_block.xcz",
        ] {
            let bytes = std::fs::read(dir.join(input)).unwrap();
            let step = (bytes.len() / 97).max(1);
            for len in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
                if let Ok(out) = convert_bytes(input, &bytes[..len]) {
                    panic!(
                        "{input} cut at {len} of {} converted to {} bytes",
                        bytes.len(),
                        out.len()
                    );
                }
            }
        }
    }

    /// Block fixtures with bytes of their NCZ changed at random (the other files are
    /// copied as they are, as nsz copies them), and their block header (after its
    /// `NCZBLOCK` magic: version, type, exponent, count, size) set to extreme values:
    /// never a panic, and never an output other than the original. The decoders reuse
    /// their zstd context and the buffers of blocks already written, so a block that
    /// fails, or a short one, must not leave old bytes in what is written.
    #[test]
    fn mutated_block_inputs_fail_or_give_the_original() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nsz");
        let mut rng = StdRng::seed_from_u64(42);
        for (input, expected) in [
            ("synth_block.nsz", "synth.expected.nsp"),
            ("stress_block.nsz", "stress.expected.nsp"),
        ] {
            let bytes = std::fs::read(dir.join(input)).unwrap();
            let want = std::fs::read(dir.join(expected)).unwrap();
            let header = bytes.windows(8).position(|w| w == b"NCZBLOCK").unwrap() + 8;
            let pfs0 = containers::read_pfs0(
                &mut std::io::Cursor::new(&bytes),
                0,
                bytes.len() as u64,
                &crate::library::containers::Budget::file(),
            );
            let ncz = pfs0
                .unwrap()
                .entries
                .into_iter()
                .find(|e| e.name.ends_with(".ncz"));
            let ncz = ncz.unwrap();
            let (from, to) = (ncz.offset as usize, (ncz.offset + ncz.size) as usize);
            for round in 0..120 {
                let mut bad = bytes.clone();
                if round % 3 == 0 {
                    let at = header + rng.random_range(0..24);
                    bad[at] = [0x00, 0xFF, 0x7F, 0x40][round % 4];
                } else {
                    for _ in 0..rng.random_range(1..4) {
                        let at = rng.random_range(from..to);
                        bad[at] ^= 1 << rng.random_range(0..8);
                    }
                }
                if let Ok(out) = convert_bytes(input, &bad) {
                    assert!(out == want, "{input} round {round}: a wrong output");
                }
            }
        }
    }

    /// The reference tool's own outputs for the shared fixtures.
    #[test]
    fn outputs_match_the_reference_fixtures_byte_for_byte() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nsz");
        assert!(dir.exists(), "tests/fixtures/nsz is part of the repository");
        for (input, expected) in [
            ("synth_solid.nsz", "synth.expected.nsp"),
            ("synth_block.nsz", "synth.expected.nsp"),
            ("stress_solid.nsz", "stress.expected.nsp"),
            ("stress_block.nsz", "stress.expected.nsp"),
            ("synth_block.xcz", "synth.expected.xci"),
            ("stress_block.xcz", "stress.expected.xci"),
        ] {
            let out = convert_bytes(input, &std::fs::read(dir.join(input)).unwrap())
                .unwrap_or_else(|e| panic!("{input}: {e:?}"));
            let want = std::fs::read(dir.join(expected)).unwrap();
            assert_eq!(out.len(), want.len(), "{input}: size");
            assert!(
                out == want,
                "{input}: bytes differ at {:?}",
                out.iter().zip(&want).position(|(a, b)| a != b)
            );
        }
    }
}
