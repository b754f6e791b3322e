//! Verify benchmark (not a test): a synthetic keyed NSP whose Program NCA is N MiB
//! (default 1024), made under made-up console keys (`kit::keyed`), and the same
//! title as an NSZ (its Program NCA a solid-mode NCZ), verified by the real service
//! (`POST /api/verify/{key}`, the web interface's button).
//!
//! Beside each, measured in the same run:
//! - NSP: `sha256sum` of the same file, the bound for reading and hashing its bytes
//!   once (the service hashes every NCA and nothing else, so a little less). Both read
//!   from the page cache, warmed by one read of the file first. GNU `sha256sum` is built without OpenSSL
//!   on many systems (this one too) and hashes in software, so `openssl dgst -sha256`
//!   (SHA-NI where the CPU has it, as the service's `sha2`) is printed beside it when
//!   there is an `openssl`.
//! - NSZ: the convert of the same file by the same service (`POST /api/v1/convert`,
//!   which writes and fsyncs the NCA verify only hashes), and convert's pipeline in
//!   memory (decode, decrypt, hash; writing nowhere), both in MB/s of NCA.
//!
//! Each group of measures takes turns, [`gen::ROUNDS`] times over (`gen::alternate`),
//! and each prints its median and spread; ratios are of medians. The NSZ is put back
//! and the library rescanned after each convert.
//!
//! And the service's private memory (RssAnon, sampled every 5 ms from
//! /proc/PID/status: its heap, not the binary's pages nor the page cache) at idle and
//! at its peak during each task.
//!
//!     cargo test --release --test bench_verify -- [MiB]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use kit::keyed::{self, KeysFile, TestKeys, Title};

#[path = "gen.rs"]
mod gen;
#[path = "../kit/mod.rs"]
mod kit;

fn main() {
    let mib: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1024);
    let tmp = tempfile::tempdir().unwrap();
    let (data, lib) = (tmp.path().join("data"), tmp.path().join("library"));
    std::fs::create_dir_all(&lib).unwrap();
    let keys = TestKeys::new(1);
    write_keys(&data, &keys);
    let t = Instant::now();
    let title = Title {
        program_size: mib << 20,
        icon: false,
        ..Title::application(0x0100_0000_0BE0_0000)
    };
    let nsp = keyed::nsp(&keys, std::slice::from_ref(&title));
    std::fs::write(lib.join("bench.nsp"), &nsp).unwrap();
    drop(nsp);
    let nsz = keyed::nsz(&keys, &[title]);
    std::fs::write(lib.join("packed.nsz"), &nsz).unwrap();
    println!(
        "an NSP with a {mib} MiB Program NCA, and its NSZ ({} MiB), made in {:.1} s",
        nsz.len() >> 20,
        t.elapsed().as_secs_f64()
    );
    let (server, base) = gen::start_server(&data, &lib);
    let agent: ureq::Agent = gen::agent();
    gen::wait_idle(&agent, &base);
    std::thread::sleep(Duration::from_millis(300));
    let pid = server.id();
    let idle = rss_anon(pid);
    let nsp_path = lib.join("bench.nsp");
    hash_command(&["sha256sum"], &nsp_path); // the page cache, warmed for all
    let mut peak = 0;
    let [sum, ssl, verify] = gen::alternate(
        gen::ROUNDS,
        [
            &mut || hash_command(&["sha256sum"], &nsp_path).unwrap(),
            &mut || hash_command(&["openssl", "dgst", "-sha256"], &nsp_path).unwrap_or(f64::NAN),
            &mut || {
                let run = task(&agent, &base, pid, "/api/verify/bench.nsp", "1 sound");
                peak = peak.max(run.peak);
                run.mb_s
            },
        ],
    );
    println!(
        "{:<5} {:>21} {:>21} {:>7} {:>17}",
        "file", "verify MB/s", "beside MB/s", "ratio", "RssAnon peak"
    );
    println!(
        "{:<5} {:>21} {:>21} {:>6.0}% {:>10.1} MiB  (sha256sum; idle {:.1} MiB)",
        "nsp",
        verify.show(0),
        sum.show(0),
        100.0 * verify.over(&sum),
        peak as f64 / 1024.0,
        idle as f64 / 1024.0
    );
    if !ssl.median.is_nan() {
        println!(
            "{:<5} {:>21} {:>21} {:>6.0}%                 (openssl dgst -sha256)",
            "",
            "",
            ssl.show(0),
            100.0 * verify.over(&ssl)
        );
    }
    let packed = Packed {
        lib: &lib,
        nsz: &nsz,
    };
    nsz_rows(&agent, &base, pid, &packed);
    println!(
        "(MB/s of the NSP's bytes, and of NCA for the NSZ; page cache warm; median (spread) \
         of {} rounds, each measure in turn)",
        gen::ROUNDS
    );
}

