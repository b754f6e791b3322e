//! Keeping the library tidy from the command line: `dedupe` and `organize`, each as a
//! preview (`--dry-run`, which only reads) or as the task run in the foreground.

use super::out::{colon, lang, tell, word};
use super::{open_store, task};
use crate::args::{GlobalArgs, ServeArgs};
use crate::config::Config;
use crate::error::i18n::M;
use crate::error::{Error, Line};
use crate::jobs::organize;
use crate::jobs::{dedupe, Start, Task};
use crate::store::organize_runs;
use crate::time;
use crate::words::TrashReason;

pub fn dedupe(global: &GlobalArgs, dry_run: bool) -> Result<(), Error> {
    if !dry_run {
        return task::foreground(global, Task::Dedupe);
    }
    let config = Config::new(global, &ServeArgs::from_env())?;
    let db = open_store(global)?;
    let drops = dedupe::plan(&db, &config.folders(), config.dedupe_keep)?;
    let colon = colon();
    for d in &drops {
        let why = word(match d.reason {
            TrashReason::Superseded => M::DropSuperseded,
            _ => M::DropDuplicate,
        });
        say!(
            "{why:<9} {} ({}){colon}{}",
            d.title_id,
            crate::numbers::version(d.version),
            d.key
        );
        say!("          {}{colon}{}", word(M::DropKept), d.kept);
    }
    tell(&Line::DedupePreview {
        files: drops.len() as u64,
        bytes: drops.iter().map(|d| d.size).sum(),
    });
    Ok(())
}

pub fn organize(
    global: &GlobalArgs,
    dry_run: bool,
    list: bool,
    undo: Option<i64>,
) -> Result<(), Error> {
    if list {
        return organize_list(global);
    }
    if let Some(run) = undo {
        return organize_undo(global, run);
    }
    // The task's own message says how to undo the run it logged.
    if !dry_run {
        return task::foreground(global, Task::Organize);
    }
    let config = Config::new(global, &ServeArgs::from_env())?;
    let db = open_store(global)?;
    let plan = organize::plan(&db, &config.folders(), &config.organize_template(&db))?;
    for m in &plan.moves {
        say!("{}", m.from);
        say!("  → {}", m.to);
    }
    for m in &plan.taken {
        say!("{}{}{}", word(M::PlaceTaken), colon(), m.from);
        say!("  ↛ {}", m.to);
    }
    tell(&Line::OrganizePreview {
        moves: plan.moves.len() as u64,
        taken: plan.taken.len() as u64,
        in_place: plan.in_place as u64,
        left: plan.left as u64,
    });
    Ok(())
}

fn organize_list(global: &GlobalArgs) -> Result<(), Error> {
    let db = open_store(global)?;
    let runs = organize_runs::list(&db, 1000)?;
    if runs.is_empty() {
        tell(&Line::NoOrganizeRun);
    }
    for r in runs {
        let state = lang().line(&Line::OrganizeRunState {
            undone_at: r.undone_at.map(time::local),
            moved: r.moved,
            put_back: r.undone,
        });
        say!(
            "{:>4}  {}  {state}  {}",
            r.id,
            time::local(r.started_at),
            r.template
        );
    }
    Ok(())
}

/// Undo as a task, like a run: in this process under the data folder's lock, or
/// handed to the server that holds it; either way no other task moves files
/// meanwhile. A file left where it is is named, and makes the undo partial.
fn organize_undo(global: &GlobalArgs, run: i64) -> Result<(), Error> {
    let config = Config::new(global, &ServeArgs::from_env())?;
    let start = Start {
        organize_run: Some(run),
        ..Start::default()
    };
    task::run_with(&config, Task::OrganizeUndo, start)
}
