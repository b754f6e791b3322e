//! The container image against what `scripts/release` lays out: no container engine
//! runs on the machines this project is built on, so what can be checked without one
//! is checked here. Every file the Containerfile copies is one the script writes, for
//! every platform the README's buildx command names; the health check is a command
//! the binary has; the folders it declares are the binary's own defaults inside.

use std::path::Path;

use clap::CommandFactory;

fn read(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The Containerfile's instructions, continuation lines joined, comments left out.
fn instructions() -> Vec<(String, String)> {
    let text = read("Containerfile").replace("\\\n", " ");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (op, rest) = l.split_once(' ').unwrap_or((l, ""));
            (op.to_ascii_uppercase(), rest.trim().to_string())
        })
        .collect()
}

fn all(op: &str) -> Vec<String> {
    instructions()
        .into_iter()
        .filter(|(o, _)| o == op)
        .map(|(_, rest)| rest)
        .collect()
}

fn one(op: &str) -> String {
    let found = all(op);
    assert_eq!(found.len(), 1, "one {op} in the Containerfile: {found:?}");
    found[0].clone()
}

/// The platforms the README tells buildx to build (`--platform linux/amd64,...`), as
/// Docker's TARGETARCH names.
fn platforms() -> Vec<String> {
    let readme = read("README.md");
    let at = readme
        .find("buildx build --platform ")
        .expect("the README says how to build the image with buildx");
    let list = readme[at..]["buildx build --platform ".len()..]
        .split_whitespace()
        .next()
        .unwrap();
    list.split(',')
        .map(|p| {
            p.strip_prefix("linux/")
                .expect("a linux platform")
                .to_string()
        })
        .collect()
}

/// A COPY's sources (every word but the flags and the destination).
fn sources(copy: &str) -> Vec<String> {
    let words: Vec<&str> = copy
        .split_whitespace()
        .filter(|w| !w.starts_with("--"))
        .collect();
    words[..words.len() - 1]
        .iter()
        .map(|w| w.to_string())
        .collect()
}

#[test]
fn every_file_the_containerfile_copies_is_one_the_release_script_writes() {
    let script = read("scripts/release");
    let platforms = platforms();
    assert!(
        platforms.contains(&"amd64".into()) && platforms.contains(&"arm64".into()),
        "{platforms:?}"
    );
    assert_eq!(one("FROM"), "scratch");
    let copies = all("COPY");
    assert!(!copies.is_empty());
    for copy in &copies {
        for source in sources(copy) {
            let source = source.trim_end_matches('/');
            if source.contains("${TARGETARCH}") {
                // The script copies each static binary to dist/image/$image/ludotheque,
                // $image being Docker's name for its platform.
                let theirs = source.replace("${TARGETARCH}", "$image");
                assert!(
                    script.contains(&format!("\"{theirs}\"")),
                    "scripts/release never writes {theirs}"
                );
                for arch in &platforms {
                    assert!(
                        script.contains(&format!(" image={arch} ")),
                        "scripts/release lays out no binary for {arch}"
                    );
                }
            } else {
                assert!(
                    script.contains(&format!("{source}/")) || script.contains(source),
                    "scripts/release never writes {source}"
                );
            }
        }
    }
    // The build context holds what the COPYs take, and nothing of target/.
    let ignore = read(".dockerignore");
    assert!(ignore.lines().any(|l| l == "*") && ignore.lines().any(|l| l == "!dist/image"));
    // The Dockerfile name works too.
    let dockerfile = Path::new(env!("CARGO_MANIFEST_DIR")).join("Dockerfile");
    assert_eq!(
        std::fs::read_to_string(dockerfile).unwrap(),
        read("Containerfile")
    );
}

#[test]
fn the_containerfile_declares_the_binarys_own_defaults() {
    let root = ludotheque::testkit::Args::command();
    let default = |id: &str| {
        let arg = root
            .get_arguments()
            .find(|a| a.get_id() == id)
            .unwrap_or_else(|| panic!("no --{id}"));
        arg.get_default_values()[0].to_str().unwrap().to_string()
    };
    // The working folder joined with --data's and --library's defaults are the
    // volumes, and the folders the script makes for the image.
    let workdir = one("WORKDIR");
    let inside = |d: String| {
        Path::new(&workdir)
            .join(d.trim_start_matches("./"))
            .display()
            .to_string()
    };
    let (data, library) = (inside(default("data")), inside(default("library")));
    assert_eq!(one("VOLUME"), format!("[\"{data}\", \"{library}\"]"));
    let script = read("scripts/release");
    for folder in [&data, &library] {
        assert!(
            script.contains(&format!("dist/image/root{folder}")),
            "scripts/release does not make {folder} for the image"
        );
    }
    // It listens on every interface inside, on the port it exposes; the probe asks
    // that address (health's default is LUDOTHEQUE_LISTEN).
    let env = all("ENV").join(" ");
    let listen = env
        .split_whitespace()
        .find_map(|w| w.strip_prefix("LUDOTHEQUE_LISTEN="))
        .expect("LUDOTHEQUE_LISTEN in the image");
    assert_eq!(listen, format!("0.0.0.0:{}", one("EXPOSE")));
    assert_eq!(one("USER"), "1000:1000");
    assert_eq!(one("ENTRYPOINT"), r#"["/ludotheque"]"#);
    let health = one("HEALTHCHECK");
    assert!(
        health.ends_with(r#"CMD ["/ludotheque", "health"]"#),
        "{health}"
    );
}

#[test]
fn the_health_check_is_a_command_the_binary_has() {
    // Its own flags only: the probe runs with nothing but the image's environment.
    let folders = crate::harness::Folders::new();
    let (st, out, err) = folders.cli(&["health", "--help"]);
    assert!(st.success(), "{err}");
    assert!(out.contains("--url"), "{out}");
    let health = one("HEALTHCHECK");
    let cmd = health.split("CMD").nth(1).unwrap();
    let words: Vec<String> = serde_json::from_str(cmd.trim()).unwrap();
    assert_eq!(words, ["/ludotheque", "health"]);
}
