//! The schema, as an append-only list of migrations tracked by `PRAGMA user_version`.
//!
//! Never edit or reorder an entry that has shipped: add a new one at the end. All
//! pending migrations run in one transaction at start, so a crash leaves the old
//! schema whole. A database whose version is beyond this list was written by a newer
//! program and is refused rather than misread.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Detail, Error, Kind, Msg};

const MIGRATIONS: &[&str] = &[
    // 1: settings and the task history.
    "CREATE TABLE settings (
         name  TEXT PRIMARY KEY,
         value TEXT NOT NULL
     );
     CREATE TABLE job_runs (
         id          INTEGER PRIMARY KEY,
         label       TEXT NOT NULL,
         result      TEXT NOT NULL,          -- running | ok | failed | cancelled | interrupted
         started_at  INTEGER NOT NULL,
         finished_at INTEGER,
         done        INTEGER NOT NULL DEFAULT 0,
         total       INTEGER NOT NULL DEFAULT 0,
         errors      INTEGER NOT NULL DEFAULT 0,
         message     TEXT NOT NULL DEFAULT ''
     );",
    // 2: API keys. Only the SHA-256 of a key is kept.
    "CREATE TABLE api_keys (
         id           INTEGER PRIMARY KEY,
         name         TEXT NOT NULL,
         hash         BLOB NOT NULL UNIQUE,
         prefix       TEXT NOT NULL,
         read_only    INTEGER NOT NULL DEFAULT 0,
         created_at   INTEGER NOT NULL,
         last_used_at INTEGER,
         revoked_at   INTEGER
     );",
    // 3: the library: platforms, imported title names, games.
    "CREATE TABLE platforms (
         slug       TEXT PRIMARY KEY,
         name       TEXT NOT NULL,
         folder     TEXT NOT NULL DEFAULT '',   -- relative to the library root; '' = all of it
         extensions TEXT NOT NULL               -- comma-separated, lower case, no dot
     );
     INSERT INTO platforms (slug, name, folder, extensions)
         VALUES ('switch', 'Nintendo Switch', '', 'nsp,nsz,xci,xcz');
     CREATE TABLE titles (
         id   TEXT PRIMARY KEY,                 -- 16 upper-case hex digits
         name TEXT NOT NULL
     );
     CREATE TABLE games (
         key            TEXT PRIMARY KEY,       -- path relative to the library root
         platform       TEXT NOT NULL REFERENCES platforms(slug) ON DELETE CASCADE,
         name           TEXT NOT NULL,
         file_name_name TEXT NOT NULL,
         folded         TEXT NOT NULL,
         type           TEXT NOT NULL,          -- BASE | UPDATE | DLC | INCONNU
         subtype        TEXT,
         title_id       TEXT,
         base_title_id  TEXT,
         version        INTEGER,
         format         TEXT NOT NULL,
         size           INTEGER NOT NULL,
         mtime          INTEGER NOT NULL,       -- nanoseconds since the epoch
         header_ok      INTEGER NOT NULL,
         playable       INTEGER NOT NULL DEFAULT 0,
         identified_by  TEXT NOT NULL,          -- filename | cnmt_xml | ticket | none
         note           TEXT
     );
     CREATE INDEX games_by_name ON games (folded, key);
     CREATE INDEX games_by_type_name ON games (type, folded, key);
     CREATE INDEX games_by_title ON games (title_id);
     CREATE INDEX games_by_base ON games (base_title_id);",
    // 4: substring search on folded names, from an index (trigram FTS5), kept in step
    //    with `games` by triggers.
    "CREATE VIRTUAL TABLE games_fts USING fts5(
         folded, content = 'games', content_rowid = 'rowid', tokenize = 'trigram'
     );
     CREATE TRIGGER games_fts_insert AFTER INSERT ON games BEGIN
         INSERT INTO games_fts (rowid, folded) VALUES (new.rowid, new.folded);
     END;
     CREATE TRIGGER games_fts_delete AFTER DELETE ON games BEGIN
         INSERT INTO games_fts (games_fts, rowid, folded) VALUES ('delete', old.rowid, old.folded);
     END;
     CREATE TRIGGER games_fts_update AFTER UPDATE OF folded ON games BEGIN
         INSERT INTO games_fts (games_fts, rowid, folded) VALUES ('delete', old.rowid, old.folded);
         INSERT INTO games_fts (rowid, folded) VALUES (new.rowid, new.folded);
     END;
     INSERT INTO games_fts (games_fts) VALUES ('rebuild');",
    // 5: each game's rank in the library order, overall and within its type, so that
    //    any page and any count are index lookups instead of OFFSET scans. Kept
    //    current by `games::renumber` in the transaction of every change. The indexes
    //    cover what a list shows, so a page never touches the table.
    "ALTER TABLE games ADD COLUMN ord INTEGER;
     ALTER TABLE games ADD COLUMN type_ord INTEGER;
     CREATE INDEX games_by_ord ON games (ord, key, name, type, size, playable, title_id);
     CREATE INDEX games_by_type_ord
         ON games (type, type_ord, key, name, size, playable, title_id);",
    // 6: the trash. An entry's file lives in `.ludotheque-trash/<id>/<key>`.
    "CREATE TABLE trash (
         id         INTEGER PRIMARY KEY,
         key        TEXT NOT NULL,          -- where the file was (and goes back to)
         name       TEXT NOT NULL,
         type       TEXT NOT NULL,
         size       INTEGER NOT NULL,
         reason     TEXT NOT NULL,          -- deleted | converted | recovered
         deleted_at INTEGER NOT NULL,
         expires_at INTEGER NOT NULL
     );
     CREATE INDEX trash_by_expiry ON trash (expires_at);",
    // 7: the handheld (one) and the push list.
    "CREATE TABLE device (
         id            INTEGER PRIMARY KEY CHECK (id = 1),
         name          TEXT NOT NULL,
         host          TEXT NOT NULL,
         port          INTEGER NOT NULL,
         offer_address TEXT,            -- the address offered to the console; NULL: detected
         last_contact  INTEGER,
         last_result   TEXT,
         client        TEXT,            -- User-Agent last seen from the console
         last_push     INTEGER
     );
     CREATE TABLE push_list (
         key      TEXT PRIMARY KEY,
         added_at INTEGER NOT NULL
     );",
    // 8: lists page by rank now; this index only cost every insert its upkeep.
    "DROP INDEX games_by_type_name;",
    // 9: a number that changes with every write to the games, so that what is
    // computed from them (rendered pages, indexes) can be kept until the library
    // changes (`store::library_generation`).
    "CREATE TABLE library_generation (
         id INTEGER PRIMARY KEY CHECK (id = 1),
         n  INTEGER NOT NULL
     );
     INSERT INTO library_generation VALUES (1, 0);
     CREATE TRIGGER games_generation_insert AFTER INSERT ON games BEGIN
         UPDATE library_generation SET n = n + 1;
     END;
     CREATE TRIGGER games_generation_update AFTER UPDATE ON games BEGIN
         UPDATE library_generation SET n = n + 1;
     END;
     CREATE TRIGGER games_generation_delete AFTER DELETE ON games BEGIN
         UPDATE library_generation SET n = n + 1;
     END;",
    // 10: accounts of the web interface and their sessions. Only an Argon2id hash of a
    // password and the SHA-256 of a session token are kept.
    "CREATE TABLE users (
         id         INTEGER PRIMARY KEY,
         name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
         hash       TEXT NOT NULL,
         role       TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
         lang       TEXT NOT NULL DEFAULT 'fr' CHECK (lang IN ('fr', 'en')),
         created_at INTEGER NOT NULL
     );
     CREATE TABLE sessions (
         hash       BLOB PRIMARY KEY,
         user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
         created_at INTEGER NOT NULL,
         expires_at INTEGER NOT NULL
     );
     CREATE INDEX sessions_by_user ON sessions(user_id);",
    // 11: title data (blawar/titledb): facts per title ID, the version catalogue, the
    // version history; what the library makes of it (`title_state`, `missing`) is
    // recomputed when a scan or an import completes, never per request.
    "ALTER TABLE titles ADD COLUMN publisher TEXT;
     ALTER TABLE titles ADD COLUMN release_date TEXT;
     ALTER TABLE titles ADD COLUMN icon_url TEXT;
     ALTER TABLE titles ADD COLUMN size INTEGER;
     CREATE TABLE title_catalog (
         id       TEXT PRIMARY KEY,           -- any title ID versions.txt or .json knows
         base_id  TEXT NOT NULL,
         kind     TEXT NOT NULL,              -- BASE | UPDATE | DLC
         version  INTEGER                     -- the latest known version of this ID
     ) WITHOUT ROWID;
     CREATE INDEX title_catalog_by_base ON title_catalog(base_id);
     CREATE TABLE title_versions (
         id       TEXT NOT NULL,
         version  INTEGER NOT NULL,
         released TEXT NOT NULL,              -- YYYY-MM-DD
         PRIMARY KEY (id, version)
     ) WITHOUT ROWID;
     CREATE TABLE title_imports (
         id          INTEGER PRIMARY KEY,
         imported_at INTEGER NOT NULL,
         files       TEXT NOT NULL,           -- the files' names, comma-separated
         summary     TEXT NOT NULL
     );
     CREATE TABLE title_ignore (
         title_id TEXT PRIMARY KEY,           -- a base ID, or '*' for every title
         dlc      INTEGER NOT NULL,
         updates  INTEGER NOT NULL
     ) WITHOUT ROWID;
     CREATE TABLE title_state (
         base_id           TEXT PRIMARY KEY,
         name              TEXT NOT NULL,
         folded            TEXT NOT NULL,
         rank              INTEGER NOT NULL,  -- the library's order: name, then ID
         files             INTEGER NOT NULL,
         base_files        INTEGER NOT NULL,
         update_files      INTEGER NOT NULL,
         dlc_files         INTEGER NOT NULL,
         size              INTEGER NOT NULL,
         added             INTEGER NOT NULL,  -- newest file's mtime, ns
         installed_version INTEGER,
         latest_version    INTEGER,
         latest_date       TEXT,
         missing_dlc       INTEGER NOT NULL,
         update_available  INTEGER NOT NULL,
         dlc_missing       INTEGER NOT NULL,
         base_missing      INTEGER NOT NULL,
         -- Dense positions (0, 1, 2…) in each list a page can ask for, NULL when the
         -- title is not in it: a page is a seek, never a scan over an OFFSET.
         size_rank         INTEGER,           -- largest first
         added_rank        INTEGER,           -- newest first
         incomplete_rank   INTEGER,
         update_rank       INTEGER,
         dlc_rank          INTEGER,
         base_rank         INTEGER,
         complete_rank     INTEGER
     ) WITHOUT ROWID;
     CREATE INDEX title_state_by_rank ON title_state(rank);
     CREATE INDEX title_state_by_size ON title_state(size_rank);
     CREATE INDEX title_state_by_added ON title_state(added_rank);
     CREATE INDEX title_state_by_incomplete ON title_state(incomplete_rank);
     CREATE INDEX title_state_by_update ON title_state(update_rank);
     CREATE INDEX title_state_by_dlc ON title_state(dlc_rank);
     CREATE INDEX title_state_by_base ON title_state(base_rank);
     CREATE INDEX title_state_by_complete ON title_state(complete_rank);
     CREATE TABLE missing (
         rank           INTEGER PRIMARY KEY,  -- title order, then kind, then ID
         title_id       TEXT NOT NULL,
         kind           TEXT NOT NULL,        -- update | dlc
         id             TEXT NOT NULL,        -- the update's or the DLC's own ID
         name           TEXT,                 -- the DLC's name, when known
         installed_version INTEGER,
         latest_version INTEGER,
         latest_date    TEXT,
         kind_rank      INTEGER NOT NULL DEFAULT 0  -- dense position among its kind
     );
     CREATE INDEX missing_by_kind ON missing(kind, kind_rank);
     CREATE INDEX missing_by_title ON missing(title_id);
     ALTER TABLE games ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0;
     DROP INDEX games_by_ord;
     DROP INDEX games_by_type_ord;
     CREATE INDEX games_by_ord
         ON games (ord, key, name, type, size, playable, title_id, version, base_title_id);
     CREATE INDEX games_by_type_ord
         ON games (type, type_ord, key, name, size, playable, title_id, version, base_title_id);",
    // 12: the consoles that pull from the shop, and what they downloaded.
    "CREATE TABLE consoles (
         id           INTEGER PRIMARY KEY,
         name         TEXT NOT NULL UNIQUE,
         hash         BLOB NOT NULL,        -- SHA-256 of the password
         created_at   INTEGER NOT NULL,
         last_used_at INTEGER
     );
     CREATE TABLE shop_downloads (
         id          INTEGER PRIMARY KEY,
         console     TEXT NOT NULL,         -- a console's name, or an address (--shop-public)
         key         TEXT NOT NULL,
         bytes       INTEGER NOT NULL,
         started_at  INTEGER NOT NULL,
         last_at     INTEGER NOT NULL,
         duration_ms INTEGER NOT NULL
     );
     CREATE INDEX shop_downloads_by_file ON shop_downloads(console, key, started_at);
     CREATE INDEX shop_downloads_by_time ON shop_downloads(last_at);",
    // 13: the search index lives in memory (`library::name_index`): the trigram table
    //     only cost every write its upkeep, and a scan its rebuild. (A scan killed
    //     while it was suspended may have dropped the insert trigger already.)
    "DROP TRIGGER IF EXISTS games_fts_insert;
     DROP TRIGGER games_fts_delete;
     DROP TRIGGER games_fts_update;
     DROP TABLE games_fts;",
    // 14: the library's order lives in the same index (a position per game, per
    //     generation): the ranks were only kept up for pages now read from memory.
    "DROP INDEX IF EXISTS games_by_ord;
     DROP INDEX IF EXISTS games_by_type_ord;
     ALTER TABLE games DROP COLUMN ord;
     ALTER TABLE games DROP COLUMN type_ord;",
    // 15: organize's journal: each run, and each file it moved, so that a run can be
    //     undone and a move a kill cut short is finished or forgotten at the next start.
    "CREATE TABLE organize_runs (
         id         INTEGER PRIMARY KEY,
         started_at INTEGER NOT NULL,
         template   TEXT NOT NULL,
         undone_at  INTEGER              -- when `organize --undo` put its files back
     );
     CREATE TABLE organize_moves (
         id       INTEGER PRIMARY KEY,
         run      INTEGER NOT NULL REFERENCES organize_runs(id),
         from_key TEXT NOT NULL,
         to_key   TEXT NOT NULL,
         state    TEXT NOT NULL          -- moving, moved, undoing, undone
     );
     CREATE INDEX organize_moves_by_run ON organize_moves(run, id);",
    // 16: messages as data (a slug and its parameters, rendered in the reader's
    // language), the files a run could not handle, and files known to be damaged.
    "ALTER TABLE job_runs ADD COLUMN msg TEXT;
     CREATE TABLE job_failures (
         run     INTEGER NOT NULL REFERENCES job_runs(id) ON DELETE CASCADE,
         seq     INTEGER NOT NULL,
         key     TEXT,
         msg     TEXT NOT NULL,          -- the reason as data (JSON)
         message TEXT NOT NULL,          -- the reason in English
         PRIMARY KEY (run, seq)
     ) WITHOUT ROWID;
     ALTER TABLE games ADD COLUMN damage TEXT;",
    // 17: how many of a title's files are damaged, so that the library list flags it.
    // The titles model's version moved with it, so the next start computes the column.
    "ALTER TABLE title_state ADD COLUMN damaged_files INTEGER NOT NULL DEFAULT 0;",
    // 18: account and console names are one name whatever their case and Unicode form
    // (`text::fold`; `COLLATE NOCASE` folds ASCII only, and consoles not at all). The
    // folded form is computed in Rust (`fold_names`), for these rows and every new one.
    "ALTER TABLE users ADD COLUMN folded TEXT;
     ALTER TABLE consoles ADD COLUMN folded TEXT;
     CREATE UNIQUE INDEX users_by_folded ON users(folded);
     CREATE UNIQUE INDEX consoles_by_folded ON consoles(folded);",
    // 19: what the files hold, read with the user's console keys. `keys_state` is NULL
    // for a file not read with keys, else `read`, `partial`, `missing_key` (its `key_revision`
    // lacks a key), `wrong_keys` or `unreadable`; `contents` has one row per CNMT of a
    // file read with keys; `title_control` the names and icons of the files' Control
    // NCAs, per title.
    "ALTER TABLE games ADD COLUMN keys_state TEXT;
     ALTER TABLE games ADD COLUMN key_revision INTEGER;
     ALTER TABLE games ADD COLUMN name_conflict TEXT;
     CREATE TABLE contents (
         key           TEXT NOT NULL REFERENCES games(key) ON DELETE CASCADE ON UPDATE CASCADE,
         seq           INTEGER NOT NULL,
         title_id      TEXT NOT NULL,
         type          TEXT NOT NULL,          -- BASE | UPDATE | DLC | INCONNU
         subtype       TEXT,
         base_title_id TEXT,
         version       INTEGER NOT NULL,
         PRIMARY KEY (key, seq)
     ) WITHOUT ROWID;
     CREATE INDEX contents_by_title ON contents (title_id);
     CREATE INDEX contents_by_base ON contents (base_title_id);
     CREATE TABLE title_control (
         title_id        TEXT PRIMARY KEY,
         name            TEXT NOT NULL,
         publisher       TEXT NOT NULL,
         display_version TEXT NOT NULL,
         names           TEXT NOT NULL,          -- JSON: [[language, name, publisher]]
         icon            INTEGER NOT NULL DEFAULT 0,
         from_key        TEXT NOT NULL           -- the file it was read from
     ) WITHOUT ROWID;",
    // 20: a game's note holds the slug form of its reasons (`error::reason`), no
    // longer English: `notes_to_slugs` rewrites the notes an older build wrote.
    "SELECT 1;",
    // 21: each title data source's last answer (`titles::fetch`): shown in Settings,
    // and a first success turns the daily refresh on.
    "CREATE TABLE title_sources (
         url      TEXT PRIMARY KEY,
         ok_at    INTEGER,                -- the last file it gave, Unix seconds
         error    TEXT,                   -- the last failure, a JSON message
         error_at INTEGER
     ) WITHOUT ROWID;",
    // 22: notification targets (`notify`): those added in Settings, and the events a
    // target given at start was narrowed to (`added` 0).
    "CREATE TABLE notify_targets (
         id     TEXT PRIMARY KEY,         -- the first 12 hex digits of the URL's SHA-256
         url    TEXT NOT NULL,            -- holds its secrets: the data folder is private
         events TEXT NOT NULL,            -- the events it gets, comma-separated
         added  INTEGER NOT NULL          -- 1: added in Settings; 0: given at start
     ) WITHOUT ROWID;",
    // 23: consoles' save backups (`saves`): one row per kept version, its file at
    // `DATA/saves/<console>/<title_id>/<save_id>.zip`; `trash` set while it is in the
    // trash (the row comes back with a restore, and goes with a purge).
    "CREATE TABLE saves (
         id         INTEGER PRIMARY KEY AUTOINCREMENT, -- upload order: the latest is the largest
         console    TEXT NOT NULL,          -- the console's name (kept when the console goes)
         title_id   TEXT NOT NULL,          -- 16 upper-case hex digits
         save_id    TEXT NOT NULL,
         note       TEXT NOT NULL,
         size       INTEGER NOT NULL,
         created_ms INTEGER NOT NULL,       -- Unix milliseconds
         trash      INTEGER,                -- trash.id while in the trash
         UNIQUE (console, title_id, save_id)
     );
     CREATE INDEX saves_by_trash ON saves (trash) WHERE trash IS NOT NULL;",
    // 24: the dead properties WebDAV clients set on a console's files (`saves::dav`):
    // the path is relative to the console's folder, the value an XML fragment.
    "CREATE TABLE dav_props (
         console TEXT NOT NULL,
         path    TEXT NOT NULL,
         ns      TEXT NOT NULL,
         name    TEXT NOT NULL,
         value   TEXT NOT NULL,
         PRIMARY KEY (console, path, ns, name)
     ) WITHOUT ROWID;",
    // 25: a console's last request: from where, and which program (its page).
    "ALTER TABLE consoles ADD COLUMN last_address TEXT;
     ALTER TABLE consoles ADD COLUMN last_client TEXT;",
    // 26: whether the title data's version files list a title (`unknown` when not):
    // 0 until the titles are computed again, which the model's new version asks.
    "ALTER TABLE title_state ADD COLUMN known INTEGER NOT NULL DEFAULT 0;",
    // 27: the game's library folder was offline at the last scan (`tree::folders`):
    // kept, not playable.
    "ALTER TABLE games ADD COLUMN offline INTEGER NOT NULL DEFAULT 0;",
    // 28: the library folders an admin added (`store::library_folders`).
    "CREATE TABLE library_folders (
         name     TEXT PRIMARY KEY,
         dir      TEXT NOT NULL,
         added_at INTEGER NOT NULL
     );",
    // 29: the lists of titles are numbered in memory (`titles::listing`): the columns
    // that numbered them in SQLite are no longer written (NULL from the next refresh)
    // nor read, and their indexes go.
    "DROP INDEX IF EXISTS title_state_by_size;
     DROP INDEX IF EXISTS title_state_by_added;
     DROP INDEX IF EXISTS title_state_by_incomplete;
     DROP INDEX IF EXISTS title_state_by_update;
     DROP INDEX IF EXISTS title_state_by_dlc;
     DROP INDEX IF EXISTS title_state_by_base;
     DROP INDEX IF EXISTS title_state_by_complete;",
];

