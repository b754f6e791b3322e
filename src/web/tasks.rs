//! The tasks: the running task with its progress, the buttons that start one, the
//! history of runs, and cancelling. The dashboard (`web::dashboard`) shows its panel.

use maud::{html, Markup};
use serde::Serialize;

use super::phrases;
use super::view::{self, count, date, number, page, Viewer};
use crate::error::i18n::M;
use crate::error::{Error, Failure, Msg};
use crate::http::{Ctx, Reply};
use crate::jobs::Snapshot;
use crate::store::job_runs::{self, JobRun};
use crate::time;
use crate::words::{StartedBy, Task, TaskResult, Unit};

/// While the first scan of a library runs, its counts and lists are not whole: say
/// so, with how far it has gone (the page follows the task and draws itself again at
/// its end). The dashboard, the tasks page and the libraries show it.
pub fn first_scan_note(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let job = c.app.jobs.snapshot();
    let first = job.running
        && job.task == Some(Task::Scan)
        && !crate::library::is_ready(c.db, &c.app.config)?;
    Ok(html! {
        @if first {
            p.note #first-scan data-follow-job { (phrases::first_scan(v, job.done, job.total)) }
        }
    })
}

/// A button that starts a task from a page without the task panel (upkeep, title
/// data, the push list): off while a task runs, with which one beside it. The panel's
/// script turns it on again where it runs; elsewhere the next visit does.
pub fn start_button(
    c: &Ctx,
    v: &Viewer,
    (id, api, then): (&str, &str, &str),
    label: &str,
) -> Markup {
    start_button_asking(c, v, (id, api, then), label, Ask::Nothing)
}

/// What a start button asks before it starts its task.
pub enum Ask<'a> {
    Nothing,
    /// A sentence, in the confirm dialog (`data-confirm`).
    Confirm(&'a str),
    /// The plan its preview route gives (`data-preview`), in the dialog.
    Preview(&'a str),
}

/// [`start_button`] that asks first.
pub fn start_button_asking(
    c: &Ctx,
    v: &Viewer,
    (id, api, then): (&str, &str, &str),
    label: &str,
    ask: Ask,
) -> Markup {
    let l = live(v, &c.app.jobs.snapshot());
    let why = format!("{id}-busy");
    let (confirm, preview) = match ask {
        Ask::Nothing => (None, None),
        Ask::Confirm(text) => (Some(text), None),
        Ask::Preview(route) => (None, Some(route)),
    };
    html! {
        button type="button" id=(id) data-start data-api=(api) data-then=(then)
            data-confirm=[confirm] data-preview=[preview]
            disabled[l.running] aria-describedby=[l.running.then_some(&why)] { (label) }
        @if l.running { span.hint id=(why) { (l.busy) } }
    }
}

/// What the task panel shows, in the reader's language; the page script asks for it
/// again (`GET /api/job`) while a task runs.
#[derive(Serialize)]
struct Live {
    running: bool,
    /// The running task's one spelling (`scan`…), for a follower of one task.
    task: Option<&'static str>,
    /// The id of the last finished run: when it changes the page's counts and history
    /// are stale, and the page draws itself again.
    last_id: i64,
    done: u64,
    total: u64,
    /// The task, who started it and its current item; or "no task".
    line: String,
    /// How far it has gone: sizes, speed and time left.
    count: String,
    /// How the last run ended.
    last: String,
    /// Why the start buttons are disabled.
    busy: String,
    /// "Première analyse en cours (n / N)" while a scan runs, for the pages that say it.
    first_scan: String,
}

fn live(v: &Viewer, job: &Snapshot) -> Live {
    let last = job.last.as_ref().map(|r| {
        let mut said = r.msg.as_ref().map_or(r.message.clone(), |m| v.say(m));
        // A scan's message counts what it read: its failures are said beside it, so
        // that "partial" has its reason (convert's and compress's count their own).
        if r.task == Task::Scan && r.errors > 0 {
            said = format!("{said} · {}", v.msg(&Msg::FilesFailed { files: r.errors }));
        }
        format!(
            "{} · {} · {said}",
            v.t(M::of_task(r.task)),
            v.t(M::of_result(r.result))
        )
    });
    let (line, count, busy) = match job.task {
        Some(task) => {
            let by = job.started_by.as_ref().unwrap_or(&StartedBy::Local);
            let who = phrases::started_by(v, by);
            let mut line = format!("{}, {who}", v.t(M::of_task(task)));
            if !job.detail.is_empty() {
                line = format!("{line} · {}", job.detail);
            }
            let elapsed = job
                .started_at
                .map_or(0, |t| (time::now() - t).max(0) as u64);
            let bytes = job.unit == Unit::Bytes;
            let count = phrases::progress(v, bytes, job.done, job.total, elapsed);
            let busy = format!("{} {}", v.t(M::BusyBecause), v.t(M::of_task(task)));
            (line, count, busy)
        }
        None => (v.t(M::NoTask).to_string(), String::new(), String::new()),
    };
    Live {
        running: job.running,
        task: job.task.filter(|_| job.running).map(Task::as_str),
        last_id: job.last.as_ref().map_or(0, |r| r.id),
        done: job.done,
        total: job.total,
        line,
        count,
        last: last.unwrap_or_default(),
        busy,
        first_scan: match job.task {
            Some(Task::Scan) => phrases::first_scan(v, job.done, job.total),
            _ => String::new(),
        },
    }
}

/// `GET /api/job` (the page script's): the task panel's texts.
pub fn job_live(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(200, &live(&Viewer::of(c), &c.app.jobs.snapshot()))
}

/// The running task (updated live by the script) and the buttons that start one,
/// disabled while a task runs.
pub(super) fn task_panel(c: &Ctx, v: &Viewer, to_convert: u64) -> Result<Markup, Error> {
    let job = c.app.jobs.snapshot();
    let l = live(v, &job);
    let state = if l.running { "running" } else { "idle" };
    let starts = match v.admin {
        true => Some(start_buttons(c, v, &l, to_convert)?),
        false => None,
    };
    Ok(html! {
        section.panel #job data-state=(state) data-last=(l.last_id) {
            h2 { (v.t(M::RunningTask)) }
            p #job-label { (l.line) }
            div #job-bar hidden[!l.running] {
                progress #job-progress max=(l.total.max(1)) value=(l.done) aria-label=(v.t(M::Progress)) {}
                p #job-count { (l.count) }
            }
            p #job-last hidden[l.last.is_empty()] {
                (v.t(M::LastResult)) (v.colon()) span #job-result { (l.last) }
            }
            // Screen readers hear the start, each quarter and the end (app.js).
            p.sr-only #job-live aria-live="polite" {}
            @if let Some(starts) = starts { (starts) }
        }
    })
}

