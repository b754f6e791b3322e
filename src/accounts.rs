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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

use crate::error::{Error, Kind, Msg};
use crate::store::{sessions, users, users::User};
use crate::time;
use crate::words::{Lang, Role};

/// The name of the session cookie.
pub const COOKIE: &str = "ldq_session";
/// How long a session lasts from sign-in.
pub const SESSION_DAYS: i64 = 14;
/// Shortest password accepted.
pub const MIN_PASSWORD: usize = 8;
/// Longest password accepted: Argon2 takes any length, but a huge one is only a way to
/// make the server work.
pub const MAX_PASSWORD: usize = 1024;

/// Argon2 computations under way and waiting. Each takes 19 MiB and a core's worth of
/// work, and each holds a request worker while it runs or waits: a burst of sign-ins
/// from many addresses must take neither the memory of a small host nor every worker
/// (`/api/v1/health` and keyed API requests need one). At most [`HASHING`] run at
/// once; a few more wait; past that the caller gets 503 `overloaded` at once.
struct Gate {
    /// (running, waiting).
    state: Mutex<(usize, usize)>,
    freed: Condvar,
    max_running: AtomicUsize,
    max_waiting: AtomicUsize,
}

/// The most hashes at once.
const HASHING: usize = 2;

static ARGON2: Gate = Gate {
    state: Mutex::new((0, 0)),
    freed: Condvar::new(),
    max_running: AtomicUsize::new(HASHING),
    max_waiting: AtomicUsize::new(2),
};

/// Size the gate to the service's workers: everything in it, running or waiting,
/// stays within half of them (one hash at least).
pub fn limit_hashing(workers: usize) {
    let running = HASHING.min(workers / 2).max(1);
    let waiting = (workers / 2).saturating_sub(running).min(4);
    ARGON2.max_running.store(running, Ordering::Relaxed);
    ARGON2.max_waiting.store(waiting, Ordering::Relaxed);
}

/// A place in the gate, given back on drop.
struct Hashing;

impl Gate {
    fn enter(&'static self) -> Result<Hashing, Error> {
        let running = self.max_running.load(Ordering::Relaxed);
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.0 >= running {
            if state.1 >= self.max_waiting.load(Ordering::Relaxed) {
                return Err(Error::overloaded());
            }
            state.1 += 1;
            while state.0 >= running {
                state = self.freed.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            state.1 -= 1;
        }
        state.0 += 1;
        Ok(Hashing)
    }
}

impl Drop for Hashing {
    fn drop(&mut self) {
        let mut state = ARGON2.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0 -= 1;
        ARGON2.freed.notify_one();
    }
}

fn hash_password(password: &str) -> Result<String, Error> {
    check_password(password)?;
    let _place = ARGON2.enter()?;
    new_hash(password)
}

fn new_hash(password: &str) -> Result<String, Error> {
    let mut bytes = [0u8; 16];
    rand::fill(&mut bytes);
    let salt = SaltString::encode_b64(&bytes).map_err(Error::internal)?;
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(Error::internal)?
        .to_string())
}

fn verify(password: &str, hash: &str) -> Result<bool, Error> {
    let Ok(parsed) = PasswordHash::new(hash) else {
        return Ok(false);
    };
    let _place = ARGON2.enter()?;
    Ok(Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok())
}

fn check_password(password: &str) -> Result<(), Error> {
    let n = password.chars().count();
    if n < MIN_PASSWORD {
        return Err(Error::invalid(Msg::PasswordTooShort { min: MIN_PASSWORD }));
    }
    if password.len() > MAX_PASSWORD {
        return Err(Error::invalid(Msg::PasswordTooLong { max: MAX_PASSWORD }));
    }
    Ok(())
}

/// Names are what people type to sign in (see `text::name`); the NFC form is kept.
fn check_name(name: &str) -> Result<String, Error> {
    crate::text::name("An account name", name)
}

/// `admin` or `viewer`, as a form or a route says it.
pub fn parse_role(role: &str) -> Result<Role, Error> {
    Role::parse(role).ok_or_else(|| Error::invalid(Msg::BadRole))
}

