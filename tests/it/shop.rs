//! The shop, spoken to the way each installer speaks: Tinfoil's headers and its JSON
//! index, CyberFoil's sections with and without a path, Sphaira's and DBI's listing
//! read with Sphaira's link rules, HEAD and ranges; who may pull; containment.

use std::collections::BTreeSet;
use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::Value;

use ludotheque::testkit::Msg;

use crate::harness::said_fr;
use crate::harness::{basic, Folders, Resp, TestServer};

/// A demo library, scanned, and a console added with the CLI: (folders, name, password).
fn demo_shop() -> (std::sync::Arc<Folders>, String) {
    let folders = Folders::new();
    assert!(folders
        .cli(&["demo-library", folders.library.to_str().unwrap()])
        .0
        .success());
    folders.scan();
    let password = add_console(&folders, "salon");
    (folders, password)
}

fn add_console(folders: &Folders, name: &str) -> String {
    folders.add_console(name)
}

/// `apikey create` through the CLI; returns the key.
fn api_key(folders: &Folders) -> String {
    let (_, out, _) = folders.cli(&["apikey", "create", "script"]);
    out.lines()
        .map(str::trim)
        .find(|l| l.starts_with("ldq_"))
        .unwrap()
        .to_string()
}

/// The headers Tinfoil sends with an index request (docs/network.md), and no agent.
pub(crate) fn tinfoil(auth: &str) -> Vec<(&'static str, String)> {
    vec![
        ("Authorization", auth.to_string()),
        ("Theme", "0".repeat(64)),
        ("UID", "0123456789abcdef".into()),
        ("Version", "18.0".into()),
        ("Revision", "0".into()),
        ("Language", "fr".into()),
        ("HAUTH", "0".into()),
        ("UAUTH", "0".into()),
    ]
}

fn get(s: &TestServer, path: &str, headers: &[(&str, String)]) -> Resp {
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    s.send("GET", path, &h, None)
}

/// The bytes of a GET, as sent (the harness reads bodies as text).
fn get_bytes(s: &TestServer, path: &str, headers: &[(&str, &str)]) -> (u16, Vec<u8>) {
    let mut b = ureq::http::Request::builder().uri(format!("{}{path}", s.base));
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let resp = s.agent.run(b.body(()).unwrap()).unwrap();
    let status = resp.status().as_u16();
    let mut bytes = Vec::new();
    resp.into_body()
        .into_reader()
        .read_to_end(&mut bytes)
        .unwrap();
    (status, bytes)
}

/// The file on disk behind a library key.
fn disk(folders: &Folders, key: &str) -> Vec<u8> {
    std::fs::read(folders.library.join(key)).unwrap()
}

