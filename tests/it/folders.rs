//! Several library folders: each further `--library [NAME=]DIR` appears as the
//! library's top-level folder `NAME/`, its files staying on their own disk through
//! every task; a folder that goes away keeps its games.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::harness::{assert_no_server_path, files_under, ludotheque, Folders, TestServer};
use crate::library::demo;
use ludotheque::testkit::Msg;

const STYX: &str = "Indies/Styx [0100535012974800][v131072].nsp";

/// The demo library spread over three folders: `Indies` on a share named `nas`, and
/// `Studio` in a folder `usb` (named by its own name). Returns the folders and the
/// two further folders' paths.
fn spread() -> (Arc<Folders>, PathBuf, PathBuf) {
    let folders = Folders::new();
    demo(&folders);
    let (share, usb) = (
        folders.tmp.path().join("share"),
        folders.tmp.path().join("usb"),
    );
    std::fs::create_dir_all(&share).unwrap();
    std::fs::create_dir_all(&usb).unwrap();
    std::fs::rename(folders.library.join("Indies"), share.join("Indies")).unwrap();
    std::fs::rename(folders.library.join("Studio"), usb.join("Studio")).unwrap();
    (folders, share, usb)
}

/// Every `--library` at one place (after `serve`: given there, a flag of every
/// command replaces the same flag given before the command).
/// A second share, for a start whose fixed folders differ from the last one's.
fn share_two(folders: &Folders) -> PathBuf {
    let two = folders.tmp.path().join("share two");
    std::fs::create_dir_all(two.join("More")).unwrap();
    two
}

fn args(first: &Path, share: &Path, usb: &Path) -> Vec<String> {
    vec![
        "--library".into(),
        first.display().to_string(),
        "--library".into(),
        format!("nas={}", share.display()),
        "--library".into(),
        usb.display().to_string(),
    ]
}

fn start(folders: &Arc<Folders>, share: &Path, usb: &Path) -> TestServer {
    let args = args(&folders.library, share, usb);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let s = TestServer::start_on(Arc::clone(folders), &args);
    s.wait_idle();
    s
}

/// Every game, page after page.
fn games(s: &TestServer) -> Vec<Value> {
    let mut all = Vec::new();
    for page in 1.. {
        let items = s
            .get(&format!("/api/v1/library?per_page=50&page={page}"))
            .json()["items"]
            .as_array()
            .unwrap()
            .clone();
        if items.is_empty() {
            return all;
        }
        all.extend(items);
    }
    all
}

fn enc(key: &str) -> String {
    percent_encoding::utf8_percent_encode(key, percent_encoding::NON_ALPHANUMERIC).to_string()
}

fn game(s: &TestServer, key: &str) -> Value {
    let r = s.get(&format!("/api/v1/library/{}", enc(key)));
    assert_eq!(r.status, 200, "{key}: {}", r.body);
    r.json()
}

fn scan(s: &TestServer) -> Value {
    assert_eq!(s.post("/api/v1/scan").status, 202);
    s.wait_idle()["last"].clone()
}

