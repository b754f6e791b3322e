//! The page a person gets at an address that is no page of the interface (a typo,
//! an old bookmark): a 404 inside the usual page shell, in the reader's language,
//! with the way back. The router sends here only `GET`s outside the API, the shop,
//! the downloads and the static files, which keep their JSON or plain 404.

use maud::html;

use super::i18n::M;
use super::view::{page, Viewer};
use crate::error::Error;
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
