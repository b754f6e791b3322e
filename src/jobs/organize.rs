//! The organize task: move each identified file to the place the naming template
//! gives it (`library::naming`), inside its platform's folder, and keep a journal so
//! that a run can be undone.
//!
//! Never lose a file, never overwrite one: a target that is taken (on disk, or by an
//! earlier file of the same run) is skipped and reported; a file already in its place
//! does not move, so a second run moves nothing. Unidentified files and links stay
//! where they are (a moved relative link would point elsewhere); so does a FIFO, a
//! socket or a device found in a game's place, named among the run's failures. Moves
//! are renames inside the library, so a file keeps its size and time and the next
//! scan reads nothing again; the folders a move leaves empty are removed, the
//! platform folder never.
//!
//! Each move is journaled before it happens (`moving`), the file renamed, then in one
//! transaction the game's key changes everywhere it is held (the game, the push list,
//! the shop's download history) and the journal says `moved`. A kill in between is
//! settled by [`recover`] at the next start: the file is where the journal says it
//! went, or it is not and the row is dropped. Undoing runs the same steps backwards
//! (`undoing`, `undone`). The game's entries in the trash follow each move
//! (`trash::follow`): the `.nsz` a convert replaced restores beside its `.nsp`.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use log::{info, warn};
use rusqlite::Connection;

use super::{Outcome, TaskCtx};
use crate::error::{Error, Msg};
use crate::library::{safe, LibraryKey};
use crate::naming::{Fields, Template};
use crate::store::{games, organize_moves, organize_runs, platforms, push_list, shop_downloads};
use crate::tree::Folders;
use crate::words::{GameKind, MoveState, StartedBy, TitleId};

/// A file and the key the template gives it (as the organize preview sends it).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Move {
    pub from: String,
    pub to: String,
}

/// What a run would do.
#[derive(Debug, Default)]
pub struct Plan {
    pub moves: Vec<Move>,
    /// Moves not made because their target is taken (a file there, or an earlier file
    /// of the same run going there).
    pub taken: Vec<Move>,
    /// Files already where the template puts them.
    pub in_place: usize,
    /// Files left alone: unidentified, or links.
    pub left: usize,
    /// Games whose key holds no regular file (a FIFO, a socket, a device): left
    /// alone too, and named among the run's failures.
    pub strays: Vec<(String, safe::NotAFile)>,
}

/// The key of each platform's folder, by slug (`None`: the library root).
fn platform_folders(db: &Connection) -> Result<HashMap<String, Option<LibraryKey>>, Error> {
    Ok(platforms::list(db)?
        .into_iter()
        .map(|p| (p.slug, LibraryKey::parse(&p.folder)))
        .collect())
}

/// The base game's name for every base title ID: from the title data, else from the
/// library's base game, else none (the file's own name is used).
fn base_names(db: &Connection, games: &[games::Placed]) -> Result<HashMap<TitleId, String>, Error> {
    // Two base copies named differently: the least name, whatever their keys, so
    // that a run does not change which folder the next run picks.
    let mut names: HashMap<TitleId, String> = HashMap::new();
    for g in games.iter().filter(|g| g.kind == GameKind::Base) {
        if let Some(id) = g.title_id {
            let name = names.entry(id).or_insert_with(|| g.name.clone());
            if g.name < *name {
                name.clone_from(&g.name);
            }
        }
    }
    for g in games {
        if let Some(base) = g.base_title_id {
            if let Some(name) = crate::store::titles::name(db, base)? {
                names.insert(base, name);
            }
        }
    }
    Ok(names)
}

