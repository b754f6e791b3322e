//! Trash: nothing deleted is lost until its time is up.

use sha2::{Digest, Sha256};

use crate::access::create_key;
use ludotheque::testkit::Msg;

use crate::harness::said_fr;
use crate::harness::{assert_no_server_path, Folders, TestServer};
use crate::library::demo;

const STYX: &str = "Indies/Styx [0100535012974000][v0].nsp";
const STYX_ENC: &str = "Indies%2FStyx%20%5B0100535012974000%5D%5Bv0%5D.nsp";

fn demo_server(args: &[&str]) -> TestServer {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders, args);
    s.wait_idle();
    s
}

fn digest(path: &std::path::Path) -> Vec<u8> {
    Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

fn delete(s: &TestServer, encoded_key: &str) -> crate::harness::Resp {
    s.send("DELETE", &format!("/api/library/{encoded_key}"), &[], None)
}

#[test]
fn delete_lists_in_trash_then_restore_brings_back_the_same_bytes() {
    let s = demo_server(&[]);
    let path = s.folders.library.join(STYX);
    let before = digest(&path);
    let size = std::fs::metadata(&path).unwrap().len();
    let r = delete(&s, STYX_ENC);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!path.exists());
    assert_eq!(s.get(&format!("/api/v1/library/{STYX_ENC}")).status, 404);

    let trash = s.get("/api/v1/trash").json();
    assert_eq!(
        (trash["total"].as_u64(), trash["bytes"].as_u64()),
        (Some(1), Some(size))
    );
    let e = &trash["items"][0];
    assert_eq!(
        (e["key"].as_str(), e["name"].as_str(), e["type"].as_str()),
        (Some(STYX), Some("Styx"), Some("BASE"))
    );
    assert_eq!(e["reason"], "deleted");
    let (deleted, expires) = (
        e["deleted_at"].as_str().unwrap(),
        e["expires_at"].as_str().unwrap(),
    );
    assert!(deleted.ends_with('Z') && expires > deleted, "{e}");
    assert_no_server_path(&s, &s.get("/api/v1/trash").body);
    let id = e["id"].as_i64().unwrap();
    assert!(s
        .folders
        .library
        .join(format!(".ludotheque-trash/{id}/{STYX}"))
        .exists());

    // Trashed files are not in the library, even after a rescan.
    s.post("/api/v1/scan");
    s.wait_idle();
    assert_eq!(s.get(&format!("/api/v1/library/{STYX_ENC}")).status, 404);

    let r = s.post(&format!("/api/trash/{id}/restore"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(digest(&path), before);
    assert_eq!(s.get("/api/v1/trash").json()["total"], 0);
    // Back in the library at once, without a scan.
    let g = s.get(&format!("/api/v1/library/{STYX_ENC}")).json();
    assert_eq!(
        (g["type"].as_str(), g["playable"].as_bool()),
        (Some("BASE"), Some(true))
    );
    assert!(!s
        .folders
        .library
        .join(format!(".ludotheque-trash/{id}"))
        .exists());
}

#[test]
fn restoring_onto_an_occupied_key_is_409_and_both_files_stay() {
    let s = demo_server(&[]);
    delete(&s, STYX_ENC);
    let path = s.folders.library.join(STYX);
    std::fs::write(&path, b"a new file at the same key").unwrap();
    let id = s.get("/api/v1/trash").json()["items"][0]["id"]
        .as_i64()
        .unwrap();
    let trashed = s
        .folders
        .library
        .join(format!(".ludotheque-trash/{id}/{STYX}"));
    let trashed_digest = digest(&trashed);
    let r = s.post(&format!("/api/trash/{id}/restore"));
    assert_eq!((r.status, r.slug()), (409, "conflict".into()));
    assert_eq!(std::fs::read(&path).unwrap(), b"a new file at the same key");
    assert_eq!(digest(&trashed), trashed_digest);
    assert_eq!(s.get("/api/v1/trash").json()["total"], 1);
}

#[test]
fn expired_entries_are_purged_at_start_and_on_demand() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &["--trash-retention-days", "0"]);
    s.wait_idle();
    delete(&s, STYX_ENC);
    let id = s.get("/api/v1/trash").json()["items"][0]["id"]
        .as_i64()
        .unwrap();
    let dir = folders.library.join(format!(".ludotheque-trash/{id}"));
    // The maintenance pass ran at start, before this deletion: the entry is still there.
    assert!(dir.exists());
    drop(s);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let purged = || s.get("/api/v1/trash").json()["total"] == 0;
    crate::harness::wait_until(
        "the purge at start",
        std::time::Duration::from_secs(5),
        purged,
    );
    assert!(!dir.exists());
    // On demand, through the internal route; entries within retention stay.
    delete(
        &s,
        "Indies%2FStyx%20%5B0100535012974800%5D%5Bv131072%5D.nsp",
    );
    assert_eq!(s.post("/api/trash/purge").json()["purged"], 0);
    assert_eq!(s.get("/api/v1/trash").json()["total"], 1);
}

