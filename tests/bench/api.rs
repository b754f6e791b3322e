//! API benchmark (not a test): loads a library of N games (default 100,000) with
//! title data for them, then drives the service with wrk (64 keep-alive connections,
//! 2 threads, SECONDS per row, default 10) and prints requests per second and p50/p99
//! latency per row, and the service's private memory (RssAnon): at its peak during each
//! row, after the scan, with the indexes built, at its peak under the whole load.
//!
//! The headline rows spread requests over thousands of distinct URLs (library pages,
//! searches, titles, missing, the web interface's pages), as real users and scripts
//! send them: more than the page cache holds, so most answers are rendered. The rows
//! that repeat one URL come after: for the API, they measure the page cache.
//!
//! Each row has its ceiling, measured just before it in the same run: a bare
//! tiny_http answering the bytes of that row's sample URL (the same page, the same
//! kind of search) with as many threads as the service has workers. The ratio is what
//! the service keeps of it once it routes, checks access, reads SQLite or the search
//! index and renders JSON or HTML; the goal column holds the targets.
//!
//!     apt-get install wrk
//!     cargo test --release --test bench_api -- [N] [SECONDS] [ROW]
//!
//! ROW (any word that is not a number) runs only the rows whose label holds it.
//! Requests come from loopback without a key (the loopback rule), so the per-key rate
//! limit does not cap the measurement.

