//! The library pages' pager, orders and counts, and the console page's guidance,
//! loopback warning, connection test and push list by name, through the real binary
//! over HTTP (the browser side is `web_device_browser`).

use std::net::TcpListener;

use serde_json::json;

use ludotheque::testkit::Msg;

use crate::harness::said_en;
use crate::harness::{Resp, TestServer};
use crate::library::scanned_demo;

/// A page in French (the default) or in English.
fn page(s: &TestServer, path: &str, lang: &str) -> String {
    let r = s.send("GET", path, &[("Accept-Language", lang)], None);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    r.body
}

/// The text of some HTML, tags dropped, blanks folded.
fn text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text of the element that starts with `start` (up to its closing `end`).
fn part<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in the page"));
    let rest = &html[from..];
    &rest[..rest.find(end).map_or(rest.len(), |e| e + end.len())]
}

/// The link texts of the rows of the table `id`, in order.
fn row_links(html: &str, id: &str, href: &str) -> Vec<String> {
    let table = part(html, &format!("<table id=\"{id}\""), "</table>");
    let body = table.split("<tbody>").nth(1).unwrap_or("");
    body.split(&format!("<a href=\"{href}"))
        .skip(1)
        .map(|a| text(&a[a.find('>').unwrap() + 1..a.find("</a>").unwrap()]))
        .collect()
}

fn json_post(s: &TestServer, path: &str, body: serde_json::Value) -> Resp {
    s.send(
        "POST",
        path,
        &[("Content-Type", "application/json")],
        Some(body.to_string().into_bytes()),
    )
}

