//! The command line as its user meets it, through the real binary: its help and its
//! usage errors in French (and in English under an English locale), counts that
//! agree with their nouns, a reader that stops reading, and each error printed once.

use std::io::Read;
use std::process::Stdio;

use crate::harness::{Folders, TestServer};
use ludotheque::testkit::{Line, Msg};

/// `--help`, `-h` and `help CMD`, at each depth: French headings and descriptions,
/// none of clap's English.
#[test]
fn cli_help_is_french_at_every_depth() {
    let folders = Folders::new();
    let cases: [(&[&str], &str); 6] = [
        (&["--help"], "Commandes :"),
        (
            &["trash", "purge", "-h"],
            "L'identifiant que montre « trash list »",
        ),
        (&["help", "trash"], "Remet une entrée à sa clé"),
        (&["apikey", "help", "create"], "À quoi sert la clé"),
        (&["serve", "--help"], "Adresse et port d'écoute"),
        (&["missing", "--help"], "- dlc : les DLC"),
    ];
    for (args, french) in cases {
        let (st, out, err) = folders.cli(args);
        assert!(st.success(), "{args:?}: {err}");
        for heading in ["Utilisation :", "Options :", "Affiche l'aide", french] {
            assert!(out.contains(heading), "{args:?} lacks {heading}:\n{out}");
        }
        for english in ["Usage:", "Options:", "Print help", "[default:", "[env:"] {
            assert!(!out.contains(english), "{args:?} says {english}:\n{out}");
        }
    }
    let (_, out, _) = folders.cli(&["trash", "restore", "--help"]);
    assert!(out.contains("Arguments :") && out.contains("<ID>"), "{out}");
    assert!(
        out.contains("[par défaut : ./data] [env : LUDOTHEQUE_DATA]"),
        "{out}"
    );
    let (st, out, _) = folders.cli(&["--version"]);
    assert!(
        st.success() && out.contains(env!("CARGO_PKG_VERSION")),
        "{out}"
    );
}

