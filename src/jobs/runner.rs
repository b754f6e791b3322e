//! The single task slot and the job thread.
//!
//! The slot, not the channel, decides whether a task may start: `try_start` takes the
//! slot lock, refuses with `busy` when a task runs, otherwise marks the slot running
//! and only then sends the task to the job thread over a channel of capacity 1. A
//! channel alone would let a second task queue up behind the first.
//!
//! The job thread runs each task under `catch_unwind` and a guard whose `Drop` returns
//! the slot to idle, so neither an error nor a panic can leave the slot stuck. Tasks
//! report through [`Progress`], which takes the lock only for a moment and never
//! across I/O.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, Sender};
use log::{error, info, warn};
use rusqlite::Connection;

use super::compress::Flags;
use super::{Outcome, Task, TaskCtx, TaskResult, Unit};
use crate::config::Config;
use crate::error::Failure;
use crate::error::{Error, Kind, Msg};
use crate::library::switchfs::prodkeys::file::KeysFile;
use crate::notify::{Notifier, Titles, Webhook};
use crate::store::job_failures;
use crate::store::{db, job_runs, job_runs::JobRun};
use crate::time;
use crate::words::StartedBy;

/// What a task body is: the production one calls [`super::run_task`].
pub type TaskFn = Box<dyn Fn(Task, &TaskCtx) -> Result<Outcome, Error> + Send>;

enum Order {
    Run(Task),
    Stop,
}

#[derive(Default)]
struct Slot {
    task: Option<Task>,
    started_by: Option<StartedBy>,
    done: u64,
    total: u64,
    detail: String,
    started_at: Option<i64>,
    /// The files that failed in the running task (at most [`FAILURES_KEPT`]).
    failures: Vec<Failure>,
    /// How many of them came by [`Progress::fail_first`], at their head.
    first_failures: usize,
    /// The library keys the running task is limited to; empty: the whole library.
    only: Vec<String>,
    /// The command line's compress flags for this run (none: the settings).
    flags: Flags,
    /// The organize run an `organize_undo` puts back.
    organize_run: Option<i64>,
    last: Option<JobRun>,
    last_failures: Vec<Failure>,
}

/// What a task is started on besides its name (see [`Jobs::try_start_with`]).
#[derive(Debug, Default)]
pub struct Start {
    /// Library keys; empty: the whole library. For `folder_add`, the one folder
    /// to add as `[NAME=]DIR`; for `folder_remove`, the name of the one to remove.
    pub only: Vec<String>,
    /// `compress`'s flags from the command line, for this run.
    pub compress: Flags,
    /// The organize run an `organize_undo` puts back.
    pub organize_run: Option<i64>,
}

/// How many failed files a run keeps by name; `errors` counts them all.
pub const FAILURES_KEPT: usize = 200;

/// A copy of the slot, taken under the lock.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub running: bool,
    pub task: Option<Task>,
    /// Who started the running task; none when idle.
    pub started_by: Option<StartedBy>,
    pub unit: Unit,
    pub done: u64,
    pub total: u64,
    pub detail: String,
    pub started_at: Option<i64>,
    pub errors: u64,
    pub last: Option<JobRun>,
    pub last_failures: Vec<Failure>,
}

/// The task slot, shared by the HTTP workers and the job thread.
pub struct Jobs {
    slot: Mutex<Slot>,
    /// Aborts the SQL statement the job thread is running, so that a stop is prompt
    /// even in the middle of a long statement.
    interrupt: rusqlite::InterruptHandle,
    errors: AtomicU64,
    tx: Sender<Order>,
    /// Set by `cancel` and by `stop`; shared, so that what waits on another thread for
    /// the task (an outbound request) sees it too.
    cancel: Arc<AtomicBool>,
    stopping: AtomicBool,
    /// The webhook, told of each run's end and of what it changed in the titles.
    pub notifier: Notifier,
    /// The user's console keys file, handed to every task.
    prod_keys: Arc<KeysFile>,
}

