//! The life of the service, from the data folder to a clean stop.
//!
//! Both ways of running the service, the server (`serve`) and a command that runs one
//! task in the foreground (`ludotheque scan`, `convert`), start the same way, here:
//! lock the data folder, migrate, recover the trash after a crash, remove leftover
//! `.part` files, repair the search index, catch the signals, start the job thread
//! and the maintenance thread. `http` only serves; the command line only shows.

use crate::tree::folders::State;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use log::{error, info, warn};

use crate::config::Config;
use crate::device::Sessions;
use crate::error::Error;
use crate::http::{self, App};
use crate::jobs::{self, Jobs, Task};
use crate::library::switchfs::prodkeys::file::KeysFile;
use crate::store::db;
use crate::words::StartedBy;
use crate::{accounts, convert, library, memory, routes, trash};

pub mod handoff;

/// An open data folder with its threads running.
pub struct Service {
    pub config: Config,
    /// The one task slot.
    pub jobs: Arc<Jobs>,
    /// The push under way, shared by the push task and the workers serving its files.
    pub push: Arc<Sessions>,
    /// Set by SIGTERM or SIGINT.
    pub stop: Arc<AtomicBool>,
    /// The user's console keys file, read again when it changes.
    pub prod_keys: Arc<KeysFile>,
    /// What is kept computed from the library for the requests (`views`).
    pub views: Arc<crate::views::Views>,
    /// Set by `serve`: only a serving process starts scans for new console keys (a
    /// foreground command's process never does).
    serving: Arc<AtomicBool>,
    _lock: std::fs::File,
    job_thread: Option<JoinHandle<()>>,
    maintenance: Option<JoinHandle<()>>,
    /// Only a server watches the library (`watch`); a foreground task does not.
    watcher: Option<JoinHandle<()>>,
    /// Only a server takes tasks from the command line (`handoff`).
    handoff: Option<JoinHandle<()>>,
}

impl Service {
    /// Everything the server and a foreground task both need before any work.
    pub fn open(config: &Config) -> Result<Service, Error> {
        let lock = db::lock_data(&config.data)?;
        let conn = db::open_and_migrate(&config.data)?;
        let (adopted, dropped) = trash::recover(
            &conn,
            &trash::Places::of(config, &conn)?,
            config.retention_days(&conn),
        )?;
        if adopted + dropped > 0 {
            warn!("trash: {adopted} file(s) adopted, {dropped} entr(y/ies) dropped after a crash");
        }
        convert::clean_leftover(&conn, &config.folders())?;
        if let Some(work) = &config.work_dir {
            convert::clean_work(work);
        }
        crate::saves::clean_incoming(&config.data);
        crate::titles::clean_incoming(&config.data);
        jobs::organize::recover(&conn, &config.folders())?;
        crate::store::games::ensure_indexes(&conn)?;
        // A new build may compute the titles' states differently (a migration added a
        // column), or a task was killed between its writes and its refresh.
        if !crate::titles::model::is_current(&conn)? {
            crate::titles::model::refresh_after_change(&conn);
        }
        catch_file_size_signal()?;
        let stop = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
            signal_hook::flag::register(signal, Arc::clone(&stop))?;
        }
        let push = Arc::new(Sessions::default());
        let for_tasks = Arc::clone(&push);
        let prod_keys = Arc::new(KeysFile::new(config.prod_keys.clone()));
        let (jobs, job_thread) = Jobs::start(
            config,
            Arc::clone(&prod_keys),
            Box::new(move |task, ctx| jobs::run_task(task, ctx, &for_tasks)),
        )?;
        let serving = Arc::new(AtomicBool::new(false));
        let maintenance = start_maintenance(
            config,
            &stop,
            Arc::clone(&jobs),
            (Arc::clone(&prod_keys), Arc::clone(&serving)),
        )?;
        Ok(Service {
            config: config.clone(),
            jobs,
            push,
            stop,
            prod_keys,
            views: Arc::default(),
            serving,
            _lock: lock,
            job_thread: Some(job_thread),
            maintenance: Some(maintenance),
            watcher: None,
            handoff: None,
        })
    }

    /// Serve HTTP until SIGTERM or SIGINT, then stop cleanly.
    pub fn serve(mut self) -> Result<(), Error> {
        memory::limit_malloc_arenas();
        accounts::limit_hashing(self.config.workers);
        let conn = db::open(&self.config.data)?;
        let server = self.listen(&conn)?;
        let addr = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| Error::internal("the listener has no IP address"))?;
        self.serving.store(true, Ordering::SeqCst);
        // Claimed before the address is printed, so that whoever waits for that line
        // sees the first scan already running.
        if !library::is_ready(&conn, &self.config)? {
            info!("this library was never scanned: starting a scan");
            let _ = self.jobs.try_start(Task::Scan, StartedBy::Startup);
        }
        self.watcher =
            crate::watch::start(&self.config, Arc::clone(&self.jobs), Arc::clone(&self.stop))?;
        self.push.set_listen(addr);
        // Before the address is printed: whoever waits for that line may hand a task.
        self.handoff = handoff::start(
            &self.config.data,
            Arc::clone(&self.jobs),
            Arc::clone(&self.stop),
        );
        println!("listening on http://{addr}");
        std::io::stdout().flush()?;
        let folders = self.config.folders();
        let dirs: Vec<_> = folders.all().iter().map(|f| f.dir.display()).collect();
        info!(
            "listening on http://{addr}, library {}",
            dirs.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let app = Arc::new(App::new(
            self.config.clone(),
            Arc::clone(&self.jobs),
            Arc::clone(&self.push),
            Arc::clone(&self.prod_keys),
            Arc::clone(&self.views),
            addr,
            accounts::setup_code(&conn)?,
        ));
        http::server::run(&app, server, &self.stop, &routes::TABLE)?;
        self.close();
        Ok(())
    }

    /// Listen where `--listen` says, else where an admin set in the web (the Consoles
    /// page), else on this machine only. An address set in the web that cannot be
    /// bound any more (a network address the machine lost) falls back to the default
    /// with a warning, so that the service still starts; one given by flag is an error.
    fn listen(&self, conn: &rusqlite::Connection) -> Result<tiny_http::Server, Error> {
        if let Some(flag) = &self.config.serve.listen {
            return http::server::listen(&self.config, flag);
        }
        if let Some(saved) = crate::store::settings::LISTEN.get(conn)? {
            match http::server::listen(&self.config, &saved) {
                Ok(server) => return Ok(server),
                Err(e) => log::warn!("cannot listen on {saved}, set in the web: {e:?}; listening on {DEFAULT_LISTEN}"),
            }
        }
        http::server::listen(&self.config, DEFAULT_LISTEN)
    }

    /// Stop the running task at its next safe point and wait for the threads.
    pub fn close(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.jobs.stop();
        let threads = [
            self.job_thread.take(),
            self.maintenance.take(),
            self.watcher.take(),
            self.handoff.take(),
        ];
        for thread in threads.into_iter().flatten() {
            let _ = thread.join();
        }
        // A task stopped here ends `interrupted`: let the webhook tell it, briefly.
        self.jobs.flush_events(Duration::from_secs(5));
        info!("stopped");
    }
}

