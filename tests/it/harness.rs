//! The test harness: a `TestServer` that runs the real binary on port 0 with its own
//! temporary library and data folders, speaks HTTP to it with ureq, and prints the
//! server's log when a test fails.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ludotheque::testkit::Msg;
use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_ludotheque");

/// The binary, speaking French whatever this machine's locale: the command line
/// follows `LC_ALL`/`LC_MESSAGES`/`LANG`, and the tests read its French (the one
/// English test sets its own locale).
pub fn ludotheque() -> std::process::Command {
    let mut command = std::process::Command::new(BIN);
    command.env("LC_ALL", "fr_FR.UTF-8");
    command
}

/// Long enough for a change under a watched library to settle (3 s), be polled (2 s)
/// and start a scan, with room to spare.
pub const WATCH_SETTLED: Duration = Duration::from_secs(8);

/// A temporary library and data folder, kept across restarts of a server.
pub struct Folders {
    pub tmp: tempfile::TempDir,
    pub data: PathBuf,
    pub library: PathBuf,
}

impl Folders {
    pub fn new() -> Arc<Folders> {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let library = tmp.path().join("library");
        std::fs::create_dir_all(&library).unwrap();
        // An empty data folder, as an installer makes it: commands other than `serve`
        // refuse one that does not exist (`cli::prepare`).
        std::fs::create_dir_all(&data).unwrap();
        Arc::new(Folders { tmp, data, library })
    }

    /// The result of every task run recorded in the database, oldest first.
    pub fn run_results(&self) -> Vec<String> {
        let conn = rusqlite::Connection::open(self.data.join("ludotheque.db")).unwrap();
        let mut stmt = conn
            .prepare("SELECT result FROM job_runs ORDER BY id")
            .unwrap();
        let results = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        results
    }

