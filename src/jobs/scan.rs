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
//! opened again, and a scan that changed nothing recomputes nothing. The walk hands
//! the files it finds to a few threads that probe them (read their headers) while
//! this one writes rows, in transactions of [`BATCH`] files so that a cold scan of a
//! large library is not bound by commits: on two cores the walk no longer leaves one
//! idle before the reading starts. A cancel finishes what was written and stops.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};
use log::{info, warn};

use super::runner::Progress;
use super::{Outcome, TaskCtx};
use crate::error::{Error, Kind, Msg};
use crate::library::probe::{self, Probe};
use crate::library::switchfs::prodkeys::Loaded;
use crate::library::switchfs::ProdKeys;
use crate::library::{self, walk};
use crate::store::platforms::Platform;
use crate::store::{games, platforms, settings};
use crate::tree::folders::{Folders, State};

/// Files written per transaction.
const BATCH: usize = 512;
/// Past this many rows written (a first scan: from its first), indexes are built once
/// at the end rather than kept up row by row.
const BULK: u64 = 2000;
/// Files a probing thread takes at a time.
const CHUNK: usize = 64;
/// Files the walk finds between two words to the progress when it hands none over
/// (a rescan of unchanged files).
const TELL: u64 = 1024;

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let folders = ctx.config.folders();
    let started = Instant::now();
    let mut known = games::fingerprints(ctx.db)?;
    let mut mounts = mounts(ctx, &folders, &mut known)?;
    let keyed_before = games::count_keyed(ctx.db)?;
    let (mut walked, read) = read_changed(ctx, (&folders, &mounts.online), known)?;
    let read_time = started.elapsed();
    // A share unmounted while the walk went on looks empty: what it held stays.
    mounts.recheck(ctx, &folders, &mut walked.known);
    // What is left of the known files was not found: forget it, unless part of the
    // library could not be read (they may be there) or the walk was cut short.
    let whole = !walked.walk.incomplete && !walked.walk.stopped;
    let removed = if whole { walked.known.len() } else { 0 };
    let offline = (&*folders, &mounts);
    finish(ctx, &read, whole.then_some(&walked.known), offline).inspect_err(|_| {
        if read.bulk {
            let _ = games::ensure_indexes(ctx.db);
        }
    })?;
    info!(
        "scan: walk {} ms (beside the reading), walk and read {} ms, the rest {} ms",
        walked.took.as_millis(),
        read_time.as_millis(),
        (started.elapsed() - read_time).as_millis()
    );
    if read.cancelled {
        return Err(Error::cancelled());
    }
    // New keys (uploaded, imported) read again what the old ones could not open:
    // the run says how many files that identified.
    let identified = games::count_keyed(ctx.db)?.saturating_sub(keyed_before);
    let kept = walked.walk.incomplete.then_some(walked.known.len() as u64);
    Ok(said(walked.files, &read, kept, removed as u64, identified).into())
}

/// The scan's view of the library's folders: which it walks, and the folders whose
/// games it keeps as they are, marked offline.
struct Mounts {
    /// One flag per folder of `folders.all()`.
    online: Vec<bool>,
    /// `NAME/` of the folders the library knows (given at the service's last start,
    /// or added) that this run does not mount: a command given fewer `--library`, or
    /// an added folder refused at start. Their games are kept, not forgotten.
    unmounted: Vec<String>,
}

