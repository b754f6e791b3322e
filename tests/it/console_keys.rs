//! The user's console keys (prod.keys) through the real binary: `keys import` (checked,
//! atomic, 0600; a malformed file refused with its line and the previous file kept
//! byte for byte), `keys status` for header-only, derived-only and master-plus-sources
//! files, `--keys` and `LUDOTHEQUE_KEYS`, what the library lacks, a running service
//! seeing a new file without a restart, the admin-only upload in Settings, and
//! `backup`'s word on it. Every key here is random bytes made up by the test: never a
//! console's. No output, page, answer or log may hold one of their values.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::harness::{capital, Folders, Resp, TestServer};
use crate::web::{add_user, send_json, sign_in};
use ludotheque::testkit::Msg;

/// `Msg::ConsoleKeysLine` for line `line`, refused for `why` (the `KeysLine` as its
/// JSON, `{"why": slug, ..}`: the testkit exports `Msg`, not the reason's type).
fn keys_line(line: u64, why: serde_json::Value) -> Msg {
    serde_json::from_value(json!({"slug": "console_keys_line", "line": line, "why": why})).unwrap()
}

/// `KeysLine::WrongLength`: `name` given with `digits` hex digits instead of `expected`.
fn wrong_length(name: &str, digits: u64, expected: u64) -> serde_json::Value {
    json!({"why": "wrong_length", "name": name, "digits": digits, "expected": expected})
}

/// A made-up keys file: its text and every value in it (lower and upper case), to
/// look for where none may be.
struct MadeUp {
    text: String,
    values: Vec<String>,
}

impl MadeUp {
    fn new() -> MadeUp {
        MadeUp {
            text: "; made up by the test, not a console's keys\n".into(),
            values: Vec::new(),
        }
    }

    /// `name = <random bytes>`.
    fn key(mut self, name: &str, bytes: usize) -> MadeUp {
        let value: String = (0..bytes)
            .map(|_| format!("{:02x}", rand::random::<u8>()))
            .collect();
        self.text.push_str(&format!("{name} = {value}\n"));
        self.values.push(value);
        self
    }

    fn sources(self) -> MadeUp {
        [
            "aes_kek_generation_source",
            "aes_key_generation_source",
            "key_area_key_application_source",
            "key_area_key_ocean_source",
            "key_area_key_system_source",
            "titlekek_source",
            "header_kek_source",
        ]
        .iter()
        .fold(self, |f, name| f.key(name, 16))
        .key("header_key_source", 32)
    }

    fn write(&self, path: &Path) {
        std::fs::write(path, &self.text).unwrap();
    }

    /// No value of the file, nor the start of one, is in `text`.
    fn assert_absent(&self, text: &str, what: &str) {
        let lower = text.to_ascii_lowercase();
        for v in &self.values {
            assert!(
                !lower.contains(&v[..12]),
                "{what} holds a key's value:\n{text}"
            );
        }
    }
}

fn status(folders: &Folders, extra: &[&str]) -> (bool, String, String) {
    let mut args = extra.to_vec();
    args.extend(["keys", "status"]);
    let (st, out, err) = folders.cli(&args);
    (st.success(), out, err)
}

