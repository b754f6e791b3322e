//! The upkeep page: what `dedupe` would move to the trash and where `organize` would
//! move each file, each with the button that starts the task. The lists are previews
//! read on each view; the tasks compute them again when they run.
//!
//! Its page only reads; the buttons call internal `/api/` routes (not part of the
//! public contract). Neither task starts on one click: the button asks its preview
//! route for the plan as it is now and shows it in a dialog (what goes to the trash
//! and the space it frees; what moves, what stays because its place is taken), and
//! only a confirmation starts the task, limited to the files the dialog showed. Each
//! past organize run not yet undone has its Undo button, which runs `organize_undo`
//! in the task slot.

use maud::{html, Markup};
use serde::{Deserialize, Serialize};

use super::tasks::{start_button_asking, Ask};
use super::view::{self, count, number as num, page, size, Viewer};
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::jobs::{dedupe, organize};
use crate::store::organize_runs;
use crate::words::Task;

/// The files organize does not move, counted.
fn left_alone(v: &Viewer, n: usize) -> String {
    count(v, n as u64, M::LeftAloneOne, M::LeftAloneMany)
}

/// Rows a preview shows; the rest is counted.
const SHOWN: usize = 500;

/// `GET /upkeep`.
pub fn upkeep_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let body = html! {
        (dedupe_section(c, &v)?)
        (organize_section(c, &v)?)
    };
    // Reached from Library health and the Tasks page; the menu marks Library health.
    page(&v, v.t(M::Upkeep), "/upkeep", body)
}

fn dedupe_section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let drops = dedupe::plan(c.db, &c.app.config.folders(), c.app.config.dedupe_keep)?;
    let bytes = drops.iter().map(|d| d.size).sum();
    Ok(html! {
        section.panel #dedupe {
            h2 { (v.t(M::DedupeTitle)) }
            p { (v.t(match c.app.config.dedupe_keep {
                crate::words::DedupeKeep::Uncompressed => M::DedupeRuleUncompressed,
                crate::words::DedupeKeep::Compressed => M::DedupeRuleCompressed,
            })) }
            @if drops.is_empty() {
                p.empty #dedupe-empty { (v.t(M::DedupeNothing)) }
            } @else {
                p #dedupe-count { (count(v, drops.len() as u64, M::FileWord, M::FilesWord)) " · " (size(v, bytes)) }
                @if v.admin {
                    div.actions {
                        (start_button_asking(c, v, ("start-dedupe", "/api/dedupe", "/tasks"), v.t(M::DedupeStart), Ask::Preview("/api/dedupe/preview")))
                    }
                }
                div.scroll {
                    table #dedupe-list {
                        thead { tr {
                            th { (v.t(M::Name)) } th.num { (v.t(M::Size)) } th { (v.t(M::Reason)) } th.wide { (v.t(M::KeptCopy)) }
                        } }
                        tbody {
                            @for d in drops.iter().take(SHOWN) {
                                tr {
                                    td { (d.name) " · " (view::version(None, Some(d.version))) br; small { code { (d.key) } } }
                                    td.num { (size(v, d.size)) }
                                    td { (v.t(M::of_reason(d.reason))) }
                                    td.wide { small { code { (d.kept) } } }
                                }
                            }
                        }
                    }
                }
                @if drops.len() > SHOWN { p { "… " (num(v, (drops.len() - SHOWN) as u64)) } }
            }
        }
    })
}

