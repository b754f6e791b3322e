//! Handlers. `v1` is the public, versioned API under `/api/v1/`.

pub mod download;
pub mod v1;
