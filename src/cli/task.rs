//! One task run in the foreground, with a progress bar on a terminal.

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::args::{GlobalArgs, ServeArgs};
use crate::config::Config;
use crate::error::counts::{number, size};
use crate::error::{Error, Failure, Kind, Msg};
use crate::jobs::compress::Flags;
use crate::jobs::{Snapshot, Start, Task, TaskResult, Unit};
use crate::service::Service;
use crate::store::job_runs::JobRun;
use crate::words::StartedBy;

/// Run one task on the data folder, with a progress bar on a terminal; while a
/// server holds the folder, hand the task to it (`handoff`). Ctrl-C cancels the
/// task at its next safe point.
pub fn foreground(global: &GlobalArgs, task: Task) -> Result<(), Error> {
    foreground_on(global, task, &[])
}

/// [`foreground`] for a task limited to the files at `only` (library keys; none: the
/// whole library).
pub fn foreground_on(global: &GlobalArgs, task: Task, only: &[String]) -> Result<(), Error> {
    let config = Config::new(global, &ServeArgs::from_env())?;
    let start = Start {
        only: only.to_vec(),
        ..Start::default()
    };
    run_with(&config, task, start)
}

/// `ludotheque compress`: its flags set how the task compresses, for this run.
pub fn compress(global: &GlobalArgs, only: &[String], flags: Flags) -> Result<(), Error> {
    let config = Config::new(global, &ServeArgs::from_env())?;
    let start = Start {
        only: only.to_vec(),
        compress: flags,
        ..Start::default()
    };
    run_with(&config, Task::Compress, start)
}

/// Run `task` in this process, or hand it to the server that holds the data folder.
pub(super) fn run_with(config: &Config, task: Task, start: Start) -> Result<(), Error> {
    let service = match Service::open(config) {
        Ok(service) => service,
        Err(e) if e.is(&Kind::Locked) => {
            return super::handoff::run(&config.data, task, start).unwrap_or(Err(e))
        }
        Err(e) => return Err(e),
    };
    let jobs = Arc::clone(&service.jobs);
    jobs.try_start_with(task, StartedBy::Cli, start)?;
    let tty = std::io::stderr().is_terminal();
    while jobs.snapshot().running {
        if service.stop.load(Ordering::SeqCst) {
            jobs.cancel();
        }
        if tty {
            super::progress::draw(&progress_line(&jobs.snapshot()));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    super::progress::finish();
    let snap = jobs.snapshot();
    // The webhook's first attempt at each event (15 s at most each), not its retries.
    jobs.flush_events(Duration::from_secs(20));
    service.close();
    match &snap.last {
        Some(run) => report(task, run, &snap.last_failures),
        None => Err(Error::internal("the task left no result")),
    }
}

/// The last lines: what the task did, the files that failed, or the error that says
/// why it stopped. Only `ok` exits 0.
pub(super) fn report(task: Task, run: &JobRun, failures: &[Failure]) -> Result<(), Error> {
    let label = run.task;
    let said = run
        .msg
        .as_ref()
        .map(Msg::french)
        .unwrap_or_else(|| run.message.clone());
    match run.result {
        TaskResult::Ok => {
            say!("Tâche {label} réussie : {said}.");
            // The files it left as they are, with why (compress's skips).
            for f in failures {
                let what = f.key.as_deref().unwrap_or("—");
                say!("  {what} : {}", f.msg.french());
            }
            Ok(())
        }
        TaskResult::Partial => {
            say!("Tâche {label} terminée avec des erreurs : {said}.");
            for f in failures {
                let what = f.key.as_deref().unwrap_or("—");
                say!("  {what} : {}", f.msg.french());
            }
            Err(Error::invalid(Msg::TaskPartial {
                task: label,
                failed: run.errors,
            }))
        }
        TaskResult::Cancelled | TaskResult::Interrupted => Err(Error::new(
            Kind::Cancelled,
            Msg::TaskInterrupted {
                task: label,
                done: run.done,
                total: run.total,
                unit: task.unit(),
            },
        )),
        TaskResult::Failed | TaskResult::Running => Err(Error::invalid(Msg::TaskFailed {
            task: label,
            message: said,
        })),
    }
}

fn progress_line(s: &Snapshot) -> String {
    progress_of(s.unit, s.done, s.total, &s.detail)
}

/// The progress bar's line: `done` of `total` in `unit`, and the item at hand.
pub(super) fn progress_of(unit: Unit, done: u64, total: u64, detail: &str) -> String {
    const WIDTH: u64 = 30;
    let filled = (done * WIDTH).checked_div(total).unwrap_or(0).min(WIDTH) as usize;
    let detail: String = crate::text::printable(detail).chars().take(50).collect();
    // A convert counts bytes: in Mo and Go, as the web page says them.
    let (done, total) = match unit {
        Unit::Bytes => (size(done), size(total)),
        _ => (number(done), number(total)),
    };
    format!(
        "[{}{}] {done}/{total} {detail}",
        "#".repeat(filled),
        ".".repeat(WIDTH as usize - filled),
    )
}
