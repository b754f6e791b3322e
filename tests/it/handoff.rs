//! The command line's tasks while the service runs: `scan` (and the others) hand
//! their task to the service over the data folder's socket, print its end and exit
//! with its code, instead of refusing.

use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use ludotheque::testkit::words::{StartedBy, Task};
use ludotheque::testkit::Msg;

use crate::harness::{said_fr, wait_until, Folders, TestServer, BIN};
use crate::library::demo;

const HANDED: &str = "confiée au service qui utilise ce dossier de données";

fn socket(folders: &Folders) -> std::path::PathBuf {
    folders.data.join("ludotheque.sock")
}

/// A command of the binary on these folders, left running.
fn spawn_cli(folders: &Folders, args: &[&str]) -> Child {
    crate::harness::ludotheque()
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["--library", folders.library.to_str().unwrap()])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait until the service runs a task started by `by`.
fn wait_running(s: &TestServer, by: &str) -> serde_json::Value {
    let mut job = serde_json::Value::Null;
    wait_until(&format!("a task of {by}"), Duration::from_secs(20), || {
        job = s.get("/api/v1/job").json();
        job["running"] == true && job["started_by"] == by
    });
    job
}

#[test]
fn a_scan_while_the_service_runs_is_run_by_the_service() {
    let s = TestServer::start(&["--task-delay-ms", "800"]);
    s.wait_idle();
    let folders = s.folders.clone();
    let cli = spawn_cli(&folders, &["scan"]);
    // The service runs it: its API shows the task, started by the command line.
    let job = wait_running(&s, "cli");
    assert_eq!(job["label"], "scan", "{job}");
    let out = cli.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stderr.contains(&format!("Tâche scan {HANDED}")), "{stderr}");
    assert_eq!(s.wait_idle()["last"]["result"], "ok");
    assert_eq!(folders.run_results(), ["ok", "ok"]);
    folders.printed_done(&stdout);
    s.wait_for_log("task scan started for the command line");
}

#[test]
fn a_partial_run_exits_1_naming_each_failed_file() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    // The demo's broken file fails again once it changed.
    let broken = folders
        .library
        .join("Broken Download [0100BBBB00000000][v0].nsp");
    let bytes = std::fs::read(&broken).unwrap();
    std::fs::write(&broken, [&bytes[..], b"x"].concat()).unwrap();
    let (status, out, err) = folders.cli(&["scan"]);
    assert_eq!(status.code(), Some(1), "{out}{err}");
    assert!(err.contains(HANDED), "{err}");
    folders.printed_done(&out);
    let why = folders.printed_failure(&out, "Broken Download [0100BBBB00000000][v0].nsp");
    assert!(matches!(why, Msg::FileDamaged { .. }), "{why:?}");
    let partial = Msg::TaskPartial {
        task: Task::Scan,
        failed: 1,
    };
    assert!(err.contains(&partial.french()), "{err}");
    assert_eq!(s.get("/api/v1/job").json()["last"]["result"], "partial");
}

#[test]
fn a_task_while_another_runs_is_refused_as_the_api_refuses_it() {
    let s = TestServer::start(&["--task-delay-ms", "60000"]);
    wait_running(&s, "startup");
    let commands: [&[&str]; 7] = [
        &["convert"],
        &["scan"],
        &["verify"],
        &["compress"],
        &["dedupe"],
        &["organize"],
        &["organize", "--undo", "1"],
    ];
    for task in commands {
        let (status, out, err) = s.folders.cli(task);
        assert_eq!(status.code(), Some(1), "{task:?}: {out}{err}");
        assert!(
            err.contains(&said_fr(Msg::TaskRunning {
                task: Task::Scan,
                by: StartedBy::Startup
            })),
            "{task:?}: {err}"
        );
    }
    // The running task is untouched.
    assert_eq!(wait_running(&s, "startup")["label"], "scan");
}

