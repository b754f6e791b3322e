//! Reading a region file of blawar/titledb (`US.en.json` …): a JSON object of entries,
//! keyed by eShop ID, each with `id`, `name`, `publisher`, `releaseDate`, `iconUrl`,
//! `size` and fields we do not keep. Region files are 30–100 MB, so the file is
//! streamed entry by entry (`titles::json`), and a field we keep that is longer than
//! [`FIELD_MAX`] is passed over without being held, and counted.

use std::io::Read;

use super::json::{JsonError, Reader, Scalar};
pub use crate::store::titles::Facts;
use crate::words::TitleId;

/// No name, publisher, date or URL is near this long: a longer field (or key) is
/// passed over and counted, and the entry read as if it did not have it.
pub const FIELD_MAX: usize = 8 * 1024;

/// The fields of one entry we keep, as they came.
#[derive(Default)]
struct RawTitle {
    id: Option<Scalar>,
    name: Option<Scalar>,
    publisher: Option<Scalar>,
    release_date: Option<Scalar>,
    icon_url: Option<Scalar>,
    size: Option<Scalar>,
}

fn text(v: Option<Scalar>) -> Option<String> {
    let s = v?.text()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// `20170303` (an integer or its text) as `2017-03-03`; anything else is no date.
fn iso_date(v: Option<Scalar>) -> Option<String> {
    let n: u64 = match v? {
        Scalar::Number(n) => n.parse().ok()?,
        Scalar::Text(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    let (y, m, d) = (n / 10_000, n / 100 % 100, n % 100);
    ((1970..=9999).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d))
        .then(|| format!("{y:04}-{m:02}-{d:02}"))
}

impl RawTitle {
    /// Where the field called `key` goes; `None` for one we do not keep.
    fn slot(&mut self, key: &str) -> Option<&mut Option<Scalar>> {
        Some(match key {
            "id" => &mut self.id,
            "name" => &mut self.name,
            "publisher" => &mut self.publisher,
            "releaseDate" => &mut self.release_date,
            "iconUrl" => &mut self.icon_url,
            "size" => &mut self.size,
            _ => return None,
        })
    }

    /// A usable entry: a 16-hex title ID and a non-empty name.
    fn facts(self) -> Option<Facts> {
        let id = TitleId::parse(&self.id?.text()?)?;
        Some(Facts {
            id,
            name: text(self.name)?,
            publisher: text(self.publisher),
            release_date: iso_date(self.release_date),
            icon_url: text(self.icon_url)
                .filter(|u| u.starts_with("https://") || u.starts_with("http://")),
            size: match self.size {
                Some(Scalar::Number(n)) => n.parse().ok(),
                _ => None,
            },
        })
    }
}

/// One entry's facts (`None` for a value that is no object, or an entry without a
/// title ID or a name); the fields passed over for their length are added to
/// `oversized`.
fn entry<R: Read>(r: &mut Reader<R>, oversized: &mut usize) -> Result<Option<Facts>, JsonError> {
    if r.peek()? != Some(b'{') {
        r.skip()?;
        return Ok(None);
    }
    let mut entry = RawTitle::default();
    r.object(FIELD_MAX, |r, key| {
        let Some(slot) = key.and_then(|k| entry.slot(k)) else {
            *oversized += usize::from(key.is_none());
            return r.skip();
        };
        let start = r.offset();
        let value = r.scalar(FIELD_MAX)?;
        if value == Scalar::TooLong || r.offset() - start > FIELD_MAX as u64 {
            *oversized += 1;
            *slot = None;
        } else {
            *slot = Some(value);
        }
        Ok(())
    })?;
    Ok(entry.facts())
}

/// Call `each` for every entry of the object (or array) of entries: `Some` for a
/// usable one, `None` for one without a title ID or a name (counted as skipped by the
/// caller). Returns how many fields were passed over for their length.
pub fn read(input: impl Read, mut each: impl FnMut(Option<Facts>)) -> Result<usize, JsonError> {
    let mut r = Reader::new(input);
    let mut oversized = 0;
    if r.peek()? == Some(b'[') {
        r.array(|r| {
            each(entry(r, &mut oversized)?);
            Ok(())
        })?;
    } else {
        r.object(FIELD_MAX, |r, key| {
            oversized += usize::from(key.is_none());
            each(entry(r, &mut oversized)?);
            Ok(())
        })?;
    }
    r.end()?;
    Ok(oversized)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_with_an_id_and_a_name_are_taken() {
        let json = r#"{
            "70010000000025": {"id": "01007ef00011e000", "name": "Zelda", "size": 1,
                "publisher": "Nintendo", "releaseDate": 20170303,
                "iconUrl": "https://img.example/z.jpg", "screenshots": ["a", {"b": [1]}]},
            "70010000000026": {"id": null, "name": "No id"},
            "70010000000027": {"id": "0100", "name": "Short id"},
            "70010000000028": {"id": "0100000000010000", "name": "  "},
            "70010000000029": null,
            "70010000000030": {"id": "0100000000010000", "name": "Odd", "releaseDate": 20171399,
                "iconUrl": "file:///etc/passwd"}
        }"#;
        let mut got = Vec::new();
        assert_eq!(read(json.as_bytes(), |f| got.push(f)).unwrap(), 0);
        assert_eq!(got.iter().filter(|f| f.is_none()).count(), 4);
        let zelda = got[0].clone().unwrap();
        assert_eq!(zelda.id.to_string(), "01007EF00011E000");
        assert_eq!(zelda.release_date.as_deref(), Some("2017-03-03"));
        assert_eq!(zelda.publisher.as_deref(), Some("Nintendo"));
        assert_eq!(zelda.size, Some(1));
        let odd = got[5].clone().unwrap();
        assert_eq!((odd.release_date, odd.icon_url), (None, None));
        assert!(read("{".as_bytes(), |_| {}).is_err());
    }

    #[test]
    fn a_field_past_the_bound_is_passed_over_and_counted() {
        let huge = "x".repeat(FIELD_MAX + 1);
        let zeros = vec!["0"; FIELD_MAX].join(",");
        let json = format!(
            r#"{{"1": {{"id": "0100000000010000", "name": "Kept", "publisher": "{huge}"}},
                "2": {{"id": "0100000000020000", "name": [{zeros}]}},
                "{huge}": {{"id": "0100000000030000", "name": "Long key", "{huge}": 1}},
                "4": {{"id": "0100000000040000", "name": "Fine", "description": "{huge}"}}}}"#
        );
        let mut got = Vec::new();
        let oversized = read(json.as_bytes(), |f| got.push(f)).unwrap();
        assert_eq!(oversized, 4, "a publisher, a name, two keys");
        let names: Vec<_> = got
            .iter()
            .map(|f| f.as_ref().map(|f| f.name.as_str()))
            .collect();
        assert_eq!(names, [Some("Kept"), None, Some("Long key"), Some("Fine")]);
        assert_eq!(got[0].as_ref().unwrap().publisher, None);
    }
}
