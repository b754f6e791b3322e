//! The scan task: walk the library, identify new and changed files, forget removed
//! ones, then recompute what depends on the whole library (`playable`, the titles'
//! states).
//!
//! A scan never forgets games it could not look for: a library folder that is missing
//! or empty while games are known (an unplugged disk, an empty mount point) fails the
//! scan with nothing changed, and a folder that cannot be read keeps every game not
//! found.
//!
//! Incremental: a file whose size and modification time match the database is not
//! opened again, and a scan that changed nothing recomputes nothing. Files are probed
//! (their headers read) on a few threads while this one writes rows, in transactions
//! of [`BATCH`] files so that a cold scan of a large library is not bound by commits.
//! A cancel finishes what was written and stops.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;
use log::{info, warn};

use super::{Outcome, TaskCtx};
use crate::error::{Error, Kind, Msg};
use crate::library::probe::{self, Probe};
use crate::library::switchfs::prodkeys::Loaded;
use crate::library::switchfs::ProdKeys;
use crate::library::{self, walk};
use crate::store::{games, platforms, settings};

/// Files written per transaction.
const BATCH: usize = 512;
/// Above this many new or changed files, indexes are built once at the end rather
/// than kept up row by row.
const BULK: usize = 2000;
/// Files a probing thread takes at a time.
const CHUNK: usize = 64;

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let root = &ctx.config.library;
    // A library on a disk that is unplugged looks like an empty folder, or none: that
    // must not make the scan forget every game.
    let root_entries = std::fs::read_dir(root)
        .map_err(|e| Error::new(Kind::Unavailable, Msg::LibraryUnavailable).with_cause(e))?
        .count();
    let started = Instant::now();
    let mut walk = walk::walk(root, &platforms::list(ctx.db)?);
    for problem in std::mem::take(&mut walk.problems) {
        warn!("scan: {}", problem.msg.english());
        ctx.progress.fail(problem.key.as_deref(), problem.msg);
    }
    let files = walk.files.len();
    ctx.progress.set_total(files as u64);
    let mut known = games::fingerprints(ctx.db)?;
    if root_entries == 0 && !known.is_empty() {
        return Err(Error::new(Kind::Unavailable, Msg::LibraryUnavailable)
            .with_cause("the library folder is empty"));
    }
    let walked = started.elapsed();
    let keyed_before = games::count_keyed(ctx.db)?;
    let read = read_changed(ctx, std::mem::take(&mut walk.files), &mut known)?;
    let read_time = started.elapsed() - walked;
    // What is left of the known files was not found: forget it, unless part of the
    // library could not be read (they may be there).
    let removed = if walk.incomplete { 0 } else { known.len() };
    finish(ctx, &read, (!walk.incomplete).then_some(&known)).inspect_err(|_| {
        if read.bulk {
            let _ = games::ensure_indexes(ctx.db);
        }
    })?;
    info!(
        "scan: walk {} ms, read {} ms, the rest {} ms",
        walked.as_millis(),
        read_time.as_millis(),
        (started.elapsed() - walked - read_time).as_millis()
    );
    if read.cancelled {
        return Err(Error::cancelled());
    }
    // New keys (uploaded, imported) read again what the old ones could not open:
    // the run says how many files that identified.
    let identified = games::count_keyed(ctx.db)?.saturating_sub(keyed_before);
    let kept = walk.incomplete.then_some(known.len() as u64);
    Ok(said(files as u64, &read, kept, removed as u64, identified).into())
}

/// How a scan ended: part of the library unreadable (`kept`: the files not found but
/// kept), files identified with the console keys, or done.
fn said(files: u64, read: &Read, kept: Option<u64>, removed: u64, identified: u64) -> Msg {
    let (n, unchanged) = (read.read, read.unchanged);
    match kept {
        Some(kept) => Msg::ScanIncomplete {
            files,
            read: n,
            unchanged,
            kept,
        },
        None if identified > 0 => Msg::ScanIdentified {
            files,
            read: n,
            identified,
        },
        None => Msg::ScanDone {
            files,
            read: n,
            unchanged,
            removed,
        },
    }
}

