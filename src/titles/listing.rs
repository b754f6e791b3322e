//! The titles' lists in memory: every title's state, in library order, read once per
//! generation of the library, and each list a page can show (all, the incomplete, one
//! status; by name, date added or size) numbered the first time it is asked.
//!
//! A list page read from SQLite cost a seek and a row lookup per title, which was a
//! third of a web library page. The states change only when the titles are computed
//! again, which moves the library's generation; then the lists are read again. A
//! search by words keeps the titles the search index named, in the list's order;
//! a search by title ID still goes through `store::title_state`.
//!
//! Memory: a title's state is about 250 bytes: 8 MB for the 33,000 titles of a
//! library of 100,000 files, and 4 bytes per title per list asked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use crate::error::Error;
use crate::kept::Kept;
use crate::library::search::page_range;
use crate::store::library_generation;
use crate::store::title_state::{self, Filter, Sort, TitleState};
use crate::words::{TitleId, TitleStatus};

/// Which titles a list holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Holds {
    All,
    Incomplete,
    Status(TitleStatus),
}

impl Holds {
    /// The list a filter asks for (a search by words keeps the named titles of it);
    /// `None` for a search by title ID or a combination no page offers (the
    /// incomplete of one status), which SQLite answers.
    fn of(filter: &Filter) -> Option<Holds> {
        if filter.id_prefix.is_some() {
            return None;
        }
        match (filter.incomplete, filter.status) {
            (false, None) => Some(Holds::All),
            (true, None) => Some(Holds::Incomplete),
            (false, Some(s)) => Some(Holds::Status(s)),
            (true, Some(_)) => None,
        }
    }

    fn holds(self, t: &TitleState) -> bool {
        match self {
            Holds::All => true,
            Holds::Incomplete => t.incomplete(),
            Holds::Status(s) => t.has(s),
        }
    }
}

/// How many titles there are and how many lack something: the dashboard's cards,
/// counted once per generation with the lists, so a dashboard reads no table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TitleCounts {
    pub titles: u64,
    pub update_available: u64,
    pub dlc_missing: u64,
    /// Titles with updates or DLC and no file of their base game.
    pub base_missing: u64,
    /// Titles whose every base copy is damaged.
    pub base_damaged: u64,
    /// Titles the title data does not list (all of them, without title data).
    pub unknown: u64,
}

impl TitleCounts {
    fn of(rows: &[TitleState]) -> TitleCounts {
        let n = |f: fn(&TitleState) -> bool| rows.iter().filter(|t| f(t)).count() as u64;
        TitleCounts {
            titles: rows.len() as u64,
            update_available: n(|t| t.update_available),
            dlc_missing: n(|t| t.dlc_missing),
            base_missing: n(|t| t.has(TitleStatus::BaseMissing)),
            base_damaged: n(|t| t.has(TitleStatus::BaseDamaged)),
            unknown: n(|t| t.has(TitleStatus::Unknown)),
        }
    }
}

/// Every title's state at one generation, and the lists numbered so far.
struct Lists {
    /// In library order (`rank`).
    rows: Vec<TitleState>,
    counts: TitleCounts,
    /// Positions in `rows`, by base ID.
    by_id: Vec<u32>,
    numbered: Mutex<HashMap<(Holds, Sort), List>>,
}

/// Positions in `Lists::rows`, in a list's order.
type List = Arc<Vec<u32>>;

impl Lists {
    /// The positions of the titles of one list, in its order.
    fn list(&self, holds: Holds, sort: Sort) -> List {
        let mut numbered = self.numbered.lock().unwrap_or_else(|e| e.into_inner());
        let list = numbered.entry((holds, sort)).or_insert_with(|| {
            let mut at: Vec<u32> = (0..self.rows.len() as u32)
                .filter(|&i| holds.holds(&self.rows[i as usize]))
                .collect();
            self.sort(&mut at, sort);
            Arc::new(at)
        });
        Arc::clone(list)
    }

