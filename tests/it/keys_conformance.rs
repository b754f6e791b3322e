//! The synthetic keyed files (`kit::keyed`) read by another implementation: nsz
//! 5.0.0, which opens NCA headers with `header_key`, derives the key-area keys and
//! title keks from the master keys and sources itself, reads the CNMTs and checks every
//! NCA's SHA-256 against them (`-V`), and decrypts sections to compress them (`-C`).
//! If the builders and nsz disagree on a byte of the formats, these tests fail; the
//! service's own readers are then tested against files a second reader accepts.
//!
//! nsz is run as `$NSZ_PYTHON -c 'import nsz; nsz.main()'` (`python3` by default).
//! Without it the tests print a note and pass, unless `LUDOTHEQUE_REQUIRE_NSZ=1`
//! (`.ci/run` sets it after `pip install nsz==5.0.0`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
use serde_json::Value;

const BASE: u64 = 0x0100_0000_0042_0000;

/// A Python that has nsz, and a scratch folder to run it in.
pub(crate) struct Nsz {
    python: String,
    dir: tempfile::TempDir,
}

impl Nsz {
    pub(crate) fn find() -> Option<Nsz> {
        let python = std::env::var("NSZ_PYTHON").unwrap_or_else(|_| "python3".into());
        let found = Command::new(&python)
            .args(["-c", "import nsz"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            assert!(
                std::env::var_os("LUDOTHEQUE_REQUIRE_NSZ").is_none(),
                "LUDOTHEQUE_REQUIRE_NSZ is set but {python} cannot import nsz"
            );
            eprintln!("note: nsz not found ({python} -c 'import nsz'): keys conformance skipped");
            return None;
        }
        Some(Nsz {
            python,
            dir: tempfile::tempdir().unwrap(),
        })
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// nsz with these arguments and keys file, its JSON lines (`--machine-readable`);
    /// HOME is the scratch folder, so no other keys file is found.
    pub(crate) fn run(&self, keys: &Path, args: &[&str]) -> Vec<Value> {
        let out = Command::new(&self.python)
            .args([
                "-c",
                "import nsz; nsz.main()",
                "--machine-readable",
                "--keys",
            ])
            .arg(keys)
            .args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

fn with_action<'a>(lines: &'a [Value], action: &str) -> Vec<&'a str> {
    lines
        .iter()
        .filter(|l| l["action"] == action)
        .filter_map(|l| l["message"].as_str())
        .collect()
}

pub(crate) fn succeeded(lines: &[Value]) -> bool {
    lines
        .iter()
        .any(|l| l["type"] == "summary" && l["success"] == true)
}

pub(crate) fn errors(lines: &[Value]) -> String {
    let errors: Vec<String> = lines
        .iter()
        .filter(|l| l["type"] == "error" || l["type"] == "summary")
        .map(|l| l.to_string())
        .collect();
    errors.join("\n")
}

/// The NCAs a CNMT lists (all but the Meta NCAs).
fn listed(container: &[u8]) -> usize {
    keyed::entries(container)
        .iter()
        .filter(|e| {
            (e.name.ends_with(".nca") || e.name.ends_with(".ncz")) && !e.name.contains(".cnmt.")
        })
        .count()
}

/// Each NCZ's section table (count and 0x40-byte records), by NCZ name.
fn ncz_tables(container: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = keyed::entries(container)
        .into_iter()
        .filter(|e| e.name.ends_with(".ncz"))
        .map(|e| {
            let ncz = &container[e.offset..e.offset + e.size];
            assert_eq!(&ncz[0x4000..0x4008], b"NCZSECTN");
            let count = u64::from_le_bytes(ncz[0x4008..0x4010].try_into().unwrap()) as usize;
            (e.name, ncz[0x4008..0x4010 + 0x40 * count].to_vec())
        })
        .collect();
    out.sort();
    out
}

fn titles() -> (Title, Title, Title, Title) {
    let eshop = Title {
        titlekey: true,
        ..Title::application(BASE)
    };
    let dlc = Title {
        titlekey: true,
        ..Title::addon(BASE, 1)
    };
    let cart = Title::application(BASE);
    let update = Title {
        display_version: "1.1.0".into(),
        ..Title::patch(BASE, 0x10000)
    };
    (eshop, dlc, cart, update)
}

#[test]
fn nsz_verifies_every_nca_of_the_synthetic_files() {
    let Some(nsz) = Nsz::find() else { return };
    let keys = TestKeys::new(38);
    // nsz derives every key from the master keys and the sources.
    let keys_file = nsz.write(
        "prod.keys",
        keys.prod_keys_file(KeysFile::MasterAndSources).as_bytes(),
    );
    let (eshop, dlc, cart, update) = titles();
    let files = [
        (
            "base+dlc.nsp",
            keyed::nsp(&keys, &[eshop.clone(), dlc.clone()]),
        ),
        ("base+dlc.nsz", keyed::nsz(&keys, &[eshop, dlc])),
        (
            "base+update.xci",
            keyed::xci(&keys, &[cart.clone(), update.clone()]),
        ),
        ("base+update.xcz", keyed::xcz(&keys, &[cart, update])),
    ];
    for (name, bytes) in &files {
        let path = nsz.write(name, bytes);
        let lines = nsz.run(&keys_file, &["-V", path.to_str().unwrap()]);
        assert!(succeeded(&lines), "{name}: {}", errors(&lines));
        assert_eq!(
            with_action(&lines, "VERIFIED").len(),
            listed(bytes),
            "{name}: {lines:?}"
        );
        assert!(with_action(&lines, "CORRUPTED").is_empty(), "{name}");
    }
}

#[test]
fn nsz_derives_the_same_section_keys_from_the_keys_file() {
    let Some(nsz) = Nsz::find() else { return };
    let keys = TestKeys::new(39);
    let keys_file = nsz.write(
        "prod.keys",
        keys.prod_keys_file(KeysFile::MasterAndSources).as_bytes(),
    );
    let (eshop, dlc, cart, update) = titles();
    // One ticket per NSP: nsz 5.0.0 takes the title key of one ticket only.
    let cases = [
        (
            "base.nsp",
            keyed::nsp(&keys, std::slice::from_ref(&eshop)),
            keyed::nsz(&keys, &[eshop]),
        ),
        (
            "dlc.nsp",
            keyed::nsp(&keys, std::slice::from_ref(&dlc)),
            keyed::nsz(&keys, &[dlc]),
        ),
        (
            "base+update.xci",
            keyed::xci(&keys, &[cart.clone(), update.clone()]),
            keyed::xcz(&keys, &[cart, update]),
        ),
    ];
    let out = nsz.path("out");
    std::fs::create_dir(&out).unwrap();
    for (name, plain, ours) in &cases {
        let path = nsz.write(name, plain);
        let args = [
            "-C",
            "-l",
            "1",
            "-o",
            out.to_str().unwrap(),
            path.to_str().unwrap(),
        ];
        let lines = nsz.run(&keys_file, &args);
        assert!(succeeded(&lines), "{name}: {}", errors(&lines));
        let stem = name.rsplit_once('.').unwrap().0;
        let ext = if name.ends_with(".nsp") { "nsz" } else { "xcz" };
        let theirs = std::fs::read(out.join(format!("{stem}.{ext}"))).unwrap();
        // The section records hold the key nsz found: from the key area unwrapped with
        // the key-area key it derived, or from the ticket with the title kek it derived.
        let expected = ncz_tables(ours);
        assert!(!expected.is_empty());
        assert_eq!(ncz_tables(&theirs), expected, "{name}");
    }
}

#[test]
fn nsz_finds_the_flipped_byte() {
    let Some(nsz) = Nsz::find() else { return };
    let keys = TestKeys::new(40);
    let keys_file = nsz.write("prod.keys", keys.prod_keys_file(KeysFile::Full).as_bytes());
    let (eshop, ..) = titles();
    let mut nsp = keyed::nsp(&keys, std::slice::from_ref(&eshop));
    let program = &keyed::title_files(&keys, &eshop, keyed::Distribution::Download).ncas[0].name;
    keyed::flip_byte(&mut nsp, program).unwrap();
    let path = nsz.write("damaged.nsp", &nsp);
    let lines = nsz.run(&keys_file, &["-V", path.to_str().unwrap()]);
    assert!(!succeeded(&lines));
    let corrupted = with_action(&lines, "CORRUPTED");
    assert!(
        corrupted.iter().any(|m| m.starts_with(program.as_str())),
        "{lines:?}"
    );
}

#[test]
fn nsz_refuses_keys_without_its_checksums() {
    // Why TestKeys forges the CRC32 of its made-up keys: nsz checks them before it
    // derives anything, and a mismatch is fatal there (error 701).
    let Some(nsz) = Nsz::find() else { return };
    let keys = TestKeys::without_checksums(41);
    let keys_file = nsz.write("prod.keys", keys.prod_keys_file(KeysFile::Full).as_bytes());
    let path = nsz.write("base.nsp", &keyed::nsp(&keys, &[Title::application(BASE)]));
    let lines = nsz.run(&keys_file, &["-V", path.to_str().unwrap()]);
    assert!(!succeeded(&lines));
    assert!(lines.iter().any(|l| l["code"] == 701), "{lines:?}");
}
