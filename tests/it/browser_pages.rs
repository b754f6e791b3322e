//! Every page of the interface, at a phone's width (360 px) and a desktop's (1280 px),
//! in French and in English: each must render, fit a phone's screen without scrolling
//! sideways, show no server path, and leave a screenshot in
//! `target/screenshots/pages/` (named `PAGE-WIDTH-LANG.png`) for people to look at.
//! `docs/pages.md` shows one of each.

use crate::browser::{
    at_width, fits_the_screen, js, open, set_lang, shot, sign_in, start, wait_for,
};
use crate::harness::{Folders, TestServer};
use crate::library::demo;
use crate::web::add_user;

/// The pages, by the name their screenshots take.
const PAGES: [(&str, &str); 21] = [
    ("dashboard", "/"),
    ("library", "/library"),
    ("library-incomplete", "/library?show=incomplete&sort=size"),
    ("title", "/title/0100000000010000"),
    ("files", "/files"),
    (
        "game",
        "/game/Broken%20Download%20%5B0100BBBB00000000%5D%5Bv0%5D.nsp",
    ),
    // Read with the console keys: what it holds, the name that lies, the file's names.
    (
        "game-keyed",
        "/game/Lying%20%5B0100000000BBBB00%5D%5Bv0%5D.nsp",
    ),
    ("tasks", "/tasks"),
    ("task-run", "/tasks/1"),
    ("device", "/device"),
    ("push", "/push"),
    ("trash", "/trash"),
    ("upkeep", "/upkeep"),
    ("health", "/health"),
    ("platforms", "/platforms"),
    ("settings", "/settings"),
    ("keys", "/settings/keys"),
    ("notifications", "/settings/notifications"),
    ("welcome", "/welcome"),
    ("not-found", "/libary"),
    ("page-failed", "/download/no/such.nsp"),
];

// One test per language, each with its own server and browser: the two run side by
// side, and the longest test of the suite is half as long.
#[test]
fn every_page_at_both_widths_in_french() {
    every_page_at_both_widths_in("fr", "fr-FR,fr;q=0.9");
}

#[test]
fn every_page_at_both_widths_in_english() {
    every_page_at_both_widths_in("en", "en-US,en;q=0.9");
}

