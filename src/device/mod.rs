//! The handheld and the LAN push (`docs/push.md`).
//!
//! A push offers files to the console's installer, which then downloads them over
//! HTTP from this service under a random token. The [`Sessions`] slot is shared by the
//! job thread (which runs the push) and the HTTP workers (which serve the bytes): it
//! knows the token, the files, which byte ranges of each were served, and when the
//! console was last heard from.
//!
//! "Served" means handed to the kernel for sending: when a connection breaks, the
//! bytes still in the socket buffers (a few MiB at most) were counted but may not
//! have arrived, so a file is only called delivered when every byte was served.

use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use crate::error::{Error, Msg};
use crate::words::TitleId;

/// Byte ranges served of one file, merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Served(Vec<(u64, u64)>);

impl Served {
    /// Note that `[start, end)` was served.
    pub fn add(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        self.0.push((start, end));
        self.0.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.0.len());
        for &(s, e) in &self.0 {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.0 = merged;
    }

    /// Distinct bytes served.
    pub fn bytes(&self) -> u64 {
        self.0.iter().map(|(s, e)| e - s).sum()
    }

    /// Every byte of a file of `size` bytes was served at least once.
    pub fn covers(&self, size: u64) -> bool {
        size == 0 || self.0.first().is_some_and(|&(s, e)| s == 0 && e >= size)
    }
}

/// A file offered in a push.
#[derive(Debug, Clone)]
pub struct PushFile {
    pub key: crate::library::LibraryKey,
    /// The last path segment of its URL: the real file name.
    pub name: String,
    pub size: u64,
    pub served: Served,
}

/// The push under way.
#[derive(Debug)]
pub struct Session {
    pub token: String,
    pub files: Vec<PushFile>,
    /// The console sent DROP: the session is over.
    pub dropped: bool,
    pub requests: u64,
    pub last_activity: Instant,
    pub first_contact: Option<i64>,
    pub client: Option<String>,
    /// Key of the file last requested, for the progress detail.
    pub current: String,
    /// Transfers still streaming.
    pub active: u32,
}

/// The one push slot, and the address the service listens on.
#[derive(Default)]
pub struct Sessions {
    current: Mutex<Option<Session>>,
    listen: Mutex<Option<SocketAddr>>,
}

impl Sessions {
    pub fn lock(&self) -> MutexGuard<'_, Option<Session>> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn set_listen(&self, addr: SocketAddr) {
        *self.listen.lock().unwrap_or_else(|p| p.into_inner()) = Some(addr);
    }

    pub fn listen(&self) -> Option<SocketAddr> {
        *self.listen.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The local address of the route to the console: what the console can reach us at.
/// A UDP "connect" sends no packet; it only asks the kernel for the route.
pub fn route_address(host: &str, port: u16) -> Option<IpAddr> {
    let socket = UdpSocket::bind(("0.0.0.0", 0)).ok()?;
    socket.connect((host, port)).ok()?;
    socket.local_addr().ok().map(|a| a.ip())
}

/// What a connection attempt to the console's installer found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Something accepted the connection: the installer waits.
    Open,
    /// The console answered that nothing listens on that port.
    Refused,
    /// Nothing answered in time: a wrong address, a firewall, another network.
    TimedOut,
    /// The kernel knows no way there (network or host unreachable).
    NoRoute,
}

impl Reach {
    pub fn as_str(self) -> &'static str {
        match self {
            Reach::Open => "reachable",
            Reach::Refused => "refused",
            Reach::TimedOut => "timed_out",
            Reach::NoRoute => "unreachable",
        }
    }
}

