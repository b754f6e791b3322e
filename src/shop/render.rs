//! The bytes of each form of the shop (see `Form`), from a snapshot. Field names and
//! types follow what each installer's own source reads (docs/installers.md): Tinfoil's
//! `files` with the tags in the URL's fragment and a `titledb` keyed by title ID;
//! CyberFoil's `sections` with string IDs and integer sizes and versions; Apache's
//! `mod_autoindex` table, whose `<a href="…">` links DBI and Sphaira follow; titledb's
//! `versions.txt`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write;
use std::hash::Hash;

use serde::Serialize;

use super::{Catalogue, Folder, Form, Inputs, Item, FILES};
use crate::error::Error;
use crate::library::copies::{self, Candidate};
use crate::store::games::ShopFile;
use crate::store::title_catalog;
use crate::words::{DedupeKeep, GameKind, TitleId};

/// How many base games the `new` and `recommended` sections hold.
const NEW_ITEMS: usize = 50;

pub fn render(s: &Catalogue, form: Form, inputs: &Inputs) -> Result<Vec<u8>, Error> {
    Ok(match form {
        Form::Tinfoil => json(&tinfoil(s)),
        Form::Sections => json(&sections(s, FILES, inputs.keep)),
        Form::SectionsUnderShop => json(&sections(s, "/files/", inputs.keep)),
        Form::ListingTop => listing_top().into_bytes(),
        Form::Listing(folder) => listing(s, folder).into_bytes(),
        Form::Versions => versions(&title_catalog::every_latest(inputs.db)?).into_bytes(),
    })
}

/// JSON with every `<` written `\u003c`. CyberFoil takes any answer whose bytes hold
/// `<html` or `<!doctype html` (in any case) for a login page and loads nothing
/// (`ContainsHtml` in shopInstall.cpp): one title or message holding it would empty
/// the shop. In JSON a `<` can only stand inside a string, and a UTF-8 byte `<` is
/// always the character, so writing each one escaped keeps the same JSON.
fn json<T: Serialize>(value: &T) -> Vec<u8> {
    // Serialising plain structs of strings and numbers cannot fail.
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    let mut out = Vec::with_capacity(bytes.len());
    for b in bytes {
        match b {
            b'<' => out.extend_from_slice(br"\u003c"),
            b => out.push(b),
        }
    }
    out
}

#[derive(Serialize)]
struct TinfoilIndex<'a> {
    files: Vec<TinfoilFile>,
    directories: [&'a str; 0],
    success: &'a str,
    titledb: BTreeMap<TitleId, TitleEntry<'a>>,
}

#[derive(Serialize)]
struct TinfoilFile {
    url: String,
    size: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TitleEntry<'a> {
    id: TitleId,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    publisher: Option<&'a str>,
    /// `YYYYMMDD`, as a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    release_date: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    icon_url: Option<&'a str>,
}

/// Every file, its URL ending in `#` and its entry so that Tinfoil reads the tags even
/// from a URL it does not parse, and the title data of the library's title IDs.
fn tinfoil(s: &Catalogue) -> TinfoilIndex<'_> {
    let files = s
        .items
        .iter()
        .map(|it| TinfoilFile {
            url: format!(
                "{}#{}",
                it.path(FILES),
                crate::text::encode_segment(&it.entry)
            ),
            size: it.file.size,
        })
        .collect();
    let latest: BTreeMap<TitleId, Option<u32>> = s.versions.iter().copied().collect();
    let titledb = s
        .facts
        .iter()
        .map(|f| {
            let entry = TitleEntry {
                id: f.id,
                name: &f.name,
                version: latest.get(&f.id).copied().flatten(),
                publisher: f.publisher.as_deref(),
                release_date: f
                    .release_date
                    .as_deref()
                    .and_then(|d| d.replace('-', "").parse().ok()),
                size: f.size,
                icon_url: f.icon_url.as_deref(),
            };
            (f.id, entry)
        })
        .collect();
    TinfoilIndex {
        files,
        directories: [],
        success: &s.message,
        titledb,
    }
}

#[derive(Serialize)]
struct Sections<'a> {
    success: &'a str,
    sections: Vec<ShopSection<'a>>,
}

#[derive(Serialize)]
struct ShopSection<'a> {
    id: &'static str,
    title: &'static str,
    items: Vec<SectionItem<'a>>,
}

