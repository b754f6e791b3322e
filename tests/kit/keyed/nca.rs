//! The encrypting side of an NCA, written from hactool's `nca.c`/`nca.h`/`ivfc.h` and
//! nsz's `Fs/Nca.py` (not from this crate's readers, so that the two readings check
//! each other): the 0xC00-byte header in AES-128-XTS with Nintendo's big-endian sector
//! tweak, the key area, the FS headers, and sections in AES-128-CTR holding a
//! HierarchicalSha256 PFS0 or an IVFC RomFS with correct hash trees.

use rand::Rng;
use sha2::{Digest, Sha256};
use xts_mode::Xts128;

use aes::cipher::KeyInit;
use aes::Aes128;

use super::keys::{ecb_encrypt, TestKeys};
use ludotheque::testkit::synth::{self, File, SectionSpec};

/// Media unit: section offsets in the header count these.
pub const MEDIA: usize = 0x200;
/// Header size (NCA3: all of it in XTS; NCA2: 0x400 plus each FS header alone).
pub const HEADER: usize = 0xC00;

/// NCA content types (header 0x205).
pub const PROGRAM: u8 = 0;
pub const META: u8 = 1;
pub const CONTROL: u8 = 2;
pub const PUBLIC_DATA: u8 = 5;

/// How a section's AES-CTR key is found.
#[derive(Clone, Copy)]
pub enum Crypto {
    /// In the key area (entry 2), wrapped with `key_area_key_*_XX` of this index.
    KeyArea { index: u8 },
    /// A title key from the ticket of this rights ID; the key area stays zero.
    TitleKey {
        rights_id: [u8; 16],
        title_key: [u8; 16],
    },
}

/// What an NCA is made of.
pub struct NcaSpec {
    pub content_type: u8,
    pub program_id: u64,
    /// Key revision (`master_key_XX`).
    pub revision: u8,
    /// 0 download (eShop, NSP), 1 gamecard (XCI).
    pub distribution: u8,
    pub crypto: Crypto,
    /// `NCA2` instead of `NCA3`: FS headers encrypted each as its own sector 0.
    pub nca2: bool,
    pub sections: Vec<PlainSection>,
}

/// One section in clear: its FS header (counter not yet set) and its bytes, padded to
/// the media unit.
pub struct PlainSection {
    pub fs_header: [u8; 0x200],
    pub data: Vec<u8>,
    /// CTR-Ex only: where each subsection starts in `data` and its counter generation;
    /// the rest, from `bktr_end`, is under the base counter. Empty for a CTR section.
    pub subsections: Vec<(u64, u32)>,
    pub bktr_end: u64,
}

/// The key generation bytes (0x206 old, 0x220 new) that make a header say `revision`
/// (readers take max(both) − 1, 0 and 1 both meaning revision 0), as SDKs write them.
pub fn key_generation(revision: u8) -> (u8, u8) {
    match revision {
        0 => (0, 0),
        1 => (2, 0),
        r => (2, r.saturating_add(1)),
    }
}

