//! Files inside the library, and nothing outside it.
//!
//! The scan never walks into a symlinked folder and follows a symlinked file only when
//! its target lies inside the root (see `walk`). Every later operation on a file by its
//! key (probe, convert, push, delete, restore) holds to the same rule here, at the
//! moment it touches the file, because the tree may have changed since the scan: a
//! folder on the way that became a symlink, or a file swapped for a link to somewhere
//! else, is refused rather than followed.
//!
//! Folders on the way are checked with `lstat`; the file itself is opened with
//! `O_NOFOLLOW`, so a link put in its place between the check and the open fails the
//! open instead of being served. A folder swapped for a link in the instant between
//! its check and the open is not caught (walking with `openat` and `O_NOFOLLOW` at
//! every step would be); what is caught is every change made before the operation
//! starts, which is how a tree changes under a library in practice.
//!
//! What is read must be a regular file. A FIFO put in a game's place (anyone who can
//! write into a share can make one) would block an `open` for reading until a writer
//! came, for ever: a download thread wedged, a convert no cancel can stop. So
//! [`open`] is the one place a library file is opened for reading: it refuses what
//! `lstat` shows is no regular file, opens with `O_NONBLOCK` (a FIFO's open then
//! returns at once) and `O_NOCTTY`, refuses what `fstat` on the handle shows is no
//! regular file (a swap in between), and only then clears `O_NONBLOCK` so that reads
//! block as usual. The refusal is a [`NotAFile`], which callers turn into a message
//! naming the file; moves (a rename) of such a file are harmless and stay possible
//! where the library allows them, but tasks that act on games report it instead.

use std::fs::File;
use std::io::{Error, ErrorKind, Result};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::LibraryKey;
use crate::error::Reason;

fn refused(why: &str) -> Error {
    Error::new(ErrorKind::PermissionDenied, why.to_string())
}

/// Every folder between `root` and the file at `key` is a real folder, not a symlink.
pub fn check_folders(root: &Path, key: &LibraryKey) -> Result<()> {
    for path in key.folders_under(root) {
        let meta = std::fs::symlink_metadata(&path)?;
        if !meta.is_dir() {
            return Err(refused("a folder on the way is a link or not a folder"));
        }
    }
    Ok(())
}

/// The real path of the file at `key`: itself, or the target of a symlinked file when
/// that target lies inside `root` (as the scan follows it). Anything else is refused.
pub fn resolve(root: &Path, key: &LibraryKey) -> Result<PathBuf> {
    check_folders(root, key)?;
    let path = key.under(root);
    let meta = std::fs::symlink_metadata(&path)?;
    if !meta.file_type().is_symlink() {
        return Ok(path);
    }
    let target = path.canonicalize()?;
    if !target.starts_with(root) {
        return Err(refused("a link that leads out of the library"));
    }
    Ok(target)
}

/// What a path of the library is when it is not a regular file: the reason an
/// operation refused it, carried inside the `io::Error` ([`not_a_file`] finds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAFile {
    Fifo,
    Socket,
    Device,
    Folder,
    Other,
}

impl NotAFile {
    /// What `file_type` is when it is not a regular file; `None` for a regular file,
    /// and for a symlink (which `lstat` shows, and which is followed or refused by
    /// the rules above, not by this one).
    pub fn of(file_type: std::fs::FileType) -> Option<NotAFile> {
        use std::os::unix::fs::FileTypeExt;
        let t = file_type;
        Some(if t.is_file() || t.is_symlink() {
            return None;
        } else if t.is_fifo() {
            NotAFile::Fifo
        } else if t.is_socket() {
            NotAFile::Socket
        } else if t.is_char_device() || t.is_block_device() {
            NotAFile::Device
        } else if t.is_dir() {
            NotAFile::Folder
        } else {
            NotAFile::Other
        })
    }

    /// The word a message (`Msg::NotAFile`) carries.
    pub fn word(self) -> &'static str {
        match self {
            NotAFile::Fifo => "fifo",
            NotAFile::Socket => "socket",
            NotAFile::Device => "device",
            NotAFile::Folder => "folder",
            NotAFile::Other => "other",
        }
    }

    /// The reason as a detail of a convert or a probe.
    pub fn detail(self) -> Reason {
        match self {
            NotAFile::Fifo => Reason::Fifo,
            NotAFile::Socket => Reason::Socket,
            NotAFile::Device => Reason::Device,
            NotAFile::Folder => Reason::Folder,
            NotAFile::Other => Reason::NotRegular,
        }
    }

    /// The message naming the file at `key`.
    pub fn msg(self, key: &str) -> crate::error::Msg {
        crate::error::Msg::NotAFile {
            key: key.to_string(),
            what: self.word().to_string(),
        }
    }
}

