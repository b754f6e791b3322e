//! The command line's way into a running service. While `serve` holds the data
//! folder, `ludotheque scan` (`convert`, `verify`, `compress`, `dedupe`, `organize`, `organize --undo`)
//! cannot open it; instead of refusing, the command hands its task to the service
//! over a Unix socket in the data folder, and the service runs it in its one task
//! slot, as `POST /api/v1/scan` does (`Jobs::try_start_with`, the same `busy`). Never
//! through the TCP port: it may be port 0, or closed to local access.
//!
//! The socket is private from its first moment: bound inside a new folder of mode
//! 0700, made 0600, then renamed into place. Each peer's user is asked of the kernel
//! (`SO_PEERCRED`): root and the service's own user are served, anybody else is
//! closed on unanswered.
//!
//! JSON lines: the command sends a [`Request`]; the service answers
//! [`HandoffLine::Started`] or [`HandoffLine::Refused`], then a [`HandoffLine::Progress`] line when the
//! progress moves, then [`HandoffLine::Finished`] with the run's result. The command may
//! send [`CANCEL`] (its Ctrl-C). A connection that drops leaves the task running:
//! a closed terminal or a lost SSH session does not cancel an hour of compression.

use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use log::{info, warn};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Failure, Kind, Msg};
use crate::jobs::compress::Flags;
use crate::jobs::{Jobs, Snapshot, Start, Task};
use crate::store::job_runs::JobRun;
use crate::words::StartedBy;

/// The socket's name in the data folder.
pub const SOCKET: &str = "ludotheque.sock";

/// The line a command sends to cancel the task it handed over.
pub const CANCEL: &str = "{\"cancel\":true}";

/// The tasks a command may hand over: those it would otherwise run itself. A match,
/// so that a new task does not compile until it is decided here.
fn may_be_handed(task: Task) -> bool {
    match task {
        Task::Scan
        | Task::Convert
        | Task::Verify
        | Task::Compress
        | Task::Dedupe
        | Task::Organize
        | Task::OrganizeUndo
        | Task::FolderAdd
        | Task::FolderRemove => true,
        // No command runs these through the slot.
        Task::Push | Task::Titles => false,
    }
}

/// At most this many commands followed at once; more are closed on.
const MAX_CONNECTIONS: usize = 16;

/// The longest line either side reads (a request naming many files fits).
pub const MAX_LINE: usize = 1 << 20;

/// What a command asks.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The task's word (`scan`, `compress`…).
    pub task: String,
    /// The library keys it is limited to; empty: the whole library.
    #[serde(default)]
    pub only: Vec<String>,
    /// `compress`'s flags for this run.
    #[serde(default)]
    pub compress: Flags,
    /// The organize run an `organize_undo` puts back.
    #[serde(default)]
    pub organize_run: Option<i64>,
}

/// What the service answers, one per line.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandoffLine {
    Started,
    Refused {
        msg: Msg,
    },
    Progress {
        unit: String,
        done: u64,
        total: u64,
        detail: String,
    },
    Finished(Ended),
}

/// How the run ended: its row of `job_runs`, and the files it named.
#[derive(Debug, Serialize, Deserialize)]
pub struct Ended {
    pub result: String,
    pub done: u64,
    pub total: u64,
    pub errors: u64,
    pub message: String,
    pub msg: Option<Msg>,
    /// The files the run failed on, or left as they were.
    pub failures: Vec<Failure>,
}

