//! Handlers. `v1` is the public, versioned API under `/api/v1/`; `download` the
//! push's downloads; `shop` what console installers pull; `saves` what CyberFoil's
//! save sync calls.

pub mod dav;
pub mod download;
pub mod metrics;
pub mod saves;
pub mod shop;
pub mod v1;
