//! The `games` table: one row per game file of the library, keyed by its path
//! relative to the root.

use std::collections::HashMap;

use rusqlite::{params, Connection};

use crate::error::{Detail, Error};
use crate::words::{GameKind, IdSource, KeysState, TitleId};

/// A game as the scan writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRow {
    pub key: String,
    pub platform: String,
    pub name: String,
    pub file_name_name: String,
    pub folded: String,
    pub kind: GameKind,
    pub subtype: Option<String>,
    pub title_id: Option<TitleId>,
    pub base_title_id: Option<TitleId>,
    pub version: Option<u32>,
    pub format: String,
    pub size: u64,
    pub mtime: i64,
    pub header_ok: bool,
    pub identified_by: IdSource,
    /// Stored as its slug form (`error::Detail`).
    pub note: Option<Detail>,
    /// What reading it with the console keys came to; `None` when it was not.
    pub keys_state: Option<KeysState>,
    pub key_revision: Option<u8>,
    /// The file name's tags (`[0100…][v0]`) when they disagree with its contents.
    pub name_conflict: Option<String>,
}

/// How many files were identified by what the console keys opened.
pub fn count_keyed(conn: &Connection) -> Result<u64, Error> {
    let sql = "SELECT count(*) FROM games WHERE identified_by = 'keys'";
    Ok(conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64)
}

/// Size and modification time of every known file: what a rescan compares against.
pub fn fingerprints(conn: &Connection) -> Result<HashMap<String, (u64, i64)>, Error> {
    let mut stmt = conn.prepare("SELECT key, size, mtime FROM games")?;
    super::all(&mut stmt, [], |r| {
        Ok((
            r.get::<_, String>(0)?,
            (r.get::<_, i64>(1)? as u64, r.get(2)?),
        ))
    })
}

/// Write a game's row. A damage mark a task set stays while the file keeps its size
/// and time (the console keys read it again, say): only a changed file loses it.
pub fn upsert(conn: &Connection, g: &GameRow) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO games (key, platform, name, file_name_name, folded, type, subtype,
                            title_id, base_title_id, version, format, size, mtime,
                            header_ok, identified_by, note, keys_state, key_revision,
                            name_conflict)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                 ?18, ?19)
         ON CONFLICT(key) DO UPDATE SET
             platform = excluded.platform, name = excluded.name,
             file_name_name = excluded.file_name_name, folded = excluded.folded,
             type = excluded.type, subtype = excluded.subtype, title_id = excluded.title_id,
             base_title_id = excluded.base_title_id, version = excluded.version,
             format = excluded.format, size = excluded.size, mtime = excluded.mtime,
             header_ok = excluded.header_ok, identified_by = excluded.identified_by,
             note = excluded.note, keys_state = excluded.keys_state,
             key_revision = excluded.key_revision, name_conflict = excluded.name_conflict,
             damage = CASE WHEN games.size = excluded.size AND games.mtime = excluded.mtime
                           THEN games.damage END",
    )?;
    stmt.execute(params![
        g.key,
        g.platform,
        g.name,
        g.file_name_name,
        g.folded,
        g.kind,
        g.subtype,
        g.title_id,
        g.base_title_id,
        g.version,
        g.format,
        g.size as i64,
        g.mtime,
        g.header_ok,
        g.identified_by,
        g.note.as_ref().map(Detail::slug),
        g.keys_state,
        g.key_revision,
        g.name_conflict
    ])?;
    Ok(())
}

pub fn delete(conn: &Connection, key: &str) -> Result<(), Error> {
    conn.prepare_cached("DELETE FROM games WHERE key = ?1")?
        .execute([key])?;
    Ok(())
}

/// Recompute `playable`: the file's folder is online, the header parsed, no task found
/// the file damaged, the type is known, and an update or DLC has its base game in the
/// library. Only rows whose value changes are written.
/// The index is named: without statistics the planner may pick the type index,
/// which makes this quadratic.
pub fn refresh_playable(conn: &Connection) -> Result<(), Error> {
    conn.execute_batch(
        "UPDATE games SET playable = NOT playable
         WHERE playable <> (CASE WHEN header_ok = 0 OR damage IS NOT NULL
                                      OR type = 'INCONNU' OR offline = 1 THEN 0
                                 WHEN type = 'BASE' THEN 1
                                 WHEN EXISTS (SELECT 1 FROM games b INDEXED BY games_by_title
                                              WHERE b.title_id = games.base_title_id
                                                AND b.type = 'BASE') THEN 1
                                 ELSE 0 END)",
    )?;
    Ok(())
}

