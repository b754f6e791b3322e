//! Notifications through the real binary, to local fake targets: each target's own
//! request for each event (ntfy's headers, Gotify's and Apprise's JSON, Discord's
//! embed and Telegram's `sendMessage`, checked against their documented shapes), a
//! failing target tried again, a hanging one blocking nothing, and Settings' add,
//! narrow, test and remove.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use base64ct::{Base64, Encoding};
use serde_json::{json, Value};

use crate::harness::{Folders, TestServer};
use crate::titles::{source, unscanned_demo};

/// A request a fake target received.
#[derive(Debug, Clone)]
struct Hit {
    path: String,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
    at: Instant,
}

impl Hit {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map_or("", String::as_str)
    }
}

/// A fake target on loopback: every request is handed over, then answered 500 for
/// the first `fail_first`, 200 (with Telegram's `{"ok": true}`) after.
fn receiver(fail_first: usize) -> (String, Hits, Arc<AtomicUsize>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let origin = format!("127.0.0.1:{}", server.server_addr().to_ip().unwrap().port());
    let (tx, rx) = mpsc::channel();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    std::thread::spawn(move || {
        for mut rq in server.incoming_requests() {
            let headers = rq
                .headers()
                .iter()
                .map(|h| {
                    (
                        h.field.as_str().as_str().to_ascii_lowercase(),
                        h.value.to_string(),
                    )
                })
                .collect();
            let mut body = Vec::new();
            let _ = std::io::Read::read_to_end(rq.as_reader(), &mut body);
            let hit = Hit {
                path: rq.url().to_string(),
                headers,
                body,
                at: Instant::now(),
            };
            let n = seen.fetch_add(1, Ordering::SeqCst);
            if tx.send(hit).is_err() {
                return;
            }
            let status = if n < fail_first { 500 } else { 200 };
            let _ = rq.respond(
                tiny_http::Response::from_string(r#"{"ok":true}"#).with_status_code(status),
            );
        }
    });
    let hits = Hits {
        rx,
        seen: Default::default(),
    };
    (origin, hits, count)
}

/// What a fake target received so far, kept: a search never loses the hits it
/// passes over.
struct Hits {
    rx: mpsc::Receiver<Hit>,
    seen: std::cell::RefCell<Vec<Hit>>,
}

impl Hits {
    /// Every hit received within `wait` from now (and none of before).
    fn within(&self, wait: Duration) -> Vec<Hit> {
        let until = Instant::now() + wait;
        let from = self.seen.borrow().len();
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match self.rx.recv_timeout(left) {
                Ok(hit) => self.seen.borrow_mut().push(hit),
                Err(_) => break,
            }
        }
        self.seen.borrow()[from..].to_vec()
    }

    /// The `nth` (0-based) hit at `path` whose body holds `needle`, waiting at most 20 s.
    fn nth(&self, n: usize, path: &str, needle: &str) -> Hit {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let found: Vec<Hit> = self
                .seen
                .borrow()
                .iter()
                .filter(|h| h.path == path && String::from_utf8_lossy(&h.body).contains(needle))
                .cloned()
                .collect();
            if let Some(hit) = found.get(n) {
                return hit.clone();
            }
            let left = until
                .checked_duration_since(Instant::now())
                .unwrap_or_else(|| {
                    panic!(
                        "no hit {n} at {path} with {needle}: {:?}",
                        self.seen.borrow()
                    )
                });
            if let Ok(hit) = self.rx.recv_timeout(left) {
                self.seen.borrow_mut().push(hit);
            }
        }
    }

    fn at(&self, path: &str, needle: &str) -> Hit {
        self.nth(0, path, needle)
    }
}