    /// The message the last task run recorded ended with, as the database keeps it:
    /// the data its sentence is said from, in either language.
    pub fn last_run_msg(&self) -> Option<Msg> {
        let conn = rusqlite::Connection::open(self.data.join("ludotheque.db")).unwrap();
        let msg: Option<String> = conn
            .query_row(
                "SELECT msg FROM job_runs ORDER BY id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        msg.map(|m| serde_json::from_str(&m).unwrap())
    }

    /// What the last task run recorded could not handle or left as it is: each key
    /// and message, in order, as the database keeps them.
    pub fn last_run_failures(&self) -> Vec<(Option<String>, Msg)> {
        let conn = rusqlite::Connection::open(self.data.join("ludotheque.db")).unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT key, msg FROM job_failures \
                 WHERE run = (SELECT MAX(id) FROM job_runs) ORDER BY seq",
            )
            .unwrap();
        let failures = stmt
            .query_map([], |r| {
                Ok((r.get::<_, Option<String>>(0)?, r.get::<_, String>(1)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .map(|(key, msg)| (key, serde_json::from_str(&msg).unwrap()))
            .collect();
        failures
    }

    /// What the last task run recorded it ended with, after checking that `out` (what
    /// the command printed) says it in French.
    pub fn printed_done(&self, out: &str) -> Msg {
        let done = self.last_run_msg().expect("a recorded run");
        assert!(out.contains(&done.french()), "{done:?} not said in {out}");
        done
    }

    /// What the last task run recorded of `key`, after checking that `out` names it
    /// on a line of its own with that reason in French.
    pub fn printed_failure(&self, out: &str, key: &str) -> Msg {
        let why = self
            .last_failure_of(key)
            .unwrap_or_else(|| panic!("nothing recorded of {key}"));
        let said = format!("  {key} : {}", why.french());
        assert!(out.contains(&said), "{said:?} not in {out}");
        why
    }

    /// What the last task run recorded said of `key`, the first time it named it.
    pub fn last_failure_of(&self, key: &str) -> Option<Msg> {
        self.last_run_failures()
            .into_iter()
            .find(|(k, _)| k.as_deref() == Some(key))
            .map(|(_, msg)| msg)
    }

    /// The log of every server started on these folders.
    pub fn log_path(&self) -> PathBuf {
        self.tmp.path().join("server.log")
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    /// Scan on the command line, as a test's setup. The demo library's one broken file
    /// (and a test's own broken copies) make a first scan `partial`: exit 1, each file
    /// named with its reason. Any other failure fails the test.
    pub fn scan(&self) {
        let (status, out, err) = self.cli(&["scan"]);
        let partial = status.code() == Some(1)
            && self.run_results().last().map(String::as_str) == Some("partial")
            && self.last_run_failures().iter().any(|(key, msg)| {
                let line = format!("  {} : {}", key.as_deref().unwrap_or("—"), msg.french());
                matches!(msg, Msg::FileDamaged { .. }) && out.lines().any(|l| l == line)
            });
        assert!(status.success() || partial, "{out}{err}");
    }

    /// `console add NAME` through the CLI; returns the password it printed once.
    pub fn add_console(&self, name: &str) -> String {
        let (status, out, err) = self.cli(&["console", "add", name]);
        assert!(status.success(), "{out}{err}");
        out.lines()
            .find_map(|l| l.trim().strip_prefix("mot de passe "))
            .unwrap_or_else(|| panic!("no password in {out}"))
            .trim()
            .to_string()
    }

    /// Run a command of the binary on these folders; returns (status, stdout, stderr).
    pub fn cli(&self, args: &[&str]) -> (ExitStatus, String, String) {
        self.cli_with_input(args, "")
    }

    /// [`Folders::cli`], with `input` on the command's standard input.
    pub fn cli_with_input(&self, args: &[&str], input: &str) -> (ExitStatus, String, String) {
        let mut child = ludotheque()
            .args(["--data", self.data.to_str().unwrap()])
            .args(["--library", self.library.to_str().unwrap()])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        append(&self.log_path(), &stderr);
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr,
        )
    }
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

pub struct TestServer {
    pub folders: Arc<Folders>,
    pub base: String,
    pub addr: String,
    child: Option<Child>,
    output: Arc<Mutex<String>>,
    pub agent: ureq::Agent,
}

/// A response, read whole.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The error slug of an error body.
    pub fn slug(&self) -> String {
        self.json()["error"].as_str().unwrap_or("").to_string()
    }
}

/// Not an argument of the binary: the harness's mark for `start_unflagged`.
const NO_LISTEN_FLAG: &str = "\0no --listen";

impl TestServer {
    pub fn start(args: &[&str]) -> TestServer {
        Self::start_on(Folders::new(), args)
    }

    /// Start the real binary on existing folders, on port 0, and wait for its address.
    pub fn start_on(folders: Arc<Folders>, args: &[&str]) -> TestServer {
        Self::spawn(folders, args, None)
    }

    /// The same, with a limit on the size of any file the process writes
    /// (RLIMIT_FSIZE): a disk that fills up, as far as the service can tell.
    pub fn start_with_file_size_limit(
        folders: Arc<Folders>,
        args: &[&str],
        bytes: u64,
    ) -> TestServer {
        Self::spawn(folders, args, Some(bytes))
    }

    /// `start_on` with the process's descriptors limited to `files` (soft and hard).
    pub fn start_with_open_files_limit(
        folders: Arc<Folders>,
        args: &[&str],
        files: u64,
    ) -> TestServer {
        Self::spawn_limited(folders, args, None, Some(files))
    }

    fn spawn(folders: Arc<Folders>, args: &[&str], fsize: Option<u64>) -> TestServer {
        Self::spawn_limited(folders, args, fsize, None)
    }

    /// `start_on` without `--listen` (nor `LUDOTHEQUE_LISTEN`): the service listens
    /// where its data folder says, or on 127.0.0.1:8080. The test seeds the address.
    pub fn start_unflagged(folders: Arc<Folders>, args: &[&str]) -> TestServer {
        let mut args = args.to_vec();
        args.push(NO_LISTEN_FLAG);
        Self::spawn_limited(folders, &args, None, None)
    }

    fn spawn_limited(
        folders: Arc<Folders>,
        args: &[&str],
        fsize: Option<u64>,
        files: Option<u64>,
    ) -> TestServer {
        let unflagged = args.contains(&NO_LISTEN_FLAG);
        let args: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| *a != NO_LISTEN_FLAG)
            .collect();
        let args = &args[..];
        use std::os::unix::process::CommandExt;
        let mut command = ludotheque();
        let limits = [(libc::RLIMIT_NOFILE, files), (libc::RLIMIT_FSIZE, fsize)];
        for (resource, limit) in limits {
            let Some(limit) = limit else { continue };
            // SAFETY: setrlimit is async-signal-safe; nothing else runs in the child.
            unsafe {
                command.pre_exec(move || {
                    let rl = libc::rlimit {
                        rlim_cur: limit,
                        rlim_max: limit,
                    };
                    if libc::setrlimit(resource, &rl) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = command
            .args(["--data", folders.data.to_str().unwrap()])
            .args(["--library", folders.library.to_str().unwrap()])
            .arg("serve")
            .args(if unflagged || args.contains(&"--listen") {
                &[][..]
            } else {
                &["--listen", "127.0.0.1:0"][..]
            })
            // Nothing scans behind a test's back unless it asks for the watch: a test
            // that writes files and then starts a task must not meet a 409.
            .args(if args.iter().any(|a| a.starts_with("--watch")) {
                &[][..]
            } else {
                &["--watch", "off"][..]
            })
            .args(args)
            .env("LUDOTHEQUE_LOG_LEVEL", "debug")
            .env_remove("LUDOTHEQUE_LISTEN")
            // Never the internet: a title data update goes to a closed local port
            // unless the test names its own source.
            .env("LUDOTHEQUE_TITLEDB_URL", "http://127.0.0.1:9")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        let output = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().unwrap();
        let (out2, log) = (Arc::clone(&output), folders.log_path());
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stderr);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                append(&log, &line);
                out2.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = stdout.read_to_end(&mut sink);
        });
        let addr = match first.trim().strip_prefix("listening on http://") {
            Some(a) => a.to_string(),
            None => {
                let _ = child.wait();
                std::thread::sleep(Duration::from_millis(100));
                panic!(
                    "the server did not start; stdout {first:?}\n{}",
                    output.lock().unwrap()
                );
            }
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .allow_non_standard_methods(true)
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        TestServer {
            folders,
            base: format!("http://{addr}"),
            addr,
            child: Some(child),
            output,
            agent,
        }
    }

    pub fn get(&self, path: &str) -> Resp {
        self.send("GET", path, &[], None)
    }

    pub fn post(&self, path: &str) -> Resp {
        self.send("POST", path, &[], None)
    }

    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Resp {
        let mut b = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{}", self.base, path));
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        let result = match body {
            Some(bytes) => self.agent.run(b.body(bytes).unwrap()),
            None => self.agent.run(b.body(()).unwrap()),
        };
        let resp = result.unwrap_or_else(|e| panic!("{method} {path}: {e}\n{}", self.output()));
        let resp = read_resp(resp);
        // Over every response the suite produces: no server path, in the body or a header
        // (but an admin's `code.server-path`, `web::first_steps`).
        let root = self.folders.tmp.path().to_string_lossy().into_owned();
        let leaked = without_server_path_elements(&resp.body).contains(&root)
            || resp.headers.iter().any(|(_, v)| v.contains(&root));
        assert!(!leaked, "{method} {path} reveals a server path: {resp:?}");
        resp
    }

    /// Wait until no task runs; returns the job status.
    pub fn wait_idle(&self) -> Value {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let job = self.get("/api/v1/job").json();
            if job["running"] == false {
                return job;
            }
            assert!(Instant::now() < until, "task still running: {job}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `wait_idle` for a server that needs a key.
    pub fn wait_idle_with(&self, key: &str) -> Value {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let job = self
                .send("GET", "/api/v1/job", &[("X-Api-Key", key)], None)
                .json();
            if job["running"] == false {
                return job;
            }
            assert!(Instant::now() < until, "task still running: {job}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's log holds `text` within a few seconds (it is read on another thread).
    pub fn wait_for_log(&self, text: &str) {
        let until = Instant::now() + Duration::from_secs(5);
        while !self.output().contains(text) {
            assert!(
                Instant::now() < until,
                "no {text:?} in the log:\n{}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn output(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    pub fn pid(&self) -> i32 {
        self.child.as_ref().unwrap().id() as i32
    }

    pub fn signal(&self, sig: i32) {
        unsafe { libc::kill(self.pid(), sig) };
    }

    /// Wait for the process to exit, at most `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + timeout;
        let child = self.child.as_mut().unwrap();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return Some(status);
            }
            if Instant::now() > until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGKILL, as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.kill();
        if std::thread::panicking() {
            eprintln!("---- server log ({}) ----\n{}", self.base, self.output());
        }
    }
}

/// An `Authorization: Basic` header for a console's name and password.
pub fn basic(name: &str, password: &str) -> String {
    use base64ct::{Base64, Encoding};
    let pair = format!("{name}:{password}");
    format!("Basic {}", Base64::encode_string(pair.as_bytes()))
}

/// Assert that no text the client saw contains a server path.
pub fn assert_no_server_path(server: &TestServer, body: &str) {
    let root = server.folders.tmp.path().to_str().unwrap();
    assert!(!body.contains(root), "a body reveals a server path: {body}");
    assert!(
        !body.contains("/tmp/"),
        "a body reveals a server path: {body}"
    );
}

/// A page without its `<code class="server-path">` elements: the server's folders an
/// admin is shown (`web::first_steps`), the one place a path may appear.
pub fn without_server_path_elements(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find("<code class=\"server-path\"") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        rest = after.find("</code>").map_or("", |end| &after[end..]);
    }
    out.push_str(rest);
    out
}

/// A ureq response, read whole.
pub fn read_resp(mut resp: ureq::http::Response<ureq::Body>) -> Resp {
    let headers = resp
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let body = resp
        .body_mut()
        .with_config()
        .limit(1 << 30)
        .read_to_vec()
        .unwrap_or_default();
    Resp {
        status: resp.status().as_u16(),
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// Every file below `dir`, at any depth.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out
}

/// A message as a page writes it, in French: the `Msg` the page says, escaped as maud
/// escapes text and attributes. A test checks which message a page says and with
/// which values, so a rewording of the sentence does not break it.
pub fn said_fr(m: ludotheque::testkit::Msg) -> String {
    escape(&m.french())
}

/// The same in English.
pub fn said_en(m: ludotheque::testkit::Msg) -> String {
    escape(&m.english())
}

/// The title data update `job` ended with says its icons' (fetched, failed) counts,
/// in the words the run recorded.
pub fn titles_updated_with_icons(s: &TestServer, job: &Value, icons: (u64, u64)) {
    let done = s.folders.last_run_msg();
    assert!(
        matches!(
            &done,
            Some(Msg::TitlesDone { icons: i, .. } | Msg::TitlesUnchanged { icons: i })
                if *i == Some(icons)
        ),
        "{done:?}"
    );
    assert_eq!(job["last"]["message"], done.unwrap().english(), "{job}");
}

/// A sentence as a page or the web's JSON says it on its own: with a capital.
pub fn capital(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Waits until `done` holds, polling, for at most `limit`; panics saying `what` was
/// not seen. The one way a test waits for something to happen.
pub fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < until, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a row of facts says: the `<dd id="…">` of that id, to its end.
pub fn fact<'a>(body: &'a str, id: &str) -> &'a str {
    let at = body
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in {body}"));
    let rest = &body[at..];
    &rest[..rest.find("</dd>").unwrap_or(rest.len())]
}

/// The opening tag of the element with this id.
pub fn tag<'a>(body: &'a str, id: &str) -> &'a str {
    let at = body
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in {body}"));
    let start = body[..at].rfind('<').unwrap();
    &body[start..at + body[at..].find('>').unwrap()]
}
