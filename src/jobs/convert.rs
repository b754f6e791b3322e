//! The convert task: every `.nsz` and `.xcz` of the library (or of a selection), one
//! after the other.
//! Progress counts bytes written; a file that fails is named with its reason, keeps
//! its original, and the task goes on (and ends `partial`). A file known to be
//! damaged is not tried again until a scan reads it anew.
//!
//! Before writing anything the task checks that the decompressed files fit on the
//! library's disk: the originals stay in the trash, so the whole decompressed size is
//! needed. When they cannot fit, the task fails at once and converts nothing.

use log::{info, warn};

use super::{Outcome, TaskCtx};
use crate::convert::{self, Options};
use crate::error::{Error, Msg};
use crate::library::LibraryKey;
use crate::store::games;

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let lib = &*ctx.config.folders();
    let mut keys = Vec::new();
    for raw in targets(ctx)? {
        match LibraryKey::parse(&raw) {
            Some(key) => keys.push(key),
            None => {
                // The log names it; the failure (seen by clients) does not, since a
                // row that is no key could hold any path.
                warn!("convert: {raw:?} names no file of the library; skipped");
                ctx.progress.fail(None, Msg::NoSuchFile);
            }
        }
    }
    // A file whose headers declare what no real file could is flagged here, before
    // the free-space check adds its size in.
    let (mut needed, mut largest) = (vec![0u64; lib.all().len()], 0);
    for key in &keys {
        let planned = convert::planned_or_flagged(ctx.db, lib, key);
        let bytes = &mut needed[lib.index_of(key)];
        *bytes = bytes.saturating_add(planned);
        largest = largest.max(planned);
    }
    let work = ctx.config.work_dir.as_deref().map(|dir| (dir, largest));
    super::check_room("convert", (lib, work), &needed, |needed, free| {
        Msg::NoRoomToConvert { needed, free }
    })?;
    ctx.progress
        .set_total(needed.into_iter().fold(0, u64::saturating_add));
    let opts = Options {
        retention_days: ctx.config.retention_days(ctx.db),
        accept_unverified: ctx.config.serve.convert_accept_unverified,
        keys: ctx.prod_keys.current(),
        work: ctx.config.work_dir.clone(),
        stop: Some(ctx.progress.cancel_flag()),
    };
    let (mut converted, mut failed) = (0, 0);
    for key in &keys {
        ctx.progress.check()?;
        match convert_one(ctx, lib, key, &opts) {
            Ok(()) => converted += 1,
            Err(_) if ctx.progress.is_cancelled() => return Err(Error::cancelled()),
            Err(e) => {
                warn!("convert: {e}");
                // A folder gone offline meanwhile is named, not the file's fault.
                let why = lib.away(key).unwrap_or_else(|| e.msg.clone());
                ctx.progress.fail(Some(&key[..]), why);
                failed += 1;
            }
        }
    }
    // Once for the whole task: a file found damaged is no longer playable, and the
    // titles follow the files that changed.
    games::refresh_playable(ctx.db)?;
    crate::titles::model::refresh_after_change(ctx.db);
    Ok(Msg::ConvertDone { converted, failed }.into())
}

/// The `.nsz`/`.xcz` to convert: of those the task was started on (a selection of
/// the file list), else every one of the library.
fn targets(ctx: &TaskCtx) -> Result<Vec<String>, Error> {
    let mut all = games::compressed(ctx.db)?;
    let only = ctx.progress.only();
    if !only.is_empty() {
        let asked: std::collections::HashSet<&String> = only.iter().collect();
        all.retain(|k| asked.contains(k));
    }
    Ok(all)
}

fn convert_one(
    ctx: &TaskCtx,
    lib: &crate::tree::Folders,
    key: &LibraryKey,
    opts: &Options,
) -> Result<(), Error> {
    ctx.progress.advance(0, key);
    let mut on_write = |n: u64| ctx.progress.advance_io(n, key);
    let out = convert::convert(ctx.db, lib, key, opts, &mut on_write)?;
    info!("convert: {key} → {out}");
    Ok(())
}