/// The demo library written into `folders`' library, with its title data elsewhere.
fn write_demo(folders: &Folders) {
    let out = crate::harness::ludotheque()
        .args([
            "--data",
            folders.tmp.path().join("demo-data").to_str().unwrap(),
            "demo-library",
        ])
        .arg(&folders.library)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// A scan, or the one the service started by itself on a library never scanned.
fn scan(s: &TestServer) {
    let r = s.post("/api/v1/scan");
    assert!(matches!(r.status, 202 | 409), "{}", r.body);
    s.wait_idle();
}

fn decode_word(word: &str) -> String {
    let b64 = word
        .strip_prefix("=?UTF-8?B?")
        .and_then(|w| w.strip_suffix("?="))
        .unwrap_or_else(|| panic!("{word}"));
    String::from_utf8(Base64::decode_vec(b64).unwrap()).unwrap()
}

#[test]
fn each_target_gets_each_event_in_its_own_shape() {
    let folders = unscanned_demo();
    let (at, rx, _) = receiver(0);
    let list = folders.tmp.path().join("targets.txt");
    std::fs::write(
        &list,
        format!("# mine\ngotify://{at}/sub/G0tifyT0ken\n\njson://{at}/in\ndiscord://4242/D1sc0rdT0ken\ntgram://123456:T3legramT0ken/-100200\n"),
    )
    .unwrap();
    let src = source();
    let ntfy = format!("ntfy://bob:pa55word@{at}/jeux");
    let s = TestServer::start_on(
        folders.clone(),
        &[
            "--notify",
            &ntfy,
            "--notify-file",
            list.to_str().unwrap(),
            "--test-notify-base",
            &format!("http://{at}"),
            "--public-url",
            "https://ludo.example/",
            "--titledb-url",
            &src.url,
            "--titledb-region",
            "IL.en",
            "--low-space",
            "0",
        ],
    );
    // The password given with --notify is warned of, never written out.
    s.wait_for_log("given with --notify holds a secret");
    assert!(s.output().contains("give it in --notify-file"));
    for secret in ["pa55word", "G0tifyT0ken", "D1sc0rdT0ken", "T3legramT0ken"] {
        assert!(!s.output().contains(secret), "{secret} in the log");
    }

    // A scan brings new titles: one message per target, in French (no account).
    scan(&s);
    let ntfy = rx.at("/jeux", "nouveaux titres dans la biblioth");
    assert_eq!(
        decode_word(ntfy.header("x-title")),
        "Ludothèque · Nouveaux jeux"
    );
    assert_eq!(ntfy.header("x-priority"), "3");
    assert_eq!(ntfy.header("x-tags"), "video_game");
    assert_eq!(ntfy.header("x-click"), "https://ludo.example/library");
    assert_eq!(
        ntfy.header("authorization"),
        format!("Basic {}", Base64::encode_string(b"bob:pa55word"))
    );
    let gotify = rx.at("/sub/message", "Nouveaux jeux");
    assert_eq!(gotify.header("x-gotify-key"), "G0tifyT0ken");
    let g = gotify.json();
    assert_eq!(
        (g["title"].as_str(), g["priority"].as_u64()),
        (Some("Ludothèque · Nouveaux jeux"), Some(5))
    );
    assert_eq!(
        g["extras"]["client::notification"]["click"]["url"],
        "https://ludo.example/library"
    );
    assert!(
        g["message"].as_str().unwrap().contains("nouveaux titres"),
        "{g}"
    );
    let plain = rx.at("/in", "new_games").json();
    assert_eq!(plain["version"], "1.0");
    assert_eq!(
        (plain["type"].as_str(), plain["event"].as_str()),
        (Some("info"), Some("new_games"))
    );
    assert_eq!(plain["link"], "https://ludo.example/library");
    let discord = rx
        .at("/api/webhooks/4242/D1sc0rdT0ken", "Nouveaux jeux")
        .json();
    let embed = &discord["embeds"][0];
    assert_eq!(embed["title"], "Ludothèque · Nouveaux jeux");
    assert_eq!(embed["url"], "https://ludo.example/library");
    assert!(embed["description"].as_str().unwrap().chars().count() <= 4096);
    assert!(embed["color"].is_u64());
    let telegram = rx
        .at("/bot123456:T3legramT0ken/sendMessage", "Nouveaux jeux")
        .json();
    assert_eq!(
        (
            telegram["chat_id"].as_str(),
            telegram["parse_mode"].as_str()
        ),
        (Some("-100200"), Some("HTML"))
    );
    assert!(
        telegram["text"]
            .as_str()
            .unwrap()
            .starts_with("<b>Ludothèque · Nouveaux jeux</b>\n"),
        "{telegram}"
    );

    // The demo's broken file, found by that scan: a warning linking to the files.
    let damaged = rx.at("/in", "\"damaged\"").json();
    assert_eq!(
        (damaged["type"].as_str(), damaged["link"].as_str()),
        (Some("warning"), Some("https://ludo.example/files"))
    );
    assert_eq!(damaged["message"], "1 fichier endommagé trouvé");
    // Title data that says what the library lacks: updates and DLC newly wanted.
    assert_eq!(s.post("/api/titles/update").status, 202);
    s.wait_idle();
    let plain = rx.at("/in", "\"updates\"").json();
    assert_eq!(
        plain["link"],
        "https://ludo.example/library?show=incomplete"
    );
    assert!(
        plain["message"]
            .as_str()
            .unwrap()
            .contains("mises à jour ou des DLC"),
        "{plain}"
    );

    // A task that fails: a warning, linking to its run.
    *src_mode(&src) = "down";
    assert_eq!(s.post("/api/titles/update").status, 202);
    s.wait_idle();
    let ntfy = rx.at("/jeux", "a échoué");
    assert_eq!(
        (ntfy.header("x-priority"), ntfy.header("x-tags")),
        ("4", "warning")
    );
    assert!(
        ntfy.header("x-click")
            .starts_with("https://ludo.example/tasks/"),
        "{ntfy:?}"
    );
    // One that ends partial (the region file only from its kept copy): told too.
    *src_mode(&src) = "small";
    assert_eq!(s.post("/api/titles/update").status, 202);
    s.wait_idle();
    assert_eq!(folders.run_results().last().unwrap(), "partial");
    let ntfy = rx.at("/jeux", "s'est terminée avec des erreurs");
    assert_eq!(ntfy.header("x-tags"), "warning");
}

fn src_mode(src: &crate::titles::Source) -> std::sync::MutexGuard<'_, &'static str> {
    src.mode.lock().unwrap()
}

#[test]
fn a_failing_target_is_tried_again_and_a_hanging_one_holds_nothing() {
    let folders = unscanned_demo();
    let (at, rx, count) = receiver(1);
    // A target that takes the connection and never answers.
    let hang = TcpListener::bind("127.0.0.1:0").unwrap();
    let hang_at = hang.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in hang.incoming().flatten() {
            held.push(stream);
        }
    });
    let s = TestServer::start_on(
        folders,
        &[
            "--notify",
            &format!("ntfy://{hang_at}/stuck"),
            "--notify",
            &format!("json://{at}/in"),
            "--low-space",
            "0",
        ],
    );
    let started = Instant::now();
    scan(&s);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the scan waited on a target"
    );
    // The first message was answered 500; the same again, seconds later, got through.
    let first = rx.nth(0, "/in", "");
    let again = rx.nth(1, "/in", "");
    let gap = again.at - first.at;
    assert!(
        gap >= Duration::from_secs(4) && gap < Duration::from_secs(30),
        "{gap:?}"
    );
    assert_eq!(first.body, again.body);
    assert!(count.load(Ordering::SeqCst) >= 2);
    // Meanwhile the service answers at once.
    let t = Instant::now();
    assert_eq!(s.get("/api/v1/health").status, 200);
    assert!(t.elapsed() < Duration::from_secs(1));
    // A test message to the hanging target fails, said, within its deadline.
    let page = s.get("/settings/notifications").body;
    let stuck = page
        .split("data-target=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let t = Instant::now();
    let path = format!("/api/notify/{stuck}/test");
    let test = std::thread::scope(|scope| {
        let first = scope.spawn(|| s.post(&path));
        // Meanwhile a second test is refused at once: tests hold one worker at most.
        std::thread::sleep(Duration::from_millis(500));
        let second = s.post(&path);
        assert_eq!((second.status, second.slug()), (409, "conflict".into()));
        first.join().unwrap()
    });
    assert_eq!(
        (test.status, test.slug()),
        (502, "bad_gateway".to_string()),
        "{}",
        test.body
    );
    assert!(t.elapsed() < Duration::from_secs(20));
    // The next test may go: to the target that answers, it is sent.
    let working = page
        .split("data-target=\"")
        .nth(2)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let sent = s.post(&format!("/api/notify/{working}/test"));
    assert_eq!(sent.status, 200, "{}", sent.body);
}

