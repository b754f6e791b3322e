//! The keys file on disk (`DATA/prod.keys`, or `--keys FILE`): putting a new one in
//! place, and the handle a running service holds to see it change.
//!
//! [`install`] checks a file first and then replaces the old one atomically (a
//! temporary file beside it, written, synced, made 0600, renamed over, the folder
//! synced): a refused or interrupted import leaves the previous file whole.
//!
//! [`KeysFile`] reads the file when it is first asked for the keys, and again
//! whenever the file's identity, size or times have changed since (one `stat` per
//! question): an import from the command line, an upload, or an editor's save is
//! seen by the next task without a restart. A file that cannot be used is logged
//! once, by line number and reason, and the last good keys stay in use; a file
//! removed takes its keys away.
//!
//! The data folder's own `prod.keys` must be the file itself: a symbolic link there
//! is refused unread ([`KeysPath::links`]), so nothing put in the data folder makes
//! the service read a file elsewhere. A file named with `--keys` may be anywhere.

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::{Arc, Mutex};

use log::{info, warn};

use super::{Loaded, MAX_FILE};
pub use crate::config::KeysPath;
use crate::error::{Error, Msg};

/// What identifies one version of the file: a new file (a rename over it) changes
/// the inode, a rewrite in place changes the size or the times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// The keys file as the service last saw it.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// A file is there (readable or not).
    pub present: bool,
    /// The keys in use: the file's, or the last good ones when it is unusable.
    pub loaded: Option<Arc<Loaded>>,
    /// Why the file as it is now is not used (its keys or none are in use).
    pub problem: Option<Msg>,
}

#[derive(Default)]
struct State {
    /// `None` before the first look, `Some(None)` when no file was there.
    stamp: Option<Option<Stamp>>,
    seen: Seen,
}

/// The keys file a running service reads, shared by the tasks and the requests.
pub struct KeysFile {
    path: KeysPath,
    state: Mutex<State>,
}

impl std::fmt::Debug for KeysFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeysFile")
            .field("path", &self.path.path)
            .finish()
    }
}

impl KeysFile {
    pub fn new(path: KeysPath) -> KeysFile {
        KeysFile {
            path,
            state: Mutex::default(),
        }
    }

    /// Where the file is (for the log and the command line; never for a page).
    pub fn path(&self) -> &Path {
        &self.path.path
    }

    /// The keys in use now, read again when the file changed: `None` without a
    /// usable file. `Loaded::fingerprint` says when files read under other keys
    /// must be read again.
    pub fn current(&self) -> Option<Arc<Loaded>> {
        self.seen().loaded
    }

    /// The file as it is now: there or not, the keys in use, what is wrong with it.
    pub fn seen(&self) -> Seen {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let stamp = stat(&self.path)
            .ok()
            .filter(|m| m.is_file() || m.is_symlink())
            .map(|m| Stamp::of(&m));
        if state.stamp != Some(stamp) {
            self.look(&mut state, stamp);
        }
        state.seen.clone()
    }

    /// Read the file again, once per change: log what changed, keep the last good
    /// keys when the new file cannot be used.
    fn look(&self, state: &mut State, stamp_before: Option<Stamp>) {
        match read(&self.path) {
            Ok(None) => {
                if state.seen.loaded.is_some() {
                    info!(
                        "console keys: {} is gone; files are read without keys",
                        self.path().display()
                    );
                }
                state.stamp = Some(None);
                state.seen = Seen::default();
            }
            Ok(Some((stamp, Ok(loaded)))) => {
                info!(
                    "console keys: {} read (fingerprint {})",
                    self.path().display(),
                    loaded.fingerprint
                );
                state.stamp = Some(Some(stamp));
                state.seen = Seen {
                    present: true,
                    loaded: Some(Arc::new(loaded)),
                    problem: None,
                };
            }
            Ok(Some((stamp, Err(e)))) => {
                let kept = match state.seen.loaded {
                    Some(_) => "the keys read before stay in use",
                    None => "files are read without keys",
                };
                warn!(
                    "console keys: {} is not used: {}; {kept}",
                    self.path().display(),
                    e.msg.english()
                );
                state.stamp = Some(Some(stamp));
                state.seen.present = true;
                state.seen.problem = Some(e.msg);
            }
            Err(e) => {
                // Read again once it changes (a permission fixed changes its ctime).
                warn!(
                    "console keys: {} cannot be read: {e}",
                    self.path().display()
                );
                state.stamp = Some(stamp_before);
                state.seen.present = true;
                state.seen.problem = Some(Msg::ConsoleKeysUnreadable);
            }
        }
    }
}

/// The file's stamp and what it gives; `None` when there is no file.
type Read_ = Option<(Stamp, Result<Loaded, Error>)>;

/// The file's own metadata where a link is refused, the target's where one is followed.
fn stat(at: &KeysPath) -> std::io::Result<std::fs::Metadata> {
    match at.links {
        true => std::fs::metadata(&at.path),
        false => std::fs::symlink_metadata(&at.path),
    }
}