/// What reading the new and changed files did.
struct Read {
    read: u64,
    unchanged: u64,
    /// Many rows were written with the indexes set aside (`games::suspend_indexes`).
    bulk: bool,
    cancelled: bool,
    /// The fingerprint of the console keys the files were read with.
    keys_id: Option<String>,
}

/// In one transaction: forget the files not found (`gone`), restore the indexes after
/// a bulk read, and recompute what follows the whole library when anything changed
/// (or when the titles' states were computed by an older version). Lists follow the
/// library's generation, which the writes moved (see `library::name_index`).
fn finish(
    ctx: &TaskCtx,
    read: &Read,
    gone: Option<&HashMap<String, (u64, i64)>>,
) -> Result<(), Error> {
    let mut lap = Lap::start();
    let tx = crate::store::db::write_transaction(ctx.db)?;
    for key in gone.into_iter().flat_map(|gone| gone.keys()) {
        games::delete(&tx, key)?;
    }
    if read.bulk {
        games::resume_indexes(&tx)?;
    } else {
        // An earlier bulk scan that failed before its end left them set aside.
        games::ensure_indexes(&tx)?;
    }
    lap.mark("indexes");
    let changed = read.read > 0 || gone.is_some_and(|gone| !gone.is_empty());
    if changed {
        games::refresh_playable(&tx)?;
    }
    lap.mark("playable");
    if read.bulk {
        // After `playable`, whose writes the triggers would each have counted.
        games::resume_triggers(&tx)?;
    }
    library::mark_ready(&tx, ctx.config.library.as_path())?;
    if let Some(id) = read.keys_id.as_deref().filter(|_| !read.cancelled) {
        settings::set_keys_read_with(&tx, id)?;
    }
    if changed || !crate::titles::model::is_current(&tx)? {
        crate::titles::model::refresh(&tx)?;
    }
    lap.mark("titles");
    tx.commit()?;
    lap.mark("commit");
    info!("scan's end: {}", lap.said);
    Ok(())
}

/// Where the time of a phase went, for the log.
struct Lap {
    at: Instant,
    said: String,
}

impl Lap {
    fn start() -> Lap {
        Lap {
            at: Instant::now(),
            said: String::new(),
        }
    }

    fn mark(&mut self, what: &str) {
        let sep = if self.said.is_empty() { "" } else { ", " };
        self.said += &format!("{sep}{what} {} ms", self.at.elapsed().as_millis());
        self.at = Instant::now();
    }
}

/// Read every file that is new or changed since the last scan: a few threads probe
/// them while this one writes their rows. What `known` still holds afterwards was not
/// found.
fn read_changed(
    ctx: &TaskCtx,
    files: Vec<walk::Found>,
    known: &mut HashMap<String, (u64, i64)>,
) -> Result<Read, Error> {
    let mut todo = files;
    let all = todo.len();
    let keys = current_keys(ctx);
    let again = to_read_again(ctx, keys.as_ref().map(|(_, id)| id.as_str()))?;
    todo.retain(|f| {
        known.remove(f.key.as_str()) != Some((f.size, f.mtime)) || again.contains(f.key.as_str())
    });
    let unchanged = (all - todo.len()) as u64;
    ctx.progress.advance(unchanged, "");
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let next = AtomicUsize::new(0);
    let (sender, probed) = crossbeam_channel::bounded(threads * 2);
    let todo = &todo;
    let keyring = keys.as_ref().map(|(loaded, _)| &loaded.keys);
    let config = ctx.config;
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (sender, next) = (sender.clone(), &next);
            let prober = move || probe_all(config, todo, next, keyring, sender);
            std::thread::Builder::new()
                .name("probe".into())
                .spawn_scoped(s, prober)
                .map_err(|e| Error::internal(format!("cannot start a probing thread: {e}")))?;
        }
        drop(sender);
        let bulk = todo.len() > BULK;
        let (read, cancelled) = write_rows(ctx, probed, bulk).inspect_err(|_| {
            if bulk {
                // Not left without them until the next start.
                let _ = games::ensure_indexes(ctx.db);
            }
        })?;
        Ok(Read {
            read,
            unchanged,
            bulk,
            cancelled,
            keys_id: keys.as_ref().map(|(_, id)| id.clone()),
        })
    })
}

