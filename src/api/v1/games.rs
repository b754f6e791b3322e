//! The library routes: stats, the paged library, one game, search, platforms.

use super::params::{self, Paging};
use super::types::{Game, GameDetails, Page, PlatformCounts, Platforms, SearchHit, Stats};
use crate::error::Error;
use crate::http::{Ctx, Reply};
use crate::library::{self, identify};
use crate::store::games::{self, SearchQuery};
use crate::store::platforms;
use crate::time;

pub fn stats(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(200, &Stats::from(&c.app.pages.stats(c.db)?))
}

pub fn list(c: &Ctx) -> Result<Reply, Error> {
    let kind = params::game_type(c.req)?;
    let paging = Paging::from_req(c.req);
    let key = format!("library {kind:?} {} {}", paging.page, paging.limit);
    c.app.pages.json(c.db, key, || {
        let (total, items) = games::page(c.db, kind, paging.limit, paging.offset())?;
        Reply::json(
            200,
            &envelope(paging, total, items.iter().map(Game::from).collect()),
        )
    })
}

fn envelope<T>(paging: Paging, total: u64, items: Vec<T>) -> Page<T> {
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
    let not_found = || Error::not_found("No game has that key.");
    if !library::valid_key(key) {
        return Err(not_found());
    }
    let g = games::get(c.db, key)?.ok_or_else(not_found)?;
    let (updates, dlc) = match (&g.item.kind[..], &g.item.title_id) {
        ("BASE", Some(id)) => (
            games::related(c.db, id, "UPDATE")?,
            games::related(c.db, id, "DLC")?,
        ),
        _ => (Vec::new(), Vec::new()),
    };
    Reply::json(
        200,
        &GameDetails {
            game: Game::from(&g.item),
            title_id: g.item.title_id.clone(),
            version: g.version,
            format: g.format,
            platform: g.platform,
            modified: time::rfc3339(g.mtime / 1_000_000_000),
            identified_by: g.identified_by,
            note: g.note,
            subtype: g.subtype,
            base_title_id: g.base_title_id,
            updates,
            dlc,
        },
    )
}

pub fn search(c: &Ctx) -> Result<Reply, Error> {
    let q = c.req.query("q").map(str::trim).unwrap_or("");
    if q.is_empty() {
        return Err(Error::missing_parameter("q"));
    }
    let paging = Paging::from_req(c.req);
    let query = search_query(q)?;
    // Keyed by what the query means, so `Zelda` and `zelda ` share an answer.
    let key = format!(
        "search {:?} {:?} {} {}",
        query.words, query.id_prefix, paging.page, paging.limit
    );
    c.app.pages.json(c.db, key, || {
        let (total, items) = games::search(c.db, &query, paging.limit, paging.offset())?;
        let hits = items
            .iter()
            .map(|g| SearchHit {
                game: Game::from(g),
                title_id: g.title_id.as_deref(),
            })
            .collect();
        Reply::json(200, &envelope(paging, total, hits))
    })
}

/// The longest search text, in bytes, and the most words in it: a name is a few
/// words, and each word is one more term for the search index to match.
pub const MAX_SEARCH_BYTES: usize = 256;
pub const MAX_SEARCH_WORDS: usize = 32;

/// What a search text means: folded words that must all occur in a name, or a
/// title-ID prefix (4 to 16 hex digits). Past the bounds above it is a 400.
pub fn search_query(q: &str) -> Result<SearchQuery, Error> {
    let too_long = || {
        Error::bad_request(format!(
            "A search text has at most {MAX_SEARCH_BYTES} bytes and {MAX_SEARCH_WORDS} words."
        ))
    };
    if q.len() > MAX_SEARCH_BYTES {
        return Err(too_long());
    }
    // Control characters (NUL included) are never in a name: they separate words.
    let words: Vec<String> = identify::fold(q)
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    if words.len() > MAX_SEARCH_WORDS {
        return Err(too_long());
    }
    Ok(SearchQuery {
        words,
        id_prefix: (q.len() >= 4 && q.len() <= 16 && q.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| q.to_ascii_uppercase()),
        ..SearchQuery::default()
    })
}

pub fn platforms(c: &Ctx) -> Result<Reply, Error> {
    let counts = c.app.pages.stats_by_platform(c.db)?;
    let platforms = platforms::list(c.db)?
        .iter()
        .map(|p| PlatformCounts::new(p, &counts.get(&p.slug).cloned().unwrap_or_default()))
        .collect();
    Reply::json(200, &Platforms { platforms })
}
