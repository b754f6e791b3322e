//! Reading a title database in the blawar/titledb layout: a JSON object of entries
//! that carry `id` and `name` (other fields are ignored). The file is streamed entry
//! by entry, so a 100 MB database is never held in memory as a whole.

use std::fmt;
use std::io::Read;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::identify::{format_title_id, parse_title_id};

#[derive(Deserialize)]
struct Entry {
    id: Option<Value>,
    name: Option<Value>,
}

impl Entry {
    /// A usable entry: a 16-hex title ID and a non-empty name.
    fn pair(self) -> Option<(String, String)> {
        let id = parse_title_id(self.id?.as_str()?)?;
        let name = self.name?.as_str()?.trim().to_string();
        (!name.is_empty()).then(|| (format_title_id(id), name))
    }
}

struct Each<F>(F);

impl<'de, F: FnMut(String, String)> Visitor<'de> for Each<F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object (or array) of title entries")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        while let Some((_, entry)) = map.next_entry::<IgnoredAny, Option<Entry>>()? {
            if let Some((id, name)) = entry.and_then(Entry::pair) {
                (self.0)(id, name);
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        while let Some(entry) = seq.next_element::<Option<Entry>>()? {
            if let Some((id, name)) = entry.and_then(Entry::pair) {
                (self.0)(id, name);
            }
        }
        Ok(())
    }
}

/// Call `each(title_id, name)` for every usable entry.
pub fn read(input: impl Read, each: impl FnMut(String, String)) -> Result<(), serde_json::Error> {
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
            "70010000000025": {"id": "01007ef00011e000", "name": "Zelda", "size": 1},
            "70010000000026": {"id": null, "name": "No id"},
            "70010000000027": {"id": "0100", "name": "Short id"},
            "70010000000028": {"id": "0100000000010000", "name": "  "},
            "70010000000029": null
        }"#;
        let mut got = Vec::new();
        read(json.as_bytes(), |id, name| got.push((id, name))).unwrap();
        assert_eq!(got, [("01007EF00011E000".to_string(), "Zelda".to_string())]);
        assert!(read("{".as_bytes(), |_, _| {}).is_err());
    }
}
