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

/// Every name an entry goes by, as the bytes on disk say them: the central
/// directory's and the local header's (which must be the same), and the Info-ZIP
/// Unicode Path fields (0x7075) of either. An unzip tool may take any of them, so
/// each one is checked, not only the one the `zip` crate settles on.
fn raw_names(file: &File, central_at: u64, local_at: u64) -> Result<Vec<Vec<u8>>, Error> {
    let central = header_names(file, central_at, 46, 28)?;
    let local = header_names(file, local_at, 30, 26)?;
    if central[0] != local[0] {
        return Err(not_zip().with_cause("the local header names another file"));
    }
    Ok(central.into_iter().chain(local).collect())
}

/// A header's name, then the names of its Unicode Path fields: the header at `at`,
/// its fixed part `fixed` bytes long, the name's length at `lengths` (the extra
/// field's just after).
fn header_names(file: &File, at: u64, fixed: usize, lengths: usize) -> Result<Vec<Vec<u8>>, Error> {
    use std::os::unix::fs::FileExt;
    let read = |at: u64, len: usize| -> Result<Vec<u8>, Error> {
        let mut buf = vec![0u8; len];
        file.read_exact_at(&mut buf, at)
            .map_err(|e| not_zip().with_cause(e))?;
        Ok(buf)
    };
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]) as usize;
    let head = read(at, fixed)?;
    let (name_len, extra_len) = (u16_at(&head, lengths), u16_at(&head, lengths + 2));
    let mut names = vec![read(at + fixed as u64, name_len)?];
    let extra = read(at + (fixed + name_len) as u64, extra_len)?;
    let mut i = 0;
    while i + 4 <= extra.len() {
        let (id, size) = (u16_at(&extra, i), u16_at(&extra, i + 2));
        let field = extra.get(i + 4..i + 4 + size).ok_or_else(not_zip)?;
        // Unicode Path: a version byte, the CRC-32 of the name, the name.
        if id == 0x7075 {
            names.push(field.get(5..).ok_or_else(not_zip)?.to_vec());
        }
        i += 4 + size;
    }
    Ok(names)
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
        let mut names = raw_names(file, entry.central_header_start(), entry.header_start())?;
        names.push(entry.name_raw().to_vec());
        let decoded = entry.name().map_err(|e| not_zip().with_cause(e))?;
        names.push(decoded.as_bytes().to_vec());
        if let Some(bad) = names
            .iter()
            .find(|n| !safe_name(n))
            .or(entry.is_symlink().then_some(&names[0]))
        {
            let shown: String = String::from_utf8_lossy(bad).chars().take(120).collect();
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
    fn a_name_hidden_in_one_header_is_seen() {
        let mut bytes = Vec::new();
        zip_of(&[("ok.bin", b"data")], None)
            .read_to_end(&mut bytes)
            .unwrap();
        let at: Vec<usize> = bytes
            .windows(6)
            .enumerate()
            .filter(|(_, w)| *w == b"ok.bin")
            .map(|(i, _)| i)
            .collect();
        // The local header's name, then the central directory's, changed alone.
        for i in [at[0], at[1]] {
            let mut patched = bytes.clone();
            patched[i..i + 6].copy_from_slice(b"../a.b");
            let mut f = tempfile::tempfile().unwrap();
            f.write_all(&patched).unwrap();
            f.rewind().unwrap();
            assert!(check(&f).is_err(), "the name at {i}");
        }
    }

    fn file_of(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f.rewind().unwrap();
        f
    }

    fn bytes_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut bytes = Vec::new();
        zip_of(entries, None).read_to_end(&mut bytes).unwrap();
        bytes
    }

    /// A stored zip of one entry whose central record is repeated `n` times, each
    /// pointing at the same data (a "zip bomb" by overlap), named `s0000`, `s0001`…
    /// when `distinct`, with the end record's counts and size made to agree.
    fn overlapping(data: &[u8], n: usize, distinct: bool) -> Vec<u8> {
        use zip::write::SimpleFileOptions;
        let mut out = std::io::Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut out);
        let stored =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        z.start_file("s0000", stored).unwrap();
        z.write_all(data).unwrap();
        z.finish().unwrap();
        let bytes = out.into_inner();
        let eocd = bytes.len() - 22;
        let le32 = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let (cd_size, cd_at) = (le32(eocd + 12), le32(eocd + 16));
        let mut v = bytes[..cd_at].to_vec();
        for i in 0..n {
            let mut record = bytes[cd_at..cd_at + cd_size].to_vec();
            if distinct {
                record[46..51].copy_from_slice(format!("s{i:04}").as_bytes());
            }
            v.extend_from_slice(&record);
        }
        let mut end = bytes[eocd..].to_vec();
        let count = (n as u16).to_le_bytes();
        end[8..10].copy_from_slice(&count);
        end[10..12].copy_from_slice(&count);
        end[12..16].copy_from_slice(&((cd_size * n) as u32).to_le_bytes());
        v.extend_from_slice(&end);
        v
    }

    /// Mutated archives (bytes flipped, the end record's counts and offsets made
    /// huge, pieces cut or repeated): the check never panics, ends fast, and both of
    /// its answers occur.
    #[test]
    fn mutated_archives_are_judged_fast_and_never_panic() {
        use rand::rngs::StdRng;
        use rand::{Rng, SeedableRng};
        let seed = bytes_of(&[
            ("save/a.bin", &[3u8; 3000]),
            ("save/b.txt", b"hello"),
            ("c", b""),
        ]);
        let mut rng = StdRng::seed_from_u64(51);
        let (mut kept, mut refused) = (0, 0);
        for _ in 0..2_000 {
            let mut v = seed.clone();
            let eocd = v.len() - 22;
            match rng.random_range(0..4) {
                0 => {
                    let at = rng.random_range(0..v.len());
                    v[at] = rng.random();
                }
                // A huge declared count, directory size or offset.
                1 => {
                    let field = [8, 10, 12, 16][rng.random_range(0..4)];
                    v[eocd + field] = 0xff;
                    v[eocd + field + 1] = 0xff;
                }
                2 => {
                    let at = rng.random_range(0..v.len());
                    let end = (at + rng.random_range(1..64)).min(v.len());
                    v.drain(at..end);
                }
                _ => {
                    let at = rng.random_range(0..v.len());
                    let end = (at + rng.random_range(1..64)).min(v.len());
                    let piece = v[at..end].to_vec();
                    v.splice(at..at, piece);
                }
            }
            let started = std::time::Instant::now();
            match check(&file_of(&v)) {
                Ok(()) => kept += 1,
                Err(_) => refused += 1,
            }
            assert!(started.elapsed() < std::time::Duration::from_secs(2));
        }
        assert!(kept > 20 && refused > 100, "kept {kept}, refused {refused}");
    }

    /// Cut at every length: a zip's directory ends it, so no strict prefix is one;
    /// 0 to 8 bytes included.
    #[test]
    fn an_archive_cut_anywhere_is_refused() {
        let whole = bytes_of(&[("save/a.bin", &[9u8; 700]), ("b", b"x")]);
        assert!(check(&file_of(&whole)).is_ok());
        for len in 0..whole.len() {
            assert!(check(&file_of(&whole[..len])).is_err(), "cut at {len}");
        }
    }

    /// Thousands of records over one entry's data: under other names they disagree
    /// with the one local header and are refused; under one name they are one entry.
    /// Either way the check ends at once, nothing unpacked thousands of times.
    #[test]
    fn records_pointing_at_one_region_are_refused_or_one() {
        let data = vec![7u8; 64 * 1024];
        let started = std::time::Instant::now();
        assert!(check(&file_of(&overlapping(&data, 5_000, true))).is_err());
        assert!(check(&file_of(&overlapping(&data, 5_000, false))).is_ok());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
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
