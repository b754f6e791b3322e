//! Convert benchmark (not a test): an `.nsz` whose NCA is N MiB (default 512) of real
//! program files (what this machine has under `/usr`, so it compresses like game
//! code, not like random bytes), in block and in solid mode, converted by the real
//! service. Beside it, two bounds measured in the same run, and the service's ratio to
//! the lower one:
//!
//! - the disk: the same number of bytes written to the same filesystem in 4 MiB
//!   writes, then fsynced (`dd bs=4M conv=fsync`), with the kernel asked to start
//!   writing back every 16 MiB as the service does, so that the disk is kept busy
//!   from the start: the most this disk takes;
//! - the pipeline in memory: the same decompressor (zstd, AES-CTR, SHA-256, on every
//!   core) over the file held in memory, writing nowhere.
//!
//! And the reference tool, nsz 5.0.0, on the same file, when a Python that has it is
//! found (`NSZ_PYTHON`, else `python3`; `pip install nsz==5.0.0`). It is called
//! through its decompression function (its command line wants console keys, which
//! decompressing never uses); it does not fsync, which only flatters it.
//!
//! The four take turns, [`gen::ROUNDS`] times over (`gen::alternate`), each after a
//! `sync`: this virtual machine's disk, shared with other work, has given 664 and
//! 2,423 MB/s a minute apart, so each prints its median and its spread, and the
//! ratios are of medians.
//!
//!     cargo test --release --test bench_convert -- [MiB]

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use ludotheque::testkit::synth::{self, SectionSpec};
use rand::rngs::StdRng;
use rand::SeedableRng;

#[path = "gen.rs"]
mod gen;

fn main() {
    let mib: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(512);
    let size = (mib << 20) as usize;
    let t = Instant::now();
    let mut rng = StdRng::seed_from_u64(7);
    let half = 0x4000 + ((size as u64 - 0x4000) / 2 / 16) * 16;
    let sections = [
        SectionSpec {
            offset: 0x4000,
            size: half - 0x4000,
            crypto_type: 3,
        },
        SectionSpec {
            offset: half,
            size: size as u64 - half,
            crypto_type: 1,
        },
    ];
    let nca = synth::nca_with(&mut rng, gen::program_bytes(size), &sections);
    println!(
        "NCA of {mib} MiB of program files made in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let nsz_python = nsz_python();
    println!(
        "{:<6} {:<10} {:>21} {:>8} {:>10}",
        "mode", "who", "MB/s median (spread)", "ratio", ""
    );
    for (mode, ncz_bytes) in [
        ("block", synth::ncz_block(&nca, 20)),
        ("solid", synth::ncz_solid(&nca)),
    ] {
        let nsz = synth::pfs0(&[
            (nca.ncz_name(), ncz_bytes),
            ("t.tik".into(), vec![1; 0x2C0]),
        ]);
        mode_rows(mode, &nsz, nca.bytes.len(), nsz_python.as_deref());
    }
    println!(
        "(MB/s of NCA written, {} rounds, each measure in turn; ratio = service / the lower \
         of disk and in-memory, and service / nsz, both of medians)",
        gen::ROUNDS
    );
    if nsz_python.is_none() {
        println!("nsz: no Python with nsz found (pip install nsz==5.0.0, or set NSZ_PYTHON)");
    }
}

/// One mode: the disk, the service, nsz and the pipeline in memory take turns (this
/// machine's disk varies from second to second), and each gives its median and spread.
fn mode_rows(mode: &str, nsz: &[u8], nca_len: usize, python: Option<&str>) {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("ref.nsz");
    write_synced(&input, nsz);
    let mut peak_above_idle = 0;
    let [disk, service, reference, memory] = gen::alternate(
        gen::ROUNDS,
        [
            &mut || gen::disk_bound(tmp.path(), nca_len),
            &mut || {
                let (speed, peak) = through_service(tmp.path(), nsz);
                peak_above_idle = peak_above_idle.max(peak);
                speed
            },
            &mut || python.map_or(f64::NAN, |py| reference(py, tmp.path(), &input)),
            &mut || gen::ncz_in_memory(nsz),
        ],
    );
    let (lower, bound) = if disk.median <= memory.median {
        (disk, "disk")
    } else {
        (memory, "in-memory")
    };
    let row = |who: &str, s: &gen::Spread, ratio: String| {
        println!("{mode:<6} {who:<10} {:>21} {ratio:>8}", s.show(0));
    };
    row(
        "service",
        &service,
        format!("{:.0}%", 100.0 * service.over(&lower)),
    );
    row("disk", &disk, String::new());
    row("in-memory", &memory, String::new());
    if python.is_some() {
        row(
            "nsz 5.0.0",
            &reference,
            format!("{:.2}x", service.over(&reference)),
        );
    }
    println!(
        "{mode:<6} service at {:.0}% of the {bound}, {} nsz; {:.1} MiB above idle at peak",
        100.0 * service.over(&lower),
        if python.is_some() {
            format!("{:.2}x", service.over(&reference))
        } else {
            "-".into()
        },
        peak_above_idle as f64 / 1024.0
    );
}

/// Write a file and make it durable, so that its write-back does not fall on the
/// measure after it.
fn write_synced(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(bytes).unwrap();
    f.sync_all().unwrap();
}

/// The Python that has nsz, if any.
fn nsz_python() -> Option<String> {
    let python = std::env::var("NSZ_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = std::process::Command::new(&python)
        .args(["-c", "import nsz.Decompressor"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(python)
}

/// nsz 5.0.0's decompressor on the same file (written once, beforehand): MB/s of NCA.
fn reference(python: &str, dir: &Path, input: &Path) -> f64 {
    const DRIVER: &str =
        "import sys, time\nfrom pathlib import Path\nfrom nsz import Decompressor\n\
        t = time.time()\nDecompressor.decompress(Path(sys.argv[1]), Path(sys.argv[2]), False)\n\
        print(time.time() - t)\n";
    let out = dir.join("ref-out");
    std::fs::create_dir_all(&out).unwrap();
    let run = std::process::Command::new(python)
        .args(["-c", DRIVER])
        .arg(input)
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    let secs: f64 = text
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(f64::NAN);
    let written: u64 = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum();
    let _ = std::fs::remove_dir_all(&out);
    written as f64 / 1e6 / secs
}

/// Convert through the real service; returns MB/s of output and peak KiB above idle.
fn through_service(dir: &Path, nsz: &[u8]) -> (f64, u64) {
    let tmp = tempfile::tempdir_in(dir).unwrap();
    let lib = tmp.path().join("library");
    std::fs::create_dir_all(&lib).unwrap();
    write_synced(&lib.join("bench [0100000000010000].nsz"), nsz);
    let (mut child, base) = gen::start_server(&tmp.path().join("data"), &lib);
    let agent: ureq::Agent = gen::agent();
    gen::wait_idle(&agent, &base);
    std::thread::sleep(Duration::from_millis(300));
    let status =
        || std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    let kib = |text: &str, field: &str| -> u64 {
        text.lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let idle = kib(&status(), "VmRSS:");
    let t = Instant::now();
    agent
        .post(&format!("{base}/api/v1/convert"))
        .send_empty()
        .unwrap();
    let job = gen::wait_idle(&agent, &base);
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(job["last"]["message"], "1 converted, 0 failed", "{job}");
    let peak = kib(&status(), "VmHWM:");
    let _ = child.kill();
    let bytes = job["last"]["done"].as_u64().unwrap();
    (bytes as f64 / 1e6 / secs, peak.saturating_sub(idle))
}
