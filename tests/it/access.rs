//! API keys and access control (contract section 5, `docs/security.md` §3).

use std::time::Duration;

use crate::harness::{basic, Folders, TestServer};
use ludotheque::testkit::Msg;

/// Create a key with the command line; returns the secret.
pub fn create_key(folders: &Folders, name: &str, extra: &[&str]) -> String {
    let mut args = vec!["apikey", "create", name];
    args.extend_from_slice(extra);
    let (status, out, err) = folders.cli(&args);
    assert!(status.success(), "{out}{err}");
    out.lines()
        .map(str::trim)
        .find(|l| l.starts_with("ldq_"))
        .unwrap_or_else(|| panic!("no key printed: {out}"))
        .to_string()
}

/// A server without the loopback rule (so keys are required), many failures allowed.
fn locked_server(extra: &[&str]) -> (TestServer, String) {
    let folders = Folders::new();
    let key = create_key(&folders, "tests", &[]);
    let mut args = vec!["--no-local-access", "--auth-failures-per-minute", "1000"];
    args.extend_from_slice(extra);
    let s = TestServer::start_on(folders, &args);
    (s, key)
}

fn get_with(s: &TestServer, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let r = s.send("GET", path, headers, None);
    let slug = if r.status >= 400 {
        r.slug()
    } else {
        String::new()
    };
    (r.status, slug)
}

const UNKNOWN_BUT_WELL_FORMED: &str = "ldq_abcdefghijklmnopqrstuvwxyz012345";

#[test]
fn no_key_is_401_on_every_private_route() {
    let (s, _) = locked_server(&[]);
    for path in ["/api/v1/system", "/api/v1/job", "/api/v1/nope"] {
        assert_eq!(
            get_with(&s, path, &[]),
            (401, "unauthorized".into()),
            "{path}"
        );
    }
    let r = s.post("/api/v1/scan");
    assert_eq!((r.status, r.slug()), (401, "unauthorized".into()));
}

#[test]
fn health_needs_no_key() {
    let (s, _) = locked_server(&[]);
    assert_eq!(s.get("/api/v1/health").status, 200);
}

#[test]
fn a_valid_key_works_in_the_header_and_in_the_query() {
    let (s, key) = locked_server(&[]);
    assert_eq!(
        get_with(&s, "/api/v1/system", &[("X-Api-Key", &key)]).0,
        200
    );
    assert_eq!(
        get_with(&s, &format!("/api/v1/system?apikey={key}"), &[]).0,
        200
    );
    let r = s.send("POST", "/api/v1/scan", &[("X-Api-Key", &key)], None);
    assert!(r.status == 202 || r.status == 409, "{r:?}");
}

#[test]
fn the_header_wins_over_the_query() {
    let (s, key) = locked_server(&[]);
    let path = format!("/api/v1/system?apikey={UNKNOWN_BUT_WELL_FORMED}");
    assert_eq!(get_with(&s, &path, &[("X-Api-Key", &key)]).0, 200);
    let path = format!("/api/v1/system?apikey={key}");
    assert_eq!(
        get_with(&s, &path, &[("X-Api-Key", UNKNOWN_BUT_WELL_FORMED)]).0,
        401
    );
}

#[test]
fn unknown_and_malformed_keys_are_401_in_header_and_query() {
    let (s, key) = locked_server(&[]);
    let mut corrupted = key.clone().into_bytes();
    corrupted[12] = if corrupted[12] == b'A' { b'B' } else { b'A' };
    let corrupted = String::from_utf8(corrupted).unwrap();
    for bad in [
        UNKNOWN_BUT_WELL_FORMED,
        "nonsense",
        "",
        "ldq_",
        corrupted.as_str(),
    ] {
        assert_eq!(
            get_with(&s, "/api/v1/job", &[("X-Api-Key", bad)]),
            (401, "unauthorized".into()),
            "header {bad:?}"
        );
        assert_eq!(
            get_with(&s, &format!("/api/v1/job?apikey={bad}"), &[]),
            (401, "unauthorized".into()),
            "query {bad:?}"
        );
    }
}

