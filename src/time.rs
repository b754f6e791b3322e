//! Wall-clock helpers: the store keeps Unix seconds, clients see RFC 3339.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch, now.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// RFC 3339 in UTC with whole seconds, e.g. `2026-11-22T05:54:13Z`.
pub fn rfc3339(unix_s: i64) -> String {
    let t = UNIX_EPOCH + Duration::from_secs(unix_s.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}
