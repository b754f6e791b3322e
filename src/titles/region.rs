//! Reading a region file of blawar/titledb (`US.en.json` …): a JSON object of entries,
//! keyed by eShop ID, each with `id`, `name`, `publisher`, `releaseDate`, `iconUrl`,
//! `size` and fields we do not keep. Region files are 30–100 MB, so the file is
//! streamed entry by entry and never held in memory as a whole.

use std::fmt;
use std::io::Read;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use crate::library::identify::{format_title_id, parse_title_id};
pub use crate::store::titles::Facts;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    id: Option<Value>,
    name: Option<Value>,
    publisher: Option<Value>,
    release_date: Option<Value>,
    icon_url: Option<Value>,
    size: Option<Value>,
}

fn text(v: Option<Value>) -> Option<String> {
    let s = v?.as_str()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// `20170303` (an integer or its text) as `2017-03-03`; anything else is no date.
fn iso_date(v: Option<Value>) -> Option<String> {
    let n = match v? {
        Value::Number(n) => n.as_u64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    let (y, m, d) = (n / 10_000, n / 100 % 100, n % 100);
    ((1970..=9999).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d))
        .then(|| format!("{y:04}-{m:02}-{d:02}"))
}

impl Entry {
    /// A usable entry: a 16-hex title ID and a non-empty name.
    fn facts(self) -> Option<Facts> {
        let id = parse_title_id(self.id?.as_str()?)?;
        Some(Facts {
            id: format_title_id(id),
            name: text(self.name)?,
            publisher: text(self.publisher),
            release_date: iso_date(self.release_date),
            icon_url: text(self.icon_url)
                .filter(|u| u.starts_with("https://") || u.starts_with("http://")),
            size: self.size.and_then(|v| v.as_u64()),
        })
    }
}

struct Each<F>(F);

impl<'de, F: FnMut(Option<Facts>)> Visitor<'de> for Each<F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object (or array) of title entries")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        while let Some((_, entry)) = map.next_entry::<IgnoredAny, Option<Entry>>()? {
            (self.0)(entry.and_then(Entry::facts));
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        while let Some(entry) = seq.next_element::<Option<Entry>>()? {
            (self.0)(entry.and_then(Entry::facts));
        }
        Ok(())
    }
}

/// Call `each` for every entry: `Some` for a usable one, `None` for one without a
/// title ID or a name (counted as skipped by the caller).
pub fn read(input: impl Read, each: impl FnMut(Option<Facts>)) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_reader(input);
    (&mut de).deserialize_any(Each(each))?;
    de.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_with_an_id_and_a_name_are_taken() {
        let json = r#"{
            "70010000000025": {"id": "01007ef00011e000", "name": "Zelda", "size": 1,
                "publisher": "Nintendo", "releaseDate": 20170303,
                "iconUrl": "https://img.example/z.jpg"},
            "70010000000026": {"id": null, "name": "No id"},
            "70010000000027": {"id": "0100", "name": "Short id"},
            "70010000000028": {"id": "0100000000010000", "name": "  "},
            "70010000000029": null,
            "70010000000030": {"id": "0100000000010000", "name": "Odd", "releaseDate": 20171399,
                "iconUrl": "file:///etc/passwd"}
        }"#;
        let mut got = Vec::new();
        read(json.as_bytes(), |f| got.push(f)).unwrap();
        assert_eq!(got.iter().filter(|f| f.is_none()).count(), 4);
        let zelda = got[0].clone().unwrap();
        assert_eq!(zelda.id, "01007EF00011E000");
        assert_eq!(zelda.release_date.as_deref(), Some("2017-03-03"));
        assert_eq!(zelda.publisher.as_deref(), Some("Nintendo"));
        let odd = got[5].clone().unwrap();
        assert_eq!((odd.release_date, odd.icon_url), (None, None));
        assert!(read("{".as_bytes(), |_| {}).is_err());
    }
}
