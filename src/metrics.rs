//! What happened since the service started, for `GET /metrics` (Prometheus): the
//! requests by route class and status with their latencies, the tasks by kind and
//! result with their durations, the shop's bytes per console and the open
//! connections. Every count is an atomic in a fixed array, so counting costs a request
//! a few relaxed atomic adds and never a lock; what the library holds is read from the
//! database when scraped (`api::metrics`), not counted here.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::words::{Task, TaskResult};

/// Where a request went, as a label: few values, so a scrape stays small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteClass {
    /// The public API, `/api/v1/`.
    Api,
    /// The web interface: its pages, its own `/api/` routes, its files.
    Web,
    /// A console installer's listing or download.
    Shop,
    /// A console pulling a push (`/dl/`).
    Push,
    /// A console's saves: CyberFoil's save sync (`/api/saves/`) and WebDAV (`/dav/`).
    Saves,
    /// This endpoint.
    Metrics,
}

impl RouteClass {
    const ALL: [RouteClass; 6] = [
        RouteClass::Api,
        RouteClass::Web,
        RouteClass::Shop,
        RouteClass::Push,
        RouteClass::Saves,
        RouteClass::Metrics,
    ];

    fn as_str(self) -> &'static str {
        match self {
            RouteClass::Api => "api",
            RouteClass::Web => "web",
            RouteClass::Shop => "shop",
            RouteClass::Push => "push",
            RouteClass::Saves => "saves",
            RouteClass::Metrics => "metrics",
        }
    }

    /// The class of a request by its path and caller (`console:` or `visitor:` in the
    /// access log's name of the caller is the shop, whatever path it asked).
    pub fn of(path: &str, caller: Option<&str>) -> RouteClass {
        let console =
            caller.is_some_and(|w| w.starts_with("console:") || w.starts_with("visitor:"));
        if path.starts_with("/api/v1/") {
            RouteClass::Api
        } else if path == "/metrics" {
            RouteClass::Metrics
        } else if path.starts_with("/dl/") {
            RouteClass::Push
        } else if path.starts_with("/api/saves/") || path == "/dav" || path.starts_with("/dav/") {
            RouteClass::Saves
        } else if console || path.starts_with("/shop") || path.starts_with("/api/shop/") {
            RouteClass::Shop
        } else {
            RouteClass::Web
        }
    }
}

/// The statuses counted apart (WebDAV's among them); any other counts as its class's
/// first (`5xx` → 500).
const STATUSES: [u16; 29] = [
    200, 201, 204, 206, 207, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405, 408, 409, 412,
    413, 414, 415, 416, 429, 431, 500, 502, 503, 507,
];
/// Where a status of no class counted apart goes: 500's.
const OTHER: usize = {
    let mut i = 0;
    while STATUSES[i] != 500 {
        i += 1;
    }
    i
};

/// Upper bounds of a request's latency buckets, in seconds.
const HTTP_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0,
];
/// Upper bounds of a task's duration buckets, in seconds.
const TASK_BUCKETS: [f64; 9] = [1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0, 14400.0, 86400.0];

/// Prometheus's label for a bucket's upper bound (not the French article).
const BOUND: &str = "le";

const CLASSES: usize = RouteClass::ALL.len();
const TASKS: usize = Task::ALL.len();
const RESULTS: usize = TaskResult::ALL.len();

/// A histogram: counts per bucket (not cumulative; the last is past every bound) and
/// the sum of what was observed, in microseconds.
struct Histogram<const N: usize> {
    buckets: [AtomicU64; N],
    sum_micros: AtomicU64,
}

impl<const N: usize> Histogram<N> {
    const fn new() -> Self {
        Histogram {
            buckets: [const { AtomicU64::new(0) }; N],
            sum_micros: AtomicU64::new(0),
        }
    }

    fn observe(&self, bounds: &[f64], took: Duration) {
        let seconds = took.as_secs_f64();
        let at = bounds
            .iter()
            .position(|b| seconds <= *b)
            .unwrap_or(bounds.len());
        self.buckets[at].fetch_add(1, Relaxed);
        self.sum_micros.fetch_add(took.as_micros() as u64, Relaxed);
    }
}

static REQUESTS: [[AtomicU64; STATUSES.len()]; CLASSES] =
    [const { [const { AtomicU64::new(0) }; STATUSES.len()] }; CLASSES];