#[derive(Serialize)]
struct SectionItem<'a> {
    url: String,
    size: u64,
    /// The entry, `Name [TITLEID][vVERSION].ext`: CyberFoil installs an item as an
    /// XCI when its `name` ends in `.xci` or `.xcz` (`IsXciExtension`), else as an NSP.
    name: &'a str,
    /// The base game's ID, left out for a DLC: CyberFoil takes `title_id` for the
    /// base (`DeriveBaseTitleId`) and hides a DLC whose `title_id` is installed, so a
    /// DLC carrying its base's ID would vanish once the base is installed; without
    /// it, CyberFoil derives the base from `app_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    title_id: Option<TitleId>,
    app_id: TitleId,
    app_version: u32,
    app_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    icon_url: Option<String>,
}

/// CyberFoil's sections, one item per title (or per version in `all`): the copy
/// `dedupe` would keep. `prefix` is where the downloads are, seen from where the
/// sections were asked.
///
/// - `new`: the base games most recently added;
/// - `recommended` (the section CyberFoil opens on): base games whose update is in the
///   library, newest release first. Picking one, CyberFoil offers the library's
///   newest update with it (`startInstall` reads `updates`), so it installs ready to
///   play; it is built from the library and title data only, which the snapshot's
///   stamp follows (a download count would be stale at once);
/// - `updates`: the newest update of each title; `dlc`: each DLC, newest version;
/// - `all`: every title and version, never cut.
fn sections<'a>(s: &'a Catalogue, prefix: &str, keep: DedupeKeep) -> Sections<'a> {
    let item = |it: &'a Item| SectionItem {
        url: it.path(prefix),
        size: it.file.size,
        name: &it.entry,
        title_id: (it.folder != Folder::Dlc).then_some(it.file.base_title_id),
        app_id: it.file.title_id,
        app_version: it.file.version,
        app_type: app_type(&it.file),
        icon_url: it.icon.then(|| {
            let at = prefix.strip_suffix("files/").unwrap_or("/");
            let at = at.strip_suffix("shop/").unwrap_or(at);
            format!("{at}api/shop/icon/{}", it.file.base_title_id)
        }),
    };
    let per_title = |folder| kept(s.in_folder(folder), |it| it.file.title_id, keep);
    let bases = per_title(Folder::Base);
    let mut newest = bases.clone();
    newest.sort_by(|a, b| b.file.mtime.cmp(&a.file.mtime).then(a.entry.cmp(&b.entry)));
    let updated: HashSet<TitleId> = s
        .in_folder(Folder::Updates)
        .map(|it| it.file.base_title_id)
        .collect();
    let released: HashMap<TitleId, &str> = s
        .facts
        .iter()
        .filter_map(|f| Some((f.id, f.release_date.as_deref()?)))
        .collect();
    let mut recommended: Vec<&Item> = bases
        .into_iter()
        .filter(|it| updated.contains(&it.file.title_id))
        .collect();
    recommended.sort_by(|a, b| {
        let date = |it: &Item| released.get(&it.file.title_id).copied();
        date(b)
            .cmp(&date(a))
            .then(b.file.mtime.cmp(&a.file.mtime))
            .then(a.entry.cmp(&b.entry))
    });
    let all = kept(
        s.items.iter(),
        |it| (it.file.title_id, it.file.version),
        keep,
    );
    let section = |id, title, items: Vec<&'a Item>, cut: usize| ShopSection {
        id,
        title,
        items: items.into_iter().take(cut).map(item).collect(),
    };
    Sections {
        success: &s.message,
        sections: vec![
            section("new", "New", newest, NEW_ITEMS),
            section("recommended", "Recommended", recommended, NEW_ITEMS),
            section("updates", "Updates", per_title(Folder::Updates), usize::MAX),
            section("dlc", "DLC", per_title(Folder::Dlc), usize::MAX),
            section("all", "All", all, usize::MAX),
        ],
    }
}

/// One item of each group, the one `dedupe` keeps (`library::copies::better`: the
/// highest version, then the preferred format, then the first key), in the order the
/// groups first appear.
fn kept<'a, K: Eq + Hash>(
    items: impl Iterator<Item = &'a Item>,
    group: impl Fn(&'a Item) -> K,
    keep: DedupeKeep,
) -> Vec<&'a Item> {
    let candidate = |it: &'a Item| Candidate {
        header_ok: true, // the shop offers only files whose header was read
        version: Some(it.file.version),
        format: &it.file.format,
        key: &it.file.key,
    };
    let mut at: HashMap<K, usize> = HashMap::new();
    let mut out: Vec<&Item> = Vec::new();
    for it in items {
        match at.get(&group(it)) {
            Some(&i) => {
                if copies::better(candidate(it), candidate(out[i]), keep).is_gt() {
                    out[i] = it;
                }
            }
            None => {
                at.insert(group(it), out.len());
                out.push(it);
            }
        }
    }
    out
}

fn app_type(f: &ShopFile) -> &'static str {
    match f.kind {
        GameKind::Base => "base",
        GameKind::Update => "upd",
        _ => "dlc",
    }
}

