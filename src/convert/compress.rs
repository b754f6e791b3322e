//! Compressing one file: `.nsp` → `.nsz`, `.xci` → `.xcz`, in nsz 5.0.0's format
//! (`docs/nsz.md` read the other way round), so that every installer, nsz and this
//! service's own convert read the result back to the original bytes.
//!
//! Encrypted bytes do not compress: each Program or PublicData NCA is decrypted with
//! the console keys on the way (its header gives the sections, the key area or the
//! ticket the key) and stored as an NCZ: its first 0x4000 bytes verbatim, the section
//! table with each key and counter in clear, then the zstd stream of the clear bytes
//! (independent blocks by default, one stream with `solid`). Every other file is copied
//! as it is, as nsz does. NCAs nsz would not compress (sections not packed up to the
//! end, an encryption other than none/CTR/CTR-Ex) are copied too.
//!
//! Streamed with bounded memory: a reader thread decrypts, one thread per core
//! compresses a block (a few blocks per core in flight), and the output is written
//! in order; what is known only at the end (the container's header, each NCZ's block
//! table) is written in place once the rest is down.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::error::{Reason, Why};
use crate::library::containers::{self, ContainerFile, FileSystem, FormatError, NczSection};
use crate::library::switchfs::nca::{self, HeaderError};
use crate::library::switchfs::{section_key, Problem, ProdKeys, Tickets};

use super::bktr;
use super::ncz::{self, named, Region};
use super::replace::{read_error, PartFail};
use super::{NspLayout, Part, Partition, ThreadedWriter, XciLayout};
use crate::words::Container;

/// nsz's default level.
pub const DEFAULT_LEVEL: i32 = 18;
/// nsz's default block size: 2^20 = 1 MiB.
pub const DEFAULT_BLOCK_EXPONENT: u8 = 20;
/// The block sizes nsz accepts are 2^14 to 2^32; above 2^24 a block in flight per core
/// would cost too much memory, and a block's size must fit a u32.
const BLOCK_EXPONENTS: std::ops::RangeInclusive<u8> = 14..=24;
/// The part of an NCA an NCZ keeps verbatim.
const HEAD: u64 = 0x4000;
/// What the solid mode reads and decrypts at a time.
const CHUNK: u64 = 1 << 20;
/// Blocks in flight per core in block mode.
const AHEAD: usize = 4;
/// zstd's own threads in solid mode, as nsz: each costs about 50 MiB of tables at
/// level 18 and holds jobs of input and output.
const SOLID_THREADS: usize = 3;
/// Bytes of input per zstd job in solid mode (zstd's default at level 18: 32 MiB).
const SOLID_JOB: u32 = 8 << 20;

/// How to compress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// zstd level, 1–22.
    pub level: i32,
    /// One zstd stream per NCA instead of independent blocks.
    pub solid: bool,
    /// Block mode: blocks of 2^`block_exponent` bytes.
    pub block_exponent: u8,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            level: DEFAULT_LEVEL,
            solid: false,
            block_exponent: DEFAULT_BLOCK_EXPONENT,
        }
    }
}

fn bad(why: impl Into<Why>) -> PartFail {
    PartFail::Input(FormatError(why.into()))
}

/// What one compressed file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Bytes of the output file.
    pub size: u64,
    /// The NCAs stored as NCZs (their names in the input).
    pub compressed: Vec<String>,
}

/// The output stream: bytes go out in order, and what is known only later (headers,
/// block tables) is kept to be written in place at the end.
pub(crate) struct Out<'a, W: Write> {
    w: &'a mut W,
    pos: u64,
    later: Vec<(u64, Vec<u8>)>,
    on_write: &'a mut dyn FnMut(u64) -> std::io::Result<()>,
    /// The error `on_write` stopped the work with (a cancel is `Interrupted`, which
    /// `write_all` would retry forever: it travels as another kind, then is restored).
    stopped: Option<std::io::Error>,
}

impl<'a, W: Write> Out<'a, W> {
    fn new(w: &'a mut W, on_write: &'a mut dyn FnMut(u64) -> std::io::Result<()>) -> Self {
        Out {
            w,
            pos: 0,
            later: Vec::new(),
            on_write,
            stopped: None,
        }
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), PartFail> {
        self.write_all(bytes).map_err(PartFail::Write)
    }