/// The migration after which notes are slugs: [`notes_to_slugs`] runs with it.
const NOTES_AS_SLUGS: i64 = 20;

/// Apply every migration the database has not seen yet.
pub fn apply(conn: &mut Connection) -> Result<(), Error> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > MIGRATIONS.len() as i64 {
        return Err(
            Error::new(Kind::TooNew, Msg::DatabaseTooNew).with_cause(format!(
                "database schema version {version} is newer than the {} this build knows",
                MIGRATIONS.len()
            )),
        );
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql)
            .map_err(|e| Error::internal(format!("migration {}: {e}", i + 1)))?;
    }
    if (version as usize) < MIGRATIONS.len() {
        fold_names(&tx)?;
    }
    if version < NOTES_AS_SLUGS {
        notes_to_slugs(&tx)?;
    }
    tx.pragma_update(None, "user_version", MIGRATIONS.len() as i64)?;
    tx.commit()?;
    Ok(())
}

/// The folded form of every account's and console's name that has none yet (the rows
/// from before migration 18), in Rust because SQLite's `lower` folds ASCII only. A
/// name whose fold an older row already holds (`Émile` and `émile`, both made before
/// the rule) keeps none: it still opens by its exact name, and the rule holds for
/// every name made since. Runs with any migration, so it does not depend on its
/// number; rows made since 18 already have theirs.
fn fold_names(tx: &rusqlite::Transaction) -> Result<(), Error> {
    for table in ["users", "consoles"] {
        let rows: Vec<(i64, String)> = tx
            .prepare(&format!(
                "SELECT id, name FROM {table} WHERE folded IS NULL ORDER BY id"
            ))?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (id, name) in rows {
            let sql = format!("UPDATE OR IGNORE {table} SET folded = ?2 WHERE id = ?1");
            if tx.execute(&sql, rusqlite::params![id, crate::text::fold(&name)])? == 0 {
                log::warn!(
                    "{table}: '{}' is the same name as an older one but for case or \
                     form; it keeps opening by its exact name only",
                    crate::text::printable(&name)
                );
            }
        }
    }
    Ok(())
}

