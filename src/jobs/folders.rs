//! Adding and removing a library folder while the service runs (Settings, or
//! `ludotheque library add|remove`): tasks of the one slot, so that no scan, move or
//! convert works on the folders while they change. An added folder is remembered in
//! the database and scanned at once (the task goes on as a scan); a removed one's
//! games, push entries and trash entries leave the library, and nothing on disk is
//! touched (its trashed files come back as `recovered` should it be added again).

use log::info;

use super::{Outcome, TaskCtx};
use crate::error::{Error, Msg};
use crate::store::{games, library_folders, push_list};
use crate::tree::folders::Folder;
use crate::tree::Folders;

/// What the task was started on: one folder, as given.
fn given(ctx: &TaskCtx) -> Result<String, Error> {
    match ctx.progress.only().as_slice() {
        [one] if !one.trim().is_empty() => Ok(one.trim().to_string()),
        _ => Err(Error::invalid(Msg::FolderToAdd)),
    }
}

pub fn add(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let folder = Folder::given(&given(ctx)?, false);
    if !folder.dir.is_dir() {
        return Err(Error::invalid(Msg::FolderNotThere));
    }
    let lib = ctx.config.folders();
    lib.check(&folder, &ctx.config.data)?;
    let dir = folder
        .dir
        .to_str()
        .ok_or_else(|| Error::invalid(Msg::FolderNotThere))?;
    library_folders::insert(ctx.db, &folder.name, dir)?;
    info!("library: the folder {:?} is added", folder.name);
    ctx.config.replace_folders(lib.with(folder));
    // Added again: what it had trashed is listed again.
    let places = crate::trash::Places::of(ctx.config, ctx.db)?;
    let last = places.folders.all().len() - 1;
    let days = ctx.config.retention_days(ctx.db);
    let adopted = crate::trash::adopt_folder(ctx.db, &places, last, days)?;
    if adopted > 0 {
        info!("library: {adopted} trashed file(s) of the folder listed again");
    }
    super::scan::run(ctx)
}

/// Whether the folder `name` may be taken out: one added, mounted or refused at start.
pub fn removable(lib: &Folders, name: &str) -> Result<(), Error> {
    let refused = lib.refused().iter().map(|(f, _)| f);
    let Some(folder) = lib.further().iter().chain(refused).find(|f| f.name == name) else {
        let name = name.to_string();
        return Err(match lib.all()[0].name == name {
            true => Error::conflict(Msg::FolderIsRoot { name }),
            false => Error::not_found(Msg::NoSuchFolder { name }),
        });
    };
    match folder.fixed {
        true => Err(Error::conflict(Msg::FolderFixed { name: name.into() })),
        false => Ok(()),
    }
}

pub fn remove(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let name = given(ctx)?;
    let lib = ctx.config.folders();
    removable(&lib, &name)?;
    let prefix = format!("{name}/");
    // Its trash entries leave with it; one of another folder whose key starts the
    // same way (the first folder's `NAME/…`, trashed before) stays.
    let places = crate::trash::Places::of(ctx.config, ctx.db)?;
    let leaving = crate::trash::entries_of(ctx.db, &places, &name)?;
    let tx = crate::store::db::write_transaction(ctx.db)?;
    let files = games::delete_under(&tx, &prefix)? as u64;
    push_list::remove_under(&tx, &prefix)?;
    for id in leaving {
        crate::store::trash::delete(&tx, id)?;
    }
    library_folders::delete(&tx, &name)?;
    games::refresh_playable(&tx)?;
    tx.commit()?;
    crate::titles::model::refresh_after_change(ctx.db);
    // What is left was scanned if the whole was: the library stays ready.
    let ready = crate::library::is_ready(ctx.db, ctx.config)?;
    ctx.config.replace_folders(lib.without(&name));
    if ready {
        crate::library::mark_ready(ctx.db, ctx.config)?;
    }
    info!("library: the folder {name:?} is removed ({files} games)");
    Ok(Msg::FolderRemoved { name, files }.into())
}
