//! The command line's grammar: every command and flag, as clap types. It lives apart
//! from `cli` (which runs the commands) so that `config` can read the flags without
//! depending on the code that uses them.

use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};
use log::LevelFilter;

use crate::words::{DedupeKeep, MissingKind, WatchMode};

#[derive(Parser, Debug)]
#[command(
    name = "ludotheque",
    version,
    about = "Ludothèque: a self-hosted manager for a library of Nintendo Switch game files"
)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// `serve`'s flags, for when no command is named: `ludotheque --listen …` is
    /// `ludotheque serve --listen …` (`cli::parse` refuses them before another command).
    #[command(flatten)]
    pub serve: ServeArgs,
    /// The command; `serve` when none is named.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `serve`'s flags with their defaults and `LUDOTHEQUE_*` variables, for when no
/// command is named.
#[derive(Parser, Debug)]
struct ServeDefaults {
    #[command(flatten)]
    serve: ServeArgs,
}

impl ServeArgs {
    pub fn from_env() -> ServeArgs {
        ServeDefaults::parse_from(["ludotheque"]).serve
    }
}

/// Which commands use each flag every command takes, by path (the names after
/// `ludotheque`): a command's help, its completions and its man page list these
/// flags only where they do something (`missing --help` listed `--organize-template`).
/// Elsewhere they are hidden but still accepted, so that a script or a variable set
/// for every command breaks nothing. The root is `serve` and lists them all.
const GLOBAL_USERS: &[(&str, &[&str])] = &[
    ("data", &[EVERY_COMMAND_BUT_COMPLETIONS]),
    ("log_level", &[EVERY_COMMAND_BUT_COMPLETIONS]),
    (
        "library",
        &[
            "serve",
            "scan",
            "convert",
            "verify",
            "compress",
            "organize",
            "dedupe",
            "trash restore",
            "trash purge",
        ],
    ),
    ("dedupe_keep", &["serve", "dedupe"]),
    ("organize_template", &["serve", "organize"]),
    (
        "keys",
        &[
            "serve",
            "scan",
            "convert",
            "verify",
            "compress",
            "keys import",
            "keys status",
            "trash restore",
        ],
    ),
];

/// A network in CIDR form, or one address (a network of that address alone).
fn parse_net(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map(|net| net.trunc())
        .map_err(|_| format!("{text:?} is neither an address nor a network (CIDR)"))
}

/// A duration as people write it (`90s`, `1m`, `6h`, `1day`), at most a year; `0`
/// turns it off.
fn parse_every(text: &str) -> Result<std::time::Duration, String> {
    let every = humantime::parse_duration(text.trim()).map_err(|e| e.to_string())?;
    if every > std::time::Duration::from_secs(366 * 86_400) {
        return Err("at most a year (366days)".into());
    }
    Ok(every)
}

/// In [`GLOBAL_USERS`]: every command but `completions`, which reads no database.
const EVERY_COMMAND_BUT_COMPLETIONS: &str = "*";

/// The command line's tree as people see it (help, completions, man pages): `cmd`
/// (`Args::command()`, perhaps adjusted) built, each command showing the global
/// flags it uses (see [`GLOBAL_USERS`]).
pub fn shown(mut cmd: clap::Command) -> clap::Command {
    // Built first: clap copies the global flags into each command as it builds.
    cmd.build();
    hide_unused(cmd, "")
}

fn hide_unused(cmd: clap::Command, path: &str) -> clap::Command {
    let cmd = cmd.mut_args(|a| {
        let users = GLOBAL_USERS.iter().find(|(id, _)| a.get_id() == *id);
        match users {
            Some((_, users)) if !uses(users, path) => a.hide(true),
            _ => a,
        }
    });
    cmd.mut_subcommands(|sub| {
        let inner = match path {
            "" => sub.get_name().to_string(),
            _ => format!("{path} {}", sub.get_name()),
        };
        hide_unused(sub, &inner)
    })
}

/// A command at `path` shows a flag its `users` use: the root, a user, a command of a
/// user, or a command one of whose commands is a user (`trash` for `trash restore`).
fn uses(users: &[&str], path: &str) -> bool {
    let top = path.split(' ').next().unwrap_or_default();
    path.is_empty()
        || users.iter().any(|u| {
            (*u == EVERY_COMMAND_BUT_COMPLETIONS && top != "completions" && top != "help")
                || *u == path
                || path.starts_with(&format!("{u} "))
                || u.starts_with(&format!("{path} "))
        })
}

