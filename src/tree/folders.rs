//! One library over several folders: each further folder is mounted as a top-level
//! folder of the first, so that the library reads as one tree and a key of today never
//! changes.
//!
//! The first folder (`--library DIR`) is the library's root: its files' keys are their
//! paths inside it. A further folder (`--library NAME=DIR`, its name by default the
//! folder's own) holds the keys `NAME/…`. [`Folders::locate`] turns a key into the
//! folder that holds its file and the file's path inside that folder: every reader and
//! writer of a file goes through it, so that a move, a trash or a part file stays on
//! the file's own disk.
//!
//! The rules, checked at start ([`Folders::new`]) and whenever a folder is added: a
//! name is one key segment that is not hidden; it names no top-level entry of the
//! first folder and no other folder; no folder lies inside another; the data folder
//! lies inside no further folder (inside the first it may, as before). The first
//! folder's top-level entry that comes to bear a further folder's name later is
//! hidden by that folder, never walked (see `walk`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::key::LibraryKey;
use crate::error::{Error, Msg};

/// One folder of the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    /// Its name: the top-level folder of the library it appears as; for the first
    /// folder, its own folder's name (shown, never part of a key).
    pub name: String,
    /// Absolute; canonical when the folder was there at start.
    pub dir: PathBuf,
    /// Given by `--library` at start (not removable from the web or the command line).
    pub fixed: bool,
}

/// The trash folder's name, at the root of each library folder (`trash`).
pub const TRASH_FOLDER: &str = ".ludotheque-trash";

/// What a folder is, as a scan or the Settings page sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Online,
    /// Missing, or with no entry at all (the bare mount point of a disk not there).
    Offline,
    /// There, but it cannot be read.
    Unreadable,
}

impl State {
    /// Looked at now: a folder that is missing or holds nothing the scan would see
    /// (nothing, or only hidden names: a mount point's `.not-mounted` mark) is
    /// offline, unless it holds the service's own trash folder, which is on the disk
    /// itself; one that became a link is not read (mounted canonical, a link there
    /// was swapped in since).
    pub fn of(dir: &Path) -> State {
        if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return State::Unreadable;
        }
        let seen = |name: &std::ffi::OsStr| {
            let name = name.to_string_lossy();
            !name.starts_with('.') || name == TRASH_FOLDER
        };
        let visible =
            |mut entries: std::fs::ReadDir| entries.any(|e| e.is_ok_and(|e| seen(&e.file_name())));
        match std::fs::read_dir(dir).map(visible) {
            Ok(true) => State::Online,
            Ok(false) => State::Offline,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => State::Offline,
            Err(_) => State::Unreadable,
        }
    }
}

/// The library's folders, the first being its root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folders {
    list: Vec<Folder>,
    /// Added folders that no longer pass the rules at start (the same folder given
    /// by `--library` since, say): not mounted, shown with why, and removable.
    refused: Vec<(Folder, Msg)>,
}

/// Where a file of the library lies: its folder, and its key inside that folder.
#[derive(Debug, Clone)]
pub struct Place<'a> {
    pub folder: &'a Folder,
    /// The key relative to `folder.dir` (the library's key without `NAME/`).
    pub key: LibraryKey,
    /// The folder is the first, whose keys have no prefix.
    pub first: bool,
}

impl Place<'_> {
    pub fn dir(&self) -> &Path {
        &self.folder.dir
    }

    pub fn path(&self) -> PathBuf {
        self.key.under(&self.folder.dir)
    }

    /// The library's key of `inner`, a key inside this place's folder.
    pub fn library_key(&self, inner: &LibraryKey) -> LibraryKey {
        match self.first {
            true => inner.clone(),
            false => inner.inside(&LibraryKey::parse(&self.folder.name).expect("a folder's name")),
        }
    }
}

impl Folders {
    /// The library of `first` alone.
    pub fn one(first: PathBuf) -> Folders {
        Folders {
            refused: Vec::new(),
            list: vec![Folder {
                name: own_name(&first),
                dir: first,
                fixed: true,
            }],
        }
    }

