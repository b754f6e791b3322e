//! `ludotheque health`, the container's probe, through the real binary: exit 0 and
//! silence when the service is healthy, 1 otherwise, where `serve` listens unless
//! `--url` says, and never a data folder made or opened.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Output, Stdio};
use std::sync::mpsc;

use ludotheque::testkit::Msg;

use crate::harness::said_fr;
use crate::harness::{Folders, TestServer};

/// Folders whose data folder does not exist, so that any made shows.
fn no_data_folder() -> std::sync::Arc<Folders> {
    let folders = Folders::new();
    std::fs::remove_dir(&folders.data).unwrap();
    folders
}

/// `ludotheque --data DATA health ARGS` with `LUDOTHEQUE_LISTEN` set to `listen` (or
/// unset), in a folder of its own.
fn health(folders: &Folders, listen: Option<&str>, args: &[&str]) -> Output {
    let mut command = crate::harness::ludotheque();
    command
        .current_dir(folders.tmp.path())
        .args(["--data", folders.data.to_str().unwrap(), "health"])
        .args(args)
        .env_remove("LUDOTHEQUE_LISTEN")
        .stdin(Stdio::null());
    if let Some(listen) = listen {
        command.env("LUDOTHEQUE_LISTEN", listen);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A one-request HTTP server on 127.0.0.1 that answers `status` and `body`, and
/// sends back the request's `Host` header.
fn one_answer(status: &str, body: &'static str) -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let status = status.to_string();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut host = String::new();
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
            if let Some(h) = line.to_ascii_lowercase().strip_prefix("host:") {
                host = h.trim().to_string();
            }
            line.clear();
        }
        let mut stream = stream;
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = tx.send(host);
    });
    (port, rx)
}

/// A port nothing listens on (bound, then let go).
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn a_healthy_service_is_exit_0_and_silence() {
    let server = TestServer::start(&[]);
    let folders = no_data_folder();
    let o = health(&folders, None, &["--url", &server.base]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        (text(&o.stdout), text(&o.stderr)),
        (String::new(), String::new())
    );
    // A trailing slash is the same base; --verbose says it.
    let o = health(
        &folders,
        None,
        &["--url", &format!("{}/", server.base), "-v"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("bonne santé"),
        "{}",
        text(&o.stdout)
    );
    assert!(!folders.data.exists(), "health made the data folder");
}

#[test]
fn the_default_is_where_serve_listens() {
    let server = TestServer::start(&[]);
    let folders = no_data_folder();
    let o = health(&folders, Some(&server.addr), &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // --url wins over the variable.
    let port = closed_port();
    let o = health(
        &folders,
        Some(&server.addr),
        &["--url", &format!("http://127.0.0.1:{port}")],
    );
    assert_eq!(o.status.code(), Some(1));
    // And the variable is read: nothing listens there.
    let o = health(&folders, Some(&format!("127.0.0.1:{port}")), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!folders.data.exists(), "health made the data folder");
}

#[test]
fn every_interface_is_asked_on_loopback() {
    let (port, host) = one_answer("200 OK", r#"{"status":"ok"}"#);
    let folders = no_data_folder();
    let o = health(&folders, Some(&format!("0.0.0.0:{port}")), &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(host.recv().unwrap(), format!("127.0.0.1:{port}"));
    // Port 0 names no port anyone can ask.
    let o = health(&folders, Some("0.0.0.0:0"), &["-v"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--url"), "{}", text(&o.stderr));
}

#[test]
fn nothing_listening_or_not_ok_is_exit_1_and_silence() {
    let folders = no_data_folder();
    let down = format!("http://127.0.0.1:{}", closed_port());
    let o = health(&folders, None, &["--url", &down]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        (text(&o.stdout), text(&o.stderr)),
        (String::new(), String::new())
    );
    // Asked, it says why, in French.
    let o = health(&folders, None, &["--url", &down, "--verbose"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains(&said_fr(Msg::HealthUnreachable { url: down.clone() })),
        "{}",
        text(&o.stderr)
    );
    for (status, body) in [
        ("503 Service Unavailable", r#"{"status":"ok"}"#),
        ("500 Internal Server Error", r#"{"error":"internal_error"}"#),
        ("200 OK", r#"{"status":"starting"}"#),
        ("200 OK", "ok"),
    ] {
        let (port, _) = one_answer(status, body);
        let o = health(
            &folders,
            None,
            &["--url", &format!("http://127.0.0.1:{port}")],
        );
        assert_eq!(o.status.code(), Some(1), "{status} {body}");
        assert_eq!(text(&o.stderr), "", "{status} {body}");
    }
    // A URL that is no base URL is refused, like any wrong value.
    let o = health(&folders, None, &["--url", "127.0.0.1:8080", "-v"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--url"), "{}", text(&o.stderr));
    assert!(!folders.data.exists(), "health made the data folder");
}

#[test]
fn a_running_service_keeps_its_data_folder_to_itself() {
    // The probe runs beside the server on the same data folder: it takes no lock and
    // writes nothing there.
    let server = TestServer::start(&[]);
    let files = || {
        let mut files = crate::harness::files_under(&server.folders.data);
        files.sort();
        files
    };
    let before = files();
    let o = health(&server.folders, Some(&server.addr), &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files(), before);
    assert!(server.get("/api/v1/health").status == 200);
}
