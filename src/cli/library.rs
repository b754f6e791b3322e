//! The library's data from the command line: the console and its push list, the
//! trash, a backup of the database.

use std::path::Path;

use super::open_store;
use crate::args::{DeviceCommand, GlobalArgs, PushCommand, TrashCommand};
use crate::error::counts::{agree, count, number};
use crate::error::{Error, Msg};
use crate::store;
use crate::{device, time, trash};

pub fn device_command(global: &GlobalArgs, command: &DeviceCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        DeviceCommand::Set {
            host,
            port,
            name,
            offer_address,
        } => {
            device::configure(&conn, name, host, *port, offer_address.as_deref())?;
            say!("Console « {name} » réglée sur {host}:{port}.");
        }
        DeviceCommand::Show => match store::device::get(&conn)? {
            None => say!("Aucune console n'est réglée."),
            Some(d) => {
                let pending = store::push_list::list(&conn)?;
                say!("Console : {} ({}:{})", d.name, d.host, d.port);
                say!(
                    "Adresse offerte : {}",
                    d.offer_address
                        .as_deref()
                        .unwrap_or("détectée à chaque envoi")
                );
                say!(
                    "Dernier envoi : {}",
                    d.last_push
                        .map(time::local)
                        .unwrap_or_else(|| "jamais".into())
                );
                say!(
                    "Dernier résultat : {}",
                    d.last_result.as_deref().map_or("aucun", result_fr)
                );
                say!("Client vu : {}", d.client.as_deref().unwrap_or("aucun"));
                say!(
                    "En attente : {}, {}",
                    count(pending.len() as u64, "jeu", "jeux"),
                    count(pending.iter().map(|p| p.1).sum::<u64>(), "octet", "octets")
                );
            }
        },
        DeviceCommand::Clear => {
            store::device::clear(&conn)?;
            say!("Console oubliée.");
        }
    }
    Ok(())
}

pub fn push_command(global: &GlobalArgs, command: &PushCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        PushCommand::Add { key, title: false } => {
            device::add_game(&conn, key)?;
            say!("Ajouté à la liste d'envoi : {key}");
        }
        PushCommand::Add { key, title: true } => {
            let keys = device::add_title(&conn, device::title_id(key)?)?;
            for k in keys {
                say!("Ajouté à la liste d'envoi : {k}");
            }
        }
        PushCommand::List => {
            let items = store::push_list::list(&conn)?;
            if items.is_empty() {
                say!("La liste d'envoi est vide.");
            }
            for (key, size) in items {
                say!(
                    "{:>13} {}  {key}",
                    number(size),
                    agree(size, "octet ", "octets")
                );
            }
        }
        PushCommand::Remove { key } => {
            if !store::push_list::remove(&conn, key)? {
                return Err(Error::not_found(Msg::NotInPushList { key: key.clone() }));
            }
            say!("Retiré de la liste d'envoi : {key}");
        }
    }
    Ok(())
}

pub fn trash_command(global: &GlobalArgs, command: &TrashCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    // The list is the database's: only restore and purge need the library itself.
    let root = || {
        global.library.canonicalize().map_err(|e| {
            Error::invalid(Msg::FolderUnusable {
                what: "library".into(),
            })
            .with_cause(e)
        })
    };
    match command {
        TrashCommand::List => list_trash(&store::trash::list(&conn)?),
        TrashCommand::Restore { id, as_name } => {
            // Unusable keys only mean the file is identified as without keys.
            let path = crate::config::prod_keys_path(global);
            let keys = crate::library::switchfs::prodkeys::file::load(&path)
                .ok()
                .flatten();
            let keys = keys.as_ref().map(|loaded| &loaded.keys);
            let row = trash::restore_as(&conn, &root()?, *id, as_name.as_deref(), keys)?;
            say!("Restauré : {}", row.key);
        }
        TrashCommand::Purge { id: Some(id), .. } => {
            let row = trash::purge(&conn, &root()?, *id)?;
            say!("Supprimé définitivement : {}", row.key);
        }
        TrashCommand::Purge { expired: true, .. } => {
            let n = trash::purge_expired(&conn, &root()?, time::now())?;
            say!(
                "{} {} définitivement.",
                count(n as u64, "entrée expirée", "entrées expirées"),
                agree(n as u64, "supprimée", "supprimées")
            );
        }
        TrashCommand::Purge { .. } => {
            let (rows, root) = (store::trash::list(&conn)?, root()?);
            for r in &rows {
                trash::purge(&conn, &root, r.id)?;
            }
            let n = rows.len() as u64;
            say!(
                "{} {} définitivement.",
                count(n, "entrée", "entrées"),
                agree(n, "supprimée", "supprimées")
            );
        }
    }
    Ok(())
}

/// `trash list`: a line per entry, then how many and how large.
fn list_trash(rows: &[store::trash::TrashRow]) {
    if rows.is_empty() {
        say!("La corbeille est vide.");
    }
    for r in rows {
        say!(
            "{:<5} {:<10} {:>13} {}  supprimé le {}  expire le {}  {}",
            r.id,
            r.reason,
            number(r.size),
            agree(r.size, "octet ", "octets"),
            time::local(r.deleted_at),
            time::local(r.expires_at),
            r.key
        );
    }
    let bytes: u64 = rows.iter().map(|r| r.size).sum();
    say!(
        "{}, {}.",
        count(rows.len() as u64, "entrée", "entrées"),
        count(bytes, "octet", "octets")
    );
}

/// An online backup: consistent even while a server writes, without stopping it.
pub fn backup(global: &GlobalArgs, file: &Path) -> Result<(), Error> {
    if file.exists() {
        return Err(Error::conflict(Msg::FileExists {
            file: file.display().to_string(),
        }));
    }
    let conn = open_store(global)?;
    // The copy holds password hashes too: private from its first byte.
    {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(file)
            .map_err(|e| {
                Error::invalid(Msg::CannotCreate {
                    file: file.display().to_string(),
                })
                .with_cause(e)
            })?;
    }
    conn.backup(
        rusqlite::MAIN_DB,
        file,
        None::<fn(rusqlite::backup::Progress)>,
    )
    .map_err(|e| {
        Error::invalid(Msg::BackupFailed {
            file: file.display().to_string(),
        })
        .with_cause(e)
    })?;
    say!("Base de données sauvegardée dans {}.", file.display());
    say!("Le fichier de clés de console (prod.keys) n'est pas dans la copie : gardez-en une copie à part, ou extrayez-le de nouveau de votre console.");
    Ok(())
}

/// How the last push ended, in French (the store keeps the API's word).
fn result_fr(stored: &str) -> &str {
    use crate::words::TaskResult as R;
    match R::parse(stored) {
        Some(R::Ok) => "réussi",
        Some(R::Partial) => "terminé avec des erreurs",
        Some(R::Failed) => "échoué",
        Some(R::Cancelled) => "annulé",
        Some(R::Interrupted) => "interrompu",
        Some(R::Running) => "en cours",
        None => stored,
    }
}
