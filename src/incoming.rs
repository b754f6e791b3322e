//! Uploads being received: each a part file in its own folder of the data folder,
//! removed when dropped unless it was kept (renamed into place), and those a stop cut
//! short removed at the next start ([`sweep`]). One writer for every upload (a
//! console's save, a WebDAV PUT, title data files from Settings), so that each says a
//! full disk as such (507), in its own words.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use log::warn;
use rand::Rng;

use crate::error::{Error, Kind, Msg};

pub struct Incoming {
    pub path: PathBuf,
    pub file: File,
    pub written: u64,
    /// A write failed for want of room (the disk, or the process's file size limit).
    full: bool,
    /// How far write-back was started (`safe::start_writeback`), so that the fsync
    /// at the end finds little left and the disk is busy from the start.
    flushed: u64,
    /// What a full disk is said as, for this kind of upload.
    no_room: Msg,
}

impl Incoming {
    /// A new part file in `dir` (made if need be); `no_room` says a full disk.
    pub fn new(dir: &Path, no_room: Msg) -> Result<Incoming, Error> {
        std::fs::create_dir_all(dir)?;
        let name = format!("{:016x}.part", rand::rng().random::<u64>());
        let path = dir.join(name);
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        Ok(Incoming {
            path,
            file,
            written: 0,
            full: false,
            flushed: 0,
            no_room,
        })
    }

    /// What a copy into it ended with: the disk full is said as such (507).
    pub fn took<T>(&self, copied: Result<T, Error>) -> Result<T, Error> {
        match copied {
            Err(e) if self.full => Err(self.disk_full().with_cause(e)),
            other => other,
        }
    }

    /// Flush it to disk: a disk that turns out full then is said as such.
    pub fn sync(&self) -> Result<(), Error> {
        self.file.sync_all().map_err(|e| match no_room(&e) {
            true => self.disk_full().with_cause(e),
            false => e.into(),
        })
    }

    fn disk_full(&self) -> Error {
        Error::new(Kind::InsufficientStorage, self.no_room.clone())
    }
}

impl Write for Incoming {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let n = self
            .file
            .write(b)
            .inspect_err(|e| self.full |= no_room(e))?;
        self.written += n as u64;
        if self.written - self.flushed >= crate::library::safe::WRITEBACK_EVERY {
            let len = self.written - self.flushed;
            crate::library::safe::start_writeback(&self.file, self.flushed, len);
            self.flushed = self.written;
        }
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Whether an error says there is no room left.
fn no_room(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{FileTooLarge, QuotaExceeded, StorageFull};
    matches!(e.kind(), StorageFull | FileTooLarge | QuotaExceeded)
}

impl Drop for Incoming {
    fn drop(&mut self) {
        // Gone already when it was kept (renamed into place).
        let _ = std::fs::remove_file(&self.path);
    }
}

/// At start: the part files in `dir` that a stop cut short are removed; `what` names
/// the uploads for the log.
pub fn sweep(dir: &Path, what: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().ends_with(".part") {
            warn!("{what}: an upload cut short is removed");
            let _ = std::fs::remove_file(e.path());
        }
    }
}
