//! CyberFoil's save sync, driven as CyberFoil drives it (libcurl's multipart form
//! with `file`, `title_id`, `application_id` and `note`; the list's `download_url`;
//! `DELETE` on a URL it builds): versions, the latest, the trash and its restore,
//! each console alone with its own saves, and what is refused leaving nothing.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use crate::harness::{basic, files_under, Folders, Resp, TestServer};

const TID: &str = "0100ABCD12340000";

/// A zip of `entries` (name, data), as a console's save manager makes one.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut out);
        for (name, data) in entries {
            let opts = zip::write::SimpleFileOptions::default();
            z.start_file(*name, opts).unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap();
    }
    out.into_inner()
}

/// A save of `n` bytes that do not compress (xorshift), in one zip.
fn save(n: usize, seed: u8) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ seed as u64;
    let data: Vec<u8> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    zip_of(&[("save/slot0.bin", &data), ("save/.empty", b"")])
}

/// The body libcurl's `curl_mime` sends for CyberFoil's upload.
fn form(zip: &[u8], note: Option<&str>) -> (String, Vec<u8>) {
    let boundary = "------------------------d74496d66958873e";
    let mut b = Vec::new();
    let mut field = |name: &str, value: &str| {
        b.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    };
    field("title_id", TID);
    field("application_id", TID);
    if let Some(note) = note {
        field("note", note);
    }
    b.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{TID}.zip\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    b.extend_from_slice(zip);
    b.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), b)
}

/// An upload on a connection of its own (`Connection: close`): one the service
/// refuses unread (413, 507) is closed after the answer, and must not be the one the
/// test's next request takes from the pool.
fn upload(s: &TestServer, auth: &str, tid: &str, zip: &[u8], note: Option<&str>) -> Resp {
    let (content_type, body) = form(zip, note);
    let headers = [
        ("Authorization", auth),
        ("Content-Type", content_type.as_str()),
        ("Connection", "close"),
    ];
    s.send(
        "POST",
        &format!("/api/saves/upload/{tid}"),
        &headers,
        Some(body),
    )
}

fn list(s: &TestServer, auth: &str) -> Vec<Value> {
    let r = s.send("GET", "/api/saves/list", &[("Authorization", auth)], None);
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["saves"].as_array().unwrap().clone()
}

