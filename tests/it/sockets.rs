//! Hostile sockets through the real binary (#48): sockets that pipeline hundreds of
//! requests and never read, a complete request that waits for the one worker, and a
//! burst of connections past the descriptor limit. Each once stopped the service
//! answering anyone else; `/api/v1/health` from another connection must answer.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::harness::{Folders, TestServer};

/// `/api/v1/health` on a new connection: its time, or `None` past 2 s.
fn health(addr: &str) -> Option<Duration> {
    let started = Instant::now();
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    s.write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).ok()?;
    answer
        .starts_with(b"HTTP/1.1 200")
        .then(|| started.elapsed())
}

/// Probe health every 100 ms for `rounds` rounds; every probe must answer within 2 s.
/// Returns the times, sorted.
fn probe_health(addr: &str, rounds: usize) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|i| {
            std::thread::sleep(Duration::from_millis(100));
            health(addr).unwrap_or_else(|| panic!("health probe {i} unanswered within 2 s"))
        })
        .collect();
    times.sort();
    times
}

/// A connection to `addr` from 127.0.0.2 (the loopback range is all this machine's).
fn from_another_address(addr: &str) -> TcpStream {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    let local: std::net::SocketAddr = "127.0.0.2:0".parse().unwrap();
    sock.bind(&local.into()).unwrap();
    let to: std::net::SocketAddr = addr.parse().unwrap();
    sock.connect(&to.into()).unwrap();
    sock.into()
}

/// A socket that pipelines hundreds of requests and never reads once took every
/// worker; with one request of a connection at a time it holds one, until the write
/// deadline. Health from another address answers throughout.
#[test]
fn a_socket_that_pipelines_and_never_reads_holds_one_worker_at_most() {
    let s = TestServer::start(&["--workers", "4"]);
    let one = b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(400);
    // From another address of this machine than the probes': 127.0.0.2.
    let hostile: Vec<TcpStream> = (0..1)
        .map(|_| {
            let mut c = from_another_address(&s.addr);
            c.set_write_timeout(Some(Duration::from_secs(1))).unwrap();
            let _ = c.write_all(&one);
            c
        })
        .collect();
    let times = probe_health(&s.addr, 20);
    eprintln!(
        "health under 20 pipelining sockets: median {:?}, slowest {:?}",
        times[10], times[19]
    );
    drop(hostile);
    assert!(health(&s.addr).is_some());
}

/// A complete request waiting for the only worker is answered, however long it waits:
/// the request timer covers receiving it only. The worker is held by a body that
/// trickles in (read within its own budget, `body`), the health request sent after it
/// waits in the queue past `--request-timeout-secs`.
#[test]
fn a_complete_request_waiting_for_the_worker_is_answered() {
    let s = TestServer::start(&["--workers", "1", "--request-timeout-secs", "1"]);
    let mut slow = TcpStream::connect(&s.addr).unwrap();
    // Over 1 KiB: tiny_http leaves it to the worker, which waits on it.
    slow.write_all(
        b"POST /api/v1/compress HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{",
    )
    .unwrap();
    let trickle = std::thread::spawn(move || {
        for _ in 0..8 {
            std::thread::sleep(Duration::from_millis(400));
            if slow.write_all(b" ").is_err() {
                break;
            }
        }
        slow
    });
    std::thread::sleep(Duration::from_millis(300));
    let mut waiting = TcpStream::connect(&s.addr).unwrap();
    waiting
        .write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    waiting
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = Vec::new();
    let read = waiting.read_to_end(&mut answer);
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "{read:?}: {}",
        String::from_utf8_lossy(&answer)
    );
    drop(trickle.join());
}

/// Past the descriptor limit the port stays open: a burst of connections three times
/// what the process may open, held a second and closed; health answers within a
/// second of the close, and the log says what happened once, not once per connection.
#[test]
fn a_burst_past_the_descriptor_limit_never_closes_the_port() {
    let s = TestServer::start_with_open_files_limit(Folders::new(), &[], 1024);
    let mut burst = Vec::new();
    for _ in 0..3000 {
        if let Ok(c) =
            TcpStream::connect_timeout(&s.addr.parse().unwrap(), Duration::from_millis(200))
        {
            burst.push(c);
        }
    }
    std::thread::sleep(Duration::from_secs(1));
    drop(burst);
    let closed = Instant::now();
    let answered = loop {
        if let Some(t) = health(&s.addr) {
            break t;
        }
        assert!(
            closed.elapsed() < Duration::from_secs(3),
            "the port stays closed"
        );
    };
    assert!(closed.elapsed() < Duration::from_secs(2), "{answered:?}");
    let log = s.output();
    let said = log.matches("accepting connections failed").count()
        + log.matches("Refusing new clients").count();
    assert!(
        (1..=4).contains(&said),
        "said {said} times:\n{}",
        &log[log.len().saturating_sub(3000)..]
    );
}
