//! Opening the database: its place in the data folder and the pragmas every
//! connection needs. Each thread opens its own connection (SQLite connections are not
//! shared across threads here); WAL lets readers run beside the one writer.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::Connection;

use super::migrations;
use crate::error::{Error, Kind, Msg};

/// The database file inside the data folder.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("ludotheque.db")
}

/// How much of the database file reads may map (a library of 100,000 games makes a
/// file of about 60 MB).
const MMAP_BYTES: u64 = 1 << 30;

/// How many prepared statements each connection keeps (a few KiB each).
const STATEMENTS_KEPT: usize = 128;

/// Open a connection with the service's pragmas. The schema must already be current
/// (see [`open_and_migrate`], called once at start).
pub fn open(data_dir: &Path) -> Result<Connection, Error> {
    let conn = Connection::open(path(data_dir))?;
    // Wait for a writer rather than failing at once: the job thread, the workers and a
    // command-line tool can all write.
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))?;
    conn.execute_batch("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;")?;
    // Reads map the file instead of copying each page into every connection's own
    // cache: the workers share the kernel's page cache, and a page costs no read
    // call. (It is address space, not memory: the pages are the file's.)
    conn.query_row(&format!("PRAGMA mmap_size={MMAP_BYTES}"), [], |_| Ok(()))?;
    // A page runs a dozen or two statements (a title's page: its state, versions,
    // files, what it lacks, the settings, the session). With rusqlite's default of
    // 16 kept, a worker going from page to page prepared most of them again every
    // time: two thirds of a title page went to SQLite's parser.
    conn.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
    // Plans never depend on the values bound (the query planner stability
    // guarantee). Without it, SQLite marks a statement that compares an indexed
    // column with a parameter and sorts (`WHERE base_title_id = ?1 ORDER BY key`)
    // to be prepared again whenever a value is bound: every execution, kept or not.
    // That was half of a title's page. Our queries use no LIKE on a parameter and no
    // partial index, the only plans a bound value could improve.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    Ok(conn)
}

/// A transaction that takes the write lock at once (`BEGIN IMMEDIATE`), for work that
/// reads before it writes. A deferred one that read first cannot take the lock when
/// another connection wrote since its read (WAL gives `SQLITE_BUSY` at once, without
/// waiting); this one waits for the lock like any write.
pub fn write_transaction(conn: &Connection) -> Result<rusqlite::Transaction<'_>, Error> {
    Ok(rusqlite::Transaction::new_unchecked(
        conn,
        rusqlite::TransactionBehavior::Immediate,
    )?)
}

/// Run `work` whole or not at all, its reads and writes seen by others only once it
/// is done: inside a caller's transaction in a savepoint named `name`; alone in its
/// own immediate transaction (it may read before it writes, see
/// [`write_transaction`]).
pub fn whole<T>(
    conn: &Connection,
    name: &'static str,
    work: impl FnOnce() -> Result<T, Error>,
) -> Result<T, Error> {
    let alone = conn.is_autocommit();
    conn.execute_batch(&match alone {
        true => "BEGIN IMMEDIATE".to_string(),
        false => format!("SAVEPOINT {name}"),
    })?;
    let result = work();
    let end = match (alone, result.is_ok()) {
        (true, true) => "COMMIT".to_string(),
        (true, false) => "ROLLBACK".to_string(),
        (false, true) => format!("RELEASE {name}"),
        (false, false) => format!("ROLLBACK TO {name}; RELEASE {name}"),
    };
    conn.execute_batch(&end)?;
    result
}

/// Empty `table` and write it anew with `fill`, its indexes set aside meanwhile and
/// built again at the end, one sort each: a table written whole (the titles' states,
/// what they lack) costs a fraction of keeping every index up row by row. Whole or
/// not at all (see [`whole`]): a failure or a kill leaves the table and its indexes
/// as they were, and readers never see it without them. The indexes are taken from
/// the schema, so one added by a later migration is kept too.
pub fn refill(
    conn: &Connection,
    table: &str,
    fill: impl FnOnce() -> Result<(), Error>,
) -> Result<(), Error> {
    whole(conn, "refill", || {
        let indexes: Vec<(String, String)> = conn
            .prepare_cached(
                "SELECT name, sql FROM sqlite_master
                 WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL",
            )?
            .query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (name, _) in &indexes {
            conn.execute_batch(&format!("DROP INDEX \"{name}\""))?;
        }
        conn.execute_batch(&format!("DELETE FROM \"{table}\""))?;
        fill()?;
        for (_, sql) in &indexes {
            conn.execute_batch(sql)?;
        }
        Ok(())
    })
}

