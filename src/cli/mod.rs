//! The command line: it runs the commands of `args` and prints what they did in
//! French (product decision; flags, commands and logs stay English). Errors are
//! printed through `words`, the only place a message becomes French.

use std::path::Path;

use log::LevelFilter;
use rusqlite::Connection;

use crate::args::{Args, Command, GlobalArgs, ServeArgs};
use crate::config::Config;
use crate::error::{Error, Msg};
use crate::jobs::Task;
use crate::library::demo;
use crate::service::Service;
use crate::store::db;

/// `println!` for every line the commands print: control characters in what it
/// carries (file names, key and account names, a console's user agent) are escaped,
/// so that no outside string can break a listing or pass for another line; a closed
/// standard output ends the output quietly (see `out`).
macro_rules! say {
    () => {
        crate::cli::out::line("")
    };
    ($($arg:tt)*) => {
        crate::cli::out::line(&crate::text::printable(&format!($($arg)*)))
    };
}

mod admin;
mod console_keys;
mod health;
pub mod help_fr;
mod library;
pub mod out;
mod task;
mod titles;
mod upkeep;
pub mod words;

pub use words::{error_line, report};

/// What `--version` says: the version, the target triple the binary was built for
/// and the commit (`build.rs`). The man pages keep the bare version.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("LUDOTHEQUE_TARGET"),
    ", commit ",
    env!("LUDOTHEQUE_COMMIT"),
    ")"
);

/// The arguments, parsed with the French help (`help_fr`). A usage error, `--help`
/// and `--version` end the process here, as clap does.
pub fn parse() -> Args {
    use clap::FromArgMatches;
    let matches = help_fr::command()
        .version(VERSION)
        .try_get_matches()
        .and_then(|m| Args::from_arg_matches(&m));
    match matches {
        Ok(args) => args,
        Err(e) => words::usage_error(e),
    }
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

/// Whether a failure of this command is printed: `health` is quiet unless asked (a
/// container probe runs every few seconds; its exit status is the answer).
pub fn reports_errors(args: &Args) -> bool {
    match &args.command {
        Some(Command::Health(health)) => health.verbose,
        _ => true,
    }
}

/// Run the command; the caller prints the error (see [`error_line`]).
pub fn run(args: Args) -> Result<(), Error> {
    let global = &args.global;
    match &args.command {
        None => serve(global, &ServeArgs::from_env()),
        Some(Command::Serve(serve_args)) => serve(global, serve_args),
        Some(Command::Apikey { command }) => admin::apikey(global, command),
        Some(Command::User { command }) => admin::user_command(global, command),
        Some(Command::Console { command }) => admin::console_command(global, command),
        Some(Command::Scan) => task::foreground(global, Task::Scan),
        Some(Command::Convert) => task::foreground(global, Task::Convert),
        Some(Command::Verify { files }) => task::foreground_on(global, Task::Verify, files),
        Some(Command::Compress {
            files,
            level,
            solid,
            min_gain,
            delete_originals,
        }) => task::compress(
            global,
            files,
            task::CompressFlags {
                level: *level,
                solid: *solid,
                min_gain: *min_gain,
                delete_originals: *delete_originals,
            },
        ),
        Some(Command::Dedupe { dry_run }) => upkeep::dedupe(global, *dry_run),
        Some(Command::Organize {
            dry_run,
            list,
            undo,
        }) => upkeep::organize(global, *dry_run, *list, *undo),
        Some(Command::Trash { command }) => library::trash_command(global, command),
        Some(Command::Keys { command }) => console_keys::command(global, command),
        Some(Command::Backup { file }) => library::backup(global, file),
        Some(Command::Device { command }) => library::device_command(global, command),
        Some(Command::Push { command }) => library::push_command(global, command),
        Some(Command::Completions { shell }) => {
            // Into memory first: clap_complete panics when its writer fails.
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut help_fr::command(), "ludotheque", &mut script);
            out::write(&script);
            Ok(())
        }
        Some(Command::Health(args)) => health::health(args),
        Some(Command::Titles { command }) => titles::titles_command(global, command),
        Some(Command::Missing { kind }) => titles::missing(global, kind.as_deref()),
        Some(Command::DemoLibrary { dir }) => demo_library(global, dir),
    }
}

/// Write the demo library; import its title data into the data folder when that
/// has none yet (a folder with real title data keeps it).
fn demo_library(global: &GlobalArgs, dir: &Path) -> Result<(), Error> {
    let n = demo::write(dir)?;
    say!(
        "Bibliothèque de démonstration écrite dans {} : {}.",
        dir.display(),
        crate::error::counts::count(n as u64, "fichier", "fichiers")
    );
    let db = open_store(global)?;
    if crate::store::title_catalog::count(&db)? == 0 {
        let inputs = demo::TITLE_DATA
            .iter()
            .map(|(name, text)| crate::titles::Input {
                name: name.to_string(),
                reader: Box::new(text.as_bytes()),
            })
            .collect();
        crate::titles::import(&db, inputs)?;
        say!(
            "Ses données de titres sont importées (dossier de données {}).",
            global.data.display()
        );
    } else {
        say!(
            "Le dossier de données a déjà des données de titres : celles de la démo sont dans {}.",
            demo::title_data_dir(dir).display()
        );
    }
    say!(
        "Lancez « ludotheque --library {} serve » pour l'essayer.",
        dir.display()
    );
    Ok(())
}

/// Open the database of the data folder for a command (creating and migrating it).
fn open_store(global: &GlobalArgs) -> Result<Connection, Error> {
    db::make_private(&global.data)
        .map_err(|e| Error::invalid(Msg::DataFolderPrivate).with_cause(e))?;
    db::open_and_migrate(&global.data)
}

fn serve(global: &GlobalArgs, serve: &ServeArgs) -> Result<(), Error> {
    let config = Config::new(global, serve)?;
    Service::open(&config)?.serve()
}