/// Where the service listens when neither `--listen` nor the web says: this machine
/// only, until an admin opens it to the network.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// A write past the file-size limit (RLIMIT_FSIZE) raises SIGXFSZ, which kills the
/// process by default. Catch it so the write fails with an error instead, and the
/// conversion that hit it can clean up and report.
fn catch_file_size_signal() -> Result<(), Error> {
    signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        Arc::new(AtomicBool::new(false)),
    )?;
    Ok(())
}

/// Housekeeping on its own thread and connection: give free memory back every ten
/// seconds; purge the trash past its retention at start, then once a day; when
/// serving, start a scan when the console keys changed.
fn start_maintenance(
    config: &Config,
    stop: &Arc<AtomicBool>,
    jobs: Arc<Jobs>,
    (prod_keys, serving): (Arc<KeysFile>, Arc<AtomicBool>),
) -> Result<JoinHandle<()>, Error> {
    let conn = db::open(&config.data)?;
    let mut keys_watch = KeysWatch::default();
    let stop = Arc::clone(stop);
    let config = config.clone();
    let mut refresh = config.titledb_refresh(&conn);
    let mut next_titles = refresh.map(|every| first_refresh(&conn, every));
    let mut next_look = Instant::now() + Duration::from_secs(60);
    let mut disks = DiskWatch::default();
    Ok(std::thread::Builder::new()
        .name("maintenance".into())
        .spawn(move || {
            let mut next_purge = Instant::now();
            let mut next_trim = Instant::now();
            while !stop.load(Ordering::SeqCst) {
                if Instant::now() >= next_trim {
                    memory::return_free_memory();
                    next_trim = Instant::now() + Duration::from_secs(10);
                }
                if Instant::now() >= next_purge {
                    let purged = trash::Places::of(&config, &conn).and_then(|places| {
                        trash::purge_expired(&conn, &places, crate::time::now())
                    });
                    match purged {
                        Ok(0) => {}
                        Ok(n) => info!("trash: {n} expired entr(y/ies) purged"),
                        Err(e) => error!("trash: purging expired entries failed: {e}"),
                    }
                    next_purge = Instant::now() + Duration::from_secs(24 * 60 * 60);
                }
                // The default refresh begins with the first fetch from a source.
                if refresh.is_none() && Instant::now() >= next_look {
                    refresh = config.titledb_refresh(&conn);
                    next_titles = refresh.map(|every| first_refresh(&conn, every));
                    next_look = Instant::now() + Duration::from_secs(60);
                }
                if let (Some(at), Some(every)) = (next_titles, refresh) {
                    if Instant::now() >= at {
                        // A busy slot is tried again in a minute (or sooner on a
                        // shorter schedule), not skipped.
                        next_titles =
                            Some(match jobs.try_start(Task::Titles, StartedBy::Schedule) {
                                Ok(_) => Instant::now() + every,
                                Err(_) => Instant::now() + every.min(Duration::from_secs(60)),
                            });
                    }
                }
                if serving.load(Ordering::SeqCst) {
                    keys_watch.check(&conn, &config, &prod_keys, &jobs);
                    disks.check(&conn, &config, &jobs.notifier);
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        })?)
}

/// New console keys (imported, uploaded, or written by hand) make the service read
/// again, once, the files the old keys could not open: a scan, started by itself a
/// few seconds after the keys changed. A busy slot is tried again; a scan started for
/// these keys is not started again if it was cancelled or failed (the next scan the
/// user starts reads them).
#[derive(Default)]
struct KeysWatch {
    next: Option<Instant>,
    started_for: Option<String>,
}

impl KeysWatch {
    fn check(
        &mut self,
        conn: &rusqlite::Connection,
        config: &Config,
        keys: &KeysFile,
        jobs: &Jobs,
    ) {
        if self.next.is_some_and(|at| Instant::now() < at) {
            return;
        }
        self.next = Some(Instant::now() + Duration::from_secs(2));
        let Some(loaded) = keys.current() else {
            return;
        };
        let read_with = crate::store::settings::KEYS_READ_WITH
            .get(conn)
            .ok()
            .flatten();
        let ready = library::is_ready(conn, config).unwrap_or(false);
        let new = read_with.as_deref() != Some(&loaded.fingerprint)
            && self.started_for.as_deref() != Some(&loaded.fingerprint);
        if ready && new && jobs.try_start(Task::Scan, StartedBy::Keys).is_ok() {
            info!("console keys changed: reading the files they did not open again");
            self.started_for = Some(loaded.fingerprint.clone());
        }
    }
}

/// The library's folders and the disks' room, looked at every 5 s (a listing and a
/// statvfs a disk): a note when a folder goes away (again once it came back), and
/// when a disk's free share falls under `--low-space` (again once it rose a point
/// above).
#[derive(Default)]
struct DiskWatch {
    next: Option<Instant>,
    offline: bool,
    /// The disks told of as short of room, by device: each library folder's, and the
    /// data folder's (told of once, as the library's, when it is one of theirs).
    low: std::collections::HashSet<u64>,
}

impl DiskWatch {
    /// Look, when it is time.
    fn check(
        &mut self,
        conn: &rusqlite::Connection,
        config: &Config,
        notifier: &crate::notify::Notifier,
    ) {
        if self.next.is_some_and(|at| Instant::now() < at) {
            return;
        }
        self.next = Some(Instant::now() + Duration::from_secs(5));
        // As the scan sees it: a folder gone or unreadable, or empty while the library
        // has games (the bare mount point of a disk that is not there); any of the
        // library's folders.
        let folders = config.folders();
        let empty_library = || crate::store::games::stats(conn).is_ok_and(|c| c.total == 0);
        let readable = folders.all().iter().all(|f| match State::of(&f.dir) {
            State::Online => true,
            State::Offline => f.dir.is_dir() && empty_library(),
            State::Unreadable => false,
        });
        if !readable && !self.offline {
            warn!("a library folder is missing or unreadable");
            notifier.library_offline(conn);
        }
        self.offline = !readable;
        let threshold = u64::from(config.serve.low_space);
        if threshold == 0 {
            return;
        }
        // Each disk once: the library's folders' first, so that the data folder on
        // one of them is told of as the library's.
        let dirs = folders.all().iter().map(|f| (f.dir.as_path(), true));
        let mut seen = std::collections::HashSet::new();
        for (dir, library) in dirs.chain([(config.data.as_path(), false)]) {
            let Some(dev) = std::fs::metadata(dir).map(|m| m.dev()).ok() else {
                continue;
            };
            let Ok((free, total)) = crate::library::safe::space(dir) else {
                continue;
            };
            if !seen.insert(dev) {
                continue;
            }
            let percent = (free.saturating_mul(100)).checked_div(total).unwrap_or(100);
            if percent < threshold && self.low.insert(dev) {
                let which = if library { "a library" } else { "the data" };
                warn!("low disk space: {percent} % free on the disk of {which} folder");
                notifier.low_space(conn, library, percent, free);
            } else if percent > threshold {
                self.low.remove(&dev);
            }
        }
    }
}

/// When the first periodic title data refresh is due: at once when the data is older
/// than the period (or was never imported), else when it will be.
fn first_refresh(conn: &rusqlite::Connection, every: Duration) -> Instant {
    let age = crate::store::title_imports::last(conn)
        .ok()
        .flatten()
        .map(|last| Duration::from_secs((crate::time::now() - last.imported_at).max(0) as u64));
    match age {
        Some(age) if age < every => Instant::now() + (every - age),
        _ => Instant::now(),
    }
}