    /// The library of `first` (a canonical folder that exists) and the `further`
    /// folders (name, absolute folder, fixed), held to the rules of this module's doc;
    /// `data` is the data folder.
    pub fn new(first: PathBuf, further: Vec<Folder>, data: &Path) -> Result<Folders, Error> {
        let mut folders = Folders::one(first);
        for folder in further {
            folders.check(&folder, data)?;
            folders.list.push(folder);
        }
        Ok(folders)
    }

    /// Whether `folder` may join the library as it is: its name, and where it lies.
    pub fn check(&self, folder: &Folder, data: &Path) -> Result<(), Error> {
        self.check_with(folder, data, true)
    }

    /// [`check`](Self::check); `entries`: a name that is a top-level entry of the
    /// first folder is refused too (not when an added folder is mounted again at
    /// start: the entry that took its name since is hidden by it).
    fn check_with(&self, folder: &Folder, data: &Path, entries: bool) -> Result<(), Error> {
        let name = &folder.name;
        let refused = |msg: Msg| Err(Error::invalid(msg));
        if !valid_name(name) {
            return refused(Msg::FolderNameBad { name: name.clone() });
        }
        // Not there is offline (a share not mounted yet); there, it must be a folder.
        if folder.dir.exists() && !folder.dir.is_dir() {
            return refused(Msg::FolderNotThere);
        }
        let not_mounted = self.refused.iter().map(|(f, _)| f);
        let taken = self.list[1..]
            .iter()
            .chain(not_mounted)
            .any(|f| &f.name == name);
        let entry = entries && std::fs::symlink_metadata(self.root().join(name)).is_ok();
        if taken || entry {
            return refused(Msg::FolderNameTaken { name: name.clone() });
        }
        for other in &self.list {
            if overlap(&other.dir, &folder.dir) {
                let other = other.name.clone();
                return refused(Msg::FoldersOverlap {
                    name: name.clone(),
                    other,
                });
            }
        }
        if comparable(data).starts_with(comparable(&folder.dir)) {
            return refused(Msg::DataInsideFolder { name: name.clone() });
        }
        Ok(())
    }

    /// The same folders and `folder` (checked already).
    pub fn with(&self, folder: Folder) -> Folders {
        let mut folders = self.clone();
        folders.list.push(folder);
        folders
    }

    /// The same folders but the further one named `name`.
    pub fn without(&self, name: &str) -> Folders {
        let mut folders = self.clone();
        let mut first = true;
        folders
            .list
            .retain(|f| std::mem::take(&mut first) || f.name != name);
        folders.refused.retain(|(f, _)| f.name != name);
        folders
    }

    /// The added folders not mounted, and why.
    pub fn refused(&self) -> &[(Folder, Msg)] {
        &self.refused
    }

    pub fn root(&self) -> &Path {
        &self.list[0].dir
    }

    /// Every folder, the first (the root) first.
    pub fn all(&self) -> &[Folder] {
        &self.list
    }

    /// The folders after the first, each the top-level folder of its name.
    pub fn further(&self) -> &[Folder] {
        &self.list[1..]
    }

    /// Whether `name`, a top-level entry of the first folder, is hidden by a further
    /// folder of that name.
    pub fn is_mounted(&self, name: &str) -> bool {
        self.further().iter().any(|f| f.name == name)
    }

