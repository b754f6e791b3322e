//! The titles routes: every title of the library with what applies to it, one title
//! with its files, and the list of what is missing. They read what
//! `titles::model::refresh` wrote when the last scan or import completed.

use super::library::envelope;
use super::types::{MissingItem, Title, TitleDetails, TitleFile, TitleFiles, Version};
use crate::error::{Error, Msg};
use crate::http::params::Paging;
use crate::http::{Ctx, Reply};
use crate::library::search::{search_query, trim_blank};
use crate::store::missing as missing_store;
use crate::store::title_state::{Filter, Sort};
use crate::text::cut;
use crate::titles::details;
use crate::words::{GameKind, MissingKind, TitleId, TitleStatus};

/// `GET /api/v1/titles?q=&status=&page=&limit=`: sorted like the library.
pub fn list(c: &Ctx) -> Result<Reply, Error> {
    let status = match c.req.query("status") {
        None => None,
        Some(s) => Some(TitleStatus::parse(s).ok_or_else(|| Error::invalid(Msg::BadTitleStatus))?),
    };
    let q = c.req.query("q").map(trim_blank).transpose()?.unwrap_or("");
    let query = search_query(q)?;
    let paging = Paging::from_req(c.req);
    let key = format!(
        "titles {status:?} {:?} {:?} {} {}",
        query.words, query.id_prefix, paging.page, paging.limit
    );
    c.app.pages.json(c.db, key, |_| {
        let filter = Filter {
            status,
            incomplete: false,
            named: c.app.views.names.titles_named(c.db, &query.words)?,
            id_prefix: query.id_prefix.clone(),
        };
        let (total, rows) =
            c.app
                .views
                .titles
                .page(c.db, &filter, Sort::Name, paging.limit, paging.offset())?;
        Reply::json(
            200,
            &envelope(paging, total, rows.iter().map(Title::from).collect()),
        )
    })
}

/// `GET /api/v1/titles/{title_id}`: the base ID of a title of the library.
pub fn one(c: &Ctx) -> Result<Reply, Error> {
    let raw = c.param(0);
    let found = match TitleId::parse(raw) {
        Some(id) => details::get(c.db, id)?,
        None => None,
    };
    let d = found.ok_or_else(|| {
        Error::not_found(Msg::NoTitle {
            id: cut(raw, 40).into(),
        })
    })?;
    let mut files = TitleFiles::default();
    for (g, superseded) in &d.files {
        let file = TitleFile {
            game: (&g.item).into(),
            title_id: g.item.title_id,
            superseded: *superseded,
        };
        match g.item.kind {
            GameKind::Base => files.base.push(file),
            GameKind::Update => files.updates.push(file),
            _ => files.dlc.push(file),
        }
    }
    Reply::json(
        200,
        &TitleDetails {
            title: Title::from(&d.state),
            publisher: d.facts.publisher,
            release_date: d.facts.release_date,
            icon_url: d.facts.icon_url,
            versions: d
                .versions
                .into_iter()
                .map(|(version, date)| Version { version, date })
                .collect(),
            contents: files,
        },
    )
}

/// `GET /api/v1/missing?kind=&page=&limit=`: the updates and DLC the library lacks.
pub fn missing(c: &Ctx) -> Result<Reply, Error> {
    let kind = match c.req.query("kind") {
        None => None,
        Some(k) => Some(MissingKind::parse(k).ok_or_else(|| Error::invalid(Msg::BadMissingKind))?),
    };
    match c.req.query("format") {
        None => {}
        Some("csv") => return wanted_csv(c, kind),
        Some("json") => return wanted_json(c, kind),
        Some(_) => return Err(Error::invalid(Msg::BadMissingFormat)),
    }
    let paging = Paging::from_req(c.req);
    let key = format!("missing {kind:?} {} {}", paging.page, paging.limit);
    c.app.pages.json(c.db, key, |_| {
        let (total, rows) = missing_store::page(c.db, kind, None, paging.limit, paging.offset())?;
        Reply::json(
            200,
            &envelope(paging, total, rows.iter().map(MissingItem::from).collect()),
        )
    })
}

/// `?format=csv`: the whole wanted list, a header row and one row per item, to open in
/// a spreadsheet. A name from the title data that a spreadsheet would run as a formula
/// (`=`, `+`, `-`, `@` first) is written with a leading `'`.
fn wanted_csv(c: &Ctx, kind: Option<MissingKind>) -> Result<Reply, Error> {
    let mut out = csv::Writer::from_writer(Vec::new());
    let failed = |e: csv::Error| Error::internal(format!("the wanted list as CSV: {e}"));
    let mut rows = 0u64;
    missing_store::each(c.db, kind, |m| {
        rows += 1;
        let mut item = MissingItem::from(&m);
        let (title_name, name) = (as_text(item.title_name), item.name.map(as_text));
        item.title_name = &title_name;
        item.name = name.as_deref();
        out.serialize(item).map_err(failed)
    })?;
    // A list with no row still says its columns (serialize writes them with the first).
    if rows == 0 {
        out.write_record(MissingItem::COLUMNS).map_err(failed)?;
    }
    let body = out
        .into_inner()
        .map_err(|e| failed(e.into_error().into()))?;
    Ok(Reply::new(200, "text/csv; charset=utf-8", body).attachment("ludotheque-wanted.csv"))
}

/// A field a spreadsheet shows as text, never runs.
fn as_text(s: &str) -> std::borrow::Cow<'_, str> {
    match s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        true => format!("'{s}").into(),
        false => s.into(),
    }
}

/// `?format=json`: the whole wanted list, `{total, items}` (not a page: no limit).
fn wanted_json(c: &Ctx, kind: Option<MissingKind>) -> Result<Reply, Error> {
    let mut rows = Vec::new();
    missing_store::each(c.db, kind, |m| {
        rows.push(m);
        Ok(())
    })?;
    let list = serde_json::json!({
        "total": rows.len(),
        "items": rows.iter().map(MissingItem::from).collect::<Vec<_>>(),
    });
    Ok(Reply::json(200, &list)?.attachment("ludotheque-wanted.json"))
}

#[cfg(test)]
mod tests {
    use super::as_text;

    #[test]
    fn what_a_spreadsheet_would_run_is_written_as_text() {
        for (name, written) in [
            ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            ("+1", "'+1"),
            ("-Special-", "'-Special-"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("Pokémon Sword", "Pokémon Sword"),
            ("1-2-Switch", "1-2-Switch"),
        ] {
            assert_eq!(as_text(name), written);
        }
    }
}