/// Where the template puts `g`, when it is identified.
fn target(
    g: &games::Placed,
    template: &Template,
    folders: &HashMap<String, Option<LibraryKey>>,
    names: &HashMap<TitleId, String>,
) -> Option<LibraryKey> {
    let (title_id, base) = (g.title_id?, g.base_title_id?);
    let kind = match g.kind {
        GameKind::Base => "Base",
        GameKind::Update => "Update",
        GameKind::Dlc => "DLC",
        GameKind::Unknown => return None,
    };
    let name = names.get(&base).map_or(g.name.as_str(), String::as_str);
    let rendered = template.render(&Fields {
        name,
        dlc_name: &g.name,
        title_id,
        base_title_id: base,
        version: g.version.unwrap_or(0),
        kind,
        ext: &g.format,
    });
    let rendered = LibraryKey::parse(&rendered)?;
    Some(match folders.get(&g.platform)? {
        Some(folder) => rendered.inside(folder),
        None => rendered,
    })
}

/// The template's key `to` for the file at `key`, in the file's own library folder:
/// a move never crosses disks. A further folder's file goes below its name (the
/// template's key is the whole library's); a key of the first folder the template
/// would put into a further one is no place for it (`None`: left alone).
fn in_own_folder(lib: &Folders, key: &LibraryKey, to: LibraryKey) -> Option<LibraryKey> {
    let own = lib.locate(key);
    let index = lib.index_of(key);
    let to = match own.first || lib.index_of(&to) == index {
        true => to,
        false => own.library_key(&to),
    };
    (lib.index_of(&to) == index).then_some(to)
}

/// Every move the template asks for, checked against the disk (nothing is moved).
pub fn plan(db: &Connection, lib: &Folders, template: &Template) -> Result<Plan, Error> {
    let all = games::placed(db)?;
    let (folders, names) = (platform_folders(db)?, base_names(db, &all)?);
    let mut plan = Plan::default();
    let mut targets = HashSet::new();
    for g in &all {
        let Some(key) = LibraryKey::parse(&g.key) else {
            plan.left += 1;
            continue;
        };
        let here = std::fs::symlink_metadata(lib.locate(&key).path());
        let to = target(g, template, &folders, &names).and_then(|to| in_own_folder(lib, &key, to));
        let (Some(to), Ok(here)) = (to, here) else {
            plan.left += 1;
            continue;
        };
        if here.file_type().is_symlink() {
            plan.left += 1;
            continue;
        }
        if let Some(what) = safe::NotAFile::of(here.file_type()) {
            plan.strays.push((g.key.clone(), what));
            continue;
        }
        let there = std::fs::symlink_metadata(lib.locate(&to).path());
        // The same file: already there, or a name that differs only in case on a
        // filesystem that ignores case.
        let same = there
            .as_ref()
            .is_ok_and(|t| (t.dev(), t.ino()) == (here.dev(), here.ino()));
        let m = Move {
            from: g.key.clone(),
            to: to.to_string(),
        };
        if to.as_str() == g.key || same {
            plan.in_place += 1;
        } else if there.is_ok() || !targets.insert(to) {
            plan.taken.push(m);
        } else {
            plan.moves.push(m);
        }
    }
    Ok(plan)
}

/// The folder below which a move never removes an emptied folder: the platform's.
/// In a further library folder with a platform of the whole library, that folder.
fn kept_folder(
    lib: &Folders,
    key: &LibraryKey,
    folders: &HashMap<String, Option<LibraryKey>>,
) -> PathBuf {
    let place = lib.locate(key);
    folders
        .values()
        .flatten()
        .filter(|f| key.starts_with(&format!("{f}/")))
        .max_by_key(|f| f.as_str().len())
        .map(|f| lib.locate(f))
        .filter(|f| std::ptr::eq(f.folder, place.folder))
        .map_or_else(|| place.dir().to_path_buf(), |f| f.path())
}

/// After the rename: the key changes everywhere it is held, and the journal row
/// takes its final state, in one transaction.
fn rekey(db: &Connection, id: i64, from: &str, to: &str, state: MoveState) -> Result<(), Error> {
    let tx = db.unchecked_transaction()?;
    games::rekey(&tx, from, to)?;
    push_list::rekey(&tx, from, to)?;
    shop_downloads::rekey(&tx, from, to)?;
    organize_moves::set_state(&tx, id, state)?;
    tx.commit()?;
    Ok(())
}

