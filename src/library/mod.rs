//! The game library: walking the root (`walk`), reading containers (`containers`),
//! identifying files (`identify`, `probe`), and the row each game becomes.

pub mod containers;
pub mod copies;
pub mod demo;
pub mod identify;
pub mod key;
pub mod name_index;
pub mod probe;
pub mod safe;
pub mod search;
pub mod switchfs;
pub mod synth;
pub mod walk;

use std::path::Path;

use rusqlite::Connection;

use crate::error::Error;
use crate::store::games::GameRow;
use crate::store::{games, settings, titles};
use crate::words::GameKind;
use probe::Probe;
use walk::Found;

pub use key::LibraryKey;

const READY_SETTING: &str = "library_scanned";

/// True once a scan of *this* library root has completed (a service pointed at
/// another folder starts not ready again).
pub fn is_ready(db: &Connection, root: &Path) -> Result<bool, Error> {
    Ok(settings::get(db, READY_SETTING)?.as_deref() == Some(&*root.to_string_lossy()))
}

pub fn mark_ready(db: &Connection, root: &Path) -> Result<(), Error> {
    settings::set(db, READY_SETTING, &root.to_string_lossy())
}

/// The display name: an imported title name when the title database knows the ID,
/// else the name taken from the file name.
pub fn display_name(
    db: &Connection,
    title_id: Option<&str>,
    file_name_name: &str,
) -> Result<String, Error> {
    Ok(match title_id {
        Some(id) => titles::name(db, id)?.unwrap_or_else(|| file_name_name.to_string()),
        None => file_name_name.to_string(),
    })
}

/// The row a probed file becomes.
pub fn game_row(db: &Connection, found: &Found, probe: Probe) -> Result<GameRow, Error> {
    let class = probe.title_id.map(identify::classify);
    let title_id = probe.title_id.map(identify::format_title_id);
    let name = display_name(db, title_id.as_deref(), &probe.file_name_name)?;
    Ok(GameRow {
        key: found.key.to_string(),
        platform: found.platform.clone(),
        folded: identify::fold(&name),
        name,
        file_name_name: probe.file_name_name,
        kind: class.map_or(GameKind::Unknown, |c| c.kind),
        subtype: class.and_then(|c| c.subtype).map(str::to_string),
        base_title_id: class.and_then(|c| c.base).map(identify::format_title_id),
        title_id,
        version: probe.version,
        format: found.format.clone(),
        size: found.size,
        mtime: found.mtime,
        header_ok: probe.header_ok,
        identified_by: probe.identified_by,
        note: probe.note,
    })
}

/// Re-derive every game's display name after the title database changed.
/// Returns how many games were renamed.
pub fn rename_from_titles(db: &Connection) -> Result<usize, Error> {
    let mut renamed = 0;
    for (key, title_id, file_name_name, current) in games::names(db)? {
        let name = display_name(db, title_id.as_deref(), &file_name_name)?;
        if name != current {
            games::rename(db, &key, &name, &identify::fold(&name))?;
            renamed += 1;
        }
    }
    Ok(renamed)
}

/// The game at the key a client gave. A string that is no key names no game, and
/// only the database is asked: the filesystem never sees it.
pub fn find(db: &Connection, raw: &str) -> Result<Option<crate::store::games::GameDetail>, Error> {
    match LibraryKey::parse(raw) {
        Some(key) => games::get(db, key.as_str()),
        None => Ok(None),
    }
}

/// Put one file into the library at once (after a restore), as a scan would.
pub fn index_one(db: &Connection, root: &Path, key: &LibraryKey) -> Result<(), Error> {
    let Some(found) = walk::found(root, key, &crate::store::platforms::list(db)?) else {
        return Ok(()); // not a game file of any platform: the scan would skip it too
    };
    let probe = probe::probe(root, key, &found.format);
    games::upsert(db, &game_row(db, &found, probe)?)?;
    games::refresh_playable(db)
}
