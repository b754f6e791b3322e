//! One cache for what is computed from the library and holds until it changes: the
//! rendered pages and the counts (`http::cache`), the search index
//! (`library::name_index`), the titles' lists (`titles::listing`), the shop's snapshot
//! (`shop`), the room a convert needs (`web::tasks`).
//!
//! The rule, the same for all: an answer is kept with the stamp read before it was
//! computed (the library's generation, `store::library_generation`, which SQLite
//! triggers move on every write to the games, or a stamp that holds it), and it is
//! served only to a caller that reads that same stamp. The data an answer was
//! computed from is at least as new as its stamp, so what is served is never older
//! than the library the caller saw. A stamp that moves drops every answer of the one
//! before (they can never be served again).
//!
//! Each cache has a budget in bytes: past it, the answers used least recently go,
//! down to three quarters of the budget (so that a full cache does not sort its
//! answers at every insert), never the answer just kept, which its caller holds.
//! Answers are freed after the lock is let go: every other request waits on it.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::Error;

/// Answers computed at one stamp, by key, within a budget in bytes.
pub struct Kept<K, V, S = i64> {
    state: Mutex<State<K, V, S>>,
    /// Held while [`Kept::get_or_build`] computes: answers that cost a pass over the
    /// whole library are computed once, not by every request that finds them missing.
    building: Mutex<()>,
    budget: usize,
    /// What an answer holds on the heap, for the budget.
    weigh: fn(&V) -> usize,
}

struct State<K, V, S> {
    stamp: Option<S>,
    answers: HashMap<K, Answer<V>>,
    bytes: usize,
    /// Counts uses, to find the answers used least recently.
    clock: u64,
}

struct Answer<V> {
    value: Arc<V>,
    bytes: usize,
    used: u64,
}

/// What a kept answer costs besides its own heap: its entry in the map.
const ENTRY_BYTES: usize = 64;