/// Say which games lie in an offline folder: `further` is each further folder's key
/// prefix (`NAME/`) and whether it is offline; the first folder's games are the rest.
/// Returns how many rows changed (then `refresh_playable` is due).
pub fn mark_offline(
    conn: &Connection,
    further: &[(String, bool)],
    first_offline: bool,
) -> Result<usize, Error> {
    let mut changed = 0;
    let range = "key >= ?1 AND key < ?2";
    for (prefix, offline) in further {
        let (start, end) = super::under(prefix);
        changed += conn
            .prepare_cached(&format!(
                "UPDATE games SET offline = ?3 WHERE {range} AND offline <> ?3"
            ))?
            .execute(rusqlite::params![start, end, offline])?;
    }
    // The first folder's games: in none of the others' ranges.
    let mut sql = "UPDATE games SET offline = ?1 WHERE offline <> ?1".to_string();
    let mut bounds: Vec<String> = Vec::new();
    for (prefix, _) in further {
        let n = bounds.len();
        sql += &format!(" AND NOT (key >= ?{} AND key < ?{})", n + 2, n + 3);
        let (start, end) = super::under(prefix);
        bounds.push(start.to_string());
        bounds.push(end);
    }
    let mut values: Vec<&dyn rusqlite::ToSql> = vec![&first_offline];
    values.extend(bounds.iter().map(|b| b as &dyn rusqlite::ToSql));
    changed += conn.execute(&sql, values.as_slice())?;
    Ok(changed)
}

/// Forget every game whose key starts with `prefix` (a library folder's `NAME/`,
/// removed from the library); how many.
pub fn delete_under(conn: &Connection, prefix: &str) -> Result<usize, Error> {
    let (start, end) = super::under(prefix);
    let sql = "DELETE FROM games WHERE key >= ?1 AND key < ?2";
    Ok(conn.execute(sql, params![start, end])?)
}

/// The games and bytes of each library folder: the first's, then one for each
/// further folder's key prefix (`NAME/`).
pub fn count_by_folder(conn: &Connection, prefixes: &[String]) -> Result<Vec<(u64, u64)>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM games WHERE key >= ?1 AND key < ?2",
    )?;
    let mut further = Vec::new();
    for prefix in prefixes {
        let (start, end) = super::under(prefix);
        let (n, bytes): (i64, i64) =
            stmt.query_row(params![start, end], |r| Ok((r.get(0)?, r.get(1)?)))?;
        further.push((n as u64, bytes as u64));
    }
    let (n, bytes): (i64, i64) = conn.query_row(
        "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM games",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let first = further
        .iter()
        .fold((n as u64, bytes as u64), |(n, b), (fn_, fb)| {
            (n.saturating_sub(*fn_), b.saturating_sub(*fb))
        });
    Ok(std::iter::once(first).chain(further).collect())
}

/// The keys of the games marked offline (`mark_offline`).
pub fn marked_offline(conn: &Connection) -> Result<std::collections::HashSet<String>, Error> {
    let mut stmt = conn.prepare("SELECT key FROM games WHERE offline = 1")?;
    super::all(&mut stmt, [], |r| r.get(0))
}

/// A game's key, title ID, name from its file name, and current display name.
/// (key, title ID, name from the file name, name).
pub type Names = (String, Option<TitleId>, String, String);

/// Every game's names, for renaming after a title import.
pub fn names(conn: &Connection) -> Result<Vec<Names>, Error> {
    let mut stmt = conn.prepare("SELECT key, title_id, file_name_name, name FROM games")?;
    super::all(&mut stmt, [], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })
}

pub fn rename(conn: &Connection, key: &str, name: &str, folded: &str) -> Result<(), Error> {
    conn.prepare_cached("UPDATE games SET name = ?2, folded = ?3 WHERE key = ?1")?
        .execute(params![key, name, folded])?;
    Ok(())
}

/// A game as lists show it.
#[derive(Debug, Clone)]
pub struct GameItem {
    pub key: String,
    pub name: String,
    pub kind: GameKind,
    pub size: u64,
    pub playable: bool,
    pub title_id: Option<TitleId>,
    pub version: Option<u32>,
    pub base_title_id: Option<TitleId>,
}

const ITEM_COLUMNS: &str = "key, name, type, size, playable, title_id, version, base_title_id";

