//! Starting and stopping the service, and the life of a request.
//!
//! One acceptor thread takes each request from tiny_http and `try_send`s it over a
//! bounded channel to a fixed pool of workers; when every worker is busy and the
//! queue is full it answers 503 `overloaded` at once rather than let work pile up.
//! Each worker owns one database connection and handles one request at a time under
//! `catch_unwind`, so a panic becomes a 500 and never shrinks the pool.
//!
//! SIGTERM and SIGINT (the `stop` flag, set by `service`) stop the acceptor; the
//! workers finish what was handed to them before `run` returns.

use std::io::Write;
use std::net::SocketAddr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, TrySendError};
use log::{debug, error, info, warn};
use rusqlite::Connection;

use super::auth::Principal;
use super::listening::RETIRE_AFTER;
use super::router::{self, Call, Routed, Table};
use super::warden::Place;
use super::{body, framing, warden, App, Reply, Req};
use crate::config::Config;
use crate::error::{Error, Msg};
use crate::jobs::runner::panic_text;
use crate::metrics::RouteClass;
use crate::store::db;

/// Serve requests with the route `table` until `stop` is set; returns once the requests in
/// flight are answered.
pub fn run(
    app: &Arc<App>,
    server: tiny_http::Server,
    stop: &Arc<AtomicBool>,
    table: &'static Table,
) -> Result<(), Error> {
    let (workers, queue) = (app.config.workers, app.config.serve.queue);
    let workers = start_pool(app, table, "worker", workers, queue)?;
    let downloads = start_downloads(app, app.config.serve.shop_downloads_total)?;
    let writers = start_writers(app, app.config.workers)?;
    let bounds = warden_bounds(&app.config, &app.listening, &app.held);
    let warden = warden::start(bounds, Arc::clone(stop))?;
    accept(app, server, stop, &workers.0);
    let _ = warden.join();
    info!("stopping: finishing requests in flight");
    drop(workers.0);
    for w in workers.1 {
        let _ = w.join();
    }
    // Downloads still waiting for their turn are refused; those running end.
    for job in app.downloads.close() {
        let refused = Err(Error::overloaded());
        let conn = db::open(&app.config.data)?;
        finish(app, &conn, job.rq, refused, job.seen);
    }
    for d in downloads {
        let _ = d.join();
    }
    // Answers still waiting for a writer are not written: their clients were slow.
    for answer in app.writers.close() {
        close_unanswered(app, answer.rq);
    }
    for w in writers {
        let _ = w.join();
    }
    Ok(())
}

/// Bind with `TCP_NODELAY` on the listener, which accepted sockets inherit on Linux.
/// tiny_http writes a response's head and body in separate writes; with Nagle's
/// algorithm on, a body past the first segment waits for the client's delayed ACK
/// (40 ms) on every keep-alive request.
///
/// tiny_http is patched (`vendor/tiny_http`, `ARCHITECTURE.md`): a connection's next
/// request is read only once the previous one is answered, a write the client takes
/// no byte of within `--write-timeout-secs` fails and ends the connection, an accept
/// error is retried with a growing pause, and a connection that would take one of the
/// last [`RESERVED_FDS`] descriptors is closed at once.
pub fn listen(config: &Config, address: &str) -> Result<tiny_http::Server, Error> {
    let cannot = |e: &dyn std::fmt::Display| {
        Error::invalid(Msg::CannotListen {
            address: address.to_string(),
        })
        .with_cause(e)
    };
    let listener = std::net::TcpListener::bind(address).map_err(|e| {
        let in_use = e.kind() == std::io::ErrorKind::AddrInUse;
        let msg = match in_use {
            true => Msg::ListenInUse {
                address: address.to_string(),
            },
            false => Msg::CannotListen {
                address: address.to_string(),
            },
        };
        Error::invalid(msg).with_cause(e)
    })?;
    socket2::SockRef::from(&listener)
        .set_tcp_nodelay(true)
        .map_err(|e| cannot(&e))?;
    let mut options = tiny_http::ServerOptions::default();
    options.sequential_requests = true;
    options.write_timeout = Some(config.write_timeout());
    // Descriptors are numbered lowest first: a socket numbered this high means the
    // process is nearly out of them. Each connection holds two, and the warden a
    // third for a moment at each check: connections may have two thirds of the rest.
    options.max_fd = raise_open_files_limit().map(|limit| {
        let room = limit.saturating_sub(1 + RESERVED_FDS) / 3 * 2;
        room.min(i32::MAX as u64) as i32
    });
    tiny_http::Server::from_listener_with_options(listener, None, options).map_err(|e| cannot(&e))
}

