//! The trash: nothing deleted is lost until its time is up.
//!
//! Deleting a game, and converting a file, move it into `.ludotheque-trash/<id>/<key>`
//! at the root of its own library folder: a rename on the same filesystem, instant,
//! never a copy across disks. The folder keeps the original key (inside that library
//! folder) in its path, so the files alone say where each goes back.
//!
//! Order of work: the row is inserted in a transaction, the file is renamed, then the
//! transaction commits. A process killed in between leaves a file in the trash without
//! a row; [`recover`] adopts it at the next start (reason `recovered`), and drops rows
//! whose file has vanished. Restoring never overwrites: an occupied key is a conflict.
//!
//! A console's save backup (`saves`) lives in the data folder, not the library, and
//! so does its trash: an entry of reason `save` is `DATA/.ludotheque-trash/<id>/<key>`,
//! its key relative to the data folder (`saves/<console>/<title>/<save>.zip`), and it
//! goes back there. [`Places`] says which folder is whose.

use std::path::{Path, PathBuf};

use log::{info, warn};
use rusqlite::Connection;

use crate::error::{Error, Msg};
use crate::library::{self, identify, LibraryKey};
use crate::store::games;
use crate::store::saves;
use crate::store::trash::{self as store, TrashRow};
use crate::time;
use crate::tree::folders::State;
use crate::tree::Folders;
use crate::words::{Container, GameKind, TrashReason};

/// The trash folder's name, at the library root (and the data folder's, for saves).
pub const FOLDER: &str = crate::tree::folders::TRASH_FOLDER;

/// The folders whose files the trash holds: the library's games, each in its own
/// folder's trash, and the consoles' save backups in the data folder.
#[derive(Clone)]
pub struct Places {
    pub folders: std::sync::Arc<Folders>,
    pub data: PathBuf,
    /// `NAME/` of the folders the library knows but does not mount now
    /// (`library::unmounted`): their entries wait, never taken for vanished.
    pub unmounted: Vec<String>,
}

impl Places {
    /// The service's, as they are now.
    pub fn of(config: &crate::config::Config, db: &Connection) -> Result<Places, Error> {
        let folders = config.folders();
        Ok(Places {
            unmounted: library::unmounted(db, &folders)?,
            folders,
            data: config.data.clone(),
        })
    }

    /// The folder whose trash folder holds the entry `id` of `reason` and `key`, and
    /// the key relative to it: where the folders say, or, when its file is not there,
    /// the library folder whose trash has it (an entry of the first folder whose key
    /// a further folder added since took for its name).
    fn spot(&self, reason: TrashReason, key: &LibraryKey, id: i64) -> (&Path, LibraryKey) {
        if reason == TrashReason::Save {
            return (&self.data, key.clone());
        }
        let here = spot(&self.folders, key);
        if std::fs::symlink_metadata(entry_file(here.0, id, &here.1)).is_ok() {
            return here;
        }
        let elsewhere = self.folders.all().iter().enumerate().find_map(|(i, f)| {
            let inner = match i {
                0 => Some(key.clone()),
                _ => key
                    .strip_prefix(&self.folders.prefix(i))
                    .and_then(LibraryKey::parse),
            }?;
            let there = std::fs::symlink_metadata(entry_file(&f.dir, id, &inner)).is_ok();
            there.then_some((f.dir.as_path(), inner))
        });
        elsewhere.unwrap_or(here)
    }
}

/// The library folder of `key`, whose trash holds it, and the key inside it.
fn spot<'a>(folders: &'a Folders, key: &LibraryKey) -> (&'a Path, LibraryKey) {
    let place = folders.locate(key);
    (&place.folder.dir, place.key)
}
const DAY_S: i64 = 24 * 60 * 60;

pub fn dir(root: &Path) -> PathBuf {
    root.join(FOLDER)
}

fn entry_dir(root: &Path, id: i64) -> PathBuf {
    dir(root).join(id.to_string())
}