impl std::fmt::Display for NotAFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail().english())
    }
}

impl std::error::Error for NotAFile {}

fn not_regular(what: NotAFile) -> Error {
    Error::new(ErrorKind::InvalidInput, what)
}

/// When `e` is the refusal of something that is not a regular file, what it is.
pub fn not_a_file(e: &Error) -> Option<NotAFile> {
    e.get_ref()?.downcast_ref::<NotAFile>().copied()
}

/// Open the game file at `key` for reading, under the rules above. The result is a
/// regular file, opened in blocking mode; anything else is refused with a
/// [`NotAFile`] before a byte is read, and without waiting (a FIFO, a socket, a
/// device).
pub fn open(root: &Path, key: &LibraryKey) -> Result<File> {
    let path = resolve(root, key)?;
    // Refused before opening when it already shows: opening some devices does
    // something (a tape rewinds), and a socket cannot be opened at all.
    if let Some(what) = NotAFile::of(std::fs::symlink_metadata(&path)?.file_type()) {
        return Err(not_regular(what));
    }
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(&path)?;
    // Swapped between the look and the open: the handle says what was opened.
    let kind = file.metadata()?.file_type();
    if let Some(what) = NotAFile::of(kind) {
        return Err(not_regular(what));
    }
    if !kind.is_file() {
        return Err(not_regular(NotAFile::Other));
    }
    blocking(&file)?;
    Ok(file)
}

/// Clear `O_NONBLOCK` on an open file: reads then wait for their bytes as usual.
fn blocking(file: &File) -> Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function borrows open; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(Error::last_os_error());
    }
    Ok(())
}

/// Make the folders that lead to `key` below `root`, one at a time, never through a
/// symlink: a missing folder is created, an existing one must be a real folder.
pub fn make_folders(root: &Path, key: &LibraryKey) -> Result<()> {
    for path in key.folders_under(root) {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(refused("a folder on the way is a link or not a folder")),
            Err(e) if e.kind() == ErrorKind::NotFound => match std::fs::create_dir(&path) {
                Ok(()) => {}
                // Made meanwhile by someone else: checked again on the next turn.
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    if !std::fs::symlink_metadata(&path)?.is_dir() {
                        return Err(refused("a folder on the way is a link or not a folder"));
                    }
                }
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Move the file `src` to `dst`, which must not exist: an existing `dst` is never
/// overwritten (`AlreadyExists`), even one that appears meanwhile. The folders of
/// `dst` must exist. Both are on the same filesystem (a rename).
///
/// `renameat2(RENAME_NOREPLACE)` does it in one step where the filesystem has it;
/// elsewhere a hard link (which fails on an existing target) and an unlink; on a
/// filesystem without hard links either (exFAT, some network mounts), a check and a
/// rename, which leaves only the instant between the two.
pub fn move_new(src: &Path, dst: &Path) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(Error::other);
    let (from, to) = (c(src)?, c(dst)?);
    // The system call itself, not libc's wrapper: musl (the static release builds)
    // has no renameat2 function, and the call is the same on every Linux.
    // SAFETY: two valid NUL-terminated paths, relative to the working directory.
    let done = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if done == 0 {
        return Ok(());
    }
    let e = Error::last_os_error();
    if !matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) {
        return Err(e);
    }
    let exists = || std::fs::symlink_metadata(dst).is_ok();
    match std::fs::hard_link(src, dst) {
        // The file must not keep both names: when the old one cannot go, neither
        // does the new.
        Ok(()) => std::fs::remove_file(src).inspect_err(|_| {
            let _ = std::fs::remove_file(dst);
        }),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(e),
        Err(_) if exists() => Err(ErrorKind::AlreadyExists.into()),
        Err(_) => std::fs::rename(src, dst),
    }
}

/// Remove the folders of `key` below `root` that are left empty, nearest to the file
/// first, stopping at the first that is not empty and never removing `keep` (a
/// platform folder) or a folder above it.
pub fn remove_empty_folders(root: &Path, key: &LibraryKey, keep: &Path) {
    for folder in key.folders_under(root).iter().rev() {
        if folder == keep || keep.starts_with(folder) || std::fs::remove_dir(folder).is_err() {
            break;
        }
    }
}

