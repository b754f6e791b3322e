//! Wall-clock helpers: the store keeps Unix seconds; the API and the webhook say
//! RFC 3339 in UTC, people (the command line, the web pages) the host's local time
//! with its offset.

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

/// ISO 8601 in the host's zone with its offset, e.g. `2026-11-22T06:54:13+01:00`:
/// what the command line prints. The zone is the C library's (`TZ`, else
/// `/etc/localtime`); UTC when it has none.
pub fn local(unix_s: i64) -> String {
    let offset = local_offset(unix_s);
    let wall = rfc3339(unix_s.max(0) + offset);
    format!("{}{}", &wall[..19], offset_text(offset))
}

/// `+01:00`, `-09:30`, `+00:00`.
fn offset_text(offset_s: i64) -> String {
    let sign = if offset_s < 0 { '-' } else { '+' };
    let minutes = offset_s.abs() / 60;
    format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The host's offset from UTC at that instant, in seconds (summer time included).
/// `localtime_r` is the C library's own reading of `TZ` and the zone files, already
/// linked: no time zone crate, no copy of the tz database. It is safe from any thread
/// as long as nobody changes the environment, which this program never does (the
/// reason the `time` crate refuses its local offset in a threaded process).
fn local_offset(unix_s: i64) -> i64 {
    // libc marks `time_t` deprecated on musl (it will follow musl to 64 bits); the cast
    // follows whichever width it has.
    #[allow(deprecated)]
    let t = unix_s.max(0) as libc::time_t;
    // SAFETY: `tm` is a plain C struct for which all zeroes are valid; localtime_r
    // writes only into it and returns null on failure, which is checked.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return 0;
        }
        tm.tm_gmtoff as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_written_with_their_sign_hours_and_minutes() {
        assert_eq!(offset_text(3600), "+01:00");
        assert_eq!(offset_text(-9 * 3600 - 1800), "-09:30");
        assert_eq!(offset_text(0), "+00:00");
    }

    /// Whatever the zone of the machine running the tests, the local text is the
    /// UTC instant moved by the offset it names.
    #[test]
    fn local_time_is_the_same_instant_as_utc() {
        let t = 1_795_000_000;
        let text = local(t);
        let sign = if &text[19..20] == "-" { -1 } else { 1 };
        let offset = sign
            * (text[20..22].parse::<i64>().unwrap() * 3600
                + text[23..25].parse::<i64>().unwrap() * 60);
        let wall = humantime::parse_rfc3339(&format!("{}Z", &text[..19])).unwrap();
        let wall = wall.duration_since(UNIX_EPOCH).unwrap().as_secs() as i64;
        assert_eq!(wall - offset, t, "{text}");
    }
}
