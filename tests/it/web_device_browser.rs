//! The library pages and the console page in Chromium: the pager and the filters that
//! apply on change, keyboard access (the skip link, a row's link, visible focus), the
//! console page's connection test; screenshots of `/library`, `/files` and `/device`
//! at 360 px and 1280 px, in French and English.

use std::net::TcpListener;

use crate::browser::{
    click, fits_the_screen, js, open, phone, screen, set_lang, shot, sign_in, start, wait_for,
};
use crate::harness::TestServer;
use crate::library::scanned_demo;
use crate::web::add_user;

/// The four screenshots of one page: phone and desktop, French and English, scrolled
/// to the element `at` (a selector) when there is one.
fn shots(tab: &headless_chrome::Tab, url: &str, name: &str, at: Option<&str>) {
    let scroll = at.map(|sel| format!("document.querySelector('{sel}').scrollIntoView(), true"));
    for lang in ["fr", "en"] {
        set_lang(tab, lang);
        phone(tab);
        open(tab, url);
        fits_the_screen(tab, &format!("{name} ({lang})"));
        if let Some(scroll) = &scroll {
            js(tab, scroll);
        }
        shot(tab, &format!("{name}-{lang}-360"));
        screen(tab, 1280, 900, false);
        open(tab, url);
        if let Some(scroll) = &scroll {
            js(tab, scroll);
        }
        shot(tab, &format!("{name}-{lang}-1280"));
    }
    phone(tab);
}

/// The focused element, described.
fn focused(tab: &headless_chrome::Tab) -> String {
    js(tab, "(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + (e.getAttribute('href') || ''))(document.activeElement)")
        .as_str()
        .unwrap()
        .to_string()
}

/// Press Tab until `expr` holds for the focused element (`e`), at most `n` times.
fn tab_until(tab: &headless_chrome::Tab, expr: &str, n: usize) -> bool {
    for _ in 0..n {
        tab.press_key("Tab").unwrap();
        if js(tab, &format!("(e => !!({expr}))(document.activeElement)")) == true {
            return true;
        }
    }
    false
}