fn item(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameItem> {
    Ok(GameItem {
        key: r.get(0)?,
        name: r.get(1)?,
        kind: r.get(2)?,
        size: r.get::<_, i64>(3)? as u64,
        playable: r.get(4)?,
        title_id: r.get(5)?,
        version: r.get(6)?,
        base_title_id: r.get(7)?,
    })
}

/// The lookup indexes of `games`, as the migrations last created them (a test checks
/// that they agree).
const LOOKUP_INDEXES: &str = "
     CREATE INDEX games_by_name ON games (folded, key);
     CREATE INDEX games_by_title ON games (title_id);
     CREATE INDEX games_by_base ON games (base_title_id);";

/// How many indexes named `games_by_*` a whole schema has.
const INDEX_COUNT: i64 = 3;

/// The triggers that move the library's generation at every write to the games
/// (migration 9, `store::library_generation`).
const GENERATION_TRIGGERS: &str = "
     CREATE TRIGGER games_generation_insert AFTER INSERT ON games BEGIN
         UPDATE library_generation SET n = n + 1;
     END;
     CREATE TRIGGER games_generation_update AFTER UPDATE ON games BEGIN
         UPDATE library_generation SET n = n + 1;
     END;
     CREATE TRIGGER games_generation_delete AFTER DELETE ON games BEGIN
         UPDATE library_generation SET n = n + 1;
     END;";
const TRIGGER_COUNT: i64 = 3;

/// For a scan that inserts many games: stop keeping the indexes up row by row, and
/// stop moving the generation at every row (a trigger's run was 2 µs a row, a tenth of
/// a cold scan's writes). The indexes are built once, by [`resume_indexes`] at the end
/// of the same scan, the triggers put back by [`resume_triggers`]; until then the
/// scan moves the generation once per transaction itself. [`ensure_indexes`] repairs
/// a scan killed in between. Only the key's index stays, which the scan's upserts need.
pub fn suspend_indexes(conn: &Connection) -> Result<(), Error> {
    conn.execute_batch(
        "DROP INDEX IF EXISTS games_by_name; DROP INDEX IF EXISTS games_by_title;
         DROP INDEX IF EXISTS games_by_base;
         DROP TRIGGER IF EXISTS games_generation_insert;
         DROP TRIGGER IF EXISTS games_generation_update;
         DROP TRIGGER IF EXISTS games_generation_delete;",
    )?;
    Ok(())
}

/// Build the lookup indexes again (one sort each).
pub fn resume_indexes(conn: &Connection) -> Result<(), Error> {
    conn.execute_batch(LOOKUP_INDEXES)?;
    Ok(())
}

/// Put the generation's triggers back, and move it once for the writes made without
/// them.
pub fn resume_triggers(conn: &Connection) -> Result<(), Error> {
    conn.execute_batch(GENERATION_TRIGGERS)?;
    super::library_generation::bump(conn)
}

/// If a scan was killed or failed while the indexes and triggers were set aside, put
/// them back (at start, at the end of every scan, and when a bulk scan fails).
pub fn ensure_indexes(conn: &Connection) -> Result<(), Error> {
    let count = |kind: &str, like: &str| -> Result<i64, Error> {
        Ok(conn
            .prepare_cached(
                "SELECT count(*) FROM sqlite_master WHERE type = ?1 AND name LIKE ?2 ESCAPE '\\'",
            )?
            .query_row([kind, like], |r| r.get(0))?)
    };
    if count("index", "games\\_by\\_%")? < INDEX_COUNT {
        log::warn!("the indexes were left set aside by an interrupted scan; building them");
        // In the caller's transaction when there is one; alone, a kill between the
        // two leaves fewer indexes, which the next start finds again.
        conn.execute_batch(
            "DROP INDEX IF EXISTS games_by_name; DROP INDEX IF EXISTS games_by_title;
             DROP INDEX IF EXISTS games_by_base;",
        )?;
        resume_indexes(conn)?;
    }
    if count("trigger", "games\\_generation\\_%")? < TRIGGER_COUNT {
        log::warn!("the generation's triggers were left set aside by an interrupted scan");
        conn.execute_batch(
            "DROP TRIGGER IF EXISTS games_generation_insert;
             DROP TRIGGER IF EXISTS games_generation_update;
             DROP TRIGGER IF EXISTS games_generation_delete;",
        )?;
        resume_triggers(conn)?;
    }
    Ok(())
}

/// What the in-memory index holds of a game (see `library::name_index`).
pub struct Indexed {
    pub item: GameItem,
    pub folded: String,
    pub platform: String,
    /// Its header did not read, or a task found it broken: lists flag it.
    pub damaged: bool,
}

/// Every game, by folded name then key (SQLite's order, which the search index puts
/// in the library's natural one: `name_index`), handed to `each` one by one
/// so that the whole table is never held as rows. In one read transaction with the
/// generation it returns, so the two agree.
pub fn for_each_indexed(conn: &Connection, mut each: impl FnMut(Indexed)) -> Result<i64, Error> {
    let tx = conn.unchecked_transaction()?;
    let generation = crate::store::library_generation::current(&tx)?;
    let mut stmt = tx.prepare(&format!(
        "SELECT {ITEM_COLUMNS}, folded, platform, NOT ({SOUND}) FROM games ORDER BY folded, key"
    ))?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        each(Indexed {
            item: item(r)?,
            folded: r.get(8)?,
            platform: r.get(9)?,
            damaged: r.get(10)?,
        });
    }
    Ok(generation)
}

