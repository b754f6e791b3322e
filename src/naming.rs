//! The naming template of `organize`: where a game file belongs, relative to its
//! platform's folder. Pure text, low in the house so that `config` can check a
//! template when the service starts.
//!
//! A template is checked once, when the service starts, and rendering it cannot fail
//! afterwards. What it renders is always a library key, and one a Windows share (SMB) or an
//! exFAT card accepts: the characters those refuse (`:?*"<>|\` and control
//! characters) are replaced, a folder or file name never ends in a space or a dot
//! nor starts with a dot (the scan skips hidden names), and each is kept under 255
//! bytes by shortening the game's name first.

use crate::text::floor_char;
use crate::words::TitleId;

/// The default: one folder per game, holding its base game, updates and DLC, each
/// DLC under its own name (two DLC of one game named after the game alone would be
/// told apart by their title IDs only).
pub const DEFAULT: &str = "{name}/{own_name} [{title_id}][v{version}].{ext}";

/// The placeholders a template may use.
const FIELDS: [&str; 8] = [
    "name",
    "dlc_name",
    "own_name",
    "title_id",
    "base_title_id",
    "version",
    "type",
    "ext",
];

/// Longest file or folder name, in bytes (ext4, exFAT's 255 UTF-16 units are more).
const MAX_NAME: usize = 255;

/// A checked template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(String);

/// What a game brings to its template.
#[derive(Debug, Clone)]
pub struct Fields<'a> {
    /// The base game's name (for its updates and DLC too).
    pub name: &'a str,
    /// The file's own name (a DLC's own).
    pub dlc_name: &'a str,
    pub title_id: TitleId,
    pub base_title_id: TitleId,
    pub version: u32,
    /// `Base`, `Update` or `DLC`.
    pub kind: &'a str,
    /// The extension, lower case, without the dot.
    pub ext: &'a str,
}

impl Default for Template {
    /// [`DEFAULT`], which is a template.
    fn default() -> Template {
        Template(DEFAULT.to_string())
    }
}

