//! `GET /metrics`: the service in the Prometheus text format. What the library holds
//! (files, bytes and damaged files by type and container; titles with updates or DLC
//! to get) is read from the database at each scrape, at the cost of one grouped
//! query and one count; what happened since the start is `crate::metrics`' counters;
//! the process's private memory and open descriptors are read from `/proc`.
//! Access: an API key (read-only is enough) or the loopback rule; anything else 401
//! (`Access::Metrics`), never a redirect to the sign-in page.

use std::fmt::Write;

use crate::error::Error;
use crate::http::{Ctx, Reply};
use crate::metrics::{self, head, label};
use crate::store::{games, title_state};

pub fn metrics(c: &Ctx) -> Result<Reply, Error> {
    let mut out = String::with_capacity(16 * 1024);
    library(c, &mut out)?;
    metrics::render(&mut out);
    process(&mut out);
    let content_type = "text/plain; version=0.0.4; charset=utf-8";
    Ok(Reply::new(200, content_type, out.into_bytes()).with("Cache-Control", "no-store"))
}

fn library(c: &Ctx, out: &mut String) -> Result<(), Error> {
    let rows = games::by_type_and_format(c.db)?;
    let (titles, updates, dlc) = title_state::counts(c.db)?;
    let families = [
        (
            "library_files",
            "Files in the library, by type and container.",
        ),
        (
            "library_bytes",
            "Bytes of the files in the library, by type and container.",
        ),
        (
            "library_damaged_files",
            "Files known to be damaged, by type and container.",
        ),
    ];
    for (i, (name, help)) in families.iter().enumerate() {
        head(out, name, "gauge", help);
        for (kind, format, counts) in &rows {
            let kind = match kind.as_str() {
                "BASE" => "base",
                "UPDATE" => "update",
                "DLC" => "dlc",
                _ => "unknown",
            };
            let (f, n) = (label(format), counts[i]);
            let _ = writeln!(
                out,
                "ludotheque_{name}{{type=\"{kind}\",container=\"{f}\"}} {n}"
            );
        }
    }
    for (name, help, n) in [
        ("titles", "Titles with a file in the library.", titles),
        (
            "titles_update_available",
            "Titles whose latest update is not in the library.",
            updates,
        ),
        (
            "titles_dlc_missing",
            "Titles with DLC the library does not have.",
            dlc,
        ),
    ] {
        head(out, name, "gauge", help);
        let _ = writeln!(out, "ludotheque_{name} {n}");
    }
    Ok(())
}

/// The process: private memory (`RssAnon`), open descriptors, version.
fn process(out: &mut String) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let private_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    if let Some(kib) = private_kib {
        head(
            out,
            "process_private_memory_bytes",
            "gauge",
            "Private memory in use (RssAnon).",
        );
        let _ = writeln!(
            out,
            "ludotheque_process_private_memory_bytes {}",
            kib * 1024
        );
    }
    if let Ok(dir) = std::fs::read_dir("/proc/self/fd") {
        // The listing's own descriptor is one of them.
        let fds = dir.count().saturating_sub(1);
        head(out, "process_open_fds", "gauge", "Open file descriptors.");
        let _ = writeln!(out, "ludotheque_process_open_fds {fds}");
    }
    head(
        out,
        "build_info",
        "gauge",
        "The running version, as a label; always 1.",
    );
    let version = env!("CARGO_PKG_VERSION");
    let _ = writeln!(out, "ludotheque_build_info{{version=\"{version}\"}} 1");
}
