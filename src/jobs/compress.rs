//! The compress task: every `.nsp` and `.xci` of the library (or the files it was
//! started on) becomes a `.nsz` or `.xcz` in nsz's format, one after the other
//! (`convert::compress_one`: written, verified against the CNMT records, then put in
//! the original's place, the original in the trash). Progress counts bytes: each
//! file's size twice, once written and once verified.
//!
//! A file already compressed, one whose key revision the console keys lack, and one
//! that would gain less than the minimum are skipped, each named with its reason, and
//! the run stays `ok`; a file that fails (it does not verify, the disk is full) is
//! named and keeps its original, the task goes on and ends `partial`.
//!
//! Before writing anything the task checks the room (`needed`): the compressed files
//! kept, each at most `100 − min_gain` percent of its original, while the originals
//! wait in the trash (on the same disk: a rename frees nothing), plus the file in
//! flight, which may come out as large as its original before `--min-gain` throws it
//! away. With `--delete-originals` each original is purged once its compressed file
//! is in place, so only the file in flight counts. When it cannot fit, the task fails
//! at once and compresses nothing.

use log::{info, warn};

use super::{Outcome, TaskCtx};
use crate::config::Config;
use crate::convert::compress::Settings;
use crate::convert::compress_one::{self, Compressed, Options};
use crate::error::{Error, Msg};
use crate::library::LibraryKey;
use crate::store::games;

/// The setting "delete the originals once verified", off until an admin turns it on
/// in Settings.
pub fn delete_originals(db: &rusqlite::Connection) -> Result<bool, Error> {
    crate::store::settings::COMPRESS_DELETE_ORIGINALS.get(db)
}

pub fn set_delete_originals(db: &rusqlite::Connection, on: bool) -> Result<(), Error> {
    crate::store::settings::COMPRESS_DELETE_ORIGINALS.set(db, on)
}

/// The command line's flags for one run (`ludotheque compress --level …`): they set
/// how this run compresses, over the service's settings, whether the task runs in
/// the command's own process or is handed to the running service.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flags {
    pub level: Option<i32>,
    #[serde(default)]
    pub solid: bool,
    pub min_gain: Option<u32>,
    #[serde(default)]
    pub delete_originals: bool,
}

impl Flags {
    /// `config` with these flags over it.
    pub fn apply(&self, config: &Config) -> Config {
        let mut config = config.clone();
        config.compress_level = self.level.unwrap_or(config.compress_level);
        config.compress_solid |= self.solid;
        config.compress_min_gain = self.min_gain.unwrap_or(config.compress_min_gain);
        config.compress_delete_originals |= self.delete_originals;
        config
    }
}

/// What the run did, for its closing message.
#[derive(Default)]
struct Tally {
    compressed: u64,
    skipped: u64,
    failed: u64,
    saved: u64,
}

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let loaded = ctx
        .prod_keys
        .current()
        .ok_or_else(|| Error::invalid(Msg::CompressNeedsKeys))?;
    let lib = ctx.config.folders();
    let targets = targets(ctx)?;
    let sizes: Vec<u64> = targets.iter().map(|(_, size)| *size).collect();
    // Each folder's files are compressed beside them, on its own disk.
    let needed: Vec<u64> = (0..lib.all().len())
        .map(|i| {
            let here = targets.iter().filter(|(key, _)| lib.index_of(key) == i);
            let sizes: Vec<u64> = here.map(|(_, size)| *size).collect();
            let config = ctx.config;
            needed(
                &sizes,
                config.compress_min_gain,
                config.compress_delete_originals,
            )
        })
        .collect();
    let largest = sizes.iter().map(|&size| in_flight(size)).max().unwrap_or(0);
    let work = ctx.config.work_dir.as_deref().map(|dir| (dir, largest));
    super::check_room("compress", (&lib, work), &needed, |needed, free| {
        Msg::NoRoomToCompress { needed, free }
    })?;
    ctx.progress.set_total(2 * sizes.iter().sum::<u64>());
    let stop = ctx.progress.cancel_flag();
    let opts = Options {
        settings: Settings {
            level: ctx.config.compress_level,
            solid: ctx.config.compress_solid,
            ..Settings::default()
        },
        min_gain: ctx.config.compress_min_gain,
        retention_days: ctx.config.retention_days(ctx.db),
        // The flag for one run, or the setting (Settings, off by default) for all.
        delete_originals: ctx.config.compress_delete_originals || delete_originals(ctx.db)?,
        keys: &loaded.keys,
        work: ctx.config.work_dir.as_deref(),
        stop: Some(&stop),
    };
    let mut tally = Tally::default();
    let result = targets
        .iter()
        .try_for_each(|(key, size)| compress(ctx, key, *size, &opts, &mut tally));
    if tally.compressed > 0 {
        games::refresh_playable(ctx.db)?;
        crate::titles::model::refresh_after_change(ctx.db);
    }
    result?;
    Ok(Msg::CompressDone {
        compressed: tally.compressed,
        skipped: tally.skipped,
        failed: tally.failed,
        saved: tally.saved,
    }
    .into())
}