/// The library's playable files from the public API (key, size): all in the shop.
fn shop_keys(s: &TestServer) -> Vec<(String, u64)> {
    let page = s.get("/api/v1/library?per_page=500").json();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["playable"] == true)
        .map(|g| {
            (
                g["key"].as_str().unwrap().to_string(),
                g["size"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A library key as a URL path.
fn key_path(key: &str) -> String {
    key.split('/')
        .map(|seg| {
            percent_encoding::utf8_percent_encode(seg, percent_encoding::NON_ALPHANUMERIC)
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether some file of the library holds exactly these bytes.
fn in_library(folders: &Folders, bytes: &[u8]) -> bool {
    crate::harness::files_under(&folders.library)
        .into_iter()
        .any(|p| std::fs::read(p).unwrap() == bytes)
}

#[test]
fn tinfoil_reads_every_file_with_its_tags_and_downloads_it() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let index = get(&s, "/", &tinfoil(&auth));
    assert_eq!(index.status, 200, "{}", index.body);
    assert!(index
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let index = index.json();
    let files = index["files"].as_array().unwrap();
    let playable = shop_keys(&s);
    assert!(playable.len() > 20, "{playable:?}");
    assert!(
        files.len() >= playable.len(),
        "every playable file is offered"
    );
    assert_eq!(index["directories"], serde_json::json!([]));
    let success = index["success"].as_str().unwrap();
    assert!(
        success.contains("Ludothèque") && success.contains(&files.len().to_string()),
        "{success}"
    );
    let tag = |name: &str| {
        let (_, rest) = name.rsplit_once(" [").unwrap();
        rest.len() > 22 && rest.as_bytes()[16] == b']' && rest[17..].starts_with("[v")
    };
    for f in files {
        let url = f["url"].as_str().unwrap();
        let (path, fragment) = url.split_once('#').unwrap();
        let name = percent_encoding::percent_decode_str(fragment)
            .decode_utf8()
            .unwrap();
        assert!(tag(&name), "{name}");
        assert!(path.starts_with("/shop/files/"), "{url}");
        assert!(f["size"].as_u64().unwrap() > 0);
    }
    // A title the data knows: its titledb entry, keyed and identified by its ID.
    let odyssey = &index["titledb"]["0100000000010000"];
    assert_eq!(odyssey["id"], "0100000000010000");
    assert_eq!(odyssey["name"], "Moonlit Odyssey");
    // Files download whole, byte for byte, by the URL Tinfoil was given.
    for f in files.iter().take(8) {
        let url = f["url"].as_str().unwrap().split('#').next().unwrap();
        let (status, bytes) = get_bytes(&s, url, &[("Authorization", &auth)]);
        assert_eq!(status, 200, "{url}");
        assert_eq!(bytes.len() as u64, f["size"].as_u64().unwrap());
        assert!(in_library(&folders, &bytes), "{url}");
    }
    // So does a playable file by its library key, for scripts.
    let (key, size) = &playable[0];
    let (status, bytes) = get_bytes(
        &s,
        &format!("/shop/files/{}", key_path(key)),
        &[("Authorization", &auth)],
    );
    assert_eq!((status, bytes.len() as u64), (200, *size));
    assert_eq!(bytes, disk(&folders, key));
}

/// What CyberFoil sends with each request for the shop (shopInstall.cpp,
/// `FetchShopResponse` and `BuildTinfoilHeaders`): the agent `tinfoil`, Tinfoil's
/// headers with fixed values, and Basic.
fn cyberfoil(auth: &str) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("Authorization", auth.to_string()),
        ("User-Agent", "tinfoil".into()),
    ];
    for (name, value) in [
        ("Theme", "Awoo-Installer"),
        ("Uid", "0000000000000000"),
        ("Version", "0.0"),
        ("Revision", "0"),
        ("Language", "en"),
        ("Hauth", "0"),
        ("Uauth", "0"),
    ] {
        headers.push((name, value.into()));
    }
    headers
}

#[test]
fn cyberfoil_gets_its_sections_with_and_without_a_path() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    // Shop URL without a path: `<shop>/api/shop/sections`.
    let root = get(&s, "/api/shop/sections", &cyberfoil(&auth));
    assert_eq!(root.status, 200, "{}", root.body);
    assert!(root
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let root = root.json();
    let ids: Vec<&str> = root["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["new", "recommended", "updates", "dlc", "all"]);
    let all = section(&root, "all");
    let tinfoil_files = get(&s, "/", &tinfoil(&auth)).json()["files"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(
        all.len(),
        tinfoil_files,
        "`all` is never cut (the demo has no two copies of a version)"
    );
    for item in &all {
        assert!(item["url"].as_str().unwrap().starts_with("/shop/files/"));
        assert!(item["size"].is_u64() && item["app_version"].is_u64());
        assert!(item["name"].is_string() && item["app_id"].as_str().unwrap().len() == 16);
        let kind = item["app_type"].as_str().unwrap();
        assert!(["base", "upd", "dlc"].contains(&kind));
        match item["title_id"].as_str() {
            Some(base) => assert!(kind != "dlc" && base.ends_with("000"), "{item}"),
            None => assert_eq!(kind, "dlc", "only a DLC leaves its title_id out"),
        }
    }
    for (id, kind) in [("new", "base"), ("updates", "upd"), ("dlc", "dlc")] {
        let items = section(&root, id);
        assert!(!items.is_empty() && items.iter().all(|i| i["app_type"] == kind));
    }
    // Shop URL with a path: CyberFoil asks `<shop>/api/shop/sections` and resolves a
    // URL starting with `/` under its shop URL (BuildFullUrl): the result downloads.
    let under = get(&s, "/shop/api/shop/sections", &cyberfoil(&auth)).json();
    let item = &section(&under, "all")[0];
    let url = format!("/shop{}", item["url"].as_str().unwrap());
    let (status, bytes) = get_bytes(&s, &url, &[("Authorization", &auth)]);
    assert_eq!(
        (status, bytes.len() as u64),
        (200, item["size"].as_u64().unwrap())
    );
    // Its message comes from the shop URL itself, `/` or `/shop` (FetchShopMotd): the
    // Tinfoil index, for CyberFoil's headers as for Tinfoil's.
    for path in ["/", "/shop"] {
        for headers in [cyberfoil(&auth), tinfoil(&auth)] {
            let index = get(&s, path, &headers);
            assert_eq!(index.status, 200, "{path}");
            let index = index.json();
            assert!(index["files"].is_array() && index["success"].is_string());
        }
    }
}

/// A section's items, by id.
fn section(sections: &Value, id: &str) -> Vec<Value> {
    sections["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no section {id}"))["items"]
        .as_array()
        .unwrap()
        .clone()
}

/// A listing read with Sphaira's rules: `<a href="…">text</a>` inside the table, the
/// href percent-decoded is the name, a trailing `/` a folder; hrefs with `://` or
/// starting with `?`, `#` or `../` (and `..`) are skipped.
fn sphaira_links(html: &str) -> Vec<String> {
    let table = &html[html.find("<table").unwrap()..html.find("</table>").unwrap()];
    table
        .split("<a href=\"")
        .skip(1)
        .filter_map(|rest| {
            let href = &rest[..rest.find("\">")?];
            let skip = href.is_empty()
                || href.contains("://")
                || href.starts_with(['?', '#'])
                || href == ".."
                || href.starts_with("../");
            (!skip).then(|| href.to_string())
        })
        .collect()
}

#[test]
fn sphaira_and_dbi_walk_the_listing_from_the_root_and_read_with_head_and_ranges() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    // Sphaira sends no User-Agent; the root is the shop's listing for it.
    let sphaira = [("Authorization", auth.as_str())];
    let top = s.send("GET", "/", &sphaira, None);
    assert_eq!(top.status, 200);
    assert!(top.header("content-type").unwrap().starts_with("text/html"));
    let folders_seen = sphaira_links(&top.body);
    assert_eq!(folders_seen, ["base/", "updates/", "dlc/"]);
    let mut names = BTreeSet::new();
    let mut checked = 0;
    for folder in &folders_seen {
        let listing = s.send("GET", &format!("/{folder}"), &sphaira, None);
        assert_eq!(listing.status, 200, "{folder}");
        for href in sphaira_links(&listing.body) {
            let name = percent_encoding::percent_decode_str(&href)
                .decode_utf8()
                .unwrap()
                .to_string();
            assert!(!name.contains('/') && name.contains("]["), "{name}");
            assert!(
                names.insert(format!("{folder}{name}")),
                "one name per file: {name}"
            );
            if checked < 6 {
                sphaira_reads(&s, &folders, &format!("/{folder}{href}"), &auth);
                checked += 1;
            }
        }
    }
    assert!(names.len() > 20);
    // DBI: the same listing under /shop/files/, and titledb's versions.txt.
    let dbi = s.send("GET", "/shop/files/dlc/", &sphaira, None);
    assert!(
        sphaira_links(&dbi.body).len() == names.iter().filter(|n| n.starts_with("dlc/")).count()
    );
    let versions = s.send("GET", "/shop/versions.txt", &sphaira, None);
    let mut lines = versions.body.lines();
    assert_eq!(lines.next(), Some("id|rightsId|version"));
    assert!(
        versions
            .body
            .contains("\n0100000000010800|00000000000000000000000000000000|393216\n"),
        "{}",
        versions.body
    );
    assert!(lines.all(|l| l.split('|').count() == 3 && l.len() >= 50));
    // A folder asked without its slash goes to the folder, as Apache does.
    let bare = s.send("GET", "/shop/files/dlc", &sphaira, None);
    assert_eq!((bare.status, bare.header("location")), (301, Some("dlc/")));
}

/// What Sphaira does with a file: HEAD for its size, then open-ended ranges.
fn sphaira_reads(s: &TestServer, folders: &Folders, path: &str, auth: &str) {
    let head = s.send("HEAD", path, &[("Authorization", auth)], None);
    assert_eq!(head.status, 200, "{path}");
    assert_eq!(head.header("accept-ranges"), Some("bytes"));
    assert!(head.header("last-modified").is_some());
    let size: u64 = head.header("content-length").unwrap().parse().unwrap();
    let (_, whole) = get_bytes(s, path, &[("Authorization", auth)]);
    assert_eq!(whole.len() as u64, size);
    assert!(
        in_library(folders, &whole),
        "{path} is a file of the library"
    );
    let from = size / 3;
    let range = format!("bytes={from}-");
    let (status, tail) = get_bytes(s, path, &[("Authorization", auth), ("Range", &range)]);
    assert_eq!((status, &tail[..]), (206, &whole[from as usize..]));
    let resp = s.send(
        "GET",
        path,
        &[("Authorization", auth), ("Range", "bytes=0-15")],
        None,
    );
    assert_eq!(resp.status, 206);
    assert_eq!(
        resp.header("content-range"),
        Some(&*format!("bytes 0-15/{size}"))
    );
    assert_eq!(resp.header("content-length"), Some("16"));
    let (status, last) = get_bytes(s, path, &[("Authorization", auth), ("Range", "bytes=-10")]);
    assert_eq!((status, &last[..]), (206, &whole[whole.len() - 10..]));
    let past = format!("bytes={size}-");
    let resp = s.send(
        "GET",
        path,
        &[("Authorization", auth), ("Range", &past)],
        None,
    );
    assert_eq!(resp.status, 416);
    assert_eq!(
        resp.header("content-range"),
        Some(&*format!("bytes */{size}"))
    );
}

// ---------------------------------------------------------------------------------
// Each installer's rules, transcribed from its source (docs/installers.md), applied to
// what the shop serves.

/// `NcmContentMetaType` values, as CyberFoil maps `app_type` (`TryParseAppType`).
const APPLICATION: i64 = 0x80;
const PATCH: i64 = 0x81;
const ADD_ON: i64 = 0x82;

/// An item as CyberFoil parses it (shopInstall.cpp, `ParseShopSectionsBody`).
#[derive(Debug, Clone)]
struct CfItem {
    name: String,
    url: String,
    title_id: Option<u64>,
    app_id: Option<String>,
    app_version: Option<u32>,
    app_type: i64,
}

/// CyberFoil's sections, each `(id, items)`: an item needs a `url` and a name (its
/// `name`, else the fragment, else the URL's last segment); a section left empty is
/// dropped.
fn cyberfoil_parse(body: &Value) -> Vec<(String, Vec<CfItem>)> {
    let mut out = Vec::new();
    for section in body["sections"].as_array().unwrap() {
        let Some(items) = section["items"].as_array() else {
            continue;
        };
        let mut parsed = Vec::new();
        for entry in items {
            let Some(url) = entry["url"].as_str() else {
                continue;
            };
            let (path, fragment) = url.split_once('#').unwrap_or((url, ""));
            let name = match entry.get("name") {
                Some(n) => n.as_str().unwrap().to_string(),
                None if !fragment.is_empty() => percent_encoding::percent_decode_str(fragment)
                    .decode_utf8_lossy()
                    .into_owned(),
                None => path.rsplit('/').next().unwrap().to_string(),
            };
            if name.is_empty() {
                continue;
            }
            let hex = |v: &Value| match v {
                Value::Number(n) => n.as_u64(),
                Value::String(s) => u64::from_str_radix(s.trim(), 16).ok(),
                _ => None,
            };
            let app_type = match &entry["app_type"] {
                Value::Number(n) => n.as_i64().unwrap(),
                Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                    "base" => APPLICATION,
                    "upd" | "update" | "patch" => PATCH,
                    "dlc" | "addon" => ADD_ON,
                    _ => -1,
                },
                _ => -1,
            };
            parsed.push(CfItem {
                name,
                url: path.to_string(),
                title_id: entry.get("title_id").and_then(hex),
                app_id: entry["app_id"]
                    .as_str()
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
                app_version: entry["app_version"].as_u64().map(|v| v as u32),
                app_type,
            });
        }
        if !parsed.is_empty() {
            out.push((section["id"].as_str().unwrap_or("all").to_string(), parsed));
        }
    }
    out
}

/// CyberFoil's `DeriveBaseTitleId` (shopInstPage.cpp): `title_id` when there is one,
/// else from `app_id` by type.
fn cyberfoil_base(item: &CfItem) -> Option<u64> {
    if let Some(id) = item.title_id {
        return Some(id);
    }
    let app_id: String = item
        .app_id
        .as_deref()?
        .chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if app_id.len() < 16 {
        return None;
    }
    let head = &app_id[..app_id.len() - 3];
    let base = match item.app_type {
        PATCH => format!("{head}000"),
        ADD_ON => {
            let value = u64::from_str_radix(head, 16).ok().filter(|v| *v != 0)?;
            format!("{:0width$x}000", value - 1, width = head.len())
        }
        _ => app_id.clone(),
    };
    u64::from_str_radix(&base, 16).ok()
}

/// What a console has installed, as CyberFoil asks it: applications (an ID
/// `nsGetApplicationControlData` answers for: only bases) and each one's update.
#[derive(Default)]
struct Console {
    applications: BTreeSet<u64>,
    update_version: std::collections::BTreeMap<u64, u32>,
}

/// CyberFoil's `filterOwnedSections` (the option "hide installed" off, its default),
/// then its labels: the sections as the console shows them.
fn cyberfoil_shows(body: &Value, console: &Console) -> Vec<(String, Vec<CfItem>)> {
    let installed = |id: u64| console.applications.contains(&id);
    let base_installed = |item: &CfItem| cyberfoil_base(item).is_some_and(installed);
    let update_of = |item: &CfItem| {
        cyberfoil_base(item)
            .and_then(|b| console.update_version.get(&b).copied())
            .unwrap_or(0)
    };
    let mut sections = cyberfoil_parse(body);
    for (id, items) in &mut sections {
        if id == "updates" || id == "dlc" {
            items.retain(|item| {
                if !base_installed(item) {
                    false
                } else if id == "updates" || item.app_type == PATCH {
                    item.app_version.is_some_and(|v| v > update_of(item))
                } else {
                    !item.title_id.is_some_and(installed)
                }
            });
        } else if id != "all" {
            items.retain(|item| {
                item.app_type != ADD_ON
                    || (!item.title_id.is_some_and(installed) && base_installed(item))
            });
        }
        for item in items.iter_mut() {
            let label = match item.app_type {
                PATCH => " (Update)",
                ADD_ON => " (DLC)",
                _ => "",
            };
            if !item.name.ends_with(label) {
                item.name.push_str(label);
            }
        }
    }
    sections
}

/// CyberFoil's `IsXciExtension` (shopInstall.cpp), which picks the XCI installer: the
/// extension of the name as `std::filesystem::path::extension` reads it, lower-cased.
fn cyberfoil_installs_as_xci(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap();
    let ext = match file.rfind('.') {
        _ if file == ".." => "",
        None | Some(0) => "",
        Some(i) => &file[i..],
    };
    matches!(ext.to_ascii_lowercase().as_str(), ".xci" | ".xcz")
}

/// CyberFoil's `ContainsHtml` (shopInstall.cpp): the raw answer, lower-cased, holds
/// `<!doctype html` or `<html`; CyberFoil then says "Ownfoil returned the login page".
fn cyberfoil_sees_html(body: &[u8]) -> bool {
    let lower = String::from_utf8_lossy(&body.to_ascii_lowercase()).into_owned();
    lower.contains("<!doctype html") || lower.contains("<html")
}

fn section_of<'a>(shown: &'a [(String, Vec<CfItem>)], id: &str) -> &'a [CfItem] {
    shown
        .iter()
        .find(|(i, _)| i == id)
        .map_or(&[], |(_, items)| items.as_slice())
}

#[test]
fn cyberfoil_installs_each_file_with_the_installer_its_name_picks() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let body = get(&s, "/api/shop/sections", &cyberfoil(&auth)).json();
    // Labels are appended before installing: read every item as CyberFoil installs it.
    let everything = Console::default();
    let shown = cyberfoil_shows(&body, &everything);
    let all = section_of(&shown, "all");
    let mut xci = 0;
    for item in all {
        let file = item.url.rsplit('/').next().unwrap().to_ascii_lowercase();
        let is_xci = file.ends_with(".xci") || file.ends_with(".xcz");
        assert_eq!(
            cyberfoil_installs_as_xci(&item.name),
            is_xci,
            "{} for {}",
            item.name,
            item.url
        );
        xci += usize::from(is_xci);
        // The installer it picks reads the container it gets: an XCI's header at 0x100,
        // an NSP's (PFS0) at 0; CyberFoil first asks HEAD, then ranges.
        let head = s.send(
            "HEAD",
            &item.url,
            &[("Authorization", &auth), ("User-Agent", "tinfoil")],
            None,
        );
        assert_eq!(head.status, 200);
        assert_eq!(head.header("accept-ranges"), Some("bytes"));
        let (status, magic) = get_bytes(
            &s,
            &item.url,
            &[
                ("Authorization", &auth),
                ("User-Agent", "tinfoil"),
                ("Range", "bytes=0-259"),
            ],
        );
        assert_eq!(status, 206);
        let expected: &[u8] = if is_xci { b"HEAD" } else { b"PFS0" };
        let at = if is_xci { 0x100 } else { 0 };
        assert_eq!(&magic[at..at + 4], expected, "{}", item.url);
    }
    assert!(xci >= 3, "the demo's .xci and .xcz are offered: {xci}");
}

#[test]
fn cyberfoil_shows_dlc_and_updates_once_their_base_is_installed() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let body = get(&s, "/api/shop/sections", &cyberfoil(&auth)).json();
    let parsed = cyberfoil_parse(&body);
    let all = section_of(&parsed, "all");
    // Each item's base as CyberFoil derives it is the library's: for a DLC, the same as
    // CyberFoil's other rule (title_util.cpp, `GetBaseTitleId`).
    for item in all {
        let base = cyberfoil_base(item).unwrap_or_else(|| panic!("{item:?}"));
        let own = u64::from_str_radix(item.app_id.as_deref().unwrap(), 16).unwrap();
        let expected = match item.app_type {
            PATCH => own ^ 0x800,
            ADD_ON => (own ^ 0x1000) & !0xFFF,
            _ => own,
        };
        assert_eq!(base, expected, "{item:?}");
    }
    let of_type = |t: i64| all.iter().filter(move |i| i.app_type == t);
    // A console with no game: nothing to update, no DLC to add; every base is new.
    let bare = cyberfoil_shows(&body, &Console::default());
    assert!(section_of(&bare, "dlc").is_empty() && section_of(&bare, "updates").is_empty());
    assert_eq!(
        section_of(&bare, "new").len(),
        of_type(APPLICATION).count().min(50)
    );
    // A console with every base game of the library, no update and no DLC: every DLC
    // and every update of those games is offered (a DLC carrying its base's ID as
    // `title_id` would be hidden, the base being installed).
    let mut console = Console {
        applications: of_type(APPLICATION)
            .map(|i| cyberfoil_base(i).unwrap())
            .collect(),
        ..Console::default()
    };
    let shown = cyberfoil_shows(&body, &console);
    let urls =
        |items: &[CfItem]| -> BTreeSet<String> { items.iter().map(|i| i.url.clone()).collect() };
    let with_base = |t: i64| -> BTreeSet<String> {
        of_type(t)
            .filter(|i| console.applications.contains(&cyberfoil_base(i).unwrap()))
            .map(|i| i.url.clone())
            .collect()
    };
    let dlc = urls(section_of(&shown, "dlc"));
    assert!(dlc.len() >= 5, "{dlc:?}");
    assert_eq!(dlc, with_base(ADD_ON));
    assert_eq!(urls(section_of(&shown, "updates")), with_base(PATCH));
    // Once a game's newest update is installed, it is no longer offered.
    let odyssey = 0x0100000000010000;
    console.update_version.insert(odyssey, 393216);
    let shown = cyberfoil_shows(&body, &console);
    assert!(section_of(&shown, "updates")
        .iter()
        .all(|i| cyberfoil_base(i) != Some(odyssey)));
    assert!(section_of(&shown, "dlc")
        .iter()
        .any(|i| cyberfoil_base(i) == Some(odyssey)));
}

