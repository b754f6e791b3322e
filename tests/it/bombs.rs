//! Hostile files through the real binary (#48): the product bombs (an XCI whose root
//! lists one partition thousands of times, an NSZ whose entries all point at one
//! NCZ), an NSZ whose declared sizes wrap a sum, and a keyed NSP with a ticket cut
//! to a few bytes. Each is made by `kit::bombs` at the size. What
//! must hold: the scan, the Tasks page, convert, verify, compress and the shop read
//! each within 64 MiB of private memory above idle and within 5 s, the file ends
//! flagged damaged with its reason, and the service answers throughout.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::kit::bombs;
use ludotheque::testkit::synth;
use serde_json::Value;

use crate::harness::{Folders, TestServer};

/// The server's private memory (RssAnon), in KiB.
pub(crate) fn rss_anon(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Samples the server's RssAnon every 5 ms and `/api/v1/health` every 100 ms until
/// dropped: the peak, and the slowest health answer (a probe unanswered in 2 s is a
/// failure).
pub(crate) struct Watch {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    slowest: Arc<AtomicU64>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Watch {
    pub(crate) fn start(s: &TestServer) -> Watch {
        let (stop, peak, slowest) = Default::default();
        let mut w = Watch {
            stop,
            peak,
            slowest,
            threads: Vec::new(),
        };
        let (pid, stop, peak) = (s.pid(), Arc::clone(&w.stop), Arc::clone(&w.peak));
        w.threads.push(std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                peak.fetch_max(rss_anon(pid), Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(5));
            }
        }));
        let url = format!("{}/api/v1/health", s.base);
        let (stop, slowest) = (Arc::clone(&w.stop), Arc::clone(&w.slowest));
        w.threads.push(std::thread::spawn(move || {
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .timeout_global(Some(Duration::from_secs(2)))
                .http_status_as_error(false)
                .build()
                .into();
            while !stop.load(Ordering::SeqCst) {
                let t = Instant::now();
                let answered = agent.get(&url).call().is_ok_and(|r| r.status() == 200);
                let ms = if answered {
                    t.elapsed().as_millis() as u64
                } else {
                    u64::MAX
                };
                slowest.fetch_max(ms, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(100));
            }
        }));
        w
    }

    /// (peak RssAnon in KiB, slowest health answer in ms).
    pub(crate) fn end(mut self) -> (u64, u64) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            t.join().unwrap();
        }
        (
            self.peak.load(Ordering::SeqCst),
            self.slowest.load(Ordering::SeqCst),
        )
    }
}

/// Made-up console keys in the data folder.
fn write_keys(folders: &Folders, seed: u64) {
    use crate::kit::keyed::{KeysFile, TestKeys};
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, TestKeys::new(seed).prod_keys_file(KeysFile::Full)).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
}

fn game(s: &TestServer, key: &str) -> Value {
    let path = key.replace('[', "%5B").replace(']', "%5D");
    let r = s.get(&format!("/api/v1/library/{path}"));
    assert_eq!(r.status, 200, "{key}: {r:?}");
    r.json()
}

/// `key` is in the library, not playable, its note the reason.
fn assert_damaged(s: &TestServer, key: &str, reason: &str) {
    let g = game(s, key);
    assert_eq!(g["playable"], false, "{g}");
    let note = g["note"].as_str().unwrap_or_default();
    assert!(note.contains(reason), "{key}: {note:?} lacks {reason:?}");
}

/// Run `what`, then wait for the task it starts; the memory above `idle` and the
/// time it took stay within the bounds, and health answered throughout.
fn within_bounds(s: &TestServer, idle: u64, label: &str, what: impl FnOnce()) {
    let watch = Watch::start(s);
    let started = Instant::now();
    what();
    s.wait_idle();
    let took = started.elapsed();
    let (peak, slowest) = watch.end();
    let above = peak.saturating_sub(idle);
    eprintln!("{label}: {took:?}, RssAnon peak {peak} KiB ({above} KiB above idle), health slowest {slowest} ms");
    assert!(above <= 64 * 1024, "{label}: {above} KiB above idle");
    assert!(took <= Duration::from_secs(5), "{label}: took {took:?}");
    assert!(slowest < 2000, "{label}: health went unanswered");
}

