//! The dashboard and the tasks: the running task with its progress, the buttons that
//! start one, the history of runs, and cancelling.
//!
//! Its pages only read; every change goes through its internal `/api/` routes
//! (not part of the public contract), called by the page script.

use maud::{html, Markup};
use serde::Serialize;

use super::i18n::M;
use super::view::{self, date, page, size, Viewer};
use crate::error::Error;
use crate::http::auth::{self};
use crate::http::{Ctx, Reply};
use crate::store::job_runs;
use crate::store::users::{self};
use crate::time;
use crate::words::{Task, TaskResult};

/// `GET /`: counts, the running task with its live progress, the last result.
pub fn dashboard(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let s = c.app.pages.stats(c.db)?;
    let cards = [
        (M::Games, s.total.to_string()),
        (M::Base, s.base.to_string()),
        (M::Updates, s.update.to_string()),
        (M::Dlc, s.dlc.to_string()),
        (M::Unknown, s.unknown.to_string()),
        (M::TotalSize, size(&v, s.bytes)),
        (M::ToConvert, s.to_convert.to_string()),
    ];
    let no_account = matches!(c.principal, auth::Principal::Local) && users::count(c.db)? == 0;
    let body = html! {
        @if no_account {
            p.note { a href="/setup" { (v.t(M::NoAccountCreateOne)) } }
        }
        section.cards {
            @for (m, value) in &cards {
                div.card { span.label { (v.t(*m)) } span.value { (value) } }
            }
        }
        (task_panel(c, &v))
    };
    page(&v, v.t(M::Dashboard), "/", body)
}

/// The running task (updated live by the script) and the buttons that start one.
fn task_panel(c: &Ctx, v: &Viewer) -> Markup {
    let job = c.app.jobs.snapshot();
    let (done, total) = match (&job.last, job.running) {
        (_, true) => (job.done, job.total),
        (Some(last), false) => (last.done, last.total),
        (None, false) => (0, 0),
    };
    let state = if job.running { "running" } else { "idle" };
    html! {
        section.panel #job data-state=(state) {
            h2 { (v.t(M::RunningTask)) }
            p #job-label { @if job.running { @if let Some(t) = job.task { (view::task_word(v, t)) } " · " (job.detail) } @else { (v.t(M::NoTask)) } }
            progress #job-progress max=(total.max(1)) value=(done) aria-label=(v.t(M::Progress)) {}
            p #job-count { (done) " / " (total) }
            p #job-last hidden[job.last.is_none()] {
                (v.t(M::LastResult)) " : "
                span #job-result {
                    @if let Some(last) = &job.last { (view::task_word(v, last.task)) " · " (view::result_word(v, last.result)) " · " (last.message) }
                }
            }
            @if v.admin {
                div.actions {
                    button type="button" #start-scan data-api="/api/scan" data-then="stay" { (v.t(M::StartScan)) }
                    button type="button" data-api="/api/convert" data-then="stay" { (v.t(M::StartConvert)) }
                    button type="button" data-api="/api/push" data-then="stay" { (v.t(M::StartPush)) }
                    button.secondary type="button" #cancel data-api="/api/job/cancel" data-then="stay" { (v.t(M::Cancel)) }
                }
            }
        }
    }
}

/// `GET /tasks`: start, cancel, and the history.
pub fn tasks_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let runs = job_runs::recent(c.db, 50)?;
    let body = html! {
        (task_panel(c, &v))
        p { a href="/upkeep" { (v.t(M::UpkeepLink)) } }
        h2 { (v.t(M::History)) }
        div.scroll {
            table #history {
                thead { tr {
                    th { (v.t(M::Task)) } th { (v.t(M::Result)) } th { (v.t(M::Started)) }
                    th.wide { (v.t(M::Finished)) } th.num { (v.t(M::Progress)) } th.num { (v.t(M::Errors)) } th.wide { (v.t(M::Message)) }
                } }
                tbody {
                    @for r in &runs {
                        tr {
                            td { (view::task_word(&v, r.task)) } td { (view::result_word(&v, r.result)) } td { (date(&v, Some(r.started_at))) }
                            td.wide { (date(&v, r.finished_at)) } td.num { (r.done) " / " (r.total) }
                            td.num { (r.errors) } td.wide { (r.message) }
                        }
                    }
                }
            }
        }
    };
    page(&v, v.t(M::Tasks), "/tasks", body)
}

#[derive(Serialize)]
struct Cancelled {
    cancelled: bool,
}

/// `POST /api/job/cancel`: ask the running task to stop at its next safe point.
pub fn cancel_job(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(
        200,
        &Cancelled {
            cancelled: c.app.jobs.cancel(),
        },
    )
}

#[derive(Serialize)]
struct Run {
    id: i64,
    label: Task,
    result: TaskResult,
    started_at: String,
    finished_at: Option<String>,
    done: u64,
    total: u64,
    errors: u64,
    message: String,
}

#[derive(Serialize)]
struct Runs {
    items: Vec<Run>,
}

/// `GET /api/tasks`: the last 50 task runs, newest first.
pub fn task_history(c: &Ctx) -> Result<Reply, Error> {
    let items = job_runs::recent(c.db, 50)?
        .into_iter()
        .map(|r| Run {
            id: r.id,
            label: r.task,
            result: r.result,
            started_at: time::rfc3339(r.started_at),
            finished_at: r.finished_at.map(time::rfc3339),
            done: r.done,
            total: r.total,
            errors: r.errors,
            message: r.message,
        })
        .collect();
    Reply::json(200, &Runs { items })
}
