//! The search index: every game's folded name in memory, with the bigrams and
//! trigrams that occur in it and a mask of its letters, rebuilt when the library's
//! generation moves.
//!
//! A search is asked far more often than the library changes, and SQLite's trigram
//! index cost two full-text queries per request (the page and its count). Here the
//! games are numbered in library order (folded name, natural, then key), so a search is an
//! intersection of sorted lists: its count is a length and its page a slice, with no
//! sort. The answers are the ones `library::search` defines: every word occurs in the
//! folded name (a substring: a word of one to three characters is its letter's bit
//! or its gram's list, exactly; a longer one is narrowed by its rarest trigram, then
//! checked), or the title ID starts with the prefix.
//!
//! Memory: the names (about 30 bytes each), a position per bigram and trigram
//! occurrence (4 bytes), and a few numbers per game: 25 MiB for 100,000 games (its
//! build logs it).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use rusqlite::Connection;

use super::identify;
use super::search::{page_range, SearchQuery};
use super::suggest::{Vocabulary, Words};
use crate::error::Error;
use crate::kept::Kept;
use crate::store::games;
use crate::store::library_generation;
use crate::words::{GameKind, TitleId};

/// Three characters, packed (21 bits each).
type Trigram = u64;

/// What a list shows of a game (the API's list item and a search hit), kept beside
/// its name. Texts are spans of [`NameIndex::text`].
struct IndexedGame {
    key: (u32, u32),
    name: (u32, u32),
    folded: (u32, u32),
    /// Meaningful when `has_title_id` / `has_base` (a file may name ID 0).
    title_id: u64,
    base: u64,
    has_title_id: bool,
    has_base: bool,
    size: u64,
    /// Meaningful when `has_version` (an `Option` would pad the entry by 8 bytes).
    version: u32,
    has_version: bool,
    kind: GameKind,
    playable: bool,
    damaged: bool,
    /// Index into `platforms`.
    platform: u16,
}

/// A game as a list shows it, borrowed from the index.
pub struct Listed<'a> {
    pub key: &'a str,
    pub name: &'a str,
    pub kind: GameKind,
    pub size: u64,
    pub playable: bool,
    /// Its header did not read, or a task found it broken.
    pub damaged: bool,
    pub version: Option<u32>,
    pub title_id: Option<TitleId>,
    pub base_title_id: Option<TitleId>,
}

impl Listed<'_> {
    /// An owned copy, as the store reads games.
    pub fn to_item(&self) -> games::GameItem {
        games::GameItem {
            key: self.key.to_string(),
            name: self.name.to_string(),
            kind: self.kind,
            size: self.size,
            playable: self.playable,
            title_id: self.title_id,
            version: self.version,
            base_title_id: self.base_title_id,
        }
    }
}

/// The index at one generation of the library.
pub struct NameIndex {
    /// Every game in library order.
    entries: Vec<IndexedGame>,
    /// Keys, names and folded names, one after the other.
    text: String,
    platforms: Vec<String>,
    /// The positions of each type's games, ascending (the library filtered by type).
    by_kind: Vec<(GameKind, Vec<u32>)>,
    /// The positions of the games with a title ID, sorted by it: a prefix is a range.
    by_id: Vec<u32>,
    /// Which letters and digits each name holds, one bit each (see [`letter_bit`]),
    /// in library order: a search for one character reads these, not the names.
    letters: Vec<u64>,
    /// Where each trigram's (and bigram's, see [`pack2`]) positions lie in
    /// `postings`, ascending.
    grams: HashMap<Trigram, (u32, u32)>,
    postings: Vec<u32>,
    /// The names' distinct words, for "did you mean" (`suggest`), gathered the first
    /// time a search finds nothing.
    vocabulary: OnceLock<Vocabulary>,
}

