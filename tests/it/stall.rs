//! Clients that stall: request bodies that never arrive, headers that never end, and
//! a console that holds its downloads and floods more. None of them may hold the
//! workers or the download threads others need (issue "Security, second audit", items
//! 1 and 2).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::harness::{basic, Folders, TestServer};

fn api_key(folders: &Folders) -> String {
    let (_, out, _) = folders.cli(&["apikey", "create", "probe"]);
    out.split_whitespace()
        .find(|w| w.starts_with("ldq_"))
        .unwrap()
        .to_string()
}

/// Send `head` and a first byte of a body of `length`, then nothing more.
fn stalled_body(addr: &str, head: &str, length: usize) -> TcpStream {
    let mut socket = TcpStream::connect(addr).unwrap();
    // Not a loopback host: the loopback rule would let the test's own requests in.
    let text = format!("{head}Host: ludotheque.example\r\nContent-Length: {length}\r\n\r\nx");
    socket.write_all(text.as_bytes()).unwrap();
    socket
}

/// What comes back on a socket within `wait`, and whether it was closed by then.
fn read_for(socket: &mut TcpStream, wait: Duration) -> (String, bool) {
    socket.set_read_timeout(Some(wait)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let until = Instant::now() + wait;
    loop {
        match socket.read(&mut buf) {
            Ok(0) => return (String::from_utf8_lossy(&got).into_owned(), true),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return (String::from_utf8_lossy(&got).into_owned(), true)
            }
            Err(_) => return (String::from_utf8_lossy(&got).into_owned(), false),
        }
        if Instant::now() > until {
            return (String::from_utf8_lossy(&got).into_owned(), false);
        }
    }
}