/// An admin's buttons that start a task and cancel it, each off while a task runs,
/// and off for good (until the page is drawn again) with its reason beside it when it
/// cannot work: no room to convert, no console to push to, no keys to verify with.
fn start_buttons(c: &Ctx, v: &Viewer, l: &Live, to_convert: u64) -> Result<Markup, Error> {
    let starts = [
        ("start-scan", "/api/scan", M::StartScan),
        ("start-convert", "/api/convert", M::StartConvert),
        ("start-push", "/api/push", M::StartPush),
        ("start-verify", "/api/verify", M::StartVerify),
        ("start-compress", "/api/compress", M::StartCompress),
    ];
    let room = match to_convert > 0 {
        true => Some(convert_room(c)?),
        false => None,
    };
    let full = room.as_ref().is_some_and(|r| r.needed > r.free);
    // Said before anyone presses it, as on the console page.
    let push_blocked = match crate::store::device::get(c.db)? {
        // The console page's words say "below": here, the link leads there.
        None => Some(v.t(M::PushNoDevice).to_string()),
        d => super::shop::push_blocked(c, v, d.as_ref()),
    };
    // Verifying reads the CNMTs, which only the console keys open.
    let no_keys = c.app.prod_keys.current().is_none();
    let compressible = c.app.views.compressible(c.db)?;
    let to_compress = compressible.0;
    let ask = |id: &str| heavy_ask(v, id, (to_convert, room.as_ref()), compressible);
    Ok(html! {
        div.actions {
            @for (id, api, m) in starts {
                @let nothing_to_do = match id {
                    "start-convert" => to_convert == 0,
                    "start-compress" => to_compress == 0,
                    _ => false,
                };
                @let blocked = match id {
                    "start-convert" => full,
                    "start-push" => push_blocked.is_some(),
                    "start-verify" | "start-compress" => no_keys,
                    _ => false,
                };
                @if !nothing_to_do {
                    // Scan is the one primary action.
                    button class=[(id != "start-scan").then_some("secondary")] type="button" id=(id) data-start data-blocked[blocked]
                        data-api=(api) data-then="stay" data-confirm=[ask(id)]
                        disabled[l.running || blocked] { (v.t(m)) }
                }
            }
            button.secondary type="button" #cancel data-api="/api/job/cancel" data-then="stay"
                hidden[!l.running] { (v.t(M::Cancel)) }
        }
        p.hint #job-busy hidden[!l.running] { (l.busy) }
        @if let Some(r) = &room { (room_note(v, to_convert, r)) }
        @if let Some(why) = &push_blocked {
            p.hint #push-blocked { (why) " " a href="/push" { (v.t(M::PushPage)) } }
        }
        @if no_keys { p.hint #verify-blocked { (super::view::keys_hint(v, M::VerifyNoKeys)) } }
    })
}

/// The heavy tasks rewrite the library: they ask first, saying what they take and the
/// room they need or the saving expected (and are not offered when there is nothing
/// for them to do). `None` for the others.
fn heavy_ask(
    v: &Viewer,
    id: &str,
    (to_convert, room): (u64, Option<&Room>),
    (to_compress, bytes): (u64, u64),
) -> Option<String> {
    match id {
        "start-convert" => room.map(|r| {
            let room = v.msg(&Msg::ConvertRoom {
                files: to_convert,
                needed: r.needed,
                free: r.free,
            });
            format!(
                "{} {room}",
                v.msg(&Msg::ConvertAllAsk { files: to_convert })
            )
        }),
        "start-compress" => Some(format!(
            "{} {}",
            v.msg(&Msg::CompressAllAsk {
                files: to_compress,
                bytes
            }),
            super::compress::estimate(v, bytes)
        )),
        _ => None,
    }
}

/// What a convert needs and what the disk has.
struct Room {
    needed: u64,
    free: u64,
}

/// The free space is asked each time (other programs write to the disk); the size
/// needed is kept until the library changes. Each disk is held to what its own
/// folders need: one that lacks room is the one said.
fn convert_room(c: &Ctx) -> Result<Room, Error> {
    let lib = c.app.config.folders();
    let needed = c.app.views.convert_needed(c.db, &lib)?;
    let (needed, free) = crate::library::safe::room(&lib, &needed);
    Ok(Room { needed, free })
}

/// "7 fichiers à décompresser : 4,2 Go une fois décompressés ; 120 Go libres."
fn room_note(v: &Viewer, files: u64, r: &Room) -> Markup {
    let fits = r.needed <= r.free;
    let text = v.msg(&Msg::ConvertRoom {
        files,
        needed: r.needed,
        free: r.free,
    });
    html! {
        p.hint #convert-room data-fits=(fits) {
            (text)
            @if !fits { " " strong { (v.t(M::NoRoom)) } }
        }
    }
}