/// An entry's folder as a key below the trash folder (a number always is one).
fn entry_key(id: i64) -> LibraryKey {
    LibraryKey::parse(&id.to_string()).expect("a number is a library key")
}

fn entry_file(root: &Path, id: i64, key: &LibraryKey) -> PathBuf {
    key.under(&entry_dir(root, id))
}

fn no_such_game(key: &str) -> Error {
    Error::not_found(Msg::NoGame { key: key.into() })
}

fn no_such_entry() -> Error {
    Error::not_found(Msg::NoTrashEntry)
}

/// The trash folder is a real folder (or not there yet). One that became a symlink is
/// never moved into, restored from or purged through: it would reach outside the
/// library.
fn check_dir(root: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(dir(root)) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Ok(_) => Err(Error::conflict(Msg::TrashFolderLink)),
        Err(e) => Err(e.into()),
    }
}

/// An id no entry of the table nor any entry folder of `root`'s trash has: a folder
/// taken out of the library keeps its trashed files (and their ids) on its disk, and
/// a new entry must never share a folder with one of them.
fn next_id(db: &Connection, root: &Path) -> Result<i64, Error> {
    let on_disk = std::fs::read_dir(dir(root))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i64>().ok()))
        .max()
        .unwrap_or(0);
    Ok(store::max_id(db)?.max(on_disk) + 1)
}

/// A library folder that is away (missing or empty) keeps its trash entries: their
/// files are there when it is back. The error names the folder.
fn offline(places: &Places, reason: TrashReason, key: &LibraryKey) -> Result<(), Error> {
    let folder = places.folders.locate(key).folder;
    let unmounted = places
        .unmounted
        .iter()
        .find(|p| key.starts_with(p.as_str()));
    let name = match unmounted {
        Some(prefix) => prefix.trim_end_matches('/').to_string(),
        None if reason == TrashReason::Save => return Ok(()),
        None if State::of(&folder.dir) == State::Online => return Ok(()),
        None => folder.name.clone(),
    };
    let away = Msg::FolderAway { name };
    Err(Error::new(crate::error::Kind::Unavailable, away))
}

/// Move the file at `key` into the trash, for `reason`.
/// Whether `key` can go to the trash: a game the library lists, a file reached
/// through real folders. What a selection checks for every file before it moves any.
pub fn movable(
    db: &Connection,
    folders: &Folders,
    key: &LibraryKey,
) -> Result<(games::GameDetail, std::fs::Metadata), Error> {
    // Only games the library lists, and only through real folders: a key that names
    // anything else (a file behind a symlinked folder, a folder) is no game.
    let game = games::get(db, key)?.ok_or_else(|| no_such_game(key))?;
    if let Some(away) = folders.away(key) {
        return Err(Error::new(crate::error::Kind::Unavailable, away));
    }
    let (root, inner) = spot(folders, key);
    library::safe::check_folders(root, &inner).map_err(|e| no_such_game(key).with_cause(e))?;
    let src = inner.under(root);
    let meta = std::fs::symlink_metadata(&src).map_err(|e| no_such_game(key).with_cause(e))?;
    if meta.is_dir() {
        return Err(no_such_game(key));
    }
    // A FIFO, a socket or a device in the game's place is no game to keep for 30
    // days: said, and left where it is (the next scan forgets its row).
    if let Some(what) = library::safe::NotAFile::of(meta.file_type()) {
        return Err(Error::conflict(what.msg(key)));
    }
    Ok((game, meta))
}

