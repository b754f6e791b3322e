//! Accounts of the web interface: passwords, sign-in and sessions.
//!
//! - A password is kept as an Argon2id hash (the `argon2` crate's defaults: 19 MiB,
//!   2 passes), so a stolen database does not give the passwords away cheaply.
//! - A session is a random token the browser keeps in an `HttpOnly; SameSite=Strict`
//!   cookie; the service keeps only its SHA-256, with an expiry ([`SESSION_DAYS`]).
//!   Signing out deletes it; changing a password deletes all of the account's.
//! - A wrong name and a wrong password fail the same way, after the same work (a
//!   hash is checked even for an unknown name), so sign-in does not tell which names
//!   exist.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use rand::distr::{Alphanumeric, SampleString};
use rusqlite::Connection;
use sha2::{Digest, Sha256};
use std::sync::{Mutex, OnceLock};

use crate::error::Error;
use crate::store::{sessions, users, users::User};
use crate::time;

/// The name of the session cookie.
pub const COOKIE: &str = "ldq_session";
/// How long a session lasts from sign-in.
pub const SESSION_DAYS: i64 = 14;
/// Shortest password accepted.
pub const MIN_PASSWORD: usize = 8;
/// Longest password accepted: Argon2 takes any length, but a huge one is only a way to
/// make the server work.
pub const MAX_PASSWORD: usize = 1024;

pub const ROLES: [&str; 2] = ["admin", "viewer"];
pub const LANGS: [&str; 2] = ["fr", "en"];

/// One Argon2 computation at a time: each takes 19 MiB and a core's worth of work, and
/// a burst of sign-ins from many addresses must not take all the memory of a small host.
static ARGON2: Mutex<()> = Mutex::new(());

fn hash_password(password: &str) -> Result<String, Error> {
    check_password(password)?;
    let _one = ARGON2.lock().unwrap_or_else(|p| p.into_inner());
    let mut bytes = [0u8; 16];
    rand::fill(&mut bytes);
    let salt = SaltString::encode_b64(&bytes).map_err(Error::internal)?;
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(Error::internal)?
        .to_string())
}