#[test]
fn no_name_and_no_message_make_cyberfoil_take_the_shop_for_a_login_page() {
    let folders = Folders::new();
    assert!(folders
        .cli(&["demo-library", folders.library.to_str().unwrap()])
        .0
        .success());
    // A file whose name holds `<HTML>` (the title data does not know its ID).
    let styx = disk(&folders, "Indies/Styx [0100535012974000][v0].nsp");
    std::fs::write(
        folders
            .library
            .join("Indies/<HTML> Viewer [0100ABCD12340000][v0].nsp"),
        styx,
    )
    .unwrap();
    folders.scan();
    let password = add_console(&folders, "salon");
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let set = s.send(
        "POST",
        "/api/shop/message",
        &[("Content-Type", "application/json")],
        Some(br#"{"message":"<html> Salut <!DOCTYPE html>"}"#.to_vec()),
    );
    assert_eq!(set.status, 200, "{}", set.body);
    let headers = cyberfoil(&auth);
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // What CyberFoil asks on opening: the sections, then the index for its message.
    for path in [
        "/api/shop/sections",
        "/shop/api/shop/sections",
        "/",
        "/shop",
    ] {
        let (status, body) = get_bytes(&s, path, &h);
        assert_eq!(status, 200, "{path}");
        assert!(!cyberfoil_sees_html(&body), "{path}");
        let json: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(json["success"], "<html> Salut <!DOCTYPE html>", "{path}");
        let text = String::from_utf8(body).unwrap();
        assert!(text.contains("HTML-"), "{path}: the file is offered");
    }
}

/// The files `ludotheque dedupe --dry-run` keeps, by title ID and version.
fn dedupe_keeps(folders: &Folders, extra: &[&str]) -> Vec<(String, String)> {
    let mut args = extra.to_vec();
    args.extend(["dedupe", "--dry-run"]);
    let (status, out, err) = folders.cli(&args);
    assert!(status.success(), "{err}");
    let mut kept = Vec::new();
    let mut lines = out.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("doublon") {
            let id = line.split_whitespace().nth(1).unwrap().to_string();
            let keeps = lines.next().unwrap().split_once("gardé : ").unwrap().1;
            kept.push((id, keeps.to_string()));
        }
    }
    kept
}