pub fn move_in(
    db: &Connection,
    folders: &Folders,
    key: &LibraryKey,
    reason: TrashReason,
    retention_days: u32,
) -> Result<TrashRow, Error> {
    let (game, meta) = movable(db, folders, key)?;
    let (root, inner) = spot(folders, key);
    check_dir(root)?;
    let src = inner.under(root);
    let (name, kind) = (game.item.name, game.item.kind);
    let now = time::now();
    let mut row = TrashRow {
        id: 0,
        key: key.to_string(),
        name,
        kind,
        size: meta.len(),
        reason,
        deleted_at: now,
        expires_at: now + retention_days as i64 * DAY_S,
    };
    let tx = db.unchecked_transaction()?;
    row.id = store::insert(&tx, Some(next_id(&tx, root)?), &row)?;
    let dst = entry_file(root, row.id, &inner);
    // The entry's folder and those below it are made without following a link: one
    // planted there beforehand (pointing out of the library) fails the move.
    let moved = std::fs::create_dir_all(dir(root))
        .and_then(|_| library::safe::make_folders(&dir(root), &inner.inside(&entry_key(row.id))))
        .and_then(|_| std::fs::rename(&src, &dst));
    if let Err(e) = moved {
        let _ = std::fs::remove_dir_all(entry_dir(root, row.id));
        return Err(Error::internal(format!("moving {key} into the trash: {e}")));
    }
    let finish = games::delete(&tx, key)
        .and_then(|_| games::refresh_playable(&tx))
        .and_then(|_| Ok(tx.commit()?));
    if let Err(e) = finish {
        put_back(root, row.id, (&dst, &src), &e);
        return Err(e);
    }
    info!("trash: {key} moved in as entry {} ({reason})", row.id);
    Ok(row)
}

/// Move a file of a console's save space into the data folder's trash: its file is
/// at `key` under `data`, and `name` says whose and which in the trash's list. A
/// version CyberFoil uploaded has its `save` row, which stays, marked as in the trash,
/// so a restore brings back its note and date.
pub fn move_save_in(
    db: &Connection,
    data: &Path,
    save: Option<&saves::SaveRow>,
    key: &LibraryKey,
    name: String,
    retention_days: u32,
) -> Result<TrashRow, Error> {
    check_dir(data)?;
    let src = key.under(data);
    let meta =
        std::fs::symlink_metadata(&src).map_err(|e| Error::not_found(Msg::NoSave).with_cause(e))?;
    let now = time::now();
    let mut row = TrashRow {
        id: 0,
        key: key.to_string(),
        name,
        kind: GameKind::Unknown,
        size: meta.len(),
        reason: TrashReason::Save,
        deleted_at: now,
        expires_at: now + retention_days as i64 * DAY_S,
    };
    let tx = db.unchecked_transaction()?;
    row.id = store::insert(&tx, Some(next_id(&tx, data)?), &row)?;
    if let Some(save) = save {
        saves::set_trash(&tx, save.id, Some(row.id))?;
    }
    let dst = entry_file(data, row.id, key);
    let moved = std::fs::create_dir_all(dir(data))
        .and_then(|_| library::safe::make_folders(&dir(data), &key.inside(&entry_key(row.id))))
        .and_then(|_| std::fs::rename(&src, &dst));
    if let Err(e) = moved {
        let _ = std::fs::remove_dir_all(entry_dir(data, row.id));
        return Err(Error::internal(format!("moving {key} into the trash: {e}")));
    }
    if let Err(e) = tx.commit() {
        let e = Error::from(e);
        put_back(data, row.id, (&dst, &src), &e);
        return Err(e);
    }
    info!("trash: {key} moved in as entry {} (save)", row.id);
    Ok(row)
}

/// Put a file moved into entry `id` of `root`'s trash back where it was: the database
/// did not take the move (`why`). Its folder goes only once the file is out of it;
/// else `recover` adopts it at the next start.
fn put_back(root: &Path, id: i64, (dst, src): (&Path, &Path), why: &Error) {
    match library::safe::move_new(dst, src) {
        Ok(()) => {
            let _ = std::fs::remove_dir_all(entry_dir(root, id));
        }
        Err(back) => log::error!(
            "trash: {} stays in the trash folder of entry {id}: the database did not \
             take the move ({why}) and putting it back failed ({back})",
            src.display()
        ),
    }
}

