//! What the service tells the world outside: notifications to the targets people
//! read (`target`: ntfy, Gotify, Discord, Telegram, JSON; delivered by `lanes`, worded
//! by `notes`), and the webhook.
//!
//! The webhook: a small JSON event POSTed to the address the owner gave
//! (`--webhook-url`) when a task ends, when titles appear in the library and when
//! updates become available (after a title data refresh, usually).
//!
//! Events are sent from their own thread, in the order they happened: a task hands
//! its event over a bounded channel and goes on, so a slow or dead receiver never
//! holds a task. A failed delivery (no answer, or a status other than 2xx) is tried
//! again after 1 s, 5 s, 30 s and 2 min, then dropped; when 64 events already wait,
//! a new one is dropped. Both are logged, with the receiver's host only: a webhook
//! address often carries a token in its path.
//!
//! The requests go through `outbound` (`WEBHOOK`: 15 s for the whole exchange), and
//! follow no redirect: a 3xx is an answer other than 2xx, so it is tried again like a
//! 500, and the body never goes to another address than the one the owner gave.
//!
//! With a secret (`--webhook-secret`), each request carries
//! `X-Ludotheque-Signature: sha256=<hex of HMAC-SHA256(secret, raw body)>`, so the
//! receiver can tell the events are ours and unaltered.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};
use hmac::{Hmac, Mac};
use log::{debug, warn};
use rusqlite::Connection;
use serde_json::{json, Value};
use sha2::Sha256;

pub mod lanes;
mod notes;
pub mod target;

pub use notes::Setup;

use crate::error::Error;
use crate::outbound::{self, host_of, Cancel, Client};
use crate::store::job_runs::JobRun;
use crate::store::title_state;
use crate::time;
use crate::words::TitleId;

/// Events that may wait to be sent; past this a new one is dropped, not waited for.
const QUEUE: usize = 64;
/// The waits before each new attempt: five attempts over two and a half minutes.
const RETRY_AFTER: [Duration; 4] = [
    Duration::from_secs(1),
    Duration::from_secs(5),
    Duration::from_secs(30),
    Duration::from_secs(120),
];
/// Titles listed in one event at most; its `count` says how many there are.
const LISTED: usize = 100;

/// Where events go, and the secret that signs them.
#[derive(Debug, Clone)]
pub struct Webhook {
    pub url: String,
    pub secret: Option<String>,
}

/// The sending end: hands events to the webhook thread and notes to the targets'
/// lanes, or drops them when there are none.
pub struct Notifier {
    tx: Option<Sender<Value>>,
    /// Events handed over and not yet sent or dropped.
    pending: Arc<AtomicUsize>,
    /// The notification targets' deliveries.
    pub lanes: lanes::Lanes,
    setup: Setup,
    /// One reload at a time: two admins' changes never lose a lane.
    reloading: std::sync::Mutex<()>,
}

impl Notifier {
    /// Start the webhook thread when `hook` is set, and a lane per target (`setup`'s
    /// and those Settings added, `reload`). A target given at start that is no
    /// target stops the start.
    pub fn start(hook: Option<Webhook>, setup: Setup, db: &Connection) -> Result<Notifier, Error> {
        let pending = Arc::new(AtomicUsize::new(0));
        let lanes = lanes::Lanes::new(setup.test_base.clone());
        let tx = match hook {
            None => None,
            Some(hook) => {
                let (tx, rx) = bounded(QUEUE);
                let left = Arc::clone(&pending);
                std::thread::Builder::new()
                    .name("webhook".into())
                    .spawn(move || deliver_all(&hook, &rx, &left))?;
                Some(tx)
            }
        };
        let notifier = Notifier {
            tx,
            pending,
            lanes,
            setup,
            reloading: std::sync::Mutex::new(()),
        };
        notifier.reload(db)?;
        notifier.warn_of_exposed();
        Ok(notifier)
    }