    fn zeros(&mut self, mut n: u64) -> Result<(), PartFail> {
        let zero = [0u8; 4096];
        while n > 0 {
            let k = n.min(4096) as usize;
            self.put(&zero[..k])?;
            n -= k as u64;
        }
        Ok(())
    }
}

impl<W: Write> Write for Out<'_, W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.w.write_all(data)?;
        self.pos += data.len() as u64;
        if let Err(e) = (self.on_write)(data.len() as u64) {
            let kind = match e.kind() {
                std::io::ErrorKind::Interrupted => std::io::ErrorKind::Other,
                kind => kind,
            };
            self.stopped = Some(e);
            return Err(std::io::Error::new(kind, "stopped"));
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

/// Compress `input` (an `.nsp` or `.xci`, by `format`) into `target`, which must not
/// exist, through a part file (`replace::write_via_part`). `on_write` is told of every
/// byte written and may stop the work (cancel) by returning an error. For the tests
/// and benchmarks: the task goes through `replace::replace_via_part`.
#[cfg(any(test, feature = "testkit"))]
pub fn compress_file(
    input: &mut File,
    format: &str,
    target: &Path,
    keys: &ProdKeys,
    settings: &Settings,
    on_write: &mut dyn FnMut(u64) -> std::io::Result<()>,
) -> Result<Outcome, PartFail> {
    let mut part = target.as_os_str().to_owned();
    part.push(".part");
    super::replace::write_via_part(std::path::Path::new(&part), target, |part| {
        write_part(input, format, part, keys, settings, on_write)
    })
}

/// Write the compressed file to `part` (created, never replaced) and fsync it.
pub(crate) fn write_part(
    input: &mut File,
    format: &str,
    part: &Path,
    keys: &ProdKeys,
    settings: &Settings,
    on_write: &mut dyn FnMut(u64) -> std::io::Result<()>,
) -> Result<Outcome, PartFail> {
    let file = File::options()
        .write(true)
        .create_new(true)
        .open(part)
        .map_err(PartFail::Write)?;
    let mut writer = ThreadedWriter::new(file);
    let mut out = Out::new(&mut writer, on_write);
    let result = compress(input, format, keys, settings, &mut out);
    let mut outcome = match (result, out.stopped.take()) {
        (Ok(outcome), _) => outcome,
        (Err(PartFail::Write(_)), Some(why)) => return Err(PartFail::Write(why)),
        (Err(e), _) => return Err(e),
    };
    let later = std::mem::take(&mut out.later);
    outcome.size = out.pos;
    let file = writer.finish().map_err(PartFail::Write)?;
    use std::os::unix::fs::FileExt;
    for (at, bytes) in later {
        file.write_all_at(&bytes, at).map_err(PartFail::Write)?;
    }
    file.sync_all().map_err(PartFail::Write)?;
    Ok(outcome)
}

/// Compress `input` into `out` (positions from 0); the caller writes `out.later`.
pub(crate) fn compress<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    format: &str,
    keys: &ProdKeys,
    settings: &Settings,
    out: &mut Out<W>,
) -> Result<Outcome, PartFail> {
    if !settings.solid && !BLOCK_EXPONENTS.contains(&settings.block_exponent) {
        return Err(PartFail::Unsupported(Reason::BlockSize));
    }
    let len = input.seek(SeekFrom::End(0)).map_err(read_error)?;
    // The container's tables; each NCA's header is read once more as it is written.
    let budget = &containers::Budget::file();
    match Container::of(format) {
        Some(Container::Nsp) => {
            let fs = containers::read_pfs0(input, 0, len, budget)?;
            nsp(input, &fs, keys, settings, out)
        }
        Some(Container::Xci) => {
            let xci = containers::read_xci(input, len, budget)?;
            if xci.header_base != 0 {
                return Err(PartFail::Unsupported(Reason::KeyArea));
            }
            xcz(input, &xci, keys, settings, out)
        }
        _ => Err(PartFail::Unsupported(Reason::NotCompressible)),
    }
}

/// The PFS0 as nsz rebuilds it: the input's order, string table size and first data
/// offset kept, `.nca` → `.ncz` for the compressed NCAs (same length, so the table
/// still fits), the files back to back.
fn nsp<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    fs: &FileSystem,
    keys: &ProdKeys,
    settings: &Settings,
    out: &mut Out<W>,
) -> Result<Outcome, PartFail> {
    let as_is: Vec<(String, u64)> = fs
        .entries
        .iter()
        .map(|e| (e.name.clone(), e.size))
        .collect();
    out.zeros(NspLayout::new(fs, written_parts(&fs.entries, &as_is))?.first)?;
    let (files, outcome) = files(input, &fs.entries, keys, settings, out)?;
    let layout = NspLayout::new(fs, written_parts(&fs.entries, &files))?;
    out.later.push((0, layout.header()));
    Ok(Outcome {
        size: out.pos,
        ..outcome
    })
}

