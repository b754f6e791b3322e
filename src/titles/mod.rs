//! Title data, offline first: the blawar/titledb files the user already has (or that
//! `fetch` downloads) tell which updates and DLC exist; `model` compares that with
//! the library.
//!
//! An import is one transaction over all of its files: a file that is malformed or
//! cut short stops it with an error naming the file and where it broke, and the data
//! of the previous import stays whole. Rows that are merely odd are skipped and
//! counted in the summary, and so are fields too long to be title data
//! (`region::FIELD_MAX`): the files come from a third party and may be as large as
//! a fetch allows, so nothing of them is held whole. Which file is which is told by
//! its name: `versions.txt`, `versions.json`, any other `.json` is a region file
//! (`US.en.json` …).

pub mod details;
pub mod fetch;
pub mod icons;
pub mod json;
pub mod listing;
pub mod model;
pub mod region;
pub mod versions;

use std::io::{BufRead, BufReader, Read};

use rusqlite::Connection;

use crate::error::i18n::Lang;
use crate::error::{Error, Line, Msg, Reason, Why};
use crate::library::{self, identify::classify};
use crate::store::{title_catalog, title_imports, title_versions, titles};
use crate::time;
use crate::words::TitleId;
use versions::Skip;

/// The three kinds of title data files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `versions.txt`: the latest version of every title ID.
    Catalogue,
    /// `versions.json`: dated version histories.
    History,
    /// A region file: names, publishers, dates, icons.
    Region,
}

impl Source {
    /// The kind of file `name` is, by its name.
    pub fn of(name: &str) -> Option<Source> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with("versions.txt") {
            Some(Source::Catalogue)
        } else if lower.ends_with("versions.json") {
            Some(Source::History)
        } else if lower.ends_with(".json") {
            Some(Source::Region)
        } else {
            None
        }
    }
}

/// A file to import: its name (as the user or the source calls it) and its bytes.
pub struct Input {
    pub name: String,
    pub reader: Box<dyn Read>,
}

/// What an import took from one file, and what it skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Took {
    Catalogue {
        ids: usize,
        empty_version: usize,
        other_console: usize,
        no_kind: usize,
    },
    History {
        ids: usize,
        versions: usize,
        skipped: usize,
        /// IDs passed over: their key is past `region::FIELD_MAX`, or their history
        /// past `versions::HISTORY_MAX`.
        oversized: usize,
    },
    Region {
        entries: usize,
        skipped: usize,
        /// Fields passed over: past `region::FIELD_MAX`.
        oversized: usize,
    },
}

/// What an import did: each file's counts, and how many games took a new name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub files: Vec<(String, Took)>,
    pub renamed: usize,
}

impl Summary {
    /// The title IDs, dated versions and region entries taken, all files together.
    pub fn entries(&self) -> u64 {
        let one = |took: &Took| match took {
            Took::Catalogue { ids, .. } => *ids,
            Took::History { versions, .. } => *versions,
            Took::Region { entries, .. } => *entries,
        };
        self.files.iter().map(|(_, t)| one(t) as u64).sum()
    }

    /// One line per file, and the renamed games, in English (the log, the task's
    /// message, `titles status`).
    pub fn english(&self) -> String {
        let lines: Vec<String> = self.lines().iter().map(|l| Lang::En.line(l)).collect();
        lines.join("; ")
    }

    /// What each file gave, and the games renamed: the command line's lines, and the
    /// web upload's answer.
    pub fn lines(&self) -> Vec<Line> {
        let mut lines: Vec<Line> = self
            .files
            .iter()
            .map(|(name, took)| took.line(name))
            .collect();
        lines.push(Line::Renamed {
            games: self.renamed as u64,
        });
        lines
    }
}

impl Took {
    fn line(&self, name: &str) -> Line {
        let name = name.to_string();
        match *self {
            Took::Catalogue {
                ids,
                empty_version,
                other_console,
                no_kind,
            } => Line::ImportedCatalogue {
                name,
                ids: ids as u64,
                empty_version: empty_version as u64,
                other_console: other_console as u64,
                no_kind: no_kind as u64,
            },
            Took::History {
                ids,
                versions,
                skipped,
                oversized,
            } => Line::ImportedHistory {
                name,
                ids: ids as u64,
                versions: versions as u64,
                skipped: skipped as u64,
                oversized: oversized as u64,
                max_kib: (versions::HISTORY_MAX / 1024) as u64,
            },
            Took::Region {
                entries,
                skipped,
                oversized,
            } => Line::ImportedRegion {
                name,
                entries: entries as u64,
                skipped: skipped as u64,
                oversized: oversized as u64,
                max_kib: (region::FIELD_MAX / 1024) as u64,
            },
        }
    }
}

/// Where title data files uploaded from the web wait while they arrive, in the data
/// folder (`web::title_files`).
pub fn incoming_dir(data: &std::path::Path) -> std::path::PathBuf {
    data.join("titles-incoming")
}