#[test]
fn settings_add_narrow_test_and_remove_targets() {
    let folders = Folders::new();
    let (at, rx, _) = receiver(0);
    let fixed = format!("json://{at}/fixed");
    let s = TestServer::start_on(folders.clone(), &["--notify", &fixed, "--low-space", "0"]);
    let json_body = |v: Value| Some(serde_json::to_vec(&v).unwrap());
    let send = |method: &str, path: &str, v: Option<Value>| {
        s.send(
            method,
            path,
            &[("Content-Type", "application/json")],
            v.and_then(json_body),
        )
    };
    // Not a target: refused, its secret cut.
    let bad = send(
        "POST",
        "/api/notify",
        Some(json!({"url": "https://hooks.example/T0pS3cret"})),
    );
    assert_eq!(bad.status, 400);
    let bad = send(
        "POST",
        "/api/notify",
        Some(json!({"url": "gotify://push.lan"})),
    );
    assert_eq!(bad.status, 400, "{}", bad.body);
    // Added, for new games only; a token is shown cut.
    let added = send(
        "POST",
        "/api/notify",
        Some(
            json!({"url": format!("gotify://{at}/gotify/S3cretT0ken"), "new_games": true, "damaged": false}),
        ),
    );
    assert_eq!(added.status, 201, "{}", added.body);
    let id = added.json()["id"].as_str().unwrap().to_string();
    let page = s.get("/settings/notifications").body;
    assert!(
        page.contains(&format!("data-target=\"{id}\" data-fixed=\"false\"")),
        "{page}"
    );
    assert!(
        page.contains("S3c…") && !page.contains("S3cretT0ken"),
        "{page}"
    );
    assert!(page.contains("data-fixed=\"true\""));
    // The same again is a conflict.
    let twice = send(
        "POST",
        "/api/notify",
        Some(json!({"url": format!("gotify://{at}/gotify/S3cretT0ken")})),
    );
    assert_eq!(twice.status, 409);
    // Its test message arrives, and says so.
    let test = send("POST", &format!("/api/notify/{id}/test"), None);
    assert_eq!(test.status, 200, "{}", test.body);
    assert_eq!(test.json()["said"], "message de test envoyé");
    let hit = rx.at("/gotify/message", "Test des notifications");
    assert_eq!(hit.header("x-gotify-key"), "S3cretT0ken");
    // The fixed target narrowed to nothing gets nothing; the added one its new games.
    let fixed_id = page
        .split("data-target=\"")
        .skip(1)
        .filter_map(|p| p.split('"').next())
        .find(|i| *i != id)
        .unwrap()
        .to_string();
    let narrowed = send(
        "POST",
        &format!("/api/notify/{fixed_id}/events"),
        Some(json!({"new_games": false})),
    );
    assert_eq!(
        (narrowed.status, narrowed.json()["events"].clone()),
        (200, json!([]))
    );
    // Games arrive.
    s.wait_idle();
    write_demo(&folders);
    scan(&s);
    let hits = rx.within(Duration::from_secs(3));
    assert!(
        hits.iter()
            .any(|h| h.path == "/gotify/message"
                && h.json()["title"] == "Ludothèque · Nouveaux jeux"),
        "{hits:?}"
    );
    assert!(!hits.iter().any(|h| h.path == "/fixed"), "{hits:?}");
    assert!(
        !hits
            .iter()
            .any(|h| String::from_utf8_lossy(&h.body).contains("ndommag")),
        "damaged was unchecked"
    );
    // A target given at start cannot be removed here; an added one can, and stays
    // removed; what was added or narrowed outlives a restart.
    assert_eq!(
        send("DELETE", &format!("/api/notify/{fixed_id}"), None).status,
        409
    );
    drop(s);
    // A target added before options after ? were refused (they were never read): kept
    // without them, listed, its events kept.
    let db = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    db.execute(
        "INSERT INTO notify_targets (id, url, events, added) VALUES ('0123456789ab', ?1, 'damaged', 1)",
        [format!("json://{at}/kept?priority=high")],
    )
    .unwrap();
    drop(db);
    let s = TestServer::start_on(folders.clone(), &["--notify", &fixed, "--low-space", "0"]);
    let page = s.get("/settings/notifications").body;
    assert!(page.contains(&format!("data-target=\"{id}\"")), "{page}");
    let kept = page
        .split("<li class=\"target\"")
        .find(|t| t.contains(&format!("json://{at}/k")))
        .and_then(|t| t.split("</li>").next())
        .unwrap_or_else(|| panic!("the kept target is not listed: {page}"));
    assert!(!kept.contains("priority"), "{kept}");
    assert!(kept.contains(r#"name="damaged" checked"#), "{kept}");
    assert!(!kept.contains(r#"name="new_games" checked"#), "{kept}");
    s.wait_for_log("is kept without its options after ?");
    let removed = s.send("DELETE", &format!("/api/notify/{id}"), &[], None);
    assert_eq!(removed.status, 200);
    assert!(!s
        .get("/settings/notifications")
        .body
        .contains(&format!("data-target=\"{id}\"")));
    assert_eq!(
        s.send("DELETE", &format!("/api/notify/{id}"), &[], None)
            .status,
        404
    );
}

#[test]
fn low_space_and_an_offline_library_are_told_once() {
    let folders = Folders::new();
    let (at, rx, _) = receiver(0);
    // Any disk has less than 99 % free.
    let s = TestServer::start_on(
        folders.clone(),
        &["--notify", &format!("json://{at}/in"), "--low-space", "99"],
    );
    let low = rx.at("/in", "low_space").json();
    assert_eq!(low["type"], "warning");
    assert!(
        low["message"].as_str().unwrap().contains(" % de place"),
        "{low}"
    );
    let away = folders.tmp.path().join("away");
    std::fs::rename(&folders.library, &away).unwrap();
    let offline = rx.at("/in", "library_offline").json();
    assert_eq!(offline["type"], "failure");
    // Told once: nothing more while it stays away. The data folder shares the
    // library's disk here: one low-space note for both.
    let more = rx.within(Duration::from_secs(7));
    let lows = rx
        .seen
        .borrow()
        .iter()
        .filter(|h| String::from_utf8_lossy(&h.body).contains("low_space"))
        .count();
    assert_eq!(lows, 1);
    assert!(
        !more
            .iter()
            .any(|h| String::from_utf8_lossy(&h.body).contains("library_offline")),
        "{more:?}"
    );
    std::fs::rename(&away, &folders.library).unwrap();
    drop(s);
}

/// A save CyberFoil backs up is told, with a link to the console's page.
#[test]
fn a_save_backed_up_is_told() {
    let folders = Folders::new();
    let auth = crate::harness::basic("Salon", &folders.add_console("Salon"));
    // The first admin reads English: the notes are in English.
    let out = crate::harness::ludotheque()
        .env("LC_ALL", "en_GB.UTF-8")
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["user", "add", "ann", "--admin"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            let mut stdin = child.stdin.take().unwrap();
            std::io::Write::write_all(&mut stdin, b"correct horse battery\n")?;
            drop(stdin);
            child.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
    let (at, rx, _) = receiver(0);
    let s = TestServer::start_on(
        folders.clone(),
        &[
            "--notify",
            &format!("json://{at}/in"),
            "--public-url",
            "https://ludo.example.net",
            "--low-space",
            "0",
        ],
    );
    let zip = {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut out);
        z.start_file("slot", zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut z, b"data").unwrap();
        z.finish().unwrap();
        out.into_inner()
    };
    let mut body =
        b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.zip\"\r\n\r\n"
            .to_vec();
    body.extend_from_slice(&zip);
    body.extend_from_slice(b"\r\n--b--\r\n");
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "multipart/form-data; boundary=b"),
    ];
    let r = s.send(
        "POST",
        "/api/saves/upload/0100ABCD12340000",
        &headers,
        Some(body),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let note = rx.at("/in", "save_backed_up").json();
    let text = note.to_string();
    assert!(
        text.contains("Salon") && text.contains("0100ABCD12340000"),
        "{note}"
    );
    assert_eq!(note["title"], "Ludothèque · Save backed up", "{note}");
    assert!(text.contains("backed up its save of"), "{note}");
    assert!(
        text.contains("https://ludo.example.net/consoles/Salon"),
        "{note}"
    );
}

/// A `--public-url` that is no http(s) address in ASCII, or a `--titledb-every` past a
/// year, stops the start with a clear error.
#[test]
fn a_bad_public_url_or_schedule_is_refused_at_start() {
    let folders = Folders::new();
    for (flag, value, said) in [
        (
            "--public-url",
            "ludo.example.net",
            "--public-url doit être une adresse http(s)",
        ),
        ("--public-url", "https://ludothèque.example", "en ASCII"),
        ("--titledb-every", "400days", "at most a year"),
    ] {
        let out = crate::harness::ludotheque()
            .args(["--data", folders.data.to_str().unwrap(), "--library"])
            .arg(&folders.library)
            .args(["serve", "--listen", "127.0.0.1:0", flag, value])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(said),
            "{flag} {value}: {err}"
        );
    }
}
