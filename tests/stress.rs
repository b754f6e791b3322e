//! Bounded stress runs (each ends by itself; about 90 s in all). They print their
//! figures and fail when a bound of issue #11 is not held:
//!
//!     cargo test --test stress                 # all three, as CI runs them
//!     cargo test --test stress -- abuse timing # some of them
//!
//! - **load**: 200 keep-alive clients for 60 s on library pages and searches: no
//!   transport error, no status other than 200; p50/p99 printed; the server's RSS
//!   after 100,000 requests at most 10 % above its RSS after the first 10,000. The
//!   route mix (20 pages of each listing, 20 searches) is all asked within the first
//!   1,000 requests, so what grows after that is a leak, not a cache filling up. The
//!   baseline is taken at 10,000, not 1,000: at 1,000 the 200 connections' threads
//!   and glibc's arenas are still settling (RSS peaks by 10,000 and then falls back
//!   when the service hands memory back every 10 s), so a 1,000 baseline read growth
//!   anywhere from −13 % to +13 % across CI runs with no leak at all.
//! - **abuse**: 500 idle connections and 50 clients dripping one header byte a second
//!   held open while a normal client asks every 100 ms for 15 s: each of its answers
//!   within 1 s.
//!
//! - **key timing**: 3,000 requests each with a wrong key that differs from a real
//!   one in its first character, and in its last (both with a valid checksum, so
//!   both are looked up): the median answer times must not differ by 20 %.
//!
//! `LUDOTHEQUE_STRESS_SECS` shortens the load run (then the RSS comparison is made at
//! whatever count was reached). Run alone: `cargo test --test stress`.

#[path = "bench/gen.rs"]
mod gen;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const GAMES: usize = 10_000;

