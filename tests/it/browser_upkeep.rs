//! The Upkeep page's safety in Chromium (issue 40): dedupe and organize show their
//! plan in a dialog before anything moves (Cancel moves nothing), and a past organize
//! run is undone from its button, after a dialog of its own. Screenshots of each
//! dialog at 360 and 1280 px, in French and in English.

use std::time::Duration;

use crate::browser::{
    click, fits_the_screen, js, open, screen, set_lang, shot, sign_in, start, wait_for,
};
use crate::harness::{Folders, TestServer};
use crate::library::demo;
use crate::web::add_user;

const STYX_NEW: &str = "Indies/Styx [0100535012974800][v131072].nsp";
const STYX_OLD: &str = "Indies/Styx [0100535012974800][v65536].nsp";

const SCREENS: [(u32, u32, bool, &str); 2] = [(360, 780, true, "360"), (1280, 900, false, "1280")];

/// Click `button`, wait for its dialog, take its picture, and answer: Cancel, or
/// the confirm button (`browser::confirm`: once the dialog has been open long enough
/// to count).
fn dialog(tab: &headless_chrome::Tab, button: &str, name: &str, yes: bool) {
    click(tab, button);
    wait_for(tab, "!!document.querySelector('dialog[open]')");
    if name.ends_with("360-fr") || name.ends_with("360-en") {
        fits_the_screen(tab, name);
    }
    shot(tab, name);
    if yes {
        crate::browser::confirm(tab);
    } else {
        click(tab, "dialog[open] button.cancel");
    }
    wait_for(tab, "!document.querySelector('dialog[open]')");
}

/// A confirmed task took the tab to Tasks and ended there. The Tasks page reloads
/// itself when it sees a run end, so the test waits for the page that shows the
/// ended run: one opened before that reload would be swept away by it.
fn ran_to_its_end(tab: &headless_chrome::Tab, s: &TestServer, key: &str) {
    wait_for(tab, "location.pathname === '/tasks'");
    s.wait_idle_with(key);
    wait_for(
        tab,
        "document.readyState === 'complete' && document.getElementById('job')?.dataset.state === 'idle'",
    );
}

#[test]
fn dedupe_and_organize_ask_with_their_plan_and_a_past_run_is_undone_from_its_button() {
    let folders = Folders::new();
    demo(&folders);
    let lib = folders.library.clone();
    std::fs::copy(lib.join(STYX_NEW), lib.join(STYX_OLD)).unwrap();
    add_user(&folders, "admin", "admin password", true);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    let key = crate::access::create_key(&folders, "upkeep", &[]);
    s.wait_idle_with(&key);
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };
    let base = s.base.clone();
    sign_in(&tab, &base, "admin", "admin password");
    let runs = folders.run_results().len();
    for lang in ["fr", "en"] {
        set_lang(&tab, lang);
        for (w, h, mobile, width) in SCREENS {
            screen(&tab, w, h, mobile);
            open(&tab, &format!("{base}/upkeep"));
            dialog(
                &tab,
                "#start-dedupe",
                &format!("upkeep-dedupe-dialog-{width}-{lang}"),
                false,
            );
            let text = js(&tab, "document.body.textContent");
            assert!(text.as_str().unwrap().contains("v65536"));
            dialog(
                &tab,
                "#start-organize",
                &format!("upkeep-organize-dialog-{width}-{lang}"),
                false,
            );
        }
    }
    // Nothing must happen: give a wrongly started task the time to show, then look.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(folders.run_results().len(), runs, "Cancel started nothing");
    assert!(lib.join(STYX_OLD).is_file());

    // The plan's words, and its rows: the dedupe dialog names the copy kept.
    click(&tab, "#start-dedupe");
    wait_for(
        &tab,
        "!!document.querySelector('dialog[open] ul.plan-rows')",
    );
    let rows = js(
        &tab,
        "document.querySelector('dialog[open] ul.plan-rows').textContent",
    );
    assert!(rows.as_str().unwrap().contains(STYX_NEW), "{rows}");
    click(&tab, "dialog[open] button.cancel");

    // Organize, confirmed; then the run's Undo button asks, and puts everything back.
    let before = crate::harness::files_under(&lib);
    dialog(&tab, "#start-organize", "upkeep-organize-confirmed", true);
    ran_to_its_end(&tab, &s, &key);
    assert!(lib.join("Styx").is_dir(), "the run moved Styx");
    for lang in ["fr", "en"] {
        set_lang(&tab, lang);
        for (w, h, mobile, width) in SCREENS {
            screen(&tab, w, h, mobile);
            open(&tab, &format!("{base}/upkeep"));
            dialog(
                &tab,
                "#undo-organize-1",
                &format!("upkeep-undo-dialog-{width}-{lang}"),
                false,
            );
        }
    }
    dialog(&tab, "#undo-organize-1", "upkeep-undo-confirmed", true);
    ran_to_its_end(&tab, &s, &key);
    let mut after = crate::harness::files_under(&lib);
    let mut before = before;
    after.retain(|p| !p.starts_with(lib.join(".ludotheque-trash")));
    before.retain(|p| !p.starts_with(lib.join(".ludotheque-trash")));
    after.sort();
    before.sort();
    assert_eq!(after, before, "every file is back where it was");

    // Dedupe, confirmed: the older copy goes to the trash, the newer stays.
    open(&tab, &format!("{base}/upkeep"));
    dialog(&tab, "#start-dedupe", "upkeep-dedupe-confirmed", true);
    ran_to_its_end(&tab, &s, &key);
    assert!(!lib.join(STYX_OLD).exists() && lib.join(STYX_NEW).is_file());
}