impl Jobs {
    /// Mark runs left `running` by a dead process as interrupted, load the last result
    /// and start the job thread.
    pub fn start(
        config: &Config,
        prod_keys: Arc<KeysFile>,
        exec: TaskFn,
    ) -> Result<(Arc<Jobs>, JoinHandle<()>), Error> {
        let conn = db::open(&config.data)?;
        let interrupted = job_runs::mark_interrupted(&conn, time::now())?;
        if interrupted > 0 {
            warn!("{interrupted} task run(s) were interrupted by the previous stop");
        }
        let (tx, rx) = bounded(1);
        let jobs = Arc::new(Jobs {
            interrupt: conn.get_interrupt_handle(),
            slot: Mutex::new(last_run(&conn)?),
            errors: AtomicU64::new(0),
            tx,
            cancel: Arc::new(AtomicBool::new(false)),
            stopping: AtomicBool::new(false),
            notifier: Notifier::start(webhook(config), notify_setup(config), &conn)?,
            prod_keys,
        });
        let thread_jobs = Arc::clone(&jobs);
        let config = config.clone();
        let handle = std::thread::Builder::new()
            .name("job".into())
            .spawn(move || job_thread(&thread_jobs, &rx, &conn, &config, &exec))?;
        Ok((jobs, handle))
    }

    /// A poisoned lock only means a panic happened elsewhere while holding it; the
    /// slot's fields are always left consistent, so keep going.
    fn slot(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Claim the slot for `task`, or fail with `busy` when a task runs. `by` says who
    /// asks (see [`Snapshot::started_by`]).
    pub fn try_start(&self, task: Task, by: StartedBy) -> Result<Snapshot, Error> {
        self.try_start_with(task, by, Start::default())
    }

    /// [`Jobs::try_start`] with what the task is started on (the files, the organize
    /// run to undo...). Handed over under the slot's lock, with the claim, so that no
    /// other request can change what the task it claimed works on.
    pub fn try_start_with(
        &self,
        task: Task,
        by: StartedBy,
        start: Start,
    ) -> Result<Snapshot, Error> {
        let mut slot = self.slot();
        if slot.task.is_some() || self.stopping.load(Ordering::SeqCst) {
            return Err(Error::busy());
        }
        *slot = Slot {
            task: Some(task),
            started_by: Some(by),
            started_at: Some(time::now()),
            only: start.only,
            flags: start.compress,
            organize_run: start.organize_run,
            last: slot.last.take(),
            last_failures: std::mem::take(&mut slot.last_failures),
            ..Slot::default()
        };
        self.errors.store(0, Ordering::SeqCst);
        self.cancel.store(false, Ordering::SeqCst);
        if self.tx.try_send(Order::Run(task)).is_err() {
            slot.task = None;
            return Err(Error::internal("the job thread is not receiving tasks"));
        }
        Ok(self.snapshot_locked(&slot))
    }

    /// Ask the running task, if any, to stop at its next safe point.
    pub fn cancel(&self) -> bool {
        let running = self.slot().task.is_some();
        if running {
            self.cancel.store(true, Ordering::SeqCst);
        }
        running
    }

    /// Stop the job thread: cancel the running task (recorded as interrupted) and make
    /// the thread exit once it has finished.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.cancel.store(true, Ordering::SeqCst);
        if self.slot().task.is_some() {
            self.interrupt.interrupt();
        }
        let _ = self.tx.send(Order::Stop);
    }

    /// Wait, at most `limit`, until the webhook has sent (or dropped) what the tasks
    /// told it.
    pub fn flush_events(&self, limit: Duration) {
        self.notifier.flush(limit);
    }

    pub fn snapshot(&self) -> Snapshot {
        let slot = self.slot();
        self.snapshot_locked(&slot)
    }

    fn snapshot_locked(&self, slot: &Slot) -> Snapshot {
        Snapshot {
            running: slot.task.is_some(),
            task: slot.task,
            started_by: slot.started_by.clone(),
            unit: slot.task.map(Task::unit).unwrap_or(Unit::Files),
            done: slot.done,
            total: slot.total,
            detail: slot.detail.clone(),
            started_at: slot.started_at,
            errors: self.errors.load(Ordering::SeqCst),
            last: slot.last.clone(),
            last_failures: slot.last_failures.clone(),
        }
    }
}

/// The slot at start: idle, with the last run and its failures.
fn last_run(conn: &Connection) -> Result<Slot, Error> {
    let last = job_runs::last(conn)?;
    let last_failures = match &last {
        Some(run) => job_failures::of_run(conn, run.id)?,
        None => Vec::new(),
    };
    Ok(Slot {
        last,
        last_failures,
        ..Slot::default()
    })
}

/// The handle a task reports its progress through.
pub struct Progress<'a> {
    jobs: &'a Jobs,
}

