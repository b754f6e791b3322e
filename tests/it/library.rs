//! Library: scanning and identifying games, through the real binary.

use std::time::Duration;

use ludotheque::testkit::Msg;

use crate::harness::said_fr;
use crate::harness::{Folders, TestServer};

/// Write the demo library into the folders' library root.
pub fn demo(folders: &Folders) {
    let (status, out, err) = folders.cli(&["demo-library", folders.library.to_str().unwrap()]);
    assert!(status.success(), "{out}{err}");
}

/// The demo library, scanned on the command line.
pub fn scanned_demo() -> std::sync::Arc<Folders> {
    let folders = Folders::new();
    demo(&folders);
    folders.scan();
    folders
}

fn db(folders: &Folders) -> rusqlite::Connection {
    rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap()
}

fn count(folders: &Folders, sql: &str) -> i64 {
    db(folders).query_row(sql, [], |r| r.get(0)).unwrap()
}

fn game(folders: &Folders, key: &str) -> Option<(String, String, bool, bool, Option<String>)> {
    db(folders)
        .query_row(
            "SELECT type, identified_by, header_ok, playable, note FROM games WHERE key = ?1",
            [key],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .ok()
}

fn keys(folders: &Folders) -> Vec<String> {
    let conn = db(folders);
    let mut stmt = conn.prepare("SELECT key FROM games ORDER BY key").unwrap();
    let rows = stmt.query_map([], |r| r.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

/// Run a scan through the API and return the finished run (`last`).
fn scan(s: &TestServer) -> serde_json::Value {
    s.wait_idle();
    let r = s.post("/api/v1/scan");
    assert_eq!(r.status, 202, "{r:?}");
    s.wait_idle()["last"].clone()
}

#[test]
fn demo_library_writes_about_sixty_files() {
    let folders = Folders::new();
    demo(&folders);
    let n = crate::harness::files_under(&folders.library).len();
    assert_eq!(n, 60);
}

#[test]
fn scanning_the_demo_library_gives_exact_counts_and_types() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["label"], "scan");
    // One corrupt file: the scan finished, but not cleanly, and names it.
    assert_eq!(last["result"], "partial", "{last}");
    assert_eq!(last["errors"], 1, "one corrupt file: {last}");
    assert_eq!(
        last["failures"][0]["key"], "Broken Download [0100BBBB00000000][v0].nsp",
        "{last}"
    );
    assert_eq!(last["failures"][0]["error"], "file_damaged", "{last}");
    assert_eq!(
        (last["done"].as_u64(), last["total"].as_u64()),
        (Some(60), Some(60))
    );
    let by_type = |t: &str| {
        count(
            &folders,
            &format!("SELECT count(*) FROM games WHERE type = '{t}'"),
        )
    };
    assert_eq!(count(&folders, "SELECT count(*) FROM games"), 60);
    assert_eq!(
        (
            by_type("BASE"),
            by_type("UPDATE"),
            by_type("DLC"),
            by_type("INCONNU")
        ),
        (30, 13, 12, 5)
    );
    assert_eq!(
        count(
            &folders,
            "SELECT count(*) FROM games WHERE subtype = 'dlc_update'"
        ),
        2
    );
    assert_eq!(
        count(
            &folders,
            "SELECT count(*) FROM games WHERE format IN ('nsz','xcz')"
        ),
        5
    );
    assert_eq!(s.get("/api/v1/system").json()["library_ready"], true);

    // Identified by each route, and the reasons recorded.
    let g = game(&folders, "Sans nom/game without tags.nsp").unwrap();
    assert_eq!((g.0.as_str(), g.1.as_str(), g.3), ("BASE", "ticket", true));
    let g = game(&folders, "Sans nom/update from xml.nsp").unwrap();
    assert_eq!(
        (g.0.as_str(), g.1.as_str(), g.3),
        ("UPDATE", "cnmt_xml", true)
    );
    let g = game(&folders, "homebrew/Some Homebrew Tool.nsp").unwrap();
    assert_eq!(
        (g.0.as_str(), g.1.as_str(), g.3),
        ("INCONNU", "none", false)
    );
    // The note is stored as its reason's slug (the API says it in English).
    assert_eq!(g.4.as_deref(), Some("no_title_id"));
    let g = game(&folders, "homebrew/Delta Fragment [01007EF00011EC00].nsp").unwrap();
    assert_eq!(g.0, "INCONNU");
    // A DLC or update whose base is missing is not playable.
    assert!(
        !game(
            &folders,
            "Orphan DLC without its game [0100AAAA00001001][v0].nsp"
        )
        .unwrap()
        .3
    );
    assert!(
        game(&folders, "Blocks 99 - Big Block [010040600C5CF001][v0].nsp")
            .unwrap()
            .3
    );
}

#[test]
fn the_corrupt_file_is_recorded_with_its_reason_and_the_scan_goes_on() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let (kind, by, header_ok, playable, note) =
        game(&folders, "Broken Download [0100BBBB00000000][v0].nsp").unwrap();
    assert_eq!(
        (kind.as_str(), by.as_str(), header_ok, playable),
        ("BASE", "filename", false, false)
    );
    // Stored as the slug of its reason; said in English by the API, in the reader's
    // language by the file's page.
    let stored = note.unwrap();
    assert!(stored.starts_with("unreadable("), "{stored}");
    let key = "Broken%20Download%20%5B0100BBBB00000000%5D%5Bv0%5D.nsp";
    let api = s.get(&format!("/api/v1/library/{key}")).json();
    let note = api["note"].as_str().unwrap_or_default();
    assert!(note.contains("could not be read"), "{note}");
    assert!(!note.contains('/'), "no path in the reason: {note}");
    let page = |lang: &str| {
        let r = s.send(
            "GET",
            &format!("/game/{key}"),
            &[("Accept-Language", lang)],
            None,
        );
        assert_eq!(r.status, 200, "{r:?}");
        r.body
    };
    let (fr, en) = (page("fr"), page("en"));
    assert!(fr.contains("le conteneur est illisible\u{a0}: "), "{fr}");
    assert!(!fr.contains("could not be read"), "{fr}");
    assert!(en.contains("the container could not be read: "), "{en}");
}

