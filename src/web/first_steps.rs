//! A new user's first hour (issue 40): the page the first run ends on, which says
//! where the games go and what to do next (scan, title data, console keys, a
//! console), and the same words on a library that holds no file yet, in place of "no
//! title matches". Jellyfin, Immich and Sonarr all end their setup on such a page.
//!
//! The server's folders are shown here, and in Settings, to an admin only: the one
//! exception to the rule that no client-visible text holds an absolute server path
//! (docs/web.md, "The server's folders, to admins only"). The admin chose those
//! folders and must know where to copy the games and what to back up; a viewer is told
//! where they go in words, never the path.

use maud::{html, Markup};

use super::view::{page, Viewer};
use crate::error::i18n::M;
use crate::error::Error;
use crate::http::{Ctx, Reply};
use crate::words::Task;

/// `GET /welcome`: where the first run leads. Any signed-in account may open it; only
/// an admin sees the folders.
pub fn welcome_page(c: &Ctx) -> Result<Reply, Error> {
    let v = Viewer::of(c);
    let body = html! {
        @if v.admin { p { (v.t(M::WelcomeIntro)) } }
        (where_games_go(c, &v))
        @if v.admin { (super::listen::form(c, &v, true)) (icons_choice(c, &v)?) }
        (next_steps(&v))
        p { a href="/" { (v.t(M::ToDashboard)) } }
    };
    page(&v, v.t(M::Welcome), "/welcome", body)
}

/// Where the games go: the library folder itself for an admin, in words for a viewer.
pub fn where_games_go(c: &Ctx, v: &Viewer) -> Markup {
    html! {
        h2 #where-games-go { (v.t(M::WhereGamesGo)) }
        @if let Some(folder) = server_folder(c, v, Folder::Library) {
            p { (v.t(M::GamesGoHere)) }
            p { code.server-path #library-folder { (folder) } }
        } @else {
            p { (v.t(M::GamesGoThere)) }
        }
        p.note { (v.t(M::GamesSeen)) }
    }
}

/// Covers: those read from the user's files always show; fetching the others from
/// the title data's host (a third party, which then learns what the library holds)
/// is the admin's choice, explained here once and kept in Settings.
fn icons_choice(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let on = crate::titles::icons::enabled(c.db)?;
    let choice = |icons: bool, label: M, primary: bool| {
        html! {
            button.secondary[!primary] type="button" data-api="/api/titles/settings"
                data-body=(serde_json::json!({ "icons": icons })) aria-pressed=(icons == on) { (v.t(label)) }
        }
    };
    Ok(html! {
        h2 #icons-choice { (v.t(M::CoversHeading)) }
        p { (v.t(M::CoversChoice)) }
        p #icons-state data-on=(on) { (v.t(if on { M::CoversFetched } else { M::CoversNotFetched })) }
        div.actions {
            (choice(true, M::FetchCovers, !on))
            (choice(false, M::NoFetchCovers, false))
        }
    })
}

/// The four things to do once games are there, each a link to the page that does it.
pub fn next_steps(v: &Viewer) -> Markup {
    let steps = [
        ("/tasks", M::StepScan, M::StepScanText),
        ("/settings", M::StepTitles, M::StepTitlesText),
        ("/settings#console-keys", M::StepKeys, M::StepKeysText),
        ("/device", M::StepConsole, M::StepConsoleText),
    ];
    html! {
        h2 { (v.t(M::NextSteps)) }
        ol.how #next-steps {
            @for (href, link, text) in steps {
                li { a href=(href) { (v.t(link)) } (v.t(text)) }
            }
        }
    }
}

/// The library page's words when the library holds no file at all (and no scan is
/// reading it): where the games go and what next, not "no title matches".
pub fn empty_library(c: &Ctx, v: &Viewer) -> Result<Option<Markup>, Error> {
    let job = c.app.jobs.snapshot();
    let scanning = job.running && job.task == Some(Task::Scan);
    if scanning || c.app.views.stats(c.db)?.total > 0 {
        return Ok(None);
    }
    Ok(Some(html! {
        div #library-empty {
            p.empty { (v.t(M::LibraryEmpty)) }
            (where_games_go(c, v))
            (next_steps(v))
        }
    }))
}

/// A folder of the server.
#[derive(Clone, Copy)]
pub enum Folder {
    Library,
    Data,
}

/// The absolute path of a server folder, for an admin only (see the module's doc: the
/// one deliberate exception to "no absolute server path in what a client sees"); `None`
/// for anyone else. Pages put it in an element of class `server-path`, the only place
/// the browser tests let a path show.
pub fn server_folder(c: &Ctx, v: &Viewer, which: Folder) -> Option<String> {
    if !v.admin {
        return None;
    }
    let cfg = &c.app.config;
    let path = match which {
        Folder::Library => cfg.folders().root().to_path_buf(),
        Folder::Data => cfg.data.clone(),
    };
    Some(path.display().to_string())
}
