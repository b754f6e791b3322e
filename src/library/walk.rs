//! Walking the library root: which files are games, and their keys.
//!
//! Hidden entries (names starting with `.`) are skipped at every depth, which also
//! skips the trash folder `.ludotheque-trash/`. A symlink to a file is followed only
//! when its target lies inside the root; symlinks to folders are not followed at all
//! (no loops, no escape from the root). Nothing here reads file contents. A game
//! file's name on a FIFO, a socket or a device is reported among the problems (the
//! scan's failures), never opened.

use std::collections::HashSet;
use std::path::Path;
use std::time::UNIX_EPOCH;

use log::debug;

use super::LibraryKey;
use crate::error::{Failure, Msg};
use crate::store::platforms::Platform;

/// A game file found by the walk.
#[derive(Debug, Clone)]
pub struct Found {
    /// Path relative to the root, `/`-separated.
    pub key: LibraryKey,
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: i64,
    pub platform: String,
    /// The extension in lower case (`nsp`, `nsz`, `xci`, `xcz`, ...).
    pub format: String,
}

#[derive(Debug, Default)]
pub struct Walk {
    pub files: Vec<Found>,
    /// What could not be walked, as safe sentences (paths go to the debug log).
    pub problems: Vec<Failure>,
    /// A folder could not be read or a file examined: games not found may be there.
    pub incomplete: bool,
    /// The walk was stopped before its end (see [`Sink::file`]).
    pub stopped: bool,
}

/// Walk every platform's folder. A file belongs to the most specific platform whose
/// folder holds it and whose extensions match.
pub fn walk(root: &Path, platforms: &[Platform]) -> Walk {
    let mut all = Walk::default();
    let out = walk_each(root, platforms, &mut all);
    Walk {
        incomplete: out.incomplete,
        ..all
    }
}

/// Where a walk hands what it finds, as it finds it (a scan reads files while the walk
/// goes on, and says what could not be walked at once).
pub trait Sink {
    /// A game file; false stops the walk.
    fn file(&mut self, found: Found) -> bool;
    /// What could not be walked.
    fn problem(&mut self, failure: Failure);
}

/// The walk that keeps everything: [`walk`].
impl Sink for Walk {
    fn file(&mut self, found: Found) -> bool {
        self.files.push(found);
        true
    }

    fn problem(&mut self, failure: Failure) {
        self.problems.push(failure);
    }
}

/// The walk, handing what it finds to `sink` (the `Walk` returned says only whether it
/// is incomplete or was stopped).
pub fn walk_each(root: &Path, platforms: &[Platform], sink: &mut dyn Sink) -> Walk {
    let mut ordered: Vec<&Platform> = platforms.iter().collect();
    ordered.sort_by_key(|p| std::cmp::Reverse(p.folder.len()));
    let mut out = Walk::default();
    let mut seen = HashSet::new();
    for platform in ordered {
        // A platform folder is held to the rules of a key (a row that says `/srv` or
        // `..` is walked nowhere); one that is a link or hidden (the trash among them)
        // is never walked, even if it became one after it was added.
        let start = match LibraryKey::parse(&platform.folder) {
            _ if platform.folder.is_empty() => Some(root.to_path_buf()),
            Some(folder) => Some(folder.under(root)),
            None => None,
        };
        let walkable = super::safe::walkable_folder(root, &platform.folder);
        let Some(start) = start.filter(|_| walkable) else {
            debug!(
                "platform folder {:?} is a link, hidden or no key",
                platform.folder
            );
            sink.problem(Failure {
                key: None,
                msg: Msg::PlatformFolderRefused,
            });
            continue;
        };
        if start.is_dir() && !out.stopped {
            walk_dir(root, &start, platform, &mut seen, &mut out, sink);
        }
    }
    out
}

fn walk_dir(
    root: &Path,
    start: &Path,
    platform: &Platform,
    seen: &mut HashSet<LibraryKey>,
    out: &mut Walk,
    sink: &mut dyn Sink,
) {
    let mut stack = vec![start.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                debug!("cannot read folder {}: {e}", dir.display());
                let folder = relative(root, &dir);
                sink.problem(Failure {
                    key: Some(folder.clone()),
                    msg: Msg::FolderUnreadable { folder },
                });
                out.incomplete = true;
                continue;
            }
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                debug!("skipping a name that is not UTF-8 in {}", dir.display());
                sink.problem(Failure {
                    key: Some(relative(root, &dir)),
                    msg: Msg::NameNotUtf8,
                });
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                stack.push(entry.path());
                continue;
            }
            let link = file_type.is_symlink();
            let found = game_file(root, &entry, name, link, platform, (out, sink));
            if let Some(found) = found.filter(|f| seen.insert(f.key.clone())) {
                if !sink.file(found) {
                    out.stopped = true;
                    return;
                }
            }
        }
    }
}