#[test]
fn a_warm_rescan_opens_no_unchanged_file() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    // Replace a file's bytes with garbage of the same size and put its mtime back: a
    // rescan that opened it would now find it corrupt.
    let path = folders
        .library
        .join("Indies/Styx [0100535012974000][v0].nsp");
    let meta = std::fs::metadata(&path).unwrap();
    std::fs::write(&path, vec![0xAB; meta.len() as usize]).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(meta.modified().unwrap()).unwrap();
    drop(f);
    let last = scan(&s);
    assert_eq!(last["result"], "ok");
    let done = Msg::ScanDone {
        files: 60,
        read: 0,
        unchanged: 60,
        removed: 0,
    };
    assert_eq!(last["message"], done.english(), "{last}");
    assert_eq!(
        last["errors"], 0,
        "nothing was read, so nothing failed: {last}"
    );
    let g = game(&folders, "Indies/Styx [0100535012974000][v0].nsp").unwrap();
    assert!(g.2, "the file was not opened again");
}

#[test]
fn added_removed_and_renamed_files_are_reflected() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let lib = &folders.library;
    std::fs::remove_file(lib.join("Blocks 99 [010040600C5CE000][v0].nsp")).unwrap();
    std::fs::rename(
        lib.join("Indies/Summit [01002B30028F6000][v0].xcz"),
        lib.join("Summit renamed [01002B30028F6000][v0].xcz"),
    )
    .unwrap();
    std::fs::copy(
        lib.join("Indies/Styx [0100535012974000][v0].nsp"),
        lib.join("Studio/Copy of Styx [0100535012974000][v0].nsp"),
    )
    .unwrap();
    let last = scan(&s);
    let done = Msg::ScanDone {
        files: 60,
        read: 2,
        unchanged: 58,
        removed: 2,
    };
    assert_eq!(last["message"], done.english(), "{last}");
    let keys = keys(&folders);
    assert!(!keys.contains(&"Blocks 99 [010040600C5CE000][v0].nsp".to_string()));
    assert!(!keys.contains(&"Indies/Summit [01002B30028F6000][v0].xcz".to_string()));
    assert!(keys.contains(&"Summit renamed [01002B30028F6000][v0].xcz".to_string()));
    assert!(keys.contains(&"Studio/Copy of Styx [0100535012974000][v0].nsp".to_string()));
    // The DLC of the removed base is no longer playable.
    assert!(
        !game(&folders, "Blocks 99 - Big Block [010040600C5CF001][v0].nsp")
            .unwrap()
            .3
    );
}

