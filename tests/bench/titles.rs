//! Title data benchmark (not a test): the import of the real `versions.txt` and
//! `versions.json` (the copies in `tests/fixtures/titledb/`) and of a synthetic region
//! file of about 100 MB, each through the binary (`ludotheque titles import`), with
//! the bounds measured in the same run: reading the same files (`cat` to /dev/null)
//! for time, and the peak memory of a command that imports nothing
//! (`ludotheque titles status` on the same data folder) for memory.
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
    let (idle, _) = run(&data, &["titles", "status"]);
    println!(
        "{:<40} {:>9} {:>14} {:>16}",
        "import", "seconds", "cat seconds", "peak MiB (idle)"
    );
    for (label, files) in [
        ("versions.txt + versions.json", &versions[..]),
        ("region file", std::slice::from_ref(&region)),
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
        let (peak, said) = run(&data, &args);
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{:<40} {seconds:>9.2} {cat:>14.3} {:>8.1} ({:.1})   {:.0} MB, {:.1} MiB above idle",
            label,
            mib(peak),
            mib(idle),
            size as f64 / 1e6,
            mib(peak.saturating_sub(idle))
        );
        for line in said.lines() {
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

/// Run a command of the binary; returns its peak resident memory in KiB, from the
/// kernel's accounting of that one child (wait4), and what it printed.
fn run(data: &Path, args: &[&str]) -> (u64, String) {
    use std::io::Read;
    // Waited for below with wait4, which std cannot do: it returns the child's rusage.
    #[allow(clippy::zombie_processes)]
    let mut child = Command::new(env!("CARGO_BIN_EXE_ludotheque"))
        .args(["--data", data.to_str().unwrap(), "--log-level", "warn"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
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
    (usage.ru_maxrss as u64, out)
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
