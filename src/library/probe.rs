//! Identify one file: its name tags first (cheapest), then the keyless hints inside
//! its container (a ticket name, a plain CNMT XML). Only headers are read, a few KiB,
//! never the whole file.

use std::path::Path;

use super::containers::{self, FormatError};
use super::identify::{self, parse_cnmt_xml, ticket_title_id};
use super::LibraryKey;
use crate::words::{GameKind, IdSource};

/// What the scan learns about a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub title_id: Option<u64>,
    pub version: Option<u32>,
    /// `filename`, `cnmt_xml`, `ticket` or `none`.
    pub identified_by: IdSource,
    /// The container header parsed cleanly.
    pub header_ok: bool,
    /// The display name taken from the file name.
    pub file_name_name: String,
    /// Why the file is not (fully) identified or readable; safe to show.
    pub note: Option<String>,
}

#[derive(Default)]
struct Hints {
    ticket: Option<u64>,
    cnmt: Option<(Option<u64>, Option<u32>)>,
}

/// Largest CNMT XML read (real ones are about a KiB).
const MAX_XML: u64 = 64 * 1024;

/// Probe the file at `key` below `root` (opened under the rules of `safe`).
pub fn probe(root: &Path, key: &LibraryKey, format: &str) -> Probe {
    let tags = identify::parse_file_name(key.file_name());
    let hints = read_hints(root, key, format);
    let mut notes = Vec::new();
    let hints = hints.unwrap_or_else(|e| {
        notes.push(format!("the container could not be read: {e}"));
        None
    });
    let header_ok = notes.is_empty();
    let hints = hints.unwrap_or_default();
    let cnmt_version = hints.cnmt.and_then(|(_, v)| v);
    let (identified_by, title_id, version) = if let Some(id) = tags.title_id {
        (IdSource::Filename, Some(id), tags.version.or(cnmt_version))
    } else if let Some((Some(id), v)) = hints.cnmt {
        (IdSource::CnmtXml, Some(id), v.or(tags.version))
    } else if let Some(id) = hints.ticket {
        (IdSource::Ticket, Some(id), tags.version)
    } else {
        notes.push("no title ID in the file name, and no ticket or CNMT XML inside".into());
        (IdSource::None, None, tags.version)
    };
    if tags.ambiguous {
        notes.push("the file name holds several title IDs; the first was taken".into());
    }
    if title_id.is_some_and(|id| identify::classify(id).kind == GameKind::Unknown) {
        notes.push("the title ID is not one of a game, an update or a DLC".into());
    }
    Probe {
        title_id,
        version,
        identified_by,
        header_ok,
        file_name_name: tags.name,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

/// `Ok(None)` for formats without a container we know; `Err` for a damaged one.
fn read_hints(root: &Path, key: &LibraryKey, format: &str) -> Result<Option<Hints>, FormatError> {
    let is_pfs0 = matches!(format, "nsp" | "nsz");
    let is_xci = matches!(format, "xci" | "xcz");
    if !is_pfs0 && !is_xci {
        return Ok(None);
    }
    let mut file = super::safe::open(root, key).map_err(|e| {
        let why = super::safe::not_a_file(&e).map(super::safe::NotAFile::detail);
        FormatError(why.unwrap_or("the file could not be opened").into())
    })?;
    let len = file
        .metadata()
        .map_err(|_| FormatError("the file could not be read".into()))?
        .len();
    let files = if is_pfs0 {
        containers::read_pfs0(&mut file, 0, len)?
    } else {
        let xci = containers::read_xci(&mut file, len)?;
        match xci.partition("secure") {
            Some(secure) => secure.clone(),
            None => return Ok(Some(Hints::default())),
        }
    };
    let mut hints = Hints {
        ticket: files.entries.iter().find_map(|e| ticket_title_id(&e.name)),
        cnmt: None,
    };
    if let Some(xml) = files
        .entries
        .iter()
        .find(|e| e.name.ends_with(".cnmt.xml") && e.size <= MAX_XML)
    {
        let bytes = containers::read_at(&mut file, xml.offset, xml.size as usize)?;
        hints.cnmt = Some(parse_cnmt_xml(&String::from_utf8_lossy(&bytes)));
    }
    Ok(Some(hints))
}
