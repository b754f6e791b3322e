//! The state shared by every request worker: the configuration, the task slot, the
//! push under way, the rate limiters, the page cache, the service's views of the
//! library and the first-run setup code.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::auth::Limits;
use super::cache::PageCache;
use super::framing::Poisoned;
use crate::config::Config;
use crate::device::Sessions;
use crate::jobs::Jobs;
use crate::library::switchfs::prodkeys::file::KeysFile;

pub struct App {
    pub config: Config,
    pub jobs: Arc<Jobs>,
    /// The push under way: its downloads are served by the workers.
    pub push: Arc<Sessions>,
    /// The user's console keys file (`library::switchfs::prodkeys::file`).
    pub prod_keys: Arc<KeysFile>,
    pub started: Instant,
    pub limits: Limits,
    /// Rendered library and search pages.
    pub pages: PageCache,
    /// Where the service listens (the warden finds connections by its ports), and
    /// the moves asked of the acceptor.
    pub listening: Arc<super::listening::Listening>,
    /// Connections refused for ambiguous framing (see `framing`): the acceptor drops
    /// what follows on them; the worker that shuts one stamps it again.
    pub poisoned: Mutex<Poisoned>,
    /// The connections whose request the service holds (the warden leaves them be).
    pub held: Arc<super::warden::Held>,
    /// The first-run setup code, while no account exists (see `web::sign_in`).
    pub setup_code: Mutex<Option<String>>,
    /// What the service keeps computed from the library (`views`).
    pub views: Arc<crate::views::Views>,
    /// The shop's downloads, waiting or running, per console.
    pub downloads: Arc<super::downloads::Downloads<super::server::Job>>,
    /// The answers too large to write from a worker, shared fairly between client
    /// networks (`server::respond`).
    pub writers: Arc<super::downloads::Downloads<super::server::Answer>>,
    /// The request bodies being read, per client (see `body`).
    pub bodies: super::body::Bodies,
    /// The uploads being read (see `upload`).
    pub uploads: super::upload::Uploads,
}

impl App {
    pub fn new(
        config: Config,
        jobs: Arc<Jobs>,
        push: Arc<Sessions>,
        prod_keys: Arc<KeysFile>,
        views: Arc<crate::views::Views>,
        listen: std::net::SocketAddr,
        setup_code: Option<String>,
    ) -> App {
        App {
            limits: Limits::new(&config),
            downloads: Arc::new(super::downloads::Downloads::new(
                config.serve.shop_downloads,
                config.serve.shop_downloads_total,
            )),
            // As many writers as workers, half of them for one client network; as many
            // answers may wait as requests may (one per connection at most).
            writers: Arc::new(super::downloads::Downloads::with_queues(
                (config.workers / 2).max(1),
                config.serve.queue,
                config.serve.queue,
            )),
            config,
            jobs,
            push,
            prod_keys,
            started: Instant::now(),
            pages: PageCache::default(),
            listening: Arc::new(super::listening::Listening::new(listen)),
            poisoned: Mutex::default(),
            held: Arc::default(),
            setup_code: Mutex::new(setup_code),
            views,
            bodies: Default::default(),
            uploads: Default::default(),
        }
    }
}