/// The database answers a query (the health check).
pub fn answers(conn: &Connection) -> Result<(), Error> {
    conn.query_row("SELECT 1", [], |_| Ok(()))?;
    Ok(())
}

/// Open, then bring the schema up to date (refusing a database newer than the code).
/// The data folder and the database are made private first.
pub fn open_and_migrate(data_dir: &Path) -> Result<Connection, Error> {
    make_private(data_dir)?;
    let mut conn = open(data_dir)?;
    migrations::apply(&mut conn)?;
    Ok(conn)
}

/// The data folder holds password hashes: it is `0700` and the database `0600`,
/// whatever the umask. The folder is created with that mode, and the database file
/// before SQLite opens it: SQLite gives its WAL and shared-memory files the mode of the
/// database. A folder or a file left more open (by an older version, or by hand) is
/// closed up.
pub fn make_private(data_dir: &Path) -> Result<(), Error> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(data_dir)?;
    let db = path(data_dir);
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&db)
    {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e.into()),
    }
    let suffixes = ["", "-wal", "-shm"];
    let files = suffixes.map(|s| (PathBuf::from(format!("{}{s}", db.display())), 0o600));
    for (file, mode) in [(data_dir.to_path_buf(), 0o700)].into_iter().chain(files) {
        let Ok(meta) = std::fs::metadata(&file) else {
            continue;
        };
        if meta.permissions().mode() & 0o077 != 0 {
            // A folder owned by someone else (a mounted volume) cannot be changed:
            // say so, and go on rather than refuse to start.
            if let Err(e) = std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)) {
                log::warn!(
                    "{} is readable by others and cannot be made private: {e}",
                    file.display()
                );
            }
        }
    }
    Ok(())
}

/// Hold the data folder for this process: a server and a foreground task must not run
/// on the same folder at once. The lock lives as long as the returned file.
pub fn lock_data(data_dir: &Path) -> Result<std::fs::File, Error> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(data_dir.join("ludotheque.lock"))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::new(Kind::Locked, Msg::DataLocked)),
        Err(std::fs::TryLockError::Error(e)) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::StatementStatus;

    /// A kept statement that compares with a parameter and sorts is not prepared
    /// again when it runs again with a value bound.
    #[test]
    fn a_kept_statement_is_never_prepared_again() {
        let dir = tempfile::tempdir().unwrap();
        let conn = super::open(dir.path()).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (a TEXT, b INTEGER); CREATE INDEX t_by_a ON t (a);
             INSERT INTO t VALUES ('x', 2), ('x', 1), ('y', 3);",
        )
        .unwrap();
        // A bare LIMIT on purpose (the architecture test allows this one by name):
        // the guarantee covers it too.
        let sql = "SELECT b FROM t WHERE a = ?1 ORDER BY b LIMIT ?2";
        for (a, limit) in [("x", 5), ("y", 1), ("x", 1)] {
            let mut stmt = conn.prepare_cached(sql).unwrap();
            let n = stmt.query_map((a, limit), |_| Ok(())).unwrap().count();
            assert!(n > 0);
            assert_eq!(
                stmt.get_status(StatementStatus::RePrepare),
                0,
                "{a} {limit}"
            );
        }
    }

    /// A table refilled keeps every index its schema had; a fill that fails leaves
    /// the rows and the indexes as they were.
    #[test]
    fn a_refill_is_whole_and_keeps_the_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let conn = super::open(dir.path()).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (a TEXT, b INTEGER); CREATE INDEX t_by_a ON t (a);
             CREATE INDEX t_by_b ON t (b DESC); INSERT INTO t VALUES ('old', 1);",
        )
        .unwrap();
        let state = || -> (Vec<String>, Vec<String>) {
            let list = |sql: &str| -> Vec<String> {
                let mut stmt = conn.prepare(sql).unwrap();
                let rows = stmt.query_map([], |r| r.get(0)).unwrap();
                rows.collect::<Result<_, _>>().unwrap()
            };
            (
                list("SELECT a FROM t ORDER BY a"),
                list("SELECT sql FROM sqlite_master WHERE type = 'index' ORDER BY name"),
            )
        };
        let before = state();
        let failed = super::refill(&conn, "t", || {
            conn.execute_batch("INSERT INTO t VALUES ('half', 2)")?;
            Err(crate::error::Error::internal("the disk is full"))
        });
        assert!(failed.is_err());
        assert_eq!(state(), before, "nothing changed");
        super::refill(&conn, "t", || {
            conn.execute_batch("INSERT INTO t VALUES ('new', 3), ('newer', 4)")?;
            Ok(())
        })
        .unwrap();
        let (rows, indexes) = state();
        assert_eq!(rows, ["new", "newer"]);
        assert_eq!(indexes, before.1, "the same indexes, built again");
    }
}
