//! Ludothèque: a self-hosted service that manages a library of Nintendo Switch game
//! files. It scans and identifies them, serves a web interface and a small public
//! HTTP API (`/api/v1/`), and runs one long task at a time.
//!
//! Dependencies point one way: a module imports only the modules before it in this
//! list, the layers from the bottom (the list `LAYERS` of `tests/it/architecture.rs`,
//! which fails on an import that goes up, and on this quote when it differs):
//!
//! ```text
//! numbers words error time memory kept text naming args store config outbound
//! library titles accounts keys consoles shop device trash convert notify jobs watch
//! http api web routes service cli
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

pub mod accounts;
pub mod api;
pub mod args;
pub mod cli;
pub mod config;
pub mod consoles;
pub mod convert;
pub mod device;
pub mod error;
pub mod http;
pub mod jobs;
pub mod kept;
pub mod keys;
pub mod library;
pub mod memory;
pub mod naming;
pub mod notify;
pub mod numbers;
pub mod outbound;
pub mod routes;
pub mod service;
pub mod shop;
pub mod store;
pub mod text;
pub mod time;
pub mod titles;
pub mod trash;
pub mod watch;
pub mod web;
pub mod words;
