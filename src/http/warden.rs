//! The connection warden: how the service bounds its connections, since tiny_http
//! does not.
//!
//! tiny_http accepts every connection on its own thread and gives each one a thread
//! that reads requests with no time limit and no cap on their number. A read timeout
//! on the listener would be inherited by accepted sockets, but it also makes
//! `accept` time out, which ends tiny_http's accept loop for good. So the service
//! leaves tiny_http alone and watches the sockets from beside it instead.
//!
//! Four times a second the warden lists the process's open sockets (`/proc/self/fd`),
//! keeps those accepted on the service's port, and reads each one's byte counters
//! from the kernel (`TCP_INFO`: bytes received, bytes of ours the client acknowledged;
//! `FIONREAD`: bytes not read yet). From them alone it tells, without touching the
//! data:
//! - a request not answered in time: the client sent bytes and nothing came back for
//!   `request_timeout` (a client dripping its headers a byte at a time, or stalling
//!   in its body);
//! - too much unanswered input: more than the body cap plus 64 KiB of headers
//!   without an answer;
//! - an idle keep-alive connection: no byte either way for `idle_timeout`;
//! - too many connections: past `max_connections`, the ones idle the longest go
//!   first, so a newcomer is served and a flood of idle sockets pays;
//! - a connection left without a thread by tiny_http's pool (see [`nudge`]).
//!
//! A connection whose request the service holds (taken by the acceptor and not yet
//! answered: waiting for a worker, in a handler, or a download being written) is
//! none of the warden's business: the request timer covers receiving a request
//! only, and a response that stalls is ended by the write deadline on the socket
//! itself (`--write-timeout-secs`, tiny_http's `ServerOptions::write_timeout`).
//!
//! It closes a connection with `shutdown`, and resets it when the client is in the
//! middle of a request: the tiny_http thread blocked on it wakes up and ends, and the
//! client sees the connection close. The socket is duplicated first and its inode
//! compared with the one listed, so a descriptor reused in between is never touched.
//!
//! Limits of this design: a check runs every 250 ms, so the cap can be passed by
//! what arrives in that time, and tiny_http buffers what a client sends between two
//! checks (a header line has no length limit of its own). Linux only, like the rest
//! of the service's file handling.

use std::collections::HashMap;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use log::{debug, info, warn};

use super::listening::{Listening, Ports};

/// The connections (by peer address) whose request the service holds, and where:
/// waiting for a worker, in a worker, or in a download thread. tiny_http hands out
/// one request of a connection at a time (`ServerOptions::sequential_requests`), so
/// a peer is held at most once.
#[derive(Debug, Default)]
pub struct Held(Mutex<HashMap<SocketAddr, Place>>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Taken from tiny_http, not yet in a worker (queued, or its client not reading).
    Waiting,
    /// In a worker, or its answer with the answer writers.
    Worker,
    Download,
}

impl Held {
    /// The request is at `place` now (taken from tiny_http, handed on).
    pub fn at(&self, peer: Option<&SocketAddr>, place: Place) {
        if let Some(peer) = peer {
            self.lock().insert(*peer, place);
        }
    }

    pub fn release(&self, peer: Option<&SocketAddr>) {
        if let Some(peer) = peer {
            self.lock().remove(peer);
        }
    }

    /// [`Held::release`] once an answer is written: the connection's next request may
    /// already be `Waiting` (tiny_http read it when the answer was done), and stays.
    pub fn answered(&self, peer: Option<&SocketAddr>) {
        if let Some(peer) = peer {
            let mut held = self.lock();
            if held.get(peer).is_some_and(|p| *p != Place::Waiting) {
                held.remove(peer);
            }
        }
    }

