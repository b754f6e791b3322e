//! Rendered library and search pages, kept until the library changes (`kept`: served
//! only at the generation they were computed at).
//!
//! Dashboards and scripts ask for the same few pages again and again. The pages are
//! kept within a byte budget, the least used going first, so the cache stays small on
//! a Pi whatever number of distinct pages clients ask.

use std::sync::Arc;

use rusqlite::Connection;

use crate::error::Error;
use crate::http::Reply;
use crate::kept::Kept;
use crate::store::library_generation;

/// What the rendered pages may take in memory, at most.
const BUDGET_BYTES: usize = 8 * 1024 * 1024;

pub struct PageCache {
    pages: Kept<String, Vec<u8>>,
}

impl Default for PageCache {
    fn default() -> Self {
        PageCache {
            pages: Kept::new(BUDGET_BYTES, Vec::capacity),
        }
    }
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
        if let Some(body) = self.pages.get(&generation, &key) {
            return Ok(Reply::json_shared(body));
        }
        let mut reply = render(generation)?;
        if reply.status != 200 {
            return Ok(reply);
        }
        // Kept and sent from one shared copy: a page asked by many clients at once
        // is not copied for each of them. Kept at its length: the budget counts
        // what a page holds.
        reply.body.shrink_to_fit();
        let body = Arc::new(reply.body);
        self.pages.put(generation, key, Arc::clone(&body));
        Ok(Reply::json_shared(body))
    }
}