impl NameIndex {
    /// Read every game from the database, in library order.
    pub fn build(db: &Connection) -> Result<NameIndex, Error> {
        let mut index = NameIndex {
            entries: Vec::new(),
            text: String::new(),
            platforms: Vec::new(),
            by_kind: GameKind::ALL.iter().map(|k| (*k, Vec::new())).collect(),
            by_id: Vec::new(),
            letters: Vec::new(),
            grams: HashMap::new(),
            postings: Vec::new(),
            vocabulary: OnceLock::new(),
        };
        let mut platform_of = HashMap::new();
        games::for_each_indexed(db, |g| {
            let next = platform_of.len() as u16;
            let platform = *platform_of.entry(g.platform).or_insert(next);
            let mut span = |s: &str| {
                let start = index.text.len() as u32;
                index.text.push_str(s);
                (start, s.len() as u32)
            };
            let entry = IndexedGame {
                key: span(&g.item.key),
                name: span(&g.item.name),
                folded: span(&g.folded),
                title_id: g.item.title_id.unwrap_or_default().0,
                base: g.item.base_title_id.unwrap_or_default().0,
                has_title_id: g.item.title_id.is_some(),
                has_base: g.item.base_title_id.is_some(),
                size: g.item.size,
                version: g.item.version.unwrap_or(0),
                has_version: g.item.version.is_some(),
                kind: g.item.kind,
                playable: g.item.playable,
                damaged: g.damaged,
                platform,
            };
            index.entries.push(entry);
        })?;
        index.number_in_library_order();
        let mut platforms: Vec<(String, u16)> = platform_of.into_iter().collect();
        platforms.sort_by_key(|(_, i)| *i);
        index.platforms = platforms.into_iter().map(|(p, _)| p).collect();
        let entries = &index.entries;
        index
            .by_id
            .sort_unstable_by_key(|&i| entries[i as usize].title_id);
        index.index_trigrams();
        index.letters = (0..index.len()).map(|i| letters(index.name(i))).collect();
        index.shrink();
        Ok(index)
    }

    /// Put the games in the library's order (SQLite's `ORDER BY folded` is not
    /// natural: `identify::name_order`), then list each type's and the IDs' positions.
    fn number_in_library_order(&mut self) {
        let text = &self.text;
        let span = |(start, len): (u32, u32)| &text[start as usize..(start + len) as usize];
        self.entries.sort_by(|a, b| {
            identify::name_order(span(a.folded), span(b.folded))
                .then_with(|| span(a.key).cmp(span(b.key)))
        });
        for (at, entry) in self.entries.iter().enumerate() {
            if entry.has_title_id {
                self.by_id.push(at as u32);
            }
            if let Some((_, list)) = self.by_kind.iter_mut().find(|(k, _)| *k == entry.kind) {
                list.push(at as u32);
            }
        }
    }

    /// The lists grew by doubling: up to half of each would be spare room, kept as
    /// long as the library does not change.
    fn shrink(&mut self) {
        self.entries.shrink_to_fit();
        self.text.shrink_to_fit();
        self.by_id.shrink_to_fit();
        for (_, list) in &mut self.by_kind {
            list.shrink_to_fit();
        }
    }

    /// Two passes over the names: count each gram's games, then place each game in
    /// its lists. In order of position, so every list comes out sorted.
    fn index_trigrams(&mut self) {
        let mut counts: HashMap<Trigram, u32> = HashMap::new();
        let mut seen = Vec::new();
        for i in 0..self.len() {
            distinct_grams(self.name(i), &mut seen);
            for g in &seen {
                *counts.entry(*g).or_default() += 1;
            }
        }
        let mut start = 0u32;
        let mut grams: HashMap<Trigram, (u32, u32)> = HashMap::with_capacity(counts.len());
        for (g, n) in counts {
            grams.insert(g, (start, 0));
            start += n;
        }
        let mut postings = vec![0u32; start as usize];
        for i in 0..self.len() {
            distinct_grams(self.name(i), &mut seen);
            for g in &seen {
                let (from, filled) = grams.get_mut(g).expect("counted in the first pass");
                postings[(*from + *filled) as usize] = i as u32;
                *filled += 1;
            }
        }
        self.grams = grams;
        self.postings = postings;
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    fn span(&self, (start, len): (u32, u32)) -> &str {
        &self.text[start as usize..(start + len) as usize]
    }

    /// The folded name of the game at position `i`.
    fn name(&self, i: usize) -> &str {
        self.span(self.entries[i].folded)
    }

    /// The game at position `i`, as lists show it.
    pub fn listed(&self, i: u32) -> Listed<'_> {
        let e = &self.entries[i as usize];
        Listed {
            key: self.span(e.key),
            name: self.span(e.name),
            kind: e.kind,
            size: e.size,
            playable: e.playable,
            damaged: e.damaged,
            version: e.has_version.then_some(e.version),
            title_id: e.has_title_id.then_some(TitleId(e.title_id)),
            base_title_id: e.has_base.then_some(TitleId(e.base)),
        }
    }