/// Everything the single-game route shows.
#[derive(Debug, Clone)]
pub struct GameDetail {
    /// Version and base title ID included.
    pub item: GameItem,
    pub format: String,
    pub platform: String,
    pub mtime: i64,
    pub identified_by: IdSource,
    pub note: Option<Detail>,
    pub subtype: Option<String>,
    /// Why a task found the file damaged (a message as JSON), or its header did not
    /// read at the scan: the push warns before sending it.
    pub damage: Option<crate::error::Msg>,
    /// The file name's tags when they disagree with what the file holds.
    pub name_conflict: Option<String>,
    /// Its library folder was offline at the last scan (`mark_offline`).
    pub offline: bool,
}

const DETAIL_COLUMNS: &str =
    "format, platform, mtime, identified_by, note, subtype, damage, header_ok, name_conflict, offline";
/// The index of the first column after `ITEM_COLUMNS, DETAIL_COLUMNS`.
const AFTER_DETAIL: usize = 18;

fn detail(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameDetail> {
    let note = r.get::<_, Option<String>>(12)?.map(|n| Detail::read(&n));
    Ok(GameDetail {
        item: item(r)?,
        format: r.get(8)?,
        platform: r.get(9)?,
        mtime: r.get(10)?,
        identified_by: r.get(11)?,
        note: note.clone(),
        subtype: r.get(13)?,
        damage: match (r.get::<_, Option<String>>(14)?, r.get::<_, bool>(15)?) {
            (Some(json), _) => Some(super::job_failures::read_msg(&json)),
            (None, false) => Some(crate::error::Msg::FileDamaged {
                detail: note.unwrap_or_default(),
            }),
            (None, true) => None,
        },
        name_conflict: r.get(16)?,
        offline: r.get(17)?,
    })
}

pub fn get(conn: &Connection, key: &str) -> Result<Option<GameDetail>, Error> {
    use rusqlite::OptionalExtension;
    let sql = format!("SELECT {ITEM_COLUMNS}, {DETAIL_COLUMNS} FROM games WHERE key = ?1");
    Ok(conn
        .prepare_cached(&sql)?
        .query_row([key], detail)
        .optional()?)
}

/// Keys of the games of one type that belong to a base title, sorted like the library.
pub fn related(
    conn: &Connection,
    base_title_id: TitleId,
    kind: GameKind,
) -> Result<Vec<String>, Error> {
    // A file read with the console keys counts for every content it holds.
    let mut stmt = conn.prepare_cached(
        "SELECT key FROM games
         WHERE key IN (SELECT key FROM games INDEXED BY games_by_base
                       WHERE base_title_id = ?1 AND type = ?2
                       UNION
                       SELECT key FROM contents WHERE base_title_id = ?1 AND type = ?2)
         ORDER BY folded, key",
    )?;
    super::all(&mut stmt, params![base_title_id, kind], |r| r.get(0))
}

/// Counts of a set of games.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub total: u64,
    pub base: u64,
    pub update: u64,
    pub dlc: u64,
    pub unknown: u64,
    pub bytes: u64,
    pub to_convert: u64,
    /// Files whose header does not read or that a task found broken.
    pub damaged: u64,
}

const COUNT_COLUMNS: &str = "count(*), count(*) FILTER (WHERE type = 'BASE'),
     count(*) FILTER (WHERE type = 'UPDATE'), count(*) FILTER (WHERE type = 'DLC'),
     count(*) FILTER (WHERE type = 'INCONNU'), coalesce(sum(size), 0),
     count(*) FILTER (WHERE format IN ('nsz', 'xcz') AND header_ok AND damage IS NULL),
     count(*) FILTER (WHERE NOT header_ok OR damage IS NOT NULL)";

/// A file not known to be damaged: its header reads, and no task found it broken.
const SOUND: &str = "header_ok AND damage IS NULL";

/// Mark the file at `key` damaged, with the reason as data (a JSON message); a scan
/// that reads the file again (it changed) clears the mark.
pub fn set_damage(conn: &Connection, key: &str, msg: &crate::error::Msg) -> Result<(), Error> {
    let json = serde_json::to_string(msg).map_err(|e| Error::internal(e.to_string()))?;
    conn.execute(
        "UPDATE games SET damage = ?2 WHERE key = ?1",
        params![key, json],
    )?;
    // The lists flag it: the pages they cached are stale.
    crate::store::library_generation::bump(conn)
}

/// Clear the damage mark of the file at `key` when `verify` set it (its reason is a
/// damaged NCA) and a later verify found every NCA sound: the same bytes read again
/// (a flaky disk, a file put back with its old time). A mark another task set stays
/// until a scan reads the file anew. Whether a mark was cleared.
pub fn clear_verify_damage(conn: &Connection, key: &str) -> Result<bool, Error> {
    let cleared = conn.execute(
        "UPDATE games SET damage = NULL
         WHERE key = ?1 AND json_extract(damage, '$.slug') = 'nca_damaged'",
        [key],
    )? > 0;
    if cleared {
        crate::store::library_generation::bump(conn)?;
    }
    Ok(cleared)
}

