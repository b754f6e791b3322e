//! `ludotheque keys`: the user's console keys (prod.keys) from the command line.
//! `import` checks a file and puts it in place atomically (a running service sees
//! it at its next use, without a restart); `status` says what the keys give, per key
//! revision, and what the library's files lack. Neither ever prints a key's value:
//! only names, origins (present, derived, missing) and counts.

use std::io::Read;
use std::path::Path;

use super::open_store;
use crate::args::{ConsoleKeysCommand, GlobalArgs};
use crate::config::prod_keys_path;
use crate::error::counts::{agree, count};
use crate::error::{Error, Msg};
use crate::library::switchfs::prodkeys::file::{install, load};
use crate::library::switchfs::prodkeys::{Origin, Status, MAX_FILE};
use crate::store::{db, games};

pub fn command(global: &GlobalArgs, command: &ConsoleKeysCommand) -> Result<(), Error> {
    match command {
        ConsoleKeysCommand::Import { file } => import(global, file),
        ConsoleKeysCommand::Status => status(global),
    }
}

fn import(global: &GlobalArgs, file: &Path) -> Result<(), Error> {
    let cannot_open = |e: std::io::Error| {
        Error::invalid(Msg::CannotOpen {
            file: file.display().to_string(),
        })
        .with_cause(e)
    };
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_FILE as u64 + 1).read_to_end(&mut bytes))
        .map_err(cannot_open)?;
    let target = prod_keys_path(global);
    if global.keys.is_none() {
        // The data folder, private, as every command makes it.
        db::make_private(&global.data)
            .map_err(|e| Error::invalid(Msg::DataFolderPrivate).with_cause(e))?;
    }
    let loaded = install(&target.path, &bytes)?;
    say!(
        "Clés de console importées dans {} (mode 0600).",
        target.path.display()
    );
    print_status(&loaded.status);
    say!("Un service en marche les prend en compte sans redémarrer.");
    Ok(())
}

fn status(global: &GlobalArgs) -> Result<(), Error> {
    let path = prod_keys_path(global);
    say!("Fichier de clés de console : {}", path.path.display());
    let loaded = load(&path);
    match &loaded {
        Err(e) => say!("Ce fichier n'est pas utilisable : {}", e.msg.french()),
        Ok(Some(loaded)) => print_status(&loaded.status),
        Ok(None) => {
            say!(
                "Aucun fichier de clés de console : le service identifie les fichiers sans elles."
            );
            say!("{}", WHAT_KEYS_ADD);
            say!("« ludotheque keys import FICHIER » importe le prod.keys extrait de votre console avec Lockpick_RCM.");
        }
    }
    library_needs(global)?;
    loaded.map(|_| ())
}

/// What console keys bring, for whoever has none yet.
const WHAT_KEYS_ADD: &str = "Avec vos clés de console, le service lit ce que chaque fichier contient au lieu de se fier à son nom : les fichiers sont identifiés par leur contenu, les noms et les icônes viennent des fichiers eux-mêmes (sans réseau), et la vérification de l’intégrité devient possible.";

fn origin_fr(origin: Origin) -> &'static str {
    match origin {
        Origin::Present => "présente",
        Origin::Derived => "dérivée",
        Origin::Missing => "manquante",
    }
}

/// The keys per revision, and the keys whose checksum looks mistyped.
fn print_status(status: &Status) {
    say!("header_key : {}", origin_fr(status.header_key));
    if status.revisions.is_empty() {
        say!("Aucune clé par révision (ni master_key_XX, ni key_area_key_application_XX, ni titlekek_XX).");
    } else {
        say!("révision  key_area_key_application  titlekek   master_key");
        for r in &status.revisions {
            say!(
                "0x{:02x}      {:<25} {:<10} {}",
                r.revision,
                origin_fr(r.key_area),
                origin_fr(r.titlekek),
                if r.master_key { "présente" } else { "absente" }
            );
        }
    }
    if !status.suspect.is_empty() {
        say!(
            "Attention, ne correspondent pas à leur somme de contrôle publique (CRC32), peut-être mal recopiées : {}. Le fichier est utilisé tel quel.",
            status.suspect.join(", ")
        );
    }
}

/// What the library's files, as last read, need and lack.
fn library_needs(global: &GlobalArgs) -> Result<(), Error> {
    let db = open_store(global)?;
    for (revision, n) in games::missing_key_revisions(&db)? {
        say!(
            "{} {} la révision de clés 0x{revision:02x} : ajoutez master_key_{revision:02x} ou key_area_key_application_{revision:02x}.",
            count(n, "fichier", "fichiers"),
            agree(n, "demande", "demandent")
        );
    }
    for (state, n) in games::keys_states(&db)? {
        let (one, many) = match state.as_str() {
            "read" => ("lu avec les clés", "lus avec les clés"),
            "partial" => (
                "lu en partie avec les clés (nom ou icône illisibles : voir sa remarque)",
                "lus en partie avec les clés (nom ou icône illisibles : voir leur remarque)",
            ),
            "wrong_keys" => (
                "ne se déchiffre pas avec ces clés (header_key est-elle la bonne ?)",
                "ne se déchiffrent pas avec ces clés (header_key est-elle la bonne ?)",
            ),
            "unreadable" => ("illisible avec les clés", "illisibles avec les clés"),
            // `missing_key`: said above, per revision.
            _ => continue,
        };
        say!(
            "{} {}",
            count(n, "fichier", "fichiers"),
            agree(n, one, many)
        );
    }
    Ok(())
}
