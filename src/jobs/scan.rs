//! The scan task: walk the library, identify new and changed files, forget removed
//! ones, then recompute what depends on the whole library (`playable`).
//!
//! A scan never forgets games it could not look for: a library folder that is missing
//! or empty while games are known (an unplugged disk, an empty mount point) fails the
//! scan with nothing changed, and a folder that cannot be read keeps every game not
//! found.
//!
//! Incremental: a file whose size and modification time match the database is not
//! opened again. Ranks (the library order) are renumbered once, at the end, so files
//! found by a scan appear in lists when it completes. Writes are batched in transactions so that a cold scan of a large
//! library is not bound by commits; a cancel commits what was done and stops.

use std::collections::HashMap;

use log::warn;

use super::{Outcome, TaskCtx};
use crate::error::{Error, Kind, Msg};
use crate::library::{self, probe, walk};
use crate::store::{games, platforms};

/// Files written per transaction.
const BATCH: usize = 512;
/// Above this many changes, indexes are rebuilt once rather than kept up row by row.
const BULK: usize = 2000;

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let root = &ctx.config.library;
    // A library on a disk that is unplugged looks like an empty folder, or none: that
    // must not make the scan forget every game.
    let root_entries = std::fs::read_dir(root)
        .map_err(|e| Error::new(Kind::Unavailable, Msg::LibraryUnavailable).with_cause(e))?
        .count();
    let walk = walk::walk(root, &platforms::list(ctx.db)?);
    for problem in &walk.problems {
        warn!("scan: {problem}");
        ctx.progress.error();
    }
    ctx.progress.set_total(walk.files.len() as u64);
    let mut known = games::fingerprints(ctx.db)?;
    if root_entries == 0 && !known.is_empty() {
        return Err(Error::new(Kind::Unavailable, Msg::LibraryUnavailable)
            .with_cause("the library folder is empty"));
    }
    let (read, unchanged) = read_changed(ctx, &walk.files, &mut known)?;
    let tx = crate::store::db::write_transaction(ctx.db)?;
    // What is left of the known files was not found: forget it, unless part of the
    // library could not be read (they may be there).
    let removed = if !walk.incomplete {
        for key in known.keys() {
            games::delete(&tx, key)?;
        }
        known.len()
    } else {
        0
    };
    if read > 0 || removed > 0 {
        games::refresh_playable(&tx)?;
        games::renumber(&tx, read + removed as u64 > BULK as u64)?;
    }
    library::mark_ready(&tx, root)?;
    // What each title has and lacks follows the library (and a first scan after an
    // upgrade computes it even when no file changed).
    crate::titles::model::refresh(&tx)?;
    tx.commit()?;
    let files = walk.files.len();
    Ok(Outcome {
        message: if walk.incomplete {
            format!(
                "{files} files: {read} read, {unchanged} unchanged; part of the library could not be read, so {} not found were kept",
                known.len()
            )
        } else {
            format!("{files} files: {read} read, {unchanged} unchanged, {removed} removed")
        },
    })
}

/// Read every file that is new or changed since the last scan, in batches of
/// [`BATCH`] per transaction; what `known` still holds afterwards was not found.
/// Returns (read, unchanged).
fn read_changed(
    ctx: &TaskCtx,
    files: &[walk::Found],
    known: &mut HashMap<String, (u64, i64)>,
) -> Result<(u64, u64), Error> {
    let root = &ctx.config.library;
    let (mut read, mut unchanged) = (0u64, 0u64);
    let mut tx = crate::store::db::write_transaction(ctx.db)?;
    // Many new files (a first scan): index them for search once, at the end.
    let bulk = files.len().saturating_sub(known.len()) > BULK;
    if bulk {
        games::suspend_search_index(&tx)?;
    }
    for (i, found) in files.iter().enumerate() {
        if ctx.progress.is_cancelled() {
            if bulk {
                games::resume_search_index(&tx)?;
            }
            tx.commit()?;
            return Err(Error::cancelled());
        }
        if known.remove(found.key.as_str()) == Some((found.size, found.mtime)) {
            unchanged += 1;
            ctx.progress.advance(1, &found.key);
            continue;
        }
        let probe = probe::probe(root, &found.key, &found.format);
        if !probe.header_ok {
            let note = probe.note.as_deref().unwrap_or("");
            warn!("scan: {}: {note}", found.key);
            ctx.progress.error();
        }
        games::upsert(&tx, &library::game_row(&tx, found, probe)?)?;
        read += 1;
        ctx.progress.advance(1, &found.key);
        if i % BATCH == BATCH - 1 {
            tx.commit()?;
            tx = crate::store::db::write_transaction(ctx.db)?;
        }
    }
    if bulk {
        games::resume_search_index(&tx)?;
    }
    tx.commit()?;
    Ok((read, unchanged))
}
