//! WebDAV at `/dav/`, spoken as JKSV speaks it (PROPFIND depth 0 and 1 without a
//! body, MKCOL, a chunked PUT, GET, DELETE), checked by the `litmus` suite (basic,
//! copymove, props) and used by a real client (`rclone`), each console in its own
//! space beside CyberFoil's versions. CI requires litmus and rclone
//! (`LUDOTHEQUE_REQUIRE_DAV_CLIENTS`); a developer's machine may lack them.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;

use crate::harness::{basic, Folders, Resp, TestServer};

fn dav(
    s: &TestServer,
    auth: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Resp {
    let mut all = vec![("Authorization", auth)];
    all.extend_from_slice(headers);
    s.send(method, path, &all, body.map(<[u8]>::to_vec))
}

/// The `<D:response>` blocks of a multistatus: (href, whole block).
fn responses(xml: &str) -> Vec<(String, String)> {
    xml.split("<D:response>")
        .skip(1)
        .map(|block| {
            let href = block
                .split("<D:href>")
                .nth(1)
                .and_then(|h| h.split("</D:href>").next())
                .unwrap_or_default()
                .to_string();
            (href, block.to_string())
        })
        .collect()
}

/// A tool on the PATH, or `None` where it may be missing.
fn tool(name: &str) -> Option<()> {
    let found = Command::new(name).arg("--version").output().is_ok();
    if !found && std::env::var_os("LUDOTHEQUE_REQUIRE_DAV_CLIENTS").is_some() {
        panic!("{name} is required here (LUDOTHEQUE_REQUIRE_DAV_CLIENTS)");
    }
    found.then_some(())
}

#[test]
fn jksv_lists_makes_folders_puts_gets_and_deletes_in_its_own_space() {
    let folders = Folders::new();
    let salon = basic("Salon", &folders.add_console("Salon"));
    let chambre = basic("Chambre", &folders.add_console("Chambre"));
    let s = TestServer::start_on(folders.clone(), &[]);

    // The base path exists (207 on depth 0), and its listing starts with itself.
    let r = dav(&s, &salon, "PROPFIND", "/dav/", &[("Depth", "0")], None);
    assert_eq!(r.status, 207, "{}", r.body);
    assert_eq!(
        dav(
            &s,
            &salon,
            "PROPFIND",
            "/dav/JKSV/",
            &[("Depth", "0")],
            None
        )
        .status,
        404
    );
    assert_eq!(
        dav(&s, &salon, "MKCOL", "/dav/JKSV/", &[], None).status,
        201
    );
    assert_eq!(
        dav(
            &s,
            &salon,
            "MKCOL",
            "/dav/JKSV/Super%20Mario%20Odyssey/",
            &[],
            None
        )
        .status,
        201
    );
    // A chunked PUT, as JKSV's older client sends it; JKSV's newer one doubles slashes.
    let save: Vec<u8> = (0..70_000u32).map(|i| (i * 7 % 256) as u8).collect();
    let path = "/dav/JKSV//Super%20Mario%20Odyssey/2026-11-29%20slot%C3%A9.zip";
    let mut sock = TcpStream::connect(s.base.trim_start_matches("http://")).unwrap();
    let mut req = format!(
        "PUT {path} HTTP/1.1\r\nHost: x\r\nAuthorization: {salon}\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    .into_bytes();
    for chunk in save.chunks(16_000) {
        req.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        req.extend_from_slice(chunk);
        req.extend_from_slice(b"\r\n");
    }
    req.extend_from_slice(b"0\r\n\r\n");
    sock.write_all(&req).unwrap();
    let mut answer = [0u8; 12];
    sock.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"HTTP/1.1 201");
    drop(sock);

    let r = dav(
        &s,
        &salon,
        "PROPFIND",
        "/dav/JKSV/Super%20Mario%20Odyssey/",
        &[("Depth", "1")],
        None,
    );
    assert_eq!(r.status, 207);
    assert!(
        r.body.contains("<D:multistatus xmlns:D=\"DAV:\">"),
        "{}",
        r.body
    );
    let listed = responses(&r.body);
    assert_eq!(
        listed[0].0, "/dav/JKSV/Super%20Mario%20Odyssey/",
        "the folder itself first"
    );
    assert!(listed[0]
        .1
        .contains("<D:resourcetype><D:collection/></D:resourcetype>"));
    let (href, file) = &listed[1];
    assert_eq!(
        href,
        "/dav/JKSV/Super%20Mario%20Odyssey/2026-11-29%20slot%C3%A9.zip"
    );
    assert!(
        file.contains("<D:displayname>2026-11-29 sloté.zip</D:displayname>"),
        "{file}"
    );
    assert!(file.contains(&format!(
        "<D:getcontentlength>{}</D:getcontentlength>",
        save.len()
    )));
    assert!(file.contains("<D:resourcetype></D:resourcetype>"));

    let got = download(
        &s,
        &salon,
        "/dav/JKSV/Super%20Mario%20Odyssey/2026-11-29%20slot%C3%A9.zip",
    );
    assert_eq!(got, save);
    // Another console has a space of its own, empty.
    let r = dav(&s, &chambre, "PROPFIND", "/dav/", &[("Depth", "1")], None);
    assert_eq!(responses(&r.body).len(), 1, "{}", r.body);
    assert_eq!(
        dav(
            &s,
            &chambre,
            "GET",
            "/dav/JKSV/Super%20Mario%20Odyssey/2026-11-29%20slot%C3%A9.zip",
            &[],
            None
        )
        .status,
        404
    );
    // No login, or a wrong one: 401 asking for one; the loopback rule opens nothing.
    let r = s.send("PROPFIND", "/dav/", &[("Depth", "0")], None);
    assert_eq!(
        (r.status, r.header("www-authenticate")),
        (401, Some("Basic realm=\"ludotheque\""))
    );

    // A delete goes to the trash, and comes back from it.
    let file = "/dav/JKSV/Super%20Mario%20Odyssey/2026-11-29%20slot%C3%A9.zip";
    assert_eq!(dav(&s, &salon, "DELETE", file, &[], None).status, 204);
    assert_eq!(dav(&s, &salon, "GET", file, &[], None).status, 404);
    let trash = s.get("/api/v1/trash").json();
    let entry = &trash["items"].as_array().unwrap()[0];
    assert_eq!(entry["reason"], "save");
    assert_eq!(
        s.post(&format!("/api/trash/{}/restore", entry["id"]))
            .status,
        200
    );
    assert_eq!(download(&s, &salon, file), save);
}

fn download(s: &TestServer, auth: &str, path: &str) -> Vec<u8> {
    let req = ureq::http::Request::builder()
        .uri(format!("{}{path}", s.base))
        .header("Authorization", auth);
    let mut resp = s.agent.run(req.body(()).unwrap()).unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    resp.body_mut().read_to_vec().unwrap()
}

#[test]
fn cyberfoils_versions_are_files_of_the_space_and_a_put_over_one_keeps_it_in_the_trash() {
    let folders = Folders::new();
    let salon = basic("Salon", &folders.add_console("Salon"));
    let s = TestServer::start_on(folders.clone(), &["--save-max-bytes", "50000"]);
    // A version uploaded by CyberFoil's route is listed as a file of the space.
    let zip = {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut out);
        z.start_file("slot", zip::write::SimpleFileOptions::default())
            .unwrap();
        z.write_all(b"cyberfoil").unwrap();
        z.finish().unwrap();
        out.into_inner()
    };
    let boundary = "b0undary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.zip\"\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&zip);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let ct = format!("multipart/form-data; boundary={boundary}");
    let r = dav(
        &s,
        &salon,
        "POST",
        "/api/saves/upload/0100ABCD12340000",
        &[("Content-Type", &ct)],
        Some(&body),
    );
    let sid = r.json()["save_id"].as_str().unwrap().to_string();
    let r = dav(
        &s,
        &salon,
        "PROPFIND",
        "/dav/0100ABCD12340000/",
        &[("Depth", "1")],
        None,
    );
    let listed = responses(&r.body);
    assert_eq!(listed[1].0, format!("/dav/0100ABCD12340000/{sid}.zip"));
    let version = format!("/dav/0100ABCD12340000/{sid}.zip");
    assert_eq!(download(&s, &salon, &version), zip);

    // A PUT over it: the new bytes are there, the old ones in the trash.
    assert_eq!(
        dav(&s, &salon, "PUT", &version, &[], Some(b"new bytes")).status,
        204
    );
    assert_eq!(download(&s, &salon, &version), b"new bytes");
    let trash = s.get("/api/v1/trash").json();
    assert_eq!(trash["items"].as_array().unwrap().len(), 1);
    // Past --save-max-bytes: 413, and nothing replaced.
    // (As announced: answered before a byte of the body is read.)
    let mut sock = TcpStream::connect(s.base.trim_start_matches("http://")).unwrap();
    let head = format!(
        "PUT {version} HTTP/1.1\r\nHost: x\r\nAuthorization: {salon}\r\nContent-Length: 60000\r\n\r\n"
    );
    sock.write_all(head.as_bytes()).unwrap();
    let mut answer = String::new();
    sock.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert_eq!(download(&s, &salon, &version), b"new bytes");
    // Paths that could leave the space, and a missing folder on the way.
    assert_eq!(
        dav(&s, &salon, "PUT", "/dav/a/%2e%2e/%2e%2e/x", &[], Some(b"x")).status,
        400
    );
    assert_eq!(
        dav(&s, &salon, "PUT", "/dav/nowhere/x", &[], Some(b"x")).status,
        409
    );
    let r = dav(
        &s,
        &salon,
        "COPY",
        &version,
        &[("Destination", "http://elsewhere/shop/x")],
        None,
    );
    assert_eq!(r.status, 400);
    assert!(!folders.library.join("x").exists());
}

