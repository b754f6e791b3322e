//! The web interface end to end, in a real headless Chromium driven over the DevTools
//! protocol (`headless_chrome`, synchronous): sign in, follow a scan's progress bar to
//! its end, search, delete a game and restore it from the trash, create an API key and
//! use it, revoke it, and check that a viewer cannot start a task. The window is
//! 360 px wide (a phone) and no page may scroll sideways; a few pages are also shown
//! at desktop width. Screenshots of the main pages land in `target/screenshots/`.
//!
//! Chromium is found at `$LUDOTHEQUE_CHROMIUM` or `/usr/bin/chromium`. Without it these
//! tests say so on standard error and pass, so that `cargo test` works on a machine
//! with only the Rust toolchain; `.ci/run` installs Chromium and sets
//! `LUDOTHEQUE_REQUIRE_BROWSER=1`, which turns a missing browser into a failure.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::protocol::cdp::{Emulation, Input};
use headless_chrome::{Browser, LaunchOptions, Tab};

use crate::harness::{Folders, TestServer};
use crate::library::demo;
use crate::web::add_user;

pub(crate) fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("LUDOTHEQUE_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("LUDOTHEQUE_REQUIRE_BROWSER").is_none(),
        "LUDOTHEQUE_REQUIRE_BROWSER is set but there is no Chromium at {path:?}"
    );
    eprintln!("browser tests skipped: no Chromium at {path:?} (apt-get install chromium)");
    None
}

pub(crate) fn launch(path: PathBuf, profile: &std::path::Path) -> Browser {
    let options = LaunchOptions::default_builder()
        .path(Some(path))
        .headless(true)
        .sandbox(false)
        .window_size(Some((360, 800)))
        .user_data_dir(Some(profile.to_path_buf()))
        .idle_browser_timeout(Duration::from_secs(120))
        .args(vec![
            OsStr::new("--disable-gpu"),
            OsStr::new("--disable-quic"),
            OsStr::new("--disable-component-update"),
            OsStr::new("--lang=fr-FR"),
        ])
        .build()
        .unwrap();
    Browser::new(options).expect("Chromium starts")
}

/// The page's viewport, as a phone or a desktop shows it (a window alone cannot be
/// narrower than Chromium's minimum width).
pub(crate) fn screen(tab: &Tab, width: u32, height: u32, mobile: bool) {
    tab.call_method(Emulation::SetDeviceMetricsOverride {
        width,
        height,
        device_scale_factor: 1.0,
        mobile,
        scale: None,
        screen_width: None,
        screen_height: None,
        position_x: None,
        position_y: None,
        dont_set_visible_size: None,
        screen_orientation: None,
        viewport: None,
        display_feature: None,
        device_posture: None,
    })
    .unwrap();
}

pub(crate) fn phone(tab: &Tab) {
    screen(tab, 360, 780, true);
}

/// The page tours' two widths: a phone's (360) or a desktop's (1280).
pub(crate) fn at_width(tab: &Tab, width: u32) {
    if width == 360 {
        phone(tab);
    } else {
        screen(tab, width, 900, false);
    }
}

fn screenshots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

thread_local! {
    /// The test's temporary folder: no page may show it (a server path). Each browser
    /// test runs on its own thread.
    static ROOT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Chromium with a fresh profile, and a tab on a phone's screen, for a test whose
/// files live in `folders`; `None` when there is no Chromium (see the module's doc).
pub(crate) fn start(
    folders: &Folders,
) -> Option<(Browser, std::sync::Arc<Tab>, tempfile::TempDir)> {
    let path = chromium()?;
    let root = folders.tmp.path().to_string_lossy().into_owned();
    ROOT.with(|r| *r.borrow_mut() = Some(root));
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(path, profile.path());
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(30));
    phone(&tab);
    Some((browser, tab, profile))
}

