//! The game library: walking the root (`walk`), reading containers (`containers`),
//! identifying files (`identify`, `probe`), and the row each game becomes.

pub mod bytes;
pub mod containers;
pub mod copies;
pub mod demo;
pub mod folder_rows;
pub mod identify;
pub mod name_index;
pub mod probe;
pub mod safe;
pub mod search;
pub mod suggest;
pub mod switchfs;
pub mod synth;
pub mod walk;
pub mod window;

use rusqlite::Connection;

use crate::config::Config;
use crate::error::Error;
use crate::store::contents::ContentRow;
use crate::store::games::GameRow;
use crate::store::title_control::{self, ControlRow};
use crate::store::{games, settings, titles};
use crate::tree::Folders;
use crate::words::{GameKind, TitleId};
use probe::Probe;
use switchfs::{Content, MetaType};
use walk::Found;

pub use crate::tree::LibraryKey;

/// True once a scan of *this* library has completed: its folders, as mounted now (a
/// service pointed at another folder, or given another further one, starts not ready
/// again, and scans).
pub fn is_ready(db: &Connection, config: &Config) -> Result<bool, Error> {
    let scanned = settings::LIBRARY_SCANNED.get(db)?;
    Ok(scanned.as_deref() == Some(&*signature(&config.folders())))
}

pub fn mark_ready(db: &Connection, config: &Config) -> Result<(), Error> {
    settings::LIBRARY_SCANNED.set(db, &signature(&config.folders()))
}

/// The library's folders in one line of text: the first's path alone (as before
/// there were several), then each further one's `NAME=DIR`.
fn signature(folders: &Folders) -> String {
    let further = folders.further().iter();
    let further = further.map(|f| format!("\n{}={}", f.name, f.dir.to_string_lossy()));
    std::iter::once(folders.root().to_string_lossy().into_owned())
        .chain(further)
        .collect()
}

