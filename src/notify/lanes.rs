//! The targets' deliveries: one thread and one bounded queue per target, so a target
//! that hangs (each attempt has 15 s, `outbound::WEBHOOK`) or is down delays only its
//! own messages, and a task or a request that hands a message over never waits.
//! A failed message is tried again 5 s later, then after 30 s, 2, 8, 20 and 29
//! minutes, within an hour of being handed over; then, or when it waited an hour
//! behind others (a target down for long), it is dropped with one log line. A target
//! removed in Settings stops at once. Past 32 waiting messages, a new one is dropped
//! (logged).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};
use log::{debug, warn};

use super::target::{Note, Target};
use crate::outbound::{self, Cancel, Client};
use crate::words::NoticeEvent;

const QUEUE: usize = 32;
const RETRY_AFTER: [Duration; 6] = [
    Duration::from_secs(5),
    Duration::from_secs(30),
    Duration::from_secs(120),
    Duration::from_secs(480),
    Duration::from_secs(1200),
    Duration::from_secs(1740),
];
/// A message not sent within this of being handed over is dropped.
const LIFETIME: Duration = Duration::from_secs(3600);

/// A target as Settings lists it.
#[derive(Debug, Clone)]
pub struct Listed {
    pub id: String,
    pub shown: String,
    pub events: Vec<NoticeEvent>,
    /// Given at start (`--notify`, `--notify-file`): Settings cannot remove it.
    pub fixed: bool,
}

/// A target wanted, with its events.
pub struct Wanted {
    pub target: Target,
    pub events: Vec<NoticeEvent>,
    pub fixed: bool,
}

struct Lane {
    target: Target,
    events: Vec<NoticeEvent>,
    fixed: bool,
    tx: Sender<(Instant, Note)>,
    gone: Arc<AtomicBool>,
}

/// Every target's lane.
pub struct Lanes {
    lanes: Mutex<Vec<Lane>>,
    /// Messages handed over and not yet sent or dropped (`Notifier::flush`).
    pub pending: Arc<AtomicUsize>,
    test_base: Option<String>,
    /// A test message is being sent: one at a time, so that clicks on "send a test
    /// message" hold at most one request worker (for up to the 15 s deadline).
    testing: AtomicBool,
}