/// Flags every command takes.
#[derive(ClapArgs, Debug, Clone)]
pub struct GlobalArgs {
    /// Data folder: the database and the lock file.
    #[arg(long, global = true, env = "LUDOTHEQUE_DATA", default_value = "./data")]
    pub data: PathBuf,
    /// Library folder: the game files (created when missing). Given again, each further
    /// folder joins the library as its top-level folder NAME (NAME=DIR; by default the
    /// folder's own name), its files' keys NAME/…; see ludotheque-library(1). Not
    /// given, a command uses the folders the service last ran with, and says which.
    #[arg(
        long,
        global = true,
        env = "LUDOTHEQUE_LIBRARY",
        default_value = "./library",
        value_name = "[NAME=]DIR"
    )]
    pub library: Vec<PathBuf>,
    /// Log level on standard error: error, warn, info, debug, trace or off.
    #[arg(
        long,
        global = true,
        env = "LUDOTHEQUE_LOG_LEVEL",
        default_value = "info"
    )]
    pub log_level: LevelFilter,
    /// Which copy `dedupe` keeps of a title ID and version found twice: uncompressed
    /// (.nsp, .xci) or compressed (.nsz, .xcz). The newest sound version always
    /// stays: a damaged copy never stays in place of a sound one.
    #[arg(
        long,
        global = true,
        env = "LUDOTHEQUE_DEDUPE_KEEP",
        default_value = "uncompressed",
        value_enum
    )]
    pub dedupe_keep: DedupeKeep,
    /// Where `organize` puts each file, relative to its platform's folder. Fields:
    /// {name} (the base game's, for its updates and DLC too), {dlc_name} (the file's
    /// own), {own_name} (a DLC's own name, the game's for the others), {title_id},
    /// {base_title_id}, {version}, {type} (Base, Update, DLC), {ext}. Given, it wins
    /// over Settings; else what an admin set there, else
    /// "{name}/{own_name} [{title_id}][v{version}].{ext}".
    #[arg(long, global = true, env = "LUDOTHEQUE_ORGANIZE_TEMPLATE")]
    pub organize_template: Option<String>,
    /// The console keys file: prod.keys, dumped from your own console with
    /// Lockpick_RCM (see ludotheque-keys(1)) [default: DATA/prod.keys, which must be
    /// the file itself: a symbolic link there is refused unread].
    #[arg(long, global = true, env = "LUDOTHEQUE_KEYS", value_name = "FILE")]
    pub keys: Option<PathBuf>,
    /// Where convert and compress write while they work (a faster disk); the finished
    /// file is then copied beside its original, checked, and renamed into place
    /// [default: beside each output].
    #[arg(long, global = true, env = "LUDOTHEQUE_WORK_DIR", value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// `--library` or its variable was given (not its default): set by `cli::parse`.
    /// Without it a command uses the library the service last ran with.
    #[arg(skip)]
    pub library_given: bool,
}