#[test]
fn hidden_entries_the_trash_and_outside_symlinks_are_skipped() {
    let folders = Folders::new();
    let lib = &folders.library;
    let nsp = |name: &str| lib.join(name);
    std::fs::create_dir_all(lib.join(".ludotheque-trash/1")).unwrap();
    std::fs::create_dir_all(lib.join(".hidden")).unwrap();
    std::fs::create_dir_all(lib.join("real")).unwrap();
    let outside = folders.tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    for p in [
        nsp(".ludotheque-trash/1/Trashed [0100000000010000].nsp"),
        nsp(".hidden/Hidden [0100000000010000].nsp"),
        nsp(".dotfile [0100000000010000].nsp"),
        nsp("real/Visible [0100000000010000].NSP"),
        nsp("real/readme.txt"),
        outside.join("Outside [0100000000020000].nsp"),
    ] {
        std::fs::write(p, b"PFS0\0\0\0\0\0\0\0\0\0\0\0\0").unwrap();
    }
    std::os::unix::fs::symlink(
        outside.join("Outside [0100000000020000].nsp"),
        nsp("link-out.nsp"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, nsp("dir-link")).unwrap();
    std::os::unix::fs::symlink(
        nsp("real/Visible [0100000000010000].NSP"),
        nsp("link-in.nsp"),
    )
    .unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(
        keys(&folders),
        ["link-in.nsp", "real/Visible [0100000000010000].NSP"]
    );
}

#[test]
fn titles_import_names_win_over_file_names() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let json = folders.tmp.path().join("titles.json");
    std::fs::write(
        &json,
        r#"{"1": {"id": "0100535012974000", "name": "STYX (official)", "region": "US"},
            "2": {"id": "bad", "name": "ignored"},
            "3": {"id": "0100FFFF00000000", "name": "Not in the library"}}"#,
    )
    .unwrap();
    let (status, out, err) = folders.cli(&["titles", "import", json.to_str().unwrap()]);
    assert!(status.success(), "{out}{err}");
    assert!(out.contains("2 titres importés"), "{out}");
    assert!(out.contains("1 jeu renommé"), "{out}");
    let name = |key: &str| -> String {
        db(&folders)
            .query_row("SELECT name FROM games WHERE key = ?1", [key], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(
        name("Indies/Styx [0100535012974000][v0].nsp"),
        "STYX (official)"
    );
    assert_eq!(name("Indies/Styx [0100535012974800][v131072].nsp"), "Styx");
    // A file scanned after the import takes the imported name too.
    std::fs::copy(
        folders
            .library
            .join("Indies/Styx [0100535012974000][v0].nsp"),
        folders.library.join("Another [0100535012974000].nsp"),
    )
    .unwrap();
    scan(&s);
    assert_eq!(name("Another [0100535012974000].nsp"), "STYX (official)");
    let (status, _, err) = folders.cli(&["titles", "import", "/nonexistent.json"]);
    assert!(!status.success());
    assert!(
        err.contains(&said_fr(Msg::CannotOpen {
            file: "nonexistent.json".into()
        })),
        "{err}"
    );
}

#[test]
fn the_foreground_scan_works_and_is_handed_over_while_a_server_runs() {
    let folders = Folders::new();
    demo(&folders);
    // The demo's broken file makes the scan partial: exit 1, the file named with
    // its reason in French.
    let (status, out, err) = folders.cli(&["scan"]);
    assert_eq!(status.code(), Some(1), "{out}{err}");
    assert_eq!(folders.run_results(), ["partial"]);
    let done = Msg::ScanDone {
        files: 60,
        read: 60,
        unchanged: 0,
        removed: 0,
    };
    assert!(out.contains(&done.french()), "{out}");
    let why = folders.printed_failure(&out, "Broken Download [0100BBBB00000000][v0].nsp");
    assert!(matches!(why, Msg::FileDamaged { .. }), "{why:?}");
    let partial = Msg::TaskPartial {
        task: ludotheque::testkit::words::Task::Scan,
        failed: 1,
    };
    assert!(err.contains(&partial.french()), "{err}");
    assert_eq!(count(&folders, "SELECT count(*) FROM games"), 60);
    // While a server holds the folder, the scan is handed to it (`handoff`).
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let (_, out, err) = folders.cli(&["scan"]);
    assert!(err.contains("Tâche scan confiée au service"), "{out}{err}");
}

#[test]
fn scan_progress_counts_files_and_names_the_key() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    // Touch every file so the rescan reads them all, and watch it.
    for key in keys(&folders) {
        let f = std::fs::File::options()
            .write(true)
            .open(folders.library.join(&key))
            .unwrap();
        f.set_modified(std::time::SystemTime::now() - Duration::from_secs(5))
            .unwrap();
    }
    let r = s.post("/api/v1/scan");
    assert_eq!(r.status, 202);
    assert_eq!(r.json()["unit"], "files");
    for _ in 0..200 {
        let job = s.get("/api/v1/job").json();
        if job["running"] == false {
            break;
        }
        let detail = job["detail"].as_str().unwrap();
        if !detail.is_empty() {
            assert!(!detail.starts_with('/'), "a key, not a path: {detail}");
            assert!(keys(&folders).contains(&detail.to_string()) || detail.contains('.'));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let last = s.wait_idle()["last"].clone();
    let done = Msg::ScanDone {
        files: 60,
        read: 60,
        unchanged: 0,
        removed: 0,
    };
    assert_eq!(last["message"], done.english());
}

/// Twelve thousand small NSPs in 120 folders, their names tagged with distinct IDs.
fn many_games(folders: &Folders, n: usize) {
    let pfs0 = ludotheque::testkit::synth::pfs0(&[]);
    for i in 0..n {
        let dir = folders.library.join(format!("shelf {:03}", i / 100));
        std::fs::create_dir_all(&dir).unwrap();
        let id = 0x0100_0000_0001_0000u64 + ((i as u64) << 13);
        std::fs::write(dir.join(format!("Game {i:05} [{id:016X}][v0].nsp")), &pfs0).unwrap();
    }
}

/// The walk runs ahead of the reading: well before the end of a cold scan, the
/// progress counts every file of the library, not a few more than are done.
#[test]
fn a_cold_scan_knows_its_whole_count_early() {
    let folders = Folders::new();
    let n = 12_000;
    many_games(&folders, n);
    let s = TestServer::start_on(folders.clone(), &[]);
    let mut seen = None;
    for _ in 0..20_000 {
        let job = s.get("/api/v1/job").json();
        let done = job["done"].as_u64().unwrap_or(0);
        if job["running"] == true && done >= n as u64 * 4 / 5 {
            seen = Some(job);
            break;
        }
        if job["last"]["result"] == "ok" {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let job = seen.expect("the scan was seen four fifths done");
    assert_eq!(job["total"], n, "{job}");
}

/// What the walk could not look at (here a name that is not UTF-8, in a folder the
/// walk comes to after the root's files) heads the run's failures, before the damaged
/// files found first, and is never the one the list's cap drops. The walk usually
/// meets it before those files are read at all: the order whatever the timing is
/// `jobs::runner`'s unit test of `fail_first`.
#[test]
fn a_walk_problem_is_listed_before_the_damaged_files() {
    use std::os::unix::ffi::OsStrExt;
    let folders = Folders::new();
    for i in 0..250 {
        let name = format!("Broken {i:03}.nsp");
        std::fs::write(folders.library.join(name), b"not a container").unwrap();
    }
    let last = folders.library.join("z");
    std::fs::create_dir_all(&last).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"bad \xff name.nsp");
    std::fs::write(last.join(name), b"x").unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    let run = s.wait_idle()["last"].clone();
    assert_eq!(run["result"], "partial", "{run}");
    let failures = run["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 200);
    assert_eq!(
        failures[0]["error"],
        Msg::NameNotUtf8.slug(),
        "{:?}",
        failures[0]
    );
}

/// A scan cancelled at once, while its walk hands files over, forgets no game: the
/// known files it had not walked yet are not taken for removed ones. Then a whole
/// scan reads what the cancelled one left.
#[test]
fn a_cancelled_scan_forgets_no_game_it_had_not_walked() {
    let folders = Folders::new();
    let n = 12_000;
    many_games(&folders, n);
    let s = TestServer::start_on(folders.clone(), &[]);
    assert_eq!(s.wait_idle()["last"]["result"], "ok");
    // Every file changed: the rescan has all of them to read again.
    let earlier = std::time::SystemTime::now() - Duration::from_secs(5);
    for key in keys(&folders) {
        let f = std::fs::File::options()
            .write(true)
            .open(folders.library.join(&key))
            .unwrap();
        f.set_modified(earlier).unwrap();
    }
    assert_eq!(s.post("/api/v1/scan").status, 202);
    assert_eq!(s.post("/api/job/cancel").json()["cancelled"], true);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "cancelled", "{last}");
    assert!(
        last["done"].as_u64().unwrap() < n as u64,
        "cancelled before its end: {last}"
    );
    assert_eq!(s.get("/api/v1/library").json()["total"], n);
    assert_eq!(scan(&s)["result"], "ok");
    assert_eq!(count(&folders, "SELECT count(*) FROM games"), n as i64);
}
