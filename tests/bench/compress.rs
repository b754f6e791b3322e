//! Compress benchmark (not a test): an `.nsp` whose Program NCA holds N MiB (default
//! 512) of this machine's program files (what it has under `/usr`, so that it
//! compresses like game code, not like random bytes), encrypted under made-up keys
//! (`kit::keyed`), compressed at level 18 in block and in solid mode by the real
//! binary (`ludotheque compress` on a data folder holding the made-up keys: written,
//! fsynced, verified, put in the original's place). Beside it, in the same run:
//!
//! - nsz 5.0.0 on the same file, same level, same mode (`-C -l 18 -B`/`-S`), when a
//!   Python that has it is found (`NSZ_PYTHON`, else `python3`; `pip install
//!   nsz==5.0.0`); its keys in a scratch `HOME/.switch/prod.keys`. It neither fsyncs
//!   nor verifies, which only flatters it;
//! - the in-memory bound: the same compressor and verification (read, decrypt,
//!   compress, then decompress and hash every NCA) on a file in `/dev/shm`, so that no
//!   disk is involved.
//!
//! For each: seconds, MB/s of the NSP, the output's size (and ours beside nsz's, goal
//! within 1 %), and the service's private memory (RssAnon, sampled every 5 ms; goal
//! ≤ 256 MiB).
//!
//! With a second number, ROUNDS, the three take turns that many times over
//! (`gen::alternate`) and each row gives its median and spread (default 1: its
//! bound is the CPU, not the disk, and a round takes minutes).
//!
//!     cargo test --release --test bench_compress -- [MiB] [ROUNDS]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use kit::keyed::nca::{self, Crypto, NcaSpec};
use kit::keyed::{content, KeysFile, TestKeys, Title};
use ludotheque::testkit::compress::{self, Settings};
use ludotheque::testkit::synth::{self};
use ludotheque::testkit::verify::{self, Verdict};
use rand::rngs::StdRng;
use rand::SeedableRng;

#[path = "gen.rs"]
mod gen;
#[path = "../kit/mod.rs"]
mod kit;

const GAME: u64 = 0x0100_0000_0039_B000;
const LEVEL: i32 = 18;

