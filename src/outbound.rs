//! Every request the service makes to another host goes through here: the title data,
//! the icons, the webhook (and the console's connection test, a bare TCP connect).
//! What they reach is named by others, a URL in third-party title data, a receiver
//! that answers with a redirect, so the rules live in one place:
//!
//! - **A deadline for the whole exchange**, body included (ureq's `timeout_global`),
//!   besides the bounds on connecting and on each read: a server that trickles a
//!   byte every two seconds cannot hold the task slot for hours.
//! - **Cancel at once.** A client made for a task watches the task's cancel flag
//!   (which a stop sets too) from a small thread, and shuts its connections down when
//!   it is set: a blocked read returns within a tenth of a second, and each read of a
//!   body checks the flag first. Only a name lookup or a TCP connect under way waits
//!   for its own bound ([`CONNECT`]).
//! - **Redirects stay within the origin** (scheme, host and port), followed here and
//!   not by ureq; a redirect elsewhere is a failure. The webhook follows none.
//! - **Addresses.** A URL that comes from a third party (an icon's) never connects to
//!   a loopback, private, link-local or otherwise non-public address. The check is on
//!   the addresses the name resolves to, which are the very ones ureq connects to, so
//!   a name that answers differently the second time gains nothing. The title data
//!   source and the webhook go where their owner pointed them, private or not.
//! - **No proxy** from the environment: the address rule has to see where it connects.

use std::fmt;
use std::io::{self, Read};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, RecvTimeoutError, Sender};
use ureq::http::{HeaderMap, Uri};
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use crate::error::{Reason, Why};

/// Which addresses a request may connect to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addresses {
    /// Any: the owner named the host (the title data source, the webhook).
    Any,
    /// Public ones only: the URL comes from a third party (an icon).
    Public,
    /// Public ones and loopback: the test aid `--test-loopback-icons`, so the suite
    /// can serve icons from 127.0.0.1.
    PublicOrLoopback,
}

/// What one kind of request may do.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// The whole exchange, redirects and body included.
    pub total: Duration,
    pub addresses: Addresses,
}

/// A title data file: up to 512 MiB, so a slow line needs minutes.
pub const TITLE_DATA: Rules = Rules {
    total: Duration::from_secs(15 * 60),
    addresses: Addresses::Any,
};
/// An icon: at most 1 MiB, from a host the title data names.
pub const ICON: Rules = Rules {
    total: Duration::from_secs(15),
    addresses: Addresses::Public,
};
/// A webhook event: a small POST.
pub const WEBHOOK: Rules = Rules {
    total: Duration::from_secs(15),
    addresses: Addresses::Any,
};

/// A name lookup, and a TCP connection (with TLS) being set up: neither can be
/// interrupted, so a cancel waits at most this long for them.
pub const CONNECT: Duration = Duration::from_secs(10);
/// Silence within a body that ends a request.
const PER_READ: Duration = Duration::from_secs(30);
/// Redirects followed (within the origin) before giving up.
const REDIRECTS: usize = 5;
/// How often a client made for a task looks at the cancel flag.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// A task's cancel flag, which a stop sets too; none for a request nobody cancels.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    pub fn on(flag: Arc<AtomicBool>) -> Cancel {
        Cancel(Some(flag))
    }

    pub fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::SeqCst))
    }
}

/// Why a request came to nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The task was cancelled, or the service is stopping.
    Cancelled,
    /// Anything else. Never the URL's path or query: a token may be there.
    Failed(Why),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Failure::Cancelled => f.write_str("cancelled"),
            Failure::Failed(why) => why.fmt(f),
        }
    }
}

/// Requests of one kind ([`Rules`]), for one task or thread.
pub struct Client {
    agent: ureq::Agent,
    rules: Rules,
    cancel: Cancel,
    /// The thread that shuts the connections down on cancel; told to end on drop.
    watcher: Option<(Sender<()>, JoinHandle<()>)>,
}

impl Client {
    pub fn new(rules: Rules, cancel: Cancel) -> Client {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .timeout_global(Some(rules.total))
            .timeout_resolve(Some(CONNECT))
            .timeout_connect(Some(CONNECT))
            .timeout_per_read(Some(PER_READ))
            .user_agent(concat!("ludotheque/", env!("CARGO_PKG_VERSION")))
            .build();
        let agent = ureq::Agent::with_parts(
            config,
            DefaultConnector::default(),
            Checked(rules.addresses),
        );
        let watcher = cancel.0.as_ref().and_then(|flag| {
            // Without the thread a cancel is still seen between reads.
            watch(agent.clone(), Arc::clone(flag))
                .map_err(|e| log::warn!("outbound: no thread to watch for a cancel: {e}"))
                .ok()
        });
        Client {
            agent,
            rules,
            cancel,
            watcher,
        }
    }