/// Name and type from the file name alone (for files the library did not know).
fn describe(key: &str) -> (String, GameKind) {
    let tags = identify::parse_file_name(key.rsplit('/').next().unwrap_or(key));
    let kind = tags
        .title_id
        .map_or(GameKind::Unknown, |id| identify::classify(id).kind);
    (tags.name, kind)
}

/// The file name's extension, lower case (`""` when it has none).
fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default()
}

/// The key an entry goes back to under the file name `name`, in its original
/// folder: a file name only (no `/`, neither `.` nor `..`, no control character),
/// 1 to 255 bytes, with the original's extension, so that it stays the same kind of
/// game file and what its name says stays true.
pub fn renamed_key(original: &LibraryKey, name: &str) -> Result<LibraryKey, Error> {
    let ext = extension(original.file_name());
    let bad = || Error::invalid(Msg::BadRestoreName { ext: ext.clone() });
    // A hidden name is one the scan never looks at: the file would be lost to it.
    let fits = !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 255
        && !name.contains('/')
        && !name.chars().any(char::is_control)
        && extension(name) == ext
        && name.len() > ext.len() + 1;
    if !fits {
        return Err(bad());
    }
    let key = match original.rsplit_once('/') {
        Some((folder, _)) => format!("{folder}/{name}"),
        None => name.to_string(),
    };
    LibraryKey::parse(&key).ok_or_else(bad)
}

/// Another name the entry could go back under beside its original place, taken by
/// no file now: `Name (2).ext`, `Name (3).ext`… Never the original's: the page offers
/// it when a file has just taken that place.
pub fn free_name(folders: &Folders, original: &LibraryKey) -> String {
    let name = original.file_name();
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let taken = |candidate: &str| {
        renamed_key(original, candidate).map_or(true, |key| {
            std::fs::symlink_metadata(folders.locate(&key).path()).is_ok()
        })
    };
    for n in 2..1000 {
        let tail = format!(" ({n}).{ext}");
        // Within 255 bytes: the stem gives way, on a character boundary.
        let cut = crate::text::floor_char(stem, 255usize.saturating_sub(tail.len()));
        let candidate = format!("{}{tail}", &stem[..cut]);
        if !taken(&candidate) {
            return candidate;
        }
    }
    name.to_string()
}

/// Put an entry back at its key, and into the library at once; under the file name
/// `name` (in the entry's original folder) when one is given. An occupied key is a
/// conflict and nothing moves: nothing is overwritten. The folders on the way are made
/// here, one at a time, and never through a symlink (which could lead out of the
/// library): a link on the way is a conflict too. The file is identified
/// with the console `keys` when there are, as a scan would.
pub fn restore_as(
    db: &Connection,
    places: &Places,
    id: i64,
    name: Option<&str>,
    keys: Option<&crate::library::switchfs::ProdKeys>,
) -> Result<TrashRow, Error> {
    let row = store::get(db, id)?.ok_or_else(no_such_entry)?;
    if row.reason == TrashReason::Save && name.is_some() {
        return Err(Error::invalid(Msg::SaveRestoreName));
    }
    let (key, root, src) = entry_source(db, places, &row)?;
    let target = match name {
        Some(name) => renamed_key(&key, name)?,
        None => key.clone(),
    };
    // Back into the library folder whose trash holds it (renamed, it stays in its
    // folder): a key that another library folder took meanwhile is no place for it.
    let (target_root, target_inner) = match row.reason {
        TrashReason::Save => (places.data.as_path(), target.clone()),
        _ => spot(&places.folders, &target),
    };
    let occupied = || Error::conflict(Msg::KeyOccupied);
    if target_root != root {
        let name = places.folders.locate(&target).folder.name.clone();
        return Err(Error::conflict(Msg::KeyInOtherFolder { name }));
    }
    let dst = target_inner.under(root);
    if std::fs::symlink_metadata(&dst).is_ok() {
        return Err(occupied());
    }
    library::safe::make_folders(root, &target_inner).map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => Error::conflict(Msg::LinkOnTheWay).with_cause(e),
        _ => Error::from(e),
    })?;
    // A file that appeared meanwhile is never overwritten.
    match library::safe::move_new(&src, &dst) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(occupied()),
        moved => moved?,
    }
    let _ = std::fs::remove_dir_all(entry_dir(root, id));
    back_in_place(db, &row, (&places.folders, &target), keys)?;
    info!("trash: entry {id} restored to {target}");
    Ok(TrashRow {
        key: target.to_string(),
        ..row
    })
}

