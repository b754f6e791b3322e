//! `compress_file` alone, without the binary: round trips under made-up keys, refusals
//! and a cancel, each leaving nothing behind.

use std::fs::File;

use crate::kit::keyed::{self, TestKeys, Title};
use ludotheque::testkit::compress::{compress_file, Outcome, Settings, DEFAULT_BLOCK_EXPONENT};
use ludotheque::testkit::containers::{self, Budget, ContainerFile};
use ludotheque::testkit::convert::{self, PartFail};
use ludotheque::testkit::switchfs::{Problem, ProdKeys};
use ludotheque::testkit::LibraryKey;

const GAME: u64 = 0x0100_0000_00C0_0000;

/// A base game (key-area crypto, several MiB so that there are many blocks) and a
/// DLC with titlekey crypto and its ticket.
fn titles() -> Vec<Title> {
    vec![
        Title {
            program_size: 0x28_0000 + 0x1234,
            ..Title::application(GAME)
        },
        Title {
            titlekey: true,
            program_size: 0x9_0000,
            ..Title::addon(GAME, 1)
        },
    ]
}

/// Compress `input` (named `in.<format>`) with `settings`, then convert the result
/// back with the service's own convert; (compressed bytes, outcome, converted bytes).
fn round_trip(
    input: &[u8],
    format: &str,
    keys: &ProdKeys,
    settings: &Settings,
) -> (Vec<u8>, Outcome, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(format!("in.{format}"));
    std::fs::write(&src, input).unwrap();
    let out_name = if format == "nsp" {
        "out.nsz"
    } else {
        "out.xcz"
    };
    let target = dir.path().join(out_name);
    let mut file = File::open(&src).unwrap();
    let outcome = compress_file(&mut file, format, &target, keys, settings, &mut |_| Ok(()))
        .unwrap_or_else(|e| panic!("{e:?}"));
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 2, "no part file left behind");
    let compressed = std::fs::read(&target).unwrap();
    assert_eq!(outcome.size, compressed.len() as u64);
    let part = dir.path().join("back.part");
    let opts = convert::Options {
        retention_days: 30,
        accept_unverified: false,
        keys: None,
        work: None,
        stop: None,
    };
    let key = LibraryKey::parse(out_name).unwrap();
    let mut input = File::open(dir.path().join(out_name)).unwrap();
    convert::write_part(&key, &mut input, &part, &opts, &mut |_| Ok(()))
        .unwrap_or_else(|e| panic!("{e:?}"));
    (compressed, outcome, std::fs::read(part).unwrap())
}

fn entries(bytes: &[u8], format: &str) -> Vec<ContainerFile> {
    let mut r = std::io::Cursor::new(bytes);
    let len = bytes.len() as u64;
    match format {
        "nsp" => {
            containers::read_pfs0(&mut r, 0, len, &Budget::file())
                .unwrap()
                .entries
        }
        _ => containers::read_xci(&mut r, len, &Budget::file())
            .unwrap()
            .partition("secure")
            .unwrap()
            .entries
            .clone(),
    }
}

/// The Program and PublicData NCAs became NCZs (block or solid as asked), the rest
/// kept their names, and the whole is smaller than the input.
fn check_compressed(input: &[u8], compressed: &[u8], format: &str, outcome: &Outcome, solid: bool) {
    let (before, after) = (entries(input, format), entries(compressed, format));
    assert_eq!(before.len(), after.len());
    assert_eq!(outcome.compressed.len(), 2, "{outcome:?}");
    for (b, a) in before.iter().zip(&after) {
        if outcome.compressed.contains(&b.name) {
            assert_eq!(a.name, b.name.replace(".nca", ".ncz"));
            let mut r = std::io::Cursor::new(compressed);
            let ncz = containers::read_ncz(&mut r, a.offset, a.end(), &Budget::file()).unwrap();
            assert_eq!(matches!(ncz.body, containers::NczBody::Solid { .. }), solid);
            assert!(a.size < b.size, "{} did not shrink", b.name);
        } else {
            assert_eq!(a.name, b.name);
            assert_eq!(
                compressed[a.offset as usize..a.end() as usize],
                input[b.offset as usize..b.end() as usize]
            );
        }
    }
    assert!(compressed.len() < input.len());
}

#[test]
fn an_nsp_in_blocks_converts_back_byte_for_byte() {
    let keys = TestKeys::new(39);
    let nsp = keyed::nsp(&keys, &titles());
    for exponent in [14, DEFAULT_BLOCK_EXPONENT] {
        let settings = Settings {
            block_exponent: exponent,
            level: 3,
            ..Settings::default()
        };
        let (nsz, outcome, back) = round_trip(&nsp, "nsp", &keys.prod_keys(), &settings);
        check_compressed(&nsp, &nsz, "nsp", &outcome, false);
        assert!(back == nsp, "block 2^{exponent}: the NSP differs");
    }
}

#[test]
fn an_nsp_in_one_stream_converts_back_byte_for_byte() {
    let keys = TestKeys::new(40);
    let nsp = keyed::nsp(&keys, &titles());
    let settings = Settings {
        solid: true,
        ..Settings::default()
    };
    let (nsz, outcome, back) = round_trip(&nsp, "nsp", &keys.prod_keys(), &settings);
    check_compressed(&nsp, &nsz, "nsp", &outcome, true);
    assert!(back == nsp, "the NSP differs");
}