/// The status line of a revision: `0x05      dérivée   dérivée   présente`.
fn revision_line(out: &str, revision: &str) -> Vec<String> {
    out.lines()
        .find(|l| l.starts_with(&format!("0x{revision} ")))
        .unwrap_or_else(|| panic!("no line for 0x{revision}:\n{out}"))
        .split_whitespace()
        .skip(1)
        .map(String::from)
        .collect()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn prod_keys(folders: &Folders) -> PathBuf {
    folders.data.join("prod.keys")
}

#[test]
fn import_installs_the_file_0600_and_status_lists_what_is_present_and_derived() {
    let folders = Folders::new();
    let keys = MadeUp::new()
        .key("header_key", 32)
        .key("master_key_00", 16)
        .key("master_key_03", 16)
        .sources()
        .key("KEY_AREA_KEY_APPLICATION_01", 16);
    let file = folders.tmp.path().join("from-the-sd-card.keys");
    keys.write(&file);
    let (st, out, err) = folders.cli(&["keys", "import", file.to_str().unwrap()]);
    assert!(st.success(), "{out}{err}");
    let installed = prod_keys(&folders);
    assert_eq!(std::fs::read_to_string(&installed).unwrap(), keys.text);
    assert_eq!(mode(&installed), 0o600);
    assert!(out.contains("header_key : présente"), "{out}");
    assert_eq!(
        revision_line(&out, "00"),
        ["dérivée", "dérivée", "présente"]
    );
    assert_eq!(
        revision_line(&out, "01"),
        ["présente", "manquante", "absente"]
    );
    assert_eq!(
        revision_line(&out, "02"),
        ["manquante", "manquante", "absente"]
    );
    assert_eq!(
        revision_line(&out, "03"),
        ["dérivée", "dérivée", "présente"]
    );
    assert!(!out.contains("0x04"), "{out}");
    // Made-up master keys fail nsz's public checksums: a warning, not a refusal.
    let warning = out
        .lines()
        .find(|l| l.starts_with("Ces clés ne correspondent pas à leur somme de contrôle"))
        .unwrap_or_else(|| panic!("no checksum warning:\n{out}"));
    assert!(
        warning.contains("master_key_00, master_key_03"),
        "{warning}"
    );
    assert!(
        !warning.contains("header_kek_source"),
        "no public checksum: {warning}"
    );
    keys.assert_absent(&out, "import's output");
    let (ok, again, err) = status(&folders, &[]);
    assert!(ok, "{again}{err}");
    assert!(again.contains(&installed.display().to_string()), "{again}");
    assert_eq!(
        revision_line(&again, "03"),
        ["dérivée", "dérivée", "présente"]
    );
    keys.assert_absent(&again, "status");
    keys.assert_absent(&folders.log(), "the log");
}

#[test]
fn a_malformed_file_is_refused_with_its_line_and_the_previous_file_stays_whole() {
    let folders = Folders::new();
    let good = MadeUp::new().key("header_key", 32);
    let file = folders.tmp.path().join("good.keys");
    good.write(&file);
    let (st, out, err) = folders.cli(&["keys", "import", file.to_str().unwrap()]);
    assert!(st.success(), "{out}{err}");
    let installed = prod_keys(&folders);
    let before = std::fs::read(&installed).unwrap();

    let mut bad = MadeUp::new()
        .key("master_key_00", 16)
        .key("titlekek_00", 16);
    bad.text.push_str("master_key_01 deadbeef\n");
    let broken = folders.tmp.path().join("broken.keys");
    bad.write(&broken);
    let (st, out, err) = folders.cli(&["keys", "import", broken.to_str().unwrap()]);
    assert_eq!(st.code(), Some(1), "{out}{err}");
    let no_equals = keys_line(4, json!({"why": "no_equals"}));
    assert!(err.contains(&no_equals.french()), "{err}");
    assert!(!err.contains("deadbeef"), "{err}");
    bad.assert_absent(&format!("{out}{err}"), "a refusal");
    assert_eq!(
        std::fs::read(&installed).unwrap(),
        before,
        "the previous file is unchanged"
    );

    // A key of the wrong length: named, with its length, never its value.
    let short = MadeUp::new().key("header_key", 31);
    short.write(&broken);
    let (st, _, err) = folders.cli(&["keys", "import", broken.to_str().unwrap()]);
    assert_eq!(st.code(), Some(1));
    let too_short = keys_line(2, wrong_length("header_key", 62, 64));
    assert!(err.contains(&too_short.french()), "{err}");
    short.assert_absent(&err, "a refusal");
    assert_eq!(std::fs::read(&installed).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(&folders.data)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".part")), "{names:?}");
}

