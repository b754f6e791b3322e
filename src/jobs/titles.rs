//! The title data task: fetch the title data files and import them (see
//! `titles::fetch`), then, when the user turned icons on, the icons not cached yet
//! (`titles::icons`). It takes the task slot like the others, so a refresh never runs
//! beside a scan, and a start while one runs is 409. Its requests watch the task's
//! cancel flag (`outbound`): a cancel or a stop ends them at once, and the task ends
//! `cancelled` or `interrupted`.

use super::{Outcome, TaskCtx};
use crate::error::{Error, Msg};
use crate::outbound::{self, Addresses, Cancel, Client, Rules};
use crate::titles::fetch::{self, Source, Updated};
use crate::titles::icons;

pub fn run(ctx: &TaskCtx) -> Result<Outcome, Error> {
    let source = Source {
        base_urls: ctx.config.serve.titledb.titledb_url.clone(),
        region: ctx.config.serve.titledb.titledb_region.clone(),
    };
    let cancel = Cancel::on(ctx.progress.cancel_flag());
    let with_icons = icons::enabled(ctx.db)?;
    ctx.progress.set_total(if with_icons { 2 } else { 1 });
    let net = Client::new(outbound::TITLE_DATA, cancel.clone());
    let updated = fetch::update(ctx.db, &ctx.config.data, &source, &net).map(|(updated, stale)| {
        // A file only its kept copy gave: the run ends partial, saying why.
        for msg in stale {
            ctx.progress.fail(None, msg);
        }
        updated
    });
    ctx.progress.check()?;
    ctx.progress.advance(1, "");
    // The icons come from another host than the data: fetched even when the data's
    // source is down, with the data already stored.
    let fetched = if with_icons {
        let net = Client::new(icon_rules(ctx), cancel);
        let fetched = icons::fetch_missing(ctx.db, &ctx.config.data, &net)?;
        ctx.progress.check()?;
        ctx.progress.advance(1, "");
        Some(fetched)
    } else {
        None
    };
    let icons = fetched.map(|f| (f.saved, f.failed));
    Ok(match updated? {
        Updated::Unchanged => Msg::TitlesUnchanged { icons },
        Updated::Imported(summary) => {
            log::info!("titles: {}", summary.english());
            Msg::TitlesDone {
                files: summary.files.len() as u64,
                entries: summary.entries(),
                renamed: summary.renamed as u64,
                icons,
            }
        }
    }
    .into())
}

/// Icons never come from a local address, but for the test suite's own servers.
fn icon_rules(ctx: &TaskCtx) -> Rules {
    let addresses = match ctx.config.serve.test_loopback_icons {
        true => Addresses::PublicOrLoopback,
        false => Addresses::Public,
    };
    Rules {
        addresses,
        ..outbound::ICON
    }
}