/// At start: uploads a stop cut short are removed.
pub fn clean_incoming(data: &std::path::Path) {
    crate::incoming::sweep(&incoming_dir(data), "title data");
}

/// Import `inputs` in one transaction, then recompute the titles.
pub fn import(db: &Connection, inputs: Vec<Input>) -> Result<Summary, Error> {
    // Immediate: an import reads before it writes, and may run beside a server.
    let tx = crate::store::db::write_transaction(db)?;
    let mut files = Vec::new();
    let mut names = Vec::new();
    for input in inputs {
        let source = Source::of(&input.name).ok_or_else(|| {
            Error::invalid(Msg::NotTitleFile {
                file: input.name.clone(),
            })
        })?;
        let reader = BufReader::with_capacity(1 << 16, input.reader);
        let took = match source {
            Source::Catalogue => import_catalogue(&tx, &input.name, reader)?,
            Source::History => import_history(&tx, &input.name, reader)?,
            Source::Region => import_region(&tx, &input.name, reader)?,
        };
        files.push((input.name.clone(), took));
        names.push(input.name);
    }
    let summary = Summary {
        files,
        renamed: library::rename_from_titles(&tx)?,
    };
    model::refresh(&tx)?;
    title_imports::insert(&tx, time::now(), &names.join(", "), &summary.english())?;
    tx.commit()?;
    Ok(summary)
}

/// Read a whole title data file as the import would, writing nothing: a source whose
/// answer is cut or broken past its first bytes is then another source's turn, not an
/// import that fails after every file was fetched.
pub fn check(name: &str, input: impl Read) -> Result<(), Why> {
    let input = BufReader::with_capacity(1 << 16, input);
    match Source::of(name) {
        Some(Source::Catalogue) => versions::read_txt(input, |_| {}),
        Some(Source::History) => versions::read_json(input, |_| {})
            .map(drop)
            .map_err(|e| e.why()),
        Some(Source::Region) => region::read(input, |_| {}).map(drop).map_err(|e| e.why()),
        None => Err(Reason::NotTitleData.into()),
    }
}

fn broken(file: &str, reason: Why) -> Error {
    Error::invalid(Msg::BadTitleFile {
        file: file.to_string(),
        reason: reason.into(),
    })
}

fn import_catalogue(db: &Connection, name: &str, input: impl BufRead) -> Result<Took, Error> {
    let (mut taken, mut empty, mut foreign, mut no_kind) = (0, 0, 0, 0);
    let mut failed = None;
    versions::read_txt(input, |row| match row {
        Ok(latest) if failed.is_none() => {
            let class = classify(latest.id);
            let base = TitleId(class.base.unwrap_or(latest.id));
            let id = TitleId(latest.id);
            match title_catalog::raise(db, id, base, class.kind, latest.version) {
                Ok(()) => taken += 1,
                Err(e) => failed = Some(e),
            }
        }
        Ok(_) => {}
        Err(Skip::EmptyVersion) => empty += 1,
        Err(Skip::NotSwitch) => foreign += 1,
        Err(Skip::NoKind) => no_kind += 1,
    })
    .map_err(|reason| broken(name, reason))?;
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(Took::Catalogue {
        ids: taken,
        empty_version: empty,
        other_console: foreign,
        no_kind,
    })
}

fn import_history(db: &Connection, name: &str, input: impl Read) -> Result<Took, Error> {
    let (mut ids, mut dated, mut skipped) = (0, 0, 0);
    let mut failed = None;
    let oversized = versions::read_json(input, |history| {
        let Some(h) = history else {
            skipped += 1;
            return;
        };
        if failed.is_some() {
            return;
        }
        let class = classify(h.id);
        let id = TitleId(h.id);
        let base = TitleId(class.base.unwrap_or(h.id));
        let newest = h.versions.iter().map(|(v, _)| *v).max().unwrap_or(0);
        let written = h
            .versions
            .iter()
            .try_for_each(|(v, date)| title_versions::insert(db, id, *v, date))
            .and_then(|()| title_catalog::raise(db, id, base, class.kind, newest));
        match written {
            Ok(()) => {
                ids += 1;
                dated += h.versions.len();
            }
            Err(e) => failed = Some(e),
        }
    })
    .map_err(|e| broken(name, e.why()))?;
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(Took::History {
        ids,
        versions: dated,
        skipped,
        oversized,
    })
}

fn import_region(db: &Connection, name: &str, input: impl Read) -> Result<Took, Error> {
    let (mut taken, mut skipped) = (0, 0);
    let mut failed = None;
    let oversized = region::read(input, |facts| match facts {
        Some(f) if failed.is_none() => match titles::upsert(db, &f) {
            Ok(()) => taken += 1,
            Err(e) => failed = Some(e),
        },
        Some(_) => {}
        None => skipped += 1,
    })
    .map_err(|e| broken(name, e.why()))?;
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(Took::Region {
        entries: taken,
        skipped,
        oversized,
    })
}

