//! Administering from the browser, over HTTP through the real binary: accounts in
//! Settings (add, remove, role, password reset, the last admin, never on yourself),
//! purging the trash at once (everything, or the converted originals), restoring
//! under another name (web route and `trash restore --as`), the HTML 404 page, and
//! platforms shown by their name.

use serde_json::{json, Value};

use crate::harness::{said_en, said_fr, tag, Folders, Resp, TestServer};
use crate::library::demo;
use crate::web::{add_user, send_json, sign_in};
use ludotheque::testkit::Msg;

fn with(cookie: &str) -> Vec<(&str, &str)> {
    vec![("Cookie", cookie)]
}

fn post_json(s: &TestServer, path: &str, cookie: &str, body: Value) -> Resp {
    send_json(s, "POST", path, &with(cookie), body)
}

fn page(s: &TestServer, path: &str, cookie: &str) -> String {
    let r = s.send("GET", path, &with(cookie), None);
    assert_eq!(r.status, 200, "{path}: {r:?}");
    r.body
}

fn set_lang(s: &TestServer, cookie: &str, lang: &str) {
    let r = post_json(s, "/api/me/lang", cookie, json!({ "lang": lang }));
    assert_eq!(r.status, 200, "{r:?}");
}

/// The error's slug and English message.
fn refused(r: &Resp, status: u16, message: &str) {
    assert_eq!(r.status, status, "{r:?}");
    assert_eq!(r.json()["message"], message, "{r:?}");
}