    /// Wait until every event and note handed over is sent or dropped, at most
    /// `limit`: a foreground command would otherwise end before its events are sent.
    pub fn flush(&self, limit: Duration) {
        let until = std::time::Instant::now() + limit;
        let busy = || {
            self.pending.load(Ordering::SeqCst) > 0 || self.lanes.pending.load(Ordering::SeqCst) > 0
        };
        while busy() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn is_on(&self) -> bool {
        self.tx.is_some() || !self.lanes.is_empty()
    }

    fn send(&self, event: Value) {
        let Some(tx) = &self.tx else { return };
        self.pending.fetch_add(1, Ordering::SeqCst);
        match tx.try_send(event) {
            Ok(()) => {}
            Err(TrySendError::Full(e)) => {
                self.pending.fetch_sub(1, Ordering::SeqCst);
                warn!(
                    "webhook: {QUEUE} events wait already; the {} event is dropped",
                    e["event"]
                );
            }
            Err(TrySendError::Disconnected(_)) => {
                self.pending.fetch_sub(1, Ordering::SeqCst);
                warn!("webhook: the sending thread is gone");
            }
        }
    }

    /// `task_finished`: the task's last run, as `/api/v1/job` shows it; a note when
    /// it failed or ended partial.
    pub fn task_finished(&self, db: &Connection, run: &JobRun, failures: &[crate::error::Failure]) {
        self.task_note(db, run);
        let failures: Vec<_> = failures
            .iter()
            .map(|f| json!({"key": f.key, "error": f.msg.slug(), "message": f.msg.english()}))
            .collect();
        self.send(json!({
            "event": "task_finished",
            "at": time::rfc3339(run.finished_at.unwrap_or_else(time::now)),
            "task": run.task.as_str(),
            "result": run.result.as_str(),
            "done": run.done,
            "total": run.total,
            "errors": run.errors,
            "message": run.message,
            "failures": failures,
        }));
    }

    /// `titles_added` and `updates_available`: what changed in the library's titles
    /// since `before` was read; and the notes of new titles, of updates and DLC newly
    /// wanted, and of files newly damaged.
    pub fn title_changes(&self, before: &Titles, db: &Connection) {
        let after = match Titles::read(db) {
            Ok(after) => after,
            Err(e) => return warn!("webhook: the titles could not be read: {e}"),
        };
        self.change_notes(db, before, &after);
        let (added, updates) = before.changes_to(&after);
        let at = time::rfc3339(time::now());
        for (event, titles) in [("titles_added", added), ("updates_available", updates)] {
            if !titles.is_empty() {
                self.send(json!({
                    "event": event,
                    "at": at,
                    "count": titles.len(),
                    "titles": titles.iter().take(LISTED).map(|t| t.json()).collect::<Vec<_>>(),
                }));
            }
        }
    }
}

/// A title as an event lists it.
#[derive(Debug, Clone)]
pub struct Title {
    base_id: TitleId,
    name: String,
    update_available: bool,
    dlc_missing: bool,
    installed_version: Option<u32>,
    latest_version: Option<u32>,
}

impl Title {
    fn json(&self) -> Value {
        json!({
            "title_id": self.base_id,
            "name": self.name,
            "installed_version": self.installed_version,
            "latest_version": self.latest_version,
        })
    }
}

/// The library's titles and its count of damaged files, read before a task to tell
/// what it changed.
pub struct Titles(HashMap<TitleId, Title>, u64);

impl Titles {
    pub fn read(db: &Connection) -> Result<Titles, Error> {
        let (_, states) = title_state::all(db)?;
        let damaged = crate::store::games::stats(db)?.damaged;
        Ok(Titles(
            states
                .into_iter()
                .map(|s| {
                    let title = Title {
                        base_id: s.base_id,
                        name: s.name,
                        update_available: s.update_available,
                        dlc_missing: s.dlc_missing,
                        installed_version: s.installed_version,
                        latest_version: s.latest_version,
                    };
                    (s.base_id, title)
                })
                .collect(),
            damaged,
        ))
    }

    /// The titles of before that want an update or DLC in `after` and did not, by
    /// title ID.
    fn newly_wanting<'a>(&self, after: &'a Titles) -> Vec<&'a Title> {
        let mut wanting: Vec<&Title> = after
            .0
            .iter()
            .filter_map(|(id, t)| Some((self.0.get(id)?, t)))
            .filter(|(old, t)| {
                (t.update_available && !old.update_available) || (t.dlc_missing && !old.dlc_missing)
            })
            .map(|(_, t)| t)
            .collect();
        wanting.sort_by_key(|t| t.base_id);
        wanting
    }

    /// The titles new in `after`, and those of before that have an update available
    /// in `after` and had none: each sorted by title ID. A new title with an update
    /// available is only among the new ones.
    fn changes_to<'a>(&self, after: &'a Titles) -> (Vec<&'a Title>, Vec<&'a Title>) {
        let mut added = Vec::new();
        let mut updates = Vec::new();
        for (id, title) in &after.0 {
            match self.0.get(id) {
                None => added.push(title),
                Some(old) if title.update_available && !old.update_available => updates.push(title),
                Some(_) => {}
            }
        }
        added.sort_by_key(|t| t.base_id);
        updates.sort_by_key(|t| t.base_id);
        (added, updates)
    }
}

