//! One task run in the foreground, with a progress bar on a terminal.

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::args::{GlobalArgs, ServeArgs};
use crate::config::Config;
use crate::error::{Error, Kind};
use crate::jobs::compress::Flags;
use crate::jobs::{Snapshot, Start, Task};
use crate::service::Service;
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
        Some(run) => super::report::report(task, run, &snap.last_failures),
        None => Err(Error::internal("the task left no result")),
    }
}

fn progress_line(s: &Snapshot) -> String {
    super::report::progress_of(s.unit, s.done, s.total, &s.detail)
}
