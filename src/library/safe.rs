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

use std::fs::File;
use std::io::{Error, ErrorKind, Result};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::LibraryKey;

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

/// Open the game file at `key` for reading, under the rules above. The result is a
/// regular file.
pub fn open(root: &Path, key: &LibraryKey) -> Result<File> {
    let path = resolve(root, key)?;
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(refused("not a regular file"));
    }
    Ok(file)
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
    // SAFETY: two valid NUL-terminated paths, relative to the working directory.
    let done = unsafe {
        libc::renameat2(
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
