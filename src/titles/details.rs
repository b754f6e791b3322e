//! One title as its pages show it: what `model::refresh` decided of it, what the
//! title data says of it, what its own files say, its version history, its files and
//! what it lacks. The API's title route and the web's title page read it through
//! `get`, the page what it alone shows through `page`, and neither reads the store.

use std::collections::HashMap;

use rusqlite::Connection;

use crate::error::Error;
use crate::store::games::{self, GameDetail};
use crate::store::missing::{self, Missing};
use crate::store::title_control::{self, ControlRow};
use crate::store::title_ignore;
use crate::store::title_state::{self, TitleState};
use crate::store::title_versions;
use crate::store::titles::{self, Facts};
use crate::words::TitleId;

/// Everything known of one title of the library.
pub struct Details {
    pub state: TitleState,
    /// Empty when the title data does not know the title.
    pub facts: Facts,
    /// `(version, YYYY-MM-DD)` of the base and its update, oldest first.
    pub versions: Vec<(u32, String)>,
    /// Each file with whether a newer file of its title ID supersedes it, by kind
    /// then version.
    pub files: Vec<(GameDetail, bool)>,
    /// What the title lacks, updates first.
    pub missing: Vec<Missing>,
    /// What the title's own files say of it (their Control NCAs, read with the
    /// console keys): the update's, whose display version is the installed one, else
    /// the base game's.
    pub control: Option<ControlRow>,
}

/// What the title's page shows besides its details (`page`); the API does not ask
/// for it, and each file's display version costs a query.
pub struct PageFacts {
    /// Each file's display version ("1.2.0"), by key, where its Control NCA was read.
    pub shown: HashMap<String, String>,
    /// The installed version's display version: its update's (or, at version 0, its
    /// base game's) Control NCA, read from a file of that version.
    pub installed_shown: Option<String>,
    /// Whether its missing DLC, and its missing updates, are not counted.
    pub ignored: (bool, bool),
}

/// The title whose base ID is `id`, when the library holds it.
pub fn get(db: &Connection, id: TitleId) -> Result<Option<Details>, Error> {
    let Some(state) = title_state::get(db, id)? else {
        return Ok(None);
    };
    let update = id.update();
    let mut versions = title_versions::of(db, id)?;
    versions.extend(title_versions::of(db, update)?);
    versions.sort();
    versions.dedup_by_key(|(v, _)| *v);
    // A title lacks at most its catalogue's DLC, a few hundred rows at worst.
    let (_, missing) = missing::page(db, None, Some(id), u64::MAX, 0)?;
    let control = match title_control::get(db, update)? {
        Some(row) => Some(row),
        None => title_control::get(db, id)?,
    };
    let mut facts = titles::get(db, id)?.unwrap_or_default();
    // Title data first; what the title's own files say where it says nothing:
    // homebrew, cartridge-only, new titles.
    if facts.publisher.is_none() {
        let own = control.as_ref().map(|row| row.publisher.clone());
        facts.publisher = own.filter(|p| !p.is_empty());
    }
    Ok(Some(Details {
        facts,
        versions,
        files: games::of_title(db, id)?,
        missing,
        control,
        state,
    }))
}

/// What the page of the title `d` shows besides `d` itself.
pub fn page(db: &Connection, d: &Details) -> Result<PageFacts, Error> {
    let mut shown = HashMap::new();
    for (g, _) in &d.files {
        if let (Some(id), Some(n)) = (g.item.title_id, g.item.version) {
            if let Some(s) = title_control::display_version(db, id, n)? {
                shown.insert(g.item.key.clone(), s);
            }
        }
    }
    let id = d.state.base_id;
    Ok(PageFacts {
        shown,
        installed_shown: installed_shown(db, &d.state)?,
        ignored: title_ignore::all(db)?
            .get(&Some(id))
            .copied()
            .unwrap_or_default(),
    })
}

/// The installed version's display version: its update's (or, at version 0, its
/// base game's) Control NCA, read from a file of that version.
pub fn installed_shown(db: &Connection, t: &TitleState) -> Result<Option<String>, Error> {
    match t.installed_version {
        Some(0) => title_control::display_version(db, t.base_id, 0),
        Some(n) => title_control::display_version(db, t.base_id.update(), n),
        None => Ok(None),
    }
}
