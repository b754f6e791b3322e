//! The JSON shapes of the public API (`docs/api.md`, `openapi.json`). Only this file knows
//! them; field names and types never change within v1. No value here may hold an
//! absolute server path: games are named by their library-relative key.

use serde::Serialize;

use crate::error::Failure;
use crate::jobs::Snapshot;
use crate::library::name_index::Listed;
use crate::store::games::{Counts, GameItem};
use crate::store::job_runs::JobRun;
use crate::store::missing::Missing;
use crate::store::platforms::Platform;
use crate::store::title_state::TitleState;
use crate::store::trash::TrashRow;
use crate::time::rfc3339;
use crate::words::{GameKind, IdSource, MissingKind, StartedBy, TitleId, TitleStatus, TrashReason};

#[derive(Serialize)]
pub struct Health {
    pub status: &'static str,
}

/// 2.3
#[derive(Serialize)]
pub struct System {
    pub version: &'static str,
    pub api: &'static str,
    pub uptime_s: u64,
    pub licence: &'static str,
    pub library_ready: bool,
}

/// The task slot as `GET /api/v1/job` shows it, with `unit`, `started_at`,
/// `started_by` and `last`, which v1 allows (fields may be added within v1) and
/// `openapi.json` describes.
#[derive(Serialize)]
pub struct JobStatus {
    pub running: bool,
    pub label: String,
    /// Who started the running task (see `Snapshot::started_by`); empty when idle.
    pub started_by: String,
    pub done: u64,
    pub total: u64,
    pub detail: String,
    pub unit: String,
    pub started_at: Option<String>,
    pub last: Option<LastRun>,
}

#[derive(Serialize)]
pub struct LastRun {
    pub label: String,
    pub result: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub done: u64,
    pub total: u64,
    pub errors: u64,
    pub message: String,
    /// The files that failed (the first 200), each with its reason in English.
    pub failures: Vec<FailedItem>,
}

#[derive(Serialize)]
pub struct FailedItem {
    pub key: Option<String>,
    pub error: String,
    pub message: String,
}

impl From<&Failure> for FailedItem {
    fn from(f: &Failure) -> Self {
        FailedItem {
            key: f.key.clone(),
            error: f.msg.slug(),
            message: f.msg.english(),
        }
    }
}

impl LastRun {
    pub fn of(r: &JobRun, failures: &[Failure]) -> Self {
        LastRun {
            failures: failures.iter().map(FailedItem::from).collect(),
            ..LastRun::from(r)
        }
    }
}

impl From<&JobRun> for LastRun {
    fn from(r: &JobRun) -> Self {
        LastRun {
            label: r.task.as_str().to_string(),
            result: r.result.as_str().to_string(),
            started_at: rfc3339(r.started_at),
            finished_at: r.finished_at.map(rfc3339),
            done: r.done,
            total: r.total,
            errors: r.errors,
            message: r.message.clone(),
            failures: Vec::new(),
        }
    }
}

impl From<&Snapshot> for JobStatus {
    fn from(s: &Snapshot) -> Self {
        JobStatus {
            running: s.running,
            label: s.task.map(|t| t.as_str()).unwrap_or("").to_string(),
            started_by: s
                .started_by
                .as_ref()
                .map(StartedBy::as_string)
                .unwrap_or_default(),
            done: s.done,
            total: s.total,
            detail: s.detail.clone(),
            unit: s.unit.to_string(),
            started_at: s.started_at.map(rfc3339),
            last: s.last.as_ref().map(|r| LastRun::of(r, &s.last_failures)),
        }
    }
}

/// 2.1: a game in a list. It borrows from the row it shows: lists are the hot path,
/// and copying every string once more costs more than the SQL.
#[derive(Serialize)]
pub struct Game<'a> {
    pub key: &'a str,
    pub name: &'a str,
    #[serde(rename = "type")]
    pub kind: GameKind,
    pub size: u64,
    pub playable: bool,
    pub version: Option<u32>,
    pub base_title_id: Option<TitleId>,
}

impl<'a> From<&'a GameItem> for Game<'a> {
    fn from(g: &'a GameItem) -> Self {
        Game {
            key: &g.key,
            name: &g.name,
            kind: g.kind,
            size: g.size,
            playable: g.playable,
            version: g.version,
            base_title_id: g.base_title_id,
        }
    }
}