#[test]
fn a_revoked_key_is_401_even_from_loopback() {
    let folders = Folders::new();
    let key = create_key(&folders, "to-revoke", &[]);
    // Loopback rule on: a keyless request would pass, a revoked key must not.
    let s = TestServer::start_on(folders.clone(), &[]);
    assert_eq!(get_with(&s, "/api/v1/job", &[("X-Api-Key", &key)]).0, 200);
    let (status, out, _) = folders.cli(&["apikey", "revoke", "1"]);
    assert!(status.success());
    assert!(out.contains("révoquée"), "{out}");
    assert_eq!(
        get_with(&s, "/api/v1/job", &[("X-Api-Key", &key)]),
        (401, "unauthorized".into())
    );
    assert_eq!(
        get_with(&s, &format!("/api/v1/job?apikey={key}"), &[]).0,
        401
    );
    assert_eq!(
        get_with(&s, "/api/v1/job", &[]).0,
        200,
        "keyless loopback still works"
    );
}

#[test]
fn a_read_only_key_reads_but_cannot_start_a_task() {
    let folders = Folders::new();
    let key = create_key(&folders, "dashboard", &["--read-only"]);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    assert_eq!(get_with(&s, "/api/v1/job", &[("X-Api-Key", &key)]).0, 200);
    let r = s.send("POST", "/api/v1/scan", &[("X-Api-Key", &key)], None);
    assert_eq!((r.status, r.slug()), (403, "forbidden".into()));
}

#[test]
fn loopback_without_a_key_has_full_access_unless_turned_off() {
    let s = TestServer::start(&[]);
    assert_eq!(get_with(&s, "/api/v1/job", &[]).0, 200);
    let (locked, _) = locked_server(&[]);
    assert_eq!(get_with(&locked, "/api/v1/job", &[]).0, 401);
}

#[test]
fn a_forwarded_header_or_a_foreign_host_loses_the_loopback_rule() {
    let s = TestServer::start(&["--auth-failures-per-minute", "1000"]);
    for header in [
        ("X-Forwarded-For", "203.0.113.9"),
        ("Forwarded", "for=203.0.113.9"),
        ("X-Real-IP", "203.0.113.9"),
        ("X-Forwarded-Host", "example.org"),
        ("Host", "example.org"),
        ("Host", "localhost.example.org"),
    ] {
        assert_eq!(get_with(&s, "/api/v1/job", &[header]).0, 401, "{header:?}");
    }
    assert_eq!(
        get_with(&s, "/api/v1/job", &[("Host", "localhost:1234")]).0,
        200
    );
}

#[test]
fn a_key_narrows_loopback_access_to_its_scope() {
    let folders = Folders::new();
    let key = create_key(&folders, "scoped", &[]);
    let s = TestServer::start_on(folders, &["--test-routes"]);
    // From loopback, a keyless request reaches the test route (500 from its panic)...
    assert_eq!(s.get("/api/test/panic").status, 500);
    // ...but once a key is presented, only /api/v1/ is in reach.
    for path in ["/api/test/panic", "/", "/api/anything"] {
        assert_eq!(
            get_with(&s, path, &[("X-Api-Key", &key)]),
            (403, "forbidden".into()),
            "{path}"
        );
    }
}

#[test]
fn a_foreign_origin_on_a_post_is_403_and_no_origin_is_accepted() {
    let (s, key) = locked_server(&["--task-delay-ms", "200"]);
    let k = ("X-Api-Key", key.as_str());
    for headers in [
        vec![k, ("Origin", "http://evil.example")],
        vec![k, ("Origin", "null")],
        vec![k, ("Sec-Fetch-Site", "cross-site")],
        vec![k, ("Sec-Fetch-Site", "same-site")],
    ] {
        let r = s.send("POST", "/api/v1/scan", &headers, None);
        assert_eq!(
            (r.status, r.slug()),
            (403, "cross_origin".into()),
            "{headers:?}"
        );
    }
    s.wait_idle_with(&key);
    let r = s.send("POST", "/api/v1/scan", &[k], None);
    assert_eq!(r.status, 202, "no Origin (curl) is accepted: {r:?}");
    s.wait_idle_with(&key);
    let same = format!("http://{}", s.addr);
    let r = s.send(
        "POST",
        "/api/v1/scan",
        &[k, ("Origin", &same), ("Sec-Fetch-Site", "same-origin")],
        None,
    );
    assert_eq!(r.status, 202, "same origin is accepted: {r:?}");
}

