//! Replacing a game by a file made from it: convert (`x.nsz` → `x.nsp`) and compress
//! (`x.nsp` → `x.nsz`) go through the one step here, so they agree on what a
//! failure leaves behind and on what follows the new file.
//!
//! The new file is written to `target.part`, recorded first in the setting
//! `store::settings::convert_part` (a kill leaves nothing after a restart:
//! `convert::clean_leftover`), fsynced, and linked to its name (never over a file; the
//! folder fsynced). Only then does the original go to the trash (purged at once when
//! asked), the new file is indexed, and what was kept of the old key follows the new
//! one (the push list, the shop's downloads), as organize moves a key. On any failure,
//! a cancel or a full disk, the part file is removed and the original stays whole.
//!
//! With a work folder (`--work-dir`, a faster disk), the new file is written there
//! first, then copied to `target.part` beside the original (fsynced, and read back:
//! its SHA-256 must be the work file's), and linked to its name as above: the
//! library's disk only takes the finished file, one long write.

use crate::tree::Folders;
use std::fs::File;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use rusqlite::Connection;

use crate::error::{Detail, Error, Msg, Reason};
use crate::library::containers::{self, FormatError};
use crate::library::switchfs::{Problem, ProdKeys};
use crate::library::{self, LibraryKey};
use crate::store::{games, push_list, settings, shop_downloads};
use crate::trash;
use crate::words::TrashReason;

/// Why a file was not replaced; the original is whole where it was.
#[derive(Debug)]
pub enum PartFail {
    /// The original (or what was made of it) is not what it should be: the reason,
    /// safe to show.
    Input(FormatError),
    /// The console keys do not open an NCA of it.
    Keys(Problem),
    /// The original is sound, but this is not made of it (a cartridge image with a
    /// key area, a block size or count past its bounds), or a thread of ours stopped:
    /// the reason, safe to show. Not the file's damage.
    Unsupported(Reason),
    /// Left as it is, by choice (too little gain, a key missing).
    Skip(Msg),
    /// The new file does not give back the NCAs its CNMT records.
    Unverified(Msg),
    /// The new file could not be written: a full disk, or `Interrupted` for a cancel.
    Write(std::io::Error),
}

impl From<FormatError> for PartFail {
    fn from(e: FormatError) -> Self {
        PartFail::Input(e)
    }
}

/// A failed read of the original: its end came early (the file is cut short), or the
/// disk failed (not the file's fault: see [`FormatError::is_read_failure`]).
pub fn read_error(e: std::io::Error) -> PartFail {
    let why = match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Reason::Truncated,
        _ => Reason::ReadFailed,
    };
    PartFail::Input(why.into())
}

/// One replacement: the original, the new file's key, and what becomes of the
/// original (its reason in the trash says convert or compress).
pub struct Swap<'a> {
    pub key: &'a LibraryKey,
    pub out_key: &'a LibraryKey,
    pub reason: TrashReason,
    pub retention_days: u32,
    /// Purge the original once the new file is in place, instead of keeping it in
    /// the trash for `retention_days`.
    pub purge: bool,
    /// The console keys the new file is identified with, as a scan would.
    pub keys: Option<&'a ProdKeys>,
    /// Where the new file is written while it is made (`--work-dir`); none: beside
    /// the original.
    pub work: Option<&'a Path>,
    /// Set to stop (a cancel): looked at while the work file is copied into place.
    pub stop: Option<&'a AtomicBool>,
}

impl Swap<'_> {
    fn failed(&self, reason: impl Into<Detail>) -> Error {
        let (key, reason) = (self.key.to_string(), reason.into());
        Error::invalid(match self.reason {
            TrashReason::Compressed => Msg::CompressFailed { key, reason },
            _ => Msg::ConvertFailed { key, reason },
        })
    }

    fn exists(&self) -> Error {
        let (key, target) = (self.key.to_string(), self.out_key.to_string());
        Error::conflict(match self.reason {
            TrashReason::Compressed => Msg::CompressTargetExists { key, target },
            _ => Msg::ConvertTargetExists { key, target },
        })
    }
}

