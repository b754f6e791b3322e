//! Reliability: the connection warden's bounds, hostile bytes on the wire, and
//! faults of the disk and the library folder. The load and connection-abuse runs
//! that print figures are in `tests/stress`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::harness::{Folders, TestServer};
use crate::library::demo;
use ludotheque::testkit::Msg;

fn connect(s: &TestServer) -> TcpStream {
    let c = TcpStream::connect(&s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c
}

/// Wait until the server closes `c` (end of file or a reset); how long it took.
fn closed_within(mut c: &TcpStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    c.set_read_timeout(Some(limit)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        let closed = match c.read(&mut buf) {
            Ok(0) => true,
            Ok(_) => false, // an answer (a 408, say) before the close
            Err(e) => !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        };
        if closed {
            return Some(start.elapsed());
        }
        if start.elapsed() >= limit {
            return None;
        }
    }
}

/// Send raw bytes; the status of the answer, or None when the connection was closed
/// without one.
fn raw_status(s: &TestServer, bytes: &[u8]) -> Option<u16> {
    let mut c = connect(s);
    // A write may fail part way when the server closes first: that is an answer too.
    let _ = c.write_all(bytes);
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(2).any(|w| w == b"\r\n") {
        match c.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    // The rest of the answer, whatever arrives soon, is checked for server paths too.
    c.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    while let Ok(n) = c.read(&mut buf) {
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&head);
    crate::harness::assert_no_server_path(s, &text);
    text.split(' ').nth(1).and_then(|code| code.parse().ok())
}

fn assert_still_serving(s: &TestServer) {
    assert_eq!(s.get("/api/v1/health").status, 200, "{}", s.output());
}

#[test]
fn an_idle_connection_is_closed_after_the_idle_timeout() {
    let s = TestServer::start(&["--idle-timeout-secs", "1"]);
    let opened = Instant::now();
    let never_spoke = connect(&s);
    let mut answered = connect(&s);
    answered
        .write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 512];
    assert!(answered.read(&mut buf).unwrap() > 0);
    for c in [&never_spoke, &answered] {
        closed_within(c, Duration::from_secs(8)).expect("closed");
        let took = opened.elapsed();
        assert!(took >= Duration::from_secs(1), "{took:?}");
    }
    s.wait_for_log("closed: idle for 1 s");
    assert_still_serving(&s);
}

#[test]
fn a_request_dripped_a_byte_at_a_time_is_cut_and_others_are_served_meanwhile() {
    let s = TestServer::start(&["--request-timeout-secs", "2", "--idle-timeout-secs", "60"]);
    let mut drip = connect(&s);
    drip.write_all(b"GET /api/v1/health HTTP/1.1\r\n").unwrap();
    let started = Instant::now();
    let mut cut = None;
    for i in 0.. {
        // Each byte keeps the connection busy, so only the request deadline can end it.
        if drip.write_all(b"X").is_err() {
            cut = Some(started.elapsed());
            break;
        }
        assert_still_serving(&s);
        if i > 40 {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let cut =
        cut.or_else(|| closed_within(&drip, Duration::from_secs(1)).map(|_| started.elapsed()));
    let cut = cut.expect("the dripping connection is closed");
    assert!(
        cut >= Duration::from_secs(2) && cut < Duration::from_secs(8),
        "{cut:?}"
    );
    s.wait_for_log("closed: request not complete after 2 s");
}

#[test]
fn past_the_connection_cap_the_longest_idle_go_first_and_a_newcomer_is_served() {
    let s = TestServer::start(&["--max-connections", "10"]);
    let idle: Vec<TcpStream> = (0..20).map(|_| connect(&s)).collect();
    // Time must pass: the twenty connections sit idle, so that age orders them.
    std::thread::sleep(Duration::from_millis(800));
    // A newcomer (ureq opens its own connection) gets its answer.
    assert_still_serving(&s);
    // Time must pass: the closes over the cap reach the idle sockets (read below with
    // a short timeout each).
    std::thread::sleep(Duration::from_millis(800));
    let closed = idle
        .iter()
        .filter(|c| closed_within(c, Duration::from_millis(200)).is_some())
        .count();
    assert!(closed >= 10, "{closed} of 20 closed");
    s.wait_for_log("closed: over the limit of 10 connections");
    assert_still_serving(&s);
}

#[test]
fn input_past_what_a_request_may_hold_is_cut() {
    // The body cap plus 64 KiB of headers, without an answer: cut at the next check.
    let s = TestServer::start(&["--max-body", "1024"]);
    let mut c = connect(&s);
    c.write_all(b"GET /api/v1/health HTTP/1.1\r\nX-Long: ")
        .unwrap();
    let chunk = vec![b'a'; 16 * 1024];
    let mut sent = 0;
    while sent < 64 * 1024 * 1024 {
        if c.write_all(&chunk).is_err() {
            break;
        }
        sent += chunk.len();
    }
    assert!(
        sent < 64 * 1024 * 1024,
        "64 MiB of one header line were taken"
    );
    s.wait_for_log("bytes sent without a complete request");
    assert_still_serving(&s);
}

#[test]
fn hostile_bytes_on_the_wire_get_a_4xx_or_a_close_never_a_crash() {
    let s = TestServer::start(&["--max-body", "1024"]);
    let long_line = format!(
        "GET /api/v1/{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    let big_header = format!(
        "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(1024 * 1024)
    );
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a request line of 64 KiB", long_line.into_bytes()),
        ("a header of 1 MiB", big_header.into_bytes()),
        (
            "a path that is not UTF-8",
            b"GET /api/v1/library/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        ),
        (
            "a percent-encoded path that is not UTF-8",
            b"GET /api/v1/library/%ff%fe%C0%AF HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        ),
        (
            "a query that is not UTF-8",
            b"GET /api/v1/search?q=\xc3\x28&page=%ff HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        ),
        (
            "a header value that is not UTF-8",
            b"GET /api/v1/stats HTTP/1.1\r\nHost: x\r\nX-Api-Key: \xff\xfe\r\n\r\n".to_vec(),
        ),
        (
            "a body over the cap",
            [
                &b"POST /api/v1/scan HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n\r\n"[..],
                &[b'z'; 4096],
            ]
            .concat(),
        ),
        (
            "a request line that is not HTTP",
            b"\x00\x01\x02 garbage\r\n\r\n".to_vec(),
        ),
        (
            "HTTP/2's preface",
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec(),
        ),
    ];
    for (what, bytes) in cases {
        let status = raw_status(&s, &bytes);
        if let Some(code) = status {
            assert!((400..500).contains(&code), "{what}: {code}");
        }
        assert_still_serving(&s);
    }
    // No worker is stuck: as many requests at once as there are workers, all answered.
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let (agent, base) = (s.agent.clone(), s.base.clone());
            std::thread::spawn(move || {
                agent
                    .get(&format!("{base}/api/v1/health"))
                    .call()
                    .map(|r| r.status().as_u16())
                    .unwrap_or(0)
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 200);
    }
}

#[test]
fn a_library_folder_that_disappears_and_comes_back() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders, &[]);
    s.wait_idle();
    let before = s.get("/api/v1/library").json()["total"].as_u64().unwrap();
    assert!(before > 0);
    let away = s.folders.tmp.path().join("unplugged");
    std::fs::rename(&s.folders.library, &away).unwrap();

    // A scan of a missing library fails clearly and forgets nothing.
    assert_eq!(s.post("/api/v1/scan").status, 202);
    let job = s.wait_idle();
    let last = &job["last"];
    assert_eq!(last["result"], "failed", "{job}");
    assert_eq!(last["message"], Msg::LibraryUnavailable.english(), "{job}");
    assert_eq!(
        s.get("/api/v1/library").json()["total"].as_u64(),
        Some(before)
    );
    crate::harness::assert_no_server_path(&s, &job.to_string());

    // An empty folder in its place (a mount point with no disk): the same.
    std::fs::create_dir(&s.folders.library).unwrap();
    assert_eq!(s.post("/api/v1/scan").status, 202);
    assert_eq!(s.wait_idle()["last"]["result"], "failed");
    assert_eq!(
        s.get("/api/v1/library").json()["total"].as_u64(),
        Some(before)
    );
    std::fs::remove_dir(&s.folders.library).unwrap();

    std::fs::rename(&away, &s.folders.library).unwrap();
    assert_eq!(s.post("/api/v1/scan").status, 202);
    let job = s.wait_idle();
    assert_eq!(job["last"]["result"], "ok", "{job}");
    assert_eq!(
        s.get("/api/v1/library").json()["total"].as_u64(),
        Some(before)
    );
}

#[test]
fn games_under_a_part_that_cannot_be_read_are_kept_until_it_can() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders, &[]);
    s.wait_idle();
    let before = s.get("/api/v1/library").json()["total"].as_u64().unwrap();
    // A folder whose path is too long to open (even root cannot read it: the test
    // may run as root, who ignores permissions), and a game gone meanwhile.
    let deep = s.folders.library.join("deep");
    std::fs::create_dir(&deep).unwrap();
    let made = std::process::Command::new("bash")
        .arg("-c")
        .arg("for i in $(seq 20); do d=$(printf 'a%.0s' $(seq 250)); mkdir $d && cd $d || exit 1; done")
        .current_dir(&deep)
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::remove_file(
        s.folders
            .library
            .join("Indies/Styx [0100535012974000][v0].nsp"),
    )
    .unwrap();
    assert_eq!(s.post("/api/v1/scan").status, 202);
    let last = s.wait_idle()["last"].clone();
    let incomplete = s.folders.last_run_msg();
    assert!(
        matches!(incomplete, Some(Msg::ScanIncomplete { kept: 1, .. })),
        "{incomplete:?}"
    );
    assert_eq!(last["message"], incomplete.unwrap().english(), "{last}");
    assert_eq!(
        s.get("/api/v1/library").json()["total"].as_u64(),
        Some(before)
    );

    assert!(std::process::Command::new("rm")
        .arg("-rf")
        .arg(&deep)
        .status()
        .unwrap()
        .success());
    assert_eq!(s.post("/api/v1/scan").status, 202);
    s.wait_idle();
    assert_eq!(
        s.get("/api/v1/library").json()["total"].as_u64(),
        Some(before - 1)
    );
}

#[test]
fn random_hostile_keys_over_http_never_reach_outside_the_library() {
    use rand::{rngs::StdRng, Rng, SeedableRng};
    const PIECES: [&str; 22] = [
        "..",
        ".",
        "/",
        "%2F",
        "%2e%2e",
        "%00",
        "%5C",
        "%C0%AF",
        "%E0%80%AF",
        "%FF",
        "outside.nsp",
        "Indies",
        "%20",
        "%",
        "%2",
        "~",
        "%252F",
        "etc",
        "passwd",
        "%C3%A9",
        "?",
        "#",
    ];
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders, &[]);
    s.wait_idle();
    let outside = s.folders.tmp.path().join("outside.nsp");
    std::fs::write(&outside, b"keep me").unwrap();
    let before = crate::harness::files_under(&s.folders.library);
    let mut rng = StdRng::seed_from_u64(20261122);
    let mut statuses = std::collections::BTreeMap::new();
    for _ in 0..400 {
        let n = rng.random_range(1..8);
        let key: String = (0..n)
            .map(|_| PIECES[rng.random_range(0..PIECES.len())])
            .collect();
        for (method, path) in [
            ("GET", format!("/api/v1/library/{key}")),
            ("DELETE", format!("/api/library/{key}")),
        ] {
            let r = s.send(method, &path, &[], None);
            assert!(r.status < 500, "{method} {path}: {} {}", r.status, r.body);
            *statuses.entry(r.status).or_insert(0) += 1;
        }
    }
    assert_eq!(std::fs::read(&outside).unwrap(), b"keep me");
    assert_eq!(crate::harness::files_under(&s.folders.library), before);
    assert_eq!(s.get("/api/v1/trash").json()["total"], 0, "{statuses:?}");
}