#[test]
fn admins_list_add_and_reset_accounts_from_settings_and_viewers_do_not_see_them() {
    let folders = Folders::new();
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    let s = TestServer::start_on(folders, &["--no-local-access"]);
    let admin = sign_in(&s, "admin", "admin password");
    let viewer = sign_in(&s, "viewer", "viewer password");

    // French: roles and languages as words, the real form instead of the CLI hint.
    let fr = page(&s, "/settings", &admin);
    assert!(fr.contains(r#"<table id="accounts">"#), "{fr}");
    // Roles and languages by their one spelling, then in the reader's words.
    assert!(
        fr.contains(r#"<td data-role="admin">administrateur</td>"#),
        "{fr}"
    );
    assert!(
        fr.contains(r#"<td data-role="viewer">lecteur</td>"#),
        "{fr}"
    );
    assert!(fr.contains(r#"data-lang="fr">Français</td>"#), "{fr}");
    // The hint of the first run (`M::NoAccountYet`) is gone once accounts exist.
    assert!(!fr.contains("ludotheque user add NOM"), "{fr}");
    assert!(fr.contains(r#"data-api="/api/users""#));
    let remove = || Msg::ConfirmRemoveAccount {
        name: "viewer".into(),
    };
    assert!(fr.contains(&format!(r#"data-confirm="{}""#, said_fr(remove()))));
    // Its own row has no buttons: nobody removes the account they sit in.
    assert!(!fr.contains(r#"data-api="/api/users/admin""#));
    set_lang(&s, &admin, "en");
    let en = page(&s, "/settings", &admin);
    assert!(en.contains(r#"<td data-role="admin">admin</td>"#), "{en}");
    assert!(en.contains(r#"<td data-role="viewer">viewer</td>"#), "{en}");
    assert!(en.contains(r#"data-lang="en">English</td>"#), "{en}");
    assert!(en.contains(&format!(r#"data-confirm="{}""#, said_en(remove()))));

    // A viewer sees no account, and may change none.
    let seen = page(&s, "/settings", &viewer);
    assert!(!seen.contains("data-account=") && !seen.contains("/api/users"));
    let carol = json!({"name": "carol", "password": "carol password", "password2": "carol password", "role": "viewer"});
    assert_eq!(
        post_json(&s, "/api/users", &viewer, carol.clone()).status,
        403
    );

    // The same rules as `ludotheque user add`.
    let bad = |body: Value, message: &str| {
        refused(&post_json(&s, "/api/users", &admin, body), 400, message);
    };
    bad(
        json!({"name": "carol", "password": "carol password", "password2": "carol passw0rd", "role": "viewer"}),
        &Msg::PasswordsDiffer.english(),
    );
    bad(
        json!({"name": "carol", "password": "short", "role": "viewer"}),
        &Msg::PasswordTooShort { min: 8 }.english(),
    );
    bad(
        json!({"name": "carol", "password": "carol password", "role": "root"}),
        &Msg::BadRole.english(),
    );
    let r = post_json(
        &s,
        "/api/users",
        &admin,
        json!({"name": "ADMIN", "password": "long enough", "role": "viewer"}),
    );
    assert_eq!(r.status, 409, "{r:?}");
    let r = post_json(&s, "/api/users", &admin, carol);
    assert_eq!(r.status, 201, "{r:?}");
    // No language sent: the admin's own (English since above).
    assert_eq!(
        r.json(),
        json!({"name": "carol", "role": "viewer", "lang": "en"})
    );
    let carol_cookie = sign_in(&s, "carol", "carol password");
    assert!(page(&s, "/settings", &admin).contains(r#"data-account="carol""#));

    // A reset, typed twice, signs carol out everywhere; the new password works.
    let reset = |body: Value| post_json(&s, "/api/users/carol/password", &admin, body);
    refused(
        &reset(json!({"password": "new carol password", "password2": "other"})),
        400,
        &Msg::PasswordsDiffer.english(),
    );
    let r = reset(json!({"password": "new carol password", "password2": "new carol password"}));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["sessions_ended"], 1);
    assert_eq!(
        s.send("GET", "/api/me", &with(&carol_cookie), None).status,
        401
    );
    sign_in(&s, "carol", "new carol password");
    let r = post_json(
        &s,
        "/api/users/nobody/password",
        &admin,
        json!({"password": "long enough"}),
    );
    assert_eq!(r.status, 404, "{r:?}");
}

#[test]
fn roles_change_the_last_admin_stays_and_a_removed_account_is_signed_out() {
    let folders = Folders::new();
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "alice", "alice password", true);
    add_user(&folders, "viewer", "viewer password", false);
    // The loopback rule is an admin without an account: it can reach the last admin.
    let s = TestServer::start_on(folders, &[]);
    let admin = sign_in(&s, "admin", "admin password");
    let viewer = sign_in(&s, "viewer", "viewer password");

    // Never on yourself, even with another admin around.
    let on_yourself = &Msg::NotOnYourself.english();
    refused(
        &s.send("POST", "/api/users/admin/role/viewer", &with(&admin), None),
        409,
        on_yourself,
    );
    refused(
        &s.send("DELETE", "/api/users/admin", &with(&admin), None),
        409,
        on_yourself,
    );
    refused(
        &post_json(
            &s,
            "/api/users/admin/password",
            &admin,
            json!({"password": "long enough"}),
        ),
        409,
        on_yourself,
    );
    // The demote button names the account it demotes.
    assert!(page(&s, "/settings", &admin).contains(
        r#"data-confirm="Rendre « alice » lecteur ? Ce compte ne pourra plus rien changer.""#
    ));

    // Admin makes viewer an admin and alice a viewer; then admin is the last one.
    let role = |who: &str, to: &str| {
        s.send(
            "POST",
            &format!("/api/users/{who}/role/{to}"),
            &with(&admin),
            None,
        )
    };
    assert_eq!(role("viewer", "admin").json()["role"], "admin");
    assert_eq!(role("alice", "viewer").json()["role"], "viewer");
    assert_eq!(role("viewer", "viewer").status, 200);
    assert_eq!(role("alice", "root").status, 400);
    let last = &Msg::LastAdmin.english();
    refused(&s.post("/api/users/admin/role/viewer"), 409, last);
    refused(&s.send("DELETE", "/api/users/admin", &[], None), 409, last);
    let roles: Vec<(String, String)> = s.get("/api/users").json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["name"].as_str().unwrap().into(),
                u["role"].as_str().unwrap().into(),
            )
        })
        .collect();
    let expected = [
        ("admin", "admin"),
        ("alice", "viewer"),
        ("viewer", "viewer"),
    ];
    assert_eq!(roles, expected.map(|(n, r)| (n.to_string(), r.to_string())));

    // Removing an account ends its sessions; it can no longer sign in.
    let r = s.send("DELETE", "/api/users/viewer", &with(&admin), None);
    assert_eq!(r.status, 200, "{r:?}");
    // The cookie no longer names anyone: only the loopback rule answers.
    let me = s.send("GET", "/api/me", &with(&viewer), None).json();
    assert_eq!(me["name"], Value::Null, "{me}");
    let again = send_json(
        &s,
        "POST",
        "/api/login",
        &[],
        json!({"name": "viewer", "password": "viewer password"}),
    );
    assert_eq!(again.status, 401);
    assert_eq!(
        s.send("DELETE", "/api/users/viewer", &with(&admin), None)
            .status,
        404
    );
}

/// The demo library, scanned, its compressed files converted: five originals in the
/// trash for `converted`, and one game deleted by hand.
fn trash_with_converted() -> TestServer {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders, &[]);
    s.wait_idle();
    assert_eq!(s.post("/api/v1/convert").status, 202);
    assert_eq!(s.wait_idle()["last"]["result"], "ok");
    let styx = "Indies%2FStyx%20%5B0100535012974000%5D%5Bv0%5D.nsp";
    assert_eq!(
        s.send("DELETE", &format!("/api/library/{styx}"), &[], None)
            .status,
        200
    );
    s
}

/// (count, bytes) of the trash entries whose reason `pick` takes.
fn entries(s: &TestServer, pick: impl Fn(&str) -> bool) -> (usize, u64) {
    let trash = s.get("/api/v1/trash").json();
    let chosen: Vec<&Value> = trash["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| pick(e["reason"].as_str().unwrap()))
        .collect();
    (
        chosen.len(),
        chosen.iter().map(|e| e["size"].as_u64().unwrap()).sum(),
    )
}

#[test]
fn the_trash_is_emptied_or_rid_of_converted_originals_saying_what_is_freed() {
    let s = trash_with_converted();
    let (conv_n, conv_bytes) = entries(&s, |r| r == "converted");
    let (all_n, all_bytes) = entries(&s, |_| true);
    assert_eq!((conv_n, all_n), (5, 6));

    let html = s.get("/trash").body;
    // Each button says what it frees, in its label and its question.
    let conv = format!(r#"data-files="{conv_n}" data-bytes="{conv_bytes}""#);
    let all = format!(r#"data-files="{all_n}" data-bytes="{all_bytes}""#);
    assert!(tag(&html, "purge-converted").contains(&conv), "{html}");
    assert!(tag(&html, "empty-trash").contains(&all), "{html}");
    let (files, bytes) = (conv_n as u64, conv_bytes);
    assert!(html.contains(&said_fr(Msg::ConfirmPurgeConverted { files, bytes })));
    let (files, bytes) = (all_n as u64, all_bytes);
    assert!(html.contains(&said_fr(Msg::ConfirmEmptyTrash { files, bytes })));

    // Only the converted originals go; their converted files and the rest stay.
    let r = s.post("/api/trash/purge-converted");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json(), json!({"purged": conv_n, "bytes": conv_bytes}));
    assert_eq!(entries(&s, |_| true).0, 1);
    let lib = &s.folders.library;
    let trashed = crate::harness::files_under(&lib.join(".ludotheque-trash"));
    assert_eq!(trashed.len(), 1, "{trashed:?}");
    assert!(lib
        .join("Studio/Kart Rally 8 Deluxe [0100152000022000][v0].nsp")
        .is_file());
    let said = s
        .get(&format!("/trash?purged={conv_n}&bytes={conv_bytes}"))
        .body;
    let freed = format!(r#"data-files="5" data-bytes="{conv_bytes}""#);
    assert!(tag(&said, "freed").contains(&freed), "{said}");
    let html = s.get("/trash").body;
    assert!(!html.contains("purge-converted"));
    assert!(tag(&html, "empty-trash").contains(r#"data-files="1""#));

    // Emptying takes the rest; then neither button is shown.
    let (_, rest) = entries(&s, |_| true);
    let r = s.post("/api/trash/empty");
    assert_eq!(r.json(), json!({"purged": 1, "bytes": rest}));
    assert!(crate::harness::files_under(&lib.join(".ludotheque-trash")).is_empty());
    let html = s.get("/trash").body;
    assert!(html.contains(r#"id="trash-empty""#) && !html.contains("/api/trash/empty"));
    assert_eq!(
        s.post("/api/trash/empty").json(),
        json!({"purged": 0, "bytes": 0})
    );
}

const STYX: &str = "Indies/Styx [0100535012974000][v0].nsp";
const STYX_ENC: &str = "Indies%2FStyx%20%5B0100535012974000%5D%5Bv0%5D.nsp";

#[test]
fn an_occupied_place_is_restored_under_a_free_name_in_the_same_folder() {
    let folders = Folders::new();
    demo(&folders);
    let mut s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let lib = folders.library.clone();
    let bytes = std::fs::read(lib.join(STYX)).unwrap();
    let r = s.send("DELETE", &format!("/api/library/{STYX_ENC}"), &[], None);
    let id = r.json()["id"].as_i64().unwrap();
    std::fs::write(lib.join(STYX), b"another file now").unwrap();

    // The page offers the free name at once; a plain restore is a conflict.
    let html = s.get("/trash").body;
    let free = "Styx [0100535012974000][v0] (2).nsp";
    assert!(
        html.contains(&format!(r#"name="name" value="{free}""#)),
        "{html}"
    );
    assert!(html.contains(r#"<form class="stack restore-as" data-api="/api/trash/"#));
    let restore = format!("/api/trash/{id}/restore");
    assert_eq!(s.post(&restore).status, 409);
    let named = |name: &str| send_json(&s, "POST", &restore, &[], json!({ "name": name }));
    let bad = &Msg::BadRestoreName { ext: "nsp".into() }.english();
    for name in [
        "../Styx.nsp",
        "Other/Styx.nsp",
        "Styx.nsz",
        "",
        ".nsp",
        "..",
        &format!("{}.nsp", "x".repeat(252)),
    ] {
        refused(&named(name), 400, bad);
    }
    assert_eq!(named("Styx [0100535012974000][v0].nsp").status, 409);
    let r = named(free);
    assert_eq!(r.status, 200, "{r:?}");
    let key = format!("Indies/{free}");
    assert_eq!(r.json()["key"], key.as_str());
    assert_eq!(std::fs::read(lib.join(&key)).unwrap(), bytes);
    assert_eq!(std::fs::read(lib.join(STYX)).unwrap(), b"another file now");
    // Indexed as a restore is: the game is in the library under its new key.
    let game = s.get(&format!(
        "/api/v1/library/{}",
        key.replace('/', "%2F").replace(' ', "%20")
    ));
    assert_eq!(game.status, 200, "{game:?}");
    assert_eq!(game.json()["title_id"], "0100535012974000");

    // The command line does the same with --as.
    let r = s.send(
        "DELETE",
        &format!("/api/library/{}", key.replace(' ', "%20")),
        &[],
        None,
    );
    let id = r.json()["id"].as_i64().unwrap().to_string();
    std::fs::write(lib.join(&key), b"taken again").unwrap();
    s.kill();
    let (status, out, err) = folders.cli(&["trash", "restore", &id, "--as", "a/b.nsp"]);
    assert!(
        !status.success() && err.contains(&said_fr(Msg::BadRestoreName { ext: "nsp".into() })),
        "{out}{err}"
    );
    let (status, out, err) = folders.cli(&["trash", "restore", &id, "--as", "Styx copy.nsp"]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(out.trim(), "Restauré : Indies/Styx copy.nsp");
    assert_eq!(
        std::fs::read(lib.join("Indies/Styx copy.nsp")).unwrap(),
        bytes
    );
}

#[test]
fn a_mistyped_page_address_gets_a_404_page_and_the_api_keeps_its_json() {
    let folders = Folders::new();
    add_user(&folders, "admin", "admin password", true);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);

    // A stranger is sent to sign in, as on every page: nobody learns which exist.
    let r = s.get("/libary");
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), Some("/login?next=%2Flibary"));
    let admin = sign_in(&s, "admin", "admin password");
    for lang in ["fr", "en"] {
        set_lang(&s, &admin, lang);
        for path in ["/libary", "/library/nope/deeper", "/settings/nothing"] {
            let r = s.send("GET", path, &with(&admin), None);
            assert_eq!(r.status, 404, "{path}");
            assert!(r.header("content-type").unwrap().starts_with("text/html"));
            assert!(r.body.contains(r#"<p id="not-found">"#), "{}", r.body);
            // Inside the shell: the menu, and the ways back.
            assert!(r.body.contains(r#"<ul class="links"><li><a href="/">"#));
            assert!(r.body.contains(r#"<li><a href="/library">"#));
            assert!(r.body.contains(&format!(r#"<html lang="{lang}">"#)));
        }
    }
    // Programs keep their answers: JSON under /api/, no page for the shop, the
    // static files, a change, or a known route asked with the wrong method.
    for path in ["/api/nope", "/api/v1/nope", "/api", "/static/nope.css"] {
        let r = s.send("GET", path, &with(&admin), None);
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.slug(), "not_found", "{path}");
    }
    let r = s.send("GET", "/shop/nope", &with(&admin), None);
    assert!(
        !r.header("content-type")
            .unwrap_or("")
            .starts_with("text/html"),
        "{r:?}"
    );
    let r = s.send("POST", "/libary", &with(&admin), None);
    assert_eq!((r.status, r.slug().as_str()), (404, "not_found"));
    assert_eq!(
        s.send("GET", "/api/v1/scan", &with(&admin), None).status,
        405
    );
}

#[test]
fn platforms_are_shown_by_their_name() {
    let folders = Folders::new();
    demo(&folders);
    std::fs::create_dir_all(folders.library.join("gba")).unwrap();
    std::fs::write(folders.library.join("gba/Pocket Quest.gba"), b"rom").unwrap();
    let s = TestServer::start_on(folders, &[]);
    s.wait_idle();
    let r = send_json(
        &s,
        "POST",
        "/api/platforms",
        &[],
        json!({"slug": "gba", "name": "Game Boy Advance", "folder": "gba", "extensions": "gba"}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(s.post("/api/v1/scan").status, 202);
    s.wait_idle();
    let game = s.get(&format!("/game/{STYX_ENC}")).body;
    assert!(
        game.contains(r#"<a href="/files?platform=switch">Nintendo Switch</a>"#),
        "{game}"
    );
    // The platform by its name, never its slug.
    assert!(!game.contains(">switch<"), "{game}");
    let gba = s.get("/game/gba%2FPocket%20Quest.gba");
    assert_eq!(gba.status, 200, "{gba:?}");
    assert!(gba
        .body
        .contains(r#"<a href="/files?platform=gba">Game Boy Advance</a>"#));
    let platforms = s.get("/platforms").body;
    assert!(
        platforms.contains(">Nintendo Switch</a>") && platforms.contains(">Game Boy Advance</a>")
    );
}
