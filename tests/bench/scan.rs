//! Scan benchmark (not a test): generates a library of N tiny game files with title
//! data for them, and prints, ROUNDS times in turns (default 3), the walk alone
//! (`find` looking at every file: the bound) and the real server's first scan of it
//! (a fresh data folder with the title data imported, the watch off, start to
//! `library_ready`), then its rescan of the unchanged library; each with its median,
//! its spread and the private memory (RssAnon) at its peak, and the load average.
//!
//!     cargo test --release --test bench_scan -- [N] [ROUNDS]   # N defaults to 100000
//!     BENCH_BEFORE=path/to/older/ludotheque cargo test --release --test bench_scan -- [N]
//!     cargo test --release --test bench_scan -- keys [N]   # N defaults to 10000
//!
//!     cargo test --release --test bench_scan -- folders [N] [ROUNDS]
//!
//! `folders`: the same N files in one folder, then spread over 4 library folders (hard
//! links, so the same inodes), cold-scanned in turns; and 3 of those folders with a
//! fourth offline (a folder that is not there) beside the 3 alone: what an offline
//! folder costs.
//!
//! `keys`: synthetic NSPs under made-up console keys, cold-scanned without a keys
//! file, with one, and with a Control NCA and an icon in each (the icons' own cost),
//! each by a fresh server with its private memory (RssAnon) beside.
//!
//! The files are written just before, so "cold" means a first scan with the files in
//! the page cache, not a cold disk.

#[path = "gen.rs"]
mod gen;
#[path = "../kit/mod.rs"]
mod kit;

use std::time::Instant;

fn main() {
    let keys = std::env::args().any(|a| a == "keys");
    let nums: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = nums
        .first()
        .copied()
        .unwrap_or(if keys { 10_000 } else { 100_000 });
    if keys {
        return keys_rows(n);
    }
    let rounds = nums.get(1).copied().unwrap_or(3);
    if std::env::args().any(|a| a == "folders") {
        return folder_rows(n, rounds);
    }
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    let t = Instant::now();
    gen::generate(&lib, n);
    // As a user has it: title data imported before the first scan, so the scan's end
    // computes every title's state and what it lacks. Each cold scan starts from a
    // copy of this data folder.
    let template = tmp.path().join("data-template");
    let versions = gen::title_data(tmp.path(), n);
    gen::cli(&template, &["titles", "import", versions.to_str().unwrap()]);
    println!(
        "generated {n} files and their title data in {:.1} s; {rounds} rounds, in turns",
        t.elapsed().as_secs_f64()
    );
    let load_before = load_average();
    // The bound: the walk alone, every file's size and time looked at (`find`).
    let mut walk = || {
        let t = Instant::now();
        let out = std::process::Command::new("find")
            .arg(&lib)
            .args(["-type", "f", "-printf", "%s %T@\\n"])
            .output()
            .unwrap();
        assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), n);
        t.elapsed().as_secs_f64()
    };
    let mut this = Service::new(&tmp, &lib, &template, None);
    // BENCH_BEFORE: another build of the service (an earlier commit's) scans the same
    // library in the same turns, so that before and after meet the same machine.
    let before = std::env::var_os("BENCH_BEFORE").map(std::path::PathBuf::from);
    let mut other = Service::new(&tmp, &lib, &template, before.clone());
    let mut other_cold = || other.cold();
    let mut this_cold = || this.cold();
    let (bound, cold, other_cold) = match before {
        Some(_) => {
            let [b, c, o] = gen::alternate(rounds, [&mut walk, &mut this_cold, &mut other_cold]);
            (b, c, Some(o))
        }
        None => {
            let [b, c] = gen::alternate(rounds, [&mut walk, &mut this_cold]);
            (b, c, None)
        }
    };
    println!("{n} files, median (lowest–highest) of {rounds} runs:");
    println!("the walk alone (find): {} s", bound.show(2));
    this.show("this build", &cold, &bound);
    if let Some(other_cold) = other_cold {
        other.show("BENCH_BEFORE", &other_cold, &bound);
    }
    println!(
        "load average: {load_before} before, {} after",
        load_average()
    );
}

/// A build of the service, scanning the library from a fresh copy of the data folder
/// each time; what each scan measured.
struct Service<'a> {
    tmp: &'a tempfile::TempDir,
    lib: &'a std::path::Path,
    template: &'a std::path::Path,
    binary: Option<std::path::PathBuf>,
    /// More flags of `serve` (several `--library`, given after the command, where they
    /// replace the one given before it).
    flags: Vec<String>,
    warm: Vec<f64>,
    cold_anon: Vec<f64>,
    warm_anon: Vec<f64>,
}