/// The files to compress with their sizes: those the task was started on, else every
/// `.nsp` and `.xci`. A key that names no game is a failure; one already compressed
/// is skipped by `compress_one`.
fn targets(ctx: &TaskCtx) -> Result<Vec<(LibraryKey, u64)>, Error> {
    let only = ctx.progress.only();
    let rows = if only.is_empty() {
        games::compressible(ctx.db)?
    } else {
        let mut rows = Vec::new();
        // A key named twice (by an API client, a command line) is one file.
        let mut only = only;
        only.sort();
        only.dedup();
        for key in only {
            match games::get(ctx.db, &key)? {
                Some(g) => rows.push((key, g.item.size)),
                None => ctx
                    .progress
                    .fail(Some(&key), Msg::NoGame { key: key.clone() }),
            }
        }
        rows
    };
    Ok(rows
        .into_iter()
        .filter_map(|(raw, size)| match LibraryKey::parse(&raw) {
            Some(key) => Some((key, size)),
            None => {
                warn!("compress: {raw:?} names no file of the library; skipped");
                ctx.progress.fail(None, Msg::NoSuchFile);
                None
            }
        })
        .collect())
}

/// The most a compressed file can exceed its original by: zstd's worst case on
/// incompressible bytes (under 1/256), the NCZ's tables, an XCZ's partition headers.
fn in_flight(size: u64) -> u64 {
    size.saturating_add(size / 256).saturating_add(1 << 20)
}

/// The free space compressing files of these sizes, in this order, needs at its
/// peak: while file `j` is written, the outputs kept before it (each at most
/// `100 − min_gain` percent of its original, or `--min-gain` would have thrown it
/// away) and file `j`'s own output; with `delete_originals`, each original kept gives
/// back more than its output takes, so only the file in flight counts.
fn needed(sizes: &[u64], min_gain: u32, delete_originals: bool) -> u64 {
    let keep = u64::from(100 - min_gain.min(100));
    let mut kept = 0u64;
    let mut peak = 0u64;
    for &size in sizes {
        let now = match delete_originals {
            true => in_flight(size),
            false => kept.saturating_add(in_flight(size)),
        };
        peak = peak.max(now);
        kept = kept.saturating_add(size.saturating_mul(keep) / 100);
    }
    peak
}

/// Compress one file and count what came of it. `Err` only when the task must stop.
fn compress(
    ctx: &TaskCtx,
    key: &LibraryKey,
    size: u64,
    opts: &Options,
    tally: &mut Tally,
) -> Result<(), Error> {
    ctx.progress.check()?;
    ctx.progress.advance(0, key);
    // Written then verified: this file's share of the total is twice its size.
    let share = 2 * size;
    let mut done = 0u64;
    let mut on_work = |n: u64| {
        let step = n.min(share - done);
        done += step;
        // `Interrupted` from a writer (`write_all` would retry it): the compressor
        // carries it through as another kind, and restores it.
        ctx.progress.advance_io(step, key)
    };
    let result = compress_one::compress_one(ctx.db, &ctx.config.folders(), key, opts, &mut on_work);
    ctx.progress.advance(share - done, key);
    match result {
        Ok(Compressed::Done {
            key: out,
            before,
            after,
        }) => {
            info!("compress: {key} → {out} ({before} → {after} bytes)");
            tally.compressed += 1;
            tally.saved += before.saturating_sub(after);
        }
        Ok(Compressed::Skipped(why)) => {
            info!("compress: {key} skipped: {}", why.english());
            tally.skipped += 1;
            ctx.progress.skip(key, why);
        }
        Err(_) if ctx.progress.is_cancelled() => return Err(Error::cancelled()),
        Err(e) => {
            warn!("compress: {e}");
            tally.failed += 1;
            // A folder gone offline meanwhile is named, not the file's fault.
            let why = ctx
                .config
                .folders()
                .away(key)
                .unwrap_or_else(|| e.msg.clone());
            ctx.progress.fail(Some(key), why);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn the_room_needed_is_the_outputs_kept_plus_the_file_in_flight() {
        let sizes = [300 * MIB, 100 * MIB, 600 * MIB];
        // The originals stay: the outputs before the last (98 % of them at most) and
        // the last as large as itself.
        let expected = 400 * MIB * 98 / 100 + in_flight(600 * MIB);
        assert_eq!(needed(&sizes, 2, false), expected);
        // A larger minimum gain keeps smaller outputs.
        assert_eq!(needed(&sizes, 50, false), 200 * MIB + in_flight(600 * MIB));
        // Purged as they go: the largest file alone, far under the originals' total.
        assert_eq!(needed(&sizes, 2, true), in_flight(600 * MIB));
        assert!(needed(&sizes, 2, true) < 700 * MIB);
        // The peak may come before the end: a large file first, small ones after.
        assert_eq!(needed(&[600 * MIB, MIB], 100, false), in_flight(600 * MIB));
        assert_eq!(needed(&[], 2, false), 0);
    }
}
