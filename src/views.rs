//! What the service keeps computed from the library, per library generation, for
//! every request to read: the search index, the titles' lists, the shop's catalogue,
//! the counts and the size a convert needs. They are the domain's (a foreground
//! command could use them as well as a page), so the service owns them and hands
//! them to the server, rather than the server holding them.
//!
//! Each is served only at the generation it was computed at (`kept`), so a change of
//! the library is seen by the next request.

use crate::tree::Folders;
use std::collections::HashMap;

use rusqlite::Connection;

use crate::error::Error;
use crate::kept::Kept;
use crate::library::name_index::Names;
use crate::library::LibraryKey;
use crate::shop::Shop;
use crate::store::games::{self, Counts};
use crate::store::library_generation;
use crate::titles::listing::TitleLists;

pub struct Views {
    /// The shop's answers.
    pub shop: Shop,
    /// The search index.
    pub names: Names,
    /// The titles' lists.
    pub titles: TitleLists,
    /// The library's counts, which cost a pass over every game.
    counts: Kept<(), Counts>,
    by_platform: Kept<(), HashMap<String, Counts>>,
    /// The decompressed size of the files to convert: it reads a header of each, too
    /// slow for every render of the tasks panel.
    convert_needed: Kept<(), Vec<u64>>,
    /// The files a compress of the whole library would take, and their bytes.
    compressible: Kept<(), (u64, u64)>,
}

impl Default for Views {
    fn default() -> Self {
        Views {
            shop: Shop::default(),
            names: Names::default(),
            titles: TitleLists::default(),
            counts: Kept::new(usize::MAX, |_| 0),
            by_platform: Kept::new(usize::MAX, |_| 0),
            convert_needed: Kept::new(usize::MAX, |v| 8 * v.len()),
            compressible: Kept::new(usize::MAX, |_| 16),
        }
    }
}

impl Views {
    /// The counts over the whole library (`games::stats`).
    pub fn stats(&self, db: &Connection) -> Result<Counts, Error> {
        let generation = library_generation::current(db)?;
        let counts = self.counts.get_or(generation, (), || games::stats(db))?;
        Ok(counts.as_ref().clone())
    }

    /// The counts per platform (`games::stats_by_platform`).
    pub fn stats_by_platform(&self, db: &Connection) -> Result<HashMap<String, Counts>, Error> {
        let generation = library_generation::current(db)?;
        let counts = self
            .by_platform
            .get_or(generation, (), || games::stats_by_platform(db))?;
        Ok(counts.as_ref().clone())
    }

    /// The files compressing the whole library would take (the sound `.nsp` and
    /// `.xci`, as the task takes them: `games::compressible`), and their bytes.
    pub fn compressible(&self, db: &Connection) -> Result<(u64, u64), Error> {
        let generation = library_generation::current(db)?;
        let found = self
            .compressible
            .get_or(generation, (), || games::compressible_totals(db))?;
        Ok(*found)
    }

    /// The bytes converting every compressed file of the library would write, for
    /// each of its folders (`convert::planned_or_flagged`: a file that declares what
    /// no real file could is flagged on the way).
    pub fn convert_needed(&self, db: &Connection, lib: &Folders) -> Result<Vec<u64>, Error> {
        let generation = library_generation::current(db)?;
        let needed = self.convert_needed.get_or(generation, (), || {
            let mut needed = vec![0u64; lib.all().len()];
            for key in games::compressed(db)?
                .iter()
                .filter_map(|k| LibraryKey::parse(k))
            {
                let bytes = crate::convert::planned_or_flagged(db, lib, &key);
                let here = &mut needed[lib.index_of(&key)];
                *here = here.saturating_add(bytes);
            }
            Ok(needed)
        })?;
        Ok(needed.to_vec())
    }
}