#[test]
fn progress_is_drawn_on_a_terminal_and_ctrl_c_cancels_the_task() {
    let s = TestServer::start(&["--task-delay-ms", "60000"]);
    wait_running(&s, "startup");
    assert_eq!(s.post("/api/job/cancel").status, 200);
    s.wait_idle();
    let folders = s.folders.clone();
    // `script` gives the command a terminal, as a person's.
    let line = format!(
        "{BIN} --data {} --library {} scan",
        folders.data.display(),
        folders.library.display()
    );
    let cli = Command::new("script")
        .env("LC_ALL", "fr_FR.UTF-8")
        .args(["-qefc", &line, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_running(&s, "cli");
    // Time for the command to draw its first bar: its terminal output is read only
    // once it ends, so there is no condition to wait on.
    std::thread::sleep(Duration::from_millis(500));
    // Ctrl-C, as the terminal sends it to the command.
    let pid = cli_pid(cli.id());
    unsafe { libc::kill(pid, libc::SIGINT) };
    let out = cli.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("\r[..............................] 0/0"),
        "{text:?}"
    );
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "cancelled");
    let interrupted = Msg::TaskInterrupted {
        task: Task::Scan,
        done: last["done"].as_u64().unwrap(),
        total: last["total"].as_u64().unwrap(),
        unit: Task::Scan.unit(),
    };
    assert!(text.contains(&interrupted.french()), "{text}");
}

/// The `ludotheque` process `script` started.
fn cli_pid(script: u32) -> i32 {
    let mut found = None;
    wait_until("a ludotheque under script", Duration::from_secs(5), || {
        let children =
            std::fs::read_to_string(format!("/proc/{script}/task/{script}/children")).unwrap();
        found = children.split_whitespace().find_map(|pid| {
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
            if exe.ends_with("ludotheque") {
                return pid.parse().ok();
            }
            // `script` may run a shell first.
            child_named(pid.parse().ok()?)
        });
        found.is_some()
    });
    found.unwrap()
}

fn child_named(pid: u32) -> Option<i32> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    children.split_whitespace().find_map(|c| {
        let exe = std::fs::read_link(format!("/proc/{c}/exe")).ok()?;
        exe.ends_with("ludotheque").then(|| c.parse().ok())?
    })
}

#[test]
fn a_command_that_goes_away_leaves_its_task_running() {
    let s = TestServer::start(&["--task-delay-ms", "1500"]);
    s.wait_idle();
    let mut cli = spawn_cli(&s.folders, &["scan"]);
    wait_running(&s, "cli");
    cli.kill().unwrap();
    cli.wait().unwrap();
    // Nothing must happen: give a wrongly cancelled task the time to stop, then look.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.get("/api/v1/job").json()["running"], true);
    assert_eq!(s.wait_idle()["last"]["result"], "ok");
    s.wait_for_log("the command line went away; its task goes on");
}

#[test]
fn dedupe_and_organize_are_handed_over_too() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let (status, out, err) = folders.cli(&["dedupe"]);
    assert!(status.success(), "{out}{err}");
    assert!(err.contains("Tâche dedupe confiée"), "{err}");
    let done = folders.last_run_msg();
    assert!(matches!(done, Some(Msg::DedupeDone { .. })), "{done:?}");
    assert!(out.contains(&done.unwrap().french()), "{out}");
    let (status, out, err) = folders.cli(&["organize"]);
    assert!(status.success(), "{out}{err}");
    assert!(err.contains("Tâche organize confiée"), "{err}");
    // Its message names the run and how to undo it, once.
    assert_eq!(
        out.matches("ludotheque organize --undo 1").count(),
        1,
        "{out}"
    );
    let moved = crate::harness::files_under(&folders.library);
    let (status, out, err) = folders.cli(&["organize", "--undo", "1"]);
    assert!(status.success(), "{out}{err}");
    assert!(err.contains("Tâche organize_undo confiée"), "{err}");
    let undone = folders.last_run_msg();
    assert!(
        matches!(undone, Some(Msg::OrganizeUndone { run: 1, .. })),
        "{undone:?}"
    );
    assert!(out.contains(&undone.unwrap().french()), "{out}");
    assert_ne!(crate::harness::files_under(&folders.library), moved);
    assert_eq!(folders.run_results(), ["partial", "ok", "ok", "ok"]);
}

#[test]
fn the_socket_is_private_and_gone_after_a_clean_stop() {
    let mut s = TestServer::start(&[]);
    let path = socket(&s.folders);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o600, "{mode:o}");
    s.signal(libc::SIGTERM);
    assert!(s.wait_exit(Duration::from_secs(20)).unwrap().success());
    assert!(!path.exists());
    // No service: the command runs the task itself, as before.
    let (status, out, err) = s.folders.cli(&["scan"]);
    assert!(status.success(), "{out}{err}");
    assert!(!err.contains(HANDED), "{err}");
}