/// The files `verify` reads (`.nsp`, `.nsz`, `.xci`, `.xcz`): key, format and size,
/// in key order.
pub fn verifiable(conn: &Connection) -> Result<Vec<(String, String, u64)>, Error> {
    let mut stmt = conn.prepare(
        "SELECT key, format, size FROM games
         WHERE format IN ('nsp', 'nsz', 'xci', 'xcz') ORDER BY key",
    )?;
    super::all(&mut stmt, [], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64))
    })
}

/// An identified game as dedupe weighs it against the other copies of its title ID.
#[derive(Debug, Clone)]
pub struct Copy {
    pub key: String,
    pub name: String,
    pub kind: GameKind,
    pub title_id: TitleId,
    pub version: Option<u32>,
    pub format: String,
    pub size: u64,
    /// Its header parsed and no task found it damaged.
    pub sound: bool,
    /// It holds several contents (read with the console keys).
    pub bundle: bool,
}

/// Every identified base game, update and DLC, in title ID then key order.
pub fn copies(conn: &Connection) -> Result<Vec<Copy>, Error> {
    let mut stmt = conn.prepare(&format!(
        "SELECT key, name, type, title_id, version, format, size, {SOUND},
                (SELECT count(*) FROM contents c WHERE c.key = games.key) > 1
         FROM games
         WHERE title_id IS NOT NULL AND type IN ('BASE', 'UPDATE', 'DLC')
         ORDER BY title_id, key"
    ))?;
    super::all(&mut stmt, [], |r| {
        Ok(Copy {
            key: r.get(0)?,
            name: r.get(1)?,
            kind: r.get(2)?,
            title_id: r.get(3)?,
            version: r.get(4)?,
            format: r.get(5)?,
            size: r.get::<_, i64>(6)? as u64,
            sound: r.get(7)?,
            bundle: r.get(8)?,
        })
    })
}

