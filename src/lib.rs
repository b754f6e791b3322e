//! Ludothèque: a self-hosted service that manages a library of Nintendo Switch game
//! files. It scans and identifies them, serves a web interface and a small public
//! HTTP API (`/api/v1/`), and runs one long task at a time.
//!
//! Dependencies point one way, from the top of this list to the bottom; a test
//! (`tests/it/architecture.rs`) fails on an import that goes up. `ARCHITECTURE.md`
//! tells the life of a request and of a task.
//!
//! - `cli` (with its grammar `args`): the commands, in French.
//! - `service`: opening the data folder, the threads, a clean stop.
//! - `routes`: the one route table.
//! - `web`, then `api`: the handlers, by feature.
//! - `http`: the server and what handlers speak (request, reply, access, shared state).
//! - `watch`: changes under the library start a scan through the task slot.
//! - the domain: `jobs`, `notify`, `convert`, `device`, `trash`, `shop`, `titles`, `library`,
//!   `accounts`, `keys`, `consoles`.
//! - `outbound`: every request to another host (deadlines, cancel, redirects, addresses).
//! - `store`: SQLite, one file per table.
//! - beside them all: `config`, `error`, `text` (with `naming`, organize's template),
//!   `time`, `memory`, `kept` (what is computed from the library, kept until it changes).

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
