//! Device and push, with a fake handheld: it listens like the installer's network
//! screen, reads the offer, then downloads as an installer would.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use ludotheque::testkit::words::PushEnd;
use ludotheque::testkit::Msg;

use crate::harness::said_en;
use crate::harness::{read_resp, Folders, Resp, TestServer};
use crate::library::demo;

const A: &str = "Indies/Styx [0100535012974000][v0].nsp";
const B: &str = "Indies/Summit [01002B30028F6000][v0].xcz";

/// The fake console's network-install screen.
struct Console {
    listener: TcpListener,
}

impl Console {
    fn new() -> Console {
        Console {
            listener: TcpListener::bind("127.0.0.1:0").unwrap(),
        }
    }

    fn port(&self) -> u16 {
        self.listener.local_addr().unwrap().port()
    }

    /// Accept the service's connection and read the offer: (socket, URLs).
    fn offer(&self) -> (TcpStream, Vec<String>) {
        self.listener.set_nonblocking(false).unwrap();
        let (mut socket, _) = self.listener.accept().unwrap();
        let mut len = [0u8; 4];
        socket.read_exact(&mut len).unwrap();
        let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
        socket.read_exact(&mut body).unwrap();
        let urls = String::from_utf8(body)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        (socket, urls)
    }
}

/// An installer's request: the URL has no scheme, as in the offer.
fn request(url: &str, method: &str, range: Option<&str>) -> Resp {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .allow_non_standard_methods(true)
        .build()
        .into();
    let mut b = ureq::http::Request::builder()
        .method(method)
        .uri(format!("http://{url}"))
        .header("User-Agent", "tinfoil");
    if let Some(r) = range {
        b = b.header("Range", r);
    }
    read_resp(agent.run(b.body(()).unwrap()).unwrap())
}

fn bytes(url: &str, range: &str) -> (u16, Vec<u8>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut r = agent
        .get(&format!("http://{url}"))
        .header("Range", range)
        .header("User-Agent", "tinfoil")
        .call()
        .unwrap();
    (
        r.status().as_u16(),
        r.body_mut()
            .with_config()
            .limit(1 << 30)
            .read_to_vec()
            .unwrap(),
    )
}

fn setup(console: &Console, extra: &[&str]) -> TestServer {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), extra);
    s.wait_idle();
    let port = console.port().to_string();
    let (st, out, err) = folders.cli(&[
        "device",
        "set",
        "--host",
        "127.0.0.1",
        "--port",
        &port,
        "--name",
        "Test Switch",
    ]);
    assert!(st.success(), "{out}{err}");
    for key in [A, B] {
        let (st, out, err) = folders.cli(&["push", "add", key]);
        assert!(st.success(), "{out}{err}");
    }
    s
}

fn file(s: &TestServer, key: &str) -> Vec<u8> {
    std::fs::read(s.folders.library.join(key)).unwrap()
}

/// Download a whole file as the installer does: small reads, then one range for all.
fn install(s: &TestServer, url: &str, key: &str) {
    let want = file(s, key);
    let head = request(url, "HEAD", None);
    assert_eq!(head.status, 200);
    assert_eq!(
        head.header("content-length"),
        Some(want.len().to_string().as_str())
    );
    assert_eq!(head.header("accept-ranges"), Some("bytes"));
    assert_eq!(bytes(url, "bytes=0-15"), (206, want[..16].to_vec()));
    assert_eq!(bytes(url, "bytes=256-259"), (206, want[256..260].to_vec()));
    let (status, all) = bytes(url, &format!("bytes=0-{}", want.len() - 1));
    assert_eq!(status, 206);
    assert!(all == want, "the bytes served are the file's");
}

fn finish(s: &TestServer) -> serde_json::Value {
    s.wait_idle()["last"].clone()
}