#[test]
fn three_folders_read_as_one_tree_and_each_file_stays_on_its_own() {
    let (folders, share, usb) = spread();
    let mut args = args(&folders.library, &share, &usb);
    args.push("--shop-public".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let s = TestServer::start_on(Arc::clone(&folders), &args);
    s.wait_idle();
    let all = games(&s);
    let keys: Vec<&str> = all.iter().map(|g| g["key"].as_str().unwrap()).collect();
    assert_eq!(all.len(), 60, "{keys:?}");
    assert_eq!(
        keys.iter().filter(|k| k.starts_with("nas/Indies/")).count(),
        31
    );
    assert_eq!(
        keys.iter().filter(|k| k.starts_with("usb/Studio/")).count(),
        15
    );
    assert!(!keys
        .iter()
        .any(|k| k.starts_with("Indies/") || k.starts_with("Studio/")));
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
    assert_no_server_path(&s, &s.get("/api/v1/library?per_page=500").body);
    let styx = format!("nas/{STYX}");
    assert_eq!(game(&s, &styx)["playable"], true);

    // One shop listing for every installer, the share's files in it, served whole.
    let index = s.get("/shop").json();
    let files = index["files"].as_array().unwrap();
    let url = files
        .iter()
        .map(|f| f["url"].as_str().unwrap())
        .find(|u| u.contains("/Styx%20%5B0100535012974800%5D"))
        .expect("the share's file in the shop");
    let url = url.split('#').next().unwrap();
    let url = match url.starts_with("http") {
        true => url.to_string(),
        false => format!("{}{url}", s.base),
    };
    let mut served = Vec::new();
    let resp = s.agent.get(&url).call().unwrap();
    std::io::Read::read_to_end(&mut resp.into_body().into_reader(), &mut served).unwrap();
    assert_eq!(served, std::fs::read(share.join(STYX)).unwrap());

    // Downloaded from its own folder.
    let url = format!("{}/download/{}", s.base, key_path(&styx));
    let mut body = Vec::new();
    let resp = s.agent.get(&url).call().unwrap();
    std::io::Read::read_to_end(&mut resp.into_body().into_reader(), &mut body).unwrap();
    assert_eq!(body, std::fs::read(share.join(STYX)).unwrap());

    // Into the trash of its own folder, and back from it.
    let r = s.send("DELETE", &format!("/api/library/{}", enc(&styx)), &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!share.join(STYX).exists());
    let trashed: Vec<PathBuf> = files_under(&share.join(".ludotheque-trash"));
    assert_eq!(trashed.len(), 1, "{trashed:?}");
    assert!(trashed[0].ends_with(STYX), "{trashed:?}");
    assert!(!folders.library.join(".ludotheque-trash").exists());
    let item = &s.get("/api/v1/trash").json()["items"][0];
    assert_eq!(item["key"], styx.as_str());
    let page = s.get("/trash").body;
    assert!(
        page.contains("data-folder=\"nas\""),
        "the trash page names the folder"
    );
    let id = item["id"].as_i64().unwrap();
    assert_eq!(s.post(&format!("/api/trash/{id}/restore")).status, 200);
    assert!(share.join(STYX).is_file());
    assert_eq!(game(&s, &styx)["playable"], true);

    // Decompressed beside themselves, their originals in their own folder's trash.
    assert_eq!(s.post("/api/v1/convert").status, 202);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "ok", "{last}");
    let compressed = |dir: &Path| {
        files_under(dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "nsz" || e == "xcz"))
            .map(|p| p.to_string_lossy().contains(".ludotheque-trash"))
            .collect::<Vec<bool>>()
    };
    assert_eq!(compressed(&usb), [true; 4]);
    assert_eq!(compressed(&share), [true]);
    assert!(files_under(&usb)
        .iter()
        .all(|p| !p.to_string_lossy().ends_with(".part")));
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
}

fn key_path(key: &str) -> String {
    key.split('/').map(enc).collect::<Vec<_>>().join("/")
}

#[test]
fn a_folder_that_goes_away_keeps_its_games_and_comes_back_unread() {
    let (folders, share, usb) = spread();
    let s = start(&folders, &share, &usb);
    let styx = format!("nas/{STYX}");
    let away = folders.tmp.path().join("share.away");
    std::fs::rename(&share, &away).unwrap();
    // Partial: the run lists the folder it kept as it was.
    let last = scan(&s);
    assert_eq!(last["result"], "partial", "{last}");
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
    assert_eq!(game(&s, &styx)["playable"], false);
    assert_eq!(
        game(&s, "usb/Studio/Pôtions Épée [0100ABF008968000][v0].nsz")["playable"],
        true
    );
    let offline = Msg::FolderOffline {
        name: "nas".into(),
        kept: 31,
    };
    assert_eq!(folders.last_run_failures()[0], (None, offline));

    // A bare mount point: there, and empty.
    std::fs::create_dir(&share).unwrap();
    let last = scan(&s);
    assert_eq!(last["result"], "partial", "{last}");
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);

    std::fs::remove_dir(&share).unwrap();
    std::fs::rename(&away, &share).unwrap();
    scan(&s);
    let done = folders.last_run_msg().unwrap();
    let Msg::ScanDone { read, removed, .. } = done else {
        panic!("{done:?}");
    };
    assert_eq!((read, removed), (0, 0), "nothing read again");
    assert_eq!(game(&s, &styx)["playable"], true);
    assert!(folders.last_run_failures().is_empty());
}

#[test]
fn the_first_folder_away_with_the_others_there_keeps_its_games() {
    let (folders, share, usb) = spread();
    let s = start(&folders, &share, &usb);
    let away = folders.tmp.path().join("library.away");
    std::fs::rename(&folders.library, &away).unwrap();
    let last = scan(&s);
    assert_eq!(last["result"], "partial", "{last}");
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
    let root_game = "Orbital Dread [010093801237C000][v65536].nsp";
    assert_eq!(game(&s, root_game)["playable"], false);
    // Every folder away: nothing changes, and the run says the library is unavailable.
    let usb_away = folders.tmp.path().join("usb.away");
    let share_away = folders.tmp.path().join("share.away");
    std::fs::rename(&usb, &usb_away).unwrap();
    std::fs::rename(&share, &share_away).unwrap();
    let last = scan(&s);
    assert_eq!(last["result"], "failed", "{last}");
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
}

