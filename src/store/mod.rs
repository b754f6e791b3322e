//! The SQLite store: one file per table, each holding the SQL of the functions that
//! read or write it. Nothing outside this module writes SQL.

pub mod api_keys;
pub mod db;
pub mod job_runs;
pub mod migrations;
pub mod settings;

pub use rusqlite::Connection;