#[test]
fn the_eleventh_failed_attempt_is_429_and_its_retry_after_is_honest() {
    let s = TestServer::start(&["--no-local-access"]);
    let wrong = [("X-Api-Key", UNKNOWN_BUT_WELL_FORMED)];
    for i in 0..10 {
        assert_eq!(
            get_with(&s, "/api/v1/job", &wrong).0,
            401,
            "attempt {}",
            i + 1
        );
    }
    let r = s.send("GET", "/api/v1/job", &wrong, None);
    assert_eq!((r.status, r.slug()), (429, "rate_limited".into()));
    let wait: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    // Time itself must pass: the limit lifts after the delay it announced.
    std::thread::sleep(Duration::from_secs(wait));
    assert_eq!(
        get_with(&s, "/api/v1/job", &wrong).0,
        401,
        "after Retry-After: 401 again, not 429"
    );
}

#[test]
fn a_valid_key_is_not_locked_out_by_failures_from_its_address() {
    let folders = Folders::new();
    let key = create_key(&folders, "ok", &[]);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let wrong = [("X-Api-Key", UNKNOWN_BUT_WELL_FORMED)];
    for _ in 0..12 {
        s.send("GET", "/api/v1/job", &wrong, None);
    }
    assert_eq!(get_with(&s, "/api/v1/job", &wrong).0, 429);
    assert_eq!(get_with(&s, "/api/v1/job", &[("X-Api-Key", &key)]).0, 200);
}

#[test]
fn each_key_has_its_own_rate_limit() {
    let folders = Folders::new();
    let key = create_key(&folders, "busy", &[]);
    let other = create_key(&folders, "other", &[]);
    let s = TestServer::start_on(folders, &["--key-rate", "0.5", "--key-burst", "3"]);
    for _ in 0..3 {
        assert_eq!(get_with(&s, "/api/v1/job", &[("X-Api-Key", &key)]).0, 200);
    }
    let r = s.send("GET", "/api/v1/job", &[("X-Api-Key", &key)], None);
    assert_eq!((r.status, r.slug()), (429, "rate_limited".into()));
    assert_eq!(r.header("retry-after"), Some("2"));
    assert_eq!(get_with(&s, "/api/v1/job", &[("X-Api-Key", &other)]).0, 200);
}

#[test]
fn apikey_create_prints_the_name_the_key_and_the_hash_note() {
    let folders = Folders::new();
    let (status, out, _) = folders.cli(&["apikey", "create", "nightly-scan"]);
    assert!(status.success());
    assert!(out.contains("nightly-scan"), "{out}");
    assert!(out.contains("empreinte"), "{out}");
    assert!(out.contains("plus jamais"), "{out}");
    let key = out
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("ldq_"))
        .unwrap();
    assert_eq!(key.len(), 42);
    // The key itself is not in the database, only its hash.
    let raw = std::fs::read(folders.data.join("ludotheque.db")).unwrap();
    let wal = std::fs::read(folders.data.join("ludotheque.db-wal")).unwrap_or_default();
    for bytes in [raw, wal] {
        assert!(!bytes.windows(key.len()).any(|w| w == key.as_bytes()));
    }
}

#[test]
fn apikey_create_needs_a_name() {
    let folders = Folders::new();
    let (status, _, err) = folders.cli(&["apikey", "create", "  "]);
    assert!(!status.success());
    let length = Msg::NameLength {
        what: "A key's name (what it is for)".into(),
        max: 64,
    };
    assert!(err.contains(&length.french()), "{err}");
    let (status, _, _) = folders.cli(&["apikey", "create"]);
    assert!(!status.success());
}

