//! The generators of `tests/kit/keyed`, checked on their own. Round trips: the files
//! are opened here with the `aes`/`xts-mode` crates directly, by a reader of a few
//! lines that shares nothing with the builders but the formats.

use aes::cipher::{BlockDecrypt, KeyInit};
use aes::Aes128;
use sha2::{Digest, Sha256};
use xts_mode::Xts128;

use crate::kit::keyed::keys::{ecb_decrypt, DEFAULT_REVISIONS};
use crate::kit::keyed::{self, *};
use ludotheque::testkit::switchfs::ProdKeys;
use ludotheque::testkit::synth;

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn aes_dec(key: &[u8; 16], block: &[u8]) -> [u8; 16] {
    let mut b = <[u8; 16]>::try_from(block).unwrap().into();
    Aes128::new(key.into()).decrypt_block(&mut b);
    b.into()
}

/// The header in clear, NCA3 or NCA2.
fn open_header(keys: &ProdKeys, nca: &[u8]) -> Vec<u8> {
    let hk = keys.header_key.unwrap();
    let xts = Xts128::new(Aes128::new(hk[..16].into()), Aes128::new(hk[16..].into()));
    let tweak = |n: u128| {
        let mut t = [0u8; 16];
        for (i, b) in t.iter_mut().enumerate() {
            *b = (n >> (8 * (15 - i))) as u8;
        }
        t
    };
    let mut h = nca[..0xC00].to_vec();
    xts.decrypt_area(&mut h[..0x400], 0x200, 0, tweak);
    match &h[0x200..0x204] {
        b"NCA3" => xts.decrypt_area(&mut h[0x400..], 0x200, 2, tweak),
        b"NCA2" => {
            for fs in h[0x400..].chunks_mut(0x200) {
                if fs.iter().any(|&b| b != 0) {
                    xts.decrypt_area(fs, 0x200, 0, tweak);
                }
            }
        }
        other => panic!("bad magic {other:?}"),
    }
    h
}

fn revision(h: &[u8]) -> u8 {
    h[0x206].max(h[0x220]).saturating_sub(1)
}

/// Section `i` in clear, with the key from the key area or from `title_key`.
fn open_section(
    keys: &ProdKeys,
    nca: &[u8],
    i: usize,
    title_key: Option<[u8; 16]>,
) -> (Vec<u8>, Vec<u8>) {
    let h = open_header(keys, nca);
    let fs = h[0x400 + 0x200 * i..0x600 + 0x200 * i].to_vec();
    assert_eq!(
        &h[0x280 + 0x20 * i..0x2A0 + 0x20 * i],
        &Sha256::digest(&fs)[..]
    );
    let start = le32(&h, 0x240 + 0x10 * i) as usize * 0x200;
    let end = le32(&h, 0x244 + 0x10 * i) as usize * 0x200;
    let key = match title_key {
        Some(k) => {
            assert_ne!(&h[0x230..0x240], &[0u8; 16]);
            k
        }
        None => {
            assert_eq!(&h[0x230..0x240], &[0u8; 16]);
            let kak = keys.key_area_key(h[0x207], revision(&h)).unwrap();
            aes_dec(&kak, &h[0x320..0x330])
        }
    };
    let mut counter = [0u8; 16];
    for j in 0..8 {
        counter[j] = fs[0x147 - j];
    }
    let mut data = nca[start..end].to_vec();
    synth::ctr_apply(&key, &counter, start as u64, &mut data);
    (fs, data)
}

fn pfs0_files(pfs0: &[u8]) -> Vec<(String, Vec<u8>)> {
    assert_eq!(&pfs0[..4], b"PFS0");
    let n = le32(pfs0, 4) as usize;
    let strings = le32(pfs0, 8) as usize;
    let names = 0x10 + 0x18 * n;
    (0..n)
        .map(|i| {
            let e = 0x10 + 0x18 * i;
            let at = names + le32(pfs0, e + 0x10) as usize;
            let len = pfs0[at..].iter().position(|&b| b == 0).unwrap();
            let data = names + strings + le64(pfs0, e) as usize;
            let size = le64(pfs0, e + 8) as usize;
            (
                String::from_utf8(pfs0[at..at + len].to_vec()).unwrap(),
                pfs0[data..data + size].to_vec(),
            )
        })
        .collect()
}

