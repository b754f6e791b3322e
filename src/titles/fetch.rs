//! `titles update`: the title data files fetched over HTTP(S) from base URLs (by
//! default the blawar/titledb repository's raw files, then the jsDelivr CDN's copy of
//! them), then imported as `import` does.
//!
//! Each file comes from the first source, in the order given, that answers it with a
//! file of its format (a status 200 or 304, within the size limit, read whole as the
//! import reads it); each source's last success and failure are kept
//! (`title_sources`) for Settings. The last good copy of each file is kept in
//! `DATA/titledb/`, with the source it came from and the validators that source sent
//! (ETag, Last-Modified), sent back to that source alone. A fetch asks conditionally;
//! a file that has not changed (304) is taken from the copy, and when none changed
//! nothing is imported. Every file is fetched before anything is imported. A file no
//! source gives (down, slow past the timeouts, garbage) is taken from its kept copy
//! when there is one, and said (the task ends partial): the jsDelivr mirror serves
//! files up to 20 MB, the versions files but not a region file, whose copy then
//! stands while raw GitHub is down. When no file came from any source, or a file has
//! neither a source nor a copy, or the import refuses one, nothing changes, neither
//! the copies nor the data.
//! The requests go through `outbound` (a deadline per file, a redirect only within
//! the source's origin, a cancel that ends them at once).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::{import, Input};
use crate::error::{Detail, Error, Kind, Msg, Reason, Why};
use crate::outbound::{self, Client, Failure};
use crate::store::{settings, title_sources};

/// No title data file is near this size (the largest region file is ~100 MB).
const MAX_FILE: u64 = 512 * 1024 * 1024;

/// Where to fetch from: the base URLs in order of preference, and the region file.
#[derive(Debug, Clone)]
pub struct Source {
    pub base_urls: Vec<String>,
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

/// One file: fetched anew into `*.part`, or unchanged (the kept copy stands), and
/// the source that answered.
struct Fetched {
    name: String,
    part: Option<PathBuf>,
    validators: (Option<String>, Option<String>),
    from: String,
}

/// Fetch the three files through `net` (made with `outbound::TITLE_DATA`) and import
/// them when any changed.
/// What an update did, and why each file whose kept copy stood was not fetched.
pub fn update(
    db: &Connection,
    data: &Path,
    source: &Source,
    net: &Client,
) -> Result<(Updated, Vec<Msg>), Error> {
    if !valid_region(&source.region) {
        return Err(Error::invalid(Msg::BadRegion));
    }
    if source.base_urls.is_empty() || !source.base_urls.iter().all(|u| valid_base_url(u)) {
        return Err(Error::invalid(Msg::BadTitleUrl));
    }
    let dir = data.join("titledb");
    std::fs::create_dir_all(&dir)?;
    let names = [
        "versions.txt".to_string(),
        "versions.json".to_string(),
        format!("{}.json", source.region),
    ];
    let (fetched, stale) = fetch_all(db, net, &dir, &source.base_urls, &names)?;
    if fetched.iter().all(|f| f.part.is_none()) {
        return Ok((Updated::Unchanged, stale));
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
            settings::set_titledb_from(db, &f.name, &f.from, crate::time::now())?;
        }
    }
    Ok((Updated::Imported(summary), stale))
}

/// Each file, from a source or (said) from its kept copy; the first failure when no
/// file came from a source, or one has neither.
fn fetch_all(
    db: &Connection,
    net: &Client,
    dir: &Path,
    bases: &[String],
    names: &[String],
) -> Result<(Vec<Fetched>, Vec<Msg>), Error> {
    let (mut fetched, mut stale, mut first) = (Vec::new(), Vec::new(), None);
    for name in names {
        match fetch_from_any(db, net, dir, bases, name) {
            Ok(f) => fetched.push(f),
            Err(e) if !e.is(&Kind::Cancelled) && dir.join(name).is_file() => {
                stale.push(e.msg.clone());
                first.get_or_insert(e);
                let kept = Fetched {
                    name: name.clone(),
                    part: None,
                    validators: (None, None),
                    from: String::new(),
                };
                fetched.push(kept);
            }
            Err(e) => {
                discard(&fetched);
                return Err(e);
            }
        }
    }
    match first {
        Some(e) if stale.len() == names.len() => Err(e),
        _ => Ok((fetched, stale)),
    }
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

/// The file from the first of `bases` that gives it; each answer is noted for
/// Settings. When none does, the first one's failure.
fn fetch_from_any(
    db: &Connection,
    net: &Client,
    dir: &Path,
    bases: &[String],
    name: &str,
) -> Result<Fetched, Error> {
    let mut first_failure = None;
    for base in bases {
        match fetch_one(db, net, dir, base, name) {
            Ok(fetched) => {
                title_sources::succeeded(db, base, crate::time::now())?;
                return Ok(fetched);
            }
            Err(e) if e.is(&Kind::Cancelled) => return Err(e),
            Err(e) => {
                log::warn!("title data: {name} from {}: {e}", outbound::host_of(base));
                title_sources::failed(db, base, &e.msg, crate::time::now())?;
                first_failure.get_or_insert(e);
            }
        }
    }
    Err(first_failure.unwrap_or_else(|| Error::invalid(Msg::BadTitleUrl)))
}

/// The validators to send `base` for `name`: only for a copy we still have that came
/// from `base`, since a 304 must have something to stand for.
fn validators(
    db: &Connection,
    name: &str,
    kept: bool,
    base: &str,
) -> Result<Vec<(&'static str, String)>, Error> {
    let mut headers = Vec::new();
    let from_here = settings::titledb_from(db, name)?.is_none_or(|(url, _)| url == base);
    if !kept || !from_here {
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
    let headers = validators(db, name, kept, base)?;
    let headers: Vec<(&str, &str)> = headers.iter().map(|(h, v)| (*h, v.as_str())).collect();
    let response = net.get(&url, &headers).map_err(|f| failed(name, f))?;
    let status = response.status;
    if status == 304 && kept {
        return Ok(Fetched {
            name: name.into(),
            part: None,
            validators: (None, None),
            from: base.into(),
        });
    }
    if status != 200 {
        return Err(down(name, Reason::SourceAnswered(status.to_string())));
    }
    let validators = (response.header("etag"), response.header("last-modified"));
    let part = dir.join(format!("{name}.part"));
    let written = save(response.into_body(), &part).and_then(|()| looks_like(name, &part));
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
        from: base.into(),
    })
}

/// Is the file one of its format, whole? It begins as its format does (versions.txt's
/// header line, a JSON object), so an error page served with a 200 is told as such,
/// and it reads to its end as the import reads it (`titles::check`), so a cut or broken
/// file is another source's turn rather than an import that fails after every file was
/// fetched. The second read costs a region file's parse again (a second or two at
/// 100 MB), once a day at most.
fn looks_like(name: &str, path: &Path) -> Result<(), Why> {
    let said = |e: std::io::Error| Why::from(Reason::Text(e.to_string()));
    let mut file = File::open(path).map_err(said)?;
    let mut head = [0u8; 64];
    let n = file.read(&mut head).map_err(said)?;
    let head = &head[..n];
    let ok = if name.ends_with(".txt") {
        head.starts_with(b"id|")
    } else {
        head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
    };
    if !ok {
        return Err(Reason::NotTitleData.into());
    }
    file.seek(SeekFrom::Start(0)).map_err(said)?;
    super::check(name, file)
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
