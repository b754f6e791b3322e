//! Watch: new, changed, moved and removed files under the library reach the library
//! without a manual scan (`--watch`, on by default).
//!
//! Where changes come from: inotify (through the `notify` crate, on a thread, no
//! async runtime), or polling where inotify sees nothing: NFS, SMB and other network
//! mounts (found from the filesystem's type), `--watch=poll`, or when inotify cannot
//! be had. Polling reads each folder's modification time every 2 s and lists again
//! the folders whose time moved (new and removed entries); it looks again at the size
//! and time of the files that changed in the last 10 minutes (a file still growing or
//! rewritten in place), and at every file once a minute. On a large library, or a slow
//! server, it polls less often: each pass waits [`BUDGET`] times its own length.
//!
//! What is done with them: each changed path waits until its size and time have not
//! moved for [`SETTLE`], so a download in progress is never read half-written, and a
//! burst of changes becomes one run. Then the paths are compared with the database:
//! when a file differs from its row (or a row has no file any more), an incremental
//! scan is started through the one task slot; when a task runs, it is tried again
//! until the slot is free. The service's own writes (the trash, convert's `.part`
//! files and its output, organize's moves) leave the database agreeing with the disk,
//! so they never start a scan; hidden names (the trash folder among them) and files of
//! no platform's extensions are not even looked at, and links to folders are not
//! followed. At start, and when events were lost, the whole library is compared with
//! the rows (the walk of a scan, no file read) and what differs settles the same way.
//!
//! Each of the library's folders is watched on its own, by inotify or by polling as
//! its filesystem allows. Every 5 s the folders' states are looked at (`State`): a
//! folder that goes offline or comes back, or one added or removed, sets the watch up
//! again and compares the whole library, which starts the scan that settles it.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use log::{debug, info, warn};
use notify::Watcher;
use rusqlite::Connection;

use crate::config::Config;
use crate::error::Error;
use crate::jobs::{Jobs, Task};
use crate::library::walk::mtime_ns;
use crate::store::{db, games, platforms};
use crate::tree::folders::State;
use crate::tree::Folders;
use crate::words::{StartedBy, WatchMode};

/// How long a path's size and time must stay still before it is taken.
pub const SETTLE: Duration = Duration::from_secs(3);
/// How often pending paths are looked at.
const TICK: Duration = Duration::from_millis(500);
/// How often polling reads the folders' times, at most.
const POLL_EVERY: Duration = Duration::from_secs(2);
/// How often polling looks at every file, at most.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// Polling waits this many times as long as its last pass took before the next one,
/// so that it keeps to 1/200 of a core (0.5 %) however large the library, and backs
/// off from a slow network server.
const BUDGET: u32 = 200;
/// A file changed this recently is looked at on every poll.
const RECENT: Duration = Duration::from_secs(600);

/// Start watching the library, unless `--watch=off`. The watch is set up on its own
/// thread (inotify's watches and polling's first look both walk the library), which
/// then compares the whole library with the database once: files changed while the
/// service was stopped are seen too.
pub fn start(
    config: &Config,
    jobs: Arc<Jobs>,
    stop: Arc<AtomicBool>,
) -> Result<Option<JoinHandle<()>>, Error> {
    if config.serve.watch == WatchMode::Off {
        return Ok(None);
    }
    let config = config.clone();
    let conn = db::open(&config.data)?;
    let thread = std::thread::Builder::new()
        .name("watch".into())
        .spawn(move || watch(&config, &conn, &jobs, &stop))?;
    Ok(Some(thread))
}

/// What is watched: the folders as they were when the watch was set up, their
/// states then, and a source of changes for each.
struct Watched {
    folders: Arc<Folders>,
    states: Vec<State>,
    /// Each folder's device and inode: a folder swapped for another (a remount, a
    /// placeholder replaced) is watched again.
    ids: Vec<Option<(u64, u64)>>,
    sources: Vec<Source>,
    next_look: Instant,
}

impl Watched {
    fn set_up(config: &Config) -> Watched {
        let folders = config.folders();
        let states: Vec<State> = folders.all().iter().map(|f| State::of(&f.dir)).collect();
        let ids = folders.all().iter().map(|f| id_of(&f.dir)).collect();
        let sources = folders
            .all()
            .iter()
            .zip(&states)
            .map(|(folder, state)| source(config.serve.watch, &folder.dir, *state))
            .collect();
        Watched {
            folders,
            states,
            ids,
            sources,
            next_look: Instant::now() + LOOK_EVERY,
        }
    }

