//! A new user's first hour through HTTP (issue 40): the language the first run and
//! new accounts take, the page the first run ends on, the server's folders shown to an
//! admin only, the empty library, the only platform, and the consoles' logins
//! (case-insensitive names, a new password without removing the console).

use serde_json::json;

use crate::hardening::setup_code;
use crate::harness::{assert_no_server_path, basic, Folders, Resp, TestServer};
use crate::library::demo;
use crate::web::{add_user, send_json, sign_in};

/// The session cookie a sign-in or the first run set.
fn cookie_of(r: &Resp) -> String {
    let set = r.header("set-cookie").expect("a session cookie");
    set.split(';').next().unwrap().to_string()
}

fn page(s: &TestServer, path: &str, cookie: &str) -> Resp {
    let r = s.send("GET", path, &[("Cookie", cookie)], None);
    assert_eq!(r.status, 200, "{path}: {r:?}");
    r
}

fn library_path(s: &TestServer) -> String {
    s.folders.library.to_string_lossy().into_owned()
}

#[test]
fn the_first_run_in_english_makes_an_english_account_and_ends_on_where_games_go() {
    let s = TestServer::start(&["--no-local-access"]);
    let code = setup_code(&s);
    let en = [("Accept-Language", "en-US,en;q=0.9")];
    let setup = s.send("GET", "/setup", &en, None);
    assert!(setup.body.contains("<html lang=\"en\""), "{}", setup.body);
    // The form sends nothing about the language: the browser's decides.
    let r = send_json(
        &s,
        "POST",
        "/api/setup",
        &en,
        json!({"name": "root", "password": "long enough", "setup_code": code}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["lang"], "en");
    let cookie = cookie_of(&r);
    // The first run ends on where the games go.
    assert!(setup.body.contains("data-then=\"/welcome\""));
    for path in ["/", "/library", "/settings", "/device"] {
        // Whatever the browser says now, the account's language holds.
        let r = s.send(
            "GET",
            path,
            &[("Cookie", &cookie), ("Accept-Language", "fr")],
            None,
        );
        assert!(r.body.contains("<html lang=\"en\""), "{path}");
    }
    let welcome = page(&s, "/welcome", &cookie);
    assert!(
        welcome.body.contains("id=\"where-games-go\""),
        "{}",
        welcome.body
    );
    assert!(welcome.body.contains(&library_path(&s)), "{}", welcome.body);
    for step in ["/tasks", "/settings#console-keys", "/device"] {
        assert!(welcome.body.contains(&format!("href=\"{step}\"")), "{step}");
    }
    // The header offers the other language, and it takes.
    assert!(welcome
        .body
        .contains(r#"<button class="link lang" type="button" lang="fr""#));
    let r = send_json(
        &s,
        "POST",
        "/api/me/lang",
        &[("Cookie", &cookie)],
        json!({"lang": "fr"}),
    );
    assert_eq!(r.status, 200);
    let welcome = page(&s, "/welcome", &cookie);
    assert!(welcome.body.contains("<html lang=\"fr\""));
    assert!(welcome.body.contains("id=\"where-games-go\""));
    assert!(welcome
        .body
        .contains(r#"<button class="link lang" type="button" lang="en""#));
}

#[test]
fn a_french_browser_makes_a_french_first_account() {
    let s = TestServer::start(&[]);
    let fr = [("Accept-Language", "fr-FR,fr;q=0.9,en;q=0.5")];
    let r = send_json(
        &s,
        "POST",
        "/api/setup",
        &fr,
        json!({"name": "racine", "password": "long enough"}),
    );
    assert_eq!((r.status, &r.json()["lang"]), (200, &json!("fr")));
    // The page sends its own language, which wins over the browser's.
    let s = TestServer::start(&[]);
    let r = send_json(
        &s,
        "POST",
        "/api/setup",
        &fr,
        json!({"name": "root", "password": "long enough", "lang": "en"}),
    );
    assert_eq!((r.status, &r.json()["lang"]), (200, &json!("en")));
}

fn two_accounts() -> TestServer {
    let folders = Folders::new();
    demo(&folders);
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let key = crate::access::create_key(&s.folders, "wait", &[]);
    s.wait_idle_with(&key);
    s
}

#[test]
fn an_admin_picks_a_new_accounts_language() {
    let s = two_accounts();
    let admin = sign_in(&s, "admin", "admin password");
    let settings = page(&s, "/settings", &admin);
    assert!(settings.body.contains("<select name=\"lang\""));
    let add = |name: &str, lang: Option<&str>| {
        let mut body = json!({"name": name, "password": "long enough", "role": "viewer"});
        if let Some(lang) = lang {
            body["lang"] = json!(lang);
        }
        send_json(&s, "POST", "/api/users", &[("Cookie", &admin)], body)
    };
    let r = add("anna", Some("en"));
    assert_eq!((r.status, &r.json()["lang"]), (201, &json!("en")));
    let anna = sign_in(&s, "anna", "long enough");
    assert!(page(&s, "/", &anna).body.contains("<html lang=\"en\""));
    // Without one, the admin's own.
    let r = add("bruno", None);
    assert_eq!((r.status, &r.json()["lang"]), (201, &json!("fr")));
    let r = add("carla", Some("de"));
    assert_eq!((r.status, r.slug().as_str()), (400, "bad_request"));
}

#[test]
fn the_server_folders_show_to_an_admin_only() {
    let s = two_accounts();
    let (admin, viewer) = (
        sign_in(&s, "admin", "admin password"),
        sign_in(&s, "viewer", "viewer password"),
    );
    let data = s.folders.data.to_string_lossy().into_owned();
    let settings = page(&s, "/settings", &admin);
    assert!(
        settings.body.contains(&library_path(&s)),
        "{}",
        settings.body
    );
    assert!(settings.body.contains(&data), "{}", settings.body);
    for path in ["/settings", "/welcome", "/library", "/device"] {
        assert_no_server_path(&s, &page(&s, path, &viewer).body);
    }
}

#[test]
fn an_empty_library_says_where_the_games_go() {
    let folders = Folders::new();
    add_user(&folders, "admin", "admin password", true);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let admin = sign_in(&s, "admin", "admin password");
    let key = crate::access::create_key(&s.folders, "wait", &[]);
    s.wait_idle_with(&key);
    let fr = page(&s, "/library", &admin);
    assert!(fr.body.contains("id=\"library-empty\""), "{}", fr.body);
    assert!(fr.body.contains(&library_path(&s)));
    assert!(!fr.body.contains("id=\"no-titles\""));
    // A search that matches nothing in a library that has files says so.
    let s = two_accounts();
    let admin = sign_in(&s, "admin", "admin password");
    let none = page(&s, "/library?q=zzzzqqq", &admin);
    assert!(!none.body.contains("id=\"library-empty\""));
    assert!(none.body.contains("id=\"no-titles\""), "{}", none.body);
}

/// The welcome page explains where covers come from and asks once whether to fetch
/// the others from the title data's host; the choice is the one Settings keeps, and
/// changes nothing else there.
#[test]
fn the_welcome_page_asks_whether_to_fetch_icons() {
    let s = two_accounts();
    let (admin, viewer) = (
        sign_in(&s, "admin", "admin password"),
        sign_in(&s, "viewer", "viewer password"),
    );
    let welcome = page(&s, "/welcome", &admin).body;
    assert!(welcome.contains("id=\"icons-choice\""), "{welcome}");
    let off = crate::harness::tag(&welcome, "icons-state").to_string();
    assert!(
        welcome.contains(r#"data-body="{&quot;icons&quot;:true}" aria-pressed="false""#),
        "{welcome}"
    );
    assert!(!page(&s, "/welcome", &viewer)
        .body
        .contains("id=\"icons-choice\""));
    let dlc_before = send_json(
        &s,
        "POST",
        "/api/titles/settings",
        &[("Cookie", &admin)],
        json!({}),
    );
    assert_eq!(dlc_before.status, 200, "{dlc_before:?}");
    assert_eq!(dlc_before.json()["icons"], false);
    let r = send_json(
        &s,
        "POST",
        "/api/titles/settings",
        &[("Cookie", &admin)],
        json!({"icons": true}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["icons"], true);
    assert_eq!(r.json()["count_dlc"], dlc_before.json()["count_dlc"]);
    let welcome = page(&s, "/welcome", &admin).body;
    assert!(
        welcome.contains(r#"data-body="{&quot;icons&quot;:true}" aria-pressed="true""#),
        "{welcome}"
    );
    assert_ne!(crate::harness::tag(&welcome, "icons-state"), off);
    let settings = page(&s, "/settings", &admin).body;
    assert!(settings.contains(r#"name="icons" checked"#), "{settings}");
    let r = send_json(
        &s,
        "POST",
        "/api/titles/settings",
        &[("Cookie", &viewer)],
        json!({"icons": false}),
    );
    assert_eq!(r.status, 403);
}

#[test]
fn the_only_platform_offers_no_delete() {
    let s = two_accounts();
    let admin = sign_in(&s, "admin", "admin password");
    let delete = "data-api=\"/api/platforms/";
    let one = page(&s, "/platforms", &admin);
    assert_eq!(one.body.matches(delete).count(), 0, "{}", one.body);
    let r = send_json(
        &s,
        "POST",
        "/api/platforms",
        &[("Cookie", &admin)],
        json!({"slug": "gba", "name": "GBA", "folder": "gba", "extensions": "gba"}),
    );
    assert!(r.status < 300, "{r:?}");
    let two = page(&s, "/platforms", &admin);
    assert_eq!(two.body.matches(delete).count(), 2, "{}", two.body);
}

#[test]
fn a_console_signs_in_whatever_the_case_of_its_name() {
    let folders = Folders::new();
    demo(&folders);
    let password = folders.add_console("Salon");
    let s = TestServer::start_on(folders, &[]);
    for name in ["Salon", "salon", "SALON"] {
        let auth = basic(name, &password);
        let r = s.send(
            "GET",
            "/shop/versions.txt",
            &[("Authorization", &auth)],
            None,
        );
        assert_eq!(r.status, 200, "{name}: {r:?}");
    }
}

#[test]
fn a_consoles_lost_password_is_replaced_and_shown_once() {
    let s = two_accounts();
    let password = s.folders.add_console("Salon");
    let (admin, viewer) = (
        sign_in(&s, "admin", "admin password"),
        sign_in(&s, "viewer", "viewer password"),
    );
    let shop = |name: &str, password: &str| {
        let auth = basic(name, password);
        s.send(
            "GET",
            "/shop/versions.txt",
            &[("Authorization", &auth)],
            None,
        )
        .status
    };
    assert_eq!(shop("Salon", &password), 200);
    // A browser resolves `.` and `..` in the page's addresses: no console is named so.
    for name in [".", ".."] {
        let r = send_json(
            &s,
            "POST",
            "/api/consoles",
            &[("Cookie", &admin)],
            json!({ "name": name }),
        );
        assert_eq!(r.status, 400, "{name}: {r:?}");
    }
    let route = "/api/consoles/salon/password";
    let r = send_json(&s, "POST", route, &[("Cookie", &viewer)], json!({}));
    assert_eq!(r.status, 403);
    let r = send_json(&s, "POST", route, &[("Cookie", &admin)], json!({}));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["name"], "Salon");
    let new = r.json()["password"].as_str().unwrap().to_string();
    assert_ne!(new, password);
    assert_eq!(shop("Salon", &password), 401);
    assert_eq!(shop("Salon", &new), 200);
    // Shown once: the page never holds it.
    let device = page(&s, "/device", &admin);
    assert!(!device.body.contains(&new));
    assert!(device
        .body
        .contains(&format!("data-api=\"{}\"", "/api/consoles/Salon/password")));
    let r = send_json(
        &s,
        "POST",
        "/api/consoles/nobody/password",
        &[("Cookie", &admin)],
        json!({}),
    );
    assert_eq!(r.status, 404);
}

#[test]
fn the_consoles_page_tells_shop_logins_from_the_console_games_are_sent_to() {
    let s = two_accounts();
    s.folders.add_console("Salon");
    let admin = sign_in(&s, "admin", "admin password");
    let r = send_json(
        &s,
        "POST",
        "/api/me/lang",
        &[("Cookie", &admin)],
        json!({"lang": "en"}),
    );
    assert_eq!(r.status, 200);
    let host = s.base.trim_start_matches("http://").to_string();
    let (ip, port) = host.rsplit_once(':').unwrap();
    let device = page(&s, "/device", &admin).body;
    assert!(device.contains("id=\"shop\"") && device.contains("id=\"push-to-console\""));
    // A login is set: the page does not say there is none.
    assert!(
        crate::harness::tag(&device, "consoles-empty").contains(" hidden"),
        "{device}"
    );
    // Tinfoil's fields, filled with what the browser reached.
    for (field, value) in [
        ("Protocol", ">http".to_string()),
        ("Host", format!(">{ip}")),
        ("Port", format!(">{port}")),
        ("Path", ">/".to_string()),
        ("Username", "Salon".to_string()),
    ] {
        let shown = format!("<dt>{field}</dt><dd");
        let at = device
            .find(&shown)
            .unwrap_or_else(|| panic!("{field}: {device}"));
        let dd = &device[at + shown.len()..];
        let dd = &dd[..dd.find("</dd>").unwrap()];
        assert!(dd.contains(&value), "{field}: {dd}");
    }
}

/// Each page of the menu marks its own entry; Upkeep, linked from Library health,
/// marks Library health.
#[test]
fn the_menu_marks_the_page_you_are_on() {
    let s = two_accounts();
    let admin = sign_in(&s, "admin", "admin password");
    for path in [
        "/",
        "/library",
        "/tasks",
        "/device",
        "/health",
        "/upkeep",
        "/trash",
        "/settings",
    ] {
        let body = page(&s, path, &admin).body;
        let entry = if path == "/upkeep" { "/health" } else { path };
        let marked = format!("href=\"{entry}\" aria-current=\"page\"");
        assert!(body.contains(&marked), "{path}: {body}");
        assert_eq!(body.matches("aria-current=\"page\"").count(), 1, "{path}");
    }
}

/// The browser's languages are weighed by their quality: a French entry listed first
/// with a low `q` loses to English, and `q=0` refuses a language.
#[test]
fn the_browser_language_of_highest_quality_is_the_page_language() {
    let s = TestServer::start(&["--no-local-access"]);
    for (accept, lang) in [
        ("fr;q=0.1, en;q=0.9", "en"),
        ("de, en-GB;q=0.5, fr-CA;q=0.4", "en"),
        ("en;q=0, fr;q=0.2", "fr"),
        ("en-US, fr;q=0.9", "en"),
        ("es", "fr"),
    ] {
        let r = s.send("GET", "/setup", &[("Accept-Language", accept)], None);
        let expected = format!("<html lang=\"{lang}\"");
        assert!(r.body.contains(&expected), "{accept}: {}", r.status);
    }
}