static LATENCY: [Histogram<{ HTTP_BUCKETS.len() + 1 }>; CLASSES] =
    [const { Histogram::new() }; CLASSES];
static TASK_RUNS: [[AtomicU64; RESULTS]; TASKS] =
    [const { [const { AtomicU64::new(0) }; RESULTS] }; TASKS];
static TASK_TIME: [Histogram<{ TASK_BUCKETS.len() + 1 }>; TASKS] =
    [const { Histogram::new() }; TASKS];
static OPEN_CONNECTIONS: AtomicU64 = AtomicU64::new(0);
/// The shop's bytes per console: one counter per name, taken once per download.
static SHOP_BYTES: Mutex<BTreeMap<String, Arc<AtomicU64>>> = Mutex::new(BTreeMap::new());

/// Count one answered request.
pub fn request(class: RouteClass, status: u16, took: Duration) {
    let c = class as usize;
    let s = STATUSES
        .iter()
        .position(|&k| k == status)
        .or_else(|| STATUSES.iter().position(|&k| k / 100 == status / 100))
        .unwrap_or(OTHER);
    REQUESTS[c][s].fetch_add(1, Relaxed);
    LATENCY[c].observe(&HTTP_BUCKETS, took);
}

/// Count one task run that ended.
pub fn task(kind: Task, result: TaskResult, took: Duration) {
    let k = Task::ALL.iter().position(|t| *t == kind).unwrap_or(0);
    let r = TaskResult::ALL
        .iter()
        .position(|t| *t == result)
        .unwrap_or(0);
    TASK_RUNS[k][r].fetch_add(1, Relaxed);
    TASK_TIME[k].observe(&TASK_BUCKETS, took);
}

/// The counter of a console's shop bytes, which a download adds to as it is read.
/// Taken once per download, not per request or per chunk: the lock is held for one
/// lookup, and a console's name is copied only the first time it downloads.
pub fn shop_bytes(console: &str) -> Arc<AtomicU64> {
    let mut all = SHOP_BYTES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(counter) = all.get(console) {
        return Arc::clone(counter);
    }
    Arc::clone(all.entry(console.to_string()).or_default())
}

/// The connections open now, as the connection warden last counted them.
pub fn set_open_connections(n: usize) {
    OPEN_CONNECTIONS.store(n as u64, Relaxed);
}

/// One metric family's head: its help and its type.
pub fn head(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(
        out,
        "# HELP ludotheque_{name} {help}\n# TYPE ludotheque_{name} {kind}"
    );
}

/// A label value as the text format writes it (`\`, `"` and line ends escaped).
pub fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Every counter of this module, in the Prometheus text format.
pub fn render(out: &mut String) {
    render_requests(out);
    render_tasks(out);
    head(
        out,
        "shop_sent_bytes_total",
        "counter",
        "Bytes of game files the shop sent, per console.",
    );
    let shop = SHOP_BYTES.lock().unwrap_or_else(|p| p.into_inner());
    for (console, bytes) in shop.iter() {
        let (c, n) = (label(console), bytes.load(Relaxed));
        let _ = writeln!(
            out,
            "ludotheque_shop_sent_bytes_total{{console=\"{c}\"}} {n}"
        );
    }
    drop(shop);
    head(
        out,
        "http_open_connections",
        "gauge",
        "Connections open now.",
    );
    let _ = writeln!(
        out,
        "ludotheque_http_open_connections {}",
        OPEN_CONNECTIONS.load(Relaxed)
    );
}

fn render_requests(out: &mut String) {
    head(
        out,
        "http_requests_total",
        "counter",
        "HTTP requests answered, by route class and status.",
    );
    for class in RouteClass::ALL {
        for (i, status) in STATUSES.iter().enumerate() {
            let n = REQUESTS[class as usize][i].load(Relaxed);
            if n > 0 {
                let c = class.as_str();
                let _ = writeln!(
                    out,
                    "ludotheque_http_requests_total{{route_class=\"{c}\",status=\"{status}\"}} {n}"
                );
            }
        }
    }
    let name = "http_request_duration_seconds";
    head(
        out,
        name,
        "histogram",
        "Time from a request's head to its answer, by route class.",
    );
    for class in RouteClass::ALL {
        let labels = format!("route_class=\"{}\"", class.as_str());
        histogram(out, name, &labels, &HTTP_BUCKETS, &LATENCY[class as usize]);
    }
}

