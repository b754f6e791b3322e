//! Who runs the program at the other end of a loopback connection.
//!
//! The loopback rule (see `auth`) is for the admin's curl on this machine and the
//! container's health probe. A reverse proxy on the same machine that adds no
//! forwarding header (nginx's bare `proxy_pass`) made every visitor of the internet
//! "local" too. The kernel knows better: the peer of a loopback connection is a
//! socket of this machine, and the kernel keeps the uid of the user that made it. A
//! proxy runs as `www-data`, `caddy`, `nginx` or `nobody`; the admin's curl as root
//! or as the service's own user.
//!
//! Asked first with one `sock_diag` netlink request for the exact connection (what
//! `ss` uses): 13 µs on the build machine, with 10 or 4,000 connections open. When
//! that cannot say (no netlink, or the peer connected to a local address we did not
//! guess), by reading the whole table in `/proc/net/tcp` and `tcp6`, which walks
//! every bucket of the kernel's hash of connections: 9 ms with 10 connections open,
//! 23 ms with 1,000, 67 ms with 4,000 (11,000 lines). So it is only the fallback.
//!
//! Read once per connection: the answer is kept by the kernel's cookie of our end of
//! it (`SO_COOKIE`), a number the kernel gives no other socket until it restarts, so
//! a program that reuses a closed connection's port is asked about afresh. Not by
//! address and port, which another program gets as soon as the connection ends. The
//! lookup was 7 % of a loopback request's CPU under load (a search answered in about
//! 60 µs). A socket its program has closed (no inode: `TIME_WAIT` is listed as root's,
//! and an orphan outlives its program) names nobody, nor does a table that cannot be
//! read: the caller then decides, and nothing is kept.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::RawFd;
use std::sync::Mutex;

/// The kernel's tables of TCP sockets, IPv4 first.
const TABLES: [&str; 2] = ["/proc/net/tcp", "/proc/net/tcp6"];

/// The owners found, by the cookie of our socket of the connection. Cleared when full:
/// a connection asked again costs one lookup.
static KNOWN: Mutex<BTreeMap<u64, u32>> = Mutex::new(BTreeMap::new());
const KNOWN_MAX: usize = 4096;

/// The kernel's cookie of the socket `fd` (`SO_COOKIE`, Linux 4.12 and later): never
/// 0, and never given to another socket while the machine runs.
pub fn cookie(fd: RawFd) -> Option<u64> {
    let mut cookie = 0u64;
    let mut len = std::mem::size_of::<u64>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `cookie`, a u64 of ours; a
    // descriptor that is not a socket only makes it fail.
    let done = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_COOKIE,
            (&raw mut cookie).cast(),
            &mut len,
        )
    };
    (done == 0 && len as usize == std::mem::size_of::<u64>() && cookie != 0).then_some(cookie)
}

/// [`peer_uid`], asked once per connection: `connection` is our socket's
/// [`cookie`] (none: asked every time).
pub fn connection_peer_uid(
    connection: Option<u64>,
    peer: SocketAddr,
    listen: SocketAddr,
) -> Option<u32> {
    let known = || KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(uid) = connection.and_then(|c| known().get(&c).copied()) {
        return Some(uid);
    }
    let uid = peer_uid(peer, listen)?;
    if let Some(c) = connection {
        let mut known = known();
        if known.len() >= KNOWN_MAX {
            known.clear();
        }
        known.insert(c, uid);
    }
    Some(uid)
}

/// The uid of the program whose socket `peer` is connected to this service on this
/// machine, if the kernel names exactly one owner for it. `listen` is the address the
/// service listens on (unspecified: any of the machine's).
pub fn peer_uid(peer: SocketAddr, listen: SocketAddr) -> Option<u32> {
    let peer = SocketAddr::new(peer.ip().to_canonical(), peer.port());
    for ours in local_guesses(peer.ip(), listen.ip()) {
        match diag::lookup(peer, SocketAddr::new(ours, listen.port())) {
            diag::Found::Owner(uid) => return Some(uid),
            diag::Found::Gone => return None,
            diag::Found::Unknown => {}
        }
    }
    // An IPv6 peer (not mapped) can only be in tcp6; an IPv4 one may be in either
    // (an IPv6 socket may connect to an IPv4-mapped address).
    let tables = match peer.ip() {
        IpAddr::V4(_) => &TABLES[..],
        IpAddr::V6(_) => &TABLES[1..],
    };
    tables.iter().find_map(|table| {
        let text = std::fs::read_to_string(table).ok()?;
        owner_in(&text, peer, listen.port())
    })
}

