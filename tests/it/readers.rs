//! The readers of containers (`containers`) and of what lies inside a Switch file
//! (`switchfs`), fed hostile bytes, without the binary.
//!
//! The containers' readers refuse the product bombs of `kit::bombs` and sizes that wrap.
//! Property tests: keyed containers mutated in their encrypted bytes and, re-encrypted
//! after the mutation, in their clear NCA headers; CNMTs, NACPs and RomFS mutated
//! directly. Every reader returns `Ok` or a reason, never panics, and allocates
//! only what it checked.
use std::io::Cursor;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use xts_mode::Xts128;

use crate::kit::bombs;
use crate::kit::keyed::{self, TestKeys, Title};
use aes::cipher::KeyInit;
use ludotheque::testkit::containers::{game_files, read_ncz, read_pfs0, read_xci, Budget};
use ludotheque::testkit::switchfs::{cnmt, nacp, nca, read, romfs, Problem, ProdKeys, Want};
use ludotheque::testkit::{synth, Reason};

const BASE: u64 = 0x0100_0000_00AB_0000;

fn titles() -> Vec<Vec<Title>> {
    let app = Title {
        program_size: 0x4000,
        ..Title::application(BASE)
    };
    vec![
        vec![app.clone()],
        vec![app.clone(), Title::patch(BASE, 65536)],
        vec![
            app,
            Title {
                titlekey: true,
                ..Title::addon(BASE, 1)
            },
        ],
    ]
}

fn read_all(bytes: &[u8], format: &str, keys: &ProdKeys) {
    let want = Want {
        control: true,
        icon: true,
    };
    let _ = read(
        &mut Cursor::new(bytes),
        format,
        bytes.len() as u64,
        keys,
        want,
        &Budget::file(),
    );
}

/// Flip a few bytes anywhere, or an extreme word where counts and sizes live.
fn mutate(rng: &mut StdRng, b: &mut [u8]) {
    for _ in 0..rng.random_range(1..6) {
        let i = rng.random_range(0..b.len());
        if rng.random_bool(0.5) {
            b[i] = rng.random();
        } else {
            let v: u64 = [0, 1, u32::MAX as u64, u64::MAX, 1 << 40][rng.random_range(0..5)];
            let n = (b.len() - i).min(8);
            b[i..i + n].copy_from_slice(&v.to_le_bytes()[..n]);
        }
    }
}

/// Every entry of a keyed container cut to 0 to 8 bytes, tickets included (a
/// ticket shorter than its signature type once panicked the title-key lookup and
/// failed every scan): errors and problems, never a panic.
#[test]
fn every_entry_cut_to_a_few_bytes_never_panics() {
    let keys = TestKeys::new(6);
    let prod = keys.prod_keys();
    let title = Title {
        titlekey: true,
        ..Title::application(BASE)
    };
    let files = keyed::nsp_files(&keys, &[title]);
    for i in 0..files.len() {
        for keep in 0..=8 {
            let mut cut = files.clone();
            cut[i].1.truncate(keep);
            let nsp = synth::pfs0(&cut);
            read_all(&nsp, "nsp", &prod);
            if cut[i].0.ends_with(".tik") && keep < 4 {
                let inside = read(
                    &mut Cursor::new(&nsp),
                    "nsp",
                    nsp.len() as u64,
                    &prod,
                    Want {
                        control: true,
                        icon: false,
                    },
                    &Budget::file(),
                )
                .unwrap();
                assert!(
                    inside.problems.iter().any(|p| matches!(p, Problem::Malformed { why, .. } if why.is(&Reason::TicketMalformed))),
                    "{inside:?}"
                );
            }
        }
    }
}

#[test]
fn mutated_keyed_containers_never_panic() {
    let keys = TestKeys::new(5);
    let prod = keys.prod_keys();
    let mut rng = StdRng::seed_from_u64(38);
    let seeds: Vec<(Vec<u8>, &str)> = titles()
        .iter()
        .flat_map(|t| [(keyed::nsp(&keys, t), "nsp"), (keyed::xci(&keys, t), "xci")])
        .collect();
    for (seed, format) in &seeds {
        let inside = read(
            &mut Cursor::new(seed),
            format,
            seed.len() as u64,
            &prod,
            Want::default(),
            &Budget::file(),
        )
        .unwrap();
        assert!(
            !inside.contents.is_empty() && inside.problems.is_empty(),
            "{inside:?}"
        );
    }
    for _ in 0..1500 {
        let (seed, format) = &seeds[rng.random_range(0..seeds.len())];
        let mut bytes = seed.clone();
        mutate(&mut rng, &mut bytes);
        if rng.random_bool(0.3) {
            bytes.truncate(rng.random_range(0..bytes.len()));
        }
        read_all(&bytes, format, &prod);
    }
}