/// Bind the socket and serve commands on a thread until `stop`; the thread removes
/// the socket when it ends. `None` when the socket cannot be made: the service runs
/// without it, and commands refuse as they did.
pub fn start(data: &Path, jobs: Arc<Jobs>, stop: Arc<AtomicBool>) -> Option<JoinHandle<()>> {
    let path = data.join(SOCKET);
    let listener = match bind(data, &path) {
        Ok(l) => l,
        Err(e) => {
            warn!("command socket not opened ({e}): commands will not hand tasks over");
            return None;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("handoff".into())
        .spawn(move || {
            accept_loop(&listener, &jobs, &stop);
            let _ = std::fs::remove_file(&path);
        });
    spawned
        .map_err(|e| warn!("command socket thread not started: {e}"))
        .ok()
}

/// A private socket at `path`, in place of a stale one (nothing answers on it).
fn bind(data: &Path, path: &Path) -> io::Result<UnixListener> {
    if path.symlink_metadata().is_ok() && UnixStream::connect(path).is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            "another process answers on the socket",
        ));
    }
    // Bound where nobody else may enter, so the socket is never reachable wider
    // than 0600 (its mode at bind follows the umask).
    let dir = data.join(format!(".sock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
    let made = bind_in(&dir, path);
    let _ = std::fs::remove_dir_all(&dir);
    made
}

fn bind_in(dir: &Path, path: &Path) -> io::Result<UnixListener> {
    let inner: PathBuf = dir.join("s");
    let listener = UnixListener::bind(&inner)?;
    std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o600))?;
    std::fs::rename(&inner, path)?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

fn accept_loop(listener: &UnixListener, jobs: &Arc<Jobs>, stop: &AtomicBool) {
    let open = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::SeqCst) {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) => {
                if e.kind() != io::ErrorKind::WouldBlock {
                    warn!("command socket: {e}");
                }
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            warn!("command socket: too many commands at once; one closed");
            continue;
        }
        let (jobs, open) = (Arc::clone(jobs), Arc::clone(&open));
        let spawned = std::thread::Builder::new()
            .name("command".into())
            .spawn(move || {
                if let Err(e) = converse(stream, &jobs) {
                    warn!("command socket: {e}");
                }
                open.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            warn!("command socket: no thread for a command: {e}");
        }
    }
}

/// Whether a peer of user `peer` may hand tasks to a service running as `own`.
pub fn allowed(peer: u32, own: u32) -> bool {
    peer == 0 || peer == own
}

/// The user of the process at the other end, as the kernel recorded it at connect.
fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: u32::MAX,
        gid: u32::MAX,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: the buffer is a ucred and len says its size, as SO_PEERCRED expects.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cred.uid)
}

/// One command: check its user, read its request, start the task, follow it.
fn converse(stream: UnixStream, jobs: &Jobs) -> Result<(), Error> {
    stream.set_nonblocking(false)?;
    let uid = peer_uid(&stream)?;
    // SAFETY: geteuid cannot fail and touches no memory.
    let own = unsafe { libc::geteuid() };
    if !allowed(uid, own) {
        warn!("command socket: a process of uid {uid} was refused (only root and uid {own})");
        return Ok(());
    }
    let mut lines = Lines::new(stream.try_clone()?);
    let mut out = stream;
    let request = read_request(&mut lines)?;
    let task = match handed(&request.task) {
        Ok(task) => task,
        Err(msg) => return send(&mut out, &HandoffLine::Refused { msg }),
    };
    let start = Start {
        only: request.only,
        compress: request.compress,
        organize_run: request.organize_run,
    };
    match jobs.try_start_with(task, StartedBy::Cli, start) {
        Err(e) if e.is(&Kind::Busy) => send(
            &mut out,
            &HandoffLine::Refused {
                msg: busy(&jobs.snapshot()),
            },
        ),
        Err(e) => send(&mut out, &HandoffLine::Refused { msg: e.msg }),
        Ok(claimed) => {
            info!("command socket: task {task} started for the command line");
            send(&mut out, &HandoffLine::Started)?;
            follow(&mut out, &mut lines, jobs, claimed.last.as_ref().map(mark))
        }
    }
}

