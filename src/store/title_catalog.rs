//! The `title_catalog` table: every title ID the version files know, its base and
//! kind, and its latest known version (the higher of `versions.txt` and
//! `versions.json`).

use std::collections::HashMap;

use rusqlite::{params, Connection};

use crate::error::Error;
use crate::words::{GameKind, TitleId};

/// Record `version` for `id`, keeping the higher of it and what is known.
pub fn raise(
    conn: &Connection,
    id: TitleId,
    base_id: TitleId,
    kind: GameKind,
    version: u32,
) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO title_catalog (id, base_id, kind, version) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(id) DO UPDATE
         SET version = max(coalesce(title_catalog.version, 0), excluded.version)",
    )?
    .execute(params![id, base_id, kind, version])?;
    Ok(())
}

/// One catalogue row.
#[derive(Debug, Clone)]
pub struct Known {
    pub base_id: TitleId,
    pub kind: GameKind,
    pub version: Option<u32>,
}

/// The whole catalogue, by ID (tens of thousands of short rows: a few MB).
pub fn all(conn: &Connection) -> Result<HashMap<TitleId, Known>, Error> {
    let mut stmt = conn.prepare("SELECT id, base_id, kind, version FROM title_catalog")?;
    super::all(&mut stmt, [], |r| {
        Ok((
            r.get(0)?,
            Known {
                base_id: r.get(1)?,
                kind: r.get(2)?,
                version: r.get(3)?,
            },
        ))
    })
}

pub fn count(conn: &Connection) -> Result<u64, Error> {
    Ok(
        conn.query_row("SELECT count(*) FROM title_catalog", [], |r| {
            r.get::<_, i64>(0)
        })? as u64,
    )
}

/// Whether no title data was ever imported (a page asks on every view: no count).
pub fn is_empty(conn: &Connection) -> Result<bool, Error> {
    let any: bool = conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM title_catalog)")?
        .query_row([], |r| r.get(0))?;
    Ok(!any)
}

/// Every catalogue ID of the library's titles (bases, updates, DLC) with its latest
/// known version, by ID.
pub fn of_library(conn: &Connection) -> Result<Vec<(TitleId, Option<u32>)>, Error> {
    let mut stmt = conn.prepare(
        "SELECT id, version FROM title_catalog
         WHERE base_id IN (SELECT base_title_id FROM games WHERE base_title_id IS NOT NULL)
         ORDER BY id",
    )?;
    super::all(&mut stmt, [], |r| Ok((r.get(0)?, r.get(1)?)))
}

/// Every title ID the title data knows, and every ID of a game the shop offers, with
/// the higher of its latest known version and the library's own, by ID: blawar's
/// `versions.txt` as the library would extend it. DBI reads one such file for every
/// installed title (`VersionsURL`), so none may be left out.
pub fn every_latest(conn: &Connection) -> Result<Vec<(TitleId, Option<u32>)>, Error> {
    let mut stmt = conn.prepare(
        "SELECT id, max(version) FROM (
             SELECT id, version FROM title_catalog
             UNION ALL
             SELECT title_id, version FROM games
             WHERE header_ok AND damage IS NULL AND type IN ('BASE', 'UPDATE', 'DLC')
               AND title_id IS NOT NULL
         ) GROUP BY id ORDER BY id",
    )?;
    super::all(&mut stmt, [], |r| Ok((r.get(0)?, r.get(1)?)))
}
