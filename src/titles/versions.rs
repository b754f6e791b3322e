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

use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, Read};

use serde::de::{Deserializer, MapAccess, Visitor};

use crate::library::identify::{classify, parse_title_id};
use crate::words::GameKind;

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
    input: impl BufRead,
    mut each: impl FnMut(Result<Latest, Skip>),
) -> Result<(), String> {
    for (i, line) in input.lines().enumerate() {
        let n = i + 1;
        let line = line.map_err(|e| format!("line {n}: {e}"))?;
        let line = line.trim_end_matches('\r');
        if line.is_empty() || (n == 1 && line.starts_with("id|")) {
            continue;
        }
        let fields: Vec<&str> = line.split('|').collect();
        let [id, _rights, version] = fields[..] else {
            return Err(format!("line {n}: not three fields separated by |"));
        };
        each(row(id, version));
    }
    Ok(())
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

struct Each<F>(F);

impl<'de, F: FnMut(Option<History>)> Visitor<'de> for Each<F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of title IDs, each an object of versions and dates")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        while let Some((id, versions)) =
            map.next_entry::<String, Option<BTreeMap<String, Option<String>>>>()?
        {
            (self.0)(history(&id, versions.unwrap_or_default()));
        }
        Ok(())
    }
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
/// Switch ID, or no dated version).
pub fn read_json(
    input: impl Read,
    each: impl FnMut(Option<History>),
) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_reader(input);
    (&mut de).deserialize_map(Each(each))?;
    de.end()
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
        assert_eq!(err.unwrap_err(), "line 2: not three fields separated by |");
    }

    #[test]
    fn histories_keep_dated_versions() {
        let json = r#"{"0100000000010000": {"65536": "2017-10-26", "x": "2017-01-01",
                       "131072": null}, "0400000000010000": {"1": "2020-01-01"}}"#;
        let mut got = Vec::new();
        read_json(json.as_bytes(), |h| got.push(h)).unwrap();
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
}