const LISTING_HEAD: &str = r#"<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html>
 <head>
  <title>Index of {PATH}</title>
 </head>
 <body>
<h1>Index of {PATH}</h1>
  <table>
   <tr><th valign="top">&nbsp;</th><th>Name</th><th>Last modified</th><th>Size</th><th>Description</th></tr>
   <tr><th colspan="5"><hr></th></tr>
"#;

/// Apache lists the parent folder in every folder but the root.
const PARENT: &str = "<tr><td valign=\"top\">&nbsp;</td><td><a href=\"../\">Parent Directory</a></td><td>&nbsp;</td><td align=\"right\">  - </td><td>&nbsp;</td></tr>\n";

const LISTING_FOOT: &str = "   <tr><th colspan=\"5\"><hr></th></tr>\n</table>\n<address>Ludothèque</address>\n</body></html>\n";

fn head(path: &str) -> String {
    LISTING_HEAD.replace("{PATH}", path)
}

/// The top of the listing: one folder per kind, and no parent (Apache's root has none,
/// and the root has no parent for an installer). Links are relative, so the same bytes
/// serve `/shop/files/` and an installer asking `/`. The icon column holds the text
/// `[DIR]`, not Apache's `<img alt="[DIR]">`: DBI and Sphaira read the links only, and
/// an image would make a browser ask the shop for an icon it does not have.
fn listing_top() -> String {
    let mut out = head(FILES);
    for f in Folder::ALL {
        let _ = writeln!(
            out,
            "<tr><td valign=\"top\">[DIR]</td><td><a href=\"{0}/\">{0}/</a></td><td align=\"right\">&nbsp;</td><td align=\"right\">  - </td><td>&nbsp;</td></tr>",
            f.name()
        );
    }
    out + LISTING_FOOT
}

/// One kind's folder: each file's link is its entry (relative: the download path).
/// The link text is the entry too, for parsers that read the text.
fn listing(s: &Catalogue, folder: Folder) -> String {
    let mut items: Vec<&Item> = s.in_folder(folder).collect();
    items.sort_by(|a, b| a.entry.cmp(&b.entry));
    let mut out = head(&format!("{FILES}{}/", folder.name())) + PARENT;
    for it in items {
        let _ = writeln!(
            out,
            "<tr><td valign=\"top\">&nbsp;</td><td><a href=\"{}\">{}</a></td><td align=\"right\">{}  </td><td align=\"right\">{}</td><td>&nbsp;</td></tr>",
            crate::text::encode_segment(&it.entry),
            maud::html! { (it.entry) }.into_string(),
            modified(it.file.mtime),
            apache_size(it.file.size)
        );
    }
    out + LISTING_FOOT
}

/// `YYYY-MM-DD HH:MM`, as Apache writes it (UTC here).
fn modified(mtime_ns: i64) -> String {
    let text = crate::time::rfc3339(mtime_ns / 1_000_000_000);
    text.get(..16).unwrap_or(&text).replace('T', " ")
}

/// Apache's short sizes: `512`, `3.8K`, `700M`, `1.2G`.
fn apache_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["", "K", "M", "G", "T"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes}")
    } else if value < 10.0 {
        format!("{value:.1}{}", UNITS[unit])
    } else {
        format!("{value:.0}{}", UNITS[unit])
    }
}

/// titledb's `versions.txt`: every title the title data knows, and the library's own,
/// each at its latest version (see `title_catalog::every_latest`). DBI reads it for
/// every installed game (`VersionsURL` is one global setting) and flags a game whose
/// installed version is lower. The rights IDs are not kept: all zeros, as titledb
/// writes an unknown one.
fn versions(rows: &[(TitleId, Option<u32>)]) -> String {
    let mut out = String::with_capacity(20 + rows.len() * 53);
    out.push_str("id|rightsId|version\n");
    for (id, version) in rows {
        let version = version.map(|v| v.to_string()).unwrap_or_default();
        let _ = writeln!(out, "{id}|00000000000000000000000000000000|{version}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_apache() {
        assert_eq!(apache_size(512), "512");
        assert_eq!(apache_size(3900), "3.8K");
        assert_eq!(apache_size(700 * 1024 * 1024), "700M");
        assert_eq!(apache_size(1288490188), "1.2G");
    }

    #[test]
    fn json_holds_no_lt_and_reads_the_same() {
        let value = serde_json::json!({"success": "<html> a<b <!DOCTYPE html>", "n": 1});
        let bytes = json(&value);
        assert!(!bytes.contains(&b'<'));
        let back: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn dates_read_like_apache() {
        assert_eq!(modified(1_700_000_000_000_000_000), "2023-11-14 22:13");
    }
}
