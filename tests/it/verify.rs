//! Verify: every NCA's SHA-256 against its CNMT record, with the console keys, through
//! the real binary (the web interface's buttons, `ludotheque verify`); and what a
//! damaged file becomes: not playable, out of the shop, never dedupe's kept copy.

use ludotheque::library::synth;
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde_json::Value;

use crate::harness::{basic, Folders, TestServer};

/// The files of Tinfoil's index, as URLs.
fn tinfoil_files(s: &TestServer, auth: &str) -> Vec<String> {
    let headers = [
        ("Authorization", auth),
        ("Theme", "0"),
        ("UID", "0"),
        ("Version", "18.0"),
    ];
    let index = s.send("GET", "/", &headers, None).json();
    index["files"]
        .as_array()
        .unwrap_or_else(|| panic!("{index}"))
        .iter()
        .map(|f| f["url"].as_str().unwrap().to_string())
        .collect()
}

fn game(s: &TestServer, key: &str) -> Value {
    let path = key
        .replace(' ', "%20")
        .replace('[', "%5B")
        .replace(']', "%5D");
    s.get(&format!("/api/v1/library/{path}")).json()
}

/// A plain .nsp of one made-up NCA and a ticket: its header reads.
fn plain_nsp(seed: u64, title_id: u64) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(seed);
    let nca = synth::simple_nca(&mut rng, 0x8000);
    synth::pfs0(&[(nca.name(), nca.bytes), synth::ticket(&mut rng, title_id)])
}

/// A file a task found damaged (here the convert, on a corrupt stream) leaves the
/// shop, is no longer playable, and is never the copy dedupe keeps, even where
/// `--dedupe-keep` prefers its format.
#[test]
fn a_file_a_task_found_damaged_leaves_the_shop_and_the_kept_copies() {
    let folders = Folders::new();
    let (damaged, sound) = (
        "a [0100000000010000][v0].nsz",
        "b [0100000000010000][v0].nsp",
    );
    let corrupt = crate::convert::nsz_with_a_corrupt_stream();
    std::fs::write(folders.library.join(damaged), corrupt).unwrap();
    std::fs::write(
        folders.library.join(sound),
        plain_nsp(1, 0x0100000000010000),
    )
    .unwrap();
    let auth = basic("salon", &folders.add_console("salon"));
    let s = TestServer::start_on(folders.clone(), &["--dedupe-keep", "compressed"]);
    s.wait_idle();
    assert_eq!(tinfoil_files(&s, &auth).len(), 2);
    assert_eq!(game(&s, damaged)["playable"], true);
    assert_eq!(s.post("/api/v1/convert").status, 202);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "partial", "{last}");
    let urls = tinfoil_files(&s, &auth);
    assert_eq!(urls.len(), 1, "{urls:?}");
    assert!(
        urls[0].contains("%5Bv0%5D.nsp") || urls[0].contains("[v0].nsp"),
        "{urls:?}"
    );
    assert_eq!(game(&s, damaged)["playable"], false);
    assert_eq!(s.post("/api/dedupe").status, 202);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "ok", "{last}");
    let trash = s.get("/api/v1/trash").json();
    let trashed: Vec<&str> = trash["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    assert_eq!(trashed, [damaged], "{trash}");
    assert!(folders.library.join(sound).exists());
}

/// Without a keys file nothing can be verified: the task fails at once and says why,
/// in the web interface's run and on the command line (exit 1).
#[test]
fn without_console_keys_verify_fails_and_says_why() {
    let folders = Folders::new();
    let key = "game [0100000000010000][v0].nsp";
    std::fs::write(folders.library.join(key), plain_nsp(2, 0x0100000000010000)).unwrap();
    folders.scan();
    let (st, out, err) = folders.cli(&["verify"]);
    assert_eq!(st.code(), Some(1), "{out}{err}");
    assert!(err.contains("clés de console (prod.keys)"), "{out}{err}");
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let r = s.post("/api/verify");
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(r.json()["label"], "verify", "{r:?}");
    let last = s.wait_idle()["last"].clone();
    assert_eq!(
        (last["label"].as_str(), last["result"].as_str()),
        (Some("verify"), Some("failed")),
        "{last}"
    );
    assert!(
        last["message"].as_str().unwrap().contains("console keys"),
        "{last}"
    );
    // Nothing was marked.
    assert_eq!(game(&s, key)["playable"], true);
}

/// The buttons: on the tasks page for the whole library, on a verifiable file's page
/// for that file (and not on a file verify does not read); a key of no game is 404;
/// the public API has no verify route.
#[test]
fn the_web_buttons_start_the_task() {
    let folders = Folders::new();
    let key = "game [0100000000010000][v0].nsp";
    std::fs::write(folders.library.join(key), plain_nsp(3, 0x0100000000010000)).unwrap();
    let s = TestServer::start_on(folders.clone(), &["--task-delay-ms", "1500"]);
    s.wait_idle();
    let en = [("Accept-Language", "en")];
    let tasks = s.send("GET", "/tasks", &en, None).body;
    assert!(
        tasks.contains("id=\"start-verify\"") && tasks.contains("data-api=\"/api/verify\""),
        "{tasks}"
    );
    let path = "game%20%5B0100000000010000%5D%5Bv0%5D.nsp";
    let page = s.send("GET", &format!("/game/{path}"), &en, None).body;
    assert!(
        page.contains(&format!("data-api=\"/api/verify/{path}\"")),
        "{page}"
    );
    assert_eq!(s.post("/api/verify/nothing%20here.nsp").status, 404);
    assert_eq!(s.post("/api/v1/verify").status, 404);
    let r = s.post(&format!("/api/verify/{path}"));
    assert_eq!(r.status, 202, "{r:?}");
    let job = s.get("/api/v1/job").json();
    assert_eq!(
        (job["running"].as_bool(), job["label"].as_str()),
        (Some(true), Some("verify")),
        "{job}"
    );
    // One task at a time.
    assert_eq!(s.post("/api/verify").status, 409);
    s.wait_idle();
}
