//! The domain's words as types: what a game is, which task runs, how it ended, why a
//! file went to the trash, how a game was identified. Each is an enum with one
//! spelling (`as_str`, also its JSON and its SQL text) and a `parse` back, so a new
//! value does not compile until every page, translation and command handles it.
//!
//! They sit at the bottom of the house, below `error` (so that messages carry them)
//! and import nothing of the crate: the store reads and writes them, the domain
//! decides them, the API and the web interface show them.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// Declares a word enum with its spelling, its list of values, serde and SQL.
macro_rules! words {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        // One API for every word: not each word uses each of its functions.
        #[allow(dead_code)]
        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The one spelling: in JSON, in SQL, in the log.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The value spelled `text` exactly, if any.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }

            /// The value spelled `text` in any case (a query parameter, an extension).
            pub fn parse_loose(text: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|w| w.as_str().eq_ignore_ascii_case(text))
            }
        }

        impl std::fmt::Display for $name {
            // `pad`, so that `{:<7}` lines a column up.
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                $name::parse(&text).ok_or_else(|| {
                    serde::de::Error::custom(format!("not a {}: {text:?}", stringify!($name)))
                })
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.as_str()))
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                let text = value.as_str()?;
                $name::parse(text).ok_or_else(|| {
                    FromSqlError::Other(format!("not a {}: {text:?}", stringify!($name)).into())
                })
            }
        }
    };
}

words! {
    /// What a game file is (the contract's `type`).
    GameKind {
        Base = "BASE",
        Update = "UPDATE",
        Dlc = "DLC",
        /// Not identified, or a title ID of no game, update or DLC.
        Unknown = "INCONNU",
    }
}

words! {
    /// A task the slot can run.
    Task {
        Scan = "scan",
        Convert = "convert",
        Push = "push",
        /// Fetch and import the title data.
        Titles = "titles",
        /// Move the files to the naming template (`jobs::organize`).
        Organize = "organize",
        /// Put back the files one organize run moved (`jobs::organize::run_undo`).
        OrganizeUndo = "organize_undo",
        /// Move superseded updates and duplicates to the trash (`jobs::dedupe`).
        Dedupe = "dedupe",
        /// Check every NCA against its CNMT record with the console keys
        /// (`jobs::verify`).
        Verify = "verify",
        /// `.nsp` → `.nsz` and `.xci` → `.xcz`, each verified before it replaces its
        /// original (`jobs::compress`).
        Compress = "compress",
        /// Add a folder to the library, then scan (`jobs::folders`).
        FolderAdd = "folder_add",
        /// Take a folder out of the library (`jobs::folders`).
        FolderRemove = "folder_remove",
    }
}

words! {
    /// What a notification target is told of (`notify`): each target gets every one
    /// until Settings narrows it.
    NoticeEvent {
        /// Titles new in the library, one message per task.
        NewGames = "new_games",
        /// Updates or DLC newly available for titles of the library.
        Updates = "updates",
        /// A task that failed or ended partial.
        TaskFailed = "task_failed",
        /// Files a task found damaged.
        Damaged = "damaged",
        /// The library's folder gone or unreadable.
        LibraryOffline = "library_offline",
        /// Free space under `--low-space` on the library's or the data folder's disk.
        LowSpace = "low_space",
        /// A console's save backed up by CyberFoil (a new version; WebDAV's files,
        /// put many at a time, are not told).
        SaveBackedUp = "save_backed_up",
    }
}

words! {
    /// What a task's `done` and `total` count.
    Unit {
        Files = "files",
        Bytes = "bytes",
    }
}

impl Task {
    pub fn unit(self) -> Unit {
        match self {
            Task::Scan
            | Task::Titles
            | Task::Organize
            | Task::OrganizeUndo
            | Task::Dedupe
            | Task::FolderAdd
            | Task::FolderRemove => Unit::Files,
            Task::Convert | Task::Push | Task::Verify | Task::Compress => Unit::Bytes,
        }
    }
}

