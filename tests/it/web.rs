//! The web interface through HTTP: accounts and sessions, the first-run page, every
//! internal `/api/` route by role, and the pages (issue "Web interface").

use std::sync::Arc;

use serde_json::{json, Value};

use crate::access::create_key;
use ludotheque::testkit::Msg;

use crate::harness::said_fr;
use crate::harness::tag;
use crate::harness::{Folders, Resp, TestServer};
use crate::library::demo;

/// Create an account with the command line, the password on standard input.
pub fn add_user(folders: &Folders, name: &str, password: &str, admin: bool) {
    let mut args = vec!["user", "add", name];
    if admin {
        args.push("--admin");
    }
    let (status, out, err) = folders.cli_with_input(&args, &format!("{password}\n"));
    assert!(status.success(), "{out}{err}");
}

/// Sign in; returns the `Cookie` header value to send back.
pub fn sign_in(s: &TestServer, name: &str, password: &str) -> String {
    let r = send_json(
        s,
        "POST",
        "/api/login",
        &[],
        json!({"name": name, "password": password}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    let set = r
        .header("set-cookie")
        .expect("a session cookie")
        .to_string();
    set.split(';').next().unwrap().to_string()
}

pub fn send_json(
    s: &TestServer,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> Resp {
    let mut h = vec![("Content-Type", "application/json")];
    h.extend_from_slice(headers);
    s.send(method, path, &h, Some(body.to_string().into_bytes()))
}

/// `POST /api/login` or `/api/setup` with a name and a password.
fn credentials(
    s: &TestServer,
    route: &str,
    headers: &[(&str, &str)],
    name: &str,
    password: &str,
) -> Resp {
    send_json(
        s,
        "POST",
        route,
        headers,
        json!({"name": name, "password": password}),
    )
}

/// The response is the error `status` with `slug` in its body.
fn refused(r: &Resp, status: u16, slug: &str, what: &str) {
    assert_eq!(
        (r.status, r.slug().as_str()),
        (status, slug),
        "{what}: {r:?}"
    );
}

/// A JSON request with a session cookie.
fn send_as(s: &TestServer, cookie: &str, method: &str, path: &str, body: Value) -> Resp {
    send_json(s, method, path, &[("Cookie", cookie)], body)
}

/// A server with accounts `admin` and `viewer`, no loopback rule, many failures allowed.
fn accounts_server(extra: &[&str]) -> TestServer {
    let folders = Folders::new();
    demo(&folders);
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    let mut args = vec!["--no-local-access", "--auth-failures-per-minute", "1000"];
    args.extend_from_slice(extra);
    let s = TestServer::start_on(folders, &args);
    s.wait_idle_with_cookie(&sign_in(&s, "admin", "admin password"));
    s
}

trait CookieWait {
    fn wait_idle_with_cookie(&self, cookie: &str);
}

impl CookieWait for TestServer {
    fn wait_idle_with_cookie(&self, cookie: &str) {
        let idle = || {
            let r = self.send("GET", "/api/job", &[("Cookie", cookie)], None);
            r.status == 200 && r.json()["running"] == false
        };
        let limit = std::time::Duration::from_secs(60);
        crate::harness::wait_until("the task's end", limit, idle);
    }
}

#[test]
fn user_commands_create_list_and_change_passwords_read_from_stdin() {
    let folders = Folders::new();
    add_user(&folders, "Alice", "first password", true);
    add_user(&folders, "bob", "bob's password", false);
    // Names are unique whatever their case; short passwords are refused.
    let (status, _, err) = folders.cli_with_input(&["user", "add", "alice"], "another one\n");
    assert!(
        !status.success() && err.contains(&said_fr(Msg::AccountExists)),
        "{err}"
    );
    let (status, _, err) = folders.cli_with_input(&["user", "add", "carol"], "short\n");
    assert!(!status.success() && err.contains("8"), "{err}");
    let (status, out, _) = folders.cli(&["user", "list"]);
    assert!(status.success());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[1].starts_with("Alice") && lines[1].contains(" administrateur "),
        "{out}"
    );
    assert!(
        lines[2].starts_with("bob") && lines[2].contains(" lecteur "),
        "{out}"
    );
    // No password ever appears in what the database holds.
    let db = std::fs::read(folders.data.join("ludotheque.db")).unwrap_or_default();
    let wal = std::fs::read(folders.data.join("ludotheque.db-wal")).unwrap_or_default();
    for bytes in [&db, &wal] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains("first password"));
        assert!(!text.contains("bob's password"));
    }

    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    let cookie = sign_in(&s, "alice", "first password");
    assert_eq!(
        s.send("GET", "/api/me", &[("Cookie", &cookie)], None)
            .status,
        200
    );
    // passwd ends the account's sessions, and the old password stops working.
    let (status, out, err) =
        folders.cli_with_input(&["user", "passwd", "Alice"], "second password\n");
    assert!(status.success(), "{out}{err}");
    assert_eq!(
        s.send("GET", "/api/me", &[("Cookie", &cookie)], None)
            .status,
        401
    );
    let r = credentials(&s, "/api/login", &[], "alice", "first password");
    refused(&r, 401, "unauthorized", "");
    sign_in(&s, "alice", "second password");
    // Deleting an account ends its sessions.
    let cookie = sign_in(&s, "alice", "second password");
    let (status, out, err) = folders.cli(&["user", "delete", "alice"]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(
        s.send("GET", "/api/me", &[("Cookie", &cookie)], None)
            .status,
        401
    );
    assert!(!folders.cli(&["user", "delete", "alice"]).0.success());
    let (status, _, err) = folders.cli_with_input(&["user", "passwd", "nobody"], "whatever long\n");
    assert!(!status.success() && err.contains("nobody"), "{err}");
}

#[test]
fn sign_in_sets_a_hardened_cookie_stored_hashed_and_sign_out_revokes_it() {
    let folders = Folders::new();
    add_user(&folders, "alice", "correct horse", true);
    let s = TestServer::start_on(
        folders.clone(),
        &["--no-local-access", "--trusted-proxy", "127.0.0.0/8"],
    );
    let r = credentials(&s, "/api/login", &[], "alice", "wrong horse");
    refused(&r, 401, "unauthorized", "");
    assert!(r.header("set-cookie").is_none());
    let r = credentials(&s, "/api/login", &[], "nobody", "correct horse");
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["message"], Msg::LoginFailed.english());
    // The log names the attempt and its address, quoted: a name cannot forge a line.
    let r = credentials(&s, "/api/login", &[], "eve\nforged line", "whatever long");
    assert_eq!(r.status, 401);
    s.wait_for_log("failed sign-in as \"eve\\nforged line\" from 127.0.0.1");
    assert!(!s.output().lines().any(|l| l.starts_with("forged line")));
    let r = s.send(
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        Some(b"{".to_vec()),
    );
    refused(&r, 400, "bad_request", "");

    let r = credentials(&s, "/api/login", &[], "ALICE", "correct horse");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["role"], "admin");
    let set = r.header("set-cookie").unwrap().to_string();
    for part in [
        "ldq_session=",
        "HttpOnly",
        "SameSite=Strict",
        "Path=/",
        "Max-Age=",
    ] {
        assert!(set.contains(part), "{set}");
    }
    assert!(!set.contains("Secure"), "plain HTTP: {set}");
    let cookie = set.split(';').next().unwrap().to_string();
    let token = cookie.trim_start_matches("ldq_session=");
    assert!(token.len() >= 40);
    // Only a hash of the token is stored.
    for file in ["ludotheque.db", "ludotheque.db-wal"] {
        let bytes = std::fs::read(folders.data.join(file)).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains(token), "{file}");
    }
    let me = s.send("GET", "/api/me", &[("Cookie", &cookie)], None);
    assert_eq!(
        me.json(),
        json!({"name": "alice", "role": "admin", "lang": "fr"})
    );

    // Over HTTPS through a trusted proxy (here this machine) the cookie is Secure.
    let r = credentials(
        &s,
        "/api/login",
        &[("X-Forwarded-Proto", "https")],
        "alice",
        "correct horse",
    );
    assert!(r.header("set-cookie").unwrap().contains("; Secure"));
    // From a peer that is not a trusted proxy, the header is not believed.
    let elsewhere = Folders::new();
    add_user(&elsewhere, "alice", "correct horse", true);
    let other = TestServer::start_on(
        elsewhere,
        &["--no-local-access", "--trusted-proxy", "192.0.2.1"],
    );
    let r = credentials(
        &other,
        "/api/login",
        &[("X-Forwarded-Proto", "https")],
        "alice",
        "correct horse",
    );
    assert_eq!(r.status, 200);
    assert!(!r.header("set-cookie").unwrap().contains("Secure"));

    let out = s.send("POST", "/api/logout", &[("Cookie", &cookie)], None);
    assert_eq!(out.status, 200);
    assert_eq!(out.json()["then"], "/login");
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
    assert_eq!(
        s.send("GET", "/api/me", &[("Cookie", &cookie)], None)
            .status,
        401
    );
    // A forged or stale cookie is no session.
    let forged = "ldq_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    assert_eq!(
        s.send("GET", "/api/me", &[("Cookie", forged)], None).status,
        401
    );
}

