//! A new user's first hour on the command line (issue #40): `ludotheque` alone is
//! `serve` with every one of its flags, a command run in the wrong folder says so
//! instead of making a new empty data folder, and the database remembers its library.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Output, Stdio};

use crate::harness::TestServer;
use ludotheque::testkit::Msg;

/// The binary run in `cwd` with `args` only: no folder given by a variable either.
fn bare(cwd: &Path, args: &[&str], input: &str) -> Output {
    let mut child = crate::harness::ludotheque()
        .args(args)
        .current_dir(cwd)
        .env_remove("LUDOTHEQUE_DATA")
        .env_remove("LUDOTHEQUE_LIBRARY")
        .env_remove("LUDOTHEQUE_KEYS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What the folder holds, by name.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The status line of `GET /api/v1/health` at `addr`.
fn health_status(addr: &str) -> String {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_string()
}

/// `ludotheque --listen …` serves, as `ludotheque serve --listen …` does: the page of
/// consoles tells users to run exactly that; and so does the same line ending with the
/// word `serve` (where a quick start puts flags). Before another command, a flag of
/// `serve` is still refused.
#[test]
fn serve_flags_work_without_the_word_serve() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, library) = (tmp.path().join("D"), tmp.path().join("L"));
    for last in [&[][..], &["serve"][..]] {
        let mut child = crate::harness::ludotheque()
            .args(["--listen", "127.0.0.1:0", "--watch", "off"])
            .args(["--data", data.to_str().unwrap()])
            .args(["--library", library.to_str().unwrap()])
            .args(last)
            .env("LUDOTHEQUE_TITLEDB_URL", "http://127.0.0.1:9")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let addr = first
            .trim()
            .strip_prefix("listening on http://")
            .map(str::to_string);
        let status = addr.as_ref().map(|a| health_status(a));
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        let addr =
            addr.unwrap_or_else(|| panic!("{last:?}: no address: {first:?} {}", text(&out.stderr)));
        assert_eq!(status.as_deref(), Some("HTTP/1.1 200 OK"), "{addr}");
        assert!(data.join("ludotheque.db").exists() && library.is_dir());
    }
    let out = bare(
        tmp.path(),
        &["--data", "D", "--listen", "127.0.0.1:0", "scan"],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("argument inattendu « --listen »"),
        "{}",
        text(&out.stderr)
    );
    // A `serve` that is a flag's value, before another command, is no command
    // `serve`: still refused, and no data folder named after the next word is made.
    let out = bare(
        tmp.path(),
        &["--listen", "127.0.0.1:0", "--data", "serve", "scan"],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!tmp.path().join("scan").exists() && !tmp.path().join("serve").exists());
}

/// Run where no data folder is, a command that needs one exits 2 with a sentence
/// that says so and creates nothing: no `./data`, no `./library`, no « Compte
/// créé ». Those that need no database never touch it.
#[test]
fn commands_in_a_folder_without_data_exit_2_and_create_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["user", "add", "alice", "--admin"], "a good password\n"),
        (&["missing"], ""),
        (&["scan"], ""),
        (&["trash", "list"], ""),
    ];
    for (args, input) in cases {
        let out = bare(tmp.path(), args, input);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        let no_data = Msg::NoDataFolder {
            folder: "./data".into(),
        };
        assert!(
            err.contains(&no_data.french()) && err.contains("--data"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        assert!(
            names(tmp.path()).is_empty(),
            "{args:?}: {:?}",
            names(tmp.path())
        );
    }
    let quiet: [&[&str]; 5] = [
        &["completions", "bash"],
        &["--version"],
        &["--help"],
        &["help", "scan"],
        &["scan", "--help"],
    ];
    for args in quiet {
        let out = bare(tmp.path(), args, "");
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert!(
            names(tmp.path()).is_empty(),
            "{args:?}: {:?}",
            names(tmp.path())
        );
    }
}

/// An existing empty data folder is set up as always: the first account can be made
/// before the first start.
#[test]
fn an_existing_empty_data_folder_still_works_for_user_add() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("data")).unwrap();
    let out = bare(
        tmp.path(),
        &["user", "add", "alice", "--admin"],
        "a good password\n",
    );
    assert!(out.status.success(), "{out:?}");
    assert!(tmp.path().join("data/ludotheque.db").exists());
    assert!(!tmp.path().join("library").exists());
}

