//! The command line: it runs the commands of `args` and prints what they did in its
//! language (`out::lang`: French, the product's, unless the locale says English;
//! flags, commands and logs stay English). Every sentence it prints is a message of
//! the catalogue (`error::Msg`, `error::i18n::M`); errors are printed through `words`.

use std::path::Path;

use log::LevelFilter;
use rusqlite::Connection;

use crate::args::{Args, Command, GlobalArgs, ServeArgs, TrashCommand};
use crate::config::Config;
use crate::error::{Error, Line, Msg};
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
mod handoff;
mod health;
pub mod help_fr;
mod library;
pub mod out;
mod progress;
mod report;
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

/// The arguments, parsed with the help in the command line's language (`help_fr`). A usage error, `--help`
/// and `--version` end the process here, as clap does.
pub fn parse() -> Args {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match parse_from(&argv) {
        Ok(args) => args,
        // `serve`'s flags written before the word `serve` (`ludotheque --library DIR
        // --listen ADDR serve`, as a quick start reads): the same line with `serve`
        // first, when that line parses; else the error of the line as written.
        Err((e, Stray::BeforeServe)) => match serve_first(&argv).map(|argv| parse_from(&argv)) {
            Some(Ok(args)) => args,
            _ => words::usage_error(e),
        },
        Err((e, _)) => words::usage_error(e),
    }
}

/// Why a line was refused: `serve`'s flags before the command `serve` itself (the
/// one refusal a reordering mends), or anything else.
enum Stray {
    BeforeServe,
    Other,
}

fn parse_from(argv: &[std::ffi::OsString]) -> Result<Args, (clap::Error, Stray)> {
    use clap::FromArgMatches;
    let other = |e| (e, Stray::Other);
    let mut cmd = help_fr::command().version(VERSION);
    let m = cmd.try_get_matches_from_mut(argv).map_err(other)?;
    serve_flags_alone(&mut cmd, &m).map_err(|e| match m.subcommand_name() {
        Some("serve") => (e, Stray::BeforeServe),
        _ => (e, Stray::Other),
    })?;
    let mut args = Args::from_arg_matches(&m).map_err(other)?;
    args.global.library_given = given(&m, "library");
    Ok(args)
}

/// The command line with its first `serve` moved to the front, when one follows other
/// arguments; asked only of a line whose command was `serve`. Should that first
/// `serve` be a flag's value (`--library serve serve`), the flag takes the next word:
/// the command `serve` itself (the same line), or a flag (refused: no value).
fn serve_first(argv: &[std::ffi::OsString]) -> Option<Vec<std::ffi::OsString>> {
    let at = argv.iter().skip(2).position(|a| a == "serve")? + 2;
    let mut moved = vec![argv[0].clone(), argv[at].clone()];
    moved.extend(argv[1..at].iter().cloned());
    moved.extend(argv[at + 1..].iter().cloned());
    Some(moved)
}

/// `serve`'s flags are the root's too, since no command means `serve`; before
/// another command they mean nothing, and are refused as an unexpected argument.
fn serve_flags_alone(cmd: &mut clap::Command, m: &clap::ArgMatches) -> Result<(), clap::Error> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    use clap::Args as _;
    let Some((name, _)) = m.subcommand() else {
        return Ok(());
    };
    let serve_only = ServeArgs::augment_args(clap::Command::new("serve"));
    let stray = serve_only.get_arguments().find(|a| {
        m.value_source(a.get_id().as_str()) == Some(clap::parser::ValueSource::CommandLine)
    });
    let Some(stray) = stray else {
        return Ok(());
    };
    let mut e = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(cmd);
    let flag = format!("--{}", stray.get_long().unwrap_or_default());
    e.insert(ContextKind::InvalidArg, ContextValue::String(flag));
    if let Some(sub) = cmd.find_subcommand_mut(name) {
        let usage = sub.render_usage();
        e.insert(ContextKind::Usage, ContextValue::StyledStr(usage));
    }
    Err(e)
}

/// A global flag was given, on the command line or by its variable, at any depth.
fn given(m: &clap::ArgMatches, id: &str) -> bool {
    use clap::parser::ValueSource;
    let here = matches!(
        m.value_source(id),
        Some(ValueSource::CommandLine | ValueSource::EnvVariable)
    );
    here || m.subcommand().is_some_and(|(_, sub)| given(sub, id))
}

