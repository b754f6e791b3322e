//! The web interface's side of the server. For now, its internal JSON routes under
//! `/api/` (not `/api/v1/`): they are not part of the public contract, may change, and
//! an API key never reaches them.

pub mod api;