fn every_page_at_both_widths_in(lang: &str, accept: &str) {
    let folders = Folders::new();
    demo(&folders);
    // Something in the trash, so that its page shows a list.
    std::fs::write(
        folders.library.join("Old copy [0100000000010000][v0].nsp"),
        b"x",
    )
    .unwrap();
    keyed_file(&folders);
    add_user(&folders, "admin", "admin password", true);
    // Settings lists a second library folder with a game, and a third that is offline.
    let nas = folders.tmp.path().join("nas");
    std::fs::create_dir_all(&nas).unwrap();
    std::fs::write(nas.join("On the share [0100000000FF0000][v0].nsp"), b"x").unwrap();
    let first = folders.library.display().to_string();
    let (nas, usb) = (nas.display().to_string(), folders.tmp.path().join("usb"));
    let usb = format!("usb={}", usb.display());
    // Two notification targets (nothing listens: none is sent to in this test).
    let s = TestServer::start_on(
        folders.clone(),
        &[
            "--library",
            &first,
            "--library",
            &nas,
            "--library",
            &usb,
            "--no-local-access",
            "--notify",
            "ntfys://ntfy.example.net/ludotheque-games",
            "--notify",
            "gotify://push.example.lan/AbCdEfGhIjK",
            "--low-space",
            "0",
        ],
    );
    let key = crate::access::create_key(&folders, "pages", &[]);
    s.wait_idle_with(&key);
    let gone = "Old%20copy%20%5B0100000000010000%5D%5Bv0%5D.nsp";
    let r = s.send("DELETE", &format!("/api/library/{gone}"), &[], None);
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };
    let base = s.base.clone();
    // The first-run page, on a service that has no account yet.
    let fresh = TestServer::start_on(Folders::new(), &["--no-local-access"]);
    // Before signing in, the page speaks the browser's language.
    let header = std::collections::HashMap::from([("Accept-Language", accept)]);
    tab.set_extra_http_headers(header).unwrap();
    for width in [360, 1280] {
        at_width(&tab, width);
        open(&tab, &format!("{base}/login"));
        assert_eq!(js(&tab, "document.documentElement.lang"), lang, "login");
        shot(&tab, &format!("pages/login-{width}-{lang}"));
        open(&tab, &format!("{}/setup", fresh.base));
        assert_eq!(js(&tab, "document.documentElement.lang"), lang, "setup");
        assert!(
            js(&tab, "!!document.querySelector('form')") == true,
            "setup"
        );
        shot(&tab, &format!("pages/setup-{width}-{lang}"));
    }
    // Signed in with an English browser, as when both languages ran in one test: the
    // French pages still speak the account's language, not the browser's.
    let header = std::collections::HashMap::from([("Accept-Language", "en-US,en;q=0.9")]);
    tab.set_extra_http_headers(header).unwrap();
    sign_in(&tab, &base, "admin", "admin password");
    if r.status != 200 {
        // The interface's own route needs a session: trash it from the page.
        let status = js(
            &tab,
            &format!("fetch('/api/library/{gone}', {{method: 'DELETE'}}).then(r => r.status)"),
        );
        assert_eq!(status, 200);
    }
    if lang == "en" {
        set_lang(&tab, "en");
    }
    for (width, narrow) in [(360, true), (1280, false)] {
        at_width(&tab, width);
        for (name, path) in PAGES {
            open(&tab, &format!("{base}{path}"));
            assert_eq!(js(&tab, "document.documentElement.lang"), lang, "{name}");
            if narrow {
                fits_the_screen(&tab, name);
            } else {
                // The header and its menu hold on one line at 1280 px.
                let height = js(&tab, "document.querySelector('header').offsetHeight");
                assert!(
                    height.as_f64().unwrap() < 64.0,
                    "{name}: header {height} px"
                );
            }
            shot(&tab, &format!("pages/{name}-{width}-{lang}"));
        }
        // A title's own icon is a square cover, as the placeholders are (a flex
        // item once took the image's own 256 px height in a narrow column).
        open(&tab, &format!("{base}/"));
        wait_for(&tab, "[...document.querySelectorAll('#recently-added img')].some(i => i.complete && i.naturalWidth > 0)");
        let off = js(
            &tab,
            "Math.max(...[...document.querySelectorAll('#recently-added img')].map(i => Math.abs(i.getBoundingClientRect().height - i.getBoundingClientRect().width)))",
        );
        assert!(
            off.as_f64().unwrap() < 2.0,
            "a cover is not square: {off} px off"
        );
        // The compress buttons sit below the fold: scrolled to, two files ticked.
        open(&tab, &format!("{base}/title/0100000000010000"));
        let there = js(
            &tab,
            "(() => { const b = document.getElementById('compress-title'); if (b) b.scrollIntoView({block: 'center'}); return !!b; })()",
        );
        assert_eq!(there, true, "title: no compress button");
        shot(&tab, &format!("pages/title-compress-{width}-{lang}"));
        // The whole title to the push list: said in a toast counting files, in view,
        // the page staying where it is.
        js(
            &tab,
            "document.getElementById('add-title-push').scrollIntoView({block: 'center'})",
        );
        crate::browser::click(&tab, "#add-title-push");
        wait_for(
            &tab,
            "document.getElementById('msg').textContent.length > 0",
        );
        let toast = js(&tab, "(() => { const m = document.getElementById('msg'); const r = m.getBoundingClientRect(); return [m.textContent, location.pathname, r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth, m.className].join('|'); })()");
        let toast = toast.as_str().unwrap().to_string();
        let files = if lang == "fr" {
            "3 fichiers ajoutés"
        } else {
            "3 files added"
        };
        assert!(toast.starts_with(files), "{toast}");
        assert!(
            toast.ends_with("|/title/0100000000010000|true|ok"),
            "{toast}"
        );
        shot(&tab, &format!("pages/title-pushed-{width}-{lang}"));
        js(
            &tab,
            "fetch('/api/push', {method: 'DELETE'}).then(r => r.status)",
        );
        open(&tab, &format!("{base}/files"));
        let said = js(
            &tab,
            "(() => { for (const b of [...document.querySelectorAll('input.pick')].slice(0, 2)) { b.checked = true; b.dispatchEvent(new Event('change', {bubbles: true})); } document.getElementById('selection').scrollIntoView(); return document.getElementById('compress-selected-estimate').textContent + '|' + document.getElementById('compress-selected').disabled; })()",
        );
        let said = said.as_str().unwrap().to_string();
        assert!(
            said.contains("35") && !said.contains('{') && said.ends_with("|false"),
            "{said}"
        );
        shot(&tab, &format!("pages/files-selection-{width}-{lang}"));
        // The library's folders: the first, the share with its game, the one offline.
        open(&tab, &format!("{base}/settings"));
        let states = js(
            &tab,
            "(() => { document.getElementById('library-folders-title').scrollIntoView({block: 'start'}); return [...document.querySelectorAll('#library-folders tr[data-folder]')].map(r => r.dataset.folder + ':' + r.dataset.state).join(' '); })()",
        );
        assert_eq!(states, "library:online nas:online usb:offline", "{lang}");
        if narrow {
            fits_the_screen(&tab, "settings-library-folders");
        }
        shot(
            &tab,
            &format!("pages/settings-library-folders-{width}-{lang}"),
        );
        // Title data files uploaded from Settings: the page's own script sends them,
        // then lists what each gave in the reader's language.
        open(&tab, &format!("{base}/settings"));
        js(
            &tab,
            "(() => { const f = document.querySelector('#title-upload input[type=file]'); const d = new DataTransfer(); d.items.add(new File(['id|rightsId|version\\n0100000000010000|00000000000000000000000000000000|131072\\n'], 'versions.txt')); f.files = d.files; document.getElementById('title-upload').scrollIntoView({block: 'start'}); document.querySelector('#title-upload button[type=submit]').click(); return true; })()",
        );
        wait_for(
            &tab,
            "document.querySelectorAll('#title-upload-result li').length === 3",
        );
        let lines = js(
            &tab,
            "document.getElementById('title-upload-result').textContent",
        );
        let lines = lines.as_str().unwrap().to_string();
        let (file, known) = match lang {
            "fr" => ("versions.txt : 1 identifiant de titre", "connus désormais"),
            _ => ("versions.txt: 1 title ID", "known now"),
        };
        assert!(lines.contains(file) && lines.contains(known), "{lines}");
        if narrow {
            fits_the_screen(&tab, "settings-title-upload");
        }
        shot(&tab, &format!("pages/settings-title-upload-{width}-{lang}"));
    }
}

/// A file whose name lies about what it holds, and made-up console keys to read it.
fn keyed_file(folders: &Folders) {
    use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
    let keys = TestKeys::new(7);
    std::fs::create_dir_all(&folders.data).unwrap();
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, keys.prod_keys_file(KeysFile::Full)).unwrap();
    let private = std::os::unix::fs::PermissionsExt::from_mode(0o600);
    std::fs::set_permissions(&path, private).unwrap();
    let update = Title {
        name: "Synthetic Quest".into(),
        publisher: "Ludo Games".into(),
        display_version: "1.3.0".into(),
        ..Title::patch(0x0100_0000_00AE_0000, 196608)
    };
    let name = "Lying [0100000000BBBB00][v0].nsp";
    std::fs::write(folders.library.join(name), keyed::nsp(&keys, &[update])).unwrap();
}