    /// One page of the library (of one type, or all), in library order: how many
    /// games the list holds, and the positions of the page.
    pub fn page(&self, kind: Option<GameKind>, limit: u64, offset: u64) -> (u64, Vec<u32>) {
        let slice = |n: usize| page_range(n, limit, offset);
        match kind {
            None => {
                let range = slice(self.len());
                (
                    self.len() as u64,
                    (range.start as u32..range.end as u32).collect(),
                )
            }
            Some(kind) => {
                let list = self
                    .by_kind
                    .iter()
                    .find(|(k, _)| *k == kind)
                    .map_or(&[][..], |(_, l)| l);
                (list.len() as u64, list[slice(list.len())].to_vec())
            }
        }
    }

    /// What the index holds on the heap, in bytes (for the log and the benchmark).
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<IndexedGame>()
            + self.text.capacity()
            + self
                .by_kind
                .iter()
                .map(|(_, l)| l.capacity() * 4)
                .sum::<usize>()
            + self.by_id.capacity() * 4
            + self.letters.capacity() * 8
            + self.grams.capacity() * (std::mem::size_of::<(Trigram, (u32, u32))>() + 1)
            + self.postings.capacity() * 4
    }

    /// One page of the games matching `q`, in library order, with how many match:
    /// the positions of the page (see [`NameIndex::listed`]).
    pub fn search(&self, q: &SearchQuery, limit: u64, offset: u64) -> (u64, Vec<u32>) {
        let hits = self.matches(q);
        (
            hits.len() as u64,
            hits[page_range(hits.len(), limit, offset)].to_vec(),
        )
    }

    /// The positions (library order) of the games `q` matches: by every word, or by
    /// the title-ID prefix; then of its type and platform, and only the damaged, when
    /// it asks. With neither words nor prefix, those alone select; with nothing at
    /// all, nothing matches.
    pub fn matches(&self, q: &SearchQuery) -> Vec<u32> {
        let by_name = (!q.words.is_empty()).then(|| self.named(&q.words));
        let by_id = q.id_prefix.as_deref().map(|p| self.with_id_prefix(p));
        let mut hits = match (by_name, by_id) {
            (Some(a), Some(b)) => union(&a, &b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None)
                if q.kind.is_none() && q.platform.is_none() && !q.damaged && q.format.is_none() =>
            {
                return Vec::new()
            }
            (None, None) => (0..self.len() as u32).collect(),
        };
        if let Some(kind) = q.kind {
            hits.retain(|&i| self.entries[i as usize].kind == kind);
        }
        if q.damaged {
            hits.retain(|&i| self.entries[i as usize].damaged);
        }
        if let Some(format) = q.format {
            let key = |i: u32| self.span(self.entries[i as usize].key);
            hits.retain(|&i| super::search::format_of(key(i)) == Some(format));
        }
        if let Some(p) = &q.platform {
            match self.platforms.iter().position(|x| x == p) {
                Some(p) => hits.retain(|&i| self.entries[i as usize].platform as usize == p),
                None => hits.clear(),
            }
        }
        hits
    }

    /// The base title IDs of the games whose names hold every word, sorted and
    /// without repeats (the titles' search: a title matches when one of its files
    /// does).
    pub fn bases_named(&self, words: &[String]) -> Vec<TitleId> {
        let mut ids: Vec<u64> = self
            .named(words)
            .iter()
            .map(|&i| &self.entries[i as usize])
            .filter(|e| e.has_base)
            .map(|e| e.base)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().map(TitleId).collect()
    }

    /// Positions of the names that hold every word, ascending.
    ///
    /// A word of two or three characters is one gram, whose list is exactly the
    /// names holding it; a word of one character is a bit of [`letters`]. A longer
    /// word narrows by its rarest trigram (a name holding it holds each of them; they
    /// come together in the same names, so intersecting the others barely narrows),
    /// and the names left are checked against it. Short words were the slow searches:
    /// with no trigram, every name was checked (2 ms at 100,000, on every keystroke).
    fn named(&self, words: &[String]) -> Vec<u32> {
        let mut lists: Vec<&[u32]> = Vec::with_capacity(words.len());
        let mut mask = 0u64;
        let mut check: Vec<&str> = Vec::new();
        for w in words {
            let chars: Vec<char> = w.chars().collect();
            let list = match chars[..] {
                [] => continue,
                [c] => {
                    let (bit, exact) = letter_bit(c);
                    mask |= bit;
                    if !exact {
                        check.push(w);
                    }
                    continue;
                }
                [a, b] => self.gram(pack2(a, b)),
                [a, b, c] => self.gram(pack(a, b, c)),
                _ => {
                    check.push(w);
                    trigrams(w)
                        .map(|g| self.gram(g))
                        .min_by_key(|l| l.map(<[u32]>::len))
                        .flatten()
                }
            };
            match list {
                Some(list) => lists.push(list),
                None => return Vec::new(),
            }
        }
        let has_mask = |i: &u32| self.letters[*i as usize] & mask == mask;
        lists.sort_by_key(|l| l.len());
        let mut hits: Vec<u32> = match lists.split_first() {
            None => (0..self.len() as u32).filter(has_mask).collect(),
            Some((shortest, rest)) => {
                let mut hits = shortest.to_vec();
                for list in rest {
                    intersect(&mut hits, list);
                }
                if mask != 0 {
                    hits.retain(has_mask);
                }
                hits
            }
        };
        if !check.is_empty() {
            hits.retain(|i| check.iter().all(|w| self.name(*i as usize).contains(w)));
        }
        hits
    }

    /// The positions of the names holding a gram, if any does.
    fn gram(&self, g: Trigram) -> Option<&[u32]> {
        let &(from, n) = self.grams.get(&g)?;
        Some(&self.postings[from as usize..(from + n) as usize])
    }

    /// Positions of the games whose title ID starts with `prefix` (1 to 16 upper-case
    /// hex digits), ascending.
    fn with_id_prefix(&self, prefix: &str) -> Vec<u32> {
        let Ok(p) = u64::from_str_radix(prefix, 16) else {
            return Vec::new();
        };
        let shift = 4 * (16 - prefix.len().clamp(1, 16)) as u32;
        let low = p.checked_shl(shift).unwrap_or(0);
        let high = (p as u128 + 1) << shift;
        let id = |i: &u32| self.entries[*i as usize].title_id;
        let from = self.by_id.partition_point(|i| id(i) < low);
        let to = self.by_id.partition_point(|i| (id(i) as u128) < high);
        let mut hits: Vec<u32> = self.by_id[from..to].to_vec();
        hits.sort_unstable();
        hits
    }
}

