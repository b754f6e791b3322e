//! Compression (issue 39) read back by another implementation: nsz 5.0.0 decompresses
//! the `.nsz` and `.xcz` the service writes (`convert::compress`) to the original
//! bytes, and verifies them (`-V`: every NCA's SHA-256 against its CNMT record). Files
//! are made under made-up keys (`synth::keyed`), with titlekey crypto; nsz is driven as
//! in `keys_conformance` (skipped without nsz unless `LUDOTHEQUE_REQUIRE_NSZ=1`).

use std::fs::File;
use std::path::Path;

use ludotheque::convert::compress::{self, Settings};
use ludotheque::library::synth::keyed::{self, KeysFile, TestKeys, Title};

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
