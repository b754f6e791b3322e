//! A generated library for the benchmarks: tiny but valid PFS0 files with a ticket
//! inside, in folders of 500; bases, updates and DLC in turn; names from word lists so
//! that searches match a realistic handful.

// Each benchmark and the stress run include this file and use part of it.
#![allow(dead_code)]

pub const ADJECTIVES: [&str; 37] = [
    "brave", "silent", "golden", "lost", "wild", "hidden", "crimson", "frozen", "ancient",
    "little", "super", "mega", "final", "dark", "bright", "royal", "secret", "iron", "crystal",
    "mystic", "rapid", "lucky", "cosmic", "savage", "noble", "shadow", "electric", "gentle",
    "hollow", "epic", "tiny", "grand", "rusty", "sacred", "stormy", "sunny", "velvet",
];
pub const NOUNS: [&str; 41] = [
    "dragon", "knight", "island", "kart", "quest", "legend", "forest", "castle", "planet", "racer",
    "tower", "garden", "ninja", "robot", "pirate", "wizard", "kingdom", "ocean", "temple",
    "galaxy", "farm", "city", "dungeon", "hero", "saga", "party", "arena", "voyage", "circus",
    "mountain", "village", "empire", "odyssey", "station", "harbor", "desert", "jungle",
    "carnival", "academy", "frontier", "valley",
];

pub fn name(i: usize) -> String {
    format!("{} {} {i}", ADJECTIVES[i % 37], NOUNS[(i / 37) % 41])
}

pub fn title_id(i: usize) -> u64 {
    let base = 0x0100_0000_0000_0000u64 + ((i as u64 / 3) << 13);
    match i % 3 {
        0 => base,
        1 => base + 0x800,
        _ => base + 0x1001,
    }
}

pub fn generate(lib: &std::path::Path, n: usize) {
    for i in 0..n {
        let dir = lib.join(format!("folder {:03}", i / 500));
        if i % 500 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let id = title_id(i);
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
        std::fs::write(dir.join(format!("{} [{id:016X}][v0].nsp", name(i))), f).unwrap();
    }
}