/// The entry's key, the folder whose trash holds it, and its file, when it can go
/// back: a row whose file has vanished is dropped.
fn entry_source<'p>(
    db: &Connection,
    places: &'p Places,
    row: &TrashRow,
) -> Result<(LibraryKey, &'p Path, PathBuf), Error> {
    let id = row.id;
    let Some(key) = LibraryKey::parse(&row.key) else {
        store::delete(db, id)?;
        return Err(Error::not_found(Msg::TrashEntryVanished));
    };
    let (root, inner) = places.spot(row.reason, &key, row.id);
    check_dir(root)?;
    let src = entry_file(root, id, &inner);
    if std::fs::symlink_metadata(&src).is_err() {
        // A library folder that is away keeps its entries until it is back.
        offline(places, row.reason, &key)?;
        warn!("trash: the file of entry {id} has vanished; dropping the entry");
        store::delete(db, id)?;
        return Err(Error::not_found(Msg::TrashEntryVanished));
    }
    // The entry's folder and those below it are real folders; what comes back is a
    // file, or a link the library had (a link out of the library is back as a link,
    // which the scan does not follow and no operation opens).
    let movable = library::safe::check_folders(&dir(root), &inner.inside(&entry_key(id))).is_ok()
        && std::fs::symlink_metadata(&src).is_ok_and(|m| !m.is_dir());
    if !movable {
        return Err(Error::conflict(Msg::TrashEntryLink));
    }
    Ok((key, root, src))
}

/// An entry's file is back, at `target`: its row goes, and what knows
/// the file learns it. A save's version is listed again, with its note and date; a
/// game is indexed (with the console `keys` when there are) and the titles see it.
fn back_in_place(
    db: &Connection,
    row: &TrashRow,
    (folders, target): (&Folders, &LibraryKey),
    keys: Option<&crate::library::switchfs::ProdKeys>,
) -> Result<(), Error> {
    if row.reason == TrashReason::Save {
        if let Some(save) = saves::in_trash(db, row.id)? {
            saves::set_trash(db, save.id, None)?;
        }
        return store::delete(db, row.id);
    }
    store::delete(db, row.id)?;
    library::index_one(db, folders, target, keys)?;
    crate::titles::model::refresh_after_change(db);
    Ok(())
}

