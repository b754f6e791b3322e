//! What a task run prints, whether it ran in this process (`task`) or was handed to
//! the running service (`handoff`): the progress bar's line and the last lines with
//! the exit code. Both callers use it; it uses neither.

use super::out::{lang, tell};
use crate::error::{Error, Failure, Kind, Line, Msg};
use crate::jobs::{Task, TaskResult, Unit};
use crate::store::job_runs::JobRun;

/// The last lines: what the task did, the files that failed, or the error that says
/// why it stopped. Only `ok` exits 0.
pub(super) fn report(task: Task, run: &JobRun, failures: &[Failure]) -> Result<(), Error> {
    let label = run.task;
    let said = run
        .msg
        .as_ref()
        .map(|m| lang().msg(m))
        .unwrap_or_else(|| run.message.clone());
    match run.result {
        TaskResult::Ok => {
            tell(&Line::TaskDone { task: label, said });
            // The files it left as they are, with why (compress's skips).
            each_failure(failures);
            Ok(())
        }
        TaskResult::Partial => {
            tell(&Line::TaskPartial { task: label, said });
            each_failure(failures);
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

/// A line per file that failed or was left as it was: its key and why.
fn each_failure(failures: &[Failure]) {
    for f in failures {
        tell(&Line::FileFailed {
            key: f.key.clone().unwrap_or_else(|| "—".into()),
            why: lang().msg(&f.msg),
        });
    }
}

/// The progress bar's line: `done` of `total` in `unit`, and the item at hand.
pub(super) fn progress_of(unit: Unit, done: u64, total: u64, detail: &str) -> String {
    const WIDTH: u64 = 30;
    let filled = (done * WIDTH).checked_div(total).unwrap_or(0).min(WIDTH) as usize;
    let detail: String = crate::text::printable(detail).chars().take(50).collect();
    // A convert counts bytes: in MB and GB, as the web page says them.
    let grammar = lang().grammar();
    let (done, total) = match unit {
        Unit::Bytes => (grammar.size(done), grammar.size(total)),
        _ => (grammar.number(done), grammar.number(total)),
    };
    format!(
        "[{}{}] {done}/{total} {detail}",
        "#".repeat(filled),
        ".".repeat(WIDTH as usize - filled),
    )
}
