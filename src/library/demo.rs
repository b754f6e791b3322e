//! `ludotheque demo-library DIR`: a small synthetic library so that a newcomer sees
//! the service work at once, and the tests have a known library. Deterministic: the
//! same files every time. It holds bases, updates, DLC, DLC updates, unknown files,
//! names with spaces, brackets and accents, nested folders, real `.nsz` and `.xcz`
//! files and one corrupt file. Its title IDs are real, its names made up, and its
//! title data (`demo-titledb/`) says which updates and DLC it lacks.

use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::synth::{self, Nca};
use crate::error::Error;

/// How a demo file is packed.
#[derive(Clone, Copy)]
enum Pack {
    Nsp,
    NszSolid,
    NszBlock,
    Xci,
    XczBlock,
}

/// The titled files: (folder, display name, title ID, version, pack).
#[rustfmt::skip]
const GAMES: &[(&str, &str, u64, u32, Pack)] = &[
    ("Studio/Moon", "Moonlit Odyssey", 0x0100000000010000, 0, Pack::Nsp),
    ("Studio/Moon", "Moonlit Odyssey", 0x0100000000010800, 65536, Pack::Nsp),
    ("Studio/Moon", "Moonlit Odyssey - Costumes", 0x0100000000011001, 0, Pack::Nsp),
    ("Studio/Zephyr", "The Legend of Zephyr - Wild Winds", 0x01007EF00011E000, 0, Pack::Xci),
    ("Studio/Zephyr", "The Legend of Zephyr - Wild Winds", 0x01007EF00011E800, 196608, Pack::NszBlock),
    ("Studio/Zephyr", "Zephyr Expansion Pass", 0x01007EF00011F001, 0, Pack::Nsp),
    ("Studio/Zephyr", "Zephyr Master Trials", 0x01007EF00011F002, 0, Pack::Nsp),
    ("Studio/Zephyr", "Zephyr Expansion Pass Update", 0x01007EF00011F801, 65536, Pack::Nsp),
    ("Studio", "Pôtions Épée", 0x0100ABF008968000, 0, Pack::NszSolid),
    ("Studio", "Pôtions Épée", 0x0100ABF008968800, 393216, Pack::Nsp),
    ("Studio", "Pôtions Épée - Pass d'extension", 0x0100ABF008969001, 0, Pack::Nsp),
    ("Studio", "Pôtions Épée - Pass d'extension", 0x0100ABF008969801, 65536, Pack::Nsp),
    ("Studio", "Kart Rally 8 Deluxe", 0x0100152000022000, 0, Pack::NszBlock),
    ("Studio", "Kart Rally 8 Deluxe", 0x0100152000022800, 1769472, Pack::NszSolid),
    ("Studio", "Kart Rally 8 Deluxe - Booster Course Pass", 0x0100152000023001, 0, Pack::Nsp),
    ("Indies", "Hollow Depths (Voidheart Edition)", 0x0100633007D48000, 0, Pack::Nsp),
    ("Indies", "Summit", 0x01002B30028F6000, 0, Pack::XczBlock),
    ("Indies", "Styx", 0x0100535012974000, 0, Pack::Nsp),
    ("Indies", "Styx", 0x0100535012974800, 131072, Pack::Nsp),
    ("Indies", "Sunny Valley", 0x0100E65002BB8000, 0, Pack::Nsp),
    ("Indies", "Sunny Valley", 0x0100E65002BB8800, 327680, Pack::Nsp),
    ("Indies/Été 2024", "Dead Rooms", 0x0100646009FBE000, 0, Pack::Nsp),
    ("Indies/Été 2024", "Dead Rooms - The Rotten Seed", 0x0100646009FBF001, 0, Pack::Nsp),
    ("Indies/Été 2024", "Dead Rooms - Deadly Falls", 0x0100646009FBF002, 0, Pack::Nsp),
    ("Indies/Été 2024", "Dead Rooms", 0x0100646009FBE800, 262144, Pack::Nsp),
    ("Indies/Petits jeux", "Petit jeu n°01 - Bonus", 0x0100F00000003001, 0, Pack::Nsp),
    ("", "Blocks 99", 0x010040600C5CE000, 0, Pack::Nsp),
    ("", "Blocks 99 - Big Block", 0x010040600C5CF001, 0, Pack::Nsp),
    ("", "Orphan DLC without its game", 0x0100AAAA00001001, 0, Pack::Nsp),
    ("", "Orphan Update", 0x0100AAAA00002800, 65536, Pack::Nsp),
    ("", "Astral Link", 0x01007300020FA000, 0, Pack::Xci),
    ("", "Orbital Dread", 0x010093801237C000, 65536, Pack::Nsp),
];