    /// The titles of `named` (base IDs, sorted) that one list holds, in its order.
    fn named(&self, named: &[TitleId], holds: Holds, sort: Sort) -> Vec<u32> {
        let id = |i: &u32| self.rows[*i as usize].base_id;
        let mut at: Vec<u32> = named
            .iter()
            .filter_map(|&name| {
                let k = self.by_id.partition_point(|i| id(i) < name);
                self.by_id.get(k).filter(|i| id(i) == name)
            })
            .copied()
            .filter(|&i| holds.holds(&self.rows[i as usize]))
            .collect();
        at.sort_unstable();
        self.sort(&mut at, sort);
        at
    }

    /// Positions given in library order put in `sort`'s order: by name (the library
    /// order), or newest or largest first. The sort is stable, so equals keep the
    /// library order.
    fn sort(&self, at: &mut [u32], sort: Sort) {
        let row = |i: &u32| &self.rows[*i as usize];
        match sort {
            Sort::Name => {}
            Sort::Added => at.sort_by_key(|i| std::cmp::Reverse(row(i).added)),
            Sort::Size => at.sort_by_key(|i| std::cmp::Reverse(row(i).size)),
        }
    }
}

/// One page of titles: borrowed from the lists in memory (a page of a list is not
/// copied), or read from SQLite (a search).
pub struct TitleRows {
    shared: Option<(Arc<Lists>, Vec<u32>)>,
    read: Vec<TitleState>,
}

impl TitleRows {
    pub fn iter(&self) -> impl Iterator<Item = &TitleState> {
        let shared = self
            .shared
            .iter()
            .flat_map(|(lists, at)| at.iter().map(move |&i| &lists.rows[i as usize]));
        shared.chain(&self.read)
    }

    pub fn is_empty(&self) -> bool {
        self.shared.as_ref().is_none_or(|(_, at)| at.is_empty()) && self.read.is_empty()
    }
}

/// The lists at the library's current generation, read again when it moves (see
/// `kept`), by one request while the others wait for it.
pub struct TitleLists(Kept<(), Lists>);

impl Default for TitleLists {
    fn default() -> Self {
        TitleLists(Kept::new(usize::MAX, |_| 0))
    }
}

impl TitleLists {
    /// One page of titles and how many the list holds: from memory for the lists,
    /// from SQLite for a search.
    pub fn page(
        &self,
        db: &Connection,
        filter: &Filter,
        sort: Sort,
        limit: u64,
        offset: u64,
    ) -> Result<(u64, TitleRows), Error> {
        let Some(holds) = Holds::of(filter) else {
            let (total, read) = title_state::page(db, filter, sort, limit, offset)?;
            return Ok((total, TitleRows { shared: None, read }));
        };
        let lists = self.get(db)?;
        let list = match &filter.named {
            Some(named) => Arc::new(lists.named(named, holds, sort)),
            None => lists.list(holds, sort),
        };
        let at = list[page_range(list.len(), limit, offset)].to_vec();
        let rows = TitleRows {
            shared: Some((lists, at)),
            read: Vec::new(),
        };
        Ok((list.len() as u64, rows))
    }

    /// The counts of the titles at the library's current generation.
    pub fn counts(&self, db: &Connection) -> Result<TitleCounts, Error> {
        Ok(self.get(db)?.counts)
    }

    fn get(&self, db: &Connection) -> Result<Arc<Lists>, Error> {
        self.0
            .get_or_build((), || library_generation::current(db), |_| read(db))
    }
}

