//! Upkeep: the webhook (a local receiver checks the events, their order, their
//! signature and the retry).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::harness::{Folders, TestServer};
use crate::titles::unscanned_demo;
use ludotheque::testkit::Msg;

/// One request the receiver got.
struct Hit {
    path: String,
    event: String,
    signature: String,
    body: Vec<u8>,
    at: Instant,
}

impl Hit {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// A webhook receiver on loopback: answers 500 to the first `fail_first` requests,
/// then 204, and hands every request over the channel.
fn receiver(fail_first: usize) -> (String, mpsc::Receiver<Hit>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook/t0ken-in-path", server.server_addr());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for (n, mut rq) in server.incoming_requests().enumerate() {
            let header = |name: &'static str| {
                rq.headers()
                    .iter()
                    .find(|h| h.field.equiv(name))
                    .map(|h| h.value.to_string())
                    .unwrap_or_default()
            };
            let (event, signature) = (
                header("X-Ludotheque-Event"),
                header("X-Ludotheque-Signature"),
            );
            let mut body = Vec::new();
            let _ = std::io::Read::read_to_end(rq.as_reader(), &mut body);
            let hit = Hit {
                path: rq.url().to_string(),
                event,
                signature,
                body,
                at: Instant::now(),
            };
            // Handed over before the answer: whoever got the answer finds it there.
            if tx.send(hit).is_err() {
                return;
            }
            let status = if n < fail_first { 500 } else { 204 };
            let _ = rq.respond(tiny_http::Response::empty(status));
        }
    });
    (url, rx)
}

fn next(rx: &mpsc::Receiver<Hit>) -> Hit {
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the webhook sent nothing within 20 s")
}

fn hex_hmac(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body);
    let bytes = mac.finalize().into_bytes();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn the_webhook_tells_a_task_end_new_titles_and_new_updates_signed_and_retried() {
    let (url, rx) = receiver(1);
    let source = crate::titles::source();
    let s = TestServer::start_on(
        unscanned_demo(),
        &[
            "--webhook-url",
            &url,
            "--webhook-secret",
            "s3cret",
            "--titledb-url",
            &source.url,
        ],
    );
    s.wait_idle();
    // The first scan: its end, then the titles it brought. The first attempt met a
    // 500 and was sent again, the same bytes, about a second later.
    let (first, again) = (next(&rx), next(&rx));
    assert_eq!(first.body, again.body);
    let waited = again.at - first.at;
    assert!(
        waited >= Duration::from_millis(900),
        "retried after {waited:?}"
    );
    let mut events = vec![again, next(&rx)];
    for hit in &events {
        assert_eq!(hit.path, "/hook/t0ken-in-path");
        assert_eq!(
            hit.signature,
            format!("sha256={}", hex_hmac("s3cret", &hit.body))
        );
        assert_eq!(hit.event, hit.json()["event"]);
    }
    let end = events[0].json();
    assert_eq!(end["event"], "task_finished");
    // The demo's broken file makes the scan partial, and the event names it.
    assert_eq!(
        (end["task"].as_str(), end["result"].as_str()),
        (Some("scan"), Some("partial"))
    );
    assert_eq!(
        end["failures"][0]["key"], "Broken Download [0100BBBB00000000][v0].nsp",
        "{end}"
    );
    assert!(end["done"].as_u64().unwrap() > 0 && end["at"].as_str().unwrap().ends_with('Z'));
    let added = events[1].json();
    assert_eq!(added["event"], "titles_added");
    let titles: Value = s.get("/api/v1/titles?limit=100").json();
    assert_eq!(added["count"], titles["total"]);
    let ids = |v: &Value, field: &str| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|t| t[field].as_str().unwrap().to_string())
            .collect()
    };
    let mut listed = ids(&titles["items"], "title_id");
    listed.sort();
    assert_eq!(ids(&added["titles"], "title_id"), listed);
    // Title data that knows newer updates: the titles task's end, then what it made
    // available, with the versions.
    assert_eq!(s.post("/api/titles/update").status, 202);
    s.wait_idle();
    events = vec![next(&rx), next(&rx)];
    assert_eq!(events[0].json()["task"], "titles");
    let updates = events[1].json();
    assert_eq!(updates["event"], "updates_available");
    let stats: Value = s.get("/api/v1/stats").json();
    assert_eq!(updates["count"], stats["updates_available"]);
    let one = &updates["titles"][0];
    assert!(
        one["latest_version"].as_u64() > one["installed_version"].as_u64(),
        "{one}"
    );
    assert!(one["name"].as_str().is_some_and(|n| !n.is_empty()));
    // Nothing new since: a rescan tells its end and nothing else.
    assert_eq!(s.post("/api/v1/scan").status, 202);
    s.wait_idle();
    assert_eq!(next(&rx).json()["task"], "scan");
    assert!(rx.recv_timeout(Duration::from_millis(500)).is_err());
    // The log names the receiver's host, never the token in its path.
    assert!(!s.output().contains("t0ken-in-path"), "{}", s.output());
}

