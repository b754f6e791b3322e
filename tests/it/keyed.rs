//! Identification with the console keys, through the real binary: synthetic files
//! made under made-up keys (`kit::keyed`), a `prod.keys` in the data
//! folder, and what the API, the pages and the database then say.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
use serde_json::Value;

use crate::harness::{said_en, said_fr, Folders, TestServer};
use ludotheque::testkit::Msg;

const QUEST: u64 = 0x0100_0000_00AB_0000;
const CART: u64 = 0x0100_0000_00AC_0000;
const BUNDLE: u64 = 0x0100_0000_00AD_0000;
const LIAR: u64 = 0x0100_0000_00AE_0000;
const PACKED: u64 = 0x0100_0000_00AF_0000;
const OLD: u64 = 0x0100_0000_00B0_0000;

fn write_keys(folders: &Folders, keys: &TestKeys, shape: KeysFile) {
    std::fs::create_dir_all(&folders.data).unwrap();
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, keys.prod_keys_file(shape)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn put(lib: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(lib.join(name), bytes).unwrap();
}

fn game(s: &TestServer, key: &str) -> Value {
    let r = s.get(&format!("/api/v1/library/{key}"));
    assert_eq!(r.status, 200, "{key}: {r:?}");
    r.json()
}

fn contents(g: &Value) -> Vec<(String, String, u64)> {
    g["contents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["title_id"].as_str().unwrap().to_string(),
                c["type"].as_str().unwrap().to_string(),
                c["version"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn id(n: u64) -> String {
    format!("{n:016X}")
}

/// The library of the first test: an untagged eShop dump, a cartridge holding its
/// update, a bundle with a DLC (title-key crypto), a name that lies, an NSZ (its
/// Program NCA compressed, as nsz does) and an NCA2 title.
fn library(folders: &Folders, keys: &TestKeys) {
    let lib = &folders.library;
    let quest = Title {
        name: "Synthetic Quest".into(),
        publisher: "Ludo Games".into(),
        display_version: "1.2.0".into(),
        ..Title::application(QUEST)
    };
    put(lib, "game.nsp", &keyed::nsp(keys, &[quest]));
    let cart = Title::application(CART);
    let cart_update = Title::patch(CART, 65536);
    put(lib, "cart.xci", &keyed::xci(keys, &[cart, cart_update]));
    let dlc = Title {
        titlekey: true,
        ..Title::addon(BUNDLE, 1)
    };
    let bundle = Title::application(BUNDLE);
    put(lib, "bundle.nsp", &keyed::nsp(keys, &[bundle, dlc]));
    let liar = Title::patch(LIAR, 196608);
    put(
        lib,
        "Lying [0100000000BBBB00][v0].nsp",
        &keyed::nsp(keys, &[liar]),
    );
    let packed = Title {
        name: "Packed Adventure".into(),
        ..Title::application(PACKED)
    };
    put(lib, "packed.nsz", &keyed::nsz(keys, &[packed]));
    let old = Title {
        nca2: true,
        name: "Old Format".into(),
        ..Title::application(OLD)
    };
    put(lib, "old.nsp", &keyed::nsp(keys, &[old]));
}

#[test]
fn contents_decide_what_every_file_is() {
    let folders = Folders::new();
    let keys = TestKeys::new(38);
    write_keys(&folders, &keys, KeysFile::Full);
    library(&folders, &keys);
    let s = TestServer::start_on(folders.clone(), &[]);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "ok", "{last}");

    // An untagged eShop dump: its CNMT, its Control NCA's name, publisher and icon.
    let g = game(&s, "game.nsp");
    assert_eq!(g["identified_by"], "keys");
    assert_eq!(
        (g["type"].as_str(), g["version"].as_u64()),
        (Some("BASE"), Some(0))
    );
    assert_eq!(g["title_id"], id(QUEST));
    assert_eq!(g["name"], "Synthetic Quest");
    assert_eq!(contents(&g), vec![(id(QUEST), "BASE".into(), 0)]);
    // The icon comes from the file, though fetching icons is off.
    // The publisher the file gives, where title data says nothing.
    let t = s.get(&format!("/api/v1/titles/{}", id(QUEST))).json();
    assert_eq!(t["publisher"], "Ludo Games", "{t}");
    let icon = s.get(&format!("/icon/{}", id(QUEST)));
    assert_eq!(icon.status, 200, "{icon:?}");
    assert_eq!(icon.header("content-type"), Some("image/jpeg"));

    // A cartridge holding its update: both contents, and the title counts the update.
    let g = game(&s, "cart.xci");
    assert_eq!(g["type"], "BASE");
    assert_eq!(
        contents(&g),
        vec![
            (id(CART), "BASE".into(), 0),
            (id(CART | 0x800), "UPDATE".into(), 65536)
        ]
    );
    let t = s.get(&format!("/api/v1/titles/{}", id(CART))).json();
    assert_eq!(t["installed_version"], 65536, "{t}");
    assert_eq!(t["contents"]["base"][0]["key"], "cart.xci", "{t}");
    let update = &t["contents"]["updates"][0];
    assert_eq!(update["key"], "cart.xci", "{t}");
    assert_eq!(update["title_id"], id(CART | 0x800));
    assert_eq!(update["version"], 65536);
    assert_eq!(update["superseded"], false);

    // A bundle: the DLC (title-key crypto, its ticket in the file) is a content too.
    let g = game(&s, "bundle.nsp");
    let dlc_id = id(BUNDLE + 0x1001);
    assert_eq!(
        contents(&g),
        vec![
            (id(BUNDLE), "BASE".into(), 0),
            (dlc_id.clone(), "DLC".into(), 0)
        ]
    );
    assert_eq!(
        g["dlc"],
        serde_json::json!([]),
        "a bundle is not its own DLC"
    );
    let t = s.get(&format!("/api/v1/titles/{}", id(BUNDLE))).json();
    assert_eq!(t["contents"]["dlc"][0]["title_id"], dlc_id, "{t}");
    assert_eq!(t["dlc"], 1, "{t}");

    // The name lies: the contents win, and the disagreement is kept.
    let g = game(&s, "Lying%20%5B0100000000BBBB00%5D%5Bv0%5D.nsp");
    assert_eq!(g["type"], "UPDATE");
    assert_eq!(g["title_id"], id(LIAR | 0x800));
    assert_eq!(g["version"], 196608);
    assert_eq!(g["base_title_id"], id(LIAR));

    // An NSZ: the Program NCA is an NCZ; the Meta and Control NCAs are as they were.
    let g = game(&s, "packed.nsz");
    assert_eq!(
        (g["identified_by"].as_str(), g["name"].as_str()),
        (Some("keys"), Some("Packed Adventure"))
    );
    // NCA2 headers.
    let g = game(&s, "old.nsp");
    assert_eq!(
        (g["title_id"].as_str(), g["name"].as_str()),
        (Some(&*id(OLD)), Some("Old Format"))
    );

    // A rescan of unchanged files opens none of them.
    let r = s.post("/api/v1/scan");
    assert_eq!(r.status, 202);
    let last = s.wait_idle()["last"].clone();
    let unchanged = Msg::ScanDone {
        files: 6,
        read: 0,
        unchanged: 6,
        removed: 0,
    };
    assert_eq!(last["message"], unchanged.english(), "{last}");
}

#[test]
fn the_file_page_says_what_the_file_holds_and_what_its_name_claims() {
    let folders = Folders::new();
    let keys = TestKeys::new(39);
    write_keys(&folders, &keys, KeysFile::Full);
    let liar = Title {
        name: "Honest Update".into(),
        names: vec![(3, "Mise à jour honnête".into())],
        ..Title::patch(LIAR, 196608)
    };
    put(
        &folders.library,
        "Lying [0100000000BBBB00][v0].nsp",
        &keyed::nsp(&keys, &[liar]),
    );
    crate::web::add_user(&folders, "ada", "correct horse battery", true);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let cookie = crate::web::sign_in(&s, "ada", "correct horse battery");
    let path = "/game/Lying%20%5B0100000000BBBB00%5D%5Bv0%5D.nsp";
    let page = |lang: &str| {
        let r = crate::web::send_json(
            &s,
            "POST",
            "/api/me/lang",
            &[("Cookie", &cookie)],
            serde_json::json!({ "lang": lang }),
        );
        assert_eq!(r.status, 200, "{r:?}");
        let page = s.send("GET", path, &[("Cookie", &cookie)], None);
        assert_eq!(page.status, 200, "{page:?}");
        page.body
    };
    let update = id(LIAR | 0x800);
    let fr = page("fr");
    // What the file holds, as a sentence says it: its kind in the reader's words.
    let conflict = |holds: &str| Msg::NameConflict {
        named: "[0100000000BBBB00][v0]".into(),
        holds: format!("{holds} {update} v196608"),
    };
    assert!(fr.contains(&said_fr(conflict("mise à jour"))), "{fr}");
    assert!(fr.contains(r#"<dd data-source="keys">"#), "{fr}");
    assert!(
        fr.contains("Mise à jour honnête"),
        "the file's French name, for a French reader"
    );
    let en = page("en");
    assert!(en.contains(&said_en(conflict("update"))), "{en}");
    assert!(en.contains("Honest Update"), "the name the file gives");
    assert!(en.contains(r#"<dd data-source="keys">"#), "{en}");
    // The title's page says what its files say, beside the title data.
    let title = s.send(
        "GET",
        &format!("/title/{}", id(LIAR)),
        &[("Cookie", &cookie)],
        None,
    );
    assert_eq!(title.status, 200, "{title:?}");
    let facts = title
        .body
        .split("id=\"from-the-files\"")
        .nth(1)
        .unwrap_or_default();
    assert!(facts.contains("Honest Update"), "{}", title.body);
    assert!(
        title.body.contains(&format!("/icon/{}", id(LIAR))),
        "its own icon, icons off"
    );
}

fn db(folders: &Folders) -> rusqlite::Connection {
    rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap()
}

fn keys_state(folders: &Folders, key: &str) -> (Option<String>, Option<i64>, String) {
    db(folders)
        .query_row(
            "SELECT keys_state, key_revision, identified_by FROM games WHERE key = ?1",
            [key],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
}

/// Header-only keys open the headers but no section: the file keeps what the keyless
/// path found, and the revision it lacks is recorded. Keys of another console open
/// nothing. When a full keys file arrives, the service reads them again by itself.
#[test]
fn missing_and_wrong_keys_leave_the_keyless_result_until_keys_arrive() {
    let folders = Folders::new();
    let keys = TestKeys::new(40);
    let quest = Title::application(QUEST);
    put(&folders.library, "quest.nsp", &keyed::nsp(&keys, &[quest]));
    let cart = Title::application(CART);
    put(&folders.library, "cart.xci", &keyed::xci(&keys, &[cart]));

    // No keys at all: the keyless path, as today.
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(
        keys_state(&folders, "cart.xci"),
        (None, None, "none".into())
    );
    drop(s);

    write_keys(&folders, &keys, KeysFile::HeaderOnly);
    folders.scan();
    let (state, revision, by) = keys_state(&folders, "cart.xci");
    assert_eq!(
        (state.as_deref(), revision),
        (Some("missing_key"), Some(0x0A))
    );
    assert_eq!(by, "none");

    write_keys(&folders, &TestKeys::new(41), KeysFile::Full);
    folders.scan();
    assert_eq!(
        keys_state(&folders, "cart.xci").0.as_deref(),
        Some("wrong_keys")
    );

    // The right keys arrive while the service runs: it reads the files again itself.
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    write_keys(&folders, &keys, KeysFile::MasterAndSources);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while keys_state(&folders, "cart.xci").0.as_deref() != Some("read") {
        assert!(
            std::time::Instant::now() < until,
            "{:?}",
            keys_state(&folders, "cart.xci")
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    s.wait_idle();
    let g = game(&s, "cart.xci");
    assert_eq!(
        (g["identified_by"].as_str(), g["type"].as_str()),
        (Some("keys"), Some("BASE"))
    );
}

/// A personalized ticket cannot be opened with console keys: the file is still
/// identified (its Meta NCA uses the key area), and its note says why there is no name.
#[test]
fn a_personalized_ticket_still_identifies_and_says_why_there_is_no_name() {
    let folders = Folders::new();
    let keys = TestKeys::new(42);
    write_keys(&folders, &keys, KeysFile::Derived);
    let title = Title {
        titlekey: true,
        personalized: true,
        name: "Never Shown".into(),
        ..Title::application(QUEST)
    };
    put(&folders.library, "mine.nsp", &keyed::nsp(&keys, &[title]));
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let g = game(&s, "mine.nsp");
    assert_eq!(
        (g["identified_by"].as_str(), g["title_id"].as_str()),
        (Some("keys"), Some(&*id(QUEST)))
    );
    assert_eq!(g["name"], "mine");
    let note = g["note"].as_str().unwrap_or_default();
    assert!(note.contains("personalized ticket"), "{g}");
}

/// A file put back into the library without a scan (a convert's output, a restore
/// from the trash) is identified with the keys at once, as a scan would.
#[test]
fn a_convert_output_and_a_restored_file_are_read_with_the_keys_at_once() {
    let folders = Folders::new();
    let keys = TestKeys::new(43);
    write_keys(&folders, &keys, KeysFile::Full);
    let packed = Title {
        name: "Packed Adventure".into(),
        ..Title::application(PACKED)
    };
    put(
        &folders.library,
        "packed.nsz",
        &keyed::nsz(&keys, &[packed]),
    );
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(s.post("/api/v1/convert").status, 202);
    assert_eq!(s.wait_idle()["last"]["result"], "ok");
    let g = game(&s, "packed.nsp");
    assert_eq!(
        (g["identified_by"].as_str(), g["name"].as_str()),
        (Some("keys"), Some("Packed Adventure"))
    );
    assert_eq!(contents(&g), vec![(id(PACKED), "BASE".into(), 0)]);
    drop(s);

    // The original NSZ went to the trash; put it back on the command line.
    std::fs::remove_file(folders.library.join("packed.nsp")).unwrap();
    folders.scan();
    let (status, out, err) = folders.cli(&["trash", "restore", "1"]);
    assert!(status.success(), "{out}{err}");
    let (state, _, by) = keys_state(&folders, "packed.nsz");
    assert_eq!((state.as_deref(), by.as_str()), (Some("read"), "keys"));
}

/// Dedupe never drops a file that holds more than the copy it keeps: a cartridge
/// holding a game and its update is no duplicate of the game alone, whichever the
/// rule prefers.
#[test]
fn dedupe_never_drops_a_file_holding_more_than_the_copy_it_keeps() {
    let folders = Folders::new();
    let keys = TestKeys::new(44);
    write_keys(&folders, &keys, KeysFile::Full);
    let lib = &folders.library;
    put(
        lib,
        "a alone.nsp",
        &keyed::nsp(&keys, &[Title::application(CART)]),
    );
    let both = [Title::application(CART), Title::patch(CART, 65536)];
    put(lib, "b cart.xci", &keyed::xci(&keys, &both));
    folders.scan();
    // The key order prefers "a alone.nsp": the cartridge stays all the same.
    let (status, out, err) = folders.cli(&["dedupe"]);
    assert!(status.success(), "{out}{err}");
    assert!(lib.join("b cart.xci").exists(), "{out}");
    assert!(lib.join("a alone.nsp").exists(), "the copy the rule keeps");
}

/// Keys that open the headers and key areas but no title key: the file is read in
/// part (its Control NCA uses title-key crypto), its note names the key it lacks, and
/// when the full keys arrive it is read again and gets its name.
#[test]
fn a_file_read_in_part_is_read_again_when_the_keys_change() {
    let folders = Folders::new();
    let keys = TestKeys::new(45);
    let no_titlekek: String = keys
        .prod_keys_file(KeysFile::Full)
        .lines()
        .filter(|l| !l.starts_with("titlekek"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::create_dir_all(&folders.data).unwrap();
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, no_titlekek).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let title = Title {
        titlekey: true,
        name: "Locked Names".into(),
        ..Title::application(QUEST)
    };
    put(&folders.library, "locked.nsp", &keyed::nsp(&keys, &[title]));
    folders.scan();
    let (state, revision, by) = keys_state(&folders, "locked.nsp");
    assert_eq!(
        (state.as_deref(), revision, by.as_str()),
        (Some("partial"), Some(0x0A), "keys")
    );
    let note: String = db(&folders)
        .query_row("SELECT note FROM games WHERE key = 'locked.nsp'", [], |r| {
            r.get(0)
        })
        .unwrap();
    // Stored as the slug of its reason, the key's name its word.
    assert!(note.contains("missing_titlekek:titlekek_0a"), "{note}");
    write_keys(&folders, &keys, KeysFile::Full);
    folders.scan();
    let name: String = db(&folders)
        .query_row("SELECT name FROM games WHERE key = 'locked.nsp'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(name, "Locked Names");
    assert_eq!(
        keys_state(&folders, "locked.nsp").0.as_deref(),
        Some("read")
    );
}

/// Keys uploaded in Settings: the service reads the library again by itself, and
/// the run, then Settings, say how many files the keys identified; the page follows
/// the scan beside the upload.
#[test]
fn uploaded_keys_say_how_many_files_they_identified() {
    let folders = Folders::new();
    let keys = TestKeys::new(40);
    put(
        &folders.library,
        "quest.nsp",
        &keyed::nsp(&keys, &[Title::application(QUEST)]),
    );
    put(
        &folders.library,
        "cart.xci",
        &keyed::xci(&keys, &[Title::application(CART)]),
    );
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let settings = s.get("/settings").body;
    let follower = crate::harness::tag(&settings, "console-keys-progress");
    assert!(follower.contains("data-task=\"scan\""), "{follower}");
    assert!(!settings.contains("id=\"keys-identified\""));
    let text = keys.prod_keys_file(KeysFile::Full);
    let body = serde_json::json!({ "file": text }).to_string().into_bytes();
    let headers = [
        ("Content-Type", "application/json"),
        ("Origin", s.base.as_str()),
    ];
    let r = s.send("POST", "/api/console-keys", &headers, Some(body));
    assert_eq!(r.status, 200, "{}", r.body);
    let identified = Msg::ScanIdentified {
        files: 2,
        read: 2,
        identified: 2,
    };
    crate::harness::wait_until("the keys' scan", std::time::Duration::from_secs(30), || {
        folders.last_run_msg() == Some(identified.clone())
    });
    let settings = s.get("/settings").body;
    let said = settings
        .split("id=\"keys-identified\">")
        .nth(1)
        .expect("said in Settings");
    assert!(
        said.starts_with("2 fichiers identifiés avec les clés de console."),
        "{said}"
    );
}