/// The addresses of ours the peer may have connected to: the one we listen on, or,
/// listening on all, the peer's own (a loopback client's usual source) and the
/// loopback address of its family.
fn local_guesses(peer: IpAddr, listen: IpAddr) -> Vec<IpAddr> {
    let listen = listen.to_canonical();
    if !listen.is_unspecified() {
        return vec![listen];
    }
    let usual = match peer {
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
    };
    let mut guesses = vec![peer];
    if usual != peer {
        guesses.push(usual);
    }
    guesses
}

/// The one owner the table `text` gives the live socket at `peer` connected to
/// `port`; `None` when it lists none, or two that disagree.
pub fn owner_in(text: &str, peer: SocketAddr, port: u16) -> Option<u32> {
    let peer = (peer.ip().to_canonical(), peer.port());
    let mut owner = None;
    for entry in text.lines().skip(1).filter_map(parse_line) {
        let local = (entry.local.ip().to_canonical(), entry.local.port());
        if local != peer || entry.remote.port() != port || entry.inode == 0 {
            continue;
        }
        match owner {
            None => owner = Some(entry.uid),
            Some(uid) if uid != entry.uid => return None,
            Some(_) => {}
        }
    }
    owner
}

/// One line of the table.
#[derive(Debug, PartialEq, Eq)]
struct SocketRow {
    local: SocketAddr,
    remote: SocketAddr,
    uid: u32,
    /// 0 when no program holds the socket any more.
    inode: u64,
}

/// `sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid
/// timeout inode …`
fn parse_line(line: &str) -> Option<SocketRow> {
    let mut fields = line.split_whitespace();
    let _slot = fields.next()?;
    let local = parse_socket(fields.next()?)?;
    let remote = parse_socket(fields.next()?)?;
    // st, tx:rx, tr:when, retrnsmt, then uid.
    let uid = fields.nth(4)?.parse().ok()?;
    // timeout, then inode.
    let inode = fields.nth(1)?.parse().ok()?;
    Some(SocketRow {
        local,
        remote,
        uid,
        inode,
    })
}

/// `0100007F:1F90`: the address as the kernel holds it (network order), printed as
/// 32-bit words in the machine's order; the port in hex.
fn parse_socket(text: &str) -> Option<SocketAddr> {
    let (address, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let mut bytes = Vec::with_capacity(16);
    if !matches!(address.len(), 8 | 32) {
        return None;
    }
    for i in (0..address.len()).step_by(8) {
        let word = u32::from_str_radix(address.get(i..i + 8)?, 16).ok()?;
        bytes.extend_from_slice(&word.to_ne_bytes());
    }
    let ip = match <[u8; 4]>::try_from(bytes.as_slice()) {
        Ok(v4) => IpAddr::V4(Ipv4Addr::from(v4)),
        Err(_) => IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(bytes.as_slice()).ok()?)),
    };
    Some(SocketAddr::new(ip, port))
}

/// The exact lookup, through `NETLINK_SOCK_DIAG` (linux/inet_diag.h).
mod diag {
    use std::net::{IpAddr, SocketAddr};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    /// What the kernel said of one connection.
    #[derive(Debug, PartialEq, Eq)]
    pub enum Found {
        /// A live socket held by a program of this uid.
        Owner(u32),
        /// The connection is there but no program holds its socket any more
        /// (`TIME_WAIT`, an orphan): nobody to admit.
        Gone,
        /// No such connection, or no answer: ask elsewhere.
        Unknown,
    }

