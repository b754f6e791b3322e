//! The library's data from the command line: the console and its push list, the
//! trash, a backup of the database.

use std::path::Path;

use super::open_store;
use super::out::{colon, lang, number, tell, word};
use crate::args::{DeviceCommand, GlobalArgs, LibraryCommand, PushCommand, TrashCommand};
use crate::error::i18n::M;
use crate::error::{Error, Line, Msg};
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
            tell(&Line::DeviceSet {
                name: name.clone(),
                address: format!("{host}:{port}"),
            });
        }
        DeviceCommand::Show => match store::device::get(&conn)? {
            None => tell(&Line::NoDevice),
            Some(d) => show_device(&d, &store::push_list::list(&conn)?),
        },
        DeviceCommand::Clear => {
            store::device::clear(&conn)?;
            tell(&Line::DeviceForgotten);
        }
    }
    Ok(())
}

pub fn push_command(global: &GlobalArgs, command: &PushCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        PushCommand::Add { key, title: false } => {
            device::add_game(&conn, key)?;
            tell(&Line::PushAdded { key: key.clone() });
        }
        PushCommand::Add { key, title: true } => {
            let keys = device::add_title(&conn, device::title_id(key)?)?;
            for key in keys {
                tell(&Line::PushAdded { key });
            }
        }
        PushCommand::List => {
            let items = store::push_list::list(&conn)?;
            if items.is_empty() {
                say!("{}", word(M::PushEmpty));
            }
            for (key, size) in items {
                say!("{:>13} {}  {key}", number(size), bytes_word(size));
            }
        }
        PushCommand::Remove { key } => {
            if !store::push_list::remove(&conn, key)? {
                return Err(Error::not_found(Msg::NotInPushList { key: key.clone() }));
            }
            tell(&Line::PushRemoved { key: key.clone() });
        }
    }
    Ok(())
}

/// `ludotheque library`: list the folders, or add or remove one as a task (through
/// the running service when there is one: it takes effect there at once).
pub fn library_command(global: &GlobalArgs, command: &LibraryCommand) -> Result<(), Error> {
    match command {
        LibraryCommand::List => {
            let conn = open_store(global)?;
            let lib = super::folders(global)?;
            let rows = crate::library::folder_rows::rows(&conn, &lib)?;
            for row in &rows {
                tell(&folder_line(row));
                if let Some(why) = &row.refused {
                    super::out::tell_msg(why);
                }
            }
            // The folders the service ran with that this command was not given.
            let listed = |p: &String| rows.iter().any(|r| format!("{}/", r.folder.name) == *p);
            for prefix in crate::library::unmounted(&conn, &lib)?
                .iter()
                .filter(|p| !listed(p))
            {
                let kept = store::games::count_by_folder(&conn, std::slice::from_ref(prefix))?[1].0;
                let name = prefix.trim_end_matches('/').to_string();
                super::out::tell_msg(&Msg::FolderNotMounted { name, kept });
            }
            Ok(())
        }
        LibraryCommand::Add { folder } => {
            // Made absolute here: a service started elsewhere reads it as given.
            let added = crate::tree::folders::Folder::given(folder, false);
            let given = format!("{}={}", added.name, added.dir.display());
            super::task::foreground_on(global, crate::jobs::Task::FolderAdd, &[given])
        }
        LibraryCommand::Remove { name } => {
            let only = [name.clone()];
            super::task::foreground_on(global, crate::jobs::Task::FolderRemove, &only)
        }
    }
}

fn folder_line(row: &crate::library::folder_rows::FolderRow) -> Line {
    let (_, state, kind) = row.words();
    let filesystem = match row.filesystem {
        Some((name, heard)) => {
            let watch = word(if heard {
                M::FolderHeard
            } else {
                M::FolderPolled
            });
            format!("{name} ({watch})")
        }
        None => "?".into(),
    };
    Line::FolderListed {
        name: row.folder.name.clone(),
        state: word(state).into(),
        files: row.files,
        bytes: row.bytes,
        free: row.free,
        filesystem,
        kind: word(kind).into(),
        dir: row.folder.dir.display().to_string(),
    }
}