/// Create an account whose pages are in `lang` (`fr` or `en`): the language the admin
/// who makes it picks, or the command line's. A taken name (whatever its case and
/// Unicode form, `text::fold`) is a conflict.
pub fn add_in(
    conn: &Connection,
    name: &str,
    password: &str,
    role: Role,
    lang: Lang,
) -> Result<i64, Error> {
    let name = check_name(name)?;
    let hash = hash_password(password)?;
    users::insert_in(conn, &name, &hash, role, lang, time::now())?
        .ok_or_else(|| Error::conflict(Msg::AccountExists))
}

/// The account a trusted proxy names (`--auth-header`); with `create`, one that does not
/// exist is made, a viewer in `lang` without a password (it signs in through the proxy
/// only, until an admin gives it one). `None` for a name no account has, or one no
/// account could have.
pub fn proxy_user(
    conn: &Connection,
    name: &str,
    create: bool,
    lang: Lang,
) -> Result<Option<User>, Error> {
    if let Some((user, _)) = users::by_name(conn, name)? {
        return Ok(Some(user));
    }
    let Ok(name) = check_name(name) else {
        say_once(name, "an account no account could have");
        return Ok(None);
    };
    if !create {
        say_once(&name, "who has no account (--auth-header-create makes it)");
        return Ok(None);
    }
    // A viewer made first would leave no way to make the first admin on the web (the
    // first-run page is for a service without accounts).
    if users::count(conn)? == 0 {
        say_once(
            &name,
            "but no account exists yet: make the first admin at /setup first",
        );
        return Ok(None);
    }
    // No hash: no password opens it (`verify` refuses what is not a hash).
    users::insert_in(conn, &name, "", Role::Viewer, lang, time::now())?;
    log::info!("account {name:?} created as a viewer for the proxy's sign-in");
    Ok(users::by_name(conn, &name)?.map(|(user, _)| user))
}

/// Why the proxy's name signs no one in, logged once per name (the proxy sends it with
/// every request): at most 1,000 names are remembered.
fn say_once(name: &str, why: &str) {
    static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
    if said.iter().any(|n| n == name) {
        return;
    }
    if said.len() >= 1000 {
        said.clear();
    }
    said.push(name.to_string());
    log::warn!("the proxy names {name:?}, {why}");
}

/// `fr` or `en`, as a form says it.
pub fn parse_lang(lang: &str) -> Result<Lang, Error> {
    Lang::parse(lang).ok_or_else(|| Error::invalid(Msg::BadLang))
}

/// Create the first admin from the first-run page, in the language that page was
/// shown in; a conflict once any account exists.
pub fn add_first(conn: &Connection, name: &str, password: &str, lang: Lang) -> Result<(), Error> {
    let name = check_name(name)?;
    let hash = hash_password(password)?;
    if users::insert_first(conn, &name, &hash, lang, time::now())? {
        Ok(())
    } else {
        Err(Error::conflict(Msg::AlreadySetUp))
    }
}

/// Change a password, and sign the account out everywhere. Returns the sessions ended.
pub fn set_password(conn: &Connection, name: &str, password: &str) -> Result<usize, Error> {
    let (user, _) = users::by_name(conn, name)?
        .ok_or_else(|| Error::not_found(Msg::NoAccount { name: name.into() }))?;
    let hash = hash_password(password)?;
    users::set_hash(conn, user.id, &hash)?;
    sessions::delete_for_user(conn, user.id)
}

/// The account of a name, or `no_account`.
fn named(conn: &Connection, name: &str) -> Result<User, Error> {
    Ok(users::by_name(conn, name)?
        .ok_or_else(|| Error::not_found(Msg::NoAccount { name: name.into() }))?
        .0)
}

/// An admin acting on an account from the web: never on their own (`by`, the
/// signed-in account; `None` for the loopback rule, which has none). Removing or
/// demoting yourself would cut the branch you sit on, and a reset would skip the
/// current password that the own-password form asks for.
fn someone_else(conn: &Connection, name: &str, by: Option<i64>) -> Result<User, Error> {
    let user = named(conn, name)?;
    if by == Some(user.id) {
        return Err(Error::conflict(Msg::NotOnYourself));
    }
    Ok(user)
}

/// Remove an account (`by` as in [`someone_else`]); its sessions end with it. The
/// last admin stays.
pub fn remove(conn: &Connection, name: &str, by: Option<i64>) -> Result<User, Error> {
    let user = someone_else(conn, name, by)?;
    if !users::delete_unless_last_admin(conn, user.id)? {
        return Err(Error::conflict(Msg::LastAdmin));
    }
    // The table's cascade already took them; said again so it never depends on it.
    sessions::delete_for_user(conn, user.id)?;
    Ok(user)
}

