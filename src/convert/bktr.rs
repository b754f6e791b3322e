//! The subsections of a patch's CTR-Ex (BKTR) section, so that compression decrypts
//! each with its own counter.
//!
//! An update's RomFS section is encrypted in pieces: each piece's counter carries a
//! generation (bytes 4–8), listed in the section's subsection table. Decrypted with the
//! section's base counter alone, every piece but the first stays noise and does not
//! compress; the result is still exact (the NCZ records the counter it used), only
//! large. nsz splits the section at each subsection, and so do we.
//!
//! The table (hactool's `bktr_subsection`, LibHac's bucket tree with 0x4000-byte
//! nodes): the FS header at 0x120 gives its offset and size inside the section; it is
//! encrypted with the base counter. Its first node lists the buckets, then each bucket
//! (one node each) holds up to 0x3FF entries `{virtual offset u64, pad u32,
//! generation u32}` and the offset where its last entry ends. nsz 5.0.0 reads the
//! buckets one after the other instead of a node apart, which only differs for tables
//! of more than one bucket (over 1,023 subsections). A table that does not parse leaves
//! the section whole.

use std::io::{Read, Seek, SeekFrom};

use aes::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};

use crate::library::bytes::{array, u32le, u64le};
use crate::library::switchfs::nca;
use crate::library::switchfs::nca::NcaCtr;

const NODE: u64 = 0x4000;
/// The most of a table read: 63 buckets, about 64,000 subsections.
const MAX_TABLE: u64 = 64 * NODE;
/// Entries in one bucket node: (0x4000 − 0x10) / 0x10.
const MAX_ENTRIES: usize = 0x3FF;

/// A piece of a section and the counter its bytes are encrypted with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    /// Offset in the NCA.
    pub start: u64,
    pub end: u64,
    pub counter: [u8; 16],
}

/// The section's base counter as nsz records it: the FS header's upper counter
/// (0x140, little-endian) reversed, then zeros.
pub(crate) fn base_counter(s: &nca::NcaSection) -> [u8; 16] {
    let mut counter = [0u8; 16];
    counter[..8].copy_from_slice(&array::<8>(&s.fs, 0x140).unwrap_or_default());
    counter[..8].reverse();
    counter
}

/// The section in pieces of one counter each: its subsections, then the rest (the
/// tables themselves) under the base counter. One piece when the section is not
/// CTR-Ex or its table does not parse. `nca_at`: where the NCA starts in `input`.
pub(crate) fn pieces<R: Read + Seek>(
    input: &mut R,
    nca_at: u64,
    s: &nca::NcaSection,
    key: [u8; 16],
) -> std::io::Result<Vec<Piece>> {
    if s.crypto() != 4 {
        return Ok(vec![whole(s)]);
    }
    let base = base_counter(s);
    let table = read_table(input, nca_at, s, key, base)?;
    Ok(table
        .and_then(|t| split(&t, s, base))
        .unwrap_or_else(|| vec![whole(s)]))
}

/// The section as one piece under its base counter.
pub(crate) fn whole(s: &nca::NcaSection) -> Piece {
    Piece {
        start: s.start,
        end: s.end,
        counter: base_counter(s),
    }
}

/// The subsection table in clear, or `None` when the FS header names none that fits.
fn read_table<R: Read + Seek>(
    input: &mut R,
    nca_at: u64,
    s: &nca::NcaSection,
    key: [u8; 16],
    base: [u8; 16],
) -> std::io::Result<Option<Vec<u8>>> {
    let offset = u64le(&s.fs, 0x120).unwrap_or(u64::MAX);
    let size = u64le(&s.fs, 0x128).unwrap_or(0);
    let fits = size >= 2 * NODE && offset.checked_add(size).is_some_and(|e| e <= s.size());
    if !fits || s.fs.get(0x130..0x134) != Some(b"BKTR") {
        return Ok(None);
    }
    let at = s.start + offset;
    let mut table = vec![0u8; size.min(MAX_TABLE) as usize];
    input.seek(SeekFrom::Start(nca_at + at))?;
    input.read_exact(&mut table)?;
    let mut cipher = NcaCtr::new(&key.into(), &base.into());
    cipher.seek(at);
    cipher.apply_keystream(&mut table);
    Ok(Some(table))
}