#[test]
fn a_receiver_that_is_down_never_holds_a_task() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let s = TestServer::start_on(unscanned_demo(), &["--webhook-url", &url]);
    s.wait_idle();
    let started = Instant::now();
    for _ in 0..3 {
        assert_eq!(s.post("/api/v1/scan").status, 202);
        s.wait_idle();
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    s.wait_for_log(&format!(
        "sending the task_finished event to 127.0.0.1:{port} failed"
    ));
}

#[test]
fn a_bad_webhook_address_or_a_lone_secret_is_refused_at_start() {
    let folders = Folders::new();
    for (args, said) in [
        (
            &["--webhook-url", "ftp://example.com/x"][..],
            Msg::BadWebhookUrl,
        ),
        (&["--webhook-url", "http://"][..], Msg::BadWebhookUrl),
        (&["--webhook-secret", "s"][..], Msg::WebhookSecretAlone),
    ] {
        let said = said.french();
        let mut all = vec!["serve", "--listen", "127.0.0.1:0"];
        all.extend_from_slice(args);
        let (status, out, err) = folders.cli(&all);
        assert!(!status.success(), "{args:?}: {out}");
        assert!(err.contains(&said), "{args:?}: {err}");
    }
}

#[test]
fn a_foreground_task_sends_its_events_before_it_exits() {
    let (url, rx) = receiver(0);
    let folders = unscanned_demo();
    let out = crate::harness::ludotheque()
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["--library", folders.library.to_str().unwrap(), "scan"])
        .env("LUDOTHEQUE_WEBHOOK_URL", &url)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a partial scan: {out:?}");
    // Both were sent before the command ended: they are in the channel already.
    let end = rx.try_recv().expect("task_finished sent").json();
    assert_eq!(
        (end["event"].as_str(), end["task"].as_str()),
        (Some("task_finished"), Some("scan"))
    );
    assert_eq!(
        rx.try_recv().expect("titles_added sent").json()["event"],
        "titles_added"
    );
}

#[test]
fn a_task_stopped_with_the_service_is_told_interrupted() {
    // The first attempt meets a 500: the event is sent again a second later, which
    // only happens when the service waits for its events before it exits.
    let (url, rx) = receiver(1);
    let mut s = TestServer::start_on(
        unscanned_demo(),
        &["--webhook-url", &url, "--task-delay-ms", "30000"],
    );
    assert_eq!(s.get("/api/v1/job").json()["running"], true);
    s.signal(libc::SIGTERM);
    assert!(s
        .wait_exit(Duration::from_secs(15))
        .is_some_and(|st| st.success()));
    let first = rx.try_recv().expect("sent before the service exited");
    let again = rx.try_recv().expect("sent again before the service exited");
    assert_eq!(first.body, again.body);
    let end = again.json();
    assert_eq!(
        (end["task"].as_str(), end["result"].as_str()),
        (Some("scan"), Some("interrupted"))
    );
}