    /// The task was cancelled (or the service is stopping).
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_set()
    }

    /// GET `url` with `headers`, following redirects within its origin; any status is
    /// an answer.
    pub fn get(&self, url: &str, headers: &[(&str, &str)]) -> Result<Answer, Failure> {
        let deadline = Instant::now() + self.rules.total;
        let mut url = url.to_string();
        for _ in 0..=REDIRECTS {
            let left = self.time_left(deadline)?;
            let mut request = self.agent.get(&url);
            for (name, value) in headers {
                request = request.header(*name, *value);
            }
            let request = request.config().timeout_global(Some(left)).build();
            let response = request.call().map_err(|e| self.failure(e))?;
            let status = response.status().as_u16();
            if !matches!(status, 301 | 302 | 303 | 307 | 308) {
                let (parts, body) = response.into_parts();
                return Ok(Answer {
                    status,
                    headers: parts.headers,
                    body,
                    cancel: self.cancel.clone(),
                    deadline,
                });
            }
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            url = same_origin(&url, location).map_err(Failure::Failed)?;
        }
        let many = Reason::TooManyRedirects(REDIRECTS.to_string());
        Err(Failure::Failed(many.into()))
    }

    /// POST `body` to `url` with `headers`; returns the status. No redirect is
    /// followed: a 3xx is the answer.
    pub fn post(&self, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Result<u16, Failure> {
        if self.is_cancelled() {
            return Err(Failure::Cancelled);
        }
        let mut request = self.agent.post(url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send(body).map_err(|e| self.failure(e))?;
        Ok(response.status().as_u16())
    }

    fn time_left(&self, deadline: Instant) -> Result<Duration, Failure> {
        if self.is_cancelled() {
            return Err(Failure::Cancelled);
        }
        deadline
            .checked_duration_since(Instant::now())
            .filter(|left| !left.is_zero())
            .ok_or_else(|| self.timed_out())
    }

    fn timed_out(&self) -> Failure {
        let secs = self.rules.total.as_secs().to_string();
        Failure::Failed(Reason::NoAnswerWithin(secs).into())
    }

    fn failure(&self, e: ureq::Error) -> Failure {
        match e {
            _ if self.is_cancelled() => Failure::Cancelled,
            ureq::Error::Timeout(ureq::Timeout::Global) => self.timed_out(),
            // Its text would hold the URL.
            ureq::Error::BadUri(_) => Failure::Failed(Reason::UrlInvalid.into()),
            e => match network_reason(&e).inspect(|_| log::debug!("outbound: {e}")) {
                Some(reason) => Failure::Failed(reason.into()),
                // Not ours: said as ureq says it (in the log as well as to people).
                None => Failure::Failed(Reason::Text(e.to_string()).into()),
            },
        }
    }
}

/// What a person can act on, in their language, for the failures a home server meets
/// (no Internet, a source down, a cut connection); `None` for the rest, said as ureq
/// says it. The system's own text for a failed name lookup ("failed to lookup address
/// information") is the only sign of it that reaches us through ureq's `Io`.
fn network_reason(e: &ureq::Error) -> Option<Reason> {
    use std::io::ErrorKind as K;
    let io = match e {
        ureq::Error::HostNotFound => return Some(Reason::NoInternet),
        // The whole exchange's deadline is said with its length (`timed_out`); this is
        // one step's (connecting, a read).
        ureq::Error::Timeout(_) => return Some(Reason::NoAnswerInTime),
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) | ureq::Error::Pem(_) => {
            return Some(Reason::TlsFailed)
        }
        ureq::Error::ConnectionFailed => return Some(Reason::ConnectFailed),
        ureq::Error::Io(io) => io,
        _ => return None,
    };
    Some(match io.kind() {
        K::ConnectionRefused => Reason::ConnectionRefused,
        K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof => {
            Reason::ConnectionCut
        }
        K::TimedOut | K::WouldBlock => Reason::NoAnswerInTime,
        K::NetworkUnreachable | K::HostUnreachable | K::NetworkDown | K::AddrNotAvailable => {
            Reason::NoRoute
        }
        _ if io.to_string().contains("failed to lookup address") => Reason::NoInternet,
        _ => return None,
    })
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.watcher.take() {
            drop(stop);
            let _ = thread.join();
        }
    }
}

