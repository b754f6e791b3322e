//! The shape of the house, checked on the source: imports go one way (down the
//! layers of `ARCHITECTURE.md`), and no function is longer than a reader holds in one
//! screen. Read from `src/`, so it fails on the commit that breaks a rule.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layers, from the bottom. A module may import its own layer's lower entries
/// and any lower layer, never a higher one.
const LAYERS: &[&str] = &[
    "numbers", "error", "time", "memory", "kept", "words", "text", "naming", "args", "store",
    "config", "outbound", "library", "titles", "accounts", "keys", "consoles", "shop", "device",
    "trash", "convert", "notify", "jobs", "watch", "http", "api", "web", "routes", "service",
    "cli",
];

/// The domain: none of it may know it is served over HTTP.
const DOMAIN: &[&str] = &[
    "library", "titles", "accounts", "keys", "consoles", "shop", "device", "trash", "convert",
    "notify", "jobs", "store", "outbound",
];

/// Functions that are tables read one line at a time (a message per line).
const TABLES: &[&str] = &["english", "french"];

const MAX_FN_LINES: usize = 60;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`src/web/view.rs` → `web`).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::x` a file names, outside comments, including `use crate::{a, b}`.
fn imports(text: &str) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for part in inner.split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != "self" {
                    found.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
    }
    found
}

#[test]
fn imports_go_down_the_layers_and_the_domain_never_imports_http_api_or_web() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut wrong = Vec::new();
    for file in &files {
        let module = module_of(&root, file);
        let Some(own) = rank(&module) else {
            assert!(
                ["main", "lib"].contains(&module.as_str()),
                "{module} is in no layer: add it to LAYERS and to ARCHITECTURE.md"
            );
            continue;
        };
        for target in imports(&std::fs::read_to_string(file).unwrap()) {
            if target == module {
                continue;
            }
            let Some(theirs) = rank(&target) else {
                wrong.push(format!(
                    "{}: imports unknown module {target}",
                    file.display()
                ));
                continue;
            };
            if DOMAIN.contains(&module.as_str())
                && ["http", "api", "web"].contains(&target.as_str())
            {
                wrong.push(format!("{}: the domain imports {target}", file.display()));
            } else if theirs > own {
                wrong.push(format!(
                    "{}: {module} imports {target}, a higher layer",
                    file.display()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that go up:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_sees_an_import_that_goes_up() {
    let text = "use crate::{error::Error, http::Reply};\nfn f() { crate::web::view::x(); }\n// crate::api in a comment\n";
    let found = imports(text);
    assert!(found.contains("http") && found.contains("web") && found.contains("error"));
    assert!(!found.contains("api"), "{found:?}");
}

/// Lines of each `fn` body longer than the bound: (file, name, lines).
fn long_functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let is_fn = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "pub(super) fn ",
            "const fn ",
            "pub const fn ",
        ]
        .iter()
        .any(|p| trimmed.starts_with(p));
        if is_fn && !line.trim_end().ends_with(';') {
            let name: String = trimmed
                .split("fn ")
                .nth(1)
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let close = format!("{}}}", " ".repeat(indent));
            let end = (i + 1..lines.len())
                .find(|j| lines[*j].starts_with(&close))
                .unwrap_or(lines.len() - 1);
            let n = end - i + 1;
            if n > MAX_FN_LINES && !TABLES.contains(&name.as_str()) {
                long.push((name, n));
            }
            i = end;
        }
        i += 1;
    }
    long
}

#[test]
fn no_function_is_longer_than_a_screen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut long = Vec::new();
    for file in &files {
        for (name, n) in long_functions(&std::fs::read_to_string(file).unwrap()) {
            long.push(format!("{}: {name} has {n} lines", file.display()));
        }
    }
    long.sort();
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// A bare parameter after LIMIT (`LIMIT ?2`) makes SQLite prepare the statement
/// again every time a value is bound to it (it reads the value to plan the query), so
/// a cached statement is parsed and planned anew on every page. Written `LIMIT ?2 + 0`
/// it is an expression, and the plan is kept. See `store`'s module doc.
#[test]
fn no_query_binds_a_bare_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut bare = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let Some(at) = line
                .find("LIMIT ?")
                .filter(|_| !line.trim().starts_with("//"))
            else {
                continue;
            };
            let rest = &line[at + "LIMIT ?".len()..];
            let param = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '{' || c == '}'))
                .unwrap_or(rest.len());
            if !rest[param..].starts_with(" + 0") {
                bare.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(bare.is_empty(), "write LIMIT ?N + 0:\n{}", bare.join("\n"));
}
