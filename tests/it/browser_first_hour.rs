//! A new user's first hour in a real browser (issue 40): the first run from an English
//! browser ends, in English, on the page that says where the games go; the header
//! switches to French; the empty library, the menu behind its button on a phone, and a
//! console's login with Tinfoil's fields filled in, at 360 and 1280 px in both
//! languages. Screenshots land in `target/screenshots/pages/` beside the other pages'.

use std::collections::HashMap;

use crate::browser::{
    click, fill, fits_the_screen, js, open, phone, screen, shot, start, wait_for,
};
use crate::harness::{Folders, TestServer};

#[test]
fn the_first_hour_at_both_widths_in_both_languages() {
    let folders = Folders::new();
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };
    let base = s.base.clone();
    let english = HashMap::from([("Accept-Language", "en-US,en;q=0.9")]);
    tab.set_extra_http_headers(english).unwrap();
    first_run(&tab, &s);
    for lang in ["en", "fr"] {
        if lang == "fr" {
            // The header's switch: the other language, named in its own words.
            assert_eq!(
                js(&tab, "document.querySelector('button.lang').textContent"),
                "Français"
            );
            click(&tab, "button.lang");
            wait_for(&tab, "document.documentElement.lang === 'fr'");
        }
        for width in [360, 1280] {
            if width == 360 {
                phone(&tab);
            } else {
                screen(&tab, 1280, 900, false);
            }
            the_pages(&tab, &base, lang, width);
        }
    }
}

/// The first run, as a person does it from another machine: the setup code from the
/// log, a name, a password twice; it ends on where the games go, in English.
fn first_run(tab: &headless_chrome::Tab, s: &TestServer) {
    s.wait_for_log("setup code ");
    let log = s.output();
    let at = log.find("setup code ").unwrap() + "setup code ".len();
    let code = log[at..].split_whitespace().next().unwrap().to_string();
    open(tab, &format!("{}/setup", s.base));
    assert_eq!(js(tab, "document.documentElement.lang"), "en");
    fill(tab, "input[name=setup_code]", &code);
    fill(tab, "input[name=name]", "root");
    fill(tab, "input[name=password]", "long enough");
    fill(tab, "input[name=password2]", "long enough");
    tab.press_key("Enter").unwrap();
    wait_for(tab, "location.pathname === '/welcome'");
    wait_for(tab, "document.readyState === 'complete'");
    assert_eq!(js(tab, "document.documentElement.lang"), "en");
    assert_eq!(
        js(tab, "!!document.querySelector('#library-folder')"),
        true,
        "the admin sees the library folder"
    );
}

/// Each changed page at one width in one language.
fn the_pages(tab: &headless_chrome::Tab, base: &str, lang: &str, width: u32) {
    let narrow = width == 360;
    for (name, path) in [
        ("welcome", "/welcome"),
        ("library-empty", "/library"),
        ("settings-folders", "/settings"),
    ] {
        open(tab, &format!("{base}{path}"));
        assert_eq!(js(tab, "document.documentElement.lang"), lang, "{name}");
        header_fits(tab, name, narrow);
        shot(tab, &format!("pages/{name}-{width}-{lang}"));
    }
    open(tab, &format!("{base}/library"));
    assert_eq!(js(tab, "!!document.getElementById('library-empty')"), true);
    if narrow {
        menu(tab, lang);
    }
    console_login(tab, base, lang, width);
}

/// At 360 px the menu is a button, the page does not scroll sideways; at 1280 px the
/// menu is a row and the header holds on one line.
fn header_fits(tab: &headless_chrome::Tab, name: &str, narrow: bool) {
    let shown = |sel: &str| {
        js(
            tab,
            &format!("getComputedStyle(document.querySelector('{sel}')).display !== 'none'"),
        )
    };
    if narrow {
        fits_the_screen(tab, name);
        assert_eq!(shown(".menu-button"), true, "{name}");
        assert_eq!(shown("header nav"), false, "{name}: the menu is closed");
    } else {
        // Nor is its checkbox in the way of the keyboard.
        assert_eq!(shown(".menu-button"), false, "{name}");
        assert_eq!(shown(".menu-toggle"), false, "{name}");
        assert_eq!(shown("header nav"), true, "{name}");
        let height = js(tab, "document.querySelector('header').offsetHeight");
        assert!(
            height.as_f64().unwrap() < 64.0,
            "{name}: header {height} px"
        );
    }
}