    /// The folder that holds the file of `key`, and the key inside it. A key that is
    /// a further folder's bare name lies in the first folder, where no walk looks.
    pub fn locate(&self, key: &LibraryKey) -> Place<'_> {
        let (i, inner) = self.split(key);
        Place {
            folder: &self.list[i],
            key: inner
                .and_then(LibraryKey::parse)
                .unwrap_or_else(|| key.clone()),
            first: i == 0,
        }
    }

    /// When the folder of `key` is not online now: why its file cannot be had, naming
    /// the folder (a share unmounted while a task or a download ran).
    pub fn away(&self, key: &str) -> Option<Msg> {
        let folder = &self.list[self.index_of(key)];
        (State::of(&folder.dir) != State::Online).then(|| Msg::FolderAway {
            name: folder.name.clone(),
        })
    }

    /// The index in [`all`](Self::all) of the folder that holds `key`.
    pub fn index_of(&self, key: &str) -> usize {
        self.split(key).0
    }

    /// The folder of `key` and, in a further folder, the rest of the key.
    fn split<'k>(&self, key: &'k str) -> (usize, Option<&'k str>) {
        for (i, folder) in self.list.iter().enumerate().skip(1) {
            let rest = key.strip_prefix(folder.name.as_str());
            if let Some(inner) = rest.and_then(|rest| rest.strip_prefix('/')) {
                return (i, Some(inner));
            }
        }
        (0, None)
    }

    /// The prefix of the keys of folder `i`: empty for the first, else `NAME/`.
    pub fn prefix(&self, i: usize) -> String {
        match i {
            0 => String::new(),
            _ => format!("{}/", self.list[i].name),
        }
    }
}

/// The library's folders as the service holds them: replaced whole when a folder is
/// added or removed, while each task and request works on the list it took.
#[derive(Debug, Clone)]
pub struct Shared(Arc<RwLock<Arc<Folders>>>);

impl Shared {
    pub fn new(folders: Folders) -> Shared {
        Shared(Arc::new(RwLock::new(Arc::new(folders))))
    }

    /// The folders as they are now.
    pub fn now(&self) -> Arc<Folders> {
        Arc::clone(&self.0.read().unwrap_or_else(|e| e.into_inner()))
    }

    pub fn replace(&self, folders: Folders) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(folders);
    }
}

impl Folder {
    /// A further folder as given, `[NAME=]DIR` (a relative folder taken from the
    /// current one; canonical when it is there).
    pub fn given(given: &str, fixed: bool) -> Folder {
        let (name, dir) = parse_named(given);
        Folder::at(name, dir, fixed)
    }

    /// The folder `dir` named `name` (made absolute; canonical when it is there).
    pub fn at(name: String, dir: PathBuf, fixed: bool) -> Folder {
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        Folder {
            name,
            dir: dir.canonicalize().unwrap_or(dir),
            fixed,
        }
    }
}

/// The library's folders: the first (`first`, canonical), each further one
/// `--library` gives as `[NAME=]DIR` (fixed), then those an admin added (name,
/// folder), held to the rules of this module's doc.
pub fn given(
    first: PathBuf,
    further: &[PathBuf],
    added: Vec<(String, PathBuf)>,
    data: &Path,
) -> Result<Folders, Error> {
    let fixed = further
        .iter()
        .map(|given| Folder::given(&given.to_string_lossy(), true));
    let mut folders = Folders::new(first, fixed.collect(), data)?;
    for (name, dir) in added {
        let folder = Folder {
            name,
            dir,
            fixed: false,
        };
        match folders.check_with(&folder, data, false) {
            Ok(()) => folders.list.push(folder),
            Err(e) => {
                log::warn!(
                    "library: the added folder {:?} is not mounted: {}",
                    folder.name,
                    e.msg.english()
                );
                folders.refused.push((folder, e.msg));
            }
        }
    }
    Ok(folders)
}

/// `[NAME=]DIR` as given to `--library` after the first: split at the first `=`, the
/// name by default the folder's own.
pub fn parse_named(given: &str) -> (String, PathBuf) {
    match given.split_once('=') {
        Some((name, dir)) => (name.to_string(), PathBuf::from(dir)),
        None => (own_name(Path::new(given)), PathBuf::from(given)),
    }
}

/// A folder's own name (its last component), or `library` for `/`.
pub fn own_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "library".into())
}

/// One key segment, not hidden (the walk skips names starting with `.`), with no
/// control character and no longer than a file name may be.
fn valid_name(name: &str) -> bool {
    LibraryKey::parse(name).is_some()
        && !name.contains('/')
        && !name.starts_with('.')
        && !name.contains('=')
        && !name.chars().any(|c| c.is_control() || invisible(c))
        && name.len() <= 255
}

