//! Compression (issue 39) read back by another implementation: nsz 5.0.0 decompresses
//! the `.nsz` and `.xcz` the service writes (`convert::compress`) to the original
//! bytes, and verifies them (`-V`: every NCA's SHA-256 against its CNMT record). Files
//! are made under made-up keys (`kit::keyed`), with titlekey crypto; nsz is driven as
//! in `keys_conformance` (skipped without nsz unless `LUDOTHEQUE_REQUIRE_NSZ=1`).

use std::fs::File;
use std::path::Path;

use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
use ludotheque::testkit::compress::{self, Settings};
use ludotheque::testkit::containers::NczSection;
use ludotheque::testkit::Msg;

use crate::keys_conformance::{errors, succeeded, Nsz};

const GAME: u64 = 0x0100_0000_0039_0000;

/// A base game big enough for a few 1 MiB blocks and a DLC; `titlekey`: the DLC's
/// key comes from its ticket (nsz 5.0.0 reads one ticket per file).
fn titles(titlekey: bool) -> Vec<Title> {
    vec![
        Title {
            program_size: 0x30_0000 + 0x777,
            ..Title::application(GAME)
        },
        Title {
            titlekey,
            program_size: 0x2_0123,
            ..Title::addon(GAME, 1)
        },
    ]
}

/// Compress `input` with the service into `<nsz dir>/name`.
fn ours(
    nsz: &Nsz,
    keys: &TestKeys,
    input: &Path,
    format: &str,
    name: &str,
    settings: &Settings,
) -> Vec<u8> {
    let target = nsz.path(name);
    let mut file = File::open(input).unwrap();
    let outcome = compress::compress_file(
        &mut file,
        format,
        &target,
        &keys.prod_keys(),
        settings,
        &mut |_| Ok(()),
    )
    .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    assert_eq!(outcome.compressed.len(), 2, "{name}: {outcome:?}");
    std::fs::read(target).unwrap()
}

/// nsz -V then -D on our file; the bytes nsz decompressed it to.
fn nsz_decompresses(nsz: &Nsz, keys_file: &Path, name: &str, plain_ext: &str) -> Vec<u8> {
    let path = nsz.path(name);
    let lines = nsz.run(keys_file, &["-V", path.to_str().unwrap()]);
    assert!(succeeded(&lines), "nsz -V {name}: {}", errors(&lines));
    let out = nsz.path(&format!("out-{name}"));
    std::fs::create_dir(&out).unwrap();
    let lines = nsz.run(
        keys_file,
        &["-D", "-o", out.to_str().unwrap(), path.to_str().unwrap()],
    );
    assert!(succeeded(&lines), "nsz -D {name}: {}", errors(&lines));
    let stem = name.rsplit_once('.').unwrap().0;
    std::fs::read(out.join(format!("{stem}.{plain_ext}"))).unwrap()
}

#[test]
fn nsz_decompresses_our_nsz_to_the_original_nsp_in_both_modes() {
    let Some(nsz) = Nsz::find() else { return };
    let keys = TestKeys::new(390);
    let keys_file = nsz.write("prod.keys", keys.prod_keys_file(KeysFile::Full).as_bytes());
    let nsp = keyed::nsp(&keys, &titles(true));
    let input = nsz.write("game.nsp", &nsp);
    let cases = [
        ("block.nsz", Settings::default()),
        (
            "solid.nsz",
            Settings {
                solid: true,
                ..Settings::default()
            },
        ),
    ];
    for (name, settings) in cases {
        let compressed = ours(&nsz, &keys, &input, "nsp", name, &settings);
        assert!(compressed.len() < nsp.len(), "{name} did not shrink");
        let back = nsz_decompresses(&nsz, &keys_file, name, "nsp");
        assert!(back == nsp, "{name}: nsz's NSP differs from the original");
    }
}

#[test]
fn nsz_decompresses_our_xcz_to_the_original_cartridge_files() {
    let Some(nsz) = Nsz::find() else { return };
    let keys = TestKeys::new(391);
    let keys_file = nsz.write("prod.keys", keys.prod_keys_file(KeysFile::Full).as_bytes());
    let xci = keyed::xci(&keys, &titles(false));
    let input = nsz.write("game.xci", &xci);
    let compressed = ours(&nsz, &keys, &input, "xci", "game.xcz", &Settings::default());
    assert!(compressed.len() < xci.len());
    let back = nsz_decompresses(&nsz, &keys_file, "game.xcz", "xci");
    let (before, after) = (keyed::entries(&xci), keyed::entries(&back));
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a.name, b.name);
        assert!(
            back[a.offset..a.offset + a.size] == xci[b.offset..b.offset + b.size],
            "{} differs",
            b.name
        );
    }
    // The whole image is not compared: nsz rebuilds an XCI in its own layout
    // (`docs/nsz.md` §5), not the input's.
}

