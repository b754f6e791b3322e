//! Compress from the web beyond one file: a title's `.nsp`/`.xci` files, a selection
//! of the file list, each with its estimated saving said before it starts, and on the
//! tasks page what the last run saved beside what the trash holds (its originals free
//! nothing until purged). The task itself is `jobs::compress`.

use maud::{html, Markup};
use serde::Deserialize;

use super::body;
use super::view::Viewer;
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::words::{Container, Task};

/// The share of a file's size compressing usually saves, in percent: an estimate
/// said as one, the real saving comes in the task's result.
pub const ESTIMATE: (u64, u64) = (35, 50);

/// "Estimated saving: 1.2 GB to 1.7 GB of 3.4 GB (35–50 %; an estimate…)".
pub fn estimate(v: &Viewer, bytes: u64) -> String {
    let (low, high) = (bytes * ESTIMATE.0 / 100, bytes * ESTIMATE.1 / 100);
    v.msg(&Msg::CompressEstimate { low, high, bytes })
}

/// Whether a file of this format (or key's extension) is one compress works on.
pub fn compressible(format_or_key: &str) -> bool {
    Container::of_name(format_or_key).is_some_and(|c| !c.is_compressed())
}

/// The title page's button: its `.nsp`/`.xci` files (`files`: key and size), off
/// without the console keys, with the estimate beside it. Nothing when it has none.
pub fn title_button(c: &Ctx, v: &Viewer, files: &[(String, u64)]) -> Markup {
    if files.is_empty() {
        return html! {};
    }
    let no_keys = c.app.prod_keys.current().is_none();
    let keys: Vec<&str> = files.iter().map(|(k, _)| k.as_str()).collect();
    let body = serde_json::json!({ "keys": keys }).to_string();
    let total = files.iter().map(|(_, s)| s).sum();
    html! {
        button type="button" #compress-title data-api="/api/compress-files" data-body=(body) data-then="/tasks"
            disabled[no_keys] aria-describedby="compress-estimate" { (v.t(M::CompressTitle)) }
        p.hint #compress-estimate {
            (estimate(v, total))
            @if no_keys { " " (super::view::keys_hint(v, M::CompressNoKeys)) }
        }
    }
}

/// What the last compress saved and the trash's size, for the tasks page.
pub fn saved_note(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let last = crate::store::job_runs::recent(c.db, 50)?
        .into_iter()
        .find(|r| r.task == Task::Compress)
        .and_then(|r| match r.msg {
            Some(Msg::CompressDone { saved, .. }) => Some(saved),
            _ => None,
        });
    let Some(saved) = last else {
        return Ok(html! {});
    };
    let trash: u64 = crate::store::trash::list(c.db)?
        .iter()
        .map(|r| r.size)
        .sum();
    let text = v.msg(&Msg::CompressSaved { saved, trash });
    Ok(html! { p.hint #compress-saved { (text) " " a href="/trash" { (v.t(M::Trash)) } } })
}

/// The settings page's part: delete the originals once verified, off by default.
pub fn settings_section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let on = crate::jobs::compress::delete_originals(c.db)?;
    Ok(html! {
        h2 { (v.t(M::CompressSettings)) }
        @if v.admin {
            form.stack #compress-settings data-api="/api/compress-settings" {
                label.check { input type="checkbox" name="delete_originals" checked[on]; (v.t(M::DeleteOriginals)) }
                p.note { (v.t(M::DeleteOriginalsNote)) " " code.flag { "--delete-originals" } }
                button type="submit" { (v.t(M::Save)) }
            }
        } @else {
            dl.facts { dt { (v.t(M::DeleteOriginals)) } dd { (v.t(if on { M::Yes } else { M::No })) } }
        }
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CompressSettings {
    delete_originals: bool,
}

/// `POST /api/compress-settings` `{delete_originals}`.
pub fn set_settings(c: &Ctx) -> Result<Reply, Error> {
    let form: CompressSettings = body(c, "delete_originals, true or false")?;
    crate::jobs::compress::set_delete_originals(c.db, form.delete_originals)?;
    Reply::json(
        200,
        &serde_json::json!({"delete_originals": form.delete_originals}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::i18n::Lang;

    /// The selection bar's script fills `M::CompressEstimate` with the sizes it sums;
    /// the server says `Msg::CompressEstimate`: the two must read the same.
    #[test]
    fn the_scripts_estimate_says_what_the_server_says() {
        for lang in [Lang::Fr, Lang::En] {
            let v = Viewer {
                lang,
                name: None,
                admin: true,
            };
            let size = |b| super::super::view::size(&v, b);
            let script = v
                .t(M::CompressEstimate)
                .replace("{low}", &size(1_400_000_000))
                .replace("{high}", &size(2_000_000_000))
                .replace("{size}", &size(4_000_000_000));
            assert_eq!(estimate(&v, 4_000_000_000), script);
        }
    }
}