fn main() {
    raise_open_files_limit();
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    gen::generate(&lib, GAMES);
    let data = tmp.path().join("data");
    let key = create_key(&data, &lib);
    // Wrong keys are what the timing run sends: lift the per-address limit on them.
    let flags = ["--auth-failures-per-minute", "100000000"];
    let (mut server, base) = gen::start_server_with(&data, &lib, &flags);
    let agent = agent();
    gen::wait_idle(&agent, &base);
    let pid = server.id();
    let secs = std::env::var("LUDOTHEQUE_STRESS_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let load_ok = !run("load") || load(&base, pid, Duration::from_secs(secs));
    let abuse_ok = !run("abuse") || abuse(&base, Duration::from_secs(15));
    let timing_ok = !run("timing") || key_timing(&base, &key);
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        load_ok && abuse_ok && timing_ok,
        "a stress bound was not held (figures above)"
    );
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

fn load(base: &str, pid: u32, duration: Duration) -> bool {
    const CLIENTS: usize = 200;
    let mut urls = Vec::new();
    for page in 1..=20 {
        urls.push(format!("{base}/api/v1/library?page={page}"));
        urls.push(format!("{base}/api/v1/library?type=DLC&page={page}"));
        let i = page * 97;
        urls.push(format!(
            "{base}/api/v1/search?q={}%20{}",
            gen::ADJECTIVES[i % 37],
            gen::NOUNS[(i / 37) % 41]
        ));
    }
    let urls = Arc::new(urls);
    let count = Arc::new(AtomicU64::new(0));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let rss = Arc::new(Mutex::new(Vec::<(u64, u64)>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (urls, count, failures, rss, stop) = (
                urls.clone(),
                count.clone(),
                failures.clone(),
                rss.clone(),
                stop.clone(),
            );
            std::thread::spawn(move || {
                let agent = agent();
                let mut latencies = Vec::new();
                let mut i = c;
                while !stop.load(Ordering::Relaxed) {
                    let url = &urls[i % urls.len()];
                    i += 7;
                    let t = Instant::now();
                    match agent.get(url).call() {
                        Ok(mut r) => {
                            let status = r.status().as_u16();
                            let _ = r.body_mut().read_to_vec();
                            if status != 200 {
                                failures
                                    .lock()
                                    .unwrap()
                                    .push(format!("{status} from {url}"));
                            }
                        }
                        Err(e) => failures.lock().unwrap().push(format!("{e} from {url}")),
                    }
                    latencies.push(t.elapsed().as_micros() as u64);
                    let n = count.fetch_add(1, Ordering::Relaxed) + 1;
                    if [1_000, 10_000, 100_000, 300_000].contains(&n) {
                        rss.lock().unwrap().push((n, rss_kib(pid)));
                    }
                }
                latencies
            })
        })
        .collect();
    while started.elapsed() < duration {
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::Relaxed);
    let mut latencies: Vec<u64> = clients
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    latencies.sort_unstable();
    let total = count.load(Ordering::Relaxed);
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize] as f64 / 1000.0;
    let samples = rss.lock().unwrap().clone();
    let at = |n: u64| samples.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
    let rss_10k = at(10_000).or(at(1_000)).unwrap_or(0);
    let rss_100k = at(100_000);
    let rss_end = rss_100k.unwrap_or_else(|| rss_kib(pid));
    let failures = failures.lock().unwrap();
    println!(
        "load: {CLIENTS} keep-alive clients, {} s, {total} requests ({:.0}/s), p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, {} failed",
        duration.as_secs(),
        total as f64 / started.elapsed().as_secs_f64(),
        pct(0.50),
        pct(0.99),
        pct(1.0),
        failures.len()
    );
    let counted_at = if rss_100k.is_some() {
        "100,000"
    } else {
        "the end"
    };
    let growth = 100.0 * (rss_end as f64 - rss_10k as f64) / rss_10k.max(1) as f64;
    println!(
        "load: server RSS {rss_10k} KiB after 10,000 requests, {rss_end} KiB after {counted_at} ({growth:+.1} %)"
    );
    let all: Vec<String> = samples
        .iter()
        .map(|(n, v)| format!("{n}: {v} KiB"))
        .collect();
    println!("load: RSS samples {}", all.join(", "));
    for f in failures.iter().take(10) {
        println!("load: failed: {f}");
    }
    failures.is_empty() && growth <= 10.0
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn abuse(base: &str, duration: Duration) -> bool {
    let addr = base.trim_start_matches("http://").to_string();
    let idle: Vec<TcpStream> = (0..500)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let cut = Arc::new(AtomicU64::new(0));
    let drips: Vec<_> = (0..50)
        .map(|_| {
            let (addr, stop, cut) = (addr.clone(), stop.clone(), cut.clone());
            std::thread::spawn(move || {
                let request = b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
                while !stop.load(Ordering::Relaxed) {
                    let mut c = TcpStream::connect(&addr).unwrap();
                    for byte in request {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        if c.write_all(&[*byte]).is_err() {
                            cut.fetch_add(1, Ordering::Relaxed);
                            break;
                        }
                        std::thread::sleep(Duration::from_secs(1));
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    let agent = agent();
    let started = Instant::now();
    let (mut asked, mut slowest, mut bad) = (0, Duration::ZERO, 0);
    while started.elapsed() < duration {
        let t = Instant::now();
        let ok = agent
            .get(&format!("{base}/api/v1/library"))
            .call()
            .map(|mut r| r.status() == 200 && r.body_mut().read_to_vec().is_ok())
            .unwrap_or(false);
        slowest = slowest.max(t.elapsed());
        asked += 1;
        bad += u32::from(!ok);
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::Relaxed);
    for d in drips {
        let _ = d.join();
    }
    // The idle connections are still open (the idle timeout is 60 s): each can still
    // be used, so none was stuck.
    let mut alive = 0;
    for mut c in idle {
        let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
        if c.write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            .is_ok()
        {
            let mut buf = [0u8; 16];
            if c.read(&mut buf).is_ok_and(|n| n > 0) {
                alive += 1;
            }
        }
    }
    println!(
        "abuse: 500 idle + 50 dripping connections for {} s: a normal client asked {asked} times, slowest answer {:.1} ms, {bad} failed; {} dripping connections cut by the request timeout; {alive} of 500 idle ones still answered afterwards",
        duration.as_secs(),
        slowest.as_secs_f64() * 1000.0,
        cut.load(Ordering::Relaxed)
    );
    bad == 0 && slowest < Duration::from_secs(1)
}

/// The run holds ~1,000 sockets; the default soft limit is often 1,024.
fn raise_open_files_limit() {
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

fn create_key(data: &std::path::Path, lib: &std::path::Path) -> String {
    // Only `serve` creates a missing data folder.
    std::fs::create_dir_all(data).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ludotheque"))
        .arg("--data")
        .arg(data)
        .arg("--library")
        .arg(lib)
        .args(["apikey", "create", "timing"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .find(|w| w.starts_with("ldq_"))
        .unwrap_or_else(|| panic!("no key in {text:?}"))
        .to_string()
}

/// A real key with one character of its random part changed, and its checksum made
/// right again, so the service has to look it up.
fn near_miss(key: &str, position: usize) -> String {
    const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut random = key.as_bytes()[4..36].to_vec();
    random[position] = if random[position] == b'A' { b'B' } else { b'A' };
    let mut n = crc32fast::hash(&random) as u64;
    let mut check = [b'0'; 6];
    for slot in check.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    format!(
        "ldq_{}{}",
        String::from_utf8(random).unwrap(),
        String::from_utf8(check.to_vec()).unwrap()
    )
}

fn key_timing(base: &str, key: &str) -> bool {
    let agent = agent();
    let url = format!("{base}/api/v1/stats");
    assert_eq!(
        agent
            .get(&url)
            .header("X-Api-Key", key)
            .call()
            .unwrap()
            .status(),
        200
    );
    let keys = [near_miss(key, 0), near_miss(key, 31)];
    let mut times = [Vec::new(), Vec::new()];
    for i in 0..6_000 {
        let which = i % 2;
        let t = Instant::now();
        let r = agent
            .get(&url)
            .header("X-Api-Key", &keys[which])
            .call()
            .unwrap();
        times[which].push(t.elapsed().as_nanos() as u64);
        assert_eq!(r.status(), 401);
    }
    let median = |v: &mut Vec<u64>| {
        v.sort_unstable();
        v[v.len() / 2] as f64 / 1000.0
    };
    let (first, last) = (median(&mut times[0]), median(&mut times[1]));
    let ratio = last / first;
    println!(
        "key timing: median {first:.1} µs for a key wrong from its first character, {last:.1} µs for one right but for its last (ratio {ratio:.3})"
    );
    (0.8..1.25).contains(&ratio)
}
