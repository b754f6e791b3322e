//! Sign-in from a trusted proxy (`--trusted-proxy`, `--auth-header`): believed from
//! the proxy's address only, never the loopback rule through it, `X-Forwarded-For`
//! read for the rate limits and the log from it alone, and sign-out sent to the
//! proxy's page.

use crate::harness::{Folders, TestServer};
use crate::web::add_user;

fn me(s: &TestServer, headers: &[(&str, &str)]) -> (u16, serde_json::Value) {
    let r = s.send("GET", "/api/me", headers, None);
    let body = if r.status == 200 {
        r.json()
    } else {
        serde_json::Value::Null
    };
    (r.status, body)
}

#[test]
fn a_trusted_proxy_signs_people_in_by_its_header_and_nobody_else_does() {
    let folders = Folders::new();
    add_user(&folders, "alice", "correct horse", true);
    let s = TestServer::start_on(
        folders.clone(),
        &[
            "--trusted-proxy",
            "10.9.0.0/16,127.0.0.1",
            "--auth-header-create",
        ],
    );
    // The proxy names alice: she is signed in, as the admin she is.
    let (status, body) = me(&s, &[("Remote-User", "alice")]);
    assert_eq!(
        (status, body["name"].as_str(), body["role"].as_str()),
        (200, Some("alice"), Some("admin"))
    );
    // An account it names that does not exist is made, a viewer, who cannot change things.
    let (status, body) = me(&s, &[("Remote-User", "bob"), ("Accept-Language", "en")]);
    assert_eq!(
        (status, body["role"].as_str(), body["lang"].as_str()),
        (200, Some("viewer"), Some("en"))
    );
    let change = s.send("POST", "/api/scan", &[("Remote-User", "bob")], None);
    assert_eq!(change.status, 403, "{}", change.body);
    let (_, listed, _) = folders.cli(&["user", "list"]);
    assert!(listed.contains("bob"), "{listed}");
    // bob has no password: none opens his account at the sign-in form.
    let login = s.send(
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        Some(br#"{"name":"bob","password":""}"#.to_vec()),
    );
    assert_eq!(login.status, 401);
    // Through the proxy without its header, this machine's program gets no loopback rule.
    assert_eq!(s.get("/api/v1/stats").status, 401);
    assert_eq!(s.get("/api/me").status, 401);
    drop(s);

    // A proxy elsewhere: the header from this address means nothing, and the loopback
    // rule works as before.
    let s = TestServer::start_on(folders.clone(), &["--trusted-proxy", "192.0.2.1"]);
    let (status, body) = me(&s, &[("Remote-User", "alice")]);
    assert_eq!(status, 200);
    assert_eq!(
        body["name"],
        serde_json::Value::Null,
        "the loopback rule, not alice: {body}"
    );
    assert_eq!(s.get("/api/v1/stats").status, 200);
    drop(s);
    let s = TestServer::start_on(
        folders.clone(),
        &["--trusted-proxy", "192.0.2.1", "--no-local-access"],
    );
    assert_eq!(me(&s, &[("Remote-User", "alice")]).0, 401);
    drop(s);

    // Without --auth-header-create an unknown name is nobody, and no account is made;
    // the header's name is the proxy's choice.
    let s = TestServer::start_on(
        folders.clone(),
        &[
            // The flag repeated, as well as with commas (above).
            "--trusted-proxy",
            "127.0.0.1",
            "--trusted-proxy",
            "10.9.0.0/16",
            "--auth-header",
            "X-Authentik-Username",
        ],
    );
    assert_eq!(me(&s, &[("X-Authentik-Username", "carol")]).0, 401);
    assert_eq!(me(&s, &[("Remote-User", "alice")]).0, 401);
    let (status, body) = me(&s, &[("X-Authentik-Username", "alice")]);
    assert_eq!((status, body["name"].as_str()), (200, Some("alice")));
    let (_, listed, _) = folders.cli(&["user", "list"]);
    assert!(!listed.contains("carol"), "{listed}");
    s.wait_for_log("the proxy names \"carol\", who has no account");
}

#[test]
fn forwarded_clients_are_limited_apart_only_through_a_trusted_proxy() {
    let folders = Folders::new();
    let wrong = [("X-Api-Key", "ldq_wrong")];
    let from = |ip: &'static str| [wrong[0], ("X-Forwarded-For", ip)];
    let proxied = TestServer::start_on(
        folders.clone(),
        &[
            "--trusted-proxy",
            "127.0.0.1",
            "--auth-failures-per-minute",
            "2",
        ],
    );
    for _ in 0..2 {
        assert_eq!(
            proxied
                .send("GET", "/api/v1/stats", &from("203.0.113.5"), None)
                .status,
            401
        );
    }
    assert_eq!(
        proxied
            .send("GET", "/api/v1/stats", &from("203.0.113.5"), None)
            .status,
        429
    );
    // Another client behind the same proxy has attempts of its own; a forged address
    // left of the one the proxy saw changes nothing.
    let chain = [wrong[0], ("X-Forwarded-For", "198.51.100.1, 203.0.113.6")];
    assert_eq!(
        proxied.send("GET", "/api/v1/stats", &chain, None).status,
        401
    );
    assert_eq!(
        proxied
            .send("GET", "/api/v1/stats", &from("203.0.113.6"), None)
            .status,
        401
    );
    assert_eq!(
        proxied
            .send("GET", "/api/v1/stats", &from("203.0.113.6"), None)
            .status,
        429
    );
    proxied.wait_for_log("access GET /api/v1/stats 401");
    assert!(
        proxied.output().contains(" for=203.0.113.5"),
        "{}",
        proxied.output()
    );
    drop(proxied);
    // From a peer that is no proxy, every forwarded address is the peer's own.
    let direct = TestServer::start_on(folders, &["--auth-failures-per-minute", "2"]);
    for (ip, status) in [
        ("203.0.113.5", 401),
        ("203.0.113.6", 401),
        ("203.0.113.7", 429),
    ] {
        assert_eq!(
            direct.send("GET", "/api/v1/stats", &from(ip), None).status,
            status,
            "{ip}"
        );
    }
    assert!(!direct.output().contains(" for="));
}

#[test]
fn sign_out_goes_to_the_proxy_page_when_there_is_one() {
    let folders = Folders::new();
    add_user(&folders, "alice", "correct horse", true);
    let s = TestServer::start_on(
        folders,
        &[
            "--trusted-proxy",
            "127.0.0.1",
            "--auth-logout-url",
            "https://auth.example.net/logout",
        ],
    );
    let out = s.send("POST", "/api/logout", &[("Remote-User", "alice")], None);
    assert_eq!(out.status, 200, "{}", out.body);
    assert_eq!(out.json()["then"], "https://auth.example.net/logout");
    // The page's sign-out button reads it.
    let page = s.send("GET", "/", &[("Remote-User", "alice")], None);
    assert!(
        page.body
            .contains(r#"data-api="/api/logout" data-then="signed-out""#),
        "{}",
        page.body
    );
}
