//! Compress in the web interface (issue 39): the two directions named so they read
//! apart, the buttons on a title's page and on a selection of the file list with the
//! estimated saving before and the real one after, and the setting that deletes the
//! originals once verified. Through the real binary, with files made under made-up
//! keys (`synth::keyed`).

use crate::harness::{Folders, TestServer};

fn page(s: &TestServer, path: &str, lang: &str) -> String {
    let r = s.send("GET", path, &[("Accept-Language", lang)], None);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    r.body
}

/// Convert is "Decompress", compress is "Compress", in both languages; the task's
/// label in the API stays `convert`.
#[test]
fn the_two_directions_read_apart() {
    let folders = Folders::new();
    crate::library::demo(&folders);
    let s = TestServer::start_on(folders.clone(), &[]);
    s.wait_idle();
    let en = page(&s, "/tasks", "en");
    assert!(en.contains(">Decompress .nsz/.xcz<"), "{en}");
    assert!(en.contains(">Compress .nsp/.xci (console keys)<"), "{en}");
    assert!(en.contains("to decompress:"), "{en}");
    assert!(
        !en.contains("Convert") && !en.contains("to convert"),
        "{en}"
    );
    let fr = page(&s, "/tasks", "fr");
    assert!(fr.contains(">Décompresser .nsz/.xcz<"), "{fr}");
    assert!(
        fr.contains(">Compresser .nsp/.xci (clés de console)<"),
        "{fr}"
    );
    let dashboard = page(&s, "/", "en");
    assert!(dashboard.contains("To decompress"), "{dashboard}");
    // The API keeps its word.
    assert_eq!(s.post("/api/convert").status, 202);
    assert_eq!(s.wait_idle()["last"]["label"], "convert");
}
