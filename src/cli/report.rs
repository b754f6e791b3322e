//! What a task run prints, whether it ran in this process (`task`) or was handed to
//! the running service (`handoff`): the progress bar's line and the last lines with
//! the exit code. Both callers use it; it uses neither.

use crate::error::counts::{number, size};
use crate::error::{Error, Failure, Kind, Msg};
use crate::jobs::{Task, TaskResult, Unit};
use crate::store::job_runs::JobRun;

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