/// `serve` with `extra` after the harness's own folders; its exit status and what
/// it printed, and whether the data folder holds a database afterwards.
fn refused(data: &Path, library: &Path, extra: &[String]) -> (bool, String) {
    let out = ludotheque()
        .args(["--data", data.to_str().unwrap()])
        .args(["--library", library.to_str().unwrap()])
        .args(extra)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    (!out.status.success(), said)
}

#[test]
fn a_clash_an_overlap_a_hidden_name_and_the_data_folder_inside_are_refused() {
    let folders = Folders::new();
    demo(&folders);
    let tmp = folders.tmp.path();
    let other = tmp.join("other");
    std::fs::create_dir_all(&other).unwrap();
    // The demo's title data is in the database: a refused start leaves it as it was.
    let data = folders.data.clone();
    let db = || std::fs::read(data.join("ludotheque.db")).unwrap();
    let before = db();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![format!("Indies={}", other.display())], "Indies"),
        (
            vec![format!(
                "inside={}",
                folders.library.join("Studio").display()
            )],
            "inside",
        ),
        (vec![format!("up={}", tmp.display())], "up"),
        (vec![format!(".hidden={}", other.display())], ".hidden"),
        (vec![format!("a/b={}", other.display())], "a/b"),
        (
            vec![
                format!("one={}", other.display()),
                "--library".into(),
                format!("two={}", other.display()),
            ],
            "two",
        ),
        (
            vec![
                format!("one={}", other.display()),
                "--library".into(),
                format!("one={}", tmp.join("elsewhere").display()),
            ],
            "one",
        ),
    ];
    for (extra, name) in cases {
        let mut args = vec!["--library".to_string()];
        args.extend(extra);
        let (failed, said) = refused(&data, &folders.library, &args);
        assert!(failed, "{args:?} was not refused");
        assert!(said.contains(&format!("« {name} »")), "{args:?}: {said}");
        assert!(db() == before, "{args:?} changed the database");
    }
    // The data folder inside a further folder; inside the first it may be.
    let holder = tmp.join("holder");
    std::fs::create_dir_all(holder.join("data")).unwrap();
    let args = vec![
        "--library".to_string(),
        format!("holder={}", holder.display()),
    ];
    let (failed, said) = refused(&holder.join("data"), &folders.library, &args);
    assert!(failed && said.contains("« holder »"), "{said}");
}

#[test]
fn organize_and_dedupe_keep_each_file_on_its_own_folder() {
    let (folders, share, usb) = spread();
    // A copy on the share of a game of the first folder, and one the other way.
    let orbital = "Orbital Dread [010093801237C000][v65536].nsp";
    std::fs::copy(folders.library.join(orbital), share.join(orbital)).unwrap();
    let s = start(&folders, &share, &usb);
    let on_share = files_under(&share).len();
    assert_eq!(s.post("/api/dedupe").status, 202);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "ok", "{last}");
    assert_eq!(last["done"], 1, "{last}");
    let item = &s.get("/api/v1/trash").json()["items"][0];
    let key = item["key"].as_str().unwrap();
    // The copy dropped went to its own folder's trash.
    let (dir, trash) = match key.strip_prefix("nas/") {
        Some(inner) => (inner, share.join(".ludotheque-trash")),
        None => (key, folders.library.join(".ludotheque-trash")),
    };
    assert!(
        files_under(&trash).iter().any(|p| p.ends_with(dir)),
        "{key}"
    );
    assert_eq!(files_under(&share).len(), on_share, "nothing crossed over");

    assert_eq!(s.post("/api/organize").status, 202);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "ok", "{last}");
    let moved = folders.last_run_msg().unwrap();
    assert!(
        matches!(moved, Msg::OrganizeDone { moved, .. } if moved > 0),
        "{moved:?}"
    );
    // Every file stayed on its folder, at the key the API gives it.
    assert_eq!(files_under(&share).len(), on_share);
    for g in games(&s) {
        let key = g["key"].as_str().unwrap();
        let path = match (key.strip_prefix("nas/"), key.strip_prefix("usb/")) {
            (Some(inner), _) => share.join(inner),
            (_, Some(inner)) => usb.join(inner),
            _ => folders.library.join(key),
        };
        assert!(path.is_file(), "{key} is not at {}", path.display());
    }
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
}