/// The PFS0 of a HierarchicalSha256 section, its hashes checked.
fn section_pfs0(fs: &[u8], data: &[u8]) -> Vec<(String, Vec<u8>)> {
    assert_eq!((fs[2], fs[3], fs[4]), (1, 2, 3));
    let block = le32(fs, 0x28) as usize;
    let (table_at, table_len) = (le64(fs, 0x30) as usize, le64(fs, 0x38) as usize);
    let (at, len) = (le64(fs, 0x40) as usize, le64(fs, 0x48) as usize);
    let table = &data[table_at..table_at + table_len];
    assert_eq!(&fs[0x8..0x28], &Sha256::digest(table)[..]);
    for (i, chunk) in data[at..at + len].chunks(block).enumerate() {
        assert_eq!(&table[32 * i..32 * i + 32], &Sha256::digest(chunk)[..]);
    }
    pfs0_files(&data[at..at + len])
}

/// The root files of an IVFC RomFS section, its hash tree checked.
fn section_romfs(fs: &[u8], data: &[u8]) -> Vec<(String, Vec<u8>)> {
    assert_eq!((fs[2], fs[3], &fs[8..12]), (0, 3, &b"IVFC"[..]));
    let level = |i: usize| {
        let at = 0x18 + 0x18 * i;
        let (o, n) = (le64(fs, at) as usize, le64(fs, at + 8) as usize);
        (&data[o..o + n], 1usize << le32(fs, at + 16))
    };
    let padded_hash = |chunk: &[u8], block: usize| {
        let mut v = chunk.to_vec();
        v.resize(block, 0);
        Sha256::digest(&v).to_vec()
    };
    let (top, block) = level(0);
    assert_eq!(&fs[0xC8..0xE8], &padded_hash(top, block)[..]);
    for i in 1..6 {
        let (hashes, _) = level(i - 1);
        let (l, block) = level(i);
        for (j, chunk) in l.chunks(block).enumerate() {
            assert_eq!(
                &hashes[32 * j..32 * j + 32],
                &padded_hash(chunk, block)[..],
                "level {i}"
            );
        }
    }
    let (romfs, _) = level(5);
    assert_eq!(le64(romfs, 0), 0x50);
    let (dirs, files, data_at) = (
        le64(romfs, 0x18) as usize,
        le64(romfs, 0x38) as usize,
        le64(romfs, 0x48) as usize,
    );
    let mut out = Vec::new();
    let mut f = le32(romfs, dirs + 0xC);
    while f != 0xFFFF_FFFF {
        let e = files + f as usize;
        let name_len = le32(romfs, e + 0x1C) as usize;
        let name = String::from_utf8(romfs[e + 0x20..e + 0x20 + name_len].to_vec()).unwrap();
        let (o, n) = (
            data_at + le64(romfs, e + 8) as usize,
            le64(romfs, e + 0x10) as usize,
        );
        out.push((name, romfs[o..o + n].to_vec()));
        f = le32(romfs, e + 4);
    }
    out
}

fn text(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8(field[..end].to_vec()).unwrap()
}

#[test]
fn an_application_opens_with_the_derived_keys() {
    let keys = TestKeys::new(11);
    let pk = keys.prod_keys();
    let title = Title {
        names: vec![(3, "Quête synthétique".into())],
        ..Title::application(0x0100_1234_5678_0000)
    };
    let files = title_files(&keys, &title, Distribution::Download);
    assert_eq!(files.ncas.len(), 3);
    let [program, control, meta] = &files.ncas[..] else {
        unreachable!()
    };
    assert!(meta.name.ends_with(".cnmt.nca"));

    let h = open_header(&pk, &meta.nca.bytes);
    assert_eq!((h[0x204], h[0x205], revision(&h)), (0, 1, DEFAULT_REVISION));
    assert_eq!(le64(&h, 0x208), meta.nca.bytes.len() as u64);
    assert_eq!(le64(&h, 0x210), title.id);
    let (fs, data) = open_section(&pk, &meta.nca.bytes, 0, None);
    let cnmt_files = section_pfs0(&fs, &data);
    assert_eq!(cnmt_files[0].0, "Application_0100123456780000.cnmt");
    let cnmt = &cnmt_files[0].1;
    assert_eq!(
        (le64(cnmt, 0), le32(cnmt, 8), cnmt[0xC]),
        (title.id, 0, 0x80)
    );
    assert_eq!(le64(cnmt, 0x20), title.id | 0x800);
    let records = u16::from_le_bytes([cnmt[0x10], cnmt[0x11]]) as usize;
    assert_eq!(records, 2);
    let ext = u16::from_le_bytes([cnmt[0xE], cnmt[0xF]]) as usize;
    for (i, nf) in [program, control].iter().enumerate() {
        let r = &cnmt[0x20 + ext + 0x38 * i..0x20 + ext + 0x38 * (i + 1)];
        assert_eq!(&r[..0x20], &Sha256::digest(&nf.nca.bytes)[..]);
        assert_eq!(nf.name, format!("{}.nca", hex::encode(&r[0x20..0x30])));
        assert_eq!(
            le64(&[&r[0x30..0x36], &[0, 0][..]].concat(), 0),
            nf.nca.bytes.len() as u64
        );
        assert_eq!(r[0x36], [1, 3][i]);
    }

    let (fs, data) = open_section(&pk, &program.nca.bytes, 0, None);
    let exefs = section_pfs0(&fs, &data);
    assert_eq!(exefs[0].0, "main");
    assert_eq!(open_header(&pk, &program.nca.bytes)[0x205], 0);
}