    /// A folder added, removed, gone offline or back since the set-up.
    fn outdated(&mut self, config: &Config) -> bool {
        if Instant::now() < self.next_look {
            return false;
        }
        self.next_look = Instant::now() + LOOK_EVERY;
        let now = config.folders();
        !Arc::ptr_eq(&now, &self.folders)
            || now
                .all()
                .iter()
                .zip(self.states.iter().zip(&self.ids))
                .any(|(f, (s, id))| State::of(&f.dir) != *s || id_of(&f.dir) != *id)
    }
}

/// A folder's device and inode, when it is there.
fn id_of(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir).ok().map(|m| (m.dev(), m.ino()))
}

/// How often the folders' states are looked at.
const LOOK_EVERY: Duration = Duration::from_secs(5);

/// The source of one library folder's changes: inotify, unless the folder is on a
/// network filesystem, is not online (a mount point's own folder would be watched, not
/// the disk mounted on it later), or `--watch=poll`.
fn source(mode: WatchMode, dir: &Path, state: State) -> Source {
    match mode {
        WatchMode::Auto if state != State::Online => Source::poll(dir),
        WatchMode::Auto if is_network_mount(dir) => {
            info!("watch: a library folder is on a network filesystem; polling it");
            Source::poll(dir)
        }
        WatchMode::Auto => Source::events(dir).unwrap_or_else(|e| {
            warn!("watch: inotify cannot watch a library folder ({e}); polling it instead");
            Source::poll(dir)
        }),
        _ => Source::poll(dir),
    }
}

/// NFS, SMB/CIFS, and FUSE (sshfs, rclone…): inotify hears nothing their server
/// changes.
fn is_network_mount(root: &Path) -> bool {
    crate::library::safe::filesystem(root).is_some_and(|(_, heard)| !heard)
}

/// Where changed paths come from.
enum Source {
    Events {
        _watcher: notify::RecommendedWatcher,
        rx: mpsc::Receiver<notify::Result<notify::Event>>,
        root: PathBuf,
    },
    Poll(Box<Poller>),
}

impl Source {
    fn events(root: &Path) -> notify::Result<Source> {
        let (tx, rx) = mpsc::channel();
        // Links are not followed: the scan does not follow a linked folder either,
        // and one that leads back up would be watched without end.
        let config = notify::Config::default().with_follow_symlinks(false);
        let mut watcher = notify::RecommendedWatcher::new(tx, config)?;
        watcher.watch(root, notify::RecursiveMode::Recursive)?;
        info!("watch: inotify");
        Ok(Source::Events {
            _watcher: watcher,
            rx,
            root: root.to_path_buf(),
        })
    }

    fn poll(root: &Path) -> Source {
        info!("watch: polling every {} s or more", POLL_EVERY.as_secs());
        Source::Poll(Box::new(Poller::new(root)))
    }

    /// The paths that changed since the last call; true when events were lost (the
    /// kernel's queue overflowed) and the whole library must be compared. When the
    /// system's limit of inotify watches is reached, polling takes over.
    fn changes(&mut self, out: &mut Vec<PathBuf>) -> bool {
        let Source::Events { rx, root, .. } = self else {
            if let Source::Poll(poller) = self {
                poller.tick(out);
            }
            return false;
        };
        let (mut lost, mut limit) = (false, false);
        for event in rx.try_iter() {
            match event {
                Ok(e) if e.need_rescan() => lost = true,
                Ok(e) if !e.kind.is_access() => out.extend(e.paths),
                Ok(_) => {}
                Err(e) if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) => limit = true,
                Err(e) => warn!("watch: {e}"),
            }
        }
        if limit {
            warn!("watch: the system's limit of inotify watches is reached; polling instead");
            let root = root.clone();
            *self = Source::poll(&root);
        }
        lost || limit
    }
}

