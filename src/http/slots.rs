//! How many downloads each console runs at once. An installer may open many
//! connections; past its share a console waits a moment for one of its own downloads
//! to end, then gets 503 with `Retry-After`, so one console cannot take every download
//! thread from the others.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Default)]
pub struct Slots {
    held: Mutex<HashMap<String, usize>>,
    freed: Condvar,
}

/// One running download; its slot is given back when it is dropped.
pub struct Slot {
    slots: Arc<Slots>,
    who: String,
}

impl Slots {
    /// A slot for `who`, which may hold `max` at once; waits up to `wait` for one.
    pub fn acquire(self: &Arc<Self>, who: &str, max: usize, wait: Duration) -> Option<Slot> {
        let deadline = Instant::now() + wait;
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let n = held.get(who).copied().unwrap_or(0);
            if n < max {
                held.insert(who.to_string(), n + 1);
                return Some(Slot {
                    slots: Arc::clone(self),
                    who: who.to_string(),
                });
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            held = self
                .freed
                .wait_timeout(held, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// The downloads running now, per console.
    pub fn running(&self) -> HashMap<String, usize> {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = self.slots.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = held.get_mut(&self.who) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.who);
            }
        }
        self.slots.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_console_past_its_share_waits_then_gives_up_and_others_are_not_held() {
        let slots = Arc::new(Slots::default());
        let a1 = slots.acquire("a", 2, Duration::ZERO).unwrap();
        let _a2 = slots.acquire("a", 2, Duration::ZERO).unwrap();
        assert!(slots.acquire("a", 2, Duration::from_millis(20)).is_none());
        assert!(slots.acquire("b", 2, Duration::ZERO).is_some());
        let waiter = {
            let slots = Arc::clone(&slots);
            std::thread::spawn(move || slots.acquire("a", 2, Duration::from_secs(5)).is_some())
        };
        std::thread::sleep(Duration::from_millis(20));
        drop(a1);
        assert!(waiter.join().unwrap());
        assert_eq!(
            slots.running().get("a"),
            Some(&1),
            "the waiter's slot was dropped"
        );
    }
}