/// Logs go to standard error, in English, above a foreground task's progress bar
/// (`progress`); standard output is kept for the one `listening on` line and for the
/// commands' own output.
pub fn init_logging(args: &Args) {
    let config = simplelog::ConfigBuilder::new()
        .set_target_level(LevelFilter::Off)
        .set_thread_level(LevelFilter::Off)
        .build();
    let level = args.global.log_level;
    let inner = simplelog::WriteLogger::new(level, config, progress::LogWriter::default());
    if log::set_boxed_logger(Box::new(OneLine(inner))).is_ok() {
        log::set_max_level(level);
    }
}

/// The log, one line per record whatever it carries: control characters in a message
/// (a file name with a newline, a user agent with an escape sequence) are escaped
/// here, for every line at once, so no outside string can forge a log line.
struct OneLine(Box<simplelog::WriteLogger<progress::LogWriter>>);

impl log::Log for OneLine {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        self.0.enabled(metadata)
    }

    fn log(&self, record: &log::Record) {
        // ureq's trace lines hold whole request paths, where Discord's and Telegram's
        // tokens are (`notify::target`): none of them is written, at any level.
        let http_trace = record.level() == log::Level::Trace && record.target().starts_with("ureq");
        if http_trace || !self.enabled(record.metadata()) {
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

/// The process's exit status for an error: 2 for a data folder that does not exist
/// (a mistake of the command line, as a usage error is), 1 for the rest.
pub fn exit_code(e: &Error) -> u8 {
    match e.msg {
        Msg::NoDataFolder { .. } => 2,
        _ => 1,
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
pub fn run(mut args: Args) -> Result<(), Error> {
    prepare(&mut args)?;
    let global = &args.global;
    match &args.command {
        None => serve(global, &args.serve),
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
            crate::jobs::compress::Flags {
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
        Some(Command::Missing { kind }) => titles::missing(global, *kind),
        Some(Command::DemoLibrary { dir }) => demo_library(global, dir),
        Some(Command::Library { command }) => library::library_command(global, command),
    }
}

/// What every command checks first. Only `serve` and `demo-library` create a data
/// folder that does not exist: any other command run in the wrong folder would
/// otherwise create a new empty one and report on it (« Rien ne manque »). An
/// existing empty folder is set up as always, so `user add` before the first start
/// works. Then the library: the service's last one when none is named.
fn prepare(args: &mut Args) -> Result<(), Error> {
    let creates = matches!(
        args.command,
        None | Some(Command::Serve(_)) | Some(Command::DemoLibrary { .. })
    );
    // No database at all: nothing to look at, nothing to create.
    if matches!(
        args.command,
        Some(Command::Completions { .. }) | Some(Command::Health(_))
    ) {
        return Ok(());
    }
    let exists = args.global.data.exists();
    if !exists && !creates {
        return Err(Error::invalid(Msg::NoDataFolder {
            folder: args.global.data.display().to_string(),
        }));
    }
    if exists && uses_library(&args.command) && !args.global.library_given {
        remembered_library(&mut args.global)?;
    }
    Ok(())
}

/// The commands that work on the library's files (the others only on the database).
/// A match, so that a new command does not compile until it is decided here.
fn uses_library(command: &Option<Command>) -> bool {
    let Some(command) = command else {
        return true;
    };
    match command {
        Command::Serve(_)
        | Command::Scan
        | Command::Convert
        | Command::Verify { .. }
        | Command::Compress { .. }
        | Command::Organize { .. }
        | Command::Dedupe { .. } => true,
        Command::Library { .. } => true,
        Command::Trash { command } => match command {
            TrashCommand::Restore { .. } | TrashCommand::Purge { .. } => true,
            TrashCommand::List => false,
        },
        Command::Titles { .. }
        | Command::Missing { .. }
        | Command::DemoLibrary { .. }
        | Command::Device { .. }
        | Command::Push { .. }
        | Command::Keys { .. }
        | Command::Backup { .. }
        | Command::Health(_)
        | Command::Completions { .. }
        | Command::Apikey { .. }
        | Command::Console { .. }
        | Command::User { .. } => false,
    }
}

/// No `--library` given: the folders the service last ran with, when it ran once,
/// said on standard error so that nobody wonders which one a scan read.
fn remembered_library(global: &mut GlobalArgs) -> Result<(), Error> {
    let db = open_store(global)?;
    let Some(path) = crate::store::settings::LIBRARY_PATH.get(&db)? else {
        return Ok(());
    };
    let further = crate::store::settings::LIBRARY_FURTHER.get(&db)?;
    let further = further.iter().flat_map(|lines| lines.lines());
    global.library = std::iter::once(path.as_str())
        .chain(further)
        .map(Into::into)
        .collect();
    let shown: Vec<_> = global
        .library
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let line = out::lang().line(&Line::RememberedLibrary {
        library: shown.join(", "),
    });
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("{}\n", crate::text::printable(&line)).as_bytes(),
    );
    Ok(())
}

/// Write the demo library; import its title data into the data folder when that
/// has none yet (a folder with real title data keeps it).
fn demo_library(global: &GlobalArgs, dir: &Path) -> Result<(), Error> {
    let n = demo::write(dir)?;
    let (dir_shown, data) = (dir.display().to_string(), global.data.display().to_string());
    out::tell(&Line::DemoWritten {
        dir: dir_shown.clone(),
        files: n as u64,
    });
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
        // Only with the demo's own title data: its IDs are real, and a made-up icon
        // must never stand in the cache for a real game's.
        demo_icons(&global.data)?;
        out::tell(&Line::DemoTitleDataImported { data: data.clone() });
    } else {
        let dir = demo::title_data_dir(dir).display().to_string();
        out::tell(&Line::DemoTitleDataKept { dir });
    }
    out::tell(&Line::DemoTryIt {
        data,
        library: dir_shown,
    });
    Ok(())
}

/// A little icon of its own for each base game the demo's title data names, in the
/// data folder's icon cache (which pages serve as covers), unless one is there.
fn demo_icons(data: &Path) -> Result<(), Error> {
    for id in demo::bases_with_icons() {
        let png = demo::icon_png(id.0).map_err(|e| Error::internal("a demo icon").with_cause(e))?;
        crate::titles::icons::save_own(data, id, &png)
            .map_err(|e| Error::internal("a demo icon").with_cause(e))?;
    }
    Ok(())
}

/// The library's folders, as `--library` gives them (or the service last ran with),
/// for a command that only reads or moves files already there (the first must exist).
fn folders(global: &GlobalArgs) -> Result<crate::tree::Folders, Error> {
    let unusable = || {
        Error::invalid(Msg::FolderUnusable {
            what: "library".into(),
        })
    };
    // Not there (a disk away): as given, made absolute; its trash and list still work
    // from the database.
    let given = &global.library[0];
    let first = given
        .canonicalize()
        .or_else(|_| std::path::absolute(given))
        .map_err(|e| unusable().with_cause(e))?;
    crate::config::folders(global, first, &global.data)
}

/// Open the database of the data folder for a command (creating and migrating it).
fn open_store(global: &GlobalArgs) -> Result<Connection, Error> {
    db::make_private(&global.data)
        .map_err(|e| Error::invalid(Msg::DataFolderPrivate).with_cause(e))?;
    db::open_and_migrate(&global.data)
}

fn serve(global: &GlobalArgs, serve: &ServeArgs) -> Result<(), Error> {
    // The service starts itself again once (`memory`): before anything is opened or
    // started, so that no thread of the first start (a title data refresh, the
    // trash's purge) is cut short by the restart, and nothing is said twice.
    crate::memory::without_thread_caches();
    let config = Config::new(global, serve)?;
    let service = Service::open(&config)?;
    remember_library(&config)?;
    service.serve()
}

/// The database keeps the folders this service runs with: the next command given no
/// `--library` uses them (see [`prepare`]).
fn remember_library(config: &Config) -> Result<(), Error> {
    let folders = config.folders();
    // The folders `--library` gave: those an admin added are in their own table.
    let further: Vec<String> = folders
        .further()
        .iter()
        .filter(|f| f.fixed)
        .map(|f| format!("{}={}", f.name, f.dir.display()))
        .collect();
    let utf8 = folders.all().iter().all(|f| f.dir.to_str().is_some());
    let paths = folders
        .root()
        .to_str()
        .filter(|_| utf8 && further.iter().all(|l| !l.contains('\n')));
    let db = db::open(&config.data)?;
    let Some(path) = paths else {
        log::warn!("a library folder's path is not UTF-8 or holds a line break: commands will not find it by themselves");
        // Never the folders of an earlier start in their place.
        crate::store::settings::LIBRARY_FURTHER.set(&db, "")?;
        return Ok(());
    };
    crate::store::settings::LIBRARY_PATH.set(&db, path)?;
    crate::store::settings::LIBRARY_FURTHER.set(&db, &further.join("\n"))
}