/// Descriptors kept from connections: the files a download, a scan or a convert
/// opens, the database's, the log's, the warden's duplicates.
pub const RESERVED_FDS: u64 = 64;

/// The connection bounds, within what the process may open: each connection is a
/// descriptor, so the soft limit on descriptors is raised to the hard one, and the
/// cap lowered if even that is too small (keeping 64 for files and the database).
fn warden_bounds(
    config: &Config,
    listening: &Arc<super::listening::Listening>,
    held: &Arc<warden::Held>,
) -> warden::Bounds {
    let mut max_connections = config.serve.max_connections;
    if let Some(limit) = raise_open_files_limit() {
        // Each connection holds two descriptors (tiny_http's read and write halves),
        // and the warden a duplicate of one while it checks them.
        let room = (limit.saturating_sub(RESERVED_FDS) / 3).max(1) as usize;
        if room < max_connections {
            warn!("only {limit} open files allowed: at most {room} connections");
            max_connections = room;
        }
    }
    warden::Bounds {
        listening: Arc::clone(listening),
        max_connections,
        idle_timeout: config.idle_timeout(),
        request_timeout: config.request_timeout(),
        // The largest request: the body cap plus 64 KiB of request line and headers.
        max_unanswered: config.serve.max_body as u64 + 64 * 1024,
        held: Arc::clone(held),
    }
}

/// Raise RLIMIT_NOFILE's soft limit to its hard limit; returns the limit in effect.
fn raise_open_files_limit() -> Option<u64> {
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim = raised;
            }
        }
        Some(lim.rlim_cur as u64)
    }
}

