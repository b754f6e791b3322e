//! API keys: their format, creation, and checking a presented key.
//!
//! A key is `ldq_` + 32 random base62 characters + 6 base62 characters holding the
//! CRC32 of those 32 (so a mistyped or made-up key is refused without a database
//! query). The service keeps only the SHA-256 of the whole key, and a display prefix
//! of its first 8 characters.

use rand::distr::{Alphanumeric, SampleString};
use rusqlite::Connection;
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::store::api_keys::{self, ApiKey};
use crate::time;

const PREFIX: &str = "ldq_";
const RANDOM_LEN: usize = 32;
const CHECK_LEN: usize = 6;
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// How stale `last_used_at` may be before a use is written down again.
const TOUCH_EVERY_S: i64 = 60;

/// A newly created key: the secret, shown once, and its row.
pub struct NewKey {
    pub secret: String,
    pub key: ApiKey,
}

/// The CRC32 of the random part in 6 base62 digits (62^6 > 2^32, so it always fits).
fn checksum(random: &str) -> String {
    let mut n = crc32fast::hash(random.as_bytes()) as u64;
    let mut out = [b'0'; CHECK_LEN];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    String::from_utf8(out.to_vec()).unwrap_or_default()
}

fn hash(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// True when `secret` has the key format and a correct checksum.
pub fn well_formed(secret: &str) -> bool {
    let Some(rest) = secret.strip_prefix(PREFIX) else {
        return false;
    };
    if rest.len() != RANDOM_LEN + CHECK_LEN || !rest.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    let (random, check) = rest.split_at(RANDOM_LEN);
    checksum(random) == check
}

/// Create and store a key; the secret is returned once and never again.
pub fn create(conn: &Connection, name: &str, read_only: bool) -> Result<NewKey, Error> {
    let name = &crate::text::name("A key's name (what it is for)", name.trim())?;
    let random = Alphanumeric.sample_string(&mut rand::rng(), RANDOM_LEN);
    let secret = format!("{PREFIX}{random}{}", checksum(&random));
    let prefix = &secret[..8];
    let id = api_keys::insert(conn, name, &hash(&secret), prefix, read_only, time::now())?;
    let key = api_keys::get(conn, id)?.ok_or_else(|| Error::internal("key vanished"))?;
    Ok(NewKey { secret, key })
}

/// The active key behind a presented secret, or `None` (malformed, unknown, revoked).
/// Notes the use, at most once a minute per key.
pub fn check(conn: &Connection, secret: &str) -> Result<Option<ApiKey>, Error> {
    if !well_formed(secret) {
        return Ok(None);
    }
    let Some(key) = api_keys::find_by_hash(conn, &hash(secret))? else {
        return Ok(None);
    };
    if key.revoked_at.is_some() {
        return Ok(None);
    }
    let now = time::now();
    if key.last_used_at.is_none_or(|t| now - t >= TOUCH_EVERY_S) {
        api_keys::touch(conn, key.id, now)?;
    }
    Ok(Some(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key one character away from a real one is refused by its checksum alone
    /// (CRC32 catches any change within one byte), and random input never panics.
    #[test]
    fn any_single_change_to_a_key_is_refused_and_garbage_never_panics() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        let random = "Zx81abcdefghijklmnopqrstuvwxyz09";
        let good = format!("{PREFIX}{random}{}", checksum(random));
        assert!(well_formed(&good));
        let mut refused = 0;
        for i in PREFIX.len()..good.len() {
            for &c in BASE62 {
                let mut bytes = good.clone().into_bytes();
                if bytes[i] == c {
                    continue;
                }
                bytes[i] = c;
                assert!(!well_formed(std::str::from_utf8(&bytes).unwrap()));
                refused += 1;
            }
        }
        assert_eq!(refused, (good.len() - PREFIX.len()) * 61);
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..100_000 {
            let len = rng.random_range(0..60);
            let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            let text = String::from_utf8_lossy(&bytes);
            assert!(!well_formed(&text));
            assert!(!well_formed(&format!("{PREFIX}{}", &text)));
        }
    }

    #[test]
    fn a_created_secret_is_well_formed_and_a_changed_one_is_not() {
        let random = "abcdefghijklmnopqrstuvwxyz012345";
        let good = format!("ldq_{random}{}", checksum(random));
        assert_eq!(good.len(), 4 + 32 + 6);
        assert!(well_formed(&good));
        let mut bad = good.clone().into_bytes();
        bad[10] = if bad[10] == b'x' { b'y' } else { b'x' };
        assert!(!well_formed(&String::from_utf8(bad).unwrap()));
        assert!(!well_formed("ldq_short"));
        assert!(!well_formed(&good.replace("ldq_", "xyz_")));
        assert!(!well_formed(""));
    }
}
