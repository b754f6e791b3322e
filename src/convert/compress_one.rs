//! Compressing one game of the library in its place: `x.nsp` becomes `x.nsz` (`x.xci`
//! becomes `x.xcz`) only once the compressed file is known to give back every NCA.
//!
//! The compressed bytes go to `x.nsz.part` (recorded first in the setting
//! `store::settings::convert_part`, so that a kill leaves nothing after a restart:
//! `convert::clean_leftover`), are fsynced, then decompressed again streamed into a hashing sink (`verify`: each
//! NCA's SHA-256 against its CNMT record, with the console keys). Only a sound part
//! file takes its name (a hard link, never over a file; the folder fsynced); then the
//! original goes to the trash (reason `compressed`; purged at once when asked) and
//! the game's key changes, its history with it (push list, shop downloads), as
//! organize moves a key. On any
//! failure, a cancel or a full disk, the part file is removed and the original stays
//! whole where it was.

use std::fs::File;
use std::path::Path;

use rusqlite::Connection;

use super::compress::{self, CompressFail, Settings};
use super::verify::{self, Verdict};
use crate::error::{Error, Msg};
use crate::library::containers::FormatError;
use crate::library::switchfs::{Problem, ProdKeys};
use crate::library::{self, LibraryKey};
use crate::store::{games, push_list, settings, shop_downloads};
use crate::trash;
use crate::words::TrashReason;

/// What a compression needs besides the file.
pub struct Options<'a> {
    pub settings: Settings,
    /// Below this gain, in percent of the original's size, the original stays.
    pub min_gain: u32,
    pub retention_days: u32,
    /// Purge each original once its compressed file is verified and in place,
    /// instead of keeping it in the trash for `retention_days`.
    pub delete_originals: bool,
    pub keys: &'a ProdKeys,
}

/// How one file came out.
#[derive(Debug)]
pub enum Compressed {
    /// Replaced: the new key, the sizes before and after.
    Done {
        key: LibraryKey,
        before: u64,
        after: u64,
    },
    /// Left as it is, for this reason (not a failure).
    Skipped(Msg),
}

/// The format a key's extension names, and the compressed key beside it.
fn target_of(key: &LibraryKey) -> Result<(&'static str, LibraryKey), Msg> {
    let (stem, ext) = key.rsplit_once('.').ok_or(Msg::NotCompressible)?;
    let (format, out) = match ext.to_ascii_lowercase().as_str() {
        "nsp" => ("nsp", format!("{stem}.nsz")),
        "xci" => ("xci", format!("{stem}.xcz")),
        "nsz" | "xcz" => return Err(Msg::AlreadyCompressed),
        _ => return Err(Msg::NotCompressible),
    };
    Ok((format, LibraryKey::parse(&out).ok_or(Msg::NotCompressible)?))
}

/// Compress the game at `key` in its place. `on_work` is told of the bytes written,
/// then of the bytes hashed by the verification, and stops the work (cancel) by
/// returning an error.
pub fn compress_one(
    db: &Connection,
    root: &Path,
    key: &LibraryKey,
    opts: &Options,
    on_work: &mut dyn FnMut(u64) -> std::io::Result<()>,
) -> Result<Compressed, Error> {
    let (format, out_key) = match target_of(key) {
        Ok(found) => found,
        Err(why) => return Ok(Compressed::Skipped(why)),
    };
    let target = out_key.under(root);
    if std::fs::symlink_metadata(&target).is_ok() {
        return Err(Error::conflict(Msg::CompressTargetExists {
            key: key.to_string(),
            target: out_key.to_string(),
        }));
    }
    let part_key = out_key.with_suffix(".part");
    let part = part_key.under(root);
    settings::set_convert_part(db, &part_key)?;
    // A reader's fault is this file's damage, never the task's end.
    let written = crate::library::containers::guard(|| {
        write_and_verify(root, key, format, &part, opts, on_work)
    });
    let written = written.unwrap_or_else(|e| Err(flag_damaged(db, key, e)));
    let result = written.and_then(|sizes| {
        super::publish(&part, &target).map_err(|e| match e {
            super::ncz::ConvertFail::Input(e) => Fail::Input(e.0),
            super::ncz::ConvertFail::Write(e) => Fail::Write(e),
        })?;
        Ok(sizes)
    });
    let _ = std::fs::remove_file(&part);
    settings::clear_convert_part(db)?;
    let (before, after) = match result {
        Ok(sizes) => sizes,
        Err(Fail::Skip(why)) => return Ok(Compressed::Skipped(why)),
        Err(Fail::Cancelled) => return Err(Error::cancelled()),
        Err(Fail::Input(reason)) => return Err(failed(key, &reason)),
        Err(Fail::Unverified(why)) => {
            return Err(Error::invalid(Msg::CompressUnverified {
                key: key.to_string(),
                why: Box::new(why),
            }))
        }
        Err(Fail::Write(e)) => return Err(failed(key, &write_reason(&e)).with_cause(e)),
    };
    replace(db, root, key, &out_key, opts)?;
    Ok(Compressed::Done {
        key: out_key,
        before,
        after,
    })
}

