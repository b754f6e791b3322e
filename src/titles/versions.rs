//! Reading blawar/titledb's two version files.
//!
//! `versions.txt` is `id|rightsId|version`, one row per title ID: bases, updates
//! (`…800`, the latest update's version) and DLC (the latest DLC version). A row that is
//! merely odd (an empty version, an ID of another console, an ID that fits no kind) is
//! skipped and counted; a row that is not three `|`-separated fields means the file is
//! not what it claims, and the import stops there, naming the line.
//!
//! `versions.json` is `{ "<id>": { "<version>": "YYYY-MM-DD", … } }`: the history of
//! updates, keyed by the base's ID (and for a few DLC by their own).
//!
//! Both are read without holding more than a bounded piece of them: a line of
//! `versions.txt` past [`LINE_MAX`] stops the import (no row is near that long), and
//! an ID of `versions.json` whose history is past [`HISTORY_MAX`] (or whose key is
//! past [`super::region::FIELD_MAX`]) is passed over and counted.

use std::collections::BTreeMap;
use std::io::{BufRead, Read};

use super::json::{JsonError, Reader};
use super::region::FIELD_MAX;
use crate::error::{Reason, Why};
use crate::library::identify::{classify, parse_title_id};
use crate::words::GameKind;

/// A row is an ID, a rights ID and a version: about 60 bytes.
pub const LINE_MAX: usize = 4096;
/// The longest history of the real file (2026) is 314 versions in 8 KB.
pub const HISTORY_MAX: usize = 64 * 1024;

/// One usable row of `versions.txt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Latest {
    pub id: u64,
    pub version: u32,
}

/// Why a row was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    EmptyVersion,
    NotSwitch,
    NoKind,
}

/// Call `each` for every data row of `versions.txt`. Returns the line where the file
/// broke, with why, when it is not a versions file at all.
pub fn read_txt(
    mut input: impl BufRead,
    mut each: impl FnMut(Result<Latest, Skip>),
) -> Result<(), Why> {
    let mut bytes = Vec::new();
    for n in 1.. {
        let at = |why: Reason| Reason::Line(n.to_string()).then(why);
        let line = match next_line(&mut input, &mut bytes) {
            Ok(None) => break,
            Ok(Some(true)) => std::str::from_utf8(&bytes).map_err(|_| at(Reason::InvalidUtf8))?,
            Ok(Some(false)) => return Err(at(Reason::LongerThanBytes(LINE_MAX.to_string()))),
            Err(e) => return Err(at(Reason::Text(e.to_string()))),
        };
        let line = line.trim_end_matches('\r');
        if line.is_empty() || (n == 1 && line.starts_with("id|")) {
            continue;
        }
        let fields: Vec<&str> = line.split('|').collect();
        let [id, _rights, version] = fields[..] else {
            return Err(at(Reason::NotThreeFields));
        };
        each(row(id, version));
    }
    Ok(())
}

/// The next line without its `\n` into `line`: `Some(false)` when it is longer than
/// [`LINE_MAX`] (then the rest of it is read and dropped), `None` at the end.
fn next_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
    line.clear();
    let (mut fits, mut any) = (true, false);
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(any.then_some(fits));
        }
        any = true;
        let (piece, done) = match memchr::memchr(b'\n', available) {
            Some(at) => (&available[..at], at + 1),
            None => (available, available.len()),
        };
        fits = fits && line.len() + piece.len() <= LINE_MAX;
        if fits {
            line.extend_from_slice(piece);
        }
        let ended = done > piece.len();
        input.consume(done);
        if ended {
            return Ok(Some(fits));
        }
    }
}

/// A row's meaning, or why it is skipped.
fn row(id: &str, version: &str) -> Result<Latest, Skip> {
    let Some(id) = parse_title_id(id).filter(|id| id >> 56 == 0x01) else {
        return Err(Skip::NotSwitch);
    };
    if classify(id).kind == GameKind::Unknown {
        return Err(Skip::NoKind);
    }
    if version.trim().is_empty() {
        return Err(Skip::EmptyVersion);
    }
    let version = version.trim().parse().map_err(|_| Skip::EmptyVersion)?;
    Ok(Latest { id, version })
}

/// The dated versions of one ID of `versions.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct History {
    pub id: u64,
    /// Version and its release date (`YYYY-MM-DD`).
    pub versions: Vec<(u32, String)>,
}

fn history(id: &str, versions: BTreeMap<String, Option<String>>) -> Option<History> {
    let id = parse_title_id(id).filter(|id| id >> 56 == 0x01)?;
    let versions: Vec<(u32, String)> = versions
        .into_iter()
        .filter_map(|(v, date)| Some((v.parse().ok()?, date.filter(|d| is_iso(d))?)))
        .collect();
    (!versions.is_empty()).then_some(History { id, versions })
}

