//! The `title_state` table: each title of the library (a base ID) with what it has
//! and what it lacks, written whole by `titles::model::refresh` when a scan or an
//! import completes, and only read otherwise.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;
use crate::words::TitleStatus;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TitleState {
    pub base_id: String,
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
    pub base_missing: bool,
}

impl TitleState {
    /// What applies, or `[complete]`.
    pub fn status(&self) -> Vec<TitleStatus> {
        let mut out = Vec::new();
        if self.update_available {
            out.push(TitleStatus::UpdateAvailable);
        }
        if self.dlc_missing {
            out.push(TitleStatus::DlcMissing);
        }
        if self.base_missing {
            out.push(TitleStatus::BaseMissing);
        }
        if out.is_empty() {
            out.push(TitleStatus::Complete);
        }
        out
    }
}

const COLUMNS: &str = "base_id, name, folded, rank, files, base_files, update_files, dlc_files,
     size, added, installed_version, latest_version, latest_date, missing_dlc,
     update_available, dlc_missing, base_missing";

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
    })
}

/// Replace every row (inside the caller's transaction).
pub fn replace_all(conn: &Connection, states: &[TitleState]) -> Result<(), Error> {
    conn.execute("DELETE FROM title_state", [])?;
    let mut stmt = conn.prepare_cached(&format!(
        "INSERT INTO title_state ({COLUMNS})
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"
    ))?;
    for t in states {
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
        ])?;
    }
    Ok(())
}

/// The SQL condition for a status filter.
fn condition(status: Option<TitleStatus>) -> &'static str {
    match status {
        None => "1",
        Some(TitleStatus::UpdateAvailable) => "update_available",
        Some(TitleStatus::DlcMissing) => "dlc_missing",
        Some(TitleStatus::BaseMissing) => "base_missing",
        Some(TitleStatus::Complete) => {
            "NOT update_available AND NOT dlc_missing AND NOT base_missing"
        }
    }
}

/// What a list of titles is filtered by.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub status: Option<TitleStatus>,
    /// Only titles that are not complete.
    pub incomplete: bool,
    /// Folded words the name must all hold.
    pub words: Vec<String>,
    /// A hex prefix of the base ID (upper case).
    pub id_prefix: Option<String>,
}

/// How a list of titles is sorted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sort {
    #[default]
    Name,
    /// Newest first.
    Added,
    /// Largest first.
    Size,
}

/// One page of titles, and how many match.
pub fn page(
    conn: &Connection,
    filter: &Filter,
    sort: Sort,
    limit: u64,
    offset: u64,
) -> Result<(u64, Vec<TitleState>), Error> {
    let mut wheres = vec![condition(filter.status).to_string()];
    if filter.incomplete {
        wheres.push("(update_available OR dlc_missing OR base_missing)".into());
    }
    let mut args: Vec<String> = Vec::new();
    let words: Vec<String> = filter.words.iter().map(|w| like_pattern(w)).collect();
    let name_match = words
        .iter()
        .map(|w| {
            args.push(w.clone());
            format!("folded LIKE ?{} ESCAPE '\\'", args.len())
        })
        .collect::<Vec<_>>();
    let mut any = Vec::new();
    if !name_match.is_empty() {
        any.push(format!("({})", name_match.join(" AND ")));
    }
    if let Some(prefix) = &filter.id_prefix {
        args.push(format!("{prefix}%"));
        any.push(format!("base_id LIKE ?{}", args.len()));
    }
    if !any.is_empty() {
        wheres.push(format!("({})", any.join(" OR ")));
    }
    let order = match sort {
        Sort::Name => "rank",
        Sort::Added => "added DESC, rank",
        Sort::Size => "size DESC, rank",
    };
    let clause = wheres.join(" AND ");
    let total: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM title_state WHERE {clause}"))?
        .query_row(rusqlite::params_from_iter(&args), |r| r.get(0))?;
    let sql = format!(
        "SELECT {COLUMNS} FROM title_state WHERE {clause} ORDER BY {order} LIMIT {} OFFSET {}",
        limit.min(i64::MAX as u64),
        offset.min(i64::MAX as u64)
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(&args), row)?;
    Ok((total as u64, rows.collect::<Result<_, _>>()?))
}

fn like_pattern(word: &str) -> String {
    let escaped: String = word
        .chars()
        .flat_map(|c| match c {
            '%' | '_' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    format!("%{escaped}%")
}

pub fn get(conn: &Connection, base_id: &str) -> Result<Option<TitleState>, Error> {
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