/// A game file moved from `from` to `to` (`organize`, or its undo): its other forms
/// in the trash (the `.nsz` a convert replaced) and whatever was trashed from the
/// same place follow it, so that a restore puts them beside it. Returns how many.
/// An entry that cannot follow keeps its old key, and still restores there.
pub fn follow(
    db: &Connection,
    folders: &Folders,
    from: &LibraryKey,
    to: &LibraryKey,
) -> Result<usize, Error> {
    let stem = |key: &LibraryKey| {
        key.as_str()
            .rsplit_once('.')
            // The forms of one game file (`Container`): a convert puts the `.nsz` it
            // replaced in the trash under the `.nsp`'s name but for its extension.
            .filter(|(_, ext)| Container::of(ext).is_some())
            .map(|(stem, _)| stem.to_string())
    };
    let (Some(old), Some(new)) = (stem(from), stem(to)) else {
        return Ok(0);
    };
    let mut followed = 0;
    for ext in Container::ALL {
        for row in store::with_key(db, &format!("{old}.{ext}"))? {
            let (Some(was), Some(now)) = (
                LibraryKey::parse(&row.key),
                LibraryKey::parse(&format!("{new}.{ext}")),
            ) else {
                continue;
            };
            // A move never crosses library folders (`organize`): both lie in one.
            let ((root, was), (_, now_inner)) = (spot(folders, &was), spot(folders, &now));
            check_dir(root)?;
            let entry = entry_key(row.id);
            let moved = library::safe::make_folders(&dir(root), &now_inner.inside(&entry))
                .and_then(|_| {
                    library::safe::move_new(
                        &entry_file(root, row.id, &was),
                        &entry_file(root, row.id, &now_inner),
                    )
                });
            match moved {
                Ok(()) => {
                    store::set_key(db, row.id, now.as_str())?;
                    library::safe::remove_empty_folders(
                        &entry_dir(root, row.id),
                        &was,
                        &entry_dir(root, row.id),
                    );
                    followed += 1;
                }
                Err(e) => warn!("trash: entry {} stays at {}: {e}", row.id, row.key),
            }
        }
    }
    Ok(followed)
}

/// Delete an entry's file for good.
pub fn purge(db: &Connection, places: &Places, id: i64) -> Result<TrashRow, Error> {
    let row = store::get(db, id)?.ok_or_else(no_such_entry)?;
    let root = match LibraryKey::parse(&row.key) {
        Some(key) => {
            // Its file cannot be deleted while its folder is away: it waits.
            offline(places, row.reason, &key)?;
            places.spot(row.reason, &key, row.id).0
        }
        None => places.folders.root(),
    };
    check_dir(root)?;
    match std::fs::remove_dir_all(entry_dir(root, id)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
        _ => {}
    }
    saves::forget_trashed(db, id)?;
    store::delete(db, id)?;
    info!("trash: entry {id} ({}) purged", row.key);
    Ok(row)
}

/// [`purge`] an entry a task just made for a game of the library.
pub fn purge_game(db: &Connection, folders: &Folders, id: i64) -> Result<TrashRow, Error> {
    let (folders, data) = (std::sync::Arc::new(folders.clone()), folders.root().into());
    let unmounted = Vec::new();
    purge(
        db,
        &Places {
            folders,
            data,
            unmounted,
        },
        id,
    )
}

/// The entry's library folder is away: its file is there, not to be had now.
fn away(places: &Places, row: &TrashRow) -> bool {
    LibraryKey::parse(&row.key).is_some_and(|k| offline(places, row.reason, &k).is_err())
}

/// Purge every entry `pick` chooses (those of a folder that is away wait for it); returns how many, and the bytes they held.
pub fn purge_where(
    db: &Connection,
    places: &Places,
    pick: impl Fn(&TrashRow) -> bool,
) -> Result<(usize, u64), Error> {
    let (mut purged, mut bytes) = (0, 0);
    for row in store::list(db)?
        .iter()
        .filter(|r| pick(r) && !away(places, r))
    {
        purge(db, places, row.id)?;
        purged += 1;
        bytes += row.size;
    }
    Ok((purged, bytes))
}

/// Purge every entry past its retention; returns how many.
pub fn purge_expired(db: &Connection, places: &Places, now: i64) -> Result<usize, Error> {
    let mut expired = store::expired(db, now)?;
    // An offline folder's entries wait for it: their files cannot be deleted now.
    expired.retain(|row| !away(places, row));
    for row in &expired {
        purge(db, places, row.id)?;
    }
    Ok(expired.len())
}

