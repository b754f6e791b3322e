//! One validated [`Config`], built from the command-line flags (which also read the
//! `LUDOTHEQUE_*` environment variables) and passed explicitly: no globals.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::args::{GlobalArgs, LocalAccessChoice, ServeArgs};
use crate::error::{Error, Msg};

/// The flags as given are `serve` (bounds checked); what is worked out of them
/// (folders made, users resolved, a file read, a template parsed) has a field of its
/// own, and is read there rather than from `serve`.
#[derive(Debug, Clone)]
pub struct Config {
    /// The data folder (database, lock file). Absolute.
    pub data: PathBuf,
    /// The library's folders (`folders()`), the first its root.
    library: crate::tree::folders::Shared,
    /// The server's flags (`ludotheque serve --help`), their bounds checked.
    pub serve: ServeArgs,
    /// Request worker threads (`serve.workers`, else one per core and a few).
    pub workers: usize,
    /// The loopback rule: which keyless requests from this machine get full access.
    pub local_access: LocalAccess,
    /// Where events are POSTed, and the secret that signs them (`notify`): the URL
    /// checked, its file read.
    pub webhook_url: Option<String>,
    pub webhook_secret: Option<String>,
    /// The notification targets given at start (`--notify`, its variable, then
    /// `--notify-file`'s lines), as written: `notify` parses them.
    pub notify: Vec<String>,
    /// Where `organize` puts each file, when `--organize-template` says
    /// (`organize_template()` is the one to use).
    pub organize_flag: Option<crate::naming::Template>,
    /// Which copy `dedupe` keeps between two of the same version.
    pub dedupe_keep: crate::words::DedupeKeep,
    /// The console keys file (`--keys`, else `DATA/prod.keys`).
    pub prod_keys: KeysPath,
    /// How `compress` compresses: zstd level and one stream per NCA (nsz's defaults,
    /// 18 in blocks; `ludotheque compress` sets them).
    pub compress_level: i32,
    pub compress_solid: bool,
    /// Below this gain, in percent, `compress` leaves a file as it is.
    pub compress_min_gain: u32,
    /// `compress` purges each original once verified instead of trashing it.
    pub compress_delete_originals: bool,
    /// Where convert and compress write while they work (`--work-dir`, made at start
    /// and canonical); none: beside each output.
    pub work_dir: Option<PathBuf>,
    /// Test aid: every task waits this long before its body runs (unit tests set it).
    pub task_delay: Duration,
}

/// Days a trashed file is kept when neither the flag nor Settings says.
pub const DEFAULT_RETENTION_DAYS: u32 = 30;

impl Config {
    /// Validate the flags and create the data and library folders when missing.
    pub fn new(global: &GlobalArgs, serve: &ServeArgs) -> Result<Config, Error> {
        let data = make_dir(&global.data, "data")?;
        crate::store::db::make_private(&data)
            .map_err(|e| Error::invalid(Msg::DataFolderPrivate).with_cause(e))?;
        let first = make_dir(&global.library[0], "library")?;
        let library = crate::tree::folders::Shared::new(folders(global, first, &data)?);
        let workers = serve.workers.unwrap_or_else(default_workers);
        check_bounds(serve, workers)?;
        let (webhook_url, webhook_secret) = webhook(serve)?;
        let notify = notify_targets(serve)?;
        if let Some(url) = &serve.public_url {
            if !valid_webhook_url(url) || !url.is_ascii() {
                return Err(Error::invalid(Msg::BadPublicUrl));
            }
        }
        Ok(Config {
            data,
            library,
            workers,
            local_access: local_access(serve)?,
            webhook_url,
            webhook_secret,
            notify,
            organize_flag: (global.organize_template.as_deref())
                .map(|text| crate::naming::Template::parse(text).ok_or(Msg::BadOrganizeTemplate))
                .transpose()
                .map_err(Error::invalid)?,
            dedupe_keep: global.dedupe_keep,
            prod_keys: prod_keys_path(global),
            compress_level: 18,
            compress_solid: false,
            compress_min_gain: 2,
            compress_delete_originals: false,
            work_dir: (global.work_dir.as_ref())
                .map(|dir| make_dir(dir, "work"))
                .transpose()?,
            task_delay: Duration::from_millis(serve.task_delay_ms),
            serve: serve.clone(),
        })
    }

    /// The library's folders as they are now: a task or a request takes them once and
    /// works on that list, whatever is added or removed meanwhile.
    pub fn folders(&self) -> std::sync::Arc<crate::tree::folders::Folders> {
        self.library.now()
    }

    /// A folder added or removed while the service runs (`jobs::folders`).
    pub fn replace_folders(&self, folders: crate::tree::Folders) {
        self.library.replace(folders);
    }

    /// Days a file put in the trash now is kept: `--trash-retention-days` when given,
    /// else what an admin set in Settings, else [`DEFAULT_RETENTION_DAYS`]. Read at
    /// each use, so that a change in Settings applies at once.
    pub fn retention_days(&self, db: &rusqlite::Connection) -> u32 {
        self.serve
            .trash_retention_days
            .or_else(|| crate::store::settings::trash_retention(db).ok().flatten())
            .unwrap_or(DEFAULT_RETENTION_DAYS)
    }

