//! Handlers. `v1` is the public, versioned API under `/api/v1/`; `download` the
//! push's downloads; `shop` what console installers pull.

pub mod download;
pub mod metrics;
pub mod shop;
pub mod v1;
