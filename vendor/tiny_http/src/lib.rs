//! # Simple usage
//!
//! ## Creating the server
//!
//! The easiest way to create a server is to call `Server::http()`.
//!
//! The `http()` function returns an `IoResult<Server>` which will return an error
//! in the case where the server creation fails (for example if the listening port is already
//! occupied).
//!
//! ```no_run
//! let server = tiny_http::Server::http("0.0.0.0:0").unwrap();
//! ```
//!
//! A newly-created `Server` will immediately start listening for incoming connections and HTTP
//! requests.
//!
//! ## Receiving requests
//!
//! Calling `server.recv()` will block until the next request is available.
//! This function returns an `IoResult<Request>`, so you need to handle the possible errors.
//!
//! ```no_run
//! # let server = tiny_http::Server::http("0.0.0.0:0").unwrap();
//!
//! loop {
//!     // blocks until the next request is received
//!     let request = match server.recv() {
//!         Ok(rq) => rq,
//!         Err(e) => { println!("error: {}", e); break }
//!     };
//!
//!     // do something with the request
//!     // ...
//! }
//! ```
//!
//! In a real-case scenario, you will probably want to spawn multiple worker tasks and call
//! `server.recv()` on all of them. Like this:
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use std::thread;
//! # let server = tiny_http::Server::http("0.0.0.0:0").unwrap();
//! let server = Arc::new(server);
//! let mut guards = Vec::with_capacity(4);
//!
//! for _ in (0 .. 4) {
//!     let server = server.clone();
//!
//!     let guard = thread::spawn(move || {
//!         loop {
//!             let rq = server.recv().unwrap();
//!
//!             // ...
//!         }
//!     });
//!
//!     guards.push(guard);
//! }
//! ```
//!
//! If you don't want to block, you can call `server.try_recv()` instead.
//!
//! ## Handling requests
//!
//! The `Request` object returned by `server.recv()` contains informations about the client's request.
//! The most useful methods are probably `request.method()` and `request.url()` which return
//! the requested method (`GET`, `POST`, etc.) and url.
//!
//! To handle a request, you need to create a `Response` object. See the docs of this object for
//! more infos. Here is an example of creating a `Response` from a file:
//!
//! ```no_run
//! # use std::fs::File;
//! # use std::path::Path;
//! let response = tiny_http::Response::from_file(File::open(&Path::new("image.png")).unwrap());
//! ```
//!
//! All that remains to do is call `request.respond()`:
//!
//! ```no_run
//! # use std::fs::File;
//! # use std::path::Path;
//! # let server = tiny_http::Server::http("0.0.0.0:0").unwrap();
//! # let request = server.recv().unwrap();
//! # let response = tiny_http::Response::from_file(File::open(&Path::new("image.png")).unwrap());
//! let _ = request.respond(response);
//! ```
#![forbid(unsafe_code)]
#![deny(rust_2018_idioms)]
#![allow(clippy::match_like_matches_macro)]

#[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
use zeroize::Zeroizing;

use std::error::Error;
use std::io::Error as IoError;
use std::io::ErrorKind as IoErrorKind;
use std::io::Result as IoResult;
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use client::ClientConnection;
use connection::Connection;
use util::MessagesQueue;

pub use common::{HTTPVersion, Header, HeaderField, Method, StatusCode};
pub use connection::{ConfigListenAddr, ListenAddr, Listener};
pub use request::{ReadWrite, Request};
pub use response::{Response, ResponseBox};
pub use test::TestRequest;

mod client;
mod common;
mod connection;
mod request;
mod response;
mod ssl;
mod test;
mod util;

/// The main class of this library.
///
/// Destroying this object will immediately close the listening socket and the reading
///  part of all the client's connections. Requests that have already been returned by
///  the `recv()` function will not close and the responses will be transferred to the client.
pub struct Server {
    // should be false as long as the server exists
    // when set to true, all the subtasks will close within a few hundreds ms
    close: Arc<AtomicBool>,

    // queue for messages received by child threads
    messages: Arc<MessagesQueue<Message>>,

    // result of TcpListener::local_addr()
    listening_addr: ListenAddr,

    // the accept thread, which owns the listening socket, until `stop_accepting`
    accepting: std::sync::Mutex<Option<thread::JoinHandle<()>>>,
}

enum Message {
    Error(IoError),
    NewRequest(Request),
}

impl From<IoError> for Message {
    fn from(e: IoError) -> Message {
        Message::Error(e)
    }
}

impl From<Request> for Message {
    fn from(rq: Request) -> Message {
        Message::NewRequest(rq)
    }
}