#[test]
fn cyberfoil_offers_one_copy_of_a_title_the_one_dedupe_keeps() {
    let folders = Folders::new();
    assert!(folders
        .cli(&["demo-library", folders.library.to_str().unwrap()])
        .0
        .success());
    // Two more copies of one base game, told apart by their last bytes.
    let id = "0100535012974000";
    let styx = disk(&folders, &format!("Indies/Styx [{id}][v0].nsp"));
    std::fs::create_dir_all(folders.library.join("Indies/Copies")).unwrap();
    for ext in ["nsp", "nsz"] {
        let mut bytes = styx.clone();
        bytes.extend_from_slice(format!("copy.{ext}").as_bytes());
        let name = format!("Indies/Copies/Styx [{id}][v0].{ext}");
        std::fs::write(folders.library.join(name), bytes).unwrap();
    }
    folders.scan();
    let password = add_console(&folders, "salon");
    let auth = basic("salon", &password);
    for (flags, tail) in [
        (&[][..], "copy.nsp"),
        (&["--dedupe-keep", "compressed"][..], "copy.nsz"),
    ] {
        let kept = dedupe_keeps(&folders, flags);
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert!(kept.iter().all(|(i, _)| i == id));
        let mut s = TestServer::start_on(folders.clone(), flags);
        let body = get(&s, "/api/shop/sections", &cyberfoil(&auth)).json();
        for name in ["new", "recommended", "all"] {
            let styx: Vec<Value> = section(&body, name)
                .into_iter()
                .filter(|i| i["app_id"] == id)
                .collect();
            assert_eq!(styx.len(), 1, "{name}: {styx:?}");
            // The item is the copy dedupe keeps.
            let url = styx[0]["url"].as_str().unwrap();
            let (_, bytes) = get_bytes(&s, url, &[("Authorization", &auth)]);
            assert_eq!(bytes, disk(&folders, &kept[0].1), "{name}");
            assert!(bytes.ends_with(tail.as_bytes()), "{name}: {url}");
        }
        // Tinfoil and the listing still list every file.
        let index = get(&s, "/", &tinfoil(&auth)).json();
        let copies = index["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["url"].as_str().unwrap().contains(id))
            .count();
        assert_eq!(copies, 3);
        s.kill();
    }
}

#[test]
fn cyberfoil_opens_on_base_games_whose_update_is_in_the_library_newest_release_first() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let body = get(&s, "/api/shop/sections", &cyberfoil(&auth)).json();
    let all = section(&body, "all");
    let updated: BTreeSet<&str> = all
        .iter()
        .filter(|i| i["app_type"] == "upd")
        .map(|i| i["title_id"].as_str().unwrap())
        .collect();
    let expected: BTreeSet<&str> = all
        .iter()
        .filter(|i| i["app_type"] == "base" && updated.contains(i["app_id"].as_str().unwrap()))
        .map(|i| i["app_id"].as_str().unwrap())
        .collect();
    let recommended = section(&body, "recommended");
    let ids: Vec<&str> = recommended
        .iter()
        .map(|i| i["app_id"].as_str().unwrap())
        .collect();
    assert!(expected.len() >= 5, "{expected:?}");
    assert_eq!(ids.iter().copied().collect::<BTreeSet<_>>(), expected);
    // Newest release first, by the title data the index carries (unknown dates last).
    let index = get(&s, "/", &tinfoil(&auth)).json();
    let dates: Vec<u64> = ids
        .iter()
        .map(|id| index["titledb"][*id]["releaseDate"].as_u64().unwrap_or(0))
        .collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");
    assert!(dates[0] > 0);
    // `new` holds base games only, the most recently added first.
    let new = section(&body, "new");
    assert!(new.iter().all(|i| i["app_type"] == "base"));
}

