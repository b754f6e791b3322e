//! The `sessions` table: signed-in browsers. Only the SHA-256 of a session token is
//! kept, so a copy of the database does not let anyone in.

use rusqlite::{params, Connection, OptionalExtension};

use super::users::{self, User};
use crate::error::Error;

pub fn insert(
    conn: &Connection,
    hash: &[u8],
    user_id: i64,
    now: i64,
    expires_at: i64,
) -> Result<(), Error> {
    conn.execute(
        "INSERT INTO sessions (hash, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![hash, user_id, now, expires_at],
    )?;
    Ok(())
}

/// The account of a session that has not expired.
pub fn user(conn: &Connection, hash: &[u8], now: i64) -> Result<Option<User>, Error> {
    Ok(conn
        .query_row(
            "SELECT u.id, u.name, u.role, u.lang, u.created_at
             FROM sessions s JOIN users u ON u.id = s.user_id
             WHERE s.hash = ?1 AND s.expires_at > ?2",
            params![hash, now],
            users::from_row,
        )
        .optional()?)
}

pub fn delete(conn: &Connection, hash: &[u8]) -> Result<(), Error> {
    conn.execute("DELETE FROM sessions WHERE hash = ?1", [hash])?;
    Ok(())
}

/// Sign an account out everywhere (after a password change).
pub fn delete_for_user(conn: &Connection, user_id: i64) -> Result<usize, Error> {
    Ok(conn.execute("DELETE FROM sessions WHERE user_id = ?1", [user_id])?)
}

pub fn delete_expired(conn: &Connection, now: i64) -> Result<usize, Error> {
    Ok(conn.execute("DELETE FROM sessions WHERE expires_at <= ?1", [now])?)
}
