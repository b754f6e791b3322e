//! The RomFS of a Control NCA: just enough to find the files of its root directory
//! (`control.nacp`, `icon_<Language>.dat`). Tables are bounded and every walk is
//! bounded by the number of entries its table can hold, so a looping list ends.

use std::io::{Read, Seek};

use crate::error::Reason;
use crate::library::bytes::{u32le, u64le};
use crate::library::containers::{Budget, FormatError};

/// The largest directory or file table read (a Control NCA's are a few hundred bytes).
const MAX_TABLE: u64 = 1 << 20;
const NONE: u32 = 0xFFFF_FFFF;

fn bad(why: Reason) -> FormatError {
    why.into()
}

/// A file of the root directory: its name, and its data's offset (from the reader's
/// start) and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootFile {
    pub name: String,
    pub offset: u64,
    pub size: u64,
}

/// The files of the root directory of the RomFS at `base` (`len` bytes) in `r` whose
/// names `wanted` takes, in the directory's order. Names are compared where they lie
/// in the table: only the files kept are copied out, so a hostile table whose every
/// entry names the rest of it costs no more than a real one.
pub fn root_files<R: Read + Seek>(
    r: &mut R,
    base: u64,
    len: u64,
    wanted: impl Fn(&[u8]) -> bool,
    budget: &Budget,
) -> Result<Vec<RootFile>, FormatError> {
    if len < 0x50 {
        return Err(bad(Reason::RomfsTruncated));
    }
    let head = budget.read(r, base, 0x50)?;
    let field = |i: usize| u64le(&head, 8 * i).unwrap_or(u64::MAX);
    let table = |r: &mut R, at: usize| -> Result<Vec<u8>, FormatError> {
        let (offset, size) = (field(at), field(at + 1));
        if size > MAX_TABLE || offset.checked_add(size).is_none_or(|end| end > len) {
            return Err(bad(Reason::RomfsTable));
        }
        budget.read(r, base + offset, size as usize)
    };
    // Fields: header size, then (offset, size) of the directory hash table (1, 2),
    // the directory table (3, 4), the file hash table (5, 6), the file table (7, 8);
    // the data offset (9).
    let dirs = table(r, 3)?;
    let files = table(r, 7)?;
    let data = field(9);
    let mut next = u32le(&dirs, 0xC).ok_or_else(|| bad(Reason::RomfsNoRoot))?;
    let mut out = Vec::new();
    // Each file entry is at least 0x20 bytes: no list is longer than that allows.
    for _ in 0..=files.len() / 0x20 {
        if next == NONE {
            return Ok(out);
        }
        let at = next as usize;
        let entry = files
            .get(at..at + 0x20)
            .ok_or_else(|| bad(Reason::RomfsEntry))?;
        let name_len = u32le(entry, 0x1C).unwrap_or(0) as usize;
        let name = files
            .get(at + 0x20..(at + 0x20).saturating_add(name_len))
            .ok_or_else(|| bad(Reason::RomfsName))?;
        if wanted(name) {
            let (offset, size) = (
                u64le(entry, 0x8).unwrap_or(0),
                u64le(entry, 0x10).unwrap_or(0),
            );
            let offset = data
                .checked_add(offset)
                .filter(|o| o.checked_add(size).is_some_and(|end| end <= len))
                .ok_or_else(|| bad(Reason::RomfsFile))?;
            out.push(RootFile {
                name: String::from_utf8_lossy(name).into_owned(),
                offset: base + offset,
                size,
            });
        }
        next = u32le(entry, 0x4).unwrap_or(NONE);
    }
    Err(bad(Reason::RomfsLoop))
}
