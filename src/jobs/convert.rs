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
    // The keys came from the walk, so every one parses; one that did not would name
    // no file to convert.
    let keys: Vec<LibraryKey> = games::compressed(ctx.db)?
        .iter()
        .filter_map(|k| LibraryKey::parse(k))
        .collect();
    ctx.progress
        .set_total(keys.iter().map(|k| convert::planned_size(root, k)).sum());
    let opts = Options {
        retention_days: ctx.config.trash_retention_days,
        accept_unverified: ctx.config.convert_accept_unverified,
    };
    let (mut converted, mut reasons) = (0, Vec::new());
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
    let mut message = format!("{converted} converted, {} failed", reasons.len());
    if !reasons.is_empty() {
        let quoted: Vec<&str> = reasons.iter().take(REASONS).map(String::as_str).collect();
        message = format!("{message}: {}", quoted.join("; "));
    }
    Ok(Outcome { message })
}
