//! Title data: imports of the real titledb files, what the library lacks, over the
//! command line and the API, and `titles update` against a local HTTP server.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use ludotheque::testkit::Msg;

use crate::harness::said_fr;
use crate::harness::{files_under, Folders, TestServer};
use crate::library::demo;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/titledb")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn import(folders: &Folders, names: &[&str]) -> (bool, String, String) {
    let mut args = vec!["titles".to_string(), "import".to_string()];
    args.extend(names.iter().map(|n| fixture(n)));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (status, out, err) = folders.cli(&args);
    (status.success(), out, err)
}

/// The demo library without its title data (written with another data folder), not
/// scanned yet.
pub(crate) fn unscanned_demo() -> Arc<Folders> {
    let folders = Folders::new();
    let elsewhere = folders.tmp.path().join("demo-data");
    let out = crate::harness::ludotheque()
        .args(["--data", elsewhere.to_str().unwrap(), "demo-library"])
        .arg(&folders.library)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    folders
}

/// The same, scanned, so that the tests below see only what they import.
fn scanned_demo() -> Arc<Folders> {
    let folders = unscanned_demo();
    folders.scan();
    folders
}

#[test]
fn an_import_of_the_real_files_counts_what_it_skipped_and_finds_what_is_missing() {
    let folders = scanned_demo();
    let (ok, out, err) = import(&folders, &["IL.en.json", "versions.json", "versions.txt"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("versions.txt : 60\u{202F}510 identifiants de titres ; ignorés : 2\u{202F}239 sans version, 105 d'une autre console"), "{out}");
    assert!(
        out.contains("IL.en.json : 416 titres importés ; 57 ignorés"),
        "{out}"
    );
    // The bounds on a field are far above the real files' (the longest history, 314
    // versions, is kept whole).
    assert!(
        out.contains("versions.json : 41\u{202F}086 versions datées de 13\u{202F}821 identifiants ; 0 ignoré\n"),
        "{out}"
    );
    assert!(!out.contains("champ"), "{out}");
    let (status, out, _) = folders.cli(&["missing", "--kind", "update"]);
    assert!(status.success());
    // Moonlit Odyssey v65536 in the demo; versions.txt knows 393216 (2025-06-25).
    assert!(
        out.lines()
            .any(|l| l.starts_with("0100000000010000") && l.contains("v1 → v6 du 2025-06-25")),
        "{out}"
    );
    let (_, dlc, _) = folders.cli(&["missing", "--kind", "dlc"]);
    assert!(dlc.contains("0100ABF008969002 (The Crown Tundra)"), "{dlc}");
    assert!(!dlc.contains("mise à jour"), "{dlc}");
    let (_, status_out, _) = folders.cli(&["titles", "status"]);
    assert!(status_out.contains("Dernier import : 20"), "{status_out}");
    assert!(
        status_out.contains("versions.txt, versions.json")
            || status_out.contains("IL.en.json, versions.json, versions.txt"),
        "{status_out}"
    );
}

#[test]
fn a_broken_file_names_itself_and_keeps_the_previous_data_whole() {
    let folders = scanned_demo();
    assert!(import(&folders, &["versions.txt", "versions.json"]).0);
    let (_, before, _) = folders.cli(&["missing"]);
    // A region file cut in the middle, and a versions.txt that is no such file.
    let cut = folders.tmp.path().join("US.en.json");
    let region = std::fs::read(fixture("IL.en.json")).unwrap();
    std::fs::write(&cut, &region[..region.len() / 2]).unwrap();
    let bogus = folders.tmp.path().join("versions.txt");
    std::fs::write(&bogus, "id|rightsId|version\n0100000000010000|0\n").unwrap();
    for (file, name, where_) in [
        (
            &cut,
            "US.en.json",
            "ligne 7944\u{a0}: le fichier s'arrête trop tôt",
        ),
        (
            &bogus,
            "versions.txt",
            "ligne 2\u{a0}: pas trois champs séparés par |",
        ),
    ] {
        let (status, out, err) = folders.cli(&["titles", "import", file.to_str().unwrap()]);
        assert!(!status.success(), "{out}");
        assert!(err.contains(name) && err.contains(where_), "{err}");
        assert!(!err.contains(folders.tmp.path().to_str().unwrap()), "{err}");
        let (_, after, _) = folders.cli(&["missing"]);
        assert_eq!(before, after);
    }
    let (status, _, err) = folders.cli(&["titles", "import", fixture("LICENSE").as_str()]);
    assert!(!status.success() && err.contains("LICENSE"), "{err}");
}

#[test]
fn ignoring_a_title_or_every_title_takes_it_out_of_what_is_missing() {
    let folders = scanned_demo();
    assert!(import(&folders, &["versions.txt", "versions.json", "IL.en.json"]).0);
    let count = |kind: &str| folders.cli(&["missing", "--kind", kind]).1.lines().count();
    let (updates, dlc) = (count("update"), count("dlc"));
    assert!(updates > 3 && dlc > 2, "{updates} {dlc}");
    let (status, out, err) = folders.cli(&["titles", "ignore", "0100ABF008968000", "--dlc"]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(count("dlc"), dlc - 1);
    assert_eq!(count("update"), updates);
    folders.cli(&["titles", "ignore", "--dlc"]);
    assert_eq!(
        folders.cli(&["missing", "--kind", "dlc"]).1.trim(),
        "Rien ne manque."
    );
    folders.cli(&["titles", "unignore", "--dlc"]);
    folders.cli(&["titles", "unignore", "0100abf008968000"]);
    assert_eq!(count("dlc"), dlc);
    let (status, _, err) = folders.cli(&["titles", "ignore", "../etc", "--dlc"]);
    assert!(
        !status.success() && err.contains(&said_fr(Msg::NotTitleId)),
        "{err}"
    );
}

#[test]
fn the_api_lists_titles_one_title_and_what_is_missing() {
    let folders = scanned_demo();
    assert!(import(&folders, &["versions.txt", "versions.json", "IL.en.json"]).0);
    let s = TestServer::start_on(folders, &[]);
    s.wait_idle();
    let page: Value = s.get("/api/v1/titles?limit=200").json();
    let items = page["items"].as_array().unwrap();
    assert_eq!(page["total"].as_u64().unwrap() as usize, items.len());
    let odyssey = items
        .iter()
        .find(|t| t["title_id"] == "0100000000010000")
        .expect("Moonlit Odyssey");
    assert_eq!(odyssey["status"], serde_json::json!(["update_available"]));
    assert_eq!(odyssey["installed_version"], 65536);
    assert_eq!(odyssey["latest_version"], 393216);
    assert_eq!(odyssey["latest_date"], "2025-06-25");
    let orphan = items
        .iter()
        .find(|t| t["title_id"] == "0100AAAA00000000")
        .unwrap();
    assert!(orphan["status"]
        .as_array()
        .unwrap()
        .contains(&"base_missing".into()));
    for status in [
        "update_available",
        "dlc_missing",
        "base_missing",
        "complete",
    ] {
        let p: Value = s
            .get(&format!("/api/v1/titles?status={status}&limit=200"))
            .json();
        for t in p["items"].as_array().unwrap() {
            assert!(
                t["status"].as_array().unwrap().contains(&status.into()),
                "{t}"
            );
        }
    }
    let r = s.get("/api/v1/titles?status=nope");
    assert_eq!((r.status, r.slug()), (400, "bad_request".to_string()));
    let one: Value = s.get("/api/v1/titles/0100abf008968000").json();
    assert_eq!(one["contents"]["base"].as_array().unwrap().len(), 1);
    assert!(!one["contents"]["dlc"].as_array().unwrap().is_empty());
    // The count and the files by kind are two keys, not one written twice.
    assert_eq!(one["files"], 4, "{one}");
    let raw = s.get("/api/v1/titles/0100abf008968000").body;
    assert_eq!(raw.matches("\"files\"").count(), 1, "{raw}");
    // A blank q filters nothing.
    let blank: Value = s.get("/api/v1/titles?q=%0C&limit=1").json();
    assert_eq!(blank["total"], page["total"]);
    assert!(!one["versions"].as_array().unwrap().is_empty());
    for bad in [
        "/api/v1/titles/0100000000000001",
        "/api/v1/titles/..%2Fx",
        "/api/v1/titles/zz",
    ] {
        assert_eq!(s.get(bad).status, 404, "{bad}");
    }
    let missing: Value = s.get("/api/v1/missing?kind=dlc&limit=200").json();
    let rows = missing["items"].as_array().unwrap();
    assert!(rows.iter().all(|m| m["kind"] == "dlc"));
    assert!(rows
        .iter()
        .any(|m| m["id"] == "0100ABF008969002" && m["name"] == "The Crown Tundra"));
    let r = s.get("/api/v1/missing?kind=both");
    assert_eq!((r.status, r.slug()), (400, "bad_request".to_string()));
    // The whole wanted list, to download: every row, not one page.
    let first: Value = s.get("/api/v1/missing?limit=1").json();
    let total = first["total"].as_u64().unwrap();
    assert!(total > 1, "{first}");
    let json = s.get("/api/v1/missing?format=json");
    assert!(json
        .header("content-disposition")
        .unwrap()
        .contains("ludotheque-wanted.json"));
    let whole: Value = json.json();
    assert_eq!(whole["total"].as_u64(), Some(total));
    assert_eq!(whole["items"].as_array().unwrap().len() as u64, total);
    assert_eq!(whole["items"][0], first["items"][0]);
    let csv = s.get("/api/v1/missing?format=csv");
    assert!(csv.header("content-type").unwrap().starts_with("text/csv"));
    assert!(csv
        .header("content-disposition")
        .unwrap()
        .contains("ludotheque-wanted.csv"));
    let lines: Vec<&str> = csv.body.lines().collect();
    assert_eq!(
        lines[0],
        "title_id,title_name,kind,id,name,installed_version,latest_version,latest_date"
    );
    assert_eq!(lines.len() as u64, total + 1, "{}", csv.body);
    assert!(
        lines.contains(&"0100ABF008968000,Pokémon Sword,dlc,0100ABF008969002,The Crown Tundra,,0,"),
        "{}",
        csv.body
    );
    // Of one kind; an unknown format is refused.
    let dlc = s.get("/api/v1/missing?format=csv&kind=dlc").body;
    assert!(dlc.lines().skip(1).all(|l| l.contains(",dlc,")), "{dlc}");
    assert!(dlc.lines().count() > 1 && dlc.lines().count() < lines.len());
    let r = s.get("/api/v1/missing?format=xml");
    assert_eq!((r.status, r.slug()), (400, "bad_request".to_string()));
    let stats: Value = s.get("/api/v1/stats").json();
    assert_eq!(stats["titles"], page["total"]);
    assert!(stats["updates_available"].as_u64().unwrap() > 0);
    let game: Value = s.get("/api/v1/library?type=UPDATE&limit=1").json();
    assert!(game["items"][0]["version"].is_u64() && game["items"][0]["base_title_id"].is_string());
}

#[test]
fn an_import_while_the_server_runs_is_seen_at_once() {
    let folders = scanned_demo();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let before: Value = s.get("/api/v1/stats").json();
    assert_eq!(before["updates_available"], 0);
    // Nothing wanted yet: the CSV is its header alone.
    let empty = s.get("/api/v1/missing?format=csv").body;
    assert_eq!(
        empty,
        "title_id,title_name,kind,id,name,installed_version,latest_version,latest_date\n"
    );
    assert!(import(&folders, &["versions.txt", "versions.json"]).0);
    let after: Value = s.get("/api/v1/stats").json();
    assert!(after["updates_available"].as_u64().unwrap() > 0, "{after}");
}

/// A title data source on loopback: serves the fixtures with an ETag, answers 304 to
/// a matching If-None-Match, and can be told to fail or to answer garbage.
/// Files a source serves, by name.
type Files = Vec<(String, Vec<u8>)>;

pub(crate) struct Source {
    pub(crate) url: String,
    requests: Arc<AtomicUsize>,
    pub(crate) mode: Arc<Mutex<&'static str>>,
    /// Files served instead of the fixtures, by name.
    pub(crate) files: Arc<Mutex<Files>>,
}

pub(crate) fn source() -> Source {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let mode = Arc::new(Mutex::new("ok"));
    let files: Arc<Mutex<Files>> = Arc::default();
    let (count, m, f) = (Arc::clone(&requests), Arc::clone(&mode), Arc::clone(&files));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = vec![0; 8192];
            let n = stream.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            count.fetch_add(1, Ordering::SeqCst);
            let name = head
                .split_whitespace()
                .nth(1)
                .unwrap_or("/")
                .trim_start_matches('/')
                .to_string();
            let etag = format!("\"{name}-1\"");
            let mode = *m.lock().unwrap();
            let own = f
                .lock()
                .unwrap()
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, b)| b.clone());
            let (status, body) = if let Some(body) = own {
                ("200 OK", body)
            } else if mode == "down" {
                ("503 Unavailable", Vec::new())
            } else if mode == "error" {
                ("500 Internal Server Error", Vec::new())
            } else if mode == "small" && name.ends_with(".json") && name != "versions.json" {
                // As jsDelivr answers a file past its 20 MB.
                ("403 Forbidden", Vec::new())
            } else if mode == "html" {
                ("200 OK", b"<html><body>Maintenance</body></html>".to_vec())
            } else if head
                .to_ascii_lowercase()
                .contains(&format!("if-none-match: {etag}").to_ascii_lowercase())
            {
                ("304 Not Modified", Vec::new())
            } else if name == "icon.jpg" {
                ("200 OK", JPEG.to_vec())
            } else if name == "page.html" {
                ("200 OK", b"<html></html>".to_vec())
            } else if mode == "garbage" && name == "versions.json" {
                ("200 OK", b"{\"0100000000010000\": [".to_vec())
            } else {
                let file = if name.ends_with(".json") && name != "versions.json" {
                    "IL.en.json".to_string()
                } else {
                    name.clone()
                };
                ("200 OK", std::fs::read(fixture(&file)).unwrap_or_default())
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nETag: {etag}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
    });
    Source {
        url,
        requests,
        mode,
        files,
    }
}

