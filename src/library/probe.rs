//! Identify one file: its name tags first (cheapest), then the keyless hints inside
//! its container (a ticket name, a plain CNMT XML), and, with the user's console
//! keys, what its NCAs say (`switchfs`), which wins over both. Only headers, CNMTs
//! and Control NCAs are read, never a whole file.
//!
//! One [`Budget`] covers every table of the file, and a fault of a reader (a panic)
//! ends that file's probe alone: the file is then not readable, with that reason,
//! and the scan goes on with the others.

use std::fs::File;

use super::containers::{self, Budget, ContainerFile, FormatError};
use super::identify::{self, parse_cnmt_xml, ticket_title_id, NameTags};
use super::safe::Opener;
use super::switchfs::{self, Content, Control, Problem, ProdKeys, Want};
use super::window::Window;
use super::LibraryKey;
use crate::error::{Detail, Reason, Why};
use crate::words::{Container, GameKind, IdSource, KeysState};

/// What the scan learns about a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub title_id: Option<u64>,
    pub version: Option<u32>,
    /// `filename`, `cnmt_xml`, `ticket`, `keys` or `none`.
    pub identified_by: IdSource,
    /// The container header parsed cleanly.
    pub header_ok: bool,
    /// The display name taken from the file name.
    pub file_name_name: String,
    /// The title ID and version the file name's tags give, if any.
    pub named: (Option<u64>, Option<u32>),
    /// Why the file is not (fully) identified or readable; safe to show.
    pub note: Option<Detail>,
    /// What the console keys read, when there are keys and the format has NCAs.
    pub keyed: Option<Keyed>,
}

/// What reading a file with the console keys found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyed {
    pub state: KeysState,
    /// Every CNMT, in the container's order.
    pub contents: Vec<Content>,
    pub controls: Vec<Control>,
    /// The highest key revision among its NCAs.
    pub key_revision: Option<u8>,
}

impl Keyed {
    fn unreadable() -> Keyed {
        Keyed {
            state: KeysState::Unreadable,
            contents: Vec::new(),
            controls: Vec::new(),
            key_revision: None,
        }
    }

    /// The content that speaks for the file: its first application, else its first.
    pub fn primary(&self) -> Option<&Content> {
        let application = |c: &&Content| c.meta_type == switchfs::MetaType::Application;
        self.contents
            .iter()
            .find(application)
            .or(self.contents.first())
    }
}

#[derive(Default)]
struct Hints {
    ticket: Option<u64>,
    cnmt: Option<(Option<u64>, Option<u32>)>,
}

/// Largest CNMT XML read (real ones are about a KiB).
const MAX_XML: u64 = 64 * 1024;

/// Probe the file at `key`, opened by `files` (under the rules of `safe`), with the
/// console keys when there are. A reader's panic is this file's damage, never the
/// scan's: the file is not readable, and the log says what failed.
pub fn probe(files: &mut Opener, key: &LibraryKey, format: &str, keys: Option<&ProdKeys>) -> Probe {
    containers::guard(|| probe_file(files, key, format, keys)).unwrap_or_else(|e| {
        log::error!("probe of {key}: {e}");
        let tags = identify::parse_file_name(key.file_name());
        let mut notes = vec![Reason::Unreadable.then(e.0)];
        let (identified_by, title_id, version) = keyless(&tags, &Hints::default(), &mut notes);
        Probe {
            title_id,
            version,
            identified_by,
            header_ok: false,
            named: (tags.title_id, tags.version),
            file_name_name: tags.name,
            note: Some(Detail(notes)),
            keyed: keys.map(|_| Keyed::unreadable()),
        }
    })
}

fn probe_file(
    files: &mut Opener,
    key: &LibraryKey,
    format: &str,
    keys: Option<&ProdKeys>,
) -> Probe {
    let tags = identify::parse_file_name(key.file_name());
    let (mut notes, mut keyed, budget) = (Vec::new(), None, &Budget::file());
    let hints = match open(files, key, format) {
        Ok(None) => Ok(None),
        Ok(Some((file, len))) => {
            let mut file = super::window::Window::new(file, len);
            let listed = containers::game_files(&mut file, len, format, budget);
            let entries = listed.as_ref().map(|e| e.as_deref().unwrap_or_default());
            let hints = entries
                .map_err(Clone::clone)
                .and_then(|e| read_hints(&mut file, e, budget));
            if let Some(keys) = keys {
                // A container that does not parse is said once, by the keyless path.
                let (read, why) = match &listed {
                    Ok(Some(entries)) => read_keyed(&mut file, entries, keys, budget),
                    Ok(None) => (
                        Keyed::unreadable(),
                        Some(Reason::ConsoleKeys.then(Reason::NoSecure)),
                    ),
                    Err(_) => (Keyed::unreadable(), None),
                };
                notes.extend(why);
                keyed = Some(read);
            }
            hints.map(Some)
        }
        Err(e) => {
            // Not read with the keys either: said once, not tried at every scan.
            keyed = keys.map(|_| Keyed::unreadable());
            Err(e)
        }
    };
    let hints = hints.unwrap_or_else(|e| {
        notes.insert(0, Reason::Unreadable.then(e.0));
        None
    });
    let header_ok = hints.is_some() || Container::of(format).is_none();
    let hints = hints.unwrap_or_default();
    let (identified_by, title_id, version) = match keyed.as_ref().and_then(Keyed::primary) {
        Some(c) => (IdSource::Keys, Some(c.title_id), Some(c.version)),
        None => keyless(&tags, &hints, &mut notes),
    };
    notes.extend(doubts(&tags, title_id));
    Probe {
        title_id,
        version,
        identified_by,
        header_ok,
        named: (tags.title_id, tags.version),
        file_name_name: tags.name,
        note: (!notes.is_empty()).then_some(Detail(notes)),
        keyed,
    }
}

