//! Title icons. Pages show whatever `DATA/icons/` holds, with no setting: the icons
//! read from the user's files with the console keys (`save_own`), the demo's own, and
//! those fetched. Fetching is opt-in: the title data names an icon URL on a
//! third-party host, so nothing is fetched unless the user turned it on
//! (`store::settings::titles_icons`); the titles task then fetches the icons of the
//! library's titles that are not cached yet. Pages only ever serve that cache, so a
//! page view never waits on another host and a host that is down costs one task, not
//! every page.
//!
//! The URLs are the title data's, a third party's: they go through `outbound` with
//! its `ICON` rules (15 s each, never a local address, a redirect only within the
//! icon's origin), and a cancel ends the run between two icons or within one.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::Error;
use crate::outbound::Client;
use crate::store::settings;
use crate::words::TitleId;

/// An eShop icon is 30 to 200 KiB; anything past this is not an icon.
const MAX_ICON: u64 = 1024 * 1024;
/// After this many failures in a row the host is taken for down until the next run.
const GIVE_UP_AFTER: u32 = 5;

pub fn enabled(db: &Connection) -> Result<bool, Error> {
    settings::TITLES_ICONS.get(db)
}

pub fn set_enabled(db: &Connection, on: bool) -> Result<(), Error> {
    settings::TITLES_ICONS.set(db, on)
}

/// Where the icon of `title_id` is cached: named by its 16 hex digits only, so a
/// request can never name another file.
pub fn path(data: &Path, title_id: TitleId) -> PathBuf {
    data.join("icons").join(title_id.to_string())
}

/// The cached icon of `title_id` and its image type: only a plain file the task wrote
/// (a link planted in the cache is not followed) that is an image.
pub fn read_cached(data: &Path, title_id: TitleId) -> Option<(Vec<u8>, &'static str)> {
    let path = path(data, title_id);
    if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    let content_type = content_type(&bytes)?;
    Some((bytes, content_type))
}

/// The image type of an icon's bytes, told by its magic number; `None` for anything
/// that is not an image a browser shows.
pub fn content_type(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
        [0x89, b'P', b'N', b'G', ..] => Some("image/png"),
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Some("image/webp"),
        [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
        _ => None,
    }
}

/// What one run fetched.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Fetched {
    pub saved: u64,
    pub failed: u64,
}

/// Fetch the icons of the library's titles that are not cached yet, through `net`
/// (made with `outbound::ICON`), until it is cancelled.
pub fn fetch_missing(db: &Connection, data: &Path, net: &Client) -> Result<Fetched, Error> {
    let wanted = crate::store::titles::library_icons(db)?;
    std::fs::create_dir_all(data.join("icons"))?;
    let mut done = Fetched::default();
    let mut in_a_row = 0;
    for (id, url) in wanted {
        if net.is_cancelled() {
            break;
        }
        let file = path(data, id);
        if file.exists() {
            continue;
        }
        match fetch_one(net, &url, &file) {
            Ok(()) => {
                done.saved += 1;
                in_a_row = 0;
            }
            Err(reason) => {
                log::warn!("icon of {id}: {reason}");
                done.failed += 1;
                in_a_row += 1;
                if in_a_row >= GIVE_UP_AFTER {
                    break;
                }
            }
        }
    }
    Ok(done)
}

fn fetch_one(net: &Client, url: &str, file: &Path) -> Result<(), String> {
    let response = net.get(url, &[]).map_err(|f| f.to_string())?;
    if response.status != 200 {
        return Err(format!("the host answered {}", response.status));
    }
    let mut bytes = Vec::new();
    response
        .into_body()
        .take(MAX_ICON + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    write(file, &bytes)
}

/// Cache the icon a file of the library holds (its Control NCA's, read with the
/// console keys) for `title_id`, unless one is cached already. Only an image is
/// written. Returns whether it was.
pub fn save_own(data: &Path, title_id: TitleId, bytes: &[u8]) -> Result<bool, String> {
    let file = path(data, title_id);
    if file.exists() {
        return Ok(false);
    }
    std::fs::create_dir_all(data.join("icons")).map_err(|e| e.to_string())?;
    write(&file, bytes).map(|()| true)
}

fn write(file: &Path, bytes: &[u8]) -> Result<(), String> {
    if bytes.len() as u64 > MAX_ICON || content_type(bytes).is_none() {
        return Err("not an image".into());
    }
    // Written aside then renamed, so a page never serves half an icon; aside under a
    // name of its own, since two threads may cache one title's icon at once.
    let part = file.with_extension(format!("{:016x}.part", rand::random::<u64>()));
    let written = std::fs::File::create(&part).and_then(|mut f| f.write_all(bytes));
    written
        .and_then(|()| std::fs::rename(&part, file))
        .map_err(|e| {
            let _ = std::fs::remove_file(&part);
            e.to_string()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_title_ids_name_a_cached_icon_and_only_images_count() {
        let data = Path::new("/data");
        assert_eq!(
            path(data, TitleId(0x0100000000010000)),
            PathBuf::from("/data/icons/0100000000010000")
        );
        // A request's text becomes a `TitleId` first, or names no file.
        for bad in ["../etc/passwd", "0100", "01000000000100000", ""] {
            assert_eq!(TitleId::parse(bad), None, "{bad}");
        }
        assert_eq!(content_type(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(content_type(b"<html>"), None);
    }
}
