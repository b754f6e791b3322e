//! Verify one game file: the SHA-256 of every NCA it holds against the record its
//! CNMT keeps of it (the console keys open the Meta NCAs: `switchfs::read`).
//!
//! It lives beside convert because an NCZ is checked as the NCA it decompresses to,
//! through convert's own pipeline (`ncz::decompress` into a sink: the NCA is hashed,
//! never written). A stored NCA is read in big sequential reads by a thread of its
//! own while this one hashes, so the disk and the hash work at once.
//!
//! What counts as damage: an NCA whose SHA-256 (or size) is not its record's, a
//! record whose NCA the file lacks (but a delta fragment: updates are dumped without
//! them), an NCA cut by the end of the file, an NCZ that does not decompress. An NCA
//! no record lists (the Meta NCA itself) is held to the content ID its name carries,
//! as convert and nsz hold every NCA. The headers' RSA signatures are not looked at
//! (repacks, homebrew and made-up test files cannot carry Nintendo's), and neither
//! are the sections' hash trees: the whole NCA's SHA-256 already covers each of their
//! bytes. A read error is no damage: the file is "not verifiable" and keeps its mark.
//!
//! Hostile input: every NCA is hashed at most once however many records name it,
//! sizes are compared before anything is read, no allocation follows a record's
//! size, and a record that points nowhere is a missing NCA.

use crate::tree::Folders;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io;

use sha2::{Digest, Sha256};

use super::ncz;
use super::replace::PartFail;
use crate::error::{Detail, Msg, NcaFault, Reason, VerifyGap};
use crate::library::containers::{self, Budget, ContainerFile, FormatError, Ncz};
use crate::library::switchfs::{self, Inside, Problem, ProdKeys, Want};
use crate::library::{safe, LibraryKey};
use crate::words::Container;

/// Bytes per read of a stored NCA.
const BUFFER: usize = 1 << 20;
/// Buffers between the reading thread and the hashing one.
const DEPTH: usize = 4;
/// A CNMT record's content type for a delta fragment (an update's differences, which
/// dumps of updates usually leave out).
const DELTA_FRAGMENT: u8 = 6;
/// What verifying a file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every NCA matches.
    Sound,
    /// The reason, naming the first damaged NCA (`Msg::NcaDamaged`), or the container
    /// that does not read (`Msg::FileDamaged`).
    Damaged(Msg),
    /// Why the file could not be checked (`Msg::NotVerifiable`, `Msg::NotAFile`).
    NotVerifiable(Msg),
}

/// The task was cancelled while the file was read.
#[derive(Debug)]
pub struct Interrupted;

/// The formats verify reads.
pub fn is_verifiable(format: &str) -> bool {
    Container::of(format).is_some()
}

/// Verify the file at `key` (`format`: `nsp`, `nsz`, `xci` or `xcz`) with `keys`.
/// `on_read` is told of the bytes hashed as they go (the NCA's bytes for an NCZ), and
/// stops the work by returning an error.
pub fn file(
    lib: &Folders,
    key: &LibraryKey,
    format: &str,
    keys: &ProdKeys,
    on_read: &mut dyn FnMut(u64) -> io::Result<()>,
) -> Result<Verdict, Interrupted> {
    let mut f = match safe::open_key(lib, key) {
        Ok(f) => f,
        Err(e) => {
            return Ok(Verdict::NotVerifiable(match safe::not_a_file(&e) {
                Some(what) => what.msg(key),
                None => not_verifiable(VerifyGap::ReadError, "", Detail::default()),
            }))
        }
    };
    // A reader's fault is this file's damage, never the task's end.
    containers::guard(|| opened(&mut f, format, keys, on_read)).unwrap_or_else(|e| {
        log::error!("verify: {key}: {e}");
        Ok(Verdict::Damaged(Msg::FileDamaged { detail: e.0.into() }))
    })
}

