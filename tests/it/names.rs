//! Names that look alike are one name or none: consoles, accounts, API keys and
//! platforms are kept in NFC, refuse invisible characters (zero-width, bidi controls,
//! other format characters) with the rule in the message, compare "whatever their
//! case" in every script, and a console cannot take an anonymous client's label (its
//! address). Through the command line and the web interface's own routes.

use serde_json::{json, Value};

use crate::harness::{Folders, Resp, TestServer};
use crate::web::send_json;
use ludotheque::testkit::Msg;

const COMPOSED: &str = "\u{c9}mile"; // Émile, one É
const DECOMPOSED: &str = "E\u{301}mile"; // E and a combining acute accent
const SHOUTED: &str = "\u{c9}MILE";
const LOOK_ALIKES: [&str; 4] = [
    "salon\u{200b}",         // a zero-width space at the end
    "\u{202e}evil",          // a right-to-left override
    "sa\u{2066}lon\u{2069}", // a bidi isolate
    "salon\u{a0}2",          // a no-break space
];

fn refused_cli(folders: &Folders, args: &[&str], input: &str, said: &str) {
    let (status, out, err) = folders.cli_with_input(args, input);
    assert!(!status.success(), "{args:?} was accepted: {out}");
    assert!(err.contains(said), "{args:?}: {err}");
}

#[test]
fn the_command_line_keeps_one_name_per_look() {
    let folders = Folders::new();
    let invisible = |what: &str| Msg::NameInvisible { what: what.into() }.french();
    for name in LOOK_ALIKES {
        let console = invisible("A console's name");
        refused_cli(&folders, &["console", "add", name], "", &console);
        let account = invisible("An account name");
        refused_cli(&folders, &["user", "add", name], "long enough\n", &account);
        let key = invisible("A key's name (what it is for)");
        refused_cli(&folders, &["apikey", "create", name], "", &key);
    }
    refused_cli(
        &folders,
        &["console", "add", "127.0.0.1"],
        "",
        &Msg::ConsoleNameAddress.french(),
    );
    let (status, out, err) = folders.cli(&["console", "add", DECOMPOSED]);
    assert!(status.success(), "{out}{err}");
    // Refused under the name as given, in NFC.
    let taken = |name: &str| Msg::ConsoleExists { name: name.into() }.french();
    for (again, nfc) in [
        (COMPOSED, COMPOSED),
        (SHOUTED, SHOUTED),
        ("e\u{301}mile", "\u{e9}mile"),
    ] {
        refused_cli(&folders, &["console", "add", again], "", &taken(nfc));
    }
    // The full case folding: ß is ss, ﬀ is ff.
    for (first, again) in [("Straße", "STRASSE"), ("\u{fb00}", "FF")] {
        assert!(folders.cli(&["console", "add", first]).0.success());
        refused_cli(&folders, &["console", "add", again], "", &taken(again));
    }
    let (_, list, _) = folders.cli(&["console", "list"]);
    assert!(
        list.contains(COMPOSED) && !list.contains(DECOMPOSED),
        "{list}"
    );
    let (status, out, err) = folders.cli_with_input(&["user", "add", SHOUTED], "long enough\n");
    assert!(status.success(), "{out}{err}");
    let exists = Msg::AccountExists.french();
    refused_cli(
        &folders,
        &["user", "add", DECOMPOSED],
        "long enough\n",
        &exists,
    );
    refused_cli(
        &folders,
        &["user", "add", "\u{e9}mile"],
        "long enough\n",
        &exists,
    );
    let (status, out, err) = folders.cli(&["apikey", "create", DECOMPOSED]);
    assert!(status.success(), "{out}{err}");
    let (_, keys, _) = folders.cli(&["apikey", "list"]);
    assert!(
        keys.contains(COMPOSED) && !keys.contains(DECOMPOSED),
        "{keys}"
    );
    // The name removes whatever its case and form.
    let (status, out, err) = folders.cli(&["console", "remove", "\u{e9}MILE"]);
    assert!(status.success(), "{out}{err}");
}

fn post(s: &TestServer, path: &str, body: Value) -> Resp {
    send_json(s, "POST", path, &[], body)
}

fn refused(r: &Resp, status: u16, said: &str) {
    assert_eq!(r.status, status, "{r:?}");
    let message = r.json()["message"].as_str().unwrap_or("").to_string();
    assert!(message.contains(said), "{message}");
}

#[test]
fn the_web_routes_keep_one_name_per_look() {
    let s = TestServer::start(&[]);
    let invisible = |what: &str| Msg::NameInvisible { what: what.into() }.english();
    let user = |name: &str| json!({"name": name, "password": "long enough", "role": "viewer"});
    let platform =
        |name: &str| json!({"slug": "gba", "name": name, "folder": "gba", "extensions": "gba"});
    for name in LOOK_ALIKES {
        refused(
            &post(&s, "/api/consoles", json!({ "name": name })),
            400,
            &invisible("A console's name"),
        );
        refused(
            &post(&s, "/api/users", user(name)),
            400,
            &invisible("An account name"),
        );
        refused(
            &post(&s, "/api/keys", json!({ "name": name })),
            400,
            &invisible("A key's name (what it is for)"),
        );
        refused(
            &post(&s, "/api/platforms", platform(name)),
            400,
            &invisible("A platform's name"),
        );
    }
    for address in ["127.0.0.1", "192.168.1.20"] {
        let r = post(&s, "/api/consoles", json!({ "name": address }));
        refused(&r, 400, &Msg::ConsoleNameAddress.english());
    }

    let r = post(&s, "/api/consoles", json!({ "name": DECOMPOSED }));
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(r.json()["name"], COMPOSED);
    let password = r.json()["password"].as_str().unwrap().to_string();
    for again in [COMPOSED, SHOUTED] {
        refused(
            &post(&s, "/api/consoles", json!({ "name": again })),
            409,
            &Msg::ConsoleExists { name: again.into() }.english(),
        );
    }
    // The console opens the shop by its name whatever its case and form, and is
    // known by the name it was given.
    use base64ct::{Base64, Encoding};
    let auth = format!(
        "Basic {}",
        Base64::encode_string(format!("e\u{301}MILE:{password}").as_bytes())
    );
    let shop = s.send("GET", "/shop", &[("Authorization", &auth)], None);
    assert_eq!(shop.status, 200, "{shop:?}");

    let r = post(&s, "/api/users", user(SHOUTED));
    assert_eq!(r.status, 201, "{r:?}");
    for again in [DECOMPOSED, "\u{e9}mile"] {
        refused(
            &post(&s, "/api/users", user(again)),
            409,
            &Msg::AccountExists.english(),
        );
    }
    let login = post(
        &s,
        "/api/login",
        json!({"name": "e\u{301}mile", "password": "long enough"}),
    );
    assert_eq!(
        login.status, 200,
        "signs in whatever the case and form: {login:?}"
    );

    std::fs::create_dir_all(s.folders.library.join("gba")).unwrap();
    let r = post(
        &s,
        "/api/platforms",
        platform("Game Boy Adv\u{61}\u{300}nce"),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let platforms = s.get("/api/platforms").json();
    assert!(
        platforms.to_string().contains("Game Boy Adv\u{e0}nce"),
        "kept in NFC: {platforms}"
    );
}