/// Build an NCA: sections one after the other from 0xC00, CTR-encrypted; the result
/// keeps the section keys and counters so that an NCZ can be made of it.
pub fn build(keys: &TestKeys, rng: &mut impl Rng, spec: NcaSpec) -> synth::Nca {
    let section_key = match spec.crypto {
        Crypto::KeyArea { .. } => rng.random::<[u8; 16]>(),
        Crypto::TitleKey { title_key, .. } => title_key,
    };
    let mut header = vec![0u8; HEADER];
    rng.fill_bytes(&mut header[..0x200]); // the two RSA-2048 signatures: made-up
    let mut plain = header.clone();
    let mut specs = Vec::new();
    for (i, section) in spec.sections.iter().enumerate() {
        let start = plain.len();
        let mut fs = section.fs_header;
        let counter: [u8; 8] = rng.random();
        fs[0x140..0x148].copy_from_slice(&counter);
        let at = 0x400 + 0x200 * i;
        header[at..at + 0x200].copy_from_slice(&fs);
        header[0x280 + 0x20 * i..0x2A0 + 0x20 * i].copy_from_slice(&Sha256::digest(fs));
        let entry = 0x240 + 0x10 * i;
        let end = start + section.data.len();
        header[entry..entry + 4].copy_from_slice(&((start / MEDIA) as u32).to_le_bytes());
        header[entry + 4..entry + 8].copy_from_slice(&((end / MEDIA) as u32).to_le_bytes());
        plain.extend_from_slice(&section.data);
        // hactool: ctr[0..8] = section_ctr reversed, ctr[8..16] = BE(offset >> 4).
        let mut iv = [0u8; 16];
        for (j, b) in counter.iter().rev().enumerate() {
            iv[j] = *b;
        }
        specs.extend(pieces(section, start as u64, iv).map(|(spec, iv)| (spec, section_key, iv)));
    }
    write_fields(keys, &spec, &mut header, plain.len() as u64, section_key);
    let mut bytes = plain.clone();
    for (s, key, iv) in &specs {
        let range = s.offset as usize..(s.offset + s.size) as usize;
        synth::ctr_apply(key, iv, s.offset, &mut bytes[range]);
    }
    let encrypted = encrypt_header(keys, &header, spec.nca2, spec.sections.len());
    bytes[..HEADER].copy_from_slice(&encrypted);
    plain[..HEADER].copy_from_slice(&encrypted);
    synth::Nca {
        bytes,
        plain,
        sections: specs,
    }
}

/// A section's pieces in the NCA at `start`, each with its counter: the whole section
/// under `iv` (CTR), or its subsections then the table under `iv` (CTR-Ex).
fn pieces(
    section: &PlainSection,
    start: u64,
    iv: [u8; 16],
) -> impl Iterator<Item = (SectionSpec, [u8; 16])> + '_ {
    let size = section.data.len() as u64;
    let ends = section.subsections.iter().skip(1).map(|s| s.0);
    let mut cuts: Vec<(u64, u64, [u8; 16])> = section
        .subsections
        .iter()
        .zip(ends.chain([section.bktr_end]))
        .map(|(&(at, generation), end)| {
            let mut counter = iv;
            counter[4..8].copy_from_slice(&generation.to_be_bytes());
            (at, end, counter)
        })
        .collect();
    let crypto_type = if cuts.is_empty() { 3 } else { 4 };
    let rest = cuts.last().map_or(0, |c| c.1);
    cuts.push((rest, size, iv));
    cuts.into_iter().map(move |(a, b, counter)| {
        let spec = SectionSpec {
            offset: start + a,
            size: b - a,
            crypto_type,
        };
        (spec, counter)
    })
}

/// A patch's CTR-Ex section: `inner`'s bytes cut into `parts` subsections of
/// generations 1, 2, … (each encrypted under its own counter), then the subsection
/// table (one bucket, as hactool reads it) under the base counter, as updates are made.
pub fn bktr_section(inner: PlainSection, parts: u64) -> PlainSection {
    let mut data = inner.data;
    data.resize(align(data.len(), 0x4000), 0);
    let end = data.len() as u64;
    let step = (end / parts.max(1)) & !0xF;
    let subsections: Vec<(u64, u32)> = (0..parts).map(|i| (i * step, i as u32 + 1)).collect();
    let mut table = vec![0u8; 0x8000];
    table[4..8].copy_from_slice(&1u32.to_le_bytes());
    table[8..16].copy_from_slice(&end.to_le_bytes());
    table[0x4004..0x4008].copy_from_slice(&(parts as u32).to_le_bytes());
    table[0x4008..0x4010].copy_from_slice(&end.to_le_bytes());
    for (i, (at, generation)) in subsections.iter().enumerate() {
        let e = 0x4010 + 0x10 * i;
        table[e..e + 8].copy_from_slice(&at.to_le_bytes());
        table[e + 12..e + 16].copy_from_slice(&generation.to_le_bytes());
    }
    let mut fs = inner.fs_header;
    fs[4] = 4;
    fs[0x120..0x128].copy_from_slice(&end.to_le_bytes());
    fs[0x128..0x130].copy_from_slice(&(table.len() as u64).to_le_bytes());
    fs[0x130..0x134].copy_from_slice(b"BKTR");
    fs[0x134..0x138].copy_from_slice(&1u32.to_le_bytes());
    fs[0x138..0x13C].copy_from_slice(&(parts as u32).to_le_bytes());
    data.extend_from_slice(&table);
    PlainSection {
        fs_header: fs,
        data,
        subsections,
        bktr_end: end,
    }
}