words! {
    /// How a task run ended.
    TaskResult {
        Ok = "ok",
        /// Finished, but some files failed (each named with its reason).
        Partial = "partial",
        Failed = "failed",
        /// Somebody asked it to stop.
        Cancelled = "cancelled",
        /// The service stopped (or died) while it ran.
        Interrupted = "interrupted",
        /// Still running (the row of a run in progress).
        Running = "running",
    }
}

words! {
    /// How a push session ended (`Msg::PushDone`).
    PushEnd {
        /// The console acknowledged.
        Ack = "ack",
        /// The console sent DROP.
        Drop = "drop",
        /// The console closed the connection.
        Closed = "closed",
        /// Nothing happened for too long.
        Quiet = "quiet",
    }
}

words! {
    /// Why a file went to the trash.
    TrashReason {
        /// Deleted by somebody.
        Deleted = "deleted",
        /// Replaced by its decompressed form.
        Converted = "converted",
        /// Replaced by its compressed form, once that was verified (`jobs::compress`).
        Compressed = "compressed",
        /// Found in the trash folder without a row after a crash, and adopted.
        Recovered = "recovered",
        /// An older version of a title ID whose newer version is in the library
        /// (`dedupe`).
        Superseded = "superseded",
        /// The same title ID and version as a copy that stays (`dedupe`).
        Duplicate = "duplicate",
        /// A console's save backup: deleted, or past the versions kept (`saves`).
        Save = "save",
    }
}

words! {
    /// How the service sees changes under the library (`--watch`).
    WatchMode {
        /// inotify, or polling on a network filesystem (NFS, SMB…) or where inotify
        /// cannot be had.
        Auto = "auto",
        /// Polling, wherever the library is.
        Poll = "poll",
        /// Nothing: only a scan sees changes.
        Off = "off",
    }
}

words! {
    /// Which of two copies of the same title ID and version `dedupe` keeps.
    DedupeKeep {
        /// The `.nsp` or `.xci`: installs without decompressing.
        Uncompressed = "uncompressed",
        /// The `.nsz` or `.xcz`: smaller.
        Compressed = "compressed",
    }
}

words! {
    /// How far one file of an `organize` run got (its journal row).
    MoveState {
        /// About to move: a kill here is finished or forgotten at the next start.
        Moving = "moving",
        Moved = "moved",
        /// About to move back (`organize --undo`).
        Undoing = "undoing",
        Undone = "undone",
    }
}

words! {
    /// Where a game's title ID came from.
    IdSource {
        /// A `[0100…]` tag in the file name.
        Filename = "filename",
        /// The CNMT XML inside the container.
        CnmtXml = "cnmt_xml",
        /// The ticket inside the container.
        Ticket = "ticket",
        /// The CNMT inside, read with the user's console keys.
        Keys = "keys",
        /// Nowhere: the game is unknown.
        None = "none",
    }
}

words! {
    /// What reading a file with the console keys came to (`games.keys_state`).
    KeysState {
        /// Its CNMTs were read, and all the rest.
        Read = "read",
        /// Its CNMTs were read, not all the rest (a Control NCA whose title key the
        /// keys do not open, say): read again when the keys change.
        Partial = "partial",
        /// It needs a key revision the keys file lacks.
        MissingKey = "missing_key",
        /// Its NCA headers do not decrypt with the keys' `header_key`.
        WrongKeys = "wrong_keys",
        /// Its container or NCAs are malformed, or it has no CNMT.
        Unreadable = "unreadable",
    }
}

words! {
    /// What applies to a title: each of the first four, or else `complete` or
    /// `unknown`.
    TitleStatus {
        /// A newer update (or DLC version) than the newest file.
        UpdateAvailable = "update_available",
        /// DLC the title data knows and the library lacks.
        DlcMissing = "dlc_missing",
        /// Updates or DLC without any file of their base game.
        BaseMissing = "base_missing",
        /// Every file of the base game is damaged.
        BaseDamaged = "base_damaged",
        /// None of the above, and the title data lists the title.
        Complete = "complete",
        /// None of the above, but the title data does not list the title (or there
        /// is none): what it lacks cannot be known.
        Unknown = "unknown",
    }
}