/// Every game's note an older build wrote in English, as the slug form of the same
/// reasons (read back through `error::reason`'s table, a word in its slot). A note the
/// table does not know stays as it is, and is shown as it is.
fn notes_to_slugs(tx: &rusqlite::Transaction) -> Result<(), Error> {
    let notes: Vec<(String, String)> = tx
        .prepare("SELECT key, note FROM games WHERE note IS NOT NULL")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut update = tx.prepare("UPDATE games SET note = ?2 WHERE key = ?1")?;
    for (key, note) in notes {
        if let Some(detail) = Detail::from_english(&note) {
            update.execute(rusqlite::params![key, detail.slug()])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names made before migration 18 get their folded form; two that fold alike keep
    /// opening (the older by its fold, the other by its exact name), and the index
    /// refuses a third.
    #[test]
    fn names_from_before_the_fold_are_folded_without_losing_one() {
        let mut conn = Connection::open_in_memory().unwrap();
        for sql in &MIGRATIONS[..17] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 17).unwrap();
        for (name, t) in [("\u{c9}mile", 1), ("\u{e9}mile", 2), ("Zoé", 3)] {
            conn.execute(
                "INSERT INTO users (name, hash, role, created_at) VALUES (?1, 'h', 'admin', ?2)",
                rusqlite::params![name, t],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO consoles (name, hash, created_at) VALUES (?1, x'00', ?2)",
                rusqlite::params![name, t],
            )
            .unwrap();
        }
        apply(&mut conn).unwrap();
        let folded = |table: &str| -> Vec<Option<String>> {
            conn.prepare(&format!("SELECT folded FROM {table} ORDER BY id"))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let want = vec![
            Some("\u{e9}mile".to_string()),
            None,
            Some("zoé".to_string()),
        ];
        assert_eq!(folded("users"), want);
        assert_eq!(folded("consoles"), want);
        let (second, _) = crate::store::users::by_name(&conn, "\u{e9}mile")
            .unwrap()
            .unwrap();
        assert_eq!(second.created_at, 2);
        let (first, _) = crate::store::users::by_name(&conn, "\u{c9}MILE")
            .unwrap()
            .unwrap();
        assert_eq!(first.created_at, 1);
        assert!(crate::store::users::insert_in(
            &conn,
            "ZOE\u{301}",
            "h",
            crate::words::Role::Viewer,
            crate::words::Lang::Fr,
            4
        )
        .unwrap()
        .is_none());
        assert!(!crate::store::consoles::insert(&conn, "e\u{301}MILE", b"x", 4).unwrap());
    }

    /// Notes written in English before migration 20 become slugs; one the table does
    /// not know is kept as it is, and reads back as it is.
    #[test]
    fn english_notes_become_slugs() {
        let mut conn = Connection::open_in_memory().unwrap();
        for sql in &MIGRATIONS[..19] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 19).unwrap();
        let legacy = "the container could not be read: the PFS0 header is truncated; \
                      the title ID is not one of a game, an update or a DLC";
        for (key, note) in [("a.nsp", legacy), ("b.nsp", "a note of no table")] {
            conn.execute(
                "INSERT INTO games (key, platform, name, file_name_name, folded, type,
                                    format, size, mtime, header_ok, identified_by, note)
                 VALUES (?1, 'switch', 'x', 'x', 'x', 'BASE', 'nsp', 1, 1, 0, 'none', ?2)",
                rusqlite::params![key, note],
            )
            .unwrap();
        }
        apply(&mut conn).unwrap();
        let note = |key: &str| -> String {
            conn.query_row("SELECT note FROM games WHERE key = ?1", [key], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(
            note("a.nsp"),
            "unreadable(header_truncated:PFS0);unknown_kind"
        );
        assert_eq!(Detail::read(&note("a.nsp")).english(), legacy);
        assert_eq!(note("b.nsp"), "a note of no table");
        assert_eq!(Detail::read(&note("b.nsp")).french(), "a note of no table");
    }
}
