//! The web interface's honesty and safety, in Chromium: a destructive button asks in a
//! dialog that names the item and ignores the second click of a double-click; a move
//! to the trash can be undone; a task that fails on some files ends "terminée avec des
//! erreurs" and names them; a damaged file is flagged and its push asks first; the
//! task panel says who runs what, hides its bar when idle, disables the start
//! buttons; errors read in the reader's language; the first scan says so.

use std::time::Duration;

use crate::browser::{click, fill, js, open, shot, sign_in, start, wait_for};
use crate::harness::{Folders, TestServer};
use crate::library::demo;
use crate::web::add_user;

const BROKEN: &str = "Broken Download [0100BBBB00000000][v0].nsp";

/// A demo library with one compressed file whose header reads but whose stream is
/// corrupt: the convert fails on it.
fn library_with_a_cut_nsz(folders: &Folders) -> String {
    demo(folders);
    let key = "Cut [0100000000070000][v0].nsz".to_string();
    std::fs::write(
        folders.library.join(&key),
        crate::convert::nsz_with_a_corrupt_stream(),
    )
    .unwrap();
    key
}

#[test]
fn destroying_asks_by_name_and_trashing_can_be_undone() {
    let folders = Folders::new();
    demo(&folders);
    add_user(&folders, "admin", "admin password", true);
    let key = crate::access::create_key(&folders, "test", &[]);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    s.wait_idle_with(&key);
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };
    let base = s.base.clone();
    sign_in(&tab, &base, "admin", "admin password");

    // Move a game to the trash from its page; the trash page offers to undo it.
    let key = "Indies/Summit [01002B30028F6000][v0].xcz";
    open(
        &tab,
        &format!("{base}/game/Indies/Summit%20%5B01002B30028F6000%5D%5Bv0%5D.xcz"),
    );
    click(&tab, "#delete");
    wait_for(
        &tab,
        "location.pathname === '/trash' && !!document.getElementById('undo')",
    );
    assert!(!folders.library.join(key).exists());
    let offer = js(&tab, "document.getElementById('undo').textContent");
    assert!(offer.as_str().unwrap().contains("Summit"), "{offer}");
    shot(&tab, "trash-undo");
    click(&tab, "#undo button");
    wait_for(&tab, "location.pathname.startsWith('/game/')");
    assert!(folders.library.join(key).exists(), "restored by the undo");

    // Trash it again, then delete it for good: a dialog names it and its size,
    // Cancel has the focus, and the double-click's second click does nothing.
    click(&tab, "#delete");
    wait_for(
        &tab,
        "location.pathname === '/trash' && !!document.getElementById('trash')",
    );
    let purge = "#trash button.danger[data-method=DELETE]";
    let confirm = js(
        &tab,
        &format!("document.querySelector('{purge}').dataset.confirm"),
    );
    assert!(confirm.as_str().unwrap().contains("Summit"), "{confirm}");
    js(&tab, &format!("document.querySelector('{purge}').click(); setTimeout(() => document.querySelector('dialog[open] button.confirm').click(), 50); 1"));
    wait_for(&tab, "!!document.querySelector('dialog[open]')");
    // Nothing must happen: give the second click the time to close the dialog, were it to.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        js(&tab, "!!document.querySelector('dialog[open]')"),
        true,
        "a double-click decides nothing"
    );
    assert_eq!(
        js(&tab, "document.activeElement.className"),
        "cancel secondary"
    );
    let text = js(&tab, "document.querySelector('dialog[open] p').textContent");
    assert!(text.as_str().unwrap().contains("Summit"), "{text}");
    shot(&tab, "trash-confirm");
    // Escape (or Cancel) keeps the file.
    tab.press_key("Escape").unwrap();
    wait_for(&tab, "!document.querySelector('dialog')");
    assert_eq!(
        crate::harness::files_under(&folders.library.join(".ludotheque-trash")).len(),
        1
    );
    click(&tab, purge);
    crate::browser::confirm(&tab);
    wait_for(&tab, "!!document.getElementById('trash-empty')");
    assert!(crate::harness::files_under(&folders.library.join(".ludotheque-trash")).is_empty());

    // An error in the reader's language: a key name that is too long.
    open(&tab, &format!("{base}/settings/keys"));
    fill(&tab, "#key-form input[name=name]", &"k".repeat(65));
    tab.press_key("Enter").unwrap();
    wait_for(
        &tab,
        "document.getElementById('msg').textContent.length > 0",
    );
    let said = js(&tab, "document.getElementById('msg').textContent");
    assert!(
        said.as_str()
            .unwrap()
            .starts_with("Un nom a de 1 à 64 caractères"),
        "{said}"
    );
}