/// How the push ended, as its run recorded it (`Msg::PushDone`), checked to be what
/// the API's `last` says: (delivered, partial, untouched, how the session ended).
fn push_end(s: &TestServer, last: &serde_json::Value) -> (u64, u64, u64, PushEnd) {
    let done = s.folders.last_run_msg();
    let said = done.as_ref().map(Msg::english).unwrap_or_default();
    assert_eq!(last["message"], said, "{last}");
    match done {
        Some(Msg::PushDone {
            delivered,
            partial,
            untouched,
            ended,
        }) => (delivered, partial, untouched, ended),
        other => panic!("not a push's end: {other:?} {last}"),
    }
}

/// Wait for the push to end and check what it delivered, partly sent and left.
fn ended_with(s: &TestServer, files: (u64, u64, u64)) -> serde_json::Value {
    let last = finish(s);
    let (delivered, partial, untouched, _) = push_end(s, &last);
    assert_eq!((delivered, partial, untouched), files, "{last}");
    last
}

fn pending(s: &TestServer) -> Vec<String> {
    s.get("/api/push").json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["key"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_full_install_delivers_every_file_and_empties_the_list() {
    let console = Console::new();
    let s = setup(&console, &[]);
    let r = s.post("/api/v1/push");
    assert_eq!(r.status, 202, "{}", r.body);
    let (mut socket, urls) = console.offer();
    assert_eq!(urls.len(), 2);
    for (url, key) in urls.iter().zip([A, B]) {
        assert!(!url.starts_with("http"), "no scheme: {url}");
        assert!(url.starts_with("127.0.0.1:"), "the offered address: {url}");
        assert!(
            url.ends_with(
                key.rsplit('/')
                    .next()
                    .unwrap()
                    .replace(' ', "%20")
                    .replace('[', "%5B")
                    .replace(']', "%5D")
                    .as_str()
            ),
            "{url}"
        );
        install(&s, url, key);
    }
    let job = s.get("/api/v1/job").json();
    assert_eq!(
        (job["label"].as_str(), job["unit"].as_str()),
        (Some("push"), Some("bytes"))
    );
    socket.write_all(&[1]).unwrap();
    let last = finish(&s);
    assert_eq!(last["result"], "ok", "{last}");
    let (delivered, partial, untouched, _) = push_end(&s, &last);
    assert_eq!((delivered, partial, untouched), (2, 0, 0), "{last}");
    assert!(pending(&s).is_empty());
    let d = s.get("/api/v1/device").json();
    assert_eq!(
        (
            d["configured"].as_bool(),
            d["name"].as_str(),
            d["transport"].as_str()
        ),
        (Some(true), Some("Test Switch"), Some("lan"))
    );
    assert_eq!(
        (
            d["client"].as_str(),
            d["last_result"].as_str(),
            d["pending"].as_u64()
        ),
        (Some("tinfoil"), Some("ok"), Some(0))
    );
    assert!(d["last_push"].is_string() && d["last_contact"].is_string());
    // The token is dead once the push is over.
    assert_eq!(request(&urls[0], "HEAD", None).status, 404);
}

#[test]
fn drop_alone_ends_the_session_with_everything_untouched() {
    let console = Console::new();
    let s = setup(&console, &[]);
    s.post("/api/v1/push");
    let (_socket, urls) = console.offer();
    assert_eq!(request(&urls[0], "DROP", None).status, 200);
    let last = finish(&s);
    assert_eq!(push_end(&s, &last), (0, 0, 2, PushEnd::Drop), "{last}");
    assert_eq!(pending(&s).len(), 2);
}

#[test]
fn only_the_files_the_person_selected_leave_the_list() {
    let console = Console::new();
    let s = setup(&console, &[]);
    s.post("/api/v1/push");
    let (mut socket, urls) = console.offer();
    install(&s, &urls[1], B);
    socket.write_all(&[1]).unwrap();
    request(&urls[0], "DROP", None);
    ended_with(&s, (1, 0, 1));
    assert_eq!(pending(&s), [A]);
}

#[test]
fn a_range_broken_half_way_leaves_the_file_pending() {
    let console = Console::new();
    let s = setup(&console, &[]);
    // Far larger than the socket buffers, so that hanging up half way is seen.
    let big = "Big Game [0100000000010000][v0].nsp";
    let mut bytes = ludotheque::testkit::synth::pfs0(&[]);
    bytes.resize(48 << 20, 7);
    std::fs::write(s.folders.library.join(big), &bytes).unwrap();
    s.post("/api/v1/scan");
    s.wait_idle();
    s.send("DELETE", "/api/push", &[], None);
    assert_eq!(
        s.post(&format!(
            "/api/push/{}",
            big.replace(' ', "%20")
                .replace('[', "%5B")
                .replace(']', "%5D")
        ))
        .status,
        200
    );
    s.post("/api/v1/push");
    let (_socket, urls) = console.offer();
    let size = bytes.len();
    // A raw request for the whole file, read half, then hang up.
    let (host, path) = urls[0].split_once('/').unwrap();
    let mut raw = TcpStream::connect(host).unwrap();
    write!(
        raw,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nRange: bytes=0-{}\r\n\r\n",
        size - 1
    )
    .unwrap();
    let mut half = vec![0u8; size / 2];
    raw.read_exact(&mut half).unwrap();
    drop(raw);
    // Time must pass: the service meets the hang-up on its own before the console's
    // DROP; nothing outside shows that moment.
    std::thread::sleep(Duration::from_millis(300));
    request(&urls[0], "DROP", None);
    ended_with(&s, (0, 1, 0));
    assert_eq!(pending(&s), [big]);
}

#[test]
fn backing_out_with_ack_and_drop_delivers_nothing() {
    let console = Console::new();
    let s = setup(&console, &[]);
    s.post("/api/v1/push");
    let (mut socket, urls) = console.offer();
    socket.write_all(&[1]).unwrap();
    request(&urls[0], "DROP", None);
    ended_with(&s, (0, 0, 2));
    assert_eq!(pending(&s).len(), 2);
}

#[test]
fn a_slow_reader_still_gets_every_byte() {
    let console = Console::new();
    let s = setup(&console, &[]);
    s.post("/api/v1/push");
    let (mut socket, urls) = console.offer();
    let want = file(&s, A);
    let (host, path) = urls[0].split_once('/').unwrap();
    let mut raw = TcpStream::connect(host).unwrap();
    write!(
        raw,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nRange: bytes=0-{}\r\nConnection: close\r\n\r\n",
        want.len() - 1
    )
    .unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        std::thread::sleep(Duration::from_millis(2));
        match raw.read(&mut chunk).unwrap() {
            0 => break,
            n => got.extend_from_slice(&chunk[..n]),
        }
    }
    let body_at = got.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    assert!(got[body_at..] == want[..]);
    socket.write_all(&[1]).unwrap();
    let last = finish(&s);
    assert_eq!(push_end(&s, &last).0, 1, "{last}");
}

#[test]
fn nobody_listening_fails_clearly_and_keeps_the_list() {
    let console = Console::new();
    let s = setup(&console, &[]);
    drop(console); // the port is closed: the console is not on its install screen
    s.post("/api/v1/push");
    let last = finish(&s);
    assert_eq!(last["result"], "failed", "{last}");
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .contains(&said_en(Msg::ConsoleNotWaiting)),
        "{last}"
    );
    assert_eq!(pending(&s).len(), 2);
}