pub fn trash_command(global: &GlobalArgs, command: &TrashCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    // The list is the database's: only restore and purge need the library itself.
    let places = || {
        let folders = super::folders(global)?;
        Ok::<_, Error>(trash::Places {
            unmounted: crate::library::unmounted(&conn, &folders)?,
            folders: std::sync::Arc::new(folders),
            data: global.data.clone(),
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
            let row = trash::restore_as(&conn, &places()?, *id, as_name.as_deref(), keys)?;
            tell(&Line::Restored { key: row.key });
        }
        TrashCommand::Purge { id: Some(id), .. } => {
            let row = trash::purge(&conn, &places()?, *id)?;
            tell(&Line::PurgedOne { key: row.key });
        }
        TrashCommand::Purge { expired: true, .. } => {
            let n = trash::purge_expired(&conn, &places()?, time::now())?;
            tell(&Line::PurgedExpired { entries: n as u64 });
        }
        TrashCommand::Purge { .. } => {
            let (rows, places) = (store::trash::list(&conn)?, places()?);
            for r in &rows {
                trash::purge(&conn, &places, r.id)?;
            }
            tell(&Line::PurgedAll {
                entries: rows.len() as u64,
            });
        }
    }
    Ok(())
}

/// `trash list`: a line per entry, then how many and how large.
fn list_trash(rows: &[store::trash::TrashRow]) {
    if rows.is_empty() {
        say!("{}", word(M::TrashEmpty));
    }
    for r in rows {
        let dates = lang().line(&Line::TrashDates {
            deleted: time::local(r.deleted_at),
            expires: time::local(r.expires_at),
        });
        say!(
            "{:<5} {:<10} {:>13} {}  {dates}  {}",
            r.id,
            r.reason,
            number(r.size),
            bytes_word(r.size),
            r.key
        );
    }
    tell(&Line::TrashTotal {
        entries: rows.len() as u64,
        bytes: rows.iter().map(|r| r.size).sum(),
    });
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
    tell(&Line::BackedUp {
        file: file.display().to_string(),
    });
    backup_saves(global, file)?;
    tell(&Line::BackupNoKeys);
    Ok(())
}

/// The consoles' save backups (`DATA/saves/`), copied beside the database's copy
/// `FILE`, into the folder `FILE-saves` (private, like the copy): the versions the
/// database lists, so the two restore together. The trash is not copied.
fn backup_saves(global: &GlobalArgs, file: &Path) -> Result<(), Error> {
    let vault = global.data.join(crate::saves::FOLDER);
    if !vault.is_dir() {
        return Ok(());
    }
    let mut dir = file.as_os_str().to_owned();
    dir.push("-saves");
    let dir = std::path::PathBuf::from(dir);
    let cannot = |e: std::io::Error| {
        Error::invalid(Msg::CannotCreate {
            file: dir.display().to_string(),
        })
        .with_cause(e)
    };
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(cannot)?;
    }
    let files = copy_tree(&vault, &dir).map_err(cannot)?;
    tell(&Line::BackedUpSaves {
        dir: dir.display().to_string(),
        files,
    });
    Ok(())
}

/// Copy the files and folders below `from` into `to` (which exists); links are left
/// out. How many files.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<u64> {
    let mut files = 0;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (kind, target) = (entry.file_type()?, to.join(entry.file_name()));
        if kind.is_dir() {
            std::fs::create_dir(&target)?;
            files += copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
            files += 1;
        }
    }
    Ok(files)
}

/// `device show`: the console, how the last push went, what waits.
fn show_device(d: &store::device::Device, pending: &[(String, u64)]) {
    let colon = colon();
    let line = |label: M, value: &str| say!("{}{colon}{value}", word(label));
    line(M::Console, &format!("{} ({}:{})", d.name, d.host, d.port));
    let offered = d.offer_address.as_deref();
    line(
        M::OfferedAddress,
        offered.unwrap_or(word(M::DetectedEachPush)),
    );
    let last_push = d.last_push.map(time::local);
    line(M::LastPush, last_push.as_deref().unwrap_or(word(M::Never)));
    let result = d
        .last_result
        .as_deref()
        .map(|r| crate::words::TaskResult::parse(r).map_or(r, |r| word(M::of_result(r))));
    line(M::LastResult, result.unwrap_or(word(M::NoneYet)));
    line(M::Client, d.client.as_deref().unwrap_or(word(M::NoneYet)));
    let waiting = lang().line(&Line::Waiting {
        games: pending.len() as u64,
        bytes: pending.iter().map(|p| p.1).sum(),
    });
    line(M::PushList, &waiting);
}

/// "octets" or "bytes", agreeing with `n` and padded to line up a column.
fn bytes_word(n: u64) -> String {
    let word = lang()
        .grammar()
        .agree(n, word(M::ByteWord), word(M::BytesWord));
    format!("{word:<6}")
}