#[test]
fn an_update_fetches_conditionally_and_keeps_the_last_good_data() {
    let folders = scanned_demo();
    let src = source();
    let update = |folders: &Folders| {
        let (status, out, err) = folders.cli(&[
            "titles",
            "update",
            "--titledb-url",
            &src.url,
            "--titledb-region",
            "IL.en",
        ]);
        (status.success(), out, err)
    };
    let (ok, out, err) = update(&folders);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("versions.txt : 60\u{202F}510 identifiants de titres"),
        "{out}"
    );
    assert!(folders.data.join("titledb/IL.en.json").is_file());
    let (_, missing, _) = folders.cli(&["missing"]);
    assert!(!missing.trim().is_empty());
    // Nothing changed at the source: three 304s, nothing imported.
    let (ok, out, _) = update(&folders);
    assert!(ok && out.contains("rien n'a changé"), "{out}");
    // Down, then garbage: an error naming the file, and the data as it was.
    *src.mode.lock().unwrap() = "down";
    let (ok, _, err) = update(&folders);
    assert!(
        !ok && err.contains("la source a répondu 503") && err.contains("conservées"),
        "{err}"
    );
    std::fs::remove_file(folders.data.join("titledb/versions.json")).unwrap();
    *src.mode.lock().unwrap() = "garbage";
    let (ok, _, err) = update(&folders);
    assert!(!ok && err.contains("versions.json"), "{err}");
    assert_eq!(folders.cli(&["missing"]).1, missing);
    assert!(src.requests.load(Ordering::SeqCst) >= 7);
    let (ok, _, err) = {
        let (status, out, err) = folders.cli(&[
            "titles",
            "update",
            "--titledb-url",
            &src.url,
            "--titledb-region",
            "../x",
        ]);
        (status.success(), out, err)
    };
    assert!(!ok && err.contains(&Msg::BadRegion.french()), "{err}");
}

