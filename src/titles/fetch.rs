//! `titles update`: the title data files fetched over HTTP(S) from a base URL (by
//! default the blawar/titledb repository's raw files), then imported as `import` does.
//!
//! The last good copy of each file is kept in `DATA/titledb/`, with the validators
//! its server sent (ETag, Last-Modified). A fetch asks conditionally; a file that has
//! not changed (304) is taken from the copy, and when none changed nothing is
//! imported. Every file is fetched before anything is imported: a source that is down,
//! slow past the timeouts, or answers garbage (an error status, a body past the size
//! limit, a file the import refuses) changes nothing, neither the copies nor the data.
//! The requests go through `outbound` (a deadline per file, a redirect only within
//! the source's origin, a cancel that ends them at once).

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::{import, Input};
use crate::error::{Detail, Error, Msg, Reason, Why};
use crate::outbound::{Client, Failure};
use crate::store::settings;

/// No title data file is near this size (the largest region file is ~100 MB).
const MAX_FILE: u64 = 512 * 1024 * 1024;

/// Where to fetch from.
#[derive(Debug, Clone)]
pub struct Source {
    pub base_url: String,
    pub region: String,
}

/// What an update did.
#[derive(Debug)]
pub enum Updated {
    /// Nothing changed at the source since the last update.
    Unchanged,
    /// What the import did.
    Imported(super::Summary),
}

/// A region is two letters, a dot, two letters (`US.en`): it becomes a file name.
pub fn valid_region(region: &str) -> bool {
    let b = region.as_bytes();
    b.len() == 5 && b[2] == b'.' && b[..2].iter().chain(&b[3..]).all(u8::is_ascii_alphabetic)
}

/// A base URL is http(s), without a query.
pub fn valid_base_url(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://")) && !url.contains(['?', '#', ' '])
}

fn down(file: &str, reason: impl Into<Detail>) -> Error {
    Error::invalid(Msg::TitleSourceDown {
        file: file.to_string(),
        reason: reason.into(),
    })
}

/// A request that came to nothing: cancelled (the task's word for it), or down.
fn failed(file: &str, failure: Failure) -> Error {
    match failure {
        Failure::Cancelled => Error::cancelled(),
        Failure::Failed(reason) => down(file, reason),
    }
}

/// One file: fetched anew into `*.part`, or unchanged (the kept copy stands).
struct Fetched {
    name: String,
    part: Option<PathBuf>,
    validators: (Option<String>, Option<String>),
}

/// Fetch the three files through `net` (made with `outbound::TITLE_DATA`) and import
/// them when any changed.
pub fn update(
    db: &Connection,
    data: &Path,
    source: &Source,
    net: &Client,
) -> Result<Updated, Error> {
    if !valid_region(&source.region) {
        return Err(Error::invalid(Msg::BadRegion));
    }
    if !valid_base_url(&source.base_url) {
        return Err(Error::invalid(Msg::BadTitleUrl));
    }
    let dir = data.join("titledb");
    std::fs::create_dir_all(&dir)?;
    let names = [
        "versions.txt".to_string(),
        "versions.json".to_string(),
        format!("{}.json", source.region),
    ];
    let mut fetched = Vec::new();
    for name in &names {
        match fetch_one(db, net, &dir, &source.base_url, name) {
            Ok(f) => fetched.push(f),
            Err(e) => {
                discard(&fetched);
                return Err(e);
            }
        }
    }
    if fetched.iter().all(|f| f.part.is_none()) {
        return Ok(Updated::Unchanged);
    }
    let summary = import_fetched(db, &dir, &fetched);
    if summary.is_err() {
        discard(&fetched);
    }
    let summary = summary?;
    for f in &fetched {
        if let Some(part) = &f.part {
            std::fs::rename(part, dir.join(&f.name))?;
            let (etag, modified) = &f.validators;
            settings::set_titledb_validators(db, &f.name, (etag.as_deref(), modified.as_deref()))?;
        }
    }
    Ok(Updated::Imported(summary))
}