#[test]
fn folders_are_added_and_removed_from_the_command_line_in_a_running_service() {
    let (folders, share, _usb) = spread();
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    assert_eq!(s.get("/api/v1/stats").json()["total"], 14);
    let (status, out, err) = folders.cli(&["library", "add", &format!("nas={}", share.display())]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(
        s.get("/api/v1/stats").json()["total"],
        45,
        "added to the service at once"
    );
    assert_eq!(game(&s, &format!("nas/{STYX}"))["playable"], true);
    let (status, out, _) = folders.cli(&["library", "list"]);
    assert!(status.success(), "{out}");
    assert!(out.contains("nas : en ligne, 31 fichiers"), "{out}");
    assert!(out.contains("library : en ligne, 14 fichiers"), "{out}");
    assert!(
        out.contains("ajouté") && out.contains("donné par --library"),
        "{out}"
    );
    // The same folder, or the first one, cannot go in or out that way.
    let (status, _, err) = folders.cli(&["library", "add", &format!("again={}", share.display())]);
    assert!(!status.success() && err.contains("« again »"), "{err}");
    let (status, _, err) = folders.cli(&["library", "remove", "library"]);
    let root = Msg::FolderIsRoot {
        name: "library".into(),
    };
    assert!(!status.success() && err.contains(&root.french()), "{err}");

    // A command given no --library uses the service's folders, given and added.
    drop(s);
    let (first, two) = (folders.library.display().to_string(), share_two(&folders));
    let two = format!("nas2={}", two.display());
    let usb = folders.tmp.path().join("usb").display().to_string();
    let args = ["--library", &first, "--library", &two, "--library", &usb];
    let s = TestServer::start_on(Arc::clone(&folders), &args);
    s.wait_idle();
    let out = ludotheque()
        .args(["--data", folders.data.to_str().unwrap(), "library", "list"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    for name in ["library :", "nas2 :", "usb :", "nas :"] {
        assert!(listed.contains(name), "{name} not in {listed}");
    }
    // Remembered across a restart.
    drop(s);
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    assert_eq!(s.get("/api/v1/stats").json()["total"], 45);
    let (status, out, err) = folders.cli(&["library", "remove", "nas"]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(s.get("/api/v1/stats").json()["total"], 14);
    assert!(share.join(STYX).is_file(), "nothing on disk is touched");
    drop(s);
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    assert_eq!(s.get("/api/v1/stats").json()["total"], 14);
}

#[test]
fn the_settings_page_lists_adds_and_removes_folders() {
    let (folders, share, usb) = spread();
    let first = folders.library.display().to_string();
    let s = TestServer::start_on(
        Arc::clone(&folders),
        &["--library", &first, "--library", usb.to_str().unwrap()],
    );
    s.wait_idle();
    let page = s.get("/settings").body;
    let table = &page[page.find("id=\"library-folders\"").unwrap()..];
    assert!(
        table.contains("data-folder=\"usb\" data-state=\"online\""),
        "{table}"
    );
    assert!(!table.contains("data-folder=\"nas\""));
    let json = [("Content-Type", "application/json")];
    let add = |body: String| {
        s.send(
            "POST",
            "/api/library/folders",
            &json,
            Some(body.into_bytes()),
        )
    };
    // Refused at once, saying why: relative, missing, a clash.
    let says = |r: crate::harness::Resp, m: Msg| {
        assert_eq!(
            (r.status, r.json()["message"].as_str()),
            (400, Some(&*m.english())),
            "{}",
            r.body
        );
        r
    };
    says(
        add(r#"{"dir":"share","name":""}"#.into()),
        Msg::FolderNotAbsolute,
    );
    let missing = folders.tmp.path().join("nowhere");
    let r = add(format!(r#"{{"dir":"{}","name":""}}"#, missing.display()));
    says(r, Msg::FolderNotThere);
    let r = add(format!(
        r#"{{"dir":"{}","name":"Sans nom"}}"#,
        share.display()
    ));
    let taken = Msg::FolderNameTaken {
        name: "Sans nom".into(),
    };
    let r = says(r, taken);
    assert_no_server_path(&s, &r.body);

    // A folder whose own name holds '=' is to be named; one whose path does elsewhere
    // is read whole.
    let eq = folders.tmp.path().join("a=b");
    std::fs::create_dir_all(eq.join("games")).unwrap();
    std::fs::write(eq.join("games/x.txt"), b"x").unwrap();
    let r = add(format!(r#"{{"dir":"{}","name":""}}"#, eq.display()));
    says(r, Msg::FolderNameBad { name: "a=b".into() });
    let r = add(format!(
        r#"{{"dir":"{}","name":""}}"#,
        eq.join("games").display()
    ));
    assert_eq!(r.status, 202, "{}", r.body);
    s.wait_idle();
    assert!(s
        .get("/settings")
        .body
        .contains("data-folder=\"games\" data-state=\"online\""));
    let r = add(format!(r#"{{"dir":"{}","name":"nas"}}"#, share.display()));
    assert_eq!(r.status, 202, "{}", r.body);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["label"], "folder_add", "{last}");
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
    assert_eq!(game(&s, &format!("nas/{STYX}"))["playable"], true);
    let page = s.get("/settings").body;
    assert!(
        page.contains("data-folder=\"nas\" data-state=\"online\""),
        "{page}"
    );
    // Given at start: stays.
    let r = s.send("DELETE", "/api/library/folders/usb", &[], None);
    assert_eq!(r.status, 409);
    assert_eq!(
        r.json()["message"],
        Msg::FolderFixed { name: "usb".into() }.english()
    );
    let r = s.send("DELETE", "/api/library/folders/nas", &[], None);
    assert_eq!(r.status, 202, "{}", r.body);
    s.wait_idle();
    assert_eq!(s.get("/api/v1/stats").json()["total"], 14 + 15);
    assert_eq!(
        s.send("DELETE", "/api/library/folders/nas", &[], None)
            .status,
        404
    );
}

/// A small tmpfs, unmounted when dropped: another filesystem than the library's,
/// whose room a test chooses.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: PathBuf, size: &str) -> Tmpfs {
        std::fs::create_dir_all(&dir).unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status()
            .unwrap();
        assert!(status.success(), "mounting a tmpfs needs root (as CI runs)");
        Tmpfs(dir)
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn convert_and_compress_work_in_a_work_folder_on_another_filesystem() {
    use crate::kit::keyed::{self, KeysFile, TestKeys, Title};
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let folders = Folders::new();
    let keys = TestKeys::new(392);
    let path = folders.data.join("prod.keys");
    std::fs::write(&path, keys.prod_keys_file(KeysFile::Full)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let usb = folders.tmp.path().join("usb");
    std::fs::create_dir_all(&usb).unwrap();
    let game = Title {
        program_size: 0x30_0000 + 0x777,
        ..Title::application(0x0100_0000_0050_0000)
    };
    let original = keyed::nsp(&keys, &[game]);
    std::fs::write(usb.join("game.nsp"), &original).unwrap();
    std::fs::write(
        folders.library.join("keep.txt"),
        b"the first folder is not empty",
    )
    .unwrap();
    let work = Tmpfs::mount(folders.tmp.path().join("work"), "64m");
    let dev = |p: &Path| std::fs::metadata(p).unwrap().dev();
    assert_ne!(dev(&work.0), dev(&usb), "another filesystem");
    let with_work = |work: &Path| {
        let first = folders.library.display().to_string();
        let (usb, work) = (usb.display().to_string(), work.display().to_string());
        let args = ["--library", &first, "--library", &usb, "--work-dir", &work];
        let s = TestServer::start_on(Arc::clone(&folders), &args);
        s.wait_idle();
        s
    };
    let s = with_work(&work.0);
    let run = |route: &str| run_on(&s, route);
    let last = run("/api/v1/compress");
    assert_eq!(
        (last["result"].as_str(), last["errors"].as_u64()),
        (Some("ok"), Some(0)),
        "{last}"
    );
    assert!(usb.join("game.nsz").is_file() && !usb.join("game.nsp").exists());
    s.wait_for_log("usb/game.nsz is made in the work folder");
    let last = run("/api/v1/convert");
    assert_eq!(last["result"], "ok", "{last}");
    assert_eq!(
        std::fs::read(usb.join("game.nsp")).unwrap(),
        original,
        "back whole"
    );
    s.wait_for_log("usb/game.nsp is made in the work folder");
    // Nothing left in the work folder, no part file beside the games, the originals
    // in the trash of their own folder.
    assert!(
        files_under(&work.0).is_empty(),
        "{:?}",
        files_under(&work.0)
    );
    assert!(files_under(&usb)
        .iter()
        .all(|p| !p.to_string_lossy().ends_with(".part")));
    let trashed = files_under(&usb.join(".ludotheque-trash"));
    assert_eq!(trashed.len(), 2, "{trashed:?}");
    drop(s);

    // A work folder without room for the file: refused at once, nothing converted.
    let small = Tmpfs::mount(folders.tmp.path().join("small"), "1m");
    let s = with_work(&small.0);
    let last = run_on(&s, "/api/v1/compress");
    assert_eq!(last["result"], "failed", "{last}");
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .starts_with("Compressing needs"),
        "{last}"
    );
    assert_eq!(std::fs::read(usb.join("game.nsp")).unwrap(), original);
    assert!(!usb.join("game.nsz").exists());
}

fn run_on(s: &TestServer, route: &str) -> Value {
    assert_eq!(s.post(route).status, 202);
    s.wait_idle()["last"].clone()
}

/// Wait (30 s at most) until `check` holds.
fn eventually(what: &str, s: &TestServer, mut check: impl FnMut() -> bool) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !check() {
        assert!(
            std::time::Instant::now() < until,
            "never happened: {what}\n{}",
            s.output()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn the_watch_follows_every_folder_and_sees_one_go_away_and_come_back() {
    let (folders, share, usb) = spread();
    let args = args(&folders.library, &share, &usb);
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.extend(["--watch", "auto"]);
    let s = TestServer::start_on(Arc::clone(&folders), &args);
    s.wait_idle();
    s.wait_for_log("watch: inotify");
    // A new file on the share: read by itself, under its folder's name.
    std::fs::copy(
        share.join(STYX),
        share.join("New [0100535012974000][v0].nsp"),
    )
    .unwrap();
    let new = "nas/New [0100535012974000][v0].nsp";
    let found = || s.get(&format!("/api/v1/library/{}", enc(new))).status == 200;
    eventually("the new file on the share", &s, found);
    // The share goes away: its games stay, not playable; back, they are playable again.
    let away = folders.tmp.path().join("share.away");
    std::fs::rename(&share, &away).unwrap();
    let styx = format!("nas/{STYX}");
    eventually("the share offline", &s, || {
        game(&s, &styx)["playable"] == false
    });
    assert_eq!(s.get("/api/v1/stats").json()["total"], 61);
    std::fs::rename(&away, &share).unwrap();
    eventually("the share back", &s, || game(&s, &styx)["playable"] == true);
    assert_eq!(s.get("/api/v1/stats").json()["total"], 61);
    let page = s.get(&format!("/game/{}", key_path(&styx))).body;
    assert!(!page.contains("id=\"folder-away\""));
}

#[test]
fn an_offline_folder_is_said_on_its_games_page_and_its_downloads_name_it() {
    let (folders, share, usb) = spread();
    let s = start(&folders, &share, &usb);
    let styx = format!("nas/{STYX}");
    std::fs::rename(&share, folders.tmp.path().join("share.away")).unwrap();
    // A download asks the disk, at once; the page says what the last scan saw.
    let r = s.get(&format!("/download/{}", key_path(&styx)));
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(!s
        .get(&format!("/game/{}", key_path(&styx)))
        .body
        .contains("folder-away"));
    scan(&s);
    let page = s.get(&format!("/game/{}", key_path(&styx))).body;
    let away = Msg::FolderAway { name: "nas".into() };
    assert!(page.contains("id=\"folder-away\""), "{page}");
    assert!(
        page.contains(&crate::harness::said_fr(away.clone())),
        "{page}"
    );
    let r = s.get(&format!("/download/{}", key_path(&styx)));
    assert_eq!(r.status, 503, "{}", r.body);
    assert_no_server_path(&s, &r.body);
    // The trash keeps the folder's entries for its return: restoring one says why not.
    let usb_game = "usb/Studio/Pôtions Épée [0100ABF008968800][v393216].nsp";
    let r = s.send(
        "DELETE",
        &format!("/api/library/{}", enc(usb_game)),
        &[],
        None,
    );
    assert_eq!(r.status, 200);
    let id = s.get("/api/v1/trash").json()["items"][0]["id"]
        .as_i64()
        .unwrap();
    std::fs::rename(&usb, folders.tmp.path().join("usb.away")).unwrap();
    let r = s.post(&format!("/api/trash/{id}/restore"));
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(s.get("/api/v1/trash").json()["total"], 1, "the entry stays");
    // Expired meanwhile: its purge waits for the folder too (its file is there).
    let db = rusqlite::Connection::open(folders.data.join("ludotheque.db")).unwrap();
    db.execute("UPDATE trash SET expires_at = 1", []).unwrap();
    assert_eq!(s.post("/api/trash/purge").json()["purged"], 0);
    std::fs::rename(folders.tmp.path().join("usb.away"), &usb).unwrap();
    assert_eq!(s.post(&format!("/api/trash/{id}/restore")).status, 200);
}

#[test]
fn a_folder_swapped_for_a_link_or_left_with_hidden_names_only_is_not_online() {
    let (folders, share, usb) = spread();
    let s = start(&folders, &share, &usb);
    let styx = format!("nas/{STYX}");
    let away = folders.tmp.path().join("share.away");
    std::fs::rename(&share, &away).unwrap();
    // A link to the first folder where the share was: never followed.
    std::os::unix::fs::symlink(&folders.library, &share).unwrap();
    scan(&s);
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
    assert_eq!(game(&s, &styx)["playable"], false);
    let root_game = "Orbital Dread [010093801237C000][v65536].nsp";
    let through = format!("nas/{root_game}");
    assert_eq!(
        s.get(&format!("/api/v1/library/{}", enc(&through))).status,
        404
    );
    assert_ne!(
        s.get(&format!("/download/{}", key_path(&through))).status,
        200
    );
    let r = s.send("DELETE", &format!("/api/library/{}", enc(&styx)), &[], None);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(folders.library.join(root_game).is_file());
    // A mount point that holds only its hidden mark: offline too.
    std::fs::remove_file(&share).unwrap();
    std::fs::create_dir(&share).unwrap();
    std::fs::write(share.join(".not-mounted"), b"").unwrap();
    scan(&s);
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
    assert_eq!(game(&s, &styx)["playable"], false);
    // Every folder away: nothing forgotten, nothing playable.
    for dir in [&folders.library, &usb, &share] {
        let gone = dir.with_extension("gone");
        std::fs::rename(dir, gone).unwrap();
    }
    scan(&s);
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
    assert!(games(&s).iter().all(|g| g["playable"] == false));
}

#[test]
fn an_added_folder_refused_at_start_is_shown_and_removable_and_keeps_its_games() {
    let (folders, share, usb) = spread();
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    let (status, out, err) = folders.cli(&["library", "add", &format!("nas={}", share.display())]);
    assert!(status.success(), "{out}{err}");
    drop(s);
    // The same folder given by a flag now, under another name: the added one is refused.
    let first = folders.library.display().to_string();
    let again = format!("share={}", share.display());
    let args = [
        "--library",
        &first,
        "--library",
        &again,
        "--library",
        usb.to_str().unwrap(),
    ];
    let s = TestServer::start_on(Arc::clone(&folders), &args);
    s.wait_idle();
    let page = s.get("/settings").body;
    assert!(
        page.contains("data-folder=\"nas\" data-state=\"refused\""),
        "{page}"
    );
    // Its games are the flag's folder's now; the old keys are kept, not forgotten.
    assert_eq!(game(&s, &format!("share/{STYX}"))["playable"], true);
    let kept = s.get(&format!("/api/v1/library/{}", enc(&format!("nas/{STYX}"))));
    assert_eq!(kept.status, 200);
    assert_eq!(kept.json()["playable"], false);
    // Its name is still its own: another folder cannot take it meanwhile.
    let other = folders.tmp.path().join("other");
    std::fs::create_dir_all(other.join("x")).unwrap();
    let (status, _, err) = folders.cli(&["library", "add", &format!("nas={}", other.display())]);
    assert!(!status.success() && err.contains("« nas »"), "{err}");
    assert_eq!(
        s.send("DELETE", "/api/library/folders/nas", &[], None)
            .status,
        202
    );
    s.wait_idle();
    assert_eq!(
        s.get(&format!("/api/v1/library/{}", enc(&format!("nas/{STYX}"))))
            .status,
        404
    );
    assert!(!s.get("/settings").body.contains("data-folder=\"nas\""));
}

#[test]
fn a_command_given_fewer_folders_forgets_none_of_the_others() {
    let (folders, share, usb) = spread();
    drop(start(&folders, &share, &usb));
    // The service stopped; a scan on the command line names only the first folder.
    let (status, out, err) = folders.cli(&["scan"]);
    assert!(!status.success(), "partial: {out}{err}");
    assert_eq!(
        folders.run_results().last().map(String::as_str),
        Some("partial")
    );
    let failures = folders.last_run_failures();
    let kept = |name: &str, n: u64| Msg::FolderNotMounted {
        name: name.into(),
        kept: n,
    };
    assert!(failures.contains(&(None, kept("nas", 31))), "{failures:?}");
    assert!(failures.contains(&(None, kept("usb", 15))), "{failures:?}");
    let (status, out, _) = folders.cli(&["library", "list"]);
    assert!(status.success(), "{out}");
    let not_given = Msg::FolderNotMounted {
        name: "nas".into(),
        kept: 31,
    };
    assert!(out.contains(&not_given.french()), "{out}");
    let s = start(&folders, &share, &usb);
    assert_eq!(s.get("/api/v1/stats").json()["total"], 60);
    assert_eq!(game(&s, &format!("nas/{STYX}"))["playable"], true);
}

#[test]
fn a_folder_taken_out_and_added_again_finds_its_trash_and_loses_nothing() {
    let (folders, share, _usb) = spread();
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    let add = || folders.cli(&["library", "add", &format!("nas={}", share.display())]);
    assert!(add().0.success());
    let styx = format!("nas/{STYX}");
    let original = std::fs::read(share.join(STYX)).unwrap();
    assert_eq!(
        s.send("DELETE", &format!("/api/library/{}", enc(&styx)), &[], None)
            .status,
        200
    );
    assert!(folders.cli(&["library", "remove", "nas"]).0.success());
    assert_eq!(s.get("/api/v1/trash").json()["total"], 0);
    // The same name trashed in the first folder meanwhile takes no folder of the share's.
    let other = "Orbital Dread [010093801237C000][v65536].nsp";
    assert_eq!(
        s.send("DELETE", &format!("/api/library/{}", enc(other)), &[], None)
            .status,
        200
    );
    let base = share.join("Indies/Styx [0100535012974000][v0].nsp");
    std::fs::copy(base, share.join(STYX)).unwrap();
    let (status, out, err) = add();
    assert!(status.success(), "{out}{err}");
    let items = s.get("/api/v1/trash").json()["items"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(items.len(), 2, "{items:?}");
    let back = items
        .iter()
        .find(|i| i["key"] == styx.as_str())
        .expect("listed again");
    // The new file goes to the trash too, beside the old one, overwriting nothing.
    assert_eq!(
        s.send("DELETE", &format!("/api/library/{}", enc(&styx)), &[], None)
            .status,
        200
    );
    let ids: Vec<i64> = s.get("/api/v1/trash").json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_i64().unwrap())
        .collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 3, "{ids:?}");
    let id = back["id"].as_i64().unwrap();
    assert_eq!(s.post(&format!("/api/trash/{id}/restore")).status, 200);
    assert_eq!(
        std::fs::read(share.join(STYX)).unwrap(),
        original,
        "the old file, whole"
    );
}

#[test]
fn each_disk_is_held_to_what_its_own_folder_needs_to_decompress() {
    let folders = Folders::new();
    demo(&folders);
    // The share: a tiny filesystem with a compressed game and hardly any room left.
    let share = Tmpfs::mount(folders.tmp.path().join("share"), "1m");
    let nsz = "Pôtions Épée [0100ABF008968000][v0].nsz";
    std::fs::copy(folders.library.join("Studio").join(nsz), share.0.join(nsz)).unwrap();
    let free = |dir: &Path| {
        let out = std::process::Command::new("df")
            .args(["-B1", "--output=avail"])
            .arg(dir)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .nth(1)
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    let fill = free(&share.0).saturating_sub(8 * 1024);
    std::fs::write(share.0.join(".filler"), vec![0u8; fill as usize]).unwrap();
    let first = folders.library.display().to_string();
    let nas = format!("nas={}", share.0.display());
    let s = TestServer::start_on(
        Arc::clone(&folders),
        &["--library", &first, "--library", &nas],
    );
    s.wait_idle();
    // The first folder's disk has room for all; the share's has not: said, and refused.
    let page = s.get("/tasks").body;
    assert!(
        page.contains("id=\"convert-room\" data-fits=\"false\""),
        "{page}"
    );
    assert_eq!(s.post("/api/v1/convert").status, 202);
    let last = s.wait_idle()["last"].clone();
    assert_eq!(last["result"], "failed", "{last}");
    assert!(share.0.join(nsz).is_file());
}

#[test]
fn a_first_folder_entry_under_a_name_a_folder_takes_later_is_kept_and_restored() {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(Arc::clone(&folders), &[]);
    s.wait_idle();
    // "homebrew/…" of the first folder, trashed; its folder gone; then a folder named so.
    let key = "homebrew/Some Homebrew Tool.nsp";
    let bytes = std::fs::read(folders.library.join(key)).unwrap();
    assert_eq!(
        s.send("DELETE", &format!("/api/library/{}", enc(key)), &[], None)
            .status,
        200
    );
    let id = s.get("/api/v1/trash").json()["items"][0]["id"]
        .as_i64()
        .unwrap();
    std::fs::remove_dir_all(folders.library.join("homebrew")).unwrap();
    let other = folders.tmp.path().join("other");
    std::fs::create_dir_all(other.join("x")).unwrap();
    let (status, out, err) =
        folders.cli(&["library", "add", &format!("homebrew={}", other.display())]);
    assert!(status.success(), "{out}{err}");
    let r = s.post(&format!("/api/trash/{id}/restore"));
    assert_eq!(r.status, 409, "{}", r.body);
    let taken = Msg::KeyInOtherFolder {
        name: "homebrew".into(),
    };
    assert_eq!(r.json()["message"], taken.english());
    // Taken out again: the first folder's entry stays, and goes back whole.
    assert!(folders.cli(&["library", "remove", "homebrew"]).0.success());
    assert_eq!(s.get("/api/v1/trash").json()["total"], 1);
    assert_eq!(s.post(&format!("/api/trash/{id}/restore")).status, 200);
    assert_eq!(std::fs::read(folders.library.join(key)).unwrap(), bytes);
}