/// [`file`] for a file already open: compress checks its part file this way before
/// it takes the original's place.
pub fn opened(
    f: &mut File,
    format: &str,
    keys: &ProdKeys,
    on_read: &mut dyn FnMut(u64) -> io::Result<()>,
) -> Result<Verdict, Interrupted> {
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return Ok(Verdict::NotVerifiable(not_verifiable(
            VerifyGap::ReadError,
            "",
            Detail::default(),
        )));
    };
    advise_sequential(f);
    // One budget for every header this file's reading takes (`containers::Budget`).
    let budget = Budget::file();
    let inside = match switchfs::read(f, format, len, keys, Want::default(), &budget) {
        Ok(inside) => inside,
        Err(e) => return Ok(broken_container(f, format, len, e)),
    };
    if inside.contents.is_empty() {
        return Ok(Verdict::NotVerifiable(why_no_cnmt(&inside.problems)));
    }
    let ncas = match ncas_of(f, format, len, &budget) {
        Ok(ncas) => ncas,
        Err(e) => return Ok(broken_container(f, format, len, e)),
    };
    check(f, &inside, &ncas, on_read, &budget)
}

/// A `NotVerifiable` message.
fn not_verifiable(what: VerifyGap, nca: &str, detail: Detail) -> Msg {
    Msg::NotVerifiable {
        what,
        nca: nca.into(),
        detail,
    }
}

/// The container did not read: a read error, an NCA the end of the file cut (a
/// truncated download, named), or a damaged container.
fn broken_container(f: &mut File, format: &str, len: u64, e: FormatError) -> Verdict {
    if e.is_read_failure() {
        return Verdict::NotVerifiable(not_verifiable(VerifyGap::ReadError, "", Detail::default()));
    }
    match containers::cut_by_end(f, format, len) {
        Some(nca) => Verdict::Damaged(damaged(&nca, NcaFault::Truncated, Detail::default(), 0)),
        None => Verdict::Damaged(Msg::FileDamaged { detail: e.0.into() }),
    }
}

fn damaged(nca: &str, what: NcaFault, detail: Detail, more: u32) -> Msg {
    Msg::NcaDamaged {
        nca: nca.into(),
        what,
        detail,
        more,
    }
}

/// Why a file whose CNMTs could not be read is not verifiable: the first problem the
/// keys met, or no CNMT at all.
fn why_no_cnmt(problems: &[Problem]) -> Msg {
    problems.first().map_or_else(
        || not_verifiable(VerifyGap::NoCnmt, "", Detail::default()),
        problem_msg,
    )
}

pub(crate) fn problem_msg(p: &Problem) -> Msg {
    match p {
        Problem::NoHeaderKey => not_verifiable(VerifyGap::NoHeaderKey, "", Detail::default()),
        Problem::WrongKeys { nca } => not_verifiable(VerifyGap::WrongKeys, nca, Detail::default()),
        Problem::MissingKey { nca, revision } | Problem::MissingTitlekek { nca, revision } => {
            let revision = Reason::Name(format!("0x{revision:02x}"));
            not_verifiable(VerifyGap::MissingKey, nca, revision.into())
        }
        Problem::PersonalizedTicket { nca } => {
            not_verifiable(VerifyGap::PersonalizedTicket, nca, Detail::default())
        }
        Problem::NoTicket { nca } => not_verifiable(VerifyGap::NoTicket, nca, Detail::default()),
        Problem::Malformed { nca, why } => {
            not_verifiable(VerifyGap::Malformed, nca, why.clone().into())
        }
    }
}

/// The NCA a problem is about, if it names one.
fn problem_nca(p: &Problem) -> Option<&str> {
    match p {
        Problem::NoHeaderKey => None,
        Problem::WrongKeys { nca }
        | Problem::MissingKey { nca, .. }
        | Problem::MissingTitlekek { nca, .. }
        | Problem::PersonalizedTicket { nca }
        | Problem::NoTicket { nca }
        | Problem::Malformed { nca, .. } => Some(nca),
    }
}

