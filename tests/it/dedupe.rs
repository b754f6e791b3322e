//! Dedupe: superseded updates and duplicate copies go to the trash (never away), by
//! an explicit rule, and come back from it.

use std::path::Path;
use std::sync::Arc;

use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::Value;

use crate::harness::{Folders, TestServer};
use crate::library::demo;
use ludotheque::testkit::Msg;

const STYX_NEW: &str = "Indies/Styx [0100535012974800][v131072].nsp";
const STYX_OLD: &str = "Indies/Styx [0100535012974800][v65536].nsp";
const POTIONS_NSZ: &str = "Studio/Pôtions Épée [0100ABF008968000][v0].nsz";
const POTIONS_NSP: &str = "Studio/Pôtions Épée copy [0100ABF008968000][v0].nsp";

/// The demo library with an older update beside Styx's, and an `.nsp` copy of a
/// compressed base game, scanned.
fn library_with_copies() -> Arc<Folders> {
    let folders = Folders::new();
    demo(&folders);
    let lib = &folders.library;
    std::fs::copy(lib.join(STYX_NEW), lib.join(STYX_OLD)).unwrap();
    std::fs::copy(lib.join(POTIONS_NSZ), lib.join(POTIONS_NSP)).unwrap();
    folders.scan();
    folders
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

fn trash_items(s: &TestServer) -> Vec<Value> {
    s.get("/api/v1/trash").json()["items"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_dry_run_lists_and_moves_nothing_then_the_task_trashes_and_a_restore_brings_back() {
    let folders = library_with_copies();
    let lib = folders.library.clone();
    let old_bytes = bytes(&lib.join(STYX_OLD));
    let (status, out, _) = folders.cli(&["dedupe", "--dry-run"]);
    assert!(status.success(), "{out}");
    assert!(
        out.contains(&format!("remplacé  0100535012974800 (v1) : {STYX_OLD}")),
        "{out}"
    );
    assert!(out.contains(&format!("gardé : {STYX_NEW}")), "{out}");
    assert!(
        out.contains(&format!("doublon   0100ABF008968000 (v0) : {POTIONS_NSZ}")),
        "{out}"
    );
    assert!(out.contains(&format!("gardé : {POTIONS_NSP}")), "{out}");
    assert!(out.contains("2 fichiers partiraient"), "{out}");
    for key in [STYX_OLD, STYX_NEW, POTIONS_NSZ, POTIONS_NSP] {
        assert!(lib.join(key).exists(), "the dry run moved {key}");
    }

    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    let page = s.get("/upkeep");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("v65536"), "{}", page.body);
    assert!(page.body.contains("id=\"start-dedupe\""));

    assert_eq!(s.post("/api/dedupe").status, 202);
    let job = s.wait_idle();
    assert_eq!(job["last"]["label"], "dedupe");
    assert_eq!(job["last"]["result"], "ok");
    assert_eq!(job["last"]["done"], 2);
    assert!(!lib.join(STYX_OLD).exists() && !lib.join(POTIONS_NSZ).exists());
    assert!(lib.join(STYX_NEW).exists() && lib.join(POTIONS_NSP).exists());
    let items = trash_items(&s);
    let reason = |key: &str| {
        items
            .iter()
            .find(|i| i["key"] == key)
            .map(|i| i["reason"].as_str().unwrap().to_string())
    };
    assert_eq!(reason(STYX_OLD).as_deref(), Some("superseded"));
    assert_eq!(reason(POTIONS_NSZ).as_deref(), Some("duplicate"));
    let enc = utf8_percent_encode(STYX_OLD, NON_ALPHANUMERIC).to_string();
    assert_eq!(s.get(&format!("/api/v1/library/{enc}")).status, 404);
    // The library has nothing left to dedupe.
    assert!(s.get("/upkeep").body.contains("id=\"dedupe-empty\""));

    // Restored, the same bytes are back in the library.
    let id = items.iter().find(|i| i["key"] == STYX_OLD).unwrap()["id"].clone();
    assert_eq!(s.post(&format!("/api/trash/{id}/restore")).status, 200);
    assert_eq!(bytes(&lib.join(STYX_OLD)), old_bytes);
    assert_eq!(s.get(&format!("/api/v1/library/{enc}")).status, 200);
}

#[test]
fn the_rule_can_keep_the_compressed_copy_and_the_newest_version_always_stays() {
    let folders = library_with_copies();
    let lib = folders.library.clone();
    let (status, out, err) = folders.cli(&["--dedupe-keep", "compressed", "dedupe"]);
    assert!(status.success(), "{out}{err}");
    assert!(lib.join(POTIONS_NSZ).exists(), "the compressed copy stays");
    assert!(!lib.join(POTIONS_NSP).exists());
    assert!(lib.join(STYX_NEW).exists() && !lib.join(STYX_OLD).exists());
    let (_, list, _) = folders.cli(&["trash", "list"]);
    assert!(
        list.contains(POTIONS_NSP) && list.contains(STYX_OLD),
        "{list}"
    );
    // A second run finds nothing.
    let (_, out, _) = folders.cli(&["dedupe", "--dry-run"]);
    assert_eq!(
        out.lines().count(),
        1,
        "only the summary, no file listed: {out}"
    );
    let (status, _, err) = folders.cli(&["--dedupe-keep", "smallest", "dedupe", "--dry-run"]);
    assert!(!status.success());
    assert!(err.contains("smallest"), "{err}");
}

#[test]
fn a_copy_whose_header_is_broken_never_pushes_out_a_good_one() {
    let folders = Folders::new();
    demo(&folders);
    let lib = &folders.library;
    // A newer update that does not parse: the older, readable one stays, and so
    // does the broken file (nothing says it is not the one the user wants).
    let broken = "Indies/Styx [0100535012974800][v196608].nsp";
    std::fs::write(lib.join(broken), b"not a container").unwrap();
    let (status, out, _) = folders.cli(&["scan"]);
    assert_eq!(status.code(), Some(1), "a partial scan: {out}");
    let why = folders.last_failure_of(broken);
    assert!(matches!(why, Some(Msg::FileDamaged { .. })), "{why:?}");
    let said = format!("  {broken} : {}", why.unwrap().french());
    assert!(out.contains(&said), "{out}");
    let (_, out, _) = folders.cli(&["dedupe", "--dry-run"]);
    assert_eq!(
        out.lines().count(),
        1,
        "only the summary, no file listed: {out}"
    );
    let (status, _, _) = folders.cli(&["dedupe"]);
    assert!(status.success());
    assert!(lib.join(broken).exists() && lib.join(STYX_NEW).exists());
}

#[test]
fn a_link_is_no_copy_and_never_costs_the_file_it_leads_to() {
    let folders = Folders::new();
    demo(&folders);
    let lib = &folders.library;
    // A link whose key sorts before the file's: were it a copy, the file would go.
    let link = "Aaa/Styx [0100535012974800][v131072].nsp";
    std::fs::create_dir_all(lib.join("Aaa")).unwrap();
    std::os::unix::fs::symlink(lib.join(STYX_NEW), lib.join(link)).unwrap();
    folders.scan();
    let (_, out, _) = folders.cli(&["dedupe", "--dry-run"]);
    assert_eq!(
        out.lines().count(),
        1,
        "only the summary, no file listed: {out}"
    );
    let (status, _, _) = folders.cli(&["dedupe"]);
    assert!(status.success());
    assert!(lib.join(STYX_NEW).is_file() && lib.join(link).is_file());
}

/// Issue 40: a newer update that a convert found damaged (its header reads, its data
/// does not) beside a sound older one. The sound copy is the one kept, never
/// trashed; the damaged one is not playable, not in the shop, and the title is not
/// `complete` while its newest version exists only damaged.
#[test]
fn a_damaged_newer_copy_never_stays_in_place_of_a_sound_one() {
    let folders = Folders::new();
    demo(&folders);
    let lib = &folders.library;
    let damaged = "Indies/Styx [0100535012974800][v196608].nsz";
    std::fs::write(
        lib.join(damaged),
        crate::convert::nsz_with_a_corrupt_stream(),
    )
    .unwrap();
    std::fs::copy(lib.join(STYX_NEW), lib.join(STYX_OLD)).unwrap();
    let password = folders.add_console("salon");
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    assert_eq!(s.post("/api/v1/convert").status, 202);
    assert_eq!(s.wait_idle()["last"]["result"], "partial");
    let enc = |key: &str| utf8_percent_encode(key, NON_ALPHANUMERIC).to_string();
    let game = s.get(&format!("/api/v1/library/{}", enc(damaged))).json();
    assert_eq!(game["playable"], false, "{game}");
    assert_eq!(
        s.get(&format!("/api/v1/library/{}", enc(STYX_NEW))).json()["playable"],
        true
    );

    // The plan keeps the sound v131072 and trashes only the older sound copy.
    let plan = s.get("/api/dedupe/preview").json();
    let drops: Vec<&Value> = plan["drops"].as_array().unwrap().iter().collect();
    let styx: Vec<&&Value> = drops
        .iter()
        .filter(|d| d["title_id"] == "0100535012974800")
        .collect();
    assert_eq!(styx.len(), 1, "{plan}");
    assert_eq!(
        (&styx[0]["key"], &styx[0]["kept"]),
        (&Value::from(STYX_OLD), &Value::from(STYX_NEW))
    );
    let r = crate::web::send_json(&s, "POST", "/api/dedupe", &[], plan["body"].clone());
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(s.wait_idle()["last"]["result"], "ok");
    assert!(lib.join(STYX_NEW).is_file() && lib.join(damaged).is_file());
    assert!(!lib.join(STYX_OLD).exists());

    // Not complete: the newest version the library has is damaged.
    let title = s.get("/api/v1/titles/0100535012974000").json();
    let status = title["status"].as_array().unwrap();
    assert!(!status.contains(&Value::from("complete")), "{title}");
    assert!(status.contains(&Value::from("update_available")), "{title}");
    assert_eq!(title["installed_version"], 131072, "{title}");
    // Nor is the sound update "superseded" by the damaged one.
    let updates = title["contents"]["updates"].as_array().unwrap();
    let sound = updates.iter().find(|u| u["key"] == STYX_NEW).unwrap();
    assert_eq!(sound["superseded"], false, "{title}");

    // The shop offers the sound update, never the damaged one.
    let auth = crate::harness::basic("salon", &password);
    let headers = crate::shop::tinfoil(&auth);
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let index = s.send("GET", "/", &h, None).body;
    assert!(
        index.contains("Styx%20%5B0100535012974800%5D%5Bv131072%5D.nsp"),
        "{index}"
    );
    assert!(
        !index.contains("Styx%20%5B0100535012974800%5D%5Bv196608%5D"),
        "{index}"
    );
}