/// A file whose reading failed on a fault of the reader's is flagged damaged.
fn flag_damaged(db: &Connection, key: &LibraryKey, e: FormatError) -> Fail {
    let why = Msg::FileDamaged {
        detail: e.0.clone(),
    };
    if let Err(e) = games::set_damage(db, key, &why) {
        log::error!("compress: {key} could not be flagged damaged: {e}");
    }
    Fail::Input(e.0)
}

fn failed(key: &LibraryKey, reason: &str) -> Error {
    Error::invalid(Msg::CompressFailed {
        key: key.to_string(),
        reason: reason.into(),
    })
}

/// The part file is down and sound: the original goes to the trash, the compressed
/// file is indexed, and what was kept of the old key follows the new one.
fn replace(
    db: &Connection,
    root: &Path,
    key: &LibraryKey,
    out_key: &LibraryKey,
    opts: &Options,
) -> Result<(), Error> {
    let row = match trash::move_in(db, root, key, TrashReason::Compressed, opts.retention_days) {
        Ok(row) => row,
        Err(e) => {
            // Both files would stay: take the new one back, the original is whole.
            let _ = std::fs::remove_file(out_key.under(root));
            return Err(e);
        }
    };
    if opts.delete_originals {
        // Through the trash, so that a crash in between leaves an entry, never a
        // file nobody knows of.
        trash::purge(db, root, row.id)?;
    }
    library::index_one(db, root, out_key, Some(opts.keys))?;
    let tx = db.unchecked_transaction()?;
    push_list::rekey(&tx, key, out_key)?;
    shop_downloads::rekey(&tx, key, out_key)?;
    tx.commit()?;
    games::refresh_playable(db)
}

/// Why the work stopped short of replacing the original.
enum Fail {
    Skip(Msg),
    Cancelled,
    /// The input (or the compressed file) is not what it should be: the reason.
    Input(String),
    /// The compressed file does not give back the NCAs the CNMT records.
    Unverified(Msg),
    Write(std::io::Error),
}

/// Write the part file, hold it to the minimum gain, and verify it: the sizes before
/// and after when it may replace the original.
fn write_and_verify(
    root: &Path,
    key: &LibraryKey,
    format: &str,
    part: &Path,
    opts: &Options,
    on_work: &mut dyn FnMut(u64) -> std::io::Result<()>,
) -> Result<(u64, u64), Fail> {
    // Never through a link out of the library, even one put there since the scan.
    let mut input = library::safe::open(root, key).map_err(|e| {
        let why = library::safe::not_a_file(&e).map(library::safe::NotAFile::detail);
        Fail::Input(why.unwrap_or("the file could not be opened").into())
    })?;
    let before = input.metadata().map_err(Fail::Write)?.len();
    let _ = std::fs::remove_file(part);
    let outcome =
        compress::write_part(&mut input, format, part, opts.keys, &opts.settings, on_work)
            .map_err(|e| match e {
                CompressFail::Input(FormatError(why)) => Fail::Input(why),
                CompressFail::Keys(Problem::MissingKey { revision, .. }) => {
                    Fail::Skip(Msg::CompressKeyMissing {
                        revision: format!("0x{revision:02x}"),
                    })
                }
                CompressFail::Keys(p) => Fail::Skip(verify::problem_msg(&p)),
                CompressFail::Write(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    Fail::Cancelled
                }
                CompressFail::Write(e) => Fail::Write(e),
            })?;
    let after = outcome.size;
    if after.saturating_mul(100) > before.saturating_mul(100 - u64::from(opts.min_gain.min(100))) {
        return Err(Fail::Skip(Msg::CompressGainTooSmall {
            size: before,
            compressed: after,
            min_gain: opts.min_gain,
        }));
    }
    let mut written = File::open(part).map_err(Fail::Write)?;
    let compressed_format = if format == "nsp" { "nsz" } else { "xcz" };
    match verify::opened(&mut written, compressed_format, opts.keys, on_work) {
        Err(verify::Interrupted) => Err(Fail::Cancelled),
        Ok(Verdict::Sound) => Ok((before, after)),
        Ok(Verdict::Damaged(why) | Verdict::NotVerifiable(why)) => Err(Fail::Unverified(why)),
    }
}

fn write_reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind::*;
    match e.kind() {
        StorageFull => "the disk is full; the original was kept".into(),
        FileTooLarge => "the file size limit was reached; the original was kept".into(),
        _ => "the compressed file could not be written; the original was kept".into(),
    }
}