#[test]
fn the_file_list_pages_with_numbers_gaps_and_a_go_to_form_and_clamps() {
    let s = TestServer::start_on(scanned_demo(), &[]);
    let total = s.get("/api/v1/library?limit=1").json()["total"]
        .as_u64()
        .unwrap();
    let pages = total.div_ceil(5);
    assert!(pages >= 8, "the demo library gives {total} files");

    let first = page(&s, "/files?limit=5", "fr");
    let pager = part(&first, "<nav class=\"pager\"", "</nav>");
    assert!(
        pager.contains(&format!("href=\"/files?limit=5&amp;page={pages}\"")),
        "{pager}"
    );
    assert!(pager.contains("<span class=\"current\" aria-current=\"page\">1</span>"));
    assert!(pager.contains("…"), "a gap before the last page: {pager}");
    assert!(
        !pager.contains("Première"),
        "no First on the first page: {pager}"
    );
    let at = |page: u64| format!(r#"data-page="{page}" data-pages="{pages}""#);
    assert!(pager.contains(&at(1)), "{pager}");
    // The go-to form keeps the page size.
    let form = part(pager, "<form class=\"goto\"", "</form>");
    assert!(form.contains("method=\"get\"") && form.contains("action=\"/files\""));
    assert!(
        form.contains("<input type=\"hidden\" name=\"limit\" value=\"5\">"),
        "{form}"
    );
    assert!(form.contains(&format!("max=\"{pages}\"")), "{form}");

    // A page in the middle: First, Previous, the neighbours, Next, Last.
    let middle = page(&s, "/files?limit=5&page=5", "en");
    let nav = part(&middle, "<nav class=\"pager\"", "</nav>");
    let pager = text(nav);
    assert!(pager.contains("3 4 5 6 7"), "{pager}");
    let edges = [
        r#"<li class="first"><a href="/files?limit=5">"#.to_string(),
        r#"<li class="step"><a href="/files?limit=5&amp;page=4" rel="prev">"#.to_string(),
        r#"<li class="step"><a href="/files?limit=5&amp;page=6" rel="next">"#.to_string(),
        format!(r#"<li class="last"><a href="/files?limit=5&amp;page={pages}">"#),
    ];
    for edge in edges {
        assert!(nav.contains(&edge), "{edge} in {nav}");
    }
    assert!(nav.contains(&at(5)), "{nav}");

    // Past the end: the last page; below 1 or junk: the first.
    let last = page(&s, "/files?limit=5&page=9999", "fr");
    assert!(last.contains(&at(pages)), "{last}");
    let expected = total - (pages - 1) * 5;
    assert_eq!(row_links(&last, "games", "/game/").len() as u64, expected);
    for junk in ["0", "-3", "abc", ""] {
        let p = page(&s, &format!("/files?limit=5&page={junk}"), "fr");
        assert!(p.contains(&at(1)), "page={junk}");
    }
    // The public API keeps its own contract: past the end, no items.
    let api = s.get("/api/v1/library?limit=5&page=9999").json();
    assert_eq!(api["items"].as_array().unwrap().len(), 0, "{api}");
    assert_eq!(api["total"].as_u64(), Some(total));
}

#[test]
fn the_libraries_sort_both_ways_and_say_so_in_their_headings() {
    let s = TestServer::start_on(scanned_demo(), &[]);
    // Titles: A to Z by default, Z to A reads the same list backwards.
    let az = page(&s, "/library?limit=200", "fr");
    let za = page(&s, "/library?limit=200&sort=name-desc", "fr");
    let names = row_links(&az, "titles", "/title/");
    let mut backwards = row_links(&za, "titles", "/title/");
    backwards.reverse();
    assert!(names.len() > 3, "{names:?}");
    assert_eq!(names, backwards);
    assert!(az.contains("<th aria-sort=\"ascending\"><a class=\"sort\" href=\"/library?limit=200&amp;sort=name-desc\""), "{}", part(&az, "<thead>", "</thead>"));
    assert!(za.contains(
        "<th aria-sort=\"descending\"><a class=\"sort\" href=\"/library?limit=200&amp;sort=name\""
    ));
    // By size: largest first, and smallest first is its reverse; the size heading says which.
    let big = page(&s, "/library?limit=200&sort=size", "en");
    let small = page(&s, "/library?limit=200&sort=size-asc", "en");
    assert!(big.contains("<th class=\"num wide\" aria-sort=\"descending\">"));
    assert!(small.contains("<th class=\"num wide\" aria-sort=\"ascending\">"));
    assert_eq!(row_links(&big, "titles", "/title/").len(), names.len());
    assert!(big.contains("<option value=\"size\" selected>"));
    // A page of the reverse order is the matching slice of the list from its end.
    let two = page(&s, "/library?limit=2&sort=name-desc", "fr");
    let n = names.len();
    assert_eq!(
        row_links(&two, "titles", "/title/"),
        vec![names[n - 1].clone(), names[n - 2].clone()]
    );
    let past = page(&s, "/library?limit=2&sort=name-desc&page=9999", "fr");
    assert_eq!(row_links(&past, "titles", "/title/").last(), names.first());
    // Files: by name, both ways, reflected on the name heading.
    let files = page(&s, "/files?limit=200", "fr");
    let files_desc = page(&s, "/files?limit=200&sort=name-desc", "fr");
    let mut down = row_links(&files_desc, "games", "/game/");
    down.reverse();
    assert_eq!(row_links(&files, "games", "/game/"), down);
    assert!(files_desc.contains("<th aria-sort=\"descending\">"));
    // Filters apply on change: the forms ask the script to submit them.
    assert!(az.contains("role=\"search\" data-autosubmit"));
    assert!(files.contains("role=\"search\" data-autosubmit"));
    // The filter form keeps the order and the page size.
    assert!(files_desc.contains("<input type=\"hidden\" name=\"sort\" value=\"name-desc\">"));
}

#[test]
fn counts_agree_with_their_number_in_both_languages() {
    let s = TestServer::start_on(scanned_demo(), &[]);
    let titles = s.get("/api/v1/titles?limit=1").json()["total"]
        .as_u64()
        .unwrap();
    assert!(titles > 1);
    let count = |path: &str, lang: &str| {
        text(part(
            &page(&s, path, lang),
            "<p id=\"result-count\">",
            "</p>",
        ))
    };
    assert!(count("/library", "fr").starts_with(&format!("{titles} titres ·")));
    assert!(count("/library", "en").starts_with(&format!("{titles} titles ·")));
    assert_eq!(count("/files?q=zzzzzz", "fr"), "0 résultat");
    assert_eq!(count("/files?q=zzzzzz", "en"), "0 results");
    assert!(count("/library?q=zzzzzz", "fr").starts_with("0 titre ·"));
    assert!(count("/library?q=zzzzzz", "en").starts_with("0 titles ·"));
    // One file: the first of the list, searched by its whole name.
    let one = s.get("/api/v1/library?limit=200").json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap().to_string())
        .find(|name| {
            s.get(&format!("/api/v1/search?q={}", name.replace(' ', "%20")))
                .json()["total"]
                == 1
        })
        .expect("a file whose name only it has");
    let q = one.replace(' ', "%20");
    assert_eq!(count(&format!("/files?q={q}"), "fr"), "1 résultat");
    assert_eq!(count(&format!("/files?q={q}"), "en"), "1 result");
}

/// A server with the demo library, a console at `host:port`, and one game on the push
/// list; returns the game's key and name.
fn with_console(s: &TestServer, host: &str, port: u16) -> (String, String) {
    let r = json_post(
        s,
        "/api/device",
        json!({"host": host, "port": port, "name": "Salon"}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    let game = s.get("/api/v1/library?type=BASE&limit=1").json()["items"][0].clone();
    let key = game["key"].as_str().unwrap().to_string();
    let path: Vec<String> = key
        .split('/')
        .map(|p| {
            p.replace(' ', "%20")
                .replace('[', "%5B")
                .replace(']', "%5D")
        })
        .collect();
    let r = s.post(&format!("/api/push/{}", path.join("/")));
    assert_eq!(r.status, 200, "{r:?}");
    (key, game["name"].as_str().unwrap().to_string())
}

#[test]
fn the_console_page_guides_warns_on_loopback_and_lists_games_by_name() {
    let s = TestServer::start_on(scanned_demo(), &[]);
    let (key, name) = with_console(&s, "192.0.2.7", 2000);
    let fr = page(&s, "/push", "fr");
    let how = text(part(&fr, "<ol class=\"how\" id=\"push-how\">", "</ol>"));
    for words in [
        "Awoo Installer",
        "Install over LAN or internet",
        "port 2000",
        "même réseau local",
    ] {
        assert!(how.contains(words), "{words}: {how}");
    }
    assert!(fr.contains(r#"<p class="note" id="push-not-dbi">"#), "{fr}");
    // Listening on loopback, the console elsewhere: said before any push, button off.
    let blocked = text(part(&fr, "<p class=\"warn\" id=\"push-blocked\"", "</p>"));
    assert!(
        blocked.contains("0.0.0.0") && blocked.contains("Consoles"),
        "{blocked}"
    );
    let button = part(
        &fr,
        "<button class=\"blocked\" id=\"start-push\"",
        "</button>",
    );
    assert!(
        button.contains("disabled") && button.contains("aria-describedby=\"push-blocked\""),
        "{button}"
    );
    assert!(!button.contains("data-api"));
    // The dashboard says it too, and its Push button is off for good.
    let dashboard = page(&s, "/", "fr");
    let why = text(part(
        &dashboard,
        "<p class=\"hint\" id=\"push-blocked\"",
        "</p>",
    ));
    assert!(why.contains("0.0.0.0"), "{why}");
    let start = part(&dashboard, "id=\"start-push\"", ">");
    assert!(
        start.contains("data-blocked") && start.contains("disabled"),
        "{start}"
    );
    // The list names the game, its key small under it.
    let list = part(&fr, "<table id=\"push\"", "</table>");
    assert_eq!(row_links(&fr, "push", "/game/"), vec![text(&name)]);
    assert!(
        list.contains(&format!(
            "<code class=\"id\">{}</code>",
            key.replace('&', "&amp;")
        )),
        "{list}"
    );
    // The clear button's confirmation names what it removes.
    let en = page(&s, "/push", "en");
    assert!(
        en.contains("data-confirm=\"Remove 1 file ("),
        "{}",
        part(
            &en,
            "<div class=\"actions\"><button class=\"blocked\"",
            "</div>"
        )
    );
    let forget = ludotheque::testkit::Msg::ConfirmForgetDevice {
        name: "Salon".into(),
        host: "192.0.2.7:2000".into(),
    };
    let forget = format!("data-confirm=\"{}\"", crate::harness::said_en(forget));
    assert!(en.contains(&forget), "{en}");
    assert!(en.contains("id=\"device-test\"") && fr.contains("id=\"device-test\""));

    // A console on this machine is reachable through loopback: the push is on.
    with_console(&s, "127.0.0.1", 2000);
    let ok = page(&s, "/push", "fr");
    assert!(!ok.contains("id=\"push-blocked\""));
    let start = part(&ok, "id=\"start-push\"", ">");
    assert!(
        start.contains("data-api=\"/api/push\"") && !start.contains("disabled"),
        "{start}"
    );
    // So is the dashboard's.
    let dashboard = page(&s, "/", "fr");
    assert!(!dashboard.contains("id=\"push-blocked\""));
    let start = part(&dashboard, "id=\"start-push\"", ">");
    assert!(
        start.contains("data-then=\"stay\"") && !start.contains("disabled"),
        "{start}"
    );
}

#[test]
fn listening_on_every_address_the_push_button_is_on() {
    // Listening beyond loopback, the loopback rule is off: an admin signs in.
    let folders = scanned_demo();
    crate::web::add_user(&folders, "admin", "admin password", true);
    let s = TestServer::start_on(folders, &["--listen", "0.0.0.0:0"]);
    let cookie = crate::web::sign_in(&s, "admin", "admin password");
    let auth = [
        ("Cookie", cookie.as_str()),
        ("Content-Type", "application/json"),
    ];
    let body = json!({"host": "192.0.2.7"}).to_string().into_bytes();
    assert_eq!(s.send("POST", "/api/device", &auth, Some(body)).status, 200);
    let key = s
        .send("GET", "/api/v1/library?type=BASE&limit=1", &auth, None)
        .json()["items"][0]["key"]
        .as_str()
        .unwrap()
        .to_string();
    let path = key
        .replace(' ', "%20")
        .replace('[', "%5B")
        .replace(']', "%5D");
    assert_eq!(
        s.send("POST", &format!("/api/push/{path}"), &auth, None)
            .status,
        200
    );
    let fr = s.send("GET", "/push", &auth, None).body;
    assert!(fr.contains("<table id=\"push\""), "{}", text(&fr));
    assert!(!fr.contains("id=\"push-blocked\""), "{}", text(&fr));
    assert!(fr.contains("data-api=\"/api/push\""));
}

#[test]
fn the_connection_test_tells_a_waiting_installer_from_a_closed_port() {
    let s = TestServer::start_on(scanned_demo(), &[]);
    // No console yet: a clear error.
    let r = s.post("/api/device/test");
    assert_eq!(r.status, 400, "{r:?}");
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains(&said_en(Msg::NoDevice)),
        "{r:?}"
    );

    let installer = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = installer.local_addr().unwrap().port();
    with_console(&s, "127.0.0.1", port);
    let r = s.send(
        "POST",
        "/api/device/test",
        &[("Accept-Language", "en")],
        None,
    );
    assert_eq!(r.status, 200, "{r:?}");
    let answer = r.json();
    assert_eq!(answer["reachable"], true, "{answer}");
    assert_eq!(answer["reason"], "reachable");
    assert_eq!(answer["address"], format!("127.0.0.1:{port}"));
    assert!(answer["message"]
        .as_str()
        .unwrap()
        .starts_with("The console answers"));
    // The installer saw one connection, which sent nothing: no offer is made.
    installer.set_nonblocking(false).unwrap();
    let (mut conn, _) = installer.accept().unwrap();
    let mut got = Vec::new();
    std::io::Read::read_to_end(&mut conn, &mut got).unwrap();
    assert!(got.is_empty(), "the test sent {got:?}");

    drop(installer);
    let r = s.post("/api/device/test");
    let answer = r.json();
    assert_eq!(
        (answer["reachable"].clone(), answer["reason"].clone()),
        (json!(false), json!("refused")),
        "{answer}"
    );
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .starts_with("Connexion refusée"),
        "{answer}"
    );
    // Nothing was recorded as a push.
    assert_eq!(
        s.get("/api/v1/device").json()["last_result"],
        serde_json::Value::Null
    );
}
