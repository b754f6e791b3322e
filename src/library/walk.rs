//! Walking the library's folders: which files are games, and their keys (a further
//! folder's prefixed with its name, `tree::folders`).
//!
//! Hidden entries (names starting with `.`) are skipped at every depth, which also
//! skips the trash folder `.ludotheque-trash/`. A symlink to a file is followed only
//! when its target lies inside its own folder of the library; symlinks to folders are
//! not followed at all (no loops, no escape from the folder). Nothing here reads file
//! contents. A game file's name on a FIFO, a socket or a device is reported among the problems (the
//! scan's failures), never opened.

use std::collections::HashSet;
use std::path::Path;
use std::time::UNIX_EPOCH;

use log::debug;

use super::LibraryKey;
use crate::error::{Failure, Msg};
use crate::store::platforms::Platform;
use crate::tree::Folders;

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

/// Where a walk hands what it finds, as it finds it (a scan reads files while the walk
/// goes on, and says what could not be walked at once).
pub trait Sink {
    /// A game file; false stops the walk.
    fn file(&mut self, found: Found) -> bool;
    /// What could not be walked.
    fn problem(&mut self, failure: Failure);
}

/// The walk that keeps everything.
impl Sink for Walk {
    fn file(&mut self, found: Found) -> bool {
        self.files.push(found);
        true
    }

    fn problem(&mut self, failure: Failure) {
        self.problems.push(failure);
    }
}

/// Walk every platform's folder in the library's folders: a file belongs to the most
/// specific platform whose folder holds it and whose extensions match. Only the
/// folders `online` says are walked (one flag per folder, in the order of
/// `folders.all()`), handing what it finds to `sink` (the `Walk` returned says only
/// whether it is incomplete or was stopped).
pub fn walk_each(
    folders: &Folders,
    online: &[bool],
    platforms: &[Platform],
    sink: &mut dyn Sink,
) -> Walk {
    let mut ordered: Vec<&Platform> = platforms.iter().collect();
    ordered.sort_by_key(|p| std::cmp::Reverse(p.folder.len()));
    let mut out = Walk::default();
    let mut seen = HashSet::new();
    for platform in ordered {
        // A platform folder is held to the rules of a key (a row that says `/srv` or
        // `..` is walked nowhere).
        if !platform.folder.is_empty() && LibraryKey::parse(&platform.folder).is_none() {
            refused(platform, sink);
            continue;
        }
        for (i, folder) in folders.all().iter().enumerate() {
            let tree = Tree::of(folders, i);
            let Some(inner) = tree.platform_folder(&platform.folder) else {
                continue;
            };
            // One that is a link or hidden (the trash among them) is never walked, even
            // if it became one after it was added.
            if !super::safe::walkable_folder(&folder.dir, inner) {
                refused(platform, sink);
                break;
            }
            let start = folder.dir.join(inner);
            if online[i] && start.is_dir() && !out.stopped {
                walk_dir(&tree, &start, platform, &mut seen, &mut out, sink);
            }
        }
    }
    out
}

fn refused(platform: &Platform, sink: &mut dyn Sink) {
    debug!(
        "platform folder {:?} is a link, hidden or no key",
        platform.folder
    );
    sink.problem(Failure {
        key: None,
        msg: Msg::PlatformFolderRefused,
    });
}

/// One folder of the library as the walk sees it: where it lies, the prefix of its
/// keys, and for the first folder the top-level names further folders hide.
struct Tree<'a> {
    root: &'a Path,
    prefix: String,
    hidden: Vec<&'a str>,
}

impl<'a> Tree<'a> {
    fn of(folders: &'a Folders, i: usize) -> Tree<'a> {
        let folder = &folders.all()[i];
        let (prefix, hidden) = match i {
            0 => (
                String::new(),
                folders.further().iter().map(|f| f.name.as_str()).collect(),
            ),
            _ => (format!("{}/", folder.name), Vec::new()),
        };
        Tree {
            root: &folder.dir,
            prefix,
            hidden,
        }
    }

    /// Where a platform's folder (a key of the library, or `""`) lies inside this
    /// folder: `""` for its whole; `None` when it lies in another folder.
    fn platform_folder<'p>(&self, folder: &'p str) -> Option<&'p str> {
        if folder.is_empty() {
            return Some("");
        }
        match self.prefix.strip_suffix('/') {
            Some(name) if folder == name => Some(""),
            Some(_) => folder.strip_prefix(self.prefix.as_str()),
            None => {
                let top = folder.split('/').next().unwrap_or(folder);
                (!self.hidden.contains(&top)).then_some(folder)
            }
        }
    }

    /// A name at the top of the first folder that a further folder hides.
    fn hides(&self, dir: &Path, name: &str) -> bool {
        dir == self.root && self.hidden.contains(&name)
    }

    /// The key of a file found on disk; `None` for a name that is not UTF-8.
    fn key_of(&self, path: &Path) -> Option<LibraryKey> {
        let rel = path.strip_prefix(self.root).ok()?;
        let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
        LibraryKey::parse(&format!("{}{}", self.prefix, parts?.join("/")))
    }

    /// A path under the library as people see it there: relative, never the server's
    /// absolute path.
    fn relative(&self, path: &Path) -> String {
        let rel = path.strip_prefix(self.root).map(|p| p.to_string_lossy());
        format!("{}{}", self.prefix, rel.unwrap_or_default())
    }
}

fn walk_dir(
    tree: &Tree,
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
                let folder = tree.relative(&dir);
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
                    key: Some(tree.relative(&dir)),
                    msg: Msg::NameNotUtf8,
                });
                continue;
            };
            if name.starts_with('.') || tree.hides(&dir, name) {
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
            let found = game_file(tree, &entry, name, link, platform, (out, sink));
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
    tree: &Tree,
    entry: &std::fs::DirEntry,
    name: &str,
    is_link: bool,
    platform: &Platform,
    (out, sink): (&mut Walk, &mut dyn Sink),
) -> Option<Found> {
    let format = extension(name).filter(|e| platform.extensions.contains(e))?;
    let path = entry.path();
    if is_link && !inside(tree.root, &path) {
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
            key: Some(tree.relative(&path)),
            msg: Msg::FileUnexaminable,
        });
        out.incomplete = true;
        return None;
    };
    if let Some(what) = super::safe::NotAFile::of(meta.file_type()) {
        // A FIFO, a socket or a device in a game's place is no game, and is said so:
        // its row, if it had one, goes (the file is not found), and nothing opens it.
        let key = tree.relative(&path);
        debug!("{} is {what}", path.display());
        sink.problem(Failure {
            msg: what.msg(&key),
            key: Some(key),
        });
        return None;
    }
    Some(Found {
        key: tree.key_of(&path)?,
        size: meta.len(),
        mtime: mtime_ns(&meta),
        platform: platform.slug.clone(),
        format,
    })
}

/// The one file at `key`, if it is a game file of a platform (the most specific).
pub fn found(folders: &Folders, key: &LibraryKey, platforms: &[Platform]) -> Option<Found> {
    let place = folders.locate(key);
    let (root, path) = (place.dir(), place.path());
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

pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(folders: &Folders, platforms: &[Platform]) -> Walk {
        let mut all = Walk::default();
        walk_each(folders, &[true], platforms, &mut all);
        all
    }

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
        let root = Folders::one(root.canonicalize().unwrap());
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