/// Threads that keep `n` sockets stalled on `head` until `stop`, reconnecting
/// whenever the service cuts one.
fn keep_stalling(
    addr: &str,
    head: &'static str,
    n: usize,
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<usize>> {
    (0..n)
        .map(|_| {
            let (addr, stop) = (addr.to_string(), stop.clone());
            std::thread::spawn(move || {
                let mut connections = 0;
                while !stop.load(Ordering::SeqCst) {
                    let Ok(mut socket) = TcpStream::connect(&addr) else {
                        continue;
                    };
                    connections += 1;
                    let text = format!(
                        "{head}Host: ludotheque.example\r\nContent-Length: 100000\r\n\r\nx"
                    );
                    let _ = socket.write_all(text.as_bytes());
                    // Read until the service closes it (or the test ends).
                    socket
                        .set_read_timeout(Some(Duration::from_millis(200)))
                        .unwrap();
                    let mut buf = [0u8; 1024];
                    while !stop.load(Ordering::SeqCst) {
                        match socket.read(&mut buf) {
                            Ok(0) => break,
                            Ok(_) => {}
                            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                            Err(_) => break,
                        }
                    }
                }
                connections
            })
        })
        .collect()
}

#[test]
fn stalled_bodies_and_headers_never_hold_the_workers() {
    let folders = Folders::new();
    let key = api_key(&folders);
    let s = TestServer::start_on(folders, &["--workers", "4"]);
    let stop = Arc::new(AtomicBool::new(false));
    let mut stallers = Vec::new();
    // Eight stalled bodies, none with credentials: a route that takes no POST, a
    // page, an unknown path, and a keyed route without its key.
    stallers.extend(keep_stalling(
        &s.addr,
        "POST /api/v1/health HTTP/1.1\r\n",
        3,
        &stop,
    ));
    stallers.extend(keep_stalling(
        &s.addr,
        "GET /library HTTP/1.1\r\n",
        2,
        &stop,
    ));
    stallers.extend(keep_stalling(
        &s.addr,
        "POST /nowhere HTTP/1.1\r\n",
        1,
        &stop,
    ));
    stallers.extend(keep_stalling(
        &s.addr,
        "POST /api/v1/scan HTTP/1.1\r\n",
        2,
        &stop,
    ));
    // Fifty connections that never finish their headers.
    let headers: Vec<TcpStream> = (0..50)
        .map(|_| {
            let mut socket = TcpStream::connect(&s.addr).unwrap();
            socket
                .write_all(b"GET /api/v1/stats HTTP/1.1\r\nHost: loc")
                .unwrap();
            socket
        })
        .collect();
    // Time must pass: the half-sent heads reach the workers before the timing starts.
    std::thread::sleep(Duration::from_millis(300));
    // Past the 10 s request timeout, so that a worker held until it fires shows.
    let until = Instant::now() + Duration::from_secs(12);
    let mut slowest = Duration::ZERO;
    let mut asked = 0;
    while Instant::now() < until {
        let started = Instant::now();
        assert_eq!(s.get("/api/v1/health").status, 200);
        let keyed = s.send("GET", "/api/v1/library", &[("X-Api-Key", &key)], None);
        assert_eq!(keyed.status, 200, "{keyed:?}");
        slowest = slowest.max(started.elapsed());
        asked += 1;
        // A person's pace, not a flood: the point is each answer's delay.
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::SeqCst);
    let connections: usize = stallers.into_iter().map(|t| t.join().unwrap()).sum();
    drop(headers);
    assert!(asked > 20, "{asked}");
    assert!(
        connections > 8,
        "the stalled bodies were never answered: {connections} connections"
    );
    // Not a speed target: a worker held by a body answers in seconds, not this.
    assert!(slowest < Duration::from_secs(1), "{slowest:?}");
}

#[test]
fn a_refused_request_is_answered_without_its_body_and_its_connection_closed() {
    let folders = Folders::new();
    let key = api_key(&folders);
    let s = TestServer::start_on(folders, &[]);
    let cases = [
        // A method the route does not take (401 first: strangers learn no routes).
        ("POST /api/v1/health HTTP/1.1\r\n", "401"),
        ("GET /library HTTP/1.1\r\n", "303"),
        ("POST /nowhere HTTP/1.1\r\n", "401"),
        ("POST /api/v1/scan HTTP/1.1\r\n", "401"),
        (
            "POST /api/v1/scan HTTP/1.1\r\nX-Api-Key: ldq_0000000000000000000000000000000000000000\r\n",
            "401",
        ),
        // A public route takes only a small body.
        ("POST /api/login HTTP/1.1\r\n", "413"),
    ];
    for (head, status) in cases {
        let started = Instant::now();
        let mut socket = stalled_body(&s.addr, head, 100_000);
        let (text, closed) = read_for(&mut socket, Duration::from_secs(3));
        assert!(
            text.starts_with(&format!("HTTP/1.1 {status}")),
            "{head}: {text}"
        );
        assert!(closed, "{head}: the connection stayed open");
        assert!(started.elapsed() < Duration::from_secs(2), "{head}");
    }
    // A keyed request that takes no body is answered and its connection closed too.
    let mut socket = stalled_body(
        &s.addr,
        &format!("GET /api/v1/stats HTTP/1.1\r\nX-Api-Key: {key}\r\n"),
        100_000,
    );
    let (text, closed) = read_for(&mut socket, Duration::from_secs(3));
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(closed);
    // A small refused body still on its way is not waited for either.
    let started = Instant::now();
    let mut socket = stalled_body(&s.addr, "POST /api/v1/scan HTTP/1.1\r\n", 5_000);
    let (text, closed) = read_for(&mut socket, Duration::from_secs(3));
    assert!(text.starts_with("HTTP/1.1 401") && closed, "{text}");
    assert!(started.elapsed() < Duration::from_secs(2));
    // A refused body that has already arrived whole (an empty chunked body, as ureq
    // sends with every POST) is passed over and the connection kept.
    let mut socket = TcpStream::connect(&s.addr).unwrap();
    socket
        .write_all(
            b"POST /api/v1/scan HTTP/1.1\r\nHost: ludotheque.example\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        )
        .unwrap();
    let (text, _) = read_for(&mut socket, Duration::from_secs(3));
    assert!(text.starts_with("HTTP/1.1 401"), "{text}");
    assert!(
        text.contains("HTTP/1.1 200"),
        "the next request was lost: {text}"
    );
    // A small body on the same connection as the next request keeps it open.
    let mut socket = TcpStream::connect(&s.addr).unwrap();
    socket
        .write_all(
            b"POST /api/v1/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n\r\nabcGET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        )
        .unwrap();
    let (text, _) = read_for(&mut socket, Duration::from_secs(3));
    assert!(text.starts_with("HTTP/1.1 405"), "{text}");
    assert!(
        text.contains("HTTP/1.1 200"),
        "the next request was lost: {text}"
    );
}

#[test]
fn a_body_must_keep_arriving_and_one_that_does_is_read_whole() {
    let folders = Folders::new();
    let key = api_key(&folders);
    let s = TestServer::start_on(folders, &[]);
    // A keyed body that stalls after its first byte: 408 within the budget.
    let started = Instant::now();
    let mut socket = stalled_body(
        &s.addr,
        &format!("POST /api/v1/scan HTTP/1.1\r\nX-Api-Key: {key}\r\n"),
        50_000,
    );
    let (text, closed) = read_for(&mut socket, Duration::from_secs(8));
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("request_timeout"), "{text}");
    assert!(closed);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // A trickle that keeps coming is cut at the whole body's budget.
    let started = Instant::now();
    let mut socket = stalled_body(
        &s.addr,
        &format!("POST /api/v1/scan HTTP/1.1\r\nX-Api-Key: {key}\r\n"),
        50_000,
    );
    socket
        .set_read_timeout(Some(Duration::from_millis(400)))
        .unwrap();
    let mut text = String::new();
    for _ in 0..40 {
        if socket.write_all(b"y").is_err() {
            break;
        }
        let mut buf = [0u8; 1024];
        if let Ok(n) = socket.read(&mut buf) {
            text.push_str(&String::from_utf8_lossy(&buf[..n]));
            break;
        }
    }
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    let took = started.elapsed();
    assert!((4..9).contains(&took.as_secs()), "{took:?}");
    // A large body that arrives in pieces is read and the request runs (the
    // contract's POST routes accept and ignore a body).
    let mut socket = TcpStream::connect(&s.addr).unwrap();
    let body = vec![b'{'; 40_000];
    let head = format!(
        "POST /api/v1/scan HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: {key}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).unwrap();
    for piece in body.chunks(10_000) {
        // Time must pass: a body that arrives slowly, piece by piece, is the case.
        std::thread::sleep(Duration::from_millis(150));
        socket.write_all(piece).unwrap();
    }
    let (text, _) = read_for(&mut socket, Duration::from_secs(5));
    assert!(text.starts_with("HTTP/1.1 202"), "{text}");
}

/// A demo library with one game grown to 512 MiB, so that a download stays in flight
/// while its client reads nothing; two consoles. Returns (folders, the big file's
/// download path, the two consoles' Authorization headers).
fn big_shop() -> (Arc<Folders>, String, String, String) {
    let folders = Folders::new();
    assert!(folders
        .cli(&["demo-library", folders.library.to_str().unwrap()])
        .0
        .success());
    let key = crate::harness::files_under(&folders.library)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "nsp"))
        .unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&key)
        .unwrap()
        .set_len(512 * 1024 * 1024)
        .unwrap();
    folders.scan();
    let mut auths: Vec<String> = ["salon", "chambre"]
        .iter()
        .map(|name| basic(name, &folders.add_console(name)))
        .collect();
    let s = TestServer::start_on(folders.clone(), &[]);
    let index = s
        .send("GET", "/shop", &[("Authorization", &auths[0])], None)
        .json();
    let big = index["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["size"] == 512 * 1024 * 1024)
        .unwrap()["url"]
        .as_str()
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .to_string();
    (folders, big, auths.remove(0), auths.remove(0))
}

/// Start a download of `path` and read nothing of it.
fn held_download(addr: &str, path: &str, auth: &str) -> TcpStream {
    let mut socket = TcpStream::connect(addr).unwrap();
    let head = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: {auth}\r\n\r\n");
    socket.write_all(head.as_bytes()).unwrap();
    socket
}

#[test]
fn a_console_flooding_downloads_never_takes_another_consoles_share() {
    let (folders, big, flooder, other) = big_shop();
    let s = Arc::new(TestServer::start_on(folders, &[]));
    // Forty strangers stall bodies on the shop's download paths.
    let stop = Arc::new(AtomicBool::new(false));
    let strangers = keep_stalling(
        &s.addr,
        "GET /shop/files/base/x.nsp HTTP/1.1\r\n",
        40,
        &stop,
    );
    // The flooder holds its four downloads unread…
    let held: Vec<TcpStream> = (0..4)
        .map(|_| held_download(&s.addr, &big, &flooder))
        .collect();
    // Time must pass: the four held downloads take their threads first.
    std::thread::sleep(Duration::from_millis(300));
    // …and floods thirty more range reads.
    let refused = Arc::new(AtomicUsize::new(0));
    let flood: Vec<_> = (0..30)
        .map(|_| {
            let (s, big, flooder, refused) =
                (s.clone(), big.clone(), flooder.clone(), refused.clone());
            std::thread::spawn(move || {
                let headers = [("Authorization", flooder.as_str()), ("Range", "bytes=0-9")];
                let r = s.send("GET", &big, &headers, None);
                if r.status == 503 {
                    assert_eq!(r.header("retry-after"), Some("1"));
                    refused.fetch_add(1, Ordering::SeqCst);
                }
                r.status
            })
        })
        .collect();
    // Time must pass: the flood fills its queue before the other console reads.
    std::thread::sleep(Duration::from_millis(300));
    let mut answered = 0;
    let reads = 40;
    for i in 0..reads {
        let range = format!("bytes={}-{}", i * 100, i * 100 + 99);
        let r = s.send(
            "GET",
            &big,
            &[("Authorization", &other), ("Range", &range)],
            None,
        );
        if r.status == 206 && r.header("content-length") == Some("100") {
            answered += 1;
        }
        assert_eq!(s.get("/api/v1/health").status, 200);
    }
    assert!(
        answered * 10 >= reads * 9,
        "the other console got {answered} of {reads} range reads"
    );
    // Past its queue the flooder is refused, never more than its share served.
    assert!(
        refused.load(Ordering::SeqCst) > 0,
        "the flood was never refused"
    );
    drop(held);
    let statuses: Vec<u16> = flood.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(
        statuses.iter().all(|s| [206, 503].contains(s)),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&206),
        "the queued reads were never served"
    );
    stop.store(true, Ordering::SeqCst);
    for t in strangers {
        t.join().unwrap();
    }
}