/// The further folders the library knows (given at the service's last start, or
/// added) that `folders` does not mount, as `NAME/`: a command given fewer
/// `--library`, or an added folder refused at start. Their games and trash entries
/// are kept as they are, never taken for gone.
pub fn unmounted(db: &Connection, folders: &Folders) -> Result<Vec<String>, Error> {
    let remembered = settings::LIBRARY_FURTHER.get(db)?.unwrap_or_default();
    let given = remembered
        .lines()
        .filter_map(|l| l.split_once('=').map(|(n, _)| n.to_string()));
    let added = crate::store::library_folders::list(db)?
        .into_iter()
        .map(|(n, _)| n);
    let mut names: Vec<String> = given
        .chain(added)
        .filter(|n| !n.is_empty() && !folders.is_mounted(n))
        .map(|n| format!("{n}/"))
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// The display name: an imported title name when the title database knows the ID,
/// else the name the file's own Control NCA gives it (read with the console keys),
/// else the name taken from the file name.
pub fn display_name(
    db: &Connection,
    title_id: Option<TitleId>,
    file_name_name: &str,
) -> Result<String, Error> {
    let Some(id) = title_id else {
        return Ok(file_name_name.to_string());
    };
    Ok(match titles::name(db, id)? {
        Some(name) => name,
        None => title_control::name(db, id)?.unwrap_or_else(|| file_name_name.to_string()),
    })
}

/// What kind of title a CNMT says a content is; the title ID's bits give a DLC's
/// subtype and, when the CNMT has no application ID, the base.
fn content_row(c: &Content) -> ContentRow {
    let class = identify::classify(c.title_id);
    let kind = match c.meta_type {
        MetaType::Application => GameKind::Base,
        MetaType::Patch => GameKind::Update,
        MetaType::AddOn => GameKind::Dlc,
        MetaType::Delta | MetaType::Other(_) => GameKind::Unknown,
    };
    let base = match kind {
        GameKind::Base => Some(c.title_id),
        GameKind::Unknown => None,
        _ => c.application_id.filter(|&id| id != 0).or(class.base),
    };
    ContentRow {
        title_id: TitleId(c.title_id),
        kind,
        subtype: class
            .subtype
            .filter(|_| kind == GameKind::Dlc)
            .map(str::to_string),
        base_title_id: base.map(TitleId),
        version: c.version,
    }
}

/// The row a probed file becomes, and the rows of its contents (when read with keys).
pub fn game_row(
    db: &Connection,
    found: &Found,
    probe: Probe,
) -> Result<(GameRow, Vec<ContentRow>), Error> {
    let contents: Vec<ContentRow> = probe
        .keyed
        .iter()
        .flat_map(|k| k.contents.iter().map(content_row))
        .collect();
    let primary = probe
        .keyed
        .as_ref()
        .and_then(|k| k.primary())
        .map(content_row);
    let class = probe.title_id.map(identify::classify);
    let title_id = probe.title_id.map(TitleId);
    let name = display_name(db, title_id, &probe.file_name_name)?;
    let name_conflict = primary.as_ref().and_then(|p| conflict(probe.named, p));
    let (kind, subtype, base_title_id) = match primary {
        Some(p) => (p.kind, p.subtype, p.base_title_id),
        None => (
            class.map_or(GameKind::Unknown, |c| c.kind),
            class.and_then(|c| c.subtype).map(str::to_string),
            class.and_then(|c| c.base).map(TitleId),
        ),
    };
    let row = GameRow {
        key: found.key.to_string(),
        platform: found.platform.clone(),
        folded: identify::fold(&name),
        name,
        file_name_name: probe.file_name_name,
        kind,
        subtype,
        base_title_id,
        title_id,
        version: probe.version,
        format: found.format.clone(),
        size: found.size,
        mtime: found.mtime,
        header_ok: probe.header_ok,
        identified_by: probe.identified_by,
        note: probe.note,
        keys_state: probe.keyed.as_ref().map(|k| k.state),
        key_revision: probe.keyed.as_ref().and_then(|k| k.key_revision),
        name_conflict,
    };
    Ok((row, contents))
}

/// The file name's tags as written (`[0100…][v0]`) when they name another title or
/// version than the file holds; a name without tags disagrees with nothing.
fn conflict(named: (Option<u64>, Option<u32>), held: &ContentRow) -> Option<String> {
    let id_differs = named.0.is_some_and(|id| TitleId(id) != held.title_id);
    let version_differs = named.1.is_some_and(|v| v != held.version);
    (id_differs || version_differs).then(|| {
        let id = named.0.map(|id| format!("[{}]", TitleId(id)));
        let version = named.1.map(|v| format!("[v{v}]"));
        format!("{}{}", id.unwrap_or_default(), version.unwrap_or_default())
    })
}

/// An icon to cache: the title ID it is shown for, and its bytes.
pub type Icon = (TitleId, Vec<u8>);

/// Take the icons out of a probe's Control NCAs, by the base title ID pages show them
/// under, so that they are cached where they were read and travel no further. The
/// probe keeps an empty icon in their place: its rows still say it had one.
pub fn take_icons(probe: &mut Probe) -> Vec<Icon> {
    let Some(keyed) = &mut probe.keyed else {
        return Vec::new();
    };
    keyed
        .controls
        .iter_mut()
        .filter_map(|c| {
            let bytes = std::mem::take(c.icon.as_mut()?);
            let base = identify::classify(c.title_id).base.unwrap_or(c.title_id);
            Some((TitleId(base), bytes))
        })
        .collect()
}

/// The names a file's Control NCAs give, as rows.
pub fn control_rows(key: &str, probe: &Probe) -> Vec<ControlRow> {
    let Some(keyed) = &probe.keyed else {
        return Vec::new();
    };
    keyed
        .controls
        .iter()
        .filter_map(|c| {
            let (_, name, publisher) = c.names.first()?.clone();
            Some(ControlRow {
                title_id: TitleId(c.title_id),
                name,
                publisher,
                display_version: c.display_version.clone(),
                names: serde_json::to_string(&c.names).unwrap_or_default(),
                icon: c.icon.is_some(),
                from_key: key.to_string(),
            })
        })
        .collect()
}

/// Re-derive every game's display name after the title database changed.
/// Returns how many games were renamed.
pub fn rename_from_titles(db: &Connection) -> Result<usize, Error> {
    let mut renamed = 0;
    for (key, title_id, file_name_name, current) in games::names(db)? {
        let name = display_name(db, title_id, &file_name_name)?;
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

/// Put one file into the library at once (after a restore or a convert), as a scan
/// would, with the console keys when there are (icons are not cached here: the scan
/// that first read the file did).
pub fn index_one(
    db: &Connection,
    folders: &Folders,
    key: &LibraryKey,
    keys: Option<&switchfs::ProdKeys>,
) -> Result<(), Error> {
    let Some(found) = walk::found(folders, key, &crate::store::platforms::list(db)?) else {
        return Ok(()); // not a game file of any platform: the scan would skip it too
    };
    let place = folders.locate(key);
    let mut files = safe::Opener::new(place.dir());
    let probe = probe::probe(&mut files, &place.key, &found.format, keys);
    write(db, &found, probe)?;
    games::refresh_playable(db)
}

/// Write a probed file's row, its contents, and the names its Control NCAs give
/// (before the row, whose display name may come from them). Icons are the caller's
/// (see [`take_icons`]).
pub fn write(db: &Connection, found: &Found, probe: Probe) -> Result<(), Error> {
    for control in control_rows(found.key.as_str(), &probe) {
        title_control::upsert(db, &control)?;
    }
    let keyed = probe.keyed.is_some();
    let (row, held) = game_row(db, found, probe)?;
    games::upsert(db, &row)?;
    if keyed {
        crate::store::contents::set(db, &row.key, &held)?;
    }
    Ok(())
}
