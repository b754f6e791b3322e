//! Requests to other hosts (`src/outbound.rs`): a source that trickles its bytes is
//! cut by a cancel or a stop at once, redirects never leave their origin, icons never
//! reach a local address, and the webhook's address can stay out of the list of
//! processes. Each "other host" is a small server on 127.0.0.1 in the test.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::harness::wait_until;
use crate::harness::{Folders, TestServer};
use crate::titles::{source, unscanned_demo};

/// What the little server does with a request for a path.
#[derive(Clone)]
enum Answer {
    /// A status line, extra header lines, and a body.
    Full(&'static str, String, Vec<u8>),
    /// 200 with a long Content-Length, then one byte every two seconds.
    Trickle,
}

/// The paths it was asked for, in order.
type Asked = Arc<Mutex<Vec<String>>>;

/// A server on 127.0.0.1 answering each request as `answer` says for its path.
fn server(answer: impl Fn(&str) -> Answer + Send + Sync + 'static) -> (String, Asked) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let asked: Asked = Arc::default();
    let (seen, answer) = (Arc::clone(&asked), Arc::new(answer));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (seen, answer) = (Arc::clone(&seen), Arc::clone(&answer));
            std::thread::spawn(move || respond(stream, &seen, answer.as_ref()));
        }
    });
    (url, asked)
}

