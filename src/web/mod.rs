//! The web interface: pages rendered on the server, one file per area (`titles`,
//! `library`, `tasks`, `device` with `shop`, `trash`, `upkeep`, `settings` with
//! `accounts`, `sign_in`, `first_steps` (where the first run ends), and `missing`,
//! the 404 page), each holding its pages and the internal JSON routes under `/api/`
//! its page script calls. The pages only read: every change goes through those
//! routes. They are not part of the public contract, may change, and an API key never
//! reaches them. The page shell is `view`, the pager of long lists `pager`, the two
//! static files `assets`; the words are the catalogue's (`error::i18n`).

pub mod accounts;
pub mod assets;
pub mod compress;
pub mod console_keys;
pub mod consoles;
pub mod dashboard;
pub mod device;
pub mod first_steps;
pub mod folders;
pub mod health;
pub mod library;
pub mod listen;
pub mod missing;
pub mod notifications;
pub mod pager;
pub mod phrases;
pub mod selection;
pub mod settings;
pub mod setup;
pub mod shop;
pub mod sign_in;
pub mod tasks;
pub mod title_files;
pub mod titles;
pub mod trash;
pub mod upkeep;
pub mod view;

use serde::Deserialize;

use crate::error::{Error, Msg};
use crate::http::Ctx;

/// The JSON body of a request, or a 400 that says what was expected.
fn body<T: for<'de> Deserialize<'de>>(c: &Ctx, expected: &str) -> Result<T, Error> {
    serde_json::from_slice(&c.req.body).map_err(|e| {
        Error::invalid(Msg::BadJson {
            expected: expected.into(),
        })
        .with_cause(e)
    })
}