fn main() {
    let nums: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let mib = nums.first().copied().unwrap_or(512);
    // One round by default: a round of both modes takes about ten minutes here.
    let rounds = nums.get(1).copied().unwrap_or(1) as usize;
    let t = Instant::now();
    let keys = TestKeys::new(39);
    let nsp = keyed_nsp(&keys, gen::program_bytes((mib << 20) as usize));
    println!(
        "NSP of {:.0} MiB ({mib} MiB of program files) made in {:.1} s; level {LEVEL}, {} cores",
        nsp.len() as f64 / (1 << 20) as f64,
        t.elapsed().as_secs_f64(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let python = nsz_python();
    println!(
        "{:<6} {:<10} {:>8} {:>17} {:>12} {:>8} {:>13}",
        "mode", "who", "seconds", "MB/s", "output", "vs nsz", "RssAnon peak"
    );
    for solid in [false, true] {
        mode_rows(&keys, &nsp, solid, python.as_deref(), rounds);
    }
    println!(
        "(MB/s of the NSP, median (spread) of {rounds} round(s), each measure in turn; the \
         service's time includes its fsync and its verification)"
    );
    if python.is_none() {
        println!("nsz: no Python with nsz found (pip install nsz==5.0.0, or set NSZ_PYTHON)");
    }
}

/// One mode: the service, the in-memory bound and nsz take turns, `rounds` times over;
/// a row each with seconds and MB/s (median and spread), output size and memory.
fn mode_rows(keys: &TestKeys, nsp: &[u8], solid: bool, python: Option<&str>, rounds: usize) {
    let mode = if solid { "solid" } else { "block" };
    let mb = nsp.len() as f64 / 1e6;
    let (mut ours, mut bound, mut reference) = ((0, 0), 0, None);
    let [by_service, by_memory, by_nsz] = gen::alternate(
        rounds,
        [
            &mut || {
                let (secs, size, anon) = service(keys, nsp, solid);
                ours = (size, ours.1.max(anon));
                mb / secs
            },
            &mut || {
                let (secs, size) = in_memory(keys, nsp, solid);
                bound = size;
                mb / secs
            },
            &mut || {
                python.map_or(f64::NAN, |py| {
                    let (secs, size) = nsz(py, keys, nsp, solid);
                    reference = Some(size);
                    mb / secs
                })
            },
        ],
    );
    let vs = |size: u64| {
        reference.map_or("-".into(), |r| {
            format!("{:+.2}%", 100.0 * (size as f64 / r as f64 - 1.0))
        })
    };
    let row = |who: &str, speed: &gen::Spread, size: u64, vs: String, anon: String| {
        println!(
            "{mode:<6} {who:<10} {:>8.1} {:>17} {size:>12} {vs:>8} {anon:>13}",
            mb / speed.median,
            speed.show(1)
        );
    };
    let (size, anon) = ours;
    row(
        "service",
        &by_service,
        size,
        vs(size),
        format!("{:.1} MiB", anon as f64 / 1024.0),
    );
    row("in-memory", &by_memory, bound, vs(bound), "-".into());
    if let Some(size) = reference {
        row("nsz 5.0.0", &by_nsz, size, String::new(), "-".into());
    }
}

/// An eShop NSP of one game: its Program NCA (a PFS0 section holding `program`,
/// key-area crypto) and its Meta NCA whose CNMT records the Program NCA's hash, so that
/// the service's verification checks every byte.
fn keyed_nsp(keys: &TestKeys, program: Vec<u8>) -> Vec<u8> {
    let rng = &mut StdRng::seed_from_u64(39);
    let spec = |content_type: u8, sections: Vec<nca::PlainSection>| NcaSpec {
        content_type,
        program_id: GAME,
        revision: 0,
        distribution: 0,
        crypto: Crypto::KeyArea { index: 0 },
        nca2: false,
        sections,
    };
    let section = nca::pfs0_section(&[("main".into(), program)], 0x10000);
    let program = nca::build(keys, rng, spec(nca::PROGRAM, vec![section]));
    let record = content::content_record(&program.bytes, content::RECORD_PROGRAM);
    let title = Title::application(GAME);
    let cnmt = content::cnmt(GAME, 0, title.kind.meta_type(), GAME | 0x800, &[record]);
    let section = nca::pfs0_section(&[(title.cnmt_name(), cnmt)], 0x1000);
    let meta = nca::build(keys, rng, spec(nca::META, vec![section]));
    let program_name = format!("{}.nca", synth::content_id(&program.bytes));
    let meta_name = format!("{}.cnmt.nca", synth::content_id(&meta.bytes));
    synth::pfs0(&[(program_name, program.bytes), (meta_name, meta.bytes)])
}

/// The binary compresses the NSP in a fresh library: (seconds, output bytes, peak
/// RssAnon KiB).
fn service(keys: &TestKeys, nsp: &[u8], solid: bool) -> (f64, u64, u64) {
    let tmp = tempfile::tempdir().unwrap();
    let (data, lib) = (tmp.path().join("data"), tmp.path().join("library"));
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(&lib).unwrap();
    let keys_file = data.join("prod.keys");
    std::fs::write(&keys_file, keys.prod_keys_file(KeysFile::Full)).unwrap();
    std::fs::set_permissions(&keys_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(lib.join("bench [010000000039B000].nsp"), nsp).unwrap();
    run(&data, &lib, &["scan"]);
    let level = LEVEL.to_string();
    let mut args = vec!["compress", "--level", &level];
    if solid {
        args.push("--solid");
    }
    let t = Instant::now();
    let anon = run(&data, &lib, &args);
    let secs = t.elapsed().as_secs_f64();
    let out = lib.join("bench [010000000039B000].nsz");
    let size = std::fs::metadata(&out)
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()))
        .len();
    (secs, size, anon)
}

/// Run a command of the binary, which must succeed; its peak RssAnon in KiB.
fn run(data: &Path, lib: &Path, args: &[&str]) -> u64 {
    // Only `serve` creates a missing data folder.
    std::fs::create_dir_all(data).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ludotheque"))
        .args(["--data", data.to_str().unwrap()])
        .args(["--library", lib.to_str().unwrap()])
        .args(["--log-level", "warn"])
        .args(args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let sampler = gen::sample_anon(pid);
    let status = child.wait().unwrap();
    assert!(status.success(), "{args:?}: {status}");
    sampler.join().unwrap()
}

/// The same compressor and verification on a file in `/dev/shm`: (seconds, bytes).
fn in_memory(keys: &TestKeys, nsp: &[u8], solid: bool) -> (f64, u64) {
    let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
    let input = tmp.path().join("bench.nsp");
    std::fs::write(&input, nsp).unwrap();
    let target = tmp.path().join("bench.nsz");
    let settings = Settings {
        level: LEVEL,
        solid,
        ..Settings::default()
    };
    let prod = keys.prod_keys();
    let t = Instant::now();
    let mut file = std::fs::File::open(&input).unwrap();
    let outcome =
        compress::compress_file(&mut file, "nsp", &target, &prod, &settings, &mut |_| Ok(()))
            .unwrap_or_else(|e| panic!("{e:?}"));
    let mut written = std::fs::File::open(&target).unwrap();
    let verdict = verify::opened(&mut written, "nsz", &prod, &mut |_| Ok(()));
    let secs = t.elapsed().as_secs_f64();
    assert!(matches!(verdict, Ok(Verdict::Sound)), "{verdict:?}");
    (secs, outcome.size)
}

/// The Python that has nsz, if any.
fn nsz_python() -> Option<String> {
    let python = std::env::var("NSZ_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&python)
        .args(["-c", "import nsz"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(python)
}

/// nsz 5.0.0 compresses the same NSP: (seconds, bytes).
fn nsz(python: &str, keys: &TestKeys, nsp: &[u8], solid: bool) -> (f64, u64) {
    let home = tempfile::tempdir().unwrap();
    let switch = home.path().join(".switch");
    std::fs::create_dir_all(&switch).unwrap();
    std::fs::write(
        switch.join("prod.keys"),
        keys.prod_keys_file(KeysFile::Full),
    )
    .unwrap();
    let input = home.path().join("bench.nsp");
    std::fs::write(&input, nsp).unwrap();
    let out = home.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let t = Instant::now();
    let run = Command::new(python)
        .args([
            "-c",
            "import nsz; nsz.main()",
            "-C",
            "-l",
            &LEVEL.to_string(),
        ])
        .arg(if solid { "-S" } else { "-B" })
        .arg("-o")
        .arg(&out)
        .arg(&input)
        .current_dir(home.path())
        .env("HOME", home.path())
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    let made = out.join("bench.nsz");
    let size = std::fs::metadata(&made)
        .unwrap_or_else(|_| panic!("nsz wrote nothing: {run:?}"))
        .len();
    (secs, size)
}