    fn holds(&self, peer: &str) -> bool {
        peer.parse().is_ok_and(|p| self.lock().contains_key(&p))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SocketAddr, Place>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What the warden enforces.
#[derive(Debug, Clone)]
pub struct Bounds {
    /// Where the service listens: the connections watched are those on its ports.
    pub listening: Arc<Listening>,
    pub max_connections: usize,
    pub idle_timeout: Duration,
    pub request_timeout: Duration,
    /// Bytes a client may send without getting an answer.
    pub max_unanswered: u64,
    /// The connections whose request the service holds.
    pub held: Arc<Held>,
}

const TICK: Duration = Duration::from_millis(250);

/// Start the warden's thread; it ends when `stop` is set.
pub fn start(
    bounds: Bounds,
    stop: Arc<AtomicBool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("warden".into())
        .spawn(move || {
            let mut seen = HashMap::new();
            while !stop.load(Ordering::SeqCst) {
                watch(&bounds, &mut seen, Instant::now());
                std::thread::sleep(TICK);
            }
        })
}

/// What the warden remembers of one connection between checks.
struct Track {
    received: u64,
    acked: u64,
    /// `received` when an answer last went out: what the client sent beyond it is
    /// still unanswered.
    answered: u64,
    waiting_since: Option<Instant>,
    last_activity: Instant,
}

/// One accepted connection as listed now.
struct Conn {
    inode: u64,
    fd: OwnedFd,
    peer: String,
    received: u64,
    acked: u64,
    /// Bytes received that no one has read yet.
    unread: u32,
}

impl Track {
    /// Take in the connection's counters: activity, and whether a request is waiting.
    fn update(&mut self, c: &Conn, now: Instant) {
        if c.received != self.received || c.acked != self.acked {
            self.last_activity = now;
        }
        if c.acked > self.acked {
            self.answered = c.received;
            self.waiting_since = None;
        } else if c.received > self.answered && self.waiting_since.is_none() {
            self.waiting_since = Some(now);
        }
        (self.received, self.acked) = (c.received, c.acked);
    }

    /// Why the connection must be closed, if it must.
    fn verdict(&self, bounds: &Bounds, c: &Conn, now: Instant) -> Option<String> {
        let unanswered = c.received - self.answered;
        if unanswered > bounds.max_unanswered {
            Some(format!(
                "{unanswered} bytes sent without a complete request"
            ))
        } else if self
            .waiting_since
            .is_some_and(|s| now - s >= bounds.request_timeout)
        {
            Some(format!(
                "request not complete after {} s",
                bounds.request_timeout.as_secs()
            ))
        } else if self.waiting_since.is_none() && now - self.last_activity >= bounds.idle_timeout {
            Some(format!("idle for {} s", bounds.idle_timeout.as_secs()))
        } else {
            None
        }
    }
}

/// Bytes that nobody reads: tiny_http reads a connection as soon as it has a thread,
/// so one whose bytes are still there a moment later has none.
fn wake_stalled(bounds: &Bounds, open: &[(Instant, Conn)]) {
    if open.iter().any(|(_, c)| c.unread > 0) {
        std::thread::sleep(Duration::from_millis(20));
        let stalled = open
            .iter()
            .filter(|(_, c)| c.unread > 0 && byte_counts(&c.fd).is_some_and(|(.., n)| n > 0));
        // One wake-up frees one of them: a burst of new connections can leave dozens.
        for (_, c) in stalled {
            nudge(bounds.listening.reachable(), &c.peer);
        }
    }
}

fn watch(bounds: &Bounds, seen: &mut HashMap<u64, Track>, now: Instant) {
    let conns = connections(bounds.listening.ports());
    seen.retain(|inode, _| conns.iter().any(|c| c.inode == *inode));
    let mut open = Vec::with_capacity(conns.len());
    for c in conns {
        let t = seen.entry(c.inode).or_insert(Track {
            received: 0,
            acked: 0,
            answered: 0,
            waiting_since: None,
            last_activity: now,
        });
        if bounds.held.holds(&c.peer) {
            // Its request was received whole: the clock starts again once it is answered.
            (t.answered, t.waiting_since, t.last_activity) = (c.received, None, now);
            (t.received, t.acked) = (c.received, c.acked);
            // Its unread bytes are a next request that tiny_http reads once this one
            // is answered: nothing for `wake_stalled` to wake.
            open.push((t.last_activity, Conn { unread: 0, ..c }));
            continue;
        }
        t.update(&c, now);
        let t_waiting = t.waiting_since.is_some();
        match t.verdict(bounds, &c, now) {
            Some(why) => close(&c, &why, t_waiting, seen),
            None => open.push((t.last_activity, c)),
        }
    }
    wake_stalled(bounds, &open);
    crate::metrics::set_open_connections(open.len());
    if open.len() > bounds.max_connections {
        open.sort_by_key(|(last_activity, _)| *last_activity);
        let excess = open.len() - bounds.max_connections;
        for (_, c) in &open[..excess] {
            let why = format!("over the limit of {} connections", bounds.max_connections);
            close(c, &why, false, seen);
        }
    }
}

/// Work around a race in tiny_http 0.12's thread pool (`util/task_pool.rs`): a
/// thread woken for one new connection still counts as waiting until it holds the
/// pool's lock again, so connections accepted in that moment are queued instead of
/// getting threads of their own. The woken thread then serves the first connection
/// for as long as it stays open, and the queued ones wait until other connections
/// end. Seen: 1 request in ~200,000 under steady load; most of a burst of 64 new
/// connections after the pool had been idle.
///
/// Such a connection is seen from here as bytes waiting unread in its socket (a
/// connection with a thread is read as soon as bytes arrive). A connection to our
/// own port that closes at once unblocks it: tiny_http gives it a thread (or queues
/// it behind), that thread finds end-of-file at once and then takes the oldest queued
/// connection, the stalled one. A wake-up that finds nothing queued costs one
/// connection.
fn nudge(listen: SocketAddr, peer: &str) {
    debug!("bytes from {peer} wait unread: waking the connection pool");
    if let Err(e) = TcpStream::connect_timeout(&listen, Duration::from_secs(1)) {
        warn!("cannot connect to our own port to wake the connection pool: {e}");
    }
}

/// Shut the connection down; the tiny_http thread reading it wakes with end-of-file.
/// A connection that is still sending is also reset: Linux goes on queueing what
/// arrives after a shutdown, so its reader would never see the end.
fn close(c: &Conn, why: &str, reset: bool, seen: &mut HashMap<u64, Track>) {
    let _ = socket2::SockRef::from(&c.fd).shutdown(std::net::Shutdown::Both);
    if reset {
        // connect() to an AF_UNSPEC address disconnects a TCP socket: it sends a
        // reset and drops both queues.
        // SAFETY: a zeroed sockaddr of the size given; the kernel only reads it.
        unsafe {
            let mut addr: libc::sockaddr = std::mem::zeroed();
            addr.sa_family = libc::AF_UNSPEC as libc::sa_family_t;
            libc::connect(
                c.fd.as_raw_fd(),
                &addr,
                std::mem::size_of::<libc::sockaddr>() as libc::socklen_t,
            );
        }
    }
    info!("connection from {} closed: {why}", c.peer);
    seen.remove(&c.inode);
}

/// Shut the connection from `peer` on `port` (both ways, without a reset, so that
/// what was written to it still goes out). For the acceptor, which must end a
/// connection tiny_http would go on reading.
pub fn shut(ports: Ports, peer: &SocketAddr, why: &str) {
    if let Some(fd) = find(ports, peer) {
        let _ = socket2::SockRef::from(&fd).shutdown(std::net::Shutdown::Both);
        info!("connection from {peer} closed: {why}");
    }
}

/// A duplicate of the descriptor of the connection from `peer` on `port`: for a
/// worker that must bound or end the reading of a request's body (see `body`), since
/// tiny_http does not lend its socket. Socket options set through the duplicate apply
/// to the connection itself. Costs one listing of `/proc/self/fd` and one
/// `getpeername` per descriptor (a few ms with a thousand connections open), not the
/// warden's full look at each.
pub fn find(ports: Ports, peer: &SocketAddr) -> Option<OwnedFd> {
    let dir = std::fs::read_dir("/proc/self/fd").ok()?;
    let is_it = |fd: BorrowedFd| {
        let sock = socket2::SockRef::from(&fd);
        sock.peer_addr().ok().and_then(|a| a.as_socket()) == Some(*peer)
            && sock
                .local_addr()
                .ok()
                .and_then(|a| a.as_socket())
                .is_some_and(|a| ports.contains(&a.port()))
    };
    for entry in dir.flatten() {
        let Some(fd) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        // SAFETY: the descriptor is only borrowed for `getpeername`; one closed in
        // between fails it, and one reused in between is checked again below, on a
        // duplicate that cannot be closed under us.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        if !is_it(borrowed) {
            continue;
        }
        if let Some(dup) = borrowed
            .try_clone_to_owned()
            .ok()
            .filter(|d| is_it(d.as_fd()))
        {
            return Some(dup);
        }
    }
    None
}

/// The connections accepted on `port`, once each, with a duplicate of a descriptor.
fn connections(ports: Ports) -> Vec<Conn> {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        warn!("the connection warden cannot list /proc/self/fd");
        return Vec::new();
    };
    let mut found: Vec<Conn> = Vec::new();
    let mut inodes = std::collections::HashSet::new();
    for entry in dir.flatten() {
        let Some(fd) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        // tiny_http holds two descriptors of each socket (its read and write halves).
        let Some(inode) = socket_inode(&entry.path()).filter(|i| !inodes.contains(i)) else {
            continue;
        };
        if let Some(conn) = inspect(fd, inode, ports) {
            inodes.insert(inode);
            found.push(conn);
        }
    }
    found
}

