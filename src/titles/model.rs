//! What the library makes of the title data: per title (a base ID), its files, the
//! newest version it has against the newest the data knows, the DLC it lacks; and the
//! files an newer file of the same title ID supersedes.
//!
//! `refresh` computes all of it in one pass over the library's files and writes it
//! whole (`title_state`, `missing`, `games.superseded`). It runs when a scan, an
//! import, a change of what is ignored, or a single file's change completes; requests
//! only read its tables.
//!
//! Rules (see `docs/title-ids.md`):
//! - the installed version is the highest version among the base and update files;
//!   unknown (null) when none of them carries a version. An unknown version is never
//!   taken for v0, so it never claims an update is available;
//! - the latest version is the higher of the base's and its update's catalogue rows;
//! - a DLC file whose own ID has a newer version in the catalogue is an update
//!   available too (a DLC's update usually keeps the DLC's ID);
//! - the DLC a title lacks are the catalogue's DLC IDs of that base (data patches,
//!   `…801`–`…FFF`, are not DLC one buys) that no file has, unless ignored;
//! - a damaged file (its header did not read, or `verify` or a convert found it
//!   broken) is had by no one: the title has only what its sound files hold. A base
//!   game whose every copy is damaged is missing; a DLC whose only copy is damaged is
//!   lacking; a damaged update newer than every sound one is an update available,
//!   its version known from the file even when the catalogue does not know it. So a
//!   title with a damaged file is `complete` only when sound copies hold all of it:
//!   "1 damaged file" beside "complete" says a spare copy can go, never that the
//!   title is whole.

use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

use crate::error::Error;
use crate::library::identify::{self, classify};
use crate::store::games::{self, TitleFile};
use crate::store::missing::{self, Missing};
use crate::store::title_catalog::{self, Known};
use crate::store::title_ignore::{self, Ignored};
use crate::store::title_state::{self, TitleState};
use crate::store::{library_generation, title_versions, titles};
use crate::words::{GameKind, MissingKind, TitleId};

/// Everything the computation reads besides the files, loaded once.
struct Data {
    catalog: HashMap<TitleId, Known>,
    /// The catalogue's DLC IDs, by base ID, sorted.
    dlc_of: HashMap<TitleId, Vec<TitleId>>,
    dates: HashMap<(TitleId, u32), String>,
    ignored: HashMap<Option<TitleId>, Ignored>,
}

impl Data {
    fn load(db: &Connection) -> Result<Data, Error> {
        let catalog = title_catalog::all(db)?;
        let mut dlc_of: HashMap<TitleId, Vec<TitleId>> = HashMap::new();
        for (id, known) in &catalog {
            let own_dlc = classify(id.0).subtype.is_none();
            if known.kind == GameKind::Dlc && own_dlc {
                dlc_of.entry(known.base_id).or_default().push(*id);
            }
        }
        dlc_of.values_mut().for_each(|ids| ids.sort());
        Ok(Data {
            catalog,
            dlc_of,
            dates: title_versions::all(db)?,
            ignored: title_ignore::all(db)?,
        })
    }

    /// The version files list the title: its base, its update or one of its DLC.
    fn knows(&self, base: TitleId) -> bool {
        self.catalog.contains_key(&base)
            || self.catalog.contains_key(&base.update())
            || self.dlc_of.contains_key(&base)
    }

    fn version(&self, id: TitleId) -> Option<u32> {
        self.catalog.get(&id).and_then(|k| k.version)
    }

    fn date(&self, ids: &[TitleId], version: u32) -> Option<String> {
        ids.iter()
            .find_map(|&id| self.dates.get(&(id, version)).cloned())
    }

    /// (DLC, updates) ignored for `base`, the global setting included.
    fn ignored(&self, base: TitleId) -> Ignored {
        let one = self.ignored.get(&Some(base)).copied().unwrap_or_default();
        let all = self.ignored.get(&None).copied().unwrap_or_default();
        (one.0 || all.0, one.1 || all.1)
    }
}

/// `refresh` after one file changed (a delete, a restore, a convert): a failure is
/// logged, not returned, since the change it follows has succeeded; the next scan
/// sees the states were not computed from the games as they are (`is_current`) and
/// computes them again, as does the next import.
pub fn refresh_after_change(db: &Connection) {
    if let Err(e) = refresh(db) {
        log::warn!("titles: could not recompute after a change: {e:?}");
    }
}

