//! The paths installers really ask, as their own code builds them: Sphaira joins
//! its base URL with `/` (`//`, `//base/`, `/shop/files//`), Tinfoil keeps the slash
//! it was given (`/shop/`), and a console with valid credentials asking a path that
//! does not exist gets a 404, never a failed sign-in (issue "Shop, as the installers'
//! own code reads it").

use crate::harness::{basic, Folders, TestServer};

fn shop() -> (std::sync::Arc<Folders>, String) {
    let folders = Folders::new();
    assert!(folders
        .cli(&["demo-library", folders.library.to_str().unwrap()])
        .0
        .success());
    folders.scan();
    let auth = basic("salon", &folders.add_console("salon"));
    (folders, auth)
}

#[test]
fn repeated_slashes_are_answered_as_one() {
    let (folders, auth) = shop();
    let s = TestServer::start_on(folders, &[]);
    // Sphaira sends no User-Agent and asks `//` when given `http://HOST:PORT/`.
    let sphaira = [("Authorization", auth.as_str())];
    let root = s.send("GET", "/", &sphaira, None);
    let doubled = s.send("GET", "//", &sphaira, None);
    assert_eq!(doubled.status, 200, "{doubled:?}");
    assert_eq!(doubled.body, root.body);
    assert!(doubled.body.contains("href=\"base/\""), "{}", doubled.body);
    let base = s.send("GET", "/base/", &sphaira, None);
    let doubled = s.send("GET", "//base/", &sphaira, None);
    assert_eq!((doubled.status, &doubled.body), (200, &base.body));
    // Given `…/shop/files/` it asks `/shop/files//`.
    let files = s.send("GET", "/shop/files/", &sphaira, None);
    let doubled = s.send("GET", "/shop/files//", &sphaira, None);
    assert_eq!((doubled.status, &doubled.body), (200, &files.body));
    // A file asked with a doubled slash downloads, on the download threads.
    let href = base
        .body
        .split("<a href=\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .find(|h| h.ends_with(".nsp"))
        .unwrap()
        .to_string();
    let file = s.send("HEAD", &format!("//base//{href}"), &sphaira, None);
    assert_eq!(file.status, 200, "{file:?}");
    assert_eq!(file.header("accept-ranges"), Some("bytes"));
}

#[test]
fn tinfoil_given_the_shop_with_its_slash_gets_the_index() {
    let (folders, auth) = shop();
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let plain = s.send("GET", "/shop", &[("Authorization", &auth)], None);
    let slash = s.send("GET", "/shop/", &[("Authorization", &auth)], None);
    assert_eq!(slash.status, 200, "{slash:?}");
    assert_eq!(slash.body, plain.body);
    assert!(slash.json()["files"].as_array().unwrap().len() > 5);
    // Without credentials it is the shop's 401, as at `/shop`.
    let none = s.send("GET", "/shop/", &[("User-Agent", "Tinfoil")], None);
    assert_eq!(none.status, 401);
    assert!(none.header("www-authenticate").is_some());
}

#[test]
fn a_console_asking_a_path_that_does_not_exist_gets_404_and_is_never_limited() {
    let (folders, auth) = shop();
    let s = TestServer::start_on(
        folders,
        &["--no-local-access", "--auth-failures-per-minute", "3"],
    );
    let unknown = [
        "/shop/files",
        "/base",
        "/shop/shop/x",
        "/nowhere.nsp",
        "/shop/api/x",
    ];
    for round in 0..3 {
        for path in unknown {
            let r = s.send("GET", path, &[("Authorization", &auth)], None);
            assert_eq!(r.status, 404, "round {round}, {path}: {r:?}");
        }
    }
    // The shop still opens: none of those counted as a failure.
    assert_eq!(
        s.send("GET", "/shop", &[("Authorization", &auth)], None)
            .status,
        200
    );
    // A wrong password at an unknown path is a failure like any other.
    let wrong = basic("salon", "wrong");
    let statuses: Vec<u16> = (0..5)
        .map(|_| {
            s.send("GET", "/base", &[("Authorization", &wrong)], None)
                .status
        })
        .collect();
    assert_eq!(statuses, [401, 401, 401, 429, 429]);
}
