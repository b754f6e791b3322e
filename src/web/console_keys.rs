//! Settings → "Console keys (prod.keys)": what the user's keys file gives per key
//! revision (present, derived, missing: never a value), what the library's files
//! lack, and, for an admin, the upload of a new file.
//!
//! The upload goes through the same check and the same atomic write as `ludotheque
//! keys import` (`prodkeys::file::install`). Its text is read once from the body and
//! dropped: never echoed (the answer is the status), never logged (a refusal names a
//! line and why, not what it holds; the JSON reader's own message is not kept), never
//! cached (`Cache-Control: no-store`). The running service's `KeysFile` sees the new
//! file at its next question.

use maud::{html, Markup};
use serde::{Deserialize, Serialize};

use super::view::Viewer;
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::library::switchfs::prodkeys::file::{install, Seen};
use crate::library::switchfs::prodkeys::{Origin, Status};
use crate::store::games;

/// What the library's files, as last read, need and lack.
#[derive(Serialize)]
struct Needs {
    /// Key revisions files need and the keys lacked, with how many files.
    missing: Vec<Missing>,
    /// Files whose headers do not decrypt with these keys.
    wrong_keys: u64,
    read: u64,
    unreadable: u64,
}

#[derive(Serialize)]
struct Missing {
    revision: String,
    files: u64,
}

fn needs(c: &Ctx) -> Result<Needs, Error> {
    let missing = games::missing_key_revisions(c.db)?
        .into_iter()
        .map(|(revision, files)| Missing {
            revision: format!("{revision:02x}"),
            files,
        })
        .collect();
    let states = games::keys_states(c.db)?;
    let of = |state: &str| {
        states
            .iter()
            .find(|(s, _)| s == state)
            .map_or(0, |(_, n)| *n)
    };
    Ok(Needs {
        missing,
        wrong_keys: of("wrong_keys"),
        // Read whole or in part: the notes of the latter say what was not.
        read: of("read") + of("partial"),
        unreadable: of("unreadable"),
    })
}

/// The status as `GET /api/console-keys` and the upload answer it.
#[derive(Serialize)]
struct StatusView {
    /// A keys file is there.
    file: bool,
    /// Keys are in use (the file's, or the last good ones).
    in_use: bool,
    /// Why the file as it is now is not used, in the reader's language.
    problem: Option<String>,
    header_key: &'static str,
    revisions: Vec<RevisionView>,
    /// Keys whose public checksum differs: probably mistyped.
    suspect: Vec<String>,
    library: Needs,
}

#[derive(Serialize)]
struct RevisionView {
    revision: String,
    master_key: bool,
    key_area_key_application: &'static str,
    titlekek: &'static str,
}

