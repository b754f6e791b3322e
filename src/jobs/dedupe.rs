//! The dedupe task: superseded files and duplicates go to the trash, never away.
//!
//! Files are grouped by title ID. In each group one copy stays, picked by an explicit
//! rule (`library::copies::better`, which the shop follows too): a file whose header
//! parsed wins over one whose did not, then the highest version, then the preferred
//! format (`--dedupe-keep`: the uncompressed `.nsp`/`.xci` by default, or the
//! compressed `.nsz`/`.xcz`), then the first key in byte order.
//! The other files of the group whose version is lower go to the trash as
//! `superseded`, those of the same version as `duplicate`. A newer file that stays
//! because it does not parse is never trashed, and nothing is trashed in a group
//! whose every file is unreadable.
//!
//! A base game without a version counts as version 0 (every base game is); an update
//! or DLC whose version is not known is left alone: nothing says which is newer. Only
//! regular files on disk count: a symlink, or a row whose file is gone, is neither
//! kept nor trashed; a FIFO, a socket or a device in a game's place neither, and the
//! run names it among its failures.
//! The plan is computed again when the task runs, so what a page showed a minute ago
//! cannot trash a file that has since become the newest; started on the files a
//! confirm dialog showed (`Progress::only`), it trashes only those of them the plan
//! still holds, never one the person did not see.

use crate::tree::Folders;
use std::cmp::Ordering;
use std::os::unix::fs::MetadataExt;

use log::warn;
use rusqlite::Connection;

use super::{Outcome, TaskCtx};
use crate::error::{Error, Msg};
use crate::library::copies::{better, Candidate};
use crate::library::safe::NotAFile;
use crate::library::LibraryKey;
use crate::store::games;
use crate::words::{DedupeKeep, GameKind, TitleId, TrashReason};

/// A file the task moves to the trash, and the copy that stays in its place (as the
/// dedupe preview sends it, but its name).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Drop {
    pub key: String,
    #[serde(skip)]
    pub name: String,
    pub title_id: TitleId,
    pub version: u32,
    pub size: u64,
    pub reason: TrashReason,
    /// The key of the file that stays.
    pub kept: String,
}

/// A file as the rule sees it.
struct Copy {
    /// Device and inode of the file on disk.
    file: (u64, u64),
    key: String,
    name: String,
    title_id: TitleId,
    version: Option<u32>,
    format: String,
    size: u64,
    /// Sound: its header parsed and no task found it damaged (`verify`, convert).
    header_ok: bool,
    /// It holds several contents (read with the console keys: a cartridge with its
    /// update, a bundle with a DLC): it may be the copy kept, never one dropped, since
    /// no other file holds all it holds.
    bundle: bool,
}

/// Every identified game whose file is there, a regular file: a symlink is no copy
/// (trashing the file it leads to would break it), and a row whose file is gone
/// (the watch off, no scan since) is no copy to keep.
/// Also returned: the games whose key holds no regular file but a FIFO, a socket, a
/// device… (`safe::NotAFile`), which are no copy either and are reported.
fn copies(db: &Connection, folders: &Folders) -> Result<(Vec<Copy>, Vec<Stray>), Error> {
    let (mut out, mut strays) = (Vec::new(), Vec::new());
    for row in games::copies(db)? {
        let mut c = Copy::from(row);
        let path = LibraryKey::parse(&c.key).map(|k| folders.locate(&k).path());
        let on_disk = path.and_then(|p| std::fs::symlink_metadata(p).ok());
        if let Some(what) = on_disk.as_ref().and_then(|m| NotAFile::of(m.file_type())) {
            strays.push((c.key, what));
            continue;
        }
        if let Some(m) = on_disk.filter(|m| m.file_type().is_file()) {
            c.file = (m.dev(), m.ino());
            out.push(c);
        }
    }
    Ok((out, strays))
}

impl From<games::Copy> for Copy {
    fn from(row: games::Copy) -> Self {
        Copy {
            file: (0, 0),
            version: row.version.or((row.kind == GameKind::Base).then_some(0)),
            key: row.key,
            name: row.name,
            title_id: row.title_id,
            format: row.format,
            size: row.size,
            header_ok: row.sound,
            bundle: row.bundle,
        }
    }
}