impl<K: Eq + Hash + Clone, V, S: PartialEq + Clone> Kept<K, V, S> {
    /// A cache holding at most `budget` bytes, as `weigh` counts an answer's.
    pub fn new(budget: usize, weigh: fn(&V) -> usize) -> Self {
        Kept {
            state: Mutex::new(State {
                stamp: None,
                answers: HashMap::new(),
                bytes: 0,
                clock: 0,
            }),
            building: Mutex::new(()),
            budget,
            weigh,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<K, V, S>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The answer for `key` computed at `stamp`, if it is kept.
    pub fn get(&self, stamp: &S, key: &K) -> Option<Arc<V>> {
        let mut state = self.lock();
        if state.stamp.as_ref() != Some(stamp) {
            return None;
        }
        state.clock += 1;
        let now = state.clock;
        let answer = state.answers.get_mut(key)?;
        answer.used = now;
        Some(Arc::clone(&answer.value))
    }

    /// Keep `value` as the answer for `key` at `stamp`. The answers of another stamp
    /// go: a put from a request that read the library before the last change is
    /// rare, and dropping what a newer one kept only costs computing it again.
    pub fn put(&self, stamp: S, key: K, value: Arc<V>) {
        let bytes = (self.weigh)(&value) + ENTRY_BYTES;
        let mut dropped: Vec<Arc<V>> = Vec::new();
        let mut state = self.lock();
        if state.stamp.as_ref() != Some(&stamp) {
            dropped.extend(state.answers.drain().map(|(_, a)| a.value));
            state.bytes = 0;
            state.stamp = Some(stamp);
        }
        state.clock += 1;
        let used = state.clock;
        state.bytes += bytes;
        let old = state
            .answers
            .insert(key.clone(), Answer { value, bytes, used });
        if let Some(old) = old {
            state.bytes -= old.bytes;
            dropped.push(old.value);
        }
        if state.bytes > self.budget {
            dropped.extend(evict(&mut state, &key, self.budget / 4 * 3));
        }
        drop(state);
        drop(dropped);
    }

    /// The answer kept at `stamp`, else `compute`d and kept. Requests missing the same
    /// answer at once each compute it (for answers that cost little, like a page).
    pub fn get_or(
        &self,
        stamp: S,
        key: K,
        compute: impl FnOnce() -> Result<V, Error>,
    ) -> Result<Arc<V>, Error> {
        if let Some(value) = self.get(&stamp, &key) {
            return Ok(value);
        }
        let value = Arc::new(compute()?);
        self.put(stamp, key, Arc::clone(&value));
        Ok(value)
    }

    /// The answer at the current stamp, computed by one caller at a time (for answers
    /// that cost a pass over the library). A caller that waited reads the stamp
    /// again: during a scan the library moves every few hundred files, and the answer
    /// the caller before it just computed is, most often, the current one. The stamp
    /// `build` is given is the one its answer is kept with.
    pub fn get_or_build(
        &self,
        key: K,
        stamp: impl Fn() -> Result<S, Error>,
        build: impl FnOnce(&S) -> Result<V, Error>,
    ) -> Result<Arc<V>, Error> {
        if let Some(value) = self.get(&stamp()?, &key) {
            return Ok(value);
        }
        let _building = self.building.lock().unwrap_or_else(|e| e.into_inner());
        let now = stamp()?;
        if let Some(value) = self.get(&now, &key) {
            return Ok(value);
        }
        let value = Arc::new(build(&now)?);
        self.put(now, key, Arc::clone(&value));
        Ok(value)
    }

    /// What the kept answers weigh, in bytes.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.lock().bytes
    }
}

/// Take out the answers used least recently until `target` bytes are left, keeping
/// `fresh` (the answer just kept); returns them, to be freed after the lock.
fn evict<K: Eq + Hash + Clone, V, S>(
    state: &mut State<K, V, S>,
    fresh: &K,
    target: usize,
) -> Vec<Arc<V>> {
    let mut by_use: Vec<(u64, K)> = state
        .answers
        .iter()
        .filter(|(k, _)| *k != fresh)
        .map(|(k, a)| (a.used, k.clone()))
        .collect();
    by_use.sort_unstable_by_key(|(used, _)| *used);
    let mut out = Vec::new();
    for (_, key) in by_use {
        if state.bytes <= target {
            break;
        }
        if let Some(a) = state.answers.remove(&key) {
            state.bytes -= a.bytes;
            out.push(a.value);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(budget: usize) -> Kept<String, Vec<u8>> {
        Kept::new(budget, Vec::capacity)
    }

    #[test]
    fn an_answer_is_served_only_at_its_stamp() {
        let cache = pages(1 << 20);
        cache.put(3, "a".into(), Arc::new(b"three".to_vec()));
        assert_eq!(
            cache.get(&3, &"a".into()).as_deref(),
            Some(&b"three".to_vec())
        );
        assert_eq!(cache.get(&4, &"a".into()), None, "never to a newer library");
        assert_eq!(cache.get(&2, &"a".into()), None, "nor to an older one");
        cache.put(4, "b".into(), Arc::new(b"four".to_vec()));
        assert_eq!(
            cache.get(&3, &"a".into()),
            None,
            "another stamp drops the rest"
        );
        assert_eq!(
            cache.get(&4, &"b".into()).as_deref(),
            Some(&b"four".to_vec())
        );
    }

    #[test]
    fn past_the_budget_the_least_used_answers_go() {
        let budget = 100 * (1000 + ENTRY_BYTES);
        let cache = pages(budget);
        for i in 0..1000 {
            cache.put(1, format!("{i}"), Arc::new(vec![0; 1000]));
            // Page 0 is asked all the time: it stays.
            assert!(cache.get(&1, &"0".into()).is_some(), "{i}");
            assert!(cache.bytes() <= budget);
        }
        assert!(cache.get(&1, &"999".into()).is_some(), "the newest stays");
        assert!(cache.get(&1, &"500".into()).is_none(), "an old one went");
        // An answer alone over the budget is still kept (its caller holds it).
        cache.put(1, "big".into(), Arc::new(vec![0; budget * 2]));
        assert!(cache.get(&1, &"big".into()).is_some());
        assert!(cache.get(&1, &"0".into()).is_none());
    }

    #[test]
    fn one_caller_builds_and_the_others_take_its_answer() {
        let cache: Kept<(), u64> = Kept::new(usize::MAX, |_| 8);
        let builds = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    let got = cache
                        .get_or_build(
                            (),
                            || Ok(7),
                            |at| {
                                builds.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                                std::thread::sleep(std::time::Duration::from_millis(20));
                                Ok(*at as u64 * 10)
                            },
                        )
                        .unwrap();
                    assert_eq!(*got, 70);
                });
            }
        });
        assert_eq!(builds.into_inner(), 1);
    }
}
