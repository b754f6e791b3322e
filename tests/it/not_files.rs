//! Files that are not files: a FIFO, a socket or a device put in a game's place (anyone
//! who can write into a share can make one). Each operation on it ends at once with
//! an error naming the file, never a hang: a shop download, a push and its download,
//! a scan, a convert, dedupe, organize and a delete to the trash. Every wait here has
//! a deadline well below the harness's own, so a hang fails the test quickly.

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::{basic, read_resp, Folders, Resp, TestServer};
use crate::library::{demo, scanned_demo};
use ludotheque::testkit::Msg;

const STYX: &str = "Indies/Styx [0100535012974000][v0].nsp";
const STYX_UPDATE: &str = "Indies/Styx [0100535012974800][v131072].nsp";
const SUMMIT: &str = "Indies/Summit [01002B30028F6000][v0].xcz";
const ODYSSEY: &str = "Studio/Moon/Moonlit Odyssey [0100000000010000][v0].nsp";
const COSTUMES: &str = "Studio/Moon/Moonlit Odyssey - Costumes [0100000000011001][v0].nsp";
const KART: &str = "Studio/Kart Rally 8 Deluxe [0100152000022000][v0].nsz";

/// How long anything here may take before it counts as a hang.
const DEADLINE: Duration = Duration::from_secs(15);

fn c_path(path: &Path) -> std::ffi::CString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap()
}

/// The file at `key` becomes a FIFO.
fn fifo(lib: &Path, key: &str) {
    let path = lib.join(key);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c_path(&path).as_ptr(), 0o644) }, 0);
}

/// The file at `key` becomes a unix socket (the file stays when the listener goes).
fn socket(lib: &Path, key: &str) {
    let path = lib.join(key);
    std::fs::remove_file(&path).unwrap();
    std::os::unix::net::UnixListener::bind(&path).unwrap();
}

/// The file at `key` becomes a character device with /dev/null's numbers, when this
/// process may make one (root); false otherwise.
fn device(lib: &Path, key: &str) -> bool {
    let path = lib.join(key);
    let saved = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let made = unsafe {
        libc::mknod(
            c_path(&path).as_ptr(),
            libc::S_IFCHR | 0o666,
            libc::makedev(1, 3),
        )
    } == 0;
    if !made {
        std::fs::write(&path, saved).unwrap();
    }
    made
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// An agent that gives up well before the harness's.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .allow_non_standard_methods(true)
        .timeout_global(Some(DEADLINE))
        .build()
        .into()
}

fn fetch(url: &str, method: &str, headers: &[(&str, &str)]) -> Resp {
    let mut b = ureq::http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let resp = agent()
        .run(b.body(()).unwrap())
        .unwrap_or_else(|e| panic!("{method} {url}: no answer ({e})"));
    read_resp(resp)
}

/// Start a task and wait for its end, at most [`DEADLINE`]: the run's `last`.
fn run_task(s: &TestServer, route: &str) -> Value {
    s.wait_idle();
    let r = s.post(route);
    assert_eq!(r.status, 202, "{route}: {r:?}");
    wait_idle(s)
}