/// Try a TCP connection to the console and close it at once, within `timeout`
/// (`outbound::try_connect`). Only when a person asks (the console page's test): a
/// connection that sends no offer takes some installers off their waiting screen, so
/// the service never does it on its own.
pub fn probe(host: &str, port: u16, timeout: std::time::Duration) -> Result<Reach, Error> {
    let ip: IpAddr = host
        .parse()
        .map_err(|_| Error::invalid(Msg::ConsoleAddressNotIp))?;
    if port == 0 {
        return Err(Error::invalid(Msg::BadPort));
    }
    use std::io::ErrorKind as K;
    Ok(
        match crate::outbound::try_connect(SocketAddr::new(ip, port), timeout) {
            Ok(()) => Reach::Open,
            Err(e) if e.kind() == K::ConnectionRefused => Reach::Refused,
            Err(e) if matches!(e.kind(), K::TimedOut | K::WouldBlock) => Reach::TimedOut,
            Err(_) => Reach::NoRoute,
        },
    )
}

/// The offer: a big-endian u32 length, then the URLs separated by newlines.
pub fn offer(urls: &[String]) -> Vec<u8> {
    let body = urls.iter().map(|u| format!("{u}\n")).collect::<String>();
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Configure the handheld, after checking what was given.
pub fn configure(
    db: &rusqlite::Connection,
    name: &str,
    host: &str,
    port: u16,
    offer: Option<&str>,
) -> Result<(), Error> {
    if host.parse::<IpAddr>().is_err() {
        return Err(Error::invalid(Msg::ConsoleAddressNotIp));
    }
    if port == 0 {
        return Err(Error::invalid(Msg::BadPort));
    }
    if offer.is_some_and(|a| a.parse::<IpAddr>().is_err()) {
        return Err(Error::invalid(Msg::OfferAddressNotIp));
    }
    // No name given: the console is called "Switch".
    let name = match name.trim() {
        "" => "Switch",
        given => given,
    };
    let name = crate::text::name("A console's name", name)?;
    crate::store::device::set(db, &name, host, port, offer)
}

/// Add a game to the push list; it must be in the library.
pub fn add_game(db: &rusqlite::Connection, key: &str) -> Result<(), Error> {
    if crate::library::find(db, key)?.is_none() {
        return Err(Error::not_found(Msg::NoGame { key: key.into() }));
    }
    crate::store::push_list::add(db, key, crate::time::now())
}

/// The title ID a user typed (a URL's, an argument's), or the error they are given.
pub fn title_id(text: &str) -> Result<TitleId, Error> {
    TitleId::parse(text).ok_or_else(|| Error::not_found(Msg::NotTitleId))
}

/// Add a title: its base game, its latest update and all its DLC. Returns the keys.
pub fn add_title(db: &rusqlite::Connection, id: TitleId) -> Result<Vec<String>, Error> {
    let keys = crate::store::games::title_family(db, id)?;
    if keys.is_empty() {
        return Err(Error::not_found(Msg::NothingOfTitle { id: id.to_string() }));
    }
    for key in &keys {
        crate::store::push_list::add(db, key, crate::time::now())?;
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_ranges_merge_and_cover() {
        let mut s = Served::default();
        s.add(10, 20);
        s.add(0, 10);
        s.add(15, 30);
        assert_eq!(s.bytes(), 30);
        assert!(s.covers(30) && !s.covers(31));
        s.add(40, 50);
        assert_eq!(s.bytes(), 40);
        assert!(!s.covers(50));
    }

    #[test]
    fn a_probe_tells_a_listener_from_a_closed_port() {
        let wait = std::time::Duration::from_secs(2);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let open = listener.local_addr().unwrap().port();
        assert_eq!(probe("127.0.0.1", open, wait).unwrap(), Reach::Open);
        let closed = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        assert_eq!(probe("127.0.0.1", closed, wait).unwrap(), Reach::Refused);
        assert!(probe("console.local", 2000, wait).is_err());
        assert!(probe("127.0.0.1", 0, wait).is_err());
    }

    #[test]
    fn the_offer_is_a_big_endian_length_then_lines() {
        let o = offer(&[
            "1.2.3.4:80/dl/t/a.nsp".into(),
            "1.2.3.4:80/dl/t/b.nsp".into(),
        ]);
        assert_eq!(&o[..4], &(44u32).to_be_bytes());
        assert_eq!(&o[4..], b"1.2.3.4:80/dl/t/a.nsp\n1.2.3.4:80/dl/t/b.nsp\n");
    }
}
