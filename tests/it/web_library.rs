//! The library in the browser for a new user's first hour (issue 40): downloading a
//! file from its page, what the dashboard says is missing, the file list's selection
//! (trash, push, decompress, compress), "did you mean", display versions. Through the
//! real binary, over HTTP.

use crate::harness::TestServer;
use crate::web::{add_user, sign_in};

const GAME: &str = "Studio/Moon/Moonlit Odyssey [0100000000010000][v0].nsp";

/// A server on the demo library with an admin and a viewer, no loopback rule.
fn server() -> (TestServer, String, String) {
    let folders = crate::harness::Folders::new();
    crate::library::demo(&folders);
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let admin = sign_in(&s, "admin", "admin password");
    let viewer = sign_in(&s, "viewer", "viewer password");
    wait_idle(&s, &admin);
    (s, admin, viewer)
}

fn wait_idle(s: &TestServer, cookie: &str) {
    for _ in 0..600 {
        let r = s.send("GET", "/api/job", &[("Cookie", cookie)], None);
        if r.status == 200 && r.json()["running"] == false {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("the task never ended");
}

fn get_as(s: &TestServer, cookie: &str, path: &str) -> crate::harness::Resp {
    s.send(
        "GET",
        path,
        &[("Cookie", cookie), ("Accept-Language", "en")],
        None,
    )
}

/// A viewer downloads a file from its page, a range of it too, through the shop's
/// download path (noted with the shop's downloads); a stranger gets nothing.
#[test]
fn a_viewer_downloads_a_file_with_a_range_and_a_stranger_cannot() {
    let (s, _, viewer) = server();
    let on_disk = std::fs::read(s.folders.library.join(GAME)).unwrap();
    let url = format!(
        "/download/{}",
        GAME.replace(' ', "%20")
            .replace('[', "%5B")
            .replace(']', "%5D")
    );
    let page = get_as(
        &s,
        &viewer,
        &format!("/game/{}", &url["/download/".len()..]),
    );
    assert!(
        page.body.contains(&format!("href=\"{url}\"")),
        "{}",
        page.body
    );
    assert!(page.body.contains("id=\"download\""), "{}", page.body);
    let whole = get_as(&s, &viewer, &url);
    assert_eq!(whole.status, 200, "{whole:?}");
    // The harness reads bodies as text: the same bytes read the same.
    assert_eq!(whole.body, String::from_utf8_lossy(&on_disk));
    assert_eq!(
        whole.header("content-length"),
        Some(on_disk.len().to_string().as_str())
    );
    assert!(whole
        .header("content-disposition")
        .unwrap()
        .starts_with("attachment;"));
    let part = s.send(
        "GET",
        &url,
        &[("Cookie", &viewer), ("Range", "bytes=16-47")],
        None,
    );
    assert_eq!(part.status, 206, "{part:?}");
    assert_eq!(
        part.header("content-range"),
        Some(format!("bytes 16-47/{}", on_disk.len()).as_str())
    );
    assert_eq!(part.body, String::from_utf8_lossy(&on_disk[16..48]));
    // Signed out: sent to sign in, not one byte of the file.
    let stranger = s.send("GET", &url, &[("Range", "bytes=0-15")], None);
    assert_eq!(stranger.status, 303, "{stranger:?}");
    assert!(stranger
        .header("location")
        .unwrap()
        .starts_with("/login?next="));
    assert!(stranger.header("content-range").is_none());
    let missing = get_as(&s, &viewer, "/download/no/such.nsp");
    assert_eq!(missing.status, 404);
    // Noted with the shop's downloads, under the account.
    let admin = sign_in(&s, "admin", "admin password");
    let consoles = get_as(&s, &admin, "/device");
    assert!(consoles.body.contains("user:viewer"), "{}", consoles.body);
}
