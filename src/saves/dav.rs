//! A console's own space for WebDAV clients (JKSV, rclone, a file manager): its folder
//! of the vault, `DATA/saves/<console>/`, where CyberFoil's versions are files too
//! (`<title ID>/<save ID>.zip`). What a client removes or replaces goes to the trash,
//! as a save does; what it writes arrives whole (`Incoming`, then a rename), so a cut
//! upload never replaces a file. Links are never followed: one planted in the space
//! is as absent.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rusqlite::Connection;

use super::{console_folder, sync_folder, Incoming, FOLDER};
use crate::error::{Error, Kind, Msg};
use crate::library::{safe, LibraryKey};
use crate::store::dav_props;
use crate::store::saves::{self as versions, SaveRow};
use crate::trash;
use crate::words::TitleId;

/// The most names a path has: what it costs to check a path grows with its depth,
/// and a save manager's tree is a few levels deep.
pub const MAX_DEPTH: usize = 32;
/// The most files a `COPY` or a `DELETE` of a folder, or a listing, reaches.
pub const MAX_ENTRIES: usize = 10_000;
/// The most entries the quota's count walks (a space past it counts what it met).
const QUOTA_WALK: usize = 100_000;

/// Held from the quota's check to the write it allows (a `COPY`, a file put in
/// place): two requests at once never both fit in the room left for one.
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The lock of [`WRITING`] (a panic while it was held left nothing half counted).
pub fn writing() -> std::sync::MutexGuard<'static, ()> {
    WRITING.lock().unwrap_or_else(|p| p.into_inner())
}

/// A path in a console's space: its names, none empty, `.`, `..`, nor holding `\` or
/// a control character. Empty segments (`a//b`, a trailing `/`) are dropped: JKSV's
/// newer client doubles its slashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DavPath(Vec<String>);

impl DavPath {
    pub fn parse(raw: &str) -> Result<DavPath, Error> {
        let mut names = Vec::new();
        for s in raw.split('/').filter(|s| !s.is_empty()) {
            let bad = s == "."
                || s == ".."
                || s.contains('\\')
                || s.len() > 255
                || s.chars().any(char::is_control);
            if bad {
                return Err(Error::invalid(Msg::DavBadPath));
            }
            names.push(s.to_string());
        }
        if names.len() > MAX_DEPTH {
            return Err(Error::invalid(Msg::DavTooDeep { max: MAX_DEPTH }));
        }
        Ok(DavPath(names))
    }

    pub fn names(&self) -> &[String] {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// `a/b`: the key of its properties (`""` for the space itself).
    pub fn text(&self) -> String {
        self.0.join("/")
    }

    pub fn name(&self) -> &str {
        self.0.last().map_or("", String::as_str)
    }

    pub fn parent(&self) -> DavPath {
        DavPath(self.0[..self.0.len().saturating_sub(1)].to_vec())
    }

    pub fn join(&self, name: &str) -> DavPath {
        let mut names = self.0.clone();
        names.push(name.to_string());
        DavPath(names)
    }

    /// `self` is `other` or holds it.
    pub fn holds(&self, other: &DavPath) -> bool {
        other.0.starts_with(&self.0)
    }
}

/// What a path names: a folder, or a file with its size; and when it changed.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    pub dir: bool,
    pub len: u64,
    pub modified: SystemTime,
}

/// One console's space, and the rules its changes follow.
pub struct Space<'a> {
    pub db: &'a Connection,
    pub data: &'a Path,
    pub console: &'a str,
    pub retention_days: u32,
    /// The most bytes its files may hold (`--save-quota`).
    pub quota: u64,
}

impl<'a> Space<'a> {
    /// The space of `console`, under the service's data folder, retention and quota.
    pub fn of(db: &'a Connection, config: &'a crate::config::Config, console: &'a str) -> Self {
        Space {
            db,
            data: &config.data,
            console,
            retention_days: config.retention_days(db),
            quota: config.serve.save_quota,
        }
    }

    fn key(&self, p: &DavPath) -> LibraryKey {
        let mut raw = format!("{FOLDER}/{}", console_folder(self.console));
        for name in p.names() {
            raw.push('/');
            raw.push_str(name);
        }
        LibraryKey::parse(&raw).expect("checked names make a key")
    }