impl<'a> Game<'a> {
    /// A game from the in-memory index.
    pub fn listed(l: &'a Listed<'a>) -> Self {
        Game {
            key: l.key,
            name: l.name,
            kind: l.kind,
            size: l.size,
            playable: l.playable,
            version: l.version,
            base_title_id: l.base_title_id,
        }
    }
}

/// A search hit: a game and its title ID.
#[derive(Serialize)]
pub struct SearchHit<'a> {
    #[serde(flatten)]
    pub game: Game<'a>,
    pub title_id: Option<TitleId>,
}

/// The single-game route: the list fields and what the scan learned.
#[derive(Serialize)]
pub struct GameDetails<'a> {
    #[serde(flatten)]
    pub game: Game<'a>,
    pub title_id: Option<TitleId>,
    pub format: String,
    pub platform: String,
    pub modified: String,
    pub identified_by: IdSource,
    /// Why the file is not (fully) identified or readable, when it is not.
    pub note: Option<String>,
    pub subtype: Option<String>,
    /// For a base game: keys of its updates and DLC in the library.
    pub updates: Vec<String>,
    pub dlc: Vec<String>,
    /// What the file holds: every CNMT when it was read with the console keys, else
    /// the one title it was identified as (none when unidentified).
    pub contents: Vec<ContentItem>,
}

/// One content of a file.
#[derive(Serialize)]
pub struct ContentItem {
    pub title_id: TitleId,
    #[serde(rename = "type")]
    pub kind: GameKind,
    pub version: Option<u32>,
}

/// 2.5
#[derive(Serialize)]
pub struct Page<T> {
    pub page: u64,
    pub limit: u64,
    pub total: u64,
    pub pages: u64,
    pub items: Vec<T>,
}

/// 2.2, and what the titles add: how many titles, how many with an update available
/// or DLC missing, how many files of no known title.
#[derive(Serialize)]
pub struct Stats {
    pub total: u64,
    pub base: u64,
    pub update: u64,
    pub dlc: u64,
    pub bytes: u64,
    pub to_convert: u64,
    pub unknown: u64,
    pub titles: u64,
    pub updates_available: u64,
    pub dlc_missing: u64,
}

impl Stats {
    pub fn new(c: &Counts, (titles, updates_available, dlc_missing): (u64, u64, u64)) -> Self {
        Stats {
            total: c.total,
            base: c.base,
            update: c.update,
            dlc: c.dlc,
            bytes: c.bytes,
            to_convert: c.to_convert,
            unknown: c.unknown,
            titles,
            updates_available,
            dlc_missing,
        }
    }
}

/// A title in a list: what it has and what applies to it.
#[derive(Serialize)]
pub struct Title<'a> {
    pub title_id: TitleId,
    pub name: &'a str,
    pub status: Vec<TitleStatus>,
    pub missing_dlc: u64,
    pub installed_version: Option<u32>,
    pub latest_version: Option<u32>,
    pub latest_date: Option<&'a str>,
    pub files: u64,
    pub base: u64,
    pub updates: u64,
    pub dlc: u64,
    pub size: u64,
}

impl<'a> From<&'a TitleState> for Title<'a> {
    fn from(t: &'a TitleState) -> Self {
        Title {
            title_id: t.base_id,
            name: &t.name,
            status: t.status().collect(),
            missing_dlc: t.missing_dlc,
            installed_version: t.installed_version,
            latest_version: t.latest_version,
            latest_date: t.latest_date.as_deref(),
            files: t.files,
            base: t.base_files,
            updates: t.update_files,
            dlc: t.dlc_files,
            size: t.size,
        }
    }
}

/// A file of a title: a game, its own title ID, and whether a newer file of the same
/// ID supersedes it.
#[derive(Serialize)]
pub struct TitleFile<'a> {
    #[serde(flatten)]
    pub game: Game<'a>,
    pub title_id: Option<TitleId>,
    pub superseded: bool,
}

/// The files of a title, by kind.
#[derive(Serialize, Default)]
pub struct TitleFiles<'a> {
    pub base: Vec<TitleFile<'a>>,
    pub updates: Vec<TitleFile<'a>>,
    pub dlc: Vec<TitleFile<'a>>,
}