#[test]
fn sign_in_is_rate_limited_per_address() {
    let folders = Folders::new();
    add_user(&folders, "alice", "correct horse", true);
    let s = TestServer::start_on(
        folders,
        &["--no-local-access", "--auth-failures-per-minute", "3"],
    );
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let r = credentials(&s, "/api/login", &[], "alice", "guess guess");
        statuses.push(r.status);
        if r.status == 429 {
            assert_eq!(r.slug(), "rate_limited");
            assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
        }
    }
    assert_eq!(statuses, [401, 401, 401, 429, 429]);
    // Even the right password waits: the limit is on attempts, not on failures.
    let r = credentials(&s, "/api/login", &[], "alice", "correct horse");
    assert_eq!(r.status, 429);
}

#[test]
fn the_first_run_page_is_for_this_machine_while_no_account_exists() {
    let s = TestServer::start(&[]);
    let r = s.get("/setup");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("data-api=\"/api/setup\""));
    assert!(!r.body.contains("setup_code"), "this machine needs no code");
    // Through a proxy, the caller is not on this machine: the page asks for the code
    // from the log, and the route refuses without it.
    let proxied = [("X-Forwarded-For", "203.0.113.9")];
    let r = s.send("GET", "/setup", &proxied, None);
    assert_eq!(r.status, 200);
    assert!(r.body.contains("name=\"setup_code\""), "{}", r.body);
    let r = credentials(&s, "/api/setup", &proxied, "eve", "long enough");
    refused(&r, 403, "forbidden", "");
    // A page asked for by a caller who may not see it leads to the first-run page.
    let r = s.send("GET", "/library", &proxied, None);
    assert_eq!((r.status, r.header("location")), (303, Some("/setup")));

    let r = credentials(&s, "/api/setup", &[], "root", "short");
    assert_eq!(r.status, 400);
    let r = credentials(&s, "/api/setup", &[], "root", "long enough");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["role"], "admin");
    assert!(r.header("set-cookie").unwrap().starts_with("ldq_session="));
    let r = credentials(&s, "/api/setup", &[], "second", "long enough");
    refused(&r, 409, "conflict", "");
    assert_eq!(s.get("/setup").header("location"), Some("/login"));
    let (_, out, _) = s.folders.cli(&["user", "list"]);
    assert!(out.contains("root") && !out.contains("second"), "{out}");
}