/// The request line, within five seconds.
fn read_request(lines: &mut Lines) -> Result<Request, Error> {
    let until = Instant::now() + Duration::from_secs(5);
    lines
        .stream
        .set_read_timeout(Some(Duration::from_millis(200)))?;
    while Instant::now() < until {
        match lines.poll()? {
            Got::Line(line) => {
                return serde_json::from_slice(&line).map_err(|e| {
                    Error::invalid(Msg::BadJson {
                        expected: "a task request".into(),
                    })
                    .with_cause(e)
                })
            }
            Got::Closed => break,
            Got::Nothing => {}
        }
    }
    Err(Error::internal("a command sent no request"))
}

fn handed(word: &str) -> Result<Task, Msg> {
    Task::parse(word)
        .filter(|t| may_be_handed(*t))
        .ok_or_else(|| {
            let handed: Vec<_> = Task::ALL.iter().filter(|t| may_be_handed(**t)).collect();
            let words = handed.iter().map(|t| t.as_str()).collect::<Vec<_>>();
            Msg::BadJson {
                expected: format!("a task among {}", words.join(", ")),
            }
        })
}

/// The 409 in words: which task holds the slot, and who started it.
fn busy(snap: &Snapshot) -> Msg {
    match (snap.task, &snap.started_by) {
        (Some(task), Some(by)) if snap.running => Msg::TaskRunning {
            task,
            by: by.clone(),
        },
        _ => Msg::Busy,
    }
}

/// What tells one run from the next.
fn mark(run: &JobRun) -> (i64, i64) {
    (run.id, run.started_at)
}

/// Send progress until the run the command claimed is recorded, then its result.
/// The slot's last run changes exactly when it is: the claim made it the next.
fn follow(
    out: &mut UnixStream,
    lines: &mut Lines,
    jobs: &Jobs,
    before: Option<(i64, i64)>,
) -> Result<(), Error> {
    lines
        .stream
        .set_read_timeout(Some(Duration::from_millis(100)))?;
    let mut shown = None;
    loop {
        let snap = jobs.snapshot();
        if let Some(run) = snap.last.as_ref().filter(|r| Some(mark(r)) != before) {
            return send(out, &finished(run, &snap));
        }
        let now = (snap.done, snap.total, snap.detail.clone());
        if snap.running && shown.as_ref() != Some(&now) {
            if send(out, &progress(&snap)).is_err() {
                return gone();
            }
            shown = Some(now);
        }
        match lines.poll() {
            Ok(Got::Line(line)) if line == CANCEL.as_bytes() => {
                info!("command socket: the command line cancels its task");
                jobs.cancel();
            }
            Ok(Got::Line(_)) | Ok(Got::Nothing) => {}
            Ok(Got::Closed) | Err(_) => return gone(),
        }
    }
}

fn gone() -> Result<(), Error> {
    info!("command socket: the command line went away; its task goes on");
    Ok(())
}

fn progress(snap: &Snapshot) -> HandoffLine {
    HandoffLine::Progress {
        unit: snap.unit.as_str().into(),
        done: snap.done,
        total: snap.total,
        detail: snap.detail.clone(),
    }
}

fn finished(run: &JobRun, snap: &Snapshot) -> HandoffLine {
    HandoffLine::Finished(Ended {
        result: run.result.as_str().into(),
        done: run.done,
        total: run.total,
        errors: run.errors,
        message: run.message.clone(),
        msg: run.msg.clone(),
        failures: snap.last_failures.clone(),
    })
}

/// One JSON line.
pub fn send<T: Serialize>(out: &mut UnixStream, value: &T) -> Result<(), Error> {
    let mut line = serde_json::to_vec(value).map_err(|e| Error::internal(e.to_string()))?;
    line.push(b'\n');
    out.write_all(&line)?;
    Ok(())
}

/// What a read found.
pub enum Got {
    Line(Vec<u8>),
    /// Nothing within the read timeout.
    Nothing,
    Closed,
}

