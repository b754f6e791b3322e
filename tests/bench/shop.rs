//! Shop benchmark (not a test): a library of N generated games (default 10,000) with
//! title data, one console, then, each beside its bound measured in the same run:
//!
//! - the Tinfoil index (which CyberFoil asks on every opening), CyberFoil's sections, a
//!   listing folder and `versions.txt`, 16 connections (wrk, Basic credentials and
//!   CyberFoil's headers on every request), against a bare tiny_http answering the
//!   same bytes with as many threads as the service has workers; and the service's
//!   memory above idle once every form was served;
//! - a 1 GiB file, in the page cache, downloaded whole by the service and by a bare
//!   tiny_http serving the same file, in turns (`gen::alternate`), each with its
//!   median and spread;
//! - `/api/v1/health` p99 while four consoles download that file, and without them.
//!
//! ```text
//! apt-get install wrk
//! cargo test --release --test bench_shop -- [N] [SECONDS]
//! ```

#[path = "gen.rs"]
mod gen;

use std::io::{Read, Seek, SeekFrom, Write};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64ct::{Base64, Encoding};

const GIB: u64 = 1024 * 1024 * 1024;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ceiling") => return gen::ceiling(Some(std::fs::read(&args[1]).unwrap()), None),
        Some("file") => return gen::ceiling(None, Some(args[1].clone().into())),
        _ => {}
    }
    let nums: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let n = nums.first().copied().unwrap_or(10_000);
    let seconds = nums.get(1).copied().unwrap_or(10);
    if Command::new("wrk").arg("--version").output().is_err() {
        eprintln!("wrk is needed: apt-get install wrk");
        std::process::exit(2);
    }
    let tmp = tempfile::tempdir().unwrap();
    let (lib, data) = (tmp.path().join("library"), tmp.path().join("data"));
    gen::generate(&lib, n);
    let versions = gen::title_data(tmp.path(), n);
    gen::cli(&data, &["titles", "import", versions.to_str().unwrap()]);
    let big = grow_to_a_gib(&lib);
    let consoles: Vec<String> = (0..5).map(|i| console(&data, &format!("c{i}"))).collect();
    let (server, base) = gen::start_server(&data, &lib);
    let agent: ureq::Agent = gen::agent();
    gen::wait_idle(&agent, &base);
    let pid = server.id();
    let idle = rss_kib(pid);
    println!("{n} games, wrk -t2 -c16 -d{seconds}s; bound: bare tiny_http, same bytes");
    println!(
        "{:<22} {:>9} {:>9} {:>8} {:>8} | {:>9} {:>8} {:>8} {:>6}",
        "form", "bytes", "req/s", "p50 ms", "p99 ms", "bound", "p50 ms", "p99 ms", "ratio"
    );
    let auth = &consoles[0];
    let forms = [
        ("tinfoil index", "/"),
        ("cyberfoil sections", "/api/shop/sections"),
        ("listing, updates/", "/shop/files/updates/"),
        ("versions.txt", "/shop/versions.txt"),
    ];
    for (label, path) in forms {
        form_row(&agent, &base, tmp.path(), label, path, auth, seconds);
    }
    let above = rss_kib(pid).saturating_sub(idle);
    println!(
        "memory: {:.1} MiB above idle after every form ({:.1} MiB idle)",
        above as f64 / 1024.0,
        idle as f64 / 1024.0
    );
    download_rows(&agent, &base, &big, &lib, &consoles, seconds);
}

/// One form through the service and through the bound, printed on one row.
fn form_row(
    agent: &ureq::Agent,
    base: &str,
    tmp: &std::path::Path,
    label: &str,
    path: &str,
    auth: &str,
    seconds: usize,
) {
    // What CyberFoil sends with each request for the shop (shopInstall.cpp): its
    // agent is `tinfoil`, with Tinfoil's headers; Tinfoil's own requests match too.
    let headers = [
        ("Authorization", auth),
        ("Theme", "Awoo-Installer"),
        ("User-Agent", "tinfoil"),
    ];
    let mut rq = agent.get(&format!("{base}{path}"));
    for (k, v) in headers {
        rq = rq.header(k, v);
    }
    let body = rq.call().unwrap().body_mut().read_to_vec().unwrap();
    let file = tmp.join("body");
    std::fs::write(&file, &body).unwrap();
    let (mut bound, bound_base) = gen::spawn_ceiling("ceiling", &file);
    let flags: Vec<String> = headers
        .iter()
        .flat_map(|(k, v)| ["-H".to_string(), format!("{k}: {v}")])
        .chain(["-c16".to_string()])
        .collect();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let url = format!("{base}{path}");
    gen::wrk(&url, 1, None, &flags);
    let (rps, p50, p99) = gen::wrk(&url, seconds, None, &flags);
    gen::wrk(&bound_base, 1, None, &flags);
    let (b_rps, b_p50, b_p99) = gen::wrk(&bound_base, seconds, None, &flags);
    let _ = bound.kill();
    println!(
        "{label:<22} {:>9} {rps:>9.0} {p50:>8.2} {p99:>8.2} | {b_rps:>9.0} {b_p50:>8.2} {b_p99:>8.2} {:>5.0}%",
        body.len(),
        100.0 * rps / b_rps
    );
}

