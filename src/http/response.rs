//! What a handler returns, and the one place an [`Error`] becomes a response body.

use std::io::Cursor;

use serde::Serialize;

use crate::error::Error;

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
    message: &'a str,
}

impl Reply {
    pub fn json<T: Serialize + ?Sized>(status: u16, value: &T) -> Result<Reply, Error> {
        Ok(Reply {
            status,
            content_type: "application/json",
            headers: Vec::new(),
            body: serde_json::to_vec(value)?,
        })
    }

    /// `{error, message}` with the error's status and headers. Only the safe message
    /// is used: the cause never reaches the client.
    pub fn from_error(e: &Error) -> Reply {
        let body = serde_json::to_vec(&ErrorBody {
            error: e.slug,
            message: &e.message,
        })
        .unwrap_or_default();
        Reply {
            status: e.status,
            content_type: "application/json",
            headers: e.headers.clone(),
            body,
        }
    }

    pub fn into_tiny(self) -> tiny_http::Response<Cursor<Vec<u8>>> {
        let mut headers = Vec::with_capacity(self.headers.len() + 1);
        headers.extend(tiny_http::Header::from_bytes(
            "Content-Type",
            self.content_type,
        ));
        for (name, value) in &self.headers {
            headers.extend(tiny_http::Header::from_bytes(
                name.as_bytes(),
                value.as_bytes(),
            ));
        }
        let len = self.body.len();
        tiny_http::Response::new(
            tiny_http::StatusCode(self.status),
            headers,
            Cursor::new(self.body),
            Some(len),
            None,
        )
    }
}