/// The menu opened by its button: every entry shows, whole, within the screen.
fn menu(tab: &headless_chrome::Tab, lang: &str) {
    // From the keyboard: Space on the button opens the menu, and closes it.
    let nav_shown = "getComputedStyle(document.querySelector('header nav')).display !== 'none'";
    js(tab, "document.querySelector('.menu-toggle').focus()");
    assert_eq!(js(tab, "document.activeElement.id"), "menu-open");
    tab.press_key(" ").unwrap();
    wait_for(tab, nav_shown);
    tab.press_key(" ").unwrap();
    wait_for(tab, &format!("!({nav_shown})"));
    click(tab, "label.menu-button");
    wait_for(
        tab,
        "getComputedStyle(document.querySelector('header nav')).display !== 'none'",
    );
    let inside = js(
        tab,
        "[...document.querySelectorAll('header nav a')].every((a) => { const r = a.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth && r.height > 0; })",
    );
    assert_eq!(inside, true, "a menu entry is cut off");
    assert_eq!(
        js(tab, "document.querySelectorAll('header nav a').length"),
        7
    );
    fits_the_screen(tab, "menu");
    shot(tab, &format!("pages/menu-360-{lang}"));
}

/// A console's login added on the Consoles page: its password once, Tinfoil's fields
/// filled with it, and nothing saying that no console is set.
fn console_login(tab: &headless_chrome::Tab, base: &str, lang: &str, width: u32) {
    open(tab, &format!("{base}/device"));
    let name = format!("Salon {lang} {width}");
    fill(tab, "#console-form input[name=name]", &name);
    tab.press_key("Enter").unwrap();
    wait_for(tab, "!document.getElementById('new-console').hidden");
    let password = js(tab, "document.getElementById('new-console-password').value");
    assert_eq!(
        js(
            tab,
            "document.getElementById('tinfoil-password').textContent"
        ),
        password
    );
    assert_eq!(
        js(tab, "document.getElementById('tinfoil-user').textContent"),
        name.as_str()
    );
    // A login is set: the page does not say there is none.
    assert_eq!(
        js(tab, "document.getElementById('consoles-empty').hidden"),
        true
    );
    if width == 360 {
        fits_the_screen(tab, "device-login");
    }
    js(
        tab,
        "document.getElementById('new-console').scrollIntoView({block: 'start'})",
    );
    shot(tab, &format!("pages/device-login-{width}-{lang}"));
    js(
        tab,
        "document.getElementById('tinfoil').scrollIntoView({block: 'center'})",
    );
    shot(tab, &format!("pages/device-tinfoil-{width}-{lang}"));
    // The new row has its buttons at once, as the rows the server wrote.
    let buttons = "document.querySelectorAll('#consoles tbody tr:last-child button').length";
    assert_eq!(js(tab, buttons), 2);
    // DBI's tab: its file holds the password, and so does its download.
    js(tab, "document.getElementById('tab-dbi').click()");
    assert_eq!(
        js(tab, "document.getElementById('setup-dbi').hidden"),
        false
    );
    assert_eq!(
        js(tab, "document.getElementById('setup-tinfoil').hidden"),
        true
    );
    let dbi = js(tab, "document.getElementById('dbi-config').textContent");
    let dbi = dbi.as_str().unwrap().to_string();
    assert!(dbi.contains(password.as_str().unwrap()), "{dbi}");
    let href =
        "decodeURIComponent(document.querySelector('a[data-file=dbi-config]').href.split(',')[1])";
    assert_eq!(js(tab, href).as_str().unwrap(), dbi);
    js(
        tab,
        "document.getElementById('setup').scrollIntoView({block: 'start'})",
    );
    if width == 360 {
        fits_the_screen(tab, "device-dbi");
    }
    shot(tab, &format!("pages/device-dbi-{width}-{lang}"));
}
