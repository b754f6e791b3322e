//! Where the service listens, and moving there without a restart.
//!
//! The address field on the Consoles and welcome pages asks for a move
//! (`web::listen`); the acceptor, which owns the listener, makes it between two
//! requests (`server::accept`). It binds the new address; when that fails because the
//! old listener holds the same port on another interface (Linux refuses 0.0.0.0:8080
//! while 127.0.0.1:8080 listens), it closes the old listener first, binds, and goes
//! back to the old address if the new one still cannot be bound. The connections open
//! on the old listener, the browser's that asked among them, are served until they
//! close or [`RETIRE_AFTER`] passes; until then the warden watches both ports.

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender};

use crate::error::{Error, Msg};

/// The ports connections are accepted on: the listener's, and the one it left while
/// that one's connections are still served (0 when none).
pub type Ports = [u16; 2];

/// How long the old listener's open connections are still served after a move.
pub const RETIRE_AFTER: Duration = Duration::from_secs(120);

/// How long a move may take, waiting for the acceptor included.
const MOVE_TIMEOUT: Duration = Duration::from_secs(5);

/// A move asked of the acceptor, and where it answers.
pub struct Move {
    pub to: SocketAddr,
    pub answer: Sender<Result<SocketAddr, Error>>,
}

#[derive(Debug)]
pub struct Listening {
    state: Mutex<(SocketAddr, Ports)>,
    asks: (Sender<Move>, Receiver<Move>),
}

impl Listening {
    pub fn new(addr: SocketAddr) -> Listening {
        Listening {
            state: Mutex::new((addr, [addr.port(), 0])),
            asks: bounded(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (SocketAddr, Ports)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The address the listener is bound to.
    pub fn addr(&self) -> SocketAddr {
        self.lock().0
    }

    pub fn ports(&self) -> Ports {
        self.lock().1
    }

    /// Where to connect to reach the listener from this machine.
    pub fn reachable(&self) -> SocketAddr {
        let mut addr = self.addr();
        if addr.ip().is_unspecified() {
            addr.set_ip(match addr {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        addr
    }

    /// Ask the acceptor to listen on `to` instead; returns the address bound.
    pub fn move_to(&self, to: SocketAddr) -> Result<SocketAddr, Error> {
        let (answer, answered) = bounded(1);
        self.asks
            .0
            .send_timeout(Move { to, answer }, MOVE_TIMEOUT)
            .map_err(|_| Error::overloaded())?;
        answered
            .recv_timeout(MOVE_TIMEOUT)
            .map_err(|_| Error::overloaded())?
    }

    /// The move asked, if any (the acceptor's, between two requests).
    pub fn asked(&self) -> Option<Move> {
        self.asks.1.try_recv().ok()
    }

    /// Now listening on `addr`; the connections on `old_port` still served.
    pub fn moved(&self, addr: SocketAddr, old_port: u16) {
        let retiring = if old_port == addr.port() { 0 } else { old_port };
        *self.lock() = (addr, [addr.port(), retiring]);
    }

    /// The old listener's connections are no longer served.
    pub fn retired(&self) {
        self.lock().1[1] = 0;
    }
}

/// The address typed in the field, `HOST:PORT` with an IP address (IPv6 in brackets)
/// and a port from 1 to 65535: a host name would leave the address to a resolver, and
/// port 0 to chance.
pub fn parse(text: &str) -> Result<SocketAddr, Error> {
    let text = text.trim();
    let bad = || {
        Error::invalid(Msg::BadListenAddress {
            address: crate::text::cut(text, 64).into(),
        })
    };
    let addr: SocketAddr = text.parse().map_err(|_| bad())?;
    if addr.port() == 0 || addr.ip().is_multicast() {
        return Err(bad());
    }
    Ok(addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_takes_an_ip_and_a_port() {
        assert_eq!(parse(" 0.0.0.0:8080 ").unwrap().port(), 8080);
        assert!(parse("[::]:8080").unwrap().ip().is_unspecified());
        for bad in [
            "localhost:8080",
            "0.0.0.0",
            "0.0.0.0:0",
            "1.2.3.4:99999",
            "224.0.0.1:80",
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_move_to_another_port_keeps_watching_the_old_one() {
        let l = Listening::new("127.0.0.1:8080".parse().unwrap());
        l.moved("0.0.0.0:9090".parse().unwrap(), 8080);
        assert_eq!(l.ports(), [9090, 8080]);
        assert_eq!(l.reachable(), "127.0.0.1:9090".parse().unwrap());
        l.retired();
        assert_eq!(l.ports(), [9090, 0]);
        l.moved("127.0.0.1:9090".parse().unwrap(), 9090);
        assert_eq!(l.ports(), [9090, 0]);
    }
}
