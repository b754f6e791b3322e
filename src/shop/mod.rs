//! The shop: the library as every console installer reads it. Tinfoil reads a JSON
//! index, CyberFoil sections of items, DBI and Sphaira an Apache-style listing, DBI a
//! `versions.txt`; all of them download with `Range` requests (`api::shop`). What each
//! installer sends and reads, from its own source, is in docs/installers.md.
//!
//! Each file gets one name installers see, `Name [TITLEID][vVERSION].ext` (Tinfoil
//! reads what it installs from those tags), unique within its kind's folder, and one
//! download path, `/shop/files/{base|updates|dlc}/{that name}`. Answers are built once
//! per [`Stamp`] (the library's generation, the title data, the last task, the
//! message) into a [`Catalogue`] shared by every request; each form is rendered the
//! first time it is asked and then served from the same bytes. At 10,000 files a
//! snapshot and all its forms take a few MB.

pub mod render;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, OnceLock};

use rusqlite::Connection;

use crate::error::Error;
use crate::kept::Kept;
use crate::store::games::{self, ShopFile};
use crate::store::titles::{self, Facts};
use crate::store::{library_generation, title_catalog};
use crate::words::{DedupeKeep, GameKind, TitleId};

/// Where the downloads live; every form links below it.
pub const FILES: &str = "/shop/files/";
/// A name is cut to leave room for its tags within a file name's 255 bytes.
const MAX_NAME_BYTES: usize = 180;

/// A folder of the listing: one per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Folder {
    Base,
    Updates,
    Dlc,
}

impl Folder {
    pub const ALL: [Folder; 3] = [Folder::Base, Folder::Updates, Folder::Dlc];

    pub fn name(self) -> &'static str {
        match self {
            Folder::Base => "base",
            Folder::Updates => "updates",
            Folder::Dlc => "dlc",
        }
    }

    pub fn parse(name: &str) -> Option<Folder> {
        Folder::ALL.into_iter().find(|f| f.name() == name)
    }

    fn of(kind: GameKind) -> Option<Folder> {
        match kind {
            GameKind::Base => Some(Folder::Base),
            GameKind::Update => Some(Folder::Updates),
            GameKind::Dlc => Some(Folder::Dlc),
            GameKind::Unknown => None,
        }
    }
}

/// A file of the shop.
#[derive(Debug, Clone)]
pub struct Item {
    pub file: ShopFile,
    pub folder: Folder,
    /// The file name installers see, unique within the folder.
    pub entry: String,
    /// Whether the icon of its base title is cached.
    pub icon: bool,
}

impl Item {
    /// The download path below `prefix` (`/shop/files/` from the root).
    pub fn path(&self, prefix: &str) -> String {
        format!(
            "{prefix}{}/{}",
            self.folder.name(),
            crate::text::encode_segment(&self.entry)
        )
    }
}

/// What the answers were built from (see `library_generation::shop_stamp`).
pub type Stamp = (i64, i64, i64, Option<String>);

/// The forms an installer may ask for, each rendered once per snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Tinfoil's JSON index.
    Tinfoil,
    /// CyberFoil's sections, asked from the root (`/api/shop/sections`).
    Sections,
    /// CyberFoil's sections, asked below `/shop` (it resolves `/x` under its shop URL).
    SectionsUnderShop,
    /// The listing's top: one folder per kind.
    ListingTop,
    Listing(Folder),
    /// `id|rightsId|version` of every known title, for DBI.
    Versions,
}

/// What a form is rendered from besides the snapshot, read only when the form is first
/// asked: the service's settings do not change while it runs, and a newer read of the
/// title data is as good as the one the stamp saw.
pub struct Inputs<'a> {
    pub db: &'a Connection,
    /// Which copy of a title CyberFoil's sections offer (`--dedupe-keep`).
    pub keep: DedupeKeep,
}

