//! Foundation: the service starts, answers its core routes, survives panics, refuses
//! what it must, and stops cleanly.

use std::time::{Duration, Instant};

use ludotheque::testkit::Msg;

use crate::harness::said_fr;
use crate::harness::{assert_no_server_path, wait_until, Folders, TestServer};

#[test]
fn serve_prints_the_bound_address_first() {
    let s = TestServer::start(&[]);
    assert!(s.addr.starts_with("127.0.0.1:"));
    assert_ne!(s.addr, "127.0.0.1:0");
}

#[test]
fn health_answers_ok() {
    let s = TestServer::start(&[]);
    let r = s.get("/api/v1/health");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json(), serde_json::json!({"status": "ok"}));
}

#[test]
fn system_reports_version_api_licence_uptime_and_readiness() {
    let s = TestServer::start(&[]);
    s.wait_idle();
    let v = s.get("/api/v1/system").json();
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["api"], "v1");
    assert_eq!(v["licence"], "MIT");
    assert!(v["uptime_s"].is_u64());
    assert_eq!(
        v["library_ready"], true,
        "the first scan has completed: {v}"
    );
}

#[test]
fn library_is_not_ready_until_the_first_scan_completes() {
    let s = TestServer::start(&["--task-delay-ms", "1500"]);
    let v = s.get("/api/v1/system").json();
    assert_eq!(v["library_ready"], false);
    let job = s.get("/api/v1/job").json();
    assert_eq!(job["running"], true, "a first scan starts by itself");
    assert_eq!(job["label"], "scan");
    s.wait_idle();
    assert_eq!(s.get("/api/v1/system").json()["library_ready"], true);
}

#[test]
fn job_while_idle_has_the_idle_shape_and_the_last_run() {
    let s = TestServer::start(&[]);
    let job = s.wait_idle();
    assert_eq!(job["running"], false);
    assert_eq!(job["label"], "");
    assert_eq!(job["done"], 0);
    assert_eq!(job["total"], 0);
    assert_eq!(job["detail"], "");
    assert_eq!(job["unit"], "files");
    assert!(job["started_at"].is_null());
    let last = &job["last"];
    assert_eq!(last["label"], "scan");
    assert_eq!(last["result"], "ok");
    for field in ["started_at", "finished_at", "message"] {
        assert!(last[field].is_string(), "{field} in {last}");
    }
    for field in ["done", "total", "errors"] {
        assert!(last[field].is_u64(), "{field} in {last}");
    }
}

#[test]
fn job_while_running_shows_label_unit_and_start() {
    let s = TestServer::start(&["--task-delay-ms", "30000"]);
    let job = s.get("/api/v1/job").json();
    assert_eq!(job["running"], true);
    assert_eq!(job["label"], "scan");
    assert_eq!(job["unit"], "files");
    assert!(job["started_at"].is_string());
}

#[test]
fn unknown_route_is_a_json_404() {
    let s = TestServer::start(&[]);
    // A page address people mistype gets the HTML 404 page (tests/it/admin_web.rs);
    // everything under /api/ keeps its JSON.
    for path in ["/api/v1/nope", "/api/nothing/here", "/api/v1/health/extra"] {
        let r = s.get(path);
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.slug(), "not_found");
        assert!(r.json()["message"].is_string());
        assert_no_server_path(&s, &r.body);
    }
}

#[test]
fn wrong_method_is_405_with_allow() {
    let s = TestServer::start(&[]);
    let r = s.send("DELETE", "/api/v1/health", &[], None);
    assert_eq!(r.status, 405);
    assert_eq!(r.slug(), "method_not_allowed");
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
    assert_eq!(s.post("/api/v1/health").header("allow"), Some("GET, HEAD"));
    let r = s.get("/api/v1/scan");
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST"));
    assert_no_server_path(&s, &r.body);
}

#[test]
fn body_over_the_cap_is_413() {
    let s = TestServer::start(&["--max-body", "1024"]);
    let r = s.send("POST", "/api/v1/scan", &[], Some(vec![b'x'; 4096]));
    assert_eq!(r.status, 413);
    assert_eq!(r.slug(), "payload_too_large");
    assert_no_server_path(&s, &r.body);
}