#[test]
fn apikey_list_shows_id_name_prefix_dates_and_state() {
    let folders = Folders::new();
    let key = create_key(&folders, "first", &[]);
    create_key(&folders, "second", &["--read-only"]);
    folders.cli(&["apikey", "revoke", "2"]);
    let s = TestServer::start_on(folders.clone(), &[]);
    assert_eq!(get_with(&s, "/api/v1/job", &[("X-Api-Key", &key)]).0, 200);
    let (status, out, _) = folders.cli(&["apikey", "list"]);
    assert!(status.success());
    let first = out.lines().find(|l| l.contains("first")).expect(&out);
    assert!(first.starts_with("1 "), "{first}");
    assert!(first.contains(&key[..8]), "prefix: {first}");
    assert!(first.contains("active"), "{first}");
    assert!(!first.contains("jamais"), "last use recorded: {first}");
    let second = out.lines().find(|l| l.contains("second")).expect(&out);
    assert!(second.contains("révoquée"), "{second}");
    assert!(second.contains("lecture seule"), "{second}");
    assert!(second.contains("jamais"), "{second}");
    assert!(!out.contains(&key[8..]), "the secret is never listed");
}

#[test]
fn apikey_revoke_of_an_unknown_id_fails_clearly() {
    let folders = Folders::new();
    let (status, _, err) = folders.cli(&["apikey", "revoke", "42"]);
    assert!(!status.success());
    assert!(err.contains("42"), "{err}");
    let (status, _, _) = folders.cli(&["apikey", "revoke", "abc"]);
    assert!(!status.success());
}

#[test]
fn a_key_created_while_the_server_runs_works_at_once() {
    let folders = Folders::new();
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    let key = create_key(&folders, "live", &[]);
    assert_eq!(get_with(&s, "/api/v1/job", &[("X-Api-Key", &key)]).0, 200);
}

#[test]
fn no_key_ever_reaches_the_log() {
    let folders = Folders::new();
    let key = create_key(&folders, "secretive", &[]);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    get_with(&s, "/api/v1/job", &[("X-Api-Key", &key)]);
    get_with(&s, &format!("/api/v1/job?apikey={key}"), &[]);
    get_with(&s, &format!("/api/v1/nope?apikey={key}&x=1"), &[]);
    get_with(&s, "/api/v1/job", &[("X-Api-Key", UNKNOWN_BUT_WELL_FORMED)]);
    s.send("POST", "/api/v1/scan", &[("X-Api-Key", &key)], None);
    let logged = || folders.log().contains("access POST /api/v1/scan");
    crate::harness::wait_until("the scan's access line", Duration::from_secs(5), logged);
    drop(s);
    let log = folders.log();
    assert!(log.contains("access GET /api/v1/job 200"), "{log}");
    assert!(
        log.contains(&format!("key={}", &key[..8])),
        "the prefix identifies the caller"
    );
    assert!(!log.contains(&key[8..]), "{log}");
    assert!(!log.contains(&UNKNOWN_BUT_WELL_FORMED[8..]), "{log}");
}

fn add_console(folders: &Folders, name: &str) -> String {
    folders.add_console(name)
}

fn sign_in_status(s: &TestServer, name: &str, password: &str) -> u16 {
    let body = serde_json::json!({"name": name, "password": password});
    let headers = [("Content-Type", "application/json")];
    let r = s.send(
        "POST",
        "/api/login",
        &headers,
        Some(body.to_string().into_bytes()),
    );
    r.status
}

