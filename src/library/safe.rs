//! Files inside the library, and nothing outside it.
//!
//! The scan never walks into a symlinked folder and follows a symlinked file only when
//! its target lies inside the root (see `walk`). Every later operation on a file by its
//! key (probe, convert, push, delete, restore) holds to the same rule here, at the
//! moment it touches the file, because the tree may have changed since the scan: a
//! folder on the way that became a symlink, or a file swapped for a link to somewhere
//! else, is refused rather than followed.
//!
//! A file is opened ([`open`], [`Opener`]) one folder at a time: each folder on the
//! way is opened from its parent's handle with `O_NOFOLLOW`, and the file from its
//! folder's, with `O_NOFOLLOW` too, so no link put anywhere on the way is followed,
//! whenever it was put there. Moves and the folders they make check the folders on
//! the way with `lstat` ([`check_folders`], [`make_folders`]): a folder swapped for a
//! link in the instant between that check and the rename is not caught; what is
//! caught is every change made before the operation starts, which is how a tree
//! changes under a library in practice.
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
use std::path::Path;

use super::LibraryKey;
use crate::error::Reason;

fn refused(why: &str) -> Error {
    Error::new(ErrorKind::PermissionDenied, why.to_string())
}

/// The library folder `root` itself is a real folder: one swapped for a link since it
/// was mounted (a remount gone wrong, a hostile share) leads elsewhere, and is refused.
fn check_root(root: &Path) -> Result<()> {
    match std::fs::symlink_metadata(root)?.file_type().is_symlink() {
        true => Err(refused("the library folder is a link")),
        false => Ok(()),
    }
}

/// `root` and every folder between it and the file at `key` are real folders, not
/// symlinks.
pub fn check_folders(root: &Path, key: &LibraryKey) -> Result<()> {
    check_root(root)?;
    for path in key.folders_under(root) {
        let meta = std::fs::symlink_metadata(&path)?;
        if !meta.is_dir() {
            return Err(refused("a folder on the way is a link or not a folder"));
        }
    }
    Ok(())
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

    /// The same for the type bits of a `stat` (`S_IFMT`).
    fn of_mode(kind: libc::mode_t) -> Option<NotAFile> {
        Some(match kind {
            libc::S_IFREG | libc::S_IFLNK => return None,
            libc::S_IFIFO => NotAFile::Fifo,
            libc::S_IFSOCK => NotAFile::Socket,
            libc::S_IFCHR | libc::S_IFBLK => NotAFile::Device,
            libc::S_IFDIR => NotAFile::Folder,
            _ => NotAFile::Other,
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

/// The file of the library's `key`, in whichever of its folders holds it ([`open`]).
pub fn open_key(folders: &crate::tree::Folders, key: &LibraryKey) -> Result<File> {
    let place = folders.locate(key);
    open(place.dir(), &place.key)
}

/// [`open_key`] for a client: a refusal says why in words it may see, naming what
/// is in the game's place, or its library folder when that is offline (503, a share
/// that may come back), else that the file is gone (404).
pub fn open_for_client(
    folders: &crate::tree::Folders,
    key: &LibraryKey,
) -> std::result::Result<File, crate::error::Error> {
    use crate::error::{Error as Refused, Kind, Msg};
    open_key(folders, key).map_err(|e| match (not_a_file(&e), folders.away(key)) {
        (Some(what), _) => Refused::not_found(what.msg(key)).with_cause(e),
        (None, Some(away)) => Refused::new(Kind::Unavailable, away).with_cause(e),
        (None, None) => Refused::not_found(Msg::FileGone).with_cause(e),
    })
}

/// Open the game file at `key` for reading, under the rules above. The result is a
/// regular file, opened in blocking mode; anything else is refused with a
/// [`NotAFile`] before a byte is read, and without waiting (a FIFO, a socket, a
/// device).
pub fn open(root: &Path, key: &LibraryKey) -> Result<File> {
    Opener::new(root).open(key)
}

/// Opens files of the library folder by folder, under the rules above: each folder on
/// the way is opened from its parent's handle, never through a link
/// (`O_NOFOLLOW | O_DIRECTORY`), and a file is looked at and opened from its folder's
/// handle. So a folder swapped for a link after it was opened changes nothing, and
/// the files of one folder cost no look at the folders above them: an opener kept
/// across a scan opens each folder once, not once a file (the folders of one path
/// were seven `stat` calls a file at 100,000 files).
pub struct Opener<'a> {
    root: &'a Path,
    /// The folder last opened: its key (`""` for the root) and its handle.
    folder: Option<(String, std::os::fd::OwnedFd)>,
}

impl<'a> Opener<'a> {
    pub fn new(root: &'a Path) -> Opener<'a> {
        Opener { root, folder: None }
    }

    /// Open the game file at `key` for reading: a regular file in blocking mode, or
    /// a refusal (see [`open`]). A file that is a link is followed when its target
    /// lies inside the root, as the scan follows it.
    pub fn open(&mut self, key: &LibraryKey) -> Result<File> {
        use std::os::fd::AsFd;
        let (folder, name) = key.as_str().rsplit_once('/').unwrap_or(("", key.as_str()));
        let kept = match self.folder.take() {
            Some((open, fd)) if open == folder => self.folder.insert((open, fd)),
            _ => (self.folder).insert((folder.to_string(), open_folder(self.root, folder)?)),
        };
        let dir = kept.1.as_fd();
        let name = c_name(name)?;
        // Refused before opening when it already shows: opening some devices does
        // something (a tape rewinds), and a socket cannot be opened at all.
        let kind = kind_at(dir, &name)?;
        if kind == libc::S_IFLNK {
            return open_link(self.root, key);
        }
        if let Some(what) = NotAFile::of_mode(kind) {
            return Err(not_regular(what));
        }
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY;
        regular(open_at(dir, &name, flags)?)
    }
}

/// The handle of the folder `folder` (a key's folders, `/`-separated; `""` for the
/// root), opened one segment at a time without following a link.
fn open_folder(root: &Path, folder: &str) -> Result<std::os::fd::OwnedFd> {
    // The library folder itself is not followed either (mounted canonical: a link
    // there now was swapped in since).
    let mut fd: std::os::fd::OwnedFd = File::options()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NOFOLLOW)
        .open(root)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP | libc::ENOTDIR) => refused("the library folder is a link"),
            _ => e,
        })?
        .into();
    for segment in folder.split('/').filter(|s| !s.is_empty()) {
        use std::os::fd::AsFd;
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
        fd = match open_at(fd.as_fd(), &c_name(segment)?, flags) {
            Ok(fd) => fd,
            Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                return Err(refused("a folder on the way is a link or not a folder"))
            }
            Err(e) => return Err(e),
        };
    }
    Ok(fd)
}

