//! The curl maintenance scripts under scripts/, run against a spawned server.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::access::create_key;
use ludotheque::testkit::Msg;

use crate::harness::said_en;
use crate::harness::{Folders, TestServer};
use crate::library::demo;

fn script(name: &str, s: &TestServer, env: &[(&str, &str)]) -> Output {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(name);
    let mut cmd = Command::new(path);
    cmd.env("LUDOTHEQUE_URL", &s.base)
        .env("LDQ_POLL_SECONDS", "0.1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn locked_demo(extra: &[&str]) -> (TestServer, String) {
    let folders = Folders::new();
    demo(&folders);
    let key = create_key(&folders, "scripts", &[]);
    let mut args = vec!["--no-local-access"];
    args.extend_from_slice(extra);
    let s = TestServer::start_on(folders, &args);
    s.wait_idle_with(&key);
    (s, key)
}

#[test]
fn ldq_scan_starts_a_scan_and_waits_for_its_result() {
    let (s, key) = locked_demo(&[]);
    let o = script("ldq-scan", &s, &[("LUDOTHEQUE_API_KEY", &key)]);
    assert!(o.status.success(), "{}", text(&o));
    let done = s.folders.last_run_msg();
    assert!(
        matches!(done, Some(Msg::ScanDone { files: 60, .. })),
        "{done:?}"
    );
    let said = format!("[ok] ({})", done.unwrap().english());
    assert!(text(&o).contains(&said), "{}", text(&o));
}

#[test]
fn ldq_scan_waits_through_a_running_task() {
    let (s, key) = locked_demo(&[
        "--task-delay-ms",
        "1500",
        "--key-rate",
        "1000",
        "--key-burst",
        "1000",
    ]);
    let r = s.send("POST", "/api/v1/scan", &[("X-Api-Key", &key)], None);
    assert_eq!(r.status, 202);
    let t = Instant::now();
    let o = script("ldq-scan", &s, &[("LUDOTHEQUE_API_KEY", &key)]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        t.elapsed() >= Duration::from_millis(2500),
        "it waited for the first task, then its own"
    );
    let log = s.folders.log();
    assert!(
        log.contains("POST /api/v1/scan: 409 busy"),
        "the script met a 409 and retried"
    );
}

#[test]
fn ldq_scan_honours_retry_after() {
    let (s, key) = locked_demo(&[
        "--key-rate",
        "1",
        "--key-burst",
        "2",
        "--task-delay-ms",
        "300",
    ]);
    let o = script("ldq-scan", &s, &[("LUDOTHEQUE_API_KEY", &key)]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        s.output().contains("429 rate_limited"),
        "the script was limited and waited it out"
    );
}

#[test]
fn ldq_scan_fails_with_a_bad_key_or_no_service() {
    let (s, _) = locked_demo(&[]);
    let o = script("ldq-scan", &s, &[("LUDOTHEQUE_API_KEY", "ldq_nonsense")]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("401"), "{}", text(&o));
    let o = Command::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/ldq-scan"))
        .env("LUDOTHEQUE_URL", "http://127.0.0.1:9")
        .env("LUDOTHEQUE_API_KEY", "x")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("injoignable"), "{}", text(&o));
}

#[test]
fn ldq_convert_converts_and_reads_the_key_from_a_file() {
    let (s, key) = locked_demo(&[]);
    let file = s.folders.tmp.path().join("key");
    std::fs::write(&file, format!("{key}\n")).unwrap();
    let o = script(
        "ldq-convert",
        &s,
        &[("LUDOTHEQUE_API_KEY_FILE", file.to_str().unwrap())],
    );
    assert!(o.status.success(), "{}", text(&o));
    let done = Msg::ConvertDone {
        converted: 5,
        failed: 0,
    };
    assert!(text(&o).contains(&done.english()), "{}", text(&o));
}

#[test]
fn ldq_convert_exits_1_on_a_partial_convert_and_names_the_file() {
    let folders = Folders::new();
    demo(&folders);
    let broken = "Corrupt [0100000000ABC000][v0].nsz";
    std::fs::write(
        folders.library.join(broken),
        crate::convert::nsz_with_a_corrupt_stream(),
    )
    .unwrap();
    let key = create_key(&folders, "scripts", &[]);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    s.wait_idle_with(&key);
    let o = script("ldq-convert", &s, &[("LUDOTHEQUE_API_KEY", &key)]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let done = Msg::ConvertDone {
        converted: 5,
        failed: 1,
    };
    assert!(
        out.contains(&format!("[partial] ({})", done.english())),
        "{out}"
    );
    assert!(out.contains(&format!("  {broken} : ")), "{out}");
}

#[test]
fn ldq_stats_prints_name_value_lines() {
    let (s, key) = locked_demo(&[]);
    let o = script("ldq-stats", &s, &[("LUDOTHEQUE_API_KEY", &key)]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for line in ["total=60", "base=30", "update=13", "dlc=12", "to_convert=5"] {
        assert!(out.lines().any(|l| l == line), "{line} in {out}");
    }
}

#[test]
fn ldq_health_is_ok_then_critical_when_the_service_is_gone() {
    let (mut s, _) = locked_demo(&[]);
    let o = script("ldq-health", &s, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).starts_with("OK"));
    s.kill();
    let o = script("ldq-health", &s, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).starts_with("CRITICAL"));
}

#[test]
fn ldq_push_offers_the_list_and_reports_the_result() {
    let (s, key) = locked_demo(&[]);
    // No device is configured: the push task fails at once, and so does the script.
    let o = script("ldq-push", &s, &[("LUDOTHEQUE_API_KEY", &key)]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("[failed]") && text(&o).contains(&said_en(Msg::NoDevice)),
        "{}",
        text(&o)
    );
    // A console that takes the offer and acknowledges at once: the push ends ok.
    let console = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = console.local_addr().unwrap().port().to_string();
    s.folders
        .cli(&["device", "set", "--host", "127.0.0.1", "--port", &port]);
    s.folders
        .cli(&["push", "add", "Indies/Styx [0100535012974000][v0].nsp"]);
    let fake = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut socket, _) = console.accept().unwrap();
        let mut len = [0u8; 4];
        socket.read_exact(&mut len).unwrap();
        let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
        socket.read_exact(&mut body).unwrap();
        socket.write_all(&[1]).unwrap();
    });
    let o = script("ldq-push", &s, &[("LUDOTHEQUE_API_KEY", &key)]);
    fake.join().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let done = s.folders.last_run_msg();
    assert!(
        matches!(
            done,
            Some(Msg::PushDone {
                delivered: 0,
                partial: 0,
                untouched: 1,
                ..
            })
        ),
        "{done:?}"
    );
    assert!(text(&o).contains(&done.unwrap().english()), "{}", text(&o));
}
