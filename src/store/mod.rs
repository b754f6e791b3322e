//! The SQLite store: one file per table, each holding the SQL of the functions that
//! read or write it. Nothing outside this module writes SQL (a test in
//! `tests/it/architecture.rs` finds it elsewhere), and only `settings` spells the
//! settings' keys.
//!
//! SQLite may plan a query with the values bound to it, and then prepares the
//! statement again every time a value is bound: a bare `LIMIT ?N`, or an indexed
//! column compared with a parameter in a sorted query. That cost a page its parse
//! and plan on every request. `db::open` turns it off for every connection (the
//! query planner stability guarantee, tested there); pages are also written
//! `LIMIT ?N + 0`, so that a connection opened some other way still plans once (a
//! test in `tests/it/architecture.rs` keeps it so).

pub mod api_keys;
pub mod consoles;
pub mod contents;
pub mod dav_props;
pub mod db;
pub mod device;
pub mod games;
pub mod job_failures;
pub mod job_runs;
pub mod library_folders;
pub mod library_generation;
pub mod migrations;
pub mod missing;
pub mod notify_targets;
pub mod organize_moves;
pub mod organize_runs;
pub mod platforms;
pub mod push_list;
pub mod saves;
pub mod sessions;
pub mod settings;
pub mod shop_downloads;
pub mod title_catalog;
pub mod title_control;
pub mod title_ignore;
pub mod title_imports;
pub mod title_sources;
pub mod title_state;
pub mod title_versions;
pub mod titles;
pub mod trash;
pub mod users;

pub use rusqlite::Connection;

/// The keys below a library folder's prefix `NAME/`, as a range of the key column:
/// from `NAME/` to `NAME0` (`0` follows `/`, and no key holds anything between), so
/// that the primary key's index answers.
fn under(prefix: &str) -> (&str, String) {
    (prefix, format!("{}0", prefix.trim_end_matches('/')))
}

/// Every row a prepared statement gives with `params`, each read by `row`.
fn all<T, C: FromIterator<T>>(
    stmt: &mut rusqlite::Statement<'_>,
    params: impl rusqlite::Params,
    row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Result<C, crate::error::Error> {
    Ok(stmt.query_map(params, row)?.collect::<Result<_, _>>()?)
}
