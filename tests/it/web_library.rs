//! The library in the browser for a new user's first hour (issue 40): downloading a
//! file from its page, what the dashboard says is missing, the file list's selection
//! (trash, push, decompress, compress), "did you mean", display versions. Through the
//! real binary, over HTTP.

use serde_json::json;

use crate::harness::{Folders, Resp, TestServer};
use crate::web::{add_user, send_json, sign_in};

const GAME: &str = "Studio/Moon/Moonlit Odyssey [0100000000010000][v0].nsp";

/// A server on the demo library with an admin and a viewer, no loopback rule.
fn server() -> (TestServer, String, String) {
    server_with(|_| {})
}

/// The same, with `prepare` run on the folders before the service starts.
fn server_with(prepare: impl FnOnce(&Folders)) -> (TestServer, String, String) {
    let folders = Folders::new();
    crate::library::demo(&folders);
    prepare(&folders);
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let admin = sign_in(&s, "admin", "admin password");
    let viewer = sign_in(&s, "viewer", "viewer password");
    wait_idle(&s, &admin);
    (s, admin, viewer)
}

pub(crate) fn wait_idle(s: &TestServer, cookie: &str) {
    let idle = || {
        let r = s.send("GET", "/api/job", &[("Cookie", cookie)], None);
        r.status == 200 && r.json()["running"] == false
    };
    let limit = std::time::Duration::from_secs(60);
    crate::harness::wait_until("the task's end", limit, idle);
}

pub(crate) fn get_as(s: &TestServer, cookie: &str, path: &str) -> Resp {
    s.send(
        "GET",
        path,
        &[("Cookie", cookie), ("Accept-Language", "en")],
        None,
    )
}

/// A viewer downloads a file from its page, a range of it too, through the shop's
/// download path (noted with the shop's downloads); a stranger gets nothing.
#[test]
fn a_viewer_downloads_a_file_with_a_range_and_a_stranger_cannot() {
    let (s, _, viewer) = server();
    let on_disk = std::fs::read(s.folders.library.join(GAME)).unwrap();
    let url = format!(
        "/download/{}",
        GAME.replace(' ', "%20")
            .replace('[', "%5B")
            .replace(']', "%5D")
    );
    let page = get_as(
        &s,
        &viewer,
        &format!("/game/{}", &url["/download/".len()..]),
    );
    assert!(
        page.body.contains(&format!("href=\"{url}\"")),
        "{}",
        page.body
    );
    assert!(page.body.contains("id=\"download\""), "{}", page.body);
    let whole = get_as(&s, &viewer, &url);
    assert_eq!(whole.status, 200, "{whole:?}");
    // The harness reads bodies as text: the same bytes read the same.
    assert_eq!(whole.body, String::from_utf8_lossy(&on_disk));
    assert_eq!(
        whole.header("content-length"),
        Some(on_disk.len().to_string().as_str())
    );
    assert!(whole
        .header("content-disposition")
        .unwrap()
        .starts_with("attachment;"));
    let part = s.send(
        "GET",
        &url,
        &[("Cookie", &viewer), ("Range", "bytes=16-47")],
        None,
    );
    assert_eq!(part.status, 206, "{part:?}");
    assert_eq!(
        part.header("content-range"),
        Some(format!("bytes 16-47/{}", on_disk.len()).as_str())
    );
    assert_eq!(part.body, String::from_utf8_lossy(&on_disk[16..48]));
    // Signed out: sent to sign in, not one byte of the file.
    let stranger = s.send("GET", &url, &[("Range", "bytes=0-15")], None);
    assert_eq!(stranger.status, 303, "{stranger:?}");
    assert!(stranger
        .header("location")
        .unwrap()
        .starts_with("/login?next="));
    assert!(stranger.header("content-range").is_none());
    let missing = get_as(&s, &viewer, "/download/no/such.nsp");
    assert_eq!(missing.status, 404);
    // A page, in the reader's language, saying why: not the API's JSON.
    assert!(
        missing.body.contains("<html lang=\"fr\""),
        "{}",
        missing.body
    );
    assert!(
        missing.body.contains("data-error=\"not_found\""),
        "{}",
        missing.body
    );
    // Noted with the shop's downloads, under the account.
    let admin = sign_in(&s, "admin", "admin password");
    let consoles = get_as(&s, &admin, "/device");
    assert!(consoles.body.contains("user:viewer"), "{}", consoles.body);
}

