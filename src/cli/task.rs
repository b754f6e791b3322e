//! One task run in the foreground, with a progress bar on a terminal.

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::args::{GlobalArgs, ServeArgs};
use crate::config::Config;
use crate::error::counts::{amount, count, number};
use crate::error::{Error, Kind, Msg};
use crate::jobs::{Snapshot, Task, TaskResult};
use crate::service::Service;
use crate::store::job_runs::JobRun;

/// Run one task on the data folder (refused while a server holds it), with a
/// progress bar on a terminal. Ctrl-C cancels the task at its next safe point.
pub fn foreground(global: &GlobalArgs, task: Task) -> Result<(), Error> {
    let config = Config::new(global, &ServeArgs::from_env())?;
    let service = Service::open(&config)?;
    let jobs = Arc::clone(&service.jobs);
    jobs.try_start(task)?;
    let tty = std::io::stderr().is_terminal();
    while jobs.snapshot().running {
        if service.stop.load(Ordering::SeqCst) {
            jobs.cancel();
        }
        if tty {
            eprint!("\r{}\x1b[K", progress_line(&jobs.snapshot()));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if tty {
        eprintln!();
    }
    let last = jobs.snapshot().last;
    // The webhook's first attempt at each event (15 s at most each), not its retries.
    jobs.flush_events(Duration::from_secs(20));
    service.close();
    match last {
        Some(run) => report(task, &run),
        None => Err(Error::internal("the task left no result")),
    }
}

/// The last line: what the task did, or the error that says why it stopped.
fn report(task: Task, run: &JobRun) -> Result<(), Error> {
    let unit = task.unit().as_str();
    let errors = match run.errors {
        0 => "aucune erreur".to_string(),
        n => format!("{} (voir le journal)", count(n, "erreur", "erreurs")),
    };
    let label = run.task.as_str().to_string();
    match run.result {
        TaskResult::Ok => {
            say!(
                "Tâche {label} terminée : {} sur {}, {errors}.",
                amount(run.done, unit),
                number(run.total)
            );
            Ok(())
        }
        TaskResult::Cancelled | TaskResult::Interrupted => Err(Error::new(
            Kind::Cancelled,
            Msg::TaskInterrupted {
                task: label,
                done: run.done,
                total: run.total,
                unit: unit.into(),
            },
        )),
        TaskResult::Failed | TaskResult::Running => Err(Error::invalid(Msg::TaskFailed {
            task: label,
            message: run.message.clone(),
        })),
    }
}

fn progress_line(s: &Snapshot) -> String {
    const WIDTH: u64 = 30;
    let filled = (s.done * WIDTH)
        .checked_div(s.total)
        .unwrap_or(0)
        .min(WIDTH) as usize;
    let detail: String = crate::text::printable(&s.detail).chars().take(50).collect();
    format!(
        "[{}{}] {}/{} {}",
        "#".repeat(filled),
        ".".repeat(WIDTH as usize - filled),
        number(s.done),
        number(s.total),
        detail
    )
}