/// `socket:[12345]` → 12345.
fn socket_inode(link: &std::path::Path) -> Option<u64> {
    let target = std::fs::read_link(link).ok()?;
    let target = target.to_str()?;
    target
        .strip_prefix("socket:[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

fn inspect(fd: i32, inode: u64, ports: Ports) -> Option<Conn> {
    // SAFETY: the descriptor is only borrowed for the duplication; if it was closed
    // in between, `try_clone_to_owned` fails, and if it was reused, the inode check
    // below rejects the duplicate.
    let fd = unsafe { BorrowedFd::borrow_raw(fd) }
        .try_clone_to_owned()
        .ok()?;
    let file = std::fs::File::from(fd);
    if file.metadata().ok()?.ino() != inode {
        return None;
    }
    let fd = OwnedFd::from(file);
    let sock = socket2::SockRef::from(&fd);
    if !ports.contains(&sock.local_addr().ok()?.as_socket()?.port()) {
        return None;
    }
    // The listener itself has no peer.
    let peer = sock.peer_addr().ok()?.as_socket()?.to_string();
    let (received, acked, unread) = byte_counts(&fd)?;
    Some(Conn {
        inode,
        fd,
        peer,
        received,
        acked,
        unread,
    })
}

/// Bytes received from the client, bytes of ours it acknowledged, and bytes waiting
/// in the socket unread.
fn byte_counts(fd: &OwnedFd) -> Option<(u64, u64, u32)> {
    // SAFETY: tcp_info is plain data, and the kernel writes at most `len` bytes;
    // FIONREAD writes one int.
    unsafe {
        let mut info: libc::tcp_info = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        let r = libc::getsockopt(
            fd.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        );
        if r != 0 {
            return None;
        }
        let mut unread: libc::c_int = 0;
        if libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut unread) != 0 {
            unread = 0;
        }
        Some((
            info.tcpi_bytes_received,
            info.tcpi_bytes_acked,
            unread.max(0) as u32,
        ))
    }
}