/// Rename `from` to `to` (both keys of one library folder: a move never crosses
/// disks), making `to`'s folders, never through a link and never onto an existing
/// file.
fn rename(lib: &Folders, from: &LibraryKey, to: &LibraryKey) -> std::io::Result<()> {
    let (from, to) = (lib.locate(from), lib.locate(to));
    if !std::ptr::eq(from.folder, to.folder) {
        let why = "a move from one library folder to another";
        return Err(std::io::Error::new(std::io::ErrorKind::CrossesDevices, why));
    }
    safe::check_folders(from.dir(), &from.key)?;
    safe::make_folders(to.dir(), &to.key)?;
    safe::move_new(&from.path(), &to.path())
}

/// One journaled move of the file at `from` to `to`, whose journal row `id` is
/// already written (`moving` or `undoing`); `after` is its state once done.
fn journaled(
    db: &Connection,
    lib: &Folders,
    id: i64,
    (from, to): (&LibraryKey, &LibraryKey),
    after: MoveState,
) -> Result<(), Error> {
    rename(lib, from, to).map_err(|e| Error::internal(format!("moving {from} to {to}: {e}")))?;
    if let Err(e) = rekey(db, id, from.as_str(), to.as_str(), after) {
        // The database does not know the file moved: put it back.
        if let Err(back) = safe::move_new(&lib.locate(to).path(), &lib.locate(from).path()) {
            log::error!(
                "organize: {from} stays at {to}: the database did not take the move ({e}) \
                 and putting it back failed ({back}); the journal settles it at the next start"
            );
        }
        return Err(e);
    }
    // Best effort: an entry that stays behind still restores where it was.
    if let Err(e) = crate::trash::follow(db, lib, from, to) {
        warn!("organize: the trash of {from} did not follow: {e}");
    }
    Ok(())
}

fn keys(m: &Move) -> Result<(LibraryKey, LibraryKey), Error> {
    let bad = || Error::internal("a key of the journal is no key");
    Ok((
        LibraryKey::parse(&m.from).ok_or_else(bad)?,
        LibraryKey::parse(&m.to).ok_or_else(bad)?,
    ))
}

/// Make one move of run `run`.
fn move_one(db: &Connection, lib: &Folders, run: i64, m: &Move) -> Result<(), Error> {
    let (from, to) = keys(m)?;
    let id = organize_moves::insert(db, run, &m.from, &m.to)?;
    journaled(db, lib, id, (&from, &to), MoveState::Moved).inspect_err(|_| {
        // The journal row goes once the file is where it was; a file that stayed at
        // `to` keeps it, for `recover` to settle.
        let back = std::fs::symlink_metadata(lib.locate(&from).path()).is_ok();
        if let Err(e) = back.then(|| organize_moves::delete(db, id)).transpose() {
            log::error!("organize: forgetting the move of {from} that did not happen: {e}");
        }
    })
}

