//! The upkeep page: what `dedupe` would move to the trash and where `organize` would
//! move each file, each with the button that starts the task. The lists are previews
//! read on each view; the tasks compute them again when they run.
//!
//! Its page only reads; the buttons call internal `/api/` routes (not part of the
//! public contract).

use maud::{html, Markup};

use super::i18n::M;
use super::phrases::{count, num, FILES};
use super::tasks::start_button;
use super::view::{self, page, size, Viewer};
use crate::error::Error;
use crate::http::{Ctx, Reply};
use crate::jobs::{dedupe, organize};
use crate::store::organize_runs;
use crate::words::Task;

/// The files organize does not move, counted.
const LEFT_ALONE: (&str, &str, &str, &str) = (
    "laissé tel quel (non identifié ou lien)",
    "laissés tels quels (non identifiés ou liens)",
    "left alone (unidentified or a link)",
    "left alone (unidentified or links)",
);

/// Rows a preview shows; the rest is counted.
const SHOWN: usize = 500;

/// `GET /upkeep`.
pub fn upkeep_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let body = html! {
        (dedupe_section(c, &v)?)
        (organize_section(c, &v)?)
    };
    // Reached from the Tasks page, which the menu shows as the current one.
    page(&v, v.t(M::Upkeep), "/tasks", body)
}

fn dedupe_section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let drops = dedupe::plan(c.db, &c.app.config.library, c.app.config.dedupe_keep)?;
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
                p #dedupe-count { (count(v, drops.len() as u64, FILES)) " · " (size(v, bytes)) }
                @if v.admin {
                    div.actions {
                        (start_button(c, v, ("start-dedupe", "/api/dedupe", "/tasks"), v.t(M::DedupeStart)))
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
                                    td { (d.name) " · v" (d.version) br; small { code { (d.key) } } }
                                    td.num { (size(v, d.size)) }
                                    td { (view::reason_word(v, d.reason)) }
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
    let plan = organize::plan(c.db, &cfg.library, &cfg.organize_template)?;
    let runs = organize_runs::list(c.db, 10)?;
    Ok(html! {
        section.panel #organize {
            h2 { (v.t(M::OrganizeTitle)) }
            p { (v.t(M::OrganizeTemplate)) " " code { (cfg.organize_template.as_str()) } }
            p #organize-count {
                (num(v, plan.moves.len() as u64)) " " (v.t(M::OrganizeToMove)) " · " (num(v, plan.taken.len() as u64)) " " (v.t(M::OrganizeTaken))
                " · " (num(v, plan.in_place as u64)) " " (v.t(M::OrganizeInPlace)) " · " (count(v, plan.left as u64, LEFT_ALONE))
            }
            @if v.admin && !plan.moves.is_empty() {
                div.actions {
                    (start_button(c, v, ("start-organize", "/api/organize", "/tasks"), v.t(M::OrganizeStart)))
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
            @if !runs.is_empty() {
                h3 { (v.t(M::OrganizeRuns)) }
                ul #organize-runs {
                    @for r in &runs {
                        li {
                            "#" (r.id) " · " (view::date(v, Some(r.started_at))) " · " (r.moved) " " (v.t(M::OrganizeMoved))
                            @if let Some(at) = r.undone_at { " · " (v.t(M::OrganizeUndone)) " " (view::date(v, Some(at))) }
                            @else { " · " code { "ludotheque organize --undo " (r.id) } }
                        }
                    }
                }
            }
        }
    })
}

/// `POST /api/organize`: start the organize task (409 while a task runs).
pub fn start_organize(c: &Ctx) -> Result<Reply, Error> {
    crate::api::v1::jobs::start(c, Task::Organize)
}

/// `POST /api/dedupe`: start the dedupe task (409 while a task runs).
pub fn start_dedupe(c: &Ctx) -> Result<Reply, Error> {
    crate::api::v1::jobs::start(c, Task::Dedupe)
}