    /// Where `organize` puts each file: `--organize-template` when given, else what an
    /// admin set in Settings, else `naming::DEFAULT`. Read at each use, as the
    /// retention is.
    pub fn organize_template(&self, db: &rusqlite::Connection) -> crate::naming::Template {
        let saved = || {
            crate::store::settings::ORGANIZE_TEMPLATE
                .get(db)
                .ok()
                .flatten()
        };
        self.organize_flag
            .clone()
            .or_else(|| saved().and_then(|t| crate::naming::Template::parse(&t)))
            .unwrap_or_default()
    }

    /// A connection with no byte either way this long is closed (`http::warden`).
    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs(self.serve.idle_timeout_secs)
    }

    /// A request not read whole within this is answered 408 (`http::warden`).
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.serve.request_timeout_secs)
    }

    /// A write the client takes no byte of within this fails (`SO_SNDTIMEO`).
    pub fn write_timeout(&self) -> Duration {
        Duration::from_secs(self.serve.write_timeout_secs)
    }

    /// A push ends after this long without a request from the console.
    pub fn push_timeout(&self) -> Duration {
        Duration::from_secs(self.serve.push_timeout_secs)
    }

    /// How often title data is fetched by itself (`None`: never): `--titledb-every`
    /// (or the older `--titledb-refresh-hours`); else daily once it was fetched from a
    /// source, never while it only came from files.
    pub fn titledb_refresh(&self, conn: &rusqlite::Connection) -> Option<Duration> {
        let hours = |h: u32| Duration::from_secs(u64::from(h) * 3600);
        let given = (self.serve.titledb_every).or(self.serve.titledb_refresh_hours.map(hours));
        match given {
            Some(every) => (!every.is_zero()).then_some(every),
            None => crate::store::title_sources::ever_fetched(conn)
                .unwrap_or(false)
                .then(|| hours(24)),
        }
    }

    /// A config rooted in `dir`, for unit tests.
    #[cfg(test)]
    pub fn for_tests(dir: &Path) -> Config {
        use clap::Parser;
        let args = crate::args::Args::parse_from([
            "ludotheque",
            "--data",
            dir.join("data").to_str().unwrap(),
            "--library",
            dir.join("library").to_str().unwrap(),
        ]);
        Config::new(&args.global, &ServeArgs::from_env()).unwrap()
    }
}

/// Counts, timeouts and rates that must be positive.
fn check_bounds(serve: &ServeArgs, workers: usize) -> Result<(), Error> {
    if workers == 0
        || serve.queue == 0
        || serve.max_connections == 0
        || serve.shop_downloads == 0
        || serve.shop_downloads_total == 0
    {
        return Err(Error::invalid(Msg::AtLeastOne));
    }
    if serve.idle_timeout_secs == 0
        || serve.request_timeout_secs == 0
        || serve.write_timeout_secs == 0
    {
        return Err(Error::invalid(Msg::TimeoutsAtLeastOne));
    }
    if serve.key_rate <= 0.0 || serve.key_burst < 1.0 || serve.auth_failures_per_minute == 0 {
        return Err(Error::invalid(Msg::RatesPositive));
    }
    Ok(())
}

/// Where the console keys file is, and whether it may be a symbolic link
/// (`library::switchfs::prodkeys::file` reads it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeysPath {
    pub path: PathBuf,
    /// Named with `--keys` (a link is followed), not the data folder's own (a link is
    /// refused).
    pub links: bool,
}

/// Where the console keys file is: `--keys` (made absolute, and it may be a link),
/// else `DATA/prod.keys` (which must be the file itself).
pub fn prod_keys_path(global: &GlobalArgs) -> KeysPath {
    match &global.keys {
        Some(file) => KeysPath {
            path: std::path::absolute(file).unwrap_or_else(|_| file.clone()),
            links: true,
        },
        None => KeysPath {
            path: std::path::absolute(&global.data)
                .unwrap_or_else(|_| global.data.clone())
                .join("prod.keys"),
            links: false,
        },
    }
}

/// Which keyless requests from this machine the loopback rule admits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalAccess {
    /// None: `--local-access off`, or `--no-local-access`.
    Off,
    /// Those whose socket belongs to root, to the service's own user, or to one of
    /// these users (`--local-access-users`, resolved at start).
    Users(Vec<u32>),
    /// Every program of this machine, a reverse proxy too: `--local-access any`.
    Any,
}

fn local_access(serve: &ServeArgs) -> Result<LocalAccess, Error> {
    let uids = serve
        .local_access_users
        .iter()
        .map(|name| name.trim())
        .filter(|name| !name.is_empty())
        .map(user_id)
        .collect::<Result<Vec<u32>, Error>>()?;
    Ok(match serve.local_access {
        _ if serve.no_local_access => LocalAccess::Off,
        LocalAccessChoice::Off => LocalAccess::Off,
        LocalAccessChoice::Any => LocalAccess::Any,
        LocalAccessChoice::Users => LocalAccess::Users(uids),
    })
}