/// One mount of Sphaira's `HTTP.ini`.
#[derive(Debug, Default)]
struct Mount {
    name: String,
    url: String,
    user: String,
    pass: String,
}

/// The mounts Sphaira makes of an `HTTP.ini`: the file read by minIni's `ini_browse`
/// (ITotalJustice/minIni-nx 6e952b6, the build Sphaira pins), each setting given to
/// Sphaira's callback (devoptab_common.cpp, `LoadConfigsFromIni`: a change of section
/// starts a mount), then `MountNetworkDevice`'s rule: a mount with an empty name
/// ("Skipping empty name") or no url is skipped.
fn sphaira_mounts(ini: &str) -> Vec<Mount> {
    let blank = |c: char| ('\u{1}'..=' ').contains(&c);
    let mut section = String::new();
    let mut mounts: Vec<Mount> = Vec::new();
    for line in ini.split_inclusive('\n') {
        let sp = line.trim_start_matches(blank);
        if sp.is_empty() || sp.starts_with([';', '#']) {
            continue;
        }
        if let (true, Some(end)) = (sp.starts_with('['), sp.rfind(']')) {
            section = sp[1..end].trim_matches(blank).to_string();
            continue;
        }
        let Some(eq) = sp.find('=').or_else(|| sp.find(':')) else {
            continue;
        };
        let key = sp[..eq].trim_end_matches(blank);
        let value = minini_value(sp[eq + 1..].trim_start_matches(blank));
        if mounts.last().is_none_or(|m| m.name != section) {
            mounts.push(Mount {
                name: section.clone(),
                ..Mount::default()
            });
        }
        let mount = mounts.last_mut().unwrap();
        match key {
            "url" => mount.url = value,
            "user" => mount.user = value,
            "pass" => mount.pass = value,
            _ => {}
        }
    }
    mounts.retain(|m| !m.name.is_empty() && !m.url.is_empty());
    mounts
}

