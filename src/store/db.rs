//! Opening the database: its place in the data folder and the pragmas every
//! connection needs. Each thread opens its own connection (SQLite connections are not
//! shared across threads here); WAL lets readers run beside the one writer.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

use super::migrations;
use crate::error::Error;

/// The database file inside the data folder.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("ludotheque.db")
}

/// Open a connection with the service's pragmas. The schema must already be current
/// (see [`open_and_migrate`], called once at start).
pub fn open(data_dir: &Path) -> Result<Connection, Error> {
    let conn = Connection::open(path(data_dir))?;
    // Wait for a writer rather than failing at once: the job thread, the workers and a
    // command-line tool can all write.
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))?;
    conn.execute_batch("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;")?;
    Ok(conn)
}

/// Open, then bring the schema up to date (refusing a database newer than the code).
pub fn open_and_migrate(data_dir: &Path) -> Result<Connection, Error> {
    let mut conn = open(data_dir)?;
    migrations::apply(&mut conn)?;
    Ok(conn)
}

/// Hold the data folder for this process: a server and a foreground task must not run
/// on the same folder at once. The lock lives as long as the returned file.
pub fn lock_data(data_dir: &Path) -> Result<std::fs::File, Error> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(data_dir.join("ludotheque.lock"))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::data_locked()),
        Err(std::fs::TryLockError::Error(e)) => Err(e.into()),
    }
}