/// A name of the library as C wants it (a key holds no NUL; a name that did would be
/// refused here rather than cut short).
fn c_name(name: &str) -> Result<std::ffi::CString> {
    std::ffi::CString::new(name).map_err(|_| refused("a name holds a NUL byte"))
}

/// `openat` below `dir`, close-on-exec.
fn open_at(
    dir: std::os::fd::BorrowedFd<'_>,
    name: &std::ffi::CStr,
    flags: libc::c_int,
) -> Result<std::os::fd::OwnedFd> {
    use std::os::fd::{AsRawFd, FromRawFd};
    // SAFETY: `name` is a NUL-terminated string and `dir` an open descriptor, both
    // borrowed for the call; a descriptor returned is owned by no one else.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(Error::last_os_error());
    }
    // SAFETY: `fd` was just opened by this call and is closed by its owner only.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

/// The file type bits (`S_IFMT`) of `name` in `dir`, without following a link.
fn kind_at(dir: std::os::fd::BorrowedFd<'_>, name: &std::ffi::CStr) -> Result<libc::mode_t> {
    use std::os::fd::AsRawFd;
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `name` is NUL-terminated, `dir` open, and `stat` a buffer of the size
    // the call writes; it is read only when the call succeeded.
    let done = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            stat.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if done != 0 {
        return Err(Error::last_os_error());
    }
    // SAFETY: the call succeeded, so it filled `stat`.
    Ok(unsafe { stat.assume_init() }.st_mode & libc::S_IFMT)
}

/// A file that is a link: followed when its target lies inside the root.
fn open_link(root: &Path, key: &LibraryKey) -> Result<File> {
    let target = key.under(root).canonicalize()?;
    if !target.starts_with(root) {
        return Err(refused("a link that leads out of the library"));
    }
    let flags = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY;
    let file = File::options()
        .read(true)
        .custom_flags(flags | libc::O_CLOEXEC)
        .open(&target)?;
    regular(file.into())
}

/// The file just opened, once its handle shows a regular file (a swap between the
/// look and the open is caught here), in blocking mode.
fn regular(fd: std::os::fd::OwnedFd) -> Result<File> {
    let file = File::from(fd);
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

/// Clear `O_NONBLOCK` on an open file: reads then wait for their bytes as usual. The
/// files here are opened with no other status flag (`O_APPEND`, `O_DIRECT`…), so
/// setting none clears it in one call.
fn blocking(file: &File) -> Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl on a descriptor this function borrows open; no memory is passed.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, 0) } < 0 {
        return Err(Error::last_os_error());
    }
    Ok(())
}

/// How often the writer asks the kernel to start writing back what it wrote.
pub const WRITEBACK_EVERY: u64 = 16 << 20;

/// Start writing a range back to disk without waiting for it, so the fsync at the
/// end finds little left to do instead of the whole file.
pub fn start_writeback(file: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain syscall on a file descriptor this function borrows; its result
    // is advisory only.
    unsafe {
        libc::sync_file_range(
            file.as_raw_fd(),
            offset as i64,
            len as i64,
            libc::SYNC_FILE_RANGE_WRITE,
        );
    }
}

