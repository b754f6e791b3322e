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
/// worker. Now a request whose client has not taken our last answer waits without a
/// worker, so twenty such sockets (from another address than the probes') hold none
/// for long: health answers throughout.
#[test]
fn sockets_that_pipeline_and_never_read_hold_no_worker() {
    let s = TestServer::start(&["--workers", "4"]);
    let one = b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(400);
    // From another address of this machine than the probes': 127.0.0.2.
    let hostile: Vec<TcpStream> = (0..20)
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
    eprintln!(
        "health answered {:?} after the close, in {answered:?}",
        closed.elapsed()
    );
    assert!(closed.elapsed() < Duration::from_secs(1), "{answered:?}");
    let log = s.output();
    let said = log.matches("accepting connections failed").count()
        + log.matches("Refusing new clients").count();
    assert!(
        (1..=4).contains(&said),
        "said {said} times:\n{}",
        &log[log.len().saturating_sub(3000)..]
    );
}

/// A download of `path` on a raw connection with a small receive buffer, so that
/// what the client does not read stalls the service's writes at once.
fn download(addr: &str, path: &str, auth: &str) -> TcpStream {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    sock.set_recv_buffer_size(8 * 1024).unwrap();
    let to: std::net::SocketAddr = addr.parse().unwrap();
    sock.connect(&to.into()).unwrap();
    let mut c: TcpStream = sock.into();
    let head = format!("GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\n\r\n");
    c.write_all(head.as_bytes()).unwrap();
    c
}

/// Read at about `per_second` bytes a second until `want` bytes came or the
/// connection ends; the bytes read.
fn read_at_pace(mut c: TcpStream, per_second: usize, want: usize) -> usize {
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let (mut total, mut buf) = (0, vec![0u8; per_second / 20]);
    let started = Instant::now();
    loop {
        match c.read(&mut buf) {
            Ok(0) | Err(_) => return total,
            Ok(n) => total += n,
        }
        if total >= want {
            return total;
        }
        // Time must pass: this is the reader's pace.
        let due = Duration::from_secs_f64(total as f64 / per_second as f64);
        if let Some(wait) = due.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
    }
}

/// A console that stops reading mid-download is closed after `--write-timeout-secs`
/// without a byte taken, and its download thread serves the next console; one that
/// reads slowly (200 KiB/s) is never cut.
#[test]
fn a_download_nobody_reads_ends_at_the_write_deadline_and_a_slow_one_never_does() {
    let folders = Folders::new();
    let big = ludotheque::testkit::synth::pfs0(&[("a.tik".into(), vec![7; 24 << 20])]);
    std::fs::write(folders.library.join("big[0100000000010000].nsp"), &big).unwrap();
    let small = ludotheque::testkit::synth::pfs0(&[("a.tik".into(), vec![9; 1 << 20])]);
    std::fs::write(folders.library.join("small[0100000000020000].nsp"), &small).unwrap();
    folders.scan();
    let password = folders.add_console("salon");
    let auth = crate::harness::basic("salon", &password);
    let args = ["--write-timeout-secs", "1", "--shop-downloads-total", "1"];
    let s = TestServer::start_on(folders.clone(), &args);
    let stalled = download(&s.addr, "/shop/files/big%5B0100000000010000%5D.nsp", &auth);
    // Time must pass: the stalled download fills the buffers and its deadline runs.
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let slow = download(
        &s.addr,
        "/shop/files/small%5B0100000000020000%5D.nsp",
        &auth,
    );
    // Only once the stalled download's thread is free can this one start at all.
    let read = read_at_pace(slow, 200 * 1024, small.len() + 100);
    assert!(read > small.len(), "cut after {read} bytes");
    eprintln!("the slow download took {:?}", started.elapsed());
    drop(stalled);
}

/// Clients that read their answer a few bytes at a time (a tiny receive window, a
/// read now and then: each write moves, so no write deadline ends it) once kept the
/// workers writing to them. A large answer is written by the answer writers, and one
/// client network holds half of those at most: health from elsewhere answers.
#[test]
fn clients_that_read_a_few_bytes_at_a_time_hold_no_worker() {
    let s = TestServer::start(&["--workers", "4"]);
    let slow: Vec<_> = (0..8)
        .map(|_| {
            let sock =
                socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
            sock.set_recv_buffer_size(1).unwrap();
            // Small segments: the answer takes more of the service's send buffer than
            // its bytes, so it cannot all wait there.
            let mss: libc::c_int = 100;
            // SAFETY: TCP_MAXSEG reads one int from the pointer given.
            unsafe {
                let fd = std::os::fd::AsRawFd::as_raw_fd(&sock);
                let size = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
                libc::setsockopt(
                    fd,
                    libc::IPPROTO_TCP,
                    libc::TCP_MAXSEG,
                    (&mss as *const libc::c_int).cast(),
                    size,
                );
            }
            let local: std::net::SocketAddr = "127.0.0.2:0".parse().unwrap();
            sock.bind(&local.into()).unwrap();
            let to: std::net::SocketAddr = s.addr.parse().unwrap();
            sock.connect(&to.into()).unwrap();
            let mut c: TcpStream = sock.into();
            c.write_all(b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
            c
        })
        .collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = slow
        .into_iter()
        .map(|mut c| {
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut buf = [0u8; 64];
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    // Time must pass: this client's pace is a read now and then.
                    std::thread::sleep(Duration::from_millis(700));
                    if c.read(&mut buf).is_err() {
                        break;
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let times = probe_health(&s.addr, 20);
    eprintln!(
        "health beside 8 slow readers: median {:?}, slowest {:?}",
        times[10], times[19]
    );
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for r in readers {
        let _ = r.join();
    }
}
