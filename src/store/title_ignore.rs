//! The `title_ignore` table: what the user does not want counted as missing, per
//! title (a base ID) or for every title (`*`).

use std::collections::HashMap;

use rusqlite::{params, Connection};

use crate::error::Error;
use crate::words::TitleId;

/// The row that stands for every title (`None` in what this module takes and gives).
const EVERY_TITLE: &str = "*";

/// What is ignored: (DLC, updates).
pub type Ignored = (bool, bool);

/// The text of a row's key: a base ID, or `*` for every title.
fn key(title: Option<TitleId>) -> String {
    title.map_or_else(|| EVERY_TITLE.to_string(), |id| id.to_string())
}

/// Add to (or, with `on` false, take from) what is ignored for `title` (`None`: for
/// every title).
pub fn set(
    conn: &Connection,
    title: Option<TitleId>,
    dlc: bool,
    updates: bool,
    on: bool,
) -> Result<(), Error> {
    let (was_dlc, was_updates) = all(conn)?.get(&title).copied().unwrap_or_default();
    let dlc = if dlc { on } else { was_dlc };
    let updates = if updates { on } else { was_updates };
    if dlc || updates {
        conn.prepare_cached(
            "INSERT INTO title_ignore (title_id, dlc, updates) VALUES (?1, ?2, ?3)
             ON CONFLICT(title_id) DO UPDATE SET dlc = excluded.dlc, updates = excluded.updates",
        )?
        .execute(params![key(title), dlc, updates])?;
    } else {
        conn.prepare_cached("DELETE FROM title_ignore WHERE title_id = ?1")?
            .execute([key(title)])?;
    }
    Ok(())
}

/// What is ignored, by title (`None`: for every title).
pub fn all(conn: &Connection) -> Result<HashMap<Option<TitleId>, Ignored>, Error> {
    let mut stmt = conn.prepare_cached("SELECT title_id, dlc, updates FROM title_ignore")?;
    let rows = stmt.query_map([], |r| {
        let key: String = r.get(0)?;
        Ok((key, (r.get(1)?, r.get(2)?)))
    })?;
    let mut out = HashMap::new();
    for row in rows {
        let (key, ignored) = row?;
        // Only `set` writes the table: a key is `*` or a base ID.
        let title = match TitleId::parse(&key) {
            Some(id) => Some(id),
            None if key == EVERY_TITLE => None,
            None => continue,
        };
        out.insert(title, ignored);
    }
    Ok(out)
}