fn respond(mut stream: TcpStream, seen: &Mutex<Vec<String>>, answer: &dyn Fn(&str) -> Answer) {
    let mut buf = vec![0; 16384];
    let n = stream.read(&mut buf).unwrap_or(0);
    let head = String::from_utf8_lossy(&buf[..n]).to_string();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    seen.lock().unwrap().push(path.clone());
    match answer(&path) {
        Answer::Full(status, headers, body) => {
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
        Answer::Trickle => {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
            while stream.write_all(b"0").is_ok() {
                std::thread::sleep(Duration::from_secs(2));
            }
        }
    }
}

fn redirect(to: String) -> Answer {
    Answer::Full("302 Found", format!("Location: {to}\r\n"), Vec::new())
}

/// The job status once no task runs, within `limit`.
fn idle_within(s: &TestServer, limit: Duration) -> serde_json::Value {
    let until = Instant::now() + limit;
    loop {
        let job = s.get("/api/v1/job").json();
        if job["running"] == false {
            return job;
        }
        assert!(
            Instant::now() < until,
            "still running after {limit:?}: {job}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_cancel_ends_a_title_data_fetch_that_trickles_at_once() {
    let (url, asked) = server(|_| Answer::Trickle);
    let s = TestServer::start_on(Folders::new(), &["--titledb-url", &url]);
    s.wait_idle();
    assert_eq!(s.post("/api/titles/update").status, 202);
    wait_until("the fetch started", Duration::from_secs(10), || {
        !asked.lock().unwrap().is_empty()
    });
    // Time must pass: the cancel is to land inside the trickling download, not before
    // its first byte.
    std::thread::sleep(Duration::from_millis(500));
    let cancelled = Instant::now();
    assert_eq!(s.post("/api/job/cancel").json()["cancelled"], true);
    let job = idle_within(&s, Duration::from_secs(3));
    let took = cancelled.elapsed();
    assert_eq!(job["last"]["result"], "cancelled", "{job}");
    assert!(
        took < Duration::from_secs(2),
        "ended {took:?} after the cancel"
    );
    // The slot is free: a scan starts.
    assert_eq!(s.post("/api/v1/scan").status, 202);
}

#[test]
fn sigterm_ends_an_icon_fetch_that_trickles_within_two_seconds() {
    let (icons, asked) = server(|_| Answer::Trickle);
    let src = source();
    let region = serde_json::json!({
        "1": {"id": "0100000000010000", "name": "Moonlit Odyssey", "iconUrl": format!("{icons}/a.jpg")},
        "2": {"id": "01002B30028F6000", "name": "Summit", "iconUrl": format!("{icons}/b.jpg")},
    });
    src.files
        .lock()
        .unwrap()
        .push(("US.en.json".into(), region.to_string().into_bytes()));
    let folders = unscanned_demo();
    let mut s = TestServer::start_on(
        folders.clone(),
        &["--titledb-url", &src.url, "--test-loopback-icons"],
    );
    s.wait_idle();
    let on = br#"{"count_dlc": true, "icons": true}"#.to_vec();
    assert_eq!(
        s.send("POST", "/api/titles/settings", &[], Some(on)).status,
        200
    );
    assert_eq!(s.post("/api/titles/update").status, 202);
    wait_until("an icon fetch started", Duration::from_secs(20), || {
        !asked.lock().unwrap().is_empty()
    });
    // Time must pass: the stop is to land inside the trickling icon fetch.
    std::thread::sleep(Duration::from_millis(500));
    let stopped = Instant::now();
    s.signal(libc::SIGTERM);
    let status = s.wait_exit(Duration::from_secs(5));
    let took = stopped.elapsed();
    assert!(
        status.is_some_and(|st| st.success()),
        "{status:?} after {took:?}"
    );
    assert!(
        took < Duration::from_secs(2),
        "exited {took:?} after SIGTERM"
    );
    assert_eq!(folders.run_results().last().unwrap(), "interrupted");
    assert!(!folders.data.join("icons/0100000000010000").exists());
}

#[test]
fn redirects_never_leave_their_origin() {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n secret";
    let (elsewhere, reached) = server(|_| Answer::Full("200 OK", String::new(), PNG.to_vec()));
    let away = elsewhere.clone();
    let (url, _) = server(move |path| match path {
        "/icon.png" => redirect(format!("{away}/secret.png")),
        "/hook" => redirect(format!("{away}/hook")),
        _ => redirect(format!("{away}{path}")),
    });
    // Title data whose every file is "moved" to another host: nothing is fetched there.
    let folders = unscanned_demo();
    let (status, _, err) = folders.cli(&["titles", "update", "--titledb-url", &url]);
    assert!(!status.success());
    assert!(err.contains("redirigé vers un autre hôte"), "{err}");
    // An icon that redirects to a local image, and a webhook that redirects its POST.
    let src = source();
    let region = serde_json::json!({
        "1": {"id": "0100000000010000", "name": "Moonlit Odyssey", "iconUrl": format!("{url}/icon.png")},
    });
    src.files
        .lock()
        .unwrap()
        .push(("US.en.json".into(), region.to_string().into_bytes()));
    let hook = format!("{url}/hook");
    let s = TestServer::start_on(
        folders.clone(),
        &[
            "--titledb-url",
            &src.url,
            "--test-loopback-icons",
            "--webhook-url",
            &hook,
        ],
    );
    s.wait_idle();
    let on = br#"{"count_dlc": true, "icons": true}"#.to_vec();
    assert_eq!(
        s.send("POST", "/api/titles/settings", &[], Some(on)).status,
        200
    );
    assert_eq!(s.post("/api/titles/update").status, 202);
    let job = s.wait_idle();
    crate::harness::titles_updated_with_icons(&s, &job, (0, 1));
    s.wait_for_log("redirected to another host");
    s.wait_for_log("answered 302");
    assert!(!folders.data.join("icons/0100000000010000").exists());
    assert!(
        reached.lock().unwrap().is_empty(),
        "{:?}",
        reached.lock().unwrap()
    );
}

#[test]
fn a_redirect_within_the_source_is_followed() {
    let src = source();
    let base = src.url.clone();
    // The same host and port, another path: `/moved/x` is the source's `x`.
    let (url, asked) = server(move |path| match path.strip_prefix("/moved") {
        Some(rest) => {
            let mut body = Vec::new();
            let mut r = ureq::get(format!("{base}{rest}")).call().unwrap();
            r.body_mut().as_reader().read_to_end(&mut body).unwrap();
            Answer::Full("200 OK", String::new(), body)
        }
        None => redirect(format!("/moved{path}")),
    });
    let folders = unscanned_demo();
    let (status, out, err) = folders.cli(&["titles", "update", "--titledb-url", &url]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(
        asked.lock().unwrap().len(),
        6,
        "three redirects, three files"
    );
}

#[test]
fn icons_never_reach_a_local_address() {
    let (icons, asked) =
        server(|_| Answer::Full("200 OK", String::new(), b"\xFF\xD8\xFF\xE0".to_vec()));
    let port = icons.rsplit(':').next().unwrap().to_string();
    let src = source();
    let region = serde_json::json!({
        "1": {"id": "0100000000010000", "name": "Moonlit Odyssey", "iconUrl": format!("{icons}/a.jpg")},
        "2": {"id": "01002B30028F6000", "name": "Summit", "iconUrl": format!("http://localhost:{port}/b.jpg")},
        // IPv4 written in IPv6: Linux routes the mapped form to 127.0.0.1 itself.
        "3": {"id": "01007EF00011E000", "name": "Zephyr", "iconUrl": format!("http://[::ffff:127.0.0.1]:{port}/c.jpg")},
    });
    src.files
        .lock()
        .unwrap()
        .push(("US.en.json".into(), region.to_string().into_bytes()));
    let s = TestServer::start_on(unscanned_demo(), &["--titledb-url", &src.url]);
    s.wait_idle();
    let on = br#"{"count_dlc": true, "icons": true}"#.to_vec();
    assert_eq!(
        s.send("POST", "/api/titles/settings", &[], Some(on)).status,
        200
    );
    assert_eq!(s.post("/api/titles/update").status, 202);
    let job = s.wait_idle();
    crate::harness::titles_updated_with_icons(&s, &job, (0, 3));
    s.wait_for_log("loopback, private or link-local");
    assert!(
        asked.lock().unwrap().is_empty(),
        "{:?}",
        asked.lock().unwrap()
    );
}

#[test]
fn the_webhook_address_can_come_from_a_file_and_a_token_on_the_command_line_is_warned_of() {
    let (hook, asked) = server(|_| Answer::Full("204 No Content", String::new(), Vec::new()));
    let folders = unscanned_demo();
    let file = folders.tmp.path().join("webhook-url");
    std::fs::write(&file, format!("{hook}/h?token=s3cret\n")).unwrap();
    let s = TestServer::start_on(
        folders.clone(),
        &["--webhook-url-file", file.to_str().unwrap()],
    );
    s.wait_idle();
    wait_until("an event", Duration::from_secs(10), || {
        asked.lock().unwrap().iter().any(|p| p == "/h?token=s3cret")
    });
    assert!(!s.output().contains("list of processes"), "{}", s.output());
    drop(s);
    let url = format!("{hook}/h?token=s3cret");
    let s = TestServer::start_on(folders, &["--webhook-url", &url]);
    s.wait_for_log("list of processes");
    assert!(!s.output().contains("s3cret"), "the log shows the token");
}