/// One NCA of the container, stored or compressed.
struct StoredNca {
    name: String,
    /// The content ID its name carries (`<32 hex digits>.….nca` or `.ncz`).
    id: Option<[u8; 16]>,
    entry: ContainerFile,
    compressed: bool,
}

/// The NCAs of the container: the PFS0's of an NSP or NSZ, the secure partition's of
/// an XCI or XCZ.
fn ncas_of(
    f: &mut File,
    format: &str,
    len: u64,
    budget: &Budget,
) -> Result<Vec<StoredNca>, FormatError> {
    let files = containers::game_files(f, len, format, budget)?;
    let mut ncas: Vec<StoredNca> = files
        .unwrap_or_default()
        .into_iter()
        .filter_map(|entry| {
            let lower = entry.name.to_ascii_lowercase();
            let compressed = lower.ends_with(".ncz");
            (compressed || lower.ends_with(".nca")).then(|| StoredNca {
                id: content_id(&lower),
                name: entry.name.clone(),
                entry,
                compressed,
            })
        })
        .collect();
    // In the order of the file: one sequential read from start to end.
    ncas.sort_by_key(|n| n.entry.offset);
    Ok(ncas)
}

/// The content ID a name carries: 32 hex digits before its first dot.
fn content_id(name: &str) -> Option<[u8; 16]> {
    let (digits, _) = name.split_once('.')?;
    let mut id = [0u8; 16];
    hex::decode_to_slice(digits, &mut id).ok()?;
    Some(id)
}

/// What an NCA must be.
#[derive(Clone, Copy)]
enum Expect {
    /// Its CNMT record: the whole SHA-256 and the size.
    Record { sha256: [u8; 32], size: u64 },
    /// Only the content ID of its name: the first half of its SHA-256.
    Name([u8; 16]),
    /// Nothing to hold it to (a name that is no content ID, listed by no record).
    Nothing,
}

/// What reading one NCA found.
enum Found {
    Hashed([u8; 32]),
    /// What is wrong, and the detail `Msg::NcaDamaged` carries.
    Damaged(NcaFault, Detail),
    /// The disk would not give its bytes: no verdict on the file.
    ReadError,
}

/// The damaged NCAs found so far, in the file's order.
#[derive(Default)]
struct Findings(Vec<(String, NcaFault, Detail)>);

impl Findings {
    fn add(&mut self, nca: &str, what: NcaFault, detail: Detail) {
        log::debug!("verify: {nca}: {what:?} {detail}");
        self.0.push((nca.into(), what, detail));
    }

    fn verdict(&self) -> Option<Verdict> {
        let (nca, what, detail) = self.0.first()?;
        Some(Verdict::Damaged(damaged(
            nca,
            *what,
            detail.clone(),
            (self.0.len() - 1).try_into().unwrap_or(u32::MAX),
        )))
    }
}

/// Hold every NCA of the file to what is expected of it.
fn check(
    f: &File,
    inside: &Inside,
    ncas: &[StoredNca],
    on_read: &mut dyn FnMut(u64) -> io::Result<()>,
    budget: &Budget,
) -> Result<Verdict, Interrupted> {
    let mut records = HashMap::new();
    for r in inside.contents.iter().flat_map(|c| &c.records) {
        records.entry(r.nca_id).or_insert(r);
    }
    let stored: HashSet<[u8; 16]> = ncas.iter().filter_map(|n| n.id).collect();
    let mut found = Findings::default();
    let mut seen = HashSet::new();
    for r in inside.contents.iter().flat_map(|c| &c.records) {
        let first = seen.insert(r.nca_id);
        if first && !stored.contains(&r.nca_id) && r.kind != DELTA_FRAGMENT {
            found.add(
                &format!("{}.nca", hex::encode(r.nca_id)),
                NcaFault::Missing,
                Detail::default(),
            );
        }
    }
    for nca in ncas {
        let expect = match nca.id.and_then(|id| records.get(&id)) {
            Some(r) => Expect::Record {
                sha256: r.sha256,
                size: r.size,
            },
            None => nca.id.map_or(Expect::Nothing, Expect::Name),
        };
        match check_one(f, nca, expect, on_read, budget)? {
            None => {}
            Some(Found::Damaged(what, detail)) => found.add(&nca.name, what, detail),
            Some(_) => {
                return Ok(Verdict::NotVerifiable(not_verifiable(
                    VerifyGap::ReadError,
                    "",
                    Detail::default(),
                )))
            }
        }
    }
    if let Some(verdict) = found.verdict() {
        return Ok(verdict);
    }
    // A problem with an NCA no record lists may hide a CNMT that was not read.
    let listed = |name: &str| {
        content_id(&name.to_ascii_lowercase()).is_some_and(|id| records.contains_key(&id))
    };
    let blocking = inside
        .problems
        .iter()
        .find(|p| problem_nca(p).is_none_or(|n| !listed(n)));
    Ok(match blocking {
        Some(p) => Verdict::NotVerifiable(problem_msg(p)),
        None => Verdict::Sound,
    })
}

