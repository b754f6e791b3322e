//! Convert: .nsz → .nsp and .xcz → .xci through the service, and bad input that never
//! loses data.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ludotheque::testkit::synth::{self, SectionSpec};
use rand::rngs::StdRng;
use rand::SeedableRng;
use sha2::{Digest, Sha256};

use ludotheque::testkit::Msg;

use crate::harness::said_en;
use crate::harness::{Folders, TestServer};
use crate::library::demo;

fn digest(path: &Path) -> Vec<u8> {
    Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

fn convert(s: &TestServer) -> serde_json::Value {
    s.wait_idle();
    let r = s.post("/api/v1/convert");
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.json()["unit"], "bytes");
    s.wait_idle()["last"].clone()
}

fn files_named(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    crate::harness::files_under(dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect()
}

/// A good .nsz of about `size` bytes of NCA.
fn good_nsz(seed: u64, size: usize) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(seed);
    let nca = synth::simple_nca(&mut rng, size);
    synth::pfs0(&[
        (nca.ncz_name(), synth::ncz_block(&nca, 16)),
        synth::ticket(&mut rng, 0x0100000000010000),
    ])
}

#[test]
fn converting_the_demo_library_replaces_every_compressed_file() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let compressed =
        files_named(&folders.library, ".nsz").len() + files_named(&folders.library, ".xcz").len();
    assert_eq!(compressed, 5);
    let last = convert(&s);
    assert_eq!(
        (last["label"].as_str(), last["result"].as_str()),
        (Some("convert"), Some("ok")),
        "{last}"
    );
    let done = Msg::ConvertDone {
        converted: 5,
        failed: 0,
    };
    assert_eq!(last["message"], done.english());
    assert_eq!(last["done"], last["total"], "{last}");
    assert!(last["total"].as_u64().unwrap() > 100_000);
    let visible: Vec<_> = files_named(&folders.library, ".nsz")
        .into_iter()
        .chain(files_named(&folders.library, ".xcz"))
        .filter(|p| !p.to_string_lossy().contains(".ludotheque-trash"))
        .collect();
    assert!(visible.is_empty(), "{visible:?}");
    assert!(files_named(&folders.library, ".part").is_empty());
    assert_eq!(s.get("/api/v1/stats").json()["to_convert"], 0);
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
    let g = s
        .get("/api/v1/library/Indies%2FSummit%20%5B01002B30028F6000%5D%5Bv0%5D.xci")
        .json();
    assert_eq!(
        (
            g["format"].as_str(),
            g["type"].as_str(),
            g["playable"].as_bool()
        ),
        (Some("xci"), Some("BASE"), Some(true))
    );
    let trash = s.get("/api/v1/trash").json();
    assert_eq!(trash["total"], 5);
    assert!(trash["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["reason"] == "converted"));
}

/// A solid .nsz and where its NCZ starts, for tests that damage its inside.
fn solid_nsz() -> (Vec<u8>, usize) {
    let mut rng = StdRng::seed_from_u64(2);
    let nca = synth::nca(
        &mut rng,
        0x20000,
        &[
            SectionSpec {
                offset: 0x4000,
                size: 0x10000,
                crypto_type: 3,
            },
            SectionSpec {
                offset: 0x14000,
                size: 0xC000,
                crypto_type: 1,
            },
        ],
    );
    let solid = synth::pfs0(&[(nca.ncz_name(), synth::ncz_solid(&nca))]);
    let ncz_at = ludotheque::testkit::containers::read_pfs0(
        &mut std::io::Cursor::new(&solid),
        0,
        solid.len() as u64,
        &ludotheque::testkit::containers::Budget::file(),
    )
    .unwrap()
    .entries[0]
        .offset as usize;
    (solid, ncz_at)
}

/// A .nsz whose header reads (a scan takes it) but whose zstd stream is corrupt: the
/// convert fails on it.
pub(crate) fn nsz_with_a_corrupt_stream() -> Vec<u8> {
    let (mut b, ncz_at) = solid_nsz();
    let sections = ncz_at + 0x4010;
    for x in &mut b[sections + 0x80 + 8..sections + 0x80 + 64] {
        *x ^= 0xA5;
    }
    b
}

#[test]
fn bad_inputs_keep_their_originals_and_give_reasons() {
    let folders = Folders::new();
    let lib = &folders.library;
    let good = good_nsz(1, 0x40000);
    let (solid, ncz_at) = solid_nsz();
    let sections = ncz_at + 0x4010;
    let mut cases: Vec<(&str, Vec<u8>)> = vec![("truncated", good[..good.len() / 2].to_vec())];
    let mut b = good.clone();
    b[..4].copy_from_slice(b"JUNK");
    cases.push(("magic", b));
    let mut b = solid.clone();
    for x in &mut b[sections + 0x80 + 8..sections + 0x80 + 64] {
        *x ^= 0xA5;
    }
    cases.push(("zstd", b));
    let mut b = solid.clone();
    b[sections + 0x40..sections + 0x48].copy_from_slice(&0x5000u64.to_le_bytes());
    cases.push(("overlap", b));
    let mut b = solid.clone();
    b[ncz_at + 0x4008..ncz_at + 0x4010].copy_from_slice(&(1u64 << 40).to_le_bytes());
    cases.push(("count", b));
    let mut b = solid.clone();
    b[sections + 0x48..sections + 0x50].copy_from_slice(&0xD000u64.to_le_bytes());
    cases.push(("short", b));
    let mut originals = Vec::new();
    for (name, bytes) in &cases {
        let path = lib.join(format!("bad {name} [0100000000010000].nsz"));
        std::fs::write(&path, bytes).unwrap();
        originals.push((
            path,
            digest(&lib.join(format!("bad {name} [0100000000010000].nsz"))),
        ));
    }
    std::fs::write(lib.join("fine [0100000000020000].nsz"), &good).unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    // The scan at start already finds two whose container does not read: flagged
    // damaged, named, and not tried by the convert.
    let scanned = s.wait_idle()["last"].clone();
    assert_eq!(scanned["result"], "partial", "{scanned}");
    let last = convert(&s);
    // Finished, but not a success: `partial`, each failed file named with its reason.
    assert_eq!(last["result"], "partial", "{last}");
    assert_eq!(last["errors"], 4, "{last}");
    let done = Msg::ConvertDone {
        converted: 1,
        failed: 4,
    };
    assert_eq!(last["message"], done.english(), "{last}");
    let mut failures = last["failures"].as_array().unwrap().clone();
    assert_eq!(failures.len(), 4, "{last}");
    failures.extend(scanned["failures"].as_array().unwrap().iter().cloned());
    assert!(!last.to_string().contains("/tmp"), "{last}");
    for (path, before) in &originals {
        assert_eq!(&digest(path), before, "{path:?} untouched");
    }
    assert!(lib.join("fine [0100000000020000].nsp").exists());
    assert!(files_named(lib, ".part").is_empty());
    french_pages_give_the_reasons_and_flag_the_files(&s, cases.len());
    // The damaged originals stay in the library, flagged, and no longer count as
    // files to convert: a second convert does not try them again.
    assert_eq!(s.get("/api/v1/stats").json()["to_convert"], 0);
    let again = convert(&s);
    assert_eq!(again["result"], "ok", "{again}");
    let none = Msg::ConvertDone {
        converted: 0,
        failed: 0,
    };
    assert_eq!(again["message"], none.english(), "{again}");
    let reason_of = |name: &str| -> String {
        let f = failures
            .iter()
            .find(|f| f["key"] == format!("bad {name} [0100000000010000].nsz"))
            .unwrap_or_else(|| panic!("{name} not in {last}"));
        f["message"].as_str().unwrap().to_string()
    };
    for (name, reason) in [
        ("truncated", "past the end"),
        ("magic", "PFS0"),
        ("overlap", "overlap"),
        ("count", "section count"),
        ("short", "too short"),
    ] {
        let said = reason_of(name);
        assert!(said.contains(reason), "{name}: {reason} not in {said}");
        assert!(s.output().contains(reason), "{reason} not in the log");
    }
    let zstd = reason_of("zstd");
    assert!(
        zstd.contains("zstd") || zstd.contains("content ID"),
        "{zstd}"
    );
}

/// A French reader of the tasks page gets every reason in French, and the lists
/// of files and of titles flag the `damaged` files.
fn french_pages_give_the_reasons_and_flag_the_files(s: &TestServer, damaged: usize) {
    let fr = [("Accept-Language", "fr-FR,fr;q=0.9")];
    let tasks = s.send("GET", "/tasks", &fr, None).body;
    assert!(tasks.contains("id=\"failures\""), "{tasks}");
    for french in ["ne tient pas", "se chevauchent", "trop court", "corrompu"] {
        assert!(
            tasks.contains(french),
            "{french:?} not on the page: {tasks}"
        );
    }
    for english in [
        "past the end",
        "or leave a gap",
        "too short for",
        "does not fit",
        "is corrupt",
        "failed (",
    ] {
        assert!(
            !tasks.contains(english),
            "{english:?} on the French page: {tasks}"
        );
    }
    let files = s.send("GET", "/files", &fr, None).body;
    assert_eq!(files.matches("badge damaged").count(), damaged, "{files}");
    let titles = s.send("GET", "/library", &fr, None).body;
    let flag = format!("{damaged} fichiers endommagés");
    assert!(titles.contains(&flag), "{flag:?} not in {titles}");
    // Pushing the whole title asks first; a damaged file in the push list is flagged.
    let title = s.send("GET", "/title/0100000000010000", &fr, None).body;
    let button = &title[title
        .find("id=\"add-title-push\"")
        .expect("the push button")..];
    let button = &button[..button.find('>').unwrap()];
    assert!(
        button.contains("data-confirm=\"Un fichier de ce titre est endommagé"),
        "{button}"
    );
    let r = s.post("/api/push/bad%20zstd%20%5B0100000000010000%5D.nsz");
    assert_eq!(r.status, 200, "{r:?}");
    let device = s.send("GET", "/push", &fr, None).body;
    assert_eq!(device.matches("badge damaged").count(), 1, "{device}");
    assert_eq!(s.send("DELETE", "/api/push", &[], None).status, 200);
}

/// The free space of the disk holding `dir`, as the service reads it.
fn free_space(dir: &std::path::Path) -> u64 {
    let path = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
    // SAFETY: statvfs fills the struct given; the path is a valid C string.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        assert_eq!(libc::statvfs(path.as_ptr(), &mut st), 0);
        st.f_bavail as u64 * st.f_frsize as u64
    }
}