#[test]
fn a_new_connection_is_never_left_without_a_thread() {
    // Two connections accepted back to back, the first held open: tiny_http's pool
    // can queue the second behind the first's thread (see warden::nudge). Without the
    // warden's nudge such a request waits until it is cut at the request timeout.
    let s = TestServer::start(&[]);
    let mut held = Vec::new();
    let mut slowest = Duration::ZERO;
    for _ in 0..60 {
        held.push(connect(&s));
        let mut c = connect(&s);
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let t = Instant::now();
        c.write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut buf = [0u8; 64];
        let n = c.read(&mut buf).expect("an answer within 5 s");
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
        slowest = slowest.max(t.elapsed());
    }
    println!("slowest answer: {slowest:?}");
}

#[test]
fn a_full_disk_under_the_database_refuses_changes_clearly_and_keeps_serving_reads() {
    let folders = Folders::new();
    demo(&folders);
    let mut s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let total = s.get("/api/v1/library").json()["total"].clone();
    s.signal(libc::SIGTERM);
    s.wait_exit(Duration::from_secs(10)).expect("stopped");
    // No file of the process may grow past 32 KiB: the database is larger already
    // (it can be read, not grown), and its write-ahead log fills after a few pages:
    // the start's own writes fit (28 KiB does not), a delete's do not. (40 KiB held a
    // delete too once the service stopped writing twice at start, before and after
    // restarting itself.)
    let mut s = TestServer::start_with_file_size_limit(folders.clone(), &[], 32 * 1024);
    let styx = "Indies%2FStyx%20%5B0100535012974000%5D%5Bv0%5D.nsp";
    let r = s.send("DELETE", &format!("/api/library/{styx}"), &[], None);
    assert_eq!(
        (r.status, r.slug()),
        (500, "internal_error".into()),
        "{}",
        r.body
    );
    s.wait_for_log("disk I/O error");
    // The file went back where it was: the move to the trash is undone when its
    // record cannot be written.
    let file = folders
        .library
        .join("Indies/Styx [0100535012974000][v0].nsp");
    assert!(file.exists());
    assert!(crate::harness::files_under(&folders.library.join(".ludotheque-trash")).is_empty());
    // Reads go on.
    let r = s.get("/api/v1/library");
    assert_eq!((r.status, r.json()["total"].clone()), (200, total.clone()));
    assert_eq!(s.get("/api/v1/search?q=styx").json()["total"], 2);
    assert_eq!(s.get(&format!("/api/v1/library/{styx}")).status, 200);
    s.signal(libc::SIGTERM);
    s.wait_exit(Duration::from_secs(10)).expect("stopped");

    // Space again: everything is where it was, and the delete works.
    let s = TestServer::start_on(folders, &[]);
    assert_eq!(s.get("/api/v1/library").json()["total"], total);
    let r = s.send("DELETE", &format!("/api/library/{styx}"), &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn sigkill_mid_scan_then_restart_gives_a_whole_and_searchable_library() {
    // Enough new files for the scan to suspend the search index (a bulk scan), so the
    // kill leaves it suspended and half the games written.
    let folders = Folders::new();
    let pfs0 = ludotheque::testkit::synth::pfs0(&[]);
    for i in 0..3000 {
        let dir = folders.library.join(format!("batch {}", i / 500));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!(
                "Game {i:04} [{:016X}][v0].nsp",
                0x0100_0000_0001_0000u64 + ((i as u64) << 13)
            )),
            &pfs0,
        )
        .unwrap();
    }
    let mut s = TestServer::start_on(folders.clone(), &[]);
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let job = s.get("/api/v1/job").json();
        let done = job["done"].as_u64().unwrap_or(0);
        if done >= 600 {
            break;
        }
        assert!(job["running"] == true && Instant::now() < until, "{job}");
        std::thread::sleep(Duration::from_millis(5));
    }
    s.kill();

    let s = TestServer::start_on(folders, &[]);
    s.wait_for_log("the indexes were left set aside by an interrupted scan");
    s.wait_for_log("the generation's triggers were left set aside by an interrupted scan");
    let job = s.wait_idle();
    assert_eq!(job["last"]["result"], "ok", "{job}");
    assert_eq!(s.get("/api/v1/library").json()["total"], 3000);
    let hit = s.get("/api/v1/search?q=game%202999").json();
    assert_eq!(hit["total"], 1, "{hit}");
    assert_eq!(s.get("/api/v1/search?q=game").json()["total"], 3000);
    assert_eq!(s.folders.run_results(), ["interrupted", "ok"]);
    let conn = rusqlite::Connection::open(s.folders.data.join("ludotheque.db")).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}