/// minIni's `cleanstring` and `QUOTE_DEQUOTE`: the value cut at a `;` or `#` outside
/// double quotes, trailing blanks stripped, surrounding quotes removed.
fn minini_value(raw: &str) -> String {
    let b = raw.as_bytes();
    let (mut i, mut quoted) = (0, false);
    while i < b.len() && (!matches!(b[i], b';' | b'#') || quoted) {
        if b[i] == b'"' {
            if b.get(i + 1) == Some(&b'"') {
                i += 1;
            } else {
                quoted = !quoted;
            }
        } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'"') {
            i += 1;
        }
        i += 1;
    }
    let value = raw[..i.min(b.len())].trim_end_matches(|c: char| ('\u{1}'..=' ').contains(&c));
    match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => inner.replace("\\\"", "\"").replace("\"\"", "\""),
        None => value.to_string(),
    }
}

/// The ```ini blocks of a file of the repository, with the placeholders filled.
fn ini_blocks(file: &str, s: &TestServer, name: &str, password: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let host = s.base.strip_prefix("http://").unwrap();
    text.split("```ini\n")
        .skip(1)
        .map(|rest| {
            rest[..rest.find("```").unwrap()]
                .replace("HOST:PORT", host)
                .replace("PASSWORD", password)
                .replace("NAME", name)
        })
        .collect()
}

/// The file the Consoles page offers to download (`a[data-file=ID]`'s `data:` link),
/// with its password placeholder replaced as the page's script does once it is known.
fn page_file(s: &TestServer, id: &str, password: &str) -> String {
    let page = s.get("/device").body;
    let at = page.find(&format!("data-file=\"{id}\"")).expect(id);
    let start = page[..at].rfind("<a ").unwrap();
    let link = &page[start..at];
    let href = &link[link.find("href=\"").unwrap() + 6..];
    let href = &href[..href.find('"').unwrap()];
    let text = href.strip_prefix("data:text/plain;charset=utf-8,").unwrap();
    let text = percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .unwrap();
    let placeholder = &page[page.find("<span class=\"fill-password\">").unwrap() + 28..];
    let placeholder = &placeholder[..placeholder.find("</span>").unwrap()];
    assert!(text.contains(placeholder), "{text}");
    text.replace(placeholder, password)
}

/// A URL's path, and its user and password as HTTP Basic.
fn split_url(url: &str) -> (String, Option<String>) {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let auth = authority.rsplit_once('@').map(|(userinfo, _)| {
        let (user, pass) = userinfo.split_once(':').unwrap();
        basic(user, pass)
    });
    (
        if path.is_empty() {
            "/".into()
        } else {
            path.into()
        },
        auth,
    )
}

#[test]
fn the_http_ini_the_readme_gives_mounts_in_sphaira_and_lists_the_shop() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    // The README's setup for Sphaira, and any other given in the docs.
    let mut files = Vec::new();
    for file in ["README.md", "docs/shop.md", "docs/installers.md"] {
        for block in ini_blocks(file, &s, "salon", &password) {
            if block.contains("url=") {
                files.push((file, block));
            }
        }
    }
    assert!(
        files.iter().any(|(f, _)| *f == "README.md"),
        "README gives HTTP.ini"
    );
    files.push(("the Consoles page", page_file(&s, "sphaira-ini", &password)));
    for (file, ini) in files {
        let mounts = sphaira_mounts(&ini);
        assert_eq!(mounts.len(), 1, "{file}: {ini}\n{mounts:?}");
        let mount = &mounts[0];
        assert_eq!(
            (mount.user.as_str(), mount.pass.as_str()),
            ("salon", &*password)
        );
        // Sphaira asks the mount's root (as `//`: see docs/installers.md) with Basic
        // and no agent, and follows the links of the table.
        let (path, _) = split_url(&mount.url);
        let auth = basic(&mount.user, &mount.pass);
        let top = s.send("GET", &path, &[("Authorization", &auth)], None);
        assert_eq!(top.status, 200, "{file}");
        assert_eq!(sphaira_links(&top.body), ["base/", "updates/", "dlc/"]);
        let base = s.send(
            "GET",
            &format!("{path}base/"),
            &[("Authorization", &auth)],
            None,
        );
        assert!(sphaira_links(&base.body).len() > 10, "{file}");
    }
    // The same settings without the section line mount nothing.
    let bare = format!("url={}/\nuser=salon\npass={password}\n", s.base);
    assert!(sphaira_mounts(&bare).is_empty());
}

#[test]
fn the_dbi_config_the_readme_gives_reads_the_listing_and_every_known_version() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let block = ini_blocks("README.md", &s, "salon", &password)
        .into_iter()
        .find(|b| b.contains("ApacheHTTP"))
        .expect("README gives dbi.config's lines");
    // The file the Consoles page offers holds the same lines.
    let offered = page_file(&s, "dbi-config", &password);
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(lines(&offered), lines(&block), "{offered}");
    let (mut section, mut versions, mut source) = (String::new(), None, None);
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_string();
        } else if let Some((key, value)) = line.split_once('=') {
            match (section.as_str(), key) {
                ("General", "VersionsURL") => versions = Some(value.to_string()),
                ("Network sources", _) => source = Some(value.to_string()),
                _ => panic!("{section}: {line}"),
            }
        }
    }
    // `<display name>=<type>|<URL>`, credentials in the URL, which ends with `/`.
    let (kind, url) = source
        .unwrap()
        .split_once('|')
        .map(|(k, u)| (k.to_string(), u.to_string()))
        .unwrap();
    assert_eq!(kind, "ApacheHTTP");
    assert!(url.ends_with('/'));
    let (path, auth) = split_url(&url);
    let auth = auth.unwrap();
    let top = s.send("GET", &path, &[("Authorization", &auth)], None);
    assert_eq!(top.status, 200);
    assert_eq!(sphaira_links(&top.body), ["base/", "updates/", "dlc/"]);
    // Apache's root has no parent row; every folder below it has one.
    assert!(!top.body.contains("href=\"../\""));
    let dlc = s.send(
        "GET",
        &format!("{path}dlc/"),
        &[("Authorization", &auth)],
        None,
    );
    assert!(dlc.body.contains("href=\"../\""));
    let (path, auth) = split_url(&versions.unwrap());
    let listed = s.send("GET", &path, &[("Authorization", &auth.unwrap())], None);
    assert_eq!(listed.status, 200);
    assert!(listed.body.starts_with("id|rightsId|version\n"));
}

