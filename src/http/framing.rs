//! Requests whose length two servers could read two ways, refused before they run.
//!
//! tiny_http frames a request by its first `Content-Length` (or by chunked encoding
//! when any `Transfer-Encoding` is present) and parses whatever follows as the next
//! request on the connection. A proxy in front may have framed the same bytes another
//! way (the last `Content-Length`, or the length over the encoding), and then a request
//! hidden in a body reaches the service as if the proxy had let it through: request
//! smuggling. So the acceptor checks each request's framing headers before handing it
//! to a worker; an ambiguous one is answered 400, its connection is shut, and whatever
//! tiny_http already framed after it on that connection is dropped unanswered and
//! unrun (see [`Poisoned`]).
//!
//! Obsolete line folding (a header line starting with a space or a tab) never reaches
//! here: tiny_http already answers 400 and closes the connection when a folded line
//! has no colon of its own, and reads one that has a colon as a header of its own,
//! which the checks below then see.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Why a request's framing is ambiguous, or `None` when it is clear.
pub fn ambiguity(headers: &[tiny_http::Header]) -> Option<&'static str> {
    let values = |name: &str| {
        headers
            .iter()
            .filter(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
            .collect::<Vec<_>>()
    };
    let lengths = values("content-length");
    let encodings = values("transfer-encoding");
    if lengths.len() > 1 {
        return Some("two Content-Length headers");
    }
    if !lengths.is_empty() && !encodings.is_empty() {
        return Some("Content-Length with Transfer-Encoding");
    }
    if lengths
        .iter()
        .any(|v| v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()))
    {
        return Some("a Content-Length that is not plain digits");
    }
    // tiny_http decodes chunks whatever the encoding says: anything but one plain
    // `chunked` would be read differently by a proxy.
    if encodings.len() > 1 || encodings.iter().any(|v| !v.eq_ignore_ascii_case("chunked")) {
        return Some("a Transfer-Encoding other than one 'chunked'");
    }
    None
}

/// Connections whose framing was ambiguous: what tiny_http framed after the bad
/// request on the same connection is dropped. A connection is known by its peer
/// address, which the kernel does not give to another connection while this one
/// lives; the entry is stamped when the request is queued and again when its
/// connection is shut (tiny_http frames the next request only after that), and
/// forgotten a little later.
#[derive(Default)]
pub struct Poisoned {
    peers: HashMap<SocketAddr, Instant>,
}

/// How long a shut connection's address stays poisoned: long enough for tiny_http to
/// hand over what it had already framed.
const POISON_FOR: Duration = Duration::from_secs(10);

impl Poisoned {
    pub fn add(&mut self, peer: SocketAddr) {
        let now = Instant::now();
        self.peers.retain(|_, since| now - *since < POISON_FOR);
        self.peers.insert(peer, now);
    }

    pub fn contains(&self, peer: Option<&SocketAddr>) -> bool {
        peer.and_then(|p| self.peers.get(p))
            .is_some_and(|since| since.elapsed() < POISON_FOR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(list: &[(&str, &str)]) -> Vec<tiny_http::Header> {
        list.iter()
            .map(|(n, v)| tiny_http::Header::from_bytes(n.as_bytes(), v.as_bytes()).unwrap())
            .collect()
    }

    #[test]
    fn only_one_plain_framing_is_clear() {
        for clear in [
            vec![],
            vec![("Content-Length", "0")],
            vec![("Content-Length", "42")],
            vec![("Transfer-Encoding", "chunked")],
            vec![("Transfer-Encoding", "Chunked")],
        ] {
            assert_eq!(ambiguity(&headers(&clear)), None, "{clear:?}");
        }
        for bad in [
            vec![("Content-Length", "0"), ("Content-Length", "40")],
            vec![("Content-Length", "5"), ("Content-Length", "5")],
            vec![("Content-Length", "5"), ("Transfer-Encoding", "chunked")],
            vec![("Content-Length", "+5")],
            vec![("Content-Length", "0x5")],
            vec![("Content-Length", "")],
            vec![("Transfer-Encoding", "gzip, chunked")],
            vec![
                ("Transfer-Encoding", "chunked"),
                ("Transfer-Encoding", "chunked"),
            ],
        ] {
            assert!(ambiguity(&headers(&bad)).is_some(), "{bad:?}");
        }
    }
}
