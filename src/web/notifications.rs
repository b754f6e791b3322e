//! Settings → Notifications: the targets (those given at start, fixed, and those
//! added here), the events each gets, a test message, add and remove. A target's URL
//! holds its secrets: it is never shown back whole, only `Target::shown`.

use std::collections::HashMap;

use maud::{html, Markup};

use super::body;
use super::view::{page, Viewer};
use crate::error::i18n::M;
use crate::error::{Error, Kind, Msg};
use crate::http::{Ctx, Reply};
use crate::notify::target::Target;
use crate::store::notify_targets;
use crate::words::NoticeEvent;

fn event_word(event: NoticeEvent) -> M {
    match event {
        NoticeEvent::NewGames => M::EventNewGames,
        NoticeEvent::Updates => M::EventUpdates,
        NoticeEvent::TaskFailed => M::EventTaskFailed,
        NoticeEvent::Damaged => M::EventDamaged,
        NoticeEvent::LibraryOffline => M::EventLibraryOffline,
        NoticeEvent::LowSpace => M::EventLowSpace,
        NoticeEvent::SaveBackedUp => M::EventSaveBackedUp,
    }
}

/// One checkbox per event, named by its slug.
fn event_boxes(v: &Viewer, checked: &[NoticeEvent], admin: bool) -> Markup {
    html! {
        @for e in NoticeEvent::ALL {
            label.check { input type="checkbox" name=(e.as_str()) checked[checked.contains(e)] disabled[!admin]; (v.t(event_word(*e))) }
        }
    }
}

/// `GET /settings/notifications`.
pub fn notifications_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    // The targets are an admin's to see: even cut, a URL says where messages go.
    let targets = if v.admin {
        c.app.jobs.notifier.lanes.list()
    } else {
        Vec::new()
    };
    let body = html! {
        (super::settings::sub_nav(&v))
        p.note { (v.t(M::NotificationsIntro)) }
        @if v.admin {
            p.empty #targets-empty hidden[!targets.is_empty()] { (v.t(M::NoTargets)) }
        } @else {
            p.note #targets-admin-only { (v.t(M::TargetsAdminOnly)) }
        }
        // A list of cards rather than a table: a URL and six boxes fit a phone so.
        ul #notify-targets hidden[targets.is_empty()] {
            @for t in &targets {
                li.target data-target=(t.id) data-fixed=(t.fixed) {
                    p { code { (t.shown) } " · " small { (v.t(if t.fixed { M::GivenAtStart } else { M::AddedHere })) } }
                    form.events data-api={ "/api/notify/" (t.id) "/events" } data-then="stay" data-autosubmit aria-label=(v.t(M::TargetEvents)) {
                        (event_boxes(&v, &t.events, v.admin))
                        button type="submit" { (v.t(M::Save)) }
                    }
                    @if v.admin {
                        div.actions {
                            button.secondary type="button" data-api={ "/api/notify/" (t.id) "/test" } data-then="said" { (v.t(M::SendTest)) }
                            @if !t.fixed {
                                button.danger type="button" data-method="DELETE" data-api={ "/api/notify/" (t.id) } { (v.t(M::Remove)) }
                            }
                        }
                    }
                }
            }
        }
        @if v.admin {
            h2 { (v.t(M::AddTarget)) }
            form.stack #notify-form data-api="/api/notify" {
                label { (v.t(M::TargetUrl)) input name="url" required maxlength="2000" autocomplete="off" spellcheck="false"; }
                fieldset.events { legend { (v.t(M::TargetEvents)) } (event_boxes(&v, NoticeEvent::ALL, true)) }
                button type="submit" { (v.t(M::AddTarget)) }
            }
        }
    };
    page(&v, v.t(M::Notifications), "/settings/notifications", body)
}

/// The events a form checked (`{slug: bool}`; other fields are ignored).
fn checked(form: &HashMap<String, serde_json::Value>) -> Vec<NoticeEvent> {
    NoticeEvent::ALL
        .iter()
        .copied()
        .filter(|e| form.get(e.as_str()).and_then(|v| v.as_bool()) == Some(true))
        .collect()
}

/// `POST /api/notify` `{url, <event>: bool…}`: a target added, with those events.
pub fn add(c: &Ctx) -> Result<Reply, Error> {
    let form: HashMap<String, serde_json::Value> = body(c, "url and the events, true or false")?;
    let url = form.get("url").and_then(|u| u.as_str()).unwrap_or_default();
    let target = Target::parse(url)?;
    // A target given at start, or added already, is not added again.
    if c.app.jobs.notifier.lanes.target(&target.id()).is_some()
        || !notify_targets::add(c.db, &target.id(), target.url(), &checked(&form))?
    {
        return Err(Error::conflict(Msg::BadNotifyUrl {
            shown: target.shown(),
        })
        .with_cause("a target of that URL exists"));
    }
    c.app.jobs.notifier.reload(c.db)?;
    Reply::json(
        201,
        &serde_json::json!({"id": target.id(), "shown": target.shown()}),
    )
}

fn known(c: &Ctx) -> Result<(Target, bool), Error> {
    c.app
        .jobs
        .notifier
        .lanes
        .target(c.param(0))
        .ok_or_else(|| Error::not_found(Msg::NoNotifyTarget))
}

/// `POST /api/notify/{id}/events` `{<event>: bool…}`.
pub fn set_events(c: &Ctx) -> Result<Reply, Error> {
    let (target, _) = known(c)?;
    let form: HashMap<String, serde_json::Value> = body(c, "the events, true or false")?;
    let events = checked(&form);
    notify_targets::set_events(c.db, &target.id(), target.url(), &events)?;
    c.app.jobs.notifier.reload(c.db)?;
    let events: Vec<&str> = events.iter().map(|e| e.as_str()).collect();
    Reply::json(200, &serde_json::json!({"events": events}))
}

/// `POST /api/notify/{id}/test`: one message now, and whether it went.
pub fn test(c: &Ctx) -> Result<Reply, Error> {
    let (target, _) = known(c)?;
    let notifier = &c.app.jobs.notifier;
    let note = notifier.note(c.db, None, &Msg::NoteTest, "/settings/notifications");
    notifier
        .lanes
        .try_once(&target, &note)
        .ok_or_else(|| Error::conflict(Msg::NotifyTestRunning))?
        .map_err(|reason| Error::new(Kind::BadGateway, Msg::NotifyFailed { reason }))?;
    let said = Viewer::of(c).msg(&Msg::NotifySent);
    Reply::json(200, &serde_json::json!({"sent": true, "said": said}))
}

/// `DELETE /api/notify/{id}`: a target added here; one given at start is 409.
pub fn remove(c: &Ctx) -> Result<Reply, Error> {
    let (target, fixed) = known(c)?;
    if fixed {
        return Err(Error::conflict(Msg::NotifyTargetFixed));
    }
    notify_targets::remove(c.db, &target.id())?;
    c.app.jobs.notifier.reload(c.db)?;
    Reply::json(200, &serde_json::json!({"removed": target.id()}))
}