// this trait is to make sure that Server implements Share and Send
#[doc(hidden)]
trait MustBeShareDummy: Sync + Send {}
#[doc(hidden)]
impl MustBeShareDummy for Server {}

pub struct IncomingRequests<'a> {
    server: &'a Server,
}

/// Represents the parameters required to create a server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The addresses to try to listen to.
    pub addr: ConfigListenAddr,

    /// If `Some`, then the server will use SSL to encode the communications.
    pub ssl: Option<SslConfig>,
}

/// How a server treats the connections it accepts; see [`Server::from_listener_with_options`].
///
/// `ServerOptions::default()` is tiny-http's usual behaviour.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ServerOptions {
    /// Hand out at most one request of a connection at a time: the next request is not read
    /// before the response to the previous one has been written (by `respond`, by the drop
    /// of the `Request`, or by the drop of the writer of `into_writer` or of the stream of
    /// `upgrade`). Pipelined requests then wait in the socket, not in the server's queue.
    /// Always the case for HTTPS connections.
    pub sequential_requests: bool,

    /// Make every write to a client fail if the socket takes no byte for this long
    /// (`SO_SNDTIMEO`, set on each accepted socket; a write that makes some progress
    /// returns it, so only a stall between two bytes counts, not the whole response). The
    /// failed write returns an error (`WouldBlock` on Unix) and the connection is closed.
    /// Must not be zero.
    pub write_timeout: Option<Duration>,

    /// Unix only: close a new connection at once, unserved, when its socket's descriptor
    /// number, or that of the duplicate tiny-http makes of it, is above this. Descriptors
    /// are numbered lowest-free-first, so this keeps the numbers above `max_fd` (for
    /// instance `RLIMIT_NOFILE - 1 - reserve`) for the application's own files.
    pub max_fd: Option<i32>,
}

/// Configuration of the server for SSL.
#[derive(Debug, Clone)]
pub struct SslConfig {
    /// Contains the public certificate to send to clients.
    pub certificate: Vec<u8>,
    /// Contains the ultra-secret private key used to decode communications.
    pub private_key: Vec<u8>,
}

impl Server {
    /// Shortcut for a simple server on a specific address.
    #[inline]
    pub fn http<A>(addr: A) -> Result<Server, Box<dyn Error + Send + Sync + 'static>>
    where
        A: ToSocketAddrs,
    {
        Server::new(ServerConfig {
            addr: ConfigListenAddr::from_socket_addrs(addr)?,
            ssl: None,
        })
    }

    /// Shortcut for an HTTPS server on a specific address.
    #[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
    #[inline]
    pub fn https<A>(
        addr: A,
        config: SslConfig,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>>
    where
        A: ToSocketAddrs,
    {
        Server::new(ServerConfig {
            addr: ConfigListenAddr::from_socket_addrs(addr)?,
            ssl: Some(config),
        })
    }

    #[cfg(unix)]
    #[inline]
    /// Shortcut for a UNIX socket server at a specific path
    pub fn http_unix(
        path: &std::path::Path,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        Server::new(ServerConfig {
            addr: ConfigListenAddr::unix_from_path(path),
            ssl: None,
        })
    }

    /// Builds a new server that listens on the specified address.
    pub fn new(config: ServerConfig) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        let listener = config.addr.bind()?;
        Self::from_listener(listener, config.ssl)
    }

    /// Builds a new server using the specified TCP listener.
    ///
    /// This is useful if you've constructed TcpListener using some less usual method
    /// such as from systemd. For other cases, you probably want the `new()` function.
    pub fn from_listener<L: Into<Listener>>(
        listener: L,
        ssl_config: Option<SslConfig>,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        Self::from_listener_with_options(listener, ssl_config, ServerOptions::default())
    }

