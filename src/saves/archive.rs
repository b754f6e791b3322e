//! What makes an uploaded save archive one worth keeping: a zip file the `zip` crate
//! reads to the end (its directory, every entry's data and checksum), whose entries
//! could not write outside the folder a console extracts them to. CyberFoil itself
//! refuses `..`, absolute paths and `:` when it extracts; the archive is refused
//! before it is kept, so a version that would fail there never takes the place of
//! one that works.
//!
//! Reading is bounded: at most [`MAX_ENTRIES`] entries and [`MAX_UNPACKED`] bytes once
//! unpacked, so a zip bomb costs a few seconds and no memory.

use std::fs::File;
use std::io::Read;

use crate::error::{Error, Msg};

const MAX_ENTRIES: usize = 100_000;
const MAX_UNPACKED: u64 = 8 << 30;

fn not_zip() -> Error {
    Error::invalid(Msg::SaveNotZip)
}

/// Whether an entry's name is one that stays in its folder: relative, no `..`, no
/// drive, no control character, `/` or `\\` as separators alike.
fn safe_name(name: &[u8]) -> bool {
    let Ok(name) = std::str::from_utf8(name) else {
        // Names in the legacy code page: judged on their bytes all the same.
        return !name.is_empty()
            && name[0] != b'/'
            && name[0] != b'\\'
            && !name.windows(2).any(|w| w == b"..")
            && !name.iter().any(|b| *b < 0x20 || *b == b':');
    };
    !name.is_empty()
        && !name.starts_with(['/', '\\'])
        && !name.contains(':')
        && !name.chars().any(char::is_control)
        && name.split(['/', '\\']).all(|part| part != "..")
}

/// Check the archive at the start of `file` (see the module's doc).
pub fn check(file: &File) -> Result<(), Error> {
    // Reads of 1 MiB: the zip crate reads an entry in the sizes it is asked for.
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut zip = zip::ZipArchive::new(reader).map_err(|e| not_zip().with_cause(e))?;
    if zip.len() > MAX_ENTRIES {
        return Err(not_zip().with_cause(format!("{} entries", zip.len())));
    }
    let mut budget = MAX_UNPACKED;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| not_zip().with_cause(e))?;
        let raw = entry.name_raw().to_vec();
        if !safe_name(&raw) || entry.is_symlink() {
            let shown: String = String::from_utf8_lossy(&raw).chars().take(120).collect();
            return Err(Error::invalid(Msg::SaveUnsafeEntry { entry: shown }));
        }
        // Reading to the end checks the entry's CRC-32.
        let read = std::io::copy(&mut (&mut entry).take(budget + 1), &mut std::io::sink())
            .map_err(|e| not_zip().with_cause(e))?;
        if read > budget {
            return Err(not_zip().with_cause("unpacks past the budget"));
        }
        budget -= read;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, Write};
    use zip::write::SimpleFileOptions;

    fn zip_of(entries: &[(&str, &[u8])], link: Option<&str>) -> File {
        let mut file = tempfile::tempfile().unwrap();
        {
            let mut z = zip::ZipWriter::new(&mut file);
            for (name, data) in entries {
                z.start_file(*name, SimpleFileOptions::default()).unwrap();
                z.write_all(data).unwrap();
            }
            if let Some(name) = link {
                z.add_symlink(name, "/etc/passwd", SimpleFileOptions::default())
                    .unwrap();
            }
            z.finish().unwrap();
        }
        file.rewind().unwrap();
        file
    }

    #[test]
    fn a_sound_archive_passes_and_unsafe_names_do_not() {
        assert!(check(&zip_of(&[("save/slot1.bin", b"abc"), ("a..b", b"")], None)).is_ok());
        for bad in [
            "../evil",
            "/abs",
            "a/../../b",
            "C:/x",
            "dir\\..\\x",
            "\\abs",
        ] {
            let e = check(&zip_of(&[(bad, b"x")], None)).unwrap_err();
            assert!(matches!(e.msg, Msg::SaveUnsafeEntry { .. }), "{bad}: {e}");
        }
        let e = check(&zip_of(&[("ok", b"x")], Some("link"))).unwrap_err();
        assert!(matches!(e.msg, Msg::SaveUnsafeEntry { .. }));
    }

    #[test]
    fn what_is_not_a_whole_zip_is_refused() {
        let mut sound = zip_of(&[("slot", &[7u8; 5000])], None);
        let mut bytes = Vec::new();
        sound.read_to_end(&mut bytes).unwrap();
        let mut cases: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"not a zip".to_vec(),
            bytes[..bytes.len() / 2].to_vec(),
        ];
        // A flipped byte in the data: the checksum no longer holds.
        let mut flipped = bytes.clone();
        flipped[40] ^= 0xff;
        cases.push(flipped);
        for case in cases {
            let mut f = tempfile::tempfile().unwrap();
            f.write_all(&case).unwrap();
            f.rewind().unwrap();
            assert_eq!(check(&f).unwrap_err().msg, Msg::SaveNotZip);
        }
    }
}