/// Issue 36, item 6: the failure limit is checked before the secret, so a limited
/// address gets 429 with the right console password and the right sign-in too, and
/// wrong sign-ins and wrong console passwords fill one budget. Its own valid key
/// still works there.
#[test]
fn a_limited_address_is_429_whatever_secret_it_sends() {
    let folders = Folders::new();
    let key = create_key(&folders, "script", &[]);
    crate::web::add_user(&folders, "alice", "correct horse", true);
    let password = add_console(&folders, "salon");
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let shop = |auth: &str| s.send("GET", "/shop", &[("Authorization", auth)], None);
    // Five wrong console passwords, five wrong sign-ins: the ten of the minute.
    for _ in 0..5 {
        assert_eq!(shop(&basic("salon", "wrong password")).status, 401);
        assert_eq!(sign_in_status(&s, "alice", "wrong guess"), 401);
    }
    let r = shop(&basic("salon", &password));
    assert_eq!((r.status, r.slug()), (429, "rate_limited".into()), "{r:?}");
    assert!(r.header("retry-after").is_some());
    assert_eq!(sign_in_status(&s, "alice", "correct horse"), 429);
    assert_eq!(
        get_with(&s, "/api/v1/job", &[("X-Api-Key", UNKNOWN_BUT_WELL_FORMED)]).0,
        429
    );
    // A valid key keeps working from the limited address (its own bucket).
    assert_eq!(get_with(&s, "/api/v1/job", &[("X-Api-Key", &key)]).0, 200);
}

/// The same for the setup code of the first admin: ten wrong codes, then the right
/// one is 429 and creates nothing.
#[test]
fn a_limited_address_cannot_use_even_the_right_setup_code() {
    let s = TestServer::start(&["--no-local-access"]);
    s.wait_for_log("setup code ");
    let log = s.output();
    let at = log.find("setup code ").unwrap() + "setup code ".len();
    let code = log[at..].split_whitespace().next().unwrap().to_string();
    let setup = |code: &str| {
        let body =
            serde_json::json!({"name": "root", "password": "long enough", "setup_code": code});
        let headers = [("Content-Type", "application/json")];
        s.send(
            "POST",
            "/api/setup",
            &headers,
            Some(body.to_string().into_bytes()),
        )
    };
    for i in 0..10 {
        assert_eq!(setup(&format!("wrong{i}")).status, 403);
    }
    let r = setup(&code);
    assert_eq!((r.status, r.slug()), (429, "rate_limited".into()), "{r:?}");
    assert_eq!(s.get("/setup").status, 200, "still no account");
}

/// Only wrong secrets count: requests that present nothing (no key, no session, no
/// console password, no setup code) are 401 or 403 at no cost, and a valid key on an
/// address no route knows is 404 at no cost; the ten wrong keys of the minute are
/// still all there after them.
#[test]
fn requests_without_a_secret_or_with_a_valid_one_cost_no_failure() {
    let folders = Folders::new();
    let key = create_key(&folders, "script", &[]);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let empty_setup = || {
        let body = serde_json::json!({"name": "root", "password": "long enough"});
        let headers = [("Content-Type", "application/json")];
        s.send(
            "POST",
            "/api/setup",
            &headers,
            Some(body.to_string().into_bytes()),
        )
    };
    for _ in 0..12 {
        assert_eq!(get_with(&s, "/api/v1/job", &[]).0, 401);
        assert_eq!(s.get("/shop").status, 401);
        assert_eq!(empty_setup().status, 403);
        let stale = [("Cookie", "ldq_session=no-such-session")];
        assert_eq!(get_with(&s, "/api/v1/job", &stale).0, 401);
        let r = s.send("GET", "/api/v1/no-such-route", &[("X-Api-Key", &key)], None);
        assert_eq!((r.status, r.slug()), (404, "not_found".into()));
    }
    let wrong = [("X-Api-Key", UNKNOWN_BUT_WELL_FORMED)];
    for i in 0..10 {
        assert_eq!(
            get_with(&s, "/api/v1/job", &wrong).0,
            401,
            "wrong key {}",
            i + 1
        );
    }
    assert_eq!(get_with(&s, "/api/v1/job", &wrong).0, 429);
    // Limited now; a request with nothing to check is still told what it lacks.
    assert_eq!(get_with(&s, "/api/v1/job", &[]).0, 401);
}

/// A tiny TCP forwarder in a child process running as another user, as a reverse
/// proxy on the same machine runs (nginx's bare `proxy_pass`: no forwarding header).
/// It listens on 127.0.0.1 and forwards each connection, one at a time, to the
/// service. Forked, not run from a file, so no binary needs to be readable by that
/// user; the child makes only system calls, which is all a fork of a threaded process
/// may do. Killed when dropped.
struct Forwarder {
    pid: libc::pid_t,
    port: u16,
}