#[test]
fn a_panicking_handler_is_a_500_and_every_worker_keeps_serving() {
    let s = TestServer::start(&["--test-routes", "--workers", "2"]);
    for _ in 0..6 {
        let r = s.get("/api/test/panic");
        assert_eq!(r.status, 500);
        assert_eq!(r.slug(), "internal_error");
        assert!(
            !r.body.contains("deliberate"),
            "the cause stays in the log: {}",
            r.body
        );
        assert_no_server_path(&s, &r.body);
    }
    // Two workers that had each panicked several times still answer, side by side.
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let base = s.base.clone();
            std::thread::spawn(move || {
                (0..20)
                    .map(|_| {
                        ureq::get(&format!("{base}/api/v1/health"))
                            .call()
                            .unwrap()
                            .status()
                            .as_u16()
                    })
                    .all(|st| st == 200)
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap());
    }
    assert!(
        s.output().contains("deliberate panic"),
        "the cause is logged"
    );
}

/// Let the automatic first scan finish, then send one POST per path, all at once
/// (released together by a barrier). Returns each (status, body).
fn race(s: &TestServer, paths: &[&str]) -> Vec<(u16, String)> {
    wait_until("the first scan's end", Duration::from_secs(20), || {
        s.get("/api/v1/job").json()["running"] != true
    });
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(paths.len()));
    let handles: Vec<_> = paths
        .iter()
        .map(|path| {
            let (url, barrier) = (format!("{}{path}", s.base), barrier.clone());
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .build()
                    .into();
                barrier.wait();
                let mut r = agent.post(&url).send_empty().unwrap();
                (r.status().as_u16(), r.body_mut().read_to_string().unwrap())
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

/// (started, refused as busy)
fn tally(results: &[(u16, String)]) -> (usize, usize) {
    let accepted = results.iter().filter(|(st, _)| *st == 202).count();
    let busy = results
        .iter()
        .filter(|(st, body)| *st == 409 && body.contains("\"busy\""))
        .count();
    (accepted, busy)
}

#[test]
fn sixty_four_concurrent_scan_requests_start_exactly_one_task() {
    let s = TestServer::start(&["--task-delay-ms", "3000"]);
    let results = race(&s, &["/api/v1/scan"; 64]);
    assert_eq!(tally(&results), (1, 63), "{results:?}");
    let started: serde_json::Value =
        serde_json::from_str(&results.iter().find(|(st, _)| *st == 202).unwrap().1).unwrap();
    assert_eq!(started["running"], true);
    assert_eq!(started["label"], "scan");
}

#[test]
fn a_database_newer_than_the_code_is_refused() {
    let folders = Folders::new();
    std::fs::create_dir_all(&folders.data).unwrap();
    let conn = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let (status, stdout, stderr) = folders.cli(&["serve", "--listen", "127.0.0.1:0"]);
    assert!(!status.success());
    assert!(!stdout.contains("listening"), "{stdout}");
    assert!(
        stderr.contains(&said_fr(Msg::DatabaseTooNew)),
        "French message: {stderr}"
    );
    assert!(
        stderr.contains("newer than"),
        "the cause, in English: {stderr}"
    );
    let conn = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 999, "the database is left as it was");
}

/// Wait until the job thread has recorded the run it is in (a kill before that leaves
/// nothing to mark, as nothing ran).
fn wait_for_running_row(folders: &Folders) {
    wait_until("the run's row", Duration::from_secs(10), || {
        let conn = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM job_runs WHERE result = 'running'",
                [],
                |r| r.get(0),
            )
            .unwrap_or(0);
        n > 0
    });
}

