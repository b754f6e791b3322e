//! The library in a browser for a new user's first hour (issue 40), at 360 and 1280
//! px in French and English: the dashboard's cards, the library as covers and as a
//! table, search as you type, a file's page with its Download button, and the file
//! list's selection asking before it acts. Screenshots go to
//! `target/screenshots/pages/` like the other pages'.

use crate::browser::{
    at_width, fits_the_screen, js, open, set_lang, shot, sign_in, start, type_text, wait_for,
};
use crate::harness::{Folders, TestServer};
use crate::library::demo;
use crate::web::add_user;

const GAME: &str = "/game/Studio/Moon/Moonlit%20Odyssey%20%5B0100000000010000%5D%5Bv0%5D.nsp";

/// Tick the first `n` boxes of the file list and open the trash's confirmation;
/// returns its sentence.
fn ask_to_trash(tab: &headless_chrome::Tab, n: usize) -> String {
    let said = js(
        tab,
        &format!(
            "(() => {{ for (const b of [...document.querySelectorAll('input.pick')].slice(0, {n})) {{ b.checked = true; b.dispatchEvent(new Event('change', {{bubbles: true}})); }} document.getElementById('trash-selected').click(); return document.getElementById('selection-summary').textContent; }})()"
        ),
    );
    wait_for(tab, "!!document.querySelector('dialog.confirm[open]')");
    let asked = js(tab, "document.getElementById('confirm-text').textContent");
    assert!(said.as_str().unwrap().contains(&n.to_string()), "{said}");
    asked.as_str().unwrap().to_string()
}

#[test]
fn the_first_hour_pages_at_both_widths_in_both_languages() {
    let folders = Folders::new();
    demo(&folders);
    add_user(&folders, "admin", "admin password", true);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };
    let base = s.base.clone();
    sign_in(&tab, &base, "admin", "admin password");
    wait_for(
        &tab,
        "document.getElementById('job').dataset.state === 'idle'",
    );
    for lang in ["fr", "en"] {
        if lang == "en" {
            set_lang(&tab, "en");
        }
        for (width, narrow) in [(360, true), (1280, false)] {
            at_width(&tab, width);
            let check = |name: &str| {
                if narrow {
                    fits_the_screen(&tab, name);
                }
                shot(&tab, &format!("pages/{name}-{width}-{lang}"));
            };
            open(&tab, &format!("{base}/"));
            assert_eq!(
                js(
                    &tab,
                    "document.querySelectorAll('#missing-cards a.card').length"
                ),
                4
            );
            check("dashboard-cards");
            open(&tab, &format!("{base}/library?view=grid"));
            assert_eq!(js(&tab, "!!document.getElementById('title-grid')"), true);
            check("library-grid");
            open(&tab, &format!("{base}/library?view=table"));
            assert_eq!(js(&tab, "!!document.getElementById('titles')"), true);
            check("library-table");
            // Search as you type: the list follows, the address keeps the search.
            tab.wait_for_element("input[type=search]")
                .unwrap()
                .click()
                .unwrap();
            type_text(&tab, "zeph");
            wait_for(&tab, "new URLSearchParams(location.search).get('q') === 'zeph' && document.querySelectorAll('#titles tbody tr').length === 1");
            check("library-search");
            open(&tab, &format!("{base}{GAME}"));
            assert_eq!(js(&tab, "!!document.getElementById('download')"), true);
            check("game-download");
            open(&tab, &format!("{base}/files"));
            let asked = ask_to_trash(&tab, 2);
            let files = if lang == "fr" {
                "2 fichiers"
            } else {
                "2 files"
            };
            assert!(
                asked.contains(files) && asked.contains("KB") == (lang == "en"),
                "{asked}"
            );
            check("files-selection-dialog");
            js(
                &tab,
                "document.querySelector('dialog.confirm .cancel').click()",
            );
        }
    }
}