/// Every internal route, with a body where it takes one.
fn internal_routes() -> Vec<(&'static str, String, Option<Value>)> {
    let game = "Moonlit%20Odyssey%20%5B0100000000010000%5D%5Bv0%5D.nsp";
    vec![
        ("GET", "/api/me".into(), None),
        ("GET", "/api/users".into(), None),
        ("GET", "/api/keys".into(), None),
        ("POST", "/api/keys".into(), Some(json!({"name": "by-role"}))),
        ("DELETE", "/api/keys/999".into(), None),
        ("GET", "/api/stats".into(), None),
        ("GET", "/api/job".into(), None),
        ("GET", "/api/tasks".into(), None),
        ("POST", "/api/job/cancel".into(), None),
        ("GET", "/api/platforms".into(), None),
        (
            "POST",
            "/api/platforms".into(),
            Some(json!({"slug": "gba", "name": "GBA", "folder": "gba", "extensions": "gba"})),
        ),
        ("DELETE", "/api/platforms/nothing".into(), None),
        // Refused for what they name (no such folder), never for who sends them.
        (
            "POST",
            "/api/library/folders".into(),
            Some(json!({"dir": "/nowhere/at/all", "name": ""})),
        ),
        ("DELETE", "/api/library/folders/nothing".into(), None),
        ("GET", "/api/device".into(), None),
        (
            "POST",
            "/api/device".into(),
            Some(json!({"host": "192.0.2.7"})),
        ),
        ("DELETE", "/api/device".into(), None),
        // Not multipart: refused for what it is, never for who sends it.
        ("POST", "/api/titles/import".into(), Some(json!({}))),
        // Refused while --listen sets the address, as the harness does.
        (
            "POST",
            "/api/listen".into(),
            Some(json!({"address": "127.0.0.1:1"})),
        ),
        // After the console is forgotten: the test then answers at once (no console).
        ("POST", "/api/device/test".into(), None),
        (
            "POST",
            "/api/consoles".into(),
            Some(json!({"name": "by-role"})),
        ),
        ("GET", "/api/consoles/by-role".into(), None),
        ("DELETE", "/api/consoles/nobody/files/a.zip".into(), None),
        ("DELETE", "/api/consoles/nobody".into(), None),
        ("POST", "/api/consoles/nobody/password".into(), None),
        (
            "POST",
            "/api/shop/message".into(),
            Some(json!({"message": ""})),
        ),
        ("GET", "/api/push".into(), None),
        ("POST", format!("/api/push/{game}"), None),
        ("POST", "/api/push-title/0100000000010000".into(), None),
        ("DELETE", format!("/api/push/{game}"), None),
        ("DELETE", "/api/push".into(), None),
        (
            "POST",
            "/api/notify".into(),
            Some(json!({"url": "json://127.0.0.1:9/by-role", "new_games": true})),
        ),
        (
            "POST",
            "/api/notify/000000000000/events".into(),
            Some(json!({})),
        ),
        ("POST", "/api/notify/000000000000/test".into(), None),
        ("DELETE", "/api/notify/000000000000".into(), None),
        // Administering from the browser.
        (
            "POST",
            "/api/users".into(),
            Some(json!({"name": "by-role", "password": "by-role password", "role": "viewer"})),
        ),
        ("POST", "/api/users/nobody/role/admin".into(), None),
        (
            "POST",
            "/api/users/nobody/password".into(),
            Some(json!({"password": "long enough"})),
        ),
        ("DELETE", "/api/users/nobody".into(), None),
        ("POST", "/api/trash/empty".into(), None),
        ("POST", "/api/trash/purge-converted".into(), None),
        ("GET", "/api/trash".into(), None),
        ("POST", "/api/trash/purge".into(), None),
        // The values in use: a change that changes nothing.
        (
            "POST",
            "/api/trash/settings".into(),
            Some(json!({"days": 30})),
        ),
        (
            "POST",
            "/api/organize/settings".into(),
            Some(json!({"template": "{name}/{own_name} [{title_id}][v{version}].{ext}"})),
        ),
        ("POST", "/api/trash/999/restore".into(), None),
        ("DELETE", "/api/trash/999".into(), None),
        ("DELETE", "/api/library/no/such.nsp".into(), None),
        ("POST", "/api/me/lang".into(), Some(json!({"lang": "en"}))),
        (
            "POST",
            "/api/titles/0100000000010000/ignore".into(),
            Some(json!({"dlc": false, "updates": false})),
        ),
        (
            "POST",
            "/api/titles/settings".into(),
            Some(json!({"count_dlc": true, "icons": false})),
        ),
        (
            "POST",
            "/api/compress-settings".into(),
            Some(json!({"delete_originals": false})),
        ),
        ("GET", "/api/console-keys".into(), None),
        ("GET", "/api/dedupe/preview".into(), None),
        ("GET", "/api/organize/preview".into(), None),
        // No such run: a 404 for an admin, before any task could start.
        ("POST", "/api/organize/runs/999/undo".into(), None),
        // A file that is no keys file: refused for what it is, never for who sent it.
        (
            "POST",
            "/api/console-keys".into(),
            Some(json!({"file": "not a keys file"})),
        ),
        // Last: an admin's scan here keeps the task slot busy for what follows.
        ("POST", "/api/scan".into(), None),
        ("POST", "/api/convert".into(), None),
        ("POST", "/api/push".into(), None),
        ("POST", "/api/titles/update".into(), None),
        ("POST", "/api/organize".into(), None),
        ("POST", "/api/dedupe".into(), None),
        ("POST", "/api/verify".into(), None),
        ("POST", format!("/api/verify/{game}"), None),
        ("POST", "/api/compress".into(), None),
        ("POST", format!("/api/compress/{game}"), None),
        (
            "POST",
            "/api/compress-files".into(),
            Some(json!({ "keys": ["Moonlit Odyssey [0100000000010000][v0].nsp"] })),
        ),
        (
            "POST",
            "/api/files/convert".into(),
            Some(json!({ "keys": ["no/such.nsz"] })),
        ),
        (
            "POST",
            "/api/files/push".into(),
            Some(json!({ "keys": ["no/such.nsp"] })),
        ),
        (
            "POST",
            "/api/files/trash".into(),
            Some(json!({ "keys": ["no/such.nsp"] })),
        ),
    ]
}