    /// Builds a new server using the specified listener, with the given connection options.
    pub fn from_listener_with_options<L: Into<Listener>>(
        listener: L,
        ssl_config: Option<SslConfig>,
        options: ServerOptions,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        if options.write_timeout == Some(Duration::from_secs(0)) {
            return Err("write_timeout must not be zero".into());
        }
        let listener = listener.into();
        // building the "close" variable
        let close_trigger = Arc::new(AtomicBool::new(false));

        // building the TcpListener
        let (server, local_addr) = {
            let local_addr = listener.local_addr()?;
            log::debug!("Server listening on {}", local_addr);
            (listener, local_addr)
        };

        // building the SSL capabilities
        #[cfg(all(feature = "ssl-openssl", feature = "ssl-rustls"))]
        compile_error!(
            "Features 'ssl-openssl' and 'ssl-rustls' must not be enabled at the same time"
        );
        #[cfg(not(any(feature = "ssl-openssl", feature = "ssl-rustls")))]
        type SslContext = ();
        #[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
        type SslContext = crate::ssl::SslContextImpl;
        let ssl: Option<SslContext> = {
            match ssl_config {
                #[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
                Some(config) => Some(SslContext::from_pem(
                    config.certificate,
                    Zeroizing::new(config.private_key),
                )?),
                #[cfg(not(any(feature = "ssl-openssl", feature = "ssl-rustls")))]
                Some(_) => return Err(
                    "Building a server with SSL requires enabling the `ssl` feature in tiny-http"
                        .into(),
                ),
                None => None,
            }
        };

        // creating a task where server.accept() is continuously called
        // and ClientConnection objects are pushed in the messages queue
        let messages = MessagesQueue::with_capacity(8);

        let inside_close_trigger = close_trigger.clone();
        let inside_messages = messages.clone();
        let accepting = thread::spawn(move || {
            // a tasks pool is used to dispatch the connections into threads
            let tasks_pool = util::TaskPool::new();

            let mut errors = AcceptErrors::default();

            log::debug!("Running accept thread");
            while !inside_close_trigger.load(Relaxed) {
                let new_client = match server.accept() {
                    Ok((sock, _)) => {
                        use util::RefinedTcpStream;
                        // keeping a reserve of descriptors: `sock` is closed at once
                        if errors.refuse(sock.raw_fd(), options.max_fd) {
                            continue;
                        }
                        if let Some(timeout) = options.write_timeout {
                            if let Err(e) = sock.set_write_timeout(Some(timeout)) {
                                errors.failed(e, &inside_messages);
                                continue;
                            }
                        }
                        let streams = match ssl {
                            None => RefinedTcpStream::new(sock),
                            #[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
                            Some(ref ssl) => {
                                // trying to apply SSL over the connection
                                // if an error occurs, we just close the socket and resume listening
                                let sock = match ssl.accept(sock) {
                                    Ok(s) => s,
                                    Err(_) => continue,
                                };

                                RefinedTcpStream::new(sock)
                            }
                            #[cfg(not(any(feature = "ssl-openssl", feature = "ssl-rustls")))]
                            Some(ref _ssl) => unreachable!(),
                        };

                        match streams {
                            // nor its duplicate (the read half)
                            Ok((read, _)) if errors.refuse(read.raw_fd(), options.max_fd) => {
                                continue
                            }
                            Ok((read_closable, write_closable)) => {
                                Ok(ClientConnection::new(write_closable, read_closable))
                            }
                            // no descriptor left to duplicate the socket
                            Err(e) => Err(e),
                        }
                    }
                    // the client went away before being accepted
                    Err(ref e) if e.kind() == IoErrorKind::ConnectionAborted => continue,
                    Err(e) => Err(e),
                };

                match new_client {
                    Ok(client) => {
                        errors.succeeded();
                        let messages = inside_messages.clone();
                        let sequential = options.sequential_requests;
                        let mut client = Some(client);
                        tasks_pool.spawn(Box::new(move || {
                            if let Some(client) = client.take() {
                                // One request at a time (needed for HTTPS to avoid a deadlock):
                                // the next one is read once this one's response is written
                                if sequential || client.secure() {
                                    for rq in client {
                                        let (sender, receiver) = mpsc::channel();
                                        messages.push(rq.with_notify_sender(sender).into());
                                        // Err: the request was dropped without finishing its
                                        // response (a panic while writing it): close
                                        if receiver.recv().is_err() {
                                            break;
                                        }
                                    }
                                } else {
                                    for rq in client {
                                        messages.push(rq.into());
                                    }
                                }
                            }
                        }));
                    }

                    // retried, with a back-off: the accept thread never ends on an error
                    Err(e) => errors.failed(e, &inside_messages),
                }
            }
            log::debug!("Terminating accept thread");
        });

        // result
        Ok(Server {
            messages,
            close: close_trigger,
            listening_addr: local_addr,
            accepting: std::sync::Mutex::new(Some(accepting)),
        })
    }