    const SOCK_DIAG_BY_FAMILY: u16 = 20;
    const TCP_LISTEN: u8 = 10;
    const TCP_TIME_WAIT: u8 = 6;
    /// `nlmsghdr` (16 bytes) + `inet_diag_req_v2` (56 bytes).
    const REQUEST_LEN: usize = 72;

    /// The owner of the socket whose own address is `peer` and whose remote one is
    /// `ours`.
    pub fn lookup(peer: SocketAddr, ours: SocketAddr) -> Found {
        let seq = SEQ.with(|s| {
            s.set(s.get().wrapping_add(1));
            s.get()
        });
        let Some(request) = request(peer, ours, seq) else {
            return Found::Unknown;
        };
        let answer = SOCKET.with(|socket| {
            let mut socket = socket.borrow_mut();
            if socket.is_none() {
                *socket = open();
            }
            let answer = socket.as_ref().and_then(|fd| ask(fd, &request, seq));
            if answer.is_none() {
                // Whatever went wrong, the next lookup starts on a new socket.
                *socket = None;
            }
            answer
        });
        match answer {
            Some(answer) => read_answer(&answer, peer, ours),
            None => Found::Unknown,
        }
    }

    thread_local! {
        /// Each worker keeps its netlink socket: making one for every lookup cost
        /// about a tenth of the rate of keyless requests from this machine.
        static SOCKET: std::cell::RefCell<Option<OwnedFd>> = const { std::cell::RefCell::new(None) };
        /// The sequence number of the worker's last request: an answer that comes
        /// late for an earlier one is told apart and passed over.
        static SEQ: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }

