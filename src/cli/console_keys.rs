//! `ludotheque keys`: the user's console keys (prod.keys) from the command line.
//! `import` checks a file and puts it in place atomically (a running service sees
//! it at its next use, without a restart); `status` says what the keys give, per key
//! revision, and what the library's files lack. Neither ever prints a key's value:
//! only names, origins (present, derived, missing) and counts.

use std::io::Read;
use std::path::Path;

use super::open_store;
use super::out::{colon, lang, tell, tell_msg, word};
use crate::args::{ConsoleKeysCommand, GlobalArgs};
use crate::config::prod_keys_path;
use crate::error::i18n::M;
use crate::error::{Error, Line, Msg};
use crate::library::switchfs::prodkeys::file::{install, load};
use crate::library::switchfs::prodkeys::{Origin, Status, MAX_FILE};
use crate::store::{db, games};
use crate::words::KeysState;

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
    tell(&Line::KeysImported {
        file: target.path.display().to_string(),
    });
    print_status(&loaded.status);
    tell(&Line::KeysTakenLive);
    Ok(())
}

/// `keys status`: the file, what it gives, and what the library needs of it.
fn status(global: &GlobalArgs) -> Result<(), Error> {
    let path = prod_keys_path(global);
    tell(&Line::KeysFile {
        file: path.path.display().to_string(),
    });
    let loaded = load(&path);
    match &loaded {
        Err(e) => tell(&Line::KeysUnusable {
            why: lang().msg(&e.msg),
        }),
        Ok(Some(loaded)) => print_status(&loaded.status),
        Ok(None) => {
            for m in [
                M::ConsoleKeysNone,
                M::ConsoleKeysWouldAdd,
                M::KeysImportHint,
            ] {
                say!("{}", word(m));
            }
        }
    }
    library_needs(global)?;
    loaded.map(|_| ())
}

fn origin_word(origin: Origin) -> &'static str {
    word(origin.word())
}

fn print_status(status: &Status) {
    let colon = colon();
    say!("header_key{colon}{}", origin_word(status.header_key));
    if status.revisions.is_empty() {
        say!("{}", word(M::NoRevisionKeys));
    } else {
        let revision = word(M::KeyRevision).to_lowercase();
        say!("{revision:<9} key_area_key_application  titlekek   master_key");
        for r in &status.revisions {
            let master = word(if r.master_key {
                M::KeyPresent
            } else {
                M::KeyAbsent
            });
            say!(
                "0x{:02x}      {:<25} {:<10} {master}",
                r.revision,
                origin_word(r.key_area),
                origin_word(r.titlekek),
            );
        }
    }
    if !status.suspect.is_empty() {
        tell_msg(&Msg::KeysSuspect {
            names: status.suspect.join(", "),
        });
    }
}

/// What the library's files need of the keys, and how they were read.
fn library_needs(global: &GlobalArgs) -> Result<(), Error> {
    let db = open_store(global)?;
    for (revision, files) in games::missing_key_revisions(&db)? {
        tell_msg(&Msg::KeysNeedRevision {
            files,
            revision: format!("{revision:02x}"),
        });
    }
    for (state, files) in games::keys_states(&db)? {
        // A missing revision is said above, with the key that would open it.
        match KeysState::parse(&state) {
            Some(KeysState::MissingKey) | None => {}
            Some(state) => tell(&Line::KeysRead { state, files }),
        }
    }
    Ok(())
}