#[path = "gen.rs"]
mod gen;
use std::process::Command;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("ceiling") {
        return gen::ceiling(Some(std::fs::read(&args[1]).unwrap()), None);
    }
    let nums: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    // A word that is not a number runs only the rows whose label holds it.
    let only = args
        .iter()
        .find(|a| a.parse::<usize>().is_err())
        .cloned()
        .unwrap_or_default();
    let n = nums.first().copied().unwrap_or(100_000);
    let seconds = nums.get(1).copied().unwrap_or(10);
    if Command::new("wrk").arg("--version").output().is_err() {
        eprintln!("wrk is needed: apt-get install wrk");
        std::process::exit(2);
    }
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    gen::generate(&lib, n);
    // Title data for those games, imported before the first scan: every title has an
    // update available, a third lack a DLC.
    let data = tmp.path().join("data");
    let versions = gen::title_data(tmp.path(), n);
    gen::cli(&data, &["titles", "import", versions.to_str().unwrap()]);
    let (mut server, base) = gen::start_server(&data, &lib);
    let agent: ureq::Agent = gen::agent();
    gen::wait_idle(&agent, &base);
    let pid = server.id();
    let anon_now = || gen::mib(gen::anon_kib(pid).unwrap_or(0));
    let after_scan = anon_now();
    let page1 = agent
        .get(&format!("{base}/api/v1/library"))
        .call()
        .unwrap()
        .body_mut()
        .read_to_vec()
        .unwrap();
    let deep = n as u64 / 50 - 1;
    let target = &gen::name(n / 2);
    let words: Vec<&str> = target.split(' ').collect();
    let id = format!("{:016X}", gen::title_id(n / 2));
    let base_id = format!("{:016X}", gen::title_id(n / 2 / 3 * 3));
    // The headline: thousands of distinct URLs, more than the page cache's budget
    // holds, as real users and scripts send them, so most answers are rendered
    // (SQLite, the search index, JSON or HTML on every request). The goal column is
    // the share of the ceiling each row must reach.
    let search_lua = format!(
        "local a = {{{}}}\nlocal n = {{{}}}\n\
         local q = a[math.random(#a)] .. '%20' .. n[math.random(#n)]",
        quoted(&gen::ADJECTIVES),
        quoted(&gen::NOUNS)
    );
    let spread = [
        (
            "library, 2000 pages",
            ">= 50%, p99 <= 20 ms",
            "/api/v1/library?page=1000".to_string(),
            "return wrk.format('GET', '/api/v1/library?page=' .. math.random(2000))".to_string(),
        ),
        (
            "search, 4551 queries",
            ">= 50%, p99 <= 20 ms",
            format!("/api/v1/search?q={}%20{}", words[0], words[1]),
            format!(
                "{search_lua}\n\
                 return wrk.format('GET', '/api/v1/search?q=' .. q .. '&page=' .. math.random(3))"
            ),
        ),
        (
            // What a search box sends while a name is typed: its first one to three
            // letters, a page of the many names that hold them.
            "search as typed, 1-3 letters",
            "p99 <= 20 ms",
            "/api/v1/search?q=dr".to_string(),
            format!(
                "{search_lua}\n\
                 local w = (math.random(2) == 1) and a[math.random(#a)] or n[math.random(#n)]\n\
                 local typed = string.sub(w, 1, math.random(3))\n\
                 return wrk.format('GET', '/api/v1/search?q=' .. typed .. '&page=' .. math.random(20))"
            ),
        ),
        (
            "titles, 600 pages",
            "",
            "/api/v1/titles?page=300".to_string(),
            "return wrk.format('GET', '/api/v1/titles?page=' .. math.random(600))".to_string(),
        ),
        (
            "missing, 1300 pages",
            "",
            "/api/v1/missing?page=650".to_string(),
            "return wrk.format('GET', '/api/v1/missing?page=' .. math.random(1300))".to_string(),
        ),
        (
            "web: library, 600 pages",
            ">= 30%",
            "/library?page=300".to_string(),
            "return wrk.format('GET', '/library?page=' .. math.random(600))".to_string(),
        ),
        (
            "web: search, 4551 queries",
            ">= 10%",
            format!("/library?q={}%20{}", words[0], words[1]),
            format!("{search_lua}\nreturn wrk.format('GET', '/library?q=' .. q)"),
        ),
        (
            "web: files, 2000 pages",
            "",
            "/files?page=1000".to_string(),
            "return wrk.format('GET', '/files?page=' .. math.random(2000))".to_string(),
        ),
    ];
    // One URL asked again and again: after its first answer, the API's rows measure
    // the page cache. The web pages are rendered on every request.
    let routes = [
        ("library page 1", ">= 50%", format!("{base}/api/v1/library")),
        (
            "library deep page",
            "",
            format!("{base}/api/v1/library?page={deep}"),
        ),
        (
            "library page, type=DLC",
            "",
            format!("{base}/api/v1/library?type=DLC&page=100"),
        ),
        (
            "search by words",
            "",
            format!("{base}/api/v1/search?q={}%20{}", words[0], words[1]),
        ),
        (
            "search by title ID",
            "",
            format!("{base}/api/v1/search?q={id}"),
        ),
        ("titles page 1", "", format!("{base}/api/v1/titles")),
        (
            "titles, status=dlc_missing",
            "",
            format!("{base}/api/v1/titles?status=dlc_missing&page=50"),
        ),
        ("missing page 1", "", format!("{base}/api/v1/missing")),
        (
            "missing deep page, kind=dlc",
            "",
            format!("{base}/api/v1/missing?kind=dlc&page=200"),
        ),
        ("web: dashboard", "", format!("{base}/")),
        (
            "web: library page 100",
            "",
            format!("{base}/library?page=100"),
        ),
        (
            "web: incomplete by size",
            "",
            format!("{base}/library?show=incomplete&sort=size&page=100"),
        ),
        ("web: a title", "", format!("{base}/title/{base_id}")),
        (
            "web: search page",
            "",
            format!("{base}/library?q={}%20{}", words[0], words[1]),
        ),
    ];
    for (_, _, url) in &routes {
        let r = agent.get(url).header("User-Agent", BROWSER).call().unwrap();
        assert_eq!(r.status(), 200, "{url}");
    }
    // Every route asked once: the search index, the titles' lists and the caches are
    // built.
    let built = anon_now();
    let peak = gen::AnonPeak::start(pid);
    let mut load_peak = 0;
    println!(
        "{n} games, wrk -t2 -c64 -d{seconds}s (library page 1: {} bytes)",
        page1.len()
    );
    let script = tmp.path().join("spread.lua");
    let distinct = spread.iter().map(|(label, goal, sample, body)| {
        let lua = format!("request = function()\n{body}\nend\n");
        (
            *label,
            *goal,
            base.clone(),
            format!("{base}{sample}"),
            Some(lua),
        )
    });
    let one_url = routes
        .iter()
        .map(|(label, goal, url)| (*label, *goal, url.clone(), url.clone(), None));
    let agent_header = format!("User-Agent: {BROWSER}");
    let header = ["-H", agent_header.as_str()];
    let mut section = "";
    for (label, goal, url, sample, lua) in distinct.chain(one_url) {
        if !only.is_empty() && !label.contains(only.as_str()) {
            continue;
        }
        let title = match lua {
            Some(_) => "distinct URLs (the headline)",
            None => "one URL again and again (the API's rows: the page cache)",
        };
        if title != section {
            section = title;
            println!("\n{title}");
            println!(
                "{:<28} {:>8} {:>8} {:>8} | {:>8} {:>8} | {:>6} {:>6} {:<17} {:>9} {:>9}",
                "route",
                "req/s",
                "p50 ms",
                "p99 ms",
                "ceiling",
                "p99 ms",
                "ratio",
                "p99",
                "goal",
                "body",
                "RssAnon"
            );
        }
        if let Some(lua) = &lua {
            std::fs::write(&script, lua).unwrap();
        }
        let script = lua.as_ref().map(|_| script.as_path());
        // The ceiling answers the bytes of this row's sample URL (a page of the
        // same list, the same kind of search). The ceiling and the service take
        // turns, three runs each, so that both meet the same drift of this shared
        // machine, and each gives its best run. Best, because a bare tiny_http can
        // leave part of a burst of new connections unanswered for a whole run (the
        // pool race, tests/RELIABILITY.md): such a run shows as far fewer requests.
        // Each run follows one second that is not counted, so it starts warm.
        let body = agent
            .get(&sample)
            .header("User-Agent", BROWSER)
            .call()
            .unwrap()
            .body_mut()
            .read_to_vec()
            .unwrap();
        let (mut ceiling, ceiling_url) = start_ceiling(tmp.path(), &body);
        peak.take();
        let (mut bound, mut ours) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            gen::wrk(&ceiling_url, 1, None, &header);
            bound.push(gen::wrk(&ceiling_url, seconds, None, &header));
            gen::wrk(&url, 1, script, &header);
            ours.push(gen::wrk(&url, seconds, script, &header));
        }
        let _ = ceiling.kill();
        let best = |runs: &[(f64, f64, f64)]| {
            runs.iter()
                .copied()
                .fold((0.0, 0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a })
        };
        // The service's private memory at its peak during this row.
        let row_peak = peak.take();
        load_peak = load_peak.max(row_peak);
        let (rps, p50, p99) = best(&ours);
        let (ceiling_rps, _, ceiling_p99) = best(&bound);
        println!(
            "{label:<28} {rps:>8.0} {p50:>8.2} {p99:>8.2} | {ceiling_rps:>8.0} {ceiling_p99:>8.2} | {:>5.0}% {:>5.1}x {goal:<17} {:>6.1} KB {:>5.1} MiB",
            100.0 * rps / ceiling_rps,
            p99 / ceiling_p99,
            body.len() as f64 / 1000.0,
            gen::mib(row_peak)
        );
    }
    println!("\nEach row: the best of three runs, the ceiling's and the service's taken in turns.");
    println!(
        "Private memory (RssAnon): {after_scan:.1} MiB after the scan, {built:.1} MiB with \
         the indexes built, {:.1} MiB at the peak under load (goal: <= 100 MiB at 100,000 \
         games, <= 40 MiB at 10,000), {:.1} MiB after it.",
        gen::mib(load_peak),
        anon_now()
    );
    let _ = server.kill();
}

/// A bare tiny_http answering `body` (see `gen::ceiling`).
fn start_ceiling(dir: &std::path::Path, body: &[u8]) -> (gen::Server, String) {
    let body_file = dir.join("ceiling-body");
    std::fs::write(&body_file, body).unwrap();
    gen::spawn_ceiling("ceiling", &body_file)
}

/// What a browser's agent starts with: the service's root is the shop for anything
/// else (see `api::shop`).
const BROWSER: &str = "Mozilla/5.0 (bench_api)";

fn quoted(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    quoted.join(", ")
}