impl Progress<'_> {
    pub fn set_total(&self, total: u64) {
        self.jobs.slot().total = total;
    }

    /// `total` more units found, of which `done` need no work (a scan's walk, as it
    /// goes).
    pub fn found(&self, total: u64, done: u64) {
        let mut slot = self.jobs.slot();
        slot.total += total;
        slot.done += done;
    }

    /// `n` more units done; `detail` names the item (a library key, never a path).
    pub fn advance(&self, n: u64, detail: &str) {
        let mut slot = self.jobs.slot();
        slot.done += n;
        if slot.detail != detail {
            slot.detail.clear();
            slot.detail.push_str(detail);
        }
    }

    /// One item failed, for the reason `msg`; the task goes on, and ends `partial`.
    /// `key` names the file when there is one.
    pub fn fail(&self, key: Option<&str>, msg: Msg) {
        self.jobs.errors.fetch_add(1, Ordering::SeqCst);
        let mut slot = self.jobs.slot();
        if slot.failures.len() < FAILURES_KEPT {
            slot.failures.push(Failure {
                key: key.map(str::to_string),
                msg,
            });
        }
    }

    /// A failure that explains others (a folder a scan's walk could not read): listed
    /// before the items' own failures whenever it comes, so that the cap on the list
    /// never drops it for theirs.
    pub fn fail_first(&self, key: Option<&str>, msg: Msg) {
        self.jobs.errors.fetch_add(1, Ordering::SeqCst);
        let mut slot = self.jobs.slot();
        if slot.first_failures == FAILURES_KEPT {
            return;
        }
        let failure = Failure {
            key: key.map(str::to_string),
            msg,
        };
        let at = slot.first_failures;
        slot.failures.insert(at, failure);
        slot.failures.truncate(FAILURES_KEPT);
        slot.first_failures += 1;
    }

    /// One item left as it is, for the reason `msg`: named with the failures, but
    /// the run stays `ok` (compress's skips).
    pub fn skip(&self, key: &str, msg: Msg) {
        let mut slot = self.jobs.slot();
        if slot.failures.len() < FAILURES_KEPT {
            slot.failures.push(Failure {
                key: Some(key.to_string()),
                msg,
            });
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.jobs.cancel.load(Ordering::SeqCst)
    }

    /// [`Progress::advance`], then `Interrupted` once the task is cancelled: what a
    /// file's reader or writer is told after each piece, to stop the work.
    pub fn advance_io(&self, n: u64, detail: &str) -> std::io::Result<()> {
        self.advance(n, detail);
        match self.is_cancelled() {
            true => Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "cancelled",
            )),
            false => Ok(()),
        }
    }

    /// The library keys the task was started on (`Start::only`); empty: the
    /// whole library.
    pub fn only(&self) -> Vec<String> {
        self.jobs.slot().only.clone()
    }

    /// The organize run an `organize_undo` was started on.
    pub fn organize_run(&self) -> Option<i64> {
        self.jobs.slot().organize_run
    }

    /// The flag a cancel or a stop sets, for what watches it from another thread.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.jobs.cancel)
    }

    /// `Err(cancelled)` once somebody asked the task to stop: call it at safe points.
    pub fn check(&self) -> Result<(), Error> {
        if self.is_cancelled() {
            Err(Error::cancelled())
        } else {
            Ok(())
        }
    }
}

/// Returns the slot to idle however the task ended, panics included.
struct Release<'a>(&'a Jobs);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        let mut slot = self.0.slot();
        *slot = Slot {
            last: slot.last.take(),
            last_failures: std::mem::take(&mut slot.last_failures),
            ..Slot::default()
        };
    }
}

fn job_thread(
    jobs: &Jobs,
    rx: &Receiver<Order>,
    conn: &Connection,
    config: &Config,
    exec: &TaskFn,
) {
    while let Ok(Order::Run(task)) = rx.recv() {
        let _release = Release(jobs);
        // The titles before the task, to tell the webhook what it changed.
        let before = jobs
            .notifier
            .is_on()
            .then(|| Titles::read(conn))
            .and_then(|read| {
                read.map_err(|e| warn!("webhook: titles not read: {e}"))
                    .ok()
            });
        let tuned = tuned(jobs, config);
        let clock = Instant::now();
        run_one(jobs, conn, tuned.as_ref().unwrap_or(config), task, exec);
        let snap = jobs.snapshot();
        if let Some(run) = &snap.last {
            crate::metrics::task(run.task, run.result, clock.elapsed());
            jobs.notifier.task_finished(conn, run, &snap.last_failures);
        }
        if let Some(before) = before {
            jobs.notifier.title_changes(&before, conn);
        }
    }
}