#[test]
fn browser_library_pager_filters_keyboard_and_console_test() {
    let folders = scanned_demo();
    add_user(&folders, "admin", "admin password", true);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    let base = s.base.clone();
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };
    sign_in(&tab, &base, "admin", "admin password");
    open(&tab, &format!("{base}/files?limit=5&page=9999"));
    let pages = js(
        &tab,
        "document.querySelector('.pager input[name=page]').max",
    );
    assert_eq!(
        js(
            &tab,
            "document.querySelector('.pager .current').textContent"
        ),
        pages,
        "a page past the end shows the last"
    );
    // Go to page 3 with the form.
    js(
        &tab,
        "document.querySelector('.pager input[name=page]').value = '3'",
    );
    click(&tab, ".pager form.goto button");
    wait_for(
        &tab,
        "new URLSearchParams(location.search).get('page') === '3'",
    );
    assert_eq!(
        js(&tab, "new URLSearchParams(location.search).get('limit')"),
        "5"
    );
    assert_eq!(
        js(
            &tab,
            "document.querySelector('.pager .current').textContent"
        ),
        "3"
    );

    // A filter applies on change, without its button (hidden by the script).
    assert_eq!(
        js(
            &tab,
            "document.querySelector('form.filters button[type=submit]').hidden"
        ),
        true
    );
    js(&tab, "(s => { s.value = 'DLC'; s.dispatchEvent(new Event('change', {bubbles: true})); })(document.querySelector('select[name=type]'))");
    wait_for(
        &tab,
        "new URLSearchParams(location.search).get('type') === 'DLC'",
    );
    assert_eq!(
        js(&tab, "new URLSearchParams(location.search).get('page')"),
        serde_json::Value::Null
    );
    open(&tab, &format!("{base}/library?limit=3"));
    js(&tab, "(s => { s.value = 'size'; s.dispatchEvent(new Event('change', {bubbles: true})); })(document.querySelector('select[name=sort]'))");
    wait_for(
        &tab,
        "new URLSearchParams(location.search).get('sort') === 'size'",
    );
    assert_eq!(
        js(
            &tab,
            "document.querySelector('th.num[aria-sort]').getAttribute('aria-sort')"
        ),
        "descending"
    );

    // Keyboard: the first Tab focuses the skip link, Enter moves focus to main.
    open(&tab, &format!("{base}/library?limit=3"));
    tab.press_key("Tab").unwrap();
    assert!(
        focused(&tab).contains("skip"),
        "first Tab: {}",
        focused(&tab)
    );
    tab.press_key("Enter").unwrap();
    wait_for(&tab, "document.activeElement.id === 'main'");
    // From main, Tab reaches a row's link, with a visible focus ring.
    assert!(
        tab_until(&tab, "e.closest('#titles tbody') && e.tagName === 'A'", 40),
        "no row link by Tab: {}",
        focused(&tab)
    );
    assert_ne!(
        js(
            &tab,
            "getComputedStyle(document.activeElement).outlineStyle"
        ),
        "none"
    );
    assert!(
        tab_until(&tab, "e.closest('.pager') && e.tagName === 'A'", 40),
        "no pager link by Tab"
    );
    assert_ne!(
        js(
            &tab,
            "getComputedStyle(document.activeElement).outlineStyle"
        ),
        "none"
    );
    assert_eq!(
        js(
            &tab,
            "getComputedStyle(document.activeElement).outlineWidth"
        ),
        "3px"
    );

    // The console page: a console on this machine, an installer waiting, one game listed.
    let installer = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = installer.local_addr().unwrap().port();
    open(&tab, &format!("{base}/push"));
    js(&tab, &format!("fetch('/api/device', {{method:'POST', headers:{{'Content-Type':'application/json'}}, body: JSON.stringify({{host:'127.0.0.1', port:{port}, name:'Salon'}})}}).then(r => r.status)"));
    let pushed = js(&tab, "fetch('/api/v1/library?type=BASE&limit=1').then(r => r.json()).then(j => fetch('/api/push/' + j.items[0].key.split('/').map(encodeURIComponent).join('/'), {method:'POST'})).then(r => r.status)");
    assert_eq!(pushed, 200);
    open(&tab, &format!("{base}/push"));
    click(&tab, "#device-test");
    wait_for(
        &tab,
        "document.getElementById('device-test-result').className === 'ok'",
    );
    drop(installer);
    click(&tab, "#device-test");
    wait_for(
        &tab,
        "document.getElementById('device-test-result').dataset.reason === 'refused'",
    );
    assert_eq!(
        js(
            &tab,
            "document.getElementById('device-test-result').className"
        ),
        "bad"
    );
    assert_eq!(
        js(&tab, "document.querySelectorAll('#push tbody tr').length"),
        1
    );

    // Clearing the list asks first, naming what goes.
    let confirm = js(&tab, "document.querySelector('button[data-api=\"/api/push\"][data-method=DELETE]').dataset.confirm");
    assert!(
        confirm
            .as_str()
            .unwrap()
            .starts_with("Retirer de la liste d'envoi 1 fichier ("),
        "{confirm}"
    );

    // Screenshots: a console elsewhere (the push is off while the service listens on
    // loopback, and the page says why) with a game on the list.
    js(&tab, "fetch('/api/device', {method:'POST', headers:{'Content-Type':'application/json'}, body: JSON.stringify({host:'192.168.1.50', port:2000, name:'Salon'})}).then(r => r.status)");
    open(&tab, &format!("{base}/push"));
    assert_eq!(
        js(&tab, "document.getElementById('start-push').disabled"),
        true
    );
    shots(
        &tab,
        &format!("{base}/library?limit=3&page=2"),
        "device-library",
        Some(".pager"),
    );
    shots(
        &tab,
        &format!("{base}/files?limit=5&page=5"),
        "device-files",
        Some(".pager"),
    );
    shots(
        &tab,
        &format!("{base}/push"),
        "device-device",
        Some("#push-how"),
    );
    shots(
        &tab,
        &format!("{base}/push"),
        "device-pushlist",
        Some("#push-list"),
    );

    // Clearing the list asks through the dialog, which names what goes.
    click(&tab, "button[data-api=\"/api/push\"][data-method=DELETE]");
    wait_for(&tab, "!!document.querySelector('dialog[open]')");
    let asked = js(&tab, "document.querySelector('dialog[open]').textContent");
    assert!(asked.as_str().unwrap().contains("132"), "the size: {asked}");
    crate::browser::confirm(&tab);
    wait_for(&tab, "!!document.getElementById('push-empty')");
}