#[test]
fn no_request_before_the_timeout_names_the_address_offered() {
    let console = Console::new();
    let s = setup(&console, &["--push-timeout-secs", "1"]);
    s.post("/api/v1/push");
    let (_socket, _urls) = console.offer();
    let last = finish(&s);
    assert_eq!(last["result"], "failed", "{last}");
    let unreached = Msg::NothingReached {
        address: s.base.trim_start_matches("http://").to_string(),
    };
    assert_eq!(last["message"], unreached.english(), "{last}");
}

#[test]
fn downloads_need_the_token_and_reach_only_the_offered_files() {
    let console = Console::new();
    let s = setup(&console, &[]);
    s.post("/api/v1/push");
    let (mut socket, urls) = console.offer();
    let (base, name) = urls[0].rsplit_once('/').unwrap();
    let (root, _token) = base.rsplit_once('/').unwrap();
    assert_eq!(
        request(&format!("{root}/wrongtoken/{name}"), "GET", None).status,
        404
    );
    assert_eq!(
        request(
            &format!("{base}/Blocks%2099%20%5B010040600C5CE000%5D%5Bv0%5D.nsp"),
            "GET",
            None
        )
        .status,
        404
    );
    assert_eq!(
        request(&format!("{base}/..%2F..%2Fetc%2Fpasswd"), "GET", None).status,
        404
    );
    let size = file(&s, A).len();
    let r = request(&urls[0], "GET", Some(&format!("bytes={size}-")));
    assert_eq!(
        (r.status, r.header("content-range")),
        (416, Some(format!("bytes */{size}").as_str()))
    );
    let (st, tail) = bytes(&urls[0], "bytes=-10");
    assert_eq!((st, tail), (206, file(&s, A)[size - 10..].to_vec()));
    let r = request(&urls[0], "GET", None);
    assert_eq!(
        (r.status, r.body.len()),
        (200, String::from_utf8_lossy(&file(&s, A)).len())
    );
    socket.write_all(&[1]).unwrap();
    finish(&s);
}