fn organize_section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let cfg = &c.app.config;
    let template = cfg.organize_template(c.db);
    let plan = organize::plan(c.db, &cfg.folders(), &template)?;
    let runs = organize_runs::list(c.db, 10)?;
    Ok(html! {
        section.panel #organize {
            h2 { (v.t(M::OrganizeTitle)) }
            p { (v.t(M::OrganizeTemplate)) " " code { (template.as_str()) } " " a href="/settings#template-form" { (v.t(M::Change)) } }
            p #organize-count {
                (num(v, plan.moves.len() as u64)) " " (v.t(M::OrganizeToMove)) " · " (num(v, plan.taken.len() as u64)) " " (v.t(M::OrganizeTaken))
                " · " (num(v, plan.in_place as u64)) " " (v.t(M::OrganizeInPlace)) " · " (left_alone(v, plan.left))
            }
            @if v.admin && !plan.moves.is_empty() {
                div.actions {
                    (start_button_asking(c, v, ("start-organize", "/api/organize", "/tasks"), v.t(M::OrganizeStart), Ask::Preview("/api/organize/preview")))
                }
            }
            @if !plan.moves.is_empty() || !plan.taken.is_empty() {
                div.scroll {
                    table #organize-list {
                        thead { tr { th { (v.t(M::OrganizeFrom)) } th { (v.t(M::OrganizeTo)) } } }
                        tbody {
                            @for m in plan.taken.iter().chain(&plan.moves).take(SHOWN) {
                                tr {
                                    td { small { code { (m.from) } } }
                                    td {
                                        small { code { (m.to) } }
                                        @if plan.taken.iter().any(|t| t.from == m.from) { " " span.badge { (v.t(M::OrganizeTakenOne)) } }
                                    }
                                }
                            }
                        }
                    }
                }
                @if plan.moves.len() + plan.taken.len() > SHOWN { p { "… " (plan.moves.len() + plan.taken.len() - SHOWN) } }
            }
            @if !runs.is_empty() { (runs_list(c, v, &runs)) }
        }
    })
}

/// The past runs, newest first, each not yet undone with its Undo button (asking
/// first, naming how many files go back).
fn runs_list(c: &Ctx, v: &Viewer, runs: &[organize_runs::OrganizeRun]) -> Markup {
    html! {
        h3 { (v.t(M::OrganizeRuns)) }
        ul #organize-runs {
            @for r in runs {
                li {
                    "#" (r.id) " · " (view::date(v, Some(r.started_at))) " · " (r.moved) " " (v.t(M::OrganizeMoved))
                    @if let Some(at) = r.undone_at { " · " (v.t(M::OrganizeUndone)) " " (view::date(v, Some(at))) }
                    @else if v.admin {
                        " "
                        (undo_button(c, v, r))
                    }
                }
            }
        }
    }
}

fn undo_button(c: &Ctx, v: &Viewer, r: &organize_runs::OrganizeRun) -> Markup {
    let id = format!("undo-organize-{}", r.id);
    let api = format!("/api/organize/runs/{}/undo", r.id);
    let files = r.moved.saturating_sub(r.undone);
    let ask = v.msg(&Msg::OrganizeUndoAsk { run: r.id, files });
    let ids = (id.as_str(), api.as_str(), "/tasks");
    start_button_asking(c, v, ids, v.t(M::OrganizeUndoButton), Ask::Confirm(&ask))
}

/// What a confirm dialog shows: the question, a sentence, the rows of the plan; and
/// what the confirm button sends back (the files the rows name). `files` and
/// `bytes` (dedupe) or `moves`/`taken`/`in_place`/`left` (organize) are there for
/// scripts and tests.
#[derive(Serialize)]
struct Preview<T: Serialize> {
    #[serde(flatten)]
    plan: T,
    question: String,
    sentence: String,
    rows: Vec<Row>,
    action: &'static str,
    body: Keys,
}

#[derive(Serialize)]
struct Row {
    text: String,
    note: String,
    /// Shown apart: a file organize leaves where it is.
    flag: bool,
}

/// The body of `POST /api/dedupe` and `/api/organize`: the files the dialog showed.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    keys: Vec<String>,
}

/// The rows shown, the rest said as a count.
fn shown(v: &Viewer, mut rows: Vec<Row>) -> Vec<Row> {
    if rows.len() > SHOWN {
        let more = (rows.len() - SHOWN) as u64;
        rows.truncate(SHOWN);
        rows.push(Row {
            text: v.msg(&Msg::PlanMore { more }),
            note: String::new(),
            flag: false,
        });
    }
    rows
}