/// A probing thread: take [`CHUNK`] files of `todo` at a time until none is left (or
/// the writer stopped: an error or a cancel), and send them probed.
fn probe_all<'a>(
    config: &crate::config::Config,
    todo: &'a [walk::Found],
    next: &AtomicUsize,
    keys: Option<&ProdKeys>,
    sender: crossbeam_channel::Sender<Vec<(&'a walk::Found, Probe)>>,
) {
    // Each folder opened once a thread, not once a file (files come in the walk's
    // order, a folder's together).
    let mut files = library::safe::Opener::new(&config.library);
    loop {
        let start = next.fetch_add(CHUNK, Ordering::Relaxed);
        let Some(chunk) = todo.get(start..(start + CHUNK).min(todo.len())) else {
            break;
        };
        let chunk: Vec<_> = chunk
            .iter()
            .map(|f| {
                let mut probe = probe::probe(&mut files, &f.key, &f.format, keys);
                cache_icons(&config.data, f, &mut probe);
                (f, probe)
            })
            .collect();
        if chunk.is_empty() || sender.send(chunk).is_err() {
            break;
        }
    }
}

/// Write the rows of probed files as they come, [`BATCH`] per transaction. Returns how
/// many were written, and whether the task was cancelled before the end.
fn write_rows(
    ctx: &TaskCtx,
    probed: Receiver<Vec<(&walk::Found, Probe)>>,
    bulk: bool,
) -> Result<(u64, bool), Error> {
    let mut tx = crate::store::db::write_transaction(ctx.db)?;
    if bulk {
        games::suspend_indexes(&tx)?;
    }
    let mut read = 0u64;
    for chunk in probed {
        if ctx.progress.is_cancelled() {
            commit(tx, bulk)?;
            return Ok((read, true));
        }
        for (found, probe) in chunk {
            if !probe.header_ok {
                let detail = probe.note.clone().unwrap_or_default();
                warn!("scan: {}: {detail}", found.key);
                ctx.progress
                    .fail(Some(&found.key), Msg::FileDamaged { detail });
            }
            library::write(&tx, found, probe)?;
            read += 1;
            ctx.progress.advance(1, &found.key);
            if read.is_multiple_of(BATCH as u64) {
                commit(tx, bulk)?;
                tx = crate::store::db::write_transaction(ctx.db)?;
            }
        }
    }
    commit(tx, bulk)?;
    Ok((read, false))
}

/// Commit a batch of rows. In a bulk scan the generation's triggers are set aside
/// (`games::suspend_indexes`): the batch moves the generation itself, so that what
/// was computed from the games is computed again.
fn commit(tx: rusqlite::Transaction<'_>, bulk: bool) -> Result<(), Error> {
    if bulk {
        crate::store::library_generation::bump(&tx)?;
    }
    tx.commit()?;
    Ok(())
}

/// The unchanged files to read with the console keys all the same: never read with
/// them, or, when the keys changed since the last keyed scan, not opened by the old.
fn to_read_again(ctx: &TaskCtx, keys: Option<&str>) -> Result<HashSet<String>, Error> {
    let Some(id) = keys else {
        return Ok(HashSet::new());
    };
    let other = settings::keys_read_with(ctx.db)?.as_deref() != Some(id);
    Ok(games::to_read_with_keys(ctx.db, other)?
        .into_iter()
        .collect())
}

/// The console keys the scan reads with, and their fingerprint.
fn current_keys(ctx: &TaskCtx) -> Option<(Arc<Loaded>, String)> {
    let loaded = ctx.prod_keys.current()?;
    let fingerprint = loaded.fingerprint.clone();
    Some((loaded, fingerprint))
}

/// Cache the icons a file's Control NCAs hold, on the probing thread that read them
/// (the writer's thread is the database's).
fn cache_icons(data: &std::path::Path, found: &walk::Found, probe: &mut Probe) {
    for (title_id, bytes) in library::take_icons(probe) {
        if let Err(why) = crate::titles::icons::save_own(data, title_id, &bytes) {
            warn!("scan: {}: its icon was not cached: {why}", found.key);
        }
    }
}