fn write_fields(keys: &TestKeys, spec: &NcaSpec, h: &mut [u8], size: u64, section_key: [u8; 16]) {
    let (old, new) = key_generation(spec.revision);
    h[0x200..0x204].copy_from_slice(if spec.nca2 { b"NCA2" } else { b"NCA3" });
    h[0x204] = spec.distribution;
    h[0x205] = spec.content_type;
    h[0x206] = old;
    h[0x208..0x210].copy_from_slice(&size.to_le_bytes());
    h[0x210..0x218].copy_from_slice(&spec.program_id.to_le_bytes());
    h[0x21C..0x220].copy_from_slice(&0x000C_1100u32.to_le_bytes()); // SDK 12.17.0.0
    h[0x220] = new;
    match spec.crypto {
        Crypto::KeyArea { index } => {
            h[0x207] = index;
            let kek = keys
                .key_area
                .get(spec.revision as usize)
                .map(|k| k[index as usize % 3])
                .unwrap_or_default();
            // Entries 0 and 1 (XTS keys) are unused by CTR sections; entry 3 is zero.
            let area = [[0x11; 16], [0x22; 16], section_key, [0; 16]];
            for (i, entry) in area.iter().enumerate() {
                let wrapped = ecb_encrypt(&kek, entry);
                h[0x300 + 0x10 * i..0x310 + 0x10 * i].copy_from_slice(&wrapped);
            }
        }
        Crypto::TitleKey { rights_id, .. } => h[0x230..0x240].copy_from_slice(&rights_id),
    }
}

/// AES-128-XTS with `header_key` (data key first), 0x200-byte sectors, the sector
/// number as a 16-byte big-endian tweak. NCA3: sectors 0–5 over 0xC00. NCA2: 0x000–0x400
/// as sectors 0–1, then each present FS header alone as sector 0; absent ones stay zero.
pub fn encrypt_header(keys: &TestKeys, plain: &[u8], nca2: bool, sections: usize) -> Vec<u8> {
    let xts = Xts128::new(
        Aes128::new(keys.header_key[..16].into()),
        Aes128::new(keys.header_key[16..].into()),
    );
    let tweak = |sector: u128| sector.to_be_bytes();
    let mut out = plain.to_vec();
    if !nca2 {
        xts.encrypt_area(&mut out, MEDIA, 0, tweak);
        return out;
    }
    xts.encrypt_area(&mut out[..0x400], MEDIA, 0, tweak);
    for i in 0..4 {
        let fs = &mut out[0x400 + 0x200 * i..0x600 + 0x200 * i];
        if i < sections {
            xts.encrypt_area(fs, MEDIA, 0, tweak);
        } else {
            fs.fill(0);
        }
    }
    out
}

fn align(n: usize, to: usize) -> usize {
    n.div_ceil(to) * to
}