/// What is wrong with one NCA: `None` when it is what is expected.
fn check_one(
    f: &File,
    nca: &StoredNca,
    expect: Expect,
    on_read: &mut dyn FnMut(u64) -> io::Result<()>,
    budget: &Budget,
) -> Result<Option<Found>, Interrupted> {
    let found = match (nca.compressed, expect) {
        (true, _) => hash_ncz(f, &nca.entry, expect, on_read, budget)?,
        (false, Expect::Record { size, .. }) if nca.entry.size != size => {
            let what = fault_of_size(nca.entry.size, size);
            Found::Damaged(what, Detail::default())
        }
        (false, _) => hash_region(f, nca.entry.offset, nca.entry.size, on_read)?,
    };
    let Found::Hashed(sha) = found else {
        return Ok(Some(found));
    };
    let matches = match expect {
        Expect::Record { sha256, .. } => sha == sha256,
        Expect::Name(id) => sha[..16] == id,
        Expect::Nothing => true,
    };
    Ok((!matches).then(|| Found::Damaged(NcaFault::Mismatch, Detail::default())))
}

/// An NCA of `size` bytes where its record says `expected`.
fn fault_of_size(size: u64, expected: u64) -> NcaFault {
    match size < expected {
        true => NcaFault::Truncated,
        false => NcaFault::Mismatch,
    }
}

/// The SHA-256 of the NCA an NCZ decompresses to, through convert's pipeline into a
/// sink; its size is held to the record's before anything is decompressed.
fn hash_ncz(
    f: &File,
    entry: &ContainerFile,
    expect: Expect,
    on_read: &mut dyn FnMut(u64) -> io::Result<()>,
    budget: &Budget,
) -> Result<Found, Interrupted> {
    let mut input = f;
    let unreadable = |e: FormatError| match e.is_read_failure() {
        true => Found::ReadError,
        false => Found::Damaged(NcaFault::Unreadable, e.0.into()),
    };
    let header: Ncz = match containers::read_ncz(&mut input, entry.offset, entry.end(), budget) {
        Ok(h) => h,
        Err(e) => return Ok(unreadable(e)),
    };
    if let Expect::Record { size, .. } = expect {
        let nca_size = ncz::nca_size(&header);
        if nca_size != size {
            let what = fault_of_size(nca_size, size);
            return Ok(Found::Damaged(what, Detail::default()));
        }
    }
    match ncz::decompress(&mut input, &header, entry.end(), &mut io::sink(), on_read) {
        Ok(sha) => Ok(Found::Hashed(sha)),
        Err(PartFail::Input(e)) => Ok(unreadable(e)),
        // The sink never fails: only `on_read` does, when the task is cancelled
        // (decompressing makes no other failure).
        Err(_) => Err(Interrupted),
    }
}