#[derive(Serialize)]
struct DedupePlan {
    files: u64,
    bytes: u64,
    drops: Vec<dedupe::Drop>,
}

/// `GET /api/dedupe/preview`: what `dedupe` would move to the trash now, each with
/// the copy that stays, and the dialog's words.
pub fn dedupe_preview(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let drops = dedupe::plan(c.db, &c.app.config.folders(), c.app.config.dedupe_keep)?;
    let bytes: u64 = drops.iter().map(|d| d.size).sum();
    let (files, days) = (drops.len() as u64, c.app.config.retention_days(c.db));
    let rows = drops.iter().map(|d| {
        let reason = v.t(M::of_reason(d.reason));
        let what = format!(
            "{} · {} · {reason} · {}",
            d.name,
            crate::numbers::version(d.version),
            size(&v, d.size)
        );
        Row {
            text: d.key.clone(),
            note: v.msg(&Msg::DedupeKeptNote {
                what,
                key: d.kept.clone(),
            }),
            flag: false,
        }
    });
    let preview = Preview {
        question: v.msg(&Msg::DedupeAsk { files, bytes }),
        sentence: match drops.is_empty() {
            true => v.t(M::DedupeNothing).to_string(),
            false => v.msg(&Msg::DedupeAskText { days, bytes }),
        },
        rows: shown(&v, rows.collect()),
        action: v.t(M::DedupeStart),
        body: Keys {
            keys: drops.iter().map(|d| d.key.clone()).collect(),
        },
        plan: DedupePlan {
            files: drops.len() as u64,
            bytes,
            drops,
        },
    };
    Reply::json(200, &preview)
}

#[derive(Serialize)]
struct OrganizePlan {
    moves: Vec<organize::Move>,
    taken: Vec<organize::Move>,
    in_place: u64,
    left: u64,
    /// The counts in words, for Settings' live preview (the dialog's sentence adds
    /// how to undo, which is the Upkeep page's to say).
    counts: String,
}

/// `GET /api/organize/preview[?template=T]`: where `organize` would move each file
/// now (with the template given, for Settings' live preview; else the one in use),
/// the files whose place is taken (they stay), those already in place and those left
/// alone.
pub fn organize_preview(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let cfg = &c.app.config;
    let template = match c.req.query("template") {
        Some(text) => crate::naming::Template::parse(text)
            .ok_or_else(|| Error::invalid(Msg::BadOrganizeTemplate))?,
        None => cfg.organize_template(c.db),
    };
    let plan = organize::plan(c.db, &cfg.folders(), &template)?;
    let row = |m: &organize::Move, flag: bool| Row {
        text: m.from.clone(),
        note: match flag {
            false => format!("→ {}", m.to),
            true => format!("↛ {} ({})", m.to, v.t(M::OrganizeTakenOne)),
        },
        flag,
    };
    let rows = plan
        .moves
        .iter()
        .map(|m| row(m, false))
        .chain(plan.taken.iter().map(|m| row(m, true)));
    let files = plan.moves.len() as u64;
    let preview = Preview {
        question: v.msg(&Msg::OrganizeAsk { files }),
        sentence: match plan.moves.is_empty() {
            true => v.t(M::OrganizeNothing).to_string(),
            false => format!("{} {}", organize_counts(&v, &plan), v.t(M::OrganizeAskText)),
        },
        rows: shown(&v, rows.collect()),
        action: v.t(M::OrganizeStart),
        body: Keys {
            keys: plan.moves.iter().map(|m| m.from.clone()).collect(),
        },
        plan: OrganizePlan {
            moves: plan.moves.clone(),
            taken: plan.taken.clone(),
            in_place: plan.in_place as u64,
            left: plan.left as u64,
            counts: organize_counts(&v, &plan),
        },
    };
    Reply::json(200, &preview)
}

/// "55 to move · 2 whose place is taken · 10 already in place · 3 left alone (…)."
fn organize_counts(v: &Viewer, plan: &organize::Plan) -> String {
    format!(
        "{} {} · {} {} · {} {} · {}.",
        num(v, plan.moves.len() as u64),
        v.t(M::OrganizeToMove),
        num(v, plan.taken.len() as u64),
        v.t(M::OrganizeTaken),
        num(v, plan.in_place as u64),
        v.t(M::OrganizeInPlace),
        left_alone(v, plan.left)
    )
}

