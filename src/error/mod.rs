//! The one error type of the service.
//!
//! An [`Error`] says what kind of failure it is ([`Kind`]), what to tell the person
//! who asked ([`Msg`]: a slug and its parameters, never a server path), and,
//! separately, the cause that only the log sees. Every layer returns it, so a handler
//! can use `?` on a database or I/O call and the client still gets a generic
//! `internal_error` while the log gets the detail.
//!
//! The domain only chooses a kind and a message. Only `http::response` turns a kind
//! into a status and a slug, and only `msg`'s table says a message in French.
//!
//! The module is also the catalogue of every sentence a person reads, in both
//! languages: `msg` (each message's English and French), the words of `i18n`, why a file is bad
//! in `reason`, the grammar of `counts` (ARCHITECTURE.md, *The words*).

pub mod counts;

pub mod i18n;
mod msg;
mod reason;

use std::fmt;

pub use msg::{KeysLine, Line, Msg, NcaFault, NotBack, VerifyGap};
pub use reason::{Detail, Reason, Why};

/// One item a task could not handle, and why: it makes the run `partial`. A command
/// handed to the running service reads its run's failures in this shape.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Failure {
    /// The library key of the file or folder, when there is one.
    pub key: Option<String>,
    pub msg: Msg,
}

/// What went wrong, in the terms a caller acts on. The HTTP layer maps each to one
/// status and one stable slug; the command line to its exit and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// The request or the input is malformed or breaks a rule.
    Invalid,
    /// A required query parameter is absent.
    MissingParameter,
    /// No valid credential.
    Unauthorized,
    /// A valid credential without the right to do this.
    Forbidden,
    /// A state-changing request from another site.
    CrossOrigin,
    NotFound,
    /// The route exists for other methods, listed.
    MethodNotAllowed {
        allow: String,
    },
    /// The state does not allow it (a name taken, a file in the way).
    Conflict,
    /// The task slot is taken.
    Busy,
    /// A running task stopped because it was asked to.
    Cancelled,
    PayloadTooLarge,
    /// The body did not arrive within its budget (see `http::body`).
    RequestTimeout,
    UriTooLong,
    HeadersTooLarge,
    /// Too many requests from one key or address; retry after that many seconds.
    RateLimited {
        retry_after: u64,
    },
    /// Every worker or hashing slot is taken; retry in a second.
    Overloaded,
    /// The library's disk is missing or unreadable.
    Unavailable,
    /// Another process holds the data folder.
    Locked,
    /// Another service we spoke to (a notification target) refused or did not answer.
    BadGateway,
    /// The database was written by a newer build.
    TooNew,
    /// A condition the request set does not hold (WebDAV's `Overwrite: F`).
    PreconditionFailed,
    /// A body of a kind the route does not take (WebDAV's `MKCOL` with a body).
    UnsupportedMediaType,
    /// The disk is full: what was being written is not kept.
    InsufficientStorage,
    /// A failure of the service itself; the cause is in the log.
    Internal,
}

/// A failure with a client-safe face and a private cause.
#[derive(Debug)]
pub struct Error {
    pub kind: Kind,
    /// What to tell whoever asked; rendered in English for the API and the log.
    pub msg: Msg,
    /// The real cause, for the log only.
    pub cause: Option<Box<str>>,
    /// The message in the reader's language, when the web interface asked (boxed: an
    /// error travels in every `Result`, and stays small).
    pub text: Option<Box<str>>,
}

impl Error {
    pub fn new(kind: Kind, msg: Msg) -> Self {
        Error {
            kind,
            msg,
            cause: None,
            text: None,
        }
    }

    /// Input that breaks a rule (400 `bad_request`).
    pub fn invalid(msg: Msg) -> Self {
        Self::new(Kind::Invalid, msg)
    }

    pub fn not_found(msg: Msg) -> Self {
        Self::new(Kind::NotFound, msg)
    }

    pub fn conflict(msg: Msg) -> Self {
        Self::new(Kind::Conflict, msg)
    }

    pub fn forbidden(msg: Msg) -> Self {
        Self::new(Kind::Forbidden, msg)
    }

    pub fn busy() -> Self {
        Self::new(Kind::Busy, Msg::Busy)
    }

    pub fn cancelled() -> Self {
        Self::new(Kind::Cancelled, Msg::Cancelled)
    }

    pub fn overloaded() -> Self {
        Self::new(Kind::Overloaded, Msg::Overloaded)
    }

    pub fn rate_limited(retry_after: u64) -> Self {
        Self::new(Kind::RateLimited { retry_after }, Msg::RateLimited)
    }

    pub fn method_not_allowed(allow: &[&str]) -> Self {
        let allow = allow.join(", ");
        Self::new(Kind::MethodNotAllowed { allow }, Msg::MethodNotAllowed)
    }

    /// A server-side failure: the client sees a fixed sentence, the log sees `cause`.
    pub fn internal(cause: impl fmt::Display) -> Self {
        Self::new(Kind::Internal, Msg::Internal).with_cause(cause)
    }

    /// The message in the reader's language, for the web interface's own routes (the
    /// page script shows it); the public API keeps its English `message` only.
    pub fn in_french(mut self, french: bool) -> Self {
        let text = if french {
            self.msg.french()
        } else {
            self.msg.english()
        };
        // A sentence on a page: it starts with a capital.
        let mut chars = text.chars();
        self.text = chars
            .next()
            .map(|first| first.to_uppercase().chain(chars).collect::<String>().into());
        self
    }

    /// Attach a cause for the log.
    pub fn with_cause(mut self, cause: impl fmt::Display) -> Self {
        self.cause = Some(cause.to_string().into());
        self
    }

    /// The message in English: what the API's `message` and the log carry.
    pub fn message(&self) -> String {
        self.msg.english()
    }

    pub fn is(&self, kind: &Kind) -> bool {
        &self.kind == kind
    }
}

impl fmt::Display for Error {
    /// The log's view: the safe message and its slug, then the cause when there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.msg.english(), self.msg.slug())?;
        match &self.cause {
            Some(cause) => write!(f, ": {cause}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::internal(format!("database: {e}"))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::internal(format!("i/o: {e}"))
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::internal(format!("json: {e}"))
    }
}