/// Drop the entries whose file is gone; returns how many.
fn drop_vanished(db: &Connection, places: &Places) -> Result<usize, Error> {
    let mut dropped = 0;
    for row in store::list(db)? {
        // A key that does not parse names no file of ours: the row is dropped.
        let key = LibraryKey::parse(&row.key);
        let file = key.as_ref().map(|key| {
            let (root, inner) = places.spot(row.reason, key, row.id);
            entry_file(root, row.id, &inner)
        });
        let away = |key: &LibraryKey| offline(places, row.reason, key).is_err();
        if file.is_none_or(|f| std::fs::symlink_metadata(f).is_err())
            && !key.is_some_and(|k| away(&k))
        {
            warn!(
                "trash: entry {} ({}) has no file any more; dropping it",
                row.id, row.key
            );
            saves::forget_trashed(db, row.id)?;
            store::delete(db, row.id)?;
            dropped += 1;
        }
    }
    Ok(dropped)
}

/// Give the file found in entry folder `id` (at `key`, of `size` bytes) its entry:
/// of `reason` `recovered`, or `save` in the data folder's trash.
fn adopt(
    db: &Connection,
    id: i64,
    (key, size): (String, u64),
    reason: TrashReason,
    retention_days: u32,
) -> Result<(), Error> {
    let (name, kind) = describe(&key);
    let now = time::now();
    let row = TrashRow {
        id,
        key,
        name,
        kind,
        size,
        reason,
        deleted_at: now,
        expires_at: now + retention_days as i64 * DAY_S,
    };
    store::insert(db, Some(id), &row)?;
    warn!(
        "trash: adopted a file without an entry as entry {id} ({})",
        row.key
    );
    Ok(())
}

/// Make the trash folders and the table agree after a crash: adopt files without a
/// row (reason `recovered`, or `save` in the data folder), drop rows without a file.
/// Returns (adopted, dropped).
pub fn recover(
    db: &Connection,
    places: &Places,
    retention_days: u32,
) -> Result<(usize, usize), Error> {
    let library = places.folders.all().iter().map(|f| f.dir.as_path());
    for root in library.clone().chain([places.data.as_path()]) {
        if let Err(e) = check_dir(root) {
            warn!("trash: {e}; the trash is left alone");
            return Ok((0, 0));
        }
    }
    let dropped = drop_vanished(db, places)?;
    let mut adopted = 0;
    for i in 0..places.folders.all().len() {
        adopted += adopt_folder(db, places, i, retention_days)?;
    }
    if !places.folders.all().iter().any(|f| f.dir == places.data) {
        adopted += adopt_in(
            db,
            places,
            (&places.data, ""),
            TrashReason::Save,
            retention_days,
        )?;
    }
    Ok((adopted, dropped))
}

/// Adopt the files of `root`'s trash folder that have no row, their keys behind
/// `prefix` (a further library folder's `NAME/`); how many.
fn adopt_in(
    db: &Connection,
    places: &Places,
    (root, prefix): (&Path, &str),
    reason: TrashReason,
    retention_days: u32,
) -> Result<usize, Error> {
    let mut adopted = 0;
    let Ok(entries) = std::fs::read_dir(dir(root)) else {
        return Ok(adopted);
    };
    for entry in entries.flatten() {
        let Some(id) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i64>().ok())
        else {
            continue;
        };
        // An entry folder that is a link would adopt whatever it points at.
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            warn!("trash: {id} is not a folder (a link?); left alone");
            continue;
        }
        let Some((id, path)) = own_id(db, places, root, (id, entry.path()))? else {
            continue;
        };
        match first_file(&path) {
            Some((key, size)) if LibraryKey::parse(&key).is_some() => {
                let key = format!("{prefix}{key}");
                adopt(db, id, (key, size), reason, retention_days)?;
                adopted += 1;
            }
            // An empty folder left by a crash before the rename.
            None => {
                let _ = std::fs::remove_dir_all(&path);
            }
            Some(_) => warn!("trash: folder {id} holds a file with an unusable name; left alone"),
        }
    }
    Ok(adopted)
}