/// A download's status and bytes (the harness reads bodies as text).
fn download(
    s: &TestServer,
    auth: &str,
    path: &str,
    range: Option<&str>,
) -> (u16, Vec<u8>, Option<String>) {
    let mut req = ureq::http::Request::builder()
        .uri(format!("{}{path}", s.base))
        .header("Authorization", auth);
    if let Some(r) = range {
        req = req.header("Range", r);
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut resp = agent.run(req.body(()).unwrap()).unwrap();
    let disposition = resp
        .headers()
        .get("content-disposition")
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = resp.body_mut().read_to_vec().unwrap();
    (resp.status().as_u16(), bytes, disposition)
}

fn vault_files(folders: &Folders) -> Vec<std::path::PathBuf> {
    let dir = folders.data.join("saves");
    if dir.exists() {
        files_under(&dir)
    } else {
        Vec::new()
    }
}

fn incoming_is_empty(folders: &Folders) -> bool {
    let dir = folders.data.join("saves-incoming");
    !dir.exists() || std::fs::read_dir(dir).unwrap().next().is_none()
}

/// An upload of `zip` announced whole and cut half way: the socket, still open.
/// The console has one version, `sid`, and its latest download is `kept` whole.
fn only_version_is(s: &TestServer, auth: &str, sid: &str, kept: &[u8]) {
    let saves = list(s, auth);
    assert_eq!(saves.len(), 1);
    assert_eq!(saves[0]["save_id"], sid);
    assert_eq!(
        download(s, auth, &format!("/api/saves/download/{TID}"), None).1,
        kept
    );
}

fn half_an_upload(s: &TestServer, auth: &str, zip: &[u8]) -> TcpStream {
    let (content_type, body) = form(zip, None);
    let mut sock = TcpStream::connect(s.base.trim_start_matches("http://")).unwrap();
    let head = format!(
        "POST /api/saves/upload/{TID} HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    sock.write_all(head.as_bytes()).unwrap();
    sock.write_all(&body[..body.len() / 2]).unwrap();
    sock
}

#[test]
fn cyberfoil_uploads_lists_downloads_deletes_and_a_restore_brings_a_version_back() {
    let folders = Folders::new();
    let password = folders.add_console("Salon");
    let auth = basic("Salon", &password);
    let s = TestServer::start_on(folders.clone(), &["--save-versions", "3"]);
    assert!(list(&s, &auth).is_empty());

    let first = save(300_000, 1);
    let r = upload(
        &s,
        &auth,
        &TID.to_lowercase(),
        &first,
        Some("  Avant le\tboss  "),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    let sid1 = answer["save_id"].as_str().unwrap().to_string();
    assert_eq!(answer["saveId"], sid1.as_str());
    assert_eq!(answer["title_id"], TID);
    assert_eq!(answer["note"], "Avant le boss");
    assert_eq!(answer["size"], first.len() as u64);
    assert_eq!(
        answer["download_url"],
        format!("/api/saves/download/{TID}/{sid1}.zip").as_str()
    );
    // Two more within the same second: the latest is the last uploaded.
    let second = save(1000, 2);
    let third = save(2000, 3);
    let sid2 = upload(&s, &auth, TID, &second, None).json()["save_id"]
        .as_str()
        .unwrap()
        .to_string();
    let sid3 = upload(&s, &auth, TID, &third, Some("trois")).json()["save_id"]
        .as_str()
        .unwrap()
        .to_string();

    let saves = list(&s, &auth);
    let ids: Vec<&str> = saves
        .iter()
        .map(|e| e["save_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [sid3.as_str(), sid2.as_str(), sid1.as_str()]);
    for key in [
        "title_id",
        "titleId",
        "app_id",
        "name",
        "title_name",
        "titleName",
        "size",
        "save_id",
        "saveId",
        "note",
        "save_note",
        "saveNote",
        "created_at",
        "createdAt",
        "created_ts",
        "createdTs",
        "icon_url",
        "iconUrl",
        "download_url",
        "downloadUrl",
        "delete_url",
        "deleteUrl",
    ] {
        assert!(
            saves[0].get(key).is_some(),
            "{key} missing from {}",
            saves[0]
        );
    }
    assert!(saves[0]["created_ts"].as_i64().unwrap() > 1_700_000_000);
    assert!(saves[0]["created_at"].as_str().unwrap().ends_with('Z'));

    // The latest without a save ID, any version by its list URL, with ranges.
    let (status, bytes, disposition) =
        download(&s, &auth, &format!("/api/saves/download/{TID}.zip"), None);
    assert_eq!((status, bytes.as_slice()), (200, third.as_slice()));
    assert_eq!(
        disposition.unwrap(),
        format!("attachment; filename={TID}_{sid3}.zip")
    );
    let url = saves[2]["download_url"].as_str().unwrap();
    assert_eq!(download(&s, &auth, url, None).1, first);
    let (status, part, _) = download(&s, &auth, url, Some("bytes=10-19"));
    assert_eq!((status, part.as_slice()), (206, &first[10..20]));
    assert_eq!(
        download(
            &s,
            &auth,
            &format!("/api/saves/download/{TID}/{sid2}"),
            None
        )
        .1,
        second
    );

    // A fourth version: the oldest goes to the trash, restorable.
    let fourth = save(500, 4);
    let sid4 = upload(&s, &auth, TID, &fourth, None).json()["save_id"]
        .as_str()
        .unwrap()
        .to_string();
    let ids: Vec<String> = list(&s, &auth)
        .iter()
        .map(|e| e["save_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, [sid4.clone(), sid3.clone(), sid2.clone()]);

    // Delete as CyberFoil does: by ID, then the latest.
    let r = s.send(
        "DELETE",
        &format!("/api/saves/delete/{TID}/{sid3}"),
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = s.send(
        "POST",
        &format!("/api/saves/delete/{TID}"),
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(
        (r.status, r.json()["save_id"].as_str()),
        (200, Some(sid4.as_str()))
    );
    let ids: Vec<String> = list(&s, &auth)
        .iter()
        .map(|e| e["save_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, [sid2.as_str()]);
    let r = s.send(
        "DELETE",
        &format!("/api/saves/delete/{TID}/{sid3}"),
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(r.status, 404);

    // The trash lists the three (rotated, deleted twice) with reason `save`; the
    // page's restore brings the latest back, with its note.
    let (_, out, _) = folders.cli(&["trash", "list"]);
    assert_eq!(
        out.lines().filter(|l| l.contains(" save ")).count(),
        3,
        "{out}"
    );
    let trash = s.get("/api/v1/trash").json();
    let items = trash["items"].as_array().unwrap();
    let entry = items
        .iter()
        .find(|i| i["key"].as_str().unwrap().ends_with(&format!("{sid3}.zip")))
        .unwrap();
    assert_eq!(entry["reason"], "save");
    let r = s.post(&format!("/api/trash/{}/restore", entry["id"]));
    assert_eq!(r.status, 200, "{}", r.body);
    let saves = list(&s, &auth);
    assert_eq!(saves[0]["save_id"], sid3.as_str());
    assert_eq!(saves[0]["note"], "trois");
    assert_eq!(
        download(&s, &auth, &format!("/api/saves/download/{TID}"), None).1,
        third
    );
    // Purged for good: the file and the version are gone.
    let gone = items
        .iter()
        .find(|i| i["key"].as_str().unwrap().ends_with(&format!("{sid1}.zip")))
        .unwrap();
    assert_eq!(
        s.send("DELETE", &format!("/api/trash/{}", gone["id"]), &[], None)
            .status,
        200
    );
    assert!(!vault_files(&folders)
        .iter()
        .any(|p| p.to_string_lossy().contains(&sid1)));
    assert!(!folders
        .data
        .join(".ludotheque-trash")
        .join(gone["id"].to_string())
        .exists());

    // `backup` copies the kept versions beside the database's copy.
    let copy = folders.tmp.path().join("copy.sqlite");
    let (status, out, err) = folders.cli(&["backup", copy.to_str().unwrap()]);
    assert!(status.success(), "{out}{err}");
    let copied = copy
        .with_file_name("copy.sqlite-saves")
        .join("Salon")
        .join(TID);
    let mut names: Vec<String> = std::fs::read_dir(&copied)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut kept = vec![format!("{sid2}.zip"), format!("{sid3}.zip")];
    kept.sort();
    assert_eq!(names, kept);
    assert_eq!(
        std::fs::read(copied.join(format!("{sid3}.zip"))).unwrap(),
        third
    );
}

#[test]
fn each_console_sees_only_its_own_and_nothing_else_opens_them() {
    let folders = Folders::new();
    let salon = basic("Salon", &folders.add_console("Salon"));
    let chambre = basic("Chambre", &folders.add_console("Chambre"));
    // The loopback rule is on: it opens the web and the API, never the saves.
    let s = TestServer::start_on(folders.clone(), &[]);
    let sid = upload(&s, &salon, TID, &save(100, 1), None).json()["save_id"]
        .as_str()
        .unwrap()
        .to_string();

    assert!(list(&s, &chambre).is_empty());
    let by_id = format!("/api/saves/download/{TID}/{sid}.zip");
    assert_eq!(download(&s, &chambre, &by_id, None).0, 404);
    let r = s.send(
        "DELETE",
        &format!("/api/saves/delete/{TID}/{sid}"),
        &[("Authorization", &chambre)],
        None,
    );
    assert_eq!(r.status, 404);
    assert_eq!(list(&s, &salon).len(), 1, "still there for its own console");

    for auth in [
        None,
        Some(basic("Salon", "wrong-pass-word")),
        Some(basic("Nobody", "x")),
    ] {
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("Authorization", a.as_str())).collect();
        let r = s.send("GET", "/api/saves/list", &headers, None);
        assert_eq!(r.status, 401, "{auth:?}");
        assert_eq!(
            r.header("www-authenticate"),
            Some("Basic realm=\"ludotheque\"")
        );
    }
    // An API key opens /api/v1/, not a console's saves.
    let (_, out, _) = folders.cli(&["apikey", "create", "script"]);
    let key = out
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("ldq_"))
        .unwrap()
        .to_string();
    let r = s.send("GET", "/api/saves/list", &[("X-Api-Key", &key)], None);
    assert_eq!(r.status, 401);
    assert_eq!(s.get("/api/v1/health").status, 200);
}

#[test]
fn what_is_refused_is_said_and_leaves_nothing() {
    let folders = Folders::new();
    let auth = basic("Salon", &folders.add_console("Salon"));
    let s = TestServer::start_on(folders.clone(), &["--save-max-bytes", "100000"]);
    let refused = |r: Resp, status: u16, slug: &str| {
        assert_eq!(
            (r.status, r.slug()),
            (status, slug.to_string()),
            "{}",
            r.body
        );
    };
    refused(
        upload(&s, &auth, "0100ABCD1234", &save(10, 1), None),
        400,
        "bad_request",
    );
    refused(
        upload(&s, &auth, TID, b"not a zip at all", None),
        400,
        "bad_request",
    );
    let mut cut = save(5000, 1);
    cut.truncate(cut.len() - 30);
    refused(upload(&s, &auth, TID, &cut, None), 400, "bad_request");
    for name in ["../escape.bin", "/etc/cron.d/x", "save\\..\\..\\x", "C:/x"] {
        let r = upload(&s, &auth, TID, &zip_of(&[(name, b"x")]), None);
        assert_eq!(r.status, 400, "{name}");
        assert!(
            r.body.contains("save_unsafe_entry")
                || r.json()["message"].as_str().unwrap().contains("outside"),
            "{}",
            r.body
        );
    }
    refused(upload(&s, &auth, TID, b"", None), 400, "bad_request");
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    refused(
        s.send(
            "POST",
            &format!("/api/saves/upload/{TID}"),
            &headers,
            Some(b"{}".to_vec()),
        ),
        400,
        "bad_request",
    );
    // Past the cap as announced: 413 before a byte of the body is read (a client
    // sending it meanwhile may see its connection shut under it), then the close.
    let mut sock = TcpStream::connect(s.base.trim_start_matches("http://")).unwrap();
    let head = format!(
        "POST /api/saves/upload/{TID} HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\n\
         Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 150000\r\n\r\n"
    );
    sock.write_all(head.as_bytes()).unwrap();
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut sock, &mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("payload_too_large"), "{answer}");
    refused(
        s.send(
            "GET",
            "/api/saves/download/nope",
            &[("Authorization", &auth)],
            None,
        ),
        400,
        "bad_request",
    );
    refused(
        s.send(
            "GET",
            &format!("/api/saves/download/{TID}/a%20b"),
            &[("Authorization", &auth)],
            None,
        ),
        400,
        "bad_request",
    );
    refused(
        s.send(
            "GET",
            &format!("/api/saves/download/{TID}"),
            &[("Authorization", &auth)],
            None,
        ),
        404,
        "not_found",
    );
    assert!(list(&s, &auth).is_empty());
    assert!(vault_files(&folders).is_empty());
    assert!(incoming_is_empty(&folders));

    // A connection cut half way through an upload: nothing listed, nothing left.
    // Its answer is one more 400 line than the refusals above left in the log.
    let refused = format!("POST /api/saves/upload/{TID} 400");
    let before = s.output().matches(&refused).count();
    let sock = half_an_upload(&s, &auth, &save(60_000, 5));
    std::thread::sleep(Duration::from_millis(300));
    drop(sock);
    crate::harness::wait_until(
        "the cut upload is answered",
        Duration::from_secs(10),
        || s.output().matches(&refused).count() > before,
    );
    assert!(list(&s, &auth).is_empty());
    assert!(incoming_is_empty(&folders));
    assert!(vault_files(&folders).is_empty());
    // The metrics count these as the saves' requests, each status apart.
    let metrics = s.get("/metrics").body;
    let count = |status: &str| -> f64 {
        let name =
            format!("ludotheque_http_requests_total{{route_class=\"saves\",status=\"{status}\"}} ");
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(&name))
            .unwrap_or_else(|| panic!("no {name} in\n{metrics}"))
            .parse()
            .unwrap()
    };
    assert!(count("400") >= 10.0 && count("413") >= 1.0 && count("404") >= 1.0);
}

#[test]
fn a_full_disk_keeps_nothing_of_the_upload_and_the_earlier_version_whole() {
    let folders = Folders::new();
    let auth = basic("Salon", &folders.add_console("Salon"));
    // The process may write files of 1 MiB at most: a larger save meets a full disk.
    let s = TestServer::start_with_file_size_limit(folders.clone(), &[], 1 << 20);
    let kept = save(300_000, 1);
    let sid = upload(&s, &auth, TID, &kept, None).json()["save_id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = upload(&s, &auth, TID, &save(2_000_000, 2), Some("too big"));
    assert_eq!(
        (r.status, r.slug()),
        (507, "insufficient_storage".to_string()),
        "{}",
        r.body
    );
    only_version_is(&s, &auth, &sid, &kept);
    assert!(incoming_is_empty(&folders));
    // The same over WebDAV: nothing replaced.
    let version = format!("/dav/{TID}/{sid}.zip");
    let r = s.send(
        "PUT",
        &version,
        &[("Authorization", &auth)],
        Some(vec![9; 2_000_000]),
    );
    assert_eq!(r.status, 507, "{}", r.body);
    assert_eq!(download(&s, &auth, &version, None).1, kept);
    assert!(incoming_is_empty(&folders));
}

#[test]
fn a_console_dripping_an_upload_holds_up_no_other_and_the_quota_holds() {
    let folders = Folders::new();
    let salon = basic("Salon", &folders.add_console("Salon"));
    let chambre = basic("Chambre", &folders.add_console("Chambre"));
    let s = TestServer::start_on(folders.clone(), &["--save-quota", "400000"]);
    // Salon's upload stays half sent; its second one waits its turn (503)…
    let dripping = half_an_upload(&s, &salon, &save(200_000, 1));
    crate::harness::wait_until(
        "the upload is being received",
        Duration::from_secs(10),
        || !incoming_is_empty(&folders),
    );
    assert_eq!(upload(&s, &salon, TID, &save(1000, 2), None).status, 503);
    // …and Chambre's goes through meanwhile.
    assert_eq!(upload(&s, &chambre, TID, &save(1000, 3), None).status, 200);
    drop(dripping);
    // Past the console's quota: 507, nothing kept.
    assert_eq!(
        upload(&s, &chambre, TID, &save(300_000, 4), None).status,
        200
    );
    let r = upload(&s, &chambre, TID, &save(300_000, 5), None);
    assert_eq!(
        (r.status, r.slug()),
        (507, "insufficient_storage".to_string()),
        "{}",
        r.body
    );
    assert_eq!(list(&s, &chambre).len(), 2);
    // A note past its cap is the client's error, said as such.
    let (content_type, mut body) = form(&save(10, 6), None);
    let long = format!(
        "--------------------------d74496d66958873e\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n{}\r\n",
        "n".repeat(5000)
    );
    body.splice(0..0, long.into_bytes());
    let headers = [
        ("Authorization", chambre.as_str()),
        ("Content-Type", content_type.as_str()),
        ("Connection", "close"),
    ];
    let r = s.send(
        "POST",
        &format!("/api/saves/upload/{TID}"),
        &headers,
        Some(body),
    );
    assert_eq!(
        (r.status, r.slug()),
        (400, "bad_request".to_string()),
        "{}",
        r.body
    );
}

/// A small archive that unpacks to 256 MiB (deflated zeros): checked as it is read,
/// in a bounded buffer; the service's private memory does not grow with it.
#[test]
fn an_archive_that_unpacks_large_is_checked_within_a_small_memory() {
    let folders = Folders::new();
    let auth = basic("Salon", &folders.add_console("Salon"));
    let s = TestServer::start_on(folders.clone(), &[]);
    let bomb = {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut out);
        z.start_file("zeros", zip::write::SimpleFileOptions::default())
            .unwrap();
        let chunk = vec![0u8; 1 << 20];
        for _ in 0..256 {
            z.write_all(&chunk).unwrap();
        }
        z.finish().unwrap();
        out.into_inner()
    };
    assert!(bomb.len() < 2 << 20, "{} bytes", bomb.len());
    upload(&s, &auth, TID, &save(1000, 1), None);
    let before = crate::bombs::rss_anon(s.pid());
    let r = upload(&s, &auth, TID, &bomb, None);
    assert_eq!(r.status, 200, "{}", r.body);
    let grew = crate::bombs::rss_anon(s.pid()).saturating_sub(before);
    assert!(grew < 32 * 1024, "grew by {grew} KiB");
}

#[test]
fn a_kill_mid_upload_leaves_the_earlier_versions_and_nothing_half_kept() {
    let folders = Folders::new();
    let auth = basic("Salon", &folders.add_console("Salon"));
    let mut s = TestServer::start_on(folders.clone(), &[]);
    let kept = save(1000, 1);
    let sid = upload(&s, &auth, TID, &kept, None).json()["save_id"]
        .as_str()
        .unwrap()
        .to_string();
    let sock = half_an_upload(&s, &auth, &save(200_000, 2));
    crate::harness::wait_until(
        "the upload is being received",
        Duration::from_secs(10),
        || !incoming_is_empty(&folders),
    );
    s.kill();
    drop(sock);
    let s = TestServer::start_on(folders.clone(), &[]);
    only_version_is(&s, &auth, &sid, &kept);
    assert!(
        incoming_is_empty(&folders),
        "the cut upload is removed at start"
    );
    assert_eq!(vault_files(&folders).len(), 1);
}
