//! The state shared by every request worker: the configuration, the task slot, the
//! push under way, the rate limiters, the page cache and the first-run setup code.

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
    /// The port the service listens on (the warden finds connections by it).
    pub port: u16,
    /// Connections refused for ambiguous framing (see `framing`): the acceptor drops
    /// what follows on them; the worker that shuts one stamps it again.
    pub poisoned: Mutex<Poisoned>,
    /// The connections whose request the service holds (the warden leaves them be).
    pub held: Arc<super::warden::Held>,
    /// The first-run setup code, while no account exists (see `web::sign_in`).
    pub setup_code: Mutex<Option<String>>,
    /// The shop's answers, kept per library generation.
    pub shop: crate::shop::Shop,
    /// The search index, kept per library generation.
    pub names: crate::library::name_index::Names,
    /// The titles' lists, kept per library generation.
    pub titles: crate::titles::listing::TitleLists,
    /// The shop's downloads, waiting or running, per console.
    pub downloads: Arc<super::downloads::Downloads<super::server::Job>>,
    /// The answers too large to write from a worker, shared fairly between client
    /// networks (`server::respond`).
    pub writers: Arc<super::downloads::Downloads<super::server::Answer>>,
    /// The request bodies being read, per client (see `body`).
    pub bodies: super::body::Bodies,
    /// The decompressed size of the files to convert, at one library generation: it
    /// reads a header of each, too slow for every render of the tasks panel.
    pub convert_needed: crate::kept::Kept<(), u64>,
}

impl App {
    pub fn new(
        config: Config,
        jobs: Arc<Jobs>,
        push: Arc<Sessions>,
        prod_keys: Arc<KeysFile>,
        port: u16,
        setup_code: Option<String>,
    ) -> App {
        App {
            limits: Limits::new(&config),
            downloads: Arc::new(super::downloads::Downloads::new(
                config.shop_downloads,
                config.shop_downloads_total,
            )),
            // As many writers as workers, half of them for one client network; as many
            // answers may wait as requests may (one per connection at most).
            writers: Arc::new(super::downloads::Downloads::with_queues(
                (config.workers / 2).max(1),
                config.queue,
                config.queue,
            )),
            config,
            jobs,
            push,
            prod_keys,
            started: Instant::now(),
            pages: PageCache::default(),
            port,
            poisoned: Mutex::default(),
            held: Arc::default(),
            setup_code: Mutex::new(setup_code),
            shop: Default::default(),
            names: Default::default(),
            titles: Default::default(),
            bodies: Default::default(),
            convert_needed: crate::kept::Kept::new(usize::MAX, |_| 8),
        }
    }
}
