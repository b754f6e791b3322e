//! The push task: offer the pending games to the handheld, serve their bytes while
//! the person at the console installs them, and see what was delivered.
//!
//! The session ends on a 1-byte ack on the offer socket, a `DROP` request, the console
//! closing that socket, the inactivity timeout, or a cancel. Then each file is
//! delivered (every byte served at least once), partial or untouched; delivered files
//! leave the push list. No installer reports success: this is the best there is.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use log::{info, warn};
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use rand::distr::{Alphanumeric, SampleString};

use super::{Outcome, TaskCtx};
use crate::device::{self, PushFile, Session, Sessions};
use crate::error::{Error, Msg};
use crate::library;
use crate::store::{device as devices, push_list};
use crate::time;
use crate::words::PushEnd;

/// What a URL's last segment escapes: enough for installers to read the real name
/// and extension back.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'/')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'|');

pub fn run(ctx: &TaskCtx, sessions: &Sessions) -> Result<Outcome, Error> {
    let Some(dev) = devices::get(ctx.db)? else {
        return Err(Error::invalid(Msg::NoDevice));
    };
    let files = pending_files(ctx)?;
    if files.is_empty() {
        return Ok(Msg::PushEmpty.into());
    }
    let (listen, console, offered) = addresses(&dev, sessions)?;
    let token = Alphanumeric.sample_string(&mut rand::rng(), 32);
    let base = format!("{offered}:{}/dl/{token}", listen.port());
    let urls: Vec<String> = files
        .iter()
        .map(|f| format!("{base}/{}", utf8_percent_encode(&f.name, SEGMENT)))
        .collect();
    ctx.progress.set_total(files.iter().map(|f| f.size).sum());
    *sessions.lock() = Some(Session {
        token,
        files,
        dropped: false,
        requests: 0,
        last_activity: Instant::now(),
        first_contact: None,
        client: None,
        current: String::new(),
        active: 0,
    });
    let ended = offer_and_wait(ctx, sessions, console, &urls);
    finish(
        ctx,
        sessions,
        ended,
        &format!("{offered}:{}", listen.port()),
    )
}

/// How many files were delivered whole (and leave the push list), in part, not at all.
fn tally(ctx: &TaskCtx, files: &[PushFile]) -> Result<(u32, u32, u32), Error> {
    let (mut delivered, mut partial, mut untouched) = (0, 0, 0);
    for f in files {
        if f.served.covers(f.size) {
            push_list::remove(ctx.db, &f.key)?;
            delivered += 1;
        } else if f.served.bytes() > 0 {
            partial += 1;
        } else {
            untouched += 1;
        }
    }
    Ok((delivered, partial, untouched))
}

/// The service's own address, the console's, and the address offered to it in the URLs.
fn addresses(
    dev: &devices::Device,
    sessions: &Sessions,
) -> Result<(SocketAddr, SocketAddr, IpAddr), Error> {
    let listen = sessions
        .listen()
        .ok_or_else(|| Error::internal("the listen address is unknown"))?;
    let console = (dev.host.as_str(), dev.port)
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| {
            Error::invalid(Msg::BadConsoleAddress {
                host: dev.host.clone(),
            })
        })?;
    let offered: IpAddr = match &dev.offer_address {
        Some(a) => a
            .parse()
            .map_err(|_| Error::invalid(Msg::OfferAddressNotIp))?,
        None => device::route_address(&dev.host, dev.port)
            .ok_or_else(|| Error::invalid(Msg::NoRouteToConsole))?,
    };
    if listen.ip().is_loopback() && !console.ip().is_loopback() {
        return Err(Error::invalid(Msg::ListenUnreachable {
            listen: listen.to_string(),
            port: listen.port(),
        }));
    }
    Ok((listen, console, offered))
}

