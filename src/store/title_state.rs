//! The `title_state` table: each title of the library (a base ID) with what it has
//! and what it lacks, written whole by `titles::model::refresh` when a scan or an
//! import completes, and only read otherwise.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;
use crate::words::{TitleId, TitleStatus};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TitleState {
    pub base_id: TitleId,
    pub name: String,
    pub folded: String,
    pub rank: i64,
    pub files: u64,
    pub base_files: u64,
    pub update_files: u64,
    pub dlc_files: u64,
    pub size: u64,
    /// The newest file's modification time, in nanoseconds.
    pub added: i64,
    pub installed_version: Option<u32>,
    pub latest_version: Option<u32>,
    pub latest_date: Option<String>,
    pub missing_dlc: u64,
    pub update_available: bool,
    pub dlc_missing: bool,
    /// No sound file of the base game: none at all, or only damaged ones (then
    /// `base_files` counts them).
    pub base_missing: bool,
    /// Files whose header did not read or that a task found broken.
    pub damaged_files: u64,
    /// The title data's version files list the title (its base, its update or one
    /// of its DLC): without that, "nothing lacks" would be a guess.
    pub known: bool,
}

impl TitleState {
    /// What applies, or else `complete` or `unknown`. An iterator: a list page asks
    /// it of every row.
    pub fn status(&self) -> impl Iterator<Item = TitleStatus> + '_ {
        use TitleStatus::*;
        [
            UpdateAvailable,
            DlcMissing,
            BaseMissing,
            BaseDamaged,
            Complete,
            Unknown,
        ]
        .into_iter()
        .filter(|&s| self.has(s))
    }

    /// Whether `status` applies: the one rule the lists, the filters and the
    /// badges follow.
    pub fn has(&self, status: TitleStatus) -> bool {
        match status {
            TitleStatus::UpdateAvailable => self.update_available,
            TitleStatus::DlcMissing => self.dlc_missing,
            TitleStatus::BaseMissing => self.base_missing && self.base_files == 0,
            TitleStatus::BaseDamaged => self.base_missing && self.base_files > 0,
            TitleStatus::Complete => !self.incomplete() && self.known,
            TitleStatus::Unknown => !self.incomplete() && !self.known,
        }
    }

    /// Something is known to lack: an update, DLC, or a sound base game.
    pub fn incomplete(&self) -> bool {
        self.update_available || self.dlc_missing || self.base_missing
    }
}

const COLUMNS: &str = "base_id, name, folded, rank, files, base_files, update_files, dlc_files,
     size, added, installed_version, latest_version, latest_date, missing_dlc,
     update_available, dlc_missing, base_missing, damaged_files, known";

/// How many columns [`COLUMNS`] names: a query's next column comes after them.
const COLUMN_COUNT: usize = {
    let (text, mut at, mut n) = (COLUMNS.as_bytes(), 0, 1);
    while at < text.len() {
        n += (text[at] == b',') as usize;
        at += 1;
    }
    n
};

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TitleState> {
    let n = |i: usize| -> rusqlite::Result<u64> { Ok(r.get::<_, i64>(i)? as u64) };
    Ok(TitleState {
        base_id: r.get(0)?,
        name: r.get(1)?,
        folded: r.get(2)?,
        rank: r.get(3)?,
        files: n(4)?,
        base_files: n(5)?,
        update_files: n(6)?,
        dlc_files: n(7)?,
        size: n(8)?,
        added: r.get(9)?,
        installed_version: r.get(10)?,
        latest_version: r.get(11)?,
        latest_date: r.get(12)?,
        missing_dlc: n(13)?,
        update_available: r.get(14)?,
        dlc_missing: r.get(15)?,
        base_missing: r.get(16)?,
        damaged_files: n(17)?,
        known: r.get(18)?,
    })
}

/// Replace every row, whole or not at all. The columns that once numbered each list
/// (`size_rank`…) are left `NULL`: the lists are numbered in memory (`titles::listing`).
pub fn replace_all(conn: &Connection, states: &[TitleState]) -> Result<(), Error> {
    crate::store::db::refill(conn, "title_state", || insert(conn, states))
}

