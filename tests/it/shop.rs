//! The shop, spoken to the way each installer speaks: Tinfoil's headers and its JSON
//! index, CyberFoil's sections with and without a path, Sphaira's and DBI's listing
//! read with Sphaira's link rules, HEAD and ranges; who may pull; containment.

use std::collections::BTreeSet;
use std::io::Read;
use std::time::{Duration, Instant};

use base64ct::{Base64, Encoding};
use serde_json::Value;

use crate::harness::{Folders, Resp, TestServer};

/// A demo library, scanned, and a console added with the CLI: (folders, name, password).
fn demo_shop() -> (std::sync::Arc<Folders>, String) {
    let folders = Folders::new();
    assert!(folders
        .cli(&["demo-library", folders.library.to_str().unwrap()])
        .0
        .success());
    folders.scan();
    let password = add_console(&folders, "salon");
    (folders, password)
}

/// `console add NAME` through the CLI; returns the password it printed once.
fn add_console(folders: &Folders, name: &str) -> String {
    let (status, out, err) = folders.cli(&["console", "add", name]);
    assert!(status.success(), "{out}{err}");
    out.lines()
        .find_map(|l| l.trim().strip_prefix("mot de passe "))
        .unwrap_or_else(|| panic!("no password in {out}"))
        .trim()
        .to_string()
}

/// `apikey create` through the CLI; returns the key.
fn api_key(folders: &Folders) -> String {
    let (_, out, _) = folders.cli(&["apikey", "create", "script"]);
    out.lines()
        .map(str::trim)
        .find(|l| l.starts_with("ldq_"))
        .unwrap()
        .to_string()
}

fn basic(name: &str, password: &str) -> String {
    format!(
        "Basic {}",
        Base64::encode_string(format!("{name}:{password}").as_bytes())
    )
}

/// The headers Tinfoil sends with an index request (docs/network.md), and no agent.
fn tinfoil(auth: &str) -> Vec<(&'static str, String)> {
    vec![
        ("Authorization", auth.to_string()),
        ("Theme", "0".repeat(64)),
        ("UID", "0123456789abcdef".into()),
        ("Version", "18.0".into()),
        ("Revision", "0".into()),
        ("Language", "fr".into()),
        ("HAUTH", "0".into()),
        ("UAUTH", "0".into()),
    ]
}

fn get(s: &TestServer, path: &str, headers: &[(&str, String)]) -> Resp {
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    s.send("GET", path, &h, None)
}

/// The bytes of a GET, as sent (the harness reads bodies as text).
fn get_bytes(s: &TestServer, path: &str, headers: &[(&str, &str)]) -> (u16, Vec<u8>) {
    let mut b = ureq::http::Request::builder().uri(format!("{}{path}", s.base));
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let resp = s.agent.run(b.body(()).unwrap()).unwrap();
    let status = resp.status().as_u16();
    let mut bytes = Vec::new();
    resp.into_body()
        .into_reader()
        .read_to_end(&mut bytes)
        .unwrap();
    (status, bytes)
}

/// The file on disk behind a library key.
fn disk(folders: &Folders, key: &str) -> Vec<u8> {
    std::fs::read(folders.library.join(key)).unwrap()
}