/// Property tests of the title data readers over random and mutated input: whatever
/// a third party serves, each reader returns `Ok` or an error naming the place, never
/// panics, and ends.
#[cfg(test)]
mod fuzz {
    use std::io::Cursor;

    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn fixture(name: &str) -> Vec<u8> {
        let path = format!(
            "{}/tests/fixtures/titledb/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut bytes = std::fs::read(path).unwrap();
        bytes.truncate(24 * 1024);
        bytes
    }

    /// Every reader on `bytes`: none panics, and each one that refuses the file says
    /// why as a person is told it, in both languages, at a line the file has.
    fn every_reader(bytes: &[u8]) {
        let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
        let said = |why: crate::error::Why| {
            let (english, french) = (why.english(), why.french());
            let line: usize = english
                .strip_prefix("line ")
                .and_then(|rest| rest.split(':').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no line in {english:?}"));
            assert!((1..=lines).contains(&line), "{english:?} of {lines} lines");
            assert!(french.starts_with(&format!("ligne {line}")), "{french:?}");
            assert!(
                english.len() < 200,
                "the input is not repeated: {english:?}"
            );
        };
        let _ = super::region::read(Cursor::new(bytes), |_| {}).map_err(|e| said(e.why()));
        let _ = super::versions::read_json(Cursor::new(bytes), |_| {}).map_err(|e| said(e.why()));
        let _ = super::versions::read_txt(Cursor::new(bytes), |_| {}).map_err(said);
        let mut r = super::json::Reader::new(Cursor::new(bytes));
        let _ = r.skip().map_err(|e| said(e.why()));
    }

    /// A mutation of `seed`: bytes flipped, JSON's own characters dropped in, a piece
    /// cut out or repeated, a length-like run of digits, brackets opened deep.
    fn mutate(rng: &mut StdRng, seed: &[u8]) -> Vec<u8> {
        let mut v = seed.to_vec();
        for _ in 0..rng.random_range(1..8) {
            let at = rng.random_range(0..v.len().max(1));
            match rng.random_range(0..6) {
                0 if !v.is_empty() => v[at] = rng.random(),
                1 => {
                    const JSON: &[u8] = b"{}[]\",:\\0123456789-eE.tfn ";
                    v.insert(at.min(v.len()), JSON[rng.random_range(0..JSON.len())]);
                }
                2 if !v.is_empty() => {
                    let end = (at + rng.random_range(1..512)).min(v.len());
                    v.drain(at..end);
                }
                3 if !v.is_empty() => {
                    let end = (at + rng.random_range(1..256)).min(v.len());
                    let piece = v[at..end].to_vec();
                    v.splice(at..at, piece);
                }
                4 => {
                    let digits = vec![b'9'; rng.random_range(1..200)];
                    v.splice(at.min(v.len())..at.min(v.len()), digits);
                }
                _ => {
                    let open = if rng.random() { b'[' } else { b'{' };
                    let deep = vec![open; rng.random_range(1..300)];
                    v.splice(at.min(v.len())..at.min(v.len()), deep);
                }
            }
        }
        v
    }

    #[test]
    fn mutated_title_data_never_panics() {
        let seeds = [
            fixture("IL.en.json"),
            fixture("versions.json"),
            fixture("versions.txt"),
        ];
        let mut rng = StdRng::seed_from_u64(36);
        for i in 0..2_000 {
            let seed = &seeds[i % seeds.len()];
            every_reader(&mutate(&mut rng, seed));
        }
    }

    /// Each real file cut at every length up to 2 KiB: a record ended in any of its
    /// bytes, or a file of 0 to 8 bytes.
    #[test]
    fn title_data_cut_anywhere_is_refused_with_its_line() {
        for name in ["IL.en.json", "versions.json", "versions.txt"] {
            let whole = fixture(name);
            for len in 0..=2048 {
                every_reader(&whole[..len]);
            }
        }
    }

    /// What a source's answer must pass before it is taken (`check`): a JSON file cut
    /// anywhere never does, the whole file does, and nothing panics on the way.
    #[test]
    fn a_cut_json_file_is_never_taken_from_a_source() {
        for name in ["IL.en.json", "versions.json"] {
            let path = format!(
                "{}/tests/fixtures/titledb/{name}",
                env!("CARGO_MANIFEST_DIR")
            );
            let whole = std::fs::read(path).unwrap();
            assert!(super::check(name, Cursor::new(&whole)).is_ok(), "{name}");
            for len in (0..=2048).chain([whole.len() / 2, whole.len() - 1]) {
                let cut = super::check(name, Cursor::new(&whole[..len]));
                assert!(cut.is_err(), "{name} cut at {len}");
            }
        }
        assert!(super::check("notes.txt", Cursor::new(b"id|")).is_err());
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = StdRng::seed_from_u64(4);
        for _ in 0..2_000 {
            let len = rng.random_range(0..2048);
            const ALPHABET: &[u8] = b"{}[]\",: \n0123456789abcdeftrulsn\\\x00\xff";
            let bytes: Vec<u8> = (0..len)
                .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())])
                .collect();
            every_reader(&bytes);
        }
    }
}
