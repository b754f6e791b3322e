//! What each folder of the library is now, as Settings and `ludotheque library list`
//! show it: its state, its games, its disk's free space and filesystem (so that a
//! user sees why the watch polls it).

use rusqlite::Connection;

use crate::error::i18n::M;
use crate::error::Error;
use crate::store::games;
use crate::tree::folders::{Folder, State};
use crate::tree::Folders;

/// One folder of the library, looked at now.
#[derive(Debug, Clone)]
pub struct FolderRow {
    pub folder: Folder,
    /// The first folder: its keys have no prefix, and it cannot be removed.
    pub first: bool,
    pub state: State,
    /// The games the library lists in it, and their bytes.
    pub files: u64,
    pub bytes: u64,
    /// Free space on its disk, when it can be asked.
    pub free: Option<u64>,
    /// Its filesystem's name (`ext4`, `nfs`…) and whether the watch polls it.
    pub filesystem: Option<(&'static str, bool)>,
    /// An added folder not mounted at start, and why (`Folders::refused`).
    pub refused: Option<crate::error::Msg>,
}

impl FolderRow {
    /// Its state (the slug the page's `data-state` carries, and its word), and whether
    /// it was given on the command line or added while the service ran.
    pub fn words(&self) -> (&'static str, M, M) {
        let (slug, state) = match (&self.refused, self.state) {
            (Some(_), _) => ("refused", M::FolderRefusedAtStart),
            (None, State::Online) => ("online", M::FolderOnline),
            (None, State::Offline) => ("offline", M::FolderOffline),
            (None, State::Unreadable) => ("unreadable", M::FolderUnreadable),
        };
        let kind = match self.folder.fixed {
            true => M::FolderGivenAtStart,
            false => M::FolderAddedHere,
        };
        (slug, state, kind)
    }
}

pub fn rows(db: &Connection, lib: &Folders) -> Result<Vec<FolderRow>, Error> {
    let refused = lib.refused().iter().map(|(f, _)| format!("{}/", f.name));
    let prefixes: Vec<String> = (1..lib.all().len())
        .map(|i| lib.prefix(i))
        .chain(refused)
        .collect();
    // The games of folders this run does not mount are no first folder's.
    let unmounted = super::unmounted(db, lib)?;
    let n = prefixes.len() + 1;
    let others: Vec<String> = unmounted
        .into_iter()
        .filter(|p| !prefixes.contains(p))
        .collect();
    let all: Vec<String> = prefixes.into_iter().chain(others).collect();
    let mut counts = games::count_by_folder(db, &all)?;
    counts.truncate(n);
    let folders = lib.all().iter().map(|f| (f, None));
    let refused = lib.refused().iter().map(|(f, why)| (f, Some(why.clone())));
    Ok(folders
        .chain(refused)
        .zip(counts)
        .enumerate()
        .map(|(i, ((folder, refused), (files, bytes)))| {
            let state = State::of(&folder.dir);
            let online = state == State::Online;
            FolderRow {
                folder: folder.clone(),
                first: i == 0,
                state,
                files,
                bytes,
                free: online
                    .then(|| super::safe::free_space(&folder.dir).ok())
                    .flatten(),
                filesystem: online
                    .then(|| super::safe::filesystem(&folder.dir))
                    .flatten(),
                refused,
            }
        })
        .collect())
}
