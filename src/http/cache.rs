//! Rendered library and search pages, and the library's counts, kept until the
//! library changes.
//!
//! Dashboards and scripts ask for the same few pages again and again. An answer is stored with the library's
//! generation (`store::library_generation`), which SQLite triggers move on every
//! write to the games, whoever makes it; an answer from an older generation is never
//! served. The whole cache is dropped when the generation moves or when it would grow
//! past its byte budget, so it needs no eviction order and stays small on a Pi.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use crate::error::Error;
use crate::http::Reply;
use crate::store::games::{self, Counts};
use crate::store::library_generation;

/// What the rendered pages may take in memory, at most.
const BUDGET_BYTES: usize = 8 * 1024 * 1024;

#[derive(Default)]
pub struct PageCache {
    inner: Mutex<Inner>,
    /// The library's counts, which cost a pass over every game.
    counts: Slot<Counts>,
    by_platform: Slot<HashMap<String, Counts>>,
}

/// One value, kept with the generation it was computed at.
struct Slot<T>(Mutex<Option<(i64, T)>>);

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot(Mutex::new(None))
    }
}

impl<T: Clone> Slot<T> {
    fn get_or(
        &self,
        generation: i64,
        compute: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        {
            let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, value)) = kept.as_ref().filter(|(g, _)| *g == generation) {
                return Ok(value.clone());
            }
        }
        let value = compute()?;
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A value computed at an older generation than the one kept is not kept.
        if kept.as_ref().is_none_or(|(g, _)| *g <= generation) {
            *kept = Some((generation, value.clone()));
        }
        Ok(value)
    }
}

#[derive(Default)]
struct Inner {
    generation: i64,
    bytes: usize,
    pages: HashMap<String, Arc<Vec<u8>>>,
}

impl PageCache {
    /// The JSON answer for `key`: from the cache when the library has not changed
    /// since it was rendered, else from `render`, then kept. `render` is told the
    /// generation it renders for (the in-memory indexes need not read it again).
    pub fn json(
        &self,
        db: &Connection,
        key: String,
        render: impl FnOnce(i64) -> Result<Reply, Error>,
    ) -> Result<Reply, Error> {
        let generation = library_generation::current(db)?;
        if let Some(body) = self.get(generation, &key) {
            return Ok(Reply::json_shared(body));
        }
        let reply = render(generation)?;
        if reply.status != 200 {
            return Ok(reply);
        }
        // Kept and sent from one shared copy: a page asked by many clients at once
        // is not copied for each of them.
        let body = Arc::new(reply.body);
        self.put(generation, key, Arc::clone(&body));
        Ok(Reply::json_shared(body))
    }

    /// The counts over the whole library (`games::stats`), kept like the pages.
    pub fn stats(&self, db: &Connection) -> Result<Counts, Error> {
        let generation = library_generation::current(db)?;
        self.counts.get_or(generation, || games::stats(db))
    }

    /// The counts per platform (`games::stats_by_platform`), kept like the pages.
    pub fn stats_by_platform(&self, db: &Connection) -> Result<HashMap<String, Counts>, Error> {
        let generation = library_generation::current(db)?;
        self.by_platform
            .get_or(generation, || games::stats_by_platform(db))
    }

    fn get(&self, generation: i64, key: &str) -> Option<Arc<Vec<u8>>> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        (inner.generation == generation)
            .then(|| inner.pages.get(key).cloned())
            .flatten()
    }

    fn put(&self, generation: i64, key: String, body: Arc<Vec<u8>>) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // A page rendered from an older generation than the cache holds is dropped;
        // a newer one starts the cache afresh.
        if generation < inner.generation {
            return;
        }
        let mut dropped = HashMap::new();
        if generation > inner.generation || inner.bytes + body.len() > BUDGET_BYTES {
            dropped = std::mem::take(&mut inner.pages);
            inner.pages.reserve(dropped.len());
            inner.bytes = 0;
            inner.generation = generation;
        }
        inner.bytes += body.len() + key.len();
        if let Some(old) = inner.pages.insert(key, body) {
            inner.bytes -= old.len();
        }
        // Freeing a full cache (a thousand pages) is done after the lock is let go:
        // every other request asks for it.
        drop(inner);
        drop(dropped);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_from_another_generation_is_never_served() {
        let cache = PageCache::default();
        cache.put(3, "a".into(), Arc::new(b"three".to_vec()));
        assert_eq!(
            cache.get(3, "a").as_deref().map(Vec::as_slice),
            Some(&b"three"[..])
        );
        assert_eq!(cache.get(4, "a"), None);
        cache.put(2, "a".into(), Arc::new(b"two".to_vec()));
        assert_eq!(
            cache.get(3, "a").as_deref().map(Vec::as_slice),
            Some(&b"three"[..])
        );
        cache.put(4, "b".into(), Arc::new(b"four".to_vec()));
        assert_eq!(cache.get(3, "a"), None, "a newer generation drops the rest");
        assert_eq!(
            cache.get(4, "b").as_deref().map(Vec::as_slice),
            Some(&b"four"[..])
        );
    }

    #[test]
    fn the_budget_is_never_exceeded() {
        let cache = PageCache::default();
        for i in 0..100 {
            cache.put(1, format!("{i}"), Arc::new(vec![0; BUDGET_BYTES / 10]));
            assert!(cache.inner.lock().unwrap().bytes <= BUDGET_BYTES);
        }
        assert!(cache.get(1, "99").is_some());
    }
}