/// The demo's title data (real title IDs, made-up names), as the title data files
/// are named: the demo writes them beside itself (see [`title_data_dir`]), and
/// `demo-library` imports them into a data folder that has no title data yet.
pub const TITLE_DATA: [(&str, &str); 3] = [
    ("versions.txt", include_str!("demo-titledb/versions.txt")),
    ("versions.json", include_str!("demo-titledb/versions.json")),
    ("US.en.json", include_str!("demo-titledb/US.en.json")),
];

/// Where the demo in `dir` keeps its title data: beside it, `DIR-titledb/`, so the
/// library holds only game files.
pub fn title_data_dir(dir: &Path) -> PathBuf {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "demo".into());
    dir.with_file_name(format!("{name}-titledb"))
}

/// The base games the demo draws an icon for (`icon_png`), so that it shows covers
/// without the network: those its title data names, and its fillers (which the title
/// data does not know: they stay `unknown`, with a cover all the same).
pub fn bases_with_icons() -> Vec<crate::words::TitleId> {
    let region: serde_json::Value = serde_json::from_str(TITLE_DATA[2].1).unwrap_or_default();
    let titles = region.as_object().into_iter().flat_map(|t| t.values());
    let named = titles
        .filter_map(|t| crate::words::TitleId::parse(t["id"].as_str()?))
        .filter(|id| id.0 & 0x1FFF == 0);
    named
        .chain(FILLERS.map(|i| crate::words::TitleId(filler_id(i))))
        .collect()
}

/// The fillers' numbers, and each one's title ID.
const FILLERS: std::ops::RangeInclusive<u64> = 1..=16;

fn filler_id(i: u64) -> u64 {
    0x0100F00000000000 + (i << 13)
}

