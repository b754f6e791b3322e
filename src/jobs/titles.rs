//! The title data task: fetch the title data files and import them (see
//! `titles::fetch`). It takes the task slot like the others, so a refresh never runs
//! beside a scan, and a start while one runs is 409.

use super::{Outcome, TaskCtx};
use crate::error::Error;
use crate::titles::fetch::{self, Source, Updated};

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let source = Source {
        base_url: ctx.config.titledb_url.clone(),
        region: ctx.config.titledb_region.clone(),
    };
    ctx.progress.set_total(1);
    let message = match fetch::update(ctx.db, &ctx.config.data, &source)? {
        Updated::Unchanged => "The title data is unchanged at the source.".to_string(),
        Updated::Imported(summary) => summary.english(),
    };
    ctx.progress.advance(1, "");
    Ok(Outcome { message })
}
