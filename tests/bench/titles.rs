//! Title data benchmark (not a test): the import of the real `versions.txt` and
//! `versions.json` (the copies in `tests/fixtures/titledb/`) and of a synthetic region
//! file of about 100 MB, each through the binary (`ludotheque titles import`), with
//! the bounds measured in the same run: reading the same files (`cat` to /dev/null)
//! for time, and the peak memory of a command that imports nothing
//! (`ludotheque titles status` on the same data folder) for memory. Then a hostile
//! region file of 64 MiB whose one entry holds a single huge field
//! (`"name": [0,0,0,…]`), which must not cost more memory than a normal import. Beside
//! the peak resident memory it prints the peak private memory (RssAnon, sampled from
//! the child's /proc/PID/status: the heap, not the binary's pages) and the CPU time,
//! which a busy machine disturbs less than the wall time.
//!
//!     cargo test --release --test bench_titles -- [REGION_MB]

#[path = "gen.rs"]
mod gen;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn main() {
    let mb: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/titledb");
    let versions = [
        fixtures.join("versions.txt"),
        fixtures.join("versions.json"),
    ];
    let region = region_file(tmp.path(), mb);
    let huge = huge_field_file(tmp.path(), 64);
    let idle = run(&data, &["titles", "status"]);
    println!(
        "{:<40} {:>9} {:>9} {:>14} {:>16} {:>16}",
        "import", "seconds", "cpu s", "cat seconds", "peak MiB (idle)", "RssAnon (idle)"
    );
    for (label, files) in [
        ("versions.txt + versions.json", &versions[..]),
        ("region file", std::slice::from_ref(&region)),
        ("region file, one 64 MiB field", std::slice::from_ref(&huge)),
    ] {
        let size: u64 = files.iter().map(|f| f.metadata().unwrap().len()).sum();
        let cat = time(|| {
            let ok = Command::new("cat")
                .args(files)
                .stdout(std::process::Stdio::null())
                .status();
            assert!(ok.unwrap().success());
        });
        let mut args = vec!["titles", "import"];
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        let started = Instant::now();
        let got = run(&data, &args);
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{:<40} {seconds:>9.2} {:>9.2} {cat:>14.3} {:>8.1} ({:.1}) {:>8.1} ({:.1})   {:.0} MB, \
             {:.1} MiB above idle",
            label,
            got.cpu,
            mib(got.peak),
            mib(idle.peak),
            mib(got.anon),
            mib(idle.anon),
            size as f64 / 1e6,
            mib(got.peak.saturating_sub(idle.peak))
        );
        for line in got.said.lines() {
            println!("    {line}");
        }
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn time(f: impl FnOnce()) -> f64 {
    let started = Instant::now();
    f();
    started.elapsed().as_secs_f64()
}

/// What a run of the binary cost, and what it printed.
struct Run {
    /// Peak resident memory in KiB, from the kernel's accounting of that one child.
    peak: u64,
    /// Peak private memory (RssAnon) in KiB, sampled every 5 ms.
    anon: u64,
    /// User and system CPU seconds.
    cpu: f64,
    said: String,
}

/// Run a command of the binary; it must succeed.
fn run(data: &Path, args: &[&str]) -> Run {
    // Only `serve` creates a missing data folder.
    std::fs::create_dir_all(data).unwrap();
    use std::io::Read;
    // Waited for below with wait4, which std cannot do: it returns the child's rusage.
    #[allow(clippy::zombie_processes)]
    let mut child = Command::new(env!("CARGO_BIN_EXE_ludotheque"))
        .args(["--data", data.to_str().unwrap(), "--log-level", "warn"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let sampler = gen::sample_anon(child.id());
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child, not yet waited for.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert!(
        pid > 0 && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{args:?}"
    );
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Run {
        peak: usage.ru_maxrss as u64,
        anon: sampler.join().unwrap(),
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        said: out,
    }
}

/// A region file of `mib` MiB whose first entry's name is one array of zeros, as a
/// hostile source could serve; a normal entry follows it.
fn huge_field_file(dir: &Path, mib: usize) -> PathBuf {
    use std::io::Write;
    let dir = dir.join("huge");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("US.en.json");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    write!(out, "{{\"1\": {{\"id\": \"0100000000010000\", \"name\": [0").unwrap();
    for _ in 0..(mib << 20) / 2 {
        out.write_all(b",0").unwrap();
    }
    writeln!(
        out,
        "]}}, \"2\": {{\"id\": \"0100000000020000\", \"name\": \"Fine\"}}}}"
    )
    .unwrap();
    path
}

/// A region file of about `mb` MB in the blawar/titledb shape: an object of entries
/// keyed by eShop ID, each with the fields we keep and long ones we do not.
fn region_file(dir: &Path, mb: usize) -> PathBuf {
    use std::io::Write;
    let path = dir.join("US.en.json");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let description = "A long description of the game, as the eShop writes it. ".repeat(20);
    let screenshots: Vec<String> = (0..6)
        .map(|i| format!("\"https://img-eshop.cdn.nintendo.net/i/{i:064x}.jpg\""))
        .collect();
    write!(out, "{{").unwrap();
    let mut written = 0;
    let mut i = 0;
    while written < mb * 1_000_000 {
        let entry = format!(
            "{}\"{}\": {{\"id\": \"{:016X}\", \"name\": \"{}\", \"publisher\": \"Studio {}\", \
             \"releaseDate\": 2020{:02}{:02}, \"iconUrl\": \"https://img-eshop.cdn.nintendo.net/i/{i:064x}.jpg\", \
             \"size\": {}, \"description\": \"{description}\", \"screenshots\": [{}], \
             \"languages\": [\"en\", \"fr\", \"de\"], \"rating\": 12}}",
            if i == 0 { "" } else { "," },
            70010000000000u64 + i as u64,
            gen::title_id(i * 3),
            gen::name(i),
            i % 97,
            i % 12 + 1,
            i % 28 + 1,
            1_000_000 + i,
            screenshots.join(", "),
        );
        written += entry.len();
        out.write_all(entry.as_bytes()).unwrap();
        i += 1;
    }
    writeln!(out, "}}").unwrap();
    path
}
