//! Scan benchmark (not a test): generates a library of N tiny game files, starts the
//! real server on it, and prints the cold-scan time (first scan of an unknown
//! library), the warm-rescan time (nothing changed) and the server's peak memory.
//!
//!     cargo test --release --test bench_scan -- [N]        # N defaults to 100000
//!
//! The files are written just before, so "cold" means a first scan with the files in
//! the page cache, not a cold disk.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    let t = Instant::now();
    generate(&lib, n);
    println!("generated {n} files in {:.1} s", t.elapsed().as_secs_f64());

    let mut child = Command::new(env!("CARGO_BIN_EXE_ludotheque"))
        .args(["--data", tmp.path().join("data").to_str().unwrap()])
        .args(["--library", lib.to_str().unwrap()])
        .args(["--log-level", "warn", "serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = format!(
        "http://{}",
        line.trim().trim_start_matches("listening on http://")
    );
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let job = |agent: &ureq::Agent| -> serde_json::Value {
        let body = agent
            .get(&format!("{base}/api/v1/job"))
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        serde_json::from_str(&body).unwrap()
    };
    let wait = |agent: &ureq::Agent| loop {
        let j = job(agent);
        if j["running"] == false {
            return j;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // The first scan starts by itself.
    let last = wait(&agent);
    let cold = started.elapsed();
    println!(
        "cold scan:   {:>7.2} s  ({})",
        cold.as_secs_f64(),
        last["last"]["message"]
    );
    let t = Instant::now();
    agent
        .post(&format!("{base}/api/v1/scan"))
        .send_empty()
        .unwrap();
    let last = wait(&agent);
    println!(
        "warm rescan: {:>7.2} s  ({})",
        t.elapsed().as_secs_f64(),
        last["last"]["message"]
    );
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: ?");
    println!(
        "server peak memory: {}",
        hwm.trim_start_matches("VmHWM:").trim()
    );
    let _ = child.kill();
}

/// Tiny but valid PFS0 files with a ticket inside, in folders of 500; bases, updates
/// and DLC in turn.
fn generate(lib: &std::path::Path, n: usize) {
    for i in 0..n {
        let dir = lib.join(format!("folder {:03}", i / 500));
        if i % 500 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let base = 0x0100_0000_0000_0000u64 + ((i as u64 / 3) << 13);
        let id = match i % 3 {
            0 => base,
            1 => base + 0x800,
            _ => base + 0x1001,
        };
        let ticket = format!("{id:016x}{:016x}.tik", 0);
        let mut f = b"PFS0".to_vec();
        f.extend_from_slice(&1u32.to_le_bytes());
        f.extend_from_slice(&((ticket.len() + 1) as u32).to_le_bytes());
        f.extend_from_slice(&[0; 4]);
        f.extend_from_slice(&0u64.to_le_bytes());
        f.extend_from_slice(&16u64.to_le_bytes());
        f.extend_from_slice(&[0; 8]);
        f.extend_from_slice(ticket.as_bytes());
        f.push(0);
        f.extend_from_slice(&[0x55; 16]);
        let name = format!("Jeu numéro {i} [{id:016X}][v0].nsp");
        std::fs::write(dir.join(name), f).unwrap();
    }
}