/// A folder the scan may walk: every component below `root` a real folder (or not
/// there yet), none hidden. Platform folders are held to it when added and scanned.
pub fn walkable_folder(root: &Path, folder: &str) -> bool {
    if folder.is_empty() {
        return true;
    }
    let mut path = root.to_path_buf();
    for segment in folder.split('/') {
        if segment.starts_with('.') {
            return false;
        }
        path.push(segment);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return false,
            Err(_) => return true,
        }
    }
    true
}

/// The bytes an unprivileged process may still write on the filesystem of `path`.
pub fn free_space(path: &Path) -> Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let p = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(Error::other)?;
    // SAFETY: a valid NUL-terminated path and a zeroed struct statvfs fills.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(p.as_ptr(), &mut st) } != 0 {
        return Err(Error::last_os_error());
    }
    Ok((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn key(raw: &str) -> LibraryKey {
        LibraryKey::parse(raw).unwrap()
    }

    #[test]
    fn links_out_of_the_library_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("lib")).unwrap();
        let root = tmp.path().join("lib").canonicalize().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("secret.nsp"), b"secret").unwrap();
        std::fs::create_dir(root.join("games")).unwrap();
        std::fs::write(root.join("games/a.nsp"), b"a").unwrap();
        symlink(&outside, root.join("retro")).unwrap();
        symlink(outside.join("secret.nsp"), root.join("games/out.nsp")).unwrap();
        symlink(root.join("games/a.nsp"), root.join("games/in.nsp")).unwrap();

        assert!(open(&root, &key("games/a.nsp")).is_ok());
        assert!(
            open(&root, &key("games/in.nsp")).is_ok(),
            "a link inside is followed"
        );
        assert!(open(&root, &key("retro/secret.nsp")).is_err());
        assert!(open(&root, &key("games/out.nsp")).is_err());
        assert!(open(&root, &key("games")).is_err());
        assert!(make_folders(&root, &key("retro/new/x.nsp")).is_err());
        assert!(!outside.join("new").exists());
        make_folders(&root, &key("new/deeper/x.nsp")).unwrap();
        assert!(root.join("new/deeper").is_dir());
        assert!(!walkable_folder(&root, "retro"));
        assert!(!walkable_folder(&root, ".ludotheque-trash"));
        assert!(!walkable_folder(&root, "games/.hidden"));
        assert!(walkable_folder(&root, "games"));
        assert!(walkable_folder(&root, "not/yet"));
    }

    /// Make a FIFO at `path`.
    fn fifo(path: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    /// A FIFO, a socket, a link to a FIFO (inside the library) and, when this process
    /// may make one, a device: each refused at once, and said for what it is; a
    /// regular file still opens, and reads block as usual.
    #[test]
    fn what_is_not_a_regular_file_is_refused_without_waiting() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        fifo(&root.join("pipe.nsp"));
        let _socket = std::os::unix::net::UnixListener::bind(root.join("socket.nsp")).unwrap();
        symlink(root.join("pipe.nsp"), root.join("link.nsp")).unwrap();
        std::fs::write(root.join("game.nsp"), b"game").unwrap();
        let mut cases = vec![
            ("pipe.nsp", NotAFile::Fifo),
            ("socket.nsp", NotAFile::Socket),
            ("link.nsp", NotAFile::Fifo),
        ];
        let dev = std::ffi::CString::new(root.join("null.nsp").to_str().unwrap()).unwrap();
        // SAFETY: a valid path; /dev/null's numbers. Only root may, so it may fail.
        if unsafe { libc::mknod(dev.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } == 0 {
            cases.push(("null.nsp", NotAFile::Device));
        }
        for (name, want) in cases {
            let (done, result) = std::sync::mpsc::channel();
            let here = root.clone();
            std::thread::spawn(move || {
                let _ = done.send(open(&here, &key(name)).map(|_| ()));
            });
            let e = result
                .recv_timeout(std::time::Duration::from_secs(5))
                .unwrap_or_else(|_| panic!("opening {name} did not return"))
                .unwrap_err();
            assert_eq!(not_a_file(&e), Some(want), "{name}: {e}");
            assert_ne!(want.detail().french(), want.detail().english());
        }
        let file = open(&root, &key("game.nsp")).unwrap();
        use std::os::fd::AsRawFd;
        let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
        assert_eq!(flags & libc::O_NONBLOCK, 0, "reads block as usual");
    }

    #[test]
    fn a_move_never_overwrites() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("c"),
        );
        std::fs::write(&a, b"a").unwrap();
        std::fs::write(&b, b"b").unwrap();
        let e = move_new(&a, &b).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&b).unwrap(), b"b");
        move_new(&a, &c).unwrap();
        assert!(!a.exists());
        assert_eq!(std::fs::read(&c).unwrap(), b"a");
    }
}
