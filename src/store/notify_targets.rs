//! The `notify_targets` table: the notification targets added in Settings, and the
//! events each target (added there or given at start) gets once narrowed.

use rusqlite::{params, Connection};

use crate::error::Error;
use crate::words::NoticeEvent;

/// A row: the target's id and URL, its events, and whether Settings added it.
#[derive(Debug, Clone)]
pub struct TargetRow {
    pub id: String,
    pub url: String,
    pub events: Vec<NoticeEvent>,
    pub added: bool,
}

fn events_text(events: &[NoticeEvent]) -> String {
    events
        .iter()
        .map(|e| e.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// Every row, by id.
pub fn all(conn: &Connection) -> Result<Vec<TargetRow>, Error> {
    let mut stmt =
        conn.prepare_cached("SELECT id, url, events, added FROM notify_targets ORDER BY id")?;
    let rows = stmt.query_map([], |r| {
        let events: String = r.get(2)?;
        Ok(TargetRow {
            id: r.get(0)?,
            url: r.get(1)?,
            events: events.split(',').filter_map(NoticeEvent::parse).collect(),
            added: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Add a target in Settings; `false` when one of that id exists already.
pub fn add(conn: &Connection, id: &str, url: &str, events: &[NoticeEvent]) -> Result<bool, Error> {
    let n = conn.execute(
        "INSERT INTO notify_targets (id, url, events, added) VALUES (?1, ?2, ?3, 1)
         ON CONFLICT DO NOTHING",
        params![id, url, events_text(events)],
    )?;
    Ok(n == 1)
}

/// Set the events of a target: an added one's row, or a row kept for a target given
/// at start.
pub fn set_events(
    conn: &Connection,
    id: &str,
    url: &str,
    events: &[NoticeEvent],
) -> Result<(), Error> {
    conn.execute(
        "INSERT INTO notify_targets (id, url, events, added) VALUES (?1, ?2, ?3, 0)
         ON CONFLICT(id) DO UPDATE SET events = excluded.events",
        params![id, url, events_text(events)],
    )?;
    Ok(())
}

/// Give a kept target another URL (and so another id), keeping its events; a row of
/// the new id already there wins and the old one goes.
pub fn rename(conn: &Connection, id: &str, new_id: &str, new_url: &str) -> Result<(), Error> {
    let moved = conn.execute(
        "UPDATE OR IGNORE notify_targets SET id = ?2, url = ?3 WHERE id = ?1",
        params![id, new_id, new_url],
    )?;
    if moved == 0 {
        conn.execute("DELETE FROM notify_targets WHERE id = ?1", [id])?;
    }
    Ok(())
}

/// Remove a target added in Settings; `false` when there was none of that id.
pub fn remove(conn: &Connection, id: &str) -> Result<bool, Error> {
    Ok(conn.execute(
        "DELETE FROM notify_targets WHERE id = ?1 AND added = 1",
        [id],
    )? == 1)
}