/// Make the new file with `write` (given the original, opened, and the part file's
/// path to create), then put it in the original's place. `Ok(Err(msg))`: the file
/// was left as it is, by choice. A reader's fault (a panic) is this file's damage,
/// never the task's end.
pub fn replace_via_part<T>(
    db: &Connection,
    lib: &Folders,
    swap: &Swap<'_>,
    write: impl FnOnce(&mut File, &Path) -> Result<T, PartFail>,
) -> Result<Result<T, Msg>, Error> {
    let target = lib.locate(swap.out_key).path();
    if std::fs::symlink_metadata(&target).is_ok() {
        return Err(swap.exists());
    }
    // Never through a link out of the library, even one put there since the scan.
    let mut input = library::safe::open_key(lib, swap.key).map_err(|e| {
        let why = library::safe::not_a_file(&e).map(library::safe::NotAFile::detail);
        swap.failed(why.unwrap_or(Reason::OpenFailed))
    })?;
    let part_key = swap.out_key.with_suffix(".part");
    settings::CONVERT_PART.set(db, &part_key)?;
    let part = lib.locate(&part_key).path();
    let work = swap.work.map(work_file);
    if work.is_some() {
        log::debug!(
            "{}: {} is made in the work folder",
            swap.reason,
            swap.out_key
        );
    }
    let written = containers::guard(|| {
        write_via_part(&part, &target, |p| match &work {
            Some(work) => {
                let made = write(&mut input, work)?;
                copy_checked(work, p, swap.stop).map(|()| made)
            }
            None => write(&mut input, p),
        })
    });
    // A reader's panic skipped `write_via_part`'s own cleanup.
    let _ = std::fs::remove_file(&part);
    if let Some(work) = &work {
        let _ = std::fs::remove_file(work);
    }
    settings::CONVERT_PART.set(db, "")?;
    let made = match written.unwrap_or_else(|e| Err(e.into())) {
        Ok(made) => made,
        Err(PartFail::Skip(why)) => return Ok(Err(why)),
        Err(fail) => return Err(failure(db, swap, fail)),
    };
    put_in_place(db, lib, swap)?;
    Ok(Ok(made))
}

/// Write `target` + `.part` with `write`, then link it to `target` (never over a
/// file). The part file is gone afterwards, whatever happened.
pub fn write_via_part<T>(
    part: &Path,
    target: &Path,
    write: impl FnOnce(&Path) -> Result<T, PartFail>,
) -> Result<T, PartFail> {
    let _ = std::fs::remove_file(part);
    let result = write(part).and_then(|made| publish(part, target).map(|()| made));
    let _ = std::fs::remove_file(part);
    result
}

/// The error a failed replacement is, the original kept. An original that does not
/// read as it should is flagged damaged (so that it stops counting as one to convert
/// or compress, and the library and the push warn about it); a read the disk failed
/// is not the file's fault.
fn failure(db: &Connection, swap: &Swap<'_>, fail: PartFail) -> Error {
    match fail {
        PartFail::Input(e) => {
            if !e.is_read_failure() {
                let why = Msg::FileDamaged {
                    detail: e.0.clone().into(),
                };
                if let Err(e) = games::set_damage(db, swap.key, &why) {
                    log::error!(
                        "{}: {} could not be flagged damaged: {e}",
                        swap.reason,
                        swap.key
                    );
                }
            }
            swap.failed(e.0)
        }
        // Compress turns a key that does not open into a skip, and returns skips
        // before here: neither comes this far.
        PartFail::Keys(_) => swap.failed(Reason::KeysDoNotOpen),
        PartFail::Unsupported(why) => swap.failed(why),
        PartFail::Skip(why) => Error::invalid(why),
        PartFail::Unverified(why) => Error::invalid(Msg::CompressUnverified {
            key: swap.key.to_string(),
            why: Box::new(why),
        }),
        PartFail::Write(e) if e.kind() == std::io::ErrorKind::Interrupted => Error::cancelled(),
        PartFail::Write(e) => swap.failed(write_reason(&e)).with_cause(e),
    }
}

