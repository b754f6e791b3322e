//! Tasks: the long-running work (scan, convert, push, title data, organize, dedupe,
//! verify, compress) that runs one at a time on the job thread. `runner` owns the slot; this file names
//! the tasks and dispatches each to its module.

pub mod compress;
pub mod convert;
pub mod dedupe;
pub mod organize;
pub mod push;
pub mod runner;
pub mod scan;
pub mod titles;
pub mod verify;

use rusqlite::Connection;

use crate::config::Config;
use crate::device::Sessions;
use crate::error::Error;
pub use runner::{Jobs, Progress, Snapshot, Start};

pub use crate::words::{Task, TaskResult, Unit};

/// What a task gets to work with.
pub struct TaskCtx<'a> {
    pub db: &'a Connection,
    pub config: &'a Config,
    pub progress: &'a Progress<'a>,
    /// The user's console keys file: `current()` gives the keys in use, read again
    /// when the file changed.
    pub prod_keys: &'a crate::library::switchfs::prodkeys::file::KeysFile,
}

/// How a task that did not fail ended, as a message rendered in the reader's
/// language; the files that failed are told to the progress handle
/// ([`Progress::fail`]), and make the result `partial`.
#[derive(Debug)]
pub struct Outcome {
    pub msg: crate::error::Msg,
}

impl From<crate::error::Msg> for Outcome {
    fn from(msg: crate::error::Msg) -> Self {
        Outcome { msg }
    }
}

/// The production dispatcher handed to the runner. The push under way is not the
/// slot's business: whoever starts the runner hands it in.
pub fn run_task(task: Task, ctx: &TaskCtx, push: &Sessions) -> Result<Outcome, Error> {
    match task {
        Task::Scan => scan::run(ctx),
        Task::Convert => convert::run(ctx),
        Task::Push => push::run(ctx, push),
        Task::Titles => titles::run(ctx),
        Task::Dedupe => dedupe::run(ctx),
        Task::Organize => organize::run(ctx),
        Task::OrganizeUndo => organize::run_undo(ctx),
        Task::Verify => verify::run(ctx),
        Task::Compress => compress::run(ctx),
    }
}

/// Refuse to start `task` when `needed` bytes do not fit on the library's disk.
fn check_room(
    task: &str,
    root: &std::path::Path,
    needed: u64,
    msg: fn(u64, u64) -> crate::error::Msg,
) -> Result<(), Error> {
    match crate::library::safe::free_space(root) {
        Ok(free) if free < needed => Err(Error::invalid(msg(needed, free))
            .with_cause(format!("{needed} bytes needed, {free} free"))),
        Ok(_) => Ok(()),
        // A filesystem that cannot say: try, and let a full disk fail one file.
        Err(e) => {
            log::warn!("{task}: free space unknown: {e}");
            Ok(())
        }
    }
}