fn webhook(config: &Config) -> Option<Webhook> {
    config.webhook_url.clone().map(|url| Webhook {
        url,
        secret: config.webhook_secret.clone(),
    })
}

/// The notification targets of the command line and its files; those given with
/// `--notify` itself are in the list of processes, which `Notifier::start` warns of.
fn notify_setup(config: &Config) -> crate::notify::Setup {
    let exposed = crate::config::on_command_line("--notify");
    crate::notify::Setup {
        urls: config.notify.clone(),
        exposed: if exposed {
            config.serve.notify.clone()
        } else {
            Vec::new()
        },
        public_url: config.serve.public_url.clone(),
        test_base: config.serve.test_notify_base.clone(),
    }
}

fn run_one(jobs: &Jobs, conn: &Connection, config: &Config, task: Task, exec: &TaskFn) {
    let started_at = jobs.slot().started_at.unwrap_or_else(time::now);
    let id = job_runs::start(conn, task.as_str(), started_at).unwrap_or_else(|e| {
        error!("cannot record the start of task {}: {e}", task.as_str());
        0
    });
    info!("task {} started", task.as_str());
    let progress = Progress { jobs };
    let ctx = TaskCtx {
        db: conn,
        config,
        progress: &progress,
        prod_keys: &jobs.prod_keys,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        hold(&progress, config.task_delay)?;
        exec(task, &ctx)
    }));
    let errors = jobs.errors.load(Ordering::SeqCst);
    let (result, msg) = match outcome {
        Ok(Ok(o)) if errors > 0 => (TaskResult::Partial, o.msg),
        Ok(Ok(o)) => (TaskResult::Ok, o.msg),
        Ok(Err(_)) if jobs.stopping.load(Ordering::SeqCst) => {
            (TaskResult::Interrupted, Msg::TaskStopped)
        }
        Ok(Err(e)) if e.is(&Kind::Cancelled) => (TaskResult::Cancelled, e.msg.clone()),
        Ok(Err(e)) => {
            error!("task {} failed: {e}", task.as_str());
            (TaskResult::Failed, e.msg.clone())
        }
        Err(panic) => {
            error!("task {} panicked: {}", task.as_str(), panic_text(&panic));
            (TaskResult::Failed, Msg::Internal)
        }
    };
    let failures = std::mem::take(&mut jobs.slot().failures);
    let snap = jobs.snapshot();
    let run = JobRun {
        id,
        task,
        result,
        started_at,
        finished_at: Some(time::now()),
        done: snap.done,
        total: snap.total,
        errors: snap.errors,
        message: msg.english(),
        msg: Some(msg),
    };
    info!(
        "task {} finished: {} ({} of {}, {} errors)",
        run.task, run.result, run.done, run.total, run.errors
    );
    if let Err(e) = job_runs::finish(conn, &run, &failures) {
        error!("cannot record the end of task {}: {e}", task.as_str());
    }
    let mut slot = jobs.slot();
    slot.last = Some(run);
    slot.last_failures = failures;
}

/// The configuration with the command line's flags for the claimed run, when it
/// has any.
fn tuned(jobs: &Jobs, config: &Config) -> Option<Config> {
    let flags = std::mem::take(&mut jobs.slot().flags);
    (flags != Flags::default()).then(|| flags.apply(config))
}

/// The test aid `--task-delay-ms`: keep the slot busy for a while before the task
/// body runs, so tests can observe a running task. Zero in normal use.
fn hold(progress: &Progress, delay: Duration) -> Result<(), Error> {
    let until = Instant::now() + delay;
    while Instant::now() < until {
        progress.check()?;
        std::thread::sleep(Duration::from_millis(10).min(until - Instant::now()));
    }
    progress.check()
}