#[test]
fn header_only_derived_only_and_master_plus_sources_files_in_status() {
    let folders = Folders::new();
    let file = folders.tmp.path().join("elsewhere.keys");
    let flag = ["--keys", file.to_str().unwrap()];

    let header_only = MadeUp::new().key("header_key", 32);
    header_only.write(&file);
    let (ok, out, err) = status(&folders, &flag);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains(&format!("Fichier de clés de console : {}", file.display())),
        "{out}"
    );
    assert!(out.contains("header_key : présente"), "{out}");
    assert!(out.contains("Aucune clé par révision"), "{out}");

    // The keys the readers use, written out: nothing to derive.
    let derived_only = MadeUp::new()
        .key("key_area_key_application_00", 16)
        .key("titlekek_00", 16)
        .key("key_area_key_application_0a", 16)
        .key("titlekek_0a", 16);
    derived_only.write(&file);
    let (ok, out, _) = status(&folders, &flag);
    assert!(ok);
    assert!(out.contains("header_key : manquante"), "{out}");
    assert_eq!(
        revision_line(&out, "00"),
        ["présente", "présente", "absente"]
    );
    assert_eq!(
        revision_line(&out, "05"),
        ["manquante", "manquante", "absente"]
    );
    assert_eq!(
        revision_line(&out, "0a"),
        ["présente", "présente", "absente"]
    );
    derived_only.assert_absent(&out, "status");

    // Master keys and sources only: everything derived, header_key too. Given by
    // the variable this time.
    let master = MadeUp::new()
        .key("master_key_00", 16)
        .key("master_key_02", 16)
        .sources();
    master.write(&file);
    let run = crate::harness::ludotheque()
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["--library", folders.library.to_str().unwrap()])
        .args(["keys", "status"])
        .env("LUDOTHEQUE_KEYS", &file)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{out}");
    assert!(out.contains("header_key : dérivée"), "{out}");
    assert_eq!(
        revision_line(&out, "00"),
        ["dérivée", "dérivée", "présente"]
    );
    assert_eq!(
        revision_line(&out, "01"),
        ["manquante", "manquante", "absente"]
    );
    assert_eq!(
        revision_line(&out, "02"),
        ["dérivée", "dérivée", "présente"]
    );
    master.assert_absent(&out, "status");
    // The default file was never touched.
    assert!(!prod_keys(&folders).exists());

    // A malformed file: status says why and exits 1.
    std::fs::write(&file, "header_key = 00\n").unwrap();
    let (ok, out, err) = status(&folders, &flag);
    assert!(!ok);
    let too_short = keys_line(1, wrong_length("header_key", 2, 64));
    assert!(
        out.contains("n'est pas utilisable") && err.contains(&too_short.french()),
        "{out}{err}"
    );
}

#[test]
fn without_a_file_status_says_what_keys_would_add_and_what_the_library_lacks() {
    let folders = crate::library::scanned_demo();
    let (ok, out, err) = status(&folders, &[]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("Aucun fichier de clés de console"), "{out}");
    assert!(
        out.contains("identification par le contenu") && out.contains("Lockpick_RCM"),
        "{out}"
    );
    // What a keyed scan would have written: three files lacking revision 0x12, one
    // that does not decrypt.
    let db = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    db.execute_batch(
        "UPDATE games SET keys_state = 'missing_key', key_revision = 18
           WHERE key IN (SELECT key FROM games ORDER BY key LIMIT 3);
         UPDATE games SET keys_state = 'wrong_keys'
           WHERE key = (SELECT key FROM games ORDER BY key LIMIT 1 OFFSET 3);",
    )
    .unwrap();
    let (_, out, _) = status(&folders, &[]);
    assert!(
        out.contains(
            "3 fichiers demandent la révision de clés 0x12 : ajoutez master_key_12 ou key_area_key_application_12."
        ),
        "{out}"
    );
    assert!(
        out.contains("1 fichier ne se déchiffre pas avec ces clés"),
        "{out}"
    );
}

