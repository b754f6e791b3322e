//! Tasks: the long-running work (scan, convert, push) that runs one at a
//! time on the job thread. `runner` owns the slot; this file names the tasks and
//! dispatches each to its module.

pub mod convert;
pub mod push;
pub mod runner;
pub mod scan;

use rusqlite::Connection;

use crate::config::Config;
use crate::error::Error;
pub use runner::{Jobs, Progress, Snapshot};

/// A task the slot can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    Scan,
    Convert,
    Push,
}

impl Task {
    pub fn label(self) -> &'static str {
        match self {
            Task::Scan => "scan",
            Task::Convert => "convert",
            Task::Push => "push",
        }
    }

    /// What `done` and `total` count.
    pub fn unit(self) -> &'static str {
        match self {
            Task::Scan => "files",
            Task::Convert | Task::Push => "bytes",
        }
    }
}

/// What a task gets to work with.
pub struct TaskCtx<'a> {
    pub db: &'a Connection,
    pub config: &'a Config,
    pub progress: &'a Progress<'a>,
    pub push: &'a crate::device::Sessions,
}

/// How a task that did not fail ended; errors on single items are counted by the
/// progress handle.
#[derive(Debug, Default)]
pub struct Outcome {
    pub message: String,
}

/// The production dispatcher handed to the runner.
pub fn run_task(task: Task, ctx: &TaskCtx) -> Result<Outcome, Error> {
    match task {
        Task::Scan => scan::run(ctx),
        Task::Convert => convert::run(ctx),
        Task::Push => push::run(ctx),
    }
}
