//! Scan benchmark (not a test): generates a library of N tiny game files, starts the
//! real server on it, and prints the cold-scan time (first scan of an unknown
//! library), the warm-rescan time (nothing changed) and the server's peak memory.
//!
//!     cargo test --release --test bench_scan -- [N]        # N defaults to 100000
//!
//! The files are written just before, so "cold" means a first scan with the files in
//! the page cache, not a cold disk.

#[path = "gen.rs"]
mod gen;

use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    let t = Instant::now();
    gen::generate(&lib, n);
    println!("generated {n} files in {:.1} s", t.elapsed().as_secs_f64());

    let started = Instant::now();
    let (mut child, base) = gen::start_server(&tmp.path().join("data"), &lib);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    // The first scan starts by itself.
    let job = gen::wait_idle(&agent, &base);
    println!(
        "cold scan:   {:>7.2} s  ({})",
        started.elapsed().as_secs_f64(),
        job["last"]["message"]
    );
    let t = Instant::now();
    agent
        .post(&format!("{base}/api/v1/scan"))
        .send_empty()
        .unwrap();
    let job = gen::wait_idle(&agent, &base);
    println!(
        "warm rescan: {:>7.2} s  ({})",
        t.elapsed().as_secs_f64(),
        job["last"]["message"]
    );
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .map_or("?", |l| l[name.len()..].trim())
            .to_string()
    };
    // Reads map the database file (see `store::db`): its pages count in the peak
    // resident size, though they are the kernel's page cache, not the service's heap.
    println!(
        "server peak memory: {} (now: {} anonymous, {} of mapped files)",
        field("VmHWM:"),
        field("RssAnon:"),
        field("RssFile:")
    );
    let _ = child.kill();
}
