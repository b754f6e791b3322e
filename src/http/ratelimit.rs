//! Token buckets, keyed by an API key id or by the TCP peer address (never by a
//! forwarded header, which a client can write). The map of buckets is bounded: when it
//! is full, buckets that have refilled (they hold no information) are dropped first,
//! then the least recently used.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Instant;

struct Bucket {
    tokens: f64,
    last: Instant,
}

pub struct Buckets<K> {
    map: Mutex<HashMap<K, Bucket>>,
    /// Tokens added per second.
    rate: f64,
    /// Most tokens a bucket holds.
    burst: f64,
    /// Most buckets kept.
    cap: usize,
}

impl<K: Hash + Eq + Clone> Buckets<K> {
    pub fn new(rate: f64, burst: f64, cap: usize) -> Self {
        Buckets {
            map: Mutex::new(HashMap::new()),
            rate,
            burst,
            cap: cap.max(1),
        }
    }

    /// Take one token for `key`; `Err(seconds)` says how long until one is there, in
    /// whole seconds rounded up, so that waiting that long is enough.
    pub fn take(&self, key: &K) -> Result<(), u64> {
        let now = Instant::now();
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if !map.contains_key(key) && map.len() >= self.cap {
            self.evict(&mut map, now);
        }
        let bucket = map.entry(key.clone()).or_insert(Bucket {
            tokens: self.burst,
            last: now,
        });
        bucket.tokens = (bucket.tokens + now.duration_since(bucket.last).as_secs_f64() * self.rate)
            .min(self.burst);
        bucket.last = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err((((1.0 - bucket.tokens) / self.rate).ceil() as u64).max(1))
        }
    }

    /// Does `key` have a token left? Takes none: a limited caller is refused before
    /// its secret is even looked at, and only a wrong secret then pays (`take`).
    /// `Err(seconds)` as for `take`.
    pub fn check(&self, key: &K) -> Result<(), u64> {
        let now = Instant::now();
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let Some(bucket) = map.get(key) else {
            return Ok(());
        };
        let tokens = (bucket.tokens + now.duration_since(bucket.last).as_secs_f64() * self.rate)
            .min(self.burst);
        if tokens >= 1.0 {
            Ok(())
        } else {
            Err((((1.0 - tokens) / self.rate).ceil() as u64).max(1))
        }
    }

    fn evict(&self, map: &mut HashMap<K, Bucket>, now: Instant) {
        let (rate, burst) = (self.rate, self.burst);
        map.retain(|_, b| b.tokens + now.duration_since(b.last).as_secs_f64() * rate < burst);
        if map.len() >= self.cap {
            if let Some(oldest) = map
                .iter()
                .min_by_key(|(_, b)| b.last)
                .map(|(k, _)| k.clone())
            {
                map.remove(&oldest);
            }
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refusal_with_an_honest_wait() {
        let b = Buckets::new(10.0 / 60.0, 10.0, 100);
        for _ in 0..10 {
            assert!(b.take(&1).is_ok());
        }
        let wait = b.take(&1).unwrap_err();
        assert!((5..=6).contains(&wait), "{wait}");
        assert!(b.take(&2).is_ok(), "another key has its own bucket");
    }

    #[test]
    fn a_check_takes_nothing_and_agrees_with_take() {
        let b = Buckets::new(10.0 / 60.0, 3.0, 100);
        for _ in 0..10 {
            assert!(b.check(&1).is_ok());
        }
        assert!(b.is_empty(), "a check of an unknown key keeps no bucket");
        for _ in 0..3 {
            assert!(b.take(&1).is_ok());
        }
        let wait = b.check(&1).unwrap_err();
        assert_eq!(b.take(&1).unwrap_err(), wait);
        assert!(b.check(&2).is_ok());
    }

    #[test]
    fn the_map_stays_bounded() {
        let b = Buckets::new(1.0, 2.0, 50);
        for i in 0..10_000u32 {
            let _ = b.take(&i);
            let _ = b.take(&i);
        }
        assert!(b.len() <= 50);
    }
}
