//! Organize: files move to the naming template inside the library, journaled; a
//! collision is skipped, never overwritten; a second run moves nothing; an undo puts
//! every file back; the game's history (push list) follows its key.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use sha2::{Digest, Sha256};

use crate::harness::{files_under, Folders, TestServer};
use crate::library::{demo, scanned_demo};

const STYX: &str = "Indies/Styx [0100535012974000][v0].nsp";
const STYX_THERE: &str = "Styx/Styx [0100535012974000][v0].nsp";
const STYX_UPDATE: &str = "Indies/Styx [0100535012974800][v131072].nsp";
const STYX_UPDATE_THERE: &str = "Styx/Styx [0100535012974800][v131072].nsp";

/// Every file of the library but the trash, by key, with its digest.
fn snapshot(lib: &Path) -> BTreeMap<String, Vec<u8>> {
    files_under(lib)
        .into_iter()
        .filter(|p| !p.starts_with(lib.join(".ludotheque-trash")))
        .map(|p| {
            let key = p.strip_prefix(lib).unwrap().to_str().unwrap().to_string();
            (key, Sha256::digest(std::fs::read(&p).unwrap()).to_vec())
        })
        .collect()
}

fn digests(snap: &BTreeMap<String, Vec<u8>>) -> Vec<Vec<u8>> {
    let mut all: Vec<Vec<u8>> = snap.values().cloned().collect();
    all.sort();
    all
}

fn enc(key: &str) -> String {
    utf8_percent_encode(key, NON_ALPHANUMERIC).to_string()
}

#[test]
fn a_dry_run_a_run_a_second_run_and_an_undo() {
    let folders = scanned_demo();
    let lib = folders.library.clone();
    let before = snapshot(&lib);
    let (status, _, err) = folders.cli(&["push", "add", STYX]);
    assert!(status.success(), "{err}");

    let (status, out, _) = folders.cli(&["organize", "--dry-run"]);
    assert!(status.success(), "{out}");
    assert!(
        out.contains(&format!("{STYX}\n  → {STYX_THERE}\n")),
        "{out}"
    );
    assert!(out.contains("0 dont la place est prise"), "{out}");
    assert_eq!(snapshot(&lib), before, "a dry run moves nothing");

    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    assert!(s.get("/upkeep").body.contains(STYX_THERE));
    assert_eq!(s.post("/api/organize").status, 202);
    let job = s.wait_idle();
    assert_eq!(job["last"]["label"], "organize");
    assert_eq!(job["last"]["result"], "ok", "{job}");
    let after = snapshot(&lib);
    assert_eq!(
        digests(&after),
        digests(&before),
        "every file is still there"
    );
    assert!(after.contains_key(STYX_THERE) && after.contains_key(STYX_UPDATE_THERE));
    assert!(!lib.join("Indies/Styx [0100535012974000][v0].nsp").exists());
    // The folders the moves emptied are gone; the game answers at its new key.
    assert!(!lib.join("Studio/Zephyr").exists());
    assert_eq!(
        s.get(&format!("/api/v1/library/{}", enc(STYX_THERE)))
            .status,
        200
    );
    assert_eq!(s.get(&format!("/api/v1/library/{}", enc(STYX))).status, 404);
    let push = s.get("/api/push").body;
    assert!(push.contains(STYX_THERE), "{push}");

    // A scan finds every file as it was (a rename keeps size and time): none is read.
    assert_eq!(s.post("/api/v1/scan").status, 202);
    let job = s.wait_idle();
    assert!(
        job["last"]["message"].as_str().unwrap().contains(" 0 read"),
        "{job}"
    );
    // A second run moves nothing and journals nothing.
    assert_eq!(s.post("/api/organize").status, 202);
    let job = s.wait_idle();
    assert!(
        job["last"]["message"]
            .as_str()
            .unwrap()
            .starts_with("0 files moved"),
        "{job}"
    );
    drop(s);

    let (_, list, _) = folders.cli(&["organize", "--list"]);
    assert_eq!(list.lines().count(), 1, "{list}");
    assert!(list.trim_start().starts_with("1 "), "{list}");
    let (status, out, err) = folders.cli(&["organize", "--undo", "1"]);
    assert!(status.success(), "{out}{err}");
    assert!(out.contains(", 0 non."), "{out}");
    assert_eq!(snapshot(&lib), before, "every file is back where it was");
    assert!(!lib.join("Styx").exists());
    let (_, push, _) = folders.cli(&["push", "list"]);
    assert!(push.contains(STYX), "{push}");
    let (_, again, _) = folders.cli(&["organize", "--undo", "1"]);
    assert!(again.contains("déjà annulé"), "{again}");
    let (status, _, err) = folders.cli(&["organize", "--undo", "99"]);
    assert!(
        !status.success() && err.contains("aucun rangement"),
        "{err}"
    );
}