/// Recompute every title's state, the missing list and the superseded files.
///
/// Whole or not at all (`store::db::whole`: a savepoint inside a caller's
/// transaction, alone its own immediate transaction). Readers never see half of it.
pub fn refresh(db: &Connection) -> Result<(), Error> {
    crate::store::db::whole(db, "title_refresh", || compute_and_write(db))
}

fn compute_and_write(db: &Connection) -> Result<(), Error> {
    let data = Data::load(db)?;
    let files = games::title_files(db)?;
    let mut states = Vec::new();
    let mut lacking = Vec::new();
    for group in files.chunk_by(|a, b| a.base_title_id == b.base_title_id) {
        let (state, rows) = title(db, &data, group)?;
        states.push(state);
        lacking.push(rows);
    }
    let superseded = older_files(&files);
    // The library's order: folded name (natural), then ID; the missing list follows it.
    let mut order: Vec<usize> = (0..states.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&states[a], &states[b]);
        identify::name_order(&a.folded, &b.folded).then(a.base_id.cmp(&b.base_id))
    });
    let mut missing_rows = Vec::new();
    for (rank, &i) in order.iter().enumerate() {
        states[i].rank = rank as i64;
        missing_rows.append(&mut lacking[i]);
    }
    title_state::replace_all(db, &states)?;
    missing::replace_all(db, &missing_rows)?;
    games::set_superseded(db, &superseded)?;
    // Pages kept from before the change are stale even when no game row moved.
    library_generation::bump(db)?;
    crate::store::settings::TITLES_MODEL.set(db, &computed_mark(db)?)
}

/// What the states were computed from: this version of the model, at this generation
/// of the library. A write to the games that no refresh followed (a scan killed after
/// its last batch, a cancelled convert, a refresh that failed) moves the generation,
/// and so does every refresh; a version that computes differently changes the mark.
const MODEL_VERSION: &str = "5";

fn computed_mark(db: &Connection) -> Result<String, Error> {
    Ok(format!(
        "{MODEL_VERSION} {}",
        library_generation::current(db)?
    ))
}

/// The states were computed by this model from the games as they are: a scan that
/// changed no file need not compute them again.
pub fn is_current(db: &Connection) -> Result<bool, Error> {
    Ok(crate::store::settings::TITLES_MODEL.get(db)? == Some(computed_mark(db)?))
}

/// One title's state and the rows of what it lacks.
fn title(
    db: &Connection,
    data: &Data,
    files: &[TitleFile],
) -> Result<(TitleState, Vec<Missing>), Error> {
    let base = files[0].base_title_id;
    let update_id = base.update();
    let count = |kind: GameKind| files.iter().filter(|f| f.kind == kind).count() as u64;
    let name = match titles::name(db, base)? {
        Some(name) => name,
        None => files
            .iter()
            .find(|f| f.kind == GameKind::Base)
            .unwrap_or(&files[0])
            .name
            .clone(),
    };
    let installed = newest(files.iter().filter(|f| !f.damaged));
    let latest = with_damaged(
        data.version(base).max(data.version(update_id)),
        installed,
        newest(files.iter().filter(|f| f.damaged)),
    );
    let rows = lacking(db, data, files, base, installed, latest)?;
    let missing_dlc = rows.iter().filter(|r| r.kind == MissingKind::Dlc).count() as u64;
    let latest_date = latest.and_then(|v| data.date(&[update_id, base], v));
    let state = TitleState {
        folded: identify::fold(&name),
        name,
        rank: 0,
        files: distinct(files).len() as u64,
        base_files: count(GameKind::Base),
        update_files: count(GameKind::Update),
        dlc_files: count(GameKind::Dlc),
        size: distinct(files).iter().map(|f| f.size).sum(),
        added: files.iter().map(|f| f.mtime).max().unwrap_or(0),
        installed_version: installed,
        latest_version: latest,
        latest_date,
        missing_dlc,
        update_available: rows.iter().any(|r| r.kind == MissingKind::Update),
        dlc_missing: missing_dlc > 0,
        base_missing: !files.iter().any(|f| f.kind == GameKind::Base && !f.damaged),
        damaged_files: files.iter().filter(|f| f.damaged).count() as u64,
        known: data.knows(base),
        base_id: base,
    };
    Ok((state, rows))
}

/// The highest version among base and update files (unknown when none says).
fn newest<'a>(files: impl Iterator<Item = &'a TitleFile>) -> Option<u32> {
    files
        .filter(|f| matches!(f.kind, GameKind::Base | GameKind::Update))
        .filter_map(|f| f.version)
        .max()
}

