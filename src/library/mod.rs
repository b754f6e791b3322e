//! The game library: walking the root (`walk`), reading containers (`containers`),
//! identifying files (`identify`, `probe`), and the row each game becomes.

pub mod containers;
pub mod demo;
pub mod identify;
pub mod probe;
pub mod safe;
pub mod search;
pub mod synth;
pub mod titledb;
pub mod walk;

use std::path::Path;

use rusqlite::Connection;

use crate::error::Error;
use crate::store::games::GameRow;
use crate::store::{games, settings, titles};
use crate::words::GameKind;
use probe::Probe;
use walk::Found;

const READY_SETTING: &str = "library_scanned";

/// True once a scan of *this* library root has completed (a service pointed at
/// another folder starts not ready again).
pub fn is_ready(db: &Connection, root: &Path) -> Result<bool, Error> {
    Ok(settings::get(db, READY_SETTING)?.as_deref() == Some(&*root.to_string_lossy()))
}

pub fn mark_ready(db: &Connection, root: &Path) -> Result<(), Error> {
    settings::set(db, READY_SETTING, &root.to_string_lossy())
}

/// The display name: an imported title name when the title database knows the ID,
/// else the name taken from the file name.
pub fn display_name(
    db: &Connection,
    title_id: Option<&str>,
    file_name_name: &str,
) -> Result<String, Error> {
    Ok(match title_id {
        Some(id) => titles::name(db, id)?.unwrap_or_else(|| file_name_name.to_string()),
        None => file_name_name.to_string(),
    })
}

/// The row a probed file becomes.
pub fn game_row(db: &Connection, found: &Found, probe: Probe) -> Result<GameRow, Error> {
    let class = probe.title_id.map(identify::classify);
    let title_id = probe.title_id.map(identify::format_title_id);
    let name = display_name(db, title_id.as_deref(), &probe.file_name_name)?;
    Ok(GameRow {
        key: found.key.clone(),
        platform: found.platform.clone(),
        folded: identify::fold(&name),
        name,
        file_name_name: probe.file_name_name,
        kind: class.map_or(GameKind::Unknown, |c| c.kind),
        subtype: class.and_then(|c| c.subtype).map(str::to_string),
        base_title_id: class.and_then(|c| c.base).map(identify::format_title_id),
        title_id,
        version: probe.version,
        format: found.format.clone(),
        size: found.size,
        mtime: found.mtime,
        header_ok: probe.header_ok,
        identified_by: probe.identified_by,
        note: probe.note,
    })
}

/// Re-derive every game's display name after the title database changed.
/// Returns how many games were renamed.
pub fn rename_from_titles(db: &Connection) -> Result<usize, Error> {
    let mut renamed = 0;
    for (key, title_id, file_name_name, current) in games::names(db)? {
        let name = display_name(db, title_id.as_deref(), &file_name_name)?;
        if name != current {
            games::rename(db, &key, &name, &identify::fold(&name))?;
            renamed += 1;
        }
    }
    if renamed > 0 {
        games::renumber(db, false)?;
    }
    Ok(renamed)
}

/// Put one file into the library at once (after a restore), as a scan would.
pub fn index_one(db: &Connection, root: &Path, key: &str) -> Result<(), Error> {
    let Some(found) = walk::found(root, key, &crate::store::platforms::list(db)?) else {
        return Ok(()); // not a game file of any platform: the scan would skip it too
    };
    let probe = probe::probe(root, key, &found.format);
    games::upsert(db, &game_row(db, &found, probe)?)?;
    games::refresh_playable(db)?;
    games::renumber(db, false)
}

/// A game key as clients may give it: relative, `/`-separated, with no empty, `.` or
/// `..` segment and no NUL. Anything else names no game, whatever the filesystem would
/// make of it. A backslash is an ordinary character of a Linux file name, so a key may
/// hold one (sent percent-encoded as `%5C`): it never separates folders here.
pub fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && !key.contains('\0')
        && key
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..")
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_that_could_escape_the_library_are_invalid() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "./a",
            "a/.",
            "a\0b",
            "a/",
            "..",
        ] {
            assert!(!super::valid_key(bad), "{bad:?}");
        }
        for good in [
            "a.nsp",
            "dir/Game [0100000000010000].nsp",
            "..a/b..",
            "a b/c",
            "a\\..\\b",
            "dir/back\\slash.nsp",
        ] {
            assert!(super::valid_key(good), "{good:?}");
        }
    }

    /// Hostile keys, built at random from the pieces attacks are made of and decoded
    /// as the router decodes a `{key*}` path: whatever passes `valid_key` names a
    /// place inside the library, never above it, never absolute, never with a NUL.
    #[test]
    fn no_decoded_key_that_passes_validation_leaves_the_library() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        use std::path::{Component, Path};
        const PIECES: [&str; 24] = [
            "a",
            "b.nsp",
            "..",
            ".",
            "/",
            "//",
            "%2F",
            "%2f",
            "%2E",
            "%2e%2e",
            "%00",
            "%5C",
            "\\",
            "%C0%AF",
            "%E0%80%AF",
            "%C0%AE",
            "%FF",
            "é",
            "%C3%A9",
            " ",
            "%20",
            "%",
            "%2",
            "~",
        ];
        let mut rng = StdRng::seed_from_u64(20261122);
        let (mut tried, mut valid) = (0, 0);
        for _ in 0..200_000 {
            let n = rng.random_range(1..10);
            let raw: String = (0..n)
                .map(|_| PIECES[rng.random_range(0..PIECES.len())])
                .collect();
            tried += 1;
            let decoded: Option<Vec<String>> = raw
                .trim_start_matches('/')
                .split('/')
                .map(crate::text::decode_segment)
                .collect();
            let Some(key) = decoded.map(|segments| segments.join("/")) else {
                continue;
            };
            if !super::valid_key(&key) {
                continue;
            }
            valid += 1;
            assert!(!key.contains('\0'), "{raw:?} -> {key:?}");
            assert!(
                Path::new(&key)
                    .components()
                    .all(|c| matches!(c, Component::Normal(_))),
                "{raw:?} -> {key:?}"
            );
            assert!(Path::new("/lib").join(&key).starts_with("/lib"));
        }
        assert!(valid > 1000 && valid < tried, "{valid} of {tried}");
    }
}