words! {
    /// What a row of the missing list lacks.
    MissingKind {
        Update = "update",
        Dlc = "dlc",
    }
}

words! {
    /// A Switch game container, the four formats whose insides the service reads.
    /// A file's `format` stays text: a platform of the user's may hold any extension
    /// (`gba`, `zip`), and [`Container::of`] says whether it is one of these.
    Container {
        /// A PFS0 of NCAs.
        Nsp = "nsp",
        /// An NSP whose NCAs are compressed (NCZ).
        Nsz = "nsz",
        /// A cartridge image, its NCAs in the secure partition.
        Xci = "xci",
        /// An XCI whose NCAs are compressed.
        Xcz = "xcz",
    }
}

impl Container {
    /// The container of a format or extension, in any case.
    pub fn of(format: &str) -> Option<Container> {
        Container::parse_loose(format)
    }

    /// The container of a file name or library key, by its extension.
    pub fn of_name(name: &str) -> Option<Container> {
        Container::of(name.rsplit('.').next().unwrap_or(""))
    }

    /// `nsz` or `xcz`.
    pub fn is_compressed(self) -> bool {
        matches!(self, Container::Nsz | Container::Xcz)
    }

    /// `nsp` or `nsz`: a PFS0 at the start of the file (the others are cartridge
    /// images).
    pub fn is_pfs0(self) -> bool {
        matches!(self, Container::Nsp | Container::Nsz)
    }

    /// What decompressing it gives: `nsz` → `nsp`, `xcz` → `xci`; itself otherwise.
    pub fn decompressed(self) -> Container {
        match self {
            Container::Nsz => Container::Nsp,
            Container::Xcz => Container::Xci,
            c => c,
        }
    }
}

words! {
    /// What an account may do (`users.role`).
    Role {
        /// Change things, not only look.
        Admin = "admin",
        /// Look, and download.
        Viewer = "viewer",
    }
}

words! {
    /// The language of an account's pages (`users.lang`), and of the interface.
    Lang {
        /// The default, like the command line.
        Fr = "fr",
        En = "en",
    }
}

impl Lang {
    /// The language's code, as in `<html lang>`.
    pub fn code(self) -> &'static str {
        self.as_str()
    }
}

/// Who started a task: the job status's `started_by`, spelled `user:NAME`,
/// `key:NAME`, `local`, `cli`, `startup`, `watch`, `schedule` or `keys`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartedBy {
    /// A signed-in account.
    User(String),
    /// An API key, by its name (or its prefix when the name cannot be read).
    Key(String),
    /// A request from this machine without an account (the loopback rule).
    Local,
    /// A command of the command line, run here or handed to the service.
    Cli,
    /// The scan the service runs when it starts.
    Startup,
    /// A change under the library (`--watch`).
    Watch,
    /// The scheduled refresh of the title data.
    Schedule,
    /// New console keys, which open files the old ones did not.
    Keys,
}

impl StartedBy {
    /// The one spelling, read back by [`StartedBy::parse`].
    pub fn as_string(&self) -> String {
        match self {
            StartedBy::User(name) => format!("user:{name}"),
            StartedBy::Key(name) => format!("key:{name}"),
            StartedBy::Local => "local".into(),
            StartedBy::Cli => "cli".into(),
            StartedBy::Startup => "startup".into(),
            StartedBy::Watch => "watch".into(),
            StartedBy::Schedule => "schedule".into(),
            StartedBy::Keys => "keys".into(),
        }
    }

    /// The value spelled `text` exactly, if any.
    pub fn parse(text: &str) -> Option<StartedBy> {
        match text.split_once(':') {
            Some(("user", name)) => Some(StartedBy::User(name.into())),
            Some(("key", name)) => Some(StartedBy::Key(name.into())),
            Some(_) => None,
            None => match text {
                "local" => Some(StartedBy::Local),
                "cli" => Some(StartedBy::Cli),
                "startup" => Some(StartedBy::Startup),
                "watch" => Some(StartedBy::Watch),
                "schedule" => Some(StartedBy::Schedule),
                "keys" => Some(StartedBy::Keys),
                _ => None,
            },
        }
    }
}

