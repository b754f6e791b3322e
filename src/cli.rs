//! The command line: clap types and dispatch. What the commands print is French and
//! is not translated (product decision); flags, commands and logs are English.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args as ClapArgs, Parser, Subcommand};
use log::LevelFilter;

use rusqlite::Connection;

use crate::config::Config;
use crate::error::Error;
use crate::jobs::{self, Jobs, Task};
use crate::library::{self, demo, titledb};
use crate::store::{self, api_keys, db, titles, users};
use crate::{accounts, convert, device, http, keys, time, trash};

/// `println!` for every line the commands print: control characters in what it
/// carries (file names, key and account names, a console's user agent) are escaped,
/// so that no outside string can break a listing or pass for another line.
macro_rules! say {
    () => {
        println!()
    };
    ($($arg:tt)*) => {
        println!("{}", crate::text::printable(&format!($($arg)*)))
    };
}

#[derive(Parser, Debug)]
#[command(
    name = "ludotheque",
    version,
    about = "Ludothèque: a self-hosted manager for a library of Nintendo Switch game files"
)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
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

/// Flags every command takes.
#[derive(ClapArgs, Debug, Clone)]
pub struct GlobalArgs {
    /// Data folder: the database and the lock file.
    #[arg(long, global = true, env = "LUDOTHEQUE_DATA", default_value = "./data")]
    pub data: PathBuf,
    /// Library root: the game files (created when missing).
    #[arg(
        long,
        global = true,
        env = "LUDOTHEQUE_LIBRARY",
        default_value = "./library"
    )]
    pub library: PathBuf,
    /// Log level on standard error: error, warn, info, debug, trace or off.
    #[arg(
        long,
        global = true,
        env = "LUDOTHEQUE_LOG_LEVEL",
        default_value = "info"
    )]
    pub log_level: LevelFilter,
}

#[derive(ClapArgs, Debug, Clone)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0 picks a free port).
    #[arg(long, env = "LUDOTHEQUE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
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
    /// closes its connection.
    #[arg(long, env = "LUDOTHEQUE_REQUEST_TIMEOUT_SECS", default_value_t = 10)]
    pub request_timeout_secs: u64,
    /// Largest request body accepted, in bytes (larger: 413).
    #[arg(long, env = "LUDOTHEQUE_MAX_BODY", default_value_t = 1024 * 1024)]
    pub max_body: usize,
    /// Turn off the loopback rule (keyless requests from this machine get full access).
    #[arg(long, env = "LUDOTHEQUE_NO_LOCAL_ACCESS")]
    pub no_local_access: bool,
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
    /// Days a trashed file is kept before it is purged (at start, then daily).
    #[arg(long, env = "LUDOTHEQUE_TRASH_RETENTION_DAYS", default_value_t = 30)]
    pub trash_retention_days: u32,
    /// A push ends after this many seconds without a request from the console.
    #[arg(long, env = "LUDOTHEQUE_PUSH_TIMEOUT_SECS", default_value_t = 600)]
    pub push_timeout_secs: u64,
    /// Keep a converted file even when its NCAs do not match their content IDs.
    #[arg(long, env = "LUDOTHEQUE_CONVERT_ACCEPT_UNVERIFIED")]
    pub convert_accept_unverified: bool,
    /// Proxies whose `X-Forwarded-Proto: https` is believed: the session cookie is then
    /// marked `Secure` (comma-separated addresses).
    #[arg(
        long,
        env = "LUDOTHEQUE_TRUSTED_PROXY",
        value_delimiter = ',',
        default_value = "127.0.0.1,::1"
    )]
    pub trusted_proxy: Vec<std::net::IpAddr>,
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
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the service (the default when no command is named).
    Serve(ServeArgs),
    /// Scan the library in the foreground (refused while a server uses the data folder).
    Scan,
    /// Convert every .nsz to .nsp and .xcz to .xci in the foreground.
    Convert,
    /// Import game names from a title database.
    Titles {
        #[command(subcommand)]
        command: TitlesCommand,
    },
    /// Write a small synthetic library into DIR, to try the service.
    DemoLibrary {
        /// Where to write it (created when missing).
        dir: PathBuf,
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
    /// The push list: games waiting to be offered to the handheld (POST /api/v1/push
    /// offers them; the service must be running, the console downloads from it).
    Push {
        #[command(subcommand)]
        command: PushCommand,
    },
    /// Copy the database to FILE while the service runs (SQLite online backup).
    Backup {
        /// Where to write the copy (must not exist yet).
        file: PathBuf,
    },
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
    /// Manage the accounts of the web interface (passwords are read from the terminal,
    /// or from standard input when it is not one; never from the command line).
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create an account (a viewer unless --admin).
    Add {
        name: String,
        /// The account may change things, not only look.
        #[arg(long)]
        admin: bool,
    },
    /// Set an account's password; its open sessions end.
    Passwd { name: String },
    /// List the accounts: name, role, language, creation.
    List,
    /// Delete an account; its sessions end at once.
    Delete { name: String },
}