/// What "did you mean" asks of the names (see `suggest`).
impl Words for NameIndex {
    /// The names' distinct words, gathered on the first search that needs them.
    fn vocabulary(&self) -> &Vocabulary {
        self.vocabulary
            .get_or_init(|| Vocabulary::of((0..self.len()).map(|i| self.name(i))))
    }

    fn holds_word(&self, word: &str) -> bool {
        !self.named(&[word.to_string()]).is_empty()
    }

    fn holds_all(&self, words: &[String]) -> bool {
        !self.named(words).is_empty()
    }
}

fn pack(a: char, b: char, c: char) -> Trigram {
    u64::from(a) << 42 | u64::from(b) << 21 | u64::from(c)
}

/// Every run of three characters in `s`.
fn trigrams(s: &str) -> impl Iterator<Item = Trigram> + '_ {
    let chars: Vec<char> = s.chars().collect();
    (0..chars.len().saturating_sub(2)).map(move |i| pack(chars[i], chars[i + 1], chars[i + 2]))
}

/// Two characters, packed as a trigram whose first character is past the last Unicode
/// scalar value: no name holds it, so bigrams and trigrams share one map.
fn pack2(a: char, b: char) -> Trigram {
    0x1F_FFFF << 42 | u64::from(a) << 21 | u64::from(b)
}