impl Forwarder {
    fn start(uid: u32, gid: u32, target: u16) -> Forwarder {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let to = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: target.to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(std::net::Ipv4Addr::LOCALHOST).to_be(),
            },
            sin_zero: [0; 8],
        };
        use std::os::fd::AsRawFd;
        let fd = listener.as_raw_fd();
        // SAFETY: the child calls only async-signal-safe functions (system calls) on
        // memory it owns, and leaves with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            unsafe { forward(fd, &to, uid, gid) }
        }
        Forwarder { pid, port }
    }

    /// GET `path` through the forwarder with a loopback `Host` and no forwarding
    /// header; the status.
    fn get(&self, path: &str) -> u16 {
        raw_get(self.port, path)
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        // SAFETY: our own child, killed and reaped once.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// One request on its own connection (`Connection: close`); the status.
fn raw_get(port: u16, path: &str) -> u16 {
    raw_get_with(port, path, "")
}

/// [`raw_get`] with more header lines (each ending in CRLF).
fn raw_get_with(port: u16, path: &str, headers: &str) -> u16 {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}Connection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status = answer.split_whitespace().nth(1).unwrap_or("");
    status
        .parse()
        .unwrap_or_else(|_| panic!("no answer: {answer:?}"))
}

/// The forwarder's body, in the child: drop to `uid`, then copy bytes both ways.
unsafe fn forward(listener: i32, to: &libc::sockaddr_in, uid: u32, gid: u32) -> ! {
    if libc::setgroups(0, std::ptr::null()) != 0 || libc::setgid(gid) != 0 || libc::setuid(uid) != 0
    {
        libc::_exit(2);
    }
    let mut buf = [0u8; 16 * 1024];
    loop {
        let client = libc::accept(listener, std::ptr::null_mut(), std::ptr::null_mut());
        if client < 0 {
            continue;
        }
        // Made after setuid: this socket, the service's peer, belongs to `uid`.
        let upstream = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        let size = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        if upstream >= 0
            && libc::connect(upstream, to as *const _ as *const libc::sockaddr, size) == 0
        {
            pump(client, upstream, &mut buf);
        }
        libc::close(upstream);
        libc::close(client);
    }
}