impl Form {
    fn slot(self) -> usize {
        match self {
            Form::Tinfoil => 0,
            Form::Sections => 1,
            Form::SectionsUnderShop => 2,
            Form::ListingTop => 3,
            Form::Listing(Folder::Base) => 4,
            Form::Listing(Folder::Updates) => 5,
            Form::Listing(Folder::Dlc) => 6,
            Form::Versions => 7,
        }
    }
}

/// The library as the shop offers it, at one stamp.
pub struct Catalogue {
    pub items: Vec<Item>,
    by_entry: HashMap<(Folder, String), usize>,
    by_key: HashMap<String, usize>,
    /// What the title data says of the library's title IDs.
    pub facts: Vec<Facts>,
    /// The latest known version of every ID of the library's titles (Tinfoil's
    /// `titledb`; `versions.txt` lists every known title, read when first asked).
    pub versions: Vec<(TitleId, Option<u32>)>,
    /// What Tinfoil and CyberFoil show when they connect.
    pub message: String,
    forms: [OnceLock<Arc<[u8]>>; 8],
}

impl Catalogue {
    fn build(db: &Connection, data: &Path, stamp: &Stamp) -> Result<Catalogue, Error> {
        let icons = cached_icons(data);
        let items = name_items(games::shop_files(db)?, &icons);
        let by_entry = items
            .iter()
            .enumerate()
            .map(|(i, it)| ((it.folder, it.entry.clone()), i))
            .collect();
        let by_key = items
            .iter()
            .enumerate()
            .map(|(i, it)| (it.file.key.clone(), i))
            .collect();
        let message = match stamp.3.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() => m.to_string(),
            // French, the product's language: consoles send no language to ask for.
            _ => crate::error::Msg::ShopDefaultMessage {
                files: items.len() as u64,
            }
            .french(),
        };
        Ok(Catalogue {
            facts: titles::of_library(db)?,
            versions: title_catalog::of_library(db)?,
            items,
            by_entry,
            by_key,
            message,
            forms: Default::default(),
        })
    }

    /// The bytes of a form, rendered on first use. Two requests asking it first may
    /// both render it; one copy is kept.
    pub fn form(&self, form: Form, inputs: &Inputs) -> Result<Arc<[u8]>, Error> {
        let cell = &self.forms[form.slot()];
        if let Some(bytes) = cell.get() {
            return Ok(Arc::clone(bytes));
        }
        let bytes: Arc<[u8]> = render::render(self, form, inputs)?.into();
        Ok(Arc::clone(cell.get_or_init(|| bytes)))
    }

    /// The file a download path names: `{folder}/{entry}` first, else a library key
    /// (`/shop/files/<key>`, for scripts).
    pub fn find(&self, path: &str) -> Option<&Item> {
        let by_entry = path.split_once('/').and_then(|(folder, entry)| {
            let folder = Folder::parse(folder)?;
            self.by_entry.get(&(folder, entry.to_string()))
        });
        by_entry
            .or_else(|| self.by_key.get(path))
            .map(|&i| &self.items[i])
    }

    pub fn in_folder(&self, folder: Folder) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(move |it| it.folder == folder)
    }
}

/// The shop's answers, kept until their stamp moves (`kept`). Only one request builds
/// a new snapshot; the others asking at the same time wait for it rather than build
/// it too.
pub struct Shop(Kept<(), Catalogue, Stamp>);

impl Default for Shop {
    fn default() -> Self {
        // One snapshot at a time: its forms are rendered into it as they are asked.
        Shop(Kept::new(usize::MAX, |_| 0))
    }
}

impl Shop {
    pub fn snapshot(&self, db: &Connection, data: &Path) -> Result<Arc<Catalogue>, Error> {
        self.0.get_or_build(
            (),
            || library_generation::shop_stamp(db),
            |stamp| Catalogue::build(db, data, stamp),
        )
    }
}

/// The title IDs whose icon is in the cache (`DATA/icons/{ID}`).
fn cached_icons(data: &Path) -> HashSet<TitleId> {
    // Only a name `titles::icons::path` writes (16 upper-case hex digits) is an icon.
    let id = |name: String| TitleId::parse(&name).filter(|id| id.to_string() == name);
    std::fs::read_dir(data.join("icons"))
        .map(|dir| {
            dir.filter_map(|e| id(e.ok()?.file_name().into_string().ok()?))
                .collect()
        })
        .unwrap_or_default()
}