/// The latest version known, `damaged` counted when it is newer than what the sound
/// files have: that version exists, and the library holds no good copy of it. (With
/// no sound copy at all, what lacks is the game or the DLC itself, not an update.)
fn with_damaged(latest: Option<u32>, had: Option<u32>, damaged: Option<u32>) -> Option<u32> {
    match (damaged, had) {
        (Some(d), Some(h)) if d > h => latest.max(Some(d)),
        _ => latest,
    }
}

/// The rows of what a title lacks: a newer update, newer DLC versions, DLC it has not.
fn lacking(
    db: &Connection,
    data: &Data,
    files: &[TitleFile],
    base: TitleId,
    installed: Option<u32>,
    latest: Option<u32>,
) -> Result<Vec<Missing>, Error> {
    let (ignore_dlc, ignore_updates) = data.ignored(base);
    let dlc = split_dlc(files);
    let mut rows = Vec::new();
    if !ignore_updates {
        rows = update_rows(db, data, base, (installed, latest), &dlc)?;
    }
    if !ignore_dlc {
        rows.append(&mut dlc_rows(db, data, base, &dlc)?);
    }
    Ok(rows)
}

/// One row of what `base` lacks.
fn row(base: TitleId, kind: MissingKind, id: TitleId, name: Option<String>) -> Missing {
    Missing {
        title_id: base,
        title_name: String::new(),
        kind,
        id,
        name,
        installed_version: None,
        latest_version: None,
        latest_date: None,
    }
}

/// The newer updates: the title's, then each DLC's own (a DLC's update keeps its ID).
fn update_rows(
    db: &Connection,
    data: &Data,
    base: TitleId,
    (installed, latest): (Option<u32>, Option<u32>),
    (sound, damaged): &(DlcVersions, DlcVersions),
) -> Result<Vec<Missing>, Error> {
    let update_id = base.update();
    let mut newer = vec![(update_id, None, installed, latest)];
    for (&dlc, have) in sound {
        let new = with_damaged(
            data.version(dlc),
            *have,
            damaged.get(&dlc).copied().flatten(),
        );
        newer.push((dlc, titles::name(db, dlc)?, *have, new));
    }
    let mut rows = Vec::new();
    for (id, name, have, new) in newer {
        let (Some(have), Some(new)) = (have, new) else {
            continue;
        };
        if new > have {
            // The title's update history is kept under the base's ID too.
            let ids = [id, if id == update_id { base } else { id }];
            rows.push(Missing {
                installed_version: Some(have),
                latest_version: Some(new),
                latest_date: data.date(&ids, new),
                ..row(base, MissingKind::Update, id, name)
            });
        }
    }
    Ok(rows)
}

/// The DLC it has not: the catalogue's, and those whose only copies are damaged.
fn dlc_rows(
    db: &Connection,
    data: &Data,
    base: TitleId,
    (sound, damaged): &(DlcVersions, DlcVersions),
) -> Result<Vec<Missing>, Error> {
    let mut known: Vec<TitleId> = data
        .dlc_of
        .get(&base)
        .into_iter()
        .flatten()
        .copied()
        .collect();
    let more: Vec<TitleId> = damaged
        .keys()
        .filter(|d| !known.contains(d))
        .copied()
        .collect();
    known.extend(more);
    known.sort();
    let mut rows = Vec::new();
    for dlc in known.into_iter().filter(|d| !sound.contains_key(d)) {
        let latest = data.version(dlc).or(damaged.get(&dlc).copied().flatten());
        rows.push(Missing {
            latest_version: latest,
            latest_date: latest.and_then(|v| data.date(&[dlc], v)),
            ..row(base, MissingKind::Dlc, dlc, titles::name(db, dlc)?)
        });
    }
    Ok(rows)
}

/// The DLC the title's sound files hold, and those its damaged files hold, each with
/// its version (`dlc_versions`).
type DlcVersions = HashMap<TitleId, Option<u32>>;
fn split_dlc(files: &[TitleFile]) -> (DlcVersions, DlcVersions) {
    (
        dlc_versions(files.iter().filter(|f| !f.damaged)),
        dlc_versions(files.iter().filter(|f| f.damaged)),
    )
}

/// The DLC a title's files hold, each with the highest version among its files
/// (unknown when none says). A data-patch file (`dlc_update`) counts for its DLC.
fn dlc_versions<'a>(files: impl Iterator<Item = &'a TitleFile>) -> DlcVersions {
    let mut out: DlcVersions = HashMap::new();
    for f in files.filter(|f| f.kind == GameKind::Dlc) {
        let id = f.title_id;
        let dlc = match classify(id.0).subtype {
            Some(_) => TitleId(id.0 - 0x800),
            None => id,
        };
        let have = out.entry(dlc).or_default();
        *have = (*have).max(f.version);
    }
    out
}

