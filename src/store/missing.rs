//! The `missing` table: every update and DLC the library lacks, one row each, in the
//! titles' order. Written whole with `title_state`.

use rusqlite::{params, Connection};

use crate::error::Error;
use crate::words::MissingKind;

#[derive(Debug, Clone, PartialEq)]
pub struct Missing {
    pub title_id: String,
    pub title_name: String,
    pub kind: MissingKind,
    /// The update's or the DLC's own title ID.
    pub id: String,
    /// The DLC's name, when the title data knows it.
    pub name: Option<String>,
    pub installed_version: Option<u32>,
    pub latest_version: Option<u32>,
    pub latest_date: Option<String>,
}

/// Replace every row; `rows` are in the order lists show them.
pub fn replace_all(conn: &Connection, rows: &[Missing]) -> Result<(), Error> {
    conn.execute("DELETE FROM missing", [])?;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO missing (rank, title_id, kind, id, name, installed_version,
                              latest_version, latest_date)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for (rank, m) in rows.iter().enumerate() {
        stmt.execute(params![
            rank as i64,
            m.title_id,
            m.kind,
            m.id,
            m.name,
            m.installed_version,
            m.latest_version,
            m.latest_date
        ])?;
    }
    Ok(())
}

/// One page of the list, of one kind or both, with how many rows match.
pub fn page(
    conn: &Connection,
    kind: Option<MissingKind>,
    title_id: Option<&str>,
    limit: u64,
    offset: u64,
) -> Result<(u64, Vec<Missing>), Error> {
    let clause = "(?1 IS NULL OR m.kind = ?1) AND (?2 IS NULL OR m.title_id = ?2)";
    let total: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM missing m WHERE {clause}"))?
        .query_row(params![kind, title_id], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT m.title_id, coalesce(t.name, m.title_id), m.kind, m.id, m.name,
                m.installed_version, m.latest_version, m.latest_date
         FROM missing m LEFT JOIN title_state t ON t.base_id = m.title_id
         WHERE {clause} ORDER BY m.rank LIMIT ?3 OFFSET ?4"
    ))?;
    let rows = stmt.query_map(
        params![
            kind,
            title_id,
            limit.min(i64::MAX as u64) as i64,
            offset.min(i64::MAX as u64) as i64
        ],
        |r| {
            Ok(Missing {
                title_id: r.get(0)?,
                title_name: r.get(1)?,
                kind: r.get(2)?,
                id: r.get(3)?,
                name: r.get(4)?,
                installed_version: r.get(5)?,
                latest_version: r.get(6)?,
                latest_date: r.get(7)?,
            })
        },
    )?;
    Ok((total as u64, rows.collect::<Result<_, _>>()?))
}