/// A PFS0 section with a HierarchicalSha256 hash: the hash table at 0 (SHA-256 of each
/// `block`-byte block of the PFS0, the last one short), the PFS0 at the next 0x200.
/// FS header (hactool `pfs0_superblock_t` at 0x8): master hash, block size, 2 layers,
/// hash table offset/size at 0x30/0x38, PFS0 offset/size at 0x40/0x48.
pub fn pfs0_section(files: &[File], block: usize) -> PlainSection {
    let pfs0 = synth::pfs0(files);
    let table: Vec<u8> = pfs0
        .chunks(block)
        .flat_map(|chunk| Sha256::digest(chunk).to_vec())
        .collect();
    let pfs0_at = align(table.len(), MEDIA);
    let mut data = table.clone();
    data.resize(pfs0_at, 0);
    data.extend_from_slice(&pfs0);
    data.resize(align(data.len(), MEDIA), 0);
    let mut fs = fs_header(1, 2);
    fs[0x8..0x28].copy_from_slice(&Sha256::digest(&table));
    fs[0x28..0x2C].copy_from_slice(&(block as u32).to_le_bytes());
    fs[0x2C..0x30].copy_from_slice(&2u32.to_le_bytes());
    fs[0x38..0x40].copy_from_slice(&(table.len() as u64).to_le_bytes());
    fs[0x40..0x48].copy_from_slice(&(pfs0_at as u64).to_le_bytes());
    fs[0x48..0x50].copy_from_slice(&(pfs0.len() as u64).to_le_bytes());
    PlainSection {
        fs_header: fs,
        data,
        subsections: Vec::new(),
        bktr_end: 0,
    }
}

/// The FS header's first bytes: version 2, FS type (0 RomFS, 1 PFS0), hash type
/// (2 HierarchicalSha256, 3 HierarchicalIntegrity), encryption 3 (CTR).
fn fs_header(fs_type: u8, hash_type: u8) -> [u8; 0x200] {
    let mut fs = [0u8; 0x200];
    fs[0..2].copy_from_slice(&2u16.to_le_bytes());
    fs[2] = fs_type;
    fs[3] = hash_type;
    fs[4] = 3;
    fs
}

/// IVFC block size: 2^14, as real RomFS sections.
const IVFC_BLOCK_LOG2: u32 = 14;

/// A RomFS section with an IVFC (HierarchicalIntegrity) hash tree: six levels, the last
/// the RomFS itself; each level the SHA-256 of every 0x4000-byte block of the next,
/// the last block zero-padded before hashing; the master hash over level 1's block.
/// Levels are laid out in order, each on a 0x200 boundary. FS header: the IVFC header
/// at 0x8 (`IVFC`, 0x20000, master hash size 0x20, 7 levels, six {offset, size,
/// log2 block} from 0x18, the master hash at 0xC8).
pub fn romfs_section(files: &[File]) -> PlainSection {
    let block = 1usize << IVFC_BLOCK_LOG2;
    let mut levels = vec![romfs(files)];
    for _ in 0..5 {
        let next = levels
            .last()
            .map(|l| hash_blocks(l, block))
            .unwrap_or_default();
        levels.push(next);
    }
    levels.reverse(); // level 1 (the smallest) first, the RomFS last
    let mut data = Vec::new();
    let mut fs = fs_header(0, 3);
    fs[0x8..0xC].copy_from_slice(b"IVFC");
    fs[0xC..0x10].copy_from_slice(&0x20000u32.to_le_bytes());
    fs[0x10..0x14].copy_from_slice(&0x20u32.to_le_bytes());
    fs[0x14..0x18].copy_from_slice(&7u32.to_le_bytes());
    for (i, level) in levels.iter().enumerate() {
        let at = 0x18 + 0x18 * i;
        fs[at..at + 8].copy_from_slice(&(data.len() as u64).to_le_bytes());
        fs[at + 8..at + 16].copy_from_slice(&(level.len() as u64).to_le_bytes());
        fs[at + 16..at + 20].copy_from_slice(&IVFC_BLOCK_LOG2.to_le_bytes());
        data.extend_from_slice(level);
        data.resize(align(data.len(), MEDIA), 0);
    }
    let master = hash_blocks(&levels[0], block);
    fs[0xC8..0xE8].copy_from_slice(&master[..0x20]);
    PlainSection {
        fs_header: fs,
        data,
        subsections: Vec::new(),
        bktr_end: 0,
    }
}