/// The NSZ in the library, put back after each convert.
struct Packed<'a> {
    lib: &'a Path,
    nsz: &'a [u8],
}

/// The NSZ: verified, its pipeline in memory, and converted by the same service, in
/// turns; after each convert the NSZ is put back and the library rescanned.
fn nsz_rows(agent: &ureq::Agent, base: &str, pid: u32, packed: &Packed) {
    let (mut peak, mut convert_peak) = (0, 0);
    let [verify, memory, convert] = gen::alternate(
        gen::ROUNDS,
        [
            &mut || {
                let run = task(agent, base, pid, "/api/verify/packed.nsz", "1 sound");
                peak = peak.max(run.peak);
                run.mb_s
            },
            &mut || gen::ncz_in_memory(packed.nsz),
            &mut || {
                let run = task(agent, base, pid, "/api/v1/convert", "1 converted");
                convert_peak = convert_peak.max(run.peak);
                put_back(agent, base, packed);
                run.mb_s
            },
        ],
    );
    println!(
        "{:<5} {:>21} {:>21} {:>6.0}% {:>10.1} MiB  (convert, writing; {:.1} MiB)",
        "nsz",
        verify.show(0),
        convert.show(0),
        100.0 * verify.over(&convert),
        peak as f64 / 1024.0,
        convert_peak as f64 / 1024.0
    );
    println!(
        "{:<5} {:>21} {:>21} {:>6.0}%                 (convert's pipeline in memory)",
        "",
        "",
        memory.show(0),
        100.0 * verify.over(&memory)
    );
}

/// Undo a convert: the NSP it wrote goes, the NSZ comes back (durable, so that its
/// write-back does not fall on the next measure), and the library is rescanned.
fn put_back(agent: &ureq::Agent, base: &str, packed: &Packed) {
    std::fs::remove_file(packed.lib.join("packed.nsp")).unwrap();
    let mut f = std::fs::File::create(packed.lib.join("packed.nsz")).unwrap();
    std::io::Write::write_all(&mut f, packed.nsz).unwrap();
    f.sync_all().unwrap();
    agent
        .post(&format!("{base}/api/v1/scan"))
        .send_empty()
        .unwrap();
    gen::wait_idle(agent, base);
}

fn write_keys(data: &Path, keys: &TestKeys) {
    std::fs::create_dir_all(data).unwrap();
    let path = data.join("prod.keys");
    std::fs::write(&path, keys.prod_keys_file(KeysFile::Derived)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// A hashing command on FILE (`sha256sum FILE`): MB/s of the file's bytes; `None`
/// when the command is not there.
fn hash_command(command: &[&str], path: &Path) -> Option<f64> {
    let len = std::fs::metadata(path).unwrap().len();
    let t = Instant::now();
    let out = Command::new(command[0])
        .args(&command[1..])
        .arg(path)
        .output()
        .ok()?;
    assert!(out.status.success(), "{out:?}");
    Some(len as f64 / 1e6 / t.elapsed().as_secs_f64())
}

/// The server's RssAnon in KiB.
fn rss_anon(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("RssAnon:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

struct Run {
    mb_s: f64,
    /// Peak RssAnon in KiB.
    peak: u64,
}

/// Start a task with a POST and wait for its end, sampling the server's memory: MB/s
/// of the units it counted (bytes).
fn task(agent: &ureq::Agent, base: &str, pid: u32, path: &str, expect: &str) -> Run {
    let t = Instant::now();
    let r = agent.post(&format!("{base}{path}")).send_empty().unwrap();
    assert_eq!(r.status(), 202, "{path}");
    let mut peak = rss_anon(pid);
    let job = loop {
        let job = gen::get_json(agent, &format!("{base}/api/v1/job"));
        peak = peak.max(rss_anon(pid));
        if job["running"] == false {
            break job;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let secs = t.elapsed().as_secs_f64();
    let last = &job["last"];
    let said = last["message"].as_str().unwrap_or_default();
    assert!(said.starts_with(expect), "{path}: {last}");
    let bytes = last["done"].as_u64().unwrap();
    Run {
        mb_s: bytes as f64 / 1e6 / secs,
        peak,
    }
}