/// Make the folders that lead to `key` below `root`, one at a time, never through a
/// symlink: a missing folder is created, an existing one must be a real folder.
pub fn make_folders(root: &Path, key: &LibraryKey) -> Result<()> {
    check_root(root)?;
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

/// What the library's folders need (`needed`, in the order of `lib.all()`) against
/// their disks' free space, each disk once: the first disk that lacks room, its need
/// and its free space; else the whole need and the free space of the disks needed.
pub fn room(lib: &crate::tree::Folders, needed: &[u64]) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let mut disks: Vec<(u64, &Path, u64)> = Vec::new();
    for (folder, &bytes) in lib.all().iter().zip(needed).filter(|(_, b)| **b > 0) {
        let Ok(dev) = std::fs::metadata(&folder.dir).map(|m| m.dev()) else {
            continue;
        };
        match disks.iter_mut().find(|d| d.0 == dev) {
            Some(disk) => disk.2 = disk.2.saturating_add(bytes),
            None => disks.push((dev, &folder.dir, bytes)),
        }
    }
    let (mut total, mut free) = (0u64, 0u64);
    for (_, dir, need) in disks {
        let has = free_space(dir).unwrap_or(u64::MAX);
        if need > has {
            return (need, has);
        }
        (total, free) = (total.saturating_add(need), free.saturating_add(has));
    }
    match total {
        0 => (0, free_space(lib.root()).unwrap_or(u64::MAX)),
        _ => (total, free),
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
    Ok(space(path)?.0)
}

/// The bytes an unprivileged process may still write on the filesystem of `path`,
/// and the filesystem's size.
pub fn space(path: &Path) -> Result<(u64, u64)> {
    use std::os::unix::ffi::OsStrExt;
    let p = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(Error::other)?;
    // SAFETY: a valid NUL-terminated path and a zeroed struct statvfs fills.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(p.as_ptr(), &mut st) } != 0 {
        return Err(Error::last_os_error());
    }
    let block = st.f_frsize as u64;
    Ok((
        (st.f_bavail as u64).saturating_mul(block),
        (st.f_blocks as u64).saturating_mul(block),
    ))
}

/// The filesystem `path` lies on, by the name people know it by (`ext4`, `nfs`,
/// `smb`…), and whether inotify hears what its server changes (not on a network or
/// FUSE filesystem: the watch polls those). `None` when it cannot be asked.
pub fn filesystem(path: &Path) -> Option<(&'static str, bool)> {
    use std::os::unix::ffi::OsStrExt;
    const KNOWN: [(u32, &str, bool); 17] = [
        (0xEF53, "ext4", true),
        (0x9123_683E, "btrfs", true),
        (0x5846_5342, "xfs", true),
        (0x2FC1_2FC1, "zfs", true),
        (0x0102_1994, "tmpfs", true),
        (0x4D44, "vfat", true),
        (0x2011_BAB0, "exfat", true),
        (0x5346_544E, "ntfs", true),
        (0x794C_7630, "overlay", true),
        (0xF2F5_2010, "f2fs", true),
        (0x6969, "nfs", false),
        (0x517B, "smb", false),
        (0xFF53_4D42, "cifs", false),
        (0xFE53_4D42, "smb2", false),
        (0x6573_5546, "fuse", false),
        (0x0102_1997, "9p", false),
        (0x7375_7245, "coda", false),
    ];
    let path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: a valid path, and a zeroed statfs for the kernel to fill.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(path.as_ptr(), &mut fs) } != 0 {
        return None;
    }
    // The type is 32 bits wide whatever the width of the field (signed on 32-bit
    // systems, where CIFS's magic number would read negative).
    let kind = fs.f_type as u32;
    let known = KNOWN.iter().find(|(magic, ..)| *magic == kind);
    Some(known.map_or(("other", true), |(_, name, heard)| (*name, *heard)))
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

    /// An opener kept across files opens each folder once and holds to it: files of
    /// two folders in turn open, and a folder swapped for a link to the outside after
    /// it was opened is not followed (the kept handle is the real folder's); a new
    /// opener refuses the link.
    #[test]
    fn an_opener_holds_to_the_folders_it_opened() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("lib");
        for (folder, byte) in [("lib/a", b'a'), ("lib/b", b'b'), ("outside", b'x')] {
            std::fs::create_dir_all(tmp.path().join(folder)).unwrap();
            std::fs::write(tmp.path().join(folder).join("g.nsp"), [byte]).unwrap();
        }
        let read = |file: Result<File>| {
            let mut byte = [0];
            std::io::Read::read_exact(&mut file.unwrap(), &mut byte).unwrap();
            byte[0]
        };
        let mut files = Opener::new(&root);
        assert_eq!(read(files.open(&key("a/g.nsp"))), b'a');
        assert_eq!(read(files.open(&key("b/g.nsp"))), b'b');
        std::fs::rename(root.join("b"), tmp.path().join("b-moved")).unwrap();
        symlink(tmp.path().join("outside"), root.join("b")).unwrap();
        assert_eq!(read(files.open(&key("b/g.nsp"))), b'b', "the kept handle");
        assert!(files.open(&key("a/g.nsp")).is_ok());
        let refused = files.open(&key("b/g.nsp")).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::PermissionDenied, "{refused}");
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
