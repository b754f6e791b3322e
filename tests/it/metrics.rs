//! `GET /metrics`: who may read it, its numbers against the library and what the
//! service did, and `promtool check metrics` on it (required in CI).

use std::collections::BTreeMap;

use crate::harness::{basic, Folders, TestServer};

/// The samples of a scrape: `name{labels}` → value.
fn samples(body: &str) -> BTreeMap<String, f64> {
    body.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, value) = l.rsplit_once(' ').unwrap();
            (name.to_string(), value.parse().unwrap())
        })
        .collect()
}

/// The sum of a family's samples whose labels hold every one of `with`.
fn sum(m: &BTreeMap<String, f64>, family: &str, with: &[&str]) -> f64 {
    m.iter()
        .filter(|(k, _)| k.split('{').next() == Some(family))
        .filter(|(k, _)| with.iter().all(|w| k.contains(w)))
        .map(|(_, v)| v)
        .sum()
}

fn scrape(s: &TestServer) -> BTreeMap<String, f64> {
    let r = s.get("/metrics");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("text/plain; version=0.0.4"));
    samples(&r.body)
}

/// A scrape once the API's request counts have settled: a request is counted after
/// its answer is written, so the one just answered may land a moment after the
/// client moved on (a count one short, then one over, in a run under load).
fn settled(s: &TestServer) -> BTreeMap<String, f64> {
    let api = |m: &BTreeMap<String, f64>| -> Vec<(String, f64)> {
        let of_api =
            |k: &&String| k.starts_with("ludotheque_http_requests_total{route_class=\"api\"");
        m.iter()
            .filter(|(k, _)| of_api(k))
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    };
    let mut last = scrape(s);
    loop {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let now = scrape(s);
        if api(&now) == api(&last) {
            return now;
        }
        last = now;
    }
}

fn api_key(folders: &Folders, read_only: bool) -> String {
    let mut args = vec!["apikey", "create", "prometheus"];
    if read_only {
        args.push("--read-only");
    }
    let (_, out, _) = folders.cli(&args);
    out.lines()
        .map(str::trim)
        .find(|l| l.starts_with("ldq_"))
        .unwrap()
        .to_string()
}

