//! The library routes: stats, the paged library, one game, search, platforms.

use super::types::{
    ContentItem, Game, GameDetails, Page, PlatformCounts, Platforms, SearchHit, Stats,
};
use crate::error::{Error, Kind, Msg};
use crate::http::params::{self, Paging};
use crate::http::{Ctx, Reply};
use crate::library::name_index::Listed;
use crate::library::search::{search_query, trim_blank};
use crate::library::{self};
use crate::store::platforms;
use crate::store::{games, title_state};
use crate::time;
use crate::words::GameKind;

pub fn stats(c: &Ctx) -> Result<Reply, Error> {
    c.app.pages.json(c.db, "stats".into(), |_| {
        let titles = title_state::counts(c.db)?;
        Reply::json(200, &Stats::new(&c.app.views.stats(c.db)?, titles))
    })
}

pub fn list(c: &Ctx) -> Result<Reply, Error> {
    let kind = params::game_type(c.req)?;
    let paging = Paging::from_req(c.req);
    let key = format!("library {kind:?} {} {}", paging.page, paging.limit);
    c.app.pages.json(c.db, key, |generation| {
        let index = c.app.views.names.at(c.db, generation)?;
        let (total, at) = index.page(kind, paging.limit, paging.offset());
        let listed: Vec<Listed> = at.iter().map(|&i| index.listed(i)).collect();
        let items = listed.iter().map(Game::listed).collect();
        Reply::json(200, &envelope(paging, total, items))
    })
}

pub(super) fn envelope<T>(paging: Paging, total: u64, items: Vec<T>) -> Page<T> {
    Page {
        page: paging.page,
        limit: paging.limit,
        total,
        pages: paging.pages(total),
        items,
    }
}

/// `GET /api/v1/library/{key}`: a key that fails validation is a 404 like an unknown
/// one, and never reaches the filesystem (only the database is asked).
pub fn one(c: &Ctx) -> Result<Reply, Error> {
    let key = c.param(0);
    let not_found = || Error::not_found(Msg::NoGame { key: key.into() });
    let g = library::find(c.db, key)?.ok_or_else(not_found)?;
    // A file holding a base and its DLC is not its own DLC.
    let others = |id, kind| -> Result<Vec<String>, Error> {
        let mut keys = games::related(c.db, id, kind)?;
        keys.retain(|k| *k != g.item.key);
        Ok(keys)
    };
    let (updates, dlc) = match (g.item.kind, g.item.title_id) {
        (GameKind::Base, Some(id)) => (others(id, GameKind::Update)?, others(id, GameKind::Dlc)?),
        _ => (Vec::new(), Vec::new()),
    };
    let held = crate::store::contents::of(c.db, &g.item.key)?;
    let contents = match (held.is_empty(), g.item.title_id) {
        (false, _) => held
            .into_iter()
            .map(|c| ContentItem {
                title_id: c.title_id,
                kind: c.kind,
                version: Some(c.version),
            })
            .collect(),
        (true, Some(id)) => vec![ContentItem {
            title_id: id,
            kind: g.item.kind,
            version: g.item.version,
        }],
        (true, None) => Vec::new(),
    };
    Reply::json(
        200,
        &GameDetails {
            game: Game::from(&g.item),
            title_id: g.item.title_id,
            format: g.format,
            platform: g.platform,
            modified: time::rfc3339(g.mtime / 1_000_000_000),
            identified_by: g.identified_by,
            // A file a task found damaged (verify, convert, the size plan) says why
            // here too, first: it is why the file is not playable.
            note: match (g.note, &g.damage) {
                (Some(note), Some(damage)) => Some(format!("{}; {note}", damage.english())),
                (Some(note), None) => Some(note.english()),
                (None, Some(damage)) => Some(damage.english()),
                (None, None) => None,
            },
            subtype: g.subtype,
            updates,
            dlc,
            contents,
        },
    )
}

pub fn search(c: &Ctx) -> Result<Reply, Error> {
    let q = c.req.query("q").map(trim_blank).transpose()?.unwrap_or("");
    if q.is_empty() {
        return Err(Error::new(
            Kind::MissingParameter,
            Msg::MissingParameter { name: "q".into() },
        ));
    }
    let paging = Paging::from_req(c.req);
    let query = search_query(q)?;
    // Keyed by what the query means, so `Zelda` and `zelda ` share an answer.
    let key = format!(
        "search {:?} {:?} {} {}",
        query.words, query.id_prefix, paging.page, paging.limit
    );
    c.app.pages.json(c.db, key, |generation| {
        let index = c.app.views.names.at(c.db, generation)?;
        let (total, at) = index.search(&query, paging.limit, paging.offset());
        let listed: Vec<Listed> = at.iter().map(|&i| index.listed(i)).collect();
        let hits = listed
            .iter()
            .map(|l| SearchHit {
                game: Game::listed(l),
                title_id: l.title_id,
            })
            .collect();
        Reply::json(200, &envelope(paging, total, hits))
    })
}

pub fn platforms(c: &Ctx) -> Result<Reply, Error> {
    let counts = c.app.views.stats_by_platform(c.db)?;
    let platforms = platforms::list(c.db)?
        .iter()
        .map(|p| PlatformCounts::new(p, &counts.get(&p.slug).cloned().unwrap_or_default()))
        .collect();
    Reply::json(200, &Platforms { platforms })
}