#[test]
fn the_control_nca_holds_the_nacp_and_the_icons() {
    let keys = TestKeys::new(11);
    let pk = keys.prod_keys();
    let title = Title {
        names: vec![(3, "Quête synthétique".into())],
        ..Title::application(0x0100_1234_5678_0000)
    };
    let files = title_files(&keys, &title, Distribution::Download);
    let control = &files.ncas[1];
    let (fs, data) = open_section(&pk, &control.nca.bytes, 0, None);
    let romfs = section_romfs(&fs, &data);
    let names: Vec<&str> = romfs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "control.nacp",
            "icon_AmericanEnglish.dat",
            "icon_French.dat"
        ]
    );
    let nacp = &romfs[0].1;
    assert_eq!(nacp.len(), 0x4000);
    assert_eq!(text(&nacp[..0x200]), title.name);
    assert_eq!(text(&nacp[0x200..0x300]), title.publisher);
    assert_eq!(text(&nacp[0x900..0xB00]), "Quête synthétique");
    assert_eq!(text(&nacp[0x3060..0x3070]), "1.0.0");
    let icon = &romfs[1].1;
    assert!(icon.starts_with(&[0xFF, 0xD8, 0xFF]) && icon.ends_with(&[0xFF, 0xD9]));
    assert!(icon.len() < 1024, "{}", icon.len());
}

#[test]
fn titlekey_crypto_and_tickets() {
    let keys = TestKeys::new(12);
    let pk = keys.prod_keys();
    let title = Title {
        titlekey: true,
        revision: 0x12,
        ..Title::patch(0x0100_1234_5678_0000, 0x20000)
    };
    let files = title_files(&keys, &title, Distribution::Download);
    let tik = &files.tickets[0];
    let rights = hex::encode(title.rights_id());
    assert_eq!(tik.0, format!("{rights}.tik"));
    assert!(rights.starts_with("0100123456780800") && rights.ends_with("13"));
    let t = &tik.1;
    assert_eq!(
        (t.len(), le32(t, 0), t[0x281], t[0x285]),
        (0x2C0, 0x10004, 0, 0x13)
    );
    assert_eq!(&t[0x2A0..0x2B0], &title.rights_id());
    let title_key = aes_dec(&pk.titlekek(0x12).unwrap(), &t[0x180..0x190]);
    assert_eq!(Some(title_key), files.title_key);

    let program = &files.ncas[0];
    let h = open_header(&pk, &program.nca.bytes);
    assert_eq!(&h[0x230..0x240], &title.rights_id());
    assert_eq!((h[0x206], h[0x220], revision(&h)), (2, 0x13, 0x12));
    let (fs, data) = open_section(&pk, &program.nca.bytes, 0, Some(title_key));
    assert_eq!(section_pfs0(&fs, &data)[0].0, "main");
    // The Meta NCA keeps the key area; its CNMT names the application.
    let (fs, data) = open_section(&pk, &files.ncas[2].nca.bytes, 0, None);
    let cnmt = &section_pfs0(&fs, &data)[0].1;
    assert_eq!(
        (cnmt[0xC], le32(cnmt, 8), le64(cnmt, 0x20)),
        (0x81, 0x20000, 0x0100_1234_5678_0000)
    );

    let personal = Title {
        personalized: true,
        ..title
    };
    let t = &title_files(&keys, &personal, Distribution::Download).tickets[0].1;
    assert_eq!(t[0x281], 1);
    assert_ne!(
        Some(aes_dec(&pk.titlekek(0x12).unwrap(), &t[0x180..0x190])),
        files.title_key
    );
}

