//! Convert benchmark (not a test): a synthetic `.nsz` whose NCA is N MiB (default
//! 1024), in solid and in block mode, converted by the real service; beside it, the
//! in-memory bound measured in the same run: the same decompressor (zstd decode +
//! AES-CTR + SHA-256) over the same bytes held in memory, writing nowhere. Prints MB/s
//! for both, their ratio, and the server's peak memory above its idle size.
//!
//!     cargo test --release --test bench_convert -- [MiB]

use std::io::Cursor;
use std::time::{Duration, Instant};

use ludotheque::convert::ncz;
use ludotheque::library::containers;
use ludotheque::library::synth::{self, SectionSpec};
use rand::rngs::StdRng;
use rand::SeedableRng;

#[path = "gen.rs"]
#[allow(dead_code)]
mod gen;

fn main() {
    let mib: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1024);
    let size = (mib << 20) as usize;
    let t = Instant::now();
    let mut rng = StdRng::seed_from_u64(7);
    let half = 0x4000 + ((size as u64 - 0x4000) / 2 / 16) * 16;
    let nca = synth::nca(
        &mut rng,
        size,
        &[
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
        ],
    );
    println!(
        "NCA of {mib} MiB made in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    for (mode, ncz_bytes) in [
        ("block", synth::ncz_block(&nca, 20)),
        ("solid", synth::ncz_solid(&nca)),
    ] {
        let nsz = synth::pfs0(&[
            (nca.ncz_name(), ncz_bytes),
            ("t.tik".into(), vec![1; 0x2C0]),
        ]);
        let bound = in_memory(&nsz);
        let (service, peak_above_idle) = through_service(&nsz);
        println!(
            "{mode}: service {service:>7.0} MB/s   in-memory bound {bound:>7.0} MB/s   ratio {:>3.0}%   peak memory above idle {:.1} MiB",
            100.0 * service / bound,
            peak_above_idle as f64 / 1024.0
        );
    }
}

/// The decompressor over the file held in memory, output discarded: MB/s of NCA.
fn in_memory(nsz: &[u8]) -> f64 {
    let mut cur = Cursor::new(nsz);
    let fs = containers::read_pfs0(&mut cur, 0, nsz.len() as u64).unwrap();
    let e = &fs.entries[0];
    let header = containers::read_ncz(&mut cur, e.offset, e.end()).unwrap();
    let t = Instant::now();
    let mut written = 0u64;
    ncz::decompress(&mut cur, &header, e.end(), &mut std::io::sink(), &mut |n| {
        written += n;
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    written as f64 / 1e6 / t.elapsed().as_secs_f64()
}

/// Convert through the real service; returns MB/s of output and peak KiB above idle.
fn through_service(nsz: &[u8]) -> (f64, u64) {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(lib.join("bench [0100000000010000].nsz"), nsz).unwrap();
    let (mut child, base) = gen::start_server(&tmp.path().join("data"), &lib);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
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
