//! Names the build for `ludotheque --version`: the target triple it was built for and
//! the commit. `scripts/release` gives the commit (`LUDOTHEQUE_COMMIT`); otherwise git
//! is asked, and a source tree without git (a tarball) says `unknown`.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=LUDOTHEQUE_COMMIT");
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=LUDOTHEQUE_TARGET={target}");
    let commit = std::env::var("LUDOTHEQUE_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=LUDOTHEQUE_COMMIT={commit}");
}

/// The commit checked out, and the files whose change means another one is: HEAD,
/// and the branch it names (loose or packed).
fn git_commit() -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        out.status.success().then(|| text.trim().to_string())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &branch]));
        watched.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    }
    for path in watched.into_iter().flatten() {
        if Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    Some(commit)
}