/// titledb's `versions.txt`: id → latest version.
fn versions_of(text: &str) -> std::collections::BTreeMap<String, Option<u32>> {
    text.lines()
        .skip(1)
        .map(|l| {
            let mut fields = l.split('|');
            let id = fields.next().unwrap().to_string();
            let version = fields.nth(1).unwrap();
            (id, version.parse().ok())
        })
        .collect()
}

#[test]
fn versions_txt_lists_every_title_the_title_data_knows() {
    let (folders, password) = demo_shop();
    let fixture = |name: &str| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/titledb")
            .join(name)
    };
    for name in ["versions.txt", "versions.json"] {
        let file = fixture(name);
        let (status, _, err) = folders.cli(&["titles", "import", file.to_str().unwrap()]);
        assert!(status.success(), "{err}");
    }
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let served = s.send(
        "GET",
        "/shop/versions.txt",
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(served.status, 200);
    assert!(served.body.starts_with("id|rightsId|version\n"));
    assert!(served
        .body
        .lines()
        .skip(1)
        .all(|l| l.len() >= 50 && l.split('|').count() == 3));
    let served = versions_of(&served.body);
    let known = versions_of(&std::fs::read_to_string(fixture("versions.txt")).unwrap());
    assert!(known.len() > 60_000);
    // Every title of titledb's file with a version, at it or a later one (from
    // versions.json); a line without a version flags nothing in DBI.
    for (id, version) in known.iter().filter(|(_, v)| v.is_some()) {
        let listed = served.get(id).unwrap_or_else(|| panic!("{id} is missing"));
        assert!(listed >= version, "{id}: {listed:?} < {version:?}");
    }
    // DBI flags an installed game whose version is below the listed one: so a game
    // the library does not hold is still flagged (its update is on the eShop's data).
    let (elsewhere, latest) = known
        .iter()
        .find_map(|(id, v)| Some((id, (*v)?)).filter(|(id, v)| *v > 0 && id.ends_with("800")))
        .unwrap();
    assert!(served[elsewhere].unwrap() >= latest);
    // And a title the library holds but the title data does not know, at its version.
    assert_eq!(served["0100AAAA00002800"], Some(65536));
}

#[test]
fn only_a_console_password_opens_the_shop_and_nothing_else() {
    let (folders, password) = demo_shop();
    let key = api_key(&folders);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    let shop_paths = [
        "/shop",
        "/api/shop/sections",
        "/shop/files/",
        "/shop/versions.txt",
        "/shop/files/base/x.nsp",
    ];
    for path in shop_paths {
        let none = s.send("GET", path, &[("User-Agent", "cyberfoil")], None);
        assert_eq!(none.status, 401, "{path}");
        assert_eq!(
            none.header("www-authenticate"),
            Some("Basic realm=\"ludotheque\"")
        );
        let with_key = s.send("GET", path, &[("X-Api-Key", &key)], None);
        assert_eq!(
            (with_key.status, with_key.slug()),
            (403, "forbidden".into()),
            "{path}"
        );
    }
    // The console's password opens the shop, not the API nor the pages.
    let auth = basic("salon", &password);
    assert_eq!(
        s.send("GET", "/shop", &[("Authorization", &auth)], None)
            .status,
        200
    );
    assert_eq!(
        s.send("GET", "/api/v1/library", &[("Authorization", &auth)], None)
            .status,
        401
    );
    let page = s.send(
        "GET",
        "/settings",
        &[("Authorization", &auth), ("User-Agent", "Mozilla/5.0")],
        None,
    );
    assert_ne!(page.status, 200);
    // A browser asking the root, credentials or not, gets the interface, not the shop.
    let browser = s.send(
        "GET",
        "/",
        &[
            ("Authorization", &auth),
            ("User-Agent", "Mozilla/5.0 (X11)"),
        ],
        None,
    );
    assert!(
        browser.status == 303 || browser.body.contains("<html"),
        "{browser:?}"
    );
    // Removed, its password stops at once; wrong passwords meet the failure limit.
    drop(s);
    assert!(folders.cli(&["console", "remove", "salon"]).0.success());
    let s = TestServer::start_on(folders, &["--auth-failures-per-minute", "3"]);
    let statuses: Vec<u16> = (0..6)
        .map(|_| {
            s.send("GET", "/shop", &[("Authorization", &auth)], None)
                .status
        })
        .collect();
    assert_eq!(statuses, [401, 401, 401, 429, 429, 429]);
}

#[test]
fn a_public_shop_needs_no_password_but_still_refuses_keys() {
    let (folders, _) = demo_shop();
    let key = api_key(&folders);
    let s = TestServer::start_on(folders, &["--shop-public", "--no-local-access"]);
    let index = s.send("GET", "/shop", &[], None);
    assert_eq!(index.status, 200);
    let url = index.json()["files"][0]["url"]
        .as_str()
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(s.send("HEAD", &url, &[], None).status, 200);
    assert_eq!(
        s.send("GET", "/shop", &[("X-Api-Key", &key)], None).status,
        403
    );
    // Nothing else opens with it.
    assert_eq!(s.get("/api/v1/library").status, 401);
    // DBI may send its own agent and no credentials: still the listing at the root.
    let dbi = s.send("GET", "/", &[("User-Agent", "DBI")], None);
    assert!(dbi.body.contains("<a href=\"base/\">"), "{dbi:?}");
    let browser = s.send("GET", "/", &[("User-Agent", "Mozilla/5.0")], None);
    assert!(!browser.body.contains("Index of"), "{browser:?}");
}

