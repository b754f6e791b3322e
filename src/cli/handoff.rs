//! The command's side of `service::handoff`: while a server holds the data folder,
//! `scan`, `convert`, `verify`, `compress`, `dedupe` and `organize` send their task
//! to it over the data folder's socket, print its progress as they print their own,
//! and end as the run ended (`report::report`, the same lines and exit code).
//!
//! Ctrl-C (or SIGTERM) asks the service to cancel the task, as it cancels a task run
//! in the foreground; a second Ctrl-C leaves at once. A connection that drops
//! otherwise (the terminal closed) leaves the task running in the service.

use std::io::{IsTerminal, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::report;
use crate::error::{Error, Failure, Kind, Line, Msg};
use crate::jobs::{Start, Task, TaskResult, Unit};
use crate::service::handoff::{send, Ended, Got, HandoffLine, Lines, Request, CANCEL, SOCKET};
use crate::store::job_runs::JobRun;

/// Hand `task` to the service listening in `data`; `None` when none listens there
/// (the folder is held by a command running a task itself, or a service without the
/// socket): the caller says the folder is locked, as before.
pub fn run(data: &Path, task: Task, start: Start) -> Option<Result<(), Error>> {
    let stream = UnixStream::connect(data.join(SOCKET)).ok()?;
    let request = Request {
        task: task.as_str().into(),
        only: start.only,
        compress: start.compress,
        organize_run: start.organize_run,
    };
    Some(converse(stream, task, &request))
}

/// Where the conversation is.
#[derive(Default)]
struct State {
    started: bool,
    cancelled: bool,
    /// A progress line is on the terminal, to end before the next output.
    drawn: bool,
}

fn converse(stream: UnixStream, task: Task, request: &Request) -> Result<(), Error> {
    let stop = catch_stop()?;
    let mut out = stream.try_clone()?;
    send(&mut out, request)?;
    stream.set_read_timeout(Some(Duration::from_millis(200)))?;
    let mut lines = Lines::new(stream);
    let mut state = State::default();
    loop {
        if state.started && !state.cancelled && stop.load(Ordering::SeqCst) {
            // The answer is the run's end, cancelled, as in the foreground.
            let _ = out.write_all(format!("{CANCEL}\n").as_bytes());
            state.cancelled = true;
        }
        let line = match lines.poll() {
            Ok(Got::Nothing) => continue,
            Ok(Got::Line(line)) => line,
            Ok(Got::Closed) | Err(_) => return Err(lost(&mut state)),
        };
        let reply: HandoffLine = serde_json::from_slice(&line)
            .map_err(|e| Error::internal(format!("the service's answer: {e}")))?;
        if let Some(end) = answer(task, reply, &mut state) {
            return end;
        }
    }
}

/// Show one line of the service's; `Some` with the command's end at the last.
fn answer(task: Task, reply: HandoffLine, state: &mut State) -> Option<Result<(), Error>> {
    match reply {
        HandoffLine::Started => {
            state.started = true;
            let line = super::out::lang().line(&Line::HandedOff { task });
            eprintln!("{line}");
            None
        }
        HandoffLine::Refused { msg } => Some(Err(refused(msg))),
        HandoffLine::Progress {
            unit,
            done,
            total,
            detail,
        } => {
            if std::io::stderr().is_terminal() {
                let unit = Unit::parse(&unit).unwrap_or(Unit::Files);
                eprint!(
                    "\r{}\x1b[K",
                    report::progress_of(unit, done, total, &detail)
                );
                state.drawn = true;
            }
            None
        }
        HandoffLine::Finished(ended) => {
            end_line(state);
            let (run, failures) = finished(task, ended);
            Some(report::report(task, &run, &failures))
        }
    }
}

fn end_line(state: &mut State) {
    if std::mem::take(&mut state.drawn) {
        eprintln!();
    }
}

fn refused(msg: Msg) -> Error {
    match msg {
        Msg::Busy | Msg::TaskRunning { .. } => Error::new(Kind::Busy, msg),
        Msg::Internal => Error::internal("the service failed to start the task"),
        msg => Error::invalid(msg),
    }
}

fn lost(state: &mut State) -> Error {
    end_line(state);
    match state.started {
        true => Error::new(Kind::Unavailable, Msg::HandoffLost),
        false => Error::new(Kind::Unavailable, Msg::HandoffRefused),
    }
}

/// The run as `report::report` reads it.
fn finished(task: Task, ended: Ended) -> (JobRun, Vec<Failure>) {
    let run = JobRun {
        id: 0,
        task,
        result: TaskResult::parse(&ended.result).unwrap_or(TaskResult::Failed),
        started_at: 0,
        finished_at: None,
        done: ended.done,
        total: ended.total,
        errors: ended.errors,
        message: ended.message,
        msg: ended.msg,
    };
    (run, ended.failures)
}

/// SIGINT and SIGTERM set the flag (the command then cancels its task); a second one
/// ends the command at once, leaving the task to the service.
fn catch_stop() -> Result<Arc<AtomicBool>, Error> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, 1, Arc::clone(&stop))?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    Ok(stop)
}
