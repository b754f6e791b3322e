//! The interface's only two assets, compiled into the binary: no CDN, no build step.
//! Pages link them with the version in the query, so they can be cached for long.

use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};

const CSS: &str = include_str!("static/app.css");
const JS: &str = include_str!("static/app.js");

/// `GET /static/{name}`.
pub fn asset(c: &Ctx) -> Result<Reply, Error> {
    let (content_type, text) = match c.param(0) {
        "app.css" => ("text/css; charset=utf-8", CSS),
        "app.js" => ("text/javascript; charset=utf-8", JS),
        _ => return Err(Error::not_found(Msg::NoSuchFile)),
    };
    Ok(Reply::new(200, content_type, text.as_bytes().to_vec())
        .with("Cache-Control", "public, max-age=86400"))
}