/// A game whose key holds no regular file, and what it holds.
type Stray = (String, NotAFile);

impl Copy {
    fn candidate(&self) -> Candidate<'_> {
        Candidate {
            header_ok: self.header_ok,
            version: self.version,
            format: &self.format,
            key: &self.key,
        }
    }
}

/// Every file the rule would move to the trash, in title ID then key order.
pub fn plan(db: &Connection, folders: &Folders, keep: DedupeKeep) -> Result<Vec<Drop>, Error> {
    Ok(plan_and_strays(db, folders, keep)?.0)
}

/// [`plan`], and the games that are no regular file (left alone, and reported).
fn plan_and_strays(
    db: &Connection,
    folders: &Folders,
    keep: DedupeKeep,
) -> Result<(Vec<Drop>, Vec<Stray>), Error> {
    let (all, strays) = copies(db, folders)?;
    let mut drops = Vec::new();
    for group in all.chunk_by(|a, b| a.title_id == b.title_id) {
        let known: Vec<&Copy> = group.iter().filter(|c| c.version.is_some()).collect();
        let Some(kept) = known
            .iter()
            .copied()
            .max_by(|a, b| better(a.candidate(), b.candidate(), keep))
        else {
            continue;
        };
        if !kept.header_ok {
            continue;
        }
        // A second name of the kept file (a hard link) is the same file, not a copy.
        for c in known.iter().filter(|c| c.file != kept.file && !c.bundle) {
            let reason = match c.version.cmp(&kept.version) {
                Ordering::Less => TrashReason::Superseded,
                Ordering::Equal => TrashReason::Duplicate,
                Ordering::Greater => continue,
            };
            drops.push(Drop {
                key: c.key.clone(),
                name: c.name.clone(),
                title_id: c.title_id,
                version: c.version.unwrap_or(0),
                size: c.size,
                reason,
                kept: kept.key.clone(),
            });
        }
    }
    Ok((drops, strays))
}

/// The task: move every file of the plan to the trash. A file that cannot be moved
/// is counted as an error and logged; the others still go.
pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let folders = ctx.config.folders();
    let (mut drops, strays) = plan_and_strays(ctx.db, &folders, ctx.config.dedupe_keep)?;
    let only: std::collections::HashSet<String> = ctx.progress.only().into_iter().collect();
    drops.retain(|d| only.is_empty() || only.contains(&d.key));
    for (key, what) in strays {
        warn!("dedupe: {key}: {what}; left alone");
        ctx.progress.fail(Some(&key), what.msg(&key));
    }
    ctx.progress.set_total(drops.len() as u64);
    let (mut superseded, mut duplicates, mut bytes) = (0u64, 0u64, 0u64);
    let result = (|| {
        for d in &drops {
            ctx.progress.check()?;
            let moved = LibraryKey::parse(&d.key)
                .ok_or_else(|| Error::internal("a key of the games table is no key"))
                .and_then(|key| {
                    crate::trash::move_in(
                        ctx.db,
                        &folders,
                        &key,
                        d.reason,
                        ctx.config.retention_days(ctx.db),
                    )
                });
            match moved {
                Ok(_) if d.reason == TrashReason::Superseded => superseded += 1,
                Ok(_) => duplicates += 1,
                Err(e) => {
                    warn!("dedupe: {} not moved to the trash: {e}", d.key);
                    ctx.progress.fail(Some(&d.key), e.msg.clone());
                    ctx.progress.advance(1, &d.key);
                    continue;
                }
            }
            bytes += d.size;
            ctx.progress.advance(1, &d.key);
        }
        Ok::<(), Error>(())
    })();
    // What moved changes the titles' states, whether or not the task got to the end.
    if superseded + duplicates > 0 {
        crate::titles::model::refresh_after_change(ctx.db);
    }
    result?;
    Ok(Msg::DedupeDone {
        superseded,
        duplicates,
        bytes,
    }
    .into())
}