/// What the acceptor hands a worker: a request to serve, or one to refuse for its
/// ambiguous framing (written by a worker, since the write waits for the responses
/// before it on the same connection, and the acceptor must never wait).
enum Work {
    Serve(tiny_http::Request),
    Refuse(tiny_http::Request, &'static str),
}

type Pool = (
    crossbeam_channel::Sender<Work>,
    Vec<std::thread::JoinHandle<()>>,
);

/// A download a worker checked and handed to the download threads (see `downloads`).
pub struct Job {
    rq: tiny_http::Request,
    req: Req,
    call: Call,
    seen: Seen,
}

/// What answering and logging a request need besides its reply.
struct Seen {
    path: String,
    /// Who called, for the access log.
    who: Option<String>,
    /// The client a trusted proxy forwarded for (`auth::client_ip`), for the log.
    forwarded_for: Option<std::net::IpAddr>,
    started: Instant,
    /// The body was read to its end: the connection can serve the next request.
    body_read: bool,
}

/// Lower the calling thread's priority (nice 10; Linux keeps one per thread): the
/// download threads copy files, and on two cores four consoles downloading at full
/// speed would otherwise slow every page and API answer. Failing is no error.
fn lower_priority() {
    // SAFETY: setpriority only reads its arguments; `0` names the calling thread.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// The download threads, `download-N`, each taking the next download whose console
/// is under its share.
fn start_downloads(
    app: &Arc<App>,
    threads: usize,
) -> Result<Vec<std::thread::JoinHandle<()>>, Error> {
    let mut handles = Vec::with_capacity(threads);
    for i in 0..threads {
        let conn = db::open(&app.config.data)?;
        let app = Arc::clone(app);
        handles.push(
            std::thread::Builder::new()
                .name(format!("download-{i}"))
                .spawn(move || {
                    lower_priority();
                    while let Some((running, job)) = app.downloads.next() {
                        let Job {
                            rq,
                            req,
                            call,
                            seen,
                        } = job;
                        let result = run_handler(&app, &conn, &req, call);
                        finish(&app, &conn, rq, result, seen);
                        drop(running);
                    }
                })?,
        );
    }
    Ok(handles)
}

/// The answer writers, `writer-N`, each writing the next large answer whose client
/// network is under its share.
fn start_writers(
    app: &Arc<App>,
    threads: usize,
) -> Result<Vec<std::thread::JoinHandle<()>>, Error> {
    let mut handles = Vec::with_capacity(threads);
    for i in 0..threads {
        let app = Arc::clone(app);
        handles.push(
            std::thread::Builder::new()
                .name(format!("writer-{i}"))
                .spawn(move || {
                    while let Some((running, answer)) = app.writers.next() {
                        write_answer(&app, answer);
                        drop(running);
                    }
                })?,
        );
    }
    Ok(handles)
}

/// `threads` threads named `name-N`, fed by a queue of `queue` requests.
fn start_pool(
    app: &Arc<App>,
    table: &'static Table,
    name: &'static str,
    threads: usize,
    queue: usize,
) -> Result<Pool, Error> {
    let (tx, rx) = bounded::<Work>(queue);
    let mut handles = Vec::with_capacity(threads);
    for i in 0..threads {
        // Open every connection before serving, so a worker can never die for lack of one.
        let conn = db::open(&app.config.data)?;
        let app = Arc::clone(app);
        let rx: Receiver<Work> = rx.clone();
        handles.push(
            std::thread::Builder::new()
                .name(format!("{name}-{i}"))
                .spawn(move || {
                    for work in rx {
                        match work {
                            Work::Serve(rq) => handle(&app, &conn, table, rq),
                            Work::Refuse(rq, why) => refuse_ambiguous(&app, rq, why),
                        }
                    }
                })?,
        );
    }
    Ok((tx, handles))
}

/// The acceptor loop. It polls with a short timeout so that a signal is noticed
/// promptly. Framing is checked here, in order, before any worker runs a request:
/// what follows an ambiguous request on its connection must never run (see
/// `framing`). Every request goes to the workers, downloads too: a worker checks the
/// route and the caller before a download thread is taken.
///
/// A request whose client has not yet taken all of our previous answer (a client
/// that pipelines and does not read) waits here, holding no worker, until it has
/// ([`Parked`]); one that takes no byte of it for `--write-timeout-secs` is closed.
fn accept(
    app: &App,
    mut server: tiny_http::Server,
    stop: &AtomicBool,
    workers: &crossbeam_channel::Sender<Work>,
) {
    let mut parked = Parked::default();
    // The listener left by a move, whose open connections are still served.
    let mut retiring: Option<(tiny_http::Server, Instant)> = None;
    while !stop.load(Ordering::SeqCst) {
        for rq in parked.ready(app) {
            dispatch(app, rq, workers);
        }
        if let Some(ask) = app.listening.asked() {
            let _ = ask
                .answer
                .send(move_listener(app, &mut server, &mut retiring, ask.to));
        }
        if retiring
            .as_ref()
            .is_some_and(|(_, at)| at.elapsed() > RETIRE_AFTER)
        {
            retiring = None;
            app.listening.retired();
        }
        if let Some((old, _)) = &retiring {
            while let Ok(Some(rq)) = old.try_recv() {
                take(app, rq, &mut parked, workers);
            }
        }
        let busy = !parked.0.is_empty() || retiring.is_some();
        match server.recv_timeout(Duration::from_millis(if busy { 5 } else { 200 })) {
            Ok(Some(rq)) => take(app, rq, &mut parked, workers),
            Ok(None) => {}
            // Said once per run of failures (out of descriptors, say); tiny_http goes
            // on accepting, after a pause that grows from 5 ms to 1 s.
            Err(e) => warn!("accepting connections failed: {e}; retrying"),
        }
    }
    // Stopping: what still waits is closed, never answered from here.
    for (rq, ..) in parked.0.drain(..) {
        close_unanswered(app, rq);
    }
}

/// A request received whole: from here it is the service's to answer.
fn take(
    app: &App,
    rq: tiny_http::Request,
    parked: &mut Parked,
    workers: &crossbeam_channel::Sender<Work>,
) {
    let poisoned = app.poisoned.lock().unwrap_or_else(|p| p.into_inner());
    if poisoned.contains(rq.remote_addr()) {
        debug!("dropping a request framed after an ambiguous one");
        drop(rq.into_writer());
        return;
    }
    drop(poisoned);
    app.held.at(rq.remote_addr(), Place::Waiting);
    match unsent(&rq) {
        0 => dispatch(app, rq, workers),
        _ if parked.0.len() >= app.config.serve.queue => {
            warn!("too many clients do not read their answers: closing one");
            close_unanswered(app, rq);
        }
        n => parked.0.push((rq, n, Instant::now())),
    }
}

/// Listen on `to` instead (see `listening`): the old listener stops accepting and its
/// open connections are served from `retiring`. On failure the service listens where
/// it did.
fn move_listener(
    app: &App,
    server: &mut tiny_http::Server,
    retiring: &mut Option<(tiny_http::Server, Instant)>,
    to: SocketAddr,
) -> Result<SocketAddr, Error> {
    let old = app.listening.addr();
    if to == old {
        return Ok(old);
    }
    let mut failed = None;
    let new = match listen(&app.config, &to.to_string()) {
        Ok(new) => new,
        // The same port elsewhere: Linux wants the old listener closed first.
        Err(_) if to.port() == old.port() => {
            server.stop_accepting();
            match listen(&app.config, &to.to_string()) {
                Ok(new) => new,
                Err(e) => {
                    warn!("cannot listen on {to}: {e:?}; back on {old}");
                    failed = Some(e);
                    listen(&app.config, &old.to_string()).inspect_err(|again| {
                        error!("cannot listen on {old} again: {again:?}; no new connection is accepted")
                    })?
                }
            }
        }
        Err(e) => return Err(e),
    };
    let bound = new
        .server_addr()
        .to_ip()
        .ok_or_else(|| Error::internal("the listener has no IP address"))?;
    let left = std::mem::replace(server, new);
    left.stop_accepting();
    // A listener still retiring from a move less than RETIRE_AFTER ago is dropped
    // here: its connections get no more answers, and their clients connect anew.
    *retiring = Some((left, Instant::now()));
    app.listening.moved(bound, old.port());
    app.push.set_listen(bound);
    match failed {
        Some(e) => Err(e),
        None => {
            info!("listening on http://{bound}, no longer on {old}");
            Ok(bound)
        }
    }
}

/// The client network a request comes from (`auth::client_net`), as the answer
/// writers' share is counted.
fn net_of(rq: &tiny_http::Request) -> String {
    let ip = rq
        .remote_addr()
        .map_or(std::net::Ipv4Addr::UNSPECIFIED.into(), |p| p.ip());
    super::auth::client_net(ip).to_string()
}

/// Bytes of ours the connection's client has not taken yet (`SIOCOUTQ`: not sent,
/// or not acknowledged); 0 where it cannot be asked.
fn unsent(rq: &tiny_http::Request) -> u32 {
    let Some(fd) = rq.socket_fd() else {
        return 0;
    };
    let mut unsent: libc::c_int = 0;
    // SAFETY: TIOCOUTQ (SIOCOUTQ on a socket) writes one int; the descriptor is the
    // request's own socket, open while the request lives.
    match unsafe { libc::ioctl(fd, libc::TIOCOUTQ, &mut unsent) } {
        0 => unsent.max(0) as u32,
        _ => 0,
    }
}

/// Requests whose client has not taken all of our last answer: the request, the
/// bytes it had not taken when last seen, since when that count has not fallen.
#[derive(Default)]
struct Parked(Vec<(tiny_http::Request, u32, Instant)>);

impl Parked {
    /// The requests whose client has taken everything now. A client that took no
    /// byte within `--write-timeout-secs` is closed, as a write would have been.
    fn ready(&mut self, app: &App) -> Vec<tiny_http::Request> {
        let deadline = app.config.write_timeout();
        let mut ready = Vec::new();
        let mut still = Vec::with_capacity(self.0.len());
        for (rq, before, since) in self.0.drain(..) {
            match unsent(&rq) {
                0 => ready.push(rq),
                now if now < before => still.push((rq, now, Instant::now())),
                _ if since.elapsed() >= deadline => {
                    info!("a client took no byte of its answer in {deadline:?}: closed");
                    close_unanswered(app, rq);
                }
                now => still.push((rq, now, since)),
            }
        }
        self.0 = still;
        ready
    }
}

/// Hand a request to the workers: refused at once when every worker is busy and the
/// queue is full.
fn dispatch(app: &App, rq: tiny_http::Request, workers: &crossbeam_channel::Sender<Work>) {
    let poisoned = || app.poisoned.lock().unwrap_or_else(|p| p.into_inner());
    app.held.at(rq.remote_addr(), Place::Worker);
    let work = match framing::ambiguity(rq.headers()) {
        Some(why) => {
            if let Some(peer) = rq.remote_addr() {
                poisoned().add(*peer);
            }
            Work::Refuse(rq, why)
        }
        None => Work::Serve(rq),
    };
    match workers.try_send(work) {
        Ok(()) => {}
        Err(TrySendError::Full(Work::Refuse(rq, _)))
        | Err(TrySendError::Disconnected(Work::Refuse(rq, _))) => {
            // No worker to answer it: the connection is shut unanswered.
            close_unanswered(app, rq);
        }
        Err(TrySendError::Full(Work::Serve(rq)))
        | Err(TrySendError::Disconnected(Work::Serve(rq))) => {
            warn!("every worker is busy and the queue is full: 503");
            overloaded(app, rq);
        }
    }
}

/// Answer 503 from the acceptor, which must never wait on a client: a client that
/// has not taken all of our earlier bytes (one that does not read) is shut instead.
fn overloaded(app: &App, rq: tiny_http::Request) {
    match unsent(&rq) {
        0 => respond(app, rq, Reply::from_error(&Error::overloaded()), false),
        _ => close_unanswered(app, rq),
    }
}

/// Shut a connection without an answer (its read side first, or dropping the request
/// would drain its body).
fn close_unanswered(app: &App, rq: tiny_http::Request) {
    app.held.release(rq.remote_addr());
    match rq.socket_fd() {
        Some(fd) => {
            // SAFETY: shutdown on the request's own open socket: dropping the request
            // then drains nothing and writes nothing that could wait.
            unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
            drop(rq.into_writer());
        }
        None => {
            let unread = body::Unread::of(app.listening.ports(), &rq);
            unread.close_reading();
            drop(rq.into_writer());
            unread.close();
        }
    }
}

/// Answer 400 to a request whose framing is ambiguous and shut its connection before
/// anything framed after it could be answered. Responses on a connection go out in
/// order, so holding this one's writer until the socket is shut keeps every later
/// response off the wire.
fn refuse_ambiguous(app: &App, rq: tiny_http::Request, why: &str) {
    let peer = rq.remote_addr().copied();
    app.held.release(peer.as_ref());
    warn!(
        "{} {}: 400, {why}; closing the connection",
        rq.method(),
        super::request::split_url(rq.url()).0
    );
    let (version, headers) = (rq.http_version().clone(), rq.headers().to_vec());
    let e = Error::invalid(Msg::AmbiguousLength { why: why.into() });
    // Its body is never read: shut the read side, or dropping the request drains it.
    body::Unread::of(app.listening.ports(), &rq).close_reading();
    let mut writer = rq.into_writer();
    let response = Reply::from_error(&e)
        .into_tiny()
        .with_header(tiny_http::Header::from_bytes("Connection", "close").expect("header"));
    let _ = response.raw_print(&mut writer, version, &headers, false, None);
    let _ = writer.flush();
    if let Some(peer) = peer {
        warden::shut(app.listening.ports(), &peer, "ambiguous request framing");
        // What tiny_http frames after this request reaches the acceptor only now that
        // the request is done with: the connection stays poisoned from here on.
        app.poisoned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .add(peer);
    }
    drop(writer);
}

/// One request, start to finish: its head is read, routed and its caller checked;
/// a refused request is answered without its body being read; a download goes to
/// the download threads; any other reads its body within its budget (`body`) and
/// runs.
fn handle(app: &App, db: &Connection, table: &Table, mut rq: tiny_http::Request) {
    let mut seen = Seen {
        path: super::request::split_url(rq.url()).0.to_string(),
        who: None,
        forwarded_for: None,
        started: Instant::now(),
        body_read: false,
    };
    let mut req = match Req::head(&rq) {
        Ok(req) => req,
        Err(e) => return finish(app, db, rq, Err(e), seen),
    };
    seen.path.clone_from(&req.path);
    if super::auth::from_trusted_proxy(&app.config, &req) {
        seen.forwarded_for = super::auth::client_ip(&app.config, &req);
    }
    let (routed, who) = catch_unwind(AssertUnwindSafe(|| router::decide(app, db, table, &req)))
        .unwrap_or_else(|p| (Routed::Answer(Err(panicked(&p))), None));
    seen.who = who;
    let call = match routed {
        Routed::Answer(result) => return finish(app, db, rq, result, seen),
        Routed::Run(call) => call,
    };
    if call.download {
        app.held.at(rq.remote_addr(), Place::Download);
        let console = call.principal.log_name().unwrap_or_default();
        let job = Job {
            rq,
            req,
            call,
            seen,
        };
        if let Err(job) = app.downloads.submit(&console, job) {
            warn!("{console} has too many downloads waiting: 503");
            finish(app, db, job.rq, Err(Error::overloaded()), job.seen);
        }
        return;
    }
    if call.upload {
        let (result, ended) = super::upload::run(app, db, &mut rq, &req, call);
        seen.body_read = ended;
        return finish(app, db, rq, result, seen);
    }
    let result = match read_body(app, &mut rq, &req, &call) {
        Ok(body) => {
            if let Some(body) = body {
                req.body = body;
                seen.body_read = true;
            }
            run_handler(app, db, &req, call)
        }
        Err(e) => Err(e),
    };
    finish(app, db, rq, result, seen);
}

/// The body a handler may read, or `None` where it is left unread: a read (`GET`,
/// `HEAD`) has none worth reading. A public route (sign-in, first run) takes only a
/// small one that arrives at once, so a stranger never makes a worker wait more than
/// a moment (`body`). Whatever is left unread, `respond` deals with.
fn read_body(
    app: &App,
    rq: &mut tiny_http::Request,
    req: &Req,
    call: &Call,
) -> Result<Option<Vec<u8>>, Error> {
    if matches!(req.method.as_str(), "GET" | "HEAD") {
        return Ok(None);
    }
    let stranger = matches!(call.principal, Principal::Anonymous);
    body::read(
        &app.bodies,
        app.listening.ports(),
        rq,
        app.config.serve.max_body,
        stranger,
    )
    .map(Some)
}

fn panicked(p: &Box<dyn std::any::Any + Send>) -> Error {
    Error::internal(format!("handler panicked: {}", panic_text(p)))
}

/// Run the chosen handler under `catch_unwind`: a panic is a 500.
fn run_handler(app: &App, db: &Connection, req: &Req, call: Call) -> Result<Reply, Error> {
    catch_unwind(AssertUnwindSafe(|| router::run(app, db, req, call, None)))
        .unwrap_or_else(|p| Err(panicked(&p)))
}

/// Answer, run the step after the answer, and write the access-log line.
fn finish(
    app: &App,
    db: &Connection,
    rq: tiny_http::Request,
    result: Result<Reply, Error>,
    seen: Seen,
) {
    let (method, path) = (rq.method().as_str().to_string(), &seen.path);
    // Control characters in the path are escaped by the log itself (`cli::OneLine`).
    let mut reply = result.unwrap_or_else(|e| {
        let (status, slug) = super::response::status_and_slug(&e.kind);
        if status >= 500 {
            error!("{method} {path}: {e}");
        } else {
            warn!("{method} {path}: {status} {slug}");
        }
        Reply::from_error(&e)
    });
    // Nothing under /api/ is kept by a cache: a key is shown once in one answer.
    if path.starts_with("/api/") && !reply.has_header("Cache-Control") {
        reply.headers.push(("Cache-Control", "no-store".into()));
    }
    let status = reply.status;
    let after = reply.after.take();
    respond(app, rq, reply, seen.body_read);
    if let Some(after) = after {
        if catch_unwind(AssertUnwindSafe(|| after(db))).is_err() {
            error!("{method} {path}: the step after the response panicked");
        }
    }
    let took = seen.started.elapsed();
    crate::metrics::request(RouteClass::of(path, seen.who.as_deref()), status, took);
    // The access log never carries the query string: API keys may travel in it.
    info!(
        "access {method} {path} {status} {}ms{}{}",
        took.as_millis(),
        seen.who.map(|p| format!(" key={p}")).unwrap_or_default(),
        seen.forwarded_for
            .map(|ip| format!(" for={ip}"))
            .unwrap_or_default()
    );
}

/// Answers up to this size are always written by the worker: any socket takes them
/// at once.
const SMALL_ANSWER: usize = 4096;

/// An answer handed to the writers: the request, its reply, what is left unread.
pub struct Answer {
    rq: tiny_http::Request,
    reply: Reply,
    unread: Option<body::Unread>,
}

/// Write the reply. A body still on the socket that was not read (refused, ignored,
/// or past its budget) is passed over if it is small and already there; otherwise the
/// connection's read side is shut first, so that tiny_http's drain of it ends at
/// once, and the connection is closed after the answer. A large reply in memory is
/// written by the answer writers (a download's stream is on its own thread already).
/// (tiny_http writes no `Connection` header of ours: the client sees the close.)
fn respond(app: &App, mut rq: tiny_http::Request, reply: Reply, body_read: bool) {
    let unread = (!body_read && body::pending(&rq))
        .then(|| body::Unread::of(app.listening.ports(), &rq))
        .filter(|unread| !unread.pass_over(&mut rq));
    if let Some(unread) = &unread {
        unread.close_reading();
    }
    let answer = Answer { rq, reply, unread };
    let len = answer.reply.body.len();
    if answer.reply.stream.is_some() || len <= SMALL_ANSWER || in_window(&answer.rq, len) {
        return write_answer(app, answer);
    }
    // Past the writers' queue (as long as the request queue) the worker writes it.
    if let Err(answer) = app.writers.submit(&net_of(&answer.rq), answer) {
        write_answer(app, answer);
    }
}

/// The client's advertised window (`TCP_INFO`) takes `len` bytes and their head at
/// once: the worker's write ends without waiting on it. A client that reads through a
/// tiny window (a byte now and then) gets its answer from the answer writers instead,
/// so that it holds no worker; unknown (HTTPS, an old kernel) counts as tiny.
fn in_window(rq: &tiny_http::Request, len: usize) -> bool {
    let Some(fd) = rq.socket_fd() else {
        return false;
    };
    // SAFETY: tcp_info is plain data; all zeroes is a valid value.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut size = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: the kernel writes at most `size` bytes of plain data into `info`; the
    // descriptor is the request's own socket, open while the request lives.
    let asked = unsafe {
        let info = (&mut info as *mut libc::tcp_info).cast();
        libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_INFO, info, &mut size)
    };
    // `tcpi_snd_wnd` came with Linux 5.4: a shorter answer does not hold it.
    let holds_window = size as usize >= std::mem::offset_of!(libc::tcp_info, tcpi_snd_wnd) + 4;
    asked == 0 && holds_window && info.tcpi_snd_wnd as usize >= len + 1024
}

fn write_answer(app: &App, answer: Answer) {
    let Answer { rq, reply, unread } = answer;
    let peer = rq.remote_addr().copied();
    if let Err(e) = rq.respond(reply.into_tiny()) {
        debug!("the client left before the response was written: {e}");
    }
    app.held.answered(peer.as_ref());
    if let Some(unread) = unread {
        unread.close();
    }
}