/// An NCA whose name ends in `.nca` twice becomes `NAME.nca.ncz`, as nsz names it
/// (its last `.nca` made `.ncz`), and comes back under its own name: the names keep
/// their lengths, which the container's header is sized by.
#[test]
fn a_name_ending_in_nca_twice_loses_only_its_last() {
    let keys = TestKeys::new(46);
    let mut files = keyed::nsp_files(&keys, &titles());
    let program = files.iter_mut().max_by_key(|f| f.1.len()).unwrap();
    program.0.push_str(".nca");
    let doubled = program.0.clone();
    let nsp = ludotheque::testkit::synth::pfs0(&files);
    let settings = Settings {
        level: 3,
        ..Settings::default()
    };
    let (nsz, outcome, back) = round_trip(&nsp, "nsp", &keys.prod_keys(), &settings);
    assert!(outcome.compressed.contains(&doubled), "{outcome:?}");
    let names: Vec<String> = entries(&nsz, "nsp").into_iter().map(|e| e.name).collect();
    assert!(
        names.contains(&format!("{}.ncz", &doubled[..doubled.len() - 4])),
        "{names:?}"
    );
    assert!(back == nsp, "the NSP differs");
}

#[test]
fn an_xci_converts_back_to_its_secure_files() {
    let keys = TestKeys::new(41);
    // Cartridges carry no tickets: key-area crypto only.
    let mut titles = titles();
    titles[1].titlekey = false;
    let xci = keyed::xci(&keys, &titles);
    let settings = Settings {
        level: 3,
        ..Settings::default()
    };
    let (xcz, outcome, back) = round_trip(&xci, "xci", &keys.prod_keys(), &settings);
    check_compressed(&xci, &xcz, "xci", &outcome, false);
    let (before, after) = (entries(&xci, "xci"), entries(&back, "xci"));
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a.name, b.name);
        assert!(
            back[a.offset as usize..a.end() as usize] == xci[b.offset as usize..b.end() as usize],
            "{} differs",
            b.name
        );
    }
    assert_eq!(&back[..0x200], &xci[..0x200], "the signed header is copied");
}

/// Compress with keys that cannot open the file: the reason, and nothing left.
fn refused(nsp: &[u8], keys: &ProdKeys) -> PartFail {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in.nsp");
    std::fs::write(&src, nsp).unwrap();
    let target = dir.path().join("out.nsz");
    let mut file = File::open(&src).unwrap();
    let err = compress_file(
        &mut file,
        "nsp",
        &target,
        keys,
        &Settings::default(),
        &mut |_| Ok(()),
    )
    .unwrap_err();
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "only the input"
    );
    err
}

#[test]
fn missing_or_wrong_keys_are_a_reason_and_leave_nothing() {
    let keys = TestKeys::new(42);
    let game = Title {
        revision: 5,
        ..Title::application(GAME)
    };
    let nsp = keyed::nsp(&keys, &[game]);
    let err = refused(&nsp, &keys.truncated(3).prod_keys());
    assert!(
        matches!(err, PartFail::Keys(Problem::MissingKey { revision: 5, .. })),
        "{err:?}"
    );
    let err = refused(&nsp, &TestKeys::new(43).prod_keys());
    assert!(
        matches!(err, PartFail::Keys(Problem::WrongKeys { .. })),
        "{err:?}"
    );
}

#[test]
fn a_cancel_stops_the_work_and_leaves_nothing() {
    let keys = TestKeys::new(44);
    let nsp = keyed::nsp(&keys, &titles());
    for solid in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("in.nsp");
        std::fs::write(&src, &nsp).unwrap();
        let mut file = File::open(&src).unwrap();
        let mut seen = 0u64;
        let settings = Settings {
            solid,
            block_exponent: 14,
            level: 1,
        };
        let err = compress_file(
            &mut file,
            "nsp",
            &dir.path().join("out.nsz"),
            &keys.prod_keys(),
            &settings,
            &mut |n| {
                seen += n;
                if seen > 0x4_0000 {
                    Err(std::io::Error::from(std::io::ErrorKind::Interrupted))
                } else {
                    Ok(())
                }
            },
        )
        .unwrap_err();
        assert!(
            matches!(err, PartFail::Write(ref e) if e.kind() == std::io::ErrorKind::Interrupted),
            "{err:?}"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

#[test]
fn an_update_is_decrypted_subsection_by_subsection() {
    let keys = TestKeys::new(45);
    let update = Title {
        bktr_parts: 3,
        program_size: 0x10_0000,
        ..Title::patch(GAME, 0x10000)
    };
    let nsp = keyed::nsp(&keys, &[update]);
    let settings = Settings {
        level: 3,
        ..Settings::default()
    };
    let (nsz, outcome, back) = round_trip(&nsp, "nsp", &keys.prod_keys(), &settings);
    assert!(back == nsp, "the update differs");
    let (before, after) = (entries(&nsp, "nsp"), entries(&nsz, "nsp"));
    let ncz = after.iter().find(|e| e.name.ends_with(".ncz")).unwrap();
    let nca = before
        .iter()
        .find(|e| outcome.compressed.contains(&e.name))
        .unwrap();
    let mut r = std::io::Cursor::new(&nsz);
    let table = containers::read_ncz(&mut r, ncz.offset, ncz.end(), &Budget::file()).unwrap();
    let generations: Vec<[u8; 4]> = table
        .sections
        .iter()
        .map(|s| s.counter[4..8].try_into().unwrap())
        .collect();
    let base = table.sections[3].counter;
    assert_eq!(generations[..3], [[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 3]]);
    assert!(table.sections.iter().all(|s| s.crypto_type == 3), "as nsz");
    assert!(table.sections[..3]
        .iter()
        .all(|s| s.counter[..4] == base[..4]));
    // Three quarters of the payload is text: it compresses only once each
    // subsection is decrypted with its own counter.
    assert!(ncz.size * 2 < nca.size, "{} of {}", ncz.size, nca.size);
}