#[test]
fn deep_paths_long_listings_and_heavy_properties_are_refused() {
    let folders = Folders::new();
    let salon = basic("Salon", &folders.add_console("Salon"));
    let s = TestServer::start_on(folders.clone(), &["--save-quota", "100000"]);
    let deep = "/dav/".to_string() + &"d/".repeat(33);
    assert_eq!(dav(&s, &salon, "MKCOL", &deep, &[], None).status, 400);
    let asked: String = (0..65).map(|i| format!("<p{i}/>")).collect();
    let body = format!("<D:propfind xmlns:D=\"DAV:\"><D:prop>{asked}</D:prop></D:propfind>");
    let r = dav(
        &s,
        &salon,
        "PROPFIND",
        "/dav/",
        &[("Depth", "1")],
        Some(body.as_bytes()),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        dav(&s, &salon, "PUT", "/dav/a", &[], Some(b"x")).status,
        201
    );
    let big = format!(
        "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><x xmlns=\"urn:x\">{}</x></D:prop></D:set></D:propertyupdate>",
        "v".repeat(70_000)
    );
    assert_eq!(
        dav(&s, &salon, "PROPPATCH", "/dav/a", &[], Some(big.as_bytes())).status,
        413
    );
    // A tree moved under a deep folder would pass the depth: refused.
    let mut deep = String::from("/dav");
    for _ in 0..31 {
        deep.push_str("/d");
        let r = dav(&s, &salon, "MKCOL", &format!("{deep}/"), &[], None);
        assert_eq!(r.status, 201);
    }
    assert_eq!(dav(&s, &salon, "MKCOL", "/dav/w/", &[], None).status, 201);
    assert_eq!(dav(&s, &salon, "MKCOL", "/dav/w/x/", &[], None).status, 201);
    let to = format!("{deep}/w");
    let r = dav(&s, &salon, "MOVE", "/dav/w", &[("Destination", &to)], None);
    assert_eq!(r.status, 400, "{}", r.body);
    // The quota (100,000 bytes) counts the dead properties…
    let prop = |v: usize| {
        format!(
            "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><x xmlns=\"urn:x\">{}</x></D:prop></D:set></D:propertyupdate>",
            "v".repeat(v)
        )
    };
    let r = dav(
        &s,
        &salon,
        "PROPPATCH",
        "/dav/a",
        &[],
        Some(prop(60_000).as_bytes()),
    );
    assert_eq!(r.status, 207, "{}", r.body);
    let r = dav(&s, &salon, "PUT", "/dav/b", &[], Some(&[1; 50_000]));
    assert_eq!(r.status, 507, "{}", r.body);
    // …and what COPY would add.
    assert_eq!(
        dav(&s, &salon, "PUT", "/dav/b", &[], Some(&[1; 30_000])).status,
        201
    );
    let r = dav(
        &s,
        &salon,
        "COPY",
        "/dav/b",
        &[("Destination", "/dav/c")],
        None,
    );
    assert_eq!(r.status, 507, "{}", r.body);
}