fn insert(conn: &Connection, states: &[TitleState]) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(&format!(
        "INSERT INTO title_state ({COLUMNS})
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
                 ?19)"
    ))?;
    // In the primary key's order, so that each row is appended to the table's tree.
    let mut order: Vec<usize> = (0..states.len()).collect();
    order.sort_unstable_by_key(|&i| states[i].base_id);
    for i in order {
        let t = &states[i];
        stmt.execute(params![
            t.base_id,
            t.name,
            t.folded,
            t.rank,
            t.files as i64,
            t.base_files as i64,
            t.update_files as i64,
            t.dlc_files as i64,
            t.size as i64,
            t.added,
            t.installed_version,
            t.latest_version,
            t.latest_date,
            t.missing_dlc as i64,
            t.update_available,
            t.dlc_missing,
            t.base_missing,
            t.damaged_files as i64,
            t.known,
        ])?;
    }
    Ok(())
}

fn clamp(n: u64) -> i64 {
    n.min(i64::MAX as u64) as i64
}

/// The SQL condition for a status filter.
fn condition(status: Option<TitleStatus>) -> &'static str {
    match status {
        None => "1",
        Some(TitleStatus::UpdateAvailable) => "update_available",
        Some(TitleStatus::DlcMissing) => "dlc_missing",
        Some(TitleStatus::BaseMissing) => "base_missing AND base_files = 0",
        Some(TitleStatus::BaseDamaged) => "base_missing AND base_files > 0",
        Some(TitleStatus::Complete) => {
            "NOT update_available AND NOT dlc_missing AND NOT base_missing AND known"
        }
        Some(TitleStatus::Unknown) => {
            "NOT update_available AND NOT dlc_missing AND NOT base_missing AND NOT known"
        }
    }
}

/// What a list of titles is filtered by.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub status: Option<TitleStatus>,
    /// Only titles that are not complete.
    pub incomplete: bool,
    /// With search words: the base IDs of the titles one of whose files' names holds
    /// them all (`library::name_index` finds them).
    pub named: Option<Vec<TitleId>>,
    /// A hex prefix of the base ID (upper case).
    pub id_prefix: Option<String>,
}

/// How a list of titles is sorted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Sort {
    #[default]
    Name,
    /// Newest first.
    Added,
    /// Largest first.
    Size,
}

/// The `WHERE` clause of a search over `title_state`, and its arguments.
fn search_clause(filter: &Filter) -> (String, Vec<String>) {
    let mut wheres = vec![condition(filter.status).to_string()];
    if filter.incomplete {
        wheres.push("(update_available OR dlc_missing OR base_missing)".into());
    }
    let mut args: Vec<String> = Vec::new();
    let mut any = Vec::new();
    if let Some(named) = &filter.named {
        args.push(serde_json::to_string(named).unwrap_or_default());
        any.push(format!(
            "base_id IN (SELECT value FROM json_each(?{}))",
            args.len()
        ));
    }
    if let Some(prefix) = &filter.id_prefix {
        args.push(prefix.clone());
        args.push(format!("{prefix}G")); // every upper-case hex digit sorts before G
                                         // The base's own ID, or the ID of any of its files (an update's, a DLC's).
        let (from, to) = (args.len() - 1, args.len());
        any.push(format!(
            "(base_id >= ?{from} AND base_id < ?{to}) OR base_id IN
             (SELECT base_title_id FROM games WHERE title_id >= ?{from} AND title_id < ?{to})"
        ));
    }
    if !any.is_empty() {
        wheres.push(format!("({})", any.join(" OR ")));
    }
    (wheres.join(" AND "), args)
}

/// One page of titles, and how many match: what the lists in memory do not serve
/// (`titles::listing`), a search by title ID or a combination no page offers. A
/// search keeps the titles among `filter.named` (the base IDs the in-memory search
/// index found: a title matches when one of its files' names does) or in a range of
/// title IDs (the base's, or one of its files').
pub fn page(
    conn: &Connection,
    filter: &Filter,
    sort: Sort,
    limit: u64,
    offset: u64,
) -> Result<(u64, Vec<TitleState>), Error> {
    let (clause, args) = search_clause(filter);
    let order = match sort {
        Sort::Name => "rank",
        Sort::Added => "added DESC, rank",
        Sort::Size => "size DESC, rank",
    };
    // The match runs once, for both the count and the page; the page's bounds are
    // bound, not written in, so every page shares one prepared statement.
    let n = args.len();
    let sql = format!(
        "WITH hits AS MATERIALIZED (SELECT base_id FROM title_state WHERE {clause})
         SELECT {COLUMNS}, (SELECT count(*) FROM hits) FROM title_state
         WHERE base_id IN (SELECT base_id FROM hits) ORDER BY {order}
         LIMIT ?{} + 0 OFFSET ?{}",
        n + 1,
        n + 2
    );
    let mut values: Vec<rusqlite::types::Value> = args.iter().cloned().map(Into::into).collect();
    values.push(clamp(limit).into());
    values.push(clamp(offset).into());
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(values))?;
    let (mut total, mut items) = (None, Vec::new());
    while let Some(r) = rows.next()? {
        total = Some(r.get::<_, i64>(COLUMN_COUNT)?);
        items.push(row(r)?);
    }
    let total = match total {
        Some(n) => n,
        // Past the end, no row carried the count.
        None => conn
            .prepare_cached(&format!("SELECT count(*) FROM title_state WHERE {clause}"))?
            .query_row(rusqlite::params_from_iter(&args), |r| r.get(0))?,
    };
    Ok((total as u64, items))
}

