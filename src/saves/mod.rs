//! Consoles' save backups: what CyberFoil's save sync uploads, kept per console and
//! title as versions, as safely as the library's games.
//!
//! Where: `DATA/saves/<console>/<title ID>/<save ID>.zip`, with the data folder
//! (never the library: saves are the console's, not the shop's), one row per version
//! in the `saves` table (note, date, upload order). An upload arrives in
//! `DATA/saves-incoming/` ([`Incoming`]), is checked ([`archive`]), flushed to disk
//! and renamed into place (never over another file), and only then listed: a cut
//! connection, a kill or a full disk leaves the earlier versions as they were and no
//! half version listed. Past `--save-versions` per console and title, the oldest go
//! to the trash, as a deleted one does (`trash::move_save_in`).
//!
//! A console's folder is its name, made safe for a file name ([`console_folder`]).

pub mod archive;
pub mod dav;

use std::fs::File;
use std::path::{Path, PathBuf};

use log::{info, warn};
use rand::Rng;
use rusqlite::Connection;

use crate::error::{Error, Msg};
use crate::library::LibraryKey;
use crate::store::saves::{self as store, SaveRow};
use crate::time;
use crate::trash;
use crate::words::TitleId;

/// The vault, in the data folder.
pub const FOLDER: &str = "saves";
/// Uploads being received, beside it (on the same filesystem: a rename).
const INCOMING: &str = "saves-incoming";
/// A note is kept to this many characters.
pub const NOTE_CHARS: usize = 200;

/// A title ID as a console gives it in a path: 16 hex digits, any case, with or
/// without `0x` and `.zip` (AeroFoil's reading). `None` is a 400.
pub fn title_id(raw: &str) -> Option<TitleId> {
    let t = raw.trim();
    let t = t
        .strip_suffix(".zip")
        .or(t.strip_suffix(".ZIP"))
        .unwrap_or(t);
    let t = t.strip_prefix("0x").or(t.strip_prefix("0X")).unwrap_or(t);
    TitleId::parse(t)
}

/// A save ID as a console gives it in a path: 1 to 96 of `A-Z a-z 0-9 . _ -`, a
/// trailing `.zip` dropped.
pub fn save_id(raw: &str) -> Result<String, Error> {
    let id = raw.strip_suffix(".zip").unwrap_or(raw);
    let fits = (1..=96).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && id != "."
        && id != "..";
    if fits {
        Ok(id.to_string())
    } else {
        Err(Error::invalid(Msg::BadSaveId))
    }
}

/// A note as it is kept: plain text on one line (runs of white space and control
/// characters become one space), its first [`NOTE_CHARS`] characters.
pub fn note(raw: &str) -> String {
    let words: Vec<&str> = raw
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    words.join(" ").chars().take(NOTE_CHARS).collect()
}

/// A console's folder: its name, with `%`, `/`, `\` and a leading `.` written
/// `%XX`, so that two names never share a folder and none is hidden or a path;
/// a name that would pass 200 bytes is cut and ends with a part of its digest.
pub fn console_folder(name: &str) -> String {
    let mut out = String::new();
    for (i, ch) in name.chars().enumerate() {
        match ch {
            '%' | '/' | '\\' => out.push_str(&format!("%{:02X}", ch as u32)),
            '.' if i == 0 => out.push_str("%2E"),
            _ => out.push(ch),
        }
    }
    if out.len() > 200 {
        use sha2::{Digest, Sha256};
        let cut = crate::text::floor_char(&out, 180);
        let digest = hex::encode(&Sha256::digest(name.as_bytes())[..8]);
        out = format!("{}~{digest}", &out[..cut]);
    }
    out
}

/// A version's file, as a key relative to the data folder.
pub fn key(row: &SaveRow) -> LibraryKey {
    let raw = format!(
        "{FOLDER}/{}/{}/{}.zip",
        console_folder(&row.console),
        row.title_id,
        row.save_id
    );
    LibraryKey::parse(&raw).expect("a console folder, a title ID and a save ID make a key")
}

/// A version's file.
pub fn path(data: &Path, row: &SaveRow) -> PathBuf {
    key(row).under(data)
}

pub use crate::incoming::Incoming;

/// A save's upload being received, in `DATA/saves-incoming/` (`incoming`).
pub fn incoming(data: &Path) -> Result<Incoming, Error> {
    Incoming::new(&data.join(INCOMING), Msg::SaveDiskFull)
}

/// What the vault is told to keep, and its rules.
pub struct Upload<'a> {
    pub console: &'a str,
    pub title_id: TitleId,
    pub note: String,
    pub versions: u32,
    pub retention_days: u32,
    /// The most bytes the console's saves may hold (`--save-quota`).
    pub quota: u64,
}

/// A new save ID: the UTC time and six random hex digits (`20260218T212230Z_a1b2c3`,
/// AeroFoil's form), unused by this console and title.
fn new_save_id(
    db: &Connection,
    console: &str,
    title_id: TitleId,
    now_s: i64,
) -> Result<String, Error> {
    let stamp: String = time::rfc3339(now_s)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    loop {
        let id = format!("{stamp}_{:06x}", rand::rng().random_range(0..0x100_0000u32));
        if !store::taken(db, console, title_id, &id)? {
            return Ok(id);
        }
    }
}