    /// One request for one socket (no dump): the kernel finds it by its four-tuple,
    /// `id.src` being its own end.
    fn request(peer: SocketAddr, ours: SocketAddr, seq: u32) -> Option<[u8; REQUEST_LEN]> {
        let (family, src, dst) = match (peer.ip(), ours.ip()) {
            (IpAddr::V4(p), IpAddr::V4(o)) => (libc::AF_INET, pad(&p.octets()), pad(&o.octets())),
            (IpAddr::V6(p), IpAddr::V6(o)) => (libc::AF_INET6, p.octets(), o.octets()),
            _ => return None,
        };
        let mut r = [0u8; REQUEST_LEN];
        r[0..4].copy_from_slice(&(REQUEST_LEN as u32).to_ne_bytes());
        r[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        r[6..8].copy_from_slice(&(libc::NLM_F_REQUEST as u16).to_ne_bytes());
        r[8..12].copy_from_slice(&seq.to_ne_bytes());
        r[16] = family as u8;
        r[17] = libc::IPPROTO_TCP as u8;
        r[20..24].copy_from_slice(&u32::MAX.to_ne_bytes());
        r[24..26].copy_from_slice(&peer.port().to_be_bytes());
        r[26..28].copy_from_slice(&ours.port().to_be_bytes());
        r[28..44].copy_from_slice(&src);
        r[44..60].copy_from_slice(&dst);
        // The cookie: INET_DIAG_NOCOOKIE, "any socket of that four-tuple".
        r[64..72].fill(0xff);
        Some(r)
    }

    fn pad(v4: &[u8; 4]) -> [u8; 16] {
        let mut a = [0u8; 16];
        a[..4].copy_from_slice(v4);
        a
    }

    /// A netlink socket for `sock_diag`, answers waited for at most a second.
    fn open() -> Option<OwnedFd> {
        // SAFETY: plain system calls; the descriptor is owned by `OwnedFd` at once, and
        // the option's buffer lives across the call with its true length.
        unsafe {
            let fd = libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                libc::NETLINK_SOCK_DIAG,
            );
            if fd < 0 {
                return None;
            }
            let fd = OwnedFd::from_raw_fd(fd);
            let wait = libc::timeval {
                tv_sec: 1,
                tv_usec: 0,
            };
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                (&wait as *const libc::timeval).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            );
            Some(fd)
        }
    }

    /// Send the request; the kernel's answer to it (one with another sequence number
    /// came late for an earlier request, and is passed over).
    fn ask(fd: &OwnedFd, request: &[u8], seq: u32) -> Option<Vec<u8>> {
        // SAFETY: plain system calls on a descriptor we hold, with buffers that live
        // across each call and their true lengths.
        unsafe {
            let mut kernel: libc::sockaddr_nl = std::mem::zeroed();
            kernel.nl_family = libc::AF_NETLINK as libc::sa_family_t;
            let sent = libc::sendto(
                fd.as_raw_fd(),
                request.as_ptr().cast(),
                request.len(),
                0,
                (&kernel as *const libc::sockaddr_nl).cast(),
                std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
            );
            if sent != request.len() as isize {
                return None;
            }
            let mut answer = vec![0u8; 8192];
            for _ in 0..4 {
                let got = libc::recv(fd.as_raw_fd(), answer.as_mut_ptr().cast(), answer.len(), 0);
                if got <= 0 {
                    return None;
                }
                let theirs = answer
                    .get(8..12)
                    .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
                if theirs == Some(seq) {
                    answer.truncate(got as usize);
                    return Some(answer);
                }
            }
            None
        }
    }

    /// `nlmsghdr`, then `inet_diag_msg`: family, state, timer, retrans, the socket's
    /// id (48 bytes), expires, rqueue, wqueue, uid, inode.
    fn read_answer(a: &[u8], peer: SocketAddr, ours: SocketAddr) -> Found {
        let word = |at: usize| {
            a.get(at..at + 4)
                .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        };
        let kind = a.get(4..6).map(|b| u16::from_ne_bytes([b[0], b[1]]));
        if kind != Some(SOCK_DIAG_BY_FAMILY) || a.len() < 16 + 72 {
            // NLMSG_ERROR: ENOENT for no such socket, or the request was refused.
            return Found::Unknown;
        }
        let state = a[17];
        let ports = (
            u16::from_be_bytes([a[20], a[21]]),
            u16::from_be_bytes([a[22], a[23]]),
        );
        // Past a wrong guess of our address the kernel may answer with a listener on
        // the peer's port: not the peer, so ask elsewhere.
        if ports != (peer.port(), ours.port()) || state == TCP_LISTEN {
            return Found::Unknown;
        }
        match (word(80), word(84)) {
            (Some(uid), Some(inode)) if inode != 0 && state != TCP_TIME_WAIT => Found::Owner(uid),
            _ => Found::Gone,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection's owner is kept by its socket's cookie: each socket has its own,
    /// it does not change, and a socket that ends leaves its number to no other.
    #[test]
    fn each_socket_has_a_cookie_of_its_own() {
        use std::os::fd::AsRawFd;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..3 {
            let client = std::net::TcpStream::connect(address).unwrap();
            let (server, _) = listener.accept().unwrap();
            let ours = cookie(server.as_raw_fd()).expect("Linux 4.12 has SO_COOKIE");
            assert_eq!(cookie(server.as_raw_fd()), Some(ours));
            assert!(seen.insert(ours));
            assert!(seen.insert(cookie(client.as_raw_fd()).unwrap()));
        }
        let file = std::fs::File::open("/dev/null").unwrap();
        assert_eq!(cookie(file.as_raw_fd()), None, "not a socket");
    }

    /// A table as a little-endian machine prints it: a server on 8080, a client of
    /// it at port 40000 owned by uid 33, the server's side of that connection, and a
    /// closed client at 40001 (TIME_WAIT, listed as root's with no inode).
    const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000   999        0 1111 1 0000000000000000 100 0 0 10 0
   1: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000    33        0 2222 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:1F90 0100007F:9C40 01 00000000:00000000 00:00000000 00000000   999        0 3333 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:9C41 0100007F:1F90 06 00000000:00000000 03:00001770 00000000     0        0 0 3 0000000000000000
";

    fn at(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    #[cfg(target_endian = "little")]
    #[test]
    fn the_owner_of_the_peer_socket_is_found_in_an_ipv4_table() {
        assert_eq!(owner_in(TCP, at("127.0.0.1:40000"), 8080), Some(33));
        // The same client seen through a server listening on [::].
        assert_eq!(
            owner_in(TCP, at("[::ffff:127.0.0.1]:40000"), 8080),
            Some(33)
        );
        // Not connected to us, or gone: nobody.
        assert_eq!(owner_in(TCP, at("127.0.0.1:40000"), 8081), None);
        assert_eq!(owner_in(TCP, at("127.0.0.1:40001"), 8080), None);
        // Our own side of the connection is not the peer's.
        assert_eq!(owner_in(TCP, at("127.0.0.1:8080"), 40000), Some(999));
    }

    #[cfg(target_endian = "little")]
    #[test]
    fn ipv6_and_mapped_sockets_are_read_word_by_word() {
        let tcp6 = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:A000 00000000000000000000000001000000:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 4444 1 0000000000000000 20 4 30 10 -1
   1: 0000000000000000FFFF00000100007F:A001 0000000000000000FFFF00000100007F:1F90 01 00000000:00000000 00:00000000 00000000    65534        0 5555 1 0000000000000000 20 4 30 10 -1
";
        assert_eq!(owner_in(tcp6, at("[::1]:40960"), 8080), Some(1000));
        assert_eq!(owner_in(tcp6, at("127.0.0.1:40961"), 8080), Some(65534));
        assert_eq!(owner_in(tcp6, at("[::1]:40961"), 8080), None);
    }

    #[test]
    fn two_owners_for_one_socket_name_nobody_and_junk_is_skipped() {
        let twice = format!(
            "{}   4: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 6666 1\n",
            TCP
        );
        let peer = SocketAddr::new(Ipv4Addr::LOCALHOST.into(), 40000);
        if cfg!(target_endian = "little") {
            assert_eq!(owner_in(&twice, peer, 8080), None);
        }
        for junk in [
            "",
            "x",
            "0: zz:1 0:0 01",
            "0: 0100007F 0100007F:1F90",
            "0: 0100007F:1F90",
        ] {
            assert_eq!(owner_in(&format!("header\n{junk}\n"), peer, 8080), None);
        }
    }

    #[test]
    fn this_process_finds_its_own_connection() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let client = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let (_server_side, peer) = listener.accept().unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        // SAFETY: geteuid cannot fail and touches no memory of ours.
        let me = unsafe { libc::geteuid() };
        let ours = listener.local_addr().unwrap();
        assert_eq!(diag::lookup(peer, ours), diag::Found::Owner(me));
        assert_eq!(peer_uid(peer, ours), Some(me));
        // Listening on all addresses: the usual guesses find it too.
        let any = SocketAddr::new(Ipv4Addr::UNSPECIFIED.into(), port);
        assert_eq!(peer_uid(peer, any), Some(me));
        // The table, read whole, agrees.
        let table = std::fs::read_to_string(TABLES[0]).unwrap();
        assert_eq!(owner_in(&table, peer, port), Some(me));
        // Once the client is gone, nobody.
        drop(client);
        assert_ne!(diag::lookup(peer, ours), diag::Found::Owner(me));
    }

    #[test]
    fn guesses_of_our_address() {
        let v4 = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(
            local_guesses(v4("127.0.0.1"), v4("127.0.0.1")),
            [v4("127.0.0.1")]
        );
        assert_eq!(
            local_guesses(v4("127.0.0.1"), v4("0.0.0.0")),
            [v4("127.0.0.1")]
        );
        assert_eq!(
            local_guesses(v4("127.0.0.9"), v4("::")),
            [v4("127.0.0.9"), v4("127.0.0.1")]
        );
        assert_eq!(local_guesses(v4("::1"), v4("::")), [v4("::1")]);
        assert_eq!(
            local_guesses(v4("127.0.0.1"), v4("::ffff:127.0.0.1")),
            [v4("127.0.0.1")]
        );
    }
}