#[test]
fn a_stale_socket_from_a_killed_service_is_replaced() {
    let folders = Folders::new();
    let mut s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    s.kill();
    // The killed service left its socket; nothing answers on it.
    assert!(socket(&folders).exists());
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let (status, out, err) = folders.cli(&["scan"]);
    assert!(status.success(), "{out}{err}");
    assert!(err.contains(HANDED), "{err}");
}

#[test]
fn another_user_is_refused_even_through_an_open_socket() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to connect as another user");
        return;
    }
    let s = TestServer::start(&[]);
    s.wait_idle();
    let folders = s.folders.clone();
    // Open the way the file modes close, so only the peer check stands.
    let open = std::fs::Permissions::from_mode(0o711);
    std::fs::set_permissions(folders.tmp.path(), open.clone()).unwrap();
    std::fs::set_permissions(&folders.data, open).unwrap();
    let path = socket(&folders);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
    let answer = connect_as_nobody(&path, b"{\"task\":\"scan\"}\n");
    assert_eq!(answer, Some(0), "the service answered another user");
    s.wait_for_log("a process of uid 65534 was refused");
    let job = s.get("/api/v1/job").json();
    assert_eq!(job["running"], false, "{job}");
    assert_eq!(folders.run_results(), ["ok"]);
}

/// In a child that became `nobody`: connect, send `request`, and count the bytes the
/// service answers before it closes (`None`: the child could not connect). Only
/// system calls between fork and exit, so the parent's threads cannot deadlock it.
fn connect_as_nobody(path: &std::path::Path, request: &[u8]) -> Option<i32> {
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (i, b) in path.to_str().unwrap().bytes().enumerate() {
        addr.sun_path[i] = b as libc::c_char;
    }
    let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
    let mut buf = [0u8; 4096];
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(65534) != 0
                || libc::setuid(65534) != 0
            {
                libc::_exit(101);
            }
            let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
            if libc::connect(fd, (&addr as *const libc::sockaddr_un).cast(), len) != 0 {
                libc::_exit(102);
            }
            libc::write(fd, request.as_ptr().cast(), request.len());
            let mut total = 0isize;
            loop {
                let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
                if n <= 0 {
                    break;
                }
                total += n;
            }
            libc::_exit(total.min(100) as i32);
        }
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        let code = libc::WEXITSTATUS(status);
        (code <= 100).then_some(code)
    }
}

/// `compress`'s flags travel with the handed task: they apply to that run only, over
/// the server's settings.
#[test]
fn compress_flags_apply_to_the_handed_run() {
    use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
    let folders = Folders::new();
    let keys = TestKeys::new(401);
    std::fs::create_dir_all(&folders.data).unwrap();
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, keys.prod_keys_file(KeysFile::Full)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let dlc = Title {
        titlekey: true,
        program_size: 0x4_0123,
        ..Title::addon(0x0100_0000_0040_1000, 1)
    };
    std::fs::write(folders.library.join("small.nsp"), keyed::nsp(&keys, &[dlc])).unwrap();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    // A gain of 100 % is never reached: left as it is (the default, 2 %, compresses).
    let (status, out, err) = folders.cli(&["compress", "small.nsp", "--min-gain", "100"]);
    assert!(status.success(), "{out}{err}");
    assert!(err.contains("Tâche compress confiée"), "{err}");
    let why = folders.last_failure_of("small.nsp");
    assert!(
        matches!(why, Some(Msg::CompressGainTooSmall { min_gain: 100, .. })),
        "{why:?}"
    );
    let said = format!("small.nsp : {}", why.unwrap().french());
    assert!(out.contains(&said), "{out}");
    assert!(folders.library.join("small.nsp").exists());
    // The next run has the settings again, and this one's own flag.
    let (status, out, err) = folders.cli(&["compress", "--level", "3", "--delete-originals"]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(folders.run_results().last().unwrap(), "ok");
    let done = folders.printed_done(&out);
    let one = matches!(
        done,
        Msg::CompressDone {
            compressed: 1,
            failed: 0,
            ..
        }
    );
    assert!(one, "{done:?}");
    assert!(folders.library.join("small.nsz").exists());
    assert!(!folders.library.join("small.nsp").exists());
    let trash = s.get("/api/v1/trash").json();
    assert_eq!(trash["total"], 0, "{trash}");
}