fn counts(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Counts> {
    let n = |i: usize| -> rusqlite::Result<u64> { Ok(r.get::<_, i64>(at + i)? as u64) };
    Ok(Counts {
        total: n(0)?,
        base: n(1)?,
        update: n(2)?,
        dlc: n(3)?,
        unknown: n(4)?,
        bytes: n(5)?,
        to_convert: n(6)?,
        damaged: n(7)?,
    })
}

/// Counts over the whole library.
pub fn stats(conn: &Connection) -> Result<Counts, Error> {
    let sql = format!("SELECT {COUNT_COLUMNS} FROM games");
    Ok(conn.prepare_cached(&sql)?.query_row([], |r| counts(r, 0))?)
}

/// Counts per platform slug (platforms without games are absent).
pub fn stats_by_platform(conn: &Connection) -> Result<HashMap<String, Counts>, Error> {
    let sql = format!("SELECT platform, {COUNT_COLUMNS} FROM games GROUP BY platform");
    let mut stmt = conn.prepare_cached(&sql)?;
    super::all(&mut stmt, [], |r| Ok((r.get(0)?, counts(r, 1)?)))
}

/// Files, bytes and damaged files per type and container (`/metrics`), in that
/// order; a type or container without files is absent.
pub fn by_type_and_format(conn: &Connection) -> Result<Vec<(String, String, [u64; 3])>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT type, format, count(*), coalesce(sum(size), 0),
                count(*) FILTER (WHERE NOT header_ok OR damage IS NOT NULL)
         FROM games GROUP BY type, format ORDER BY type, format",
    )?;
    let rows = stmt.query_map([], |r| {
        let n = |i| r.get::<_, i64>(i).map(|v| v as u64);
        Ok((r.get(0)?, r.get(1)?, [n(2)?, n(3)?, n(4)?]))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Keys of the compressed files (`.nsz`, `.xcz`) still to convert, in key order: a
/// file known to be damaged is left out until a scan reads it again.
pub fn compressed(conn: &Connection) -> Result<Vec<String>, Error> {
    let mut stmt = conn.prepare(&format!(
        "SELECT key FROM games WHERE format IN ('nsz', 'xcz') AND {SOUND} ORDER BY key"
    ))?;
    super::all(&mut stmt, [], |r| r.get(0))
}

/// The `.nsp` and `.xci` files compress may replace, with their sizes: those not
/// known to be damaged (a damaged file would not verify once compressed).
pub fn compressible(conn: &Connection) -> Result<Vec<(String, u64)>, Error> {
    let mut stmt = conn.prepare(&format!(
        "SELECT key, size FROM games WHERE format IN ('nsp', 'xci') AND {SOUND} ORDER BY key"
    ))?;
    super::all(&mut stmt, [], |r| {
        Ok((r.get(0)?, r.get::<_, i64>(1)? as u64))
    })
}

/// How many files `compressible` lists, and their bytes, without listing them.
pub fn compressible_totals(conn: &Connection) -> Result<(u64, u64), Error> {
    let sql = format!(
        "SELECT count(*), coalesce(sum(size), 0) FROM games
         WHERE format IN ('nsp', 'xci') AND {SOUND}"
    );
    let (n, bytes): (i64, i64) = conn
        .prepare_cached(&sql)?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok((n as u64, bytes as u64))
}

/// A title's base game(s), its latest update and all its DLC (DLC updates included).
pub fn title_family(conn: &Connection, base_title_id: TitleId) -> Result<Vec<String>, Error> {
    let mut stmt = conn.prepare(
        "SELECT key FROM games INDEXED BY games_by_title WHERE title_id = ?1 AND type = 'BASE'
         UNION ALL
         SELECT key FROM (SELECT key FROM games INDEXED BY games_by_base
                          WHERE base_title_id = ?1 AND type = 'UPDATE'
                          ORDER BY coalesce(version, 0) DESC, key LIMIT 1)
         UNION ALL
         SELECT key FROM games INDEXED BY games_by_base
         WHERE base_title_id = ?1 AND type = 'DLC'",
    )?;
    super::all(&mut stmt, [base_title_id], |r| r.get(0))
}

/// A file as the titles' model sees it.
#[derive(Debug, Clone)]
pub struct TitleFile {
    pub key: String,
    pub name: String,
    pub kind: GameKind,
    pub title_id: TitleId,
    pub base_title_id: TitleId,
    pub version: Option<u32>,
    pub size: u64,
    pub mtime: i64,
    /// Its header did not read, or a task found it broken.
    pub damaged: bool,
}

/// Every file that belongs to a title, grouped by base title ID; a file holding
/// several contents is there once per content.
pub fn title_files(conn: &Connection) -> Result<Vec<TitleFile>, Error> {
    // A file read with the console keys counts once per content it holds (its
    // `contents` rows); any other file as its own row says.
    let mut stmt = conn.prepare(&format!(
        "SELECT key, name, type, title_id, base_title_id, version, size, mtime,
                NOT ({SOUND})
         FROM (SELECT g.key, g.name, g.size, g.mtime, g.header_ok, g.damage,
                      coalesce(c.type, g.type) AS type,
                      coalesce(c.title_id, g.title_id) AS title_id,
                      iif(c.key IS NULL, g.base_title_id, c.base_title_id) AS base_title_id,
                      coalesce(c.version, g.version) AS version
               FROM games g LEFT JOIN contents c ON c.key = g.key)
         WHERE base_title_id IS NOT NULL AND title_id IS NOT NULL"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(TitleFile {
            key: r.get(0)?,
            name: r.get(1)?,
            kind: r.get(2)?,
            title_id: r.get(3)?,
            base_title_id: r.get(4)?,
            version: r.get(5)?,
            size: r.get::<_, i64>(6)? as u64,
            mtime: r.get(7)?,
            damaged: r.get(8)?,
        })
    })?;
    // Sorted here, on the IDs as numbers: SQLite's sorter compared them as text, a
    // tenth of a cold scan's end at 100,000 files.
    let mut files: Vec<TitleFile> = rows.collect::<Result<_, _>>()?;
    files.sort_unstable_by(|a, b| (a.base_title_id, &a.key).cmp(&(b.base_title_id, &b.key)));
    Ok(files)
}

/// Mark exactly `keys` as superseded (an older file of a title ID the library has a
/// newer file of).
/// Only rows whose flag changes are written: each write moves the library's
/// generation, which drops every cached page.
pub fn set_superseded(conn: &Connection, keys: &[String]) -> Result<(), Error> {
    let now: std::collections::HashSet<&str> = keys.iter().map(String::as_str).collect();
    let mut stmt = conn.prepare_cached("SELECT key FROM games WHERE superseded")?;
    let before: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut set = conn.prepare_cached("UPDATE games SET superseded = ?2 WHERE key = ?1")?;
    for key in before.iter().filter(|k| !now.contains(k.as_str())) {
        set.execute(params![key, false])?;
    }
    let before: std::collections::HashSet<&str> = before.iter().map(String::as_str).collect();
    for key in keys.iter().filter(|k| !before.contains(k.as_str())) {
        set.execute(params![key, true])?;
    }
    Ok(())
}