impl Template {
    /// The template, when it is one: known placeholders only, relative, no empty,
    /// `.` or `..` folder, ending in `.{ext}` (a file that lost its extension would
    /// leave the library).
    pub fn parse(text: &str) -> Option<Template> {
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}')? + open;
            if rest[..open].contains('}') || !FIELDS.contains(&&rest[open + 1..close]) {
                return None;
            }
            rest = &rest[close + 1..];
        }
        let keyish = text
            .split('/')
            .all(|seg| !seg.trim().is_empty() && seg != "." && seg != "..");
        (keyish && !rest.contains('}') && text.ends_with(".{ext}"))
            .then(|| Template(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key the template gives a game, relative to its platform's folder.
    pub fn render(&self, f: &Fields) -> String {
        let mut name = clean(f.name);
        let mut dlc_name = clean(f.dlc_name);
        loop {
            let path = self.fill(f, &name, &dlc_name);
            let over = path.split('/').map(str::len).max().unwrap_or(0);
            if over <= MAX_NAME || (name.is_empty() && dlc_name.is_empty()) {
                return finish(&path, &clean(f.ext));
            }
            // Shorten the longer name by what is too much, and try again.
            let cut = over - MAX_NAME;
            let longer = if name.len() >= dlc_name.len() {
                &mut name
            } else {
                &mut dlc_name
            };
            let keep = floor_char(longer, longer.len().saturating_sub(cut.max(1)));
            longer.truncate(keep);
        }
    }

    fn fill(&self, f: &Fields, name: &str, dlc_name: &str) -> String {
        let mut out = String::with_capacity(self.0.len() + 64);
        let mut rest = self.0.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = open + rest[open..].find('}').unwrap_or(0);
            match &rest[open + 1..close] {
                "name" => out.push_str(name),
                "dlc_name" => out.push_str(dlc_name),
                // What the file holds: a DLC's own name, the game's for the others.
                "own_name" if f.kind == "DLC" => out.push_str(dlc_name),
                "own_name" => out.push_str(name),
                "title_id" => out.push_str(&f.title_id.to_string()),
                "base_title_id" => out.push_str(&f.base_title_id.to_string()),
                "version" => out.push_str(&f.version.to_string()),
                "type" => out.push_str(&clean(f.kind)),
                _ => out.push_str(&clean(f.ext)),
            }
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        out
    }
}

/// A value made safe to put in a name: no folder separator, no character SMB or
/// exFAT refuses. `Zelda: Tears` becomes `Zelda - Tears`.
fn clean(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ':' if chars.peek() == Some(&' ') => out.push_str(" -"),
            ':' | '/' => out.push('-'),
            '"' => out.push('\''),
            '?' | '*' | '<' | '>' | '|' | '\\' => out.push('_'),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Each name of the path made acceptable, then the path as a key: no name starts
/// with a dot or ends with a space or a dot, none is empty, and each is at most
/// [`MAX_NAME`] bytes (the file name keeps its `.ext`, which the template ends in).
fn finish(path: &str, ext: &str) -> String {
    let (folders, file) = match path.rsplit_once('/') {
        Some((folders, file)) => (folders.split('/').collect(), file),
        None => (Vec::new(), path),
    };
    let dot_ext = format!(".{ext}");
    let stem = file.strip_suffix(dot_ext.as_str()).unwrap_or(file);
    let mut segments: Vec<String> = folders.iter().map(|s| segment(s, "")).collect();
    segments.push(segment(stem, &dot_ext));
    segments.join("/")
}

/// One name of the path: `stem` made acceptable, then `ext` (empty for a folder).
fn segment(stem: &str, ext: &str) -> String {
    let mut stem = stem.trim().trim_end_matches('.').trim_end().to_string();
    if stem.len() + ext.len() > MAX_NAME {
        stem.truncate(floor_char(&stem, MAX_NAME - ext.len()));
        stem = stem.trim_end().trim_end_matches('.').to_string();
    }
    if let Some(rest) = stem.strip_prefix('.') {
        stem = format!("_{rest}");
    }
    if stem.is_empty() {
        stem.push('_');
    }
    format!("{stem}{ext}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields<'a>(name: &'a str, kind: &'a str) -> Fields<'a> {
        Fields {
            name,
            dlc_name: "Extra Pack",
            title_id: TitleId(0x0100ABCDEF012000),
            base_title_id: TitleId(0x0100ABCDEF012000),
            version: 65536,
            kind,
            ext: "nsp",
        }
    }

    #[test]
    fn the_default_template_renders_one_folder_per_game() {
        let t = Template::parse(DEFAULT).unwrap();
        assert_eq!(
            t.render(&fields("Zelda: Tears of the Kingdom", "Update")),
            "Zelda - Tears of the Kingdom/Zelda - Tears of the Kingdom [0100ABCDEF012000][v65536].nsp"
        );
    }

    #[test]
    fn the_default_template_keeps_each_dlc_name_under_its_game_folder() {
        let t = Template::parse(DEFAULT).unwrap();
        let base = t.render(&fields("Dead Rooms", "Base"));
        assert_eq!(base, "Dead Rooms/Dead Rooms [0100ABCDEF012000][v65536].nsp");
        let dlc = t.render(&Fields {
            dlc_name: "Dead Rooms – Deadly Falls",
            ..fields("Dead Rooms", "DLC")
        });
        assert_eq!(
            dlc,
            "Dead Rooms/Dead Rooms – Deadly Falls [0100ABCDEF012000][v65536].nsp"
        );
        let long = "é".repeat(400);
        let dlc = t.render(&Fields {
            dlc_name: &long,
            ..fields("Dead Rooms", "DLC")
        });
        assert!(dlc.split('/').all(|seg| seg.len() <= 255), "{dlc}");
    }

    #[test]
    fn refused_characters_and_hidden_names_never_reach_the_disk() {
        let t = Template::parse("{name}/{dlc_name}.{ext}").unwrap();
        let k = t.render(&Fields {
            dlc_name: "a\u{7}b?*<>|\\\"c/d.",
            ..fields("..", "DLC")
        });
        assert_eq!(k, "_/a b______'c-d.nsp");
        let k = t.render(&fields(" . ", "DLC"));
        assert_eq!(k, "_/Extra Pack.nsp");
    }

    #[test]
    fn every_name_stays_under_255_bytes_and_keeps_its_tags() {
        let long = "é".repeat(400);
        let t = Template::parse(DEFAULT).unwrap();
        let k = t.render(&fields(&long, "Base"));
        for seg in k.split('/') {
            assert!(seg.len() <= 255, "{} bytes", seg.len());
        }
        assert!(k.ends_with(" [0100ABCDEF012000][v65536].nsp"));
    }

    #[test]
    fn templates_that_could_lose_a_file_are_refused() {
        for bad in [
            "",
            "{name}.nsp",
            "{name}/{nom}.{ext}",
            "/{name}.{ext}",
            "{name}//{name}.{ext}",
            "../{name}.{ext}",
            "{name}/{name.{ext}",
            "{name}}.{ext}",
        ] {
            assert_eq!(Template::parse(bad), None, "{bad:?}");
        }
        assert!(Template::parse("{type}/{title_id}.{ext}").is_some());
    }

    /// The default is built without `parse`: it must be what `parse` accepts.
    #[test]
    fn the_default_is_a_template() {
        assert_eq!(Template::parse(DEFAULT), Some(Template::default()));
    }
}
