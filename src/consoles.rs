//! Console passwords: the credential an installer on a console (Tinfoil, CyberFoil,
//! DBI, Sphaira…) sends to pull from the shop, with HTTP Basic (user = the console's
//! name). API keys stay what the public contract says they are (`/api/v1/` only), so
//! consoles get a credential of their own that opens the shop routes and nothing else.
//!
//! A password is 16 random characters in four groups (`k7mq-x2rd-…`), from an
//! alphabet without look-alikes, to be typed with a controller: about 79 bits. Being
//! random and long, it is stored as a plain SHA-256, like API keys; a slow hash
//! (Argon2) would cost every one of the hundreds of `Range` requests an install makes.

use rand::Rng;
use rusqlite::Connection;
use sha2::{Digest, Sha256};

use crate::error::{Error, Msg};
use crate::store::consoles::{self, Console};
use crate::time;

/// Lower-case letters and digits without `0 o 1 l i`.
const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
const GROUPS: usize = 4;
const GROUP_LEN: usize = 4;
/// How stale `last_used_at` may be before a use is written down again.
const TOUCH_EVERY_S: i64 = 60;

fn hash(password: &str) -> Vec<u8> {
    Sha256::digest(password.as_bytes()).to_vec()
}

fn new_password() -> String {
    let mut rng = rand::rng();
    let groups: Vec<String> = (0..GROUPS)
        .map(|_| {
            (0..GROUP_LEN)
                .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
                .collect()
        })
        .collect();
    groups.join("-")
}

/// A console's name: a name like any other (`text::name`, whose NFC form it
/// returns), without `:` (HTTP Basic ends the user name at the first one), and not an
/// IP address (nor `.` or `..`): with `--shop-public` a client without credentials is known by its
/// address, in the download history and for its share of download slots, and a
/// console named `127.0.0.1` would share both with it.
pub fn check_name(name: &str) -> Result<String, Error> {
    let name = crate::text::name("A console's name", name)?;
    if name.contains(':') {
        return Err(Error::invalid(Msg::ConsoleNameColon));
    }
    // The web page's buttons put the name in a path, where a browser resolves these.
    if name == "." || name == ".." {
        return Err(Error::invalid(Msg::ConsoleNameDots));
    }
    if name.parse::<std::net::IpAddr>().is_ok() {
        return Err(Error::invalid(Msg::ConsoleNameAddress));
    }
    Ok(name)
}

/// Add a console; its password is returned once and never again. A name taken
/// whatever its case and Unicode form (`text::fold`) is a conflict.
pub fn add(conn: &Connection, name: &str) -> Result<(Console, String), Error> {
    let name = check_name(name.trim())?;
    let password = new_password();
    if !consoles::insert(conn, &name, &hash(&password), time::now())? {
        return Err(Error::conflict(Msg::ConsoleExists { name }));
    }
    let (console, _) = consoles::by_name(conn, &name)?
        .ok_or_else(|| Error::internal("the console just added is gone"))?;
    Ok((console, password))
}

/// Remove a console (named as in `store::consoles::by_name`): its password stops
/// working at once.
pub fn remove(conn: &Connection, name: &str) -> Result<(), Error> {
    let none = || {
        Error::not_found(Msg::NoConsole {
            name: crate::text::cut(name, 64).into(),
        })
    };
    let (console, _) = consoles::by_name(conn, name)?.ok_or_else(none)?;
    if !consoles::delete(conn, console.id)? {
        return Err(none());
    }
    Ok(())
}

/// Give a console a new password, returned once: the old one stops working at once.
/// A console whose password was lost keeps its name and its download history.
pub fn reset_password(conn: &Connection, name: &str) -> Result<(Console, String), Error> {
    let none = || {
        Error::not_found(Msg::NoConsole {
            name: crate::text::cut(name, 64).into(),
        })
    };
    let (console, _) = consoles::by_name(conn, name)?.ok_or_else(none)?;
    let password = new_password();
    if !consoles::set_hash(conn, console.id, &hash(&password))? {
        return Err(none());
    }
    Ok((console, password))
}

/// The console a name and password open, or `None`. The hashes are compared in
/// constant time; the use (from `address`, by the program `client`) is noted at
/// most once a minute, and at once when either changed.
pub fn check(
    conn: &Connection,
    name: &str,
    password: &str,
    (address, client): (&str, &str),
) -> Result<Option<Console>, Error> {
    use subtle::ConstantTimeEq;
    let Some((console, stored)) = consoles::by_name(conn, name)? else {
        return Ok(None);
    };
    if !bool::from(hash(password).ct_eq(&stored)) {
        return Ok(None);
    }
    let now = time::now();
    let moved = console.last_address.as_deref() != Some(address)
        || console.last_client.as_deref() != Some(client);
    if moved
        || console
            .last_used_at
            .is_none_or(|t| now - t >= TOUCH_EVERY_S)
    {
        // A busy database must not refuse a download: the note waits for next time.
        if let Err(e) = consoles::touch(conn, console.id, now, address, client) {
            log::debug!("noting the use of console {}: {e}", console.name);
        }
    }
    Ok(Some(console))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_four_groups_from_the_alphabet_and_differ() {
        let a = new_password();
        assert_eq!(a.len(), GROUPS * GROUP_LEN + GROUPS - 1);
        assert!(a
            .split('-')
            .all(|g| g.len() == GROUP_LEN && g.bytes().all(|b| ALPHABET.contains(&b))));
        assert_ne!(a, new_password());
    }

    #[test]
    fn names_refuse_a_colon_and_an_address() {
        assert!(check_name("salon").is_ok());
        assert!(check_name("salon:2").is_err());
        assert!(check_name("").is_err());
        assert!(check_name("192.168.1.20").is_err());
        assert!(check_name("salon 2.0").is_ok());
    }
}