fn post_as(s: &TestServer, cookie: &str, path: &str, body: serde_json::Value) -> Resp {
    send_json(s, "POST", path, &[("Cookie", cookie)], body)
}

/// Every file under the library with this extension, as keys, sorted.
fn keys_with(s: &TestServer, ext: &str) -> Vec<String> {
    let root = &s.folders.library;
    let mut keys: Vec<String> = crate::harness::files_under(root)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
        .collect();
    keys.sort();
    keys
}

fn size_of(s: &TestServer, key: &str) -> u64 {
    std::fs::metadata(s.folders.library.join(key))
        .unwrap()
        .len()
}

/// The file list's selection: a box on every row with its size and which of
/// decompress and compress apply, one bar with the four actions, each asking first
/// with a sentence the page script fills with the count and size; the routes check
/// every key before changing anything and say what they did.
#[test]
fn a_selection_goes_to_the_trash_the_push_list_or_decompress_with_its_count_and_size() {
    let (s, admin, viewer) = server();
    let files = get_as(&s, &admin, "/files?limit=100").body;
    for id in [
        "trash-selected",
        "push-selected",
        "convert-selected",
        "compress-selected",
    ] {
        assert!(files.contains(&format!("id=\"{id}\"")), "{id}: {files}");
    }
    assert!(
        files.contains("data-ask=\"Mettre {files} ({size}) à la corbeille ?"),
        "{files}"
    );
    assert!(files.contains("data-many=\"{n} fichiers\""), "{files}");
    // The decompress button takes the compressed files of the selection to convert.
    let convert = crate::harness::tag(&files, "convert-selected");
    assert!(
        convert.contains(r#"data-selection="convert" data-api="/api/files/convert""#),
        "{convert}"
    );
    let nsz = keys_with(&s, "nsz");
    let nsp = keys_with(&s, "nsp");
    let row = format!(
        "value=\"{}\" data-size=\"{}\" data-convert=\"true\" data-compress=\"false\"",
        nsz[0],
        size_of(&s, &nsz[0])
    );
    assert!(files.contains(&row), "{row}: {files}");
    // A viewer sees no boxes and may do none of it.
    let seen = get_as(&s, &viewer, "/files").body;
    assert!(!seen.contains("class=\"pick\"") && !seen.contains("id=\"selection\""));
    let r = post_as(&s, &viewer, "/api/files/trash", json!({"keys": [nsp[0]]}));
    assert_eq!(r.status, 403);
    // Checked before anything changes.
    for (body, status) in [
        (json!({"keys": []}), 400),
        (json!({}), 400),
        (json!({"keys": [nsp[0], "no/such.nsp"]}), 404),
    ] {
        for route in ["/api/files/trash", "/api/files/push", "/api/files/convert"] {
            let r = post_as(&s, &admin, route, body.clone());
            assert_eq!(r.status, status, "{route} {body}: {}", r.body);
        }
    }
    assert!(s.folders.library.join(&nsp[0]).exists());
    // Decompress takes only .nsz/.xcz, and only those asked.
    let r = post_as(
        &s,
        &admin,
        "/api/files/convert",
        json!({"keys": [nsz[0], nsp[0]]}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let r = post_as(&s, &admin, "/api/files/convert", json!({"keys": [nsz[0]]}));
    assert_eq!(r.status, 202, "{}", r.body);
    wait_idle(&s, &admin);
    assert!(!s.folders.library.join(&nsz[0]).exists(), "{}", nsz[0]);
    let plain = nsz[0].replace(".nsz", ".nsp");
    assert!(s.folders.library.join(&plain).exists(), "{plain}");
    for other in &nsz[1..] {
        assert!(s.folders.library.join(other).exists(), "not asked: {other}");
    }
    // The push list: two files, their count and size said back.
    let two = [nsp[1].clone(), nsp[2].clone()];
    let bytes = size_of(&s, &two[0]) + size_of(&s, &two[1]);
    let r = post_as(&s, &admin, "/api/files/push", json!({ "keys": two }));
    assert_eq!(r.json(), json!({"files": 2, "bytes": bytes}));
    let list = s
        .send("GET", "/api/push", &[("Cookie", &admin)], None)
        .json();
    let listed: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["key"].as_str().unwrap())
        .collect();
    assert_eq!(listed.len(), 2, "{list}");
    // A selection whose one file became a named pipe since the scan moves nothing.
    let (sound, pipe) = (nsp[0].clone(), nsp.last().unwrap().clone());
    assert!(sound < pipe && !two.contains(&pipe), "{sound} {pipe}");
    let pipe_path = s.folders.library.join(&pipe);
    std::fs::remove_file(&pipe_path).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&pipe_path)
        .status();
    assert!(made.unwrap().success());
    let r = post_as(
        &s,
        &admin,
        "/api/files/trash",
        json!({ "keys": [&sound, &pipe] }),
    );
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(
        s.folders.library.join(&sound).exists(),
        "moved before the pipe was met"
    );
    // The trash: both files moved, restorable, the same count and size said back.
    let r = post_as(&s, &admin, "/api/files/trash", json!({ "keys": two }));
    assert_eq!(r.json(), json!({"files": 2, "bytes": bytes}), "{}", r.body);
    for key in &two {
        assert!(!s.folders.library.join(key).exists(), "{key}");
    }
    let trash = s
        .send("GET", "/api/trash", &[("Cookie", &admin)], None)
        .json();
    assert_eq!(trash["items"].as_array().unwrap().len(), 3, "{trash}"); // and the decompressed original
}

fn db_count(s: &TestServer, sql: &str) -> u64 {
    let db = rusqlite::Connection::open(s.folders.data.join("ludotheque.db")).unwrap();
    db.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as u64
}

/// The value of the dashboard's card that links to `href`.
fn card(body: &str, href: &str) -> String {
    let at = body
        .find(&format!("href=\"{href}\""))
        .unwrap_or_else(|| panic!("no card links to {href}: {body}"));
    let rest = &body[at..];
    let value = &rest[rest.find("class=\"value\">").unwrap() + 14..];
    value[..value.find('<').unwrap()].to_string()
}

fn english(s: &TestServer, cookie: &str) {
    let r = post_as(s, cookie, "/api/me/lang", json!({"lang": "en"}));
    assert_eq!(r.status, 200, "{}", r.body);
}

/// The dashboard answers "what am I missing?": titles, updates available, DLC
/// missing and damaged files, each a link to the list it counts, with the numbers
/// the lists give; the titles added last; the compressed files said as a fact.
#[test]
fn the_dashboard_says_what_is_missing_with_links_to_each_list() {
    let (s, admin, _) = server();
    english(&s, &admin);
    let body = get_as(&s, &admin, "/").body;
    let titles = db_count(&s, "SELECT count(*) FROM title_state");
    let updates = db_count(
        &s,
        "SELECT count(*) FROM title_state WHERE update_available",
    );
    let dlc = db_count(&s, "SELECT count(*) FROM title_state WHERE dlc_missing");
    let damaged = db_count(
        &s,
        "SELECT count(*) FROM games WHERE NOT header_ok OR damage IS NOT NULL",
    );
    assert!(titles > 0 && updates > 0 && dlc > 0 && damaged > 0);
    assert_eq!(card(&body, "/library"), titles.to_string());
    assert_eq!(
        card(&body, "/library?show=update_available"),
        updates.to_string()
    );
    assert_eq!(card(&body, "/library?show=dlc_missing"), dlc.to_string());
    assert_eq!(card(&body, "/files?damaged=1"), damaged.to_string());
    assert!(
        body.contains(">Damaged files<") && body.contains(">Titles<"),
        "{body}"
    );
    // Each link's list holds that many.
    for (href, n, word) in [
        ("/library?show=update_available", updates, "title"),
        ("/library?show=dlc_missing", dlc, "title"),
        ("/files?damaged=1", damaged, "result"),
    ] {
        let list = get_as(&s, &admin, href).body;
        let plural = if n == 1 {
            word.to_string()
        } else {
            format!("{word}s")
        };
        let said = format!("id=\"result-count\">{n} {plural}");
        assert!(list.contains(&said), "{href}: {list}");
    }
    let broken = get_as(&s, &admin, "/files?damaged=1").body;
    assert!(broken.contains("Broken Download"), "{broken}");
    // The titles added last, as covers; compressed files are no to-do.
    assert!(body.contains("id=\"recently-added\""), "{body}");
    assert!(body.contains("class=\"cover\" href=\"/title/"), "{body}");
    assert!(
        body.contains(r#"<div class="card" data-card="compressed">"#),
        "{body}"
    );
}

/// A search that finds nothing offers the nearest spelling that finds something, on
/// the titles and on the files; a search that finds something offers nothing.
#[test]
fn a_near_miss_offers_did_you_mean() {
    let (s, admin, _) = server();
    english(&s, &admin);
    let page = get_as(&s, &admin, "/library?q=zepyhr").body;
    assert!(page.contains("id=\"did-you-mean\""), "{page}");
    assert!(page.contains(">zephyr</a>?"), "{page}");
    assert!(page.contains("href=\"/library?q=zephyr\""), "{page}");
    let files = get_as(&s, &admin, "/files?q=moonlt+odyssey").body;
    assert!(files.contains(">moonlit odyssey</a>?"), "{files}");
    let found = get_as(&s, &admin, "/library?q=zephyr").body;
    assert!(!found.contains("did-you-mean"), "{found}");
    // A spelling that would find nothing on this list (Zephyr has its game) is not
    // offered: the link would lead to an empty list.
    let listed = get_as(&s, &admin, "/library?q=zephyr&show=base_missing").body;
    assert!(listed.contains("id=\"no-titles\""), "{listed}");
    let narrowed = get_as(&s, &admin, "/library?q=zepyhr&show=base_missing").body;
    assert!(!narrowed.contains("did-you-mean"), "{narrowed}");
    let far = get_as(&s, &admin, "/library?q=qqqqqqqq").body;
    assert!(!far.contains("did-you-mean"), "{far}");
    // A title ID that is not there is no misspelling.
    let id = get_as(&s, &admin, "/library?q=0100FFFF").body;
    assert!(!id.contains("did-you-mean"), "{id}");
}

/// The library shows covers or a table, as the address asks, and keeps the choice
/// in a cookie; covers load lazily, a title without an icon gets a placeholder.
#[test]
fn the_library_is_covers_or_a_table_and_keeps_the_choice() {
    let (s, admin, _) = server();
    let table = get_as(&s, &admin, "/library").body;
    assert!(table.contains("id=\"titles\"") && !table.contains("id=\"title-grid\""));
    let r = get_as(&s, &admin, "/library?view=grid");
    assert!(r.body.contains("id=\"title-grid\""), "{}", r.body);
    assert!(r.body.contains("class=\"placeholder h"), "{}", r.body);
    assert!(
        r.body.contains("href=\"/library?view=table\""),
        "{}",
        r.body
    );
    let cookie = r.header("set-cookie").unwrap().to_string();
    assert!(cookie.starts_with("library_view=grid;"), "{cookie}");
    let kept = format!("{admin}; library_view=grid");
    let again = s
        .send("GET", "/library?page=1", &[("Cookie", &kept)], None)
        .body;
    assert!(again.contains("id=\"title-grid\""), "{again}");
    let back = s.send("GET", "/library?view=table", &[("Cookie", &kept)], None);
    assert!(back.body.contains("id=\"titles\""));
    assert!(back
        .header("set-cookie")
        .unwrap()
        .starts_with("library_view=table;"));
}

/// An update of Moonlit Odyssey newer than the demo's title data knows (v393216),
/// read with made-up console keys: its Control NCA says "1.6.1".
fn newer_update(folders: &Folders) {
    use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
    let keys = TestKeys::new(40);
    std::fs::create_dir_all(&folders.data).unwrap();
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, keys.prod_keys_file(KeysFile::Full)).unwrap();
    let private = std::os::unix::fs::PermissionsExt::from_mode(0o600);
    std::fs::set_permissions(&path, private).unwrap();
    let update = Title {
        display_version: "1.6.1".into(),
        ..Title::patch(0x0100_0000_0001_0000, 393217)
    };
    let file = folders.library.join(NEWER);
    std::fs::write(file, keyed::nsp(&keys, &[update])).unwrap();
}

const NEWER: &str = "Moonlit Odyssey [0100000000010800][v393217].nsp";

/// Versions read as people read them ("1.6.1", the number on hover) in the file
/// list, on the file's and the title's pages; an installed version newer than the
/// title data's latest says the title data is older, not nothing.
#[test]
fn versions_are_display_versions_and_a_newer_file_says_the_title_data_is_older() {
    let (s, admin, _) = server_with(newer_update);
    english(&s, &admin);
    // Not an update number (393217 is no multiple of 65536): update 6 and its low part,
    // then the display version.
    let shown = "<span class=\"version\" title=\"v393217\">v6.1 · 1.6.1</span>";
    let files = get_as(&s, &admin, "/files?q=0100000000010800").body;
    assert!(files.contains("<th>Version</th>"), "{files}");
    assert!(files.contains(shown), "{files}");
    // A file no Control NCA speaks for keeps its number.
    assert!(
        files.contains(r#"<td><span class="version" title="v65536">v1</span></td>"#),
        "{files}"
    );
    let game = get_as(
        &s,
        &admin,
        "/game/Moonlit%20Odyssey%20%5B0100000000010800%5D%5Bv393217%5D.nsp",
    )
    .body;
    assert!(game.contains(shown), "{game}");
    let title = get_as(&s, &admin, "/title/0100000000010000").body;
    assert!(
        title.contains(&format!("id=\"installed-version\">{shown}")),
        "{title}"
    );
    assert!(title.contains("id=\"older-title-data\""), "{title}");
    let list = get_as(&s, &admin, "/library?q=moonlit").body;
    assert!(
        list.contains(shown) && list.contains("class=\"note older\""),
        "{list}"
    );
    // A title behind the data says nothing of the kind.
    let behind = get_as(&s, &admin, "/title/01007EF00011E000").body;
    assert!(!behind.contains("older-title-data"), "{behind}");
}

/// Names sort as a reader expects: "Game 2", "Game 107", "Game 1015" (digits as
/// numbers), in the title list (API and page, both directions) and the file list.
#[test]
fn names_sort_naturally_in_the_title_and_file_lists() {
    use ludotheque::testkit::synth;
    let folders = Folders::new();
    let file = synth::pfs0(&[("a.tik".into(), vec![1; 64])]);
    let games = [
        ("Game 1015", "0100000000A10000"),
        ("Game 107", "0100000000B20000"),
        ("Game 2", "0100000000C30000"),
    ];
    for (name, id) in games {
        let path = folders.library.join(format!("{name} [{id}][v0].nsp"));
        std::fs::write(path, &file).unwrap();
    }
    let s = TestServer::start_on(folders, &[]);
    s.post("/api/v1/scan");
    s.wait_idle();
    let names = |path: &str| -> Vec<String> {
        let page = s.get(path).json();
        let items = page["items"].as_array().unwrap();
        items
            .iter()
            .map(|i| i["name"].as_str().unwrap().to_string())
            .collect()
    };
    let natural = ["Game 2", "Game 107", "Game 1015"];
    assert_eq!(names("/api/v1/library"), natural);
    assert_eq!(names("/api/v1/titles"), natural);
    let rows = |path: &str| -> Vec<String> {
        let body = s.get(path).body;
        let ids = body.split("<tr data-title=\"").skip(1);
        ids.map(|r| r.split('"').next().unwrap().to_string())
            .collect()
    };
    let ids = |order: [usize; 3]| order.map(|i| games[i].1.to_string()).to_vec();
    assert_eq!(rows("/library?sort=name"), ids([2, 1, 0]));
    assert_eq!(rows("/library?sort=name-desc"), ids([0, 1, 2]));
}

/// The file list shows each file's format as a badge, and filters by it: alone, with
/// a search and with a type; a format it does not offer filters nothing out.
#[test]
fn the_file_list_badges_and_filters_by_format() {
    let (s, admin, _) = server();
    let badges = |path: &str| -> Vec<String> {
        let body = get_as(&s, &admin, path).body;
        let tbody = body.split("<tbody>").nth(1).unwrap_or("");
        let rows = tbody.split("<tr").skip(1);
        rows.map(|r| {
            let f = r
                .split("data-format=\"")
                .nth(1)
                .expect("a badge on every row");
            f.split('"').next().unwrap().to_string()
        })
        .collect()
    };
    let all = badges("/files?limit=200");
    for (format, n) in [("nsp", 52), ("nsz", 4), ("xci", 3), ("xcz", 1)] {
        assert_eq!(all.iter().filter(|f| *f == format).count(), n, "{all:?}");
        let only = badges(&format!("/files?limit=200&format={format}"));
        assert_eq!(only, vec![format.to_string(); n]);
    }
    // With a type, and kept by the pager's links and the form.
    let page = get_as(&s, &admin, "/files?format=nsz&type=UPDATE&limit=1").body;
    assert!(page.contains("<option value=\"nsz\" selected"), "{page}");
    assert!(page.contains("format=nsz"), "{page}");
    assert!(badges("/files?format=nsz&type=UPDATE")
        .iter()
        .all(|f| f == "nsz"));
    assert_eq!(badges("/files?limit=200&format=zip").len(), all.len());
}

/// "Add to the push list (game + update + DLC)" says what it added, counted in
/// files, and the page stays; the push list counts files, not games.
#[test]
fn adding_a_title_to_the_push_list_says_how_many_files() {
    let (s, admin, _) = server();
    let title = get_as(&s, &admin, "/title/0100000000010000").body;
    let button = crate::harness::tag(&title, "add-title-push");
    assert!(button.contains("data-then=\"said\""), "{button}");
    let post = |path: &str| {
        let headers = [("Cookie", admin.as_str()), ("Origin", s.base.as_str())];
        s.send("POST", path, &headers, None)
    };
    let r = post("/api/push-title/0100000000010000");
    assert_eq!(r.status, 200, "{}", r.body);
    let said = r.json()["said"].as_str().unwrap().to_string();
    assert_eq!(
        said,
        "3 fichiers ajoutés à la liste d'envoi, qui en compte 3."
    );
    let device = get_as(&s, &admin, "/push").body;
    let heading = device.split("id=\"push-list\"").nth(1).unwrap();
    assert!(
        heading
            .split("</h3>")
            .next()
            .unwrap()
            .contains("3 fichiers"),
        "{heading}"
    );
    // One file more: said in the singular, the list's count beside it.
    let r = post(&format!(
        "/api/push/{}",
        GAME.replace(' ', "%20")
            .replace('[', "%5B")
            .replace(']', "%5D")
    ));
    assert_eq!(r.status, 200, "{}", r.body);
    let said = r.json()["said"].as_str().unwrap().to_string();
    assert!(
        said.starts_with("1 fichier ajouté à la liste d'envoi"),
        "{said}"
    );
}

/// A hint that needs the console keys links to where they are uploaded, in both
/// languages, and no page writes a command between backticks (prose, not Markdown).
#[test]
fn keys_hints_link_to_settings_and_no_page_shows_backticks() {
    let (s, admin, _) = server();
    let pages = [
        "/",
        "/library",
        "/files",
        "/tasks",
        "/title/0100000000010000",
        "/game/Studio/Moon/Moonlit%20Odyssey%20%5B0100000000010000%5D%5Bv0%5D.nsp",
        "/device",
        "/trash",
        "/upkeep",
        "/settings",
        "/settings/notifications",
    ];
    for lang in ["fr", "en"] {
        if lang == "en" {
            english(&s, &admin);
        }
        let tasks = get_as(&s, &admin, "/tasks").body;
        let hint = tasks
            .split("id=\"verify-blocked\"")
            .nth(1)
            .expect("no keys: a hint");
        let hint = hint.split("</p>").next().unwrap();
        assert!(hint.contains("href=\"/settings#console-keys\""), "{hint}");
        let title = get_as(&s, &admin, "/title/0100000000010000").body;
        let estimate = title.split("id=\"compress-estimate\"").nth(1).unwrap();
        assert!(estimate
            .split("</p>")
            .next()
            .unwrap()
            .contains("/settings#console-keys"));
        assert!(get_as(&s, &admin, "/settings")
            .body
            .contains("id=\"console-keys\""));
        // A DLC's update says so in words, its slug only as data.
        let patch = "/game/Studio/Zephyr/Zephyr%20Expansion%20Pass%20Update%20%5B01007EF00011F801%5D%5Bv65536%5D.nsp";
        let patch = get_as(&s, &admin, patch).body;
        assert!(!said(&patch, "data-subtype", "dlc_update").contains("dlc_update"));
        // How a file was identified, in words: its slug only as data.
        let game = get_as(&s, &admin, pages[5]).body;
        assert!(!said(&game, "data-source", "filename").contains("filename"));
        for page in pages {
            let body = get_as(&s, &admin, page).body;
            // The page's words, outside its script and style.
            let words = body.split("<script").next().unwrap();
            assert!(!words.contains('`'), "{lang} {page}: a backtick in {words}");
        }
    }
}

/// An empty library's dashboard says where games go (the folder by its own name,
/// never its path) and whether they appear by themselves, instead of a wall of
/// zeros; the first file brings the counts back.
#[test]
fn an_empty_dashboard_says_where_games_go() {
    let folders = Folders::new();
    let s = TestServer::start_on(folders.clone(), &[]);
    s.post("/api/v1/scan");
    s.wait_idle();
    let dashboard = s.get("/").body;
    assert!(dashboard.contains("id=\"empty-library\""), "{dashboard}");
    assert!(
        !dashboard.contains("id=\"missing-cards\"") && !dashboard.contains("id=\"file-cards\"")
    );
    let name = folders.library.file_name().unwrap().to_str().unwrap();
    assert!(dashboard.contains(&format!("« {name} »")), "{dashboard}");
    crate::harness::assert_no_server_path(&s, &dashboard);
    assert!(dashboard.contains("href=\"/settings#console-keys\""));
    // With the watch off, it says to scan.
    let off = TestServer::start_on(Folders::new(), &["--watch", "off"]);
    off.post("/api/v1/scan");
    off.wait_idle();
    assert!(off.get("/").body.contains("--watch off"));
    // One file: the counts are back.
    let file = ludotheque::testkit::synth::pfs0(&[("a.tik".into(), vec![1; 64])]);
    std::fs::write(
        folders.library.join("Game [0100000000A10000][v0].nsp"),
        file,
    )
    .unwrap();
    s.post("/api/v1/scan");
    s.wait_idle();
    let dashboard = s.get("/").body;
    assert!(dashboard.contains("id=\"file-cards\"") && !dashboard.contains("id=\"empty-library\""));
}

/// Library health: each thing that may need a hand, counted as its own list counts
/// it, with its list and its fix; the menu leads there, and marks it on Upkeep too.
#[test]
fn library_health_counts_what_needs_a_hand_with_its_list_and_fix() {
    // A second copy of a game: a duplicate for dedupe to offer.
    let (s, admin, viewer) = server_with(|f| {
        let copy = f
            .library
            .join("Moonlit Odyssey copy [0100000000010000][v0].nsp");
        std::fs::copy(f.library.join(GAME), copy).unwrap();
    });
    let get = |path: &str| get_as(&s, &admin, path);
    let health = get("/health").body;
    let item = |name: &str| -> (u64, String) {
        let at = health
            .find(&format!("data-item=\"{name}\""))
            .unwrap_or_else(|| panic!("no {name}"));
        let li = &health[at..];
        let li = &li[..li.find("</li>").unwrap()];
        let n = li
            .split("data-count=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        (n.parse().unwrap(), li.to_string())
    };
    let total = |path: &str| get(path).json()["total"].as_u64().unwrap();
    let (updates, li) = item("updates");
    assert_eq!(updates, total("/api/v1/missing?kind=update"), "{li}");
    assert!(
        li.contains("/api/v1/missing?format=csv&amp;kind=update"),
        "{li}"
    );
    assert_eq!(item("dlc").0, total("/api/v1/missing?kind=dlc"));
    for status in ["base_missing", "base_damaged"] {
        let n = total(&format!("/api/v1/titles?status={status}"));
        assert_eq!((item(status).0, n > 0), (n, true), "{status}");
    }
    assert_eq!(
        item("unknown_titles").0,
        total("/api/v1/titles?status=unknown")
    );
    let (damaged, li) = item("damaged");
    let listed = get("/files?damaged=1&limit=200")
        .body
        .matches("badge damaged")
        .count();
    assert_eq!((damaged as usize, damaged > 0), (listed, true), "{li}");
    assert!(li.contains("href=\"/files?damaged=1\""), "{li}");
    let (duplicates, li) = item("duplicates");
    let plan = get("/api/dedupe/preview").json();
    assert_eq!(
        duplicates as usize,
        plan["rows"].as_array().unwrap().len(),
        "{plan}"
    );
    assert!(duplicates > 0, "{plan}");
    assert!(li.contains("data-preview=\"/api/dedupe/preview\""), "{li}");
    let (unidentified, li) = item("unidentified");
    assert_eq!(
        unidentified > 0,
        li.contains("/settings#console-keys"),
        "{li}"
    );
    // The menu leads there; Upkeep, linked from it, marks it.
    assert!(
        health.contains("<a href=\"/health\" aria-current=\"page\">"),
        "{health}"
    );
    let upkeep = get("/upkeep").body;
    assert!(upkeep.contains("<a href=\"/health\" aria-current=\"page\">"));
    assert!(health.contains("href=\"/upkeep\""));
    // A viewer sees the counts, not the buttons.
    let seen = get_as(&s, &viewer, "/health").body;
    assert!(seen.contains("data-item=\"duplicates\"") && !seen.contains("start-dedupe"));
}

/// Covers offline: the demo caches a little icon of its own for each base game its
/// title data names, and every page shows cached icons with no setting (fetching
/// stays off); a title without one keeps its lettered placeholder.
#[test]
fn the_demo_shows_covers_without_the_network_or_a_setting() {
    let (s, admin, _) = server();
    let settings = get_as(&s, &admin, "/settings").body;
    assert!(
        !settings.contains("name=\"icons\" checked"),
        "fetching stays off"
    );
    let r = get_as(&s, &admin, "/icon/0100000000010000");
    assert_eq!(
        (r.status, r.header("content-type")),
        (200, Some("image/png"))
    );
    assert!(r.body.len() > 100);
    let grid = get_as(&s, &admin, "/library?view=grid&limit=200").body;
    assert!(
        grid.contains("<img src=\"/icon/0100000000010000\""),
        "{grid}"
    );
    // "Orphan DLC without its game" is no base game the title data names: lettered.
    let orphan = grid
        .split("href=\"/title/0100AAAA00000000\"")
        .nth(1)
        .unwrap();
    assert!(
        orphan
            .split("</a>")
            .next()
            .unwrap()
            .contains("class=\"placeholder"),
        "{orphan}"
    );
    // At the head of the title's page, and of each of its files' pages.
    let header = "<img class=\"icon header-icon\" src=\"/icon/0100000000010000\"";
    assert!(get_as(&s, &admin, "/title/0100000000010000")
        .body
        .contains(header));
    let update = "/game/Studio/Moon/Moonlit%20Odyssey%20%5B0100000000010800%5D%5Bv65536%5D.nsp";
    assert!(get_as(&s, &admin, update).body.contains(header));
}

/// What a page's `<dd ATTR="SLUG">` says, up to its end: the words shown for a
/// value kept as data.
fn said<'a>(body: &'a str, attr: &str, slug: &str) -> &'a str {
    let at = format!("{attr}=\"{slug}\">");
    let rest = body
        .split(&at)
        .nth(1)
        .unwrap_or_else(|| panic!("no {at} in {body}"));
    rest.split("</dd>").next().unwrap()
}

/// A file whose header cannot be read says why once, in its damage banner, not again
/// as the parser's note (a review of the screenshots found it twice).
#[test]
fn a_damaged_files_page_says_why_once() {
    let (s, admin, _) = server();
    let page = get_as(
        &s,
        &admin,
        "/game/Broken%20Download%20%5B0100BBBB00000000%5D%5Bv0%5D.nsp",
    );
    assert_eq!(page.status, 200, "{page:?}");
    assert!(page.body.contains("id=\"damaged\""), "{}", page.body);
    assert_eq!(page.body.matches("PFS0").count(), 1, "{}", page.body);
    // A note that says something else stays.
    let page = get_as(&s, &admin, "/game/%5BArchive%5D%20Untitled%20dump.nsp");
    assert!(page.body.contains("<dt>Remarque</dt>"), "{}", page.body);
}

/// A partial scan says beside its counts how many files failed: "partial" has its
/// reason where the last result shows (tasks page, dashboard).
#[test]
fn a_partial_scans_last_result_counts_its_failures() {
    let (s, admin, _) = server();
    let job = get_as(&s, &admin, "/api/job").json();
    let last = job["last"].as_str().unwrap();
    assert!(last.ends_with("· 1 fichier en échec"), "{last}");
}

/// A base game's page lists its updates and DLC by name, each with its version as
/// people read it ("v1"; the raw number in the tooltip), the path small under it.
#[test]
fn a_base_games_page_lists_its_other_files_by_name_and_version() {
    let (s, admin, _) = server();
    let page = get_as(
        &s,
        &admin,
        "/game/Studio/Moon/Moonlit%20Odyssey%20%5B0100000000010000%5D%5Bv0%5D.nsp",
    );
    assert_eq!(page.status, 200, "{page:?}");
    let update = "Studio/Moon/Moonlit Odyssey [0100000000010800][v65536].nsp";
    let at = page
        .body
        .find(&format!("<code class=\"id\">{update}</code>"));
    let row = &page.body[..at.expect(&page.body)];
    let row = &row[row.rfind("<li>").unwrap()..];
    assert!(row.contains(">Moonlit Odyssey</a>"), "{row}");
    assert!(row.contains("title=\"v65536\">v1</span>"), "{row}");
}