    fn path(&self, p: &DavPath) -> PathBuf {
        self.key(p).under(self.data)
    }

    /// Make the space's folder (and the vault's) if they are not there yet.
    pub fn open(&self) -> Result<(), Error> {
        let inside = self.key(&DavPath(vec!["-".into()]));
        safe::make_folders(self.data, &inside)?;
        Ok(())
    }

    /// What is at `p`: a real folder or a regular file reached through real folders.
    pub fn node(&self, p: &DavPath) -> Option<Node> {
        safe::check_folders(self.data, &self.key(p)).ok()?;
        let meta = std::fs::symlink_metadata(self.path(p)).ok()?;
        let t = meta.file_type();
        (t.is_dir() || t.is_file()).then(|| Node {
            dir: t.is_dir(),
            len: if t.is_file() { meta.len() } else { 0 },
            modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        })
    }

    /// A folder's entries, by name.
    pub fn children(&self, p: &DavPath) -> Vec<(DavPath, Node)> {
        let Ok(entries) = std::fs::read_dir(self.path(p)) else {
            return Vec::new();
        };
        let mut out: Vec<(DavPath, Node)> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|name| DavPath::parse(&name).ok().map(|_| p.join(&name)))
            .filter_map(|child| self.node(&child).map(|n| (child, n)))
            .collect();
        out.sort_by(|a, b| a.0.name().cmp(b.0.name()));
        out
    }

    /// Every file of the space below `p`, in name order; the walk stops once it has
    /// met `limit` entries (files and folders), so a tree of any size costs at most
    /// that. The second value says whether it stopped.
    pub fn files(&self, p: &DavPath, limit: usize) -> (Vec<(DavPath, Node)>, bool) {
        let (mut out, mut met) = (Vec::new(), 0);
        let mut todo = vec![p.clone()];
        while let Some(folder) = todo.pop() {
            for (child, node) in self.children(&folder).into_iter().rev() {
                met += 1;
                if met > limit {
                    return (out, true);
                }
                if node.dir {
                    todo.push(child);
                } else {
                    out.push((child, node));
                }
            }
        }
        out.sort_by(|a, b| a.0.names().cmp(b.0.names()));
        (out, false)
    }

    /// The bytes of the file `p`, or of the files below the folder `p`; a tree past
    /// [`MAX_ENTRIES`] is refused.
    fn weigh(&self, p: &DavPath) -> Result<u64, Error> {
        if let Some(node) = self.node(p).filter(|n| !n.dir) {
            return Ok(node.len);
        }
        let (files, cut) = self.files(p, MAX_ENTRIES);
        if cut {
            return Err(Error::forbidden(Msg::DavTooMany { max: MAX_ENTRIES }));
        }
        Ok(files.iter().map(|(_, n)| n.len).sum())
    }

    /// How many levels of folders and files lie below `p` (0 for a file or an empty
    /// folder); a tree past [`MAX_ENTRIES`] is refused.
    fn depth_below(&self, p: &DavPath) -> Result<usize, Error> {
        let (mut deepest, mut met) = (0, 0);
        let mut todo = vec![(p.clone(), 0)];
        while let Some((folder, level)) = todo.pop() {
            for (child, node) in self.children(&folder) {
                met += 1;
                if met > MAX_ENTRIES {
                    return Err(Error::forbidden(Msg::DavTooMany { max: MAX_ENTRIES }));
                }
                deepest = deepest.max(level + 1);
                if node.dir {
                    todo.push((child, level + 1));
                }
            }
        }
        Ok(deepest)
    }

    /// Whether `bytes` more fit in the console's quota (507 when they do not): its
    /// files, and the dead properties its clients set.
    pub fn room_for(&self, bytes: u64) -> Result<(), Error> {
        let (files, _) = self.files(&DavPath(Vec::new()), QUOTA_WALK);
        let used: u64 = files.iter().map(|(_, n)| n.len).sum::<u64>()
            + dav_props::bytes_of(self.db, self.console)?;
        if used.saturating_add(bytes) > self.quota {
            let quota = self.quota;
            return Err(Error::new(
                Kind::InsufficientStorage,
                Msg::SaveQuota { quota },
            ));
        }
        Ok(())
    }

    /// Open a file to read it.
    pub fn read(&self, p: &DavPath) -> Result<(File, Node), Error> {
        let gone = || Error::not_found(Msg::NoSave);
        let node = self.node(p).ok_or_else(gone)?;
        if node.dir {
            return Err(Error::invalid(Msg::DavIsFolder));
        }
        let file = safe::open(self.data, &self.key(p)).map_err(|e| gone().with_cause(e))?;
        Ok((file, node))
    }

    /// `MKCOL`: a new folder in an existing one.
    pub fn mkcol(&self, p: &DavPath) -> Result<(), Error> {
        if p.is_root() || self.node(p).is_some() {
            return Err(Error::method_not_allowed(&["GET", "PROPFIND", "DELETE"]));
        }
        self.parent_is_a_folder(p)?;
        std::fs::create_dir(self.path(p))?;
        Ok(())
    }

    fn parent_is_a_folder(&self, p: &DavPath) -> Result<(), Error> {
        match self.node(&p.parent()) {
            Some(n) if n.dir => Ok(()),
            _ => Err(Error::conflict(Msg::DavNoParent)),
        }
    }

    /// The version CyberFoil uploaded that lives at `p`, if it is one.
    fn version_at(&self, p: &DavPath) -> Result<Option<SaveRow>, Error> {
        let [title, file] = p.names() else {
            return Ok(None);
        };
        // Only the folder CyberFoil's versions are in: its name in upper case.
        let title = TitleId::parse(title).filter(|id| id.to_string() == *title);
        let (Some(title), Some(save)) = (title, file.strip_suffix(".zip")) else {
            return Ok(None);
        };
        versions::find(self.db, self.console, title, Some(save))
    }

    /// `DELETE`: a file, or a folder's every file, to the trash; its properties go.
    pub fn remove(&self, p: &DavPath) -> Result<(), Error> {
        if p.is_root() {
            return Err(Error::forbidden(Msg::DavRoot));
        }
        let node = self.node(p).ok_or_else(|| Error::not_found(Msg::NoSave))?;
        if node.dir {
            self.weigh(p)?;
            for (child, _) in self.children(p) {
                self.remove(&child)?;
            }
            std::fs::remove_dir(self.path(p))?;
        } else {
            self.file_to_trash(p)?;
        }
        dav_props::forget_tree(self.db, self.console, &p.text())?;
        Ok(())
    }

    /// `PUT`: the received file at `p`, the one it replaces to the trash. Whether it
    /// is new.
    pub fn put(&self, p: &DavPath, incoming: Incoming) -> Result<bool, Error> {
        if p.is_root() {
            return Err(Error::forbidden(Msg::DavRoot));
        }
        self.parent_is_a_folder(p)?;
        let existed = self.node(p);
        if existed.is_some_and(|n| n.dir) {
            return Err(Error::method_not_allowed(&["GET", "PROPFIND", "DELETE"]));
        }
        incoming.sync()?;
        let _writing = writing();
        self.room_for(incoming.written)?;
        if existed.is_some() {
            self.file_to_trash(p)?;
        }
        safe::move_new(&incoming.path, &self.path(p))?;
        sync_folder(&self.path(p));
        Ok(existed.is_none())
    }

    /// A file to the trash (deleted, or about to be replaced: its properties stay
    /// with its path), with its version's row when CyberFoil uploaded it.
    fn file_to_trash(&self, p: &DavPath) -> Result<(), Error> {
        let name = format!("{} · {}", self.console, p.text());
        let row = self.version_at(p)?;
        let key = self.key(p);
        trash::move_save_in(
            self.db,
            self.data,
            row.as_ref(),
            &key,
            name,
            self.retention_days,
        )?;
        Ok(())
    }

    /// What `COPY` and `MOVE` check first: the source, the destination's folder, and
    /// what is at the destination (to the trash with `overwrite`, else 412). Whether
    /// something was there.
    fn clear_target(&self, from: &DavPath, to: &DavPath, overwrite: bool) -> Result<bool, Error> {
        let node = self
            .node(from)
            .ok_or_else(|| Error::not_found(Msg::NoSave))?;
        if from.is_root() || to.is_root() {
            return Err(Error::forbidden(Msg::DavRoot));
        }
        if from.holds(to) || (node.dir && to.holds(from)) || to.holds(from) {
            return Err(Error::forbidden(Msg::DavSame));
        }
        self.parent_is_a_folder(to)?;
        // What moves keeps its depth below the destination: the whole tree must stay
        // within MAX_DEPTH there too.
        if to.names().len() + self.depth_below(from)? > MAX_DEPTH {
            return Err(Error::invalid(Msg::DavTooDeep { max: MAX_DEPTH }));
        }
        let existed = self.node(to).is_some();
        if existed && !overwrite {
            return Err(Error::new(Kind::PreconditionFailed, Msg::DavTaken));
        }
        if existed {
            self.remove(to)?;
        }
        Ok(existed)
    }

    /// `COPY`: a file, or a folder (with what it holds when `deep`), and its
    /// properties. Whether the destination is new.
    pub fn copy(
        &self,
        from: &DavPath,
        to: &DavPath,
        deep: bool,
        overwrite: bool,
    ) -> Result<bool, Error> {
        let _writing = writing();
        self.room_for(self.weigh(from)?)?;
        let existed = self.clear_target(from, to, overwrite)?;
        self.copy_node(from, to, deep)?;
        Ok(!existed)
    }

    fn copy_node(&self, from: &DavPath, to: &DavPath, deep: bool) -> Result<(), Error> {
        let node = self
            .node(from)
            .ok_or_else(|| Error::not_found(Msg::NoSave))?;
        if node.dir {
            std::fs::create_dir(self.path(to))?;
            if deep {
                for (child, _) in self.children(from) {
                    self.copy_node(&child, &to.join(child.name()), true)?;
                }
            }
        } else {
            let (mut src, _) = self.read(from)?;
            let mut incoming = super::incoming(self.data)?;
            let copied = std::io::copy(&mut src, &mut incoming).map_err(Error::from);
            incoming.took(copied)?;
            incoming.sync()?;
            safe::move_new(&incoming.path, &self.path(to))?;
            sync_folder(&self.path(to));
        }
        for prop in dav_props::of(self.db, self.console, &from.text())? {
            dav_props::set(self.db, self.console, &to.text(), &prop)?;
        }
        Ok(())
    }

    /// `MOVE`: a rename within the space, with its properties. A version CyberFoil
    /// uploaded that moves is a plain file from then on. Whether the destination is new.
    pub fn rename(&self, from: &DavPath, to: &DavPath, overwrite: bool) -> Result<bool, Error> {
        let existed = self.clear_target(from, to, overwrite)?;
        let moved: Vec<SaveRow> = versions::of_console(self.db, self.console)?
            .into_iter()
            .filter(|row| {
                let path = DavPath(vec![
                    row.title_id.to_string(),
                    format!("{}.zip", row.save_id),
                ]);
                from.holds(&path)
            })
            .collect();
        safe::move_new(&self.path(from), &self.path(to))?;
        sync_folder(&self.path(to));
        dav_props::copy_tree(self.db, self.console, &from.text(), &to.text(), false)?;
        for row in moved {
            versions::forget(self.db, row.id)?;
        }
        Ok(!existed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_drop_empty_names_and_refuse_the_rest() {
        assert_eq!(
            DavPath::parse("/JKSV//Zelda/").unwrap().text(),
            "JKSV/Zelda"
        );
        assert!(DavPath::parse("").unwrap().is_root());
        for bad in ["a/../b", "./a", "a\\b", "a/\u{1}"] {
            assert!(DavPath::parse(bad).is_err(), "{bad}");
        }
        let a = DavPath::parse("a").unwrap();
        assert!(a.holds(&DavPath::parse("a/b").unwrap()));
        assert!(!a.holds(&DavPath::parse("ab").unwrap()));
    }
}