impl Lanes {
    pub fn new(test_base: Option<String>) -> Lanes {
        Lanes {
            lanes: Mutex::new(Vec::new()),
            pending: Arc::new(AtomicUsize::new(0)),
            test_base,
            testing: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Lane>> {
        self.lanes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Make the lanes these: a lane kept keeps its queue, a lane no longer wanted
    /// stops, a new one starts.
    pub fn set(&self, wanted: Vec<Wanted>) {
        let mut lanes = self.lock();
        let mut kept = Vec::new();
        for w in wanted {
            match lanes.iter().position(|l| l.target == w.target) {
                Some(at) => {
                    let mut lane = lanes.swap_remove(at);
                    (lane.events, lane.fixed) = (w.events, w.fixed);
                    kept.push(lane);
                }
                None => match self.start(w) {
                    Ok(lane) => kept.push(lane),
                    Err(e) => warn!("notify: a delivery thread could not start: {e}"),
                },
            }
        }
        for gone in lanes.drain(..) {
            gone.gone.store(true, Ordering::SeqCst);
        }
        *lanes = kept;
    }

    fn start(&self, w: Wanted) -> std::io::Result<Lane> {
        let (tx, rx) = bounded(QUEUE);
        let gone = Arc::new(AtomicBool::new(false));
        let (target, stop) = (w.target.clone(), Arc::clone(&gone));
        let (pending, base) = (Arc::clone(&self.pending), self.test_base.clone());
        std::thread::Builder::new()
            .name("notify".into())
            .spawn(move || run(&target, &rx, &stop, &pending, base.as_deref()))?;
        Ok(Lane {
            target: w.target,
            events: w.events,
            fixed: w.fixed,
            tx,
            gone,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Hand `note` to every target that gets its event.
    pub fn send(&self, note: &Note) {
        for lane in self.lock().iter() {
            if note.event.is_some_and(|e| !lane.events.contains(&e)) {
                continue;
            }
            self.pending.fetch_add(1, Ordering::SeqCst);
            if let Err(e) = lane.tx.try_send((Instant::now(), note.clone())) {
                self.pending.fetch_sub(1, Ordering::SeqCst);
                let why = match e {
                    TrySendError::Full(_) => "its queue is full",
                    TrySendError::Disconnected(_) => "its thread is gone",
                };
                warn!(
                    "notify: {}: a message is dropped: {why}",
                    lane.target.shown()
                );
            }
        }
    }

    pub fn list(&self) -> Vec<Listed> {
        self.lock()
            .iter()
            .map(|l| Listed {
                id: l.target.id(),
                shown: l.target.shown(),
                events: l.events.clone(),
                fixed: l.fixed,
            })
            .collect()
    }

    /// The target of this id, if it has a lane.
    pub fn target(&self, id: &str) -> Option<(Target, bool)> {
        self.lock()
            .iter()
            .find(|l| l.target.id() == id)
            .map(|l| (l.target.clone(), l.fixed))
    }

    /// Send `note` to `target` once, now (Settings' test): the reason when it failed;
    /// `None` while another test is being sent.
    pub fn try_once(&self, target: &Target, note: &Note) -> Option<Result<(), String>> {
        /// Lets the next test go however this one ends.
        struct Testing<'a>(&'a AtomicBool);
        impl Drop for Testing<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::SeqCst);
            }
        }
        if self.testing.swap(true, Ordering::SeqCst) {
            return None;
        }
        let _testing = Testing(&self.testing);
        let net = Client::new(outbound::WEBHOOK, Cancel::default());
        Some(send_once(&net, target, note, self.test_base.as_deref()))
    }
}

/// A lane's thread: each message in turn, with its retries; ends when its lane is
/// dropped.
fn run(
    target: &Target,
    rx: &Receiver<(Instant, Note)>,
    gone: &AtomicBool,
    pending: &AtomicUsize,
    test_base: Option<&str>,
) {
    let net = Client::new(outbound::WEBHOOK, Cancel::default());
    for (queued, note) in rx {
        if !gone.load(Ordering::SeqCst) {
            deliver(&net, target, &note, queued, gone, test_base);
        }
        pending.fetch_sub(1, Ordering::SeqCst);
    }
}

fn deliver(
    net: &Client,
    target: &Target,
    note: &Note,
    queued: Instant,
    gone: &AtomicBool,
    test_base: Option<&str>,
) {
    let shown = target.shown();
    let name = note.event.map_or("test", |e| e.as_str());
    let mut why = "it waited an hour behind the messages before it".to_string();
    for wait in std::iter::once(Duration::ZERO).chain(RETRY_AFTER) {
        if queued.elapsed() + wait > LIFETIME {
            break;
        }
        if !pause(wait, gone) {
            return debug!("notify: {shown} was removed; its {name} message is dropped");
        }
        match send_once(net, target, note, test_base) {
            Ok(()) => return debug!("notify: the {name} message was sent to {shown}"),
            Err(e) => {
                debug!("notify: sending the {name} message to {shown} failed ({e})");
                why = e;
            }
        }
    }
    warn!(
        "notify: the {name} message could not be sent to {shown} within an hour ({why}); dropped"
    );
}

/// Wait `wait`, unless the target is removed meanwhile: `false` then.
fn pause(wait: Duration, gone: &AtomicBool) -> bool {
    let until = Instant::now() + wait;
    while Instant::now() < until {
        if gone.load(Ordering::SeqCst) {
            return false;
        }
        std::thread::sleep(
            Duration::from_millis(100).min(until.saturating_duration_since(Instant::now())),
        );
    }
    !gone.load(Ordering::SeqCst)
}

fn send_once(
    net: &Client,
    target: &Target,
    note: &Note,
    test_base: Option<&str>,
) -> Result<(), String> {
    let r = target.request(note, test_base);
    let headers: Vec<(&str, &str)> = r.headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    match net.post(&r.url, &headers, &r.body) {
        Ok(status) if (200..300).contains(&status) => Ok(()),
        Ok(status) => Err(format!("answered {status}")),
        Err(e) => Err(e.to_string()),
    }
}
