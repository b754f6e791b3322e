//! Title data from the user's own files, uploaded in Settings (issue 52): one form
//! takes versions.txt, versions.json and a region file, one or several, in any order;
//! each file's result, or why it was refused, in the reader's language; nothing is
//! left in the data folder.

use std::path::PathBuf;

use crate::harness::{files_under, Resp, TestServer};
use crate::web::{add_user, sign_in};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/titledb");
    std::fs::read(path.join(name)).unwrap()
}

/// A multipart body with one file field per `(name, bytes)`, as a browser sends it.
fn form(files: &[(&str, Vec<u8>)]) -> (String, Vec<u8>) {
    let boundary = "----LudoFormBoundary7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    for (name, bytes) in files {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; \
                 filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Upload `files` as the account of `cookie`, after setting its language to `lang`.
fn upload(s: &TestServer, cookie: &str, lang: &str, files: &[(&str, Vec<u8>)]) -> Resp {
    let origin = s.base.clone();
    let body = serde_json::json!({ "lang": lang });
    let headers = [("Cookie", cookie), ("Origin", origin.as_str())];
    let r = crate::web::send_json(s, "POST", "/api/me/lang", &headers, body);
    assert_eq!(r.status, 200, "{r:?}");
    let (content_type, body) = form(files);
    let headers = [
        ("Cookie", cookie),
        ("Origin", origin.as_str()),
        ("Content-Type", content_type.as_str()),
    ];
    s.send("POST", "/api/titles/import", &headers, Some(body))
}

fn known(s: &TestServer, cookie: &str) -> u64 {
    let r = s.send(
        "GET",
        "/api/v1/titles?status=unknown",
        &[("Cookie", cookie)],
        None,
    );
    r.json()["total"].as_u64().unwrap()
}

#[test]
fn title_data_files_are_uploaded_in_settings_and_said_in_the_readers_language() {
    let folders = crate::titles::unscanned_demo();
    // A part file left by a stop in the middle of an upload goes at the next start.
    let incoming = folders.data.join("titles-incoming");
    std::fs::create_dir_all(&incoming).unwrap();
    std::fs::write(incoming.join("0123456789abcdef.part"), b"cut short").unwrap();
    add_user(&folders, "admin", "admin password", true);
    add_user(&folders, "viewer", "viewer password", false);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    assert!(!incoming.join("0123456789abcdef.part").exists());
    let admin = sign_in(&s, "admin", "admin password");
    let viewer = sign_in(&s, "viewer", "viewer password");
    crate::web_library::wait_idle(&s, &admin);
    let settings = s.send("GET", "/settings", &[("Cookie", &admin)], None).body;
    let form_tag = crate::harness::tag(&settings, "title-upload");
    assert!(
        form_tag.contains("enctype=\"multipart/form-data\""),
        "{form_tag}"
    );
    let viewed = s
        .send("GET", "/settings", &[("Cookie", &viewer)], None)
        .body;
    assert!(
        !viewed.contains("id=\"title-upload\""),
        "a viewer gets no form"
    );
    let unknown_before = known(&s, &admin);
    assert!(
        unknown_before > 0,
        "without title data every title is unknown"
    );

    // Refused, each saying why in the reader's language, and nothing imported.
    let r = upload(&s, &admin, "fr", &[("notes.txt", b"hello".to_vec())]);
    assert_eq!(r.status, 400, "{r:?}");
    let said = r.json()["text"].as_str().unwrap().to_string();
    assert!(
        said.contains(" notes.txt ") && said.contains("aucun des fichiers"),
        "{said}"
    );
    let r = upload(
        &s,
        &admin,
        "en",
        &[("versions.txt", b"id|rightsId\nnope\n".to_vec())],
    );
    assert_eq!(r.status, 400, "{r:?}");
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains("versions.txt"),
        "{r:?}"
    );
    let r = upload(&s, &admin, "en", &[]);
    assert_eq!(r.status, 400, "{r:?}");
    assert!(
        r.json()["message"].as_str().unwrap().contains("no file"),
        "{r:?}"
    );
    assert_eq!(known(&s, &admin), unknown_before);
    // Refused from the request's head (a large body would meet a closed connection).
    let small = b"id|rightsId|version\n".to_vec();
    let r = upload(&s, &viewer, "en", &[("versions.txt", small)]);
    assert_eq!(r.status, 403, "{r:?}");

    // The three files at once, the region file first: a line for each, in French.
    let files = [
        ("IL.en.json", fixture("IL.en.json")),
        ("versions.txt", fixture("versions.txt")),
        ("versions.json", fixture("versions.json")),
    ];
    let r = upload(&s, &admin, "fr", &files);
    assert_eq!(r.status, 200, "{r:?}");
    let lines: Vec<String> = r.json()["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(lines[0].starts_with("IL.en.json"), "{lines:?}");
    assert!(lines[1].contains("identifiants de titres"), "{lines:?}");
    assert!(lines[4].contains("titres connus désormais"), "{lines:?}");
    assert!(
        known(&s, &admin) < unknown_before,
        "the titles are known now"
    );
    let left: Vec<_> = files_under(&folders.data)
        .into_iter()
        .filter(|p| p.starts_with(&incoming))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An admin's server on the demo without title data, and its session.
fn admin_server(limit: Option<u64>) -> (TestServer, String) {
    let folders = crate::titles::unscanned_demo();
    add_user(&folders, "admin", "admin password", true);
    let args = ["--no-local-access"];
    let s = match limit {
        Some(bytes) => TestServer::start_with_file_size_limit(folders, &args, bytes),
        None => TestServer::start_on(folders, &args),
    };
    let admin = sign_in(&s, "admin", "admin password");
    crate::web_library::wait_idle(&s, &admin);
    (s, admin)
}

fn part_files(s: &TestServer) -> Vec<PathBuf> {
    let incoming = s.folders.data.join("titles-incoming");
    let files = files_under(&s.folders.data).into_iter();
    files.filter(|p| p.starts_with(&incoming)).collect()
}

/// A disk that fills up during an upload (here the process's file size limit, as
/// the service sees it): 507, said as such, nothing imported, no part file left.
/// More files than a form needs: refused before any is imported.
#[test]
fn an_upload_that_fills_the_disk_or_holds_too_many_files_imports_nothing() {
    let (s, admin) = admin_server(Some(2 << 20));
    let before = known(&s, &admin);
    let r = upload(
        &s,
        &admin,
        "en",
        &[("versions.txt", fixture("versions.txt"))],
    );
    assert_eq!(
        (r.status, r.slug()),
        (507, "insufficient_storage".into()),
        "{r:?}"
    );
    assert!(
        r.json()["message"].as_str().unwrap().contains("full"),
        "{r:?}"
    );
    assert_eq!(known(&s, &admin), before);
    assert!(part_files(&s).is_empty(), "{:?}", part_files(&s));
    let small = b"id|rightsId|version\n".to_vec();
    let nine: Vec<(&str, Vec<u8>)> = (0..9).map(|_| ("versions.txt", small.clone())).collect();
    let r = upload(&s, &admin, "en", &nine);
    assert_eq!(r.status, 400, "{r:?}");
    assert!(
        r.json()["message"].as_str().unwrap().contains("At most 8"),
        "{r:?}"
    );
    assert!(part_files(&s).is_empty(), "{:?}", part_files(&s));
}

/// Hostile title data sent through the web costs what the command line's import
/// costs (`titles::title_data_with_huge_fields_…`): a name that is an array of 8 Mi
/// zeros, then one that is a 16 MiB string, each within 64 MiB of the server's
/// private memory, health answering throughout, the fields passed over and said.
#[test]
fn hostile_title_data_uploaded_from_the_web_stays_within_its_memory_budget() {
    let (s, admin) = admin_server(None);
    let idle = crate::bombs::rss_anon(s.pid());
    const MIB: usize = 1 << 20;
    let kept = r#"{"1": {"id": "0100000000010000", "name": "#;
    let fine = r#"}, "2": {"id": "0100000000020000", "name": "Fine"}}"#;
    let zeros = format!("{kept}[0{}]{fine}", ",0".repeat(8 * MIB));
    let string = format!("{kept}\"{}\"{fine}", "x".repeat(16 * MIB));
    for (case, body) in [zeros, string].into_iter().enumerate() {
        let watch = crate::bombs::Watch::start(&s);
        let r = upload(&s, &admin, "en", &[("US.en.json", body.into_bytes())]);
        let (peak, slowest) = watch.end();
        assert_eq!(r.status, 200, "case {case}: {r:?}");
        let lines = r.json()["lines"].to_string();
        assert!(
            lines.contains("1 title imported") && lines.contains("1 field"),
            "case {case}: {lines}"
        );
        let above = peak.saturating_sub(idle) / 1024;
        assert!(above < 64, "case {case}: {above} MiB above idle");
        assert!(slowest < 2000, "case {case}: health took {slowest} ms");
    }
    assert!(part_files(&s).is_empty(), "{:?}", part_files(&s));
}