/// The pieces the table describes, or `None` when it is not sorted, not aligned, or
/// runs past the section (a damaged or hostile file: it is then compressed whole).
fn split(table: &[u8], s: &nca::NcaSection, base: [u8; 16]) -> Option<Vec<Piece>> {
    let buckets = u32le(table, 4)? as usize;
    if buckets == 0 || (buckets as u64 + 1) * NODE > table.len() as u64 {
        return None;
    }
    let mut starts: Vec<(u64, u32)> = Vec::new();
    let mut end = 0;
    for b in 0..buckets {
        let node = table.get((b + 1) * NODE as usize..(b + 2) * NODE as usize)?;
        let count = u32le(node, 4)? as usize;
        if count == 0 || count > MAX_ENTRIES {
            return None;
        }
        for e in node.get(0x10..0x10 + 0x10 * count)?.chunks_exact(0x10) {
            starts.push((u64le(e, 0)?, u32le(e, 12)?));
        }
        end = u64le(node, 8)?;
    }
    let sorted = starts.windows(2).all(|w| w[0].0 < w[1].0);
    let aligned = starts.iter().all(|(at, _)| at % 16 == 0) && end % 16 == 0;
    let inside = starts.last().is_some_and(|l| l.0 < end) && end <= s.size();
    if !(sorted && aligned && inside) {
        return None;
    }
    let counter = |generation: u32| {
        let mut c = base;
        c[4..8].copy_from_slice(&generation.to_be_bytes());
        c
    };
    let mut pieces = Vec::with_capacity(starts.len() + 2);
    if starts[0].0 > 0 {
        pieces.push((0, starts[0].0, base));
    }
    for (i, (at, generation)) in starts.iter().enumerate() {
        let next = starts.get(i + 1).map_or(end, |n| n.0);
        pieces.push((*at, next, counter(*generation)));
    }
    if end < s.size() {
        pieces.push((end, s.size(), base));
    }
    let piece = |(a, b, counter): (u64, u64, [u8; 16])| Piece {
        start: s.start + a,
        end: s.start + b,
        counter,
    };
    Some(pieces.into_iter().map(piece).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 16] = [7; 16];

    /// A CTR-Ex section at 0x4000 of 0x20000 bytes whose table (at 0x10000) lists
    /// `entries`, encrypted as the console does; (the NCA, its section).
    fn nca_with(entries: &[(u64, u32)], end: u64) -> (Vec<u8>, nca::NcaSection) {
        let mut fs = vec![0u8; 0x200];
        fs[4] = 4;
        fs[0x120..0x128].copy_from_slice(&0x10000u64.to_le_bytes());
        fs[0x128..0x130].copy_from_slice(&0x8000u64.to_le_bytes());
        fs[0x130..0x134].copy_from_slice(b"BKTR");
        fs[0x140..0x148].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let s = nca::NcaSection {
            start: 0x4000,
            end: 0x24000,
            fs,
        };
        let mut table = vec![0u8; 0x8000];
        table[4] = 1;
        table[0x4004..0x4008].copy_from_slice(&(entries.len() as u32).to_le_bytes());
        table[0x4008..0x4010].copy_from_slice(&end.to_le_bytes());
        for (i, (at, generation)) in entries.iter().take(MAX_ENTRIES).enumerate() {
            let e = 0x4010 + 0x10 * i;
            table[e..e + 8].copy_from_slice(&at.to_le_bytes());
            table[e + 12..e + 16].copy_from_slice(&generation.to_le_bytes());
        }
        let mut cipher = NcaCtr::new(&KEY.into(), &base_counter(&s).into());
        cipher.seek(0x14000u64);
        cipher.apply_keystream(&mut table);
        let mut bytes = vec![0u8; 0x24000];
        bytes[0x14000..0x1C000].copy_from_slice(&table);
        (bytes, s)
    }

    fn split_of(entries: &[(u64, u32)], end: u64) -> Vec<Piece> {
        let (bytes, s) = nca_with(entries, end);
        pieces(&mut std::io::Cursor::new(bytes), 0, &s, KEY).unwrap()
    }

    #[test]
    fn a_sound_table_gives_one_piece_per_generation_then_the_tables() {
        let pieces = split_of(&[(0, 1), (0x800, 5)], 0x10000);
        let generation = |p: &Piece| u32::from_be_bytes(p.counter[4..8].try_into().unwrap());
        let spans: Vec<_> = pieces
            .iter()
            .map(|p| (p.start, p.end, generation(p)))
            .collect();
        // The rest is under the FS header's counter reversed: 08 07 06 05 04 03 02 01.
        assert_eq!(
            spans,
            [
                (0x4000, 0x4800, 1),
                (0x4800, 0x14000, 5),
                (0x14000, 0x24000, 0x0403_0201)
            ]
        );
        assert!(pieces.iter().all(|p| p.counter[..4] == [8, 7, 6, 5]));
    }

    #[test]
    fn a_hostile_table_leaves_the_section_whole() {
        let whole = |p: &[Piece]| p.len() == 1 && p[0].start == 0x4000 && p[0].end == 0x24000;
        for (entries, end) in [
            (vec![(0x800, 1), (0, 2)], 0x10000),      // not sorted
            (vec![(0, 1), (0x801, 2)], 0x10000),      // not aligned
            (vec![(0, 1)], 0x40000),                  // past the section
            (vec![(0x20000, 1)], 0x10000),            // starts after its end
            (vec![(0, 1); MAX_ENTRIES + 1], 0x10000), // more than a bucket holds
        ] {
            assert!(whole(&split_of(&entries, end)), "{entries:?}");
        }
    }

    /// Random and mutated tables (seeded, so a failure repeats): never a panic, and
    /// the pieces always cover the section end to end, in order.
    #[test]
    fn any_table_gives_pieces_that_cover_the_section() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(39);
        let (sound, s) = nca_with(&[(0, 1), (0x800, 5), (0x9000, 7)], 0x10000);
        for round in 0..2000 {
            let mut bytes = sound.clone();
            let table = 0x14000..0x1C000;
            if round % 2 == 0 {
                rng.fill(&mut bytes[table]);
            } else {
                for _ in 0..rng.random_range(1..16) {
                    let at = rng.random_range(0x14000..0x18100);
                    bytes[at] = rng.random();
                }
            }
            let pieces = pieces(&mut std::io::Cursor::new(bytes), 0, &s, KEY).unwrap();
            assert_eq!(
                pieces.first().map(|p| p.start),
                Some(s.start),
                "round {round}"
            );
            assert_eq!(pieces.last().map(|p| p.end), Some(s.end), "round {round}");
            assert!(pieces
                .windows(2)
                .all(|w| w[0].end == w[1].start && w[0].start < w[0].end));
        }
    }
}
