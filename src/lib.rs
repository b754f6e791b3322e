//! Ludothèque: a self-hosted service that manages a library of Nintendo Switch game
//! files. It scans and identifies them, serves a web interface and a small public
//! HTTP API (`/api/v1/`), and runs one long task at a time.
//!
//! Dependencies point one way: a module imports only the modules before it in this
//! list, the layers from the bottom (the list `LAYERS` of `tests/it/architecture.rs`,
//! which fails on an import that goes up, and on this quote when it differs):
//!
//! ```text
//! numbers words error time memory metrics kept text naming tree args store config outbound
//! library incoming titles accounts keys consoles shop device trash saves convert notify jobs
//! watch views http api web routes service cli
//! ```
//!
//! From the top: the commands (`cli`, in French), opening the data folder and its
//! threads (`service`), the one route table (`routes`), the handlers by feature (`web`,
//! then `api`), the server and what handlers speak (`http`), the domain (from `watch`
//! down to `outbound`, every request to another host), the configuration (`config`),
//! SQLite, one file per table (`store`), the values every layer passes around, and
//! what is computed from the library, kept until it changes (`kept`).
//! `ARCHITECTURE.md` says what each module is for, and tells the life of a request and
//! of a task.

mod accounts;
mod api;
mod args;
pub mod cli;
mod config;
mod consoles;
mod convert;
mod device;
mod error;
mod http;
mod incoming;
mod jobs;
mod kept;
mod keys;
mod library;
mod memory;
mod metrics;
mod naming;
mod notify;
mod numbers;
mod outbound;
mod routes;
mod saves;
mod service;
mod shop;
mod store;
#[cfg(feature = "testkit")]
pub mod testkit;
mod text;
mod time;
mod titles;
mod trash;
mod tree;
mod views;
mod watch;
mod web;
mod words;
