//! The shop's download threads, shared fairly between consoles.
//!
//! A download holds its thread for as long as the console reads, minutes for a large
//! game, so downloads do not run on the request workers. A worker checks the route
//! and the console's credentials from the request's head, then hands the download
//! here and is free again: a stranger never reaches a download thread.
//!
//! Each console (or, with `--shop-public`, each anonymous client network) runs at
//! most `share` downloads at once. Past its share a request waits in the console's
//! own queue, outside the threads, and the threads take the queues in turn; only past
//! a bounded queue is it refused (503 with `Retry-After`). So one console flooding
//! range requests never holds more than its share of threads, and an installer that
//! reads one range after another (Sphaira) is queued, never refused, at its limit.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};

/// Requests one console may have waiting, per download it may run.
const QUEUE_PER_SHARE: usize = 4;

pub struct Downloads<J> {
    state: Mutex<State<J>>,
    changed: Condvar,
    /// Downloads one console runs at once.
    share: usize,
    /// Requests one console may have waiting.
    queue: usize,
    /// Requests all consoles may have waiting.
    queue_total: usize,
}

struct State<J> {
    consoles: HashMap<String, Console<J>>,
    /// The consoles with requests waiting, in the order their turn comes.
    turns: VecDeque<String>,
    waiting: usize,
    closed: bool,
}

struct Console<J> {
    running: usize,
    waiting: VecDeque<J>,
}

/// One download running; its place in the console's share is given back when it is
/// dropped.
pub struct Running<J> {
    downloads: Arc<Downloads<J>>,
    who: String,
}

impl<J> Downloads<J> {
    /// `share` downloads per console, for `threads` download threads.
    pub fn new(share: usize, threads: usize) -> Self {
        let share = share.max(1);
        Self::with_queues(
            share,
            share * QUEUE_PER_SHARE,
            threads.max(1) * QUEUE_PER_SHARE,
        )
    }

    /// `share` jobs running per client, `queue` waiting per client and `queue_total`
    /// in all.
    pub fn with_queues(share: usize, queue: usize, queue_total: usize) -> Self {
        Downloads {
            state: Mutex::new(State {
                consoles: HashMap::new(),
                turns: VecDeque::new(),
                waiting: 0,
                closed: false,
            }),
            changed: Condvar::new(),
            share: share.max(1),
            queue,
            queue_total,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<J>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queue a download for `who`; gives it back when the queue is full or closed.
    pub fn submit(&self, who: &str, job: J) -> Result<(), J> {
        let mut state = self.lock();
        if state.closed || state.waiting >= self.queue_total {
            return Err(job);
        }
        let console = state
            .consoles
            .entry(who.to_string())
            .or_insert_with(|| Console {
                running: 0,
                waiting: VecDeque::new(),
            });
        if console.waiting.len() >= self.queue {
            return Err(job);
        }
        console.waiting.push_back(job);
        if console.waiting.len() == 1 {
            state.turns.push_back(who.to_string());
        }
        state.waiting += 1;
        drop(state);
        self.changed.notify_all();
        Ok(())
    }

    /// The next download a thread may run: the first console in turn that is under
    /// its share. Blocks until there is one; `None` once closed.
    pub fn next(self: &Arc<Self>) -> Option<(Running<J>, J)> {
        let mut state = self.lock();
        loop {
            if state.closed {
                return None;
            }
            let share = self.share;
            let ready = state.turns.iter().position(|who| {
                state
                    .consoles
                    .get(who)
                    .is_some_and(|c| c.running < share && !c.waiting.is_empty())
            });
            if let Some(i) = ready {
                let who = state.turns.remove(i).unwrap_or_default();
                let console = state.consoles.get_mut(&who)?;
                let job = console.waiting.pop_front()?;
                console.running += 1;
                let more = !console.waiting.is_empty();
                state.waiting -= 1;
                if more {
                    state.turns.push_back(who.clone());
                }
                let running = Running {
                    downloads: Arc::clone(self),
                    who,
                };
                return Some((running, job));
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Stop handing out downloads; returns those still waiting, for the caller to
    /// answer. The threads end once their download is done.
    pub fn close(&self) -> Vec<J> {
        let mut state = self.lock();
        state.closed = true;
        state.turns.clear();
        state.waiting = 0;
        let left = state
            .consoles
            .values_mut()
            .flat_map(|c| c.waiting.drain(..))
            .collect();
        drop(state);
        self.changed.notify_all();
        left
    }

    /// The downloads running now, per console.
    #[cfg(test)]
    fn running(&self) -> HashMap<String, usize> {
        self.lock()
            .consoles
            .iter()
            .filter(|(_, c)| c.running > 0)
            .map(|(who, c)| (who.clone(), c.running))
            .collect()
    }
}

impl<J> Drop for Running<J> {
    fn drop(&mut self) {
        let mut state = self.downloads.lock();
        if let Some(c) = state.consoles.get_mut(&self.who) {
            c.running -= 1;
            if c.running == 0 && c.waiting.is_empty() {
                state.consoles.remove(&self.who);
            }
        }
        drop(state);
        self.downloads.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_console_past_its_share_waits_its_turn_and_others_go_first() {
        let d = Arc::new(Downloads::new(2, 4));
        for i in 0..4 {
            d.submit("a", i).unwrap();
        }
        d.submit("b", 10).unwrap();
        let (ra1, j1) = d.next().unwrap();
        let (_rb, j2) = d.next().unwrap();
        let (_ra2, j3) = d.next().unwrap();
        assert_eq!((j1, j2, j3), (0, 10, 1), "b's turn comes before a's second");
        assert_eq!(d.running().get("a"), Some(&2));
        // a is at its share: nothing is runnable until one of its downloads ends.
        let waiter = {
            let d = Arc::clone(&d);
            std::thread::spawn(move || d.next().map(|(_, j)| j))
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiter.is_finished(), "a third download of a ran");
        drop(ra1);
        assert_eq!(waiter.join().unwrap(), Some(2));
    }

    #[test]
    fn the_queue_is_bounded_per_console_and_in_all() {
        let d = Arc::new(Downloads::new(1, 2));
        for i in 0..QUEUE_PER_SHARE {
            d.submit("a", i).unwrap();
        }
        assert_eq!(d.submit("a", 99), Err(99), "a's queue is full");
        for i in 0..QUEUE_PER_SHARE {
            d.submit("b", i).unwrap();
        }
        assert_eq!(d.submit("c", 99), Err(99), "every queue together is full");
        let left = d.close();
        assert_eq!(left.len(), 2 * QUEUE_PER_SHARE);
        assert!(d.next().is_none());
        assert_eq!(d.submit("a", 1), Err(1), "closed");
    }
}