/// The task.
pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let (db, lib) = (ctx.db, &*ctx.config.folders());
    recover(db, lib)?;
    let template = ctx.config.organize_template(db);
    let mut plan = plan(db, lib, &template)?;
    // Started on the files a confirm dialog showed: only those of them still to move.
    let only: HashSet<String> = ctx.progress.only().into_iter().collect();
    plan.moves
        .retain(|m| only.is_empty() || only.contains(&m.from));
    for m in &plan.taken {
        warn!("organize: {} not moved: {} is taken", m.from, m.to);
    }
    for (key, what) in &plan.strays {
        warn!("organize: {key}: {what}; left alone");
        ctx.progress.fail(Some(key), what.msg(key));
    }
    ctx.progress.set_total(plan.moves.len() as u64);
    let folders = platform_folders(db)?;
    let run = organize_runs::insert(db, crate::time::now(), template.as_str())?;
    let mut moved = 0;
    let mut result = Ok(());
    for m in &plan.moves {
        if let Err(e) = ctx.progress.check() {
            result = Err(e);
            break;
        }
        match move_one(db, lib, run, m) {
            Ok(()) => {
                moved += 1;
                if let Some(from) = LibraryKey::parse(&m.from) {
                    let place = lib.locate(&from);
                    let kept = kept_folder(lib, &from, &folders);
                    safe::remove_empty_folders(place.dir(), &place.key, &kept);
                }
            }
            Err(e) => {
                warn!("organize: {e}");
                ctx.progress.fail(Some(&m.from), e.msg.clone());
            }
        }
        ctx.progress.advance(1, &m.from);
    }
    if moved == 0 {
        organize_runs::delete(db, run)?;
    } else {
        info!("organize: run {run} moved {moved} files");
    }
    result?;
    Ok(Msg::OrganizeDone {
        moved,
        run,
        taken: plan.taken.len() as u64,
        in_place: plan.in_place as u64,
        left: plan.left as u64,
    }
    .into())
}

pub use crate::error::NotBack;

/// What an undo did.
#[derive(Debug, Default)]
pub struct Undone {
    pub moved_back: u64,
    /// Files not moved back, at their current key.
    pub skipped: Vec<(String, NotBack)>,
}

/// Put every file run `run` moved back where it was, last moved first, calling `each`
/// with every file's key as it is handled (a task's progress, and its cancel: an `Err`
/// stops the undo there, the files put back staying back).
fn undo_each(
    db: &Connection,
    lib: &Folders,
    run: i64,
    each: &mut dyn FnMut(&str) -> Result<(), Error>,
) -> Result<Undone, Error> {
    recover(db, lib)?;
    organize_runs::get(db, run)?.ok_or_else(|| Error::not_found(Msg::NoOrganizeRun))?;
    let folders = platform_folders(db)?;
    let mut out = Undone::default();
    for row in organize_moves::of_run(db, run)? {
        if row.state != MoveState::Moved {
            continue;
        }
        each(&row.to_key)?;
        match back_one(db, lib, &row) {
            Ok(here) => {
                let place = lib.locate(&here);
                let kept = kept_folder(lib, &here, &folders);
                safe::remove_empty_folders(place.dir(), &place.key, &kept);
                out.moved_back += 1;
            }
            Err(why) => out.skipped.push((row.to_key.clone(), why?)),
        }
    }
    if organize_moves::count(db, run, MoveState::Moved)? == 0 {
        organize_runs::mark_undone(db, run, crate::time::now())?;
    }
    info!(
        "organize: run {run} undone, {} files moved back",
        out.moved_back
    );
    Ok(out)
}

/// Move one file of a run back: where it now is, or why it stays (an `Err` inside
/// when the journal could not be written).
fn back_one(
    db: &Connection,
    lib: &Folders,
    row: &organize_moves::MoveRow,
) -> Result<LibraryKey, Result<NotBack, Error>> {
    let m = Move {
        from: row.to_key.clone(),
        to: row.from_key.clone(),
    };
    let (here, back) = keys(&m).map_err(Err)?;
    if std::fs::symlink_metadata(lib.locate(&here).path()).is_err() {
        return Err(Ok(NotBack::Gone));
    }
    if std::fs::symlink_metadata(lib.locate(&back).path()).is_ok() {
        return Err(Ok(NotBack::Taken));
    }
    organize_moves::set_state(db, row.id, MoveState::Undoing).map_err(Err)?;
    if let Err(e) = journaled(db, lib, row.id, (&here, &back), MoveState::Undone) {
        warn!("organize undo: {e}");
        organize_moves::set_state(db, row.id, MoveState::Moved).map_err(Err)?;
        return Err(Ok(NotBack::Failed));
    }
    Ok(here)
}

