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
    super::scan::run(ctx)
}

pub fn remove(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let name = given(ctx)?;
    let lib = ctx.config.folders();
    let Some(folder) = lib.all().iter().find(|f| f.name == name) else {
        return Err(Error::not_found(Msg::NoSuchFolder { name }));
    };
    // The first folder is the library's root: `--library` always gives it.
    if folder.fixed {
        return Err(Error::conflict(Msg::FolderFixed { name }));
    }
    let prefix = format!("{name}/");
    let tx = crate::store::db::write_transaction(ctx.db)?;
    let files = games::delete_under(&tx, &prefix)? as u64;
    push_list::remove_under(&tx, &prefix)?;
    crate::store::trash::delete_under(&tx, &prefix)?;
    library_folders::delete(&tx, &name)?;
    games::refresh_playable(&tx)?;
    tx.commit()?;
    crate::titles::model::refresh_after_change(ctx.db);
    ctx.config.replace_folders(lib.without(&name));
    info!("library: the folder {name:?} is removed ({files} games)");
    Ok(Msg::FolderRemoved { name, files }.into())
}
