//! The game library: walking the root, reading containers, identifying files.

use std::path::Path;

use rusqlite::Connection;

use crate::error::Error;
use crate::store::settings;

const READY_SETTING: &str = "library_scanned";

/// True once a scan of *this* library root has completed (a service pointed at
/// another folder starts not ready again).
pub fn is_ready(db: &Connection, root: &Path) -> Result<bool, Error> {
    Ok(settings::get(db, READY_SETTING)?.as_deref() == Some(&*root.to_string_lossy()))
}

pub fn mark_ready(db: &Connection, root: &Path) -> Result<(), Error> {
    settings::set(db, READY_SETTING, &root.to_string_lossy())
}
