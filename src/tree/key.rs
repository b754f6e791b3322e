//! A game's key, checked once where it enters (a URL, a form, a database row, a name
//! on disk) and trusted afterwards: the file functions of `safe`, the trash, convert
//! and the push's files take a `LibraryKey`, so none of them can be handed a path that
//! leaves the library, and none repeats the check.

use std::fmt;
use std::path::{Path, PathBuf};

/// A key relative to the library root: `/`-separated, with no empty, `.` or `..`
/// segment and no NUL. Anything else names no game, whatever the filesystem would
/// make of it. A backslash is an ordinary character of a Linux file name, so a key may
/// hold one (sent percent-encoded as `%5C`): it never separates folders here.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LibraryKey(String);

impl LibraryKey {
    /// The key, when `raw` is one; `None` for anything that could leave the library.
    pub fn parse(raw: &str) -> Option<LibraryKey> {
        let valid = !raw.is_empty()
            && !raw.contains('\0')
            && raw
                .split('/')
                .all(|seg| !seg.is_empty() && seg != "." && seg != "..");
        valid.then(|| LibraryKey(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file's own name: the last segment.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// This key inside `folder` (itself a key): `folder/key`.
    pub fn inside(&self, folder: &LibraryKey) -> LibraryKey {
        LibraryKey(format!("{}/{}", folder.0, self.0))
    }

    /// The key with `suffix` (a constant of the program, such as `.part`) added to
    /// its file name. A file name is neither empty, `.` nor `..`, so it stays a key.
    pub fn with_suffix(&self, suffix: &'static str) -> LibraryKey {
        assert!(!suffix.contains(['/', '\0']), "a suffix is no folder");
        LibraryKey(format!("{}{suffix}", self.0))
    }

    /// Where the key lies below `root` (no link is followed or checked here: that is
    /// `safe`'s job).
    pub fn under(&self, root: &Path) -> PathBuf {
        root.join(&self.0)
    }

    /// The folders between the root and the file, nearest to the root first, as
    /// paths below `root`.
    pub fn folders_under(&self, root: &Path) -> Vec<PathBuf> {
        let mut path = root.to_path_buf();
        let segments: Vec<&str> = self.0.split('/').collect();
        segments[..segments.len() - 1]
            .iter()
            .map(|segment| {
                path.push(segment);
                path.clone()
            })
            .collect()
    }
}

impl fmt::Display for LibraryKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A key reads as the string it is (to compare, log, or store it).
impl std::ops::Deref for LibraryKey {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::LibraryKey;

    fn valid(key: &str) -> bool {
        LibraryKey::parse(key).is_some()
    }

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
            assert!(!valid(bad), "{bad:?}");
        }
        for good in [
            "a.nsp",
            "dir/Game [0100000000010000].nsp",
            "..a/b..",
            "a b/c",
            "a\\..\\b",
            "dir/back\\slash.nsp",
        ] {
            assert!(valid(good), "{good:?}");
        }
    }

    #[test]
    fn the_folders_on_the_way_are_every_segment_but_the_file() {
        let key = LibraryKey::parse("a/b/c.nsp").unwrap();
        let root = std::path::Path::new("/lib");
        assert_eq!(
            key.folders_under(root),
            vec![root.join("a"), root.join("a/b")]
        );
        assert!(LibraryKey::parse("c.nsp")
            .unwrap()
            .folders_under(root)
            .is_empty());
        assert_eq!(key.under(root), root.join("a/b/c.nsp"));
        assert_eq!(key.file_name(), "c.nsp");
        let entry = LibraryKey::parse("7").unwrap();
        assert_eq!(key.inside(&entry).as_str(), "7/a/b/c.nsp");
        assert_eq!(key.with_suffix(".part").as_str(), "a/b/c.nsp.part");
    }

    /// Hostile keys, built at random from the pieces attacks are made of and decoded
    /// as the router decodes a `{key*}` path: whatever `LibraryKey::parse` takes names a
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
        let (mut tried, mut passed) = (0, 0);
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
            if !valid(&key) {
                continue;
            }
            passed += 1;
            assert!(!key.contains('\0'), "{raw:?} -> {key:?}");
            assert!(
                Path::new(&key)
                    .components()
                    .all(|c| matches!(c, Component::Normal(_))),
                "{raw:?} -> {key:?}"
            );
            assert!(Path::new("/lib").join(&key).starts_with("/lib"));
        }
        assert!(passed > 1000 && passed < tried, "{passed} of {tried}");
    }
}