pub(crate) fn shot(tab: &Tab, name: &str) {
    // The server's folders show to an admin, in their `.server-path` elements only
    // (`web::first_steps`): anywhere else a path is a leak.
    let html = js(
        tab,
        "(() => { const d = document.documentElement.cloneNode(true); d.querySelectorAll('.server-path').forEach((e) => e.remove()); return d.outerHTML; })()",
    );
    ROOT.with(|root| {
        if let Some(root) = root.borrow().as_deref() {
            assert!(
                !html.as_str().unwrap().contains(root),
                "{name} shows a server path"
            );
        }
    });
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .unwrap();
    // A name may hold a folder (`pages/…`): make it here, so a test never relies on
    // another having run first (on a fresh checkout the order is the scheduler's).
    let file = screenshots().join(format!("{name}.png"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, png).unwrap();
}

/// The value of a JavaScript expression in the page. A page that is being drawn
/// again (the dashboard reloads itself when a task ends) is asked again.
pub(crate) fn js(tab: &Tab, expr: &str) -> serde_json::Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        match tab.evaluate(expr, true) {
            Ok(r) => return r.value.unwrap_or(serde_json::Value::Null),
            Err(e) if Instant::now() > until => panic!("{expr}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Wait until a JavaScript expression is true in the page.
pub(crate) fn wait_for(tab: &Tab, expr: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        if tab.evaluate(expr, false).ok().and_then(|r| r.value) == Some(true.into()) {
            return;
        }
        assert!(
            Instant::now() < until,
            "never true: {expr}\nat {}",
            tab.get_url()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Answer the open confirm dialog yes. Its button counts only once the dialog has
/// been open half a second (app.js takes an earlier click for a double-click's end),
/// so it is pressed until the dialog closes.
pub(crate) fn confirm(tab: &Tab) {
    wait_for(tab, "!!document.querySelector('dialog[open]')");
    let press = "(() => { const b = document.querySelector('dialog[open] button.confirm'); \
                 if (b) b.click(); return !b; })()";
    let until = Instant::now() + Duration::from_secs(5);
    while js(tab, press) != true {
        assert!(Instant::now() < until, "the dialog never took its answer");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Click an element, as a person does (the mouse at its middle).
pub(crate) fn click(tab: &Tab, selector: &str) {
    tab.wait_for_element(selector).unwrap().click().unwrap();
}

/// Click a field and type into it.
pub(crate) fn fill(tab: &Tab, selector: &str, text: &str) {
    click(tab, selector);
    type_text(tab, text);
}

/// Type into the focused field, as an input method does: the whole text at once.
pub(crate) fn type_text(tab: &Tab, text: &str) {
    tab.call_method(Input::InsertText {
        text: text.to_string(),
    })
    .unwrap();
}

pub(crate) fn open(tab: &Tab, url: &str) {
    tab.navigate_to(url)
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    wait_for(tab, "document.readyState === 'complete'");
}

/// The page fits a 360 px screen: nothing makes it scroll sideways.
pub(crate) fn fits_the_screen(tab: &Tab, what: &str) {
    // Right after `phone`, Chromium may not have laid the page out again yet (a
    // mobile page is 980 px wide until its viewport meta applies): let it.
    let until = Instant::now() + Duration::from_secs(2);
    while js(tab, "window.innerWidth") != 360 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        js(tab, "window.innerWidth"),
        360,
        "{what}: not a phone's width"
    );
    let (scroll, inner) = (
        js(tab, "document.documentElement.scrollWidth"),
        js(tab, "window.innerWidth"),
    );
    assert!(
        scroll.as_f64() <= inner.as_f64(),
        "{what} scrolls sideways: {scroll} > {inner}"
    );
}

/// Sign in from a link that tries to send the browser elsewhere afterwards: it must
/// land on this service's dashboard.
pub(crate) fn sign_in(tab: &Tab, base: &str, name: &str, password: &str) {
    open(tab, &format!("{base}/login?next=/%5Cevil.example/"));
    fill(tab, "input[name=name]", name);
    fill(tab, "input[name=password]", password);
    tab.press_key("Enter").unwrap();
    let host = base.trim_start_matches("http://");
    wait_for(
        tab,
        &format!("location.host === '{host}' && location.pathname === '/' && !!document.getElementById('job')"),
    );
}

/// The signed-in account's language, as its Settings choice sets it.
pub(crate) fn set_lang(tab: &Tab, lang: &str) {
    let status = js(
        tab,
        &format!("fetch('/api/me/lang', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: '{{\"lang\":\"{lang}\"}}'}}).then(r => r.status)"),
    );
    assert_eq!(status, 200, "{lang}");
}

#[test]
fn a_person_in_a_browser_runs_the_library() {
    let folders = Folders::new();
    demo(&folders);
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    let s = TestServer::start_on(
        folders.clone(),
        &["--no-local-access", "--task-delay-ms", "1500"],
    );
    let base = s.base.clone();
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };

    // The sign-in page; a wrong password says so and leaves us there.
    open(&tab, &format!("{base}/settings"));
    wait_for(&tab, "location.pathname === '/login'");
    shot(&tab, "login");
    fits_the_screen(&tab, "login");
    fill(&tab, "input[name=name]", "admin");
    fill(&tab, "input[name=password]", "not the password");
    tab.press_key("Enter").unwrap();
    wait_for(
        &tab,
        "document.getElementById('msg').textContent.length > 0",
    );
    assert_eq!(js(&tab, "location.pathname"), "/login");

    // Signing in returns to the page asked for.
    click(&tab, "input[name=password]");
    js(
        &tab,
        "document.querySelector('input[name=password]').value = ''",
    );
    type_text(&tab, "admin password");
    tab.press_key("Enter").unwrap();
    wait_for(&tab, "location.pathname === '/settings'");
    // The session cookie is out of the page's reach.
    assert_eq!(js(&tab, "document.cookie"), "");

    // The dashboard: a scan's progress bar runs to its end.
    open(&tab, &format!("{base}/"));
    wait_for(
        &tab,
        "document.getElementById('job').dataset.state === 'idle'",
    );
    // Keyboard: the first Tab reaches the skip link.
    tab.press_key("Tab").unwrap();
    assert_eq!(js(&tab, "document.activeElement.className"), "skip");
    // A mark on this page: the page draws itself again when the task ends, and the
    // checks below must read the new one, whole.
    js(&tab, "window.beforeScan = true");
    click(&tab, "#start-scan");
    wait_for(
        &tab,
        "document.getElementById('job').dataset.state === 'running'",
    );
    let running = js(&tab, "document.getElementById('job-progress').value");
    assert!(running.as_f64().unwrap() < 60.0, "{running}");
    shot(&tab, "dashboard-scanning");
    // One snapshot of the page drawn after the task: idle, the bar full, the result.
    wait_for(
        &tab,
        "(() => {
            const bar = document.getElementById('job-progress');
            const result = document.getElementById('job-result');
            // Idle: the bar is hidden. The broken demo file was named by the scan at
            // start; this second scan does not read it again.
            return window.beforeScan === undefined && document.readyState === 'complete'
                && !!bar && !!result
                && document.getElementById('job').dataset.state === 'idle'
                && document.getElementById('job-bar').hidden
                && result.textContent.startsWith('Analyse · succès');
        })()",
    );
    shot(&tab, "dashboard");
    fits_the_screen(&tab, "dashboard");

    // Search the library (a row per title), open a title, then one of its files.
    open(&tab, &format!("{base}/library"));
    fits_the_screen(&tab, "library");
    shot(&tab, "library");
    fill(&tab, "input[name=q]", "odyssey");
    tab.press_key("Enter").unwrap();
    wait_for(
        &tab,
        "location.search.includes('q=odyssey') && document.readyState === 'complete'",
    );
    let rows = js(
        &tab,
        "[...document.querySelectorAll('#titles tbody tr')].map(r => r.textContent).join('|')",
    );
    assert!(rows.as_str().unwrap().contains("Odyssey"), "{rows}");
    assert!(!rows.as_str().unwrap().contains("Zephyr"), "{rows}");
    shot(&tab, "search");
    open(&tab, &format!("{base}/library?show=incomplete&sort=size"));
    fits_the_screen(&tab, "library-incomplete");
    shot(&tab, "library-incomplete");
    open(&tab, &format!("{base}/library?q=odyssey"));
    click(&tab, "#titles tbody a");
    wait_for(
        &tab,
        "location.pathname.startsWith('/title/') && !!document.getElementById('title-facts')",
    );
    fits_the_screen(&tab, "title");
    shot(&tab, "title");
    click(&tab, "table.files tbody a");
    wait_for(
        &tab,
        "location.pathname.startsWith('/game/') && !!document.getElementById('delete')",
    );
    fits_the_screen(&tab, "game");
    shot(&tab, "game");
    let key = js(&tab, "document.querySelector('dl.facts code').textContent");
    let key = key.as_str().unwrap().to_string();
    let file = folders.library.join(&key);
    assert!(file.exists(), "{key}");

    // Delete it into the trash, then restore it.
    click(&tab, "#delete");
    wait_for(
        &tab,
        "location.pathname === '/trash' && !!document.getElementById('trash')",
    );
    assert!(!file.exists(), "the file left its place");
    let trashed = crate::harness::files_under(&folders.library.join(".ludotheque-trash"));
    assert_eq!(trashed.len(), 1, "{trashed:?}");
    fits_the_screen(&tab, "trash");
    shot(&tab, "trash");
    click(&tab, "#trash button[data-api$='/restore']");
    wait_for(&tab, "!!document.getElementById('trash-empty')");
    assert!(file.exists(), "restored to its key");

    // An API key: created once, usable, then revoked and refused.
    open(&tab, &format!("{base}/settings/keys"));
    fill(&tab, "#key-form input[name=name]", "dashboard-e2e");
    tab.press_key("Enter").unwrap();
    wait_for(&tab, "!document.getElementById('new-key').hidden");
    let secret = js(&tab, "document.getElementById('new-key-value').value");
    let secret = secret.as_str().unwrap().to_string();
    assert!(secret.starts_with("ldq_"), "{secret}");
    shot(&tab, "api-key-created");
    // The new key is listed at once, by its prefix only.
    let listed = js(&tab, "document.querySelector('#keys tbody').textContent");
    assert!(listed.as_str().unwrap().contains(&secret[..8]), "{listed}");
    assert!(!listed.as_str().unwrap().contains(&secret), "{listed}");
    // Its date as the page writes the others: "29 nov. 2026, 10:36".
    let shown = listed.as_str().unwrap();
    assert!(crate::first_run::says_a_moment(shown), "{listed}");
    let stats = s.send("GET", "/api/v1/stats", &[("X-Api-Key", &secret)], None);
    assert_eq!(stats.status, 200);
    assert!(stats.json()["total"].as_u64().unwrap() >= 60);
    open(&tab, &format!("{base}/settings/keys"));
    fits_the_screen(&tab, "keys");
    let revoke = "#keys button[data-api^='/api/keys/']";
    click(&tab, revoke);
    // A dialog asks first; its confirm button decides (after the double-click guard).
    wait_for(&tab, "!!document.querySelector('dialog[open]')");
    let asked = js(&tab, "document.querySelector('dialog[open] p').textContent");
    assert!(
        asked.as_str().unwrap().contains("dashboard-e2e"),
        "names the key: {asked}"
    );
    confirm(&tab);
    wait_for(
        &tab,
        &format!("document.readyState === 'complete' && !document.querySelector(\"{revoke}\")"),
    );
    shot(&tab, "api-keys");
    let r = s.send("GET", "/api/v1/stats", &[("X-Api-Key", &secret)], None);
    assert_eq!(r.status, 401);

    // The other pages render and fit.
    for page in [
        "tasks",
        "device",
        "platforms",
        "settings",
        "files",
        "upkeep",
    ] {
        open(&tab, &format!("{base}/{page}"));
        fits_the_screen(&tab, page);
        shot(&tab, page);
    }

    // A console for the shop: its password shown once, with the address; it opens the shop.
    open(&tab, &format!("{base}/device"));
    fill(
        &tab,
        "form[data-api='/api/consoles'] input[name=name]",
        "salon",
    );
    tab.press_key("Enter").unwrap();
    wait_for(&tab, "!document.getElementById('new-console').hidden");
    let password = js(
        &tab,
        "document.getElementById('new-console-password').value",
    );
    let password = password.as_str().unwrap().to_string();
    let url = js(&tab, "document.getElementById('new-console-url').value");
    assert!(
        url.as_str()
            .unwrap()
            .starts_with(&format!("http://salon:{password}@")),
        "{url}"
    );
    fits_the_screen(&tab, "device-console-added");
    shot(&tab, "device-console-added");
    let auth = {
        use base64ct::{Base64, Encoding};
        format!(
            "Basic {}",
            Base64::encode_string(format!("salon:{password}").as_bytes())
        )
    };
    assert_eq!(
        s.send("GET", "/shop", &[("Authorization", &auth)], None)
            .status,
        200
    );

    // Sign out; a viewer sees no way to start a task, and the route refuses one.
    click(&tab, "header button[data-api='/api/logout']");
    wait_for(&tab, "location.pathname === '/login'");
    sign_in(&tab, &base, "viewer", "viewer password");
    assert_eq!(js(&tab, "!!document.getElementById('start-scan')"), false);
    shot(&tab, "dashboard-viewer");
    let status = js(
        &tab,
        "fetch('/api/scan', {method: 'POST'}).then(r => r.status)",
    );
    assert_eq!(status, 403);
    let before = folders.run_results().len();
    // Nothing must happen: give a wrongly started task the time to show, then look.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(folders.run_results().len(), before, "no task started");

    // Desktop width, for the record.
    screen(&tab, 1280, 900, false);
    open(&tab, &format!("{base}/library"));
    assert_eq!(js(&tab, "window.innerWidth"), 1280);
    shot(&tab, "library-desktop");
    open(&tab, &format!("{base}/title/0100000000010000"));
    shot(&tab, "title-desktop");
    open(&tab, &format!("{base}/device"));
    shot(&tab, "device-desktop");
    open(&tab, &format!("{base}/upkeep"));
    shot(&tab, "upkeep-desktop");
    // The same pages in English, at both widths.
    set_lang(&tab, "en");
    open(&tab, &format!("{base}/library"));
    assert_eq!(js(&tab, "document.documentElement.lang"), "en");
    shot(&tab, "library-desktop-en");
    open(&tab, &format!("{base}/device"));
    shot(&tab, "device-desktop-en");
    open(&tab, &format!("{base}/upkeep"));
    shot(&tab, "upkeep-desktop-en");
    screen(&tab, 360, 740, true);
    for (page, name) in [
        ("library", "library-en"),
        ("title/0100000000010000", "title-en"),
        ("device", "device-en"),
        ("upkeep", "upkeep-en"),
    ] {
        open(&tab, &format!("{base}/{page}"));
        fits_the_screen(&tab, name);
        shot(&tab, name);
    }
}
