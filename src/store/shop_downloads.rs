//! The `shop_downloads` table: what each console downloaded from the shop. An
//! installer reads a file in many `Range` requests; they add up to one row per file
//! and console per hour (from the first request), so the Consoles page shows files,
//! not requests.

use rusqlite::{params, Connection};

use crate::error::Error;

/// The window within which requests for one file by one console are one download.
const WINDOW_S: i64 = 3600;
/// Rows older than this are dropped when a new one is written.
const KEEP_S: i64 = 90 * 24 * 3600;

#[derive(Debug, Clone)]
pub struct Download {
    pub console: String,
    pub key: String,
    pub bytes: u64,
    pub last_at: i64,
    pub duration_ms: u64,
}

/// Count `bytes` sent in `duration_ms` for `key` to `console`, ending `now`.
pub fn record(
    conn: &Connection,
    console: &str,
    key: &str,
    bytes: u64,
    duration_ms: u64,
    now: i64,
) -> Result<(), Error> {
    let added = conn
        .prepare_cached(
            "UPDATE shop_downloads
             SET bytes = bytes + ?3, duration_ms = duration_ms + ?4, last_at = ?5
             WHERE id = (SELECT id FROM shop_downloads
                         WHERE console = ?1 AND key = ?2 AND started_at > ?5 - ?6
                         ORDER BY started_at DESC LIMIT 1)",
        )?
        .execute(params![
            console,
            key,
            bytes as i64,
            duration_ms as i64,
            now,
            WINDOW_S
        ])?;
    if added == 0 {
        conn.prepare_cached(
            "INSERT INTO shop_downloads (console, key, bytes, started_at, last_at, duration_ms)
             VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
        )?
        .execute(params![console, key, bytes as i64, now, duration_ms as i64])?;
        conn.prepare_cached("DELETE FROM shop_downloads WHERE last_at < ?1")?
            .execute([now - KEEP_S])?;
    }
    Ok(())
}

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Download> {
    Ok(Download {
        console: r.get(0)?,
        key: r.get(1)?,
        bytes: r.get::<_, i64>(2)? as u64,
        last_at: r.get(3)?,
        duration_ms: r.get::<_, i64>(4)? as u64,
    })
}

/// One console's latest downloads, newest first.
pub fn of_console(conn: &Connection, console: &str, limit: u32) -> Result<Vec<Download>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT console, key, bytes, last_at, duration_ms
         FROM shop_downloads WHERE console = ?1 ORDER BY last_at DESC, id DESC LIMIT ?2 + 0",
    )?;
    super::all(&mut stmt, params![console, limit], from_row)
}

/// The most recent downloads, newest first.
pub fn recent(conn: &Connection, limit: u32) -> Result<Vec<Download>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT console, key, bytes, last_at, duration_ms
         FROM shop_downloads ORDER BY last_at DESC, id DESC LIMIT ?1 + 0",
    )?;
    super::all(&mut stmt, [limit], from_row)
}

/// The file at `from` now lives at `to` (`organize`).
pub fn rekey(conn: &Connection, from: &str, to: &str) -> Result<(), Error> {
    conn.prepare_cached("UPDATE shop_downloads SET key = ?2 WHERE key = ?1")?
        .execute(params![from, to])?;
    Ok(())
}