/// Copy bytes between two sockets until either side ends.
unsafe fn pump(a: i32, b: i32, buf: &mut [u8]) {
    let mut fds = [
        libc::pollfd {
            fd: a,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: b,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        if libc::poll(fds.as_mut_ptr(), 2, -1) < 0 {
            return;
        }
        for (from, to) in [(0, 1), (1, 0)] {
            if fds[from].revents == 0 {
                continue;
            }
            let n = libc::read(fds[from].fd, buf.as_mut_ptr().cast(), buf.len());
            if n <= 0 {
                return;
            }
            let mut sent = 0;
            while sent < n as usize {
                let w = libc::send(
                    fds[to].fd,
                    buf.as_ptr().add(sent).cast(),
                    n as usize - sent,
                    libc::MSG_NOSIGNAL,
                );
                if w <= 0 {
                    return;
                }
                sent += w as usize;
            }
        }
    }
}

/// A trusted proxy on this machine signs people in by its header only when it is a
/// program the loopback rule admits: another user's program sending `Remote-User`
/// names no one, unless `--local-access-users` names that user.
#[test]
fn another_users_program_on_a_trusted_loopback_names_no_one() {
    let Some((uid, gid)) = nobody() else {
        return;
    };
    let folders = Folders::new();
    crate::web::add_user(&folders, "admin", "admin password", true);
    let as_admin = "Remote-User: admin\r\n";
    for (args, nobody_signs_in) in [
        (&["--trusted-proxy", "127.0.0.1"][..], false),
        (
            &[
                "--trusted-proxy",
                "127.0.0.1",
                "--local-access-users",
                "nobody",
            ],
            true,
        ),
    ] {
        let s = TestServer::start_on(folders.clone(), args);
        let port: u16 = s.addr.rsplit(':').next().unwrap().parse().unwrap();
        assert_eq!(
            raw_get_with(port, "/api/users", as_admin),
            200,
            "root's proxy"
        );
        let proxy = Forwarder::start(uid, gid, port);
        let expected = if nobody_signs_in { 200 } else { 401 };
        assert_eq!(
            raw_get_with(proxy.port, "/api/users", as_admin),
            expected,
            "{args:?}"
        );
        drop((proxy, s));
    }
}

/// `nobody`'s uid and gid, when this test may act as it (it runs as root in CI).
fn nobody() -> Option<(u32, u32)> {
    // SAFETY: geteuid cannot fail and touches no memory of ours.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: only root can run a forwarder as another user");
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let line = passwd.lines().find(|l| l.starts_with("nobody:"));
    let ids = line.and_then(|l| {
        let f: Vec<&str> = l.split(':').collect();
        Some((f.get(2)?.parse().ok()?, f.get(3)?.parse().ok()?))
    });
    if ids.is_none() {
        eprintln!("skipped: this machine has no user nobody");
    }
    ids
}

/// Issue 36, item 8: a proxy on this machine that adds no forwarding header does not
/// get the loopback rule's full access for the whole internet. The owner of the
/// peer's socket decides: root's (this test's own requests) and the service's user's
/// get it, `nobody`'s only when `--local-access-users` names it (or with
/// `--local-access any`).
#[test]
fn a_forwarder_that_drops_to_another_user_gets_no_local_access() {
    let Some((uid, gid)) = nobody() else {
        return;
    };
    let folders = Folders::new();
    let s = TestServer::start_on(folders.clone(), &[]);
    let port: u16 = s.addr.rsplit(':').next().unwrap().parse().unwrap();
    assert_eq!(
        raw_get(port, "/api/users"),
        200,
        "root's own request is local"
    );
    let proxy = Forwarder::start(uid, gid, port);
    assert_eq!(proxy.get("/api/users"), 401);
    // An owner is remembered per connection (its socket's cookie): root's kept-alive
    // connection and nobody's, in turns, each keep their own answer.
    let agent = ureq::Agent::new_with_defaults();
    let root_get = || {
        agent
            .get(&format!("http://{}/api/users", s.addr))
            .call()
            .map(|r| r.status().as_u16())
            .unwrap_or_else(|e| match e {
                ureq::Error::StatusCode(code) => code,
                e => panic!("{e}"),
            })
    };
    for _ in 0..3 {
        assert_eq!(root_get(), 200, "root's connection");
        assert_eq!(proxy.get("/api/users"), 401, "nobody's, after root's");
    }
    assert_eq!(proxy.get("/api/v1/job"), 401);
    assert_eq!(
        proxy.get("/api/v1/health"),
        200,
        "public routes still answer"
    );
    s.wait_for_log(&format!(
        "program of uid {uid} on this machine gets no local access"
    ));
    drop((proxy, s));
    for args in [
        &["--local-access-users", "nobody"][..],
        &["--local-access", "any"],
    ] {
        let s = TestServer::start_on(folders.clone(), args);
        let port: u16 = s.addr.rsplit(':').next().unwrap().parse().unwrap();
        let proxy = Forwarder::start(uid, gid, port);
        assert_eq!(proxy.get("/api/users"), 200, "{args:?}");
    }
    let s = TestServer::start_on(folders.clone(), &["--local-access", "off"]);
    let port: u16 = s.addr.rsplit(':').next().unwrap().parse().unwrap();
    assert_eq!(raw_get(port, "/api/users"), 401, "off: nobody is local");
}

#[test]
fn local_access_flags_are_checked_at_start() {
    let folders = Folders::new();
    let serve = |extra: &[&str]| {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        folders.cli(&args)
    };
    let (status, _, err) = serve(&["--local-access-users", "root,no-such-user-here"]);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("no-such-user-here"), "{err}");
    let (status, _, err) = serve(&["--no-local-access", "--local-access", "any"]);
    assert_eq!(status.code(), Some(2), "{err}");
}
