//! The one error type of the service.
//!
//! An [`Error`] carries what a client may see (status, a stable slug, an English
//! sentence that never names a server path) and, separately, the cause that only the
//! log sees. Every layer returns it, so a handler can use `?` on a database or I/O call
//! and the client still gets a generic `internal_error` while the log gets the detail.

use std::fmt;

/// A failure with a client-safe face and a private cause.
#[derive(Debug)]
pub struct Error {
    /// HTTP status that represents this error.
    pub status: u16,
    /// Stable machine-readable slug (`not_found`, `busy`, ...).
    pub slug: &'static str,
    /// Human sentence, safe to show to anyone: no path, no key, no cause chain.
    pub message: String,
    /// Extra response headers (`Allow`, `Retry-After`).
    pub headers: Vec<(&'static str, String)>,
    /// The real cause, for the log only.
    pub cause: Option<String>,
}

/// The sentence every 500 carries; the cause goes to the log.
pub const INTERNAL_MESSAGE: &str = "The service met an internal error; the details are in its log.";

impl Error {
    fn new(status: u16, slug: &'static str, message: impl Into<String>) -> Self {
        Error {
            status,
            slug,
            message: message.into(),
            headers: Vec::new(),
            cause: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "bad_request", message)
    }

    pub fn missing_parameter(name: &str) -> Self {
        Self::new(
            400,
            "missing_parameter",
            format!("The query parameter '{name}' is required."),
        )
    }

    pub fn unauthorized() -> Self {
        Self::new(
            401,
            "unauthorized",
            "A valid API key is required (header X-Api-Key).",
        )
    }

    /// A sign-in with a wrong name or password; which of the two is never said.
    pub fn login_failed() -> Self {
        Self::new(401, "unauthorized", "Wrong name or password.")
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(403, "forbidden", message)
    }

    pub fn cross_origin() -> Self {
        Self::new(
            403,
            "cross_origin",
            "Cross-origin state-changing requests are refused.",
        )
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(404, "not_found", message)
    }

    pub fn method_not_allowed(allow: &[&str]) -> Self {
        let mut e = Self::new(
            405,
            "method_not_allowed",
            "This method is not allowed on this route.",
        );
        e.headers.push(("Allow", allow.join(", ")));
        e
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(409, "conflict", message)
    }

    pub fn busy() -> Self {
        Self::new(
            409,
            "busy",
            "A task is already running; retry when it has finished.",
        )
    }

    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            413,
            "payload_too_large",
            format!("The request body is larger than the limit of {limit} bytes."),
        )
    }

    /// The library folder is missing, unreadable, or empty while games are known.
    pub fn library_unavailable() -> Self {
        Self::new(
            503,
            "library_unavailable",
            "The library folder is missing, unreadable or empty; nothing was changed. Check that its disk is mounted.",
        )
    }

    pub fn uri_too_long(limit: usize) -> Self {
        Self::new(
            414,
            "uri_too_long",
            format!("The request target is longer than the limit of {limit} bytes."),
        )
    }

    pub fn headers_too_large(limit: usize) -> Self {
        Self::new(
            431,
            "headers_too_large",
            format!("The request headers are larger than the limit of {limit} bytes."),
        )
    }

    pub fn rate_limited(retry_after_s: u64) -> Self {
        let mut e = Self::new(
            429,
            "rate_limited",
            "Too many requests; wait before trying again.",
        );
        e.headers.push(("Retry-After", retry_after_s.to_string()));
        e
    }

    pub fn overloaded() -> Self {
        let mut e = Self::new(
            503,
            "overloaded",
            "The service is busy with other requests; retry shortly.",
        );
        e.headers.push(("Retry-After", "1".to_string()));
        e
    }

    /// A server-side failure: the client sees a fixed sentence, the log sees `cause`.
    pub fn internal(cause: impl fmt::Display) -> Self {
        let mut e = Self::new(500, "internal_error", INTERNAL_MESSAGE);
        e.cause = Some(cause.to_string());
        e
    }

    /// A running task stopped because it was asked to.
    pub fn cancelled() -> Self {
        Self::new(409, "cancelled", "The task was cancelled.")
    }

    /// The database was written by a newer version of the program.
    pub fn database_too_new(found: i64, known: usize) -> Self {
        let mut e = Self::new(
            500,
            "database_too_new",
            "The database was written by a newer version of the service.",
        );
        e.cause = Some(format!(
            "database schema version {found} is newer than the {known} this build knows"
        ));
        e
    }

    /// Another process (a running server) holds the data folder.
    pub fn data_locked() -> Self {
        Self::new(
            409,
            "data_locked",
            "Another ludotheque process is using this data folder.",
        )
    }

    /// Attach a cause for the log to a client-facing error.
    pub fn with_cause(mut self, cause: impl fmt::Display) -> Self {
        self.cause = Some(cause.to_string());
        self
    }
}

impl fmt::Display for Error {
    /// The log's view: the safe message followed by the cause, when there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            Some(cause) => write!(f, "{} ({}): {}", self.message, self.slug, cause),
            None => write!(f, "{} ({})", self.message, self.slug),
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
