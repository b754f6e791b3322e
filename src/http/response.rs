//! What a handler returns, and the one place an [`Error`] becomes a response body.

use std::io::{Cursor, Read};
use std::sync::Arc;

use serde::Serialize;

use crate::error::{Error, Kind, Msg};

pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
    /// A body streamed instead of `body` (a file range), with its length.
    pub stream: Option<(Box<dyn Read + Send>, u64)>,
    /// Run by the worker once the response is written (or the client left), with its
    /// database connection: what a download counts is known only then.
    pub after: Option<After>,
}

pub type After = Box<dyn FnOnce(&rusqlite::Connection) + Send>;

/// A body shared between requests, read through a cursor without a copy: an
/// `Arc<Vec<u8>>` as well as an `Arc<[u8]>` (a page just rendered is shared as it is).
struct SharedBody<B: ?Sized>(Arc<B>);

impl<B: AsRef<[u8]> + ?Sized> AsRef<[u8]> for SharedBody<B> {
    fn as_ref(&self) -> &[u8] {
        (*self.0).as_ref()
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
    message: &'a str,
    /// The web interface's routes only: the message in the reader's language
    /// (`Error::in_french`), rendered from the slug and its parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

impl Reply {
    /// A reply of `status` whose body is `body`, with no header yet.
    pub fn new(status: u16, content_type: &'static str, body: Vec<u8>) -> Reply {
        Reply {
            status,
            content_type,
            headers: Vec::new(),
            body,
            stream: None,
            after: None,
        }
    }

    /// The same reply with one header more.
    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }

    pub fn json<T: Serialize + ?Sized>(status: u16, value: &T) -> Result<Reply, Error> {
        // A library page is a few KiB: start there rather than grow by doubling.
        let mut body = Vec::with_capacity(8 * 1024);
        serde_json::to_writer(&mut body, value)?;
        Ok(Reply::new(status, "application/json", body))
    }

    /// A 200 whose JSON body is already rendered and shared.
    pub fn json_shared<B>(body: Arc<B>) -> Reply
    where
        B: AsRef<[u8]> + Send + Sync + ?Sized + 'static,
    {
        Reply::shared("application/json", body)
    }

    /// A 200 whose body is already rendered and shared by every request that sends it.
    pub fn shared<B>(content_type: &'static str, body: Arc<B>) -> Reply
    where
        B: AsRef<[u8]> + Send + Sync + ?Sized + 'static,
    {
        let len = (*body).as_ref().len() as u64;
        let mut reply = Reply::new(200, content_type, Vec::new());
        reply.stream = Some((Box::new(Cursor::new(SharedBody(body))), len));
        reply
    }

    /// `{error, message}` with the error's status and headers. Only the safe message
    /// is used: the cause never reaches the client.
    pub fn from_error(e: &Error) -> Reply {
        let (status, slug) = status_and_slug(&e.kind);
        let body = serde_json::to_vec(&ErrorBody {
            error: slug,
            message: &e.message(),
            text: e.text.as_deref(),
        })
        .unwrap_or_default();
        let headers = match &e.kind {
            Kind::MethodNotAllowed { allow } => vec![("Allow", allow.clone())],
            Kind::RateLimited { retry_after } => vec![("Retry-After", retry_after.to_string())],
            Kind::Overloaded => vec![("Retry-After", "1".to_string())],
            // An installer asks the console's owner for the name and password.
            Kind::Unauthorized
                if matches!(
                    e.msg,
                    Msg::ShopCredentialsRequired | Msg::ConsoleCredentialsRequired
                ) =>
            {
                vec![("WWW-Authenticate", "Basic realm=\"ludotheque\"".to_string())]
            }
            _ => Vec::new(),
        };
        Reply {
            headers,
            ..Reply::new(status, "application/json", body)
        }
    }

    /// Offered as a file to save, named `name` (a key's last segment): RFC 6266's
    /// plain form for the ASCII browsers fall back on, and its UTF-8 form (RFC 8187)
    /// for the real name.
    pub fn attachment(mut self, name: &str) -> Reply {
        let name = name.rsplit('/').next().unwrap_or(name);
        let plain: String = name
            .chars()
            .map(|ch| match ch {
                ' '..='~' if ch != '"' && ch != '\\' => ch,
                _ => '_',
            })
            .collect();
        // RFC 8187's attr-char holds every character a path segment keeps unescaped.
        let encoded = crate::text::encode_segment(name);
        let value = format!("attachment; filename=\"{plain}\"; filename*=UTF-8''{encoded}");
        self.headers.push(("Content-Disposition", value));
        self
    }

    /// Whether the reply already carries a header of that name.
    pub fn has_header(&self, name: &str) -> bool {
        self.headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    }

    pub fn into_tiny(self) -> tiny_http::Response<Box<dyn Read + Send>> {
        let mut headers = Vec::with_capacity(self.headers.len() + 2);
        headers.extend(tiny_http::Header::from_bytes(
            "Content-Type",
            self.content_type,
        ));
        // Every answer: a browser never guesses another type than the one sent.
        if !self.has_header("X-Content-Type-Options") {
            headers.extend(tiny_http::Header::from_bytes(
                "X-Content-Type-Options",
                "nosniff",
            ));
        }
        for (name, value) in &self.headers {
            headers.extend(tiny_http::Header::from_bytes(
                name.as_bytes(),
                value.as_bytes(),
            ));
        }
        let (data, len): (Box<dyn Read + Send>, u64) = match self.stream {
            Some((reader, len)) => (reader, len),
            None => {
                let len = self.body.len() as u64;
                (Box::new(Cursor::new(self.body)), len)
            }
        };
        // Always a Content-Length: tiny_http would switch to chunked encoding above
        // 32 KiB, and the console's installers need the length of what they download.
        tiny_http::Response::new(
            tiny_http::StatusCode(self.status),
            headers,
            data,
            Some(len as usize),
            None,
        )
        .with_chunked_threshold(usize::MAX)
    }
}

/// The one place a kind of error becomes an HTTP status and the body's stable slug.
pub fn status_and_slug(kind: &Kind) -> (u16, &'static str) {
    match kind {
        Kind::Invalid => (400, "bad_request"),
        Kind::MissingParameter => (400, "missing_parameter"),
        Kind::Unauthorized => (401, "unauthorized"),
        Kind::Forbidden => (403, "forbidden"),
        Kind::CrossOrigin => (403, "cross_origin"),
        Kind::NotFound => (404, "not_found"),
        Kind::MethodNotAllowed { .. } => (405, "method_not_allowed"),
        Kind::Conflict => (409, "conflict"),
        Kind::Busy => (409, "busy"),
        Kind::Cancelled => (409, "cancelled"),
        Kind::Locked => (409, "data_locked"),
        Kind::BadGateway => (502, "bad_gateway"),
        Kind::RequestTimeout => (408, "request_timeout"),
        Kind::PayloadTooLarge => (413, "payload_too_large"),
        Kind::UriTooLong => (414, "uri_too_long"),
        Kind::RateLimited { .. } => (429, "rate_limited"),
        Kind::HeadersTooLarge => (431, "headers_too_large"),
        Kind::Internal => (500, "internal_error"),
        Kind::TooNew => (500, "database_too_new"),
        Kind::PreconditionFailed => (412, "precondition_failed"),
        Kind::UnsupportedMediaType => (415, "unsupported_media_type"),
        Kind::InsufficientStorage => (507, "insufficient_storage"),
        Kind::Overloaded => (503, "overloaded"),
        Kind::Unavailable => (503, "library_unavailable"),
    }
}