/// The XCZ as nsz writes it: the signed header copied, the root HFS0 at 0xF000, each
/// partition's header 0x8000 before its files. Like nsz without `--keep`, only the
/// `secure` partition keeps its files (the game's); the others are left empty.
fn xcz<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    xci: &containers::Xci,
    keys: &ProdKeys,
    settings: &Settings,
    out: &mut Out<W>,
) -> Result<Outcome, PartFail> {
    out.put(&containers::read_at(input, 0, 0x200)?)?;
    out.zeros(0x17000 - 0x200)?;
    let mut partitions = Vec::new();
    let mut outcome = Outcome::default();
    for entry in &xci.root.entries {
        let wanted = match xci.partition(&entry.name) {
            Some(fs) if entry.name == "secure" => fs.entries.as_slice(),
            _ => &[],
        };
        // `.nca` → `.ncz` keeps the names' lengths: the header's size is known now.
        let strtab = super::hfs0_strings(wanted.iter().map(|e| e.name.as_str()));
        let hlen = 0x10 + 0x40 * wanted.len() as u64 + strtab.len() as u64;
        if hlen > 0x8000 {
            return Err(bad(Reason::PartitionTooLarge));
        }
        let start = out.pos;
        let (files, done) = if wanted.is_empty() {
            out.zeros(hlen)?;
            (Vec::new(), Outcome::default())
        } else {
            out.zeros(0x8000)?;
            files(input, wanted, keys, settings, out)?
        };
        outcome.compressed.extend(done.compressed);
        let partition = Partition {
            name: entry.name.clone(),
            size: out.pos - start,
            parts: written_parts(wanted, &files),
            hlen,
        };
        out.later.push((start, partition.header()));
        partitions.push(partition);
    }
    let size = out.pos;
    let root = XciLayout { partitions, size }.root_header();
    if root.len() > 0x8000 {
        return Err(bad(Reason::RootTooLarge));
    }
    out.later.push((0xF000, root));
    outcome.size = out.pos;
    Ok(outcome)
}

/// The files of a partition as written: their names and sizes in the output.
fn written_parts(wanted: &[ContainerFile], files: &[(String, u64)]) -> Vec<Part> {
    wanted
        .iter()
        .zip(files)
        .map(|(e, (name, size))| Part {
            name: name.clone(),
            size: *size,
            src: e.clone(),
            compressed: false,
        })
        .collect()
}

/// Write the files of a container back to back: each Program/PublicData NCA as an
/// NCZ, the rest copied. Returns each file's (name, size) as written.
fn files<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    entries: &[ContainerFile],
    keys: &ProdKeys,
    settings: &Settings,
    out: &mut Out<W>,
) -> Result<(Vec<(String, u64)>, Outcome), PartFail> {
    let tickets = Tickets {
        entries,
        budget: None,
    };
    let mut written = Vec::with_capacity(entries.len());
    let mut outcome = Outcome::default();
    for e in entries {
        let start = out.pos;
        let name = match plan(input, e, keys, &tickets)? {
            Some(plan) => {
                write_ncz(input, e, &plan, settings, out)?;
                outcome.compressed.push(e.name.clone());
                // Only the last `.nca` (nsz too): the name keeps its length.
                let stem = e.name.strip_suffix(".nca").unwrap_or(&e.name);
                format!("{stem}.ncz")
            }
            None => {
                copy(input, e, out)?;
                e.name.clone()
            }
        };
        written.push((name, out.pos - start));
    }
    Ok((written, outcome))
}

fn copy<R: Read + Seek, W: Write>(
    input: &mut R,
    e: &ContainerFile,
    out: &mut Out<W>,
) -> Result<(), PartFail> {
    input.seek(SeekFrom::Start(e.offset)).map_err(read_error)?;
    let mut left = e.size;
    let mut buf = vec![0u8; (CHUNK as usize).min(e.size as usize).max(1)];
    while left > 0 {
        let n = left.min(buf.len() as u64) as usize;
        input.read_exact(&mut buf[..n]).map_err(read_error)?;
        out.put(&buf[..n])?;
        left -= n as u64;
    }
    Ok(())
}

