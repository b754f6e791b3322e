//! Compress in the web interface (issue 39): the two directions named so they read
//! apart, the buttons on a title's page and on a selection of the file list with the
//! estimated saving before and the real one after, and the setting that deletes the
//! originals once verified. Through the real binary, with files made under made-up
//! keys (`kit::keyed`).

use std::os::unix::fs::PermissionsExt;

use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
use ludotheque::testkit::Msg;

use crate::harness::{said_en, said_fr, Folders, TestServer};

fn page(s: &TestServer, path: &str, lang: &str) -> String {
    let r = s.send("GET", path, &[("Accept-Language", lang)], None);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    r.body
}

/// Convert is "Decompress", compress is "Compress", in both languages; the task's
/// label in the API stays `convert`.
#[test]
fn the_two_directions_read_apart() {
    let folders = Folders::new();
    crate::library::demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let en = page(&s, "/tasks", "en");
    assert!(en.contains(">Decompress .nsz/.xcz<"), "{en}");
    assert!(en.contains(">Compress .nsp/.xci (console keys)<"), "{en}");
    assert!(en.contains("to decompress:"), "{en}");
    let fr = page(&s, "/tasks", "fr");
    assert!(fr.contains(">Décompresser .nsz/.xcz<"), "{fr}");
    assert!(
        fr.contains(">Compresser .nsp/.xci (clés de console)<"),
        "{fr}"
    );
    let dashboard = page(&s, "/", "en");
    // Compressed files are no to-do: installers take them as they are.
    assert!(
        dashboard.contains(r#"<div class="card" data-card="compressed">"#),
        "{dashboard}"
    );
    // The API keeps its word.
    assert_eq!(s.post("/api/convert").status, 202);
    assert_eq!(s.wait_idle()["last"]["label"], "convert");
}

const GAME: u64 = 0x0100_0000_0039_5000;
const OTHER: u64 = 0x0100_0000_0039_6000;

fn write_keys(folders: &Folders, keys: &TestKeys) {
    std::fs::create_dir_all(&folders.data).unwrap();
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, keys.prod_keys_file(KeysFile::Full)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn post_json(s: &TestServer, path: &str, body: &str) -> crate::harness::Resp {
    s.send(
        "POST",
        path,
        &[("Content-Type", "application/json")],
        Some(body.as_bytes().to_vec()),
    )
}

/// A title's page offers to compress its `.nsp`/`.xci` with the estimate said as
/// one; its route takes the keys (never an empty list, which would be the whole
/// library), compresses those only, and the tasks page then says what was saved
/// beside the trash's size. The file list has a box per `.nsp`/`.xci`.
#[test]
fn a_title_and_a_selection_compress_with_the_estimate_before_and_the_saving_after() {
    let folders = Folders::new();
    let keys = TestKeys::new(402);
    write_keys(&folders, &keys);
    let game = Title {
        program_size: 0x30_0000,
        ..Title::application(GAME)
    };
    std::fs::write(folders.library.join("game.nsp"), keyed::nsp(&keys, &[game])).unwrap();
    let other = keyed::nsp(&keys, &[Title::application(OTHER)]);
    std::fs::write(folders.library.join("other.nsp"), other).unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();

    let title = page(&s, &format!("/title/{GAME:016X}"), "fr");
    assert!(title.contains("id=\"compress-title\""), "{title}");
    assert!(
        title.contains("data-body=\"{&quot;keys&quot;:[&quot;game.nsp&quot;]}\""),
        "{title}"
    );
    let bytes = std::fs::metadata(folders.library.join("game.nsp"))
        .unwrap()
        .len();
    let (low, high) = (bytes * 35 / 100, bytes * 50 / 100);
    let estimate = || Msg::CompressEstimate { low, high, bytes };
    assert!(title.contains(&said_fr(estimate())), "{title}");
    // A file's own page says it too, beside its button.
    let file = page(&s, "/game/game.nsp", "en");
    assert!(
        file.contains("aria-describedby=\"compress-estimate\""),
        "{file}"
    );
    let said = format!("id=\"compress-estimate\">{}", said_en(estimate()));
    assert!(file.contains(&said), "{file}");
    let files = page(&s, "/files", "en");
    assert!(files.contains("id=\"compress-selected\""), "{files}");
    assert!(files.contains("class=\"pick\""), "{files}");
    assert!(files.contains("data-size="), "{files}");

    for (body, status) in [
        (r#"{"keys": []}"#, 400),
        (r#"{"keys": ["nothing.nsp"]}"#, 404),
        ("{}", 400),
    ] {
        let r = post_json(&s, "/api/compress-files", body);
        assert_eq!(r.status, status, "{body}: {}", r.body);
    }
    assert_eq!(s.get("/api/v1/job").json()["running"], false);
    // Named twice, it is compressed once (not a second time after it moved).
    let r = post_json(
        &s,
        "/api/compress-files",
        r#"{"keys": ["game.nsp", "game.nsp"]}"#,
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "ok", "{last}");
    assert!(folders.library.join("game.nsz").exists());
    assert!(folders.library.join("other.nsp").exists(), "not asked");

    let tasks = page(&s, "/tasks", "fr");
    assert!(tasks.contains("id=\"compress-saved\""), "{tasks}");
}

/// The setting "delete the originals once verified" (off by default) is used by the
/// web's runs: the original is purged, not kept in the trash.
#[test]
fn the_delete_originals_setting_purges_them_in_web_runs() {
    let folders = Folders::new();
    let keys = TestKeys::new(403);
    write_keys(&folders, &keys);
    let game = keyed::nsp(&keys, &[Title::application(GAME)]);
    std::fs::write(folders.library.join("game.nsp"), game).unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let settings = page(&s, "/settings", "fr");
    assert!(settings.contains("name=\"delete_originals\""), "{settings}");
    assert!(
        !settings.contains("name=\"delete_originals\" checked"),
        "off by default"
    );
    let r = post_json(
        &s,
        "/api/compress-settings",
        r#"{"delete_originals": true}"#,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let settings = page(&s, "/settings", "en");
    assert!(
        settings.contains("name=\"delete_originals\" checked"),
        "{settings}"
    );

    let r = post_json(&s, "/api/compress-files", r#"{"keys": ["game.nsp"]}"#);
    assert_eq!(r.status, 202, "{}", r.body);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "ok", "{last}");
    assert!(folders.library.join("game.nsz").exists());
    assert!(!folders.library.join("game.nsp").exists());
    let trash = s.get("/api/v1/trash").json();
    assert_eq!(trash["items"].as_array().unwrap().len(), 0, "{trash}");
}