/// The watch thread: gather changes, let them settle, start a scan when the
/// database disagrees with the disk.
fn watch(config: &Config, conn: &Connection, jobs: &Jobs, stop: &AtomicBool) {
    let mut watched = Watched::set_up(config);
    // Whatever changed while the service was stopped.
    let mut pending = Pending {
        whole: true,
        ..Pending::default()
    };
    let mut changed = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(TICK);
        if watched.outdated(config) {
            info!("watch: a library folder was added, removed, went offline or came back");
            watched = Watched::set_up(config);
            pending.whole = true;
        }
        for source in &mut watched.sources {
            pending.whole |= source.changes(&mut changed);
        }
        let lib = &*watched.folders;
        for path in changed.drain(..) {
            if key_of(lib, &path).is_some() {
                pending.touch(path);
            }
        }
        // A running task goes first; nothing is compared meanwhile.
        if pending.is_empty() || jobs.snapshot().running {
            continue;
        }
        if pending.whole {
            // What differs settles like any change: a download under way at start is
            // not read half-written either.
            pending.whole = false;
            match library_changes(conn, lib) {
                Ok(changes) => changes.into_iter().for_each(|p| pending.touch(p)),
                Err(e) => warn!("watch: {e}"),
            }
            continue;
        }
        if !pending.settled() {
            continue;
        }
        match differs(conn, lib, pending.paths.keys()) {
            Ok(false) => pending = Pending::default(),
            // The slot may have been taken meanwhile: the changes wait for it.
            Ok(true) => {
                if jobs.try_start(Task::Scan, StartedBy::Watch).is_ok() {
                    info!("watch: {} change(s) settled; scanning", pending.paths.len());
                    pending = Pending::default();
                }
            }
            Err(e) => warn!("watch: {e}"),
        }
    }
}

/// The library's key of a path below one of its folders, when the path is relevant
/// there ([`relevant`]) and not hidden by a further folder of the same name (at the
/// top of the first one).
fn key_of(lib: &Folders, path: &Path) -> Option<String> {
    let (i, folder) = lib
        .all()
        .iter()
        .enumerate()
        .find(|(_, f)| relevant(&f.dir, path))?;
    let rel = path.strip_prefix(&folder.dir).ok()?.to_str()?;
    let top = rel.split('/').next().unwrap_or(rel);
    if i == 0 && lib.is_mounted(top) {
        return None;
    }
    Some(format!("{}{rel}", lib.prefix(i)))
}

/// Below the root, and no hidden name on the way (the trash folder is one).
fn relevant(root: &Path, path: &Path) -> bool {
    path.strip_prefix(root).is_ok_and(|rel| {
        !rel.as_os_str().is_empty()
            && rel
                .components()
                .all(|c| !c.as_os_str().to_string_lossy().starts_with('.'))
    })
}

/// Changed paths, each with its size and time when last seen, and since when it has
/// not moved; `whole` when the whole library is to be compared.
#[derive(Default)]
struct Pending {
    paths: HashMap<PathBuf, (Option<(u64, i64)>, Instant)>,
    whole: bool,
}

/// A file's size and time; for a folder (one that appeared whole), the total size
/// and latest time of the files below it, so that a folder still being filled has
/// not settled. Links are not followed into folders.
fn look(path: &Path) -> Option<(u64, i64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_dir() {
        let meta = std::fs::metadata(path).unwrap_or(meta);
        return Some((meta.len(), mtime_ns(&meta)));
    }
    let (mut size, mut latest) = (0, mtime_ns(&meta));
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            match (entry.file_type(), entry.metadata()) {
                (Ok(t), _) if t.is_dir() => stack.push(entry.path()),
                (_, Ok(m)) => {
                    size += m.len();
                    latest = latest.max(mtime_ns(&m));
                }
                _ => {}
            }
        }
    }
    Some((size, latest))
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.whole
    }

    fn touch(&mut self, path: PathBuf) {
        let seen = look(&path);
        debug!("watch: {} changed", path.display());
        self.paths.insert(path, (seen, Instant::now()));
    }

    /// Every path has kept its size and time for [`SETTLE`]: a scan reads no file
    /// that is still being written, even one beside a file that has settled.
    fn settled(&mut self) -> bool {
        let mut all = true;
        for (path, (seen, since)) in &mut self.paths {
            let now = look(path);
            if now != *seen {
                (*seen, *since) = (now, Instant::now());
            }
            all &= since.elapsed() >= SETTLE;
        }
        all
    }
}