/// An NCA to compress: its verbatim head and its sections as the NCZ records them.
pub(crate) struct Plan {
    head: Vec<u8>,
    sections: Vec<NczSection>,
}

/// Whether (and how) nsz would compress this entry: a Program or PublicData NCA
/// larger than 0x4000 whose sections are packed up to its end. `None`: copy it.
/// An NCA that should be compressed but whose keys are missing is an error.
pub(crate) fn plan<R: Read + Seek>(
    input: &mut R,
    e: &ContainerFile,
    keys: &ProdKeys,
    tickets: &Tickets<'_>,
) -> Result<Option<Plan>, PartFail> {
    if !e.name.ends_with(".nca") || e.name.ends_with(".cnmt.nca") || e.size <= HEAD {
        return Ok(None);
    }
    let head = containers::read_at(input, e.offset, HEAD as usize)?;
    let header = match nca::header_all(&head, e.size, keys) {
        Ok(h) => h,
        Err(HeaderError::NoHeaderKey) => return Err(PartFail::Keys(Problem::NoHeaderKey)),
        Err(HeaderError::WrongKeys) => {
            return Err(PartFail::Keys(Problem::WrongKeys {
                nca: e.name.clone(),
            }))
        }
        Err(HeaderError::Malformed(why)) => {
            return Err(bad(Reason::Name(e.name.clone()).then(why)));
        }
    };
    const PROGRAM: u8 = 0;
    const PUBLIC_DATA: u8 = 5;
    if !matches!(header.content_type, PROGRAM | PUBLIC_DATA) {
        return Ok(None);
    }
    // nsz lists the sections whose FS header names a hash type, sorted by offset.
    let mut sections: Vec<&nca::NcaSection> = header
        .sections
        .iter()
        .flatten()
        .filter(|s| s.hash_type() != 0)
        .collect();
    sections.sort_by_key(|s| s.start);
    let packed = sections.windows(2).all(|w| w[0].end == w[1].start)
        && sections.last().is_some_and(|s| s.end == e.size);
    if !packed || sections.iter().any(|s| !matches!(s.crypto(), 1 | 3 | 4)) {
        return Ok(None);
    }
    let mut key = [0u8; 16];
    if let Some(s) = sections.iter().find(|s| matches!(s.crypto(), 3 | 4)) {
        key = section_key(input, &e.name, &header, s, keys, tickets)
            .map_err(PartFail::Keys)?
            .unwrap_or_default();
    }
    let mut pieces = Vec::new();
    for s in &sections {
        pieces.extend(bktr::pieces(input, e.offset, s, key).map_err(read_error)?);
    }
    if pieces.len() > MAX_PIECES {
        pieces = sections.iter().map(|s| bktr::whole(s)).collect();
    }
    Ok(Some(Plan {
        head,
        sections: ncz_sections(&pieces, &sections, key),
    }))
}

/// The most sections an NCZ gets: readers bound the section table (ours at 1 MiB,
/// 16,384 entries); a patch with more subsections is compressed section by section.
const MAX_PIECES: usize = 16_000;

/// The NCZ's section table: each piece's key (the NCA's one key) and counter.
///
/// A piece that starts inside the verbatim 0x4000 bytes is recorded from 0x4000
/// (the counter depends only on the absolute offset, so nothing else changes): nsz
/// 5.0.0's decompressor sizes an NCA as 0x4000 + the sections' sizes, and would
/// write a wrong PFS0 entry size otherwise. Real NCAs start their first section at
/// 0x4000, where this changes nothing.
fn ncz_sections(
    pieces: &[bktr::Piece],
    sections: &[&nca::NcaSection],
    key: [u8; 16],
) -> Vec<NczSection> {
    // nsz records a CTR-Ex section as CTR (3) once it holds its key: the counter of
    // each piece is explicit, so the decompressor needs nothing more.
    let crypto = |at: u64| {
        let s = sections.iter().find(|s| s.start <= at && at < s.end);
        s.map_or(1, |s| {
            if s.crypto() == 4 {
                3
            } else {
                s.crypto() as u64
            }
        })
    };
    pieces
        .iter()
        .filter(|p| p.end > HEAD)
        .map(|p| {
            let offset = p.start.max(HEAD);
            NczSection {
                offset,
                size: p.end - offset,
                crypto_type: crypto(p.start),
                key,
                counter: p.counter,
            }
        })
        .collect()
}