#[test]
fn a_task_that_fails_on_some_files_names_them_and_flags_the_damaged() {
    let folders = Folders::new();
    let cut = library_with_a_cut_nsz(&folders);
    add_user(&folders, "admin", "admin password", true);
    let key = crate::access::create_key(&folders, "test", &[]);
    let api = |s: &TestServer, path: &str| s.send("GET", path, &[("X-Api-Key", &key)], None).json();
    let s = TestServer::start_on(
        folders.clone(),
        &["--no-local-access", "--task-delay-ms", "1500"],
    );
    let base = s.base.clone();
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };
    // The first scan: the library is empty until it ends, and says so.
    sign_in(&tab, &base, "admin", "admin password");
    let first = js(
        &tab,
        "(document.getElementById('first-scan') || {}).textContent || ''",
    );
    if api(&s, "/api/v1/job")["running"] == true {
        assert!(
            first
                .as_str()
                .unwrap()
                .starts_with("Première analyse en cours"),
            "{first}"
        );
        shot(&tab, "dashboard-first-scan");
    }
    // The page draws itself again when the scan ends: partial, the broken file named.
    wait_for(&tab, "!document.getElementById('first-scan') && document.getElementById('job').dataset.state === 'idle' && document.getElementById('job-result').textContent.includes('succès partiel')");
    let failed = js(&tab, "document.getElementById('failures').textContent");
    assert!(failed.as_str().unwrap().contains(BROKEN), "{failed}");
    assert_eq!(
        js(&tab, "document.getElementById('job-bar').hidden"),
        true,
        "no bar when idle"
    );

    // Convert: the buttons are disabled while it runs and the panel says who runs it.
    open(&tab, &format!("{base}/tasks"));
    let room = js(&tab, "document.getElementById('convert-room').textContent");
    assert!(room.as_str().unwrap().contains("à décompresser"), "{room}");
    // It asks first, saying what it takes and the room it needs.
    let ask = js(
        &tab,
        "document.getElementById('start-convert').dataset.confirm",
    );
    assert!(
        ask.as_str().unwrap().contains("libres sur le disque"),
        "{ask}"
    );
    click(&tab, "#start-convert");
    crate::browser::confirm(&tab);
    wait_for(
        &tab,
        "document.getElementById('job').dataset.state === 'running'",
    );
    assert_eq!(
        js(&tab, "document.getElementById('start-scan').disabled"),
        true
    );
    assert_eq!(
        js(&tab, "document.getElementById('job-busy').hidden"),
        false
    );
    let line = js(&tab, "document.getElementById('job-label').textContent");
    assert!(
        line.as_str().unwrap().contains(
            &ludotheque::testkit::Msg::StartedByUser {
                name: "admin".into()
            }
            .french()
        ),
        "{line}"
    );
    wait_for(
        &tab,
        "document.getElementById('job-live').textContent.length > 0",
    );
    shot(&tab, "tasks-running");
    wait_for(&tab, "document.getElementById('job').dataset.state === 'idle' && document.getElementById('job-result').textContent.startsWith('Décompression · succès partiel')");
    assert_eq!(
        js(&tab, "document.getElementById('start-scan').disabled"),
        false
    );
    let row = js(
        &tab,
        "[...document.querySelectorAll('#failures tbody tr')].map(r => r.textContent).join('|')",
    );
    assert!(row.as_str().unwrap().contains(&cut), "{row}");
    shot(&tab, "tasks-partial");
    // Its link leads to the game, flagged damaged; adding it to the push list asks.
    click(&tab, "#failures tbody a");
    wait_for(
        &tab,
        "location.pathname.startsWith('/game/') && !!document.getElementById('damaged')",
    );
    shot(&tab, "game-damaged");
    click(&tab, "#add-push");
    wait_for(&tab, "!!document.querySelector('dialog[open]')");
    let warn = js(&tab, "document.querySelector('dialog[open] p').textContent");
    assert!(warn.as_str().unwrap().contains("endommagé"), "{warn}");
    click(&tab, "dialog[open] button.cancel");
    wait_for(&tab, "!document.querySelector('dialog')");
    assert_eq!(
        api(&s, "/api/v1/device")["pending"],
        0,
        "cancel pushed nothing"
    );
    // The dashboard no longer counts it as a file to convert.
    let stats = api(&s, "/api/v1/stats");
    assert_eq!(stats["to_convert"], 0, "{stats}");
}