/// Issue 37: with `--shop-public`, a console that still sends a password the service
/// no longer knows (set up before, or removed) is served as anyone, never refused,
/// however often; the right password still names the console in the download
/// history.
#[test]
fn a_public_shop_serves_a_stale_password_as_anyone_and_still_names_its_consoles() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &["--shop-public", "--no-local-access"]);
    let stale = basic("salon", "a password of before");
    let gone = basic("removed", "whatever it was");
    for _ in 0..12 {
        let r = s.send("GET", "/shop", &[("Authorization", &stale)], None);
        assert_eq!(r.status, 200, "{r:?}");
    }
    assert_eq!(
        s.send("GET", "/shop", &[("Authorization", &gone)], None)
            .status,
        200
    );
    let index = s.send("GET", "/shop", &[], None).json();
    let url = index["files"][0]["url"].as_str().unwrap();
    let url = url.split('#').next().unwrap().to_string();
    let right = basic("salon", &password);
    for auth in [&stale, &right] {
        let r = s.send("GET", &url, &[("Authorization", auth)], None);
        assert_eq!(r.status, 200, "{r:?}");
    }
    // The history is written once each download has been sent.
    let db = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    let consoles: BTreeSet<String> = loop {
        let mut stmt = db.prepare("SELECT console FROM shop_downloads").unwrap();
        let seen: BTreeSet<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        if seen.len() >= 2 || Instant::now() > until {
            break seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let expected: BTreeSet<String> = ["127.0.0.1", "salon"].map(String::from).into();
    assert_eq!(consoles, expected);
}

#[test]
fn downloads_stay_inside_the_library() {
    let (folders, password) = demo_shop();
    std::fs::write(folders.tmp.path().join("secret.nsp"), b"outside").unwrap();
    let tmp = folders.tmp.path().to_string_lossy().to_string();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let h = [("Authorization", auth.as_str())];
    for path in [
        "/shop/files/..%2Fsecret.nsp",
        "/shop/files/base/..%2F..%2Fsecret.nsp",
        "/shop/files/%2E%2E/secret.nsp",
        "/shop/files//etc/passwd",
        "/base/..%2F..%2Fsecret.nsp",
    ] {
        let resp = s.send("GET", path, &h, None);
        assert!(resp.status == 404 || resp.status == 400, "{path}: {resp:?}");
        assert!(!resp.body.contains(&*tmp), "no server path: {resp:?}");
    }
    // A file swapped for a link out of the library after the scan is not followed.
    let (key, _) = shop_keys(&s).into_iter().next().unwrap();
    let path = folders.library.join(&key);
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(folders.tmp.path().join("secret.nsp"), &path).unwrap();
    let resp = s.send("GET", &format!("/shop/files/{}", key_path(&key)), &h, None);
    assert_eq!(resp.status, 404, "{resp:?}");
    assert!(!resp.body.contains(&*tmp), "no server path: {resp:?}");
}

#[test]
fn a_download_counts_once_per_file_and_console_and_the_consoles_page_shows_it() {
    let (folders, password) = demo_shop();
    let s = TestServer::start_on(folders.clone(), &[]);
    let auth = basic("salon", &password);
    let index = get(&s, "/", &tinfoil(&auth)).json();
    let url = index["files"][0]["url"]
        .as_str()
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .to_string();
    for range in ["bytes=0-99", "bytes=100-199", "bytes=200-299"] {
        let resp = s.send(
            "GET",
            &url,
            &[("Authorization", &auth), ("Range", range)],
            None,
        );
        assert_eq!(resp.status, 206);
    }
    // A download is counted once its answer is sent, after the client has it: the
    // page may be asked a moment before the last range is counted.
    let counted = || s.get("/device").body.contains("300 o");
    crate::harness::wait_until("the download counted", Duration::from_secs(5), counted);
    let page = s.get("/device");
    assert!(
        page.body.contains("id=\"recent-downloads\""),
        "{}",
        page.body
    );
    let rows: Vec<&str> = page
        .body
        .split("<tr>")
        .filter(|r| r.contains("<td>salon</td>") || r.contains(">salon</a></td>"))
        .collect();
    assert_eq!(
        rows.len(),
        2,
        "the console's row and one download: {rows:?}"
    );
    assert!(rows[1].contains("300 o"), "{}", rows[1]);
    // The page gives the address and, listening on loopback, says no console reaches it.
    assert!(page.body.contains("id=\"shop-url\""));
    assert!(page.body.contains("id=\"shop-loopback\""));
}

#[test]
fn consoles_from_the_command_line_and_the_web_interface() {
    let folders = Folders::new();
    let (status, _, err) = folders.cli(&["console", "add", "salon:2"]);
    assert!(!status.success() && err.contains("« : »"), "{err}");
    add_console(&folders, "salon");
    let (status, _, err) = folders.cli(&["console", "add", "salon"]);
    assert!(
        !status.success()
            && err.contains(&said_fr(Msg::ConsoleExists {
                name: "salon".into()
            })),
        "{err}"
    );
    let (_, list, _) = folders.cli(&["console", "list"]);
    assert!(list.contains("salon") && list.contains("jamais"), "{list}");
    let (status, _, err) = folders.cli(&["console", "remove", "personne"]);
    assert!(
        !status.success()
            && err.contains(&said_fr(Msg::NoConsole {
                name: "personne".into()
            })),
        "{err}"
    );
    let s = TestServer::start_on(folders.clone(), &[]);
    let created = s.send(
        "POST",
        "/api/consoles",
        &[("Content-Type", "application/json")],
        Some(br#"{"name":"tv"}"#.to_vec()),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let password = created.json()["password"].as_str().unwrap().to_string();
    let auth = basic("tv", &password);
    assert_eq!(
        s.send(
            "GET",
            "/shop/versions.txt",
            &[("Authorization", &auth)],
            None
        )
        .status,
        200
    );
    let message = s.send(
        "POST",
        "/api/shop/message",
        &[],
        Some(br#"{"message":"Bienvenue au salon"}"#.to_vec()),
    );
    assert_eq!(message.status, 200);
    let index = s
        .send("GET", "/shop", &[("Authorization", &auth)], None)
        .json();
    assert_eq!(index["success"], "Bienvenue au salon");
    let long = format!(r#"{{"message":"{}"}}"#, "x".repeat(201));
    assert_eq!(
        s.send("POST", "/api/shop/message", &[], Some(long.into_bytes()))
            .status,
        400
    );
    assert_eq!(s.send("DELETE", "/api/consoles/tv", &[], None).status, 200);
    assert_eq!(
        s.send("GET", "/shop", &[("Authorization", &auth)], None)
            .status,
        401
    );
    let _: Value = s.get("/api/v1/health").json();
}

/// The shop's default message counts its files as French counts them: 0 and 1 in
/// the singular, thousands grouped.
#[test]
fn the_default_message_counts_the_files_in_french() {
    let folders = Folders::new();
    let s = TestServer::start_on(folders.clone(), &["--shop-public"]);
    s.wait_idle();
    let said = |s: &TestServer| s.send("GET", "/shop", &[], None).json()["success"].clone();
    assert_eq!(said(&s), "Ludothèque · 0 fichier");
    drop(s);
    let game = ludotheque::testkit::synth::pfs0(&[(
        "0100000000010000000000000000000.tik".into(),
        vec![1; 64],
    )]);
    std::fs::write(
        folders.library.join("Moon [0100000000010000][v0].nsp"),
        game,
    )
    .unwrap();
    let s = TestServer::start_on(folders, &["--shop-public"]);
    assert_eq!(s.post("/api/v1/scan").status, 202);
    s.wait_idle();
    assert_eq!(said(&s), "Ludothèque · 1 fichier");
}