/// One NCZ: the head, the section table, then the compressed clear bytes.
fn write_ncz<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    e: &ContainerFile,
    plan: &Plan,
    settings: &Settings,
    out: &mut Out<W>,
) -> Result<(), PartFail> {
    out.put(&plan.head)?;
    let mut table = b"NCZSECTN".to_vec();
    table.extend_from_slice(&(plan.sections.len() as u64).to_le_bytes());
    for s in &plan.sections {
        table.extend_from_slice(&s.offset.to_le_bytes());
        table.extend_from_slice(&s.size.to_le_bytes());
        table.extend_from_slice(&s.crypto_type.to_le_bytes());
        table.extend_from_slice(&[0; 8]);
        table.extend_from_slice(&s.key);
        table.extend_from_slice(&s.counter);
    }
    out.put(&table)?;
    let regions = ncz::regions(&plan.sections)?;
    let clear = Clear {
        base: e.offset,
        regions,
        end: e.size,
    };
    if settings.solid {
        solid(input, &clear, settings.level, out)
    } else {
        blocks(input, &clear, settings, out)
    }
}

/// The clear bytes of an NCA from 0x4000 to its end: read from the input at `base`
/// and decrypted region by region (CTR is its own inverse).
struct Clear {
    base: u64,
    regions: Vec<Region>,
    end: u64,
}

impl Clear {
    /// The clear bytes at `pos..pos + len` of the NCA.
    fn read<R: Read + Seek>(&self, input: &mut R, pos: u64, len: u64) -> Result<Vec<u8>, PartFail> {
        let mut buf = vec![0u8; len as usize];
        input
            .seek(SeekFrom::Start(self.base + pos))
            .map_err(read_error)?;
        input.read_exact(&mut buf).map_err(read_error)?;
        ncz::encrypt(&self.regions, pos, &mut buf);
        Ok(buf)
    }
}

/// Read and decrypt the NCA in pieces of `piece` bytes on a thread of its own, each
/// sent once a credit allows it; a read error ends the stream with that error.
fn read_pieces<R: Read + Seek>(
    input: &mut R,
    clear: &Clear,
    piece: u64,
    credits: &crossbeam_channel::Receiver<()>,
    pieces: &crossbeam_channel::Sender<(usize, Result<Vec<u8>, PartFail>)>,
) {
    let mut pos = HEAD;
    let mut i = 0;
    while pos < clear.end {
        let len = piece.min(clear.end - pos);
        if credits.recv().is_err() {
            return;
        }
        let data = clear.read(input, pos, len);
        let failed = data.is_err();
        if pieces.send((i, data)).is_err() || failed {
            return;
        }
        pos += len;
        i += 1;
    }
}

/// Solid mode: one zstd stream (zstd's own threads compress), fed by a reader thread.
fn solid<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    clear: &Clear,
    level: i32,
    out: &mut Out<W>,
) -> Result<(), PartFail> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let (credit, credits) = crossbeam_channel::bounded::<()>(AHEAD);
    let (piece, pieces) = crossbeam_channel::bounded(AHEAD);
    for _ in 0..AHEAD {
        let _ = credit.send(());
    }
    std::thread::scope(|s| {
        named("compress-read", s, move || {
            read_pieces(input, clear, CHUNK, &credits, &piece)
        })?;
        feed(out, level, clear.end - HEAD, cores, pieces, credit)
    })
}

/// Give the clear pieces to one zstd stream in order. Owns the channels, so that the
/// reader stops (its credits and its pieces' receiver gone) whenever this returns.
fn feed<W: Write>(
    out: &mut Out<W>,
    level: i32,
    size: u64,
    cores: usize,
    pieces: crossbeam_channel::Receiver<(usize, Result<Vec<u8>, PartFail>)>,
    credit: crossbeam_channel::Sender<()>,
) -> Result<(), PartFail> {
    let mut enc = zstd::stream::Encoder::new(out, level).map_err(PartFail::Write)?;
    enc.set_pledged_src_size(Some(size))
        .map_err(PartFail::Write)?;
    let threads = cores.min(SOLID_THREADS) as u32;
    if threads > 1 {
        enc.multithread(threads).map_err(PartFail::Write)?;
        // zstd's defaults at level 18 (32 MiB jobs, a whole window of overlap) hold
        // about 150 MiB of buffers per worker; 8 MiB jobs overlapping half a window
        // hold a third of it for a stream 0.2 % larger (bench_compress, 2 cores:
        // 311 → 172 MiB private memory, same speed).
        let job = zstd::stream::raw::CParameter::JobSize(SOLID_JOB);
        let overlap = zstd::stream::raw::CParameter::OverlapSizeLog(8);
        for parameter in [job, overlap] {
            enc.set_parameter(parameter).map_err(PartFail::Write)?;
        }
    }
    for (_, data) in pieces {
        enc.write_all(&data?).map_err(PartFail::Write)?;
        let _ = credit.send(());
    }
    enc.finish().map_err(PartFail::Write)?;
    Ok(())
}