#[test]
fn a_file_in_the_trash_without_a_row_is_adopted_at_start() {
    let folders = Folders::new();
    let orphan = folders
        .library
        .join(".ludotheque-trash/77/Some folder/Lost Game [0100000000010000][v0].nsp");
    std::fs::create_dir_all(orphan.parent().unwrap()).unwrap();
    std::fs::write(&orphan, b"bytes that must not be lost").unwrap();
    std::fs::create_dir_all(folders.library.join(".ludotheque-trash/78")).unwrap(); // empty: a crash before the rename
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let trash = s.get("/api/v1/trash").json();
    assert_eq!(trash["total"], 1, "{trash}");
    let e = &trash["items"][0];
    assert_eq!(
        (e["id"].as_i64(), e["reason"].as_str()),
        (Some(77), Some("recovered"))
    );
    assert_eq!(e["key"], "Some folder/Lost Game [0100000000010000][v0].nsp");
    assert_eq!(
        (e["name"].as_str(), e["type"].as_str()),
        (Some("Lost Game"), Some("BASE"))
    );
    assert!(!folders.library.join(".ludotheque-trash/78").exists());
    assert_eq!(s.post("/api/trash/77/restore").status, 200);
    assert_eq!(
        std::fs::read(
            folders
                .library
                .join("Some folder/Lost Game [0100000000010000][v0].nsp")
        )
        .unwrap(),
        b"bytes that must not be lost"
    );
}

#[test]
fn a_row_whose_file_vanished_is_dropped_with_a_warning() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    delete(&s, STYX_ENC);
    let id = s.get("/api/v1/trash").json()["items"][0]["id"]
        .as_i64()
        .unwrap();
    drop(s);
    std::fs::remove_dir_all(folders.library.join(format!(".ludotheque-trash/{id}"))).unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(s.get("/api/v1/trash").json()["total"], 0);
    assert!(
        s.output().contains("has no file any more"),
        "{}",
        s.output()
    );
}

#[test]
fn hostile_keys_are_refused_and_touch_nothing() {
    let s = demo_server(&[]);
    let outside = s.folders.tmp.path().join("outside.nsp");
    std::fs::write(&outside, b"keep me").unwrap();
    for key in [
        "..%2Foutside.nsp",
        "../outside.nsp",
        "%2Ftmp%2Fx.nsp",
        "Indies%2F..%2F..%2Foutside.nsp",
        "Indies",
        "nope.nsp",
    ] {
        let r = delete(&s, key);
        assert_eq!((r.status, r.slug()), (404, "not_found".into()), "{key}");
        assert_no_server_path(&s, &r.body);
    }
    assert!(outside.exists());
    assert!(s.folders.library.join("Indies").is_dir());
    assert_eq!(s.get("/api/v1/trash").json()["total"], 0);
    for path in [
        "/api/trash/abc/restore",
        "/api/trash/999/restore",
        "/api/trash/..%2F1/restore",
    ] {
        assert_eq!(s.post(path).status, 404, "{path}");
    }
}

#[test]
fn an_api_key_cannot_reach_the_internal_trash_routes() {
    let folders = Folders::new();
    demo(&folders);
    let key = create_key(&folders, "script", &[]);
    let s = TestServer::start_on(folders, &[]);
    s.wait_idle();
    let k = [("X-Api-Key", key.as_str())];
    assert_eq!(s.send("GET", "/api/v1/trash", &k, None).status, 200);
    assert_eq!(
        s.send("DELETE", &format!("/api/library/{STYX_ENC}"), &k, None)
            .status,
        403
    );
    assert!(s.folders.library.join(STYX).exists());
}