/// The files the last run could not handle, each with its reason and a link to it.
pub(super) fn failures_of_last(c: &Ctx, v: &Viewer) -> Markup {
    let job = c.app.jobs.snapshot();
    match &job.last {
        Some(run) if !job.last_failures.is_empty() => failures_table(c, v, run, &job.last_failures),
        _ => html! {},
    }
}

fn failures_table(c: &Ctx, v: &Viewer, run: &JobRun, failures: &[Failure]) -> Markup {
    let more = run.errors.saturating_sub(failures.len() as u64);
    html! {
        section #failures {
            h2 { (v.t(M::FailedFiles)) " (" (v.t(M::of_task(run.task))) ", " (date(v, run.finished_at)) ")" }
            div.scroll {
                table {
                    thead { tr { th { (v.t(M::Name)) } th { (v.t(M::Reason)) } } }
                    tbody {
                        @for f in failures {
                            tr {
                                td { (failed_item(c, f)) }
                                td { (v.say(&f.msg)) }
                            }
                        }
                    }
                }
            }
            @if more > 0 { p.hint { (count(v, more, M::FileWord, M::FilesWord)) " " (v.t(M::NotListed)) } }
        }
    }
}

/// A failed item: a link to its game when the library has one at that key.
fn failed_item(c: &Ctx, f: &Failure) -> Markup {
    let key = f.key.as_deref().unwrap_or("—");
    let known = f
        .key
        .as_deref()
        .is_some_and(|k| matches!(crate::store::games::get(c.db, k), Ok(Some(_))));
    html! {
        @if known { a href={ "/game/" (view::key_path(key)) } { code { (key) } } }
        @else { code { (key) } }
    }
}