/// Keep a received upload as the console's newest version of its title (see the
/// module's doc), then send the versions past `versions` to the trash.
pub fn keep(
    db: &Connection,
    data: &Path,
    incoming: Incoming,
    up: &Upload,
) -> Result<SaveRow, Error> {
    let space = dav::Space {
        db,
        data,
        console: up.console,
        retention_days: up.retention_days,
        quota: up.quota,
    };
    let started = std::time::Instant::now();
    incoming.sync()?;
    if incoming.written == 0 {
        return Err(Error::invalid(Msg::NoSaveArchive));
    }
    let synced = started.elapsed();
    archive::check(&incoming.file)?;
    log::debug!(
        "saves: {} bytes flushed in {} ms, checked in {} ms",
        incoming.written,
        synced.as_millis(),
        (started.elapsed() - synced).as_millis()
    );
    let _writing = dav::writing();
    space.room_for(incoming.written)?;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let mut row = SaveRow {
        id: 0,
        console: up.console.to_string(),
        title_id: up.title_id,
        save_id: new_save_id(db, up.console, up.title_id, now_ms / 1000)?,
        note: note(&up.note),
        size: incoming.written,
        created_ms: now_ms,
    };
    let tx = db.unchecked_transaction()?;
    row.id = store::insert(&tx, &row)?;
    let target = key(&row);
    crate::library::safe::make_folders(data, &target)?;
    let dst = target.under(data);
    crate::library::safe::move_new(&incoming.path, &dst)?;
    sync_folder(&dst);
    if let Err(e) = tx.commit() {
        let _ = std::fs::remove_file(&dst);
        return Err(e.into());
    }
    info!(
        "saves: {} kept {} of {} ({} bytes)",
        row.console, row.save_id, row.title_id, row.size
    );
    rotate(db, data, up)?;
    Ok(row)
}

/// The folder of a file just renamed into it, to disk: the rename survives a crash.
fn sync_folder(file: &Path) {
    if let Some(dir) = file.parent() {
        if let Err(e) = File::open(dir).and_then(|d| d.sync_all()) {
            warn!("saves: flushing a folder: {e}");
        }
    }
}

/// Send the versions of a console's title past the `versions` newest to the trash.
fn rotate(db: &Connection, data: &Path, up: &Upload) -> Result<(), Error> {
    for old in store::beyond(db, up.console, up.title_id, up.versions)? {
        to_trash(db, data, &old, up.retention_days)?;
    }
    Ok(())
}

fn to_trash(db: &Connection, data: &Path, row: &SaveRow, retention_days: u32) -> Result<(), Error> {
    let name = format!("{} · {} · {}", row.console, row.title_id, row.save_id);
    trash::move_save_in(db, data, Some(row), &key(row), name, retention_days)?;
    Ok(())
}

/// Move a console's version (the latest with no `save_id`) to the trash.
pub fn delete(
    db: &Connection,
    data: &Path,
    console: &str,
    title_id: TitleId,
    save_id: Option<&str>,
    retention_days: u32,
) -> Result<SaveRow, Error> {
    let row = store::find(db, console, title_id, save_id)?
        .ok_or_else(|| Error::not_found(Msg::NoSave))?;
    to_trash(db, data, &row, retention_days)?;
    Ok(row)
}

/// At start: uploads a stop cut short are removed.
pub fn clean_incoming(data: &Path) {
    crate::incoming::sweep(&data.join(INCOMING), "saves");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_notes_are_read_as_consoles_send_them() {
        let t = title_id("0x0100abcd12340000.zip").unwrap();
        assert_eq!(t.to_string(), "0100ABCD12340000");
        assert!(title_id("0100ABCD1234000").is_none());
        assert!(title_id("../../etc/passwd").is_none());
        assert_eq!(
            save_id("20260218T212230Z_a1b2c3.zip").unwrap(),
            "20260218T212230Z_a1b2c3"
        );
        for bad in ["", "..", "a/b", "a b", &"x".repeat(97)] {
            assert!(save_id(bad).is_err(), "{bad}");
        }
        assert_eq!(note("  before\tthe\n\u{7}boss  "), "before the boss");
        assert_eq!(note(&"é".repeat(300)).chars().count(), NOTE_CHARS);
    }

    #[test]
    fn console_folders_are_distinct_names_that_stay_in_the_vault() {
        assert_eq!(console_folder("Salon"), "Salon");
        assert_eq!(console_folder(".trash"), "%2Etrash");
        assert_eq!(console_folder("a/b"), "a%2Fb");
        assert_ne!(console_folder("a%2Fb"), console_folder("a/b"));
        assert_eq!(console_folder(".."), "%2E.");
        let long = console_folder(&"é".repeat(120));
        assert!(long.len() <= 200 && long.contains('~'));
    }
}