fn wait_idle(s: &TestServer) -> Value {
    let until = Instant::now() + DEADLINE;
    loop {
        let job = s.get("/api/v1/job").json();
        if job["running"] == false {
            return job["last"].clone();
        }
        assert!(Instant::now() < until, "the task hangs: {job}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What the service says of the file at `key`, which is `what` (`fifo`, `socket`,
/// `device`: the word `Msg::NotAFile` carries).
fn not_a_file(key: &str, what: &str) -> String {
    Msg::NotAFile {
        key: key.into(),
        what: what.into(),
    }
    .english()
}

/// The run ended `partial`, naming `key` among its failures as `what` is.
fn names_among_failures(last: &Value, key: &str, what: &str) {
    assert_eq!(last["result"], "partial", "{last}");
    let failures = last["failures"].as_array().unwrap();
    let said = not_a_file(key, what);
    assert!(
        failures.iter().any(|f| f["key"] == key
            && f["error"] == "not_a_file"
            && f["message"] == said.as_str()),
        "{key} ({what}) is not among the failures: {last}"
    );
}

fn key_path(key: &str) -> String {
    key.split('/')
        .map(|s| {
            percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn the_shop_answers_at_once_naming_a_fifo_a_socket_or_a_device() {
    let folders = scanned_demo();
    let auth = basic("salon", &folders.add_console("salon"));
    let lib = &folders.library;
    fifo(lib, STYX);
    socket(lib, ODYSSEY);
    let mut cases = vec![(STYX, "fifo"), (ODYSSEY, "socket")];
    if device(lib, COSTUMES) {
        cases.push((COSTUMES, "device"));
    }
    // A link to /dev/null leads out of the library: refused as before.
    std::fs::remove_file(lib.join(STYX_UPDATE)).unwrap();
    std::os::unix::fs::symlink("/dev/null", lib.join(STYX_UPDATE)).unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    let url = |key: &str| format!("{}/shop/files/{}", s.base, key_path(key));
    for (key, what) in &cases {
        // Twice: a wedged first attempt would have taken a download slot.
        for _ in 0..2 {
            let r = fetch(&url(key), "GET", &[("Authorization", &auth)]);
            assert_eq!(r.status, 404, "{key}: {r:?}");
            assert_eq!(r.json()["message"], not_a_file(key, what), "{r:?}");
        }
    }
    let r = fetch(&url(STYX_UPDATE), "GET", &[("Authorization", &auth)]);
    assert_eq!(r.status, 404, "{r:?}");
    assert!(is_fifo(&lib.join(STYX)), "the FIFO stays where it is");
    // The shop still serves the games that are files.
    let r = fetch(&url(SUMMIT), "GET", &[("Authorization", &auth)]);
    assert_eq!(r.status, 200);
    let size = std::fs::metadata(lib.join(SUMMIT))
        .unwrap()
        .len()
        .to_string();
    assert_eq!(r.header("content-length"), Some(size.as_str()));
}

/// The fake console's network-install screen: accepts the service's offer, within
/// the deadline.
fn offer(listener: &TcpListener) -> (TcpStream, Vec<String>) {
    listener.set_nonblocking(true).unwrap();
    let until = Instant::now() + DEADLINE;
    let mut socket = loop {
        match listener.accept() {
            Ok((socket, _)) => break socket,
            Err(_) if Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("no offer came: the push hangs ({e})"),
        }
    };
    socket.set_nonblocking(false).unwrap();
    socket.set_read_timeout(Some(DEADLINE)).unwrap();
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

#[test]
fn a_push_names_a_fifo_on_its_list_and_its_download_answers_at_once() {
    use std::io::Write;
    let console = TcpListener::bind("127.0.0.1:0").unwrap();
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let port = console.local_addr().unwrap().port().to_string();
    let (st, out, err) = folders.cli(&[
        "device",
        "set",
        "--host",
        "127.0.0.1",
        "--port",
        &port,
        "--name",
        "Switch",
    ]);
    assert!(st.success(), "{out}{err}");
    for key in [STYX, SUMMIT, ODYSSEY] {
        let (st, out, err) = folders.cli(&["push", "add", key]);
        assert!(st.success(), "{out}{err}");
    }
    let lib = &folders.library;
    // Already a FIFO when the push starts: left off the offer, and named.
    fifo(lib, STYX);
    assert_eq!(s.post("/api/v1/push").status, 202);
    let (mut socket, urls) = offer(&console);
    assert_eq!(urls.len(), 2, "{urls:?}");
    // Made a FIFO after the offer: its download answers at once, naming it.
    fifo(lib, SUMMIT);
    let summit = urls.iter().find(|u| u.contains("Summit")).unwrap();
    let r = fetch(
        &format!("http://{summit}"),
        "GET",
        &[("Range", "bytes=0-15")],
    );
    assert_eq!(r.status, 404, "{r:?}");
    assert_eq!(r.json()["message"], not_a_file(SUMMIT, "fifo"), "{r:?}");
    // The other file still downloads.
    let odyssey = urls.iter().find(|u| u.contains("Odyssey")).unwrap();
    let r = fetch(&format!("http://{odyssey}"), "GET", &[]);
    assert_eq!(r.status, 200, "{r:?}");
    socket.write_all(&[1]).unwrap();
    let last = wait_idle(&s);
    names_among_failures(&last, STYX, "fifo");
}

#[test]
fn a_scan_names_what_is_not_a_regular_file_and_forgets_it_as_a_game() {
    let folders = scanned_demo();
    let lib = &folders.library;
    fifo(lib, STYX);
    socket(lib, ODYSSEY);
    let device = device(lib, COSTUMES);
    let s = TestServer::start_on(folders.clone(), &[]);
    let last = run_task(&s, "/api/v1/scan");
    names_among_failures(&last, STYX, "fifo");
    names_among_failures(&last, ODYSSEY, "socket");
    if device {
        names_among_failures(&last, COSTUMES, "device");
    }
    let game = s.get(&format!("/api/v1/library/{}", key_path(STYX)));
    assert_eq!(game.status, 404, "no longer a game: {game:?}");
    drop(s);
    // The command line says it in French.
    let (status, out, _) = folders.cli(&["scan"]);
    assert_eq!(status.code(), Some(1), "{out}");
    let fifo = Msg::NotAFile {
        key: STYX.into(),
        what: "fifo".into(),
    };
    assert!(
        out.contains(&format!("  {STYX} : {}", fifo.french())),
        "{out}"
    );
}

#[test]
fn a_convert_names_a_fifo_and_stops_at_once() {
    let folders = scanned_demo();
    fifo(&folders.library, KART);
    let s = TestServer::start_on(folders.clone(), &[]);
    let last = run_task(&s, "/api/v1/convert");
    // Convert says it in its own words (the failed file and why: no `Msg::NotAFile`).
    assert_eq!(last["result"], "partial", "{last}");
    let failures = last["failures"].as_array().unwrap();
    assert!(
        failures.iter().any(|f| f["key"] == KART
            && f["message"].as_str().unwrap_or("").contains(KART)
            && f["message"].as_str().unwrap_or("").contains("named pipe")),
        "{KART} (named pipe) is not among the failures: {last}"
    );
    assert!(is_fifo(&folders.library.join(KART)), "left where it was");
}

#[test]
fn dedupe_and_organize_leave_a_fifo_alone_and_name_it() {
    let folders = scanned_demo();
    let lib = folders.library.clone();
    fifo(&lib, STYX_UPDATE);
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    let last = run_task(&s, "/api/dedupe");
    names_among_failures(&last, STYX_UPDATE, "fifo");
    assert!(is_fifo(&lib.join(STYX_UPDATE)));
    let last = run_task(&s, "/api/organize");
    names_among_failures(&last, STYX_UPDATE, "fifo");
    assert!(is_fifo(&lib.join(STYX_UPDATE)), "organize did not move it");
    assert!(!lib.join(STYX).exists(), "the other files were organized");
}

#[test]
fn deleting_a_fifo_is_refused_naming_it() {
    let folders = scanned_demo();
    let lib = folders.library.clone();
    fifo(&lib, STYX);
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    let r = s.send(
        "DELETE",
        &format!("/api/library/{}", key_path(STYX)),
        &[],
        None,
    );
    assert_eq!(r.status, 409, "{r:?}");
    assert_eq!(r.json()["message"], not_a_file(STYX, "fifo"), "{r:?}");
    assert!(is_fifo(&lib.join(STYX)), "left where it was");
    // A game that is a file still goes to the trash.
    let r = s.send(
        "DELETE",
        &format!("/api/library/{}", key_path(SUMMIT)),
        &[],
        None,
    );
    assert_eq!(r.status, 200, "{r:?}");
}