#[test]
fn a_taken_place_is_skipped_and_reported_never_overwritten() {
    let folders = Folders::new();
    demo(&folders);
    let lib = folders.library.clone();
    // Someone's own file where Styx would go, and a second copy of Styx's update
    // elsewhere: the first copy moves, the second finds its place taken.
    std::fs::create_dir_all(lib.join("Styx")).unwrap();
    std::fs::write(lib.join(STYX_THERE), b"mine").unwrap();
    std::fs::create_dir_all(lib.join("Other")).unwrap();
    let copy = "Other/Styx [0100535012974800][v131072].nsp";
    std::fs::copy(lib.join(STYX_UPDATE), lib.join(copy)).unwrap();
    folders.scan();

    let (_, out, _) = folders.cli(&["organize", "--dry-run"]);
    assert!(
        out.contains(&format!("place prise, non déplacé : {STYX}\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!("place prise, non déplacé : {copy}\n")),
        "{out}"
    );
    let (status, out, err) = folders.cli(&["organize"]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(std::fs::read(lib.join(STYX_THERE)).unwrap(), b"mine");
    assert!(lib.join(STYX).exists() && lib.join(copy).exists());
    assert!(lib.join(STYX_UPDATE_THERE).exists() && !lib.join(STYX_UPDATE).exists());
    let (_, out, _) = folders.cli(&["organize", "--dry-run"]);
    assert!(
        out.starts_with("place prise"),
        "only the taken places are left: {out}"
    );
}

#[test]
fn a_template_of_ones_own_and_a_template_that_could_lose_files() {
    let folders = scanned_demo();
    let lib = folders.library.clone();
    let template = "{type}/{title_id} v{version}.{ext}";
    let (status, out, err) = folders.cli(&["--organize-template", template, "organize"]);
    assert!(status.success(), "{out}{err}");
    assert!(lib.join("Base/0100535012974000 v0.nsp").exists());
    assert!(lib.join("Update/0100535012974800 v131072.nsp").exists());
    for bad in ["{name}.nsp", "../{name}.{ext}", "{nom}/{name}.{ext}"] {
        let (status, _, err) = folders.cli(&["--organize-template", bad, "organize"]);
        assert!(!status.success(), "{bad}");
        assert!(err.contains("modèle de rangement"), "{err}");
        let (status, _, err) = folders.cli(&[
            "--organize-template",
            bad,
            "serve",
            "--listen",
            "127.0.0.1:0",
        ]);
        assert!(
            !status.success() && err.contains("modèle de rangement"),
            "{err}"
        );
    }
}

#[test]
fn the_original_a_convert_put_in_the_trash_follows_its_game() {
    let folders = scanned_demo();
    let lib = folders.library.clone();
    let (status, out, err) = folders.cli(&["convert"]);
    assert!(status.success(), "{out}{err}");
    let was = "Studio/Pôtions Épée [0100ABF008968000][v0].nsz";
    let (_, list, _) = folders.cli(&["trash", "list"]);
    assert!(list.contains(was), "{list}");
    let (status, out, err) = folders.cli(&["organize"]);
    assert!(status.success(), "{out}{err}");
    let now = "Pôtions Épée/Pôtions Épée [0100ABF008968000][v0].nsz";
    let (_, list, _) = folders.cli(&["trash", "list"]);
    assert!(list.contains(now) && !list.contains(was), "{list}");
    let id = list
        .lines()
        .find(|l| l.contains(now))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_string();
    let (status, out, err) = folders.cli(&["trash", "restore", &id]);
    assert!(status.success(), "{out}{err}");
    assert!(lib.join(now).is_file(), "restored beside its .nsp");
    assert!(lib
        .join("Pôtions Épée/Pôtions Épée [0100ABF008968000][v0].nsp")
        .is_file());
}
