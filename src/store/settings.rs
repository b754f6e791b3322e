//! The `settings` table: small named values the service keeps between runs. Each
//! has its own pair of functions here, so its key is spelled once, in this file, and
//! a misspelt key is a name the compiler does not know rather than a setting that
//! silently reads empty.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;

/// The library root the service last ran with (absolute; `cli::remembered_library`):
/// a command given no `--library` uses it, so that one run in another folder never
/// meets an empty `./library`.
pub const LIBRARY_PATH: Text = Text("library_path");
/// The further library folders it ran with, one `NAME=DIR` a line (absolute).
pub const LIBRARY_FURTHER: Text = Text("library_further");
/// The library root whose scan last completed (`library::is_ready`).
pub const LIBRARY_SCANNED: Text = Text("library_scanned");
/// The fingerprint of the console keys the last complete scan read with: when the
/// keys change, the files they could not open are read again once (`jobs::scan`).
pub const KEYS_READ_WITH: Text = Text("keys_read_with");
/// What the titles' states were computed from (`titles::model::is_current`).
pub const TITLES_MODEL: Text = Text("titles_model");
/// Icons are fetched from the title data's host only once an admin turned them on
/// (`titles::icons`): `on` or `off`.
pub const TITLES_ICONS: Flag = Flag("titles_icons");
/// Compress deletes the originals once verified (`jobs::compress`): `on` or `off`,
/// off until an admin turns it on in Settings.
pub const COMPRESS_DELETE_ORIGINALS: Flag = Flag("compress_delete_originals");
/// The `.part` file a conversion or a compression is writing, empty when none: a
/// killed one leaves it, and the next start removes it (`convert::clean_leftover`).
pub const CONVERT_PART: NonEmpty = NonEmpty("convert_part");
/// The shop's message to the installers, empty for the default. The shop's stamp
/// reads it in the same query as the library's generation (`library_generation`).
pub(super) const SHOP_MESSAGE: &str = "shop_message";
/// Days a trashed file is kept, as an admin set it in Settings (`--trash-retention-days`
/// wins: `Config::retention_days`).
const TRASH_RETENTION: &str = "trash_retention_days";
/// Where organize puts each file, as an admin set it in Settings
/// (`--organize-template` wins: `Config::organize_template`).
pub const ORGANIZE_TEMPLATE: NonEmpty = NonEmpty("organize_template");
/// Where the service listens, as an admin set it on the Consoles or welcome page
/// (`--listen` wins: `Service::serve`).
pub const LISTEN: NonEmpty = NonEmpty("listen");
/// The validators (ETag, Last-Modified) of each title data file last fetched, sent
/// back so that an unchanged file costs a 304 (`titles::fetch`).
const TITLEDB_ETAG: &str = "titledb_etag";
const TITLEDB_MODIFIED: &str = "titledb_modified";
/// The source (`--titledb-url`) each kept title data file came from, and when: its
/// validators are sent to that source alone.
const TITLEDB_FROM: &str = "titledb_from";

/// A setting kept as text, `None` until set.
pub struct Text(&'static str);
/// A setting that is `on` or `off`, off until set.
pub struct Flag(&'static str);
/// A setting that empty means "none" (cleared by writing "").
pub struct NonEmpty(&'static str);

impl Text {
    pub fn get(&self, conn: &Connection) -> Result<Option<String>, Error> {
        get(conn, self.0)
    }

    pub fn set(&self, conn: &Connection, value: &str) -> Result<(), Error> {
        set(conn, self.0, value)
    }
}

impl Flag {
    pub fn get(&self, conn: &Connection) -> Result<bool, Error> {
        Ok(get(conn, self.0)?.as_deref() == Some("on"))
    }

    pub fn set(&self, conn: &Connection, on: bool) -> Result<(), Error> {
        set(conn, self.0, if on { "on" } else { "off" })
    }
}

impl NonEmpty {
    pub fn get(&self, conn: &Connection) -> Result<Option<String>, Error> {
        non_empty(conn, self.0)
    }

    pub fn set(&self, conn: &Connection, value: &str) -> Result<(), Error> {
        set(conn, self.0, value)
    }
}

fn get(conn: &Connection, name: &str) -> Result<Option<String>, Error> {
    Ok(conn
        .prepare_cached("SELECT value FROM settings WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?)
}

fn set(conn: &Connection, name: &str, value: &str) -> Result<(), Error> {
    conn.execute(
        "INSERT INTO settings (name, value) VALUES (?1, ?2)
         ON CONFLICT(name) DO UPDATE SET value = excluded.value",
        params![name, value],
    )?;
    Ok(())
}

/// A value that empty means "none" (a setting cleared by writing "").
fn non_empty(conn: &Connection, name: &str) -> Result<Option<String>, Error> {
    Ok(get(conn, name)?.filter(|v| !v.is_empty()))
}

pub fn trash_retention(conn: &Connection) -> Result<Option<u32>, Error> {
    Ok(get(conn, TRASH_RETENTION)?.and_then(|v| v.parse().ok()))
}

pub fn set_trash_retention(conn: &Connection, days: u32) -> Result<(), Error> {
    set(conn, TRASH_RETENTION, &days.to_string())
}

/// The shop's message, empty when none was set.
pub fn shop_message(conn: &Connection) -> Result<String, Error> {
    Ok(get(conn, SHOP_MESSAGE)?.unwrap_or_default())
}

pub fn set_shop_message(conn: &Connection, message: &str) -> Result<(), Error> {
    set(conn, SHOP_MESSAGE, message)
}

/// The ETag and the Last-Modified the host gave for the title data file `file`,
/// each `None` when it gave none.
pub fn titledb_validators(
    conn: &Connection,
    file: &str,
) -> Result<(Option<String>, Option<String>), Error> {
    Ok((
        non_empty(conn, &format!("{TITLEDB_ETAG} {file}"))?,
        non_empty(conn, &format!("{TITLEDB_MODIFIED} {file}"))?,
    ))
}

pub fn set_titledb_validators(
    conn: &Connection,
    file: &str,
    (etag, modified): (Option<&str>, Option<&str>),
) -> Result<(), Error> {
    set(conn, &format!("{TITLEDB_ETAG} {file}"), etag.unwrap_or(""))?;
    set(
        conn,
        &format!("{TITLEDB_MODIFIED} {file}"),
        modified.unwrap_or(""),
    )
}

/// The source the kept copy of `file` came from, and when (Unix seconds).
pub fn titledb_from(conn: &Connection, file: &str) -> Result<Option<(String, i64)>, Error> {
    let value = non_empty(conn, &format!("{TITLEDB_FROM} {file}"))?;
    Ok(value.and_then(|v| {
        let (at, url) = v.split_once(' ')?;
        Some((url.to_string(), at.parse().ok()?))
    }))
}

pub fn set_titledb_from(conn: &Connection, file: &str, url: &str, at: i64) -> Result<(), Error> {
    set(
        conn,
        &format!("{TITLEDB_FROM} {file}"),
        &format!("{at} {url}"),
    )
}