/// `game_files`, the one reader of a container's game files (the probe, switchfs and
/// verify go through it), fed mutated and cut NSPs and XCIs: never a panic, and
/// what it lists is always the PFS0's files or the XCI's `secure` partition's.
#[test]
fn the_game_files_of_a_mutated_container_are_its_readers_own() {
    let keys = TestKeys::new(7);
    let mut rng = StdRng::seed_from_u64(41);
    let seeds: Vec<(Vec<u8>, &str)> = titles()
        .iter()
        .flat_map(|t| [(keyed::nsp(&keys, t), "nsp"), (keyed::xci(&keys, t), "xci")])
        .collect();
    let mut listed = 0;
    for i in 0..1500 {
        let (seed, format) = &seeds[i % seeds.len()];
        let mut bytes = seed.clone();
        if i >= seeds.len() {
            mutate(&mut rng, &mut bytes);
        }
        if rng.random_bool(0.2) {
            bytes.truncate(rng.random_range(0..bytes.len()));
        }
        let (len, budget) = (bytes.len() as u64, Budget::file());
        let got = game_files(&mut Cursor::new(&bytes), len, format, &budget);
        let want = match *format {
            "nsp" => read_pfs0(&mut Cursor::new(&bytes), 0, len, &Budget::file())
                .map(|fs| Some(fs.entries)),
            _ => read_xci(&mut Cursor::new(&bytes), len, &Budget::file())
                .map(|x| x.partition("secure").map(|p| p.entries.clone())),
        };
        let names =
            |r: &Result<Option<Vec<_>>, _>| match r {
                Ok(files) => Ok(files.as_ref().map(
                    |f: &Vec<ludotheque::testkit::containers::ContainerFile>| {
                        f.iter()
                            .map(|e| (e.name.clone(), e.offset, e.size))
                            .collect::<Vec<_>>()
                    },
                )),
                Err(e) => Err(format!("{e}")),
            };
        assert_eq!(names(&got), names(&want), "{format} {i}");
        listed += usize::from(matches!(got, Ok(Some(ref f)) if !f.is_empty()));
    }
    assert!(
        listed >= seeds.len(),
        "the unmutated seeds list their files: {listed}"
    );
}

/// The clear header of every NCA in a container, mutated, then encrypted again:
/// what reaches the section, key and RomFS readers is hostile, not noise.
#[test]
fn mutated_clear_headers_never_panic() {
    let keys = TestKeys::new(6);
    let prod = keys.prod_keys();
    let key = prod.header_key.unwrap();
    let xts = Xts128::new(
        aes::Aes128::new(key[..16].into()),
        aes::Aes128::new(key[16..].into()),
    );
    let mut rng = StdRng::seed_from_u64(39);
    let seeds: Vec<Vec<u8>> = titles().iter().map(|t| keyed::nsp(&keys, t)).collect();
    for _ in 0..1500 {
        let mut bytes = seeds[rng.random_range(0..seeds.len())].clone();
        let ncas: Vec<_> = keyed::entries(&bytes)
            .into_iter()
            .filter(|e| e.name.ends_with(".nca"))
            .collect();
        let e = &ncas[rng.random_range(0..ncas.len())];
        let header = &mut bytes[e.offset..e.offset + nca::HEADER_SIZE];
        xts.decrypt_area(header, 0x200, 0, |s: u128| s.to_be_bytes());
        // Mostly the header proper and the first FS header: where the fields are.
        let mut region = header[0x200..0x600].to_vec();
        mutate(&mut rng, &mut region);
        header[0x200..0x600].copy_from_slice(&region);
        xts.encrypt_area(header, 0x200, 0, |s: u128| s.to_be_bytes());
        read_all(&bytes, "nsp", &prod);
    }
}

