//! Title data from the command line: import, status, what is ignored, what is
//! missing. These work whether or not a server runs on the same data folder (SQLite
//! lets both write); a running service sees the new data at once, since it reads
//! the tables the import wrote.

use std::path::Path;

use super::open_store;
use crate::args::{GlobalArgs, IgnoreArgs, TitledbArgs, TitlesCommand};
use crate::error::counts::{count, number};
use crate::error::{Error, Msg};
use crate::outbound::{self, Cancel, Client};
use crate::store::titles as title_facts;
use crate::store::{
    missing as missing_store, title_catalog, title_ignore, title_imports, title_state,
};
use crate::time;
use crate::titles::{self, fetch, model, Input, Took};
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
    let c = |n: &usize, one: &str, many: &str| count(*n as u64, one, many);
    let n = |n: &usize| number(*n as u64);
    for (name, took) in &summary.files {
        match took {
            Took::Catalogue {
                ids,
                empty_version,
                other_console,
                no_kind,
            } => say!(
                "{name} : {} ; ignorés : {} sans version, {} d'une autre console, {} d'aucun type",
                c(ids, "identifiant de titre", "identifiants de titres"),
                n(empty_version),
                n(other_console),
                n(no_kind)
            ),
            Took::History {
                ids,
                versions,
                skipped,
                oversized,
            } => say!(
                "{name} : {} de {} ; {}{}",
                c(versions, "version datée", "versions datées"),
                c(ids, "identifiant", "identifiants"),
                c(skipped, "ignoré", "ignorés"),
                too_long(*oversized, titles::versions::HISTORY_MAX)
            ),
            Took::Region {
                entries,
                skipped,
                oversized,
            } => say!(
                "{name} : {} ; {} (sans identifiant ou sans nom){}",
                c(entries, "titre importé", "titres importés"),
                c(skipped, "ignoré", "ignorés"),
                too_long(*oversized, titles::region::FIELD_MAX)
            ),
        }
    }
    say!("{}.", c(&summary.renamed, "jeu renommé", "jeux renommés"));
}

/// The fields passed over for being longer than `max` bytes, when there were any.
fn too_long(oversized: usize, max: usize) -> String {
    match oversized {
        0 => String::new(),
        n => format!(
            ", et {} de plus de {} Kio",
            count(n as u64, "champ passé", "champs passés"),
            max / 1024
        ),
    }
}

/// The name a file is known by (its last component): which title data file it is
/// depends on it.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn update(global: &GlobalArgs, args: &TitledbArgs) -> Result<(), Error> {
    let conn = open_store(global)?;
    let source = fetch::Source {
        base_url: args.titledb_url.clone(),
        region: args.titledb_region.clone(),
    };
    let net = Client::new(outbound::TITLE_DATA, Cancel::default());
    match fetch::update(&conn, &global.data, &source, &net)? {
        fetch::Updated::Unchanged => {
            say!("Les données de titres sont à jour : rien n'a changé à la source.")
        }
        fetch::Updated::Imported(summary) => say_summary(&summary),
    }
    Ok(())
}

fn status(global: &GlobalArgs) -> Result<(), Error> {
    let conn = open_store(global)?;
    match title_imports::last(&conn)? {
        None => say!("Aucune donnée de titres importée (ludotheque titles import)."),
        Some(last) => {
            let age = match (time::now() - last.imported_at).max(0) / 86_400 {
                0 => "aujourd'hui".to_string(),
                1 => "hier".to_string(),
                days => format!("il y a {}", count(days as u64, "jour", "jours")),
            };
            say!(
                "Dernier import : {} ({age}), fichiers : {}",
                &time::local(last.imported_at)[..10],
                last.files
            );
        }
    }
    let (total, updates, dlc) = title_state::counts(&conn)?;
    say!(
        "{}, {} ; dans la bibliothèque : {}, {} avec une mise à jour disponible, {} avec des \
         DLC manquants.",
        count(title_facts::count(&conn)?, "titre connu", "titres connus"),
        count(
            title_catalog::count(&conn)?,
            "identifiant de version",
            "identifiants de versions"
        ),
        count(total, "titre", "titres"),
        number(updates),
        number(dlc)
    );
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
    let what = match (dlc, updates) {
        (true, true) => "les DLC manquants et les mises à jour",
        (true, false) => "les DLC manquants",
        _ => "les mises à jour",
    };
    let whom = match title {
        Some(id) => id.to_string(),
        None => "tous les titres".to_string(),
    };
    match on {
        true => say!("{whom} : {what} ne sont plus comptés."),
        false => say!("{whom} : {what} sont de nouveau comptés."),
    }
    Ok(())
}

pub fn missing(global: &GlobalArgs, kind: Option<MissingKind>) -> Result<(), Error> {
    let conn = open_store(global)?;
    let (total, rows) = missing_store::page(&conn, kind, None, u64::MAX, 0)?;
    if total == 0 {
        say!("Rien ne manque.");
    }
    for m in rows {
        let what = match m.kind {
            MissingKind::Update => "mise à jour",
            MissingKind::Dlc => "DLC",
        };
        let version = |v: Option<u32>| v.map_or("?".to_string(), |v| format!("v{v}"));
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
                    .map(|d| format!(" du {d}"))
                    .unwrap_or_default()
            ),
        }
    }
    Ok(())
}
