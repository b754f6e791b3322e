//! The search index: every game's folded name in memory, with the trigrams that
//! occur in it, rebuilt when the library's generation moves.
//!
//! A search is asked far more often than the library changes, and SQLite's trigram
//! index cost two full-text queries per request (the page and its count). Here the
//! games are numbered in library order (folded name, then key), so a search is an
//! intersection of sorted lists: its count is a length and its page a slice, with no
//! sort. The answers are the ones `library::search` defines: every word occurs in the
//! folded name (a substring; words of three characters or more are narrowed by
//! their trigrams first, then checked), or the title ID starts with the prefix.
//!
//! Memory: the names (about 30 bytes each), a position per trigram occurrence (4
//! bytes), and a few numbers per game: about 20 MiB for 100,000 games.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rusqlite::Connection;

use super::identify::{format_title_id, parse_title_id};
use super::search::SearchQuery;
use crate::error::Error;
use crate::store::games;
use crate::store::library_generation;
use crate::words::GameKind;

/// Three characters, packed (21 bits each).
type Trigram = u64;

/// The index at one generation of the library.
pub struct NameIndex {
    generation: i64,
    /// Every folded name, one after the other; name `i` ends at `ends[i]`.
    names: String,
    ends: Vec<u32>,
    rowids: Vec<i64>,
    kinds: Vec<GameKind>,
    /// Index into `platforms`.
    platform: Vec<u16>,
    platforms: Vec<String>,
    /// Base title ID, 0 for none (no title has ID 0).
    bases: Vec<u64>,
    /// (title ID, position), sorted: a prefix is a range.
    by_id: Vec<(u64, u32)>,
    /// Where each trigram's positions lie in `postings`, ascending.
    grams: HashMap<Trigram, (u32, u32)>,
    postings: Vec<u32>,
}

impl NameIndex {
    /// Read every game from the database, in library order.
    pub fn build(db: &Connection) -> Result<NameIndex, Error> {
        let mut index = NameIndex {
            generation: 0,
            names: String::new(),
            ends: Vec::new(),
            rowids: Vec::new(),
            kinds: Vec::new(),
            platform: Vec::new(),
            platforms: Vec::new(),
            bases: Vec::new(),
            by_id: Vec::new(),
            grams: HashMap::new(),
            postings: Vec::new(),
        };
        let mut platform_of = HashMap::new();
        let generation = games::for_each_indexed(db, |g| {
            let next = platform_of.len() as u16;
            let platform = *platform_of.entry(g.platform).or_insert(next);
            let at = index.rowids.len() as u32;
            index.names.push_str(&g.folded);
            index.ends.push(index.names.len() as u32);
            index.rowids.push(g.rowid);
            index.kinds.push(g.kind);
            index.platform.push(platform);
            index.bases.push(id_number(g.base_title_id.as_deref()));
            if let Some(id) = g.title_id.as_deref().and_then(parse_title_id) {
                index.by_id.push((id, at));
            }
        })?;
        index.generation = generation;
        let mut platforms: Vec<(String, u16)> = platform_of.into_iter().collect();
        platforms.sort_by_key(|(_, i)| *i);
        index.platforms = platforms.into_iter().map(|(p, _)| p).collect();
        index.by_id.sort_unstable();
        index.index_trigrams();
        Ok(index)
    }

    /// Two passes over the names: count each trigram's games, then place each game in
    /// its lists. In order of position, so every list comes out sorted.
    fn index_trigrams(&mut self) {
        let mut counts: HashMap<Trigram, u32> = HashMap::new();
        let mut seen = Vec::new();
        for i in 0..self.len() {
            distinct_trigrams(self.name(i), &mut seen);
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
            distinct_trigrams(self.name(i), &mut seen);
            for g in &seen {
                let (from, filled) = grams.get_mut(g).expect("counted in the first pass");
                postings[(*from + *filled) as usize] = i as u32;
                *filled += 1;
            }
        }
        self.grams = grams;
        self.postings = postings;
    }

    pub fn generation(&self) -> i64 {
        self.generation
    }

    pub fn len(&self) -> usize {
        self.rowids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rowids.is_empty()
    }

    fn name(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.names[start..self.ends[i] as usize]
    }

    /// What the index holds on the heap, in bytes (for the log and the benchmark).
    pub fn heap_bytes(&self) -> usize {
        self.names.capacity()
            + self.ends.capacity() * 4
            + self.rowids.capacity() * 8
            + self.kinds.capacity() * std::mem::size_of::<GameKind>()
            + self.platform.capacity() * 2
            + self.bases.capacity() * 8
            + self.by_id.capacity() * 16
            + self.grams.capacity() * 24
            + self.postings.capacity() * 4
    }