fn read(at: &KeysPath) -> std::io::Result<Read_> {
    let path = &at.path;
    // Non-blocking: a FIFO put where the keys file should be would block the open,
    // and every request waiting for the keys with it. What is opened must be a
    // regular file; a link only where the file was named with `--keys`.
    let nofollow = if at.links { 0 } else { libc::O_NOFOLLOW };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | nofollow)
        .open(path);
    let file = match file {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) && !at.links => {
            let meta = std::fs::symlink_metadata(path)?;
            let refused = Error::invalid(Msg::ConsoleKeysLink);
            return Ok(Some((Stamp::of(&meta), Err(refused))));
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(None);
    }
    if meta.permissions().mode() & 0o077 != 0 {
        warn!(
            "console keys: other users of this machine may read {}: `chmod 600` it",
            path.display()
        );
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE as u64 + 1).read_to_end(&mut bytes)?;
    Ok(Some((Stamp::of(&meta), Loaded::from_bytes(&bytes))))
}

/// Read the file once, without a handle: `None` when there is none.
pub fn load(at: &KeysPath) -> Result<Option<Loaded>, Error> {
    match read(at) {
        Ok(None) => Ok(None),
        Ok(Some((_, loaded))) => loaded.map(Some),
        Err(e) => Err(Error::invalid(Msg::ConsoleKeysUnreadable)
            .with_cause(format!("{}: {e}", at.path.display()))),
    }
}

/// Check `bytes` as a keys file, then put them at `path` atomically, mode 0600. A
/// malformed file is refused with its line and nothing is written; whatever
/// happens, the previous file is either whole or replaced whole.
pub fn install(path: &Path, bytes: &[u8]) -> Result<Loaded, Error> {
    let loaded = Loaded::from_bytes(bytes)?;
    let not_written = |e: std::io::Error| {
        Error::invalid(Msg::ConsoleKeysNotWritten).with_cause(format!("{}: {e}", path.display()))
    };
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "prod.keys".into());
    let temp = folder.join(format!(".{name}.{:016x}.part", rand::random::<u64>()));
    let written = write_synced(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(not_written(e));
    }
    // The rename is only durable once the folder is.
    std::fs::File::open(folder)
        .and_then(|f| f.sync_all())
        .map_err(not_written)?;
    Ok(loaded)
}

fn write_synced(temp: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(temp)?;
    // The mode asked for is narrowed by the umask only; said again in case.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(path: &Path) -> KeysPath {
        KeysPath {
            path: path.to_path_buf(),
            links: false,
        }
    }

    fn good(byte: u8) -> String {
        format!("header_key = {}\n", format!("{byte:02x}").repeat(32))
    }

    /// A FIFO where the keys file should be is no keys file, at once: opening it
    /// would wait for a writer, and every request with it.
    #[test]
    fn a_fifo_is_no_keys_file_and_never_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prod.keys");
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (done, wait) = std::sync::mpsc::channel();
        let p = path.clone();
        std::thread::spawn(move || {
            let handle = KeysFile::new(own(&p));
            let _ = done.send((
                handle.current().is_none(),
                load(&own(&p)).map(|l| l.is_none()),
            ));
        });
        let (none, loaded) = wait
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("reading a FIFO as the keys file blocked");
        assert!(none);
        assert!(matches!(loaded, Ok(true)), "{loaded:?}");
    }

    #[test]
    fn install_replaces_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prod.keys");
        install(&path, good(0x11).as_bytes()).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        let e = install(&path, b"header_key = 12\nnot a line\n").unwrap_err();
        assert!(matches!(e.msg, Msg::ConsoleKeysLine { line: 1, .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), good(0x11));
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left");
    }

    #[test]
    fn the_handle_sees_a_new_file_and_keeps_the_last_good_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prod.keys");
        let file = KeysFile::new(own(&path));
        assert!(file.current().is_none());
        assert!(!file.seen().present);
        install(&path, good(0x11).as_bytes()).unwrap();
        let first = file.current().expect("the new file is read");
        assert_eq!(first.keys.header_key, Some([0x11; 32]));
        install(&path, good(0x22).as_bytes()).unwrap();
        let second = file.current().unwrap();
        assert_ne!(first.fingerprint, second.fingerprint);
        // Unchanged: the same keys, not read again.
        assert!(Arc::ptr_eq(&second, &file.current().unwrap()));
        std::fs::write(&path, "header_key = 00\nbroken\n").unwrap();
        let seen = file.seen();
        assert!(seen.present);
        assert!(matches!(
            seen.problem,
            Some(Msg::ConsoleKeysLine { line: 1, .. })
        ));
        assert_eq!(seen.loaded.unwrap().fingerprint, second.fingerprint);
        std::fs::remove_file(&path).unwrap();
        assert!(file.current().is_none());
        assert!(file.seen().problem.is_none());
    }
}
