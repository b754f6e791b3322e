//! The convert task: every `.nsz` and `.xcz` of the library, one after the other.
//! Progress counts bytes written; a file that fails counts one error, keeps its
//! original, and the task goes on.

use log::{info, warn};

use super::{Outcome, TaskCtx};
use crate::convert::{self, Options};
use crate::error::Error;
use crate::library::LibraryKey;
use crate::store::games;

/// How many failure reasons the task's message quotes.
const REASONS: usize = 10;

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let root = &ctx.config.library;
    let (mut keys, mut reasons) = (Vec::new(), Vec::new());
    for raw in games::compressed(ctx.db)? {
        match LibraryKey::parse(&raw) {
            Some(key) => keys.push(key),
            None => {
                // The log names it; the task's message (seen by clients) does not,
                // since a row that is no key could hold any path.
                warn!("convert: {raw:?} names no file of the library; skipped");
                ctx.progress.error();
                reasons.push("a row of the library that names no file".to_string());
            }
        }
    }
    ctx.progress
        .set_total(keys.iter().map(|k| convert::planned_size(root, k)).sum());
    let opts = Options {
        retention_days: ctx.config.trash_retention_days,
        accept_unverified: ctx.config.convert_accept_unverified,
    };
    let mut converted = 0;
    for key in &keys {
        ctx.progress.check()?;
        ctx.progress.advance(0, key);
        let mut on_write = |n: u64| {
            ctx.progress.advance(n, key);
            if ctx.progress.is_cancelled() {
                Err(std::io::Error::new(
                    std::io::ErrorKind::Interrupted,
                    "cancelled",
                ))
            } else {
                Ok(())
            }
        };
        match convert::convert(ctx.db, root, key, &opts, &mut on_write) {
            Ok(out) => {
                info!("convert: {key} → {out}");
                converted += 1;
            }
            Err(_) if ctx.progress.is_cancelled() => return Err(Error::cancelled()),
            Err(e) => {
                warn!("convert: {e}");
                ctx.progress.error();
                reasons.push(e.message());
            }
        }
    }
    // Once for the whole task: the titles follow the files that changed.
    crate::titles::model::refresh_after_change(ctx.db);
    let mut message = format!("{converted} converted, {} failed", reasons.len());
    if !reasons.is_empty() {
        let quoted: Vec<&str> = reasons.iter().take(REASONS).map(String::as_str).collect();
        message = format!("{message}: {}", quoted.join("; "));
    }
    Ok(Outcome { message })
}
