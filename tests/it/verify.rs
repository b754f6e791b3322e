//! Verify: every NCA's SHA-256 against its CNMT record, with the console keys, through
//! the real binary (the web interface's buttons, `ludotheque verify`); and what a
//! damaged file becomes: not playable, out of the shop, never dedupe's kept copy.

use std::os::unix::fs::PermissionsExt;

use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
use ludotheque::testkit::synth;
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde_json::Value;

use ludotheque::testkit::Msg;

use crate::harness::{basic, Folders, TestServer};
use crate::harness::{capital, said_en, said_fr};

/// `Msg::NcaDamaged` for `nca` alone, damaged as `what` says (`mismatch`, `missing`:
/// the `NcaFault` as its JSON, the testkit exporting `Msg` only).
fn nca_damaged(nca: &str, what: &str) -> Msg {
    let json = serde_json::json!({"slug": "nca_damaged", "nca": nca, "what": what, "detail": "", "more": 0});
    serde_json::from_value(json).unwrap()
}

const QUEST: u64 = 0x0100_0000_00C0_0000;
const PACKED: u64 = 0x0100_0000_00C1_0000;
const CART: u64 = 0x0100_0000_00C2_0000;
const FLIPPED: u64 = 0x0100_0000_00C3_0000;
const LACKING: u64 = 0x0100_0000_00C4_0000;
const SQUEEZED: u64 = 0x0100_0000_00C5_0000;

fn write_keys(folders: &Folders, keys: &TestKeys) {
    std::fs::create_dir_all(&folders.data).unwrap();
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, keys.prod_keys_file(KeysFile::Derived)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// The name of a container's first Program NCA (or NCZ).
fn program_nca(container: &[u8]) -> String {
    keyed::entries(container)
        .into_iter()
        .map(|e| e.name)
        .find(|n| (n.ends_with(".nca") || n.ends_with(".ncz")) && !n.contains(".cnmt."))
        .unwrap()
}

/// The library of the keyed tests, and the names of the NCAs it damaged: a sound NSP,
/// NSZ and XCI (a base and its update), an NSP with a flipped byte, one without its
/// Program NCA, an NSZ with a flipped byte in its compressed stream, and an NSP of no
/// keys at all (its headers do not decrypt).
fn keyed_library(folders: &Folders, keys: &TestKeys) -> (String, String, String) {
    let lib = &folders.library;
    let put = |name: &str, bytes: &[u8]| std::fs::write(lib.join(name), bytes).unwrap();
    put("quest.nsp", &keyed::nsp(keys, &[Title::application(QUEST)]));
    put(
        "packed.nsz",
        &keyed::nsz(keys, &[Title::application(PACKED)]),
    );
    let cart = [Title::application(CART), Title::patch(CART, 65536)];
    put("cart.xci", &keyed::xci(keys, &cart));
    let mut flipped = keyed::nsp(keys, &[Title::application(FLIPPED)]);
    let flipped_nca = program_nca(&flipped);
    keyed::flip_byte(&mut flipped, &flipped_nca).unwrap();
    put("flipped.nsp", &flipped);
    let mut files = keyed::nsp_files(keys, &[Title::application(LACKING)]);
    let lacking_nca = program_nca(&synth::pfs0(&files));
    files.retain(|(name, _)| *name != lacking_nca);
    put("lacking.nsp", &synth::pfs0(&files));
    let mut squeezed = keyed::nsz(keys, &[Title::application(SQUEEZED)]);
    let squeezed_ncz = program_nca(&squeezed);
    keyed::flip_byte(&mut squeezed, &squeezed_ncz).unwrap();
    put("squeezed.nsz", &squeezed);
    put("homebrew.nsp", &plain_nsp(9, 0x0100_0000_00C6_0000));
    (flipped_nca, lacking_nca, squeezed_ncz)
}

fn failure<'a>(last: &'a Value, key: &str) -> &'a Value {
    last["failures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == key)
        .unwrap_or_else(|| panic!("{key} not among the failures: {last}"))
}

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
    let g = game(&s, damaged);
    assert_eq!(g["playable"], false);
    assert!(
        g["note"].as_str().is_some_and(|n| !n.is_empty()),
        "the API says why: {g}"
    );
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
    assert!(err.contains(&said_fr(Msg::VerifyNeedsKeys)), "{out}{err}");
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    // The button says so before anyone presses it.
    let tasks = s
        .send("GET", "/tasks", &[("Accept-Language", "en")], None)
        .body;
    let button = &tasks[tasks.find("id=\"start-verify\"").unwrap()..];
    assert!(
        button[..button.find('>').unwrap()].contains("disabled"),
        "{tasks}"
    );
    assert!(tasks.contains("id=\"verify-blocked\""), "{tasks}");
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
        last["message"]
            .as_str()
            .unwrap()
            .contains(&said_en(Msg::VerifyNeedsKeys)),
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

