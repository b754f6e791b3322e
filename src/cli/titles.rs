//! Title data from the command line: import, status, what is ignored, what is
//! missing. These work whether or not a server runs on the same data folder (SQLite
//! lets both write); a running service sees the new data at once, since it reads
//! the tables the import wrote.

use std::path::Path;

use super::open_store;
use super::out::{lang, tell, tell_msg, word};
use crate::args::{GlobalArgs, IgnoreArgs, TitledbArgs, TitlesCommand};
use crate::error::i18n::M;
use crate::error::{Error, Line, Msg};
use crate::outbound::{self, Cancel, Client};
use crate::store::titles as title_facts;
use crate::store::{
    missing as missing_store, title_catalog, title_ignore, title_imports, title_state,
};
use crate::time;
use crate::titles::{self, fetch, model, Input};
use crate::words::{MissingKind, TitleId};

pub fn titles_command(global: &GlobalArgs, command: &TitlesCommand) -> Result<(), Error> {
    match command {
        TitlesCommand::Import { files } => import(global, files),
        TitlesCommand::Update(source) => update(global, source),
        TitlesCommand::Status => status(global),
        TitlesCommand::Ignore(args) => ignore(global, args, true),
        TitlesCommand::Unignore(args) => ignore(global, args, false),
    }
}

fn import(global: &GlobalArgs, files: &[std::path::PathBuf]) -> Result<(), Error> {
    let conn = open_store(global)?;
    let mut inputs = Vec::new();
    for path in files {
        let name = file_name(path);
        let file = std::fs::File::open(path)
            .map_err(|e| Error::invalid(Msg::CannotOpen { file: name.clone() }).with_cause(e))?;
        inputs.push(Input {
            name,
            reader: Box::new(file),
        });
    }
    say_summary(&titles::import(&conn, inputs)?);
    Ok(())
}

/// An import's summary, a line per file.
fn say_summary(summary: &titles::Summary) {
    for line in summary.lines() {
        tell(&line);
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn update(global: &GlobalArgs, args: &TitledbArgs) -> Result<(), Error> {
    let conn = open_store(global)?;
    let source = fetch::Source {
        base_urls: args.titledb_url.clone(),
        region: args.titledb_region.clone(),
    };
    let net = Client::new(outbound::TITLE_DATA, Cancel::default());
    let (updated, stale) = fetch::update(&conn, &global.data, &source, &net)?;
    for msg in &stale {
        tell_msg(msg);
    }
    match updated {
        fetch::Updated::Unchanged => tell(&Line::TitleDataUnchanged),
        fetch::Updated::Imported(summary) => say_summary(&summary),
    }
    Ok(())
}

fn status(global: &GlobalArgs) -> Result<(), Error> {
    let conn = open_store(global)?;
    match title_imports::last(&conn)? {
        None => tell(&Line::NoTitleData),
        Some(last) => tell(&Line::LastImport {
            date: time::local(last.imported_at)[..10].to_string(),
            days: ((time::now() - last.imported_at).max(0) / 86_400) as u64,
            files: last.files,
        }),
    }
    let (titles, updates, dlc) = title_state::counts(&conn)?;
    tell(&Line::TitleCounts {
        known: title_facts::count(&conn)?,
        versions: title_catalog::count(&conn)?,
        titles,
        updates,
        dlc,
    });
    Ok(())
}

fn ignore(global: &GlobalArgs, args: &IgnoreArgs, on: bool) -> Result<(), Error> {
    let conn = open_store(global)?;
    // The argument is read here, where it comes in; none: every title.
    let title = match &args.title_id {
        Some(id) => Some(TitleId::parse(id).ok_or_else(|| Error::invalid(Msg::NotTitleId))?),
        None => None,
    };
    // Neither flag: both.
    let (dlc, updates) = match (args.dlc, args.updates) {
        (false, false) => (true, true),
        flags => flags,
    };
    let tx = crate::store::db::write_transaction(&conn)?;
    title_ignore::set(&tx, title, dlc, updates, on)?;
    model::refresh(&tx)?;
    tx.commit()?;
    tell(&Line::Ignored {
        title: title.map(|id| id.to_string()),
        dlc,
        updates,
        counted: !on,
    });
    Ok(())
}

pub fn missing(global: &GlobalArgs, kind: Option<MissingKind>) -> Result<(), Error> {
    let conn = open_store(global)?;
    let (total, rows) = missing_store::page(&conn, kind, None, u64::MAX, 0)?;
    if total == 0 {
        say!("{}", word(M::NothingMissing));
    }
    for m in rows {
        let what = word(match m.kind {
            MissingKind::Update => M::UpdateWord,
            MissingKind::Dlc => M::DlcWord,
        });
        let version = |v: Option<u32>| v.map_or("?".to_string(), crate::numbers::version);
        let name = m.name.map(|n| format!(" ({n})")).unwrap_or_default();
        let line = format!("{} {}  {what} {}{name}", m.title_id, m.title_name, m.id);
        // A DLC the library lacks has no installed version to compare.
        match m.kind {
            MissingKind::Dlc => say!("{line}"),
            MissingKind::Update => say!(
                "{line}  {} → {}{}",
                version(m.installed_version),
                version(m.latest_version),
                m.latest_date
                    .map(|date| lang().line(&Line::Dated { date }))
                    .unwrap_or_default()
            ),
        }
    }
    Ok(())
}