/// The thread that shuts `agent`'s connections down once `flag` is set; it ends
/// then, or when its sender is dropped.
fn watch(agent: ureq::Agent, flag: Arc<AtomicBool>) -> io::Result<(Sender<()>, JoinHandle<()>)> {
    let (tx, rx) = bounded::<()>(0);
    let thread = std::thread::Builder::new()
        .name("outbound-cancel".into())
        .spawn(move || loop {
            match rx.recv_timeout(WATCH_EVERY) {
                Err(RecvTimeoutError::Timeout) if flag.load(Ordering::SeqCst) => {
                    return agent.shutdown()
                }
                Err(RecvTimeoutError::Timeout) => {}
                _ => return,
            }
        })?;
    Ok((tx, thread))
}

/// An answer whose body is still to be read.
pub struct Answer {
    pub status: u16,
    headers: HeaderMap,
    body: ureq::Body,
    cancel: Cancel,
    deadline: Instant,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<String> {
        let value = self.headers.get(name)?.to_str().ok()?;
        Some(value.to_string())
    }

    /// The body, as a reader that fails once the task is cancelled or the deadline
    /// has passed.
    pub fn into_body(self) -> Body {
        Body {
            reader: self.body.into_reader(),
            cancel: self.cancel,
            deadline: self.deadline,
        }
    }
}

/// A body being read; see [`Answer::into_body`].
pub struct Body {
    reader: ureq::BodyReader<'static>,
    cancel: Cancel,
    deadline: Instant,
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.is_set() {
            return Err(io::Error::other("cancelled"));
        }
        if Instant::now() >= self.deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the deadline passed",
            ));
        }
        self.reader.read(buf)
    }
}

/// Where a redirect from `from` to `location` leads, when that is the same origin;
/// otherwise why it is not followed.
fn same_origin(from: &str, location: &str) -> Result<String, Why> {
    let base: Uri = from.parse().map_err(|_| Reason::UrlInvalid)?;
    let (scheme, authority) = match (base.scheme_str(), base.authority()) {
        (Some(s), Some(a)) => (s, a.as_str()),
        _ => return Err(Reason::UrlInvalid.into()),
    };
    let has_scheme = location
        .split_once("://")
        .is_some_and(|(s, _)| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric()));
    let target = if has_scheme {
        location.to_string()
    } else if let Some(rest) = location.strip_prefix("//") {
        format!("{scheme}://{rest}")
    } else if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else {
        let path = base.path();
        let folder = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        format!("{scheme}://{authority}{folder}{location}")
    };
    let to: Uri = target.parse().map_err(|_| Reason::RedirectInvalid)?;
    match (origin(&base), origin(&to)) {
        (Some(a), Some(b)) if a == b => Ok(target),
        (_, Some((_, host, port))) => Err(Reason::OtherHost(format!("{host}:{port}")).into()),
        _ => Err(Reason::RedirectInvalid.into()),
    }
}

/// Scheme, host and port, as an origin compares them.
fn origin(uri: &Uri) -> Option<(String, String, u16)> {
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let default = if scheme == "https" { 443 } else { 80 };
    let host = uri.host()?.to_ascii_lowercase();
    Some((scheme, host, uri.port_u16().unwrap_or(default)))
}

/// The resolver that keeps only the addresses a request may connect to.
#[derive(Debug)]
struct Checked(Addresses);

impl Resolver for Checked {
    fn resolve(
        &self,
        uri: &Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let found = DefaultResolver::default().resolve(uri, config, timeout)?;
        let mut kept = self.empty();
        for addr in found.iter().filter(|a| allowed(self.0, a.ip())) {
            kept.push(*addr);
        }
        if kept.is_empty() {
            return Err(ureq::Error::Io(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the host is on a loopback, private or link-local address",
            )));
        }
        Ok(kept)
    }
}

fn allowed(addresses: Addresses, ip: IpAddr) -> bool {
    match addresses {
        Addresses::Any => true,
        Addresses::Public => is_public(ip),
        Addresses::PublicOrLoopback => is_public(ip) || canonical(ip).is_loopback(),
    }
}

/// An IPv4 address written in IPv6 (`::ffff:127.0.0.1`) as the IPv4 address it is.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// An address of the internet at large: not loopback, private, link-local, shared
/// (carrier NAT), multicast, reserved or for documentation.
pub fn is_public(ip: IpAddr) -> bool {
    match canonical(ip) {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => public_v6(v6),
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_documentation()
        || ip.is_multicast()
        || a >= 240
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b == 18 || b == 19)))
}

