//! Handlers of the public API v1, one file per area. The JSON v1 promises
//! (`docs/api.md`) is `types`; `openapi.json` describes every route (a test keeps it and
//! `crate::routes` in step).
//! Each handler is short: read the request, call the domain, shape the answer.

pub mod device;
pub mod jobs;
pub mod library;
pub mod system;
pub mod titles;
pub mod trash;
pub mod types;