#[test]
fn mutated_cnmt_nacp_and_romfs_never_panic() {
    let mut rng = StdRng::seed_from_u64(40);
    let record = keyed::content::content_record(&[1; 0x4000], 1);
    let cnmt = keyed::content::cnmt(BASE | 0x800, 65536, 0x81, BASE, &[record]);
    let nacp_bytes = keyed::content::nacp(&[(0, "Name".into())], "Publisher", "1.0.0");
    let icon = keyed::content::jpeg(1);
    let romfs = keyed::nca::romfs(&[
        ("control.nacp".into(), nacp_bytes.clone()),
        ("icon_AmericanEnglish.dat".into(), icon),
    ]);
    assert!(cnmt::parse(&cnmt).is_ok());
    assert_eq!(
        romfs::root_files(
            &mut Cursor::new(&romfs),
            0,
            romfs.len() as u64,
            |_| true,
            &Budget::file()
        )
        .unwrap()
        .len(),
        2
    );
    for _ in 0..3000 {
        let mut c = cnmt.clone();
        mutate(&mut rng, &mut c);
        c.truncate(rng.random_range(0..=c.len()));
        let _ = cnmt::parse(&c);
        let mut n = nacp_bytes.clone();
        mutate(&mut rng, &mut n);
        let _ = nacp::parse(&n);
        let mut r = romfs.clone();
        // The header and the tables are in the first KiB.
        let head = r.len().min(0x400);
        mutate(&mut rng, &mut r[..head]);
        let _ = romfs::root_files(
            &mut Cursor::new(&r),
            0,
            r.len() as u64,
            |_| true,
            &Budget::file(),
        );
    }
}

/// A PFS0 of 400 entries naming one Meta NCA: refused whole before any NCA is
/// read (entries that share bytes are damage: `containers::no_shared_bytes`).
#[test]
fn entries_naming_one_nca_are_refused_unread() {
    let keys = TestKeys::new(8);
    let nsp = keyed::nsp(&keys, &[Title::application(BASE)]);
    let meta = keyed::entries(&nsp)
        .into_iter()
        .find(|e| e.name.ends_with(".cnmt.nca"))
        .unwrap();
    let bytes = &nsp[meta.offset..meta.offset + meta.size];
    let names: Vec<String> = (0..400).map(|i| format!("{i:032x}.cnmt.nca")).collect();
    let table: Vec<u8> = names
        .iter()
        .flat_map(|n| [n.as_bytes(), b"\0"].concat())
        .collect();
    let mut pfs0 = b"PFS0".to_vec();
    pfs0.extend_from_slice(&(names.len() as u32).to_le_bytes());
    pfs0.extend_from_slice(&(table.len() as u32).to_le_bytes());
    pfs0.extend_from_slice(&[0; 4]);
    let mut at = 0u32;
    for n in &names {
        pfs0.extend_from_slice(&0u64.to_le_bytes());
        pfs0.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        pfs0.extend_from_slice(&at.to_le_bytes());
        pfs0.extend_from_slice(&[0; 4]);
        at += n.len() as u32 + 1;
    }
    pfs0.extend_from_slice(&table);
    pfs0.extend_from_slice(bytes);
    let inside = read(
        &mut Cursor::new(&pfs0),
        "nsp",
        pfs0.len() as u64,
        &keys.prod_keys(),
        Want::default(),
        &Budget::file(),
    )
    .unwrap_err();
    assert_eq!(
        inside.to_string(),
        "two files inside the PFS0 share the same bytes"
    );
}

/// A RomFS file table whose every entry names the rest of the table: only the
/// wanted names are copied out, so it costs what a real one does.
#[test]
fn a_table_of_long_names_copies_nothing_unwanted() {
    let mut romfs = vec![0u8; 0x50];
    let table = 1 << 20;
    romfs[0x18..0x20].copy_from_slice(&0x50u64.to_le_bytes()); // directories
    romfs[0x20..0x28].copy_from_slice(&0x20u64.to_le_bytes());
    romfs[0x38..0x40].copy_from_slice(&0x70u64.to_le_bytes()); // files
    romfs[0x40..0x48].copy_from_slice(&(table as u64).to_le_bytes());
    let mut dir = vec![0xFFu8; 0x20];
    dir[0xC..0x10].copy_from_slice(&0u32.to_le_bytes()); // first file at 0
    romfs.extend_from_slice(&dir);
    let mut files = vec![0u8; table];
    for at in (0..table - 0x20).step_by(0x20) {
        let e = &mut files[at..at + 0x20];
        e[0x4..0x8].copy_from_slice(&((at + 0x20) as u32).to_le_bytes());
        e[0x1C..0x20].copy_from_slice(&((table - at - 0x20) as u32).to_le_bytes());
    }
    romfs.extend_from_slice(&files);
    let len = romfs.len() as u64;
    let wanted = |n: &[u8]| n == b"control.nacp";
    let found = romfs::root_files(&mut Cursor::new(&romfs), 0, len, wanted, &Budget::file());
    assert!(
        matches!(found, Ok(ref f) if f.is_empty()) || found.is_err(),
        "{found:?}"
    );
}

