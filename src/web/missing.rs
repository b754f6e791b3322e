//! The page a person gets at an address that is no page of the interface (a typo,
//! an old bookmark): a 404 inside the usual page shell, in the reader's language,
//! with the way back. The router sends here only `GET`s outside the API, the shop,
//! the downloads and the static files, which keep their JSON or plain 404.
//!
//! And the page a person gets when a page could not be made (a download link whose
//! file is gone, a search past its bounds): the reason in the same shell, with the
//! error's status, where the API would answer JSON in English.

use maud::html;

use super::view::{page, Viewer};
use crate::error::i18n::M;
use crate::error::Error;
use crate::http::response::status_and_slug;
use crate::http::{Ctx, Reply};

/// Any address the route table does not know, for a signed-in reader (a stranger is
/// sent to sign in first, as on every page: nobody learns which pages exist).
pub fn missing_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let body = html! {
        p #not-found { (v.t(M::PageNotFoundText)) }
        ul.links {
            li { a href="/" { (v.t(M::Dashboard)) } }
            li { a href="/library" { (v.t(M::Library)) } }
        }
    };
    let mut reply = page(&v, v.t(M::PageNotFound), "", body)?;
    reply.status = 404;
    Ok(reply)
}

/// Why a page could not be made: its message in the reader's language (a 500 says
/// only that the log has the cause), with the error's status and slug.
pub fn error_page(c: &Ctx, e: &Error) -> Reply {
    let v = Viewer::of(c);
    let (status, slug) = status_and_slug(&e.kind);
    // Alone on the page, the message is a whole sentence (the French ones are written
    // to sit inside one, without a full stop).
    let mut text = v.say(&e.msg);
    if !text.ends_with(['.', '!', '?']) {
        text.push('.');
    }
    let body = html! {
        p #error-message data-error=(slug) role="alert" { (text) }
        ul.links {
            li { a href="/" { (v.t(M::Dashboard)) } }
            li { a href="/library" { (v.t(M::Library)) } }
        }
    };
    let Ok(mut reply) = page(&v, v.t(M::PageFailed), "", body) else {
        return Reply::from_error(e);
    };
    reply.status = status;
    // The error's own headers (`Retry-After`…) go with it.
    reply.headers.extend(Reply::from_error(e).headers);
    reply
}