#[test]
fn sigterm_stops_cleanly_with_exit_zero_and_an_intact_database() {
    let folders = Folders::new();
    let mut s = TestServer::start_on(folders.clone(), &["--task-delay-ms", "60000"]);
    assert_eq!(s.get("/api/v1/job").json()["running"], true);
    wait_for_running_row(&folders);
    let t0 = Instant::now();
    s.signal(libc::SIGTERM);
    let status = s
        .wait_exit(Duration::from_secs(5))
        .expect("exit within 5 s");
    assert!(status.success(), "{status:?}");
    assert!(t0.elapsed() < Duration::from_secs(5));
    let conn = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let result: String = conn
        .query_row(
            "SELECT result FROM job_runs ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(result, "interrupted", "the stopped task is recorded");
}

#[test]
fn sigint_also_stops_with_exit_zero() {
    let mut s = TestServer::start(&[]);
    s.wait_idle();
    s.signal(libc::SIGINT);
    let status = s
        .wait_exit(Duration::from_secs(5))
        .expect("exit within 5 s");
    assert!(status.success());
}

#[test]
fn a_task_killed_with_the_process_is_recorded_interrupted_at_next_start() {
    let folders = Folders::new();
    let mut s = TestServer::start_on(folders.clone(), &["--task-delay-ms", "60000"]);
    assert_eq!(s.get("/api/v1/job").json()["running"], true);
    wait_for_running_row(&folders);
    s.kill();
    let s = TestServer::start_on(folders, &[]);
    let job = s.wait_idle();
    // The new start ran its own first scan; the history keeps the interrupted one.
    assert_eq!(s.folders.run_results(), ["interrupted", "ok"], "{job}");
}

#[test]
fn a_second_server_on_the_same_data_folder_is_refused() {
    let folders = Folders::new();
    let _s = TestServer::start_on(folders.clone(), &[]);
    let (status, _, stderr) = folders.cli(&["serve", "--listen", "127.0.0.1:0"]);
    assert!(!status.success());
    assert!(stderr.contains(&said_fr(Msg::DataLocked)), "{stderr}");
}

#[test]
fn the_access_log_never_contains_the_query_string() {
    let s = TestServer::start(&[]);
    s.get("/api/v1/health?apikey=ldq_secretsecretsecret&x=1");
    let logged = || s.folders.log().contains("access GET /api/v1/health");
    crate::harness::wait_until("the access line", Duration::from_secs(5), logged);
    let log = s.folders.log();
    assert!(log.contains("access GET /api/v1/health 200"), "{log}");
    assert!(!log.contains("secretsecret"), "{log}");
}

#[test]
fn every_flag_can_come_from_a_ludotheque_variable() {
    use std::io::BufRead;
    let folders = Folders::new();
    let mut child = crate::harness::ludotheque()
        .env("LUDOTHEQUE_DATA", &folders.data)
        .env("LUDOTHEQUE_LIBRARY", &folders.library)
        .env("LUDOTHEQUE_LISTEN", "127.0.0.1:0")
        .env("LUDOTHEQUE_WORKERS", "3")
        .env("LUDOTHEQUE_NO_LOCAL_ACCESS", "true")
        .env("LUDOTHEQUE_LOG_LEVEL", "debug")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line.trim().trim_start_matches("listening on ").to_string();
    assert!(base.starts_with("http://127.0.0.1:"), "{line}");
    let status = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent()
        .get(&format!("{base}/api/v1/job"))
        .call()
        .unwrap()
        .status()
        .as_u16();
    assert_eq!(status, 401, "LUDOTHEQUE_NO_LOCAL_ACCESS was read");
    assert!(
        folders.data.join("ludotheque.db").exists(),
        "LUDOTHEQUE_DATA was read"
    );
    let _ = child.kill();
    let _ = child.wait();
    // A flag wins over its variable.
    let (status, out, _) = {
        let out = crate::harness::ludotheque()
            .env("LUDOTHEQUE_DATA", "/nonexistent/never")
            .args(["--data", folders.data.to_str().unwrap(), "apikey", "list"])
            .output()
            .unwrap();
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
            (),
        )
    };
    assert!(status.success(), "{out}");
}

#[test]
fn a_hundred_concurrent_posts_across_scan_convert_and_push_start_exactly_one_task() {
    let s = TestServer::start(&["--task-delay-ms", "3000"]);
    let paths: Vec<&str> = (0..100)
        .map(|i| ["/api/v1/scan", "/api/v1/convert", "/api/v1/push"][i % 3])
        .collect();
    let results = race(&s, &paths);
    assert_eq!(tally(&results), (1, 99), "{results:?}");
    s.wait_idle();
    let conn = rusqlite::Connection::open(s.folders.data.join("ludotheque.db")).unwrap();
    let runs: i64 = conn
        .query_row("SELECT count(*) FROM job_runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 2, "the first scan, then exactly one of the hundred");
}
