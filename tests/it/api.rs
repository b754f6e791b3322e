//! Public API v1: every statement of the contract's sections 2, 4, 7 and 9 about the
//! library routes, through the real binary, on the demo library.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use crate::harness::{assert_no_server_path, files_under, Folders, TestServer};
use crate::library::demo;
use ludotheque::testkit::Msg;

fn demo_server() -> TestServer {
    let folders = Folders::new();
    demo(&folders);
    let s = TestServer::start_on(folders, &[]);
    s.wait_idle();
    s
}

fn fold(s: &str) -> String {
    // Enough folding for the demo names (the service uses full Unicode folding).
    s.to_lowercase()
        .replace(['é', 'è', 'ê'], "e")
        .replace('ô', "o")
}

fn page(s: &TestServer, query: &str) -> Value {
    let r = s.get(&format!("/api/v1/library{query}"));
    assert_eq!(r.status, 200, "{query}: {}", r.body);
    r.json()
}

fn names(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect()
}

fn library_bytes(folders: &Folders) -> u64 {
    files_under(&folders.library)
        .iter()
        .map(|p| p.metadata().unwrap().len())
        .sum()
}

#[test]
fn stats_has_the_fields_of_2_2_with_the_demo_counts() {
    let s = demo_server();
    let v = s.get("/api/v1/stats").json();
    assert_eq!(v["total"], 60);
    assert_eq!(
        (v["base"].as_u64(), v["update"].as_u64(), v["dlc"].as_u64()),
        (Some(30), Some(13), Some(12))
    );
    assert_eq!(v["to_convert"], 5);
    assert_eq!(v["bytes"].as_u64(), Some(library_bytes(&s.folders)));
}

#[test]
fn library_envelope_has_the_fields_of_2_5_and_items_of_2_1() {
    let s = demo_server();
    let v = page(&s, "");
    assert_eq!(
        (v["page"].as_u64(), v["limit"].as_u64()),
        (Some(1), Some(50))
    );
    assert_eq!(
        (v["total"].as_u64(), v["pages"].as_u64()),
        (Some(60), Some(2))
    );
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 50);
    for item in items {
        assert!(
            item["key"].is_string() && item["name"].is_string(),
            "{item}"
        );
        assert!(["BASE", "UPDATE", "DLC", "INCONNU"].contains(&item["type"].as_str().unwrap()));
        assert!(
            item["size"].is_u64() && item["playable"].is_boolean(),
            "{item}"
        );
        assert!(!item["key"].as_str().unwrap().starts_with('/'));
    }
}

#[test]
fn limit_and_page_out_of_bounds_are_clamped() {
    let s = demo_server();
    for (query, page, limit) in [
        ("?limit=0", 1, 1),
        ("?limit=-5", 1, 1),
        ("?limit=1000", 1, 200),
        ("?page=0", 1, 50),
        ("?page=-3", 1, 50),
        ("?limit=200", 1, 200),
    ] {
        let v = page_of(&s, query);
        assert_eq!(
            (v["page"].as_u64(), v["limit"].as_u64()),
            (Some(page), Some(limit)),
            "{query}"
        );
    }
    assert_eq!(
        page(&s, "?limit=1000")["items"].as_array().unwrap().len(),
        60
    );
    assert_eq!(page(&s, "?limit=0")["pages"], 60);
}

fn page_of(s: &TestServer, query: &str) -> Value {
    page(s, query)
}

#[test]
fn limit_and_page_that_are_not_integers_take_the_default() {
    let s = demo_server();
    for query in [
        "?limit=abc",
        "?limit=",
        "?limit=1.5",
        "?limit=99999999999999999999",
        "?page=two&limit=x",
        "?page=1.5",
        "?page=",
    ] {
        let v = page(&s, query);
        assert_eq!(
            (v["page"].as_u64(), v["limit"].as_u64()),
            (Some(1), Some(50)),
            "{query}"
        );
    }
}

#[test]
fn a_page_past_the_end_is_200_with_no_items() {
    let s = demo_server();
    for query in [
        "?page=3",
        "?page=99999",
        "?page=9223372036854775807&limit=200",
    ] {
        let v = page(&s, query);
        assert_eq!(v["items"].as_array().unwrap().len(), 0, "{query}");
        assert_eq!(v["total"], 60);
    }
}

