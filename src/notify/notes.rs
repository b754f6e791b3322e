//! The notes: what each event says to the notification targets, in the language of
//! the first admin's account (French when there is none), with a link to its page
//! when `--public-url` says where the service is; and the targets' list, rebuilt from
//! those given at start and those Settings added (`reload`).

use rusqlite::Connection;

use super::lanes::Wanted;
use super::target::{Note, Target};
use super::{Notifier, Title, Titles};
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::store::job_runs::JobRun;
use crate::store::notify_targets::{self, TargetRow};
use crate::store::users;
use crate::words::{Lang, NoticeEvent, TaskResult};

/// Names a note lists at most; its count says how many there are.
const NAMED: usize = 5;

/// What the notifier is set up with at start.
#[derive(Debug, Clone, Default)]
pub struct Setup {
    /// The targets given at start (`--notify`, `--notify-file`), as written.
    pub urls: Vec<String>,
    /// Those given with `--notify` on the command line, which every user of the
    /// machine reads in the list of processes.
    pub exposed: Vec<String>,
    /// `--public-url`: the links' start.
    pub public_url: Option<String>,
    /// Test aid: where Discord's and Telegram's messages go instead.
    pub test_base: Option<String>,
}

/// Targets added in Settings before options after a `?` were refused kept them, and
/// their options were never read: each is kept without them (its row renamed, its
/// events kept), said once in the log, rather than dropped where Settings cannot
/// show it.
fn without_options(db: &Connection, rows: Vec<TargetRow>) -> Result<Vec<TargetRow>, Error> {
    let mut renamed = false;
    for row in rows
        .iter()
        .filter(|r| r.added && r.url.contains(['?', '#']))
    {
        let bare = row.url.split(['?', '#']).next().unwrap_or_default();
        let Ok(target) = Target::parse(bare) else {
            continue;
        };
        log::warn!(
            "notify: {} is kept without its options after ?, which are not read",
            target.shown()
        );
        notify_targets::rename(db, &row.id, &target.id(), target.url())?;
        renamed = true;
    }
    match renamed {
        true => notify_targets::all(db),
        false => Ok(rows),
    }
}

impl Notifier {
    /// Make the lanes those of the targets given at start (with the events Settings
    /// narrowed them to) and of those Settings added.
    pub fn reload(&self, db: &Connection) -> Result<(), Error> {
        let _one = self.reloading.lock().unwrap_or_else(|p| p.into_inner());
        let rows = without_options(db, notify_targets::all(db)?)?;
        let mut wanted: Vec<Wanted> = Vec::new();
        for url in &self.setup.urls {
            let target = Target::parse(url)?;
            if wanted.iter().any(|w| w.target == target) {
                continue;
            }
            let events = rows
                .iter()
                .find(|r| r.id == target.id())
                .map_or_else(|| NoticeEvent::ALL.to_vec(), |r| r.events.clone());
            wanted.push(Wanted {
                target,
                events,
                fixed: true,
            });
        }
        for row in rows.iter().filter(|r| r.added) {
            match Target::parse(&row.url) {
                Ok(target) if !wanted.iter().any(|w| w.target == target) => wanted.push(Wanted {
                    target,
                    events: row.events.clone(),
                    fixed: false,
                }),
                Ok(_) => {}
                Err(e) => log::warn!("notify: a target kept in the database is no target: {e}"),
            }
        }
        self.lanes.set(wanted);
        Ok(())
    }

    /// A target whose secret the list of processes shows (`--notify` on the command
    /// line) is warned of once, at start, by its shown form.
    pub(super) fn warn_of_exposed(&self) {
        for url in &self.setup.exposed {
            if let Some(target) = Target::parse(url).ok().filter(Target::has_secret) {
                log::warn!(
                    "the notification target {} given with --notify holds a secret, which every \
                     user of this machine can read in the list of processes: give it in \
                     --notify-file or LUDOTHEQUE_NOTIFY",
                    target.shown()
                );
            }
        }
    }