/// Lines read from a stream with a read timeout: a partial line waits in `buf`
/// (a `BufRead::read_line` cut by the timeout would not say what it kept).
pub struct Lines {
    pub stream: UnixStream,
    buf: Vec<u8>,
}

impl Lines {
    pub fn new(stream: UnixStream) -> Lines {
        Lines {
            stream,
            buf: Vec::new(),
        }
    }

    /// The next whole line (without its newline), if one came within the timeout.
    pub fn poll(&mut self) -> io::Result<Got> {
        if let Some(line) = self.take_line() {
            return Ok(Got::Line(line));
        }
        let mut chunk = [0u8; 8192];
        match self.stream.read(&mut chunk) {
            Ok(0) => Ok(Got::Closed),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                if self.buf.len() > MAX_LINE && !self.buf.contains(&b'\n') {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, "line too long"));
                }
                Ok(self.take_line().map_or(Got::Nothing, Got::Line))
            }
            Err(e) if is_timeout(&e) => Ok(Got::Nothing),
            Err(e) => Err(e),
        }
    }

    fn take_line(&mut self) -> Option<Vec<u8>> {
        let end = self.buf.iter().position(|b| *b == b'\n')?;
        let mut line: Vec<u8> = self.buf.drain(..=end).collect();
        line.pop();
        Some(line)
    }
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_root_and_the_services_own_user_are_served() {
        assert!(allowed(0, 1000));
        assert!(allowed(1000, 1000));
        assert!(!allowed(1001, 1000));
        assert!(!allowed(65534, 0));
        assert!(allowed(0, 0));
    }

    /// A run's end as the line says it: what a command of another version of the
    /// program reads, so its shape never changes with the types it is made from.
    #[test]
    fn a_finished_run_is_said_in_one_fixed_shape() {
        let failure = Failure {
            key: Some("a.nsp".into()),
            msg: Msg::NoGame {
                key: "a.nsp".into(),
            },
        };
        let ended = Ended {
            result: "partial".into(),
            done: 2,
            total: 3,
            errors: 1,
            message: "m".into(),
            msg: None,
            failures: vec![
                failure,
                Failure {
                    key: None,
                    msg: Msg::NoSuchFile,
                },
            ],
        };
        let line = serde_json::to_string(&HandoffLine::Finished(ended)).unwrap();
        let want = r#"{"finished":{"result":"partial","done":2,"total":3,"errors":1,"message":"m","msg":null,"failures":[{"key":"a.nsp","msg":{"slug":"no_game","key":"a.nsp"}},{"key":null,"msg":{"slug":"no_such_file"}}]}}"#;
        assert_eq!(line, want);
        let back: HandoffLine = serde_json::from_str(want).unwrap();
        assert!(matches!(back, HandoffLine::Finished(e) if e.failures.len() == 2));
    }

    #[test]
    fn a_line_cut_by_the_timeout_is_kept_whole() {
        let (a, mut b) = UnixStream::pair().unwrap();
        a.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        let mut lines = Lines::new(a);
        b.write_all(b"{\"can").unwrap();
        assert!(matches!(lines.poll().unwrap(), Got::Nothing));
        assert!(matches!(lines.poll().unwrap(), Got::Nothing));
        b.write_all(b"cel\":true}\n{\"x\"").unwrap();
        match lines.poll().unwrap() {
            Got::Line(l) => assert_eq!(l, CANCEL.as_bytes()),
            _ => panic!("a whole line"),
        }
        drop(b);
        assert!(matches!(lines.poll().unwrap(), Got::Closed));
    }

    #[test]
    fn only_the_tasks_a_command_runs_are_handed_over() {
        assert_eq!(handed("scan"), Ok(Task::Scan));
        assert_eq!(handed("compress"), Ok(Task::Compress));
        assert_eq!(handed("organize_undo"), Ok(Task::OrganizeUndo));
        assert!(handed("push").is_err());
        assert!(handed("titles").is_err());
        assert!(handed("nope").is_err());
    }
}