/// Give an account a role (`by` as in [`someone_else`]). The last admin stays one.
pub fn set_role(conn: &Connection, name: &str, role: Role, by: Option<i64>) -> Result<User, Error> {
    let user = someone_else(conn, name, by)?;
    if !users::set_role_unless_last_admin(conn, user.id, role)? {
        return Err(Error::conflict(Msg::LastAdmin));
    }
    Ok(User { role, ..user })
}

/// An admin sets another account's password (`by` as in [`someone_else`]): that
/// account is signed out everywhere. Returns the sessions ended.
pub fn reset_password(
    conn: &Connection,
    name: &str,
    password: &str,
    by: Option<i64>,
) -> Result<usize, Error> {
    let user = someone_else(conn, name, by)?;
    set_password(conn, &user.name, password)
}

/// The account for a name and password, or `login_failed`.
pub fn check_login(conn: &Connection, name: &str, password: &str) -> Result<User, Error> {
    // Checking a hash for an unknown name too keeps both failures equally slow.
    static DECOY: OnceLock<String> = OnceLock::new();
    // Made once, outside the gate: a decoy lost to an overload would make unknown
    // names answer faster.
    let decoy = DECOY.get_or_init(|| {
        new_hash(&Alphanumeric.sample_string(&mut rand::rng(), 24)).unwrap_or_default()
    });
    let found = users::by_name(conn, name)?;
    let hash = found.as_ref().map_or(decoy.as_str(), |(_, h)| h.as_str());
    let ok = password.len() <= MAX_PASSWORD && verify(password, hash)?;
    match found {
        Some((user, _)) if ok => Ok(user),
        _ => Err(Error::new(Kind::Unauthorized, Msg::LoginFailed)),
    }
}

/// A setup code for the first admin, while no account exists: written to the log
/// (standard error) at start, as Jupyter does with its token, so that only someone who
/// can read the service's log can create the first account from another machine (or
/// from anywhere under `--no-local-access`). `None` once an account exists.
pub fn setup_code(conn: &Connection) -> Result<Option<String>, Error> {
    if users::count(conn)? > 0 {
        return Ok(None);
    }
    let code = Alphanumeric.sample_string(&mut rand::rng(), 24);
    let line = format!(
        "no account exists yet: create the first admin at /setup with the setup code {code} \
         (or run `ludotheque user add NAME --admin`)"
    );
    // Shown even when the log level hides warnings: it is the way in.
    if log::log_enabled!(log::Level::Warn) {
        log::warn!("{line}");
    } else {
        eprintln!("{line}");
    }
    Ok(Some(code))
}

/// Compare a presented secret with the expected one in constant time: how long the
/// comparison takes says nothing of how many leading characters were right.
pub fn same_secret(presented: &str, expected: &str) -> bool {
    use subtle::ConstantTimeEq;
    // Hashing first gives both sides the same length whatever was sent.
    let (a, b) = (Sha256::digest(presented), Sha256::digest(expected));
    a.ct_eq(&b).into()
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
        add_in(&conn, "Alice", "correct horse", Role::Admin, Lang::Fr).unwrap();
        let refused = |name: &str, password: &str, role: &str| {
            parse_role(role)
                .and_then(|role| add_in(&conn, name, password, role, Lang::Fr))
                .unwrap_err()
                .kind
        };
        assert_eq!(refused("alice", "other password", "viewer"), Kind::Conflict);
        assert_eq!(refused("bob", "short", "viewer"), Kind::Invalid);
        assert_eq!(refused(" bob", "long enough", "viewer"), Kind::Invalid);
        assert_eq!(refused("bob", "long enough", "root"), Kind::Invalid);
        assert!(check_login(&conn, "alice", "correct horse").is_ok());
        assert_eq!(
            check_login(&conn, "alice", "wrong horse").unwrap_err().kind,
            Kind::Unauthorized
        );
        assert_eq!(
            check_login(&conn, "nobody", "correct horse")
                .unwrap_err()
                .kind,
            Kind::Unauthorized
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
        assert!(add_first(&conn, "mallory", "long enough", Lang::Fr).is_err());
    }
}
