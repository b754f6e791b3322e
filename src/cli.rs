//! The command line: clap types and dispatch. What the commands print is French and
//! is not translated (product decision); flags, commands and logs are English.

use std::path::PathBuf;

use clap::{Args as ClapArgs, Parser, Subcommand};
use log::LevelFilter;

use rusqlite::Connection;

use crate::config::Config;
use crate::error::Error;
use crate::store::{api_keys, db};
use crate::{http, keys, time};

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
    /// Requests that may wait for a worker; beyond that new requests get 503.
    #[arg(long, env = "LUDOTHEQUE_QUEUE", default_value_t = 64)]
    pub queue: usize,
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
    /// Manage the API keys of the public API (/api/v1/).
    Apikey {
        #[command(subcommand)]
        command: ApikeyCommand,
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
    let _ = simplelog::WriteLogger::init(args.global.log_level, config, std::io::stderr());
}

/// Run the command; the caller prints the error (see [`french`]).
pub fn run(args: Args) -> Result<(), Error> {
    match &args.command {
        None => serve(&args.global, &ServeArgs::from_env()),
        Some(Command::Serve(serve_args)) => serve(&args.global, serve_args),
        Some(Command::Apikey { command }) => apikey(&args.global, command),
    }
}

/// Open the database of the data folder for a command (creating and migrating it).
fn open_store(global: &GlobalArgs) -> Result<Connection, Error> {
    std::fs::create_dir_all(&global.data).map_err(|e| {
        Error::bad_request("le dossier de données ne peut pas être créé").with_cause(e)
    })?;
    db::open_and_migrate(&global.data)
}

fn apikey(global: &GlobalArgs, command: &ApikeyCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        ApikeyCommand::Create { name, read_only } => {
            if name.trim().is_empty() {
                return Err(Error::bad_request(
                    "une clé a besoin d'un nom qui dit à quoi elle sert",
                ));
            }
            let new = keys::create(&conn, name, *read_only)?;
            let access = if *read_only {
                "lecture seule"
            } else {
                "complet"
            };
            println!(
                "Clé d'API créée : {} (id {}, accès {access})",
                new.key.name, new.key.id
            );
            println!();
            println!("    {}", new.secret);
            println!();
            println!(
                "Cette clé n'est conservée que sous forme d'empreinte (SHA-256) : elle ne \
                 pourra plus jamais être affichée. Copiez-la maintenant."
            );
        }
        ApikeyCommand::List => {
            let keys = api_keys::list(&conn)?;
            if keys.is_empty() {
                println!("Aucune clé d'API.");
            }
            for (i, k) in keys.iter().enumerate() {
                if i == 0 {
                    println!(
                        "{:<4} {:<24} {:<9} {:<14} {:<21} {:<21} ÉTAT",
                        "ID", "NOM", "PRÉFIXE", "ACCÈS", "CRÉÉE", "DERNIÈRE UTILISATION"
                    );
                }
                println!(
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
                println!(
                    "Clé d'API révoquée : {} (id {id}, {})",
                    key.name, key.prefix
                );
            } else {
                println!("La clé d'API {} (id {id}) était déjà révoquée.", key.name);
            }
        }
    }
    Ok(())
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