/// A child process killed (and reaped) when dropped, so that a panic in a benchmark
/// or a stress run never leaves a server behind.
pub struct Server(pub std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl std::ops::Deref for Server {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}

impl std::ops::DerefMut for Server {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

/// Start the release server on a library; returns it and its base URL.
pub fn start_server(data: &std::path::Path, lib: &std::path::Path) -> (Server, String) {
    start_server_with(data, lib, &[])
}

/// The same, with more `serve` flags.
pub fn start_server_with(
    data: &std::path::Path,
    lib: &std::path::Path,
    flags: &[&str],
) -> (Server, String) {
    use std::io::{BufRead, BufReader};
    // BENCH_LOG=info (or debug) shows the server's log, e.g. the scan's phases.
    let log_level = std::env::var("BENCH_LOG").unwrap_or_else(|_| "warn".into());
    let log = match log_level.as_str() {
        "warn" => std::process::Stdio::null(),
        _ => std::process::Stdio::inherit(),
    };
    // BENCH_SERVER runs another build of the service (an earlier commit's, to compare
    // before and after in the same session on this shared machine).
    let server =
        std::env::var_os("BENCH_SERVER").unwrap_or_else(|| env!("CARGO_BIN_EXE_ludotheque").into());
    let mut child = std::process::Command::new(server)
        .args([
            "--data",
            data.to_str().unwrap(),
            "--library",
            lib.to_str().unwrap(),
        ])
        .args([
            "--log-level",
            &log_level,
            "serve",
            "--listen",
            "127.0.0.1:0",
        ])
        .args(flags)
        .stdout(std::process::Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = format!(
        "http://{}",
        line.trim().trim_start_matches("listening on http://")
    );
    (Server(child), base)
}

/// GET a JSON document.
pub fn get_json(agent: &ureq::Agent, url: &str) -> serde_json::Value {
    let body = agent
        .get(url)
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    serde_json::from_str(&body).unwrap()
}

/// Wait until no task runs.
pub fn wait_idle(agent: &ureq::Agent, base: &str) -> serde_json::Value {
    loop {
        let job = get_json(agent, &format!("{base}/api/v1/job"));
        if job["running"] == false {
            return job;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// A `versions.txt` for the titles of [`generate`]: every base has an update newer
/// than its files (v65536, so every title has an update available), and every third
/// title a second DLC no file has. Returns its path.
#[allow(dead_code)]
pub fn title_data(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    use std::fmt::Write;
    let mut text = String::from("id|rightsId|version\n");
    for t in 0..n.div_ceil(3) {
        let base = title_id(t * 3);
        for (id, version) in [(base, 0), (base + 0x800, 65536), (base + 0x1001, 0)] {
            writeln!(text, "{id:016X}|{:032X}|{version}", 0).unwrap();
        }
        if t % 3 == 0 {
            writeln!(text, "{:016X}|{:032X}|0", base + 0x1002, 0).unwrap();
        }
    }
    let path = dir.join("versions.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// Run a command of the binary on a data folder; panics when it fails.
#[allow(dead_code)]
pub fn cli(data: &std::path::Path, args: &[&str]) -> String {
    // Only `serve` creates a missing data folder.
    std::fs::create_dir_all(data).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ludotheque"))
        .args(["--data", data.to_str().unwrap(), "--log-level", "warn"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Run wrk (2 threads, 64 connections unless `extra` says otherwise, e.g. `-c16`,
/// `-H …`); returns requests/s and the 50th and 99th percentile latencies in ms.
pub fn wrk(
    url: &str,
    seconds: usize,
    script: Option<&std::path::Path>,
    extra: &[&str],
) -> (f64, f64, f64) {
    let mut cmd = std::process::Command::new("wrk");
    let connections = if extra.iter().any(|a| a.starts_with("-c")) {
        None
    } else {
        Some("-c64")
    };
    cmd.args(["-t2", &format!("-d{seconds}s"), "--latency"]);
    cmd.args(connections).args(extra);
    if let Some(script) = script {
        cmd.arg("-s").arg(script);
    }
    let out = cmd.arg(url).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let rps = text
        .lines()
        .find_map(|l| l.strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0);
    let pct = |p: &str| {
        text.lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(p))
            .map(|v| millis(v.trim()))
            .unwrap_or(f64::NAN)
    };
    if text.contains("Non-2xx") {
        eprintln!("warning: non-2xx answers from {url}");
    }
    (rps, pct("50%"), pct("99%"))
}

pub fn millis(v: &str) -> f64 {
    let (num, unit) = v.split_at(v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len()));
    let n: f64 = num.parse().unwrap_or(f64::NAN);
    match unit {
        "us" => n / 1000.0,
        "s" => n * 1000.0,
        _ => n,
    }
}

/// The bound the benchmarks measure against: a bare tiny_http answering a constant
/// body, or streaming a file whole, from a fixed pool of threads (as many as the
/// service has workers), with the service's socket setup. It prints its address,
/// then serves until killed. A benchmark runs it as itself with `ceiling BODY_FILE`
/// or `file FILE` (see [`spawn_ceiling`]).
pub fn ceiling(body: Option<Vec<u8>>, file: Option<std::path::PathBuf>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    socket2::SockRef::from(&listener)
        .set_tcp_nodelay(true)
        .unwrap();
    let server = std::sync::Arc::new(tiny_http::Server::from_listener(listener, None).unwrap());
    println!("http://{}/", server.server_addr().to_ip().unwrap());
    let workers = (std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        * 2)
    .max(4);
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (server, body, file) = (server.clone(), body.clone(), file.clone());
            std::thread::spawn(move || {
                while let Ok(rq) = server.recv() {
                    let _ = match (&body, &file) {
                        (Some(b), _) => rq.respond(tiny_http::Response::from_data(b.clone())),
                        (_, Some(f)) => rq.respond(tiny_http::Response::from_file(
                            std::fs::File::open(f).unwrap(),
                        )),
                        _ => Ok(()),
                    };
                }
            })
        })
        .collect();
    for h in handles {
        let _ = h.join();
    }
}

/// The bound of an upload: a bare tiny_http that writes each request's body, read in
/// 64 KiB pieces, to a file in `dir`, fsyncs it and answers 200 (no parsing, no
/// check). A benchmark runs it as itself with `receive DIR`.
pub fn receiver(dir: std::path::PathBuf) {
    use std::io::Write;
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    println!("http://{}/", server.server_addr().to_ip().unwrap());
    let mut buf = vec![0u8; 64 * 1024];
    while let Ok(mut rq) = server.recv() {
        let path = dir.join("received");
        let mut file = std::fs::File::create(&path).unwrap();
        loop {
            let n = rq.as_reader().read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            file.write_all(&buf[..n]).unwrap();
        }
        file.sync_all().unwrap();
        let _ = rq.respond(tiny_http::Response::empty(200));
    }
}

/// Run this benchmark again as the bound (`mode` is `ceiling` or `file`, see
/// [`ceiling`]); returns it and its base URL, ending in `/`.
pub fn spawn_ceiling(mode: &str, arg: &std::path::Path) -> (Server, String) {
    use std::io::{BufRead, BufReader};
    let mut child = Server(
        std::process::Command::new(std::env::current_exe().unwrap())
            .arg(mode)
            .arg(arg)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, line.trim().to_string())
}

/// Convert's pipeline over the first NCZ of an NSZ held in memory, output discarded:
/// MB/s of NCA (the in-memory bound of `bench_convert` and `bench_verify`).
pub fn ncz_in_memory(nsz: &[u8]) -> f64 {
    use ludotheque::testkit::containers;
    use ludotheque::testkit::ncz;
    let mut cur = std::io::Cursor::new(nsz);
    let fs =
        containers::read_pfs0(&mut cur, 0, nsz.len() as u64, &containers::Budget::file()).unwrap();
    let e = fs
        .entries
        .iter()
        .find(|e| e.name.ends_with(".ncz"))
        .unwrap();
    let header =
        containers::read_ncz(&mut cur, e.offset, e.end(), &containers::Budget::file()).unwrap();
    let t = std::time::Instant::now();
    let mut written = 0u64;
    ncz::decompress(&mut cur, &header, e.end(), &mut std::io::sink(), &mut |n| {
        written += n;
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    written as f64 / 1e6 / t.elapsed().as_secs_f64()
}

/// An HTTP client that returns error statuses as answers (the benches read them).
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// `len` bytes of the program files under `/usr`, read in order, repeated if short.
pub fn program_bytes(len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    let mut stack = vec![std::path::PathBuf::from("/usr")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                stack.push(e.path());
            } else if kind.is_file() && out.len() < len {
                out.extend(std::fs::read(e.path()).unwrap_or_default());
            }
        }
    }
    assert!(!out.is_empty(), "no files under /usr");
    while out.len() < len {
        let more = out[..(len - out.len()).min(out.len())].to_vec();
        out.extend(more);
    }
    out.truncate(len);
    out
}

/// The highest RssAnon (KiB) of process `pid` until it ends (a zombie has none).
pub fn sample_anon(pid: u32) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut peak = 0;
        loop {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            let anon = status
                .lines()
                .find_map(|l| l.strip_prefix("RssAnon:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            match anon {
                Some(kib) => peak = peak.max(kib),
                None => return peak,
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    })
}

/// The private memory (RssAnon, KiB) of process `pid` now; `None` once it has ended.
pub fn anon_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The highest RssAnon of a process, sampled every 5 ms until it ends, read phase by
/// phase: [`AnonPeak::take`] gives the peak since the last take.
pub struct AnonPeak(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl AnonPeak {
    pub fn start(pid: u32) -> AnonPeak {
        use std::sync::atomic::Ordering;
        let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let shared = std::sync::Arc::clone(&peak);
        std::thread::spawn(move || {
            while let Some(kib) = anon_kib(pid) {
                shared.fetch_max(kib, Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        });
        AnonPeak(peak)
    }

    /// The peak (KiB) since the last take.
    pub fn take(&self) -> u64 {
        self.0.swap(0, std::sync::atomic::Ordering::Relaxed)
    }
}

/// KiB as MiB, for the benchmarks' lines.
pub fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Rounds of [`alternate`] unless a benchmark says otherwise: five, so that the median
/// holds when one or two runs fall on a moment the shared machine was busy.
pub const ROUNDS: usize = 5;

/// One measure taken several times: its median, and its spread (lowest and highest).
#[derive(Clone, Copy, Debug)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(runs: &[f64]) -> Spread {
        let mut v = runs.to_vec();
        v.sort_by(f64::total_cmp);
        Spread {
            median: v.get(v.len() / 2).copied().unwrap_or(f64::NAN),
            min: v.first().copied().unwrap_or(f64::NAN),
            max: v.last().copied().unwrap_or(f64::NAN),
        }
    }

    /// `615 (598–640)`: the median, then the spread, with `decimals` after the point.
    pub fn show(&self, decimals: usize) -> String {
        format!(
            "{:.d$} ({:.d$}–{:.d$})",
            self.median,
            self.min,
            self.max,
            d = decimals
        )
    }

    /// This median over another's: the ratio the benchmarks print.
    pub fn over(&self, other: &Spread) -> f64 {
        self.median / other.median
    }
}

/// Take each measure in turn, `rounds` times over (A B C, A B C, …), each one after
/// the kernel has written back whatever the one before left (`sync`): the disk and the
/// CPU of this shared machine drift from one second to the next, and a bound measured
/// apart from its service (all of A, then all of B) decides nothing. Returns each
/// measure's median and spread, in the order given.
pub fn alternate<const N: usize>(
    rounds: usize,
    mut measures: [&mut dyn FnMut() -> f64; N],
) -> [Spread; N] {
    let mut runs: [Vec<f64>; N] = std::array::from_fn(|_| Vec::with_capacity(rounds));
    for _ in 0..rounds {
        for (measure, runs) in measures.iter_mut().zip(runs.iter_mut()) {
            // SAFETY: sync(2) takes no argument and cannot fail.
            unsafe { libc::sync() };
            runs.push(measure());
        }
    }
    runs.map(|r| Spread::of(&r))
}

/// The disk's speed for this many bytes: 4 MiB writes, write-back started every
/// 16 MiB, then fsync. MB/s.
pub fn disk_bound(dir: &std::path::Path, len: usize) -> f64 {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    let path = dir.join("disk-bound");
    let chunk = vec![0x5Au8; 4 << 20];
    let t = std::time::Instant::now();
    let mut f = std::fs::File::create(&path).unwrap();
    let (mut written, mut flushed) = (0usize, 0usize);
    while written < len {
        let n = (len - written).min(chunk.len());
        f.write_all(&chunk[..n]).unwrap();
        written += n;
        if written - flushed >= 16 << 20 {
            // SAFETY: an advisory syscall on a descriptor this function owns.
            unsafe {
                libc::sync_file_range(
                    f.as_raw_fd(),
                    flushed as i64,
                    (written - flushed) as i64,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
            flushed = written;
        }
    }
    f.sync_all().unwrap();
    let speed = len as f64 / 1e6 / t.elapsed().as_secs_f64();
    drop(f);
    std::fs::remove_file(&path).unwrap();
    speed
}