/// The row of the settings page's table `table` whose attribute `attr` is `value`.
fn row<'a>(page: &'a str, table: &str, attr: &str, value: &str) -> &'a str {
    let table = &page[page
        .find(&format!("id=\"{table}\""))
        .unwrap_or_else(|| panic!("no #{table}"))..];
    let at = table
        .find(&format!("{attr}=\"{value}\""))
        .unwrap_or_else(|| panic!("no {attr}={value} in {table}"));
    let end = table[at..].find("</tr>").unwrap();
    &table[at..at + end]
}

#[test]
fn each_file_comes_from_the_first_source_that_gives_one() {
    let folders = scanned_demo();
    let (first, second) = (source(), source());
    *first.mode.lock().unwrap() = "error";
    let urls = format!("{},{}", first.url, second.url);
    let s = TestServer::start_on(
        folders.clone(),
        &["--titledb-url", &urls, "--titledb-region", "IL.en"],
    );
    let update = || {
        assert_eq!(s.post("/api/titles/update").status, 202);
        s.wait_idle();
        folders.run_results().last().cloned().unwrap()
    };
    // The title data is imported, its copies kept.
    let data_is_there = || {
        assert!(folders.data.join("titledb/IL.en.json").is_file());
        let wanting = s.get("/api/v1/titles?status=update_available").json();
        assert!(wanting["total"].as_u64().unwrap() > 0, "{wanting}");
    };
    // The first answers 500: every file comes from the second.
    assert_eq!(update(), "ok");
    data_is_there();
    let page = s
        .send("GET", "/settings", &[("Accept-Language", "fr")], None)
        .body;
    let bad = row(&page, "title-sources", "data-source", &first.url);
    assert!(
        bad.contains(r#"data-ok="false" data-failed="true""#),
        "{bad}"
    );
    assert!(bad.contains("la source a répondu 500"), "{bad}");
    let good = row(&page, "title-sources", "data-source", &second.url);
    assert!(
        good.contains(r#"data-ok="true" data-failed="false""#),
        "{good}"
    );
    for file in ["versions.txt", "versions.json", "IL.en.json"] {
        let kept = row(&page, "title-files", "data-file", file);
        assert!(
            kept.contains(&format!("data-from=\"{}\"", second.url)),
            "{kept}"
        );
        // The copy's age: fetched just now.
        assert!(kept.contains(r#"<td class="age">0 min</td>"#), "{kept}");
    }
    // In English, in the reader's language.
    let page = s
        .send("GET", "/settings", &[("Accept-Language", "en")], None)
        .body;
    assert!(
        row(&page, "title-sources", "data-source", &first.url).contains("the source answered 500")
    );
    // Having fetched from a source, the data is refreshed daily by default.
    assert!(page.contains(r#"id="title-refresh">every 24 h<"#), "{page}");
    // A 200 that is no title data file is the next source's turn too; the second's
    // validators are never sent to the first.
    *first.mode.lock().unwrap() = "html";
    let asked = second.requests.load(Ordering::SeqCst);
    assert_eq!(update(), "ok");
    assert_eq!(
        second.requests.load(Ordering::SeqCst),
        asked + 3,
        "three 304s"
    );
    // A cut file whose first bytes look right is the next source's turn too: a file is
    // read whole before it is taken. The first's other files are taken from it.
    *first.mode.lock().unwrap() = "garbage";
    assert_eq!(update(), "ok");
    let page = s.get("/settings").body;
    let from_first = |file| {
        row(&page, "title-files", "data-file", file)
            .contains(&format!("data-from=\"{}\"", first.url))
    };
    assert!(from_first("versions.txt") && from_first("IL.en.json"));
    assert!(!from_first("versions.json"), "{page}");
    // Back to health, the first gives every file again (anew: no validators of its own).
    *first.mode.lock().unwrap() = "ok";
    assert_eq!(update(), "ok");
    let page = s.get("/settings").body;
    for file in ["versions.txt", "versions.json", "IL.en.json"] {
        let kept = row(&page, "title-files", "data-file", file);
        assert!(
            kept.contains(&format!("data-from=\"{}\"", first.url)),
            "{kept}"
        );
    }
    // The first down, the second serving the small files only (as jsDelivr does): the
    // region file's kept copy stands, and the run says so, partial.
    *first.mode.lock().unwrap() = "down";
    *second.mode.lock().unwrap() = "small";
    assert_eq!(update(), "partial");
    let failures = folders.last_run_failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        matches!(&failures[0].1, Msg::TitleSourceDown { file, .. } if file == "IL.en.json"),
        "{failures:?}"
    );
    let page = s.get("/settings").body;
    let kept = row(&page, "title-files", "data-file", "IL.en.json");
    assert!(
        kept.contains(&format!("data-from=\"{}\"", first.url)),
        "{kept}"
    );
    let fresh = row(&page, "title-files", "data-file", "versions.txt");
    assert!(
        fresh.contains(&format!("data-from=\"{}\"", second.url)),
        "{fresh}"
    );
    // Both down: the data as it was, and the first one's reason.
    *first.mode.lock().unwrap() = "down";
    *second.mode.lock().unwrap() = "down";
    assert_eq!(update(), "failed");
    data_is_there();
}

#[test]
fn the_refresh_runs_on_its_schedule() {
    let folders = scanned_demo();
    let src = source();
    let runs = folders.run_results().len();
    let s = TestServer::start_on(
        folders.clone(),
        &[
            "--titledb-url",
            &src.url,
            "--titledb-region",
            "IL.en",
            "--titledb-every",
            "1s",
        ],
    );
    crate::harness::wait_until(
        "three scheduled runs",
        std::time::Duration::from_secs(20),
        || folders.run_results().len() >= runs + 3,
    );
    // The refresh due at start ran once, in the service that stays: none was cut short
    // by the service's restart of itself (`memory::without_thread_caches`).
    assert!(
        !s.output().contains("interrupted by the previous stop"),
        "{}",
        s.output()
    );
    drop(s);
    // Only imported from files, never fetched: no refresh unless asked.
    let folders = scanned_demo();
    let (ok, out, err) = import(&folders, &["IL.en.json", "versions.json", "versions.txt"]);
    assert!(ok, "{out}{err}");
    let runs = folders.run_results().len();
    let s = TestServer::start_on(folders.clone(), &["--titledb-url", &src.url]);
    assert!(s
        .get("/settings")
        .body
        .contains(r#"id="title-refresh">jamais<"#));
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert_eq!(folders.run_results().len(), runs);
    drop(s);
    // Asked for, it runs: the older flag's hours too.
    let s = TestServer::start_on(
        folders.clone(),
        &["--titledb-url", &src.url, "--titledb-refresh-hours", "6"],
    );
    let page = s.get("/settings").body;
    assert!(
        page.contains(r#"id="title-refresh">toutes les 6 h<"#),
        "{page}"
    );
}

#[test]
fn the_demo_library_brings_its_title_data_and_shows_what_it_lacks() {
    let folders = Folders::new();
    let (status, out, err) = folders.cli(&["demo-library", folders.library.to_str().unwrap()]);
    assert!(
        status.success() && out.contains("données de titres sont importées"),
        "{out}{err}"
    );
    // Beside the library, which holds only game files.
    assert!(folders
        .tmp
        .path()
        .join("library-titledb/versions.txt")
        .is_file());
    folders.scan();
    let (_, missing, _) = folders.cli(&["missing"]);
    assert!(
        missing.contains(
            "0100000000010000 Moonlit Odyssey  mise à jour 0100000000010800  v1 → v6 du 2025-06-25"
        ),
        "{missing}"
    );
    assert!(
        missing.contains("DLC 0100000000011002 (Moonlit Odyssey - Hats)\n"),
        "{missing}"
    );
    // A data folder that has title data keeps it.
    let again = folders.tmp.path().join("again");
    let (_, out, _) = folders.cli(&["demo-library", again.to_str().unwrap()]);
    assert!(out.contains("a déjà des données de titres"), "{out}");
    let stats: Value = {
        let s = TestServer::start_on(folders.clone(), &[]);
        s.wait_idle();
        s.get("/api/v1/stats").json()
    };
    assert_eq!(stats["updates_available"], 5, "{stats}");
    assert_eq!(stats["dlc_missing"], 3, "{stats}");
}

/// A signed-in page as the loopback user sees it.
fn page(s: &TestServer, path: &str) -> String {
    let r = s.get(path);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    r.body
}

/// The rows of the title table, as text without tags.
/// The statuses the row of title `id` shows, by their one spelling, in order.
fn statuses(html: &str, id: &str) -> Vec<String> {
    let row = html
        .split(&format!("<tr data-title=\"{id}\">"))
        .nth(1)
        .unwrap_or_else(|| panic!("no row for {id}: {html}"));
    let row = row.split("</tr>").next().unwrap();
    row.split("data-status=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_string())
        .collect()
}

fn rows(html: &str) -> Vec<String> {
    let Some(body) = html.split("<tbody>").nth(1) else {
        return Vec::new();
    };
    body.split("</tbody>")
        .next()
        .unwrap()
        .split("<tr")
        .skip(1)
        .map(|row| {
            let mut text = String::new();
            // Each piece starts inside its `<tr …>` tag.
            let mut in_tag = true;
            for c in row.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => {
                        in_tag = false;
                        text.push(' ')
                    }
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

#[test]
fn the_web_library_is_a_row_per_title_with_filters_sorts_and_a_page_per_title() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.post("/api/v1/scan");
    s.wait_idle();
    let library = page(&s, "/library");
    let all = rows(&library);
    assert_eq!(all.len(), 32, "{all:#?}");
    let odyssey = all
        .iter()
        .find(|r| r.starts_with("Moonlit Odyssey"))
        .unwrap();
    assert_eq!(
        odyssey,
        "Moonlit Odyssey 0100000000010000 Jeu de base Mise à jour ×1 DLC ×1 v1 → v6 mise à jour disponible 1 DLC manquant 281,6 Ko"
    );
    assert_eq!(statuses(&library, "0100AAAA00000000"), ["base_missing"]);
    // The demo's broken download is flagged on its row, beside what it lacks: its
    // only copy of the game is damaged, so it lacks a sound game, it is not complete.
    assert_eq!(
        statuses(&library, "0100BBBB00000000"),
        ["damaged", "base_damaged"]
    );
    // Incomplete only: every row lacks something; complete: none does.
    let incomplete = rows(&page(&s, "/library?show=incomplete"));
    assert_eq!(incomplete.len(), 10, "{incomplete:#?}");
    assert!(incomplete.iter().all(|r| !r.contains(" complet ")));
    let complete = rows(&page(&s, "/library?show=complete"));
    let unknown = rows(&page(&s, "/library?show=unknown"));
    assert_eq!(complete.len() + unknown.len() + incomplete.len(), all.len());
    assert!(complete.iter().all(|r| r.contains(" complet ")));
    assert!(unknown.iter().all(|r| r.contains(" titre inconnu ")));
    assert_eq!(rows(&page(&s, "/library?show=base_damaged")).len(), 1);
    assert_eq!(rows(&page(&s, "/library?show=dlc_missing")).len(), 3);
    // Under what lacks something, the whole wanted list to download, of its kind,
    // which the page's reader may open; not under the complete.
    let dlc_page = page(&s, "/library?show=dlc_missing");
    let link = "/api/v1/missing?format=csv&amp;kind=dlc";
    assert!(dlc_page.contains(&format!("href=\"{link}\"")), "{dlc_page}");
    let wanted = s.get(&link.replace("&amp;", "&"));
    assert_eq!(wanted.status, 200);
    assert_eq!(wanted.body.lines().count(), 1 + 3, "{}", wanted.body);
    assert!(!page(&s, "/library?show=complete").contains("id=\"wanted-list\""));
    // Sorted by size, largest first; by name, Astral Link first; a search by words.
    let by_size = rows(&page(&s, "/library?sort=size"));
    assert!(
        by_size[0].starts_with("The Legend of Zephyr"),
        "{by_size:#?}"
    );
    assert!(rows(&page(&s, "/library?sort=name"))[0].starts_with("Astral Link"));
    let found = rows(&page(&s, "/library?q=odyssey"));
    assert_eq!(found.len(), 1);
    assert_eq!(rows(&page(&s, "/library?q=0100ABF0")).len(), 1);
    // A DLC's own ID finds its title.
    let by_dlc = rows(&page(&s, "/library?q=0100ABF008969001"));
    assert!(
        by_dlc.len() == 1 && by_dlc[0].starts_with("Pôtions Épée"),
        "{by_dlc:?}"
    );
    // The English words, and the file list's old links go on to /files.
    let en = s
        .send("GET", "/library", &[("Accept-Language", "en")], None)
        .body;
    assert!(rows(&en)
        .iter()
        .any(|r| r.contains("update available 1 DLC missing")));
    let r = s.get("/library?type=DLC&page=2");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/files?type=DLC&page=2"))
    );
    assert!(page(&s, "/files?type=DLC").contains("<p id=\"result-count\">12 "));

    // The title page: facts, the files by kind, what is missing, the history.
    let title = page(&s, "/title/0100000000010000");
    for text in [
        "Studio Lune",
        "<time datetime=\"2017-10-27\">27 oct. 2017</time>",
        // Update numbers, the raw number on hover.
        r#"<span class="version" title="v393216">v6</span> (<time datetime="2025-06-25">25 juin 2025</time>)"#,
        "Moonlit Odyssey - Costumes",
        "0100000000011002</code> · Moonlit Odyssey - Hats",
        r#"<span class="version" title="v327680">v5</span> · <time datetime="2025-06-10">10 juin 2025</time>"#,
        "data-api=\"/api/titles/0100000000010000/ignore\"",
    ] {
        assert!(title.contains(text), "{text} in {title}");
    }
    assert!(title.contains(
        "href=\"/game/Studio/Moon/Moonlit%20Odyssey%20%5B0100000000010800%5D%5Bv65536%5D.nsp\""
    ));
    assert_eq!(
        page(&s, "/title/0100000000010000"),
        page(&s, "/title/0100000000010000".to_lowercase().as_str())
    );
    for bad in [
        "/title/0100000000000001",
        "/title/..%2F..%2Fetc",
        "/title/x",
    ] {
        assert_eq!(s.get(bad).status, 404, "{bad}");
    }

    // Ignoring a title's DLC takes its badge away at once; so does not counting DLC.
    let ignore = |dlc: bool| {
        let body = format!("{{\"dlc\": {dlc}, \"updates\": false}}");
        s.send(
            "POST",
            "/api/titles/0100000000010000/ignore",
            &[("Content-Type", "application/json")],
            Some(body.into_bytes()),
        )
    };
    assert_eq!(ignore(true).status, 200);
    let row = rows(&page(&s, "/library?q=odyssey")).remove(0);
    assert!(
        !row.contains("DLC manquant") && row.contains("mise à jour disponible"),
        "{row}"
    );
    assert!(page(&s, "/title/0100000000010000").contains("name=\"dlc\" checked"));
    assert_eq!(ignore(false).status, 200);
    let bad = s.send(
        "POST",
        "/api/titles/0100000000010000/ignore",
        &[],
        Some(b"{\"dlc\": 1}".to_vec()),
    );
    assert_eq!(bad.status, 400);
    let settings = |count_dlc: bool| {
        let body = format!("{{\"count_dlc\": {count_dlc}, \"icons\": false}}");
        s.send("POST", "/api/titles/settings", &[], Some(body.into_bytes()))
            .status
    };
    assert_eq!(settings(false), 200);
    assert!(rows(&page(&s, "/library"))
        .iter()
        .all(|r| !r.contains("DLC manquant")));
    assert!(page(&s, "/settings").contains("name=\"count_dlc\">"));
    assert_eq!(settings(true), 200);
    assert_eq!(rows(&page(&s, "/library?show=dlc_missing")).len(), 3);

    // A file moved to the trash leaves its title at once; restored, it is back.
    let costumes =
        "Studio/Moon/Moonlit%20Odyssey%20-%20Costumes%20%5B0100000000011001%5D%5Bv0%5D.nsp";
    let r = s.send("DELETE", &format!("/api/library/{costumes}"), &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
    let title: Value = s.get("/api/v1/titles/0100000000010000").json();
    assert_eq!(
        (title["dlc"].as_u64(), title["missing_dlc"].as_u64()),
        (Some(0), Some(2)),
        "{title}"
    );
    let restored = s.post(&format!("/api/trash/{}/restore", r.json()["id"]));
    assert_eq!(restored.status, 200, "{}", restored.body);
    let title: Value = s.get("/api/v1/titles/0100000000010000").json();
    assert_eq!(
        (title["dlc"].as_u64(), title["missing_dlc"].as_u64()),
        (Some(1), Some(1)),
        "{title}"
    );
    // A 404 quotes an ID it was sent, but not at any length.
    let long = "A".repeat(3000);
    let r = s.get(&format!("/api/v1/titles/{long}"));
    assert!(r.status == 404 && r.body.len() < 300, "{}", r.body);
}

#[test]
fn icons_are_fetched_only_when_asked_and_served_from_the_cache() {
    let folders = scanned_demo();
    let src = source();
    // A region file whose icon for Moonlit Odyssey is on the local source, one icon
    // that is no image, and one host that refuses.
    let region = serde_json::json!({
        "1": {"id": "0100000000010000", "name": "Moonlit Odyssey", "iconUrl": format!("{}/icon.jpg", src.url)},
        "2": {"id": "01002B30028F6000", "name": "Summit", "iconUrl": format!("{}/page.html", src.url)},
        "3": {"id": "0100535012974000", "name": "Styx", "iconUrl": "http://127.0.0.1:9/x.jpg"},
    });
    src.files
        .lock()
        .unwrap()
        .push(("US.en.json".into(), region.to_string().into_bytes()));
    // The source is on loopback, where icons never come from but in tests.
    let s = TestServer::start_on(
        folders.clone(),
        &["--titledb-url", &src.url, "--test-loopback-icons"],
    );
    s.wait_idle();
    let icon = folders.data.join("icons/0100000000010000");
    // Off by default: the task fetches none, the route serves none.
    assert_eq!(s.post("/api/titles/update").status, 202);
    s.wait_idle();
    assert!(!icon.exists());
    assert_eq!(s.get("/icon/0100000000010000").status, 404);
    let on = br#"{"count_dlc": true, "icons": true}"#.to_vec();
    assert_eq!(
        s.send("POST", "/api/titles/settings", &[], Some(on)).status,
        200
    );
    assert_eq!(s.post("/api/titles/update").status, 202);
    let job = s.wait_idle();
    crate::harness::titles_updated_with_icons(&s, &job, (1, 2));
    assert_eq!(std::fs::read(&icon).unwrap(), JPEG);
    let r = s.get("/icon/0100000000010000");
    assert_eq!(
        (r.status, r.header("content-type")),
        (200, Some("image/jpeg"))
    );
    assert!(page(&s, "/library?q=odyssey")
        .contains("<img class=\"icon\" src=\"/icon/0100000000010000\""));
    assert!(!page(&s, "/library?q=summit").contains("<img"));
    assert_eq!(
        files_under(&folders.data.join("icons")).len(),
        1,
        "no half icon left"
    );
    // A link planted in the cache is not followed, even to an image.
    let elsewhere = folders.tmp.path().join("elsewhere.jpg");
    std::fs::write(&elsewhere, JPEG).unwrap();
    std::os::unix::fs::symlink(&elsewhere, folders.data.join("icons/01002B30028F6000")).unwrap();
    for bad in [
        "/icon/..%2Fludotheque.db",
        "/icon/01002B30028F6000",
        "/icon/x",
    ] {
        assert_eq!(s.get(bad).status, 404, "{bad}");
    }
}

/// The first bytes of a JPEG, enough for the icon check.
const JPEG: &[u8] = &[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F', 0];

/// Peak resident memory (KiB, the kernel's accounting of that one child), whether it
/// succeeded, and what it printed, of a command of the binary on `folders`.
fn peak_of(folders: &Folders, args: &[&str]) -> (u64, bool, String) {
    use std::process::Stdio;
    // Waited for below with wait4, which std cannot do: it returns the child's rusage.
    #[allow(clippy::zombie_processes)]
    let mut child = crate::harness::ludotheque()
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["--library", folders.library.to_str().unwrap()])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child, not yet waited for.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert!(pid > 0);
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    (usage.ru_maxrss as u64, ok, out + &err)
}

/// A file's shape: a head, `piece(i)` for each `i` below `count`, then a tail.
type Shape<'a> = (&'a str, &'a dyn Fn(usize) -> String, usize, &'a str);

/// A file of title data named `name` of that `Shape`, in a folder of its own (`case`).
fn generated(case: usize, name: &str, (head, piece, count, tail): Shape) -> String {
    let dir = std::env::temp_dir().join(format!("ludotheque-huge-{}-{case}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    out.write_all(head.as_bytes()).unwrap();
    for i in 0..count {
        out.write_all(piece(i).as_bytes()).unwrap();
    }
    out.write_all(tail.as_bytes()).unwrap();
    out.flush().unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn title_data_with_huge_fields_stays_within_64_mib_of_memory() {
    let folders = Folders::new();
    let (idle, ok, said) = peak_of(&folders, &["titles", "status"]);
    assert!(ok, "{said}");
    const MIB: usize = 1 << 20;
    let fine = r#"}, "2": {"id": "0100000000020000", "name": "Fine"}}"#;
    let (kept, tail_of_key) = (
        r#"{"1": {"id": "0100000000010000", "name": "#,
        format!(r#"": {{"id": "0100000000010000", "name": "Long key"{fine}"#),
    );
    let (array_end, string_end) = (format!("]{fine}"), format!("\"{fine}"));
    let one = |s: &'static str| move |_| s.to_string();
    let (zero, x, open) = (one(",0"), one("x"), one("["));
    let version = |i| format!(r#", "{}": "2020-01-01""#, i * 65536);
    let cases: [(&str, Shape, &str); 6] = [
        // The name: an array of 8 Mi zeros, then a string of 16 MiB; a key of 16 MiB;
        // a history of a million versions; nesting 16 Mi deep in a field not kept; a
        // versions.txt of one 16 MiB line.
        ("US.en.json", (&format!("{kept}[0"), &zero, 8 * MIB, &array_end),
            "1 titre importé ; 1 ignoré (sans identifiant ou sans nom), et 1 champ passé de plus de 8 Kio"),
        ("US.en.json", (&format!("{kept}\""), &x, 16 * MIB, &string_end),
            "1 titre importé ; 1 ignoré (sans identifiant ou sans nom), et 1 champ passé"),
        ("US.en.json", ("{\"", &one("k"), 16 * MIB, &tail_of_key),
            "2 titres importés ; 0 ignoré (sans identifiant ou sans nom), et 1 champ passé"),
        ("versions.json", (r#"{"0100000000010000": {"0": "2020-01-01""#, &version, MIB,
                r#"}, "0100000000020000": {"65536": "2021-02-03"}}"#),
            "1 version datée de 1 identifiant ; 0 ignoré, et 1 champ passé"),
        ("US.en.json", (r#"{"1": {"id": "0100000000010000", "name": "Deep", "screenshots": "#, &open, 16 * MIB, ""),
            "ligne 1\u{a0}: imbriqué sur plus de 128 niveaux"),
        ("versions.txt", ("", &x, 16 * MIB, "\n"), "ligne 1\u{a0}: plus long que 4096 octets"),
    ];
    for (case, (name, shape, expected)) in cases.into_iter().enumerate() {
        let file = generated(case, name, shape);
        let (peak, _, said) = peak_of(&folders, &["titles", "import", &file]);
        let _ = std::fs::remove_dir_all(Path::new(&file).parent().unwrap());
        let above = peak.saturating_sub(idle) / 1024;
        assert!(above < 64, "case {case}: {above} MiB above idle\n{said}");
        assert!(said.contains(expected), "case {case}: {said}");
    }
}

/// The status of each demo title, by ID, as `/api/v1/titles` says it.
fn api_statuses(s: &TestServer) -> std::collections::HashMap<String, Vec<String>> {
    let page: Value = s.get("/api/v1/titles?limit=200").json();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let status = t["status"].as_array().unwrap();
            let words = status.iter().map(|w| w.as_str().unwrap().to_string());
            (t["title_id"].as_str().unwrap().to_string(), words.collect())
        })
        .collect()
}

/// Nothing is called complete that nobody can vouch for: without title data every
/// title is `unknown` (API, filter, badge, page), and a title whose only base copy is
/// damaged is `base_damaged`, its page offering to verify it again or trash it.
#[test]
fn without_title_data_titles_are_unknown_and_a_damaged_base_is_base_damaged() {
    let folders = unscanned_demo();
    let mut s = TestServer::start_on(folders.clone(), &[]);
    s.post("/api/v1/scan");
    s.wait_idle();
    let before = api_statuses(&s);
    assert!(before.values().all(|st| !st.contains(&"complete".into())));
    assert_eq!(before["0100000000010000"], ["unknown"], "{before:?}");
    assert_eq!(before["0100BBBB00000000"], ["base_damaged"]);
    assert_eq!(before["0100AAAA00000000"], ["base_missing"]);
    let count = |status: &str| {
        let page: Value = s.get(&format!("/api/v1/titles?status={status}")).json();
        page["total"].as_u64().unwrap()
    };
    assert_eq!(count("complete"), 0);
    let unknown = before.values().filter(|st| *st == &["unknown"]).count();
    assert_eq!(count("unknown") as usize, unknown);
    assert_eq!(count("base_damaged"), 1);
    // The page says what cannot be known, and links to where title data comes from.
    let odyssey = page(&s, "/title/0100000000010000");
    assert!(odyssey.contains("id=\"unknown-to-data\""), "{odyssey}");
    assert!(odyssey.contains("href=\"/settings#title-data\""));
    assert!(!odyssey.contains("id=\"nothing-missing\""));
    assert!(page(&s, "/settings").contains("id=\"title-data\""));
    // The lost base game is said as lost; the damaged one, with what to do about it.
    let orphan = page(&s, "/title/0100AAAA00000000");
    assert!(orphan.contains("id=\"base-missing\"") && !orphan.contains("id=\"nothing-missing\""));
    let broken = page(&s, "/title/0100BBBB00000000");
    assert!(broken.contains("id=\"base-damaged\""), "{broken}");
    let list = broken.split("id=\"damaged-base\"").nth(1).unwrap();
    let list = list.split("</ul>").next().unwrap();
    let verify = list.split("data-api=\"/api/verify/").nth(1).unwrap();
    let key = verify.split('"').next().unwrap();
    assert!(
        list.contains(&format!("data-api=\"/api/library/{key}\"")),
        "{list}"
    );
    // Without console keys, verifying cannot run: the button is off and says why.
    assert!(
        verify.split('>').next().unwrap().contains("disabled"),
        "{verify}"
    );
    // With the title data, the titles it lists are complete or lack something.
    s.kill();
    let data = folders.library.with_file_name(format!(
        "{}-titledb",
        folders.library.file_name().unwrap().to_str().unwrap()
    ));
    let files: Vec<String> = ["versions.txt", "versions.json", "US.en.json"]
        .iter()
        .map(|f| data.join(f).to_str().unwrap().to_string())
        .collect();
    let mut args = vec!["titles", "import"];
    args.extend(files.iter().map(String::as_str));
    let (status, out, err) = folders.cli(&args);
    assert!(status.success(), "{out}{err}");
    let s = TestServer::start_on(folders.clone(), &[]);
    let after = api_statuses(&s);
    assert_eq!(
        after["0100000000010000"],
        ["update_available", "dlc_missing"]
    );
    assert!(after.values().any(|st| st == &["complete"]), "{after:?}");
    assert!(!page(&s, "/title/0100000000010000").contains("id=\"unknown-to-data\""));
}

/// Dates read as the reader's language writes them: a moment "29 nov. 2026, 10:36"
/// or "Nov 29, 2026, 10:36" in a `<time data-moment>` whose `datetime` the page's
/// script reads again in the reader's zone; a day of the title data "25 juin 2025"
/// or "Jun 25, 2025". No offset, no ISO text.
#[test]
fn dates_read_in_the_readers_language() {
    let s = TestServer::start_on(scanned_demo_with_data(), &[]);
    let get = |path: &str, lang: &str| s.send("GET", path, &[("Accept-Language", lang)], None).body;
    let months_fr = [
        "janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.",
        "déc.",
    ];
    let months_en = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    for (lang, months) in [("fr", months_fr), ("en", months_en)] {
        let tasks = get("/tasks", lang);
        let time = tasks
            .split("<time ")
            .nth(1)
            .expect("a moment on the tasks page");
        let (attrs, rest) = time.split_once('>').unwrap();
        assert!(
            attrs.contains("data-moment") && attrs.contains("datetime=\""),
            "{attrs}"
        );
        let text = rest.split("</time>").next().unwrap();
        let (day, clock) = text.rsplit_once(", ").unwrap();
        let year = &attrs.split("datetime=\"").nth(1).unwrap()[..4];
        assert!(
            day.ends_with(year) && months.iter().any(|m| day.contains(m)),
            "{text}"
        );
        assert!(clock.len() == 5 && clock.as_bytes()[2] == b':', "{text}");
        assert!(!tasks.contains("+00:00"), "{lang}");
        let title = get("/title/0100000000010000", lang);
        let day = if lang == "fr" {
            "25 juin 2025"
        } else {
            "Jun 25, 2025"
        };
        assert!(
            title.contains(&format!("<time datetime=\"2025-06-25\">{day}</time>")),
            "{title}"
        );
    }
}

/// The demo with its title data, scanned.
fn scanned_demo_with_data() -> Arc<Folders> {
    let folders = Folders::new();
    crate::library::demo(&folders);
    folders.scan();
    folders
}