#[derive(Subcommand, Debug)]
pub enum TitlesCommand {
    /// Read a JSON title database (blawar/titledb layout: an object of entries with
    /// `id` and `name`); imported names win over names taken from file names.
    Import {
        /// The JSON file.
        file: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
pub enum DeviceCommand {
    /// Set the console's address (and optionally its port, name, and the address the
    /// console should use to reach this service; detected when not given).
    Set {
        #[arg(long)]
        host: String,
        #[arg(long, default_value_t = 2000)]
        port: u16,
        #[arg(long, default_value = "Switch")]
        name: String,
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
    /// Add a game by its key, or with --title a title ID: its base game, latest update
    /// and all its DLC.
    Add {
        key: String,
        #[arg(long)]
        title: bool,
    },
    /// List the pending games.
    List,
    /// Remove a game from the list.
    Remove { key: String },
}

#[derive(Subcommand, Debug)]
pub enum TrashCommand {
    /// List the entries: id, key, reason, size, deleted and expiry dates.
    List,
    /// Put an entry back at its key (refused when the key is occupied).
    Restore {
        /// The id shown by `trash list`.
        id: i64,
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

/// Logs go to standard error, in English; standard output is kept for the one
/// `listening on` line and for the commands' own output.
pub fn init_logging(args: &Args) {
    let config = simplelog::ConfigBuilder::new()
        .set_target_level(LevelFilter::Off)
        .set_thread_level(LevelFilter::Off)
        .build();
    let level = args.global.log_level;
    let inner = simplelog::WriteLogger::new(level, config, std::io::stderr());
    if log::set_boxed_logger(Box::new(OneLine(inner))).is_ok() {
        log::set_max_level(level);
    }
}

/// The log, one line per record whatever it carries: control characters in a message
/// (a file name with a newline, a user agent with an escape sequence) are escaped
/// here, for every line at once, so no outside string can forge a log line.
struct OneLine(Box<simplelog::WriteLogger<std::io::Stderr>>);

impl log::Log for OneLine {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        self.0.enabled(metadata)
    }

    fn log(&self, record: &log::Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let text = record.args().to_string();
        let text = crate::text::printable(&text);
        self.0.log(
            &log::Record::builder()
                .args(format_args!("{text}"))
                .level(record.level())
                .target(record.target())
                .module_path(record.module_path())
                .file(record.file())
                .line(record.line())
                .build(),
        );
    }

    fn flush(&self) {
        self.0.flush()
    }
}

/// Run the command; the caller prints the error (see [`french`]).
pub fn run(args: Args) -> Result<(), Error> {
    match &args.command {
        None => serve(&args.global, &ServeArgs::from_env()),
        Some(Command::Serve(serve_args)) => serve(&args.global, serve_args),
        Some(Command::Apikey { command }) => apikey(&args.global, command),
        Some(Command::User { command }) => user_command(&args.global, command),
        Some(Command::Scan) => foreground(&args.global, Task::Scan),
        Some(Command::Convert) => foreground(&args.global, Task::Convert),
        Some(Command::Trash { command }) => trash_command(&args.global, command),
        Some(Command::Backup { file }) => backup(&args.global, file),
        Some(Command::Device { command }) => device_command(&args.global, command),
        Some(Command::Push { command }) => push_command(&args.global, command),
        Some(Command::Completions { shell }) => {
            let mut command = <Args as clap::CommandFactory>::command();
            clap_complete::generate(*shell, &mut command, "ludotheque", &mut std::io::stdout());
            Ok(())
        }
        Some(Command::Titles {
            command: TitlesCommand::Import { file },
        }) => import_titles(&args.global, file),
        Some(Command::DemoLibrary { dir }) => {
            let n = demo::write(dir)?;
            say!(
                "Bibliothèque de démonstration écrite dans {} : {n} fichiers.",
                dir.display()
            );
            say!(
                "Lancez « ludotheque --library {} serve » pour l'essayer.",
                dir.display()
            );
            Ok(())
        }
    }
}

/// Open the database of the data folder for a command (creating and migrating it).
fn open_store(global: &GlobalArgs) -> Result<Connection, Error> {
    db::make_private(&global.data).map_err(|e| {
        Error::bad_request("le dossier de données ne peut pas être créé").with_cause(e)
    })?;
    db::open_and_migrate(&global.data)
}

/// Run one task in the foreground, with a progress bar on a terminal. Ctrl-C cancels
/// the task at its next safe point.
fn foreground(global: &GlobalArgs, task: Task) -> Result<(), Error> {
    let config = Config::new(global, &ServeArgs::from_env())?;
    let _lock = db::lock_data(&config.data)?;
    let conn = db::open_and_migrate(&config.data)?;
    convert::clean_leftover(&conn, &config.library)?;
    store::games::ensure_search_index(&conn)?;
    http::server::catch_file_size_signal()?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let (jobs, thread) = Jobs::start(&config, jobs::run_task)?;
    jobs.try_start(task)?;
    let tty = std::io::stderr().is_terminal();
    while jobs.snapshot().running {
        if stop.load(Ordering::SeqCst) {
            jobs.cancel();
        }
        if tty {
            eprint!("\r{}\x1b[K", progress_line(&jobs.snapshot()));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if tty {
        eprintln!();
    }
    let last = jobs.snapshot().last;
    jobs.stop();
    let _ = thread.join();
    let Some(run) = last else {
        return Err(Error::internal("the task left no result"));
    };
    let unit = if task.unit() == "bytes" {
        "octets"
    } else {
        "fichiers"
    };
    let errors = match run.errors {
        0 => "aucune erreur".to_string(),
        1 => "1 erreur (voir le journal)".to_string(),
        n => format!("{n} erreurs (voir le journal)"),
    };
    match run.result.as_str() {
        "ok" => {
            say!(
                "Tâche {} terminée : {} {unit} sur {}, {errors}.",
                run.label,
                run.done,
                run.total
            );
            Ok(())
        }
        "cancelled" | "interrupted" => Err(Error::bad_request(format!(
            "la tâche {} a été interrompue ({} {unit} sur {})",
            run.label, run.done, run.total
        ))),
        _ => Err(Error::bad_request(format!(
            "la tâche {} a échoué : {}",
            run.label, run.message
        ))),
    }
}

fn progress_line(s: &jobs::Snapshot) -> String {
    const WIDTH: u64 = 30;
    let filled = (s.done * WIDTH)
        .checked_div(s.total)
        .unwrap_or(0)
        .min(WIDTH) as usize;
    let detail: String = crate::text::printable(&s.detail).chars().take(50).collect();
    format!(
        "[{}{}] {}/{} {}",
        "#".repeat(filled),
        ".".repeat(WIDTH as usize - filled),
        s.done,
        s.total,
        detail
    )
}

fn import_titles(global: &GlobalArgs, file: &Path) -> Result<(), Error> {
    let conn = open_store(global)?;
    let input = std::fs::File::open(file).map_err(|e| {
        Error::bad_request(format!(
            "le fichier {} ne peut pas être ouvert",
            file.display()
        ))
        .with_cause(e)
    })?;
    let tx = conn.unchecked_transaction()?;
    let mut count = 0usize;
    let mut failed = None;
    titledb::read(std::io::BufReader::new(input), |id, name| {
        if failed.is_none() {
            match titles::upsert(&tx, &id, &name) {
                Ok(()) => count += 1,
                Err(e) => failed = Some(e),
            }
        }
    })
    .map_err(|e| {
        Error::bad_request(format!(
            "{} n'est pas une base de titres JSON lisible : {e}",
            file.display()
        ))
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    let renamed = library::rename_from_titles(&tx)?;
    tx.commit()?;
    say!("{count} titres importés ; {renamed} jeux renommés.");
    Ok(())
}

fn device_command(global: &GlobalArgs, command: &DeviceCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        DeviceCommand::Set {
            host,
            port,
            name,
            offer_address,
        } => {
            device::configure(&conn, name, host, *port, offer_address.as_deref())
                .map_err(|e| Error::bad_request(format!("réglage refusé : {}", e.message)))?;
            say!("Console « {name} » réglée sur {host}:{port}.");
        }
        DeviceCommand::Show => match store::device::get(&conn)? {
            None => say!("Aucune console n'est réglée."),
            Some(d) => {
                let pending = store::push_list::list(&conn)?;
                say!("Console : {} ({}:{})", d.name, d.host, d.port);
                say!(
                    "Adresse offerte : {}",
                    d.offer_address
                        .as_deref()
                        .unwrap_or("détectée à chaque envoi")
                );
                say!(
                    "Dernier envoi : {}",
                    d.last_push
                        .map(time::rfc3339)
                        .unwrap_or_else(|| "jamais".into())
                );
                say!(
                    "Dernier résultat : {}",
                    d.last_result.as_deref().unwrap_or("aucun")
                );
                say!("Client vu : {}", d.client.as_deref().unwrap_or("aucun"));
                say!(
                    "En attente : {} jeu(x), {} octets",
                    pending.len(),
                    pending.iter().map(|p| p.1).sum::<u64>()
                );
            }
        },
        DeviceCommand::Clear => {
            store::device::clear(&conn)?;
            say!("Console oubliée.");
        }
    }
    Ok(())
}

fn push_command(global: &GlobalArgs, command: &PushCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        PushCommand::Add { key, title: false } => {
            device::add_game(&conn, key)
                .map_err(|_| Error::not_found(format!("aucun jeu n'a la clé « {key} »")))?;
            say!("Ajouté à la liste d'envoi : {key}");
        }
        PushCommand::Add { key, title: true } => {
            let keys = device::add_title(&conn, key).map_err(|_| {
                Error::not_found(format!("la bibliothèque n'a rien du titre « {key} »"))
            })?;
            for k in keys {
                say!("Ajouté à la liste d'envoi : {k}");
            }
        }
        PushCommand::List => {
            let items = store::push_list::list(&conn)?;
            if items.is_empty() {
                say!("La liste d'envoi est vide.");
            }
            for (key, size) in items {
                say!("{size:>12} octets  {key}");
            }
        }
        PushCommand::Remove { key } => {
            if !store::push_list::remove(&conn, key)? {
                return Err(Error::not_found(format!(
                    "« {key} » n'est pas dans la liste d'envoi"
                )));
            }
            say!("Retiré de la liste d'envoi : {key}");
        }
    }
    Ok(())
}

/// An online backup: consistent even while a server writes, without stopping it.
fn backup(global: &GlobalArgs, file: &Path) -> Result<(), Error> {
    if file.exists() {
        return Err(Error::conflict(format!(
            "{} existe déjà ; choisissez un autre fichier",
            file.display()
        )));
    }
    let conn = open_store(global)?;
    // The copy holds password hashes too: private from its first byte.
    {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(file)
            .map_err(|e| {
                Error::bad_request(format!("{} ne peut pas être créé", file.display()))
                    .with_cause(e)
            })?;
    }
    conn.backup(
        rusqlite::MAIN_DB,
        file,
        None::<fn(rusqlite::backup::Progress)>,
    )
    .map_err(|e| {
        Error::bad_request(format!("la sauvegarde vers {} a échoué", file.display())).with_cause(e)
    })?;
    say!("Base de données sauvegardée dans {}.", file.display());
    Ok(())
}

fn trash_command(global: &GlobalArgs, command: &TrashCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    let root = global.library.canonicalize().map_err(|e| {
        Error::bad_request("le dossier de la bibliothèque est introuvable").with_cause(e)
    })?;
    let french = |e: Error| match e.slug {
        "not_found" => Error::not_found(
            "aucune entrée de la corbeille n'a cet identifiant (voir « ludotheque trash list »)",
        ),
        "conflict" => {
            Error::conflict("un fichier occupe déjà cet emplacement ; rien n'a été déplacé")
        }
        _ => e,
    };
    match command {
        TrashCommand::List => {
            let rows = store::trash::list(&conn)?;
            if rows.is_empty() {
                say!("La corbeille est vide.");
            }
            for r in &rows {
                say!(
                    "{:<5} {:<10} {:>12} octets  supprimé le {}  expire le {}  {}",
                    r.id,
                    r.reason,
                    r.size,
                    time::rfc3339(r.deleted_at),
                    time::rfc3339(r.expires_at),
                    r.key
                );
            }
            let bytes: u64 = rows.iter().map(|r| r.size).sum();
            say!("{} entrée(s), {bytes} octets.", rows.len());
        }
        TrashCommand::Restore { id } => {
            let row = trash::restore(&conn, &root, *id).map_err(french)?;
            say!("Restauré : {}", row.key);
        }
        TrashCommand::Purge { id: Some(id), .. } => {
            let row = trash::purge(&conn, &root, *id).map_err(french)?;
            say!("Supprimé définitivement : {}", row.key);
        }
        TrashCommand::Purge { expired: true, .. } => {
            let n = trash::purge_expired(&conn, &root, time::now())?;
            say!("{n} entrée(s) expirée(s) supprimée(s) définitivement.");
        }
        TrashCommand::Purge { .. } => {
            let rows = store::trash::list(&conn)?;
            for r in &rows {
                trash::purge(&conn, &root, r.id)?;
            }
            say!("{} entrée(s) supprimée(s) définitivement.", rows.len());
        }
    }
    Ok(())
}

fn apikey(global: &GlobalArgs, command: &ApikeyCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        ApikeyCommand::Create { name, read_only } => {
            if crate::text::check_name("", name.trim()).is_err() {
                return Err(Error::bad_request(
                    "une clé a besoin d'un nom qui dit à quoi elle sert : de 1 à 64 \
                     caractères, sans caractère de contrôle (retour à la ligne, tabulation)",
                ));
            }
            let new = keys::create(&conn, name, *read_only)?;
            let access = if *read_only {
                "lecture seule"
            } else {
                "complet"
            };
            say!(
                "Clé d'API créée : {} (id {}, accès {access})",
                new.key.name,
                new.key.id
            );
            say!();
            say!("    {}", new.secret);
            say!();
            say!(
                "Cette clé n'est conservée que sous forme d'empreinte (SHA-256) : elle ne \
                 pourra plus jamais être affichée. Copiez-la maintenant."
            );
        }
        ApikeyCommand::List => {
            let keys = api_keys::list(&conn)?;
            if keys.is_empty() {
                say!("Aucune clé d'API.");
            }
            for (i, k) in keys.iter().enumerate() {
                if i == 0 {
                    say!(
                        "{:<4} {:<24} {:<9} {:<14} {:<21} {:<21} ÉTAT",
                        "ID",
                        "NOM",
                        "PRÉFIXE",
                        "ACCÈS",
                        "CRÉÉE",
                        "DERNIÈRE UTILISATION"
                    );
                }
                say!(
                    "{:<4} {:<24} {:<9} {:<14} {:<21} {:<21} {}",
                    k.id,
                    k.name,
                    k.prefix,
                    if k.read_only {
                        "lecture seule"
                    } else {
                        "complet"
                    },
                    time::rfc3339(k.created_at),
                    k.last_used_at
                        .map(time::rfc3339)
                        .unwrap_or_else(|| "jamais".into()),
                    match k.revoked_at {
                        Some(t) => format!("révoquée le {}", time::rfc3339(t)),
                        None => "active".into(),
                    }
                );
            }
        }
        ApikeyCommand::Revoke { id } => {
            let Some(key) = api_keys::get(&conn, *id)? else {
                return Err(Error::not_found(format!(
                    "aucune clé d'API n'a l'identifiant {id} (voir « ludotheque apikey list »)"
                )));
            };
            if api_keys::revoke(&conn, *id, time::now())? {
                say!(
                    "Clé d'API révoquée : {} (id {id}, {})",
                    key.name,
                    key.prefix
                );
            } else {
                say!("La clé d'API {} (id {id}) était déjà révoquée.", key.name);
            }
        }
    }
    Ok(())
}

fn user_command(global: &GlobalArgs, command: &UserCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        UserCommand::Add { name, admin } => {
            let password = read_password()?;
            let role = if *admin { "admin" } else { "viewer" };
            accounts::add(&conn, name, &password, role).map_err(account_error_in_french)?;
            let role = if *admin { "administrateur" } else { "lecteur" };
            say!("Compte créé : {name} ({role})");
        }
        UserCommand::Passwd { name } => {
            if users::by_name(&conn, name)?.is_none() {
                return Err(Error::not_found(format!(
                    "aucun compte ne s'appelle {name} (voir « ludotheque user list »)"
                )));
            }
            let password = read_password()?;
            let ended =
                accounts::set_password(&conn, name, &password).map_err(account_error_in_french)?;
            say!("Mot de passe changé pour {name} ; sessions fermées : {ended}");
        }
        UserCommand::Delete { name } => {
            if !users::delete(&conn, name)? {
                return Err(Error::not_found(format!(
                    "aucun compte ne s'appelle {name} (voir « ludotheque user list »)"
                )));
            }
            say!("Compte supprimé : {name}");
        }
        UserCommand::List => {
            let list = users::list(&conn)?;
            if list.is_empty() {
                say!("Aucun compte.");
            }
            for (i, u) in list.iter().enumerate() {
                if i == 0 {
                    say!("{:<24} {:<7} {:<6} CRÉÉ", "NOM", "RÔLE", "LANGUE");
                }
                say!(
                    "{:<24} {:<7} {:<6} {}",
                    u.name,
                    u.role,
                    u.lang,
                    time::rfc3339(u.created_at)
                );
            }
        }
    }
    Ok(())
}

/// The command line speaks French; the account rules' own messages are English.
fn account_error_in_french(e: Error) -> Error {
    match e.slug {
        "conflict" => Error::conflict("un compte porte déjà ce nom (sans compter les majuscules)"),
        "bad_request" => Error::bad_request(format!(
            "refusé : un nom a de 1 à 64 caractères, sans espace au début ni à la fin ; \
             un mot de passe a au moins {} caractères",
            accounts::MIN_PASSWORD
        )),
        _ => e,
    }
}

/// A new password: asked twice on a terminal (without echo), or the first line of
/// standard input when it is not a terminal (for scripts).
fn read_password() -> Result<String, Error> {
    use std::io::BufRead;
    let failed = |e: std::io::Error| Error::bad_request(format!("lecture du mot de passe : {e}"));
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password("Mot de passe : ").map_err(failed)?;
        let again = rpassword::prompt_password("Encore une fois : ").map_err(failed)?;
        if first != again {
            return Err(Error::bad_request("les deux mots de passe diffèrent"));
        }
        return Ok(first);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(failed)?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

fn serve(global: &GlobalArgs, serve: &ServeArgs) -> Result<(), Error> {
    let config = Config::new(global, serve)?;
    http::server::serve(config)
}

/// The sentence the command line prints for an error, in French.
pub fn french(e: &Error) -> String {
    match e.slug {
        "database_too_new" => "erreur : la base de données a été écrite par une version plus \
             récente de ludotheque ; installez cette version ou une plus récente."
            .to_string(),
        "data_locked" => "erreur : un serveur ludotheque utilise déjà ce dossier de données ; \
             arrêtez-le d'abord, ou passez par l'API."
            .to_string(),
        "internal_error" => "erreur interne : le détail est dans le journal ci-dessus.".into(),
        _ => format!("erreur : {}", e.message),
    }
}
