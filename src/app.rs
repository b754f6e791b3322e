//! The state shared by every request worker: the configuration, the task slot, the
//! rate limiters and the start time.

use std::sync::Arc;
use std::time::Instant;

use crate::api::v1::cache::PageCache;
use crate::config::Config;
use crate::http::auth::Limits;
use crate::jobs::Jobs;

pub struct App {
    pub config: Config,
    pub jobs: Arc<Jobs>,
    pub started: Instant,
    pub limits: Limits,
    /// Rendered library and search pages.
    pub pages: PageCache,
    /// The port the service listens on (the warden finds connections by it).
    pub port: u16,
    /// Connections refused for ambiguous framing (see `http::framing`): the acceptor
    /// drops what follows on them; the worker that shuts one stamps it again.
    pub poisoned: std::sync::Mutex<crate::http::framing::Poisoned>,
    /// The first-run setup code, while no account exists (see `web::api::setup`).
    pub setup_code: std::sync::Mutex<Option<String>>,
}
