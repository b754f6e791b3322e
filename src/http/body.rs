//! Reading a request's body without letting a client hold a worker.
//!
//! A worker reads a body only after the request's route and credentials have been
//! checked from its headers (`server::handle`), so a stranger never gets a worker to
//! wait on its body. Even then the body has a budget of its own: each read must bring
//! bytes within [`STALL`], the whole body must be in within [`TOTAL`], and a second
//! body read at the same time from the same client (`auth::client_net`) gets only
//! what arrives within [`CROWDED`], so slow bodies from one address hold at most one
//! worker. A public route (sign-in, first run) takes a body of at most 1 KiB within
//! [`CROWDED`]. A body that misses its budget is a 408 and its connection is shut.
//!
//! tiny_http reads a body of at most 1 KiB (without `Expect: 100-continue`) on its
//! own connection thread before it hands the request over: such a body is already in
//! memory ([`pending`] is false) and costs the worker nothing. A larger or chunked one
//! is still on the socket. tiny_http lends no socket, so the budget is set on a
//! duplicate of the connection's descriptor (`warden::find`) as `SO_RCVTIMEO`.
//!
//! A request answered without its pending body being read must not be dropped as it
//! is: tiny_http 0.12 drains the rest of a `Content-Length` body when the request is
//! dropped (`EqualReader`'s `Drop`), which would wait on the client after all. A small
//! body that has already arrived is passed over ([`Unread::pass_over`], a few ms at
//! most) and the connection kept; otherwise [`Unread::close_reading`] shuts the
//! connection's read side first: the drain then ends at once, the answer still goes
//! out, and the connection ends after it.

use std::collections::HashMap;
use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::OwnedFd;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::auth::client_net;
use super::listening::Ports;
use super::warden;
use crate::error::{Error, Kind, Msg};

/// Each read of a body must bring bytes within this.
pub const STALL: Duration = Duration::from_secs(1);
/// The whole body must be in within this.
pub const TOTAL: Duration = Duration::from_secs(5);
/// A second body read from the same client at the same time gets this much, and so
/// does a stranger's body (a public route's: sign-in, first run).
pub const CROWDED: Duration = Duration::from_millis(100);
/// The largest body of a public route (a name and a password in JSON).
pub const PUBLIC_BODY: usize = 1024;

/// The body reads under way, per client network.
#[derive(Default)]
pub struct Bodies {
    reading: Mutex<HashMap<IpAddr, usize>>,
}

/// One body read under way; its place is given back when it is dropped.
struct Turn<'a> {
    bodies: &'a Bodies,
    net: IpAddr,
    /// No other body from this client was being read when this one started.
    first: bool,
}

impl Bodies {
    fn enter(&self, net: IpAddr) -> Turn<'_> {
        let mut reading = self.reading.lock().unwrap_or_else(|p| p.into_inner());
        let n = reading.entry(net).or_insert(0);
        *n += 1;
        Turn {
            bodies: self,
            net,
            first: *n == 1,
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut reading = self
            .bodies
            .reading
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(n) = reading.get_mut(&self.net) {
            *n -= 1;
            if *n == 0 {
                reading.remove(&self.net);
            }
        }
    }
}

/// Whether the request's body is still on the socket (see the module's doc).
pub fn pending(rq: &tiny_http::Request) -> bool {
    let expects_continue = rq
        .headers()
        .iter()
        .any(|h| h.field.equiv("Expect") && h.value.as_str().eq_ignore_ascii_case("100-continue"));
    match rq.body_length() {
        Some(0) => false,
        Some(n) => n > 1024 || expects_continue,
        None => rq
            .headers()
            .iter()
            .any(|h| h.field.equiv("Transfer-Encoding")),
    }
}

/// A body left unread that is no larger than this may be passed over, if it has
/// already arrived, to keep the connection for the client's next request.
const PASS_OVER: usize = 64 * 1024;
/// How long passing over a body may wait for its bytes: barely at all.
const PASS_OVER_WAIT: Duration = Duration::from_millis(2);

/// A request whose pending body was not read: how to answer it without waiting.
pub struct Unread {
    fd: Option<OwnedFd>,
}

impl Unread {
    /// Find the connection of a request that will be answered unread.
    pub fn of(ports: Ports, rq: &tiny_http::Request) -> Unread {
        Unread {
            fd: rq.remote_addr().and_then(|peer| warden::find(ports, peer)),
        }
    }