fn public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    // Local-use NAT64 (RFC 8215) is never global, whatever IPv4 address it carries.
    if s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1 {
        return false;
    }
    // Teredo (RFC 4380): a relay reaches the client at the inverted last 32 bits,
    // through the server in bits 32 to 63; both must be public.
    if s[0] == 0x2001 && s[1] == 0 {
        let client = Ipv4Addr::from(!(u32::from(s[6]) << 16 | u32::from(s[7])));
        let server = Ipv4Addr::from(u32::from(s[2]) << 16 | u32::from(s[3]));
        return public_v4(client) && public_v4(server);
    }
    if let Some(v4) = embedded_v4(s) {
        return public_v4(v4);
    }
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || s[0] & 0xfe00 == 0xfc00
        || s[0] & 0xffc0 == 0xfe80
        || s[0] & 0xffc0 == 0xfec0
        || (s[0] == 0x2001 && s[1] == 0x0db8))
}

/// The IPv4 address an IPv6 one carries where a router or the host itself may go on
/// to reach that IPv4 address: well-known NAT64 (`64:ff9b::/96`), 6to4
/// (`2002::/16`) and IPv4-compatible (`::a.b.c.d`, deprecated but still parsed).
/// The mapped form (`::ffff:a.b.c.d`) is made IPv4 earlier, by `canonical`.
fn embedded_v4(s: [u16; 8]) -> Option<Ipv4Addr> {
    let v4 = |hi: u16, lo: u16| Some(Ipv4Addr::from(u32::from(hi) << 16 | u32::from(lo)));
    match s {
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => v4(hi, lo),
        [0x2002, hi, lo, ..] => v4(hi, lo),
        // `::` and `::1` are not IPv4 addresses, and neither is public.
        [0, 0, 0, 0, 0, 0, 0, 0 | 1] => None,
        [0, 0, 0, 0, 0, 0, hi, lo] => v4(hi, lo),
        _ => None,
    }
}

/// One TCP connection to `addr` within `limit`, closed at once: the console's
/// connection test. Nothing is sent.
pub fn try_connect(addr: SocketAddr, limit: Duration) -> io::Result<()> {
    TcpStream::connect_timeout(&addr, limit).map(drop)
}

/// A URL without the user and password it may carry, to be shown.
pub fn without_credentials(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            let (authority, tail) = rest.split_at(end);
            let host = authority.rsplit('@').next().unwrap_or_default();
            format!("{scheme}://{host}{tail}")
        }
        None => url.to_string(),
    }
}

