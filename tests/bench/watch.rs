//! Watch benchmark (not a test): what watching costs at idle, and how soon a new file
//! is listed.
//!
//!     cargo test --release --test bench_watch -- [N] [SECONDS]
//!
//! N tiny game files (10,000 by default) are generated and organized with the default
//! template (one folder per game: about N/3 folders, as a tidy library has). For each
//! `--watch` mode the real server runs idle for SECONDS (30 by default) and its CPU
//! time is read from `/proc`; `off` is the bound, the same server watching nothing.
//! Then a new file is written three times per mode, and the time from its last write
//! to its listing by `/api/v1/library/{key}` is printed (the design's floor is the 3 s
//! a file must stay still).

#[path = "gen.rs"]
mod gen;

use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<u64>().ok());
    let n = args.next().unwrap_or(10_000) as usize;
    let seconds = args.next().unwrap_or(30);
    let tmp = tempfile::tempdir().unwrap();
    let (lib, data) = (tmp.path().join("library"), tmp.path().join("data"));
    gen::generate(&lib, n);
    gen::cli(&data, &["--library", lib.to_str().unwrap(), "scan"]);
    gen::cli(&data, &["--library", lib.to_str().unwrap(), "organize"]);
    let folders = count_folders(&lib);
    println!("{n} files in {folders} folders; idle for {seconds} s per mode");
    println!(
        "{:<6} {:>12} {:>16}",
        "watch", "CPU % idle", "listed after (s)"
    );
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    for mode in ["off", "poll", "auto"] {
        let (server, base) = gen::start_server_with(&data, &lib, &["--watch", mode]);
        std::thread::sleep(Duration::from_secs(3));
        let before = cpu_ticks(server.id());
        std::thread::sleep(Duration::from_secs(seconds));
        let used = (cpu_ticks(server.id()) - before) as f64 / ticks;
        let percent = 100.0 * used / seconds as f64;
        let latencies: Vec<String> = match mode {
            "off" => vec!["-".into()],
            _ => (0..3)
                .map(|i| format!("{:.1}", listed_after(&lib, &base, mode, i)))
                .collect(),
        };
        println!("{mode:<6} {percent:>12.2} {:>16}", latencies.join(" "));
    }
}

fn count_folders(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| 1 + count_folders(&e.path()))
        .sum()
}

/// utime + stime of a process, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Write a new game file into a new folder; seconds from the end of the write until
/// the library lists it.
fn listed_after(lib: &std::path::Path, base: &str, mode: &str, i: usize) -> f64 {
    let key = format!("New {mode} {i}/New {mode} {i} [0100F000000{i:02}000][v0].nsp");
    let path = lib.join(&key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"PFS0 not a real container, named like a game").unwrap();
    let written = Instant::now();
    let agent: ureq::Agent = gen::agent();
    let url = format!(
        "{base}/api/v1/library/{}",
        percent_encoding::utf8_percent_encode(&key, percent_encoding::NON_ALPHANUMERIC)
    );
    while written.elapsed() < Duration::from_secs(60) {
        let status = agent.get(&url).call().map(|r| r.status().as_u16());
        if status.is_ok_and(|s| s == 200) {
            return written.elapsed().as_secs_f64();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f64::NAN
}