fn hash_blocks(data: &[u8], block: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len().div_ceil(block) * 32);
    for chunk in data.chunks(block) {
        let mut h = Sha256::new();
        h.update(chunk);
        h.update(vec![0u8; block - chunk.len()]);
        out.extend_from_slice(&h.finalize());
    }
    out
}

/// The RomFS path hash (hactool/hacbrewpack): start from `parent ^ 123456789`, then
/// for each byte rotate right by 5 and XOR the byte.
pub fn romfs_hash(parent: u32, name: &[u8]) -> u32 {
    let mut hash = parent ^ 123_456_789;
    for &b in name {
        hash = hash.rotate_right(5) ^ b as u32;
    }
    hash
}

fn bucket_count(entries: usize) -> usize {
    match entries {
        0..3 => 3,
        3..19 => entries | 1,
        _ => {
            let mut n = entries;
            while [2, 3, 5, 7, 11, 13, 17]
                .iter()
                .any(|p| n.is_multiple_of(*p))
            {
                n += 1;
            }
            n
        }
    }
}

/// A RomFS of files in its root directory: the 0x50-byte header, the file data from
/// 0x200 (each file on a 0x10 boundary), then the directory hash table, the directory
/// table (the root), the file hash table and the file table, each on 4 bytes.
pub fn romfs(files: &[File]) -> Vec<u8> {
    const EMPTY: u32 = 0xFFFF_FFFF;
    let mut data = Vec::new();
    let mut entries: Vec<Vec<u8>> = Vec::new();
    let mut offsets = Vec::new();
    let mut table_len = 0u32;
    for (name, bytes) in files {
        data.resize(align(data.len(), 0x10), 0);
        let entry_len = 0x20 + align(name.len(), 4);
        offsets.push(table_len);
        table_len += entry_len as u32;
        let mut e = vec![0u8; entry_len];
        e[0x8..0x10].copy_from_slice(&(data.len() as u64).to_le_bytes());
        e[0x10..0x18].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
        e[0x1C..0x20].copy_from_slice(&(name.len() as u32).to_le_bytes());
        e[0x20..0x20 + name.len()].copy_from_slice(name.as_bytes());
        entries.push(e);
        data.extend_from_slice(bytes);
    }
    // Sibling links and hash chains.
    let buckets = bucket_count(files.len());
    let mut file_buckets = vec![EMPTY; buckets];
    for (i, e) in entries.iter_mut().enumerate() {
        let sibling = offsets.get(i + 1).copied().unwrap_or(EMPTY);
        e[0x4..0x8].copy_from_slice(&sibling.to_le_bytes());
        let b = romfs_hash(0, files[i].0.as_bytes()) as usize % buckets;
        e[0x18..0x1C].copy_from_slice(&file_buckets[b].to_le_bytes());
        file_buckets[b] = offsets[i];
    }
    let mut root = vec![0u8; 0x18];
    root[0x4..0x8].copy_from_slice(&EMPTY.to_le_bytes());
    root[0x8..0xC].copy_from_slice(&EMPTY.to_le_bytes());
    let first = if files.is_empty() { EMPTY } else { 0 };
    root[0xC..0x10].copy_from_slice(&first.to_le_bytes());
    root[0x10..0x14].copy_from_slice(&EMPTY.to_le_bytes());
    let dir_buckets = bucket_count(1);
    let mut dir_hash = vec![EMPTY; dir_buckets];
    dir_hash[romfs_hash(0, b"") as usize % dir_buckets] = 0;

    let u32s = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let tables = [u32s(&dir_hash), root, u32s(&file_buckets), entries.concat()];
    let mut out = vec![0u8; 0x200];
    out.extend_from_slice(&data);
    let mut header = vec![0x50u64];
    for t in &tables {
        out.resize(align(out.len(), 4), 0);
        header.push(out.len() as u64);
        header.push(t.len() as u64);
        out.extend_from_slice(t);
    }
    header.push(0x200);
    for (i, v) in header.iter().enumerate() {
        out[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
    }
    out
}
