//! Hostile files for the tests and the benchmarks: small files whose tables point
//! many times at one region (a "product" bomb), or declare sizes that wrap a sum.
//! Each is made here, at the size a test asks, rather than kept as a blob; what
//! every reader must do with them is in `containers` (one budget per file, no
//! shared bytes, at most four partitions, plausible sizes).

/// A table of a PFS0 (`entry_size` 0x18) or HFS0 (0x40) whose entries are given
/// whole: (name offset in `names`, data offset, size). `data` follows the table.
fn table(
    magic: &[u8; 4],
    entry_size: usize,
    entries: &[(u32, u64, u64)],
    names: &[u8],
    data: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(0x10 + entry_size * entries.len() + names.len() + data.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&(names.len() as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    for &(name_at, offset, size) in entries {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&name_at.to_le_bytes());
        out.resize(out.len() + entry_size - 20, 0);
    }
    out.extend_from_slice(names);
    out.extend_from_slice(data);
    out
}

/// A cartridge image whose root HFS0 lists `partitions` entries, every one the same
/// partition, which lists `files` entries under one 255-byte name. Read naively, it
/// keeps `partitions × files` entries: the 2.1 MB file is 16,300 × 16,300.
pub fn xci_product(partitions: usize, files: usize) -> Vec<u8> {
    let long = [b"x".repeat(251), b".nca\0".to_vec()].concat();
    let inner = table(b"HFS0", 0x40, &vec![(0, 0, 0x10); files], &long, &[0; 0x10]);
    let names = b"secure\0".to_vec();
    let entries = vec![(0, 0, inner.len() as u64); partitions];
    let root = table(b"HFS0", 0x40, &entries, &names, &inner);
    let mut out = vec![0u8; 0xF000];
    out[0x100..0x104].copy_from_slice(b"HEAD");
    out[0x130..0x138].copy_from_slice(&0xF000u64.to_le_bytes());
    out.extend_from_slice(&root);
    out
}

/// One NCZ region: the NCA's first 0x4000 bytes, `sections` sections, and a block
/// table of `blocks` blocks of 16 KiB that are all empty.
fn ncz_region(sections: u64, blocks: u32) -> Vec<u8> {
    let mut out = vec![0u8; 0x4000];
    out.extend_from_slice(b"NCZSECTN");
    out.extend_from_slice(&sections.to_le_bytes());
    for i in 0..sections {
        let mut s = [0u8; 0x40];
        s[..8].copy_from_slice(&(0x4000 + i * 0x200).to_le_bytes());
        s[8..16].copy_from_slice(&0x200u64.to_le_bytes());
        s[16..24].copy_from_slice(&1u64.to_le_bytes());
        out.extend_from_slice(&s);
    }
    out.extend_from_slice(b"NCZBLOCK");
    out.extend_from_slice(&[2, 1, 0, 14]);
    out.extend_from_slice(&blocks.to_le_bytes());
    out.extend_from_slice(&(u64::from(blocks) << 14).to_le_bytes());
    out.resize(out.len() + 4 * blocks as usize, 0);
    out
}

/// An NSZ whose PFS0 lists `entries` NCZs, every one the same region of `sections`
/// sections and `blocks` blocks. Read naively, every size estimate keeps each
/// entry's tables: the 3 MB file is 43,000 × (16,383, 262,144), ~86 GB.
pub fn nsz_product(entries: usize, sections: u64, blocks: u32) -> Vec<u8> {
    let region = ncz_region(sections, blocks);
    let name = b"0123456789abcdef0123456789abcdef.ncz\0".to_vec();
    let list = vec![(0, 0, region.len() as u64); entries];
    table(b"PFS0", 0x18, &list, &name, &region)
}

/// An NSZ of two NCZs (their own bytes each) that each declare an NCA of 2^63
/// bytes: summed without a check, the output's planned size wraps to a few bytes.
pub fn nsz_wrapping() -> Vec<u8> {
    let mut region = vec![0u8; 0x4000];
    region.extend_from_slice(b"NCZSECTN");
    region.extend_from_slice(&1u64.to_le_bytes());
    let mut s = [0u8; 0x40];
    s[..8].copy_from_slice(&0x4000u64.to_le_bytes());
    s[8..16].copy_from_slice(&((1u64 << 63) - 0x4000).to_le_bytes());
    s[16..24].copy_from_slice(&1u64.to_le_bytes());
    region.extend_from_slice(&s);
    // A zstd frame's magic, then a little of anything.
    region.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD]);
    region.extend_from_slice(&[0; 60]);
    let len = region.len() as u64;
    let names = [
        b"00000000000000000000000000000001.ncz\0".as_slice(),
        b"00000000000000000000000000000002.ncz\0",
    ]
    .concat();
    let list = [(0, 0, len), (37, len, len)];
    table(
        b"PFS0",
        0x18,
        &list,
        &names,
        &[region.clone(), region].concat(),
    )
}