#[derive(ClapArgs, Debug, Clone)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0 picks a free port) [default: the one set
    /// in the web, else 127.0.0.1:8080].
    #[arg(long, env = "LUDOTHEQUE_LISTEN")]
    pub listen: Option<String>,
    /// Request worker threads [default: twice the cores, at least 4].
    #[arg(long, env = "LUDOTHEQUE_WORKERS")]
    pub workers: Option<usize>,
    /// Requests that may wait for a worker; beyond that new requests get 503. As many
    /// as connections by default: a client that waits for each answer never meets it.
    #[arg(long, env = "LUDOTHEQUE_QUEUE", default_value_t = 1024)]
    pub queue: usize,
    /// Open connections at most; past it the ones idle the longest are closed.
    #[arg(long, env = "LUDOTHEQUE_MAX_CONNECTIONS", default_value_t = 1024)]
    pub max_connections: usize,
    /// A keep-alive connection with no byte either way for this many seconds is closed.
    #[arg(long, env = "LUDOTHEQUE_IDLE_TIMEOUT_SECS", default_value_t = 60)]
    pub idle_timeout_secs: u64,
    /// A request not complete (headers and body) this many seconds after its first byte
    /// closes its connection. Only receiving counts: a complete request waiting for a
    /// worker is answered, however long it waits.
    #[arg(long, env = "LUDOTHEQUE_REQUEST_TIMEOUT_SECS", default_value_t = 10)]
    pub request_timeout_secs: u64,
    /// A response the client takes no byte of for this many seconds closes its
    /// connection and frees its worker. Never a limit on the whole response: a console
    /// downloading slowly is never cut.
    #[arg(long, env = "LUDOTHEQUE_WRITE_TIMEOUT_SECS", default_value_t = 30)]
    pub write_timeout_secs: u64,
    /// Largest request body accepted, in bytes (larger: 413); save uploads have
    /// --save-max-bytes instead.
    #[arg(long, env = "LUDOTHEQUE_MAX_BODY", default_value_t = 1024 * 1024)]
    pub max_body: usize,
    /// Largest save backup a console may upload, in bytes (larger: 413).
    #[arg(long, env = "LUDOTHEQUE_SAVE_MAX_BYTES", default_value_t = 1 << 30)]
    pub save_max_bytes: u64,
    /// Save backups kept per console and title; older ones go to the trash.
    #[arg(long, env = "LUDOTHEQUE_SAVE_VERSIONS", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub save_versions: u32,
    /// The most bytes a console's saves may hold (CyberFoil's and WebDAV's together;
    /// the trash apart); an upload past it is a 507.
    #[arg(long, env = "LUDOTHEQUE_SAVE_QUOTA", default_value_t = 32 << 30)]
    pub save_quota: u64,
    /// Turn off the loopback rule (keyless requests from this machine get full access).
    #[arg(
        long,
        env = "LUDOTHEQUE_NO_LOCAL_ACCESS",
        conflicts_with = "local_access"
    )]
    pub no_local_access: bool,
    /// Which programs of this machine the loopback rule admits: users (those run by
    /// root, the service's own user or a user of --local-access-users, found from the
    /// owner of their socket), any (every one, a reverse proxy too) or off.
    #[arg(
        long,
        env = "LUDOTHEQUE_LOCAL_ACCESS",
        default_value = "users",
        value_enum
    )]
    pub local_access: LocalAccessChoice,
    /// More users whose programs get local access (comma-separated names or uids).
    #[arg(long, env = "LUDOTHEQUE_LOCAL_ACCESS_USERS", value_delimiter = ',')]
    pub local_access_users: Vec<String>,
    /// Requests per second allowed per API key.
    #[arg(long, env = "LUDOTHEQUE_KEY_RATE", default_value_t = 20.0)]
    pub key_rate: f64,
    /// Burst of requests allowed per API key above the rate.
    #[arg(long, env = "LUDOTHEQUE_KEY_BURST", default_value_t = 40.0)]
    pub key_burst: f64,
    /// Failed authentications allowed per client address per minute.
    #[arg(
        long,
        env = "LUDOTHEQUE_AUTH_FAILURES_PER_MINUTE",
        default_value_t = 10
    )]
    pub auth_failures_per_minute: u32,
    /// Days a trashed file is kept before it is purged (at start, then daily): given,
    /// it wins over Settings; else what an admin set there, else 30.
    #[arg(long, env = "LUDOTHEQUE_TRASH_RETENTION_DAYS", value_parser = clap::value_parser!(u32).range(0..=3650))]
    pub trash_retention_days: Option<u32>,
    /// A push ends after this many seconds without a request from the console.
    #[arg(long, env = "LUDOTHEQUE_PUSH_TIMEOUT_SECS", default_value_t = 600)]
    pub push_timeout_secs: u64,
    /// Keep a converted file even when its NCAs do not match their content IDs.
    #[arg(long, env = "LUDOTHEQUE_CONVERT_ACCEPT_UNVERIFIED")]
    pub convert_accept_unverified: bool,
    /// A reverse proxy's address or network (CIDR, such as 172.18.0.0/16; repeatable,
    /// or comma-separated): its forwarding headers are believed and its --auth-header
    /// signs people in. None by default.
    #[arg(
        long,
        env = "LUDOTHEQUE_TRUSTED_PROXY",
        value_delimiter = ',',
        value_name = "CIDR",
        value_parser = parse_net
    )]
    pub trusted_proxy: Vec<ipnet::IpNet>,
    /// The header in which a trusted proxy names the signed-in user (Authelia,
    /// Authentik…); ignored from any other peer.
    #[arg(long, env = "LUDOTHEQUE_AUTH_HEADER", default_value = "Remote-User")]
    pub auth_header: String,
    /// Create the account a trusted proxy names, as a viewer, when it does not exist.
    #[arg(long, env = "LUDOTHEQUE_AUTH_HEADER_CREATE")]
    pub auth_header_create: bool,
    /// Where Sign out sends the browser (the proxy's own sign-out page).
    #[arg(long, env = "LUDOTHEQUE_AUTH_LOGOUT_URL", value_name = "URL")]
    pub auth_logout_url: Option<String>,
    /// Serve the shop to any console without a password (on a network you trust:
    /// anyone who reaches the service can list and download every game).
    #[arg(long, env = "LUDOTHEQUE_SHOP_PUBLIC")]
    pub shop_public: bool,
    /// Downloads one console may run at once; more wait their turn in the console's
    /// queue (four per download of its share), and past it get 503.
    #[arg(long, env = "LUDOTHEQUE_SHOP_DOWNLOADS", default_value_t = 4)]
    pub shop_downloads: usize,
    /// Downloads all consoles together may run at once (threads apart from the request
    /// workers, so pages and the API never wait behind a download).
    #[arg(long, env = "LUDOTHEQUE_SHOP_DOWNLOADS_TOTAL", default_value_t = 16)]
    pub shop_downloads_total: usize,
    /// Where title data is fetched from.
    #[command(flatten)]
    pub titledb: TitledbArgs,
    /// Fetch the title data this often, as a task, never beside another (1m, 6h, 24h;
    /// 0: never). Default: 24h once it was fetched from a source, never while it was
    /// only imported from files.
    #[arg(long, env = "LUDOTHEQUE_TITLEDB_EVERY", value_name = "DURATION", value_parser = parse_every)]
    pub titledb_every: Option<std::time::Duration>,
    /// The older spelling of --titledb-every, in hours.
    #[arg(
        long,
        env = "LUDOTHEQUE_TITLEDB_REFRESH_HOURS",
        hide = true,
        conflicts_with = "titledb_every"
    )]
    pub titledb_refresh_hours: Option<u32>,
    /// POST a JSON event to this address (http or https) when a task ends, when titles
    /// appear in the library and when updates become available (the events: WEBHOOK in
    /// ludotheque-serve(1)). A token in it shows in the list of processes: prefer the
    /// environment variable or --webhook-url-file.
    #[arg(
        long,
        env = "LUDOTHEQUE_WEBHOOK_URL",
        hide_env_values = true,
        conflicts_with = "webhook_url_file"
    )]
    pub webhook_url: Option<String>,
    /// Read the webhook's address from the first line of this file, so that a token in
    /// it shows neither in the list of processes nor in the environment.
    #[arg(long, env = "LUDOTHEQUE_WEBHOOK_URL_FILE", value_name = "FILE")]
    pub webhook_url_file: Option<PathBuf>,
    /// Send notifications to this target (repeatable; the variable holds one a line):
    /// ntfy://, ntfys://, gotify://, gotifys://, discord://, tgram://, json://, jsons://
    /// (NOTIFICATIONS in ludotheque-serve(1)). A token in it shows in the list of
    /// processes: prefer --notify-file.
    #[arg(
        long,
        env = "LUDOTHEQUE_NOTIFY",
        value_name = "URL",
        value_delimiter = '\n',
        hide_env_values = true
    )]
    pub notify: Vec<String>,
    /// Read notification targets from this file, one URL a line (blank lines and lines
    /// starting with # are skipped).
    #[arg(long, env = "LUDOTHEQUE_NOTIFY_FILE", value_name = "FILE")]
    pub notify_file: Option<PathBuf>,
    /// Notify when the library's or the data folder's disk has less than this share
    /// free, in percent (0: never).
    #[arg(long, env = "LUDOTHEQUE_LOW_SPACE", value_name = "PERCENT", default_value_t = 5,
          value_parser = clap::value_parser!(u8).range(0..=99))]
    pub low_space: u8,
    /// The service's address as people reach it (https://ludo.example.net): the links
    /// in notifications start with it.
    #[arg(long, env = "LUDOTHEQUE_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    /// Test aid: Discord's and Telegram's messages go to this origin instead.
    #[arg(long, env = "LUDOTHEQUE_TEST_NOTIFY_BASE", hide = true)]
    pub test_notify_base: Option<String>,
    /// Sign each event: `X-Ludotheque-Signature: sha256=<hex HMAC-SHA256 of the body>`.
    /// Prefer the environment variable: a flag shows in the list of processes.
    #[arg(long, env = "LUDOTHEQUE_WEBHOOK_SECRET", hide_env_values = true)]
    pub webhook_secret: Option<String>,
    /// How changes under the library are seen without a scan: auto (inotify; polling
    /// on NFS, SMB and other network mounts), poll (wherever it is) or off.
    #[arg(long, env = "LUDOTHEQUE_WATCH", default_value = "auto", value_enum)]
    pub watch: WatchMode,
    /// Test aid: each task waits this long (milliseconds) before it starts working.
    #[arg(
        long,
        env = "LUDOTHEQUE_TASK_DELAY_MS",
        default_value_t = 0,
        hide = true
    )]
    pub task_delay_ms: u64,
    /// Test aid: mount routes that exist only to test the server itself.
    #[arg(long, env = "LUDOTHEQUE_TEST_ROUTES", hide = true)]
    pub test_routes: bool,
    /// Test aid: icons may come from a loopback address (the suite's own servers);
    /// never from any other local one.
    #[arg(long, env = "LUDOTHEQUE_TEST_LOOPBACK_ICONS", hide = true)]
    pub test_loopback_icons: bool,
}