fn status_view(c: &Ctx, v: &Viewer, seen: &Seen) -> Result<StatusView, Error> {
    let status = seen.loaded.as_ref().map(|l| &l.status);
    Ok(StatusView {
        file: seen.present,
        in_use: status.is_some(),
        problem: seen.problem.as_ref().map(|m| v.say(m)),
        header_key: status.map_or(Origin::Missing, |s| s.header_key).as_str(),
        revisions: status
            .map(|s| {
                s.revisions
                    .iter()
                    .map(|r| RevisionView {
                        revision: format!("{:02x}", r.revision),
                        master_key: r.master_key,
                        key_area_key_application: r.key_area.as_str(),
                        titlekek: r.titlekek.as_str(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        suspect: status.map(|s| s.suspect.clone()).unwrap_or_default(),
        library: needs(c)?,
    })
}

/// `GET /api/console-keys`: the status, no value.
pub fn status(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let view = status_view(c, &v, &c.app.prod_keys.seen())?;
    // No cache keeps it: `http::server` says no-store for every /api/ answer.
    Reply::json(200, &view)
}

#[derive(Deserialize)]
struct Upload {
    /// The file's text.
    file: String,
}

/// `POST /api/console-keys` `{file}`: check the file and put it in place (admins
/// only); the answer is the new status, never the text.
pub fn upload(c: &Ctx) -> Result<Reply, Error> {
    if !c.principal.is_admin() {
        return Err(Error::forbidden(Msg::AdminOnly));
    }
    // Without the JSON reader's message as a cause: the log never sees the text.
    let form: Upload = serde_json::from_slice(&c.req.body).map_err(|_| {
        Error::invalid(Msg::BadJson {
            expected: "file".into(),
        })
    })?;
    install(c.app.prod_keys.path(), form.file.as_bytes())?;
    drop(form);
    log::info!("console keys: a new file was uploaded");
    status(c)
}

fn origin_word(v: &Viewer, origin: Origin) -> &'static str {
    v.t(origin.word())
}

fn keys_table(v: &Viewer, status: &Status) -> Markup {
    html! {
        dl.facts {
            dt { "header_key" } dd #header-key { (origin_word(v, status.header_key)) }
        }
        @if status.revisions.is_empty() {
            p.note { (v.t(M::NoRevisionKeys)) }
        } @else {
            div.scroll {
                table #console-keys-revisions {
                    thead { tr {
                        th { (v.t(M::KeyRevision)) } th { "key_area_key_application" } th { "titlekek" } th { "master_key" }
                    } }
                    tbody {
                        @for r in &status.revisions {
                            tr data-revision=(format!("{:02x}", r.revision)) {
                                td { code { "0x" (format!("{:02x}", r.revision)) } }
                                td data-origin=(r.key_area.as_str()) { (origin_word(v, r.key_area)) }
                                td data-origin=(r.titlekek.as_str()) { (origin_word(v, r.titlekek)) }
                                td { (v.t(if r.master_key { M::KeyPresent } else { M::KeyAbsent })) }
                            }
                        }
                    }
                }
            }
        }
        @if !status.suspect.is_empty() {
            p.warn #console-keys-suspect { (v.msg(&Msg::KeysSuspect { names: status.suspect.join(", ") })) }
        }
    }
}

/// The section of the Settings page.
pub fn section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let seen = c.app.prod_keys.seen();
    let needs = needs(c)?;
    // What the last scan identified with the keys (the one new keys start by
    // themselves, a few seconds after an upload: this page follows it, and reloads).
    let identified = match crate::store::job_runs::last(c.db)?.and_then(|r| r.msg) {
        Some(Msg::ScanIdentified { identified, .. }) => Some(identified),
        _ => None,
    };
    Ok(html! {
        h2 #console-keys { (v.t(M::ConsoleKeys)) }
        @if let Some(files) = identified {
            p.ok #keys-identified { (v.msg(&Msg::FilesIdentified { files })) }
        }
        div #console-keys-status data-file=(seen.present) data-in-use=(seen.loaded.is_some()) {
            @if let Some(problem) = &seen.problem {
                p.warn #console-keys-problem {
                    (v.t(M::ConsoleKeysUnused)) " " (v.say(problem))
                    @if seen.loaded.is_some() { " " (v.t(M::ConsoleKeysKept)) }
                }
            }
            @match &seen.loaded {
                Some(loaded) => { (keys_table(v, &loaded.status)) }
                None => {
                    p { (v.t(M::ConsoleKeysNone)) }
                    p #console-keys-would-add { (v.t(M::ConsoleKeysWouldAdd)) }
                }
            }
            // "3 files need key revision 0x12: add master_key_12 or key_area_key_application_12".
            @for m in &needs.missing { p.warn { (v.msg(&Msg::KeysNeedRevision { files: m.files, revision: m.revision.clone() })) } }
            @if needs.wrong_keys > 0 { p.warn { (v.msg(&Msg::KeysWrongHeader { files: needs.wrong_keys })) } }
            p.note { (v.t(M::ConsoleKeysWhere)) }
        }
        @if v.admin {
            form.stack #console-keys-form data-api="/api/console-keys" {
                label { (v.t(M::ConsoleKeysFile))
                    input name="file" type="file" accept=".keys,.txt,text/plain" required;
                }
                p.note { (v.t(M::ConsoleKeysUploadNote)) }
                button type="submit" { (v.t(M::ConsoleKeysImport)) }
                span.hint #console-keys-progress data-follow-job="line" data-task="scan" aria-live="polite" {}
            }
        }
    })
}
