//! Save backup benchmark (not a test): a save of N MiB (default 256) that does not
//! compress, in a stored zip, uploaded as CyberFoil uploads it (multipart, to
//! `/api/saves/upload/`) and downloaded back (`/api/saves/download/`), by the release
//! service. Beside them, in the same run and in turns (`gen::alternate`, each after a
//! `sync`), the bounds:
//!
//! - the disk: the same bytes written to the same filesystem in 4 MiB writes,
//!   write-back started every 16 MiB, then fsynced: what the upload must come near
//!   (it also checks the archive, every entry read back, and renames it into place);
//! - `cat` of the same file from the page cache: what a download could reach.
//!
//! And the service's private memory (RssAnon) at its peak during each, above idle.
//!
//!     cargo test --release --test bench_saves -- [MiB]

#[path = "gen.rs"]
mod gen;

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use base64ct::{Base64, Encoding};

const TID: &str = "0100ABCD12340000";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("receive") => return gen::receiver(args[1].clone().into()),
        Some("file") => return gen::ceiling(None, Some(args[1].clone().into())),
        _ => {}
    }
    let mib: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(256);
    let tmp =
        tempfile::tempdir_in(std::env::var("BENCH_DIR").unwrap_or_else(|_| "/tmp".into())).unwrap();
    let (lib, data) = (tmp.path().join("library"), tmp.path().join("data"));
    std::fs::create_dir_all(&lib).unwrap();
    let zip = tmp.path().join("save.zip");
    let len = write_save(&zip, mib << 20);
    let user = console(&data);
    let auth = format!("Basic {}", Base64::encode_string(user.as_bytes()));
    let (server, base) =
        gen::start_server_with(&data, &lib, &["--save-max-bytes", &(2 * len).to_string()]);
    let agent = gen::agent();
    gen::wait_idle(&agent, &base);
    let pid = server.id();
    let idle = gen::anon_kib(pid).unwrap_or(0);
    let peak = gen::AnonPeak::start(pid);
    let (mut up_peak, mut down_peak) = (0u64, 0u64);
    let mb = len as f64 / 1e6;
    let recv_dir = tmp.path().join("receiver");
    std::fs::create_dir_all(&recv_dir).unwrap();
    let (mut receiver, receiver_base) = gen::spawn_ceiling("receive", &recv_dir);
    let (mut server_bound, file_base) = gen::spawn_ceiling("file", &zip);
    let [disk, bare_up, up, bare_down, down, cat] = gen::alternate(
        gen::ROUNDS,
        [
            &mut || gen::disk_bound(tmp.path(), len as usize),
            &mut || mb / upload(&receiver_base, &user, &zip),
            &mut || {
                peak.take();
                let s = upload(&format!("{base}/api/saves/upload/{TID}"), &user, &zip);
                up_peak = up_peak.max(peak.take());
                mb / s
            },
            &mut || mb / download(&file_base, &user, len),
            &mut || {
                peak.take();
                let s = download(&format!("{base}/api/saves/download/{TID}"), &user, len);
                down_peak = down_peak.max(peak.take());
                // The version goes to the trash: the next round's upload is the only one.
                let del = agent
                    .delete(&format!("{base}/api/saves/delete/{TID}"))
                    .header("Authorization", &auth)
                    .call()
                    .unwrap();
                assert_eq!(del.status(), 200);
                mb / s
            },
            &mut || mb / cat_seconds(&zip),
        ],
    );
    let _ = (receiver.kill(), server_bound.kill());
    println!(
        "a save of {mib} MiB ({len} bytes), curl, {} rounds; MB/s, median (spread), and the ratio to the disk",
        gen::ROUNDS
    );
    let row = |label: &str, m: &gen::Spread| {
        println!(
            "{label:<44} {:>20} {:>5.0}%",
            m.show(0),
            100.0 * m.over(&disk)
        );
    };
    row("disk: 4 MiB writes, fsync (bound)", &disk);
    row("bare tiny_http: body to a file, fsync", &bare_up);
    row("upload: multipart, checked, fsynced", &up);
    row("bare tiny_http: the file", &bare_down);
    row("download", &down);
    row("cat from the page cache", &cat);
    println!(
        "private memory: {:.1} MiB idle; peak above idle: upload {:.1} MiB, download {:.1} MiB",
        gen::mib(idle),
        gen::mib(up_peak.saturating_sub(idle)),
        gen::mib(down_peak.saturating_sub(idle))
    );
}

/// A stored zip holding `len` bytes that do not compress; its size.
fn write_save(path: &Path, len: usize) -> u64 {
    let file = std::fs::File::create(path).unwrap();
    let mut z = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(len >= (4 << 30));
    z.start_file("save/slot0.bin", opts).unwrap();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut chunk = vec![0u8; 1 << 20];
    for _ in 0..len / chunk.len() {
        for word in chunk.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            word.copy_from_slice(&x.to_le_bytes());
        }
        z.write_all(&chunk).unwrap();
    }
    z.finish()
        .unwrap()
        .into_inner()
        .unwrap()
        .sync_all()
        .unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// A console's `name:password`.
fn console(data: &Path) -> String {
    let out = gen::cli(data, &["console", "add", "bench"]);
    let password = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("mot de passe "))
        .unwrap()
        .trim()
        .to_string();
    format!("bench:{password}")
}

/// CyberFoil's upload of the file as libcurl sends it (`curl -F`, which CyberFoil's
/// `curl_mime` is); seconds.
fn upload(url: &str, user: &str, zip: &Path) -> f64 {
    let t = Instant::now();
    let out = std::process::Command::new("curl")
        .args([
            "-sS",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "-u",
            user,
            "-F",
        ])
        .arg(format!("file=@{}", zip.display()))
        .arg(url)
        .output()
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "200", "{out:?}");
    secs
}

/// The latest version, read to its end by curl; seconds.
fn download(url: &str, user: &str, len: u64) -> f64 {
    let t = Instant::now();
    let out = std::process::Command::new("curl")
        .args([
            "-sS",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{size_download}",
            "-u",
            user,
        ])
        .arg(url)
        .output()
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("200 {len}"));
    secs
}

fn cat_seconds(file: &Path) -> f64 {
    let t = Instant::now();
    let out = std::process::Command::new("cat")
        .arg(file)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(out.success());
    t.elapsed().as_secs_f64()
}