/// A 128-pixel square PNG for a title: a diagonal blend of two neighbouring hues its
/// ID picks around the whole colour wheel, and a pale disc in the middle. Abstract, so
/// that no one takes it for the game's.
pub fn icon_png(id: u64) -> Result<Vec<u8>, png::EncodingError> {
    const SIDE: u32 = 128;
    let turn = (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f32 / (1u64 << 24) as f32;
    let (a, b) = (rgb_of_hue(turn), rgb_of_hue(turn + 0.12));
    let mut pixels = Vec::with_capacity((SIDE * SIDE * 3) as usize);
    for y in 0..SIDE {
        for x in 0..SIDE {
            let t = (x + y) as f32 / (2 * SIDE - 2) as f32;
            let (dx, dy) = (x as f32 - 63.5, y as f32 - 63.5);
            let disc = dx * dx + dy * dy < 28.0 * 28.0;
            for c in 0..3 {
                let v = a[c] as f32 * (1.0 - t) + b[c] as f32 * t;
                // The disc: the blend, halfway to white.
                pixels.push(if disc {
                    ((v + 255.0) / 2.0) as u8
                } else {
                    v as u8
                });
            }
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, SIDE, SIDE);
    encoder.set_color(png::ColorType::Rgb);
    encoder.write_header()?.write_image_data(&pixels)?;
    Ok(out)
}

/// A saturated, fairly light colour at `turn` of the way round the colour wheel (HSV
/// with saturation 0.6 and value 0.85).
fn rgb_of_hue(turn: f32) -> [u8; 3] {
    let (s, v) = (0.6_f32, 0.85_f32);
    let h = turn.fract() * 6.0;
    let f = h.fract();
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    let (r, g, b) = match h as u32 {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    [r, g, b].map(|c| (c * 255.0) as u8)
}

/// Write the demo library into `dir`, and its title data beside it. Returns how
/// many game files it wrote.
pub fn write(dir: &Path) -> Result<usize, Error> {
    let titledb = title_data_dir(dir);
    std::fs::create_dir_all(&titledb)?;
    for (name, text) in TITLE_DATA {
        std::fs::write(titledb.join(name), text)?;
    }
    // One seed, and the parts always in this order: the same library every time.
    let mut rng = StdRng::seed_from_u64(0x1d0_7e9e);
    Ok(named_games(dir, &mut rng)?
        + fillers(dir, &mut rng)?
        + identified_inside(dir, &mut rng)?
        + unknown_and_broken(dir, &mut rng)?)
}

/// The games of [`GAMES`], each with its tags in its name.
fn named_games(dir: &Path, rng: &mut StdRng) -> Result<usize, Error> {
    let mut written = 0;
    for &(folder, name, id, version, pack) in GAMES {
        let file = format!("{name} [{id:016X}][v{version}].{}", extension(pack));
        put(dir, folder, &file, &game_file(rng, id, pack))?;
        written += 1;
    }
    Ok(written)
}

/// Filler bases so that pages have something to page through, some with updates.
fn fillers(dir: &Path, rng: &mut StdRng) -> Result<usize, Error> {
    let mut written = 0;
    for i in FILLERS {
        let id = filler_id(i);
        put(
            dir,
            "Indies/Petits jeux",
            &format!("Petit jeu n°{i:02} [{id:016X}][v0].nsp"),
            &game_file(rng, id, Pack::Nsp),
        )?;
        written += 1;
        if i % 4 == 0 {
            let upd = id + 0x800;
            put(
                dir,
                "Indies/Petits jeux",
                &format!("Petit jeu n°{i:02} [{upd:016X}][v65536].nsp"),
                &game_file(rng, upd, Pack::Nsp),
            )?;
            written += 1;
        }
    }
    Ok(written)
}

/// Games identified from inside the container only.
fn identified_inside(dir: &Path, rng: &mut StdRng) -> Result<usize, Error> {
    let id = 0x0100C0DE00000000;
    put(
        dir,
        "Sans nom",
        "game without tags.nsp",
        &game_file(rng, id, Pack::Nsp),
    )?;
    let xml = "<?xml version=\"1.0\"?><ContentMeta><Type>Patch</Type>\
               <Id>0x0100c0de00000800</Id><Version>131072</Version></ContentMeta>";
    let nca = synth::simple_nca(rng, 0x4800);
    let nsp = synth::pfs0(&[
        (nca.name(), nca.bytes.clone()),
        ("cnmt.cnmt.xml".into(), xml.as_bytes().to_vec()),
    ]);
    put(dir, "Sans nom", "update from xml.nsp", &nsp)?;
    Ok(2)
}

/// Unknown files (no ID anywhere, an ID that is not a Switch title, a delta) and one
/// corrupt file: named properly, but its header is garbage.
fn unknown_and_broken(dir: &Path, rng: &mut StdRng) -> Result<usize, Error> {
    let nca = synth::simple_nca(rng, 0x4800);
    put(
        dir,
        "homebrew",
        "Some Homebrew Tool.nsp",
        &synth::pfs0(&[(nca.name(), nca.bytes)]),
    )?;
    put(
        dir,
        "homebrew",
        "Not A Title [0200000000000000].nsp",
        &game_file(rng, 0x0200000000000000, Pack::Nsp),
    )?;
    put(
        dir,
        "homebrew",
        "Delta Fragment [01007EF00011EC00].nsp",
        &game_file(rng, 0x01007EF00011EC00, Pack::Nsp),
    )?;
    put(
        dir,
        "homebrew",
        "Mystery cartridge.xci",
        &synth::xci(&[("update", vec![]), ("normal", vec![]), ("secure", vec![])]),
    )?;
    put(dir, "", "[Archive] Untitled dump.nsp", &synth::pfs0(&[]))?;
    let mut garbage = vec![0u8; 4096];
    rng.fill(&mut garbage[..]);
    put(
        dir,
        "",
        "Broken Download [0100BBBB00000000][v0].nsp",
        &garbage,
    )?;
    Ok(6)
}

fn extension(pack: Pack) -> &'static str {
    match pack {
        Pack::Nsp => "nsp",
        Pack::NszSolid | Pack::NszBlock => "nsz",
        Pack::Xci => "xci",
        Pack::XczBlock => "xcz",
    }
}

/// A container for one title: its NCA (compressed for .nsz/.xcz), a CNMT NCA and a ticket.
fn game_file(rng: &mut StdRng, id: u64, pack: Pack) -> Vec<u8> {
    let size = rng.random_range(0x6000..0x30000);
    let nca: Nca = synth::simple_nca(rng, size);
    let cnmt = rng.random_range(0x400..0x800);
    let cnmt = synth::filler(rng, cnmt);
    let cnmt_name = format!("{}.cnmt.nca", synth::content_id(&cnmt));
    let main = match pack {
        Pack::Nsp | Pack::Xci => (nca.name(), nca.bytes.clone()),
        Pack::NszSolid => (nca.ncz_name(), synth::ncz_solid(&nca)),
        Pack::NszBlock | Pack::XczBlock => (nca.ncz_name(), synth::ncz_block(&nca, 14)),
    };
    match pack {
        Pack::Nsp | Pack::NszSolid | Pack::NszBlock => {
            synth::pfs0(&[main, (cnmt_name, cnmt), synth::ticket(rng, id)])
        }
        Pack::Xci | Pack::XczBlock => synth::xci(&[
            ("update", vec![]),
            ("normal", vec![]),
            (
                "secure",
                vec![main, (cnmt_name, cnmt), synth::ticket(rng, id)],
            ),
        ]),
    }
}

fn put(dir: &Path, folder: &str, file: &str, bytes: &[u8]) -> Result<(), Error> {
    let folder = dir.join(folder);
    std::fs::create_dir_all(&folder)?;
    std::fs::write(folder.join(file), bytes)?;
    Ok(())
}