fn discard(fetched: &[Fetched]) {
    for part in fetched.iter().filter_map(|f| f.part.as_ref()) {
        let _ = std::fs::remove_file(part);
    }
}

fn import_fetched(
    db: &Connection,
    dir: &Path,
    fetched: &[Fetched],
) -> Result<super::Summary, Error> {
    let mut inputs = Vec::new();
    for f in fetched {
        let path = f.part.clone().unwrap_or_else(|| dir.join(&f.name));
        let file =
            File::open(&path).map_err(|e| down(&f.name, Reason::KeptCopyGone).with_cause(e))?;
        inputs.push(Input {
            name: f.name.clone(),
            reader: Box::new(file),
        });
    }
    import(db, inputs)
}

/// The validators to send for `name`: only for a copy we still have, since a 304
/// must have something to stand for.
fn validators(
    db: &Connection,
    name: &str,
    kept: bool,
) -> Result<Vec<(&'static str, String)>, Error> {
    let mut headers = Vec::new();
    if !kept {
        return Ok(headers);
    }
    let (etag, modified) = settings::titledb_validators(db, name)?;
    for (header, v) in [("If-None-Match", etag), ("If-Modified-Since", modified)] {
        if let Some(v) = v {
            headers.push((header, v));
        }
    }
    Ok(headers)
}

fn fetch_one(
    db: &Connection,
    net: &Client,
    dir: &Path,
    base: &str,
    name: &str,
) -> Result<Fetched, Error> {
    let url = format!("{}/{name}", base.trim_end_matches('/'));
    let kept = dir.join(name).is_file();
    let headers = validators(db, name, kept)?;
    let headers: Vec<(&str, &str)> = headers.iter().map(|(h, v)| (*h, v.as_str())).collect();
    let response = net.get(&url, &headers).map_err(|f| failed(name, f))?;
    let status = response.status;
    if status == 304 && kept {
        return Ok(Fetched {
            name: name.into(),
            part: None,
            validators: (None, None),
        });
    }
    if status != 200 {
        return Err(down(name, Reason::SourceAnswered(status.to_string())));
    }
    let validators = (response.header("etag"), response.header("last-modified"));
    let part = dir.join(format!("{name}.part"));
    let written = save(response.into_body(), &part);
    if let Err(reason) = written {
        let _ = std::fs::remove_file(&part);
        return Err(match net.is_cancelled() {
            true => Error::cancelled(),
            false => down(name, reason),
        });
    }
    Ok(Fetched {
        name: name.into(),
        part: Some(part),
        validators,
    })
}

/// Stream the body to `path`, refusing one past [`MAX_FILE`]. What the system says
/// of a failed write is not ours: it is kept as it says it.
fn save(body: impl Read, path: &Path) -> Result<(), Why> {
    let said = |e: std::io::Error| Why::from(Reason::Text(e.to_string()));
    let mut out = File::create(path).map_err(said)?;
    let n = std::io::copy(&mut body.take(MAX_FILE + 1), &mut out).map_err(said)?;
    if n > MAX_FILE {
        return Err(Reason::LargerThan((MAX_FILE >> 20).to_string()).into());
    }
    out.flush().map_err(said)?;
    out.sync_all().map_err(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_urls_are_checked() {
        assert!(valid_region("US.en") && valid_region("IL.en"));
        for bad in ["US", "../x", "US.en/..", "U1.en", "US_en"] {
            assert!(!valid_region(bad), "{bad}");
        }
        assert!(valid_base_url("https://example.org/titledb"));
        assert!(valid_base_url("http://127.0.0.1:8080"));
        for bad in ["file:///etc", "ftp://x", "https://x/?q=1", "example.org"] {
            assert!(!valid_base_url(bad), "{bad}");
        }
    }
}
