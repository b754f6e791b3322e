//! The web interface: pages rendered on the server (`pages`, with the shell in `view`
//! and the messages in `i18n`), its two static assets, and its internal JSON routes
//! under `/api/` (`api`). Those routes are not part of the public contract, may change,
//! and an API key never reaches them.

pub mod api;
pub mod assets;
pub mod i18n;
pub mod pages;
pub mod view;