/// The paths where the whole library disagrees with the rows (the walk of a scan,
/// reading no file): new and changed game files, rows whose file is gone, and the
/// folders that went offline or came back.
fn library_changes(conn: &Connection, lib: &Folders) -> Result<Vec<PathBuf>, Error> {
    let online: Vec<bool> = lib
        .all()
        .iter()
        .map(|f| State::of(&f.dir) == State::Online)
        .collect();
    let mut all = crate::library::walk::Walk::default();
    let walk = crate::library::walk::walk_each(lib, &online, &platforms::list(conn)?, &mut all);
    let mut known = games::fingerprints(conn)?;
    // A game whose folder's state differs from its mark: its folder is the path that
    // differs (the scan marks it again).
    let marked = games::marked_offline(conn)?;
    let mut changed: Vec<PathBuf> = lib
        .all()
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            let mut held = known.keys().filter(|k| lib.index_of(k) == *i);
            held.any(|k| marked.contains(k) == online[*i])
        })
        .map(|(_, folder)| folder.dir.clone())
        .collect();
    changed.extend(
        all.files
            .iter()
            .filter(|f| known.remove(f.key.as_str()) != Some((f.size, f.mtime)))
            .map(|f| lib.locate(&f.key).path()),
    );
    if !walk.incomplete {
        let gone = known.keys().filter(|k| online[lib.index_of(k)]);
        changed.extend(gone.map(|key| path_of(lib, key)));
    }
    Ok(changed)
}

/// Where the file of a key (of a games row) lies.
fn path_of(lib: &Folders, key: &str) -> PathBuf {
    match crate::library::LibraryKey::parse(key) {
        Some(key) => lib.locate(&key).path(),
        None => lib.root().join(key),
    }
}

/// Whether any of `paths` disagrees with the database: a game file (of a platform's
/// extensions) whose size or time differs from its row or that has none, anywhere
/// below a folder; a row with no file any more.
fn differs<'a>(
    conn: &Connection,
    lib: &Folders,
    paths: impl Iterator<Item = &'a PathBuf>,
) -> Result<bool, Error> {
    let exts: HashSet<String> = platforms::list(conn)?
        .into_iter()
        .flat_map(|p| p.extensions)
        .collect();
    for path in paths {
        let Some(key) = key_of(lib, path) else {
            // A folder's own root: it came back or went away.
            if lib.all().iter().any(|f| &f.dir == path) {
                return Ok(true);
            }
            continue;
        };
        let key = key.as_str();
        let differ = match std::fs::symlink_metadata(path) {
            Err(_) => games::any_at_or_under(conn, key)?,
            Ok(m) if m.is_dir() => folder_differs(conn, lib, path, &exts)?,
            // A link counts as the file it leads to; a link to a folder is not walked.
            Ok(_) => match std::fs::metadata(path) {
                Ok(m) if m.is_file() => file_differs(conn, key, &m, &exts)?,
                _ => games::any_at_or_under(conn, key)?,
            },
        };
        if differ {
            debug!("watch: {key} differs from the library");
            return Ok(true);
        }
    }
    Ok(false)
}

fn file_differs(
    conn: &Connection,
    key: &str,
    meta: &std::fs::Metadata,
    exts: &HashSet<String>,
) -> Result<bool, Error> {
    let ext = key.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    if !ext.is_some_and(|e| exts.contains(&e)) {
        return Ok(false);
    }
    Ok(games::fingerprint(conn, key)? != Some((meta.len(), mtime_ns(meta))))
}