/// The bigrams and trigrams of a name that a search can ask for: a search word holds
/// no blank and no control character (`library::search` splits on them), so neither
/// does any gram it asks for, and those are not indexed.
fn distinct_grams(s: &str, out: &mut Vec<Trigram>) {
    out.clear();
    let chars: Vec<char> = s.chars().collect();
    let searchable = |w: &&[char]| !w.iter().any(|c| c.is_whitespace() || c.is_control());
    out.extend(
        chars
            .windows(2)
            .filter(searchable)
            .map(|w| pack2(w[0], w[1])),
    );
    out.extend(
        chars
            .windows(3)
            .filter(searchable)
            .map(|w| pack(w[0], w[1], w[2])),
    );
    out.sort_unstable();
    out.dedup();
}

/// A character's bit in a name's [`letters`]: one of its own for `a`–`z` and `0`–`9`
/// (exact: the bit set means the name holds it), one shared by several for the rest
/// (the name must still be checked).
fn letter_bit(c: char) -> (u64, bool) {
    match c {
        'a'..='z' => (1 << (c as u32 - 'a' as u32), true),
        '0'..='9' => (1 << (26 + c as u32 - '0' as u32), true),
        _ => (1 << (36 + c as u32 % 28), false),
    }
}

/// The bits of every character a name holds.
fn letters(name: &str) -> u64 {
    name.chars().fold(0, |m, c| m | letter_bit(c).0)
}

/// Keep the positions of `hits` that are also in `list` (both ascending).
fn intersect(hits: &mut Vec<u32>, list: &[u32]) {
    // Galloping pays when `list` is much longer than `hits`; between lists of like
    // length (the first two words' trigrams), a merge without branches is several
    // times faster: it was a quarter of a search request.
    if list.len() / 16 > hits.len() {
        gallop(hits, list);
    } else {
        merge(hits, list);
    }
}

/// Each hit looked for by galloping forward from the last: the cost follows `hits`.
fn gallop(hits: &mut Vec<u32>, list: &[u32]) {
    let mut rest = list;
    hits.retain(|&i| {
        let mut step = 1;
        while step < rest.len() && rest[step] < i {
            step *= 2;
        }
        let at = rest[..(step + 1).min(rest.len())].partition_point(|&x| x < i);
        rest = &rest[at..];
        rest.first() == Some(&i)
    });
}

/// Both lists walked side by side; the common positions are written over `hits`.
fn merge(hits: &mut Vec<u32>, list: &[u32]) {
    let (mut a, mut b, mut kept) = (0, 0, 0);
    while a < hits.len() && b < list.len() {
        let (x, y) = (hits[a], list[b]);
        hits[kept] = x;
        kept += usize::from(x == y);
        a += usize::from(x <= y);
        b += usize::from(y <= x);
    }
    hits.truncate(kept);
}

/// Two ascending lists merged, without repeats.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    out.extend_from_slice(a);
    out.extend_from_slice(b);
    out.sort_unstable();
    out.dedup();
    out
}

/// The index at the library's current generation, built again when it moves (see
/// `kept`), by one request while the others wait for it.
pub struct Names(Kept<(), NameIndex>);

impl Default for Names {
    fn default() -> Self {
        Names(Kept::new(usize::MAX, NameIndex::heap_bytes))
    }
}

impl Names {
    pub fn get(&self, db: &Connection) -> Result<Arc<NameIndex>, Error> {
        self.0
            .get_or_build((), || library_generation::current(db), |_| build(db))
    }

    /// For the titles' search: the base IDs of the titles one of whose files' names
    /// holds every word; `None` without words.
    pub fn titles_named(
        &self,
        db: &Connection,
        words: &[String],
    ) -> Result<Option<Vec<TitleId>>, Error> {
        if words.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.get(db)?.bases_named(words)))
    }

    /// The index at `generation`, which the caller just read, or at the current one.
    pub fn at(&self, db: &Connection, generation: i64) -> Result<Arc<NameIndex>, Error> {
        match self.0.get(&generation, &()) {
            Some(index) => Ok(index),
            None => self.get(db),
        }
    }
}

