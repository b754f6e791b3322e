//! Scan benchmark (not a test): generates a library of N tiny game files, starts the
//! real server on it, and prints the cold-scan time (first scan of an unknown
//! library), the warm-rescan time (nothing changed) and the server's peak memory,
//! with its private memory (RssAnon) at its peak during each.
//!
//!     cargo test --release --test bench_scan -- [N]        # N defaults to 100000
//!     cargo test --release --test bench_scan -- keys [N]   # N defaults to 10000
//!
//! `keys`: synthetic NSPs under made-up console keys, cold-scanned without a keys
//! file, with one, and with a Control NCA and an icon in each (the icons' own cost),
//! each by a fresh server with its private memory (RssAnon) beside.
//!
//! The files are written just before, so "cold" means a first scan with the files in
//! the page cache, not a cold disk.

#[path = "gen.rs"]
mod gen;

use std::time::Instant;

fn main() {
    let keys = std::env::args().any(|a| a == "keys");
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(if keys { 10_000 } else { 100_000 });
    if keys {
        return keys_rows(n);
    }
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    let t = Instant::now();
    gen::generate(&lib, n);
    println!("generated {n} files in {:.1} s", t.elapsed().as_secs_f64());

    let started = Instant::now();
    let (mut child, base) = gen::start_server(&tmp.path().join("data"), &lib);
    let peak = gen::AnonPeak::start(child.id());
    let agent: ureq::Agent = gen::agent();
    // The first scan starts by itself.
    let job = gen::wait_idle(&agent, &base);
    let cold_peak = peak.take();
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
    let warm_peak = peak.take();
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
    println!(
        "private memory (RssAnon) at its peak: {:.1} MiB during the first scan, {:.1} MiB \
         during the rescan (goal: <= 100 MiB at 100,000 files, <= 40 MiB at 10,000)",
        gen::mib(cold_peak),
        gen::mib(warm_peak)
    );
    let _ = child.kill();
}

/// `-- keys [N]`: a cold scan of N synthetic keyed NSPs (default 10,000) without a
/// keys file, then with one, then of NSPs that also carry a Control NCA with an icon,
/// each by a fresh server on a fresh data folder, with its private memory.
fn keys_rows(n: usize) {
    use ludotheque::testkit::synth::keyed::{self, KeysFile, TestKeys, Title};
    let tmp = tempfile::tempdir().unwrap();
    let keys = TestKeys::new(1);
    let write = |dir: &std::path::Path, control: bool| {
        std::fs::create_dir_all(dir).unwrap();
        for i in 0..n {
            let id = 0x0100_0000_0000_0000 | ((i as u64 + 1) << 13);
            let title = Title {
                control,
                icon: control,
                program_size: 0x4000,
                ..Title::application(id)
            };
            // Tagged, so that the scan without keys identifies the same titles (and the
            // titles' model has the same work after both).
            let name = keyed::tagged_name(&format!("g{i}"), id, 0, "nsp");
            std::fs::write(dir.join(name), keyed::nsp(&keys, &[title])).unwrap();
        }
    };
    let t = Instant::now();
    let (plain, with_icons) = (tmp.path().join("plain"), tmp.path().join("icons"));
    write(&plain, false);
    write(&with_icons, true);
    println!(
        "generated 2 × {n} keyed NSPs in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let keys_text = keys.prod_keys_file(KeysFile::Full);
    let run = |name: &str, lib: &std::path::Path, with_keys: bool| -> f64 {
        let data = tmp.path().join(format!("data-{name}"));
        std::fs::create_dir_all(&data).unwrap();
        if with_keys {
            let path = data.join("prod.keys");
            std::fs::write(&path, &keys_text).unwrap();
            let private = std::os::unix::fs::PermissionsExt::from_mode(0o600);
            std::fs::set_permissions(&path, private).unwrap();
        }
        let started = Instant::now();
        let (mut child, base) = gen::start_server(&data, lib);
        let agent: ureq::Agent = gen::agent();
        let job = gen::wait_idle(&agent, &base);
        let secs = started.elapsed().as_secs_f64();
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
        let anon = status
            .lines()
            .find(|l| l.starts_with("RssAnon:"))
            .map_or("?", |l| l["RssAnon:".len()..].trim())
            .to_string();
        println!(
            "{name:<34} {secs:>7.2} s  {:>7.0} files/s  RssAnon {anon:>10}  ({})",
            n as f64 / secs,
            job["last"]["message"]
        );
        let _ = child.kill();
        secs
    };
    let keyless = run("cold scan, no keys file", &plain, false);
    let keyed_time = run("cold scan with keys, no Control", &plain, true);
    let icons = run("cold scan with keys, Control+icon", &with_icons, true);
    // The bound of the icons' row: this disk creating as many small files the way the
    // icon cache does (written aside, then renamed), by itself.
    let bound = tmp.path().join("bound");
    std::fs::create_dir_all(&bound).unwrap();
    let jpeg = keyed::content::jpeg(1);
    let t = Instant::now();
    for i in 0..n {
        let part = bound.join(format!("{i}.part"));
        std::fs::write(&part, &jpeg).unwrap();
        std::fs::rename(&part, bound.join(i.to_string())).unwrap();
    }
    let disk = t.elapsed().as_secs_f64();
    println!(
        "the disk alone: {n} files of {} B written and renamed in {disk:.2} s ({:.0} µs a file)",
        jpeg.len(),
        disk * 1e6 / n as f64
    );
    println!(
        "keyed / keyless: {:.2}× (goal ≤ 2×); the icons' own cost: {:+.2} s ({:.0} µs a title)",
        keyed_time / keyless,
        icons - keyed_time,
        (icons - keyed_time) * 1e6 / n as f64
    );
}
