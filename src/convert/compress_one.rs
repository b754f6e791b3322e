//! Compressing one game of the library in its place: `x.nsp` becomes `x.nsz` (`x.xci`
//! becomes `x.xcz`) only once the compressed file is known to give back every NCA.
//!
//! The compressed bytes go to `x.nsz.part`, are fsynced, then decompressed again
//! streamed into a hashing sink (`verify`: each NCA's SHA-256 against its CNMT
//! record, with the console keys). Only a sound part file takes the original's place,
//! through `replace::replace_via_part` as a conversion does (reason `compressed` in
//! the trash; purged at once when asked).

use crate::tree::Folders;
use std::fs::File;
use std::path::Path;

use rusqlite::Connection;

use super::compress::{self, Settings};
use super::replace::{replace_via_part, PartFail, Swap};
use super::verify::{self, Verdict};
use crate::error::{Error, Msg};
use crate::library::switchfs::{Problem, ProdKeys};
use crate::library::LibraryKey;
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
    /// Where the output is written while it is made (`--work-dir`).
    pub work: Option<&'a std::path::Path>,
    /// Set to stop (the task's cancel), looked at where `on_work` is not called.
    pub stop: Option<&'a std::sync::atomic::AtomicBool>,
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

/// Compress the game at `key` in its place (`replace::replace_via_part`). `on_work` is
/// told of the bytes written, then of the bytes hashed by the verification, and stops
/// the work (cancel) by returning an error.
pub fn compress_one(
    db: &Connection,
    lib: &Folders,
    key: &LibraryKey,
    opts: &Options,
    on_work: &mut dyn FnMut(u64) -> std::io::Result<()>,
) -> Result<Compressed, Error> {
    let (format, out_key) = match target_of(key) {
        Ok(found) => found,
        Err(why) => return Ok(Compressed::Skipped(why)),
    };
    let swap = Swap {
        key,
        out_key: &out_key,
        reason: TrashReason::Compressed,
        retention_days: opts.retention_days,
        purge: opts.delete_originals,
        keys: Some(opts.keys),
        work: opts.work,
        stop: opts.stop,
    };
    let made = replace_via_part(db, lib, &swap, |input, part| {
        write_and_verify(input, format, part, opts, on_work)
    })?;
    Ok(match made {
        Ok((before, after)) => Compressed::Done {
            key: out_key,
            before,
            after,
        },
        Err(why) => Compressed::Skipped(why),
    })
}

/// Write the part file, hold it to the minimum gain, and verify it: the sizes before
/// and after when it may replace the original.
fn write_and_verify(
    input: &mut File,
    format: &str,
    part: &Path,
    opts: &Options,
    on_work: &mut dyn FnMut(u64) -> std::io::Result<()>,
) -> Result<(u64, u64), PartFail> {
    let before = input.metadata().map_err(PartFail::Write)?.len();
    let outcome = compress::write_part(input, format, part, opts.keys, &opts.settings, on_work)
        .map_err(|e| match e {
            PartFail::Keys(Problem::MissingKey { revision, .. }) => {
                PartFail::Skip(Msg::CompressKeyMissing {
                    revision: format!("0x{revision:02x}"),
                })
            }
            PartFail::Keys(p) => PartFail::Skip(verify::problem_msg(&p)),
            e => e,
        })?;
    let after = outcome.size;
    if after.saturating_mul(100) > before.saturating_mul(100 - u64::from(opts.min_gain.min(100))) {
        return Err(PartFail::Skip(Msg::CompressGainTooSmall {
            size: before,
            compressed: after,
            min_gain: opts.min_gain,
        }));
    }
    let mut written = File::open(part).map_err(PartFail::Write)?;
    let compressed_format = if format == "nsp" { "nsz" } else { "xcz" };
    match verify::opened(&mut written, compressed_format, opts.keys, on_work) {
        Err(verify::Interrupted) => Err(PartFail::Write(std::io::ErrorKind::Interrupted.into())),
        Ok(Verdict::Sound) => Ok((before, after)),
        Ok(Verdict::Damaged(why) | Verdict::NotVerifiable(why)) => Err(PartFail::Unverified(why)),
    }
}
