//! CyberFoil's save sync: the routes it calls on its shop server, answered as
//! luketanti/AeroFoil answers them (`docs/saves.md`). Each console reaches only its
//! own saves (`Access::Console`); another console's version is a 404, as one that
//! does not exist.

use serde_json::{json, Value};

use crate::error::{Error, Msg};
use crate::http::router::Ctx;
use crate::http::{range, Reply};
use crate::saves::{self, Upload};
use crate::store::saves::{self as store, SaveRow};
use crate::words::TitleId;

fn title(c: &Ctx) -> Result<TitleId, Error> {
    saves::title_id(c.param(0)).ok_or_else(|| Error::invalid(Msg::NotTitleId))
}

/// The save ID of the path, if it has one.
fn save_id(c: &Ctx) -> Result<Option<String>, Error> {
    match c.params.get(1) {
        Some(raw) => saves::save_id(raw).map(Some),
        None => Ok(None),
    }
}

/// Every key CyberFoil may read, in both spellings AeroFoil sends.
fn entry(row: &SaveRow, name: &str) -> Value {
    let (tid, sid) = (row.title_id.to_string(), row.save_id.as_str());
    let created_ts = row.created_ms / 1000;
    let created_at = crate::time::rfc3339(created_ts);
    let download = format!("/api/saves/download/{tid}/{sid}.zip");
    let delete = format!("/api/saves/delete/{tid}/{sid}");
    let icon = format!("/api/shop/icon/{tid}");
    json!({
        "title_id": tid, "titleId": tid, "app_id": tid,
        "name": name, "title_name": name, "titleName": name,
        "size": row.size,
        "save_id": sid, "saveId": sid,
        "note": row.note, "save_note": row.note, "saveNote": row.note,
        "created_at": created_at, "createdAt": created_at,
        "created_ts": created_ts, "createdTs": created_ts,
        "icon_url": icon, "iconUrl": icon,
        "icon_remote_url": "", "iconRemoteUrl": "",
        "download_url": download, "downloadUrl": download,
        "delete_url": delete, "deleteUrl": delete,
    })
}

/// The title's name from the title data, else its ID (as AeroFoil does).
fn title_name(c: &Ctx, id: TitleId) -> String {
    crate::store::titles::name(c.db, id)
        .ok()
        .flatten()
        .unwrap_or_else(|| id.to_string())
}

/// `GET /api/saves/list`: the console's versions, by title, the latest first.
pub fn list(c: &Ctx) -> Result<Reply, Error> {
    let rows = store::of_console(c.db, c.principal.console()?)?;
    let mut saves = Vec::with_capacity(rows.len());
    let mut named: Option<(TitleId, String)> = None;
    for row in &rows {
        if named.as_ref().is_none_or(|(id, _)| *id != row.title_id) {
            named = Some((row.title_id, title_name(c, row.title_id)));
        }
        let name = named.as_ref().map(|(_, n)| n.as_str()).unwrap_or_default();
        saves.push(entry(row, name));
    }
    Reply::json(200, &json!({ "saves": saves }))
}

/// `POST /api/saves/upload/{title_id}`: a multipart form, the zip in `file`, the note
/// in `note` (or `save_note`, `saveNote`).
pub fn upload(c: &Ctx) -> Result<Reply, Error> {
    let console = c.principal.console()?;
    let title_id = title(c)?;
    let mut form = c.multipart()?;
    let (mut file, mut note) = (None, String::new());
    while let Some(part) = form.next_part()? {
        match part.name.as_str() {
            "file" if file.is_none() => {
                let mut incoming = saves::incoming(&c.app.config.data)?;
                let copied = form.copy_to(&mut incoming);
                incoming.took(copied)?;
                file = Some(incoming);
            }
            "note" | "save_note" | "saveNote" => note = form.text(4096)?,
            // title_id, application_id: the path has it already.
            _ => {}
        }
    }
    let incoming = file.ok_or_else(|| Error::invalid(Msg::NoSaveArchive))?;
    let up = Upload {
        console,
        title_id,
        note,
        versions: c.app.config.serve.save_versions,
        quota: c.app.config.serve.save_quota,
        retention_days: c.app.config.retention_days(c.db),
    };
    let row = saves::keep(c.db, &c.app.config.data, incoming, &up)?;
    let name = title_name(c, title_id);
    c.app.jobs.notifier.save_backed_up(c.db, console, &name);
    let mut answer = entry(&row, &name);
    answer["success"] = json!(true);
    answer["message"] = json!("Save uploaded successfully.");
    Reply::json(200, &answer)
}

/// `GET /api/saves/download/{title_id}[/{save_id}][.zip]`: the version (the latest
/// without a save ID), as a zip attachment, with ranges.
pub fn download(c: &Ctx) -> Result<Reply, Error> {
    let console = c.principal.console()?;
    let title_id = title(c)?;
    let save_id = save_id(c)?;
    let row = store::find(c.db, console, title_id, save_id.as_deref())?
        .ok_or_else(|| Error::not_found(Msg::NoSave))?;
    let file = std::fs::File::open(saves::path(&c.app.config.data, &row))
        .map_err(|e| Error::not_found(Msg::NoSave).with_cause(e))?;
    let size = file.metadata()?.len();
    let mut reply = range::file(c.req, file, size)?;
    reply.content_type = "application/zip";
    // As AeroFoil (Flask's send_file) words it, which CyberFoil was written against.
    reply.headers.push((
        "Content-Disposition",
        format!("attachment; filename={}_{}.zip", row.title_id, row.save_id),
    ));
    Ok(reply)
}

/// `DELETE` or `POST /api/saves/delete/{title_id}[/{save_id}][.zip]`: the version (the
/// latest without a save ID) to the trash.
pub fn delete(c: &Ctx) -> Result<Reply, Error> {
    let console = c.principal.console()?;
    let title_id = title(c)?;
    let save_id = save_id(c)?;
    let row = saves::delete(
        c.db,
        &c.app.config.data,
        console,
        title_id,
        save_id.as_deref(),
        c.app.config.retention_days(c.db),
    )?;
    let (tid, sid) = (row.title_id.to_string(), row.save_id);
    Reply::json(
        200,
        &json!({
            "success": true,
            "title_id": tid, "titleId": tid,
            "save_id": sid, "saveId": sid,
            "legacy": false, "deleted": true,
            "message": "Save backup moved to the trash.",
        }),
    )
}