/// The uid of a user of this machine, by name (a number is taken as a uid when no
/// user has it as a name). Resolved once at start: a name that does not exist is a
/// start error, never a silent refusal later.
pub fn user_id(name: &str) -> Result<u32, Error> {
    let unknown = || Error::invalid(Msg::UnknownUser { name: name.into() });
    let c_name = std::ffi::CString::new(name).map_err(|_| unknown())?;
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: every pointer is to a live local of the right type; `buf` outlives the
    // call and its length is passed; `found` is only read when getpwnam_r set it.
    let uid = unsafe {
        let mut pwd: libc::passwd = std::mem::zeroed();
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let rc = libc::getpwnam_r(
            c_name.as_ptr(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut found,
        );
        (rc == 0 && !found.is_null()).then_some(pwd.pw_uid)
    };
    uid.or_else(|| name.parse().ok()).ok_or_else(unknown)
}

/// The webhook's address (from the flag, its variable or its file) and secret,
/// checked: an empty one is none.
fn webhook(serve: &ServeArgs) -> Result<(Option<String>, Option<String>), Error> {
    let url = match &serve.webhook_url_file {
        Some(file) => Some(read_webhook_file(file)?),
        None => serve.webhook_url.clone(),
    };
    let url = url.filter(|u| !u.is_empty());
    let secret = serve.webhook_secret.clone().filter(|s| !s.is_empty());
    if url.as_deref().is_some_and(|u| !valid_webhook_url(u)) {
        return Err(Error::invalid(Msg::BadWebhookUrl));
    }
    if url.as_deref().is_some_and(carries_secrets) && on_command_line("--webhook-url") {
        log::warn!(
            "the webhook address given with --webhook-url carries credentials or a query \
             string, which every user of this machine can read in the list of processes: \
             give it with LUDOTHEQUE_WEBHOOK_URL or --webhook-url-file"
        );
    }
    if secret.is_some() && url.is_none() {
        return Err(Error::invalid(Msg::WebhookSecretAlone));
    }
    Ok((url, secret))
}

/// The notification targets: `--notify`'s (or its variable's lines), then the lines
/// of `--notify-file` but blank ones and comments. Only the file's first 1 MiB is
/// read.
fn notify_targets(serve: &ServeArgs) -> Result<Vec<String>, Error> {
    let mut urls: Vec<String> = serve.notify.iter().map(|u| u.trim().to_string()).collect();
    if let Some(file) = &serve.notify_file {
        let text = read_text(file, 1 << 20, Msg::NotifyFile)?;
        urls.extend(text.lines().map(|l| l.trim().to_string()));
    }
    let mut seen = std::collections::HashSet::new();
    urls.retain(|u| !u.is_empty() && !u.starts_with('#') && seen.insert(u.clone()));
    Ok(urls)
}

/// The first line of the webhook's address file, trimmed. Only its first 64 KiB are
/// read: no address is near that long.
fn read_webhook_file(file: &Path) -> Result<String, Error> {
    let text = read_text(file, 64 * 1024, Msg::WebhookUrlFile)?;
    Ok(text.lines().next().unwrap_or_default().trim().to_string())
}

/// The first `limit` bytes of a small text file the flags name, or `msg` (the path
/// goes to the cause, for the log, never to the message).
fn read_text(file: &Path, limit: u64, msg: Msg) -> Result<String, Error> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(limit).read_to_string(&mut text))
        .map_err(|e| Error::invalid(msg).with_cause(format!("{}: {e}", file.display())))?;
    Ok(text)
}

/// A URL with credentials (`user:pw@`) or a query: what a token is usually in.
fn carries_secrets(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    // Up to the first `/` only: a `#` or `?` may be inside a password.
    let authority = rest.split('/').next().unwrap_or_default();
    authority.contains('@') || rest.contains('?')
}

/// `flag` was given on the command line (not through its variable), where the list of
/// processes shows it.
pub fn on_command_line(flag: &str) -> bool {
    std::env::args_os().any(|a| {
        let a = a.to_string_lossy();
        a == flag || a.starts_with(&format!("{flag}="))
    })
}

/// An http or https address with a host, and no blank or control character.
fn valid_webhook_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Twice the cores, at least 4: workers mostly wait on SQLite and sockets.
fn default_workers() -> usize {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    (cores * 2).max(4)
}

/// The library's folders: the first (`first`, made and canonical), the further ones
/// `--library` gives, and those an admin added (kept in the database, when it has
/// them: a database not yet migrated has none).
pub fn folders(
    global: &GlobalArgs,
    first: PathBuf,
    data: &Path,
) -> Result<crate::tree::Folders, Error> {
    let added = crate::store::db::open(data)
        .ok()
        .and_then(|db| crate::store::library_folders::list(&db).ok())
        .unwrap_or_default();
    crate::tree::folders::given(first, &global.library[1..], added, data)
}

fn make_dir(path: &Path, what: &str) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(path)
        .and_then(|_| path.canonicalize())
        .map_err(|e| {
            Error::invalid(Msg::FolderUnusable { what: what.into() })
                .with_cause(format!("{}: {e}", path.display()))
        })
}
