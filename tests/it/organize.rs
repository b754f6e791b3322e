//! Organize: files move to the naming template inside the library, journaled; a
//! collision is skipped, never overwritten; a second run moves nothing; an undo puts
//! every file back; the game's history (push list) follows its key.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use ludotheque::testkit::Msg;

use crate::harness::said_fr;
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
    assert!(out.contains("0 fichier dont la place est occupée"), "{out}");
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
    let done = folders.last_run_msg();
    assert!(
        matches!(done, Some(Msg::ScanDone { read: 0, .. })),
        "{done:?}"
    );
    assert_eq!(job["last"]["message"], done.unwrap().english(), "{job}");
    // A second run moves nothing and journals nothing.
    assert_eq!(s.post("/api/organize").status, 202);
    let job = s.wait_idle();
    let done = folders.last_run_msg();
    assert!(
        matches!(done, Some(Msg::OrganizeDone { moved: 0, .. })),
        "{done:?}"
    );
    assert_eq!(job["last"]["message"], done.unwrap().english(), "{job}");
    drop(s);

    let (_, list, _) = folders.cli(&["organize", "--list"]);
    assert_eq!(list.lines().count(), 1, "{list}");
    assert!(list.trim_start().starts_with("1 "), "{list}");
    let (status, out, err) = folders.cli(&["organize", "--undo", "1"]);
    assert!(status.success(), "{out}{err}");
    let undone = folders.last_run_msg();
    assert!(
        matches!(
            undone,
            Some(Msg::OrganizeUndone {
                run: 1,
                skipped: 0,
                ..
            })
        ),
        "{undone:?}"
    );
    assert!(out.contains(&undone.unwrap().french()), "{out}");
    assert_eq!(snapshot(&lib), before, "every file is back where it was");
    assert!(!lib.join("Styx").exists());
    let (_, push, _) = folders.cli(&["push", "list"]);
    assert!(push.contains(STYX), "{push}");
    let (status, out, err) = folders.cli(&["organize", "--undo", "1"]);
    assert!(
        !status.success() && err.contains(&said_fr(Msg::OrganizeRunUndone { run: 1 })),
        "{out}{err}"
    );
    let (status, _, err) = folders.cli(&["organize", "--undo", "99"]);
    assert!(
        !status.success() && err.contains(&said_fr(Msg::NoOrganizeRun)),
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
        assert!(err.contains(&said_fr(Msg::BadOrganizeTemplate)), "{err}");
        let (status, _, err) = folders.cli(&[
            "--organize-template",
            bad,
            "serve",
            "--listen",
            "127.0.0.1:0",
        ]);
        assert!(
            !status.success() && err.contains(&said_fr(Msg::BadOrganizeTemplate)),
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

/// The web's organize asks first: its preview route gives the moves, the files whose
/// place is taken and the counts, with the dialog's words; the start sends back the
/// files the dialog showed, and only those move.
#[test]
fn the_web_shows_the_plan_first_and_moves_only_what_it_showed() {
    let folders = scanned_demo();
    let lib = folders.library.clone();
    // Someone's own file where Styx's update would go: a collision the plan shows.
    std::fs::create_dir_all(lib.join("Styx")).unwrap();
    std::fs::write(lib.join(STYX_UPDATE_THERE), b"mine").unwrap();
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    let plan = s.get("/api/organize/preview").json();
    let has = |list: &str, from: &str, to: &str| {
        plan[list]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["from"] == from && m["to"] == to)
    };
    assert!(has("moves", STYX, STYX_THERE), "{plan}");
    assert!(has("taken", STYX_UPDATE, STYX_UPDATE_THERE), "{plan}");
    assert!(plan["left"].as_u64().unwrap() > 0, "{plan}");
    let moves = plan["moves"].as_array().unwrap().len();
    assert_eq!(plan["body"]["keys"].as_array().unwrap().len(), moves);
    // The dialog's words, in the reader's language (French without an account).
    let ask = Msg::OrganizeAsk {
        files: moves as u64,
    };
    assert_eq!(plan["question"], ask.french(), "{plan}");
    assert!(
        plan["sentence"].as_str().unwrap().contains("annulé"),
        "{plan}"
    );
    let flagged: Vec<&Value> = plan["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["flag"] == true)
        .collect();
    assert_eq!(flagged.len(), 1, "{plan}");
    assert_eq!(flagged[0]["text"], STYX_UPDATE);

    // Confirmed for Styx alone: Styx alone moves.
    let before = snapshot(&lib);
    let r = crate::web::send_json(&s, "POST", "/api/organize", &[], json!({ "keys": [STYX] }));
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(s.wait_idle()["last"]["result"], "ok");
    let after = snapshot(&lib);
    let moved: Vec<&String> = before.keys().filter(|k| !after.contains_key(*k)).collect();
    assert_eq!(moved, [STYX], "only what the dialog showed moves");
    assert!(lib.join(STYX_THERE).is_file());
    // An empty confirmation is no confirmation: nothing starts.
    let r = crate::web::send_json(&s, "POST", "/api/organize", &[], json!({ "keys": [] }));
    assert_eq!(r.status, 400, "{r:?}");
}

/// Issue 40: the default template keeps each DLC's own name, in its game's folder;
/// and a run made from the web is undone from the web, as a task, every file back.
#[test]
fn dlc_keep_their_names_and_a_past_run_is_undone_from_the_web() {
    let folders = scanned_demo();
    let lib = folders.library.clone();
    let before = snapshot(&lib);
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    let plan = s.get("/api/organize/preview").json();
    let r = crate::web::send_json(&s, "POST", "/api/organize", &[], plan["body"].clone());
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(s.wait_idle()["last"]["result"], "ok");
    let game: Vec<String> = std::fs::read_dir(lib.join("Dead Rooms"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        game.len(),
        4,
        "the game, its update and its two DLC: {game:?}"
    );
    for (own, id) in [
        ("Deadly Falls", "0100646009FBF002"),
        ("The Rotten Seed", "0100646009FBF001"),
    ] {
        assert!(
            game.iter()
                .any(|f| f.starts_with("Dead Rooms") && f.contains(own) && f.contains(id)),
            "{own}: {game:?}"
        );
    }
    assert!(
        game.contains(&"Dead Rooms [0100646009FBE000][v0].nsp".to_string()),
        "{game:?}"
    );

    // The past run has its Undo button, which asks first.
    let page = s.get("/upkeep").body;
    assert!(page.contains("id=\"undo-organize-1\""), "{page}");
    assert!(
        page.contains("data-api=\"/api/organize/runs/1/undo\" data-then=\"/tasks\" data-confirm="),
        "{page}"
    );
    assert_eq!(s.post("/api/organize/runs/1/undo").status, 202);
    let job = s.wait_idle();
    assert_eq!(job["last"]["label"], "organize_undo", "{job}");
    assert_eq!(job["last"]["result"], "ok", "{job}");
    assert_eq!(snapshot(&lib), before, "every file is back where it was");
    assert!(!lib.join("Dead Rooms").exists());
    assert_eq!(s.get(&format!("/api/v1/library/{}", enc(STYX))).status, 200);
    // Undone: no button any more, and a second undo is refused, as is an unknown run.
    assert!(!s.get("/upkeep").body.contains("id=\"undo-organize-1\""));
    assert_eq!(s.post("/api/organize/runs/1/undo").status, 409);
    assert_eq!(s.post("/api/organize/runs/99/undo").status, 404);
    let (_, list, _) = folders.cli(&["organize", "--list"]);
    assert!(list.contains("annulé le"), "{list}");
}

/// Organize's template is set in Settings, its preview following as it is typed
/// (the dialog's plan for the template given); a template that is none is refused
/// with why; it applies at once, to the page and to the command line;
/// `--organize-template` wins, and Settings shows it fixed.
#[test]
fn the_template_is_set_in_settings_with_its_live_preview() {
    let folders = scanned_demo();
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    let field = crate::harness::tag(&s.get("/settings").body, "template-form").to_string();
    assert!(
        field.contains("data-api=\"/api/organize/settings\""),
        "{field}"
    );
    let by_type = "{type}/{name} [{title_id}].{ext}";
    let preview = |t: &str| {
        let q = utf8_percent_encode(t, NON_ALPHANUMERIC);
        s.get(&format!("/api/organize/preview?template={q}"))
    };
    let plan = preview(by_type).json();
    // The counts in words, which the live preview shows.
    let counted = plan["counts"].as_str().unwrap();
    assert!(
        counted.starts_with(&format!("{} ", plan["moves"].as_array().unwrap().len())),
        "{plan}"
    );
    let moves = plan["moves"].as_array().unwrap_or_else(|| panic!("{plan}"));
    let styx = moves.iter().find(|m| m["from"] == STYX).cloned();
    assert_eq!(
        styx.unwrap_or_else(|| panic!("{plan}"))["to"],
        "Base/Styx [0100535012974000].nsp"
    );
    let r = preview("{name}/no extension");
    assert_eq!(
        (r.status, r.json()["message"].clone()),
        (400, Msg::BadOrganizeTemplate.english().into())
    );
    let set = |s: &TestServer, t: &str| {
        let body = json!({ "template": t }).to_string().into_bytes();
        let headers = [
            ("Content-Type", "application/json"),
            ("Origin", s.base.as_str()),
        ];
        s.send("POST", "/api/organize/settings", &headers, Some(body))
    };
    assert_eq!(set(&s, "../{name}.{ext}").status, 400);
    assert_eq!(set(&s, by_type).status, 200);
    assert!(s
        .get("/upkeep")
        .body
        .contains("Base/Styx [0100535012974000].nsp"));
    drop(s);
    let (status, out, _) = folders.cli(&["organize", "--dry-run"]);
    assert!(
        status.success() && out.contains("  → Base/Styx [0100535012974000].nsp\n"),
        "{out}"
    );
    // The flag wins.
    let s = TestServer::start_on(
        Arc::clone(&folders),
        &["--organize-template", "{name}.{ext}"],
    );
    let settings = s.get("/settings").body;
    assert!(!settings.contains("id=\"template-form\""));
    let row = crate::harness::fact(&settings, "organize-template");
    assert!(
        row.contains("{name}.{ext}") && row.contains("--organize-template"),
        "{row}"
    );
    let r = set(&s, by_type);
    assert_eq!(
        (r.status, r.json()["message"].clone()),
        (409, Msg::TemplateByFlag.english().into())
    );
}