/// `YYYY-MM-DD`.
fn is_iso(d: &str) -> bool {
    let b = d.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// Call `each` for every ID of `versions.json`: `None` for one that is skipped (not a
/// Switch ID, or no dated version). Returns how many IDs were passed over because
/// their key is longer than [`FIELD_MAX`] or their history than [`HISTORY_MAX`].
pub fn read_json(
    input: impl Read,
    mut each: impl FnMut(Option<History>),
) -> Result<usize, JsonError> {
    let mut r = Reader::new(input);
    let mut oversized = 0;
    r.object(FIELD_MAX, |r, id| {
        let start = r.offset();
        let versions = versions_of(r, start)?;
        match (id, versions) {
            (Some(id), Some(versions)) => each(history(id, versions)),
            _ => oversized += 1,
        }
        Ok(())
    })?;
    r.end()?;
    Ok(oversized)
}

/// The versions and dates of one ID, kept while the history is within
/// [`HISTORY_MAX`] of `start`; `None` past it. A value that is no object has no
/// version.
fn versions_of<R: Read>(
    r: &mut Reader<R>,
    start: u64,
) -> Result<Option<BTreeMap<String, Option<String>>>, JsonError> {
    let mut versions = Some(BTreeMap::new());
    if r.peek()? != Some(b'{') {
        r.skip()?;
        return Ok(versions);
    }
    r.object(FIELD_MAX, |r, version| {
        let date = r.scalar(FIELD_MAX)?.text();
        if r.offset() - start > HISTORY_MAX as u64 {
            versions = None;
        }
        if let (Some(kept), Some(version)) = (versions.as_mut(), version) {
            kept.insert(version.to_string(), date);
        }
        Ok(())
    })?;
    Ok(versions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_rows_are_skipped_and_a_broken_one_is_named() {
        let txt = "id|rightsId|version\n\
                   0100000000010000|01000000000100000000000000000003|0\n\
                   0100000000010800|00000000000000000000000000000000|393216\n\
                   0100000000000816|00000000000000000000000000000000|\n\
                   0400000000010000|00000000000000000000000000000000|0\n\
                   0100000000010C00|00000000000000000000000000000000|1\n\
                   0100000000011001|00000000000000000000000000000000|\n";
        let mut rows = Vec::new();
        read_txt(txt.as_bytes(), |r| rows.push(r)).unwrap();
        assert_eq!(
            rows,
            [
                Ok(Latest {
                    id: 0x0100000000010000,
                    version: 0
                }),
                Ok(Latest {
                    id: 0x0100000000010800,
                    version: 393216
                }),
                Err(Skip::NoKind),
                Err(Skip::NotSwitch),
                Err(Skip::NoKind),
                Err(Skip::EmptyVersion),
            ]
        );
        let err = read_txt(
            "id|rightsId|version\n0100000000010000|0\n".as_bytes(),
            |_| {},
        );
        assert_eq!(
            err.unwrap_err().english(),
            "line 2: not three fields separated by |"
        );
    }

    #[test]
    fn histories_keep_dated_versions() {
        let json = r#"{"0100000000010000": {"65536": "2017-10-26", "x": "2017-01-01",
                       "131072": null}, "0400000000010000": {"1": "2020-01-01"}}"#;
        let mut got = Vec::new();
        assert_eq!(read_json(json.as_bytes(), |h| got.push(h)).unwrap(), 0);
        assert_eq!(
            got,
            [
                Some(History {
                    id: 0x0100000000010000,
                    versions: vec![(65536, "2017-10-26".into())]
                }),
                None
            ]
        );
        assert!(read_json(r#"{"0100000000010000": {"#.as_bytes(), |_| {}).is_err());
    }

    #[test]
    fn a_history_past_its_bound_is_passed_over_and_counted() {
        let long: Vec<String> = (0..HISTORY_MAX / 20)
            .map(|v| format!(r#""{v}": "2020-01-01""#))
            .collect();
        let json = format!(
            r#"{{"0100000000010000": {{{}}}, "0100000000020000": {{"1": "2021-02-03"}},
                "0100000000030000": [1, 2], "0100000000040000": "x"}}"#,
            long.join(", ")
        );
        let mut got = Vec::new();
        assert_eq!(read_json(json.as_bytes(), |h| got.push(h)).unwrap(), 1);
        assert_eq!(
            got,
            [
                Some(History {
                    id: 0x0100000000020000,
                    versions: vec![(1, "2021-02-03".into())]
                }),
                None,
                None
            ]
        );
    }
}