/// Internal routes the table above leaves out, each tested on its own here: signing
/// in and out, the first run and a password change would end the sessions it uses.
const TESTED_ON_THEIR_OWN: [(&str, &str); 4] = [
    ("POST", "/api/login"),
    ("POST", "/api/setup"),
    ("POST", "/api/logout"),
    ("POST", "/api/me/password"),
];

/// Does a concrete path fit a route pattern (`{x}` one segment, `{x*}` the rest)?
fn fits(pattern: &str, path: &str) -> bool {
    let (pattern, path): (Vec<&str>, Vec<&str>) =
        (pattern.split('/').collect(), path.split('/').collect());
    for (i, p) in pattern.iter().enumerate() {
        if p.ends_with("*}") {
            return path.len() > i;
        }
        match path.get(i) {
            Some(seg) if p.starts_with('{') || p == seg => {}
            _ => return false,
        }
    }
    pattern.len() == path.len()
}

#[test]
fn the_role_table_covers_every_internal_route_of_the_router() {
    use ludotheque::testkit::Access;
    let table = internal_routes();
    for r in ludotheque::testkit::ROUTES.routes {
        if !r.pattern.starts_with("/api/")
            || r.pattern.starts_with("/api/v1/")
            || r.access == Access::Test
            // The shop's routes are the consoles', tested as installers ask (`shop`),
            // and so are their saves (`saves`, `dav`).
            || r.access == Access::Shop
            || r.access == Access::Console
        {
            continue;
        }
        let covered = table
            .iter()
            .any(|(m, path, _)| *m == r.method && fits(r.pattern, path))
            || TESTED_ON_THEIR_OWN.contains(&(r.method, r.pattern));
        assert!(covered, "{} {} is in no role test", r.method, r.pattern);
    }
}