/// The 1 GiB download, service against bound, then the API's latency under four
/// consoles downloading.
fn download_rows(
    agent: &ureq::Agent,
    base: &str,
    big: &std::path::Path,
    lib: &std::path::Path,
    consoles: &[String],
    seconds: usize,
) {
    // Rescan so the grown file has its new size, then find it by its key.
    agent
        .post(&format!("{base}/api/v1/scan"))
        .send_empty()
        .unwrap();
    gen::wait_idle(agent, base);
    let key = big.strip_prefix(lib).unwrap().to_str().unwrap();
    let path: Vec<String> = key
        .split('/')
        .map(|s| {
            percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
        })
        .collect();
    let url = format!("{base}/shop/files/{}", path.join("/"));
    let _ = std::fs::read(big).map(|b| b.len()); // into the page cache
    let (mut bound, bound_base) = gen::spawn_ceiling("file", big);
    let mbs = |s: f64| GIB as f64 / s / 1e6;
    // The service and its bound take turns, so that the machine's drift touches both.
    let [service, bare] = gen::alternate(
        gen::ROUNDS,
        [&mut || mbs(fetch(agent, &url, &consoles[0])), &mut || {
            mbs(fetch(agent, &bound_base, ""))
        }],
    );
    let _ = bound.kill();
    println!(
        "1 GiB download, MB/s, median (spread) of {} rounds in turns: service {}, bare tiny_http {}: {:.0}%",
        gen::ROUNDS,
        service.show(0),
        bare.show(0),
        100.0 * service.over(&bare)
    );
    let health = format!("{base}/api/v1/health");
    gen::wrk(&health, 1, None, &["-c4"]);
    let (_, _, quiet) = gen::wrk(&health, seconds.min(5), None, &["-c4"]);
    let stop = Arc::new(AtomicBool::new(false));
    let downloads: Vec<_> = consoles[1..5]
        .iter()
        .map(|auth| {
            let (agent, url, auth, stop) = (agent.clone(), url.clone(), auth.clone(), stop.clone());
            std::thread::spawn(move || paced(&agent, &url, &auth, &stop))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let (rps, p50, p99) = gen::wrk(&health, seconds.min(5), None, &["-c4"]);
    stop.store(true, Ordering::Relaxed);
    let mib: u64 = downloads
        .into_iter()
        .map(|d| d.join().unwrap())
        .sum::<u64>()
        >> 20;
    println!(
        "/api/v1/health with 4 consoles downloading at {PACE_MB_S} MB/s each: {rps:.0} req/s, p50 {p50:.2} ms, p99 {p99:.2} ms ({quiet:.2} ms without; {mib} MiB downloaded meanwhile)"
    );
}

/// What a console reads at: four of them fill a gigabit link (117 MB/s), the most a
/// home network gives them. At full loopback speed the benchmark's own clients, not
/// consoles on a network, would take the two cores.
const PACE_MB_S: u64 = 30;

/// Download the file again and again at [`PACE_MB_S`] until `stop`; returns the bytes.
fn paced(agent: &ureq::Agent, url: &str, auth: &str, stop: &AtomicBool) -> u64 {
    let started = Instant::now();
    let mut total = 0u64;
    let mut buf = vec![0u8; 1 << 20];
    while !stop.load(Ordering::Relaxed) {
        let mut resp = agent.get(url).header("Authorization", auth).call().unwrap();
        let mut reader = resp.body_mut().with_config().limit(u64::MAX).reader();
        while !stop.load(Ordering::Relaxed) {
            let k = reader.read(&mut buf).unwrap();
            if k == 0 {
                break;
            }
            total += k as u64;
            let due = Duration::from_secs_f64(total as f64 / (PACE_MB_S as f64 * 1e6));
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                std::thread::sleep(wait);
            }
        }
    }
    total
}

/// Seconds to GET a URL whole into a sink.
fn fetch(agent: &ureq::Agent, url: &str, auth: &str) -> f64 {
    let started = Instant::now();
    let mut rq = agent.get(url);
    if !auth.is_empty() {
        rq = rq.header("Authorization", auth);
    }
    let mut resp = rq.call().unwrap();
    assert_eq!(resp.status(), 200, "{url}");
    let mut reader = resp.body_mut().with_config().limit(u64::MAX).reader();
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let k = reader.read(&mut buf).unwrap();
        if k == 0 {
            break;
        }
        total += k as u64;
    }
    assert!(total >= GIB, "{total}");
    started.elapsed().as_secs_f64()
}

/// Grow the first generated base game to 1 GiB of non-zero bytes after its header.
fn grow_to_a_gib(lib: &std::path::Path) -> std::path::PathBuf {
    let mut files: Vec<_> = walk(lib);
    files.sort();
    let path = files
        .into_iter()
        .find(|p| p.to_string_lossy().contains("000][v0]"))
        .unwrap();
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let end = f.seek(SeekFrom::End(0)).unwrap();
    let chunk: Vec<u8> = (0..8 << 20)
        .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut left = GIB - end;
    while left > 0 {
        let k = left.min(chunk.len() as u64) as usize;
        f.write_all(&chunk[..k]).unwrap();
        left -= k as u64;
    }
    path
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Add a console; returns its `Authorization` header value.
fn console(data: &std::path::Path, name: &str) -> String {
    let out = gen::cli(data, &["console", "add", name]);
    let password = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("mot de passe "))
        .unwrap()
        .trim()
        .to_string();
    format!(
        "Basic {}",
        Base64::encode_string(format!("{name}:{password}").as_bytes())
    )
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