/// A title's files, each once though it holds several of the title's contents.
fn distinct(files: &[TitleFile]) -> Vec<&TitleFile> {
    let mut seen = HashSet::new();
    files.iter().filter(|f| seen.insert(&f.key)).collect()
}

/// Files of a title ID the library holds a newer sound version of (a damaged newer
/// file supersedes nothing). A file holding several contents (a cartridge with its
/// update) is superseded only when every one of them is: its base game is not made
/// older by a newer update elsewhere.
fn older_files(files: &[TitleFile]) -> Vec<String> {
    let mut newest: HashMap<TitleId, u32> = HashMap::new();
    for f in files.iter().filter(|f| !f.damaged) {
        if let Some(v) = f.version {
            let n = newest.entry(f.title_id).or_insert(v);
            *n = (*n).max(v);
        }
    }
    let older = |f: &TitleFile| matches!((f.version, newest.get(&f.title_id)), (Some(v), Some(&n)) if v < n);
    let mut verdict: HashMap<&str, bool> = HashMap::new();
    for f in files {
        let all = verdict.entry(&f.key).or_insert(true);
        *all = *all && older(f);
    }
    let mut keys: Vec<String> = verdict
        .into_iter()
        .filter(|(_, older)| *older)
        .map(|(key, _)| key.to_string())
        .collect();
    keys.sort();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::TitleStatus;

    /// Issue 40: a title whose only copy of a DLC is damaged lacks that DLC, and is
    /// not complete; a sound copy beside it makes it complete again, the damaged
    /// file still counted.
    #[test]
    fn a_dlc_whose_only_copy_is_damaged_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let db = crate::store::db::open_and_migrate(dir.path()).unwrap();
        let game = |key: &str, id: &str, kind: &str, damage: &str| {
            db.execute(
                &format!(
                    "INSERT INTO games (key, platform, name, file_name_name, folded, type, format,
                                        size, mtime, header_ok, identified_by, title_id,
                                        base_title_id, version, damage)
                     VALUES ('{key}', 'switch', 'G', 'G', 'g', '{kind}', 'nsp', 1, 1, 1,
                             'filename', '{id}', '0100000000010000', 0, {damage})"
                ),
                [],
            )
            .unwrap();
        };
        game("g.nsp", "0100000000010000", "BASE", "NULL");
        game(
            "d.nsp",
            "0100000000011001",
            "DLC",
            "'{\"slug\":\"internal\"}'",
        );
        refresh(&db).unwrap();
        let t = title_state::get(&db, TitleId(0x0100000000010000))
            .unwrap()
            .unwrap();
        assert_eq!((t.damaged_files, t.missing_dlc), (1, 1));
        assert!(t.status().all(|s| s == TitleStatus::DlcMissing), "{t:?}");
        game("d2.nsp", "0100000000011001", "DLC", "NULL");
        refresh(&db).unwrap();
        let t = title_state::get(&db, TitleId(0x0100000000010000))
            .unwrap()
            .unwrap();
        assert_eq!((t.damaged_files, t.missing_dlc), (1, 0));
        // Nothing lacks; with no title data, nothing vouches for it either.
        assert!(t.status().eq([TitleStatus::Unknown]), "{t:?}");
    }

    /// A scan that changed no file skips the computation only while the states were
    /// computed from the games as they are: a write to the games that no refresh
    /// followed (a scan killed after its last batch, a cancelled convert) makes the
    /// next scan compute them again.
    #[test]
    fn the_states_are_current_until_the_games_change() {
        let dir = tempfile::tempdir().unwrap();
        let db = crate::store::db::open_and_migrate(dir.path()).unwrap();
        assert!(!is_current(&db).unwrap(), "never computed");
        refresh(&db).unwrap();
        assert!(is_current(&db).unwrap());
        db.execute_batch(
            "INSERT INTO games (key, platform, name, file_name_name, folded, type, format, size,
                                mtime, header_ok, identified_by)
             VALUES ('a.nsp', 'switch', 'A', 'A', 'a', 'BASE', 'nsp', 1, 1, 1, 'filename')",
        )
        .unwrap();
        assert!(!is_current(&db).unwrap(), "a game was written since");
        refresh(&db).unwrap();
        assert!(is_current(&db).unwrap());
    }
}