/// `GET /tasks`: start, cancel, the last run's failures, and the history.
pub fn tasks_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let runs = job_runs::recent(c.db, 50)?;
    let s = c.app.views.stats(c.db)?;
    let body = html! {
        (first_scan_note(c, &v)?)
        (task_panel(c, &v, s.to_convert)?)
        (super::compress::saved_note(c, &v)?)
        p { a href="/upkeep" { (v.t(M::UpkeepLink)) } }
        (failures_of_last(c, &v))
        h2 { (v.t(M::History)) }
        div.scroll {
            table #history {
                thead { tr {
                    th { (v.t(M::Task)) } th { (v.t(M::Result)) } th { (v.t(M::Started)) }
                    th.wide { (v.t(M::Finished)) } th.num { (v.t(M::Errors)) } th.wide { (v.t(M::Message)) }
                } }
                tbody {
                    @for r in &runs {
                        tr {
                            td { (v.t(M::of_task(r.task))) }
                            td {
                                @if r.errors > 0 { a href={ "/tasks/" (r.id) } { (v.t(M::of_result(r.result))) } }
                                @else { (v.t(M::of_result(r.result))) }
                            }
                            td { (date(&v, Some(r.started_at))) }
                            td.wide { (date(&v, r.finished_at)) }
                            td.num { (number(&v, r.errors)) }
                            td.wide { (r.msg.as_ref().map_or(r.message.clone(), |m| v.say(m))) }
                        }
                    }
                }
            }
        }
    };
    page(&v, v.t(M::Tasks), "/tasks", body)
}

/// `GET /tasks/{id}`: one run, with every file it could not handle.
pub fn run_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let run = c
        .param(0)
        .parse()
        .ok()
        .map(|id| job_runs::get(c.db, id))
        .transpose()?
        .flatten()
        .ok_or_else(|| Error::not_found(Msg::NoRoute))?;
    let failures = crate::store::job_failures::of_run(c.db, run.id)?;
    let said = run.msg.as_ref().map_or(run.message.clone(), |m| v.say(m));
    let body = html! {
        p { (v.t(M::of_task(run.task))) " · " (v.t(M::of_result(run.result))) " · " (said) }
        @if failures.is_empty() { p.empty { (v.t(M::NoFailure)) } }
        @else { (failures_table(c, &v, &run, &failures)) }
        p { a href="/tasks" { (v.t(M::Tasks)) } }
    };
    page(&v, v.t(M::of_task(run.task)), "/tasks", body)
}

/// `POST /api/verify`: start the verify task on the whole library (409 while a task
/// runs). The public API has no such route (see `jobs::verify`).
pub fn start_verify(c: &Ctx) -> Result<Reply, Error> {
    crate::api::v1::jobs::start(c, Task::Verify)
}

/// `POST /api/compress/{key}`: compress one file (404 when no game has that key, 409
/// while a task runs).
pub fn start_compress_file(c: &Ctx) -> Result<Reply, Error> {
    start_on_one(c, Task::Compress)
}

/// `POST /api/verify/{key}`: verify one file (404 when no game has that key, 409
/// while a task runs).
pub fn start_verify_file(c: &Ctx) -> Result<Reply, Error> {
    start_on_one(c, Task::Verify)
}

/// Start `task` on the one game the path names.
fn start_on_one(c: &Ctx, task: Task) -> Result<Reply, Error> {
    let key = c.param(0);
    let Some(g) = crate::library::find(c.db, key)? else {
        return Err(Error::not_found(Msg::NoGame { key: key.into() }));
    };
    crate::api::v1::jobs::start_on(c, task, vec![g.item.key])
}

/// `POST /api/job/cancel`: ask the running task to stop at its next safe point.
pub fn cancel_job(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(
        200,
        &serde_json::json!({ "cancelled": c.app.jobs.cancel() }),
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

/// `GET /api/tasks`: the last 50 task runs, newest first.
pub fn task_history(c: &Ctx) -> Result<Reply, Error> {
    let items: Vec<Run> = job_runs::recent(c.db, 50)?
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
    Reply::json(200, &serde_json::json!({ "items": items }))
}
