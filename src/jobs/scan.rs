//! The scan task.

use super::{Outcome, TaskCtx};
use crate::error::Error;
use crate::library;

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    ctx.progress.check()?;
    library::mark_ready(ctx.db, &ctx.config.library)?;
    Ok(Outcome::default())
}