/// The service run once with `--library L`; then `scan` given no `--library`, from
/// another folder, scans L and says so, and makes no `./library` where it runs.
#[test]
fn a_command_without_library_uses_the_one_the_service_last_ran_with() {
    let folders = crate::titles::unscanned_demo();
    let mut server = TestServer::start_on(folders.clone(), &[]);
    server.wait_idle();
    server.kill();
    let elsewhere = folders.tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let data = folders.data.to_str().unwrap();
    let runs = folders.run_results().len();
    let out = bare(&elsewhere, &["--data", data, "scan"], "");
    let (stdout, err) = (text(&out.stdout), text(&out.stderr));
    let said = format!("Bibliothèque : {}", folders.library.display());
    assert!(err.contains(&said), "{err}");
    assert_eq!(folders.run_results().len(), runs + 1, "{stdout}{err}");
    let done = folders.last_run_msg();
    assert!(matches!(done, Some(Msg::ScanDone { .. })), "{done:?}");
    assert!(stdout.contains(&done.unwrap().french()), "{stdout}{err}");
    assert!(!stdout.contains(": 0 fichier"), "{stdout}");
    assert!(names(&elsewhere).is_empty(), "{:?}", names(&elsewhere));
    // A library named on the command line wins, and is not announced: this empty
    // one is refused, its games being known (the scan never forgets them all).
    let other = folders.tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let out = bare(
        &elsewhere,
        &["--data", data, "--library", other.to_str().unwrap(), "scan"],
        "",
    );
    let err = text(&out.stderr);
    assert!(err.contains(&Msg::LibraryUnavailable.french()), "{err}");
    assert!(!err.contains("Bibliothèque :"), "{err}");
}

/// Each command's help lists the flags it uses, and no other: `missing --help`
/// listed `--organize-template` and `--dedupe-keep`, which only `organize` and
/// `dedupe` (and the service) use. Walked over every command of the tree.
#[test]
fn each_help_lists_only_the_flags_its_command_uses() {
    use clap::CommandFactory;
    fn paths(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        out.push(path.to_string());
        for sub in cmd.get_subcommands() {
            paths(sub, format!("{path} {}", sub.get_name()).trim(), out);
        }
    }
    let library = "serve,scan,convert,verify,compress,organize,dedupe,\
                   trash,trash restore,trash purge";
    let keys = "serve,scan,convert,verify,compress,keys,keys import,keys status,\
                trash,trash restore";
    // Where each flag is listed, by command path (the root, `serve`, lists them all).
    let users: [(&str, &str); 5] = [
        ("--organize-template", "serve,organize"),
        ("--dedupe-keep", "serve,dedupe"),
        ("--library", library),
        ("--keys", keys),
        ("--titledb-url", "serve,titles update"),
    ];
    let uses = |spec: &str, path: &str| path.is_empty() || spec.split(',').any(|p| p == path);
    let mut all = Vec::new();
    paths(&ludotheque::testkit::Args::command(), "", &mut all);
    let tmp = tempfile::tempdir().unwrap();
    for path in all {
        let mut args: Vec<&str> = path.split_whitespace().collect();
        args.push("--help");
        let out = bare(tmp.path(), &args, "");
        let help = text(&out.stdout);
        assert!(out.status.success(), "{path}: {out:?}");
        for (flag, spec) in users {
            let listed = help.contains(&format!("{flag} <"));
            assert_eq!(listed, uses(spec, &path), "« {path} » and {flag}:\n{help}");
        }
        let everywhere = path != "completions";
        assert_eq!(help.contains("--data <"), everywhere, "« {path} »:\n{help}");
    }
}

/// A pseudo-terminal: its controller, and the path of the terminal a child gets.
fn pty() -> (std::fs::File, std::path::PathBuf) {
    use std::os::fd::FromRawFd;
    // SAFETY: plain calls on a descriptor this function owns; ptsname_r writes at
    // most `buf.len()` bytes into `buf`.
    unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        let mut buf = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(fd, buf.as_mut_ptr(), buf.len()), 0);
        let name = std::ffi::CStr::from_ptr(buf.as_ptr());
        let path = std::path::PathBuf::from(name.to_string_lossy().into_owned());
        (std::fs::File::from_raw_fd(fd), path)
    }
}