/// Which folders the scan walks. A folder on a disk that is unplugged looks like an
/// empty folder, or none: that must not make the scan forget its games. So a folder
/// that is missing or unreadable, or empty (the first one: empty while it has games),
/// is offline: its games are taken out of `known` (kept), and the run says so. With
/// every folder offline, the games are marked offline and nothing else changes.
fn mounts(
    ctx: &TaskCtx,
    folders: &Folders,
    known: &mut HashMap<String, (u64, i64)>,
) -> Result<Mounts, Error> {
    let unmounted = library::unmounted(ctx.db, folders)?;
    let not_here = |key: &str| unmounted.iter().any(|p| key.starts_with(p.as_str()));
    let mut held = vec![0u64; folders.all().len()];
    for key in known.keys().filter(|k| !not_here(k)) {
        held[folders.index_of(key)] += 1;
    }
    let online: Vec<bool> = (0..held.len())
        .map(|i| is_online(folders, i, held[0]))
        .collect();
    let mounts = Mounts { unmounted, online };
    if !mounts.online.contains(&true) {
        let tx = crate::store::db::write_transaction(ctx.db)?;
        if mounts.mark(&tx, folders)? {
            games::refresh_playable(&tx)?;
        }
        tx.commit()?;
        return Err(Error::new(Kind::Unavailable, Msg::LibraryUnavailable)
            .with_cause("every library folder is missing, unreadable or empty"));
    }
    for (i, folder) in folders.all().iter().enumerate() {
        if !mounts.online[i] {
            warn!("scan: the library folder {:?} is offline", folder.name);
            let (name, kept) = (folder.name.clone(), held[i]);
            ctx.progress
                .fail_first(None, Msg::FolderOffline { name, kept });
        }
    }
    for prefix in &mounts.unmounted {
        let kept = known
            .keys()
            .filter(|k| k.starts_with(prefix.as_str()))
            .count() as u64;
        known.retain(|k, _| !k.starts_with(prefix.as_str()));
        if kept > 0 {
            let name = prefix.trim_end_matches('/').to_string();
            warn!("scan: the library folder {name:?} is not given to this run");
            ctx.progress
                .fail_first(None, Msg::FolderNotMounted { name, kept });
        }
    }
    known.retain(|key, _| mounts.online[folders.index_of(key)]);
    Ok(mounts)
}

/// Folder `i` is there to walk: online, or the first folder empty while it holds no
/// game (`first_held`).
fn is_online(folders: &Folders, i: usize, first_held: u64) -> bool {
    let dir = &folders.all()[i].dir;
    match State::of(dir) {
        State::Offline if i == 0 => dir.is_dir() && first_held == 0,
        state => state == State::Online,
    }
}

impl Mounts {
    /// Mark the games of the folders offline now (and of those not mounted) offline,
    /// the others online; whether any row changed.
    fn mark(&self, tx: &rusqlite::Connection, folders: &Folders) -> Result<bool, Error> {
        let further = (1..self.online.len()).map(|i| (folders.prefix(i), !self.online[i]));
        let unmounted = self.unmounted.iter().map(|p| (p.clone(), true));
        let further: Vec<(String, bool)> = further.chain(unmounted).collect();
        Ok(games::mark_offline(tx, &further, !self.online[0])? > 0)
    }