/// Give each file its entry: `Name [TITLEID][vVERSION].ext`, made safe as a file
/// name, and made unique within its folder with ` (2)`, ` (3)`… in key order.
fn name_items(files: Vec<ShopFile>, icons: &HashSet<TitleId>) -> Vec<Item> {
    let mut taken: HashSet<(Folder, String)> = HashSet::with_capacity(files.len());
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| files[a].key.cmp(&files[b].key));
    let mut entries = vec![String::new(); files.len()];
    for i in order {
        let f = &files[i];
        let Some(folder) = Folder::of(f.kind) else {
            continue;
        };
        let stem = format!("{} [{}][v{}]", safe_name(&f.name), f.title_id, f.version);
        let ext = f.format.to_ascii_lowercase();
        let mut entry = format!("{stem}.{ext}");
        let mut n = 2;
        while !taken.insert((folder, entry.clone())) {
            entry = format!("{stem} ({n}).{ext}");
            n += 1;
        }
        entries[i] = entry;
    }
    files
        .into_iter()
        .zip(entries)
        .filter_map(|(file, entry)| {
            Some(Item {
                folder: Folder::of(file.kind)?,
                icon: icons.contains(&file.base_title_id),
                file,
                entry,
            })
        })
        .collect()
}

/// A title's name as part of a file name: no character SMB, exFAT or a URL path
/// refuses or reads otherwise (`/ \ : * ? " < > |`, control characters), no brackets
/// that could pass for tags, and at most [`MAX_NAME_BYTES`].
pub fn safe_name(name: &str) -> String {
    let replaced: String = name
        .replace(": ", " - ")
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '-',
            '[' => '(',
            ']' => ')',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let mut out = replaced.split_whitespace().collect::<Vec<_>>().join(" ");
    out.truncate(crate::text::floor_char(&out, MAX_NAME_BYTES));
    let out = out.trim_matches(|c: char| c == ' ' || c == '.').to_string();
    if out.is_empty() {
        "Untitled".into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(key: &str, name: &str, kind: GameKind, id: &str, version: u32) -> ShopFile {
        let id = TitleId::parse(id).unwrap();
        ShopFile {
            key: key.into(),
            name: name.into(),
            kind,
            title_id: id,
            base_title_id: id,
            version,
            format: "NSP".into(),
            size: 1,
            mtime: 0,
        }
    }

    #[test]
    fn names_are_safe_file_names() {
        assert_eq!(
            safe_name("Zelda: Breath of the Wild"),
            "Zelda - Breath of the Wild"
        );
        assert_eq!(safe_name("AC/DC [Live]\n"), "AC-DC (Live)");
        assert_eq!(safe_name(" ..  "), "Untitled");
        assert!(safe_name(&"é".repeat(200)).len() <= MAX_NAME_BYTES);
    }

    #[test]
    fn entries_carry_the_tags_and_are_unique_per_folder() {
        let id = "0100000000010000";
        let items = name_items(
            vec![
                file("b/x.nsp", "Odyssey", GameKind::Base, id, 0),
                file("a/x.nsp", "Odyssey", GameKind::Base, id, 0),
                file(
                    "u.nsp",
                    "Odyssey",
                    GameKind::Update,
                    "0100000000010800",
                    65536,
                ),
            ],
            &HashSet::new(),
        );
        let entries: Vec<&str> = items.iter().map(|i| i.entry.as_str()).collect();
        assert_eq!(
            entries,
            [
                "Odyssey [0100000000010000][v0] (2).nsp",
                "Odyssey [0100000000010000][v0].nsp",
                "Odyssey [0100000000010800][v65536].nsp",
            ]
        );
        assert_eq!(
            items[2].path(FILES),
            "/shop/files/updates/Odyssey%20%5B0100000000010800%5D%5Bv65536%5D.nsp"
        );
    }
}
