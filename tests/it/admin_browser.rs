//! Administering from the browser, in a real Chromium: an admin adds an account in
//! Settings and demotes it, restores a trashed game under another name when a file
//! took its place after the page was drawn, purges the converted originals and reads
//! what was freed, and meets the 404 page. Screenshots of the settings page (with
//! the accounts), the trash (with a converted original) and the 404 page, at 360 px
//! and 1280 px, in French and English, land in `target/screenshots/admin-*.png`.

use std::sync::Arc;
use std::time::Duration;

use headless_chrome::Tab;

use crate::browser::{
    click, fill, fits_the_screen, js, open, phone, screen, set_lang, shot, sign_in, start, wait_for,
};
use crate::harness::{Folders, TestServer};
use crate::library::demo;
use crate::web::add_user;

const STYX: &str = "Indies/Styx [0100535012974000][v0].nsp";

/// Click a button carrying `data-confirm`, then confirm.
fn click_and_confirm(tab: &Tab, selector: &str) {
    click(tab, selector);
    crate::browser::confirm(tab);
}

/// The page at a phone's width and at a desktop's, in one language, scrolled to
/// `part` (a selector).
fn both_widths(tab: &Tab, name: &str, part: &str) {
    let scroll = format!("document.querySelector(\"{part}\").scrollIntoView()");
    phone(tab);
    fits_the_screen(tab, name);
    js(tab, &scroll);
    shot(tab, &format!("{name}-360"));
    screen(tab, 1280, 900, false);
    js(tab, &scroll);
    shot(tab, &format!("{name}-1280"));
    phone(tab);
}

/// The demo library scanned and converted on the command line (five originals in
/// the trash for `converted`), an admin and a viewer.
fn converted_demo() -> Arc<Folders> {
    let folders = Folders::new();
    demo(&folders);
    folders.scan();
    let (status, out, err) = folders.cli(&["convert"]);
    assert!(status.success(), "{out}{err}");
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    folders
}