/// The whole library verified from the tasks page's button: the sound files stay as
/// they are, each damaged one is named with its NCA, marked (not playable, out of the
/// shop, its reason on the files list), and the file that cannot be checked is named
/// but not marked. Put back as it was, the file verifies sound and loses the mark.
#[test]
fn verify_names_and_marks_the_damaged_files() {
    let folders = Folders::new();
    let keys = TestKeys::new(38);
    write_keys(&folders, &keys);
    let (flipped_nca, lacking_nca, squeezed_ncz) = keyed_library(&folders, &keys);
    let auth = basic("salon", &folders.add_console("salon"));
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let offered = tinfoil_files(&s, &auth).len();
    assert_eq!(s.post("/api/verify").status, 202);
    let job = s.wait_idle();
    let last = &job["last"];
    assert_eq!(
        (last["label"].as_str(), last["result"].as_str()),
        (Some("verify"), Some("partial")),
        "{last}"
    );
    let done = Msg::VerifyDone {
        sound: 3,
        damaged: 3,
        unverifiable: 1,
    };
    assert_eq!(last["message"], done.english(), "{last}");
    assert_eq!(last["done"], last["total"], "{last}");
    let said = |key: &str| failure(last, key)["message"].as_str().unwrap().to_string();
    assert_eq!(failure(last, "flipped.nsp")["error"], "nca_damaged");
    assert_eq!(
        said("flipped.nsp"),
        nca_damaged(&flipped_nca, "mismatch").english(),
        "{last}"
    );
    assert_eq!(
        said("lacking.nsp"),
        nca_damaged(&lacking_nca, "missing").english(),
        "{last}"
    );
    assert!(said("squeezed.nsz").contains(&squeezed_ncz), "{last}");
    assert_eq!(failure(last, "homebrew.nsp")["error"], "not_verifiable");
    for key in ["quest.nsp", "packed.nsz", "cart.xci", "homebrew.nsp"] {
        assert_eq!(game(&s, key)["playable"], true, "{key}");
    }
    for key in ["flipped.nsp", "lacking.nsp", "squeezed.nsz"] {
        assert_eq!(game(&s, key)["playable"], false, "{key}");
    }
    let urls = tinfoil_files(&s, &auth);
    assert_eq!(urls.len(), offered - 3, "{urls:?}");
    assert!(!urls.iter().any(|u| u.contains("flipped")), "{urls:?}");
    let files = s
        .send("GET", "/files", &[("Accept-Language", "fr")], None)
        .body;
    let flipped = capital(&said_fr(nca_damaged(&flipped_nca, "mismatch")));
    assert!(files.contains(&flipped), "{files}");
    // The flipped file put back with its old time (a scan would not see a change):
    // verifying that file alone finds it sound and clears the mark.
    let path = folders.library.join("flipped.nsp");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let sound = keyed::nsp(&keys, &[Title::application(FLIPPED)]);
    std::fs::write(&path, &sound).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(s.post("/api/verify/flipped.nsp").status, 202);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(
        (last["result"].as_str(), last["total"].as_u64()),
        (Some("ok"), Some(sound.len() as u64)),
        "{last}"
    );
    let done = Msg::VerifyDone {
        sound: 1,
        damaged: 0,
        unverifiable: 0,
    };
    assert_eq!(last["message"], done.english());
    assert_eq!(game(&s, "flipped.nsp")["playable"], true);
    assert_eq!(tinfoil_files(&s, &auth).len(), offered - 2);
}

/// `ludotheque verify [KEY…]` in the foreground: 0 when every file named is sound, 1
/// naming each damaged or unknown file with its reason in French.
#[test]
fn the_command_line_exits_1_naming_what_failed() {
    let folders = Folders::new();
    let keys = TestKeys::new(39);
    write_keys(&folders, &keys);
    let (flipped_nca, _, _) = keyed_library(&folders, &keys);
    folders.scan();
    let (st, out, err) = folders.cli(&["verify", "quest.nsp", "cart.xci", "packed.nsz"]);
    assert!(st.success(), "{out}{err}");
    let done = Msg::VerifyDone {
        sound: 3,
        damaged: 0,
        unverifiable: 0,
    };
    assert!(out.contains(&done.french()), "{out}");
    let (st, out, err) = folders.cli(&["verify", "quest.nsp", "flipped.nsp", "nothing.nsp"]);
    assert_eq!(st.code(), Some(1), "{out}{err}");
    let flipped = nca_damaged(&flipped_nca, "mismatch").french();
    assert!(out.contains(&format!("  flipped.nsp : {flipped}")), "{out}");
    assert!(out.contains("  nothing.nsp : "), "{out}");
    let (st, out, _) = folders.cli(&["verify"]);
    assert_eq!(st.code(), Some(1));
    for key in ["lacking.nsp", "squeezed.nsz", "homebrew.nsp"] {
        assert!(out.contains(&format!("  {key} : ")), "{key}: {out}");
    }
    assert!(!out.contains("  quest.nsp"), "{out}");
}

/// A damage mark outlives the reading again that console keys start (the file did
/// not change): a corrupt .nsz the convert marked stays out of the shop once keys
/// arrive and the scan reads it with them.
#[test]
fn a_damage_mark_outlives_the_reading_again_new_keys_start() {
    let folders = Folders::new();
    let key = "a [0100000000010000][v0].nsz";
    let corrupt = crate::convert::nsz_with_a_corrupt_stream();
    std::fs::write(folders.library.join(key), corrupt).unwrap();
    folders.scan();
    let (st, out, _) = folders.cli(&["convert"]);
    assert_eq!(st.code(), Some(1), "{out}");
    write_keys(&folders, &TestKeys::new(40));
    folders.scan();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let g = game(&s, key);
    assert_eq!(g["playable"], false, "{g}");
    assert_eq!(s.get("/api/v1/stats").json()["to_convert"], 0);
}