    /// The positions (library order) of the games `q` matches: by every word, or by
    /// the title-ID prefix; then of its type and platform when it names them. With
    /// neither words nor prefix, the type and platform alone select; with nothing at
    /// all, nothing matches.
    pub fn matches(&self, q: &SearchQuery) -> Vec<u32> {
        let by_name = (!q.words.is_empty()).then(|| self.named(&q.words));
        let by_id = q.id_prefix.as_deref().map(|p| self.with_id_prefix(p));
        let mut hits = match (by_name, by_id) {
            (Some(a), Some(b)) => union(&a, &b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) if q.kind.is_none() && q.platform.is_none() => return Vec::new(),
            (None, None) => (0..self.len() as u32).collect(),
        };
        if let Some(kind) = q.kind {
            hits.retain(|&i| self.kinds[i as usize] == kind);
        }
        if let Some(p) = &q.platform {
            match self.platforms.iter().position(|x| x == p) {
                Some(p) => hits.retain(|&i| self.platform[i as usize] as usize == p),
                None => hits.clear(),
            }
        }
        hits
    }

    /// The rowids of games at `positions`, in the same order.
    pub fn rowids(&self, positions: &[u32]) -> Vec<i64> {
        positions.iter().map(|&i| self.rowids[i as usize]).collect()
    }

    /// The base title IDs of the games whose names hold every word, sorted and
    /// without repeats (the titles' search: a title matches when one of its files
    /// does).
    pub fn bases_named(&self, words: &[String]) -> Vec<String> {
        let mut ids: Vec<u64> = self
            .named(words)
            .iter()
            .map(|&i| self.bases[i as usize])
            .filter(|&id| id != 0)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().map(format_title_id).collect()
    }

    /// Positions of the names that hold every word, ascending.
    fn named(&self, words: &[String]) -> Vec<u32> {
        let mut grams = Vec::new();
        for w in words.iter().filter(|w| w.chars().count() >= 3) {
            grams.extend(trigrams(w));
        }
        grams.sort_unstable();
        grams.dedup();
        let holds_all = |i: &u32| words.iter().all(|w| self.name(*i as usize).contains(&**w));
        if grams.is_empty() {
            // Only short words: every name is checked (a few milliseconds at 100,000).
            return (0..self.len() as u32).filter(holds_all).collect();
        }
        let mut lists = Vec::with_capacity(grams.len());
        for g in &grams {
            match self.grams.get(g) {
                Some(&(from, n)) => lists.push(&self.postings[from as usize..(from + n) as usize]),
                None => return Vec::new(),
            }
        }
        lists.sort_by_key(|l| l.len());
        let mut hits: Vec<u32> = lists[0].to_vec();
        for list in &lists[1..] {
            hits.retain(|i| list.binary_search(i).is_ok());
        }
        hits.retain(holds_all);
        hits
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
        let from = self.by_id.partition_point(|&(id, _)| id < low);
        let to = self.by_id.partition_point(|&(id, _)| (id as u128) < high);
        let mut hits: Vec<u32> = self.by_id[from..to].iter().map(|&(_, i)| i).collect();
        hits.sort_unstable();
        hits
    }
}

fn id_number(id: Option<&str>) -> u64 {
    id.and_then(parse_title_id).unwrap_or(0)
}

/// Every run of three characters in `s`.
fn trigrams(s: &str) -> impl Iterator<Item = Trigram> + '_ {
    let chars: Vec<u64> = s.chars().map(u64::from).collect();
    (0..chars.len().saturating_sub(2))
        .map(move |i| chars[i] << 42 | chars[i + 1] << 21 | chars[i + 2])
}

fn distinct_trigrams(s: &str, out: &mut Vec<Trigram>) {
    out.clear();
    out.extend(trigrams(s));
    out.sort_unstable();
    out.dedup();
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

/// The index at the library's current generation, built again when it moves. Only
/// one request builds; the others asking meanwhile wait for it rather than build it
/// too.
#[derive(Default)]
pub struct Names {
    current: Mutex<Option<Arc<NameIndex>>>,
    building: Mutex<()>,
}

impl Names {
    pub fn get(&self, db: &Connection) -> Result<Arc<NameIndex>, Error> {
        let generation = library_generation::current(db)?;
        if let Some(index) = self.kept(generation) {
            return Ok(index);
        }
        let _building = self.building.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(index) = self.kept(generation) {
            return Ok(index);
        }
        let started = Instant::now();
        let index = Arc::new(NameIndex::build(db)?);
        log::info!(
            "search index: {} games, {:.1} MiB, built in {} ms",
            index.len(),
            index.heap_bytes() as f64 / (1 << 20) as f64,
            started.elapsed().as_millis()
        );
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&index));
        Ok(index)
    }

    fn kept(&self, generation: i64) -> Option<Arc<NameIndex>> {
        let current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        current
            .as_ref()
            .filter(|i| i.generation == generation)
            .cloned()
    }
}