/// The SHA-256 of `len` bytes at `offset`: a thread reads them in [`BUFFER`]-sized
/// reads, [`DEPTH`] buffers ahead, while this one hashes.
fn hash_region(
    f: &File,
    offset: u64,
    len: u64,
    on_read: &mut dyn FnMut(u64) -> io::Result<()>,
) -> Result<Found, Interrupted> {
    use std::os::unix::fs::FileExt;
    let size = (len.min(BUFFER as u64) as usize).max(1);
    std::thread::scope(|s| {
        let (full_tx, full) = crossbeam_channel::bounded::<io::Result<(Vec<u8>, usize)>>(DEPTH);
        let (empty, empty_rx) = crossbeam_channel::bounded::<Vec<u8>>(DEPTH);
        for _ in 0..DEPTH {
            let _ = empty.send(vec![0u8; size]);
        }
        // Ends at the end, at a read error, or when this side stops listening.
        s.spawn(move || {
            let mut at = 0u64;
            while at < len {
                let Ok(mut buf) = empty_rx.recv() else { return };
                let n = (len - at).min(buf.len() as u64) as usize;
                let read = f
                    .read_exact_at(&mut buf[..n], offset + at)
                    .map(|()| (buf, n));
                let failed = read.is_err();
                if full_tx.send(read).is_err() || failed {
                    return;
                }
                at += n as u64;
            }
        });
        let mut hash = Sha256::new();
        for read in full.iter() {
            let Ok((buf, n)) = read else {
                return Ok(Found::ReadError);
            };
            hash.update(&buf[..n]);
            on_read(n as u64).map_err(|_| Interrupted)?;
            let _ = empty.send(buf);
        }
        Ok(Found::Hashed(hash.finalize().into()))
    })
}