#[derive(ClapArgs, Debug, Clone)]
pub struct HealthArgs {
    /// The service's base URL, such as http://127.0.0.1:8080 [default: from --listen].
    #[arg(long, value_name = "BASE")]
    pub url: Option<String>,
    /// The address `serve` listens on, asked when --url is not given.
    #[arg(long, env = "LUDOTHEQUE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Seconds the whole exchange may take.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=300))]
    pub timeout_secs: u64,
    /// Say how it went: a line on standard output when healthy, the reason on standard
    /// error when not.
    #[arg(long, short)]
    pub verbose: bool,
}

#[derive(ClapArgs, Debug, Clone)]
pub struct TitledbArgs {
    /// Base URL of the title data files (versions.txt, versions.json, REGION.json);
    /// repeatable, or comma-separated: each file comes from the first that gives it.
    #[arg(
        long,
        env = "LUDOTHEQUE_TITLEDB_URL",
        value_delimiter = ',',
        default_values_t = [
            "https://raw.githubusercontent.com/blawar/titledb/master".to_string(),
            "https://cdn.jsdelivr.net/gh/blawar/titledb@master".to_string(),
        ]
    )]
    pub titledb_url: Vec<String>,
    /// The region file to fetch, without `.json` (names, publishers, icons).
    #[arg(long, env = "LUDOTHEQUE_TITLEDB_REGION", default_value = "US.en")]
    pub titledb_region: String,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the service (the default command).
    ///
    /// Run the service (the default command; its flags may also come before it).
    Serve(Box<ServeArgs>),
    /// Scan the library.
    ///
    /// Scan the library in the foreground, or through the server running on the data folder.
    Scan,
    /// Decompress every .nsz to .nsp and .xcz to .xci.
    ///
    /// Convert every .nsz to .nsp and .xcz to .xci in the foreground, or through the server running on the data folder.
    Convert,
    /// Check files against their own records, with the console keys.
    ///
    /// Verify files with the console keys, in the foreground or through the server
    /// running on the data folder: the SHA-256 of every NCA against the record its
    /// CNMT keeps (a .nsz or .xcz as the NCAs it decompresses to, written nowhere).
    ///
    /// A damaged file (an NCA that does not match, is missing or is cut short) is
    /// marked: it is no longer playable, the shop stops offering it and the push asks
    /// before sending it, until a later verify finds it sound or the file changes.
    /// Exits 1 when a file is damaged or cannot be verified (no CNMT, a key missing),
    /// naming each with the reason.
    Verify {
        /// The files to verify, by library key (their path inside the library); none:
        /// every .nsp, .nsz, .xci and .xcz.
        #[arg(value_name = "KEY")]
        files: Vec<String>,
    },
    /// Compress every .nsp to .nsz and .xci to .xcz (needs the keys).
    ///
    /// Compress every .nsp to .nsz and .xci to .xcz in the foreground or through the
    /// server running on the data folder, in nsz's format (what every installer and
    /// nsz read); needs the console keys.
    ///
    /// Each compressed file is decompressed again and every NCA held to its CNMT
    /// record before it takes the original's place; the original goes to the trash
    /// (reason compressed). Skipped, each named with its reason, the run staying a
    /// success: a file already compressed, one whose key revision the keys lack, one
    /// that would gain less than --min-gain. Exits 1 when a file failed (it did not
    /// verify, the disk is full), naming each with the reason; its original stays.
    Compress {
        /// The files to compress, by library key (their path inside the library);
        /// none: every .nsp and .xci.
        #[arg(value_name = "KEY")]
        files: Vec<String>,
        /// zstd level, 1 to 22 (default 18, as nsz).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=22))]
        level: Option<i32>,
        /// One zstd stream per NCA instead of independent blocks: a little smaller,
        /// decompressed on one core.
        #[arg(long)]
        solid: bool,
        /// Leave a file as it is when compressing saves less than P percent of its
        /// size (default 2).
        #[arg(long, value_name = "P", value_parser = clap::value_parser!(u32).range(0..=100))]
        min_gain: Option<u32>,
        /// Delete each original once its compressed file is verified and in its place,
        /// instead of keeping it in the trash (where it frees nothing until purged).
        #[arg(long)]
        delete_originals: bool,
    },
    /// Move identified files to their template's place (undoable).
    ///
    /// Move each identified file to the place --organize-template gives it, inside
    /// the library, in the foreground or through the server running on the data
    /// folder; every run is journaled and can be undone.
    Organize {
        /// List every move (and every file whose place is taken); move nothing.
        #[arg(long, conflicts_with_all = ["list", "undo"])]
        dry_run: bool,
        /// List the runs: number, date, template, files moved and moved back.
        #[arg(long, conflicts_with = "undo")]
        list: bool,
        /// Put every file run RUN moved back where it was (the newest run first, when
        /// several moved the same file).
        #[arg(long, value_name = "RUN")]
        undo: Option<i64>,
    },
    /// Move superseded updates and duplicate copies to the trash.
    ///
    /// Move superseded updates and duplicate copies to the trash (reasons superseded
    /// and duplicate), in the foreground or through the server running on the data
    /// folder; --dry-run only lists them.
    Dedupe {
        /// List what would move, and the copy that stays; move nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Title data: the updates and DLC that exist.
    ///
    /// Title data: which updates and DLC exist, and what the library lacks (import,
    /// update, status, ignore).
    Titles {
        #[command(subcommand)]
        command: TitlesCommand,
    },
    /// List the updates and DLC the library lacks, by title.
    Missing {
        /// Only updates or only DLC.
        #[arg(long, value_enum)]
        kind: Option<MissingKind>,
    },
    /// Write a small synthetic library into DIR, to try the service.
    ///
    /// Its title IDs are real and its names made up. Its title data goes beside it,
    /// into DIR-titledb (versions.txt, versions.json, US.en.json), and is imported
    /// into the data folder when that has no title data yet; a data folder with
    /// title data keeps it.
    DemoLibrary {
        /// Where to write it (created when missing).
        dir: PathBuf,
    },
    /// List, add or remove the library's folders
    Library {
        #[command(subcommand)]
        command: LibraryCommand,
    },
    /// List, restore or purge what is in the trash.
    Trash {
        #[command(subcommand)]
        command: TrashCommand,
    },
    /// Configure the handheld (a Switch running a network installer).
    Device {
        #[command(subcommand)]
        command: DeviceCommand,
    },
    /// The push list: games waiting to be offered to the handheld.
    ///
    /// The push list: games waiting to be offered to the handheld (POST /api/v1/push
    /// offers them; the service must be running, the console downloads from it).
    Push {
        #[command(subcommand)]
        command: PushCommand,
    },
    /// The console keys (prod.keys): import, check, status.
    ///
    /// The console keys (prod.keys, from your own console): check and import a file,
    /// or show what the keys give and what the library lacks.
    Keys {
        #[command(subcommand)]
        command: ConsoleKeysCommand,
    },
    /// Copy the database and the saves to FILE while the service runs.
    ///
    /// Copy the database to FILE while the service runs (SQLite online backup), and
    /// the consoles' save backups to the folder FILE-saves beside it; the console
    /// keys file (prod.keys) is not in the copy.
    Backup {
        /// Where to write the copy (must not exist yet).
        file: PathBuf,
    },
    /// Ask a running service whether it is healthy (exit 0 or 1).
    ///
    /// Ask a running service whether it is healthy (GET /api/v1/health): exit 0 when
    /// it is, 1 otherwise; the container's probe.
    ///
    /// Prints nothing unless --verbose is given, and opens no data folder: it only
    /// speaks HTTP to the service, at --url or where `serve` listens (--listen,
    /// LUDOTHEQUE_LISTEN; an address of every interface, 0.0.0.0 or ::, is asked on
    /// loopback).
    Health(HealthArgs),
    /// Print a shell completion script.
    ///
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell to write the script for.
        shell: clap_complete::Shell,
    },
    /// Manage the API keys of the public API (/api/v1/).
    Apikey {
        #[command(subcommand)]
        command: ApikeyCommand,
    },
    /// Manage the consoles allowed to pull from the shop.
    ///
    /// Manage the consoles allowed to pull from the shop (a password each, sent by the
    /// console's installer with HTTP Basic; it opens the shop and nothing else).
    Console {
        #[command(subcommand)]
        command: ConsoleCommand,
    },
    /// Manage the accounts of the web interface.
    ///
    /// Manage the accounts of the web interface (passwords are read from the terminal,
    /// or from standard input when it is not one; never from the command line).
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum ConsoleKeysCommand {
    /// Check a keys file and copy it into place.
    ///
    /// Check a keys file (prod.keys as Lockpick_RCM writes it) and copy it into place
    /// atomically, readable by the service's user only; a malformed file is refused
    /// with its line number and the previous file stays as it was.
    Import {
        /// The file to import.
        file: PathBuf,
    },
    /// Which keys are there, and which the library needs.
    ///
    /// Which keys are present, derived or missing per key revision (never a key's
    /// value), and which revisions the library's files need.
    Status,
}

