//! Watch: files written, moved, rewritten and removed under the library reach it
//! without a scan asked for, through inotify and through polling; a file still being
//! written is not read; the service's own writes start no scan.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};

use crate::harness::TestServer;
use crate::library::scanned_demo;

const STYX: &str = "Indies/Styx [0100535012974000][v0].nsp";
const NEW: &str = "Downloads/New Game [0100535012974000][v0].nsp";
const MOVED: &str = "Sorted/New Game [0100535012974000][v0].nsp";

fn game_url(key: &str) -> String {
    format!(
        "/api/v1/library/{}",
        utf8_percent_encode(key, NON_ALPHANUMERIC)
    )
}

/// Wait (30 s at most) until `check` holds.
fn eventually(what: &str, s: &TestServer, mut check: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(30);
    while !check() {
        assert!(
            Instant::now() < until,
            "never happened: {what}\n{}",
            s.output()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The labels of the task runs since the server started, oldest first (the demo's
/// scan on the command line comes before).
fn labels(s: &TestServer) -> Vec<String> {
    let mut all: Vec<String> = s.get("/api/tasks").json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap().to_string())
        .collect();
    all.reverse();
    all.split_off(1)
}

fn copy(lib: &Path, from: &str, to: &str) {
    std::fs::create_dir_all(lib.join(to).parent().unwrap()).unwrap();
    std::fs::copy(lib.join(from), lib.join(to)).unwrap();
}

/// New, moved, rewritten in place, removed: each reaches the library by itself.
fn every_kind_of_change(mode: &str, said: &str) {
    let s = TestServer::start_on(scanned_demo(), &["--watch", mode]);
    s.wait_for_log(said);
    let lib = s.folders.library.clone();
    copy(&lib, STYX, NEW);
    eventually("the new file is listed", &s, || {
        s.get(&game_url(NEW)).status == 200
    });
    std::fs::create_dir_all(lib.join("Sorted")).unwrap();
    std::fs::rename(lib.join(NEW), lib.join(MOVED)).unwrap();
    eventually("the moved file is at its new key only", &s, || {
        s.get(&game_url(MOVED)).status == 200 && s.get(&game_url(NEW)).status == 404
    });
    let size = std::fs::metadata(lib.join(MOVED)).unwrap().len();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(lib.join(MOVED))
        .unwrap();
    f.write_all(&[0u8; 4096]).unwrap();
    drop(f);
    eventually("the rewritten file has its new size", &s, || {
        s.get(&game_url(MOVED)).json()["size"] == size + 4096
    });
    std::fs::remove_file(lib.join(MOVED)).unwrap();
    eventually("the removed file is gone", &s, || {
        s.get(&game_url(MOVED)).status == 404
    });
    assert!(labels(&s).iter().all(|l| l == "scan"), "{:?}", labels(&s));
}

#[test]
fn inotify_sees_new_moved_rewritten_and_removed_files() {
    every_kind_of_change("auto", "watch: inotify");
}

#[test]
fn polling_sees_new_moved_rewritten_and_removed_files() {
    every_kind_of_change("poll", "watch: polling every 2 s or more");
}

#[test]
fn a_file_still_being_written_is_not_read_until_it_stays_still() {
    for mode in ["auto", "poll"] {
        let s = TestServer::start_on(scanned_demo(), &["--watch", mode]);
        let lib = s.folders.library.clone();
        let bytes = std::fs::read(lib.join(STYX)).unwrap();
        std::fs::create_dir_all(lib.join("Downloads")).unwrap();
        let mut f = std::fs::File::create(lib.join(NEW)).unwrap();
        // Written in pieces a second apart: never still long enough to be taken.
        for piece in bytes.chunks(bytes.len().div_ceil(6)) {
            f.write_all(piece).unwrap();
            f.flush().unwrap();
            std::thread::sleep(Duration::from_secs(1));
            assert_eq!(
                s.get(&game_url(NEW)).status,
                404,
                "{mode}: read half-written"
            );
            assert!(
                labels(&s).is_empty(),
                "{mode}: a scan ran during the download"
            );
        }
        drop(f);
        eventually("the finished file is listed whole", &s, || {
            s.get(&game_url(NEW)).json()["size"] == bytes.len()
        });
        assert_eq!(
            labels(&s),
            ["scan"],
            "{mode}: one scan for the whole download"
        );
    }
}

#[test]
fn the_services_own_writes_start_no_scan() {
    let s = TestServer::start_on(scanned_demo(), &["--watch", "auto"]);
    s.wait_for_log("watch: inotify");
    assert_eq!(s.post("/api/organize").status, 202);
    s.wait_idle();
    assert_eq!(s.post("/api/v1/convert").status, 202);
    s.wait_idle();
    let styx = "Styx/Styx [0100535012974000][v0].nsp";
    let enc = utf8_percent_encode(styx, NON_ALPHANUMERIC).to_string();
    assert_eq!(
        s.send("DELETE", &format!("/api/library/{enc}"), &[], None)
            .status,
        200
    );
    let id = s.get("/api/v1/trash").json()["items"][0]["id"].clone();
    assert_eq!(s.post(&format!("/api/trash/{id}/restore")).status, 200);
    // Long enough for any change to settle and start a scan.
    std::thread::sleep(crate::harness::WATCH_SETTLED);
    assert_eq!(labels(&s), ["organize", "convert"]);
    assert_eq!(s.get(&game_url(styx)).status, 200);
}

#[test]
fn a_change_during_a_task_waits_for_it_then_is_scanned() {
    let s = TestServer::start_on(
        scanned_demo(),
        &["--watch", "auto", "--task-delay-ms", "6000"],
    );
    s.wait_for_log("watch: inotify");
    // Organize reads the library's rows, not the disk: the new file is not its.
    assert_eq!(s.post("/api/organize").status, 202);
    copy(&s.folders.library, STYX, NEW);
    // Nothing must happen: past the watch's settle time, the new file is still not
    // listed while organize runs.
    std::thread::sleep(Duration::from_secs(4));
    assert!(s.get("/api/v1/job").json()["running"] == true);
    assert_eq!(s.get(&game_url(NEW)).status, 404);
    eventually("the new file is listed after the task", &s, || {
        s.get(&game_url(NEW)).status == 200
    });
    assert_eq!(labels(&s), ["organize", "scan"]);
}

#[test]
fn with_the_watch_off_only_a_scan_sees_a_new_file() {
    let s = TestServer::start_on(scanned_demo(), &["--watch", "off"]);
    copy(&s.folders.library, STYX, NEW);
    // Nothing must happen: past the time a watch would take, nothing lists the file.
    std::thread::sleep(crate::harness::WATCH_SETTLED);
    assert_eq!(s.get(&game_url(NEW)).status, 404);
    assert!(labels(&s).is_empty());
    assert!(!s.output().contains("watch:"));
}

#[test]
fn changes_made_while_stopped_are_seen_at_start_and_a_link_loop_is_harmless() {
    let folders = scanned_demo();
    let lib = folders.library.clone();
    // A link that leads back up: the scan does not follow it, nor may the watch.
    std::os::unix::fs::symlink("..", lib.join("Indies/loop")).unwrap();
    copy(&lib, STYX, NEW);
    let mut s = TestServer::start_on(folders, &["--watch", "auto"]);
    eventually("the file written while stopped is listed", &s, || {
        s.get(&game_url(NEW)).status == 200
    });
    std::fs::remove_file(lib.join(NEW)).unwrap();
    eventually("the removed file is gone", &s, || {
        s.get(&game_url(NEW)).status == 404
    });
    s.signal(libc::SIGTERM);
    let status = s
        .wait_exit(Duration::from_secs(10))
        .expect("stopped in time");
    assert!(status.success());
}