/// The files of one title, sorted by kind then version then key, with whether each
/// is superseded. A file holding several contents (read with the console keys) is
/// there once per content of this title, each with that content's own kind, title ID
/// and version.
pub fn of_title(
    conn: &Connection,
    base_title_id: TitleId,
) -> Result<Vec<(GameDetail, bool)>, Error> {
    let sql = format!(
        "SELECT {ITEM_COLUMNS}, {DETAIL_COLUMNS}, superseded FROM games
         WHERE key IN (SELECT key FROM games INDEXED BY games_by_base WHERE base_title_id = ?1
                       UNION
                       SELECT key FROM contents WHERE base_title_id = ?1)"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map([base_title_id], |r| Ok((detail(r)?, r.get(AFTER_DETAIL)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (game, superseded): (GameDetail, bool) = row?;
        let held = super::contents::of(conn, &game.item.key)?;
        if held.is_empty() {
            out.push((game, superseded));
            continue;
        }
        for c in held
            .iter()
            .filter(|c| c.base_title_id == Some(base_title_id))
        {
            let mut one = game.clone();
            one.item.kind = c.kind;
            one.item.title_id = Some(c.title_id);
            one.item.version = Some(c.version);
            one.item.base_title_id = c.base_title_id;
            one.subtype = c.subtype.clone();
            out.push((one, superseded));
        }
    }
    out.sort_by(|(a, _), (b, _)| {
        let order = |g: &GameDetail| (g.item.kind.as_str(), g.item.version.map_or(-1, i64::from));
        order(a)
            .cmp(&order(b))
            .then_with(|| a.item.key.cmp(&b.item.key))
    });
    Ok(out)
}

/// A file the shop offers.
#[derive(Debug, Clone)]
pub struct ShopFile {
    pub key: String,
    pub name: String,
    pub kind: GameKind,
    pub title_id: TitleId,
    pub base_title_id: TitleId,
    pub version: u32,
    pub format: String,
    pub size: u64,
    pub mtime: i64,
}

/// Every file an installer can install: identified (base, update or DLC, with its
/// title IDs) and sound (its header parsed, no task found it damaged). An update or
/// DLC whose base game is not
/// in the library is offered too: the base may be on a cartridge. In name order.
pub fn shop_files(conn: &Connection) -> Result<Vec<ShopFile>, Error> {
    let mut stmt = conn.prepare(
        "SELECT key, name, type, title_id, base_title_id, coalesce(version, 0), format,
                size, mtime
         FROM games INDEXED BY games_by_name
         WHERE header_ok AND damage IS NULL AND type IN ('BASE', 'UPDATE', 'DLC')
           AND title_id IS NOT NULL AND base_title_id IS NOT NULL
         ORDER BY folded, key",
    )?;
    super::all(&mut stmt, [], |r| {
        Ok(ShopFile {
            key: r.get(0)?,
            name: r.get(1)?,
            kind: r.get(2)?,
            title_id: r.get(3)?,
            base_title_id: r.get(4)?,
            version: r.get(5)?,
            format: r.get(6)?,
            size: r.get::<_, i64>(7)? as u64,
            mtime: r.get(8)?,
        })
    })
}

/// The file at `from` now lives at `to` (`organize`).
pub fn rekey(conn: &Connection, from: &str, to: &str) -> Result<(), Error> {
    conn.prepare_cached("UPDATE games SET key = ?2 WHERE key = ?1")?
        .execute(params![from, to])?;
    Ok(())
}

/// What `organize` needs of a game to name it.
#[derive(Debug, Clone)]
pub struct Placed {
    pub key: String,
    pub platform: String,
    pub name: String,
    pub kind: GameKind,
    pub title_id: Option<TitleId>,
    pub base_title_id: Option<TitleId>,
    pub version: Option<u32>,
    pub format: String,
}

/// Every game, in key order.
pub fn placed(conn: &Connection) -> Result<Vec<Placed>, Error> {
    let mut stmt = conn.prepare(
        "SELECT key, platform, name, type, title_id, base_title_id, version, format
         FROM games ORDER BY key",
    )?;
    super::all(&mut stmt, [], |r| {
        Ok(Placed {
            key: r.get(0)?,
            platform: r.get(1)?,
            name: r.get(2)?,
            kind: r.get(3)?,
            title_id: r.get(4)?,
            base_title_id: r.get(5)?,
            version: r.get(6)?,
            format: r.get(7)?,
        })
    })
}

/// The size and time the database holds for the file at `key`.
pub fn fingerprint(conn: &Connection, key: &str) -> Result<Option<(u64, i64)>, Error> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .prepare_cached("SELECT size, mtime FROM games WHERE key = ?1")?
        .query_row([key], |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?)))
        .optional()?)
}

/// Whether a game is at `key` or in the folder `key`.
pub fn any_at_or_under(conn: &Connection, key: &str) -> Result<bool, Error> {
    // Keys in the folder sort between `key/` and `key0` ('0' follows '/').
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM games WHERE key = ?1
                            OR (key > ?1 || '/' AND key < ?1 || '0'))",
        )?
        .query_row([key], |r| r.get(0))?)
}