#[test]
fn metrics_count_the_library_the_requests_the_tasks_and_the_shop() {
    let folders = Folders::new();
    let lib = folders.library.to_str().unwrap().to_string();
    assert!(folders.cli(&["demo-library", &lib]).0.success());
    folders.scan();
    let password = folders.add_console("salon");
    let s = TestServer::start_on(folders.clone(), &[]);
    let stats = s.get("/api/v1/stats").json();
    let m = scrape(&s);
    // The library, as the stats see it.
    let files = |with: &[&str]| sum(&m, "ludotheque_library_files", with);
    assert_eq!(files(&[]), stats["total"].as_f64().unwrap());
    for (kind, stat) in [
        ("base", "base"),
        ("update", "update"),
        ("dlc", "dlc"),
        ("unknown", "unknown"),
    ] {
        let label = format!("type=\"{kind}\"");
        assert_eq!(files(&[&label]), stats[stat].as_f64().unwrap(), "{kind}");
    }
    assert_eq!(
        sum(&m, "ludotheque_library_bytes", &[]),
        stats["bytes"].as_f64().unwrap()
    );
    for (name, stat) in [
        ("ludotheque_titles", "titles"),
        ("ludotheque_titles_update_available", "updates_available"),
        ("ludotheque_titles_dlc_missing", "dlc_missing"),
    ] {
        assert_eq!(m[name], stats[stat].as_f64().unwrap(), "{name}");
    }
    // Per container: the keys' extensions.
    let listed = s.get("/api/v1/library?limit=200").json();
    let nsz = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["key"].as_str().unwrap().ends_with(".nsz"))
        .count();
    assert!(nsz > 0);
    assert_eq!(files(&["container=\"nsz\""]), nsz as f64);
    // A corrupt file found by a scan is one more damaged file, and a scan one more run.
    let damaged = sum(&m, "ludotheque_library_damaged_files", &[]);
    // (The scan says it could not read one file: a partial run.)
    let partial = "ludotheque_tasks_total{kind=\"scan\",result=\"partial\"}";
    let scans = sum(&m, "ludotheque_tasks_total", &["kind=\"scan\""]);
    std::fs::write(
        folders.library.join("Broken [0100000000990000][v0].nsp"),
        b"PFS0 not at all",
    )
    .unwrap();
    assert_eq!(s.post("/api/v1/scan").status, 202);
    s.wait_idle();
    let m = scrape(&s);
    assert_eq!(
        sum(&m, "ludotheque_library_damaged_files", &[]),
        damaged + 1.0
    );
    assert_eq!(m[partial], 1.0);
    assert_eq!(
        sum(&m, "ludotheque_tasks_total", &["kind=\"scan\""]),
        scans + 1.0
    );
    assert_eq!(
        m["ludotheque_task_duration_seconds_count{kind=\"scan\"}"],
        scans + 1.0
    );
    // Requests by class and status, and their latency histogram.
    let api_ok = "ludotheque_http_requests_total{route_class=\"api\",status=\"200\"}";
    let before = settled(&s).get(api_ok).copied().unwrap_or(0.0);
    for page in 1..=3 {
        s.get(&format!("/api/v1/library?page={page}"));
    }
    assert_eq!(s.get("/api/v1/library/nothing%20here.nsp").status, 404);
    let m = settled(&s);
    assert_eq!(m[api_ok], before + 3.0);
    assert!(m["ludotheque_http_requests_total{route_class=\"api\",status=\"404\"}"] >= 1.0);
    let count = "ludotheque_http_request_duration_seconds_count{route_class=\"api\"}";
    let inf = "ludotheque_http_request_duration_seconds_bucket{route_class=\"api\",le=\"+Inf\"}";
    assert_eq!(m[count], m[inf]);
    assert_eq!(
        m[count],
        sum(
            &m,
            "ludotheque_http_requests_total",
            &["route_class=\"api\""]
        )
    );
    // The shop's bytes, per console: one file downloaded whole.
    let (key, size) = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["playable"] == true)
        .map(|g| {
            (
                g["key"].as_str().unwrap().to_string(),
                g["size"].as_f64().unwrap(),
            )
        })
        .unwrap();
    let path = format!(
        "/shop/files/{}",
        key.replace(' ', "%20")
            .replace('[', "%5B")
            .replace(']', "%5D")
    );
    let auth = basic("salon", &password);
    let got = s.send("GET", &path, &[("Authorization", &auth)], None);
    assert_eq!(got.status, 200, "{path}");
    let m = scrape(&s);
    assert_eq!(
        m["ludotheque_shop_sent_bytes_total{console=\"salon\"}"],
        size
    );
    assert!(m["ludotheque_http_open_connections"] >= 0.0);
    assert!(m["ludotheque_process_private_memory_bytes"] > 1e6);
    assert!(m["ludotheque_process_open_fds"] >= 3.0);
    promtool(&s.get("/metrics").body);
}

/// `promtool check metrics` reads the scrape without a complaint; CI requires it
/// (`LUDOTHEQUE_REQUIRE_PROMTOOL`), a developer's machine may lack it.
fn promtool(body: &str) {
    use std::io::Write;
    let child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(_) if std::env::var_os("LUDOTHEQUE_REQUIRE_PROMTOOL").is_none() => {
            eprintln!("promtool not found: the scrape is not linted");
            return;
        }
        Err(e) => panic!("promtool: {e}"),
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(body.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && said.trim().is_empty(),
        "promtool: {said}\n{body}"
    );
}

#[test]
fn metrics_take_a_key_or_the_loopback_rule_and_never_redirect() {
    let folders = Folders::new();
    let read_only = api_key(&folders, true);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    for headers in [vec![], vec![("Accept", "text/html")]] {
        let r = s.send("GET", "/metrics", &headers, None);
        assert_eq!((r.status, r.header("location")), (401, None));
    }
    let r = s.send("GET", "/metrics", &[("X-Api-Key", &read_only)], None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("ludotheque_library_files"));
    // A key still opens nothing else outside the API.
    let r = s.send("GET", "/api/keys", &[("X-Api-Key", &read_only)], None);
    assert_eq!(r.status, 403);
    drop(s);
    // The loopback rule, on by default, opens it to a program of this user.
    let s = TestServer::start_on(folders, &[]);
    assert_eq!(s.get("/metrics").status, 200);
    let forwarded = s.send("GET", "/metrics", &[("X-Forwarded-For", "192.0.2.1")], None);
    assert_eq!(
        (forwarded.status, forwarded.header("location")),
        (401, None)
    );
}