impl std::fmt::Display for StartedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.as_string())
    }
}

impl serde::Serialize for StartedBy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.as_string())
    }
}

impl<'de> serde::Deserialize<'de> for StartedBy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        StartedBy::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("not a StartedBy: {text:?}")))
    }
}

/// A title ID: 64 bits, written as 16 upper-case hex digits (in JSON, SQL and
/// pages), read back from 16 hex digits in any case. A `u64`, so it is `Copy` and a
/// list of them allocates nothing per ID (the 33,000 title states `titles::listing`
/// keeps in memory hold one each).
///
/// Every title ID of the domain is one: the store's rows (`games`, `contents`,
/// `title_state`, `missing`, `titles`, `title_control`, `title_catalog`,
/// `title_versions`, `title_ignore`), the titles' model, the search index, the shop,
/// `dedupe` and `organize`, the pages and the API's JSON. Text becomes one at the
/// edge where a user gives it (a URL's path, a CLI argument: `parse`),
/// and when the title data and a file's name are read (`library::identify`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TitleId(pub u64);

impl TitleId {
    /// Exactly 16 hex digits, any case.
    pub fn parse(text: &str) -> Option<TitleId> {
        if text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            u64::from_str_radix(text, 16).ok().map(TitleId)
        } else {
            None
        }
    }

    /// The ID of a base game's update: the same with bit 0x800 set.
    pub fn update(self) -> TitleId {
        TitleId(self.0 | 0x800)
    }

    /// The 16 upper-case hex digits, without allocating.
    pub fn digits(self) -> [u8; 16] {
        let mut text = [0u8; 16];
        // Sixteen digits for eight bytes: the sizes always match.
        let _ = hex::encode_to_slice(self.0.to_be_bytes(), &mut text);
        text.make_ascii_uppercase();
        text
    }
}

impl std::fmt::Display for TitleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.digits();
        // Only ASCII hex digits are ever written.
        f.pad(std::str::from_utf8(&digits).map_err(|_| std::fmt::Error)?)
    }
}

impl std::fmt::Debug for TitleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl serde::Serialize for TitleId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for TitleId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        TitleId::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("not a title ID: {text:?}")))
    }
}

impl ToSql for TitleId {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.to_string()))
    }
}

impl FromSql for TitleId {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        TitleId::parse(text)
            .ok_or_else(|| FromSqlError::Other(format!("not a title ID: {text:?}").into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_reads_back_from_its_spelling() {
        for k in GameKind::ALL {
            assert_eq!(GameKind::parse(k.as_str()), Some(*k));
        }
        for t in Task::ALL {
            assert_eq!(Task::parse(t.as_str()), Some(*t));
        }
        for r in TaskResult::ALL {
            assert_eq!(TaskResult::parse(r.as_str()), Some(*r));
        }
        for by in [
            StartedBy::User("ana:b".into()),
            StartedBy::Key("backup".into()),
            StartedBy::Local,
            StartedBy::Cli,
            StartedBy::Startup,
            StartedBy::Watch,
            StartedBy::Schedule,
            StartedBy::Keys,
        ] {
            assert_eq!(StartedBy::parse(&by.as_string()), Some(by));
        }
        assert_eq!(StartedBy::parse("clii"), None);
        let id = TitleId::parse("0100abcdef012000").unwrap();
        assert_eq!(id.to_string(), "0100ABCDEF012000");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"0100ABCDEF012000\"");
        assert_eq!(TitleId::parse("0100ABCDEF01200"), None);
        assert_eq!(GameKind::parse_loose("dlc"), Some(GameKind::Dlc));
        assert_eq!(GameKind::parse("dlc"), None);
    }
}
