//! A file read through one cached window: the probe's reads are many and small (a
//! container's tables, each NCA's header, a CNMT), and most lie near one another.
//! Served from a window of [`SIZE`] bytes filled by one positioned read, they cost a
//! system call per region instead of a seek and a read each. Larger reads go
//! straight to the file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;

/// The window: an NCA header and a small Meta NCA's section fit in it.
const SIZE: usize = 32 * 1024;

pub struct Window {
    file: File,
    len: u64,
    /// The cached bytes and the file offset of the first.
    buf: Vec<u8>,
    at: u64,
    pos: u64,
}

impl Window {
    pub fn new(file: File, len: u64) -> Window {
        Window {
            file,
            len,
            buf: Vec::new(),
            at: 0,
            pos: 0,
        }
    }

    /// Fill the window from `at` (up to the end of the file).
    fn fill(&mut self, at: u64) -> io::Result<()> {
        let want = (self.len.saturating_sub(at)).min(SIZE as u64) as usize;
        self.buf.resize(want, 0);
        let mut got = 0;
        while got < want {
            match self.file.read_at(&mut self.buf[got..], at + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.buf.truncate(got);
        self.at = at;
        Ok(())
    }
}

impl Read for Window {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.len() >= SIZE {
            let n = self.file.read_at(out, self.pos)?;
            self.pos += n as u64;
            return Ok(n);
        }
        let cached = self.pos >= self.at && self.pos < self.at + self.buf.len() as u64;
        if !cached {
            self.fill(self.pos)?;
        }
        let from = (self.pos - self.at) as usize;
        let n = out.len().min(self.buf.len().saturating_sub(from));
        out[..n].copy_from_slice(&self.buf[from..from + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Window {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every read at every offset gives the file's bytes, across window edges.
    #[test]
    fn reads_anywhere_give_the_files_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mut w = Window::new(File::open(&path).unwrap(), bytes.len() as u64);
        for (at, len) in [
            (0, 16),
            (32_760, 20),
            (99_990, 10),
            (5, 40_000),
            (65_530, 12),
        ] {
            let mut out = vec![0u8; len];
            w.seek(SeekFrom::Start(at)).unwrap();
            w.read_exact(&mut out).unwrap();
            assert_eq!(out, bytes[at as usize..at as usize + len], "{at}");
        }
        let mut past = [0u8; 4];
        w.seek(SeekFrom::Start(99_998)).unwrap();
        assert!(w.read_exact(&mut past).is_err(), "past the end is an end");
    }
}