    /// After the walk: a folder that went offline meanwhile (a share unmounted during
    /// a long walk reads as an empty folder) keeps what was not found in it.
    fn recheck(
        &mut self,
        ctx: &TaskCtx,
        folders: &Folders,
        gone: &mut HashMap<String, (u64, i64)>,
    ) {
        for (i, folder) in folders.all().iter().enumerate() {
            if !self.online[i] || is_online(folders, i, 0) {
                continue;
            }
            self.online[i] = false;
            let kept = gone.keys().filter(|k| folders.index_of(k) == i).count() as u64;
            gone.retain(|k, _| folders.index_of(k) != i);
            warn!(
                "scan: the library folder {:?} went offline during the scan",
                folder.name
            );
            let name = folder.name.clone();
            ctx.progress
                .fail_first(None, Msg::FolderOffline { name, kept });
        }
    }
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
    (folders, mounts): (&Folders, &Mounts),
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
    let moved = mounts.mark(&tx, folders)?;
    let changed = read.read > 0 || gone.is_some_and(|gone| !gone.is_empty()) || moved;
    if changed {
        games::refresh_playable(&tx)?;
    }
    lap.mark("playable");
    if read.bulk {
        // After `playable`, whose writes the triggers would each have counted.
        games::resume_triggers(&tx)?;
    }
    library::mark_ready(&tx, ctx.config)?;
    if let Some(id) = read.keys_id.as_deref().filter(|_| !read.cancelled) {
        settings::KEYS_READ_WITH.set(&tx, id)?;
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

/// What the walk found: every game file (`files`), those unchanged, and the known
/// files it did not find (`known`).
struct Walked {
    walk: walk::Walk,
    files: u64,
    unchanged: u64,
    known: HashMap<String, (u64, i64)>,
    took: std::time::Duration,
}

/// Walk the library and read every file that is new or changed since the last scan,
/// all at once: the walk hands files over as it finds them, a few threads probe them,
/// and this one writes their rows.
fn read_changed(
    ctx: &TaskCtx,
    (folders, online): (&Folders, &[bool]),
    known: HashMap<String, (u64, i64)>,
) -> Result<(Walked, Read), Error> {
    let keys = current_keys(ctx);
    let again = to_read_again(ctx, keys.as_ref().map(|(_, id)| id.as_str()))?;
    let platforms = platforms::list(ctx.db)?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    // The walk runs ahead of the reading: what it found waits in the channel (as the
    // whole walk's list did before it ran beside the reading), and the progress knows
    // the whole count a fraction of a second into the scan.
    let (to_probe, todo) = crossbeam_channel::unbounded();
    let (sender, probed) = crossbeam_channel::bounded(threads * 2);
    let keyring = keys.as_ref().map(|(loaded, _)| &loaded.keys);
    let (config, progress) = (ctx.config, ctx.progress);
    // A first scan writes every row in bulk; another, once it has written many.
    let first = known.is_empty();
    std::thread::scope(|s| {
        let sorter = Sorter::new(known, &again, progress, to_probe);
        let walker = spawn(s, "walk", move || sorter.walk(folders, online, &platforms))?;
        for _ in 0..threads {
            let (todo, sender) = (todo.clone(), sender.clone());
            let probe = move || probe_all(config, folders, todo, keyring, sender);
            spawn(s, "probe", probe)?;
        }
        drop((sender, todo));
        // After an error or a cancel the writer drops its end of the channel: the
        // probing threads, then the walk, stop at their next hand-over.
        let written = write_rows(ctx, probed, first);
        let Ok(walked) = walker.join() else {
            if written.is_ok_and(|(_, bulk, _)| bulk) {
                let _ = games::ensure_indexes(ctx.db);
            }
            return Err(Error::internal("the walk stopped"));
        };
        let (read, bulk, cancelled) = written?;
        let read = Read {
            read,
            unchanged: walked.unchanged,
            bulk,
            // A cancel the walk saw first leaves the writer nothing to see it by.
            cancelled: cancelled || walked.walk.stopped,
            keys_id: keys.as_ref().map(|(_, id)| id.clone()),
        };
        Ok((walked, read))
    })
}

/// A named thread of the scan.
fn spawn<'s, T: Send + 's>(
    s: &'s std::thread::Scope<'s, '_>,
    name: &str,
    body: impl FnOnce() -> T + Send + 's,
) -> Result<std::thread::ScopedJoinHandle<'s, T>, Error> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn_scoped(s, body)
        .map_err(|e| Error::internal(format!("cannot start a {name} thread: {e}")))
}

/// The walk's side of a scan: it hands the files that are new or changed (or to read
/// again with the keys) to the probing threads, [`CHUNK`] at a time, counts the others
/// as done, and tells the progress what it found as it goes.
struct Sorter<'a> {
    known: HashMap<String, (u64, i64)>,
    again: &'a HashSet<String>,
    progress: &'a Progress<'a>,
    to_probe: Sender<Vec<walk::Found>>,
    chunk: Vec<walk::Found>,
    files: u64,
    unchanged: u64,
    told: (u64, u64),
}

impl<'a> Sorter<'a> {
    fn new(
        known: HashMap<String, (u64, i64)>,
        again: &'a HashSet<String>,
        progress: &'a Progress<'a>,
        to_probe: Sender<Vec<walk::Found>>,
    ) -> Sorter<'a> {
        let chunk = Vec::with_capacity(CHUNK);
        let (files, unchanged, told) = (0, 0, (0, 0));
        Sorter {
            known,
            again,
            progress,
            to_probe,
            chunk,
            files,
            unchanged,
            told,
        }
    }

    fn walk(mut self, folders: &Folders, online: &[bool], platforms: &[Platform]) -> Walked {
        let started = Instant::now();
        let mut walk = walk::walk_each(folders, online, platforms, &mut self);
        // The files found last: the total is whole.
        walk.stopped |= !self.hand_over();
        Walked {
            walk,
            files: self.files,
            unchanged: self.unchanged,
            known: self.known,
            took: started.elapsed(),
        }
    }

    /// Tell the progress what was found since last time, and hand the files to read
    /// to the probing threads.
    fn hand_over(&mut self) -> bool {
        let (files, unchanged) = (self.files - self.told.0, self.unchanged - self.told.1);
        self.progress.found(files, unchanged);
        self.told = (self.files, self.unchanged);
        if self.progress.is_cancelled() {
            return false;
        }
        self.chunk.is_empty() || self.to_probe.send(std::mem::take(&mut self.chunk)).is_ok()
    }
}

