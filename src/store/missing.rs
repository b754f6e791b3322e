//! The `missing` table: every update and DLC the library lacks, one row each, in the
//! titles' order. Written whole with `title_state`.

use rusqlite::{params, Connection};

use crate::error::Error;
use crate::words::{MissingKind, TitleId};

#[derive(Debug, Clone, PartialEq)]
pub struct Missing {
    pub title_id: TitleId,
    pub title_name: String,
    pub kind: MissingKind,
    /// The update's or the DLC's own title ID.
    pub id: TitleId,
    /// The DLC's name, when the title data knows it.
    pub name: Option<String>,
    pub installed_version: Option<u32>,
    pub latest_version: Option<u32>,
    pub latest_date: Option<String>,
}

/// Replace every row; `rows` are in the order lists show them.
pub fn replace_all(conn: &Connection, rows: &[Missing]) -> Result<(), Error> {
    crate::store::db::refill(conn, "missing", || insert(conn, rows))
}

fn insert(conn: &Connection, rows: &[Missing]) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO missing (rank, title_id, kind, id, name, installed_version,
                              latest_version, latest_date, kind_rank)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    // Each row's position among its kind, so a page of one kind is a seek too.
    let (mut updates, mut dlc) = (0i64, 0i64);
    for (rank, m) in rows.iter().enumerate() {
        let among = match m.kind {
            MissingKind::Update => &mut updates,
            MissingKind::Dlc => &mut dlc,
        };
        stmt.execute(params![
            rank as i64,
            m.title_id,
            m.kind,
            m.id,
            m.name,
            m.installed_version,
            m.latest_version,
            m.latest_date,
            *among
        ])?;
        *among += 1;
    }
    Ok(())
}

/// One page of the list, of one kind or both, with how many rows match.
pub fn page(
    conn: &Connection,
    kind: Option<MissingKind>,
    title_id: Option<TitleId>,
    limit: u64,
    offset: u64,
) -> Result<(u64, Vec<Missing>), Error> {
    use rusqlite::types::Value;
    let (limit, offset) = (clamp(limit), clamp(offset));
    let kind_value = || Value::from(kind.map(|k| k.as_str().to_string()));
    // Positions are dense (`rank` over all rows, `kind_rank` within a kind), so the
    // count is the last position plus one and a page starts with a seek; one title's
    // rows are few and found by their index.
    let (count_sql, clause, args): (&str, &str, Vec<Value>) = match (kind, title_id) {
        (_, Some(id)) => (
            "SELECT count(*) FROM missing WHERE title_id = ?1 AND (?2 IS NULL OR kind = ?2)",
            "m.title_id = ?1 AND (?2 IS NULL OR m.kind = ?2) ORDER BY m.rank LIMIT ?3 + 0 OFFSET ?4",
            vec![
                id.to_string().into(),
                kind_value(),
                limit.into(),
                offset.into(),
            ],
        ),
        (None, None) => (
            "SELECT max(rank) + 1 FROM missing",
            "m.rank >= ?2 ORDER BY m.rank LIMIT ?1 + 0",
            vec![limit.into(), offset.into()],
        ),
        (Some(_), None) => (
            "SELECT max(kind_rank) + 1 FROM missing WHERE kind = ?1",
            "m.kind = ?1 AND m.kind_rank >= ?3 ORDER BY m.kind_rank LIMIT ?2 + 0",
            vec![kind_value(), limit.into(), offset.into()],
        ),
    };
    // The count takes the leading arguments: all but limit and offset.
    let count_args = &args[..args.len() - 2];
    let total: Option<i64> = conn
        .prepare_cached(count_sql)?
        .query_row(rusqlite::params_from_iter(count_args), |r| r.get(0))?;
    let total = total.unwrap_or(0);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT m.title_id, coalesce(t.name, m.title_id), m.kind, m.id, m.name,
                m.installed_version, m.latest_version, m.latest_date
         FROM missing m LEFT JOIN title_state t ON t.base_id = m.title_id
         WHERE {clause}"
    ))?;
    let rows = stmt.query_map(rusqlite::params_from_iter(&args), row)?;
    Ok((total as u64, rows.collect::<Result<_, _>>()?))
}

/// Every row of one kind or both, in the list's order, each handed to `each` as it is
/// read (the CSV never holds the whole list: 44,000 rows at 100,000 games).
pub fn each(
    conn: &Connection,
    kind: Option<MissingKind>,
    mut each: impl FnMut(Missing) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.title_id, coalesce(t.name, m.title_id), m.kind, m.id, m.name,
                m.installed_version, m.latest_version, m.latest_date
         FROM missing m LEFT JOIN title_state t ON t.base_id = m.title_id
         WHERE ?1 IS NULL OR m.kind = ?1 ORDER BY m.rank",
    )?;
    let mut rows = stmt.query([kind.map(|k| k.as_str())])?;
    while let Some(r) = rows.next()? {
        each(row(r)?)?;
    }
    Ok(())
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Missing> {
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
}

fn clamp(n: u64) -> i64 {
    n.min(i64::MAX as u64) as i64
}