/// The host (and port) of a URL, for the log: never its path, query or credentials.
/// The host is after the last `@` before the first `/`, so that a `#` or a `?` in a
/// password does not end the credentials early and show their start.
pub fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    host.split(['?', '#']).next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::TcpListener;

    #[test]
    fn only_the_internet_at_large_is_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "::127.0.0.1",
            "::10.0.0.1",
            // 6to4 carrying loopback, private and link-local addresses
            "2002:7f00:1::",
            "2002:a00:1::1",
            "2002:a9fe:a9fe::",
            // Teredo: the client is the inverted last 32 bits (here 127.0.0.1 and
            // 10.0.0.1), or the server (bits 32-63) is private
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "2001:0:4136:e378:8000:63bf:f5ff:fffe",
            "2001:0:a00:1:8000:63bf:f7f7:f7f7",
            // local-use NAT64, whatever it carries
            "64:ff9b:1::808:808",
            "64:ff9b:1:ffff::a00:1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in [
            "1.1.1.1",
            "151.101.0.133",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "::8.8.8.8",
            "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
        let loopback = "127.0.0.1".parse().unwrap();
        assert!(allowed(Addresses::PublicOrLoopback, loopback));
        assert!(!allowed(
            Addresses::PublicOrLoopback,
            "10.0.0.1".parse().unwrap()
        ));
        assert!(allowed(Addresses::Any, loopback));
    }

    #[test]
    fn a_redirect_is_followed_only_within_its_origin() {
        let from = "https://example.org/titledb/versions.txt";
        for (location, to) in [
            (
                "/other/versions.txt",
                "https://example.org/other/versions.txt",
            ),
            (
                "v2/versions.txt",
                "https://example.org/titledb/v2/versions.txt",
            ),
            ("https://EXAMPLE.org:443/x", "https://EXAMPLE.org:443/x"),
            ("//example.org/y", "https://example.org/y"),
        ] {
            assert_eq!(same_origin(from, location).as_deref(), Ok(to), "{location}");
        }
        for location in [
            "http://example.org/x",
            "https://example.org:8443/x",
            "https://evil.example/x",
            "//127.0.0.1/secret.png",
            "https://example.org@127.0.0.1/x",
        ] {
            let refused = same_origin(from, location).unwrap_err();
            assert!(
                refused
                    .to_string()
                    .starts_with("redirected to another host"),
                "{location}: {refused}"
            );
        }
        assert!(
            same_origin(from, "").is_ok(),
            "an empty Location is this URL's folder"
        );
    }

    /// A server that answers each connection with headers, then one byte every 200 ms.
    fn trickle() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/slow", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let mut stream = stream;
                    let _ = stream.read(&mut [0; 4096]);
                    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
                    while stream.write_all(b"x").is_ok() {
                        std::thread::sleep(Duration::from_millis(200));
                    }
                });
            }
        });
        url
    }

    #[test]
    fn a_trickling_body_ends_at_the_deadline() {
        let url = trickle();
        let rules = Rules {
            total: Duration::from_secs(1),
            addresses: Addresses::Any,
        };
        let client = Client::new(rules, Cancel::default());
        let started = Instant::now();
        let answer = client.get(&url, &[]).unwrap();
        assert_eq!(answer.status, 200);
        let read = answer.into_body().read_to_end(&mut Vec::new());
        assert!(read.is_err());
        let took = started.elapsed();
        assert!(took < Duration::from_millis(1800), "{took:?}");
    }

    #[test]
    fn a_cancel_ends_a_read_that_waits() {
        let url = trickle();
        let flag = Arc::new(AtomicBool::new(false));
        let client = Client::new(TITLE_DATA, Cancel::on(Arc::clone(&flag)));
        let mut body = client.get(&url, &[]).unwrap().into_body();
        let mut byte = [0; 1];
        body.read_exact(&mut byte).unwrap();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::SeqCst);
            Instant::now()
        });
        // Each read waits up to 200 ms for its byte: the cancel comes during one.
        let read = body.read_to_end(&mut Vec::new());
        let ended = Instant::now();
        let cancelled_at = setter.join().unwrap();
        assert!(read.is_err());
        assert!(ended.duration_since(cancelled_at) < Duration::from_millis(500));
        assert_eq!(client.get(&url, &[]).err(), Some(Failure::Cancelled));
    }

    #[test]
    fn icons_never_reach_a_loopback_host() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/icon.jpg", listener.local_addr().unwrap());
        let client = Client::new(ICON, Cancel::default());
        let Err(Failure::Failed(why)) = client.get(&url, &[]) else {
            panic!("an icon fetched from loopback");
        };
        assert!(
            why.to_string().contains("loopback, private or link-local"),
            "{why}"
        );
        listener.set_nonblocking(true).unwrap();
        assert!(listener.accept().is_err(), "nothing connected");
    }

    #[test]
    fn network_failures_are_said_as_a_person_can_act_on_them() {
        use std::io::{Error as Io, ErrorKind};
        let io = |kind, text: &str| ureq::Error::Io(Io::new(kind, text.to_string()));
        let lookup = "failed to lookup address information: Name or service not known";
        for (e, said) in [
            (ureq::Error::HostNotFound, Some(Reason::NoInternet)),
            (io(ErrorKind::Other, lookup), Some(Reason::NoInternet)),
            (
                io(ErrorKind::ConnectionRefused, "refused"),
                Some(Reason::ConnectionRefused),
            ),
            (
                io(ErrorKind::ConnectionReset, "reset"),
                Some(Reason::ConnectionCut),
            ),
            (
                io(ErrorKind::NetworkUnreachable, "unreachable"),
                Some(Reason::NoRoute),
            ),
            (ureq::Error::Tls("bad certificate"), Some(Reason::TlsFailed)),
            // One step's timeout is no whole-exchange deadline: said without a length.
            (
                ureq::Error::Timeout(ureq::Timeout::Connect),
                Some(Reason::NoAnswerInTime),
            ),
            (
                io(ErrorKind::TimedOut, "timed out"),
                Some(Reason::NoAnswerInTime),
            ),
            (io(ErrorKind::Other, "something else"), None),
        ] {
            assert_eq!(network_reason(&e), said, "{e}");
        }
        // Live: a port nobody listens on refuses, said in both languages.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let client = Client::new(TITLE_DATA, Cancel::default());
        let Err(Failure::Failed(why)) = client.get(&format!("http://{port}/versions.txt"), &[])
        else {
            panic!("a closed port answered");
        };
        assert_eq!(why.english(), "the server refused the connection");
        assert_eq!(why.french(), "le serveur a refusé la connexion");
    }
}
