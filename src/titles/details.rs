//! One title as its pages show it: what `model::refresh` decided of it, what the
//! title data says of it, its version history, its files and what it lacks. The API's
//! title route and the web's title page read the same thing through `get`.

use rusqlite::Connection;

use crate::error::Error;
use crate::store::games::{self, GameDetail};
use crate::store::missing::{self, Missing};
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
    let mut facts = titles::get(db, id)?.unwrap_or_default();
    // Title data first; what the title's own files say (their Control NCAs, read with
    // the console keys) where it says nothing: homebrew, cartridge-only, new titles.
    if facts.publisher.is_none() {
        let own = match crate::store::title_control::get(db, update)? {
            Some(row) => Some(row),
            None => crate::store::title_control::get(db, id)?,
        };
        facts.publisher = own.map(|row| row.publisher).filter(|p| !p.is_empty());
    }
    Ok(Some(Details {
        facts,
        versions,
        files: games::of_title(db, id)?,
        missing,
        state,
    }))
}