/// A folder that appeared whole (moved in): any game file below it that differs.
/// Links to folders are not followed, as the scan does not follow them.
fn folder_differs(
    conn: &Connection,
    lib: &Folders,
    folder: &Path,
    exts: &HashSet<String>,
) -> Result<bool, Error> {
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let (Some(key), Ok(kind)) = (key_of(lib, &path), entry.file_type()) else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if let Some(m) = std::fs::metadata(&path).ok().filter(|m| m.is_file()) {
                if file_differs(conn, &key, &m, exts)? {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

/// A folder as polling last saw it.
struct Folder {
    mtime: i64,
    entries: HashSet<OsString>,
}

/// Polling: the folders' times and entries, and the files' sizes and times.
struct Poller {
    root: PathBuf,
    folders: HashMap<PathBuf, Folder>,
    files: HashMap<PathBuf, (u64, i64)>,
    /// Files that changed lately, with when: looked at on every poll.
    recent: HashMap<PathBuf, Instant>,
    next_poll: Instant,
    next_sweep: Instant,
}

impl Poller {
    fn new(root: &Path) -> Poller {
        let mut p = Poller {
            root: root.to_path_buf(),
            folders: HashMap::new(),
            files: HashMap::new(),
            recent: HashMap::new(),
            next_poll: Instant::now() + POLL_EVERY,
            next_sweep: Instant::now() + SWEEP_EVERY,
        };
        let now = crate::time::now() as i128 * 1_000_000_000;
        p.add_folder(root);
        // Files written in the last minutes may still be growing.
        for (path, (_, mtime)) in &p.files {
            if now - (*mtime as i128) < RECENT.as_nanos() as i128 {
                p.recent.insert(path.clone(), Instant::now());
            }
        }
        p
    }

    /// One folder as it is now: its time and entries (hidden names left out), with
    /// its subfolders and files apart.
    fn read_folder(&self, dir: &Path) -> Option<(Folder, Vec<PathBuf>, Vec<PathBuf>)> {
        let mtime = mtime_ns(&std::fs::symlink_metadata(dir).ok()?);
        let (mut entries, mut folders, mut files) = (HashSet::new(), Vec::new(), Vec::new());
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let path = entry.path();
            if !relevant(&self.root, &path) {
                continue;
            }
            entries.insert(entry.file_name());
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(path),
                _ => files.push(path),
            }
        }
        Some((Folder { mtime, entries }, folders, files))
    }

    /// Learn a folder and everything below it; returns its files.
    fn add_folder(&mut self, dir: &Path) -> Vec<PathBuf> {
        let mut learned = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Some((folder, subfolders, files)) = self.read_folder(&dir) else {
                continue;
            };
            for file in files {
                if let Some(seen) = look(&file) {
                    self.files.insert(file.clone(), seen);
                    learned.push(file);
                }
            }
            stack.extend(subfolders);
            self.folders.insert(dir, folder);
        }
        learned
    }

    /// Forget a path that went away, and whatever was below it.
    fn forget(&mut self, path: &Path) {
        self.files.retain(|p, _| !p.starts_with(path));
        self.folders.retain(|p, _| !p.starts_with(path));
        self.recent.retain(|p, _| !p.starts_with(path));
    }

    fn tick(&mut self, out: &mut Vec<PathBuf>) {
        if Instant::now() < self.next_poll {
            return;
        }
        let started = Instant::now();
        let start = out.len();
        self.poll_folders(out);
        // New files are followed until they stop changing.
        for path in &out[start..] {
            if self.files.contains_key(path) {
                self.recent.insert(path.clone(), Instant::now());
            }
        }
        let sweep = Instant::now() >= self.next_sweep;
        self.recent.retain(|_, at| at.elapsed() < RECENT);
        let look_at: Vec<PathBuf> = match sweep {
            true => self.files.keys().cloned().collect(),
            false => self.recent.keys().cloned().collect(),
        };
        for path in look_at {
            let now = look(&path);
            if now != self.files.get(&path).copied() {
                match now {
                    Some(seen) => self.files.insert(path.clone(), seen),
                    None => self.files.remove(&path),
                };
                self.recent.insert(path.clone(), Instant::now());
                out.push(path);
            }
        }
        let took = started.elapsed();
        self.next_poll = Instant::now() + POLL_EVERY.max(took * BUDGET);
        if sweep {
            self.next_sweep = Instant::now() + SWEEP_EVERY.max(took * BUDGET);
            debug!(
                "watch: a poll with every file took {} ms ({} folders, {} files)",
                took.as_millis(),
                self.folders.len(),
                self.files.len()
            );
        }
    }

    /// The folders whose time moved are listed again: their new and removed
    /// entries are reported.
    fn poll_folders(&mut self, out: &mut Vec<PathBuf>) {
        let moved: Vec<PathBuf> = self
            .folders
            .iter()
            .filter(|(dir, f)| {
                std::fs::symlink_metadata(dir).map(|m| mtime_ns(&m)).ok() != Some(f.mtime)
            })
            .map(|(dir, _)| dir.clone())
            .collect();
        for dir in moved {
            let Some(old) = self.folders.remove(&dir) else {
                continue; // went with a folder above it
            };
            if std::fs::symlink_metadata(&dir).is_err() {
                self.forget(&dir);
                out.push(dir);
                continue;
            }
            // Listed again alone: a subfolder that changed too is compared on its own.
            let Some((folder, subfolders, _)) = self.read_folder(&dir) else {
                // Unreadable for now: polled again next time.
                self.folders.insert(dir, old);
                continue;
            };
            for gone in old.entries.difference(&folder.entries) {
                let path = dir.join(gone);
                self.forget(&path);
                out.push(path);
            }
            for name in folder.entries.difference(&old.entries) {
                let path = dir.join(name);
                if subfolders.contains(&path) {
                    // Files that came with a folder may still be growing.
                    for file in self.add_folder(&path) {
                        self.recent.insert(file, Instant::now());
                    }
                } else if let Some(seen) = look(&path) {
                    self.files.insert(path.clone(), seen);
                }
                out.push(path);
            }
            self.folders.insert(dir, folder);
        }
    }
}