/// What makes the identity found doubtful: a name with several title IDs, an ID of
/// no known kind.
fn doubts(tags: &NameTags, title_id: Option<u64>) -> impl Iterator<Item = Why> {
    let unknown = title_id.is_some_and(|id| identify::classify(id).kind == GameKind::Unknown);
    [
        tags.ambiguous.then(|| Reason::SeveralTitleIds.into()),
        unknown.then(|| Reason::UnknownKind.into()),
    ]
    .into_iter()
    .flatten()
}

/// Identification without keys: the name's tags, else a CNMT XML, else a ticket.
fn keyless(
    tags: &NameTags,
    hints: &Hints,
    notes: &mut Vec<Why>,
) -> (IdSource, Option<u64>, Option<u32>) {
    let cnmt_version = hints.cnmt.and_then(|(_, v)| v);
    if let Some(id) = tags.title_id {
        (IdSource::Filename, Some(id), tags.version.or(cnmt_version))
    } else if let Some((Some(id), v)) = hints.cnmt {
        (IdSource::CnmtXml, Some(id), v.or(tags.version))
    } else if let Some(id) = hints.ticket {
        (IdSource::Ticket, Some(id), tags.version)
    } else {
        notes.push(Reason::NoTitleId.into());
        (IdSource::None, None, tags.version)
    }
}

/// The file and its length; `None` for formats without a container we know.
fn open(
    files: &mut Opener,
    key: &LibraryKey,
    format: &str,
) -> Result<Option<(File, u64)>, FormatError> {
    if Container::of(format).is_none() {
        return Ok(None);
    }
    let file = files.open(key).map_err(|e| {
        let why = super::safe::not_a_file(&e).map(super::safe::NotAFile::detail);
        FormatError::from(why.unwrap_or(Reason::OpenFailed))
    })?;
    let len = file
        .metadata()
        .map_err(|_| FormatError::from(Reason::ReadFailed))?
        .len();
    Ok(Some((file, len)))
}

/// The keyless hints among the container's files.
fn read_hints(
    file: &mut Window,
    entries: &[ContainerFile],
    budget: &Budget,
) -> Result<Hints, FormatError> {
    let mut hints = Hints {
        ticket: entries.iter().find_map(|e| ticket_title_id(&e.name)),
        cnmt: None,
    };
    if let Some(xml) = entries
        .iter()
        .find(|e| e.name.ends_with(".cnmt.xml") && e.size <= MAX_XML)
    {
        let bytes = budget.read(file, xml.offset, xml.size as usize)?;
        hints.cnmt = Some(parse_cnmt_xml(&String::from_utf8_lossy(&bytes)));
    }
    Ok(hints)
}

/// Read the file with the keys: what it holds, and why not all of it when something
/// did not open ("console keys: …").
fn read_keyed(
    file: &mut Window,
    entries: &[ContainerFile],
    keys: &ProdKeys,
    budget: &Budget,
) -> (Keyed, Option<Why>) {
    let want = Want {
        control: true,
        icon: true,
    };
    let inside = switchfs::read_entries(file, entries, keys, want, budget);
    let state = if !inside.contents.is_empty() && inside.problems.is_empty() {
        KeysState::Read
    } else if !inside.contents.is_empty() {
        KeysState::Partial
    } else if missing_revision(&inside.problems).is_some() {
        KeysState::MissingKey
    } else if inside
        .problems
        .iter()
        .any(|p| matches!(p, Problem::WrongKeys { .. } | Problem::NoHeaderKey))
    {
        KeysState::WrongKeys
    } else {
        KeysState::Unreadable
    };
    let mut why: Vec<Why> = Vec::new();
    for said in inside.problems.iter().map(describe) {
        if !why.contains(&said) {
            why.push(said);
        }
    }
    if inside.contents.is_empty() && inside.problems.is_empty() {
        why.push(Reason::NoMeta.into());
    }
    let keyed = Keyed {
        state,
        key_revision: missing_revision(&inside.problems).or(inside.key_revision),
        contents: inside.contents,
        controls: inside.controls,
    };
    let why = (!why.is_empty()).then_some(Why {
        reason: Reason::ConsoleKeys,
        then: why,
    });
    (keyed, why)
}

fn missing_revision(problems: &[Problem]) -> Option<u8> {
    problems.iter().find_map(|p| match p {
        Problem::MissingKey { revision, .. } | Problem::MissingTitlekek { revision, .. } => {
            Some(*revision)
        }
        _ => None,
    })
}

/// A problem as a reason safe to show (NCA names are the container's, not paths).
pub fn describe(p: &Problem) -> Why {
    match p {
        Problem::NoHeaderKey => Reason::NoHeaderKey.into(),
        // Said once for the file, not once per NCA.
        Problem::WrongKeys { .. } => Reason::WrongKeys.into(),
        Problem::MissingTitlekek { revision, .. } => {
            Reason::MissingTitlekek(format!("titlekek_{revision:02x}")).into()
        }
        Problem::MissingKey { revision, .. } => {
            Reason::MissingRevision(format!("0x{revision:02x}")).into()
        }
        Problem::PersonalizedTicket { nca } => Reason::Personalized(nca.clone()).into(),
        Problem::NoTicket { nca } => Reason::NoTicket(nca.clone()).into(),
        Problem::Malformed { nca, why } => Reason::In(nca.clone()).then(why.clone()),
    }
}