    /// The note of `msg` for `event`, about the page at `path`.
    pub fn note(&self, db: &Connection, event: Option<NoticeEvent>, msg: &Msg, path: &str) -> Note {
        let lang = admin_lang(db);
        let (priority, tags): (u8, &'static [&'static str]) = match event {
            Some(NoticeEvent::NewGames) => (3, &["video_game"]),
            Some(NoticeEvent::Updates) => (3, &["arrow_up"]),
            Some(NoticeEvent::TaskFailed) => (4, &["warning"]),
            Some(NoticeEvent::Damaged) => (4, &["x"]),
            Some(NoticeEvent::LibraryOffline) => (5, &["electric_plug"]),
            Some(NoticeEvent::LowSpace) => (4, &["floppy_disk"]),
            Some(NoticeEvent::SaveBackedUp) => (2, &["floppy_disk"]),
            None => (3, &["white_check_mark"]),
        };
        let title = event.map_or(M::NoticeTest, M::of_notice).get(lang);
        let link = self
            .setup
            .public_url
            .as_ref()
            .map(|base| format!("{}{path}", base.trim_end_matches('/')));
        Note {
            event,
            title: format!("Ludothèque · {title}"),
            body: lang.msg(msg),
            link,
            priority,
            tags,
        }
    }

    fn tell(&self, db: &Connection, event: NoticeEvent, msg: &Msg, path: &str) {
        if !self.lanes.is_empty() {
            self.lanes.send(&self.note(db, Some(event), msg, path));
        }
    }

    /// A task that failed or ended partial.
    pub(super) fn task_note(&self, db: &Connection, run: &JobRun) {
        let failed = match run.result {
            TaskResult::Failed => true,
            TaskResult::Partial => false,
            _ => return,
        };
        let message = Box::new(run.msg.clone().unwrap_or(Msg::Internal));
        let msg = Msg::NoteTaskEnded {
            task: run.task,
            failed,
            message,
        };
        self.tell(
            db,
            NoticeEvent::TaskFailed,
            &msg,
            &format!("/tasks/{}", run.id),
        );
    }

    /// New titles, titles newly wanting an update or DLC, and files newly damaged.
    pub(super) fn change_notes(&self, db: &Connection, before: &Titles, after: &Titles) {
        let (added, _) = before.changes_to(after);
        if !added.is_empty() {
            let msg = Msg::NoteNewGames {
                count: added.len() as u64,
                names: names(&added),
            };
            self.tell(db, NoticeEvent::NewGames, &msg, "/library");
        }
        let wanting = before.newly_wanting(after);
        if !wanting.is_empty() {
            let msg = Msg::NoteUpdates {
                count: wanting.len() as u64,
                names: names(&wanting),
            };
            self.tell(db, NoticeEvent::Updates, &msg, "/library?show=incomplete");
        }
        if after.1 > before.1 {
            let msg = Msg::NoteDamaged {
                count: after.1 - before.1,
            };
            self.tell(db, NoticeEvent::Damaged, &msg, "/files");
        }
    }

    /// The library's folder is gone or unreadable.
    pub fn library_offline(&self, db: &Connection) {
        self.tell(
            db,
            NoticeEvent::LibraryOffline,
            &Msg::NoteLibraryOffline,
            "/settings",
        );
    }

    /// A console backed up a save (CyberFoil's upload).
    pub fn save_backed_up(&self, db: &Connection, console: &str, title: &str) {
        let msg = Msg::NoteSaveBackedUp {
            console: console.into(),
            title: title.into(),
        };
        let page = format!("/consoles/{}", crate::text::encode_segment(console));
        self.tell(db, NoticeEvent::SaveBackedUp, &msg, &page);
    }

    /// A disk is short of room: the library's, or the data folder's.
    pub fn low_space(&self, db: &Connection, library: bool, percent: u64, free: u64) {
        let msg = Msg::NoteLowSpace {
            library,
            percent,
            free,
        };
        self.tell(db, NoticeEvent::LowSpace, &msg, "/");
    }
}

/// The language of the first admin's account; French when there is none.
fn admin_lang(db: &Connection) -> Lang {
    users::list(db)
        .ok()
        .and_then(|all| {
            all.into_iter()
                .filter(|u| u.is_admin())
                .min_by_key(|u| u.id)
        })
        .map_or(Lang::Fr, |u| u.lang)
}

/// The first names of `titles`, and "…" when there are more.
fn names(titles: &[&Title]) -> String {
    let mut named: Vec<&str> = titles.iter().take(NAMED).map(|t| t.name.as_str()).collect();
    if titles.len() > NAMED {
        named.push("…");
    }
    named.join(", ")
}
