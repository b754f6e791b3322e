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
use std::io::Write;
use std::path::{Path, PathBuf};

use maud::{html, Markup};
use rand::Rng;

use super::view::Viewer;
use crate::error::i18n::M;
use crate::error::{Error, Kind, Msg};
use crate::http::{Ctx, Reply};
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
    let mut parts = Parts(Vec::new());
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
        if parts.0.len() == MAX_FILES {
            return Err(Error::invalid(Msg::TooManyTitleFiles { max: MAX_FILES }));
        }
        let path = part_path(&c.app.config.data)?;
        parts.0.push((name, path.clone()));
        let mut out = Part::create(&path)?;
        let copied = form.copy_to(&mut out);
        if out.full {
            let why = out.error.unwrap_or_default();
            return Err(Error::new(Kind::InsufficientStorage, Msg::TitleDiskFull).with_cause(why));
        }
        copied?;
    }
    if parts.0.is_empty() {
        return Err(Error::invalid(Msg::NoTitleFiles));
    }
    let summary = titles::import(c.db, parts.inputs()?)?;
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

/// A new part file's path; its folder is made if need be.
fn part_path(data: &Path) -> Result<PathBuf, Error> {
    let dir = titles::incoming_dir(data);
    std::fs::create_dir_all(&dir)?;
    Ok(dir.join(format!("{:016x}.part", rand::rng().random::<u64>())))
}

/// The uploaded files on disk, by name; removed when the request ends.
struct Parts(Vec<(String, PathBuf)>);

impl Parts {
    fn inputs(&self) -> Result<Vec<Input>, Error> {
        let mut inputs = Vec::new();
        for (name, path) in &self.0 {
            inputs.push(Input {
                name: name.clone(),
                reader: Box::new(File::open(path)?),
            });
        }
        Ok(inputs)
    }
}

impl Drop for Parts {
    fn drop(&mut self) {
        for (_, path) in &self.0 {
            if let Err(e) = std::fs::remove_file(path) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    log::warn!("cannot remove an uploaded title data part: {e}");
                }
            }
        }
    }
}

/// A part file that notes when the disk is full (or the process's file size limit is
/// reached), which the upload then says as such.
struct Part {
    file: File,
    full: bool,
    error: Option<String>,
}

impl Part {
    fn create(path: &Path) -> Result<Part, Error> {
        let file = File::options().write(true).create_new(true).open(path)?;
        Ok(Part {
            file,
            full: false,
            error: None,
        })
    }
}

impl Write for Part {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf).inspect_err(|e| {
            self.full = matches!(
                e.raw_os_error(),
                Some(libc::ENOSPC | libc::EFBIG | libc::EDQUOT)
            );
            self.error = Some(e.to_string());
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}