fn verify(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        let _one = ARGON2.lock().unwrap_or_else(|p| p.into_inner());
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

fn check_password(password: &str) -> Result<(), Error> {
    let n = password.chars().count();
    if n < MIN_PASSWORD {
        return Err(Error::bad_request(format!(
            "A password needs at least {MIN_PASSWORD} characters."
        )));
    }
    if password.len() > MAX_PASSWORD {
        return Err(Error::bad_request(format!(
            "A password has at most {MAX_PASSWORD} bytes."
        )));
    }
    Ok(())
}

/// Names are what people type to sign in: 1 to 64 characters, no control characters,
/// no spaces at either end.
fn check_name(name: &str) -> Result<(), Error> {
    if name.is_empty() || name.chars().count() > 64 || name.trim() != name {
        return Err(Error::bad_request(
            "A name has 1 to 64 characters and no spaces at either end.",
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::bad_request("A name cannot hold control characters."));
    }
    Ok(())
}

fn check_role(role: &str) -> Result<(), Error> {
    if ROLES.contains(&role) {
        Ok(())
    } else {
        Err(Error::bad_request("A role is 'admin' or 'viewer'."))
    }
}

/// Create an account. A taken name (whatever its case) is a conflict.
pub fn add(conn: &Connection, name: &str, password: &str, role: &str) -> Result<i64, Error> {
    check_name(name)?;
    check_role(role)?;
    let hash = hash_password(password)?;
    users::insert(conn, name, &hash, role, time::now())?
        .ok_or_else(|| Error::conflict("An account with that name already exists."))
}

/// Create the first admin from the first-run page; a conflict once any account exists.
pub fn add_first(conn: &Connection, name: &str, password: &str) -> Result<(), Error> {
    check_name(name)?;
    let hash = hash_password(password)?;
    if users::insert_first(conn, name, &hash, time::now())? {
        Ok(())
    } else {
        Err(Error::conflict(
            "An account already exists: sign in instead.",
        ))
    }
}

/// Change a password, and sign the account out everywhere. Returns the sessions ended.
pub fn set_password(conn: &Connection, name: &str, password: &str) -> Result<usize, Error> {
    let (user, _) =
        users::by_name(conn, name)?.ok_or_else(|| Error::not_found("No account has that name."))?;
    let hash = hash_password(password)?;
    users::set_hash(conn, user.id, &hash)?;
    sessions::delete_for_user(conn, user.id)
}

/// The account for a name and password, or `login_failed`.
pub fn check_login(conn: &Connection, name: &str, password: &str) -> Result<User, Error> {
    // Checking a hash for an unknown name too keeps both failures equally slow.
    static DECOY: OnceLock<String> = OnceLock::new();
    let decoy = DECOY.get_or_init(|| {
        hash_password(&Alphanumeric.sample_string(&mut rand::rng(), 24)).unwrap_or_default()
    });
    let found = users::by_name(conn, name)?;
    let hash = found.as_ref().map_or(decoy.as_str(), |(_, h)| h.as_str());
    let ok = password.len() <= MAX_PASSWORD && verify(password, hash);
    match found {
        Some((user, _)) if ok => Ok(user),
        _ => Err(Error::login_failed()),
    }
}

fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Start a session; the token is returned once, for the cookie.
pub fn open_session(conn: &Connection, user: &User) -> Result<String, Error> {
    let token = Alphanumeric.sample_string(&mut rand::rng(), 43);
    let now = time::now();
    sessions::delete_expired(conn, now)?;
    sessions::insert(
        conn,
        &token_hash(&token),
        user.id,
        now,
        now + SESSION_DAYS * 86_400,
    )?;
    Ok(token)
}

/// The account of a live session token.
pub fn session_user(conn: &Connection, token: &str) -> Result<Option<User>, Error> {
    if token.is_empty() || token.len() > 128 {
        return Ok(None);
    }
    sessions::user(conn, &token_hash(token), time::now())
}

pub fn close_session(conn: &Connection, token: &str) -> Result<(), Error> {
    sessions::delete(conn, &token_hash(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::store::db::open_and_migrate(dir.path()).unwrap();
        std::mem::forget(dir);
        conn
    }

    #[test]
    fn passwords_check_and_sessions_follow_the_account() {
        let conn = db();
        add(&conn, "Alice", "correct horse", "admin").unwrap();
        let refused = |name: &str, password: &str, role: &str| {
            add(&conn, name, password, role).unwrap_err().status
        };
        assert_eq!(refused("alice", "other password", "viewer"), 409);
        assert_eq!(refused("bob", "short", "viewer"), 400);
        assert_eq!(refused(" bob", "long enough", "viewer"), 400);
        assert_eq!(refused("bob", "long enough", "root"), 400);
        assert!(check_login(&conn, "alice", "correct horse").is_ok());
        assert_eq!(
            check_login(&conn, "alice", "wrong horse")
                .unwrap_err()
                .status,
            401
        );
        assert_eq!(
            check_login(&conn, "nobody", "correct horse")
                .unwrap_err()
                .status,
            401
        );

        let user = check_login(&conn, "Alice", "correct horse").unwrap();
        let token = open_session(&conn, &user).unwrap();
        assert_eq!(session_user(&conn, &token).unwrap().unwrap().name, "Alice");
        assert!(session_user(&conn, "forged").unwrap().is_none());
        assert_eq!(set_password(&conn, "alice", "new password!").unwrap(), 1);
        assert!(session_user(&conn, &token).unwrap().is_none());
        assert!(check_login(&conn, "alice", "new password!").is_ok());

        // An expired session is no session.
        sessions::insert(&conn, &token_hash("old"), user.id, 0, time::now() - 1).unwrap();
        assert!(session_user(&conn, "old").unwrap().is_none());

        let other = open_session(&conn, &user).unwrap();
        close_session(&conn, &other).unwrap();
        assert!(session_user(&conn, &other).unwrap().is_none());
        assert!(add_first(&conn, "mallory", "long enough").is_err());
    }
}