#[test]
fn nca2_headers_and_dlc() {
    let keys = TestKeys::new(13);
    let pk = keys.prod_keys();
    let dlc = Title {
        nca2: true,
        revision: 0,
        ..Title::addon(0x0100_1234_5678_0000, 3)
    };
    assert_eq!(dlc.id, 0x0100_1234_5678_1003);
    assert_eq!(dlc.application_id(), 0x0100_1234_5678_0000);
    let files = title_files(&keys, &dlc, Distribution::Download);
    assert_eq!(files.ncas.len(), 2);
    let data_nca = &files.ncas[0].nca.bytes;
    let h = open_header(&pk, data_nca);
    assert_eq!(
        (&h[0x200..0x204], h[0x205], h[0x206], h[0x220]),
        (&b"NCA2"[..], 5, 0, 0)
    );
    assert!(
        data_nca[0x600..0xC00].iter().all(|&b| b == 0),
        "absent FS headers stay zero"
    );
    let (fs, data) = open_section(&pk, data_nca, 0, None);
    assert_eq!(section_romfs(&fs, &data)[0].0, "data.bin");
    let (fs, data) = open_section(&pk, &files.ncas[1].nca.bytes, 0, None);
    let cnmt = &section_pfs0(&fs, &data)[0].1;
    assert_eq!((cnmt[0xC], le64(cnmt, 0x20)), (0x82, 0x0100_1234_5678_0000));
    assert_eq!(cnmt[0x20 + 0x10 + 0x36], 2);
}

#[test]
fn containers_and_damage() {
    let keys = TestKeys::new(14);
    let base = Title {
        titlekey: true,
        ..Title::application(0x0100_0000_0042_0000)
    };
    let dlc = Title::addon(base.id, 1);
    let nsp = nsp(&keys, &[base.clone(), dlc.clone()]);
    let names: Vec<String> = entries(&nsp).into_iter().map(|e| e.name).collect();
    assert_eq!(names.len(), 3 + 2 + 2, "{names:?}");
    assert_eq!(names.iter().filter(|n| n.ends_with(".cnmt.nca")).count(), 2);
    assert!(
        names.iter().any(|n| n.ends_with(".tik")) && names.iter().any(|n| n.ends_with(".cert"))
    );
    for e in entries(&nsp).iter().filter(|e| e.name.ends_with(".nca")) {
        let bytes = &nsp[e.offset..e.offset + e.size];
        assert_eq!(e.name[..32], synth::content_id(bytes));
    }
    assert_eq!(
        nsp,
        keyed::nsp(&keys, &[base.clone(), dlc.clone()]),
        "deterministic"
    );

    let nsz = nsz(&keys, &[base.clone(), dlc.clone()]);
    let ncz: Vec<BuiltFile> = entries(&nsz)
        .into_iter()
        .filter(|e| e.name.ends_with(".ncz"))
        .collect();
    assert_eq!(ncz.len(), 2, "the Program and the PublicData NCAs");
    let head = &nsz[ncz[0].offset..];
    assert_eq!(&head[0x4000..0x4008], b"NCZSECTN");
    let files = title_files(&keys, &base, Distribution::Download);
    assert_eq!(
        &head[0x4030..0x4040],
        &files.title_key.unwrap(),
        "the section key in clear"
    );
}

#[test]
fn cartridges_and_damage() {
    let keys = TestKeys::new(14);
    let base = Title {
        titlekey: true,
        ..Title::application(0x0100_0000_0042_0000)
    };
    let update = Title::patch(base.id, 0x10000);
    let xci = xci(&keys, &[base.clone(), update.clone()]);
    let secure: Vec<BuiltFile> = entries(&xci);
    assert_eq!(secure.len(), 3 + 3);
    assert!(!secure.iter().any(|e| e.name.ends_with(".tik")));
    let meta = secure
        .iter()
        .find(|e| e.name.ends_with(".cnmt.nca"))
        .unwrap();
    let h = open_header(
        &keys.prod_keys(),
        &xci[meta.offset..meta.offset + meta.size],
    );
    assert_eq!(h[0x204], 1, "gamecard");
    let xcz = xcz(&keys, &[base, update]);
    assert_eq!(
        entries(&xcz)
            .iter()
            .filter(|e| e.name.ends_with(".ncz"))
            .count(),
        2
    );

    let mut damaged = xci.clone();
    let program = secure.iter().find(|e| !e.name.contains("cnmt")).unwrap();
    let at = flip_byte(&mut damaged, &program.name).unwrap();
    assert!(at > program.offset + 0xC00 && at < program.offset + program.size);
    assert_ne!(
        synth::content_id(&damaged[program.offset..program.offset + program.size]),
        program.name[..32]
    );
    assert_eq!(flip_byte(&mut damaged, "nothing.nca"), None);
    assert_eq!(
        tagged_name("Game", base_id(), 0, "nsp"),
        "Game [0100000000420000][v0].nsp"
    );
}