#[test]
fn litmus_basic_copymove_and_props_pass() {
    if tool("litmus").is_none() {
        eprintln!("litmus not found: the WebDAV suite is not run");
        return;
    }
    let folders = Folders::new();
    let password = folders.add_console("Salon");
    let s = TestServer::start_on(folders.clone(), &[]);
    let out = Command::new("litmus")
        .args(["-k", &format!("{}/dav/", s.base), "Salon", &password])
        .env("TESTS", "basic copymove props")
        .current_dir(folders.tmp.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    for group in ["basic", "copymove", "props"] {
        let summary = said
            .lines()
            .find(|l| l.contains(&format!("summary for `{group}'")))
            .unwrap_or_else(|| panic!("no summary for {group}:\n{said}"));
        assert!(summary.contains(" 0 failed"), "{summary}\n{said}");
    }
    assert!(out.status.success(), "{said}");
}

#[test]
fn rclone_copies_a_tree_in_and_out_byte_for_byte() {
    if tool("rclone").is_none() {
        eprintln!("rclone not found: no real client is run");
        return;
    }
    let folders = Folders::new();
    let password = folders.add_console("Salon");
    let s = TestServer::start_on(folders.clone(), &[]);
    let tmp = folders.tmp.path();
    let tree = tmp.join("tree");
    for (path, len) in [
        ("JKSV/Zelda BotW/2026-11-29 slot.zip", 3_000_000),
        ("JKSV/Mario%20#1/é.txt", 6),
        ("empty.bin", 0),
    ] {
        let file = tree.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let bytes: Vec<u8> = (0..len)
            .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        std::fs::write(file, bytes).unwrap();
    }
    let obscured = Command::new("rclone")
        .args(["obscure", &password])
        .output()
        .unwrap();
    let remote = format!(
        ":webdav,url='{}/dav',vendor=other,user=Salon,pass='{}':",
        s.base,
        String::from_utf8_lossy(&obscured.stdout).trim()
    );
    let rclone = |args: &[&str]| {
        let out = Command::new("rclone")
            .args(args)
            .env("RCLONE_CONFIG", tmp.join("rclone.conf"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "rclone {args:?}: {said}");
    };
    rclone(&["copy", tree.to_str().unwrap(), &format!("{remote}up")]);
    let back = tmp.join("back");
    rclone(&["copy", &format!("{remote}up"), back.to_str().unwrap()]);
    for (path, _) in [
        ("JKSV/Zelda BotW/2026-11-29 slot.zip", 0),
        ("JKSV/Mario%20#1/é.txt", 0),
        ("empty.bin", 0),
    ] {
        assert_eq!(
            std::fs::read(tree.join(path)).unwrap(),
            std::fs::read(back.join(path)).unwrap(),
            "{path}"
        );
    }
}