#[test]
fn a_range_read_past_the_share_is_queued_not_refused() {
    // Sphaira reads one range after another and takes any answer as the file's
    // bytes: at its limit a console waits its turn instead of getting a 503.
    let (folders, big, salon, _) = big_shop();
    let s = Arc::new(TestServer::start_on(folders, &["--shop-downloads", "1"]));
    let held = held_download(&s.addr, &big, &salon);
    // Time must pass: the held download takes the one download thread first.
    std::thread::sleep(Duration::from_millis(300));
    let queued = {
        let (s, big, salon) = (s.clone(), big.clone(), salon.clone());
        std::thread::spawn(move || {
            let r = s.send(
                "GET",
                &big,
                &[("Authorization", &salon), ("Range", "bytes=0-9")],
                None,
            );
            (r.status, r.header("content-length").map(str::to_string))
        })
    };
    // Longer than a console past its share once waited before a 503.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !queued.is_finished(),
        "the read past the share was answered"
    );
    drop(held);
    assert_eq!(queued.join().unwrap(), (206, Some("10".into())));
}

#[test]
fn a_small_sign_in_sent_chunked_or_after_100_continue_is_read() {
    let folders = Folders::new();
    crate::web::add_user(&folders, "admin", "admin password", true);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let body = r#"{"name":"admin","password":"admin password"}"#;
    // Chunked, as a client that does not know the length sends it.
    let mut socket = TcpStream::connect(&s.addr).unwrap();
    let chunked = format!(
        "POST /api/login HTTP/1.1\r\nHost: ludotheque.example\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    );
    socket.write_all(chunked.as_bytes()).unwrap();
    let (text, _) = read_for(&mut socket, Duration::from_secs(3));
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    // After `100 Continue`, as curl sends a body it was told to wait with.
    let mut socket = TcpStream::connect(&s.addr).unwrap();
    let head = format!(
        "POST /api/login HTTP/1.1\r\nHost: ludotheque.example\r\nContent-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).unwrap();
    let mut buf = [0u8; 256];
    socket
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let n = socket.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 100"));
    socket.write_all(body.as_bytes()).unwrap();
    let (text, _) = read_for(&mut socket, Duration::from_secs(3));
    assert!(text.contains("HTTP/1.1 200"), "{text}");
    // A stranger's body that does not arrive at once costs a moment, then a 408.
    let started = Instant::now();
    let mut socket = TcpStream::connect(&s.addr).unwrap();
    socket
        .write_all(b"POST /api/login HTTP/1.1\r\nHost: ludotheque.example\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"na")
        .unwrap();
    let (text, closed) = read_for(&mut socket, Duration::from_secs(3));
    assert!(text.starts_with("HTTP/1.1 408") && closed, "{text}");
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[test]
fn past_its_queue_a_console_gets_503_at_once_and_others_are_not_held() {
    let (folders, big, salon, chambre) = big_shop();
    let s = Arc::new(TestServer::start_on(folders, &["--shop-downloads", "1"]));
    let held = held_download(&s.addr, &big, &salon);
    // Time must pass: the held download takes the one download thread first.
    std::thread::sleep(Duration::from_millis(300));
    // Four more wait in the console's queue (four per download of its share)…
    let waiting: Vec<_> = (0..4)
        .map(|_| {
            let (s, big, salon) = (s.clone(), big.clone(), salon.clone());
            std::thread::spawn(move || {
                let headers = [("Authorization", salon.as_str()), ("Range", "bytes=0-9")];
                s.send("GET", &big, &headers, None).status
            })
        })
        .collect();
    // Time must pass: the four reach the console's queue before the next asks.
    std::thread::sleep(Duration::from_millis(500));
    // …and the next is refused at once.
    let started = Instant::now();
    let headers = [("Authorization", salon.as_str()), ("Range", "bytes=0-9")];
    let refused = s.send("GET", &big, &headers, None);
    assert_eq!((refused.status, refused.slug()), (503, "overloaded".into()));
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert!(started.elapsed() < Duration::from_secs(1));
    // Another console is not held by this one's share, and the API answers meanwhile.
    let headers = [("Authorization", chambre.as_str()), ("Range", "bytes=0-9")];
    assert_eq!(s.send("GET", &big, &headers, None).status, 206);
    assert_eq!(s.get("/api/v1/health").status, 200);
    assert!(
        waiting.iter().all(|t| !t.is_finished()),
        "a read past the share ran"
    );
    // Once the first download ends, the waiting reads are served in turn.
    drop(held);
    for t in waiting {
        assert_eq!(t.join().unwrap(), 206);
    }
}