#[test]
fn a_convert_that_cannot_fit_is_refused_before_and_fails_at_once() {
    let folders = Folders::new();
    let lib = &folders.library;
    // A header that reads and promises more than the disk's free space once
    // decompressed, and no more than its compressed bytes could hold (zstd's 32768:1
    // at most: a larger promise is damage, `bombs.rs`): padded to match.
    let free = free_space(lib);
    let (mut huge, ncz_at) = solid_nsz();
    let sections = ncz_at + 0x4010;
    huge[sections + 0x48..sections + 0x50].copy_from_slice(&(free + (16 << 30)).to_le_bytes());
    let padding = ((free + (17 << 30)) / 32768) as usize;
    huge.resize(huge.len() + padding, 0);
    let ncz_len = (huge.len() - ncz_at) as u64;
    huge[0x18..0x20].copy_from_slice(&ncz_len.to_le_bytes());
    std::fs::write(lib.join("huge [0100000000010000].nsz"), &huge).unwrap();
    let fine = lib.join("fine [0100000000020000].nsz");
    std::fs::write(&fine, good_nsz(1, 0x40000)).unwrap();
    // A damaged .nsp, which compress would pass over: nothing to compress.
    std::fs::write(lib.join("broken [0100000000030000].nsp"), b"not a PFS0").unwrap();
    let before = digest(&fine);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    // The tasks page says so before anyone starts it, and its button is off.
    let fr = [("Accept-Language", "fr-FR,fr;q=0.9")];
    let tasks = s.send("GET", "/tasks", &fr, None).body;
    assert!(tasks.contains("data-fits=\"false\""), "{tasks}");
    let button = tasks.split("id=\"start-convert\"").nth(1).unwrap();
    let button = &button[..button.find('>').unwrap()];
    assert!(
        button.contains("data-blocked") && button.contains("disabled"),
        "{button}"
    );
    // A heavy task is no primary action, and asks first; scan is the primary one. A
    // library of compressed files and a damaged .nsp has nothing to compress: no such
    // button.
    assert!(
        tasks.contains(r#"<button class="secondary" type="button" id="start-convert""#),
        "{tasks}"
    );
    assert!(
        button.contains("data-confirm=\"Décompresser 2 fichiers de la bibliothèque"),
        "{button}"
    );
    assert!(
        tasks.contains(r#"<button type="button" id="start-scan""#),
        "{tasks}"
    );
    assert!(!tasks.contains("id=\"start-compress\""), "{tasks}");
    // Through the API it still starts, and ends `failed` at once, converting nothing.
    let last = convert(&s);
    assert_eq!(last["result"], "failed", "{last}");
    let no_room = s.folders.last_run_msg();
    assert!(
        matches!(no_room, Some(Msg::NoRoomToConvert { .. })),
        "{no_room:?}"
    );
    assert_eq!(last["message"], no_room.unwrap().english(), "{last}");
    assert_eq!(digest(&fine), before);
    assert!(!lib.join("fine [0100000000020000].nsp").exists());
    assert!(files_named(lib, ".part").is_empty());
}

#[test]
fn an_existing_target_is_a_conflict_for_that_file() {
    let folders = Folders::new();
    std::fs::write(
        folders.library.join("game [0100000000010000].nsz"),
        good_nsz(3, 0x20000),
    )
    .unwrap();
    std::fs::write(
        folders.library.join("game [0100000000010000].nsp"),
        b"an older copy",
    )
    .unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    let last = convert(&s);
    assert_eq!(last["result"], "partial", "{last}");
    assert_eq!(last["errors"], 1, "{last}");
    assert!(
        last["failures"][0]["message"]
            .as_str()
            .unwrap()
            .contains(&said_en(Msg::ConvertTargetExists {
                key: "game [0100000000010000].nsz".into(),
                target: "game [0100000000010000].nsp".into(),
            })),
        "{last}"
    );
    assert_eq!(
        std::fs::read(folders.library.join("game [0100000000010000].nsp")).unwrap(),
        b"an older copy"
    );
    assert!(folders.library.join("game [0100000000010000].nsz").exists());
}

#[test]
fn a_full_disk_keeps_the_original_and_leaves_no_part() {
    let folders = Folders::new();
    let nsz = folders.library.join("big [0100000000010000].nsz");
    std::fs::write(&nsz, good_nsz(4, 8 << 20)).unwrap();
    let before = digest(&nsz);
    let s = TestServer::start_with_file_size_limit(folders.clone(), &[], 3 << 20);
    let last = convert(&s);
    assert_eq!(last["result"], "partial", "{last}");
    assert_eq!(last["errors"], 1, "{last}");
    assert!(
        last["failures"][0]["message"]
            .as_str()
            .unwrap()
            .contains("size limit"),
        "{last}"
    );
    assert_eq!(digest(&nsz), before);
    assert!(files_named(&folders.library, ".part").is_empty());
    assert!(!folders.library.join("big [0100000000010000].nsp").exists());
    assert_eq!(s.get("/api/v1/health").status, 200, "the service lives on");
}

#[test]
fn sigkill_mid_conversion_then_restart_leaves_no_part_and_the_original() {
    let folders = Folders::new();
    let nsz = folders.library.join("huge [0100000000010000].nsz");
    std::fs::write(&nsz, good_nsz(5, 96 << 20)).unwrap();
    let before = digest(&nsz);
    let mut s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    assert_eq!(s.post("/api/v1/convert").status, 202);
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let job = s.get("/api/v1/job").json();
        if job["done"].as_u64().unwrap_or(0) > 0 {
            assert_eq!(job["running"], true, "caught mid-way: {job}");
            break;
        }
        assert!(Instant::now() < until);
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
    assert_eq!(digest(&nsz), before);
    assert!(!folders.library.join("huge [0100000000010000].nsp").exists());
    let conn = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    let result: String = conn
        .query_row(
            "SELECT result FROM job_runs WHERE label = 'convert'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(result, "interrupted");
    assert_eq!(s.get("/api/v1/stats").json()["to_convert"], 1);
}

#[test]
fn the_convert_command_runs_in_the_foreground() {
    let folders = Folders::new();
    std::fs::write(
        folders.library.join("a [0100000000010000].nsz"),
        good_nsz(6, 0x30000),
    )
    .unwrap();
    folders.scan();
    let (status, out, err) = folders.cli(&["convert"]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(folders.run_results().last().unwrap(), "ok");
    let done = Msg::ConvertDone {
        converted: 1,
        failed: 0,
    };
    assert!(out.contains(&done.french()), "{out}");
    assert!(folders.library.join("a [0100000000010000].nsp").exists());
}

#[test]
fn a_compressed_file_swapped_for_a_link_out_of_the_library_is_not_converted() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let summit = folders
        .library
        .join("Indies/Summit [01002B30028F6000][v0].xcz");
    let outside = folders.tmp.path().join("outside.xcz");
    std::fs::rename(&summit, &outside).unwrap();
    std::os::unix::fs::symlink(&outside, &summit).unwrap();
    let before = digest(&outside);
    let last = convert(&s);
    let done = Msg::ConvertDone {
        converted: 4,
        failed: 1,
    };
    assert_eq!(last["message"], done.english(), "{last}");
    assert_eq!(
        last["failures"][0]["key"], "Indies/Summit [01002B30028F6000][v0].xcz",
        "{last}"
    );
    assert!(!folders
        .library
        .join("Indies/Summit [01002B30028F6000][v0].xci")
        .exists());
    assert_eq!(digest(&outside), before);
    assert!(std::fs::symlink_metadata(&summit)
        .unwrap()
        .file_type()
        .is_symlink());
}
