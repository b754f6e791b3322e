//! Settings → Library folders: each folder of the library with its state, games,
//! free space and filesystem; an admin adds a folder or removes one added before
//! (`jobs::folders`, through the one task slot; the page follows the task and draws
//! itself again at its end). A folder's path is a server path: an admin's to see.

use maud::{html, Markup};
use serde::Deserialize;

use super::body;
use super::view::{count, size, Viewer};
use crate::error::i18n::M;
use crate::error::{Error, Msg};
use crate::http::{Ctx, Reply};
use crate::jobs::Task;
use crate::library::folder_rows::{self, FolderRow};
use crate::tree::folders::Folder;

/// The section of the Settings page.
pub fn section(c: &Ctx, v: &Viewer) -> Result<Markup, Error> {
    let rows = folder_rows::rows(c.db, &c.app.config.folders())?;
    let watched = c.app.config.serve.watch != crate::words::WatchMode::Off;
    Ok(html! {
        h2 #library-folders-title { (v.t(M::LibraryFolders)) }
        p.note { (v.t(M::LibraryFoldersNote)) }
        div.scroll {
            table #library-folders {
                thead { tr {
                    th { (v.t(M::Name)) } th { (v.t(M::Status)) } th.num { (v.t(M::Files)) }
                    th.num.wide { (v.t(M::Size)) } th.num.wide { (v.t(M::FreeSpace)) }
                    th.wide { (v.t(M::Filesystem)) }
                } }
                tbody { @for row in &rows { (folder_row(v, row, watched)) } }
            }
        }
        @if v.admin { (add_form(v)) }
    })
}

fn folder_row(v: &Viewer, row: &FolderRow, watched: bool) -> Markup {
    let (state, why, kind) = row.words();
    let name = &row.folder.name;
    html! {
        tr data-folder=(name) data-state=(state) {
            td {
                strong { (name) @if !row.first { "/" } }
                br; small { (v.t(kind)) }
                @if let Some(why) = &row.refused { br; small.warn { (v.msg(why)) } }
                @if v.admin { br; code.server-path { (row.folder.dir.display()) } }
                @if v.admin && !row.folder.fixed {
                    div.actions {
                        button.danger type="button" data-method="DELETE"
                            data-api={ "/api/library/folders/" (crate::text::encode_segment(name)) }
                            data-confirm=(v.msg(&Msg::ConfirmRemoveFolder { name: name.clone() })) { (v.t(M::RemoveFolder)) }
                    }
                }
            }
            td.state { (v.t(why)) }
            td.num { (count(v, row.files, M::FileWord, M::FilesWord)) }
            td.num.wide { (size(v, row.bytes)) }
            td.num.wide { @if let Some(free) = row.free { (size(v, free)) } @else { "—" } }
            td.wide {
                @if let Some((fs, heard)) = row.filesystem {
                    (fs)
                    @if watched { br; small { (v.t(if heard { M::FolderHeard } else { M::FolderPolled })) } }
                } @else { "—" }
            }
        }
    }
}

fn add_form(v: &Viewer) -> Markup {
    html! {
        form.stack #folder-form data-api="/api/library/folders" data-then="stay" data-start {
            label { (v.t(M::FolderPath)) input name="dir" required maxlength="4096" placeholder="/mnt/nas/switch"; }
            label { (v.t(M::FolderNameOptional)) input name="name" maxlength="255"; }
            button type="submit" data-start { (v.t(M::AddFolder)) }
            span.hint #folder-progress data-follow-job="line" data-task="folder_add" aria-live="polite" {}
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AddForm {
    dir: String,
    #[serde(default)]
    name: String,
}

/// `POST /api/library/folders` `{dir, name}`: checked here (an answer at once), then
/// added and scanned by the task (202), which checks again.
pub fn add(c: &Ctx) -> Result<Reply, Error> {
    let form: AddForm = body(c, "dir and name")?;
    let dir = form.dir.trim();
    if !dir.starts_with('/') {
        return Err(Error::invalid(Msg::FolderNotAbsolute));
    }
    // The name and the folder apart: a path that holds '=' is read whole, and a
    // name with '=' is refused for what it is.
    let name = match form.name.trim() {
        "" => crate::tree::folders::own_name(std::path::Path::new(dir)),
        name => name.to_string(),
    };
    let folder = Folder::at(name, dir.into(), false);
    c.app.config.folders().check(&folder, &c.app.config.data)?;
    if !folder.dir.is_dir() {
        return Err(Error::invalid(Msg::FolderNotThere));
    }
    // Split again at the first '=' by the task: the name holds none.
    let given = format!("{}={}", folder.name, folder.dir.display());
    crate::api::v1::jobs::start_on(c, Task::FolderAdd, vec![given])
}

/// `DELETE /api/library/folders/{name}`: an added folder leaves the library (202).
pub fn remove(c: &Ctx) -> Result<Reply, Error> {
    let name = c.param(0).to_string();
    crate::jobs::folders::removable(&c.app.config.folders(), &name)?;
    crate::api::v1::jobs::start_on(c, Task::FolderRemove, vec![name])
}