#[test]
fn a_running_service_sees_a_new_and_a_changed_file_without_a_restart() {
    let s = TestServer::start(&[]);
    let none = s.get("/api/console-keys");
    assert_eq!(none.status, 200, "{none:?}");
    let none = none.json();
    assert_eq!(
        (none["file"].clone(), none["in_use"].clone()),
        (json!(false), json!(false))
    );
    let page = s.get("/settings").body;
    assert!(page.contains(r#"id="console-keys""#), "{page}");
    assert!(page.contains(r#"data-in-use="false""#), "{page}");
    assert!(page.contains(r#"id="console-keys-would-add""#), "{page}");

    // Imported from the command line while the service runs.
    let first = MadeUp::new().key("header_key", 32);
    let file = s.folders.tmp.path().join("first.keys");
    first.write(&file);
    let (st, out, err) = s.folders.cli(&["keys", "import", file.to_str().unwrap()]);
    assert!(st.success(), "{out}{err}");
    let seen = s.get("/api/console-keys").json();
    assert_eq!(seen["in_use"], true, "{seen}");
    assert_eq!(seen["header_key"], "present");
    assert_eq!(seen["revisions"], json!([]));
    let page = s.get("/settings").body;
    assert!(page.contains(r#"data-in-use="true""#), "{page}");
    first.assert_absent(&page, "the settings page");

    // Broken in place: said, and the keys read before stay in use.
    std::fs::write(prod_keys(&s.folders), "header_key = 00\n").unwrap();
    let broken = s.get("/api/console-keys").json();
    assert_eq!(broken["in_use"], true, "{broken}");
    let too_short = keys_line(1, wrong_length("header_key", 2, 64));
    assert_eq!(
        broken["problem"].as_str(),
        Some(capital(&too_short.french()).as_str()),
        "{broken}"
    );
    let page = s.get("/settings").body;
    // Said, and the keys read before still in use.
    assert!(page.contains(r#"id="console-keys-problem""#), "{page}");
    assert!(page.contains(r#"data-in-use="true""#), "{page}");

    // Changed for another good file: read again.
    let second = MadeUp::new().key("master_key_01", 16).sources();
    second.write(&prod_keys(&s.folders));
    let seen = s.get("/api/console-keys").json();
    assert_eq!(seen["problem"], json!(null), "{seen}");
    assert_eq!(seen["header_key"], "missing", "no master_key_00");
    assert_eq!(
        seen["revisions"][1],
        json!({"revision": "01", "master_key": true, "key_area_key_application": "derived", "titlekek": "derived"})
    );
    let log = s.output();
    first.assert_absent(&log, "the log");
    second.assert_absent(&log, "the log");
    assert_eq!(
        log.matches("is not used").count(),
        1,
        "the broken file logged once:\n{log}"
    );
}

fn upload(s: &TestServer, headers: &[(&str, &str)], text: &str) -> Resp {
    send_json(
        s,
        "POST",
        "/api/console-keys",
        headers,
        json!({ "file": text }),
    )
}

#[test]
fn the_upload_is_for_admins_checked_atomic_and_never_echoed() {
    let folders = Folders::new();
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    let key = crate::access::create_key(&folders, "script", &[]);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let admin = sign_in(&s, "admin", "admin password");
    let viewer = sign_in(&s, "viewer", "viewer password");
    let keys = MadeUp::new()
        .key("header_key", 32)
        .key("master_key_00", 16)
        .sources();
    let installed = prod_keys(&s.folders);

    // A viewer sees the status, without the form, and may not upload.
    let page = s
        .send("GET", "/settings", &[("Cookie", &viewer)], None)
        .body;
    assert!(page.contains(r#"id="console-keys""#) && !page.contains("console-keys-form"));
    let r = upload(&s, &[("Cookie", &viewer)], &keys.text);
    assert_eq!(r.status, 403, "{r:?}");
    keys.assert_absent(&r.body, "a refusal");
    // Neither does an API key, nor a page of another site.
    let r = upload(&s, &[("X-Api-Key", &key)], &keys.text);
    assert_eq!(r.status, 403, "{r:?}");
    let r = upload(
        &s,
        &[("Cookie", &admin), ("Origin", "http://elsewhere.example")],
        &keys.text,
    );
    assert_eq!(
        (r.status, r.slug().as_str()),
        (403, "cross_origin"),
        "{r:?}"
    );
    assert!(!installed.exists());

    // The admin's upload: the status comes back, not the text; never cached.
    let page = s.send("GET", "/settings", &[("Cookie", &admin)], None).body;
    assert!(page.contains(r#"data-api="/api/console-keys""#) && page.contains(r#"type="file""#));
    let r = upload(&s, &[("Cookie", &admin)], &keys.text);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!(r.json()["header_key"], "present");
    assert_eq!(
        r.json()["revisions"][0]["key_area_key_application"],
        "derived"
    );
    keys.assert_absent(&r.body, "the upload's answer");
    assert_eq!(std::fs::read_to_string(&installed).unwrap(), keys.text);
    assert_eq!(mode(&installed), 0o600);
    let page = s.send("GET", "/settings", &[("Cookie", &admin)], None).body;
    assert!(page.contains(r#"data-origin="derived""#), "{page}");
    keys.assert_absent(&page, "the settings page");

    // A malformed upload: the line and why, in the reader's language; the file stays.
    let mut bad = MadeUp::new().key("titlekek_00", 16);
    bad.text
        .push_str("titlekek_01 = 0123456789abcdef0123456789abcdeX\n");
    let r = upload(&s, &[("Cookie", &admin)], &bad.text);
    assert_eq!(r.status, 400, "{r:?}");
    let not_hex = keys_line(3, json!({"why": "not_hex"}));
    assert_eq!(r.json()["message"], not_hex.english());
    assert_eq!(
        r.json()["text"].as_str(),
        Some(capital(&not_hex.french()).as_str()),
        "{r:?}"
    );
    bad.assert_absent(&r.body, "a refusal");
    assert!(!r.body.contains("0123456789abcdef"), "{r:?}");
    assert_eq!(std::fs::read_to_string(&installed).unwrap(), keys.text);
    let log = s.output();
    keys.assert_absent(&log, "the log");
    bad.assert_absent(&log, "the log");
}

#[test]
fn backup_says_the_keys_file_is_not_in_the_copy() {
    let folders = Folders::new();
    let copy = folders.tmp.path().join("copy.db");
    let (st, out, err) = folders.cli(&["backup", copy.to_str().unwrap()]);
    assert!(st.success(), "{out}{err}");
    assert!(
        out.contains("Le fichier de clés de console (prod.keys) n'est pas dans la copie"),
        "{out}"
    );
}

#[test]
fn the_settings_page_uploads_a_file_in_a_browser() {
    use crate::browser::{click, js, open, start, wait_for};
    let s = TestServer::start(&[]);
    let Some((_browser, tab, _profile)) = start(&s.folders) else {
        return;
    };
    let keys = MadeUp::new()
        .key("header_key", 32)
        .key("master_key_00", 16)
        .sources();
    let file = s.folders.tmp.path().join("prod.keys");
    keys.write(&file);
    open(&tab, &format!("{}/settings", s.base));
    let input = tab
        .wait_for_element("#console-keys-form input[type=file]")
        .unwrap();
    input.set_input_files(&[file.to_str().unwrap()]).unwrap();
    click(&tab, "#console-keys-form button[type=submit]");
    wait_for(
        &tab,
        "document.querySelector('#console-keys-status').dataset.inUse === 'true'",
    );
    assert_eq!(
        std::fs::read_to_string(prod_keys(&s.folders)).unwrap(),
        keys.text
    );
    let html = js(&tab, "document.documentElement.outerHTML");
    let html = html.as_str().unwrap();
    assert!(html.contains(r#"data-origin="derived""#), "{html}");
    keys.assert_absent(html, "the page after the upload");
    crate::browser::shot(&tab, "console-keys");

    // A malformed file: the line and why under the form; the file in place stays.
    let mut bad = MadeUp::new();
    bad.text.push_str("header_key: 00\n");
    bad.write(&file);
    let input = tab
        .wait_for_element("#console-keys-form input[type=file]")
        .unwrap();
    input.set_input_files(&[file.to_str().unwrap()]).unwrap();
    click(&tab, "#console-keys-form button[type=submit]");
    // In the page's language (the loopback rule's: the browser's).
    wait_for(
        &tab,
        "/(ligne|Line) 2 .*(pas de « = »|no '=')/.test(document.getElementById('msg').textContent)",
    );
    assert_eq!(
        std::fs::read_to_string(prod_keys(&s.folders)).unwrap(),
        keys.text
    );
}

/// The data folder's `prod.keys` must be the file itself: a link there to a file
/// elsewhere is refused unread, by `keys status` and by a running service, while a
/// file named with `--keys` may be a link.
#[test]
fn a_link_in_the_data_folder_is_refused_unread_and_one_given_with_keys_is_followed() {
    let folders = Folders::new();
    let keys = MadeUp::new().key("header_key", 32);
    let elsewhere = folders.tmp.path().join("elsewhere.keys");
    keys.write(&elsewhere);
    std::os::unix::fs::symlink(&elsewhere, prod_keys(&folders)).unwrap();

    let (ok, out, err) = status(&folders, &[]);
    assert!(!ok, "{out}{err}");
    assert!(out.contains(&Msg::ConsoleKeysLink.french()), "{out}{err}");
    keys.assert_absent(&format!("{out}{err}"), "status");

    let s = TestServer::start_on(folders, &[]);
    let seen = s.get("/api/console-keys").json();
    assert_eq!(
        (seen["file"].clone(), seen["in_use"].clone()),
        (json!(true), json!(false)),
        "{seen}"
    );
    // The page starts the sentence with a capital.
    assert_eq!(
        seen["problem"].as_str().map(str::to_lowercase),
        Some(Msg::ConsoleKeysLink.french().to_lowercase()),
        "{seen}"
    );
    drop(s);

    // Named on the command line, the same link is followed.
    let folders = Folders::new();
    let link = folders.tmp.path().join("link.keys");
    let elsewhere = folders.tmp.path().join("elsewhere.keys");
    keys.write(&elsewhere);
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let (ok, out, err) = status(&folders, &["--keys", link.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert!(!out.contains("n'est pas utilisable"), "{out}");
}