#[test]
fn the_trash_command_lists_restores_and_purges() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    delete(&s, STYX_ENC);
    delete(
        &s,
        "Indies%2FStyx%20%5B0100535012974800%5D%5Bv131072%5D.nsp",
    );
    drop(s);
    let (status, out, _) = folders.cli(&["trash", "list"]);
    assert!(status.success());
    assert!(out.contains(STYX) && out.contains("deleted"), "{out}");
    assert!(out.contains("2 entrées"), "{out}");
    let (status, out, _) = folders.cli(&["trash", "restore", "1"]);
    assert!(status.success(), "{out}");
    assert!(out.contains("Restauré"), "{out}");
    assert!(folders.library.join(STYX).exists());
    let (status, _, err) = folders.cli(&["trash", "restore", "1"]);
    assert!(!status.success());
    assert!(err.contains(&said_fr(Msg::NoTrashEntry)), "{err}");
    let (status, _, err) = folders.cli(&["trash", "purge"]);
    assert!(
        !status.success(),
        "purge needs an id, --expired or --all: {err}"
    );
    let (status, out, _) = folders.cli(&["trash", "purge", "--expired"]);
    assert!(status.success() && out.contains("0 entrée"), "{out}");
    let (status, out, _) = folders.cli(&["trash", "purge", "2"]);
    assert!(status.success(), "{out}");
    assert!(!folders.library.join(".ludotheque-trash/2").exists());
    let (_, out, _) = folders.cli(&["trash", "list"]);
    assert!(out.contains("vide"), "{out}");
}

/// A folder outside the library, with one file, beside the library.
fn outside(folders: &Folders) -> std::path::PathBuf {
    let dir = folders.tmp.path().join("outside");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("secret.txt"), b"not the library's").unwrap();
    std::fs::write(dir.join("Game [0100000000010000].nsp"), b"outside").unwrap();
    dir
}

#[test]
fn deleting_is_for_listed_games_never_through_a_symlinked_folder() {
    let s = demo_server(&[]);
    let out = outside(&s.folders);
    std::os::unix::fs::symlink(&out, s.folders.library.join("retro")).unwrap();
    for key in [
        "retro%2Fsecret.txt",
        "retro%2FGame%20%5B0100000000010000%5D.nsp",
    ] {
        let r = delete(&s, key);
        assert_eq!((r.status, r.slug().as_str()), (404, "not_found"), "{key}");
    }
    assert!(out.join("secret.txt").exists());
    // A listed game whose folder became a link to elsewhere since the scan.
    let indies = s.folders.library.join("Indies");
    std::fs::rename(&indies, s.folders.tmp.path().join("moved")).unwrap();
    std::fs::create_dir_all(out.join("Indies")).unwrap();
    std::fs::write(out.join(STYX), b"outside").unwrap();
    std::os::unix::fs::symlink(&out, &indies).unwrap();
    assert_eq!(delete(&s, STYX_ENC).status, 404);
    assert_eq!(std::fs::read(out.join(STYX)).unwrap(), b"outside");
    assert_eq!(s.get("/api/v1/trash").json()["total"], 0);
}

#[test]
fn a_restore_makes_its_folders_and_never_writes_through_a_symlink() {
    let folders = Folders::new();
    let out = outside(&folders);
    let trash = folders.library.join(".ludotheque-trash");
    for (id, key) in [(7, "evil/x.nsp"), (8, "new/deeper/y.nsp")] {
        let file = trash.join(id.to_string()).join(key);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, b"trashed").unwrap();
    }
    std::os::unix::fs::symlink(&out, folders.library.join("evil")).unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let r = s.post("/api/trash/7/restore");
    assert_eq!((r.status, r.slug().as_str()), (409, "conflict"), "{r:?}");
    assert_eq!(r.json()["message"], Msg::LinkOnTheWay.english(), "{r:?}");
    assert!(!out.join("x.nsp").exists(), "written outside the library");
    assert!(
        trash.join("7/evil/x.nsp").exists(),
        "the trashed file stays"
    );
    let r = s.post("/api/trash/8/restore");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        std::fs::read(folders.library.join("new/deeper/y.nsp")).unwrap(),
        b"trashed"
    );
}

#[test]
fn a_trash_folder_that_is_a_symlink_is_never_purged_through() {
    let s = demo_server(&[]);
    assert_eq!(delete(&s, STYX_ENC).status, 200);
    let id = s.get("/api/v1/trash").json()["items"][0]["id"]
        .as_i64()
        .unwrap();
    // The trash folder swapped for a link to a folder that has an entry of that id.
    let out = outside(&s.folders);
    let trash = s.folders.library.join(".ludotheque-trash");
    std::fs::rename(&trash, s.folders.tmp.path().join("old-trash")).unwrap();
    std::fs::create_dir_all(out.join(id.to_string())).unwrap();
    std::fs::write(out.join(format!("{id}/keep.txt")), b"keep").unwrap();
    std::os::unix::fs::symlink(&out, &trash).unwrap();
    let r = s.send("DELETE", &format!("/api/trash/{id}"), &[], None);
    assert_eq!((r.status, r.slug().as_str()), (409, "conflict"), "{r:?}");
    assert!(out.join(format!("{id}/keep.txt")).exists());
    let r = delete(&s, "Indies%2FSummit%20%5B01002B30028F6000%5D%5Bv0%5D.xcz");
    assert_eq!(r.status, 409, "nothing moves into a linked trash: {r:?}");
}