fn write_reason(e: &std::io::Error) -> Reason {
    use std::io::ErrorKind::*;
    match e.kind() {
        StorageFull => Reason::DiskFull,
        FileTooLarge => Reason::FileSizeLimit,
        _ => Reason::WriteFailed,
    }
}

/// The file a conversion writes in the work folder `dir` (one at a time per process;
/// `clean_work` removes what a kill left).
fn work_file(dir: &Path) -> std::path::PathBuf {
    dir.join(format!("{WORK_PREFIX}{}.part", std::process::id()))
}

/// The work folder's files are named so, hidden.
const WORK_PREFIX: &str = ".ludotheque-work-";

/// Remove what a killed conversion left in the work folder `dir`.
pub fn clean_work(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(WORK_PREFIX) {
            log::warn!(
                "convert: removing {name:?}, left in the work folder by an interrupted conversion"
            );
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Copy the finished `work` file to `part` (on the library's disk), fsynced, its pages
/// dropped from the cache, then read back from the disk: its SHA-256 must be what was
/// copied, or the copy fails (a disk that returns other bytes than it took never
/// replaces an original). `stop` set: `Interrupted`, a cancel.
fn copy_checked(work: &Path, part: &Path, stop: Option<&AtomicBool>) -> Result<(), PartFail> {
    use std::os::fd::AsRawFd;
    let mut out = File::create_new(part).map_err(PartFail::Write)?;
    let copied = digest(File::open(work).map_err(PartFail::Write)?, &mut out, stop);
    let copied = copied
        .and_then(|d| out.sync_all().map(|()| d))
        .map_err(PartFail::Write)?;
    // SAFETY: advice on a descriptor this function holds; no memory is touched.
    unsafe { libc::posix_fadvise(out.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    let back = File::open(part).and_then(|f| digest(f, &mut std::io::sink(), stop));
    match back.map_err(PartFail::Write)? == copied {
        true => Ok(()),
        false => Err(PartFail::Write(std::io::Error::other(
            "the copy reads back other bytes",
        ))),
    }
}

/// The SHA-256 of what `from` holds, written to `to` on the way.
fn digest(
    mut from: File,
    to: &mut dyn std::io::Write,
    stop: Option<&AtomicBool>,
) -> std::io::Result<[u8; 32]> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let (mut hash, mut buf) = (Sha256::new(), vec![0u8; 1 << 20]);
    loop {
        if stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::SeqCst)) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = from.read(&mut buf)?;
        if n == 0 {
            return Ok(hash.finalize().into());
        }
        hash.update(&buf[..n]);
        to.write_all(&buf[..n])?;
    }
}

/// Give the part file its final name without ever replacing a file: a hard link fails
/// when the name exists. Then make the new name durable.
fn publish(part: &Path, target: &Path) -> Result<(), PartFail> {
    std::fs::hard_link(part, target)
        .or_else(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists || target.exists() {
                Err(e)
            } else {
                std::fs::rename(part, target) // a filesystem without hard links
            }
        })
        .map_err(PartFail::Write)?;
    if let Some(dir) = target.parent() {
        let _ = File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// The new file is down and sound: the original goes to the trash, the new file is
/// indexed, and what was kept of the old key follows the new one.
fn put_in_place(db: &Connection, lib: &Folders, swap: &Swap<'_>) -> Result<(), Error> {
    let (key, out_key) = (swap.key, swap.out_key);
    let row = match trash::move_in(db, lib, key, swap.reason, swap.retention_days) {
        Ok(row) => row,
        Err(e) => {
            // Both files would stay: take the new one back, the original is whole.
            if let Err(back) = std::fs::remove_file(lib.locate(out_key).path()) {
                log::error!("{}: {out_key} stays beside {key}: {back}", swap.reason);
            }
            return Err(e);
        }
    };
    if swap.purge {
        // Through the trash, so that a crash in between leaves an entry, never a
        // file nobody knows of.
        trash::purge_game(db, lib, row.id)?;
    }
    library::index_one(db, lib, out_key, swap.keys)?;
    let tx = db.unchecked_transaction()?;
    push_list::rekey(&tx, key, out_key)?;
    shop_downloads::rekey(&tx, key, out_key)?;
    tx.commit()?;
    games::refresh_playable(db)
}