/// The library's playable files from the public API (key, size): all in the shop.
fn shop_keys(s: &TestServer) -> Vec<(String, u64)> {
    let page = s.get("/api/v1/library?per_page=500").json();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["playable"] == true)
        .map(|g| {
            (
                g["key"].as_str().unwrap().to_string(),
                g["size"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A library key as a URL path.
fn key_path(key: &str) -> String {
    key.split('/')
        .map(|seg| {
            percent_encoding::utf8_percent_encode(seg, percent_encoding::NON_ALPHANUMERIC)
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether some file of the library holds exactly these bytes.
fn in_library(folders: &Folders, bytes: &[u8]) -> bool {
    crate::harness::files_under(&folders.library)
        .into_iter()
        .any(|p| std::fs::read(p).unwrap() == bytes)
}

#[test]
fn tinfoil_reads_every_file_with_its_tags_and_downloads_it() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let index = get(&s, "/", &tinfoil(&auth));
    assert_eq!(index.status, 200, "{}", index.body);
    assert!(index
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let index = index.json();
    let files = index["files"].as_array().unwrap();
    let playable = shop_keys(&s);
    assert!(playable.len() > 20, "{playable:?}");
    assert!(
        files.len() >= playable.len(),
        "every playable file is offered"
    );
    assert_eq!(index["directories"], serde_json::json!([]));
    let success = index["success"].as_str().unwrap();
    assert!(
        success.contains("Ludothèque") && success.contains(&files.len().to_string()),
        "{success}"
    );
    let tag = |name: &str| {
        let (_, rest) = name.rsplit_once(" [").unwrap();
        rest.len() > 22 && rest.as_bytes()[16] == b']' && rest[17..].starts_with("[v")
    };
    for f in files {
        let url = f["url"].as_str().unwrap();
        let (path, fragment) = url.split_once('#').unwrap();
        let name = percent_encoding::percent_decode_str(fragment)
            .decode_utf8()
            .unwrap();
        assert!(tag(&name), "{name}");
        assert!(path.starts_with("/shop/files/"), "{url}");
        assert!(f["size"].as_u64().unwrap() > 0);
    }
    // A title the data knows: its titledb entry, keyed and identified by its ID.
    let odyssey = &index["titledb"]["0100000000010000"];
    assert_eq!(odyssey["id"], "0100000000010000");
    assert_eq!(odyssey["name"], "Moonlit Odyssey");
    // Files download whole, byte for byte, by the URL Tinfoil was given.
    for f in files.iter().take(8) {
        let url = f["url"].as_str().unwrap().split('#').next().unwrap();
        let (status, bytes) = get_bytes(&s, url, &[("Authorization", &auth)]);
        assert_eq!(status, 200, "{url}");
        assert_eq!(bytes.len() as u64, f["size"].as_u64().unwrap());
        assert!(in_library(&folders, &bytes), "{url}");
    }
    // So does a playable file by its library key, for scripts.
    let (key, size) = &playable[0];
    let (status, bytes) = get_bytes(
        &s,
        &format!("/shop/files/{}", key_path(key)),
        &[("Authorization", &auth)],
    );
    assert_eq!((status, bytes.len() as u64), (200, *size));
    assert_eq!(bytes, disk(&folders, key));
}

#[test]
fn cyberfoil_gets_its_sections_with_and_without_a_path() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let cyberfoil = vec![
        ("Authorization", auth.clone()),
        ("User-Agent", "cyberfoil".into()),
    ];
    // Shop URL without a path: `<shop>/api/shop/sections`.
    let root = get(&s, "/api/shop/sections", &cyberfoil);
    assert_eq!(root.status, 200, "{}", root.body);
    assert!(root
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let root = root.json();
    let ids: Vec<&str> = root["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["new", "updates", "dlc", "all"]);
    let all = root["sections"][3]["items"].as_array().unwrap();
    let tinfoil_files = get(&s, "/", &tinfoil(&auth)).json()["files"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(all.len(), tinfoil_files, "`all` is never cut");
    for item in all {
        assert!(item["url"].as_str().unwrap().starts_with("/shop/files/"));
        assert!(item["size"].is_u64() && item["app_version"].is_u64());
        assert!(item["name"].is_string() && item["app_id"].as_str().unwrap().len() == 16);
        assert!(["base", "upd", "dlc"].contains(&item["app_type"].as_str().unwrap()));
        let base = item["title_id"].as_str().unwrap();
        assert!(base.ends_with("000"), "title_id is the base's: {item}");
    }
    for (section, kind) in [(1, "upd"), (2, "dlc")] {
        let items = root["sections"][section]["items"].as_array().unwrap();
        assert!(!items.is_empty() && items.iter().all(|i| i["app_type"] == kind));
    }
    // Shop URL with a path: CyberFoil asks `<shop>/api/shop/sections` and resolves a
    // URL starting with `/` under its shop URL (BuildFullUrl): the result downloads.
    let under = get(&s, "/shop/api/shop/sections", &cyberfoil).json();
    let item = &under["sections"][3]["items"][0];
    let url = format!("/shop{}", item["url"].as_str().unwrap());
    let (status, bytes) = get_bytes(&s, &url, &[("Authorization", &auth)]);
    assert_eq!(
        (status, bytes.len() as u64),
        (200, item["size"].as_u64().unwrap())
    );
    // Older CyberFoil asks the shop URL itself; Tinfoil asking it gets the index.
    let asked = get(&s, "/shop", &cyberfoil).json();
    assert!(asked["sections"].is_array() && asked["success"].is_string());
    assert!(get(&s, "/shop", &tinfoil(&auth)).json()["files"].is_array());
}

/// A listing read with Sphaira's rules: `<a href="…">text</a>` inside the table, the
/// href percent-decoded is the name, a trailing `/` a folder; hrefs with `://` or
/// starting with `?`, `#` or `../` (and `..`) are skipped.
fn sphaira_links(html: &str) -> Vec<String> {
    let table = &html[html.find("<table").unwrap()..html.find("</table>").unwrap()];
    table
        .split("<a href=\"")
        .skip(1)
        .filter_map(|rest| {
            let href = &rest[..rest.find("\">")?];
            let skip = href.is_empty()
                || href.contains("://")
                || href.starts_with(['?', '#'])
                || href == ".."
                || href.starts_with("../");
            (!skip).then(|| href.to_string())
        })
        .collect()
}

#[test]
fn sphaira_and_dbi_walk_the_listing_from_the_root_and_read_with_head_and_ranges() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    // Sphaira sends no User-Agent; the root is the shop's listing for it.
    let sphaira = [("Authorization", auth.as_str())];
    let top = s.send("GET", "/", &sphaira, None);
    assert_eq!(top.status, 200);
    assert!(top.header("content-type").unwrap().starts_with("text/html"));
    let folders_seen = sphaira_links(&top.body);
    assert_eq!(folders_seen, ["base/", "updates/", "dlc/"]);
    let mut names = BTreeSet::new();
    let mut checked = 0;
    for folder in &folders_seen {
        let listing = s.send("GET", &format!("/{folder}"), &sphaira, None);
        assert_eq!(listing.status, 200, "{folder}");
        for href in sphaira_links(&listing.body) {
            let name = percent_encoding::percent_decode_str(&href)
                .decode_utf8()
                .unwrap()
                .to_string();
            assert!(!name.contains('/') && name.contains("]["), "{name}");
            assert!(
                names.insert(format!("{folder}{name}")),
                "one name per file: {name}"
            );
            if checked < 6 {
                sphaira_reads(&s, &folders, &format!("/{folder}{href}"), &auth);
                checked += 1;
            }
        }
    }
    assert!(names.len() > 20);
    // DBI: the same listing under /shop/files/, and titledb's versions.txt.
    let dbi = s.send("GET", "/shop/files/dlc/", &sphaira, None);
    assert!(
        sphaira_links(&dbi.body).len() == names.iter().filter(|n| n.starts_with("dlc/")).count()
    );
    let versions = s.send("GET", "/shop/versions.txt", &sphaira, None);
    let mut lines = versions.body.lines();
    assert_eq!(lines.next(), Some("id|rightsId|version"));
    assert!(
        versions
            .body
            .contains("\n0100000000010800|00000000000000000000000000000000|393216\n"),
        "{}",
        versions.body
    );
    assert!(lines.all(|l| l.split('|').count() == 3 && l.len() >= 50));
    // A folder asked without its slash goes to the folder, as Apache does.
    let bare = s.send("GET", "/shop/files/dlc", &sphaira, None);
    assert_eq!((bare.status, bare.header("location")), (301, Some("dlc/")));
}

/// What Sphaira does with a file: HEAD for its size, then open-ended ranges.
fn sphaira_reads(s: &TestServer, folders: &Folders, path: &str, auth: &str) {
    let head = s.send("HEAD", path, &[("Authorization", auth)], None);
    assert_eq!(head.status, 200, "{path}");
    assert_eq!(head.header("accept-ranges"), Some("bytes"));
    assert!(head.header("last-modified").is_some());
    let size: u64 = head.header("content-length").unwrap().parse().unwrap();
    let (_, whole) = get_bytes(s, path, &[("Authorization", auth)]);
    assert_eq!(whole.len() as u64, size);
    assert!(
        in_library(folders, &whole),
        "{path} is a file of the library"
    );
    let from = size / 3;
    let range = format!("bytes={from}-");
    let (status, tail) = get_bytes(s, path, &[("Authorization", auth), ("Range", &range)]);
    assert_eq!((status, &tail[..]), (206, &whole[from as usize..]));
    let resp = s.send(
        "GET",
        path,
        &[("Authorization", auth), ("Range", "bytes=0-15")],
        None,
    );
    assert_eq!(resp.status, 206);
    assert_eq!(
        resp.header("content-range"),
        Some(&*format!("bytes 0-15/{size}"))
    );
    assert_eq!(resp.header("content-length"), Some("16"));
    let (status, last) = get_bytes(s, path, &[("Authorization", auth), ("Range", "bytes=-10")]);
    assert_eq!((status, &last[..]), (206, &whole[whole.len() - 10..]));
    let past = format!("bytes={size}-");
    let resp = s.send(
        "GET",
        path,
        &[("Authorization", auth), ("Range", &past)],
        None,
    );
    assert_eq!(resp.status, 416);
    assert_eq!(
        resp.header("content-range"),
        Some(&*format!("bytes */{size}"))
    );
}

#[test]
fn only_a_console_password_opens_the_shop_and_nothing_else() {
    let (folders, password) = demo_shop();
    let key = api_key(&folders);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    let shop_paths = [
        "/shop",
        "/api/shop/sections",
        "/shop/files/",
        "/shop/versions.txt",
        "/shop/files/base/x.nsp",
    ];
    for path in shop_paths {
        let none = s.send("GET", path, &[("User-Agent", "cyberfoil")], None);
        assert_eq!(none.status, 401, "{path}");
        assert_eq!(
            none.header("www-authenticate"),
            Some("Basic realm=\"ludotheque\"")
        );
        let with_key = s.send("GET", path, &[("X-Api-Key", &key)], None);
        assert_eq!(
            (with_key.status, with_key.slug()),
            (403, "forbidden".into()),
            "{path}"
        );
    }
    // The console's password opens the shop, not the API nor the pages.
    let auth = basic("salon", &password);
    assert_eq!(
        s.send("GET", "/shop", &[("Authorization", &auth)], None)
            .status,
        200
    );
    assert_eq!(
        s.send("GET", "/api/v1/library", &[("Authorization", &auth)], None)
            .status,
        401
    );
    let page = s.send(
        "GET",
        "/settings",
        &[("Authorization", &auth), ("User-Agent", "Mozilla/5.0")],
        None,
    );
    assert_ne!(page.status, 200);
    // A browser asking the root, credentials or not, gets the interface, not the shop.
    let browser = s.send(
        "GET",
        "/",
        &[
            ("Authorization", &auth),
            ("User-Agent", "Mozilla/5.0 (X11)"),
        ],
        None,
    );
    assert!(
        browser.status == 303 || browser.body.contains("<html"),
        "{browser:?}"
    );
    // Removed, its password stops at once; wrong passwords meet the failure limit.
    drop(s);
    assert!(folders.cli(&["console", "remove", "salon"]).0.success());
    let s = TestServer::start_on(folders, &["--auth-failures-per-minute", "3"]);
    let statuses: Vec<u16> = (0..6)
        .map(|_| {
            s.send("GET", "/shop", &[("Authorization", &auth)], None)
                .status
        })
        .collect();
    assert_eq!(statuses, [401, 401, 401, 429, 429, 429]);
}

#[test]
fn a_public_shop_needs_no_password_but_still_refuses_keys() {
    let (folders, _) = demo_shop();
    let key = api_key(&folders);
    let s = TestServer::start_on(folders, &["--shop-public", "--no-local-access"]);
    let index = s.send("GET", "/shop", &[], None);
    assert_eq!(index.status, 200);
    let url = index.json()["files"][0]["url"]
        .as_str()
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(s.send("HEAD", &url, &[], None).status, 200);
    assert_eq!(
        s.send("GET", "/shop", &[("X-Api-Key", &key)], None).status,
        403
    );
    // Nothing else opens with it.
    assert_eq!(s.get("/api/v1/library").status, 401);
    // DBI may send its own agent and no credentials: still the listing at the root.
    let dbi = s.send("GET", "/", &[("User-Agent", "DBI")], None);
    assert!(dbi.body.contains("<a href=\"base/\">"), "{dbi:?}");
    let browser = s.send("GET", "/", &[("User-Agent", "Mozilla/5.0")], None);
    assert!(!browser.body.contains("Index of"), "{browser:?}");
}

/// Issue 37: with `--shop-public`, a console that still sends a password the service
/// no longer knows (set up before, or removed) is served as anyone, never refused,
/// however often; the right password still names the console in the download
/// history.
#[test]
fn a_public_shop_serves_a_stale_password_as_anyone_and_still_names_its_consoles() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &["--shop-public", "--no-local-access"]);
    let stale = basic("salon", "a password of before");
    let gone = basic("removed", "whatever it was");
    for _ in 0..12 {
        let r = s.send("GET", "/shop", &[("Authorization", &stale)], None);
        assert_eq!(r.status, 200, "{r:?}");
    }
    assert_eq!(
        s.send("GET", "/shop", &[("Authorization", &gone)], None)
            .status,
        200
    );
    let index = s.send("GET", "/shop", &[], None).json();
    let url = index["files"][0]["url"].as_str().unwrap();
    let url = url.split('#').next().unwrap().to_string();
    let right = basic("salon", &password);
    for auth in [&stale, &right] {
        let r = s.send("GET", &url, &[("Authorization", auth)], None);
        assert_eq!(r.status, 200, "{r:?}");
    }
    // The history is written once each download has been sent.
    let db = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    let consoles: BTreeSet<String> = loop {
        let mut stmt = db.prepare("SELECT console FROM shop_downloads").unwrap();
        let seen: BTreeSet<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        if seen.len() >= 2 || Instant::now() > until {
            break seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let expected: BTreeSet<String> = ["127.0.0.1", "salon"].map(String::from).into();
    assert_eq!(consoles, expected);
}

#[test]
fn downloads_stay_inside_the_library() {
    let (folders, password) = demo_shop();
    std::fs::write(folders.tmp.path().join("secret.nsp"), b"outside").unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let h = [("Authorization", auth.as_str())];
    for path in [
        "/shop/files/..%2Fsecret.nsp",
        "/shop/files/base/..%2F..%2Fsecret.nsp",
        "/shop/files/%2E%2E/secret.nsp",
        "/shop/files//etc/passwd",
        "/base/..%2F..%2Fsecret.nsp",
    ] {
        let resp = s.send("GET", path, &h, None);
        assert!(resp.status == 404 || resp.status == 400, "{path}: {resp:?}");
        assert!(!resp.body.contains("outside"));
    }
    // A file swapped for a link out of the library after the scan is not followed.
    let (key, _) = shop_keys(&s).into_iter().next().unwrap();
    let path = folders.library.join(&key);
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(folders.tmp.path().join("secret.nsp"), &path).unwrap();
    let resp = s.send("GET", &format!("/shop/files/{}", key_path(&key)), &h, None);
    assert_eq!(resp.status, 404, "{resp:?}");
    assert!(!resp.body.contains("outside"));
}

#[test]
fn a_console_past_its_share_waits_its_turn_and_past_its_queue_gets_503() {
    let (folders, password) = demo_shop();
    // One file big enough to stay in flight while the client reads nothing.
    let (key, _) = {
        let s = TestServer::start_on(folders.clone(), &[]);
        let keys = shop_keys(&s);
        keys.into_iter().find(|(k, _)| k.ends_with(".nsp")).unwrap()
    };
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(folders.library.join(&key))
        .unwrap();
    f.set_len(512 * 1024 * 1024).unwrap();
    drop(f);
    folders.scan();
    let s = std::sync::Arc::new(TestServer::start_on(
        folders.clone(),
        &["--shop-downloads", "1"],
    ));
    let auth = basic("salon", &password);
    let index = get(&s, "/", &tinfoil(&auth)).json();
    let big = index["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["size"] == 512 * 1024 * 1024)
        .unwrap()["url"]
        .as_str()
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .to_string();
    let held = s
        .agent
        .run(
            ureq::http::Request::builder()
                .uri(format!("{}{big}", s.base))
                .header("Authorization", &auth)
                .body(())
                .unwrap(),
        )
        .unwrap();
    assert_eq!(held.status(), 200);
    // Four more wait in the console's queue (four per download of its share)…
    let waiting: Vec<_> = (0..4)
        .map(|_| {
            let (s, big, auth) = (s.clone(), big.clone(), auth.clone());
            std::thread::spawn(move || {
                let r = s.send(
                    "GET",
                    &big,
                    &[("Authorization", &auth), ("Range", "bytes=0-9")],
                    None,
                );
                r.status
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // …and the next is refused at once.
    let started = Instant::now();
    let refused = s.send(
        "GET",
        &big,
        &[("Authorization", &auth), ("Range", "bytes=0-9")],
        None,
    );
    assert_eq!((refused.status, refused.slug()), (503, "overloaded".into()));
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert!(started.elapsed() < Duration::from_secs(1));
    // Another console is not held by this one's share, and the API answers meanwhile.
    let other = add_console(&folders, "chambre");
    let resp = s.send(
        "GET",
        &big,
        &[
            ("Authorization", &basic("chambre", &other)),
            ("Range", "bytes=0-9"),
        ],
        None,
    );
    assert_eq!(resp.status, 206);
    assert_eq!(s.get("/api/v1/health").status, 200);
    assert!(
        waiting.iter().all(|t| !t.is_finished()),
        "a read past the share ran"
    );
    // Once the first download ends, the waiting reads are served in turn.
    drop(held);
    for t in waiting {
        assert_eq!(t.join().unwrap(), 206);
    }
}

#[test]
fn a_download_counts_once_per_file_and_console_and_the_consoles_page_shows_it() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let index = get(&s, "/", &tinfoil(&auth)).json();
    let url = index["files"][0]["url"]
        .as_str()
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .to_string();
    for range in ["bytes=0-99", "bytes=100-199", "bytes=200-299"] {
        let resp = s.send(
            "GET",
            &url,
            &[("Authorization", &auth), ("Range", range)],
            None,
        );
        assert_eq!(resp.status, 206);
    }
    // A download is counted once its answer is sent, after the client has it: the
    // page may be asked a moment before the last range is counted.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let page = loop {
        let page = s.get("/device");
        if page.body.contains("300 o") || std::time::Instant::now() > until {
            break page;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(
        page.body.contains("Téléchargements récents"),
        "{}",
        page.body
    );
    let rows: Vec<&str> = page
        .body
        .split("<tr>")
        .filter(|r| r.contains("<td>salon</td>"))
        .collect();
    assert_eq!(
        rows.len(),
        2,
        "the console's row and one download: {rows:?}"
    );
    assert!(rows[1].contains("300 o"), "{}", rows[1]);
    // The page gives the address and, listening on loopback, says no console reaches it.
    assert!(page.body.contains("id=\"shop-url\""));
    assert!(page.body.contains("--listen 0.0.0.0:"));
}

#[test]
fn consoles_from_the_command_line_and_the_web_interface() {
    let folders = Folders::new();
    let (status, _, err) = folders.cli(&["console", "add", "salon:2"]);
    assert!(!status.success() && err.contains("« : »"), "{err}");
    add_console(&folders, "salon");
    let (status, _, err) = folders.cli(&["console", "add", "salon"]);
    assert!(!status.success() && err.contains("s'appelle déjà"), "{err}");
    let (_, list, _) = folders.cli(&["console", "list"]);
    assert!(list.contains("salon") && list.contains("jamais"), "{list}");
    let (status, _, err) = folders.cli(&["console", "remove", "personne"]);
    assert!(!status.success() && err.contains("aucune console"), "{err}");
    let s = TestServer::start_on(folders.clone(), &[]);
    let created = s.send(
        "POST",
        "/api/consoles",
        &[("Content-Type", "application/json")],
        Some(br#"{"name":"tv"}"#.to_vec()),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let password = created.json()["password"].as_str().unwrap().to_string();
    let auth = basic("tv", &password);
    assert_eq!(
        s.send(
            "GET",
            "/shop/versions.txt",
            &[("Authorization", &auth)],
            None
        )
        .status,
        200
    );
    let message = s.send(
        "POST",
        "/api/shop/message",
        &[],
        Some(br#"{"message":"Bienvenue au salon"}"#.to_vec()),
    );
    assert_eq!(message.status, 200);
    let index = s
        .send("GET", "/shop", &[("Authorization", &auth)], None)
        .json();
    assert_eq!(index["success"], "Bienvenue au salon");
    let long = format!(r#"{{"message":"{}"}}"#, "x".repeat(201));
    assert_eq!(
        s.send("POST", "/api/shop/message", &[], Some(long.into_bytes()))
            .status,
        400
    );
    assert_eq!(s.send("DELETE", "/api/consoles/tv", &[], None).status, 200);
    assert_eq!(
        s.send("GET", "/shop", &[("Authorization", &auth)], None)
            .status,
        401
    );
    let _: Value = s.get("/api/v1/health").json();
}
