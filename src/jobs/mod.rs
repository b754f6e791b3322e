//! Tasks: the long-running work (scan, convert, push, title data, organize, dedupe,
//! verify, compress) that runs one at a time on the job thread. `runner` owns the slot; this file names
//! the tasks and dispatches each to its module.

pub mod compress;
pub mod convert;
pub mod dedupe;
pub mod folders;
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
        Task::FolderAdd => folders::add(ctx),
        Task::FolderRemove => folders::remove(ctx),
    }
}

/// Refuse to start `task` when what it needs does not fit: `needed` gives the bytes
/// for each library folder (in the order of `lib.all()`), and `work` those of the
/// work folder (`--work-dir`: the largest file made there, one at a time); they add
/// up by disk (two folders on one disk share its room).
fn check_room(
    task: &str,
    (lib, work): (&crate::tree::Folders, Option<(&std::path::Path, u64)>),
    needed: &[u64],
    msg: fn(u64, u64) -> crate::error::Msg,
) -> Result<(), Error> {
    use std::os::unix::fs::MetadataExt;
    let dirs = lib
        .all()
        .iter()
        .map(|f| f.dir.as_path())
        .zip(needed.iter().copied());
    let mut disks: Vec<(Option<u64>, &std::path::Path, u64)> = Vec::new();
    for (dir, bytes) in dirs.chain(work).filter(|(_, b)| *b > 0) {
        let dev = std::fs::metadata(dir).ok().map(|m| m.dev());
        match disks.iter_mut().find(|d| d.0.is_some() && d.0 == dev) {
            Some(disk) => disk.2 = disk.2.saturating_add(bytes),
            None => disks.push((dev, dir, bytes)),
        }
    }
    for (_, dir, needed) in disks {
        match crate::library::safe::free_space(dir) {
            Ok(free) if free < needed => {
                return Err(Error::invalid(msg(needed, free))
                    .with_cause(format!("{needed} bytes needed, {free} free")))
            }
            Ok(_) => {}
            // A filesystem that cannot say: try, and let a full disk fail one file.
            Err(e) => log::warn!("{task}: free space unknown: {e}"),
        }
    }
    Ok(())
}
