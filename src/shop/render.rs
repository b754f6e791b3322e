//! The bytes of each form of the shop (see `Form`), from a snapshot. Field names and
//! types follow what each installer's own source reads: Tinfoil's `files` with the tags
//! in the URL's fragment and a `titledb` keyed by title ID; CyberFoil's `sections`
//! with string IDs and integer sizes and versions; Apache's `mod_autoindex` table,
//! whose `<a href="…">` links DBI and Sphaira follow; titledb's `versions.txt`.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use super::{Folder, Form, Item, Snapshot, FILES};
use crate::store::games::ShopFile;
use crate::words::GameKind;

/// How many recently added files the `new` section holds.
const NEW_ITEMS: usize = 50;

pub fn render(s: &Snapshot, form: Form) -> Vec<u8> {
    match form {
        Form::Tinfoil => json(&tinfoil(s)),
        Form::Sections => json(&sections(s, FILES)),
        Form::SectionsUnderShop => json(&sections(s, "/files/")),
        Form::ListingTop => listing_top().into_bytes(),
        Form::Listing(folder) => listing(s, folder).into_bytes(),
        Form::Versions => versions(s).into_bytes(),
    }
}

fn json<T: Serialize>(value: &T) -> Vec<u8> {
    // Serialising plain structs of strings and numbers cannot fail.
    serde_json::to_vec(value).unwrap_or_default()
}

#[derive(Serialize)]
struct TinfoilIndex<'a> {
    files: Vec<TinfoilFile>,
    directories: [&'a str; 0],
    success: &'a str,
    titledb: BTreeMap<&'a str, TitleEntry<'a>>,
}

#[derive(Serialize)]
struct TinfoilFile {
    url: String,
    size: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TitleEntry<'a> {
    id: &'a str,
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
fn tinfoil(s: &Snapshot) -> TinfoilIndex<'_> {
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
    let latest: BTreeMap<&str, Option<u32>> =
        s.versions.iter().map(|(id, v)| (id.as_str(), *v)).collect();
    let titledb = s
        .facts
        .iter()
        .map(|f| {
            let entry = TitleEntry {
                id: &f.id,
                name: &f.name,
                version: latest.get(f.id.as_str()).copied().flatten(),
                publisher: f.publisher.as_deref(),
                release_date: f
                    .release_date
                    .as_deref()
                    .and_then(|d| d.replace('-', "").parse().ok()),
                size: f.size,
                icon_url: f.icon_url.as_deref(),
            };
            (f.id.as_str(), entry)
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
    sections: Vec<Section<'a>>,
}

#[derive(Serialize)]
struct Section<'a> {
    id: &'static str,
    title: &'static str,
    items: Vec<SectionItem<'a>>,
}

#[derive(Serialize)]
struct SectionItem<'a> {
    url: String,
    size: u64,
    name: &'a str,
    title_id: &'a str,
    app_id: &'a str,
    app_version: u32,
    app_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    icon_url: Option<String>,
}

/// `new` (the most recently added files), `updates` (the newest update of each title),
/// `dlc`, and `all`, whole. `prefix` is where the downloads are, seen from where the
/// sections were asked.
fn sections<'a>(s: &'a Snapshot, prefix: &str) -> Sections<'a> {
    let item = |it: &'a Item| SectionItem {
        url: it.path(prefix),
        size: it.file.size,
        name: &it.file.name,
        title_id: &it.file.base_title_id,
        app_id: &it.file.title_id,
        app_version: it.file.version,
        app_type: app_type(&it.file),
        icon_url: it.icon.then(|| {
            let at = prefix.strip_suffix("files/").unwrap_or("/");
            let at = at.strip_suffix("shop/").unwrap_or(at);
            format!("{at}api/shop/icon/{}", it.file.base_title_id)
        }),
    };
    let mut newest: Vec<&Item> = s.items.iter().collect();
    newest.sort_by(|a, b| b.file.mtime.cmp(&a.file.mtime).then(a.entry.cmp(&b.entry)));
    let section = |id, title, items: Vec<SectionItem<'a>>| Section { id, title, items };
    Sections {
        success: &s.message,
        sections: vec![
            section(
                "new",
                "New",
                newest.into_iter().take(NEW_ITEMS).map(item).collect(),
            ),
            section(
                "updates",
                "Updates",
                s.in_folder(Folder::Updates)
                    .filter(|it| !it.file.superseded)
                    .map(item)
                    .collect(),
            ),
            section("dlc", "DLC", s.in_folder(Folder::Dlc).map(item).collect()),
            section("all", "All", s.items.iter().map(item).collect()),
        ],
    }
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
<tr><td valign="top">&nbsp;</td><td><a href="../">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>
"#;

const LISTING_FOOT: &str = "   <tr><th colspan=\"5\"><hr></th></tr>\n</table>\n<address>Ludothèque</address>\n</body></html>\n";

fn head(path: &str) -> String {
    LISTING_HEAD.replace("{PATH}", path)
}

/// The top of the listing: one folder per kind. Links are relative, so the same
/// bytes serve `/shop/files/` and an installer asking `/`.
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
fn listing(s: &Snapshot, folder: Folder) -> String {
    let mut items: Vec<&Item> = s.in_folder(folder).collect();
    items.sort_by(|a, b| a.entry.cmp(&b.entry));
    let mut out = head(&format!("{FILES}{}/", folder.name()));
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

/// titledb's `versions.txt` for the library's titles: DBI flags an installed title
/// whose version is below the one here.
fn versions(s: &Snapshot) -> String {
    let mut out = String::from("id|rightsId|version\n");
    for (id, version) in &s.versions {
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
    fn dates_read_like_apache() {
        assert_eq!(modified(1_700_000_000_000_000_000), "2023-11-14 22:13");
    }
}