/// Every title's state, and the list by base ID.
fn read(db: &Connection) -> Result<Lists, Error> {
    let (_, rows) = title_state::all(db)?;
    let mut by_id: Vec<u32> = (0..rows.len() as u32).collect();
    by_id.sort_unstable_by(|a, b| rows[*a as usize].base_id.cmp(&rows[*b as usize].base_id));
    Ok(Lists {
        counts: TitleCounts::of(&rows),
        rows,
        by_id,
        numbered: Mutex::default(),
    })
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    /// Random states, with ties in size and date so the order between equals counts.
    fn states(rng: &mut StdRng, n: usize) -> Vec<TitleState> {
        (0..n)
            .map(|i| TitleState {
                base_id: TitleId(0x0100_0000_0001_0000u64 + ((i as u64) << 13)),
                name: format!("Title {}", rng.random_range(0..n.max(1) / 2 + 1)),
                folded: String::new(),
                rank: 0,
                files: 1,
                base_files: rng.random_range(0..2),
                update_files: 0,
                dlc_files: 0,
                size: rng.random_range(0..5),
                added: rng.random_range(0..5),
                installed_version: None,
                latest_version: None,
                latest_date: None,
                missing_dlc: 0,
                update_available: rng.random_bool(0.4),
                dlc_missing: rng.random_bool(0.3),
                base_missing: rng.random_bool(0.2),
                damaged_files: 0,
                known: rng.random_bool(0.7),
            })
            .map(|mut t| {
                t.folded = t.name.to_lowercase();
                t
            })
            .collect()
    }

    /// Every list, in every order, page by page, is what SQLite's search of the same
    /// filter gives; a search by ID and an unserved combination go to SQLite.
    #[test]
    fn every_list_from_memory_is_the_list_sqlite_searches() {
        // Lists and searches by words: memory against SQLite's search.
        let mut rng = StdRng::seed_from_u64(5);
        for n in [0, 1, 7, 300] {
            let dir = tempfile::tempdir().unwrap();
            let conn = crate::store::db::open_and_migrate(dir.path()).unwrap();
            let mut rows = states(&mut rng, n);
            rows.sort_by(|a, b| (&a.folded, &a.base_id).cmp(&(&b.folded, &b.base_id)));
            for (i, t) in rows.iter_mut().enumerate() {
                t.rank = i as i64;
            }
            title_state::replace_all(&conn, &rows).unwrap();
            crate::store::library_generation::bump(&conn).unwrap();
            let lists = TitleLists::default();
            // No status, then each.
            let statuses: [Option<TitleStatus>; 7] =
                std::array::from_fn(|i| i.checked_sub(1).map(|i| TitleStatus::ALL[i]));
            // A search by words: some of the titles, an ID no title has, or none.
            let mut some: Vec<TitleId> = rows
                .iter()
                .filter(|_| rng.random_bool(0.3))
                .map(|t| t.base_id)
                .chain([TitleId(0x0100FFFFFFFFF000)])
                .collect();
            some.sort();
            let searches = [None, Some(some), Some(Vec::new())];
            for (incomplete, status, named) in [false, true]
                .into_iter()
                .flat_map(|i| statuses.map(|s| (i, s)))
                .flat_map(|(i, s)| searches.clone().map(|n| (i, s, n)))
            {
                {
                    for sort in [Sort::Name, Sort::Added, Sort::Size] {
                        let filter = Filter {
                            status,
                            incomplete,
                            named: named.clone(),
                            ..Filter::default()
                        };
                        for (limit, offset) in [(50, 0), (7, 0), (7, 7), (7, 294), (10, 1000)] {
                            let (total, rows) =
                                lists.page(&conn, &filter, sort, limit, offset).unwrap();
                            let memory = (total, rows.iter().map(|t| t.base_id).collect());
                            let (total, rows) =
                                title_state::page(&conn, &filter, sort, limit, offset).unwrap();
                            let sqlite: (u64, Vec<TitleId>) =
                                (total, rows.into_iter().map(|t| t.base_id).collect());
                            assert_eq!(memory, sqlite, "{filter:?} {sort:?} {limit} {offset}");
                        }
                    }
                }
            }
        }
    }
}
