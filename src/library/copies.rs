//! Which of two copies of one title the library keeps. One rule, read in two places:
//! the `dedupe` task moves the others to the trash, and the shop offers CyberFoil this
//! copy only, so that what an installer gets is what a dedupe would leave.

use std::cmp::Ordering;

use crate::words::{Container, DedupeKeep};

/// What the rule reads of a copy.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// Sound: its header parsed and no task found it damaged.
    pub header_ok: bool,
    pub version: Option<u32>,
    /// The extension, lower case: `nsp`, `nsz`, `xci`, `xcz`.
    pub format: &'a str,
    pub key: &'a str,
}

fn compressed(format: &str) -> bool {
    Container::of(format).is_some_and(Container::is_compressed)
}

/// Which of two copies of a title ID stays: `Greater` when `a` does. A sound file
/// wins over a damaged one, then the higher version, then the
/// preferred format (`--dedupe-keep`), then the first key in byte order.
pub fn better(a: Candidate, b: Candidate, keep: DedupeKeep) -> Ordering {
    let preferred = |c: &Candidate| compressed(c.format) == (keep == DedupeKeep::Compressed);
    a.header_ok
        .cmp(&b.header_ok)
        .then(a.version.cmp(&b.version))
        .then(preferred(&a).cmp(&preferred(&b)))
        .then(b.key.cmp(a.key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy<'a>(version: u32, format: &'a str, key: &'a str) -> Candidate<'a> {
        Candidate {
            header_ok: true,
            version: Some(version),
            format,
            key,
        }
    }

    #[test]
    fn the_newest_then_the_preferred_format_then_the_first_key_stays() {
        let keep = DedupeKeep::Uncompressed;
        let (nsp, nsz) = (copy(0, "nsp", "b"), copy(0, "nsz", "a"));
        assert!(better(nsp, nsz, keep).is_gt());
        assert!(better(nsp, nsz, DedupeKeep::Compressed).is_lt());
        assert!(better(copy(1, "nsz", "z"), nsp, keep).is_gt());
        assert!(better(copy(0, "nsp", "a"), nsp, keep).is_gt());
        let unread = Candidate {
            header_ok: false,
            ..copy(9, "nsp", "a")
        };
        assert!(better(nsz, unread, keep).is_gt());
    }
}
