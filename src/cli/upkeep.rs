//! Keeping the library tidy from the command line: `dedupe` and `organize`, each as a
//! preview (`--dry-run`, which only reads) or as the task run in the foreground.

use super::{open_store, task};
use crate::args::{GlobalArgs, ServeArgs};
use crate::config::Config;
use crate::error::counts::{agree, count, number};
use crate::error::Error;
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
    let drops = dedupe::plan(&db, &config.library, config.dedupe_keep)?;
    for d in &drops {
        let why = match d.reason {
            TrashReason::Superseded => "remplacé",
            _ => "doublon",
        };
        say!("{why:<9} {} (v{}) : {}", d.title_id, d.version, d.key);
        say!("          gardé : {}", d.kept);
    }
    let bytes: u64 = drops.iter().map(|d| d.size).sum();
    match drops.len() {
        0 => say!("Aucun fichier remplacé ni doublon : rien ne partirait à la corbeille."),
        n => {
            let n = n as u64;
            say!(
                "{} {} à la corbeille ({}) ; « ludotheque dedupe » {} met.",
                count(n, "fichier", "fichiers"),
                agree(n, "partirait", "partiraient"),
                count(bytes, "octet", "octets"),
                agree(n, "l'y", "les y")
            )
        }
    }
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
    if !dry_run {
        let db = open_store(global)?;
        let newest = || organize_runs::list(&db, 1).map(|runs| runs.first().map(|r| r.id));
        let before = newest()?;
        task::foreground(global, Task::Organize)?;
        match newest()?.filter(|&run| Some(run) != before) {
            Some(run) => say!(
                "Rangement {run} journalisé : « ludotheque organize --undo {run} » remet ses fichiers en place."
            ),
            None => say!("Rien à déplacer : chaque fichier est à sa place, ou la sienne est prise."),
        }
        return Ok(());
    }
    let config = Config::new(global, &ServeArgs::from_env())?;
    let db = open_store(global)?;
    let plan = organize::plan(&db, &config.library, &config.organize_template)?;
    for m in &plan.moves {
        say!("{}", m.from);
        say!("  → {}", m.to);
    }
    for m in &plan.taken {
        say!("place prise, non déplacé : {}", m.from);
        say!("  ↛ {}", m.to);
    }
    let left = plan.left as u64;
    say!(
        "{}, {} dont la place est prise, {} déjà en place, {} {} (non identifiés ou liens).",
        count(
            plan.moves.len() as u64,
            "fichier à déplacer",
            "fichiers à déplacer"
        ),
        number(plan.taken.len() as u64),
        number(plan.in_place as u64),
        number(left),
        agree(left, "laissé tel quel", "laissés tels quels")
    );
    Ok(())
}

fn organize_list(global: &GlobalArgs) -> Result<(), Error> {
    let db = open_store(global)?;
    let runs = organize_runs::list(&db, 1000)?;
    if runs.is_empty() {
        say!("Aucun rangement n'a encore déplacé de fichier.");
    }
    for r in runs {
        let state = match r.undone_at {
            Some(at) => format!("annulé le {}", time::local(at)),
            None => count(r.moved, "déplacé", "déplacés"),
        };
        say!(
            "{:>4}  {}  {state}, {} remis en place  {}",
            r.id,
            time::local(r.started_at),
            number(r.undone),
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