fn render_tasks(out: &mut String) {
    head(
        out,
        "tasks_total",
        "counter",
        "Task runs ended, by kind and result.",
    );
    for (k, kind) in Task::ALL.iter().enumerate() {
        for (r, result) in TaskResult::ALL.iter().enumerate() {
            let n = TASK_RUNS[k][r].load(Relaxed);
            if *result != TaskResult::Running {
                let _ = writeln!(
                    out,
                    "ludotheque_tasks_total{{kind=\"{kind}\",result=\"{result}\"}} {n}"
                );
            }
        }
    }
    let name = "task_duration_seconds";
    head(out, name, "histogram", "How long task runs took, by kind.");
    for (k, kind) in Task::ALL.iter().enumerate() {
        histogram(
            out,
            name,
            &format!("kind=\"{kind}\""),
            &TASK_BUCKETS,
            &TASK_TIME[k],
        );
    }
}

fn histogram<const N: usize>(
    out: &mut String,
    name: &str,
    labels: &str,
    bounds: &[f64],
    h: &Histogram<N>,
) {
    let mut total = 0;
    for (i, bucket) in h.buckets.iter().enumerate() {
        total += bucket.load(Relaxed);
        let upper = bounds.get(i).map_or("+Inf".to_string(), |b| b.to_string());
        let _ = writeln!(
            out,
            "ludotheque_{name}_bucket{{{labels},{BOUND}=\"{upper}\"}} {total}"
        );
    }
    let sum = h.sum_micros.load(Relaxed) as f64 / 1e6;
    let _ = writeln!(out, "ludotheque_{name}_sum{{{labels}}} {sum}");
    let _ = writeln!(out, "ludotheque_{name}_count{{{labels}}} {total}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_lands_in_its_class_status_and_bucket() {
        let at = |status: u16| STATUSES.iter().position(|&s| s == status).unwrap();
        let count = |status| REQUESTS[RouteClass::Push as usize][at(status)].load(Relaxed);
        let before = (count(404), count(400), count(507));
        request(RouteClass::Push, 404, Duration::from_millis(3));
        // A status not counted apart counts as its class's first.
        request(RouteClass::Push, 418, Duration::from_secs(60));
        // WebDAV's are counted apart.
        request(RouteClass::Push, 507, Duration::from_millis(1));
        assert_eq!(
            (count(404), count(400), count(507)),
            (before.0 + 1, before.1 + 1, before.2 + 1)
        );
        let mut out = String::new();
        render(&mut out);
        let line = |prefix: &str| {
            out.lines()
                .find(|l| l.starts_with(prefix))
                .unwrap_or_else(|| panic!("no {prefix} in\n{out}"))
                .rsplit(' ')
                .next()
                .unwrap()
                .parse::<f64>()
                .unwrap()
        };
        let b = "ludotheque_http_request_duration_seconds_bucket{route_class=\"push\",";
        assert!(line(&format!("{b}le=\"0.0025\"}}")) < line(&format!("{b}le=\"0.005\"}}")));
        assert!(line(&format!("{b}le=\"30\"}}")) < line(&format!("{b}le=\"+Inf\"}}")));
        assert!(line("ludotheque_http_request_duration_seconds_sum{route_class=\"push\"}") >= 60.0);
    }

    #[test]
    fn other_statuses_count_as_a_500() {
        assert_eq!(STATUSES[OTHER], 500);
    }

    #[test]
    fn classes_follow_the_path_and_the_caller() {
        assert_eq!(RouteClass::of("/api/v1/library", None), RouteClass::Api);
        assert_eq!(
            RouteClass::of("/", Some("console:switch")),
            RouteClass::Shop
        );
        assert_eq!(RouteClass::of("/", Some("user:ann")), RouteClass::Web);
        assert_eq!(RouteClass::of("/shop/files/a.nsp", None), RouteClass::Shop);
        assert_eq!(RouteClass::of("/dl/tok/a", None), RouteClass::Push);
        assert_eq!(RouteClass::of("/metrics", None), RouteClass::Metrics);
        for saves in ["/api/saves/list", "/dav/", "/dav/JKSV/x.zip"] {
            assert_eq!(
                RouteClass::of(saves, Some("console:switch")),
                RouteClass::Saves
            );
        }
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