/// The files a start was confirmed for: none (a script's start: the whole plan), or
/// the keys of the dialog's plan. The task computes its plan again and does only
/// what is in both: a file that became the newest since the dialog is not trashed,
/// and one the dialog did not show does not move.
fn confirmed(c: &Ctx) -> Result<Vec<String>, Error> {
    if c.req.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let keys: Keys = super::body(c, "\"keys\": the files of the plan the dialog showed")?;
    if keys.keys.is_empty() {
        return Err(Error::invalid(crate::error::Msg::BadJson {
            expected: "\"keys\": a non-empty array of game keys".into(),
        }));
    }
    Ok(keys.keys)
}

fn start(c: &Ctx, task: Task) -> Result<Reply, Error> {
    let only = confirmed(c)?;
    crate::api::v1::jobs::start_on(c, task, only)
}

/// `POST /api/organize` (optional body `{keys}`, the files the dialog showed): start
/// the organize task (409 while a task runs).
pub fn start_organize(c: &Ctx) -> Result<Reply, Error> {
    start(c, Task::Organize)
}

/// `POST /api/dedupe` (optional body `{keys}`): start the dedupe task (409 while a
/// task runs).
pub fn start_dedupe(c: &Ctx) -> Result<Reply, Error> {
    start(c, Task::Dedupe)
}

/// `POST /api/organize/runs/{id}/undo`: put back the files of a past run, as a task
/// in the slot (404 for no such run, 409 when it is undone already or a task runs).
pub fn undo_organize(c: &Ctx) -> Result<Reply, Error> {
    let run: i64 = c
        .param(0)
        .parse()
        .map_err(|_| Error::not_found(crate::error::Msg::NoOrganizeRun))?;
    let by = crate::api::v1::jobs::starter(c);
    let snapshot = organize::start_undo(&c.app.jobs, c.db, run, by)?;
    Reply::json(202, &crate::api::v1::types::JobStatus::from(&snapshot))
}

#[derive(Deserialize)]
struct TemplateForm {
    template: String,
}

/// `POST /api/organize/settings` `{template}`: where organize puts each file from now
/// on (checked as the flag is; nothing moves until organize runs). Refused while
/// `--organize-template` sets it: the flag wins, and the page says so.
pub fn set_template(c: &Ctx) -> Result<Reply, Error> {
    if c.app.config.organize_flag.is_some() {
        return Err(Error::conflict(Msg::TemplateByFlag));
    }
    let form: TemplateForm = super::body(c, "template")?;
    let template = crate::naming::Template::parse(form.template.trim())
        .ok_or_else(|| Error::invalid(Msg::BadOrganizeTemplate))?;
    crate::store::settings::ORGANIZE_TEMPLATE.set(c.db, template.as_str())?;
    Reply::json(200, &serde_json::json!({"template": template.as_str()}))
}

/// Settings' row for organize's template: for an admin, a field whose preview
/// follows as it is typed (`/api/organize/preview?template=`, the dialog's plan);
/// the flag when one sets it.
pub fn template_setting(c: &Ctx, v: &Viewer) -> Markup {
    let template = c.app.config.organize_template(c.db);
    let by_flag = c.app.config.organize_flag.is_some();
    html! {
        @if v.admin && !by_flag {
            form.stack #template-form data-api="/api/organize/settings" {
                input name="template" value=(template.as_str()) required spellcheck="false"
                    data-template-preview="template-preview" aria-label=(v.t(M::OrganizeTemplateLabel));
                p.hint #template-preview aria-live="polite" {}
                button type="submit" { (v.t(M::Save)) }
            }
        } @else {
            code { (template.as_str()) }
            @if by_flag { " · " (v.t(M::SetByFlag)) " " code.flag { "--organize-template" } }
        }
    }
}