/// A RomFS whose file list loops, and a file declaring 2 GB, end with a reason.
#[test]
fn a_looping_list_and_a_huge_file_are_reasons() {
    let nacp_bytes = keyed::content::nacp(&[(0, "N".into())], "P", "1");
    let romfs = keyed::nca::romfs(&[("control.nacp".into(), nacp_bytes)]);
    let file_table = u64::from_le_bytes(romfs[0x38..0x40].try_into().unwrap()) as usize;
    let mut looping = romfs.clone();
    // The only file's sibling: itself.
    looping[file_table + 4..file_table + 8].copy_from_slice(&0u32.to_le_bytes());
    let e = romfs::root_files(
        &mut Cursor::new(&looping),
        0,
        looping.len() as u64,
        |_| true,
        &Budget::file(),
    );
    assert!(e.unwrap_err().to_string().contains("loops"));
    let mut huge = romfs.clone();
    huge[file_table + 0x10..file_table + 0x18].copy_from_slice(&(2u64 << 30).to_le_bytes());
    let e = romfs::root_files(
        &mut Cursor::new(&huge),
        0,
        huge.len() as u64,
        |_| true,
        &Budget::file(),
    );
    assert!(e.unwrap_err().to_string().contains("outside"));
}

/// Product shapes: many entries pointing at one region, nested counts. Each is
/// refused with its reason, having read each table once at most.
#[test]
fn product_shapes_are_refused_with_their_reason() {
    let read = |xci: &[u8]| read_xci(&mut Cursor::new(xci), xci.len() as u64, &Budget::file());
    let shared = |kind: &str| format!("two files inside the {kind} share the same bytes");
    for (partitions, files) in [(200, 200), (2, 200), (4, 16_000)] {
        let e = read(&bombs::xci_product(partitions, files)).unwrap_err();
        assert_eq!(e.to_string(), shared("HFS0"), "{partitions} × {files}");
    }
    let five: Vec<_> = ["update", "normal", "secure", "logo", "fifth"]
        .into_iter()
        .map(|name| (name, vec![("a.nca".to_string(), vec![1; 16])]))
        .collect();
    let e = read(&synth::xci(&five)).unwrap_err();
    assert_eq!(e, Reason::TooManyPartitions.into());
    let nsz = bombs::nsz_product(400, 64, 1024);
    let budget = &Budget::file();
    let e = read_pfs0(&mut Cursor::new(&nsz), 0, nsz.len() as u64, budget).unwrap_err();
    assert_eq!(e.to_string(), shared("PFS0"));
    // One NCZ of the product, alone: it reads, and costs its own tables once.
    let one = bombs::nsz_product(1, 64, 1024);
    let fs = read_pfs0(&mut Cursor::new(&one), 0, one.len() as u64, budget).unwrap();
    let e = &fs.entries[0];
    read_ncz(&mut Cursor::new(&one), e.offset, e.end(), budget).unwrap();
}

/// A file's budget counts across its tables: what one table may hold, a file may
/// not hold many times over.
#[test]
fn the_budget_is_one_per_file() {
    let one = bombs::nsz_product(1, 16_383, 262_143);
    let fs = read_pfs0(&mut Cursor::new(&one), 0, one.len() as u64, &Budget::file()).unwrap();
    let e = &fs.entries[0];
    let budget = Budget::file();
    let mut reads = 0;
    let refused = loop {
        match read_ncz(&mut Cursor::new(&one), e.offset, e.end(), &budget) {
            Ok(_) => reads += 1,
            Err(e) => break e,
        }
    };
    assert!((1..=32).contains(&reads), "{reads}: {refused}");
    assert!(
        refused.to_string().starts_with("the file's headers"),
        "{refused}"
    );
}

/// Declared sizes that would wrap a sum, or that no compressed data could hold.
#[test]
fn sizes_no_real_file_has_are_refused() {
    let nsz = bombs::nsz_wrapping();
    let fs = read_pfs0(&mut Cursor::new(&nsz), 0, nsz.len() as u64, &Budget::file()).unwrap();
    for e in &fs.entries {
        let refused = read_ncz(&mut Cursor::new(&nsz), e.offset, e.end(), &Budget::file());
        assert_eq!(refused.unwrap_err(), Reason::NczImplausible.into());
    }
}