/// The games of the push list that are still in the library.
fn pending_files(ctx: &TaskCtx) -> Result<Vec<PushFile>, Error> {
    let (mut files, lib) = (Vec::new(), ctx.config.folders());
    for (raw, _) in push_list::list(ctx.db)? {
        let Some(key) = library::LibraryKey::parse(&raw) else {
            warn!("push: {raw:?} names no file of the library; skipped");
            continue;
        };
        // Checked again at each download: the file may be swapped for a link meanwhile.
        let meta = library::safe::open_for_client(&lib, &key).and_then(|f| Ok(f.metadata()?));
        match meta {
            Ok(meta) => files.push(PushFile {
                name: key.file_name().to_string(),
                key,
                size: meta.len(),
                served: device::Served::default(),
            }),
            // Named in the run's failures (what is in its place, or its folder
            // offline): it stays in the list until it is a game again or taken out.
            Err(e) if e.msg != Msg::FileGone => {
                warn!("push: {key}: {}; skipped", e.msg.english());
                ctx.progress.fail(Some(&key), e.msg);
            }
            Err(_) => warn!("push: {key} is no longer in the library; skipped"),
        }
    }
    Ok(files)
}

/// How the session ended.
enum Ended {
    Ack,
    Drop,
    Closed,
    Timeout,
    Cancelled,
    Refused(String),
}

fn offer_and_wait(
    ctx: &TaskCtx,
    sessions: &Sessions,
    console: std::net::SocketAddr,
    urls: &[String],
) -> Ended {
    let mut socket = match TcpStream::connect_timeout(&console, Duration::from_secs(5)) {
        Ok(s) => s,
        Err(e) => return Ended::Refused(e.to_string()),
    };
    if let Err(e) = socket.write_all(&device::offer(urls)) {
        return Ended::Refused(e.to_string());
    }
    info!("push: {} file(s) offered to {console}", urls.len());
    let _ = socket.set_read_timeout(Some(Duration::from_millis(100)));
    let timeout = ctx.config.push_timeout();
    let mut reported = 0u64;
    loop {
        if ctx.progress.is_cancelled() {
            return Ended::Cancelled;
        }
        let mut byte = [0u8; 1];
        match socket.read(&mut byte) {
            Ok(1) => return Ended::Ack,
            Ok(_) => return Ended::Closed,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return Ended::Closed,
        }
        let guard = sessions.lock();
        let Some(s) = guard.as_ref() else {
            return Ended::Cancelled;
        };
        let served: u64 = s.files.iter().map(|f| f.served.bytes()).sum();
        let current = s.current.clone();
        let (dropped, idle) = (s.dropped, s.last_activity.elapsed());
        drop(guard);
        if served > reported {
            ctx.progress.advance(served - reported, &current);
            reported = served;
        }
        if dropped {
            return Ended::Drop;
        }
        if idle > timeout {
            return Ended::Timeout;
        }
    }
}

/// Take the session down (waiting a moment for transfers still running), account for
/// each file, update the list and the device.
fn finish(
    ctx: &TaskCtx,
    sessions: &Sessions,
    ended: Ended,
    offered: &str,
) -> Result<Outcome, Error> {
    // When the console ended the session, let transfers still going finish counting;
    // a cancel ends them at once.
    if !matches!(ended, Ended::Cancelled | Ended::Refused(_)) {
        let until = Instant::now() + Duration::from_secs(5);
        while sessions.lock().as_ref().is_some_and(|s| s.active > 0) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let session = sessions
        .lock()
        .take()
        .ok_or_else(|| Error::internal("the push session vanished"))?;
    let now = time::now();
    let record = |result: &str| {
        devices::record_push(
            ctx.db,
            result,
            now,
            session.first_contact,
            session.client.as_deref(),
        )
    };
    match ended {
        Ended::Refused(cause) => {
            record("failed")?;
            return Err(Error::invalid(Msg::ConsoleNotWaiting).with_cause(cause));
        }
        Ended::Timeout if session.requests == 0 => {
            record("failed")?;
            return Err(Error::invalid(Msg::NothingReached {
                address: offered.to_string(),
            }));
        }
        Ended::Cancelled => {
            record("cancelled")?;
            return Err(Error::cancelled());
        }
        _ => {}
    }
    let (delivered, partial, untouched) = tally(ctx, &session.files)?;
    record("ok")?;
    Ok(Msg::PushDone {
        delivered: delivered.into(),
        partial: partial.into(),
        untouched: untouched.into(),
        ended: ended.word(),
    }
    .into())
}

impl Ended {
    /// How the session ended, as `Msg::PushDone` says it.
    fn word(&self) -> PushEnd {
        match self {
            Ended::Ack => PushEnd::Ack,
            Ended::Drop => PushEnd::Drop,
            Ended::Closed => PushEnd::Closed,
            _ => PushEnd::Quiet,
        }
    }
}