/// Tell the kernel the file is read from start to end: it reads further ahead.
fn advise_sequential(f: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: an advisory syscall on a descriptor this function borrows open.
    unsafe {
        libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::switchfs::{Content, ContentRecord, MetaType};
    use crate::library::synth::{self, Nca};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    fn record(nca: &Nca, kind: u8) -> ContentRecord {
        let sha: [u8; 32] = Sha256::digest(&nca.bytes).into();
        ContentRecord {
            nca_id: sha[..16].try_into().unwrap(),
            sha256: sha,
            size: nca.bytes.len() as u64,
            kind,
        }
    }

    fn inside(records: Vec<ContentRecord>) -> Inside {
        Inside {
            contents: vec![Content {
                title_id: 0x0100_0000_0001_0000,
                meta_type: MetaType::Application,
                version: 0,
                application_id: None,
                records,
            }],
            ..Inside::default()
        }
    }

    /// `check` over `bytes` as a file of `format`; also how many bytes were hashed.
    fn verdict(format: &str, bytes: &[u8], inside: &Inside) -> (Verdict, u64) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, bytes).unwrap();
        let mut f = File::open(&path).unwrap();
        let ncas = ncas_of(
            &mut f,
            format,
            bytes.len() as u64,
            &crate::library::containers::Budget::file(),
        )
        .unwrap();
        let mut hashed = 0;
        let v = check(
            &f,
            inside,
            &ncas,
            &mut |n| {
                hashed += n;
                Ok(())
            },
            &crate::library::containers::Budget::file(),
        )
        .unwrap();
        (v, hashed)
    }

    fn ncas(seed: u64) -> (Nca, Nca) {
        let mut rng = StdRng::seed_from_u64(seed);
        (
            synth::simple_nca(&mut rng, 0x9000),
            synth::simple_nca(&mut rng, 3 * BUFFER + 0x1234),
        )
    }

    fn fault(v: &Verdict) -> Option<(String, NcaFault, u32)> {
        match v {
            Verdict::Damaged(Msg::NcaDamaged {
                nca, what, more, ..
            }) => Some((nca.clone(), *what, *more)),
            _ => None,
        }
    }

    #[test]
    fn a_sound_nsp_and_a_flipped_byte_named() {
        let (meta, program) = ncas(1);
        let records = inside(vec![record(&program, 1)]);
        let files = [
            (meta.name().replace(".nca", ".cnmt.nca"), meta.bytes.clone()),
            (program.name(), program.bytes.clone()),
            ("t.tik".into(), vec![7; 0x2C0]),
        ];
        let nsp = synth::pfs0(&files);
        let (v, hashed) = verdict("nsp", &nsp, &records);
        assert_eq!(v, Verdict::Sound);
        assert_eq!(hashed, (meta.bytes.len() + program.bytes.len()) as u64);
        // One byte of the program NCA, deep inside its second buffer.
        let mut bad = nsp.clone();
        let at = bad.len() - 0x2C0 - program.bytes.len() + BUFFER + 17;
        bad[at] ^= 1;
        let (v, _) = verdict("nsp", &bad, &records);
        assert_eq!(fault(&v), Some((program.name(), NcaFault::Mismatch, 0)));
        // The Meta NCA is held to its name.
        let mut bad = nsp;
        let at = bad.len() - 0x2C0 - program.bytes.len() - 5;
        bad[at] ^= 0x80;
        let (v, _) = verdict("nsp", &bad, &records);
        let meta_name = meta.name().replace(".nca", ".cnmt.nca");
        assert_eq!(fault(&v), Some((meta_name, NcaFault::Mismatch, 0)));
    }

    #[test]
    fn a_missing_nca_is_damage_but_a_missing_delta_fragment_is_not() {
        let (meta, program) = ncas(2);
        let mut rng = StdRng::seed_from_u64(3);
        let delta = synth::simple_nca(&mut rng, 0x5000);
        let nsp = synth::pfs0(&[(meta.name(), meta.bytes.clone())]);
        let (v, _) = verdict("nsp", &nsp, &inside(vec![record(&delta, DELTA_FRAGMENT)]));
        assert_eq!(v, Verdict::Sound);
        let (v, _) = verdict("nsp", &nsp, &inside(vec![record(&program, 1)]));
        assert_eq!(fault(&v), Some((program.name(), NcaFault::Missing, 0)));
    }

    #[test]
    fn ncz_in_block_and_solid_mode_are_hashed_as_their_nca() {
        let (meta, program) = ncas(4);
        let records = inside(vec![record(&program, 1)]);
        for ncz in [synth::ncz_block(&program, 14), synth::ncz_solid(&program)] {
            let nsz = synth::pfs0(&[
                (meta.name(), meta.bytes.clone()),
                (program.ncz_name(), ncz.clone()),
            ]);
            let (v, hashed) = verdict("nsz", &nsz, &records);
            assert_eq!(v, Verdict::Sound);
            assert_eq!(hashed, (meta.bytes.len() + program.bytes.len()) as u64);
            // The record of another NCA of the same size: the hash differs.
            let mut other = record(&program, 1);
            other.sha256[31] ^= 1;
            let (v, _) = verdict("nsz", &nsz, &inside(vec![other]));
            assert_eq!(fault(&v), Some((program.ncz_name(), NcaFault::Mismatch, 0)));
        }
    }

    #[test]
    fn an_xci_secure_partition_and_a_cut_download() {
        let (meta, program) = ncas(5);
        let files = vec![
            (meta.name(), meta.bytes.clone()),
            (program.name(), program.bytes.clone()),
        ];
        let xci = synth::xci(&[("update", vec![]), ("secure", files.clone())]);
        let (v, _) = verdict("xci", &xci, &inside(vec![record(&program, 1)]));
        assert_eq!(v, Verdict::Sound);
        // Cut in the middle of the program NCA: the strict readers refuse the file,
        // the lenient one names what the cut lost.
        let cut = &xci[..xci.len() - 0x100];
        let len = cut.len() as u64;
        assert!(containers::read_xci(
            &mut io::Cursor::new(cut),
            len,
            &crate::library::containers::Budget::file()
        )
        .is_err());
        let named = containers::cut_by_end(&mut io::Cursor::new(cut), "xci", len);
        assert_eq!(named, Some(program.name()));
        let nsp = synth::pfs0(&files);
        let cut = &nsp[..nsp.len() - 1];
        let named = containers::cut_by_end(&mut io::Cursor::new(cut), "nsp", cut.len() as u64);
        assert_eq!(named, Some(program.name()));
    }

    /// A hostile CNMT: sizes far beyond the file, records that name nothing, the same
    /// NCA listed thousands of times. A clear reason, each NCA hashed once at most.
    #[test]
    fn a_hostile_cnmt_gets_a_reason_and_reads_each_nca_once() {
        let (meta, program) = ncas(6);
        let nsp = synth::pfs0(&[
            (meta.name(), meta.bytes.clone()),
            (program.name(), program.bytes.clone()),
        ]);
        let mut huge = record(&program, 1);
        huge.size = u64::MAX;
        let (v, hashed) = verdict("nsp", &nsp, &inside(vec![huge]));
        assert_eq!(fault(&v), Some((program.name(), NcaFault::Truncated, 0)));
        assert_eq!(
            hashed,
            meta.bytes.len() as u64,
            "the program NCA is not read"
        );
        let mut many = vec![record(&program, 1); 20_000];
        for (i, r) in many.iter_mut().enumerate().skip(1).step_by(2) {
            r.nca_id[..8].copy_from_slice(&(i as u64).to_le_bytes());
        }
        let (v, hashed) = verdict("nsp", &nsp, &inside(many));
        let (_, what, more) = fault(&v).unwrap();
        assert_eq!((what, more), (NcaFault::Missing, 9_999));
        assert_eq!(hashed, (meta.bytes.len() + program.bytes.len()) as u64);
    }

    /// A cancel (`on_read` failing) stops the read of a stored NCA and of an NCZ alike.
    #[test]
    fn a_cancel_stops_the_reading_at_once() {
        let (meta, program) = ncas(8);
        let records = inside(vec![record(&program, 1)]);
        for (name, bytes) in [
            (program.name(), program.bytes.clone()),
            (program.ncz_name(), synth::ncz_block(&program, 14)),
        ] {
            let file = synth::pfs0(&[(name, bytes), (meta.name(), meta.bytes.clone())]);
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("f"), &file).unwrap();
            let mut f = File::open(dir.path().join("f")).unwrap();
            let ncas = ncas_of(
                &mut f,
                "nsz",
                file.len() as u64,
                &crate::library::containers::Budget::file(),
            )
            .unwrap();
            let mut calls = 0;
            let stopped = check(
                &f,
                &records,
                &ncas,
                &mut |_| {
                    calls += 1;
                    Err(io::Error::new(io::ErrorKind::Interrupted, "cancelled"))
                },
                &crate::library::containers::Budget::file(),
            );
            assert!(stopped.is_err());
            assert_eq!(calls, 1);
        }
    }

    #[test]
    fn a_problem_with_an_unlisted_nca_leaves_the_file_not_verifiable() {
        let (meta, program) = ncas(7);
        let nsp = synth::pfs0(&[
            (meta.name(), meta.bytes.clone()),
            (program.name(), program.bytes.clone()),
        ]);
        let mut seen = inside(vec![record(&program, 1)]);
        // A Program NCA's ticket problem does not matter: its hash was checked.
        seen.problems = vec![Problem::PersonalizedTicket {
            nca: program.name(),
        }];
        assert_eq!(verdict("nsp", &nsp, &seen).0, Verdict::Sound);
        // A second Meta NCA that did not open may hide records.
        seen.problems.push(Problem::WrongKeys {
            nca: "0123456789abcdef0123456789abcdef.cnmt.nca".into(),
        });
        let (v, _) = verdict("nsp", &nsp, &seen);
        assert!(
            matches!(
                &v,
                Verdict::NotVerifiable(Msg::NotVerifiable {
                    what: VerifyGap::WrongKeys,
                    ..
                })
            ),
            "{v:?}"
        );
    }
}