/// The file of `entry` (named `name`), if it is a game file of `platform` whose
/// content lies inside the library.
fn game_file(
    root: &Path,
    entry: &std::fs::DirEntry,
    name: &str,
    is_link: bool,
    platform: &Platform,
    (out, sink): (&mut Walk, &mut dyn Sink),
) -> Option<Found> {
    let format = extension(name).filter(|e| platform.extensions.contains(e))?;
    let path = entry.path();
    if is_link && !inside(root, &path) {
        debug!("not following {} out of the library", path.display());
        return None;
    }
    // A link's target is looked at through its path; anything else from the folder's
    // handle, which costs no walk down the path again.
    let meta = match is_link {
        true => std::fs::metadata(&path),
        false => entry.metadata(),
    };
    let Ok(meta) = meta else {
        sink.problem(Failure {
            key: Some(relative(root, &path)),
            msg: Msg::FileUnexaminable,
        });
        out.incomplete = true;
        return None;
    };
    if let Some(what) = super::safe::NotAFile::of(meta.file_type()) {
        // A FIFO, a socket or a device in a game's place is no game, and is said so:
        // its row, if it had one, goes (the file is not found), and nothing opens it.
        let key = relative(root, &path);
        debug!("{} is {what}", path.display());
        sink.problem(Failure {
            msg: what.msg(&key),
            key: Some(key),
        });
        return None;
    }
    Some(Found {
        key: key_of(root, &path)?,
        size: meta.len(),
        mtime: mtime_ns(&meta),
        platform: platform.slug.clone(),
        format,
    })
}

/// The one file at `key`, if it is a game file of a platform (the most specific).
pub fn found(root: &Path, key: &LibraryKey, platforms: &[Platform]) -> Option<Found> {
    let path = key.under(root);
    // As the scan: a link is followed only when its target lies inside the library.
    let is_link = std::fs::symlink_metadata(&path)
        .ok()?
        .file_type()
        .is_symlink();
    if is_link && !inside(root, &path) {
        return None;
    }
    let meta = std::fs::metadata(&path).ok().filter(|m| m.is_file())?;
    let format = extension(key.file_name())?;
    let mut ordered: Vec<&Platform> = platforms.iter().collect();
    ordered.sort_by_key(|p| std::cmp::Reverse(p.folder.len()));
    let platform = ordered.into_iter().find(|p| {
        p.extensions.contains(&format)
            && (p.folder.is_empty() || key.as_str().starts_with(&format!("{}/", p.folder)))
    })?;
    Some(Found {
        key: key.clone(),
        size: meta.len(),
        mtime: mtime_ns(&meta),
        platform: platform.slug.clone(),
        format,
    })
}

fn extension(name: &str) -> Option<String> {
    name.rsplit_once('.')
        .filter(|(stem, _)| !stem.is_empty())
        .map(|(_, ext)| ext.to_ascii_lowercase())
}

/// A symlink's target lies inside the root.
fn inside(root: &Path, path: &Path) -> bool {
    path.canonicalize()
        .is_ok_and(|target| target.starts_with(root))
}

/// The key of a file found on disk; `None` for a name that is not UTF-8.
fn key_of(root: &Path, path: &Path) -> Option<LibraryKey> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    LibraryKey::parse(&parts?.join("/"))
}

pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// A path under the library as people see it there: relative, never the server's
/// absolute path.
fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn platform(folder: &str) -> Platform {
        Platform {
            slug: "switch".into(),
            name: "Switch".into(),
            folder: folder.into(),
            extensions: vec!["nsp".into()],
        }
    }

    /// A platform row that says `..` or an absolute path walks nowhere, and a link to
    /// a file outside the library is no game, whether walked or named.
    #[test]
    fn nothing_outside_the_library_is_walked_or_found() {
        let tmp = tempfile::tempdir().unwrap();
        let (root, outside) = (tmp.path().join("lib"), tmp.path().join("out"));
        std::fs::create_dir_all(root.join("games")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("x.nsp"), b"x").unwrap();
        std::fs::write(root.join("games/a.nsp"), b"a").unwrap();
        std::os::unix::fs::symlink(outside.join("x.nsp"), root.join("games/out.nsp")).unwrap();
        let root = root.canonicalize().unwrap();
        for folder in ["..", "../out", outside.to_str().unwrap()] {
            let w = walk(&root, &[platform(folder)]);
            assert!(w.files.is_empty() && !w.problems.is_empty(), "{folder}");
        }
        let w = walk(&root, &[platform("games")]);
        let keys: Vec<&str> = w.files.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, ["games/a.nsp"]);
        let key = |k: &str| LibraryKey::parse(k).unwrap();
        assert!(found(&root, &key("games/a.nsp"), &[platform("games")]).is_some());
        assert!(found(&root, &key("games/out.nsp"), &[platform("games")]).is_none());
    }
}