/// A character that shows nothing or turns the text around (zero-width spaces and
/// joiners, bidirectional marks and overrides, line and paragraph separators): a
/// folder's name with one would look like another's.
fn invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{00AD}')
}

/// The path to compare: canonical when it exists (links resolved), else as given.
fn comparable(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

/// One of `a` and `b` lies inside the other, or they are the same folder.
fn overlap(a: &Path, b: &Path) -> bool {
    let (a, b) = (comparable(a), comparable(b));
    a.starts_with(&b) || b.starts_with(&a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str, dir: &Path) -> Folder {
        Folder {
            name: name.into(),
            dir: dir.to_path_buf(),
            fixed: true,
        }
    }

    fn key(raw: &str) -> LibraryKey {
        LibraryKey::parse(raw).unwrap()
    }

    #[test]
    fn a_key_lies_in_the_folder_its_first_segment_names() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        let data = tmp.path().join("data");
        let folders = Folders::new(a.clone(), vec![folder("more", &b)], &data).unwrap();
        let place = folders.locate(&key("more/x/game.nsp"));
        assert_eq!(place.path(), b.join("x/game.nsp"));
        assert_eq!(place.library_key(&key("y.nsp")).as_str(), "more/y.nsp");
        let place = folders.locate(&key("moreover/game.nsp"));
        assert_eq!(place.path(), a.join("moreover/game.nsp"));
        assert!(place.first);
        assert_eq!(folders.locate(&key("more")).path(), a.join("more"));
    }

    #[test]
    fn names_and_places_that_would_confuse_the_tree_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let first = tmp.path().join("first");
        std::fs::create_dir_all(first.join("taken")).unwrap();
        let data = tmp.path().join("data");
        let other = tmp.path().join("other");
        let refused = |f: Folder| Folders::new(first.clone(), vec![f], &data).is_err();
        for bad in [
            "",
            ".",
            "..",
            ".hidden",
            "a/b",
            "tab\there",
            "taken",
            "a=b",
            "zero\u{200B}width",
        ] {
            assert!(refused(folder(bad, &other)), "{bad:?}");
        }
        assert!(refused(folder("inside", &first.join("sub"))));
        assert!(refused(folder("outside", tmp.path())));
        let shared = tmp.path().join("shared");
        std::fs::create_dir_all(shared.join("data")).unwrap();
        let data_in = |f: Folder| Folders::new(first.clone(), vec![f], &shared.join("data"));
        assert!(data_in(folder("holds_data", &shared)).is_err());
        assert!(data_in(folder("fine", &other)).is_ok());
        let twice = vec![folder("one", &other), folder("two", &other)];
        assert!(Folders::new(first.clone(), twice, &data).is_err());
        let same_name = vec![folder("one", &other), folder("one", &tmp.path().join("x"))];
        assert!(Folders::new(first.clone(), same_name, &data).is_err());
        assert!(!refused(folder("fine", &other)));
        // The data folder may lie inside the first folder, as it always could.
        assert!(Folders::new(first.clone(), vec![], &first.join("data")).is_ok());
    }

    #[test]
    fn a_name_is_split_at_the_first_equals_sign() {
        assert_eq!(parse_named("a=b=c"), ("a".into(), PathBuf::from("b=c")));
        assert_eq!(
            parse_named("/mnt/nas"),
            ("nas".into(), PathBuf::from("/mnt/nas"))
        );
    }

    #[test]
    fn a_folder_with_nothing_in_it_is_offline() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(State::of(tmp.path()), State::Offline);
        assert_eq!(State::of(&tmp.path().join("gone")), State::Offline);
        std::fs::write(tmp.path().join(".not-mounted"), b"").unwrap();
        assert_eq!(State::of(tmp.path()), State::Offline, "only hidden names");
        std::fs::write(tmp.path().join("x"), b"").unwrap();
        assert_eq!(State::of(tmp.path()), State::Online);
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(tmp.path(), &link).unwrap();
        assert_eq!(
            State::of(&link),
            State::Unreadable,
            "a link is not followed"
        );
    }
}
