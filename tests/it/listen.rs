//! Where the service listens, set from the web (issue 52): the Consoles page's field
//! moves the listener at once, without a restart, keeps serving the connection that
//! asked, and is remembered for the next start; `--listen` wins and fixes the field.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use serde_json::json;

use crate::harness::{Folders, Resp, TestServer};
use crate::web::{add_user, send_json, sign_in};
use crate::web_library::get_as;

/// The address of this machine on its network (the route's), if it has one.
fn network_ip() -> Option<std::net::IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// The listen form, whole.
fn form_of(page: &str) -> &str {
    let at = page.find("id=\"listen-form\"").expect("a listen form");
    &page[at..at + page[at..].find("</form>").unwrap()]
}

fn reachable(addr: SocketAddr) -> bool {
    TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok()
}

fn seed_listen(folders: &Folders, address: &str) {
    let db = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    db.execute(
        "INSERT INTO settings (name, value) VALUES ('listen', ?1)
         ON CONFLICT(name) DO UPDATE SET value = excluded.value",
        [address],
    )
    .unwrap();
}

fn move_to(s: &TestServer, cookie: &str, address: &str) -> Resp {
    let origin = s.base.clone();
    let headers = [("Cookie", cookie), ("Origin", origin.as_str())];
    send_json(
        s,
        "POST",
        "/api/listen",
        &headers,
        json!({ "address": address }),
    )
}

#[test]
fn the_listening_address_moves_at_once_and_is_kept() {
    let folders = Folders::new();
    crate::library::demo(&folders);
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    seed_listen(&folders, "127.0.0.1:0");
    let mut s = TestServer::start_unflagged(folders.clone(), &["--no-local-access"]);
    let admin = sign_in(&s, "admin", "admin password");
    let first: SocketAddr = s.addr.parse().unwrap();
    let port = first.port();

    // The Consoles page: the field holds the address in use, and offers the network.
    let page = get_as(&s, &admin, "/device").body;
    let form = form_of(&page);
    assert!(form.contains(&format!("value=\"{first}\"")), "{form}");
    assert!(
        form.contains(&format!("data-value=\"0.0.0.0:{port}\"")),
        "{form}"
    );
    assert!(!form.contains("disabled"), "{form}");
    assert!(
        page.contains("id=\"shop-loopback\""),
        "the page says no console reaches it"
    );
    let viewer = sign_in(&s, "viewer", "viewer password");
    let viewed = get_as(&s, &viewer, "/device").body;
    assert!(!viewed.contains("listen-form"), "a viewer gets no field");
    let refused = move_to(&s, &viewer, &format!("0.0.0.0:{port}"));
    assert_eq!(refused.status, 403, "{refused:?}");

    // Addresses that are none are refused, and nothing moves.
    for bad in ["localhost:8080", "0.0.0.0", "0.0.0.0:0", "999.1.1.1:80"] {
        let r = move_to(&s, &admin, bad);
        assert_eq!(r.status, 400, "{bad}: {r:?}");
        assert_eq!(r.slug(), "bad_request", "{bad}");
    }
    // A port another program holds: said, and the service stays where it was.
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = other.local_addr().unwrap();
    let r = move_to(&s, &admin, &taken.to_string());
    assert_eq!(r.status, 400, "{r:?}");
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains(&taken.to_string()),
        "{r:?}"
    );
    assert!(get_as(&s, &admin, "/api/v1/stats").status == 200);
    drop(other);

    // Every interface, same port: the old listener must close first (Linux), and the
    // connection that asked is still served.
    let lan = network_ip().map(|ip| SocketAddr::new(ip, port));
    if let Some(lan) = lan {
        assert!(!reachable(lan), "listening on loopback only at first");
    }
    let r = move_to(&s, &admin, &format!("0.0.0.0:{port}"));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["listen"], format!("0.0.0.0:{port}"));
    assert_eq!(r.json()["origin"], s.base, "the browser stays where it is");
    assert_eq!(get_as(&s, &admin, "/api/v1/stats").status, 200);
    assert!(reachable(first), "loopback is still reached");
    if let Some(lan) = lan {
        assert!(reachable(lan), "the network reaches it now");
    }
    let page = get_as(&s, &admin, "/device").body;
    assert!(!page.contains("id=\"shop-loopback\""), "no more warning");

    // Kept: the next start listens there, without a flag.
    s.kill();
    let mut s = TestServer::start_unflagged(folders.clone(), &["--no-local-access"]);
    assert_eq!(s.addr, format!("0.0.0.0:{port}"));
    s.base = format!("http://127.0.0.1:{port}");
    let admin = sign_in(&s, "admin", "admin password");

    // Another port: the answer says where the page goes on, the old port takes no new
    // connection, the new one serves.
    let free = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let r = move_to(&s, &admin, &free.to_string());
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["origin"], format!("http://{free}"));
    assert!(r.json()["said"]
        .as_str()
        .unwrap()
        .contains(&free.to_string()));
    assert!(!reachable(SocketAddr::from(([127, 0, 0, 1], port))));
    s.base = format!("http://{free}");
    assert_eq!(get_as(&s, &admin, "/api/v1/stats").status, 200);
    s.wait_for_log(&format!("listening on http://{free}"));
}

#[test]
fn the_listen_flag_wins_and_fixes_the_field() {
    let folders = Folders::new();
    crate::library::demo(&folders);
    add_user(&folders, "admin", "admin password", true);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let admin = sign_in(&s, "admin", "admin password");
    let page = get_as(&s, &admin, "/device").body;
    let form = form_of(&page);
    assert!(form.contains("disabled"), "{form}");
    assert!(form.contains("--listen"), "the note says why: {form}");
    let welcome = get_as(&s, &admin, "/welcome").body;
    let warned = welcome
        .find("id=\"listen-loopback\"")
        .map(|at| &welcome[at..at + 400]);
    assert!(
        warned.is_some_and(|w| w.contains("--listen 0.0.0.0:")),
        "{welcome}"
    );
    assert!(
        welcome.contains("id=\"listen-form\""),
        "the welcome page has it too"
    );
    let r = move_to(&s, &admin, "0.0.0.0:8080");
    assert_eq!(r.status, 409, "{r:?}");
    assert!(
        r.json()["message"].as_str().unwrap().contains("--listen"),
        "{r:?}"
    );
}

/// An address set in the web that this machine can no longer bind (a network address
/// it lost) does not stop the service from starting: it listens on 127.0.0.1:8080,
/// and the log says why. Needs that port free on this machine; says so when not.
#[test]
fn a_saved_address_the_machine_lost_falls_back_to_this_machine_only() {
    if TcpListener::bind("127.0.0.1:8080").is_err() {
        eprintln!("skipped: 127.0.0.1:8080 is taken on this machine");
        return;
    }
    let folders = Folders::new();
    crate::library::demo(&folders);
    add_user(&folders, "admin", "admin password", true);
    // A documentation address (RFC 5737): no machine has it.
    seed_listen(&folders, "192.0.2.1:18080");
    let s = TestServer::start_unflagged(folders, &["--no-local-access"]);
    assert_eq!(s.addr, "127.0.0.1:8080");
    // The log is read on its own thread: wait for the line, never race it.
    s.wait_for_log("cannot listen on 192.0.2.1:18080, set in the web");
}
