//! The `title_sources` table: what each title data source (`--titledb-url`) last
//! answered, for Settings and for the refresh's default (`Config::titledb_refresh`).

use rusqlite::{params, Connection};

use crate::error::{Error, Msg};

/// One source's record.
#[derive(Debug, Clone)]
pub struct SourceRow {
    pub url: String,
    pub ok_at: Option<i64>,
    pub error: Option<Msg>,
    pub error_at: Option<i64>,
}

/// The source gave a valid file at `at`.
pub fn succeeded(conn: &Connection, url: &str, at: i64) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO title_sources (url, ok_at) VALUES (?1, ?2)
         ON CONFLICT(url) DO UPDATE SET ok_at = excluded.ok_at",
    )?
    .execute(params![url, at])?;
    Ok(())
}

/// The source failed at `at`, for this reason.
pub fn failed(conn: &Connection, url: &str, msg: &Msg, at: i64) -> Result<(), Error> {
    let json = serde_json::to_string(msg).map_err(|e| Error::internal(e.to_string()))?;
    conn.prepare_cached(
        "INSERT INTO title_sources (url, error, error_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(url) DO UPDATE SET error = excluded.error, error_at = excluded.error_at",
    )?
    .execute(params![url, json, at])?;
    Ok(())
}

/// Every source ever asked, by URL.
pub fn all(conn: &Connection) -> Result<Vec<SourceRow>, Error> {
    let mut stmt =
        conn.prepare_cached("SELECT url, ok_at, error, error_at FROM title_sources ORDER BY url")?;
    let rows = stmt.query_map([], |r| {
        let error: Option<String> = r.get(2)?;
        Ok(SourceRow {
            url: r.get(0)?,
            ok_at: r.get(1)?,
            error: error.and_then(|e| serde_json::from_str(&e).ok()),
            error_at: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Has title data ever come from a source (not only from files)?
pub fn ever_fetched(conn: &Connection) -> Result<bool, Error> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM title_sources WHERE ok_at IS NOT NULL)")?
        .query_row([], |r| r.get(0))?)
}