fn call(
    s: &TestServer,
    method: &str,
    path: &str,
    body: &Option<Value>,
    headers: &[(&str, &str)],
) -> Resp {
    match body {
        Some(b) => send_json(s, method, path, headers, b.clone()),
        None => s.send(method, path, headers, None),
    }
}

#[test]
fn every_internal_route_answers_each_role_as_documented() {
    let s = accounts_server(&[]);
    let admin = sign_in(&s, "admin", "admin password");
    let viewer = sign_in(&s, "viewer", "viewer password");
    let key = create_key(&s.folders, "web-routes", &[]);
    for (method, path, body) in internal_routes() {
        // Nobody: 401 with the error body.
        let r = call(&s, method, &path, &body, &[]);
        refused(&r, 401, "unauthorized", &format!("{method} {path}"));
        // An API key never reaches the interface's routes, even a valid one.
        let r = call(&s, method, &path, &body, &[("X-Api-Key", &key)]);
        refused(&r, 403, "forbidden", &format!("{method} {path} with a key"));
        // A viewer reads, and changes nothing but its own language.
        let r = call(&s, method, &path, &body, &[("Cookie", &viewer)]);
        let own = path.starts_with("/api/me");
        if method == "GET" && path != "/api/users" || own {
            assert!(r.status < 400, "{method} {path} as viewer: {r:?}");
        } else {
            refused(&r, 403, "forbidden", &format!("{method} {path} as viewer"));
        }
        // An admin is never refused for who it is (404/409 are about the request).
        let r = call(&s, method, &path, &body, &[("Cookie", &admin)]);
        assert!(
            ![401, 403].contains(&r.status),
            "{method} {path} as admin: {r:?}"
        );
        assert!(r
            .header("content-type")
            .unwrap()
            .starts_with("application/json"));
        if r.status >= 400 {
            assert!(
                r.json()["error"].is_string() && r.json()["message"].is_string(),
                "{r:?}"
            );
        }
        // A foreign origin is refused for every change, whoever asks.
        if method != "GET" {
            let r = call(
                &s,
                method,
                &path,
                &body,
                &[("Cookie", &admin), ("Origin", "http://evil.example")],
            );
            refused(&r, 403, "cross_origin", &format!("{method} {path}"));
            let r = call(
                &s,
                method,
                &path,
                &body,
                &[("Cookie", &admin), ("Sec-Fetch-Site", "cross-site")],
            );
            assert_eq!(r.status, 403, "{method} {path}");
        }
    }
    // Sign-in itself refuses a foreign origin.
    let r = credentials(
        &s,
        "/api/login",
        &[("Origin", "http://evil.example")],
        "admin",
        "admin password",
    );
    refused(&r, 403, "cross_origin", "");
}

#[test]
fn a_viewer_cannot_start_a_task_and_an_admin_can() {
    let s = accounts_server(&["--task-delay-ms", "300"]);
    let viewer = sign_in(&s, "viewer", "viewer password");
    let admin = sign_in(&s, "admin", "admin password");
    for task in ["/api/scan", "/api/convert", "/api/push", "/api/v1/scan"] {
        let r = s.send("POST", task, &[("Cookie", &viewer)], None);
        refused(&r, 403, "forbidden", task);
    }
    assert_eq!(s.folders.run_results().len(), 1, "only the first scan ran");
    let r = s.send("POST", "/api/scan", &[("Cookie", &admin)], None);
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(r.json()["label"], "scan");
    let r = s.send("POST", "/api/job/cancel", &[("Cookie", &admin)], None);
    assert_eq!(r.json()["cancelled"], true);
    s.wait_idle_with_cookie(&admin);
    let history = s
        .send("GET", "/api/tasks", &[("Cookie", &admin)], None)
        .json();
    assert_eq!(history["items"][0]["result"], "cancelled", "{history}");
    assert_eq!(history["items"].as_array().unwrap().len(), 2);
}

