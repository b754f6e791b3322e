//! Ludothèque: a self-hosted service that manages a library of Nintendo Switch game
//! files. It scans and identifies them, serves a small public HTTP API (`/api/v1/`)
//! and runs one long task at a time.
//!
//! Dependencies point one way: `cli → http → api → library, jobs, store`. The domain
//! modules never import `http`; only `api::v1::types` knows the public JSON.

pub mod accounts;
pub mod api;
pub mod app;
pub mod cli;
pub mod config;
pub mod convert;
pub mod device;
pub mod error;
pub mod http;
pub mod jobs;
pub mod keys;
pub mod library;
pub mod memory;
pub mod store;
pub mod text;
pub mod time;
pub mod trash;
pub mod web;