fn build(db: &Connection) -> Result<NameIndex, Error> {
    let started = Instant::now();
    let index = NameIndex::build(db)?;
    // What the build let go of (the rows read, the trigram counts) goes back at once,
    // not at the maintenance thread's next pass: the requests that waited for the
    // index come all together.
    crate::memory::return_free_memory();
    log::info!(
        "search index: {} games, {:.1} MiB, built in {} ms",
        index.len(),
        index.heap_bytes() as f64 / (1 << 20) as f64,
        started.elapsed().as_millis()
    );
    Ok(index)
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::store::games::GameRow;
    use crate::words::IdSource;

    /// Names from few letters (accents, digits, spaces), so that words of one to four
    /// characters match often and trigram lists overlap; `&` and `^` share a bit of
    /// `letters`, and `日` has one of its own among the shared ones.
    fn random_name(rng: &mut StdRng) -> String {
        const LETTERS: [&str; 13] = [
            "a", "b", "é", "c", " ", "1", "ab", "ba", "ö", "z", "&", "^", "日",
        ];
        (0..rng.random_range(1..12))
            .map(|_| LETTERS[rng.random_range(0..LETTERS.len())])
            .collect()
    }

    type Row = (String, String, String, Option<String>, GameKind);

    /// `n` games of random names, types, platforms and title IDs (some without).
    fn library(rng: &mut StdRng, n: usize) -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::store::db::open_and_migrate(dir.path()).unwrap();
        conn.execute_batch("INSERT INTO platforms VALUES ('other', 'Other', 'o', 'nsp');")
            .unwrap();
        for i in 0..n {
            let name = random_name(rng);
            // Some without a title ID, and a few named [0000000000000000].
            let id = match rng.random_range(0..20) {
                0 => None,
                1 => Some(0),
                _ => Some(0x0100_0000_0000_0000u64 | rng.random_range(0..0x1_0000_0000u64) << 12),
            };
            let kind = [
                GameKind::Base,
                GameKind::Update,
                GameKind::Dlc,
                GameKind::Unknown,
            ][i % 4];
            // Every format, in both cases, and a key of none.
            let ext = ["nsp", "NSZ", "xci", "xcz", "zip"][i % 5];
            let row = GameRow {
                key: format!("g{i}.{ext}"),
                platform: if i % 3 == 0 { "other" } else { "switch" }.into(),
                folded: crate::library::identify::fold(&name),
                name: name.clone(),
                file_name_name: name,
                kind,
                subtype: None,
                title_id: id.map(TitleId),
                base_title_id: id.map(|id| TitleId(id & !0xFFF)),
                version: None,
                format: "nsp".into(),
                size: 1,
                mtime: 1,
                header_ok: true,
                identified_by: IdSource::Filename,
                note: None,
                keys_state: None,
                key_revision: None,
                name_conflict: None,
            };
            games::upsert(&conn, &row).unwrap();
        }
        (dir, conn)
    }

    fn rows(conn: &Connection) -> Vec<Row> {
        let mut stmt = conn
            .prepare("SELECT folded, key, platform, title_id, type FROM games ORDER BY folded, key")
            .unwrap();
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap();
        let mut rows: Vec<Row> = rows.map(Result::unwrap).collect();
        rows.sort_by(|a, b| {
            crate::library::identify::name_order(&a.0, &b.0).then_with(|| a.1.cmp(&b.1))
        });
        rows
    }

    fn random_query(rng: &mut StdRng, rows: &[Row]) -> SearchQuery {
        let mut q = SearchQuery::default();
        for _ in 0..rng.random_range(0..3) {
            // A piece of a real name (so that it matches), or a random one.
            let source = match rng.random_bool(0.7) {
                true => rows[rng.random_range(0..rows.len())].0.clone(),
                false => crate::library::identify::fold(&random_name(rng)),
            };
            let chars: Vec<char> = source.chars().filter(|c| !c.is_whitespace()).collect();
            if chars.is_empty() {
                continue;
            }
            let from = rng.random_range(0..chars.len());
            let to = rng.random_range(from..chars.len().min(from + 5)) + 1;
            q.words.push(chars[from..to].iter().collect());
        }
        if rng.random_bool(0.3) {
            let id = rows[rng.random_range(0..rows.len())]
                .3
                .clone()
                .unwrap_or_default();
            let len = rng.random_range(4..=16).min(id.len());
            q.id_prefix = Some(id[..len].to_string()).filter(|p| p.len() >= 4);
        }
        if rng.random_bool(0.3) {
            q.kind =
                Some([GameKind::Base, GameKind::Update, GameKind::Dlc][rng.random_range(0..3)]);
        }
        if rng.random_bool(0.2) {
            q.platform = Some(["switch", "other", "none"][rng.random_range(0..3)].into());
        }
        if rng.random_bool(0.2) {
            q.format = Some(crate::library::search::FORMATS[rng.random_range(0..4)]);
        }
        q
    }

    /// Both ways of intersecting keep exactly the common positions, in order, for
    /// lists of like and of very different lengths.
    #[test]
    fn intersecting_keeps_the_common_positions() {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..500 {
            let list = |rng: &mut StdRng, n: usize, span: u32| -> Vec<u32> {
                let mut l: Vec<u32> = (0..n).map(|_| rng.random_range(0..span)).collect();
                l.sort_unstable();
                l.dedup();
                l
            };
            let span = rng.random_range(1..5000);
            let (n, m) = (rng.random_range(0..200), rng.random_range(0..5000));
            let a = list(&mut rng, n, span);
            let b = list(&mut rng, m, span);
            let expected: Vec<u32> = a.iter().copied().filter(|x| b.contains(x)).collect();
            for way in [gallop, merge, intersect] {
                let mut hits = a.clone();
                way(&mut hits, &b);
                assert_eq!(hits, expected);
                let mut hits = b.clone();
                way(&mut hits, &a);
                assert_eq!(hits, expected);
            }
        }
    }

    /// The index gives what the plain definition gives, in the same order, over many
    /// random libraries and queries: the words, the prefix, the filters and their
    /// combinations; and the titles' search the same base IDs.
    #[test]
    fn the_index_answers_what_the_definition_says() {
        let mut rng = StdRng::seed_from_u64(11);
        for n in [0, 1, 50, 3000] {
            let (_dir, conn) = library(&mut rng, n);
            let rows = rows(&conn);
            let index = NameIndex::build(&conn).unwrap();
            assert_eq!(index.len(), n);
            for _ in 0..(if n == 0 { 1 } else { 400 }) {
                let q = match rows.is_empty() {
                    true => SearchQuery {
                        words: vec!["a".into()],
                        ..SearchQuery::default()
                    },
                    false => random_query(&mut rng, &rows),
                };
                let got: Vec<String> = index
                    .matches(&q)
                    .iter()
                    .map(|&i| index.listed(i).key.to_string())
                    .collect();
                assert_eq!(
                    got,
                    brute(&rows, &q),
                    "words {:?} prefix {:?}",
                    q.words,
                    q.id_prefix
                );
                if !q.words.is_empty() {
                    let mut bases: Vec<TitleId> = rows
                        .iter()
                        .filter(|r| q.words.iter().all(|w| r.0.contains(w.as_str())))
                        .filter_map(|r| r.3.as_ref())
                        .map(|id| TitleId(TitleId::parse(id).unwrap().0 & !0xFFF))
                        .collect();
                    bases.sort();
                    bases.dedup();
                    assert_eq!(index.bases_named(&q.words), bases, "{:?}", q.words);
                }
            }
        }
    }

    /// What a search means, written as plainly as possible: every game, kept when
    /// every word occurs in its folded name or its title ID starts with the prefix,
    /// and when it has the type and platform asked.
    fn brute(rows: &[Row], q: &SearchQuery) -> Vec<String> {
        rows.iter()
            .filter(|(folded, key, platform, id, kind)| {
                let by_name =
                    !q.words.is_empty() && q.words.iter().all(|w| folded.contains(w.as_str()));
                let by_id = q
                    .id_prefix
                    .as_ref()
                    .is_some_and(|p| id.as_ref().is_some_and(|id| id.starts_with(p.as_str())));
                let any = q.words.is_empty() && q.id_prefix.is_none();
                let filtered = q.kind.is_some() || q.platform.is_some() || q.format.is_some();
                let ext = key.rsplit('.').next().unwrap().to_lowercase();
                (by_name || by_id || (any && filtered))
                    && q.kind.is_none_or(|k| k == *kind)
                    && q.platform.as_ref().is_none_or(|p| p == platform)
                    && q.format.is_none_or(|f| f == ext)
            })
            .map(|(_, key, ..)| key.clone())
            .collect()
    }
}
