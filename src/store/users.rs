//! The `users` table: accounts of the web interface. A password is kept only as an
//! Argon2id hash string (PHC format, salt and parameters included).

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::error::Error;
use crate::words::{Lang, Role};

#[derive(Debug, Clone)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub role: Role,
    pub lang: Lang,
    pub created_at: i64,
}

impl User {
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }
}

const COLUMNS: &str = "id, name, role, lang, created_at";

/// A user from the columns `id, name, role, lang, created_at`, in that order.
pub fn from_row(r: &Row<'_>) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(0)?,
        name: r.get(1)?,
        role: r.get(2)?,
        lang: r.get(3)?,
        created_at: r.get(4)?,
    })
}

pub fn count(conn: &Connection) -> Result<i64, Error> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM users")?
        .query_row([], |r| r.get(0))?)
}

/// Insert an account whose pages are in `lang`; `None` when the name is taken (names
/// compare whatever their case and Unicode form: the unique `folded` column,
/// `text::fold`).
pub fn insert_in(
    conn: &Connection,
    name: &str,
    hash: &str,
    role: Role,
    lang: Lang,
    now: i64,
) -> Result<Option<i64>, Error> {
    let n = conn.execute(
        "INSERT INTO users (name, folded, hash, role, lang, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
        params![name, crate::text::fold(name), hash, role, lang, now],
    )?;
    Ok((n == 1).then(|| conn.last_insert_rowid()))
}

/// Insert the first account only while there is none, in one statement, so two
/// first-run forms sent at once cannot both create an admin.
pub fn insert_first(
    conn: &Connection,
    name: &str,
    hash: &str,
    lang: Lang,
    now: i64,
) -> Result<bool, Error> {
    let n = conn.execute(
        "INSERT INTO users (name, folded, hash, role, lang, created_at)
         SELECT ?1, ?2, ?3, 'admin', ?4, ?5 WHERE NOT EXISTS (SELECT 1 FROM users)",
        params![name, crate::text::fold(name), hash, lang, now],
    )?;
    Ok(n == 1)
}

pub fn list(conn: &Connection) -> Result<Vec<User>, Error> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM users ORDER BY name"))?;
    super::all(&mut stmt, [], from_row)
}

/// The account and its password hash, by name: the one of that name (without ASCII
/// case, the column's collation), or else the one whose name is the same whatever its
/// case and Unicode form.
pub fn by_name(conn: &Connection, name: &str) -> Result<Option<(User, String)>, Error> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {COLUMNS}, hash FROM users WHERE name = ?1 OR folded = ?2
                 ORDER BY name = ?1 DESC LIMIT 1"
            ),
            params![name, crate::text::fold(name)],
            |r| Ok((from_row(r)?, r.get(5)?)),
        )
        .optional()?)
}

pub fn set_hash(conn: &Connection, id: i64, hash: &str) -> Result<(), Error> {
    conn.execute(
        "UPDATE users SET hash = ?2 WHERE id = ?1",
        params![id, hash],
    )?;
    Ok(())
}

pub fn set_lang(conn: &Connection, id: i64, lang: Lang) -> Result<(), Error> {
    conn.execute(
        "UPDATE users SET lang = ?2 WHERE id = ?1",
        params![id, lang],
    )?;
    Ok(())
}

/// Delete an account (its sessions go with it) unless it is the last admin: one
/// statement, so two admins removing each other at once cannot both succeed.
/// False when nothing was deleted (no such account, or the last admin).
pub fn delete_unless_last_admin(conn: &Connection, id: i64) -> Result<bool, Error> {
    Ok(conn.execute(
        "DELETE FROM users WHERE id = ?1
           AND (role <> 'admin' OR (SELECT count(*) FROM users WHERE role = 'admin') > 1)",
        [id],
    )? == 1)
}

/// Give an account a role, unless that takes the last admin away (one statement,
/// as above). False when nothing changed that way.
pub fn set_role_unless_last_admin(conn: &Connection, id: i64, role: Role) -> Result<bool, Error> {
    Ok(conn.execute(
        "UPDATE users SET role = ?2 WHERE id = ?1
           AND (?2 = 'admin' OR role <> 'admin'
                OR (SELECT count(*) FROM users WHERE role = 'admin') > 1)",
        params![id, role],
    )? == 1)
}

/// Delete an account (its sessions go with it); false when there was none.
pub fn delete(conn: &Connection, name: &str) -> Result<bool, Error> {
    Ok(conn.execute("DELETE FROM users WHERE name = ?1", [name])? == 1)
}