#[derive(Subcommand, Debug)]
pub enum ConsoleCommand {
    /// Add a console and print its password, once.
    ///
    /// Add a console and print its password, once: only its hash is kept.
    Add {
        /// The console's name, which its installer sends as the user name (no `:`).
        name: String,
    },
    /// List the consoles: name, creation, last use.
    List,
    /// Remove a console: its password stops working at once.
    Remove {
        /// The console's name.
        name: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create an account (a viewer unless --admin).
    ///
    /// Create an account (a viewer unless --admin), its pages in the command line's
    /// language (the locale's; Settings changes it).
    Add {
        /// The account's name.
        name: String,
        /// The account may change things, not only look.
        #[arg(long)]
        admin: bool,
    },
    /// Set an account's password; its open sessions end.
    Passwd {
        /// The account's name.
        name: String,
    },
    /// List the accounts: name, role, language, creation.
    List,
    /// Delete an account; its sessions end at once.
    Delete {
        /// The account's name.
        name: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum TitlesCommand {
    /// Import title data files (versions.txt, versions.json, regions).
    ///
    /// Import title data files (blawar/titledb): versions.txt, versions.json and region
    /// files such as US.en.json, any subset in any order, in one transaction.
    /// Imported names win over names taken from file names.
    Import {
        /// The files; which is which is told by its name.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Fetch the title data and import it.
    ///
    /// Fetch the title data files from --titledb-url (conditionally: unchanged files
    /// are not downloaded again) and import them; the last good data is kept when the
    /// source is down or answers garbage.
    Update(TitledbArgs),
    /// How old the title data is, and what the library lacks.
    ///
    /// How old the title data is, what it holds, and what the library lacks.
    Status,
    /// Stop counting a title's missing DLC or updates.
    ///
    /// Stop counting a title's missing DLC (--dlc) or updates (--updates), or both;
    /// without a title ID, for every title.
    Ignore(IgnoreArgs),
    /// Count again what `ignore` stopped counting.
    Unignore(IgnoreArgs),
}

#[derive(clap::Args, Debug)]
pub struct IgnoreArgs {
    /// The base game's title ID (16 hex digits); none for every title.
    pub title_id: Option<String>,
    /// Missing DLC.
    #[arg(long)]
    pub dlc: bool,
    /// Available updates.
    #[arg(long)]
    pub updates: bool,
}

#[derive(Subcommand, Debug)]
pub enum DeviceCommand {
    /// Set the console's address.
    ///
    /// Set the console's address (and optionally its port, name, and the address the
    /// console should use to reach this service; detected when not given).
    Set {
        /// The console's address (a name or an IP address).
        #[arg(long)]
        host: String,
        /// The port its network installer listens on.
        #[arg(long, default_value_t = 2000)]
        port: u16,
        /// The name the interface gives the console.
        #[arg(long, default_value = "Switch")]
        name: String,
        /// The address the console reaches this service at (detected when not given).
        #[arg(long)]
        offer_address: Option<String>,
    },
    /// Show the device and what waits to be pushed.
    Show,
    /// Forget the device.
    Clear,
}

#[derive(Subcommand, Debug)]
pub enum PushCommand {
    /// Add a game, or a whole title, to the push list.
    ///
    /// Add a game by its key, or with --title a title ID: its base game, latest update
    /// and all its DLC.
    Add {
        /// The game's key (its path in the library), or with --title a title ID.
        key: String,
        /// KEY is a title ID: add its base game, latest update and all its DLC.
        #[arg(long)]
        title: bool,
    },
    /// List the pending games.
    List,
    /// Remove a game from the list.
    Remove {
        /// The game's key.
        key: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum LibraryCommand {
    /// List the library's folders.
    ///
    /// List each folder: its name (a further folder's files have keys NAME/…), state
    /// (online; offline: missing or empty; not readable), files and size, free space
    /// on its disk, filesystem (the watch polls network ones), whether --library gives
    /// it or an admin added it, and where it is.
    List,
    /// Add a folder to the library, and scan it.
    ///
    /// Add a folder (an existing one) as the library's top-level folder NAME (by
    /// default the folder's own name), remembered across restarts, and scan it.
    /// Through the running service when there is one, at once, without a restart.
    Add {
        /// The folder, as NAME=DIR or DIR.
        #[arg(value_name = "[NAME=]DIR")]
        folder: String,
    },
    /// Take an added folder out of the library.
    ///
    /// Its games leave the library (and the push list and trash entries with them);
    /// nothing on disk is touched. A folder --library gives stays: remove the flag.
    Remove {
        /// The folder's name, as `library list` shows it.
        name: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum TrashCommand {
    /// List the trash's entries.
    ///
    /// List the entries: id, key, reason, size, deleted and expiry dates (in the
    /// host's zone, with its offset).
    List,
    /// Put an entry back at its key, or under another name.
    ///
    /// Put an entry back at its key (refused when the key is occupied), or with --as
    /// NAME under another file name in the same folder
    Restore {
        /// The id shown by `trash list`.
        id: i64,
        /// Put it back under this file name instead, in its original folder (a name
        /// only, with the file's extension; never over an existing file).
        #[arg(long = "as", value_name = "NAME")]
        as_name: Option<String>,
    },
    /// Delete for good: one entry, the expired ones, or all.
    Purge {
        /// The id shown by `trash list`.
        #[arg(conflicts_with_all = ["expired", "all"], required_unless_present_any = ["expired", "all"])]
        id: Option<i64>,
        /// Every entry past its retention.
        #[arg(long, conflicts_with = "all")]
        expired: bool,
        /// Every entry.
        #[arg(long)]
        all: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum ApikeyCommand {
    /// Create a key and print it, once: only its hash is kept.
    Create {
        /// What the key is for (e.g. nightly-scan).
        name: String,
        /// The key may read but not start tasks.
        #[arg(long)]
        read_only: bool,
    },
    /// List the keys: id, name, prefix, creation, last use, state.
    List,
    /// Revoke a key by its id; it stays listed as revoked.
    Revoke {
        /// The id shown by `apikey list`.
        id: i64,
    },
}

/// `--local-access`: which programs of this machine the loopback rule admits
/// (`config::LocalAccess`, with the uids of `users`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalAccessChoice {
    Users,
    Any,
    Off,
}

/// A flag that takes one of a fixed set of words takes the enum itself: clap
/// refuses any other spelling (in French, `cli::words`), and nothing after it
/// parses the text again. The values carry no help of their own, so the man pages
/// list them as before and `cli::help_fr` gives their French.
macro_rules! choices {
    ($($name:ty: $all:expr, $spell:expr;)+) => {
        $(impl ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                $all
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                let spell: fn(&$name) -> &'static str = $spell;
                Some(PossibleValue::new(spell(self)))
            }
        })+
    };
}

choices! {
    WatchMode: WatchMode::ALL, |w| w.as_str();
    DedupeKeep: DedupeKeep::ALL, |k| k.as_str();
    MissingKind: MissingKind::ALL, |k| k.as_str();
    LocalAccessChoice: &[LocalAccessChoice::Users, LocalAccessChoice::Any, LocalAccessChoice::Off],
        |c| match c {
            LocalAccessChoice::Users => "users",
            LocalAccessChoice::Any => "any",
            LocalAccessChoice::Off => "off",
        };
}