impl<'a> Service<'a> {
    fn new(
        tmp: &'a tempfile::TempDir,
        lib: &'a std::path::Path,
        template: &'a std::path::Path,
        binary: Option<std::path::PathBuf>,
    ) -> Service<'a> {
        Service {
            tmp,
            lib,
            template,
            binary,
            flags: Vec::new(),
            warm: vec![],
            cold_anon: vec![],
            warm_anon: vec![],
        }
    }

    /// A first scan (returned: start to `library_ready`), then a rescan.
    fn cold(&mut self) -> f64 {
        let round = self.warm.len() + usize::from(self.binary.is_some()) * 1000;
        let data = self.tmp.path().join(format!("data-{round}"));
        copy_folder(self.template, &data);
        match &self.binary {
            Some(path) => std::env::set_var("BENCH_SERVER", path),
            None => std::env::remove_var("BENCH_SERVER"),
        }
        let started = Instant::now();
        // The watch off: the first scan alone, as the issue measures it.
        let mut flags = vec!["--watch", "off"];
        flags.extend(self.flags.iter().map(String::as_str));
        let (child, base) = gen::start_server_with(&data, self.lib, &flags);
        let peak = gen::AnonPeak::start(child.id());
        let agent: ureq::Agent = gen::agent();
        // The first scan starts by itself; the library is ready when it ends.
        let job = gen::wait_idle(&agent, &base);
        let cold = started.elapsed().as_secs_f64();
        self.cold_anon.push(gen::mib(peak.take()));
        println!("  cold scan {cold:.2} s ({})", job["last"]["message"]);
        let t = Instant::now();
        agent
            .post(&format!("{base}/api/v1/scan"))
            .send_empty()
            .unwrap();
        gen::wait_idle(&agent, &base);
        self.warm.push(t.elapsed().as_secs_f64());
        self.warm_anon.push(gen::mib(peak.take()));
        cold
    }

    fn show(&self, label: &str, cold: &gen::Spread, bound: &gen::Spread) {
        println!(
            "{label}: cold scan, start to library_ready: {} s, {:.1}× the walk (goal: ≤ 3 s \
             at 100,000); RssAnon at its peak {} MiB (goal: ≤ 100 at 100,000, ≤ 40 at 10,000)",
            cold.show(2),
            cold.over(bound),
            gen::Spread::of(&self.cold_anon).show(1)
        );
        println!(
            "{label}: rescan, nothing changed: {} s (goal: < 1 s at 100,000); RssAnon at its \
             peak {} MiB",
            gen::Spread::of(&self.warm).show(2),
            gen::Spread::of(&self.warm_anon).show(1)
        );
    }
}

/// The library in one folder against the same files over 4 folders, and 3 folders with
/// a fourth offline against the 3 alone (issue #50's row).
fn folder_rows(n: usize, rounds: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    gen::generate(&lib, n);
    let template = tmp.path().join("data-template");
    let versions = gen::title_data(tmp.path(), n);
    gen::cli(&template, &["titles", "import", versions.to_str().unwrap()]);
    // The same files, hard-linked, a quarter of the folders in each of 4.
    let quarters: Vec<std::path::PathBuf> =
        (0..4).map(|i| tmp.path().join(format!("q{i}"))).collect();
    for (i, entry) in std::fs::read_dir(&lib).unwrap().enumerate() {
        let to = &quarters[i % 4];
        std::fs::create_dir_all(to).unwrap();
        let status = std::process::Command::new("cp")
            .arg("-al")
            .arg(entry.unwrap().path())
            .arg(to)
            .status()
            .unwrap();
        assert!(status.success());
    }
    let library = |folders: &[&std::path::Path]| -> Vec<String> {
        let mut flags = vec!["--library".to_string(), folders[0].display().to_string()];
        for f in &folders[1..] {
            flags.extend(["--library".to_string(), f.display().to_string()]);
        }
        flags
    };
    let q: Vec<&std::path::Path> = quarters.iter().map(|p| p.as_path()).collect();
    let gone = tmp.path().join("gone");
    let mut one = Service::new(&tmp, &lib, &template, None);
    let mut four = Service::new(&tmp, &lib, &template, None);
    four.flags = library(&q);
    let mut three = Service::new(&tmp, &lib, &template, None);
    three.flags = library(&q[..3]);
    let mut offline = Service::new(&tmp, &lib, &template, None);
    offline.flags = library(&[q[0], q[1], q[2], &gone]);
    let [c1, c4, c3, c3o] = gen::alternate(
        rounds,
        [
            &mut || one.cold(),
            &mut || four.cold(),
            &mut || three.cold(),
            &mut || offline.cold(),
        ],
    );
    println!("{n} files, median (lowest–highest) of {rounds} runs, in turns:");
    let row = |label: &str, cold: &gen::Spread, s: &Service| {
        println!(
            "{label}: cold scan {} s, rescan {} s, RssAnon at its peak {} MiB",
            cold.show(2),
            gen::Spread::of(&s.warm).show(2),
            gen::Spread::of(&s.cold_anon).show(1)
        );
    };
    row("one folder", &c1, &one);
    row("4 folders", &c4, &four);
    println!("4 folders against one: {:.2}× (goal: ≤ 1.1×)", c4.over(&c1));
    row("3 folders", &c3, &three);
    row("3 folders and one offline", &c3o, &offline);
    println!(
        "one folder offline costs: {:.2}× the 3 folders alone",
        c3o.over(&c3)
    );
}

/// The one-minute load average, as `/proc/loadavg` says it.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split(' ').next().unwrap_or("?").to_string()
}

/// Copy a data folder's files (the database and its journal) into a new folder.
fn copy_folder(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// `-- keys [N]`: a cold scan of N synthetic keyed NSPs (default 10,000) without a
/// keys file, then with one, then of NSPs that also carry a Control NCA with an icon,
/// each by a fresh server on a fresh data folder, with its private memory.
fn keys_rows(n: usize) {
    use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
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
