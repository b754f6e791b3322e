//! A console's own page: its last request (followed live until the first one), its
//! saves from CyberFoil and from a WebDAV client side by side, each downloaded or
//! moved to the trash and restored from the page; the `webdav.json` JKSV reads.
//! Screenshots at 360 and 1280 px, in French and in English.

use std::io::Write;

use crate::browser::{open, screen, set_lang, shot, sign_in, start, wait_for};
use crate::harness::{basic, Folders, TestServer};
use crate::web::add_user;

const TID: &str = "0100ABCD12340000";

fn zip_of(data: &[u8]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut out);
    z.start_file("slot0", zip::write::SimpleFileOptions::default())
        .unwrap();
    z.write_all(data).unwrap();
    z.finish().unwrap();
    out.into_inner()
}

/// CyberFoil's upload of `zip` with `note`.
fn upload(s: &TestServer, auth: &str, zip: &[u8], note: &str) -> String {
    let b = "XyZb0undary";
    let mut body = format!(
        "--{b}\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n{note}\r\n--{b}\r\n\
         Content-Disposition: form-data; name=\"file\"; filename=\"{TID}.zip\"\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(zip);
    body.extend_from_slice(format!("\r\n--{b}--\r\n").as_bytes());
    let ct = format!("multipart/form-data; boundary={b}");
    let headers = [
        ("Authorization", auth),
        ("Content-Type", ct.as_str()),
        ("User-Agent", "cyberfoil"),
        ("Version", "1.4.4"),
    ];
    let r = s.send(
        "POST",
        &format!("/api/saves/upload/{TID}"),
        &headers,
        Some(body),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["save_id"].as_str().unwrap().to_string()
}

/// A shop request as CyberFoil 1.4.4 sends it.
fn cyberfoil_asks(s: &TestServer, auth: &str) {
    let headers = [
        ("Authorization", auth),
        ("User-Agent", "cyberfoil"),
        (
            "Theme",
            "0000000000000000000000000000000000000000000000000000000000000000",
        ),
        ("Version", "1.4.4"),
    ];
    assert_eq!(s.send("GET", "/", &headers, None).status, 200);
}

#[test]
fn the_page_says_the_last_request_and_keeps_both_kinds_of_saves() {
    let folders = Folders::new();
    let auth = basic("Salon", &folders.add_console("Salon"));
    let s = TestServer::start_on(folders.clone(), &[]);
    let page = s.get("/consoles/Salon");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("data-waiting"), "no request yet");
    assert_eq!(s.get("/api/consoles/Salon").json()["connected"], false);
    assert_eq!(s.get("/consoles/Nobody").status, 404);

    cyberfoil_asks(&s, &auth);
    let status = s
        .send(
            "GET",
            "/api/consoles/Salon",
            &[("Accept-Language", "en")],
            None,
        )
        .json();
    assert_eq!(status["connected"], true);
    let line = status["line"].as_str().unwrap();
    assert!(
        line.contains("CyberFoil 1.4.4") && line.contains("127.0.0.1"),
        "{line}"
    );

    // A CyberFoil version with its note, and a file JKSV put over WebDAV.
    let zip = zip_of(b"slot data");
    let sid = upload(&s, &auth, &zip, "before the boss");
    let headers = [("Authorization", auth.as_str()), ("User-Agent", "JKSV")];
    assert_eq!(s.send("MKCOL", "/dav/JKSV/", &headers, None).status, 201);
    let put = s.send(
        "PUT",
        "/dav/JKSV/Mario.zip",
        &headers,
        Some(b"jksv bytes".to_vec()),
    );
    assert_eq!(put.status, 201);
    let page = s.get("/consoles/Salon").body;
    assert!(!page.contains("data-waiting"));
    assert!(
        page.contains(&format!("data-save=\"{TID}/{sid}.zip\"")),
        "{page}"
    );
    assert!(page.contains("before the boss"));
    assert!(page.contains("data-save=\"JKSV/Mario.zip\""));
    assert!(
        page.contains("&quot;basepath&quot;: &quot;dav&quot;"),
        "{page}"
    );

    // Downloaded from the page; to the trash and back.
    let r = s.get(&format!("/consoles/Salon/files/{TID}/{sid}.zip"));
    let length = zip.len().to_string();
    assert_eq!(
        (r.status, r.header("content-length")),
        (200, Some(length.as_str()))
    );
    assert!(r.header("content-disposition").unwrap().contains(&sid));
    let r = s.send(
        "DELETE",
        "/api/consoles/Salon/files/JKSV/Mario.zip",
        &[],
        None,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        s.send("GET", "/dav/JKSV/Mario.zip", &headers, None).status,
        404
    );
    let page = s.get("/consoles/Salon").body;
    assert!(!page.contains("data-save=\"JKSV/Mario.zip\""));
    let id = page
        .split("data-api=\"/api/trash/")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap()
        .to_string();
    assert_eq!(s.post(&format!("/api/trash/{id}/restore")).status, 200);
    let back = s.send("GET", "/dav/JKSV/Mario.zip", &headers, None);
    assert_eq!((back.status, back.body.as_str()), (200, "jksv bytes"));
}

#[test]
fn the_status_turns_connected_without_a_reload_in_both_languages() {
    let folders = Folders::new();
    let auth = basic("Salon", &folders.add_console("Salon"));
    add_user(&folders, "admin", "admin password", true);
    let s = TestServer::start_on(folders.clone(), &["--no-local-access"]);
    upload(&s, &auth, &zip_of(b"one"), "avant le boss");
    let headers = [("Authorization", auth.as_str()), ("User-Agent", "JKSV")];
    assert_eq!(s.send("MKCOL", "/dav/JKSV/", &headers, None).status, 201);
    assert_eq!(
        s.send(
            "MKCOL",
            "/dav/JKSV/Super%20Mario%20Odyssey/",
            &headers,
            None
        )
        .status,
        201
    );
    let put = s.send(
        "PUT",
        "/dav/JKSV/Super%20Mario%20Odyssey/2026-11-29%20slot.zip",
        &headers,
        Some(vec![1; 5000]),
    );
    assert_eq!(put.status, 201);
    let Some((_browser, tab, _profile)) = start(&folders) else {
        return;
    };
    sign_in(&tab, &s.base, "admin", "admin password");
    // Nothing asked the shop yet (an upload counts: it is a request of the console,
    // so the status is read before it is made in a fresh space).
    let fresh = basic("Chambre", &folders.add_console("Chambre"));
    open(&tab, &format!("{}/consoles/Chambre", s.base));
    wait_for(
        &tab,
        "!!document.querySelector('#console-status[data-waiting]')",
    );
    cyberfoil_asks(&s, &fresh);
    wait_for(
        &tab,
        "document.getElementById('console-status').textContent.includes('CyberFoil 1.4.4')",
    );
    for lang in ["fr", "en"] {
        set_lang(&tab, lang);
        for (w, h, mobile, width) in [(360, 780, true, "360"), (1280, 900, false, "1280")] {
            screen(&tab, w, h, mobile);
            open(&tab, &format!("{}/consoles/Salon", s.base));
            if mobile {
                crate::browser::fits_the_screen(&tab, &format!("console-{width}-{lang}"));
            }
            shot(&tab, &format!("console-{width}-{lang}"));
        }
    }
}