#[test]
fn a_game_that_is_a_link_inside_the_library_goes_to_the_trash_and_back() {
    let folders = Folders::new();
    let real = folders.library.join("real/Game [0100000000010000][v0].nsp");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, b"the real bytes").unwrap();
    let link = folders.library.join("Linked [0100000000010000][v0].nsp");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(s.get("/api/v1/library").json()["total"], 2);
    assert_eq!(
        delete(&s, "Linked%20%5B0100000000010000%5D%5Bv0%5D.nsp").status,
        200
    );
    let id = s.get("/api/v1/trash").json()["items"][0]["id"]
        .as_i64()
        .unwrap();
    let r = s.post(&format!("/api/trash/{id}/restore"));
    assert_eq!(r.status, 200, "{r:?}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&link).unwrap(), b"the real bytes");
    assert_eq!(s.get("/api/v1/library").json()["total"], 2);
}

#[test]
fn a_trash_entry_folder_that_is_a_link_is_never_adopted_or_restored() {
    let folders = Folders::new();
    let out = outside(&folders);
    let trash = folders.library.join(".ludotheque-trash");
    std::fs::create_dir_all(&trash).unwrap();
    std::os::unix::fs::symlink(&out, trash.join("99")).unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(s.get("/api/v1/trash").json()["total"], 0);
    assert_eq!(s.post("/api/trash/99/restore").status, 404);
    assert!(out.join("secret.txt").exists());
    assert!(!folders.library.join("secret.txt").exists());
}

/// The trash's retention is set in Settings and applies at once to what is trashed
/// next; out of 1 to 3650 days it is refused; `--trash-retention-days` wins, and the
/// page shows it fixed.
#[test]
fn the_trash_retention_is_set_in_settings_unless_the_flag_sets_it() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let form = crate::harness::tag(&s.get("/settings").body, "retention-form").to_string();
    assert!(form.contains("data-api=\"/api/trash/settings\""), "{form}");
    let settings = s.get("/settings").body;
    assert!(
        settings.contains("name=\"days\" min=\"1\" max=\"3650\" value=\"30\""),
        "{settings}"
    );
    let set = |s: &TestServer, days: serde_json::Value| {
        let body = serde_json::json!({ "days": days }).to_string().into_bytes();
        let headers = [
            ("Content-Type", "application/json"),
            ("Origin", s.base.as_str()),
        ];
        s.send("POST", "/api/trash/settings", &headers, Some(body))
    };
    for bad in [0.into(), 3651.into(), "x".into()] {
        assert_eq!(set(&s, bad).status, 400);
    }
    assert_eq!(set(&s, 7.into()).status, 200);
    assert!(s.get("/settings").body.contains("value=\"7\""));
    let key = "Indies%2FStyx%20%5B0100535012974000%5D%5Bv0%5D.nsp";
    assert!(
        s.send("DELETE", &format!("/api/library/{key}"), &[], None)
            .status
            < 300
    );
    let trash: serde_json::Value = s.get("/api/v1/trash").json();
    let entry = &trash["items"][0];
    let at = |f: &str| humantime::parse_rfc3339(entry[f].as_str().unwrap()).unwrap();
    let kept = at("expires_at").duration_since(at("deleted_at")).unwrap();
    assert_eq!(kept.as_secs(), 7 * 86_400, "{entry}");
    drop(s);
    // The flag wins: shown fixed, and the route says why it refuses.
    let s = TestServer::start_on(folders, &["--trash-retention-days", "5"]);
    let settings = s.get("/settings").body;
    let row = crate::harness::fact(&settings, "retention");
    assert!(
        row.contains("5 jours") && row.contains("--trash-retention-days"),
        "{row}"
    );
    assert!(!settings.contains("id=\"retention-form\""));
    let r = set(&s, 9.into());
    assert_eq!(
        (r.status, r.json()["message"].clone()),
        (409, Msg::RetentionByFlag.english().into())
    );
}