fn base_id() -> u64 {
    0x0100_0000_0042_0000
}

#[test]
fn the_header_key_is_checked_by_the_magic() {
    let keys = TestKeys::new(15);
    let other = TestKeys::new(16).prod_keys();
    let nca = &title_files(
        &keys,
        &Title::application(base_id()),
        Distribution::Download,
    )
    .ncas[0];
    let hk = other.header_key.unwrap();
    let xts = Xts128::new(Aes128::new(hk[..16].into()), Aes128::new(hk[16..].into()));
    let mut h = nca.nca.bytes[..0x400].to_vec();
    xts.decrypt_area(&mut h, 0x200, 0, |n: u128| n.to_be_bytes());
    assert_ne!(&h[0x200..0x204], b"NCA3");
}

#[test]
fn forged_keys_have_nsz_checksums() {
    let keys = TestKeys::new(1);
    assert_eq!(crc32fast::hash(&keys.titlekek_source), 3510501772);
    assert_eq!(crc32fast::hash(&keys.master_keys[0x0a]), 2012895168);
    assert_eq!(crc32fast::hash(&keys.key_area_sources[2]), 4024798875);
    let plain = TestKeys::without_checksums(1);
    assert_ne!(crc32fast::hash(&plain.titlekek_source), 3510501772);
}

#[test]
fn derivation_follows_the_recipe() {
    let keys = TestKeys::new(2);
    let r = 5;
    let kek = ecb_decrypt(&keys.master_keys[r], &keys.aes_kek_generation_source);
    let src = ecb_decrypt(&kek, &keys.key_area_sources[0]);
    let expected = ecb_decrypt(&src, &keys.aes_key_generation_source);
    assert_eq!(keys.key_area[r][0], expected);
    let titlekek = ecb_decrypt(&keys.master_keys[r], &keys.titlekek_source);
    assert_eq!(keys.titlekek[r], titlekek);
    let pk = keys.prod_keys();
    assert_eq!(pk.key_area_key(0, r as u8), Some(expected));
    assert_eq!(pk.titlekek(r as u8), Some(titlekek));
    assert_eq!(pk.key_area_key(0, DEFAULT_REVISIONS), None);
    assert_eq!(keys.truncated(3).prod_keys().titlekek(3), None);
}

#[test]
fn files_of_each_shape() {
    let keys = TestKeys::new(3);
    let names = |shape| -> Vec<String> {
        keys.prod_keys_file(shape)
            .lines()
            .filter_map(|l| l.split('=').next())
            .map(|n| n.trim().to_string())
            .collect()
    };
    let full = names(KeysFile::Full);
    assert!(full.contains(&"master_key_12".to_string()));
    assert!(full.contains(&"key_area_key_system_00".to_string()));
    assert_eq!(names(KeysFile::HeaderOnly), vec!["header_key"]);
    let derived = names(KeysFile::Derived);
    assert!(derived.contains(&"titlekek_05".to_string()));
    assert!(!derived.iter().any(|n| n.starts_with("master_key")));
    assert!(!derived.iter().any(|n| n.ends_with("_source")));
    let master = names(KeysFile::MasterAndSources);
    assert!(master.contains(&"master_key_00".to_string()));
    assert!(!master.iter().any(|n| n.starts_with("titlekek_0")));
    assert!(!master
        .iter()
        .any(|n| n.starts_with("key_area_key_application_0")));
    let bad = keys.prod_keys_file(KeysFile::Malformed);
    let line = bad.lines().nth(MALFORMED_LINE - 1).unwrap_or_default();
    assert!(line.contains("xyz"));
    assert!(keys
        .prod_keys_file(KeysFile::Commented)
        .contains("# a comment"));
    assert!(format!("{keys:?}").len() < 40);
}