/// A foreground task on a terminal: the log lines written while its progress bar is
/// drawn (the demo's damaged file, the end of the task) go on their own lines above
/// it, never run on after the bar (`[....] 0/0 06:24:22 [INFO] task scan started`).
#[test]
fn log_lines_go_above_the_progress_bar_on_a_terminal() {
    use std::io::Read;
    let folders = crate::titles::unscanned_demo();
    let (mut controller, terminal) = pty();
    let stderr = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&terminal)
        .unwrap();
    let mut child = crate::harness::ludotheque()
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["--library", folders.library.to_str().unwrap()])
        .arg("scan")
        // The bar is drawn for a while before the task logs anything more.
        .env("LUDOTHEQUE_TASK_DELAY_MS", "500")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buf = [0u8; 4096];
        // EIO once the child, the terminal's last user, is gone.
        while let Ok(n @ 1..) = controller.read(&mut buf) {
            bytes.extend_from_slice(&buf[..n]);
        }
        bytes
    });
    child.wait().unwrap();
    let bytes = reader.join().unwrap();
    // The terminal turns each newline into CR LF; then, per line, what a screen
    // shows: what follows the last carriage return, without erase sequences.
    let raw = String::from_utf8_lossy(&bytes).replace("\r\n", "\n");
    let screen: Vec<String> = raw
        .split('\n')
        .map(|l| {
            l.rsplit('\r')
                .next()
                .unwrap_or_default()
                .replace("\x1b[K", "")
        })
        .collect();
    let logged: Vec<&String> = screen.iter().filter(|l| l.contains(" [")).collect();
    assert!(raw.contains("[...."), "no bar drawn: {raw:?}");
    assert!(
        logged
            .iter()
            .any(|l| l.contains("[INFO] task scan finished")),
        "{screen:#?}"
    );
    for line in &screen {
        let bar = line.starts_with('[') && line.contains("] ");
        let log = line.contains("[INFO]") || line.contains("[WARN]");
        assert!(
            !(bar && log),
            "a log line ran on after the bar: {line:?}\n{raw:?}"
        );
    }
}

/// `trash list` says when in the host's zone, with its offset (it said UTC): with
/// `TZ=Europe/Paris`, `+01:00` (`+02:00` in summer), the same instant as the clock's.
/// The trash page writes a moment in the reader's language instead (no offset: its
/// script writes it again in the reader's zone); the API keeps UTC.
#[test]
fn trash_list_says_local_time_with_its_offset() {
    let folders = crate::titles::unscanned_demo();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let key = "Indies%2FStyx%20%5B0100535012974000%5D%5Bv0%5D.nsp";
    let deleted = s.send("DELETE", &format!("/api/library/{key}"), &[], None);
    assert!(deleted.status < 300, "{}", deleted.body);
    let page = s.get("/trash").body;
    assert!(
        says_a_moment(&page) && page.contains("data-moment"),
        "{page}"
    );
    assert!(!says_a_time_with_offset(&page), "{page}");
    drop(s);
    let out = crate::harness::ludotheque()
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["--library", folders.library.to_str().unwrap()])
        .args(["trash", "list"])
        .env("TZ", "Europe/Paris")
        .output()
        .unwrap();
    let listing = text(&out.stdout);
    assert!(out.status.success(), "{listing}{}", text(&out.stderr));
    let when = listing
        .split("supprimé le ")
        .nth(1)
        .and_then(|rest| rest.get(..25))
        .unwrap_or_else(|| panic!("{listing}"));
    let offset = &when[19..];
    assert!(offset == "+01:00" || offset == "+02:00", "{listing}");
    let wall = humantime::parse_rfc3339(&format!("{}Z", &when[..19])).unwrap();
    let hours = if offset == "+01:00" { 1 } else { 2 };
    let instant = wall - std::time::Duration::from_secs(hours * 3600);
    let age = std::time::SystemTime::now()
        .duration_since(instant)
        .unwrap();
    assert!(age.as_secs() < 600, "{listing}");
}

/// `text` holds a time with an offset, `HH:MM ±HH:MM` (`14:03 +01:00`).
pub(crate) fn says_a_time_with_offset(text: &str) -> bool {
    has_shape(text, b"dd:dd sdd:dd")
}

/// A moment as a page writes it, in either language: "29 nov. 2026, 10:36",
/// "Nov 29, 2026, 10:36" (the year, then the time to the minute).
pub(crate) fn says_a_moment(text: &str) -> bool {
    has_shape(text, b"dddd, dd:dd")
}

/// `d` a digit, `s` a sign, anything else itself.
fn has_shape(text: &str, shape: &[u8]) -> bool {
    text.as_bytes().windows(shape.len()).any(|w| {
        w.iter().zip(shape).all(|(&c, &s)| match s {
            b'd' => c.is_ascii_digit(),
            b's' => c == b'+' || c == b'-',
            _ => c == s,
        })
    })
}
