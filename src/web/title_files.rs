//! Title data from the user's own files (Settings → Title data), for a service with no
//! Internet access or a private copy of titledb: `versions.txt`, `versions.json` and a
//! region file (`US.en.json`), one or several in one upload, in any order, imported
//! as `ludotheque titles import` does (`titles::import`, one transaction).
//!
//! A region file is a few hundred MB: the form's body is read as it arrives
//! (`Table::uploads`), each file copied to a part file in the data folder and read from
//! there (`titles::incoming_dir`), never held in memory; the part files go when the
//! request ends, imported or not, and those of a stop in the middle at the next start. The page sends the form with a progress bar and shows what each file gave, or
//! why it was refused, in the reader's language.

use std::fs::File;

use maud::{html, Markup};

use super::view::Viewer;
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::incoming::Incoming;
use crate::titles::{self, Input, Source};

/// More files than this in one upload is a mistake (three kinds of file).
const MAX_FILES: usize = 8;

/// The upload form, for an admin.
pub fn form(v: &Viewer) -> Markup {
    html! {
        form.stack #title-upload action="/api/titles/import" method="post" enctype="multipart/form-data" {
            label { (v.t(M::TitleFiles))
                input type="file" name="files" multiple required accept=".txt,.json" aria-describedby="title-upload-note";
            }
            p.note #title-upload-note { (v.t(M::TitleFilesNote)) }
            div.actions {
                button.secondary type="submit" { (v.t(M::ImportTitleFiles)) }
                progress #title-upload-progress max="100" value="0" hidden {}
            }
            ul #title-upload-result role="status" aria-live="polite" {}
        }
    }
}

/// `POST /api/titles/import`: a multipart form whose file fields are title data files,
/// named as titledb names them. Answers a line per file, in the reader's language.
pub fn import(c: &Ctx) -> Result<Reply, Error> {
    let mut form = c.multipart()?;
    // Each file as it arrived, by its name; their part files go with them.
    let mut parts: Vec<(String, Incoming)> = Vec::new();
    while let Some(head) = form.next_part()? {
        let Some(name) = head
            .filename
            .as_deref()
            .map(base_name)
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        if Source::of(&name).is_none() {
            return Err(Error::invalid(Msg::NotTitleFile { file: name }));
        }
        if parts.len() == MAX_FILES {
            return Err(Error::invalid(Msg::TooManyTitleFiles { max: MAX_FILES }));
        }
        let dir = titles::incoming_dir(&c.app.config.data);
        let mut part = Incoming::new(&dir, Msg::TitleDiskFull)?;
        let copied = form.copy_to(&mut part);
        part.took(copied)?;
        parts.push((name, part));
    }
    if parts.is_empty() {
        return Err(Error::invalid(Msg::NoTitleFiles));
    }
    let mut inputs = Vec::with_capacity(parts.len());
    for (name, part) in &parts {
        let reader = Box::new(File::open(&part.path)?);
        let name = name.clone();
        inputs.push(Input { name, reader });
    }
    let summary = titles::import(c.db, inputs)?;
    let v = Viewer::of(c);
    let mut lines: Vec<String> = summary.lines().iter().map(|l| v.lang.line(l)).collect();
    let known = crate::store::title_catalog::count(c.db)?;
    lines.push(v.msg(&Msg::TitlesKnownNow { titles: known }));
    Reply::json(200, &serde_json::json!({ "lines": lines }))
}

/// The name a browser sent, without any folder (some send the whole path).
fn base_name(sent: &str) -> String {
    let name = sent.rsplit(['/', '\\']).next().unwrap_or(sent);
    crate::text::cut(name, 128).to_string()
}