/// The webhook thread: each event in turn, with its retries; ends when the service
/// drops its sender.
fn deliver_all(hook: &Webhook, rx: &Receiver<Value>, pending: &AtomicUsize) {
    let net = Client::new(outbound::WEBHOOK, Cancel::default());
    let host = host_of(&hook.url);
    for event in rx {
        let name = event["event"].as_str().unwrap_or_default().to_string();
        let body = serde_json::to_vec(&event).unwrap_or_default();
        let waits = std::iter::once(Duration::ZERO).chain(RETRY_AFTER);
        for (attempt, wait) in waits.enumerate() {
            std::thread::sleep(wait);
            match post(&net, hook, &name, &body) {
                Ok(()) => {
                    debug!("webhook: {name} event sent to {host}");
                    break;
                }
                Err(why) if attempt == RETRY_AFTER.len() => {
                    warn!("webhook: the {name} event could not be sent to {host} ({why}); dropped")
                }
                Err(why) => warn!("webhook: sending the {name} event to {host} failed ({why})"),
            }
        }
        pending.fetch_sub(1, Ordering::SeqCst);
    }
}

fn post(net: &Client, hook: &Webhook, name: &str, body: &[u8]) -> Result<(), String> {
    let signed = hook.secret.as_ref().map(|s| signature(s, body));
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("X-Ludotheque-Event", name),
    ];
    if let Some(signed) = &signed {
        headers.push(("X-Ludotheque-Signature", signed));
    }
    match net.post(&hook.url, &headers, body) {
        Ok(status) if (200..300).contains(&status) => Ok(()),
        Ok(status) => Err(format!("answered {status}")),
        Err(e) => Err(e.to_string()),
    }
}

/// `sha256=` and the hex of the body's HMAC-SHA256 under `secret`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The signature of RFC 4231's second test case (key "Jefe").
    #[test]
    fn the_signature_is_the_hex_hmac_sha256_of_the_body() {
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn the_log_names_the_host_only() {
        assert_eq!(
            host_of("https://hooks.example.com/services/T0/B0/secret"),
            "hooks.example.com"
        );
        assert_eq!(
            host_of("http://user:pw@10.0.0.2:8080/x?token=1"),
            "10.0.0.2:8080"
        );
        // A `#` or `?` inside a password does not show the password's start.
        assert_eq!(host_of("ntfy://bob:pa#ss?w@ntfy.lan/t"), "ntfy.lan");
        assert_eq!(
            host_of("http://user:pw@10.0.0.2:8080/x?token=1"),
            "10.0.0.2:8080"
        );
    }

    /// A title whose ID is the hex digit(s) `id`.
    fn title(id: &str, update_available: bool) -> (TitleId, Title) {
        wanting(id, update_available, false)
    }

    fn wanting(id: &str, update_available: bool, dlc_missing: bool) -> (TitleId, Title) {
        let base_id = TitleId(u64::from_str_radix(id, 16).unwrap());
        let t = Title {
            base_id,
            name: format!("Game {id}"),
            update_available,
            dlc_missing,
            installed_version: Some(0),
            latest_version: Some(65536),
        };
        (base_id, t)
    }

    #[test]
    fn new_titles_and_new_updates_are_told_apart() {
        let before = Titles(
            [
                title("A", false),
                title("B", true),
                title("C", false),
                title("F", false),
            ]
            .into(),
            0,
        );
        let after = Titles(
            [
                title("A", true),
                title("B", true),
                title("D", true),
                title("E", false),
                wanting("F", false, true),
            ]
            .into(),
            0,
        );
        let (added, updates) = before.changes_to(&after);
        let ids = |v: Vec<&Title>| {
            v.iter()
                .map(|t| format!("{:X}", t.base_id.0))
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(added), ["D", "E"]);
        assert_eq!(ids(updates), ["A"], "B had one already; C left the library");
        // The notes also tell of DLC newly missing.
        assert_eq!(ids(before.newly_wanting(&after)), ["A", "F"]);
    }
}