/// The id under which the entry folder `id` of `root`'s trash is adopted: its own;
/// none when its row is there (nothing to adopt); a new one, its folder renamed,
/// when another folder's entry holds that id (a library folder taken out and added
/// again keeps its trashed files, whose ids the table gave others meanwhile).
fn own_id(
    db: &Connection,
    places: &Places,
    root: &Path,
    (id, path): (i64, PathBuf),
) -> Result<Option<(i64, PathBuf)>, Error> {
    let Some(row) = store::get(db, id)? else {
        return Ok(Some((id, path)));
    };
    let theirs = LibraryKey::parse(&row.key).map(|k| places.spot(row.reason, &k, row.id).0);
    if theirs.is_none_or(|theirs| theirs == root) {
        return Ok(None);
    }
    let new = next_id(db, root)?;
    let moved = entry_dir(root, new);
    std::fs::rename(&path, &moved)?;
    warn!("trash: entry folder {id} of a library folder added again is now {new}");
    Ok(Some((new, moved)))
}

/// The ids of the entries whose file lies in the trash of the further folder `name`
/// (mounted, or refused at start: where it is).
pub fn entries_of(db: &Connection, places: &Places, name: &str) -> Result<Vec<i64>, Error> {
    let refused = places.folders.refused().iter().map(|(f, _)| f);
    let further = places.folders.further().iter().chain(refused);
    let Some(folder) = further.into_iter().find(|f| f.name == name) else {
        return Ok(Vec::new());
    };
    let prefix = format!("{name}/");
    // A folder that is away shows no entry: then every entry under its name goes.
    let away = State::of(&folder.dir) != State::Online;
    let rows = store::list(db)?
        .into_iter()
        .filter(|r| r.reason != TrashReason::Save);
    Ok(rows
        .filter(|r| r.key.starts_with(&prefix))
        .filter(|r| away || entry_dir(&folder.dir, r.id).is_dir())
        .map(|r| r.id)
        .collect())
}

/// Adopt the trash of the library folder `i` of `places`, as at start: a folder
/// added again finds its trashed files.
pub fn adopt_folder(
    db: &Connection,
    places: &Places,
    i: usize,
    retention_days: u32,
) -> Result<usize, Error> {
    let root = &places.folders.all()[i].dir;
    let prefix = places.folders.prefix(i);
    adopt_in(
        db,
        places,
        (root, &prefix),
        TrashReason::Recovered,
        retention_days,
    )
}

/// The first file below `dir`, as a key relative to it, with its size.
fn first_file(dir: &Path) -> Option<(String, u64)> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let meta = std::fs::symlink_metadata(e.path()).ok()?;
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(dir).ok()?.to_str()?.to_string();
                return Some((rel, meta.len()));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A move into the trash the database refuses puts the file back where it was,
    /// and leaves no entry folder behind.
    #[test]
    fn a_move_in_the_database_refuses_is_put_back() {
        let tmp = tempfile::tempdir().unwrap();
        let db = crate::store::db::open_and_migrate(&tmp.path().join("data")).unwrap();
        let root = tmp.path().join("lib");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/x.nsp"), b"x").unwrap();
        games::insert_one_for_tests(&db, "a/x.nsp");
        db.execute_batch(
            "CREATE TRIGGER refuse BEFORE DELETE ON games
             BEGIN SELECT RAISE(ABORT, 'refused'); END;",
        )
        .unwrap();
        let key = LibraryKey::parse("a/x.nsp").unwrap();
        let folders = Folders::one(root.clone());
        assert!(move_in(&db, &folders, &key, TrashReason::Deleted, 30).is_err());
        assert_eq!(std::fs::read(root.join("a/x.nsp")).unwrap(), b"x");
        let left: Vec<_> = std::fs::read_dir(dir(&root))
            .map(|d| d.map(|e| e.unwrap().file_name()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "{left:?}");
        assert!(store::list(&db).unwrap().is_empty());
    }
}
