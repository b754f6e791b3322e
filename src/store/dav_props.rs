//! The `dav_props` table: WebDAV's dead properties (RFC 4918 §4), what a client set
//! with `PROPPATCH` on a file or folder of a console's space, kept by path. They
//! follow their resource through `COPY` and `MOVE` and go with it on `DELETE`.

use rusqlite::{params, Connection};

use crate::error::Error;

/// A property: its namespace (`""` for none), its name, its value (an XML fragment).
#[derive(Debug, Clone, PartialEq)]
pub struct Prop {
    pub ns: String,
    pub name: String,
    pub value: String,
}

/// The properties of one resource.
pub fn of(conn: &Connection, console: &str, path: &str) -> Result<Vec<Prop>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT ns, name, value FROM dav_props WHERE console = ?1 AND path = ?2
         ORDER BY ns, name",
    )?;
    super::all(&mut stmt, params![console, path], |r| {
        Ok(Prop {
            ns: r.get(0)?,
            name: r.get(1)?,
            value: r.get(2)?,
        })
    })
}

/// The bytes of a console's dead properties' values (its quota counts them).
pub fn bytes_of(conn: &Connection, console: &str) -> Result<u64, Error> {
    let n: i64 = conn.query_row(
        "SELECT coalesce(sum(length(value)), 0) FROM dav_props WHERE console = ?1",
        [console],
        |r| r.get(0),
    )?;
    Ok(n as u64)
}

pub fn set(conn: &Connection, console: &str, path: &str, p: &Prop) -> Result<(), Error> {
    conn.execute(
        "INSERT INTO dav_props (console, path, ns, name, value) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT DO UPDATE SET value = excluded.value",
        params![console, path, p.ns, p.name, p.value],
    )?;
    Ok(())
}

pub fn remove(
    conn: &Connection,
    console: &str,
    path: &str,
    ns: &str,
    name: &str,
) -> Result<(), Error> {
    conn.execute(
        "DELETE FROM dav_props WHERE console = ?1 AND path = ?2 AND ns = ?3 AND name = ?4",
        params![console, path, ns, name],
    )?;
    Ok(())
}

/// The SQL test of "`path` is `?2` or below it" (no `LIKE`: a `%` in a name is no
/// wildcard).
const UNDER: &str = "(path = ?2 OR substr(path, 1, length(?2) + 1) = ?2 || '/')";

/// Forget the properties of a resource and of everything below it.
pub fn forget_tree(conn: &Connection, console: &str, path: &str) -> Result<(), Error> {
    conn.execute(
        &format!("DELETE FROM dav_props WHERE console = ?1 AND {UNDER}"),
        params![console, path],
    )?;
    Ok(())
}

/// Copy (or, with `keep` false, move) the properties of `from` and below to `to`.
pub fn copy_tree(
    conn: &Connection,
    console: &str,
    from: &str,
    to: &str,
    keep: bool,
) -> Result<(), Error> {
    forget_tree(conn, console, to)?;
    conn.execute(
        &format!(
            "INSERT INTO dav_props (console, path, ns, name, value)
             SELECT console, ?3 || substr(path, length(?2) + 1), ns, name, value
             FROM dav_props WHERE console = ?1 AND {UNDER}"
        ),
        params![console, from, to],
    )?;
    if !keep {
        forget_tree(conn, console, from)?;
    }
    Ok(())
}