/// A dated version.
#[derive(Serialize)]
pub struct Version {
    pub version: u32,
    pub date: String,
}

/// One title, with what the title data says of it and its files.
#[derive(Serialize)]
pub struct TitleDetails<'a> {
    #[serde(flatten)]
    pub title: Title<'a>,
    pub publisher: Option<String>,
    pub release_date: Option<String>,
    pub icon_url: Option<String>,
    pub versions: Vec<Version>,
    /// Not `files`: the title's own fields hold `files`, the count.
    pub contents: TitleFiles<'a>,
}

/// A row of what the library lacks.
#[derive(Serialize)]
pub struct MissingItem<'a> {
    pub title_id: TitleId,
    pub title_name: &'a str,
    pub kind: MissingKind,
    pub id: TitleId,
    pub name: Option<&'a str>,
    pub installed_version: Option<u32>,
    pub latest_version: Option<u32>,
    pub latest_date: Option<&'a str>,
}

impl MissingItem<'_> {
    /// The fields' names, in order: the wanted list's CSV header.
    pub const COLUMNS: [&'static str; 8] = [
        "title_id",
        "title_name",
        "kind",
        "id",
        "name",
        "installed_version",
        "latest_version",
        "latest_date",
    ];
}

impl<'a> From<&'a Missing> for MissingItem<'a> {
    fn from(m: &'a Missing) -> Self {
        MissingItem {
            title_id: m.title_id,
            title_name: &m.title_name,
            kind: m.kind,
            id: m.id,
            name: m.name.as_deref(),
            installed_version: m.installed_version,
            latest_version: m.latest_version,
            latest_date: m.latest_date.as_deref(),
        }
    }
}

#[derive(Serialize)]
pub struct Platforms {
    pub platforms: Vec<PlatformCounts>,
}

#[derive(Serialize)]
pub struct PlatformCounts {
    pub slug: String,
    pub name: String,
    pub folder: String,
    pub extensions: Vec<String>,
    pub games: u64,
    pub bytes: u64,
    pub base: u64,
    pub update: u64,
    pub dlc: u64,
    pub unknown: u64,
}

impl PlatformCounts {
    pub fn new(p: &Platform, c: &Counts) -> Self {
        PlatformCounts {
            slug: p.slug.clone(),
            name: p.name.clone(),
            folder: p.folder.clone(),
            extensions: p.extensions.clone(),
            games: c.total,
            bytes: c.bytes,
            base: c.base,
            update: c.update,
            dlc: c.dlc,
            unknown: c.unknown,
        }
    }
}

/// A trash entry.
#[derive(Serialize)]
pub struct TrashEntry {
    pub id: i64,
    pub key: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: GameKind,
    pub size: u64,
    pub reason: TrashReason,
    pub deleted_at: String,
    pub expires_at: String,
}

impl From<&TrashRow> for TrashEntry {
    fn from(r: &TrashRow) -> Self {
        TrashEntry {
            id: r.id,
            key: r.key.clone(),
            name: r.name.clone(),
            kind: r.kind,
            size: r.size,
            reason: r.reason,
            deleted_at: rfc3339(r.deleted_at),
            expires_at: rfc3339(r.expires_at),
        }
    }
}

/// What the trash holds.
#[derive(Serialize)]
pub struct Trash {
    pub items: Vec<TrashEntry>,
    pub total: u64,
    pub bytes: u64,
}

impl Trash {
    pub fn new(rows: &[TrashRow]) -> Self {
        Trash {
            items: rows.iter().map(TrashEntry::from).collect(),
            total: rows.len() as u64,
            bytes: rows.iter().map(|r| r.size).sum(),
        }
    }
}

/// The handheld, as the public API shows it. Unknown facts are null, never guessed.
#[derive(Serialize)]
pub struct DeviceState {
    pub configured: bool,
    pub name: Option<String>,
    pub transport: &'static str,
    pub host: Option<String>,
    pub port: Option<u16>,
    pub last_contact: Option<String>,
    pub last_result: Option<String>,
    pub client: Option<String>,
    pub pending: u64,
    pub pending_bytes: u64,
    pub last_push: Option<String>,
}