    /// Returns an iterator for all the incoming requests.
    ///
    /// The iterator will return `None` if the server socket is shutdown.
    #[inline]
    pub fn incoming_requests(&self) -> IncomingRequests<'_> {
        IncomingRequests { server: self }
    }

    /// Returns the address the server is listening to.
    #[inline]
    pub fn server_addr(&self) -> ListenAddr {
        self.listening_addr.clone()
    }

    /// Returns the number of clients currently connected to the server.
    pub fn num_connections(&self) -> usize {
        unimplemented!()
        //self.requests_receiver.lock().len()
    }

    /// Blocks until an HTTP request has been submitted and returns it.
    ///
    /// Returns an error after `unblock()`, and once at the start of each run of failures to
    /// accept connections (such as "too many open files"); the server goes on accepting
    /// after those, retrying with a back-off of 5 ms doubling up to 1 s.
    pub fn recv(&self) -> IoResult<Request> {
        match self.messages.pop() {
            Some(Message::Error(err)) => Err(err),
            Some(Message::NewRequest(rq)) => Ok(rq),
            None => Err(IoError::new(IoErrorKind::Other, "thread unblocked")),
        }
    }

    /// Same as `recv()` but doesn't block longer than timeout
    pub fn recv_timeout(&self, timeout: Duration) -> IoResult<Option<Request>> {
        match self.messages.pop_timeout(timeout) {
            Some(Message::Error(err)) => Err(err),
            Some(Message::NewRequest(rq)) => Ok(Some(rq)),
            None => Ok(None),
        }
    }

    /// Same as `recv()` but doesn't block.
    pub fn try_recv(&self) -> IoResult<Option<Request>> {
        match self.messages.try_pop() {
            Some(Message::Error(err)) => Err(err),
            Some(Message::NewRequest(rq)) => Ok(Some(rq)),
            None => Ok(None),
        }
    }

    /// Unblock thread stuck in recv() or incoming_requests().
    /// If there are several such threads, only one is unblocked.
    /// This method allows graceful shutdown of server.
    pub fn unblock(&self) {
        self.messages.unblock();
    }
}

impl Iterator for IncomingRequests<'_> {
    type Item = Request;
    fn next(&mut self) -> Option<Request> {
        loop {
            match self.server.messages.pop()? {
                Message::NewRequest(rq) => return Some(rq),
                // the server goes on accepting after an error (see `recv`)
                Message::Error(_) => continue,
            }
        }
    }
}

/// The accept loop's runs of failures (EMFILE, ENFILE, ENOBUFS...) and of refusals
/// (`max_fd`), each logged at its start and at its end, once.
#[derive(Default)]
struct AcceptErrors {
    failed: u64,
    delay: Duration,
    refused: u64,
}

impl AcceptErrors {
    /// Like Go's net/http: wait 5 ms, doubling up to 1 s, and try again. The first failure
    /// of a run is also handed to `recv()`.
    fn failed(&mut self, e: IoError, messages: &MessagesQueue<Message>) {
        if self.failed == 0 {
            log::error!("Error accepting new client: {}; retrying", e);
            messages.push(e.into());
        }
        self.failed += 1;
        self.delay = (self.delay * 2).clamp(Duration::from_millis(5), Duration::from_secs(1));
        thread::sleep(self.delay);
    }

    /// Whether a new connection's descriptor is above `max_fd` (it is then closed, unserved).
    fn refuse(&mut self, fd: Option<i32>, max_fd: Option<i32>) -> bool {
        match (fd, max_fd) {
            (Some(fd), Some(max)) if fd > max => {
                if self.refused == 0 {
                    log::warn!(
                        "Refusing new clients: descriptor {} above max_fd {}",
                        fd,
                        max
                    );
                }
                self.refused += 1;
                true
            }
            _ => false,
        }
    }

    fn succeeded(&mut self) {
        if self.failed > 0 {
            log::info!("Accepting new clients again after {} errors", self.failed);
        }
        if self.refused > 0 {
            log::info!(
                "Accepting new clients again after refusing {}",
                self.refused
            );
        }
        *self = AcceptErrors::default();
    }
}

impl Server {
    /// Close the listening socket and wait until it is closed, so that its address can
    /// be bound again; no new connection is accepted. The connections already open go on
    /// handing their requests to `recv()`, `recv_timeout()` and `try_recv()`, until their
    /// clients close them (or the `Server` is dropped).
    pub fn stop_accepting(&self) {
        self.wake_accept_thread();
        let thread = self.accepting.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }

    fn wake_accept_thread(&self) {
        self.close.store(true, Relaxed);
        // Connect briefly to ourselves to unblock the accept thread
        let maybe_stream = match &self.listening_addr {
            ListenAddr::IP(addr) => TcpStream::connect(addr).map(Connection::from),
            #[cfg(unix)]
            ListenAddr::Unix(addr) => {
                // TODO: use connect_addr when its stabilized.
                let path = addr.as_pathname().unwrap();
                std::os::unix::net::UnixStream::connect(path).map(Connection::from)
            }
        };
        if let Ok(stream) = maybe_stream {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.wake_accept_thread();

        #[cfg(unix)]
        if let ListenAddr::Unix(addr) = &self.listening_addr {
            if let Some(path) = addr.as_pathname() {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}
