//! Bodies their handler reads as they arrive (`Table::uploads`: a console's save
//! upload), to a file and within the save cap, instead of into memory within the
//! short budget of `body`.
//!
//! Such a body may be a gigabyte from a console on Wi-Fi, so its budget is per read:
//! each read must bring bytes within [`STALL`], and after [`GRACE`] the body must
//! have come at [`MIN_RATE`] on average (a console on Wi-Fi sends a thousand times
//! that; a client that drips holds nothing for long). It holds its worker meanwhile,
//! so each console reads one upload at a time, and half the workers (at least two)
//! at the most; one more is a 503 that asks to retry. A body announced or found
//! larger than `--save-max-bytes` is a 413, and its connection is closed.

use std::collections::HashSet;
use std::io::Read;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::router::{self, Call};
use super::{body, warden, App, Reply, Req};
use crate::error::{Error, Kind, Msg};

/// Each read of an upload must bring bytes within this.
pub const STALL: Duration = Duration::from_secs(30);
/// What is read of a body after its handler is done with it, so the connection can
/// serve the next request (a multipart body's closing line).
const TAIL: u64 = 64 * 1024;

/// How long an upload may take before its average rate counts.
pub const GRACE: Duration = Duration::from_secs(60);
/// The slowest average an upload may keep past [`GRACE`], in bytes a second.
pub const MIN_RATE: u64 = 4096;

/// The callers whose upload is being read (one each).
#[derive(Default)]
pub struct Uploads(Mutex<HashSet<String>>);

struct Slot<'a>(&'a Uploads, String);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut running = self.0 .0.lock().unwrap_or_else(|p| p.into_inner());
        running.remove(&self.1);
    }
}

impl Uploads {
    /// A place for `who`'s upload: its only one, and one of at most `max` in all.
    fn enter(&self, who: &str, max: usize) -> Option<Slot<'_>> {
        let mut running = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if running.len() >= max || !running.insert(who.to_string()) {
            return None;
        }
        Some(Slot(self, who.to_string()))
    }
}

/// The body as the handler reads it: at most `cap` bytes, and why reading stopped.
struct Capped<'a> {
    inner: &'a mut dyn Read,
    left: u64,
    cap: u64,
    failed: Option<Error>,
    started: Instant,
}

impl Read for Capped<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let want = out
            .len()
            .min(self.left.saturating_add(1).min(usize::MAX as u64) as usize);
        let n = match self.inner.read(&mut out[..want]) {
            Ok(n) => n,
            Err(e) => {
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) {
                    self.failed = Some(Error::new(Kind::RequestTimeout, Msg::BodyTooSlow));
                }
                return Err(e);
            }
        };
        if n as u64 > self.left {
            self.failed = Some(too_large(self.cap));
            return Err(std::io::Error::other("past the upload cap"));
        }
        self.left -= n as u64;
        let took = self.started.elapsed();
        if took > GRACE && self.cap - self.left < took.as_secs() * MIN_RATE {
            self.failed = Some(Error::new(Kind::RequestTimeout, Msg::BodyTooSlow));
            return Err(std::io::Error::other("slower than the least rate"));
        }
        Ok(n)
    }
}

fn too_large(cap: u64) -> Error {
    let limit = usize::try_from(cap).unwrap_or(usize::MAX);
    Error::new(Kind::PayloadTooLarge, Msg::PayloadTooLarge { limit })
}

/// Run an upload route's handler with its body; also whether the body was read to
/// its end (else the connection closes after the answer).
pub fn run(
    app: &App,
    db: &Connection,
    rq: &mut tiny_http::Request,
    req: &Req,
    call: Call,
) -> (Result<Reply, Error>, bool) {
    let cap = app.config.serve.save_max_bytes;
    if rq.body_length().is_some_and(|n| n as u64 > cap) {
        return (Err(too_large(cap)), false);
    }
    let who = call.principal.log_name().unwrap_or_default();
    let Some(_slot) = app.uploads.enter(&who, (app.config.workers / 2).max(2)) else {
        return (Err(Error::overloaded()), false);
    };
    let fd = rq
        .remote_addr()
        .and_then(|p| warden::find(app.listening.ports(), p));
    if let Some(fd) = &fd {
        body::set_read_timeout(fd, Some(STALL));
    }
    let mut capped = Capped {
        inner: rq.as_reader(),
        left: cap,
        cap,
        failed: None,
        started: Instant::now(),
    };
    let run = std::panic::AssertUnwindSafe(|| router::run(app, db, req, call, Some(&mut capped)));
    let mut result = std::panic::catch_unwind(run)
        .unwrap_or_else(|_| Err(Error::internal("an upload's handler panicked")));
    let mut ended = false;
    // A full disk is no fault of the client's: the rest of its body is read (within
    // the same rules) and passed over, so that it gets the 507, not a reset.
    let full = matches!(&result, Err(e) if e.kind == Kind::InsufficientStorage);
    if result.is_ok() || full {
        let most = if full { u64::MAX } else { TAIL + 1 };
        let tail = std::io::copy(&mut (&mut capped).take(most), &mut std::io::sink());
        ended = tail.is_ok_and(|n| full || n <= TAIL);
    }
    if let (Err(_), Some(why)) = (&result, capped.failed.take()) {
        // The handler saw an I/O error; the client is told what it was.
        result = Err(why);
    }
    if let Some(fd) = &fd {
        body::set_read_timeout(fd, None);
    }
    (result, ended)
}