/// Start `organize_undo` of run `run` in the task slot: 404 for a run that does not
/// exist, 409 for one already undone or while a task runs. What the web's Undo
/// button calls, and what a command line handing the undo to a running service can.
pub fn start_undo(
    jobs: &crate::jobs::Jobs,
    db: &Connection,
    run: i64,
    by: StartedBy,
) -> Result<crate::jobs::Snapshot, Error> {
    let r = organize_runs::get(db, run)?.ok_or_else(|| Error::not_found(Msg::NoOrganizeRun))?;
    if r.undone_at.is_some() {
        return Err(Error::conflict(Msg::OrganizeRunUndone { run }));
    }
    let start = crate::jobs::Start {
        organize_run: Some(run),
        ..Default::default()
    };
    jobs.try_start_with(crate::words::Task::OrganizeUndo, by, start)
}

/// The `organize_undo` task: put back the files of the run it was started on, each
/// one counted; a file left where it is (gone, its place taken, a failed move) is
/// named with its reason and makes the run `partial`.
pub fn run_undo(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let run = ctx
        .progress
        .organize_run()
        .ok_or_else(|| Error::internal("organize_undo started without a run"))?;
    let (db, lib) = (ctx.db, &*ctx.config.folders());
    // Checked again here: a command line running the undo itself comes this way only.
    let r = organize_runs::get(db, run)?.ok_or_else(|| Error::not_found(Msg::NoOrganizeRun))?;
    if r.undone_at.is_some() {
        return Err(Error::conflict(Msg::OrganizeRunUndone { run }));
    }
    ctx.progress
        .set_total(organize_moves::count(db, run, MoveState::Moved)?);
    let undone = undo_each(db, lib, run, &mut |key| {
        ctx.progress.check()?;
        ctx.progress.advance(1, key);
        Ok(())
    })?;
    for (key, why) in &undone.skipped {
        ctx.progress
            .fail(Some(key), Msg::OrganizeNotBack { why: *why });
    }
    Ok(Msg::OrganizeUndone {
        run,
        moved_back: undone.moved_back,
        skipped: undone.skipped.len() as u64,
    }
    .into())
}