/// Every title in library order, with the generation they were read at (one read
/// transaction: the two agree).
pub fn all(conn: &Connection) -> Result<(i64, Vec<TitleState>), Error> {
    let tx = conn.unchecked_transaction()?;
    let generation = crate::store::library_generation::current(&tx)?;
    let mut stmt = tx.prepare(&format!("SELECT {COLUMNS} FROM title_state ORDER BY rank"))?;
    let rows = stmt.query_map([], row)?.collect::<Result<_, _>>()?;
    Ok((generation, rows))
}

pub fn get(conn: &Connection, base_id: TitleId) -> Result<Option<TitleState>, Error> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM title_state WHERE base_id = ?1"
        ))?
        .query_row([base_id], row)
        .optional()?)
}

/// How many titles, with an update available, with DLC missing.
pub fn counts(conn: &Connection) -> Result<(u64, u64, u64), Error> {
    Ok(conn.query_row(
        "SELECT count(*), count(*) FILTER (WHERE update_available),
                count(*) FILTER (WHERE dlc_missing) FROM title_state",
        [],
        |r| {
            Ok((
                r.get::<_, i64>(0)? as u64,
                r.get::<_, i64>(1)? as u64,
                r.get::<_, i64>(2)? as u64,
            ))
        },
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Every status, incomplete or not, in every order, pages the titles a plain
    /// filter and sort of the rows gives, in that order, with the same count.
    #[test]
    fn every_list_pages_like_a_filter_and_a_sort() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::store::db::open_and_migrate(dir.path()).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let states: Vec<TitleState> = (0..500)
            .map(|i| TitleState {
                base_id: TitleId(0x0100_0000_0000_0000u64 + (i << 13)),
                name: format!("t{i}"),
                folded: format!("t{:03}", rng.random_range(0..300)),
                rank: i as i64,
                size: rng.random_range(0..50),
                added: rng.random_range(0..50),
                update_available: rng.random_bool(0.3),
                dlc_missing: rng.random_bool(0.3),
                base_missing: rng.random_bool(0.1),
                base_files: rng.random_range(0..2),
                known: rng.random_bool(0.7),
                ..TitleState::default()
            })
            .collect();
        replace_all(&conn, &states).unwrap();
        let statuses = [None]
            .into_iter()
            .chain(TitleStatus::ALL.iter().copied().map(Some));
        for status in statuses {
            for incomplete in [false, true] {
                for sort in [Sort::Name, Sort::Size, Sort::Added] {
                    let filter = Filter {
                        status,
                        incomplete,
                        ..Filter::default()
                    };
                    let mut want: Vec<&TitleState> = states
                        .iter()
                        .filter(|t| status.is_none_or(|s| t.status().any(|x| x == s)))
                        .filter(|t| !incomplete || t.incomplete())
                        .collect();
                    want.sort_by_key(|t| match sort {
                        Sort::Name => (0, t.rank),
                        Sort::Size => (-(t.size as i64), t.rank),
                        Sort::Added => (-t.added, t.rank),
                    });
                    for (limit, offset) in [(50, 0), (7, 20), (50, 480), (10, 1000)] {
                        let (total, got) = page(&conn, &filter, sort, limit, offset).unwrap();
                        let got: Vec<TitleId> = got.iter().map(|t| t.base_id).collect();
                        let expected: Vec<TitleId> = want
                            .iter()
                            .skip(offset as usize)
                            .take(limit as usize)
                            .map(|t| t.base_id)
                            .collect();
                        let case = format!("{status:?} {incomplete} {sort:?} {limit} {offset}");
                        assert_eq!(total as usize, want.len(), "{case}");
                        assert_eq!(got, expected, "{case}");
                    }
                }
            }
        }
    }
}