#[test]
fn an_admin_administers_accounts_and_the_trash_in_a_browser() {
    let folders = converted_demo();
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    let base = s.base.clone();
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };
    sign_in(&tab, &base, "admin", "admin password");

    // Settings: add an admin, see it listed in words, then demote it.
    open(&tab, &format!("{base}/settings"));
    fill(&tab, "#account-form input[name=name]", "carol");
    fill(&tab, "#account-form input[name=password]", "carol password");
    fill(
        &tab,
        "#account-form input[name=password2]",
        "carol password",
    );
    js(
        &tab,
        "document.querySelector('#account-form select[name=role]').value = 'admin'",
    );
    click(&tab, "#account-form button[type=submit]");
    wait_for(&tab, "!!document.querySelector('tr[data-account=carol]')");
    let row = js(
        &tab,
        "document.querySelector('tr[data-account=carol]').innerText",
    );
    assert!(row.as_str().unwrap().contains("administrateur"), "{row}");
    let confirm = js(
        &tab,
        "document.querySelector('tr[data-account=carol] button.danger').dataset.confirm",
    );
    assert_eq!(
        confirm,
        "Supprimer le compte « carol » ? Ses sessions seront fermées."
    );
    click_and_confirm(
        &tab,
        "tr[data-account=carol] button[data-api$='/role/viewer']",
    );
    wait_for(
        &tab,
        "document.querySelector('tr[data-account=carol]')?.innerText.includes('lecteur')",
    );
    both_widths(&tab, "admin-settings-fr", "#accounts-title");
    set_lang(&tab, "en");
    open(&tab, &format!("{base}/settings"));
    assert!(js(&tab, "document.getElementById('accounts').textContent")
        .as_str()
        .unwrap()
        .contains("English"));
    both_widths(&tab, "admin-settings-en", "#accounts-title");
    // The title data update runs from Settings and stays there: its result shows in
    // the sources' table once it ends, in the reader's words (nothing listens on the
    // tests' source).
    click(&tab, "#update-titles");
    wait_for(
        &tab,
        "document.querySelector('#title-sources span.failure')?.textContent.includes('the server refused the connection')",
    );
    assert_eq!(js(&tab, "location.pathname"), "/settings");
    set_lang(&tab, "fr");

    // A game to the trash; the page is drawn while its place is free, then a file
    // takes it: the restore meets a conflict and offers another name.
    let lib = folders.library.clone();
    let bytes = std::fs::read(lib.join(STYX)).unwrap();
    open(
        &tab,
        &format!("{base}/game/Indies%2FStyx%20%5B0100535012974000%5D%5Bv0%5D.nsp"),
    );
    click(&tab, "#delete");
    wait_for(
        &tab,
        "location.pathname === '/trash' && document.readyState === 'complete'",
    );
    assert!(!lib.join(STYX).exists());
    both_widths(&tab, "admin-trash-fr", "h1");
    std::fs::write(lib.join(STYX), b"a new file in its place").unwrap();
    let id = js(
        &tab,
        "[...document.querySelectorAll('#trash tr[data-entry]')].find(r => r.innerText.includes('Styx')).dataset.entry",
    );
    let id = id.as_str().unwrap().to_string();
    let form = format!("form.restore-as[data-api='/api/trash/{id}/restore']");
    assert_eq!(
        js(&tab, &format!("document.querySelector(\"{form}\").hidden")),
        true
    );
    click(&tab, &format!("button[data-api='/api/trash/{id}/restore']"));
    wait_for(&tab, &format!("!document.querySelector(\"{form}\").hidden"));
    // The service's own sentence, in French.
    let said = js(&tab, "document.getElementById('msg').textContent");
    assert!(
        said.as_str()
            .unwrap()
            .starts_with("Un fichier occupe déjà cet emplacement"),
        "{said}"
    );
    shot(&tab, "admin-trash-fr-restore-as-360");
    let name = js(
        &tab,
        &format!("document.querySelector(\"{form} input[name=name]\").value"),
    );
    assert_eq!(name, "Styx [0100535012974000][v0] (2).nsp");
    click(&tab, &format!("{form} button[type=submit]"));
    let restored = lib.join("Indies/Styx [0100535012974000][v0] (2).nsp");
    let back = || restored.is_file();
    crate::harness::wait_until("the file restored", Duration::from_secs(30), back);
    // The page drawn again without the entry.
    wait_for(
        &tab,
        &format!("document.readyState === 'complete' && !document.querySelector(\"tr[data-entry='{id}']\")"),
    );
    assert_eq!(std::fs::read(&restored).unwrap(), bytes);
    assert_eq!(
        std::fs::read(lib.join(STYX)).unwrap(),
        b"a new file in its place"
    );

    // The converted originals go at once; the page says what was freed.
    open(&tab, &format!("{base}/trash"));
    let label = js(
        &tab,
        "document.getElementById('purge-converted').textContent",
    );
    assert!(
        label
            .as_str()
            .unwrap()
            .starts_with("Supprimer les .nsz/.xcz décompressés (5 fichiers, "),
        "{label}"
    );
    set_lang(&tab, "en");
    open(&tab, &format!("{base}/trash"));
    both_widths(&tab, "admin-trash-en", "h1");
    click_and_confirm(&tab, "#purge-converted");
    wait_for(&tab, "!!document.getElementById('freed')");
    let freed = js(&tab, "document.getElementById('freed').textContent");
    assert!(
        freed
            .as_str()
            .unwrap()
            .starts_with("5 files deleted for good: "),
        "{freed}"
    );
    assert_eq!(
        js(&tab, "location.search"),
        "",
        "said once, not kept in the address"
    );
    assert_eq!(
        js(&tab, "!!document.getElementById('purge-converted')"),
        false
    );
    shot(&tab, "admin-trash-en-freed-360");

    // A mistyped address: the 404 page, in the shell, in both languages.
    open(&tab, &format!("{base}/libary"));
    assert_eq!(
        js(&tab, "document.querySelector('h1').textContent"),
        "Page not found"
    );
    both_widths(&tab, "admin-404-en", "h1");
    set_lang(&tab, "fr");
    open(&tab, &format!("{base}/libary"));
    assert_eq!(
        js(&tab, "document.querySelector('h1').textContent"),
        "Page introuvable"
    );
    click(&tab, "ul.links a[href='/library']");
    wait_for(&tab, "location.pathname === '/library'");
    open(&tab, &format!("{base}/libary"));
    both_widths(&tab, "admin-404-fr", "h1");
}