/// Settle the moves a kill left halfway: a file found where its move was going keeps
/// the move (the keys follow it now); otherwise the move did not happen.
pub fn recover(db: &Connection, lib: &Folders) -> Result<(), Error> {
    let file = |key: &str| {
        let path = lib.locate(&LibraryKey::parse(key)?).path();
        let meta = std::fs::symlink_metadata(&path).ok()?;
        Some((path, (meta.dev(), meta.ino())))
    };
    for row in organize_moves::unfinished(db)? {
        let (from, to) = (row.from_key.as_str(), row.to_key.as_str());
        // With its folder away neither name is there: settled once it is back.
        if lib.away(from).is_some() {
            warn!("organize: the move of {from} waits for its library folder");
            continue;
        }
        let (state, src, dst, done) = match row.state {
            MoveState::Moving => (row.state, from, to, MoveState::Moved),
            _ => (row.state, to, from, MoveState::Undone),
        };
        let (old, new) = (file(src), file(dst));
        // Cut between the hard link and the unlink of a filesystem without
        // renameat2: one file under both names; the old name goes.
        if let (Some((path, a)), Some((_, b))) = (&old, &new) {
            if a == b {
                std::fs::remove_file(path)?;
            }
        }
        if new.is_some() && file(src).is_none() {
            warn!("organize: finishing the move of {src} to {dst} a stop cut short");
            rekey(db, row.id, src, dst, done)?;
        } else if state == MoveState::Moving {
            organize_moves::delete(db, row.id)?;
        } else {
            organize_moves::set_state(db, row.id, MoveState::Moved)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library with one game at `a/x.nsp`, and a journaled move of it to `b/x.nsp`
    /// that a kill cut short, after the rename when `renamed`.
    fn cut_short(renamed: bool) -> (tempfile::TempDir, Connection, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::store::db::open_and_migrate(&dir.path().join("data")).unwrap();
        let root = dir.path().join("lib");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::write(root.join("a/x.nsp"), b"x").unwrap();
        games::insert_one_for_tests(&conn, "a/x.nsp");
        conn.execute_batch("INSERT INTO push_list VALUES ('a/x.nsp', 1)")
            .unwrap();
        let run = organize_runs::insert(&conn, 1, "{name}.{ext}").unwrap();
        organize_moves::insert(&conn, run, "a/x.nsp", "b/x.nsp").unwrap();
        if renamed {
            std::fs::rename(root.join("a/x.nsp"), root.join("b/x.nsp")).unwrap();
        }
        (dir, conn, root)
    }

    fn keys(conn: &Connection, table: &str) -> Vec<String> {
        let mut stmt = conn.prepare(&format!("SELECT key FROM {table}")).unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    }

    #[test]
    fn a_move_killed_after_its_rename_is_finished_at_the_next_start() {
        let (_dir, conn, root) = cut_short(true);
        recover(&conn, &Folders::one(root.clone())).unwrap();
        assert_eq!(keys(&conn, "games"), ["b/x.nsp"]);
        assert_eq!(keys(&conn, "push_list"), ["b/x.nsp"]);
        let moves = organize_moves::of_run(&conn, 1).unwrap();
        assert_eq!(moves[0].state, MoveState::Moved);
        // And it can be undone like any other.
        let undone = undo_each(&conn, &Folders::one(root.clone()), 1, &mut |_| Ok(())).unwrap();
        assert_eq!(undone.moved_back, 1);
        assert!(root.join("a/x.nsp").exists());
        assert_eq!(keys(&conn, "games"), ["a/x.nsp"]);
    }

    #[test]
    fn a_move_killed_between_its_link_and_its_unlink_keeps_one_name() {
        let (_dir, conn, root) = cut_short(false);
        std::fs::hard_link(root.join("a/x.nsp"), root.join("b/x.nsp")).unwrap();
        recover(&conn, &Folders::one(root.clone())).unwrap();
        assert!(!root.join("a/x.nsp").exists());
        assert_eq!(std::fs::read(root.join("b/x.nsp")).unwrap(), b"x");
        assert_eq!(keys(&conn, "games"), ["b/x.nsp"]);
    }

    #[test]
    fn a_move_killed_before_its_rename_is_forgotten() {
        let (_dir, conn, root) = cut_short(false);
        recover(&conn, &Folders::one(root.clone())).unwrap();
        assert_eq!(keys(&conn, "games"), ["a/x.nsp"]);
        assert!(organize_moves::of_run(&conn, 1).unwrap().is_empty());
    }

    /// A move the database refuses (its rekey fails) is put back, and its journal
    /// row goes: nothing is left for `recover` to settle.
    #[test]
    fn a_move_the_database_refuses_is_put_back_and_forgotten() {
        let (_dir, conn, root) = cut_short(false);
        conn.execute_batch(
            "DELETE FROM organize_moves;
             CREATE TRIGGER refuse BEFORE UPDATE OF key ON games
             BEGIN SELECT RAISE(ABORT, 'refused'); END;",
        )
        .unwrap();
        let m = Move {
            from: "a/x.nsp".into(),
            to: "b/x.nsp".into(),
        };
        assert!(move_one(&conn, &Folders::one(root.clone()), 1, &m).is_err());
        assert_eq!(std::fs::read(root.join("a/x.nsp")).unwrap(), b"x");
        assert!(!root.join("b/x.nsp").exists());
        assert_eq!(keys(&conn, "games"), ["a/x.nsp"]);
        assert!(organize_moves::of_run(&conn, 1).unwrap().is_empty());
    }
}
