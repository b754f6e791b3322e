//! The library's generation: a counter that triggers on `games` bump at every insert,
//! update and delete, whoever writes. Whatever was computed from the games at one
//! generation is still true while the number has not moved.

use rusqlite::Connection;

use crate::error::Error;

pub fn current(conn: &Connection) -> Result<i64, Error> {
    Ok(conn
        .prepare_cached("SELECT n FROM library_generation")?
        .query_row([], |r| r.get(0))?)
}

/// For writes the triggers do not see (the search index rebuilt after a scan).
pub fn bump(conn: &Connection) -> Result<(), Error> {
    conn.execute("UPDATE library_generation SET n = n + 1", [])?;
    Ok(())
}