/// A usage error is French too, with the usage line, and exits 2.
#[test]
fn cli_usage_errors_are_french() {
    let folders = Folders::new();
    let (st, _, err) = folders.cli(&["trash", "restore", "--frob"]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(
        err.contains("erreur : argument inattendu « --frob »"),
        "{err}"
    );
    assert!(
        err.contains("Utilisation : ludotheque trash restore"),
        "{err}"
    );
    assert!(!err.contains("error:") && !err.contains("Usage:"), "{err}");
    let (st, _, err) = folders.cli(&["trsh"]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(
        err.contains("commande inconnue « trsh » ; vouliez-vous dire « trash » ?"),
        "{err}"
    );
    let (_, _, err) = folders.cli(&["missing", "--kind", "x"]);
    assert!(err.contains("valeurs possibles : update, dlc"), "{err}");
}

/// 0 and 1 take the singular, more the plural; thousands are grouped.
#[test]
fn cli_counts_agree_and_group_thousands() {
    let folders = Folders::new();
    let (st, out, err) = folders.cli(&["trash", "list"]);
    assert!(st.success(), "{err}");
    assert!(out.contains("0 entrée, 0 octet."), "{out}");
    let (_, out, _) = folders.cli(&["trash", "purge", "--all"]);
    assert!(out.contains("0 entrée supprimée définitivement."), "{out}");
    let import = |entries: Vec<String>| {
        let file = folders.tmp.path().join("US.en.json");
        std::fs::write(&file, format!("{{{}}}", entries.join(","))).unwrap();
        let (st, out, err) = folders.cli(&["titles", "import", file.to_str().unwrap()]);
        assert!(st.success(), "{out}{err}");
        out
    };
    let entry = |i: usize| format!(r#""{i}": {{"id": "0100{i:09X}000", "name": "Jeu {i}"}}"#);
    let one = import(vec![entry(1), r#""x": {"id": "bad", "name": "?"}"#.into()]);
    assert!(one.contains("1 titre importé ; 1 ignoré"), "{one}");
    assert!(one.contains("0 jeu renommé."), "{one}");
    let many = import((1..=1200).map(entry).collect());
    assert!(
        many.contains("1\u{202F}200 titres importés ; 0 ignoré"),
        "{many}"
    );
}

/// Run the binary with its standard output a pipe already closed: what it prints
/// meets a reader gone on its first write.
fn with_stdout_closed(args: &[&str]) -> (std::process::ExitStatus, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let folders = Folders::new();
    let mut child = crate::harness::ludotheque()
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["--library", folders.library.to_str().unwrap()])
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap(), err)
}

#[test]
fn cli_a_closed_pipe_ends_the_output_quietly() {
    let demo = std::env::temp_dir().join(format!("ludotheque-pipe-{}", std::process::id()));
    let demo_dir = demo.to_str().unwrap();
    for args in [
        &["completions", "bash"][..],
        &["--help"],
        &["trash", "list"],
        &["demo-library", demo_dir],
    ] {
        let (st, err) = with_stdout_closed(args);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(st.success(), "{args:?}: {st:?} {err}");
        assert!(!err.contains("erreur"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&demo);
    let _ = std::fs::remove_dir_all(format!("{demo_dir}-titledb"));
}

/// The error's French line, exactly once, and no log line repeating it.
fn once(err: &str, line: &str) {
    assert_eq!(err.matches(line).count(), 1, "once: {line}\n{err}");
    assert_eq!(err.matches("erreur").count(), 1, "one error: {err}");
    assert!(!err.contains("[ERROR]"), "not again in the log: {err}");
}

#[test]
fn cli_each_error_prints_once() {
    let folders = Folders::new();
    let (st, _, err) = folders.cli_with_input(&["user", "add", "a\tb"], "a good password\n");
    assert!(!st.success());
    let control = Msg::NameControl {
        what: "An account name".into(),
    };
    once(&err, &format!("erreur : {}", control.french()));
    let (st, _, err) = folders.cli(&["trash", "restore", "999"]);
    assert!(!st.success());
    once(&err, &format!("erreur : {}", Msg::NoTrashEntry.french()));
    let (st, _, err) = folders.cli(&["titles", "import", "/nonexistent"]);
    assert!(!st.success());
    let cannot_open = Msg::CannotOpen {
        file: "nonexistent".into(),
    };
    once(&err, &format!("erreur : {}", cannot_open.french()));
    assert!(
        err.contains("  détail : No such file"),
        "the cause, once: {err}"
    );
    let file = folders.tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = crate::harness::ludotheque()
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["--library", file.to_str().unwrap(), "scan"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    let unusable = Msg::FolderUnusable {
        what: "library".into(),
    };
    once(&err, &format!("erreur : {}", unusable.french()));
    let _server = TestServer::start_on(folders.clone(), &[]);
    let (st, _, err) = folders.cli(&["serve", "--listen", "127.0.0.1:0"]);
    assert!(!st.success());
    once(&err, &format!("erreur : {}", Msg::DataLocked.french()));
}

/// `folders.cli` in another locale.
fn cli_in(folders: &Folders, locale: &str, args: &[&str]) -> (bool, String, String) {
    let out = crate::harness::ludotheque()
        .env("LC_ALL", locale)
        .args(["--data", folders.data.to_str().unwrap()])
        .args(["--library", folders.library.to_str().unwrap()])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// Under an English locale the command line speaks English: its messages, its
/// tables' headings, its usage errors and its help, with English counts; French
/// stays for any other locale (the product's language), `C` included.
#[test]
fn an_english_locale_gets_english_output() {
    let folders = Folders::new();
    let en = "en_US.UTF-8";
    let (ok, out, err) = cli_in(&folders, en, &["apikey", "create", "nightly"]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with("API key created: nightly (id 1, full access)"),
        "{out}"
    );
    let (_, out, _) = cli_in(&folders, en, &["apikey", "list"]);
    let heading = out.lines().next().unwrap();
    let words: Vec<&str> = heading
        .split("  ")
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    assert_eq!(
        words,
        [
            "ID",
            "NAME",
            "PREFIX",
            "ACCESS",
            "CREATED",
            "LAST USED",
            "STATE"
        ]
    );
    assert!(out.contains(" never ") && out.contains(" full "), "{out}");
    let (_, out, _) = cli_in(&folders, en, &["trash", "list"]);
    assert_eq!(out, "The trash is empty.\n0 entries, 0 bytes.\n");
    let (ok, _, err) = cli_in(&folders, en, &["scna"]);
    assert!(!ok);
    assert!(
        err.starts_with("error: unknown command “scna”; did you mean “scan”?"),
        "{err}"
    );
    assert!(err.contains("\n\nUsage: ludotheque") && err.contains("For more information"));
    let (_, out, _) = cli_in(&folders, en, &["trash", "--help"]);
    assert!(
        out.contains("Usage:") && out.contains("Print help"),
        "{out}"
    );
    // Any other locale: French, as the harness's own runs.
    for other in ["C.UTF-8", "de_DE.UTF-8", ""] {
        let (_, out, _) = cli_in(&folders, other, &["trash", "list"]);
        assert_eq!(
            out, "La corbeille est vide.\n0 entrée, 0 octet.\n",
            "{other:?}"
        );
    }
    // An account made from an English command line gets English pages.
    let mut add = crate::harness::ludotheque()
        .env("LC_ALL", en)
        .args([
            "--data",
            folders.data.to_str().unwrap(),
            "user",
            "add",
            "alice",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    add.stdin
        .take()
        .unwrap()
        .write_all(b"correct horse\n")
        .unwrap();
    let out = add.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Account created: alice (viewer)\n"
    );
    let (_, out, _) = cli_in(&folders, en, &["user", "list"]);
    let alice: Vec<&str> = out.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(alice[..3], ["alice", "viewer", "en"], "{out}");
    let english = Line::NoApiKey.english();
    let (_, out, _) = cli_in(&Folders::new(), en, &["apikey", "list"]);
    assert_eq!(out, format!("{english}\n"));
}