#[test]
fn product_bombs_and_wrapping_sizes_are_damaged_files_not_a_fallen_service() {
    let folders = Folders::new();
    let good = synth::pfs0(&[("a.tik".into(), vec![1; 64])]);
    std::fs::write(
        folders.library.join("good[0100000000010000][v0].nsp"),
        &good,
    )
    .unwrap();
    // With console keys, so that verify and compress read the files too.
    write_keys(&folders, 49);
    let password = folders.add_console("salon");
    let s = TestServer::start_on(folders.clone(), &["--watch", "off"]);
    s.wait_idle();
    std::thread::sleep(Duration::from_millis(300));
    let idle = rss_anon(s.pid());

    // The sizes: a 2.1 MB cartridge of 16,300 × 16,300 entries, a 3 MB NSZ
    // of 43,000 entries over one NCZ of 16,383 sections and 262,144 blocks.
    let lib = &folders.library;
    let xci = bombs::xci_product(16_300, 16_300);
    assert!(xci.len() < 3 << 20, "{}", xci.len());
    std::fs::write(lib.join("bomb.xci"), &xci).unwrap();
    let nsz = bombs::nsz_product(43_000, 16_383, 262_143);
    assert!(nsz.len() < 4 << 20, "{}", nsz.len());
    std::fs::write(lib.join("bomb.nsz"), &nsz).unwrap();
    std::fs::write(lib.join("wrap.nsz"), bombs::nsz_wrapping()).unwrap();

    within_bounds(&s, idle, "scan", || {
        assert_eq!(s.post("/api/v1/scan").status, 202);
    });
    let run = s.get("/api/v1/job").json();
    assert_eq!(run["last"]["result"], "partial", "{run}");
    assert_damaged(&s, "bomb.xci", "share the same bytes");
    assert_damaged(&s, "bomb.nsz", "share the same bytes");
    assert_eq!(game(&s, "good[0100000000010000][v0].nsp")["playable"], true);

    // The wrapping NSZ reads as a container; its sizes are seen when planned: by the
    // Tasks page (an admin's: the loopback rule), which flags it.
    let wrap = "wrap.nsz";
    within_bounds(&s, idle, "tasks page", || {
        assert_eq!(s.get("/tasks").status, 200);
    });
    assert_damaged(&s, wrap, "more bytes than its compressed data can hold");
    // Never planned again, and no convert fills the disk with it.
    within_bounds(&s, idle, "convert", || {
        assert_eq!(s.post("/api/v1/convert").status, 202);
    });
    let left: u64 = crate::harness::files_under(lib)
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    assert!(left < 16 << 20, "the library grew to {left} bytes");
    within_bounds(&s, idle, "verify", || {
        assert_eq!(s.post("/api/verify").status, 202);
    });
    within_bounds(&s, idle, "compress", || {
        assert_eq!(s.post("/api/v1/compress").status, 202);
    });
    // The shop lists what it lists to a console, and answers.
    let auth = crate::harness::basic("salon", &password);
    within_bounds(&s, idle, "shop", || {
        let tinfoil = crate::shop::tinfoil(&auth);
        let headers: Vec<(&str, &str)> = tinfoil.iter().map(|(k, v)| (*k, v.as_str())).collect();
        assert_eq!(s.send("GET", "/", &headers, None).status, 200);
    });
    assert_eq!(s.get("/api/v1/health").status, 200);
}

/// A keyed NSP whose ticket is cut to 0 to 3 bytes once panicked the title-key lookup,
/// and the scan re-raised it: every scan, the watch's too, ended "failed". Now the
/// file is read as far as it can be, says why, and the others are read as usual;
/// verify and compress go through it too.
#[test]
fn a_ticket_of_a_few_bytes_fails_no_task() {
    use crate::kit::keyed::{self, TestKeys, Title};
    let folders = Folders::new();
    let keys = TestKeys::new(48);
    write_keys(&folders, 48);
    let lib = &folders.library;
    for (name, cut) in [("short0.nsp", 0), ("short2.nsp", 2), ("short3.nsp", 3)] {
        let title = Title {
            titlekey: true,
            ..Title::application(0x0100_0000_00C0_0000 + (cut << 16))
        };
        let mut files = keyed::nsp_files(&keys, &[title]);
        for f in files.iter_mut().filter(|f| f.0.ends_with(".tik")) {
            f.1.truncate(cut as usize);
        }
        std::fs::write(lib.join(name), synth::pfs0(&files)).unwrap();
    }
    let whole = keyed::nsp(&keys, &[Title::application(0x0100_0000_00D0_0000)]);
    std::fs::write(lib.join("whole.nsp"), whole).unwrap();
    let s = TestServer::start_on(folders.clone(), &["--watch", "off"]);
    let scan = s.wait_idle();
    assert_ne!(scan["last"]["result"], "failed", "{scan}");
    let g = game(&s, "whole.nsp");
    assert_eq!(
        (g["identified_by"].as_str(), g["playable"].as_bool()),
        (Some("keys"), Some(true)),
        "{g}"
    );
    for name in ["short0.nsp", "short2.nsp", "short3.nsp"] {
        let g = game(&s, name);
        let note = g["note"].as_str().unwrap_or_default();
        assert!(note.contains("its ticket is malformed"), "{name}: {g}");
    }
    assert_eq!(s.post("/api/verify").status, 202);
    assert_ne!(s.wait_idle()["last"]["result"], "failed");
    let r = s.post("/api/v1/compress");
    assert_eq!(r.status, 202, "{r:?}");
    assert_ne!(s.wait_idle()["last"]["result"], "failed");
    assert_eq!(s.get("/api/v1/health").status, 200);
}
