//! The SQLite store: one file per table, each holding the SQL of the functions that
//! read or write it. Nothing outside this module writes SQL.
//!
//! Pages are written `LIMIT ?N + 0`, never `LIMIT ?N`: SQLite reads a bare LIMIT
//! parameter to plan the query, and then prepares the statement again every time a
//! value is bound to it, which cost a page its parse and plan on every request (a
//! test in `tests/it/architecture.rs` keeps it so).

pub mod api_keys;
pub mod consoles;
pub mod db;
pub mod device;
pub mod games;
pub mod job_runs;
pub mod library_generation;
pub mod migrations;
pub mod missing;
pub mod platforms;
pub mod push_list;
pub mod sessions;
pub mod settings;
pub mod shop_downloads;
pub mod title_catalog;
pub mod title_ignore;
pub mod title_imports;
pub mod title_state;
pub mod title_versions;
pub mod titles;
pub mod trash;
pub mod users;

pub use rusqlite::Connection;