#[test]
fn the_library_is_sorted_by_folded_name_then_key() {
    let s = demo_server();
    let v = page(&s, "?limit=200");
    let items = v["items"].as_array().unwrap();
    let sort_keys: Vec<(String, String)> = items
        .iter()
        .map(|i| {
            (
                fold(i["name"].as_str().unwrap()),
                i["key"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut sorted = sort_keys.clone();
    sorted.sort();
    assert_eq!(sort_keys, sorted);
    // Accents do not move a name: Pôtions sorts among the p's.
    let pos = |n: &str| names(&v).iter().position(|x| x.starts_with(n)).unwrap();
    assert!(pos("Petit jeu") < pos("Pôtions") && pos("Pôtions") < pos("Sunny"));
}

#[test]
fn concatenating_all_pages_gives_every_game_exactly_once() {
    let s = demo_server();
    let mut seen = Vec::new();
    for p in 1..=9 {
        let v = page(&s, &format!("?limit=7&page={p}"));
        assert_eq!(v["pages"], 9);
        seen.extend(
            v["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["key"].as_str().unwrap().to_string()),
        );
    }
    let unique: HashSet<_> = seen.iter().collect();
    assert_eq!((seen.len(), unique.len()), (60, 60));
}

#[test]
fn type_filters_case_insensitively_and_refuses_unknown_values() {
    let s = demo_server();
    for (t, n) in [
        ("DLC", 12),
        ("dlc", 12),
        ("Update", 13),
        ("inconnu", 5),
        ("BASE", 30),
    ] {
        let v = page(&s, &format!("?type={t}&limit=200"));
        assert_eq!(v["total"], n, "{t}");
        assert!(v["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["type"].as_str().unwrap().eq_ignore_ascii_case(t)));
    }
    for bad in ["bogus", "", "BASES"] {
        let r = s.get(&format!("/api/v1/library?type={bad}"));
        assert_eq!((r.status, r.slug()), (400, "bad_request".into()), "{bad:?}");
        assert_eq!(r.json()["message"], Msg::BadGameType.english(), "{bad:?}");
    }
}

const ODYSSEY: &str = "Studio/Moon/Moonlit Odyssey [0100000000010000][v0].nsp";

#[test]
fn a_game_is_found_by_its_percent_encoded_key() {
    let s = demo_server();
    let encoded = "Studio%2FMoon%2FMoonlit%20Odyssey%20%5B0100000000010000%5D%5Bv0%5D.nsp";
    let r = s.get(&format!("/api/v1/library/{encoded}"));
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["key"], ODYSSEY);
    assert_eq!(v["name"], "Moonlit Odyssey");
    assert_eq!(
        (v["type"].as_str(), v["playable"].as_bool()),
        (Some("BASE"), Some(true))
    );
    assert_eq!(v["title_id"], "0100000000010000");
    assert_eq!(
        (v["version"].as_u64(), v["format"].as_str()),
        (Some(0), Some("nsp"))
    );
    assert_eq!(
        (v["platform"].as_str(), v["identified_by"].as_str()),
        (Some("switch"), Some("filename"))
    );
    assert!(v["modified"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        v["updates"],
        serde_json::json!(["Studio/Moon/Moonlit Odyssey [0100000000010800][v65536].nsp"])
    );
    assert_eq!(v["dlc"].as_array().unwrap().len(), 1);
    // An unencoded slash in the rest of the path belongs to the key too.
    let r = s.get(
        "/api/v1/library/Studio/Moon%2FMoonlit%20Odyssey%20%5B0100000000010000%5D%5Bv0%5D.nsp",
    );
    assert_eq!(r.json()["key"], ODYSSEY);
    // UTF-8 in the key.
    let r = s.get("/api/v1/library/Indies%2F%C3%89t%C3%A9%202024%2FDead%20Rooms%20%5B0100646009FBE000%5D%5Bv0%5D.nsp");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["dlc"].as_array().unwrap().len(), 2);
    assert_no_server_path(&s, &r.body);
}

#[test]
fn a_dlc_names_its_base_and_an_unidentified_file_says_why() {
    let s = demo_server();
    let v = s.get("/api/v1/library/Studio%2FZephyr%2FZephyr%20Expansion%20Pass%20Update%20%5B01007EF00011F801%5D%5Bv65536%5D.nsp").json();
    assert_eq!(
        (v["type"].as_str(), v["subtype"].as_str()),
        (Some("DLC"), Some("dlc_update"))
    );
    assert_eq!(v["base_title_id"], "01007EF00011E000");
    let v = s
        .get("/api/v1/library/homebrew%2FSome%20Homebrew%20Tool.nsp")
        .json();
    assert_eq!(
        (v["type"].as_str(), v["identified_by"].as_str()),
        (Some("INCONNU"), Some("none"))
    );
    assert!(v["note"].as_str().unwrap().contains("no title ID"));
    assert!(v["title_id"].is_null());
}

#[test]
fn an_unknown_key_and_a_key_with_dot_dot_are_404() {
    let s = demo_server();
    for path in [
        "/api/v1/library/nope.nsp",
        "/api/v1/library/..%2F..%2Fetc%2Fpasswd",
        "/api/v1/library/../../etc/passwd",
        "/api/v1/library/Studio%2F..%2FStudio%2FMoon%2FMoonlit%20Odyssey%20%5B0100000000010000%5D%5Bv0%5D.nsp",
        "/api/v1/library/%2Fetc%2Fpasswd",
        "/api/v1/library/a%00b.nsp",
        "/api/v1/library/Studio//Moon",
        "/api/v1/library/%FF%FE",
        "/api/v1/library/",
    ] {
        let r = s.get(path);
        assert_eq!((r.status, r.slug()), (404, "not_found".into()), "{path}: {}", r.body);
        assert_no_server_path(&s, &r.body);
    }
}

#[test]
fn search_without_q_is_400_missing_parameter() {
    let s = demo_server();
    for path in [
        "/api/v1/search",
        "/api/v1/search?q=",
        "/api/v1/search?q=%20%20",
        "/api/v1/search?q=%C2%85%EF%BB%BF",
        "/api/v1/search?page=2",
    ] {
        let r = s.get(path);
        assert_eq!(
            (r.status, r.slug()),
            (400, "missing_parameter".into()),
            "{path}"
        );
    }
}

fn search(s: &TestServer, q: &str) -> Value {
    let r = s.get(&format!("/api/v1/search?q={q}&limit=200"));
    assert_eq!(r.status, 200, "{q}: {}", r.body);
    r.json()
}

#[test]
fn search_matches_folded_words_in_any_order() {
    let s = demo_server();
    let v = search(&s, "potions");
    assert_eq!(v["total"], 4, "{v}");
    assert!(names(&v).iter().all(|n| n.starts_with("Pôtions")));
    assert_eq!(search(&s, "%C3%89P%C3%89E%20P%C3%94TIONS")["total"], 4);
    assert_eq!(search(&s, "pass%20extension")["total"], 2);
    assert_eq!(search(&s, "kart%20rally")["total"], 3);
    assert_eq!(search(&s, "zz%20rally")["total"], 0);
    // Control characters separate words (and never reach the index as syntax).
    assert_eq!(search(&s, "rally%00kart")["total"], 3);
    assert_eq!(search(&s, "%00%06%22")["total"], 0);
    // Short words match too (no index for them, but the same rule).
    assert_eq!(search(&s, "n%C2%B001")["total"], 2);
    let item = &search(&s, "styx")["items"][0];
    assert_eq!(item["title_id"], "0100535012974000");
    for field in ["key", "name", "type", "size", "playable"] {
        assert!(!item[field].is_null(), "{field}");
    }
}

#[test]
fn search_matches_a_title_id_or_a_hex_prefix_of_one() {
    let s = demo_server();
    let v = search(&s, "0100152000022000");
    assert_eq!(v["total"], 1);
    assert_eq!(v["items"][0]["title_id"], "0100152000022000");
    assert_eq!(search(&s, "0100152000022800")["items"][0]["type"], "UPDATE");
    assert_eq!(
        search(&s, "01001520")["total"],
        3,
        "base, update and DLC share the prefix"
    );
    // Any case; the Zephyr family and the delta file that shares its prefix.
    assert_eq!(search(&s, "01007ef00011")["total"], 6);
    assert_eq!(
        search(&s, "010")["total"],
        0,
        "three digits are not a prefix"
    );
}

#[test]
fn search_is_sorted_and_paginated_like_the_library() {
    let s = demo_server();
    let r = s.get("/api/v1/search?q=petit&limit=5&page=2").json();
    assert_eq!(
        (r["page"].as_u64(), r["limit"].as_u64()),
        (Some(2), Some(5))
    );
    assert_eq!(
        (r["total"].as_u64(), r["pages"].as_u64()),
        (Some(21), Some(5))
    );
    let all = names(&search(&s, "petit"));
    assert_eq!(names(&r), all[5..10]);
    let mut sorted = all.clone();
    sorted.sort_by_key(|n| fold(n));
    assert_eq!(all, sorted);
    assert_eq!(
        s.get("/api/v1/search?q=petit&page=99").json()["items"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(s.get("/api/v1/search?q=petit&limit=0").json()["limit"], 1);
}

#[test]
fn platforms_lists_switch_with_its_counts() {
    let s = demo_server();
    let v = s.get("/api/v1/platforms").json();
    let p = &v["platforms"][0];
    assert_eq!(
        (p["slug"].as_str(), p["folder"].as_str()),
        (Some("switch"), Some(""))
    );
    assert_eq!(
        p["extensions"],
        serde_json::json!(["nsp", "nsz", "xci", "xcz"])
    );
    assert_eq!(
        (
            p["games"].as_u64(),
            p["base"].as_u64(),
            p["update"].as_u64()
        ),
        (Some(60), Some(30), Some(13))
    );
    assert_eq!(
        (p["dlc"].as_u64(), p["unknown"].as_u64()),
        (Some(12), Some(5))
    );
    assert_eq!(p["bytes"].as_u64(), Some(library_bytes(&s.folders)));
}

/// The job's `label` in `openapi.json` names every task: a new task is described
/// there, or this fails (its description is prose, not an `enum`: the set may grow).
#[test]
fn openapi_json_names_every_task() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/api/v1/openapi.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let label = &v["components"]["schemas"]["JobStatus"]["properties"]["label"];
    let words: HashSet<&str> = label["description"]
        .as_str()
        .unwrap()
        .split(|c: char| !(c.is_ascii_lowercase() || c == '_'))
        .collect();
    for task in ludotheque::testkit::words::Task::ALL {
        assert!(words.contains(task.as_str()), "{task} is not in {label}");
    }
}

#[test]
fn openapi_json_is_served_without_a_key_and_describes_v1() {
    let s = TestServer::start(&["--no-local-access"]);
    let r = s.get("/api/v1/openapi.json");
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["openapi"], "3.1.0");
    for path in [
        "/api/v1/library",
        "/api/v1/library/{key}",
        "/api/v1/search",
        "/api/v1/stats",
    ] {
        assert!(v["paths"][path].is_object(), "{path}");
    }
    // A task that finished with failed files is `partial`, and names them.
    let run = &v["components"]["schemas"]["LastRun"];
    let results: Vec<&str> = run["properties"]["result"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(results.contains(&"partial"), "{results:?}");
    assert!(run["required"]
        .as_array()
        .unwrap()
        .contains(&"failures".into()));
    let item = &v["components"]["schemas"]["FailedItem"]["required"];
    assert_eq!(item, &serde_json::json!(["key", "error", "message"]));
}

#[test]
fn no_body_of_any_route_holds_a_server_path() {
    let s = demo_server();
    for path in [
        "/api/v1/health",
        "/api/v1/system",
        "/api/v1/stats",
        "/api/v1/library?limit=200",
        "/api/v1/search?q=a&limit=200",
        "/api/v1/platforms",
        "/api/v1/job",
        "/api/v1/library/Broken%20Download%20%5B0100BBBB00000000%5D%5Bv0%5D.nsp",
        "/api/v1/library/nope",
        "/api/v1/search",
        "/api/v1/library?type=x",
    ] {
        assert_no_server_path(&s, &s.get(path).body);
    }
}

#[test]
fn the_system_route_reports_api_v1() {
    let s = demo_server();
    assert_eq!(s.get("/api/v1/system").json()["api"], "v1");
}

#[test]
fn pages_and_searches_follow_every_change_to_the_library() {
    // The same URLs asked before and after each change: a kept answer must never
    // outlive the library it was rendered from.
    let s = demo_server();
    let styx = "Indies%2FStyx%20%5B0100535012974000%5D%5Bv0%5D.nsp";
    // The counts of /stats and /platforms are kept the same way: they must agree.
    let total = |s: &TestServer| {
        let total = page(s, "?limit=1")["total"].as_u64().unwrap();
        assert_eq!(s.get("/api/v1/stats").json()["total"], total);
        assert_eq!(
            s.get("/api/v1/platforms").json()["platforms"][0]["games"],
            total
        );
        total
    };
    let found = |s: &TestServer| search(s, "styx")["total"].as_u64().unwrap();
    let (before, styx_found) = (total(&s), found(&s));
    assert_eq!((total(&s), found(&s)), (before, styx_found), "asked twice");

    let r = s.send("DELETE", &format!("/api/library/{styx}"), &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        (total(&s), found(&s)),
        (before - 1, styx_found - 1),
        "after a delete"
    );

    let id = s.get("/api/v1/trash").json()["items"][0]["id"]
        .as_i64()
        .unwrap();
    assert_eq!(s.post(&format!("/api/trash/{id}/restore")).status, 200);
    assert_eq!(
        (total(&s), found(&s)),
        (before, styx_found),
        "after a restore"
    );

    // A file added behind the service's back, then a scan.
    let copy = s
        .folders
        .library
        .join("Styx bis [0100535012975000][v0].nsp");
    std::fs::copy(
        s.folders
            .library
            .join("Indies/Styx [0100535012974000][v0].nsp"),
        &copy,
    )
    .unwrap();
    assert_eq!(s.post("/api/v1/scan").status, 202);
    s.wait_idle();
    assert_eq!(
        (total(&s), found(&s)),
        (before + 1, styx_found + 1),
        "after a scan"
    );
}