#[test]
fn keys_made_in_the_interface_work_on_the_public_api_until_revoked() {
    let s = accounts_server(&[]);
    let admin = sign_in(&s, "admin", "admin password");
    let r = send_as(
        &s,
        &admin,
        "POST",
        "/api/keys",
        json!({"name": "dashboard", "read_only": true}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let created = r.json();
    let secret = created["key"].as_str().unwrap().to_string();
    assert!(secret.starts_with("ldq_") && secret.starts_with(created["prefix"].as_str().unwrap()));
    assert_eq!(created["read_only"], true);
    // The list never shows the secret again.
    let list = s.send("GET", "/api/keys", &[("Cookie", &admin)], None);
    assert!(!list.body.contains(&secret));
    assert_eq!(list.json()["items"][0]["name"], "dashboard");
    let page = s.send("GET", "/settings/keys", &[("Cookie", &admin)], None);
    assert!(page.body.contains("dashboard") && !page.body.contains(&secret));

    let r = s.send("GET", "/api/v1/stats", &[("X-Api-Key", &secret)], None);
    assert_eq!(r.status, 200);
    assert_eq!(
        s.send("POST", "/api/v1/scan", &[("X-Api-Key", &secret)], None)
            .status,
        403
    );
    let id = created["id"].as_i64().unwrap();
    let r = s.send(
        "DELETE",
        &format!("/api/keys/{id}"),
        &[("Cookie", &admin)],
        None,
    );
    assert_eq!(r.status, 200);
    assert!(r.json()["revoked_at"].is_string());
    let r = s.send("GET", "/api/v1/stats", &[("X-Api-Key", &secret)], None);
    refused(&r, 401, "unauthorized", "");
    let r = send_as(&s, &admin, "POST", "/api/keys", json!({"name": "  "}));
    assert_eq!(r.status, 400);
}

#[test]
fn platforms_are_added_checked_and_removed() {
    let s = accounts_server(&[]);
    let admin = sign_in(&s, "admin", "admin password");
    let add = |body: Value| send_as(&s, &admin, "POST", "/api/platforms", body);
    for bad in [
        json!({"slug": "Bad Slug", "name": "x", "folder": "x", "extensions": "gba"}),
        json!({"slug": "gba", "name": "GBA", "folder": "../outside", "extensions": "gba"}),
        json!({"slug": "gba", "name": "GBA", "folder": "/etc", "extensions": "gba"}),
        json!({"slug": "gba", "name": "GBA", "folder": "gba", "extensions": "g/b"}),
        json!({"slug": "gba", "name": "", "folder": "gba", "extensions": "gba"}),
    ] {
        let r = add(bad.clone());
        refused(&r, 400, "bad_request", &format!("{bad}"));
    }
    std::fs::create_dir_all(s.folders.library.join("retro/gba")).unwrap();
    std::fs::write(
        s.folders.library.join("retro/gba/Metroid Fusion.gba"),
        b"rom",
    )
    .unwrap();
    let r = add(
        json!({"slug": "gba", "name": "Game Boy Advance", "folder": "retro/gba", "extensions": ".GBA, zip"}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let gba = &r.json()["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["slug"] == "gba")
        .cloned()
        .unwrap();
    assert_eq!(gba["extensions"], json!(["gba", "zip"]));
    assert_eq!(
        add(json!({"slug": "gba", "name": "again", "folder": "x", "extensions": "gba"})).status,
        409
    );
    assert_eq!(
        s.send("POST", "/api/scan", &[("Cookie", &admin)], None)
            .status,
        202
    );
    s.wait_idle_with_cookie(&admin);
    let page = s.send("GET", "/files?platform=gba", &[("Cookie", &admin)], None);
    assert!(page.body.contains("Metroid Fusion"), "{}", page.body);
    assert!(
        page.body.contains("<p id=\"result-count\">1 "),
        "{}",
        page.body
    );
    // Its delete button asks first, naming it (the dialog is app.js's, tested in a
    // browser on the other destroying buttons).
    let listed = s
        .send("GET", "/platforms", &[("Cookie", &admin)], None)
        .body;
    let name = "Game Boy Advance".to_string();
    let ask = crate::harness::said_fr(ludotheque::testkit::Msg::ConfirmRemovePlatform { name });
    assert!(listed.contains(&ask), "{listed}");
    let r = s.send("DELETE", "/api/platforms/gba", &[("Cookie", &admin)], None);
    assert_eq!(r.status, 200);
    // The files stay; the last platform cannot go.
    assert!(s
        .folders
        .library
        .join("retro/gba/Metroid Fusion.gba")
        .exists());
    assert_eq!(
        s.send(
            "DELETE",
            "/api/platforms/switch",
            &[("Cookie", &admin)],
            None
        )
        .status,
        409
    );
}

#[test]
fn pages_send_strangers_to_sign_in_and_render_for_each_role_and_language() {
    let s = accounts_server(&[]);
    for page in [
        "/",
        "/library",
        "/files",
        "/title/0100000000010000",
        "/icon/0100000000010000",
        "/game/x.nsp",
        "/tasks",
        "/device",
        "/push",
        "/trash",
        "/platforms",
        "/settings",
        "/settings/keys",
    ] {
        let r = s.get(page);
        assert_eq!(r.status, 303, "{page}");
        let location = r.header("location").unwrap();
        assert!(location.starts_with("/login"), "{page} → {location}");
    }
    assert_eq!(
        s.get("/library").header("location"),
        Some("/login?next=%2Flibrary")
    );
    let key = create_key(&s.folders, "not-for-pages", &[]);
    assert_eq!(s.send("GET", "/", &[("X-Api-Key", &key)], None).status, 403);
    let login = s.get("/login");
    assert_eq!(login.status, 200);
    assert!(login
        .header("content-security-policy")
        .unwrap()
        .contains("default-src 'self'"));
    assert_eq!(login.header("x-frame-options"), Some("DENY"));
    let en = s.send(
        "GET",
        "/login",
        &[("Accept-Language", "en-GB,en;q=0.8")],
        None,
    );
    assert!(en.body.contains("<html lang=\"en\""), "{}", en.body);

    let admin = sign_in(&s, "admin", "admin password");
    let viewer = sign_in(&s, "viewer", "viewer password");
    let pages = [
        "/",
        "/library",
        "/library?q=zephyr",
        "/library?show=incomplete&sort=size&page=2",
        "/files?type=DLC&page=2",
        "/title/0100000000010000",
        "/tasks",
        "/device",
        "/push",
        "/trash",
        "/platforms",
        "/settings",
        "/settings/keys",
    ];
    for page in pages {
        let a = s.send("GET", page, &[("Cookie", &admin)], None);
        assert_eq!(a.status, 200, "{page}");
        assert!(a.header("content-type").unwrap().starts_with("text/html"));
        assert_eq!(a.header("cache-control"), Some("no-store"));
        assert!(a.body.contains("<html lang=\"fr\""), "{page}");
        let v = s.send("GET", page, &[("Cookie", &viewer)], None);
        assert_eq!(v.status, 200, "{page}");
        // A viewer's pages offer no change but signing out and its own settings.
        for line in v.body.split("data-api=\"").skip(1) {
            let route = line.split('"').next().unwrap();
            assert!(
                route == "/api/logout" || route.starts_with("/api/me/"),
                "{page} offers {route} to a viewer"
            );
        }
    }
    let dash = s.send("GET", "/", &[("Cookie", &admin)], None);
    assert!(dash.body.contains("data-api=\"/api/scan\"") && dash.body.contains("<progress"));
    // The library shows human sizes and links to each game's page.
    let lib = s.send("GET", "/files?q=odyssey", &[("Cookie", &admin)], None);
    assert!(lib.body.contains("href=\"/game/"), "{}", lib.body);
    assert!(
        lib.body.contains(" Mo<") || lib.body.contains(" Ko<") || lib.body.contains(" o<"),
        "{}",
        lib.body
    );
    let href = lib
        .body
        .split("href=\"/game/")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let game = s.send("GET", &format!("/game/{href}"), &[("Cookie", &admin)], None);
    assert_eq!(game.status, 200);
    assert!(
        game.body.contains("data-api=\"/api/library/"),
        "{}",
        game.body
    );
    assert_eq!(
        s.send(
            "GET",
            "/game/..%2F..%2Fetc%2Fpasswd",
            &[("Cookie", &admin)],
            None
        )
        .status,
        404
    );

    // English, per account.
    let r = send_as(&s, &viewer, "POST", "/api/me/lang", json!({"lang": "en"}));
    assert_eq!(r.status, 200);
    let page = s.send("GET", "/library", &[("Cookie", &viewer)], None);
    assert!(page.body.contains("<html lang=\"en\""));
    let page = s.send("GET", "/library", &[("Cookie", &admin)], None);
    assert!(page.body.contains("<html lang=\"fr\""));
    let r = send_as(&s, &viewer, "POST", "/api/me/lang", json!({"lang": "de"}));
    assert_eq!(r.status, 400);
}

#[test]
fn a_password_change_needs_the_current_one_and_ends_the_sessions() {
    let s = accounts_server(&[]);
    let viewer = sign_in(&s, "viewer", "viewer password");
    let other = sign_in(&s, "viewer", "viewer password");
    let change = |current: &str| {
        send_as(
            &s,
            &viewer,
            "POST",
            "/api/me/password",
            json!({"current": current, "new": "brand new password"}),
        )
    };
    assert_eq!(change("not it at all").status, 401);
    assert_eq!(change("viewer password").status, 200);
    assert_eq!(
        s.send("GET", "/api/me", &[("Cookie", &other)], None).status,
        401
    );
    sign_in(&s, "viewer", "brand new password");
}

#[test]
fn the_loopback_rule_opens_the_interface_without_an_account() {
    let s = TestServer::start(&[]);
    let folders: Arc<Folders> = s.folders.clone();
    add_user(&folders, "admin", "admin password", true);
    let r = s.get("/");
    assert_eq!(r.status, 200);
    assert!(r.body.contains(r#"<span id="local-access">"#), "{}", r.body);
    assert!(r.body.contains(r#"<html lang="fr""#), "{}", r.body);
    // Without an account, the page follows the browser's language.
    let r = s.send(
        "GET",
        "/",
        &[("Accept-Language", "en-US,en;q=0.9,fr;q=0.5")],
        None,
    );
    assert!(r.body.contains(r#"<span id="local-access">"#), "{}", r.body);
    assert!(r.body.contains(r#"<html lang="en""#), "{}", r.body);
    assert_eq!(
        s.get("/api/me").json(),
        json!({"name": null, "role": "admin", "lang": "fr"})
    );
    let me = s.send("GET", "/api/me", &[("Accept-Language", "en")], None);
    assert_eq!(me.json()["lang"], "en", "as its pages");
    // The static assets are public and compiled in.
    let css = s.get("/static/app.css");
    assert_eq!(
        (css.status, css.header("content-type")),
        (200, Some("text/css; charset=utf-8"))
    );
    assert!(s.get("/static/app.js").body.contains("data-api"));
    assert_eq!(s.get("/static/..%2Fsecret").status, 404);
}

#[test]
fn the_first_scan_is_said_on_every_list_and_a_task_turns_every_start_button_off() {
    let folders = Folders::new();
    demo(&folders);
    let key = create_key(&folders, "tasks", &[]);
    let s = TestServer::start_on(
        folders.clone(),
        &[
            "--task-delay-ms",
            "2000",
            "--key-rate",
            "1000",
            "--key-burst",
            "1000",
        ],
    );
    let fr = [("Accept-Language", "fr-FR,fr;q=0.9")];
    // The scan of a library never scanned starts with the service and is held 2 s.
    for path in ["/", "/tasks", "/library", "/files"] {
        let body = s.send("GET", path, &fr, None).body;
        assert!(body.contains("id=\"first-scan\""), "{path}: {body}");
    }
    s.wait_idle_with(&key);
    // Each language's typography before a colon.
    let fr_page = s.send("GET", "/", &fr, None).body;
    assert!(fr_page.contains("Dernier résultat\u{a0}: "), "{fr_page}");
    let en = [("Accept-Language", "en-US,en;q=0.9")];
    let en_page = s.send("GET", "/", &en, None).body;
    assert!(
        en_page.contains("Last result: ") && !en_page.contains(" : "),
        "{en_page}"
    );
    let starts = [
        ("/", "start-scan"),
        ("/upkeep", "start-organize"),
        ("/settings", "update-titles"),
    ];
    for (path, id) in starts {
        let body = s.send("GET", path, &fr, None).body;
        assert!(!body.contains("id=\"first-scan\""), "{path}");
        assert!(
            !tag(&body, id).contains("disabled"),
            "{path}: {}",
            tag(&body, id)
        );
    }
    // While a scan runs, each button that would start a task is off and says why.
    let r = s.send("POST", "/api/v1/scan", &[("X-Api-Key", &key)], None);
    assert_eq!(r.status, 202, "{r:?}");
    for (path, id) in starts {
        let body = s.send("GET", path, &fr, None).body;
        assert!(
            tag(&body, id).contains("disabled"),
            "{path}: {}",
            tag(&body, id)
        );
        // The task panel says it (`#job-busy`), or a hint beside the button.
        let why = format!("id=\"{id}-busy\"");
        let panel = body.contains("id=\"job\"") && tag(&body, "job").contains("running");
        assert!(body.contains(&why) || panel, "{path}: {body}");
    }
    s.wait_idle_with(&key);
}