/// Block mode: a reader thread decrypts blocks, a thread per core compresses them
/// (kept raw when zstd does not make them smaller, as nsz does), and this thread
/// writes them in order; the table of their sizes is written in place at the end.
fn blocks<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    clear: &Clear,
    settings: &Settings,
    out: &mut Out<W>,
) -> Result<(), PartFail> {
    let block = 1u64 << settings.block_exponent;
    let total = clear.end - HEAD;
    let count = total.div_ceil(block);
    let count32 = u32::try_from(count).map_err(|_| PartFail::Unsupported(Reason::TooManyBlocks))?;
    let mut header = b"NCZBLOCK".to_vec();
    header.extend_from_slice(&[2, 1, 0, settings.block_exponent]);
    header.extend_from_slice(&count32.to_le_bytes());
    header.extend_from_slice(&total.to_le_bytes());
    out.put(&header)?;
    let table_at = out.pos;
    out.zeros(4 * count)?;
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let ahead = cores * AHEAD;
    let (credit, credits) = crossbeam_channel::bounded::<()>(ahead);
    for _ in 0..ahead {
        let _ = credit.send(());
    }
    let (piece, todo) = crossbeam_channel::bounded(ahead);
    let (finished, done) = crossbeam_channel::bounded(ahead);
    let level = settings.level;
    let sizes = std::thread::scope(|s| {
        named("compress-read", s, move || {
            read_pieces(input, clear, block, &credits, &piece)
        })?;
        for _ in 0..cores {
            let (todo, finished) = (todo.clone(), finished.clone());
            named("compress-zstd", s, move || {
                compress_blocks(level, todo, finished)
            })?;
        }
        drop((todo, finished));
        write_in_order(count as usize, done, credit, out)
    })?;
    let table: Vec<u8> = sizes.iter().flat_map(|s| s.to_le_bytes()).collect();
    out.later.push((table_at, table));
    Ok(())
}

/// A compressing thread: one zstd context, reused for each block it takes; a read
/// error passes through to the writer.
fn compress_blocks(
    level: i32,
    todo: crossbeam_channel::Receiver<(usize, Result<Vec<u8>, PartFail>)>,
    finished: crossbeam_channel::Sender<(usize, Result<Vec<u8>, PartFail>)>,
) {
    let mut zstd = match zstd::bulk::Compressor::new(level) {
        Ok(z) => z,
        Err(e) => {
            let _ = finished.send((usize::MAX, Err(PartFail::Write(e))));
            return;
        }
    };
    for (i, plain) in todo {
        let packed = plain.and_then(|plain| match zstd.compress(&plain) {
            Ok(c) if c.len() < plain.len() => Ok(c),
            Ok(_) => Ok(plain),
            Err(e) => Err(PartFail::Write(e)),
        });
        if finished.send((i, packed)).is_err() {
            return;
        }
    }
}

/// Write the compressed blocks in their order as they finish, giving the reader a
/// credit back for each; returns their sizes.
fn write_in_order<W: Write>(
    count: usize,
    done: crossbeam_channel::Receiver<(usize, Result<Vec<u8>, PartFail>)>,
    credit: crossbeam_channel::Sender<()>,
    out: &mut Out<W>,
) -> Result<Vec<u32>, PartFail> {
    let mut waiting = std::collections::BTreeMap::new();
    let mut sizes = Vec::with_capacity(count);
    while sizes.len() < count {
        let (i, block) = done
            .recv()
            .map_err(|_| PartFail::Unsupported(Reason::ThreadStopped))?;
        let block = block?;
        waiting.insert(i, block);
        while let Some(block) = waiting.remove(&sizes.len()) {
            out.put(&block)?;
            sizes.push(block.len() as u32);
            let _ = credit.send(());
        }
    }
    Ok(sizes)
}