impl walk::Sink for Sorter<'_> {
    /// One file the walk found; false once no one reads files any more (an error or
    /// a cancel).
    fn file(&mut self, found: walk::Found) -> bool {
        self.files += 1;
        let key = found.key.as_str();
        let same = self.known.remove(key) == Some((found.size, found.mtime));
        if same && !self.again.contains(key) {
            self.unchanged += 1;
        } else {
            self.chunk.push(found);
        }
        if self.chunk.len() < CHUNK && !self.files.is_multiple_of(TELL) {
            return true;
        }
        self.hand_over()
    }

    /// Listed before the files' own failures, which a run keeps only the first of.
    fn problem(&mut self, failure: crate::error::Failure) {
        warn!("scan: {}", failure.msg.english());
        self.progress
            .fail_first(failure.key.as_deref(), failure.msg);
    }
}

/// A probing thread: take the walk's chunks as they come until there are none (or
/// the writer stopped: an error or a cancel), and send them probed.
fn probe_all(
    config: &crate::config::Config,
    folders: &Folders,
    todo: Receiver<Vec<walk::Found>>,
    keys: Option<&ProdKeys>,
    sender: Sender<Vec<(walk::Found, Probe)>>,
) {
    // The walk first: on a machine with fewer cores than threads here, a probing
    // thread yields to it, so that the progress counts the whole library early (its
    // total grows while the walk goes on). On Linux the nice value is the thread's.
    // SAFETY: setpriority changes this thread's scheduling weight; nothing is shared.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 5) };
    // Each folder opened once a thread, not once a file (files come in the walk's
    // order, a folder's together); one opener for each library folder.
    let mut openers: Vec<_> = folders
        .all()
        .iter()
        .map(|f| library::safe::Opener::new(&f.dir))
        .collect();
    for chunk in todo {
        let chunk: Vec<_> = chunk
            .into_iter()
            .map(|f| {
                let place = folders.locate(&f.key);
                let files = &mut openers[folders.index_of(&f.key)];
                let mut probe = probe::probe(files, &place.key, &f.format, keys);
                cache_icons(&config.data, &f, &mut probe);
                (f, probe)
            })
            .collect();
        if sender.send(chunk).is_err() {
            break;
        }
    }
}

/// Write the rows of probed files as they come, [`BATCH`] per transaction; in `bulk`
/// from the start or past [`BULK`] rows, with the indexes set aside
/// (`games::suspend_indexes`). Returns how many were written, whether in bulk, and
/// whether the task was cancelled before the end.
fn write_rows(
    ctx: &TaskCtx,
    probed: Receiver<Vec<(walk::Found, Probe)>>,
    mut bulk: bool,
) -> Result<(u64, bool, bool), Error> {
    let written = write_each(ctx, probed, &mut bulk);
    if written.is_err() && bulk {
        // Not left without them until the next start.
        let _ = games::ensure_indexes(ctx.db);
    }
    written.map(|(read, cancelled)| (read, bulk, cancelled))
}

fn write_each(
    ctx: &TaskCtx,
    probed: Receiver<Vec<(walk::Found, Probe)>>,
    bulk: &mut bool,
) -> Result<(u64, bool), Error> {
    let mut tx = crate::store::db::write_transaction(ctx.db)?;
    if *bulk {
        games::suspend_indexes(&tx)?;
    }
    let mut read = 0u64;
    for chunk in probed {
        if ctx.progress.is_cancelled() {
            commit(tx, *bulk)?;
            return Ok((read, true));
        }
        for (found, probe) in chunk {
            if !probe.header_ok {
                let detail = probe.note.clone().unwrap_or_default();
                warn!("scan: {}: {detail}", found.key);
                ctx.progress
                    .fail(Some(&found.key), Msg::FileDamaged { detail });
            }
            library::write(&tx, &found, probe)?;
            read += 1;
            ctx.progress.advance(1, &found.key);
            if read.is_multiple_of(BATCH as u64) {
                commit(tx, *bulk)?;
                tx = crate::store::db::write_transaction(ctx.db)?;
                if !*bulk && read >= BULK {
                    games::suspend_indexes(&tx)?;
                    *bulk = true;
                }
            }
        }
    }
    commit(tx, *bulk)?;
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
    let other = settings::KEYS_READ_WITH.get(ctx.db)?.as_deref() != Some(id);
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
