//! The shape of the house, checked on the source: imports go one way (down the
//! layers of `ARCHITECTURE.md`), and no function is longer than a reader holds in one
//! screen. Read from `src/`, so it fails on the commit that breaks a rule.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layers, from the bottom: the one list. A module may import the modules before
/// it, never one after it. `ARCHITECTURE.md` and `src/lib.rs` quote it (a test below
/// holds them to it).
const LAYERS: &[&str] = &[
    "numbers", "words", "error", "time", "memory", "metrics", "kept", "text", "naming", "tree",
    "args", "store", "config", "outbound", "library", "incoming", "titles", "accounts", "keys",
    "consoles", "shop", "device", "trash", "saves", "convert", "notify", "jobs", "watch", "views",
    "http", "api", "web", "routes", "service", "cli",
];

/// The domain: none of it may know it is served over HTTP.
const DOMAIN: &[&str] = &[
    "library", "incoming", "titles", "accounts", "keys", "consoles", "shop", "device", "trash",
    "saves", "convert", "notify", "jobs", "store", "outbound",
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
                ["main", "lib", "testkit"].contains(&module.as_str()),
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

/// The words of the first ` ```text ` block of `text`, a line's `//!` left out.
fn quoted_layers(text: &str) -> Vec<String> {
    let lines = text
        .lines()
        .map(|l| l.trim().trim_start_matches("//!").trim());
    lines
        .skip_while(|l| *l != "```text")
        .skip(1)
        .take_while(|l| *l != "```")
        .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The modules of the layers' table of `ARCHITECTURE.md`, from the top, `main` left
/// out: the second column's names in backquotes.
fn table_layers(text: &str) -> Vec<String> {
    let section = text.split("## The layers").nth(1).unwrap_or("");
    let section = section.split("\n## ").next().unwrap_or("");
    let rows = section.lines().filter(|l| l.starts_with('|')).skip(2);
    let mut names = Vec::new();
    for row in rows.map(|r| r.split('|').nth(2).unwrap_or("")) {
        let quoted = row.split('`').skip(1).step_by(2);
        names.extend(quoted.filter(|n| *n != "main").map(str::to_string));
    }
    names
}

#[test]
fn the_docs_quote_the_layers_exactly() {
    let read = |p: &str| std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(p));
    let architecture = read("ARCHITECTURE.md").unwrap();
    let lib = read("src/lib.rs").unwrap();
    let layers: Vec<String> = LAYERS.iter().map(|l| l.to_string()).collect();
    assert_eq!(
        quoted_layers(&architecture),
        layers,
        "ARCHITECTURE.md's quote"
    );
    assert_eq!(quoted_layers(&lib), layers, "src/lib.rs's quote");
    let mut table = table_layers(&architecture);
    table.reverse();
    assert_eq!(table, layers, "ARCHITECTURE.md's table of the layers");
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

/// The bare LIMITs written on purpose, each (file under `src/`, the line trimmed):
/// `store::db`'s test that the planner's guarantee covers them too.
const BARE_LIMITS_ALLOWED: &[(&str, &str)] = &[(
    "store/db.rs",
    r#"let sql = "SELECT b FROM t WHERE a = ?1 ORDER BY b LIMIT ?2";"#,
)];

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
    let mut allowed_seen = BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .to_string();
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
            if let Some(allowed) = BARE_LIMITS_ALLOWED
                .iter()
                .find(|(f, l)| *f == rel && *l == line.trim())
            {
                allowed_seen.insert(*allowed);
            } else if !rest[param..].starts_with(" + 0") {
                bare.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(bare.is_empty(), "write LIMIT ?N + 0:\n{}", bare.join("\n"));
    let stale: Vec<_> = BARE_LIMITS_ALLOWED
        .iter()
        .filter(|a| !allowed_seen.contains(*a))
        .collect();
    assert!(
        stale.is_empty(),
        "allowed bare LIMITs no longer there: {stale:?}"
    );
}

/// Import circles between the files of one folder still to undo, each (folder, a, b):
/// take an entry out once its circle is gone.
const CIRCLES_LEFT: &[(&str, &str, &str)] = &[];

/// The modules of `folder` (`src/web/` → `device`, `tasks`…) a file of it names:
/// `crate::web::x`, and `super::x` or `super::{x, …}` from a file of the folder itself
/// (`super::super::x` one level further down). Only names that are files count: the
/// folder's `mod.rs` items (`super::body`) are no module.
fn sibling_imports(
    text: &str,
    depth: usize,
    modules: &BTreeSet<String>,
    folder: &str,
) -> BTreeSet<String> {
    let code: String = product_code(text)
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let up = format!("{}::", vec!["super"; depth].join("::"));
    let mut found = BTreeSet::new();
    for prefix in [format!("crate::{folder}::"), up] {
        for (i, _) in code.match_indices(&prefix) {
            let rest = &code[i + prefix.len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .collect(),
                None => vec![rest],
            };
            for name in names {
                let name: String = name
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if modules.contains(&name) {
                    found.insert(name);
                }
            }
        }
    }
    found
}

#[test]
fn no_import_circle_inside_a_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (mut circles, mut seen) = (Vec::new(), Vec::new());
    for folder in std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
    {
        let name = folder.file_name().unwrap().to_string_lossy().to_string();
        let modules: BTreeSet<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| p.file_stem().unwrap().to_string_lossy().to_string())
            .filter(|m| m != "mod")
            .collect();
        let mut files = Vec::new();
        sources(&folder, &mut files);
        let mut edges = BTreeSet::new();
        for file in &files {
            let rel: Vec<String> = file
                .strip_prefix(&folder)
                .unwrap()
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().to_string())
                .collect();
            let own = &rel[0];
            // How far up `super` must go to reach the folder: src/web/x.rs and
            // src/web/x/mod.rs once, src/web/x/y.rs twice.
            let depth = if rel.len() == 1 || rel[1] == "mod" {
                1
            } else {
                rel.len()
            };
            let text = std::fs::read_to_string(file).unwrap();
            for theirs in sibling_imports(&text, depth, &modules, &name) {
                if &theirs != own {
                    edges.insert((own.clone(), theirs));
                }
            }
        }
        for (a, b) in &edges {
            let allowed = CIRCLES_LEFT.contains(&(name.as_str(), a.as_str(), b.as_str()));
            if a < b && edges.contains(&(b.clone(), a.clone())) {
                match allowed {
                    true => seen.push((name.clone(), a.clone(), b.clone())),
                    false => circles.push(format!("{name}: {a} <-> {b}")),
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "import circles (move the shared piece down):\n{}",
        circles.join("\n")
    );
    let gone: Vec<_> = CIRCLES_LEFT
        .iter()
        .filter(|(f, a, b)| {
            !seen
                .iter()
                .any(|s| (s.0.as_str(), s.1.as_str(), s.2.as_str()) == (*f, *a, *b))
        })
        .collect();
    assert!(
        gone.is_empty(),
        "circles undone, take them out of CIRCLES_LEFT: {gone:?}"
    );
}

/// The calls that run SQL on a connection.
const SQL_CALLS: &[&str] = &[
    ".prepare(",
    ".prepare_cached(",
    ".execute(",
    ".execute_batch(",
    ".query_row(",
];

/// The lines of `text` outside its test modules that run SQL on a connection.
fn sql_lines(text: &str) -> Vec<(usize, String)> {
    product_code(text)
        .lines()
        .enumerate()
        .map(|(n, line)| {
            (
                n + 1,
                line.split("//").next().unwrap_or("").trim().to_string(),
            )
        })
        .filter(|(_, line)| SQL_CALLS.iter().any(|c| line.contains(c)))
        .collect()
}

/// SQL lives in `store`, one file per table (its module doc): outside it, only the
/// tests write rows by hand.
#[test]
fn no_sql_outside_the_store() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut found = Vec::new();
    for file in files.iter().filter(|f| module_of(&root, f) != "store") {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in sql_lines(&text) {
            found.push(format!("{}:{n}: {line}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "SQL outside src/store/ (move it to the table's file there):\n{}",
        found.join("\n")
    );
}

/// The check reads whole files: a query planted in `config.rs`, at its start or at its
/// end, is found; the same line inside a test module is not.
#[test]
fn the_check_sees_sql_planted_anywhere_but_in_a_test_module() {
    let config =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/config.rs"))
            .unwrap();
    assert!(sql_lines(&config).is_empty());
    let planted = "fn planted(c: &rusqlite::Connection) {\n    c.execute(\"DELETE FROM games\", []).unwrap();\n}\n";
    let appended = format!("{config}\n{planted}");
    assert_eq!(sql_lines(&appended).len(), 1, "appended after the tests");
    let first = format!("{planted}{config}");
    assert_eq!(
        sql_lines(&first),
        [(
            2,
            "c.execute(\"DELETE FROM games\", []).unwrap();".to_string()
        )]
    );
    let params =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/http/params.rs"))
            .unwrap();
    let end = test_modules(&params)[0].1;
    let mut lines: Vec<&str> = params.lines().collect();
    lines.insert(end, "    fn planted(c: &rusqlite::Connection) { c.execute(\"DELETE FROM games\", []).unwrap(); }");
    assert!(
        sql_lines(&lines.join("\n")).is_empty(),
        "inside the test module"
    );
}

/// Where each `#[cfg(test)] mod name { … }` block of a file stands: (first line,
/// last line), 0-based, its attribute included. rustfmt closes a block with a brace at
/// the indentation of the line that opened it, which is how its end is found.
fn test_modules(text: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[cfg(test)]" {
            i += 1;
            continue;
        }
        let mut open = i + 1;
        while open < lines.len() && lines[open].trim_start().starts_with("#[") {
            open += 1;
        }
        let Some(line) = lines.get(open) else { break };
        let trimmed = line.trim_start();
        let is_mod = trimmed.starts_with("mod ") || trimmed.starts_with("pub(crate) mod ");
        if !is_mod || !line.trim_end().ends_with('{') {
            i += 1;
            continue;
        }
        let close = format!("{}}}", &line[..line.len() - trimmed.len()]);
        let end = (open + 1..lines.len())
            .find(|j| lines[*j].trim_end() == close)
            .unwrap_or(lines.len() - 1);
        blocks.push((i, end));
        i = end + 1;
    }
    blocks
}

/// A file's product code: its text with the test modules' lines blanked (so line
/// numbers stay true). Everything else is checked, whatever follows a test module.
fn product_code(text: &str) -> String {
    let blocks = test_modules(text);
    text.lines()
        .enumerate()
        .map(
            |(n, l)| match blocks.iter().any(|(a, b)| (*a..=*b).contains(&n)) {
                true => "",
                false => l,
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

/// A test module is the last thing in its file: a reader finds the code first, and
/// nothing of the product hides below the tests.
#[test]
fn test_modules_end_their_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut mid = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let Some((_, end)) = test_modules(&text).first().copied() else {
            continue;
        };
        let code = product_code(&text);
        if let Some(n) =
            (end + 1..lines.len()).find(|n| !code.lines().nth(*n).unwrap_or("").trim().is_empty())
        {
            mid.push(format!("{}:{}: {}", file.display(), n + 1, lines[n].trim()));
        }
    }
    assert!(
        mid.is_empty(),
        "code after a test module (move the tests to the end):\n{}",
        mid.join("\n")
    );
}

/// The catalogue: every sentence a person reads is a message of `error::msg` (its
/// English) with its French in `error::french`, a word of `error::i18n`, or why a file
/// is bad (`error::reason`); the help's French is clap's tree in `cli::help_fr`,
/// counting is `error::counts`.
const CATALOGUE: &[&str] = &[
    "src/error/msg.rs",
    "src/error/i18n.rs",
    "src/error/counts.rs",
    "src/cli/help_fr.rs",
    "src/error/reason.rs",
];

/// Literals that look French and are not sentences: a language named in itself, and
/// the pager's quotation marks.
/// Prometheus's bucket label `le` is the one word of `metrics.rs` that reads French.
const NOT_SENTENCES: &[&str] = &["Français", "«", "»", "le"];

/// The string literals of `code` that read as French: an accented letter or a French
/// function word. (line, literal), 1-based.
fn french_literals(code: &str) -> Vec<(usize, String)> {
    let words = [
        "le", "la", "les", "des", "une", "est", "sont", "pas", "dans", "avec", "pour", "aucun",
        "aucune", "fichier", "fichiers", "jeu", "jeux",
    ];
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        let mut parts = line.split('"');
        parts.next();
        while let (Some(literal), rest) = (parts.next(), parts.next()) {
            // The product's name is a name in every language.
            let text = literal.replace("Ludothèque", "");
            let accented = text.chars().any(|c| "éèêëàâçùûîïôœÉÈÀÇ«»".contains(c));
            let word = text
                .split(|c: char| !c.is_alphabetic())
                .any(|w| words.contains(&w.to_lowercase().as_str()));
            if (accented || word) && !NOT_SENTENCES.contains(&literal) {
                found.push((n + 1, literal.to_string()));
            }
            if rest.is_none() {
                break;
            }
        }
    }
    found
}

#[test]
fn no_french_sentence_outside_the_catalogue() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let mut outside = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .to_string();
        // The demo's and the test generators' game names are data, not sentences.
        let data = relative.starts_with("src/library/synth") || relative == "src/library/demo.rs";
        if CATALOGUE.contains(&relative.as_str()) || data {
            continue;
        }
        let code = product_code(&std::fs::read_to_string(file).unwrap());
        for (n, literal) in french_literals(&code) {
            outside.push(format!("{relative}:{n}: {literal}"));
        }
    }
    assert!(
        outside.is_empty(),
        "French outside the catalogue (make it a Msg or an M word):\n{}",
        outside.join("\n")
    );
}

/// The check finds a French sentence planted in a command, and passes the same
/// line in English or in a comment.
#[test]
fn the_check_sees_a_french_sentence_planted_in_a_command() {
    let planted = "    say!(\"Rien à faire : la corbeille est vide.\");\n";
    assert_eq!(french_literals(planted).len(), 1);
    assert_eq!(french_literals("    say!(\"Aucun fichier\");").len(), 1);
    assert!(french_literals("    // say!(\"Rien à faire.\");").is_empty());
    assert!(french_literals("    say!(\"Nothing to do: the trash is empty.\");").is_empty());
    assert!(french_literals("    let name = \"Ludothèque\";").is_empty());
}