/// The text of a panic payload, for the log.
pub fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Barrier;

    fn config(dir: &std::path::Path) -> Config {
        let mut c = Config::for_tests(dir);
        c.task_delay = Duration::from_millis(300);
        c
    }

    fn keys(config: &Config) -> Arc<KeysFile> {
        Arc::new(KeysFile::new(config.prod_keys.clone()))
    }

    fn noop(_: Task, _: &TaskCtx) -> Result<Outcome, Error> {
        Ok(Msg::PushEmpty.into())
    }

    fn boom(_: Task, _: &TaskCtx) -> Result<Outcome, Error> {
        panic!("deliberate")
    }

    fn wait_idle(jobs: &Jobs) -> Snapshot {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let s = jobs.snapshot();
            if !s.running || Instant::now() > until {
                return s;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn sixty_four_threads_claiming_at_once_exactly_one_wins() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        db::open_and_migrate(&config.data).unwrap();
        // The task lasts until every thread has tried: a task that ended at once let a
        // thread the scheduler started late claim the free slot again (seen in CI).
        let tried = Arc::new(AtomicUsize::new(0));
        let all_tried = Arc::clone(&tried);
        let task: TaskFn = Box::new(move |task, ctx| {
            while all_tried.load(Ordering::SeqCst) < 64 {
                std::thread::sleep(Duration::from_millis(1));
            }
            noop(task, ctx)
        });
        let (jobs, _h) = Jobs::start(&config, keys(&config), task).unwrap();
        let barrier = Arc::new(Barrier::new(64));
        let handles: Vec<_> = (0..64)
            .map(|_| {
                let jobs = Arc::clone(&jobs);
                let barrier = Arc::clone(&barrier);
                let tried = Arc::clone(&tried);
                std::thread::spawn(move || {
                    barrier.wait();
                    let won = jobs.try_start(Task::Scan, StartedBy::Cli).is_ok();
                    tried.fetch_add(1, Ordering::SeqCst);
                    won
                })
            })
            .collect();
        let wins = handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|won| *won)
            .count();
        assert_eq!(wins, 1);
        let last = wait_idle(&jobs).last.expect("a finished run");
        assert_eq!(last.result, TaskResult::Ok);
    }

    /// A failure said by `fail_first` heads the list whenever it comes, and the cap
    /// drops the items' own failures for it, never it.
    #[test]
    fn a_first_failure_heads_the_list_and_the_cap_never_drops_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        config.task_delay = Duration::ZERO;
        db::open_and_migrate(&config.data).unwrap();
        let task: TaskFn = Box::new(|_, ctx| {
            for i in 0..250 {
                ctx.progress.fail(Some(&format!("f{i}")), Msg::NoSuchFile);
            }
            ctx.progress.fail_first(None, Msg::NameNotUtf8);
            ctx.progress.fail(Some("late"), Msg::NoSuchFile);
            ctx.progress
                .fail_first(Some("d"), Msg::PlatformFolderRefused);
            Ok(Msg::PushEmpty.into())
        });
        let (jobs, _h) = Jobs::start(&config, keys(&config), task).unwrap();
        jobs.try_start(Task::Scan, StartedBy::Cli).unwrap();
        let snap = wait_idle(&jobs);
        let failures = snap.last_failures;
        assert_eq!(failures.len(), FAILURES_KEPT);
        assert_eq!(failures[0].msg, Msg::NameNotUtf8);
        assert_eq!(failures[1].msg, Msg::PlatformFolderRefused);
        assert_eq!(failures[2].key.as_deref(), Some("f0"));
        assert_eq!(snap.last.unwrap().result, TaskResult::Partial);
    }

    #[test]
    fn a_panicking_task_releases_the_slot_and_is_recorded_failed() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        config.task_delay = Duration::ZERO;
        db::open_and_migrate(&config.data).unwrap();
        let (jobs, _h) = Jobs::start(&config, keys(&config), Box::new(boom)).unwrap();
        jobs.try_start(Task::Scan, StartedBy::Cli).unwrap();
        let snap = wait_idle(&jobs);
        assert!(!snap.running);
        assert_eq!(snap.last.unwrap().result, TaskResult::Failed);
        // The slot is free again.
        jobs.try_start(Task::Scan, StartedBy::Cli).unwrap();
    }

    #[test]
    fn cancel_is_seen_by_the_task_and_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        config.task_delay = Duration::from_secs(30);
        db::open_and_migrate(&config.data).unwrap();
        let (jobs, _h) = Jobs::start(&config, keys(&config), Box::new(noop)).unwrap();
        jobs.try_start(Task::Scan, StartedBy::Cli).unwrap();
        assert!(jobs.try_start(Task::Scan, StartedBy::Cli).is_err());
        assert!(jobs.cancel());
        let snap = wait_idle(&jobs);
        assert_eq!(snap.last.unwrap().result, TaskResult::Cancelled);
    }
}
