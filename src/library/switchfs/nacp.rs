//! `control.nacp`: a title's name and publisher per language, and the version it
//! shows to people ("1.2.0").

use crate::error::Reason;

/// The NACP's size; anything shorter is truncated.
pub const SIZE: usize = 0x4000;

/// The NACP's languages, in its order; `icon_<Language>.dat` uses the same names.
pub const LANGUAGES: [&str; 16] = [
    "AmericanEnglish",
    "BritishEnglish",
    "Japanese",
    "French",
    "German",
    "LatinAmericanSpanish",
    "Spanish",
    "Italian",
    "Dutch",
    "CanadianFrench",
    "Portuguese",
    "Russian",
    "Korean",
    "TraditionalChinese",
    "SimplifiedChinese",
    "BrazilianPortuguese",
];

/// A NUL-ended UTF-8 field; a field with no NUL ends at its size. Control
/// characters are dropped (a name is shown and stored, never a line break).
fn text(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end])
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_string()
}

/// (language index, name, publisher) for each language with a name.
pub type Names = Vec<(u8, String, String)>;

/// The names, and the display version.
pub fn parse(b: &[u8]) -> Result<(Names, String), Reason> {
    if b.len() < SIZE {
        return Err(Reason::NacpTruncated);
    }
    let names = (0..16)
        .filter_map(|i| {
            let entry = &b[0x300 * i..0x300 * (i + 1)];
            let name = text(&entry[..0x200]);
            (!name.is_empty()).then(|| (i as u8, name, text(&entry[0x200..])))
        })
        .collect();
    Ok((names, text(&b[0x3060..0x3070])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_without_a_terminator_end_at_their_field() {
        let mut nacp = vec![b'A'; SIZE];
        nacp[0x300..0x600].fill(0);
        let (names, version) = parse(&nacp).unwrap();
        assert_eq!(names.len(), 15);
        assert_eq!(names[0].1.len(), 0x200);
        assert_eq!(names[0].2.len(), 0x100);
        assert_eq!(version.len(), 0x10);
        assert!(parse(&nacp[..SIZE - 1]).is_err());
    }
}
