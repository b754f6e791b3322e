//! The verify task: every `.nsp`, `.nsz`, `.xci` and `.xcz` of the library (or the
//! files it was started on), each NCA's SHA-256 against its CNMT record, with the
//! console keys (`convert::verify`). Progress counts the bytes hashed.
//!
//! A damaged file is marked (`games::set_damage`, the reason naming the NCA): it is
//! then not playable, not offered by the shop, never the copy dedupe keeps, and the
//! push asks before sending it. A file found sound loses a mark an earlier verify set
//! (`games::clear_verify_damage`); a mark another task set stays. A file that could
//! not be checked is neither marked nor cleared. Damaged and unverifiable files are
//! each named with their reason, and the run ends `partial`.
//!
//! The public API (`docs/api.md`, "The public API") has no route that starts this
//! task: the web interface starts it through its own routes and `ludotheque verify`
//! in the foreground. Its name does show, as `verify`, in `GET /api/v1/job`'s
//! `label`, whose set of values the API leaves open, and in the VALUES of
//! ludotheque-api(7).

use log::{info, warn};

use super::{Outcome, TaskCtx};
use crate::convert::verify::{self, Verdict};
use crate::error::{Error, Msg};
use crate::library::switchfs::ProdKeys;
use crate::library::LibraryKey;
use crate::store::games;
use crate::words::Container;

/// A file to verify: its key, format, and the bytes its check hashes.
struct Target {
    key: LibraryKey,
    format: String,
    work: u64,
}

/// What the run found, for its closing message.
#[derive(Default)]
struct Tally {
    sound: u64,
    damaged: u64,
    unverifiable: u64,
    /// A mark was set or cleared: playable and the titles follow.
    marks_moved: bool,
}

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    // Read once for the run: a file replaced meanwhile serves the next one.
    let loaded = ctx
        .prod_keys
        .current()
        .ok_or_else(|| Error::invalid(Msg::VerifyNeedsKeys))?;
    let keys = &loaded.keys;
    let targets = targets(ctx)?;
    ctx.progress
        .set_total(targets.iter().map(|t| t.work).fold(0, u64::saturating_add));
    let mut tally = Tally::default();
    let result = targets
        .iter()
        .try_for_each(|t| verify_one(ctx, keys, t, &mut tally));
    // Even when cancelled: the marks already set must count at once.
    if tally.marks_moved {
        games::refresh_playable(ctx.db)?;
        crate::titles::model::refresh_after_change(ctx.db);
    }
    result?;
    Ok(Msg::VerifyDone {
        sound: tally.sound,
        damaged: tally.damaged,
        unverifiable: tally.unverifiable,
    }
    .into())
}

/// The files to verify: those the task was started on, else every file verify reads.
/// A key that names no such game is told as a failure.
fn targets(ctx: &TaskCtx) -> Result<Vec<Target>, Error> {
    let only = ctx.progress.only();
    let rows = if only.is_empty() {
        games::verifiable(ctx.db)?
    } else {
        let mut rows = Vec::new();
        for key in only {
            match games::get(ctx.db, &key)? {
                Some(g) if verify::is_verifiable(&g.format) => {
                    rows.push((key, g.format, g.item.size))
                }
                _ => ctx
                    .progress
                    .fail(Some(&key), Msg::NoGame { key: key.clone() }),
            }
        }
        rows
    };
    let lib = &*ctx.config.folders();
    Ok(rows
        .into_iter()
        .filter_map(|(raw, format, size)| {
            let Some(key) = LibraryKey::parse(&raw) else {
                warn!("verify: {raw:?} names no file of the library; skipped");
                ctx.progress.fail(None, Msg::NoSuchFile);
                return None;
            };
            // An NCZ is hashed as the NCA it decompresses to.
            let work = match Container::of(&format).is_some_and(Container::is_compressed) {
                true => crate::convert::planned_or_flagged(ctx.db, lib, &key).max(size),
                false => size,
            };
            Some(Target { key, format, work })
        })
        .collect())
}

/// Verify one file and act on the verdict. `Err` only when the task must stop.
fn verify_one(ctx: &TaskCtx, keys: &ProdKeys, t: &Target, tally: &mut Tally) -> Result<(), Error> {
    ctx.progress.check()?;
    ctx.progress.advance(0, &t.key);
    let mut done = 0u64;
    let mut on_read = |n: u64| {
        // Never past this file's share of the total.
        let step = n.min(t.work - done);
        done += step;
        ctx.progress.advance_io(step, &t.key)
    };
    let verdict = verify::file(&ctx.config.folders(), &t.key, &t.format, keys, &mut on_read)
        .map_err(|_| Error::cancelled())?;
    ctx.progress.advance(t.work - done, &t.key);
    // A read cut short by a folder gone offline says nothing of the file: never
    // marked damaged for it.
    let verdict = match ctx.config.folders().away(&t.key) {
        Some(away) => Verdict::NotVerifiable(away),
        None => verdict,
    };
    match verdict {
        Verdict::Sound => {
            tally.sound += 1;
            tally.marks_moved |= games::clear_verify_damage(ctx.db, &t.key)?;
        }
        Verdict::Damaged(why) => {
            warn!("verify: {}: {}", t.key, why.english());
            tally.damaged += 1;
            tally.marks_moved = true;
            games::set_damage(ctx.db, &t.key, &why)?;
            ctx.progress.fail(Some(&t.key), why);
        }
        Verdict::NotVerifiable(why) => {
            info!("verify: {}: {}", t.key, why.english());
            tally.unverifiable += 1;
            ctx.progress.fail(Some(&t.key), why);
        }
    }
    Ok(())
}