    /// Pass over a small body that has already arrived (a client that sends an empty
    /// chunked body with every `POST`, as ureq does, keeps its connection); `false`
    /// when it is larger, still on its way, or the client waits for `100 Continue`
    /// (which is never sent for a body left unread). Waits at most a few ms.
    pub fn pass_over(&self, rq: &mut tiny_http::Request) -> bool {
        let expects_continue = rq.headers().iter().any(|h| {
            h.field.equiv("Expect") && h.value.as_str().eq_ignore_ascii_case("100-continue")
        });
        let Some(fd) = &self.fd else {
            return false;
        };
        if expects_continue || rq.body_length().is_some_and(|n| n > PASS_OVER) {
            return false;
        }
        set_read_timeout(fd, Some(PASS_OVER_WAIT));
        let mut body = Vec::new();
        let passed = read_within(rq.as_reader(), &mut body, PASS_OVER, PASS_OVER_WAIT).is_ok()
            && body.len() <= PASS_OVER;
        set_read_timeout(fd, None);
        passed
    }

    /// Shut the read side, so that the drain on drop ends at once; the answer can
    /// still be written. Call before the request is answered.
    pub fn close_reading(&self) {
        if let Some(fd) = &self.fd {
            let _ = socket2::SockRef::from(fd).shutdown(std::net::Shutdown::Read);
        }
    }

    /// Shut the write side too, once the answer is written: the client sees the end.
    pub fn close(self) {
        if let Some(fd) = &self.fd {
            let _ = socket2::SockRef::from(fd).shutdown(std::net::Shutdown::Both);
        }
    }
}

/// The body, refused past `max_body` bytes (413) whether or not its length was
/// announced, and within the budget of the module's doc (408). A `stranger`'s body (a
/// public route's) gets at most [`PUBLIC_BODY`] bytes and [`CROWDED`] to arrive: one
/// sent chunked or after `100 Continue` is read, a slow one costs a worker a moment.
pub fn read(
    bodies: &Bodies,
    ports: Ports,
    rq: &mut tiny_http::Request,
    max_body: usize,
    stranger: bool,
) -> Result<Vec<u8>, Error> {
    let max_body = if stranger {
        max_body.min(PUBLIC_BODY)
    } else {
        max_body
    };
    let too_large = || {
        Error::new(
            Kind::PayloadTooLarge,
            Msg::PayloadTooLarge { limit: max_body },
        )
    };
    if rq.body_length().is_some_and(|n| n > max_body) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    if !pending(rq) {
        rq.as_reader()
            .take(max_body as u64 + 1)
            .read_to_end(&mut body)
            .map_err(|e| Error::invalid(Msg::BodyUnreadable).with_cause(e))?;
    } else {
        let peer: Option<SocketAddr> = rq.remote_addr().copied();
        let fd = peer.and_then(|p| warden::find(ports, &p));
        let Some((peer, fd)) = peer.zip(fd) else {
            return Err(Error::invalid(Msg::BodyUnreadable).with_cause("its connection is gone"));
        };
        let turn = bodies.enter(client_net(peer.ip()));
        let (stall, total) = if turn.first && !stranger {
            (STALL, TOTAL)
        } else {
            (CROWDED, CROWDED)
        };
        set_read_timeout(&fd, Some(stall));
        let read = read_within(rq.as_reader(), &mut body, max_body, total);
        set_read_timeout(&fd, None);
        read?;
    }
    if body.len() > max_body {
        return Err(too_large());
    }
    Ok(body)
}

/// Read to the end, at most `max_body + 1` bytes, giving up once `total` has passed.
fn read_within(
    reader: &mut dyn Read,
    body: &mut Vec<u8>,
    max_body: usize,
    total: Duration,
) -> Result<(), Error> {
    let too_slow = || Error::new(Kind::RequestTimeout, Msg::BodyTooSlow);
    let started = Instant::now();
    let mut chunk = [0u8; 16 * 1024];
    while body.len() <= max_body {
        if started.elapsed() > total {
            return Err(too_slow());
        }
        match reader.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(too_slow().with_cause(e))
            }
            Err(e) => return Err(Error::invalid(Msg::BodyUnreadable).with_cause(e)),
        }
    }
    Ok(())
}

/// `SO_RCVTIMEO` on the connection (`None`: none, tiny_http's own setting).
pub(super) fn set_read_timeout(fd: &OwnedFd, timeout: Option<Duration>) {
    if let Err(e) = socket2::SockRef::from(fd).set_read_timeout(timeout) {
        log::warn!("cannot bound the reading of a request body: {e}");
    }
}