#[test]
fn an_empty_list_or_no_device_ends_at_once_with_a_clear_result() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(s.post("/api/v1/push").status, 202);
    let last = finish(&s);
    assert_eq!(last["result"], "failed");
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .contains(&said_en(Msg::NoDevice)),
        "{last}"
    );
    folders.cli(&["device", "set", "--host", "127.0.0.1", "--port", "9"]);
    assert_eq!(s.post("/api/v1/push").status, 202);
    let last = finish(&s);
    assert_eq!(
        (last["result"].as_str(), last["message"].as_str()),
        (Some("ok"), Some(Msg::PushEmpty.english().as_str()))
    );
    let d = s.get("/api/v1/device").json();
    assert!(
        d["last_contact"].is_null() && d["client"].is_null(),
        "unknown facts are null: {d}"
    );
}

#[test]
fn the_device_and_push_commands() {
    let folders = Folders::new();
    demo(&folders);
    let (st, _, err) = folders.cli(&["device", "set", "--host", "not-an-ip"]);
    assert!(!st.success() && err.contains("IP"), "{err}");
    let (st, out, _) = folders.cli(&[
        "device",
        "set",
        "--host",
        "192.168.1.50",
        "--offer-address",
        "192.168.1.5",
    ]);
    assert!(st.success(), "{out}");
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let (st, out, _) = folders.cli(&["device", "show"]);
    assert!(
        st.success() && out.contains("192.168.1.50:2000") && out.contains("192.168.1.5"),
        "{out}"
    );
    let (st, out, _) = folders.cli(&["push", "add", "--title", "01007EF00011E000"]);
    assert!(st.success(), "{out}");
    let added: Vec<&str> = out.lines().collect();
    assert_eq!(added.len(), 5, "base, latest update, 3 DLC: {out}");
    assert!(out.contains("[01007EF00011E800][v196608]"), "{out}");
    let (st, _, err) = folders.cli(&["push", "add", "nope.nsp"]);
    assert!(!st.success() && err.contains("nope.nsp"), "{err}");
    let (st, out, _) = folders.cli(&[
        "push",
        "remove",
        "Studio/Zephyr/Zephyr Master Trials [01007EF00011F002][v0].nsp",
    ]);
    assert!(st.success(), "{out}");
    let d = s.get("/api/v1/device").json();
    assert_eq!(
        (
            d["host"].as_str(),
            d["port"].as_u64(),
            d["pending"].as_u64()
        ),
        (Some("192.168.1.50"), Some(2000), Some(4))
    );
    assert!(d["pending_bytes"].as_u64().unwrap() > 0);
    let (st, out, _) = folders.cli(&["device", "clear"]);
    assert!(st.success(), "{out}");
    assert_eq!(s.get("/api/v1/device").json()["configured"], false);
    // The same through the web interface's internal routes.
    let r = s.send(
        "POST",
        "/api/device",
        &[],
        Some(br#"{"host":"10.0.0.7","port":2001}"#.to_vec()),
    );
    assert_eq!((r.status, r.json()["port"].as_u64()), (200, Some(2001)));
    assert_eq!(
        s.send("POST", "/api/device", &[], Some(b"{".to_vec()))
            .status,
        400
    );
}

#[test]
fn the_console_closing_its_socket_after_downloads_ends_the_session() {
    let console = Console::new();
    let s = setup(&console, &[]);
    s.post("/api/v1/push");
    let (socket, urls) = console.offer();
    install(&s, &urls[0], A);
    // The task looks at the session ten times a second.
    let mut job = s.get("/api/v1/job").json();
    for _ in 0..40 {
        if job["detail"] != "" {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        job = s.get("/api/v1/job").json();
    }
    assert_eq!(job["detail"], A, "the detail names the key being served");
    assert!(job["done"].as_u64().unwrap() >= file(&s, A).len() as u64);
    drop(socket);
    let last = finish(&s);
    assert_eq!(push_end(&s, &last), (1, 0, 1, PushEnd::Closed), "{last}");
    assert_eq!(pending(&s), [B]);
}

#[test]
fn a_cancel_ends_the_push_and_nothing_leaves_the_list() {
    let console = Console::new();
    let s = setup(&console, &[]);
    s.post("/api/v1/push");
    let (_socket, _urls) = console.offer();
    assert_eq!(s.post("/api/job/cancel").json()["cancelled"], true);
    let last = finish(&s);
    assert_eq!(last["result"], "cancelled", "{last}");
    assert_eq!(pending(&s).len(), 2);
    assert_eq!(
        s.post("/api/job/cancel").json()["cancelled"],
        false,
        "nothing runs now"
    );
}

#[test]
fn ranges_beyond_four_gib_are_served_from_a_sparse_file() {
    let console = Console::new();
    let s = setup(&console, &[]);
    let name = "Huge [0100000000010000][v0].nsp";
    let f = std::fs::File::create(s.folders.library.join(name)).unwrap();
    f.set_len(5 << 30).unwrap();
    drop(f);
    s.post("/api/v1/scan");
    s.wait_idle();
    s.send("DELETE", "/api/push", &[], None);
    assert_eq!(
        s.post("/api/push/Huge%20%5B0100000000010000%5D%5Bv0%5D.nsp")
            .status,
        200
    );
    s.post("/api/v1/push");
    let (mut socket, urls) = console.offer();
    let head = request(&urls[0], "HEAD", None);
    assert_eq!(
        head.header("content-length"),
        Some((5u64 << 30).to_string().as_str())
    );
    let r = request(&urls[0], "GET", Some("bytes=4294967296-4294967311"));
    assert_eq!(r.status, 206);
    assert_eq!(
        r.header("content-range"),
        Some("bytes 4294967296-4294967311/5368709120")
    );
    assert_eq!(r.body.as_bytes(), &[0u8; 16]);
    socket.write_all(&[1]).unwrap();
    let last = finish(&s);
    let (delivered, partial, _, _) = push_end(&s, &last);
    assert_eq!((delivered, partial), (0, 1), "{last}");
}

#[test]
fn a_download_in_flight_stops_when_the_push_is_over() {
    let console = Console::new();
    let s = setup(&console, &[]);
    let big = "Big Game [0100000000010000][v0].nsp";
    let mut content = ludotheque::testkit::synth::pfs0(&[]);
    content.resize(64 << 20, 7);
    std::fs::write(s.folders.library.join(big), &content).unwrap();
    s.post("/api/v1/scan");
    s.wait_idle();
    s.send("DELETE", "/api/push", &[], None);
    s.post("/api/push/Big%20Game%20%5B0100000000010000%5D%5Bv0%5D.nsp");
    s.post("/api/v1/push");
    let (_socket, urls) = console.offer();
    let (host, path) = urls[0].split_once('/').unwrap();
    let mut raw = TcpStream::connect(host).unwrap();
    write!(
        raw,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut first = vec![0u8; 1 << 20];
    raw.read_exact(&mut first).unwrap();
    assert_eq!(s.post("/api/job/cancel").json()["cancelled"], true);
    finish(&s);
    let mut rest = Vec::new();
    let _ = raw.read_to_end(&mut rest);
    assert!(
        first.len() + rest.len() < content.len(),
        "the transfer was cut short"
    );
}

#[test]
fn sigkill_mid_push_then_restart_keeps_the_list_the_files_and_records_the_run() {
    let console = Console::new();
    let mut s = setup(&console, &[]);
    let before: Vec<Vec<u8>> = [A, B].iter().map(|k| file(&s, k)).collect();
    assert_eq!(s.post("/api/v1/push").status, 202);
    let (_socket, urls) = console.offer();
    // Half of the first file, then the process is killed.
    let (status, _) = bytes(&urls[0], "bytes=0-15");
    assert_eq!(status, 206);
    s.kill();

    let s = TestServer::start_on(s.folders.clone(), &[]);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(
        (last["label"].as_str(), last["result"].as_str()),
        (Some("push"), Some("interrupted")),
        "{last}"
    );
    assert_eq!(pending(&s), [A, B], "nothing left the list");
    let after: Vec<Vec<u8>> = [A, B].iter().map(|k| file(&s, k)).collect();
    assert!(after == before, "the files are untouched");
    assert!(crate::harness::files_under(&s.folders.library)
        .iter()
        .all(|p| !p.to_string_lossy().ends_with(".part")));
}

#[test]
fn a_file_swapped_for_a_link_out_of_the_library_is_never_served() {
    let console = Console::new();
    let s = setup(&console, &[]);
    s.post("/api/v1/push");
    let (mut socket, urls) = console.offer();
    let styx = s.folders.library.join(A);
    let outside = s.folders.tmp.path().join("outside.nsp");
    std::fs::write(&outside, b"a file outside the library").unwrap();
    std::fs::remove_file(&styx).unwrap();
    std::os::unix::fs::symlink(&outside, &styx).unwrap();
    let url = urls.iter().find(|u| u.contains("Styx")).unwrap();
    let r = request(url, "GET", None);
    assert_eq!(r.status, 404, "{r:?}");
    let tmp = s.folders.tmp.path().to_string_lossy().to_string();
    assert!(!r.body.contains(&tmp), "no server path: {r:?}");
    socket.write_all(&[1]).unwrap();
    finish(&s);
}

#[test]
fn a_push_delivers_a_file_of_a_further_library_folder() {
    let console = Console::new();
    let folders = Folders::new();
    demo(&folders);
    let share = folders.tmp.path().join("share");
    std::fs::create_dir_all(&share).unwrap();
    std::fs::rename(folders.library.join("Indies"), share.join("Indies")).unwrap();
    let first = folders.library.display().to_string();
    let nas = format!("nas={}", share.display());
    let s = TestServer::start_on(folders.clone(), &["--library", &first, "--library", &nas]);
    s.wait_idle();
    let port = console.port().to_string();
    let set = ["device", "set", "--host", "127.0.0.1", "--port", &port];
    let (st, out, err) = folders.cli(&set);
    assert!(st.success(), "{out}{err}");
    let key = format!("nas/{A}");
    let (st, out, err) = folders.cli(&["push", "add", &key]);
    assert!(st.success(), "{out}{err}");
    assert_eq!(s.post("/api/v1/push").status, 202);
    let (mut socket, urls) = console.offer();
    assert_eq!(urls.len(), 1, "{urls:?}");
    let want = std::fs::read(share.join(A)).unwrap();
    let (status, got) = bytes(&urls[0], &format!("bytes=0-{}", want.len() - 1));
    assert_eq!(status, 206);
    assert!(got == want, "the share's file, whole");
    socket.write_all(&[1]).unwrap();
    ended_with(&s, (1, 0, 0));
    assert!(pending(&s).is_empty());
}