/// An update's CTR-Ex section, as nsz 5.0.0 splits it: nsz compresses the same file,
/// and both NCZs carry the same section table (offsets, sizes, keys, counters with
/// each subsection's generation); nsz decompresses ours to the original.
#[test]
fn an_update_is_split_at_its_subsections_as_nsz_splits_it() {
    let Some(nsz) = Nsz::find() else { return };
    let keys = TestKeys::new(392);
    let keys_file = nsz.write("prod.keys", keys.prod_keys_file(KeysFile::Full).as_bytes());
    let update = Title {
        bktr_parts: 3,
        program_size: 0x10_0000,
        titlekey: true,
        ..Title::patch(GAME, 0x10000)
    };
    let nsp = keyed::nsp(&keys, &[update]);
    let input = nsz.write("update.nsp", &nsp);
    let target = nsz.path("ours.nsz");
    let settings = Settings {
        level: 3,
        ..Settings::default()
    };
    let mut file = File::open(&input).unwrap();
    compress::compress_file(
        &mut file,
        "nsp",
        &target,
        &keys.prod_keys(),
        &settings,
        &mut |_| Ok(()),
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    let out = nsz.path("theirs");
    std::fs::create_dir(&out).unwrap();
    let lines = nsz.run(
        &keys_file,
        &[
            "-C",
            "-l",
            "3",
            "-o",
            out.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
    );
    assert!(succeeded(&lines), "nsz -C: {}", errors(&lines));
    let tables = [target, out.join("update.nsz")].map(|p| ncz_sections(&std::fs::read(p).unwrap()));
    assert_eq!(tables[0].len(), 4, "three subsections and the tables");
    // nsz records the synthetic NCA's first section from 0xC00, where it starts; ours
    // from 0x4000 (`ncz_sections` says why): real NCAs start there.
    let mut theirs = tables[1].clone();
    theirs[0].size -= 0x4000 - theirs[0].offset;
    theirs[0].offset = 0x4000;
    assert_eq!(tables[0], theirs, "ours, then nsz's");
    let back = nsz_decompresses(&nsz, &keys_file, "ours.nsz", "nsp");
    assert!(back == nsp, "nsz's NSP differs from the original");
}

/// The section table of the one NCZ in an NSZ.
fn ncz_sections(nsz: &[u8]) -> Vec<NczSection> {
    let entry = keyed::entries(nsz)
        .into_iter()
        .find(|e| e.name.ends_with(".ncz"))
        .expect("an NCZ");
    let mut r = std::io::Cursor::new(nsz);
    let end = (entry.offset + entry.size) as u64;
    let ncz = ludotheque::testkit::containers::read_ncz(
        &mut r,
        entry.offset as u64,
        end,
        &ludotheque::testkit::containers::Budget::file(),
    )
    .unwrap();
    ncz.sections
}

// The task, through the real binary: the API and the command line compress games of
// the library in their place, each verified before it replaces its original.

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::harness::{Folders, TestServer};

const BUNDLE: u64 = 0x0100_0000_0039_1000;
const CART: u64 = 0x0100_0000_0039_2000;
const LOCKED: u64 = 0x0100_0000_0039_3000;
const PACKED: u64 = 0x0100_0000_0039_4000;

fn write_keys(folders: &Folders, keys: &TestKeys) {
    std::fs::create_dir_all(&folders.data).unwrap();
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, keys.prod_keys_file(KeysFile::Full)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn put(folders: &Folders, name: &str, bytes: &[u8]) -> Vec<u8> {
    std::fs::write(folders.library.join(name), bytes).unwrap();
    Sha256::digest(bytes).to_vec()
}

fn digest(path: &Path) -> Vec<u8> {
    Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

fn files_named(dir: &Path, suffix: &str) -> Vec<std::path::PathBuf> {
    crate::harness::files_under(dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect()
}

/// A base game with a DLC whose key comes from its ticket.
fn bundle() -> Vec<Title> {
    vec![
        Title {
            program_size: 0x30_0000 + 0x777,
            ..Title::application(BUNDLE)
        },
        Title {
            titlekey: true,
            program_size: 0x4_0123,
            ..Title::addon(BUNDLE, 1)
        },
    ]
}

/// What the API says of a game, as (identified_by, contents).
fn identity(s: &TestServer, key: &str) -> (Value, Value) {
    let r = s.get(&format!("/api/v1/library/{key}"));
    assert_eq!(r.status, 200, "{key}: {r:?}");
    let g = r.json();
    (g["identified_by"].clone(), g["contents"].clone())
}

fn start(s: &TestServer, body: Option<&str>) -> crate::harness::Resp {
    s.send(
        "POST",
        "/api/v1/compress",
        &[("Content-Type", "application/json")],
        body.map(|b| b.as_bytes().to_vec()),
    )
}

fn run(s: &TestServer, body: Option<&str>) -> Value {
    s.wait_idle();
    let r = start(s, body);
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.json()["unit"], "bytes");
    s.wait_idle()["last"].clone()
}

/// The `reason` of each trash entry, by key.
fn trash(s: &TestServer) -> Vec<(String, String)> {
    let t = s.get("/api/v1/trash").json();
    t["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["key"].as_str().unwrap().to_string(),
                e["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_api_compresses_games_in_their_place_and_they_stay_identified() {
    let folders = Folders::new();
    let keys = TestKeys::new(392);
    write_keys(&folders, &keys);
    let nsp = put(&folders, "bundle.nsp", &keyed::nsp(&keys, &bundle()));
    let cart = Title {
        program_size: 0x20_0000,
        ..Title::application(CART)
    };
    let xci = put(&folders, "cart.xci", &keyed::xci(&keys, &[cart]));
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let before = (identity(&s, "bundle.nsp"), identity(&s, "cart.xci"));
    assert_eq!(before.0 .0, "keys");
    let conn = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    conn.execute(
        "INSERT INTO push_list (key, added_at) VALUES ('bundle.nsp', 1)",
        [],
    )
    .unwrap();

    let last = run(&s, None);
    assert_eq!(last["result"], "ok", "{last}");
    assert_eq!(last["errors"], 0, "{last}");
    let lib = &folders.library;
    assert!(!lib.join("bundle.nsp").exists() && !lib.join("cart.xci").exists());
    assert!(lib.join("bundle.nsz").exists() && lib.join("cart.xcz").exists());
    assert!(files_named(lib, ".part").is_empty());
    // Identified as before, from the same contents.
    assert_eq!(identity(&s, "bundle.nsz"), before.0);
    assert_eq!(identity(&s, "cart.xcz"), before.1);
    assert_eq!(s.get("/api/v1/library/bundle.nsp").status, 404);
    // The originals in the trash, whole, with the reason `compressed`.
    let mut entries = trash(&s);
    entries.sort();
    assert_eq!(
        entries,
        [
            ("bundle.nsp".to_string(), "compressed".to_string()),
            ("cart.xci".to_string(), "compressed".to_string())
        ]
    );
    let trashed: Vec<Vec<u8>> = files_named(&lib.join(".ludotheque-trash"), "")
        .iter()
        .filter(|p| p.is_file())
        .map(|p| digest(p))
        .collect();
    assert!(
        trashed.contains(&nsp) && trashed.contains(&xci),
        "originals kept"
    );
    // The push list follows the new key.
    let pushed: String = conn
        .query_row("SELECT key FROM push_list", [], |r| r.get(0))
        .unwrap();
    assert_eq!(pushed, "bundle.nsz");
    // Nothing left to compress: a second run skips nothing, compresses nothing.
    let last = run(&s, None);
    assert_eq!(last["result"], "ok", "{last}");
}

#[test]
fn the_body_names_the_games_and_is_checked_before_anything_starts() {
    let folders = Folders::new();
    let keys = TestKeys::new(393);
    write_keys(&folders, &keys);
    put(&folders, "a.nsp", &keyed::nsp(&keys, &bundle()[..1]));
    let b = put(&folders, "b.nsp", &keyed::nsp(&keys, &bundle()[1..]));
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    for (body, status) in [
        (r#"{"keys": ["nothing.nsp"]}"#, 404),
        (r#"{"keys": "a.nsp"}"#, 400),
        (r#"{"files": ["a.nsp"]}"#, 400),
        ("not json", 400),
        // Not an object: never read as "every file" (serde reads a struct from an
        // array too).
        ("[]", 400),
        (r#"[["a.nsp"]]"#, 400),
    ] {
        let r = start(&s, Some(body));
        assert_eq!(r.status, status, "{body}: {}", r.body);
    }
    assert_eq!(s.get("/api/v1/job").json()["running"], false);
    let last = run(&s, Some(r#"{"keys": ["a.nsp"]}"#));
    assert_eq!(last["result"], "ok", "{last}");
    assert!(folders.library.join("a.nsz").exists());
    assert_eq!(
        digest(&folders.library.join("b.nsp")),
        b,
        "not named: untouched"
    );
    assert!(!folders.library.join("b.nsz").exists());
}

#[test]
fn a_busy_slot_is_409() {
    // The first scan of a new library holds the slot.
    let s = TestServer::start(&["--task-delay-ms", "30000"]);
    assert_eq!(s.get("/api/v1/job").json()["running"], true);
    let r = start(&s, None);
    assert_eq!(
        (r.status, r.slug()),
        (409, "busy".to_string()),
        "{}",
        r.body
    );
}

/// Skipped with their reason, the run staying `ok`: a file already compressed, one
/// whose key revision the keys lack, one that would not gain enough.
#[test]
fn the_command_skips_with_reasons_and_stays_a_success() {
    let folders = Folders::new();
    let keys = TestKeys::new(394);
    // Revision 0x12 is past what the keys hold; the others use 0x0A.
    write_keys(&folders, &keys.truncated(0x12));
    let locked = Title {
        revision: 0x12,
        ..Title::application(LOCKED)
    };
    let locked_sum = put(&folders, "locked.nsp", &keyed::nsp(&keys, &[locked]));
    put(
        &folders,
        "packed.nsz",
        &keyed::nsz(&keys, &[Title::application(PACKED)]),
    );
    put(&folders, "bundle.nsp", &keyed::nsp(&keys, &bundle()));
    folders.scan();
    let (status, out, err) = folders.cli(&[
        "compress",
        "locked.nsp",
        "packed.nsz",
        "bundle.nsp",
        "--level",
        "3",
    ]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(folders.run_results().last().unwrap(), "ok");
    let done = folders.printed_done(&out);
    let one = matches!(
        done,
        Msg::CompressDone {
            compressed: 1,
            failed: 0,
            ..
        }
    );
    assert!(one, "{done:?}");
    let skipped = format!("packed.nsz : {}", Msg::AlreadyCompressed.french());
    assert!(out.contains(&skipped), "{out}");
    let no_key = Msg::CompressKeyMissing {
        revision: "0x12".into(),
    };
    assert!(
        out.contains(&format!("locked.nsp : {}", no_key.french())),
        "{out}"
    );
    assert_eq!(digest(&folders.library.join("locked.nsp")), locked_sum);
    assert!(folders.library.join("bundle.nsz").exists());

    // Under the minimum gain: left as it is.
    put(&folders, "small.nsp", &keyed::nsp(&keys, &bundle()[1..]));
    folders.scan();
    let (status, out, err) = folders.cli(&["compress", "small.nsp", "--min-gain", "100"]);
    assert!(status.success(), "{out}{err}");
    let why = folders.last_failure_of("small.nsp");
    assert!(
        matches!(why, Some(Msg::CompressGainTooSmall { min_gain: 100, .. })),
        "{why:?}"
    );
    let said = format!("small.nsp : {}", why.unwrap().french());
    assert!(out.contains(&said), "{out}");
    assert!(folders.library.join("small.nsp").exists());
    assert!(!folders.library.join("small.nsz").exists());
    assert!(files_named(&folders.library, ".part").is_empty());
}

/// A damaged original (a byte of its Program NCA flipped, which identification does
/// not see) compresses, but the result does not verify: the original stays, the task
/// ends `partial` and the command exits 1 naming it.
#[test]
fn a_file_that_does_not_verify_keeps_its_original() {
    let folders = Folders::new();
    let keys = TestKeys::new(395);
    write_keys(&folders, &keys);
    let mut bytes = keyed::nsp(&keys, &bundle()[..1]);
    let program = keyed::entries(&bytes)
        .into_iter()
        .max_by_key(|e| e.size)
        .unwrap();
    bytes[program.offset + program.size / 2] ^= 0x40;
    let sum = put(&folders, "damaged.nsp", &bytes);
    folders.scan();
    let (status, out, err) = folders.cli(&["compress", "--level", "3"]);
    assert_eq!(status.code(), Some(1), "{out}{err}");
    let why = folders.last_failure_of("damaged.nsp");
    assert!(
        matches!(why, Some(Msg::CompressUnverified { .. })),
        "{why:?}"
    );
    let said = format!("damaged.nsp : {}", why.unwrap().french());
    assert!(out.contains(&said), "{out}");
    assert_eq!(digest(&folders.library.join("damaged.nsp")), sum);
    assert!(!folders.library.join("damaged.nsz").exists());
    assert!(files_named(&folders.library, ".part").is_empty());
}

#[test]
fn a_cancel_keeps_the_original_and_leaves_no_part() {
    let folders = Folders::new();
    let keys = TestKeys::new(396);
    write_keys(&folders, &keys);
    let big = Title {
        program_size: 48 << 20,
        ..Title::application(BUNDLE)
    };
    let sum = put(&folders, "big.nsp", &keyed::nsp(&keys, &[big]));
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(start(&s, None).status, 202);
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let job = s.get("/api/v1/job").json();
        if job["done"].as_u64().unwrap_or(0) > 0 {
            assert_eq!(job["running"], true, "caught mid-way: {job}");
            break;
        }
        assert!(Instant::now() < until, "{job}");
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(s.post("/api/job/cancel").json()["cancelled"], true);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "cancelled", "{last}");
    assert_eq!(digest(&folders.library.join("big.nsp")), sum);
    assert!(!folders.library.join("big.nsz").exists());
    assert!(files_named(&folders.library, ".part").is_empty());
    assert!(trash(&s).is_empty());
}

#[test]
fn a_full_disk_keeps_the_original_and_leaves_no_part() {
    let folders = Folders::new();
    let keys = TestKeys::new(397);
    write_keys(&folders, &keys);
    // A quarter of the payload is random: the output passes the limit.
    let big = Title {
        program_size: 16 << 20,
        ..Title::application(BUNDLE)
    };
    let sum = put(&folders, "big.nsp", &keyed::nsp(&keys, &[big]));
    let s = TestServer::start_with_file_size_limit(folders.clone(), &[], 3 << 20);
    let last = run(&s, None);
    assert_eq!(last["result"], "partial", "{last}");
    assert_eq!(last["errors"], 1, "{last}");
    let message = last["failures"][0]["message"].as_str().unwrap();
    assert!(message.contains("size limit"), "{last}");
    assert_eq!(digest(&folders.library.join("big.nsp")), sum);
    assert!(!folders.library.join("big.nsz").exists());
    assert!(files_named(&folders.library, ".part").is_empty());
    assert_eq!(s.get("/api/v1/health").status, 200, "the service lives on");
}

#[test]
fn sigkill_mid_compression_then_restart_leaves_no_part_and_the_original() {
    let folders = Folders::new();
    let keys = TestKeys::new(398);
    write_keys(&folders, &keys);
    let big = Title {
        program_size: 48 << 20,
        ..Title::application(BUNDLE)
    };
    let sum = put(&folders, "huge.nsp", &keyed::nsp(&keys, &[big]));
    let mut s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(start(&s, None).status, 202);
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let job = s.get("/api/v1/job").json();
        if job["done"].as_u64().unwrap_or(0) > 0 {
            assert_eq!(job["running"], true, "caught mid-way: {job}");
            break;
        }
        assert!(Instant::now() < until, "{job}");
        std::thread::sleep(Duration::from_millis(2));
    }
    s.kill();
    assert_eq!(
        files_named(&folders.library, ".part").len(),
        1,
        "killed mid-way"
    );
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert!(files_named(&folders.library, ".part").is_empty());
    assert_eq!(digest(&folders.library.join("huge.nsp")), sum);
    assert!(!folders.library.join("huge.nsz").exists());
    let conn = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    let result: String = conn
        .query_row(
            "SELECT result FROM job_runs WHERE label = 'compress'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(result, "interrupted");
}

/// The web interface: a button on the tasks page and one on an `.nsp`'s page, whose
/// internal route compresses that file only.
#[test]
fn the_web_buttons_start_the_task() {
    let folders = Folders::new();
    let keys = TestKeys::new(399);
    write_keys(&folders, &keys);
    put(&folders, "one game.nsp", &keyed::nsp(&keys, &bundle()[..1]));
    put(&folders, "other.nsp", &keyed::nsp(&keys, &bundle()[1..]));
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let tasks = s.get("/tasks").body;
    assert!(
        tasks.contains("id=\"start-compress\"") && tasks.contains("data-api=\"/api/compress\""),
        "{tasks}"
    );
    // It asks first, with what it takes and the estimate; nothing to convert here, so
    // no convert button.
    assert!(
        tasks.contains("data-confirm=\"Compresser 2 fichiers de la bibliothèque ("),
        "{tasks}"
    );
    assert!(!tasks.contains("id=\"start-convert\""), "{tasks}");
    let page = s.get("/game/one%20game.nsp").body;
    assert!(
        page.contains("data-api=\"/api/compress/one%20game.nsp\""),
        "{page}"
    );
    assert_eq!(s.post("/api/compress/nothing.nsp").status, 404);
    assert_eq!(s.post("/api/compress/one%20game.nsp").status, 202);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "ok", "{last}");
    assert!(folders.library.join("one game.nsz").exists());
    assert!(
        folders.library.join("other.nsp").exists(),
        "only the one asked"
    );
}

/// `--delete-originals`: once verified and in place, the original is purged, not kept
/// in the trash.
#[test]
fn delete_originals_purges_them_once_verified() {
    let folders = Folders::new();
    let keys = TestKeys::new(400);
    write_keys(&folders, &keys);
    put(&folders, "bundle.nsp", &keyed::nsp(&keys, &bundle()));
    folders.scan();
    let (status, out, err) = folders.cli(&["compress", "--level", "3", "--delete-originals"]);
    assert!(status.success(), "{out}{err}");
    assert!(folders.library.join("bundle.nsz").exists());
    assert!(!folders.library.join("bundle.nsp").exists());
    let trashed: Vec<_> = files_named(&folders.library.join(".ludotheque-trash"), "")
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    assert!(trashed.is_empty(), "{trashed:?}");
    let (_, out, _) = folders.cli(&["trash", "list"]);
    assert!(!out.contains("bundle.nsp"), "{out}");
}

/// The shop offers the compressed file under its `.nsz` name, with its title ID, and
/// no longer the `.nsp`.
#[test]
fn the_shop_offers_the_nsz_in_place_of_the_nsp() {
    let folders = Folders::new();
    let keys = TestKeys::new(401);
    write_keys(&folders, &keys);
    put(&folders, "bundle.nsp", &keyed::nsp(&keys, &bundle()[..1]));
    let password = folders.add_console("salon");
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = crate::harness::basic("salon", &password);
    let index = |s: &TestServer| -> Vec<String> {
        let r = s.send(
            "GET",
            "/",
            &[("Authorization", &auth), ("User-Agent", "tinfoil")],
            None,
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["url"].as_str().unwrap().to_string())
            .collect()
    };
    s.wait_idle();
    let before = index(&s);
    assert!(before.iter().any(|u| u.ends_with(".nsp")), "{before:?}");
    let last = run(&s, None);
    assert_eq!(last["result"], "ok", "{last}");
    let after = index(&s);
    let id = format!("{BUNDLE:016X}");
    assert_eq!(after.len(), 1, "{after:?}");
    assert!(
        after[0].ends_with(".nsz") && after[0].contains(&id),
        "{after:?}"
    );
}

/// A console's download of the `.nsp` stays in the shop's history under the `.nsz`
/// the file became (`shop_downloads` follows the key, as on organize).
#[test]
fn the_shop_download_history_follows_the_key_to_the_nsz() {
    let folders = Folders::new();
    let keys = TestKeys::new(402);
    write_keys(&folders, &keys);
    put(&folders, "bundle.nsp", &keyed::nsp(&keys, &bundle()[..1]));
    let password = folders.add_console("salon");
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = crate::harness::basic("salon", &password);
    s.wait_idle();
    let index = s.send("GET", "/shop", &[("Authorization", &auth)], None);
    assert_eq!(index.status, 200, "{}", index.body);
    let url = index.json()["files"][0]["url"]
        .as_str()
        .unwrap()
        .to_string();
    let url = url.split('#').next().unwrap().to_string();
    let r = s.send("GET", &url, &[("Authorization", &auth)], None);
    assert_eq!(r.status, 200, "{url}: {}", r.status);
    let db = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    let history = || -> Vec<(String, String)> {
        let mut stmt = db
            .prepare("SELECT console, key FROM shop_downloads ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    // The history is written once the download has been sent.
    crate::harness::wait_until("the download's history row", Duration::from_secs(5), || {
        !history().is_empty()
    });
    let downloaded = vec![("salon".to_string(), "bundle.nsp".to_string())];
    assert_eq!(history(), downloaded);
    let last = run(&s, None);
    assert_eq!(last["result"], "ok", "{last}");
    assert!(folders.library.join("bundle.nsz").exists());
    let moved = vec![("salon".to_string(), "bundle.nsz".to_string())];
    assert_eq!(history(), moved);
}