/// The files whose key revision the keys file lacks: (revision, files), by revision.
/// What `keys status` and Settings say to add.
pub fn missing_key_revisions(conn: &Connection) -> Result<Vec<(u8, u64)>, Error> {
    let mut stmt = conn.prepare(
        "SELECT key_revision, count(*) FROM games
         WHERE keys_state = 'missing_key' AND key_revision IS NOT NULL
         GROUP BY key_revision ORDER BY key_revision",
    )?;
    super::all(&mut stmt, [], |r| {
        Ok((r.get::<_, u8>(0)?, r.get::<_, i64>(1)? as u64))
    })
}

/// How many files are in each `keys_state` (`read`, `partial`, `missing_key`,
/// `wrong_keys`, `unreadable`); files never read with keys are not counted.
pub fn keys_states(conn: &Connection) -> Result<Vec<(String, u64)>, Error> {
    let mut stmt = conn.prepare(
        "SELECT keys_state, count(*) FROM games WHERE keys_state IS NOT NULL
         GROUP BY keys_state ORDER BY keys_state",
    )?;
    super::all(&mut stmt, [], |r| {
        Ok((r.get(0)?, r.get::<_, i64>(1)? as u64))
    })
}

/// The files a scan with console keys must read though they did not change: those
/// never read with keys and, when `other_keys` (the keys changed since the last keyed
/// scan), those the keys could not open, whole or in part. Formats without NCAs are never listed.
pub fn to_read_with_keys(conn: &Connection, other_keys: bool) -> Result<Vec<String>, Error> {
    let mut stmt = conn.prepare(
        "SELECT key FROM games WHERE format IN ('nsp', 'nsz', 'xci', 'xcz')
           AND (keys_state IS NULL
                OR (?1 AND keys_state IN ('partial', 'missing_key', 'wrong_keys')))",
    )?;
    super::all(&mut stmt, [other_keys], |r| r.get(0))
}

/// One identified game at `key`, of one byte, on a platform `p` made with it: the
/// smallest row the tests of other tables and tasks stand on.
#[cfg(test)]
pub(crate) fn insert_one_for_tests(conn: &Connection, key: &str) {
    conn.execute_batch("INSERT INTO platforms VALUES ('p', 'P', '', 'nsp')")
        .unwrap();
    conn.execute(
        "INSERT INTO games (key, platform, name, file_name_name, folded, type, format, size,
                            mtime, header_ok, identified_by)
         VALUES (?1, 'p', 'X', 'X', 'x', 'BASE', 'nsp', 1, 1, 1, 'filename')",
        [key],
    )
    .unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index_sql(conn: &Connection) -> Vec<String> {
        let mut stmt = conn
            .prepare("SELECT sql FROM sqlite_master WHERE name LIKE 'games_by_%' ORDER BY name")
            .unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    }

    #[test]
    fn the_indexes_set_aside_and_built_again_are_the_migrations_and_complete() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::store::db::open_and_migrate(dir.path()).unwrap();
        let indexes = index_sql(&conn);
        assert_eq!(indexes.len(), INDEX_COUNT as usize);
        suspend_indexes(&conn).unwrap();
        insert_one_for_tests(&conn, "a.nsp");
        // A scan killed here: the next start repairs the indexes.
        ensure_indexes(&conn).unwrap();
        assert_eq!(index_sql(&conn), indexes);
    }

    /// The generation's triggers, set aside by a bulk scan, come back as migration 9
    /// made them, with the generation moved for what was written without them.
    #[test]
    fn the_triggers_set_aside_come_back_and_count_again() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::store::db::open_and_migrate(dir.path()).unwrap();
        let triggers = || -> Vec<String> {
            let mut stmt = conn
                .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
                .unwrap();
            let rows = stmt.query_map([], |r| r.get(0)).unwrap();
            rows.map(Result::unwrap).collect()
        };
        let generation = || crate::store::library_generation::current(&conn).unwrap();
        let made = triggers();
        assert_eq!(made.len(), TRIGGER_COUNT as usize, "{made:?}");
        suspend_indexes(&conn).unwrap();
        assert!(triggers().is_empty());
        let before = generation();
        insert_one_for_tests(&conn, "a.nsp");
        assert_eq!(generation(), before, "no trigger, no count");
        // A scan killed here: the next start puts them back and counts once.
        ensure_indexes(&conn).unwrap();
        assert_eq!(triggers(), made);
        assert_eq!(generation(), before + 1);
        conn.execute("UPDATE games SET size = 2", []).unwrap();
        assert_eq!(generation(), before + 2, "each write counts again");
        ensure_indexes(&conn).unwrap();
        assert_eq!(
            generation(),
            before + 2,
            "nothing to repair, nothing counted"
        );
    }
}
