//! Synthetic Switch files, built the way `docs/nsz.md` describes: NCAs of
//! made-up bytes whose CTR sections are encrypted with made-up keys, NCZs in solid and
//! block mode, and the PFS0, HFS0 and XCI containers around them. No game data and no
//! console keys. Used by `demo-library`, the tests and the benchmarks.
//!
//! The generators of files readable with made-up console keys, and of hostile files,
//! are test fixtures: they live in `tests/kit/`, out of the product.

use crate::library::switchfs::nca::NcaCtr;
use aes::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use rand::Rng;
use sha2::{Digest, Sha256};

/// A section of an NCA: a region and its crypto type (3 = CTR, 4 = CTR-Ex; the others
/// are stored as they are).
#[derive(Debug, Clone, Copy)]
pub struct SectionSpec {
    pub offset: u64,
    pub size: u64,
    pub crypto_type: u64,
}

/// A made-up NCA.
pub struct Nca {
    /// The NCA as it would be on a console: CTR sections encrypted.
    pub bytes: Vec<u8>,
    /// The same with the CTR sections in clear: what an NCZ compresses.
    pub plain: Vec<u8>,
    pub sections: Vec<(SectionSpec, [u8; 16], [u8; 16])>,
}

impl Nca {
    /// `<content id>.nca`: the first 16 bytes of the SHA-256, in lower-case hex.
    pub fn name(&self) -> String {
        format!("{}.nca", content_id(&self.bytes))
    }

    pub fn ncz_name(&self) -> String {
        format!("{}.ncz", content_id(&self.bytes))
    }
}

pub fn content_id(bytes: &[u8]) -> String {
    hex::encode(&Sha256::digest(bytes)[..16])
}

/// Bytes that compress like real data: runs of text with random stretches.
pub fn filler(rng: &mut impl Rng, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    for chunk in out.chunks_mut(512) {
        if rng.random_bool(0.25) {
            rng.fill_bytes(chunk);
        } else {
            let pattern = b"Ludotheque synthetic content; no game data here. ";
            for (i, b) in chunk.iter_mut().enumerate() {
                *b = pattern[i % pattern.len()];
            }
        }
    }
    out
}

/// Apply AES-128-CTR as the Switch does: the counter block for absolute offset `p` is
/// `counter[0..8] ‖ BE64(p >> 4)`.
pub fn ctr_apply(key: &[u8; 16], counter: &[u8; 16], offset: u64, data: &mut [u8]) {
    let mut iv = [0u8; 16];
    iv[..8].copy_from_slice(&counter[..8]);
    let mut cipher = NcaCtr::new(key.into(), &iv.into());
    cipher.seek(offset);
    cipher.apply_keystream(data);
}

/// An NCA of `size` bytes with these sections (offsets at or after 0x4000).
pub fn nca(rng: &mut impl Rng, size: usize, sections: &[SectionSpec]) -> Nca {
    let plain = filler(rng, size);
    nca_with(rng, plain, sections)
}

/// An NCA whose clear bytes are `plain`, with these sections.
pub fn nca_with(rng: &mut impl Rng, plain: Vec<u8>, sections: &[SectionSpec]) -> Nca {
    let mut bytes = plain.clone();
    let mut specs = Vec::new();
    for s in sections {
        let mut key = [0u8; 16];
        let mut counter = [0u8; 16];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut counter[..8]);
        if matches!(s.crypto_type, 3 | 4) {
            let range = s.offset as usize..(s.offset + s.size) as usize;
            ctr_apply(&key, &counter, s.offset, &mut bytes[range]);
        }
        specs.push((*s, key, counter));
    }
    Nca {
        bytes,
        plain,
        sections: specs,
    }
}

/// The usual layout: one plain gap-free run of sections from 0x4000 to the end.
pub fn simple_nca(rng: &mut impl Rng, size: usize) -> Nca {
    let size = size.max(0x4100);
    let split = 0x4000 + (size as u64 - 0x4000) / 2;
    nca(
        rng,
        size,
        &[
            SectionSpec {
                offset: 0x4000,
                size: split - 0x4000,
                crypto_type: 3,
            },
            SectionSpec {
                offset: split,
                size: size as u64 - split,
                crypto_type: 1,
            },
        ],
    )
}

fn ncz_head(nca: &Nca) -> Vec<u8> {
    let mut out = nca.bytes[..0x4000].to_vec();
    out.extend_from_slice(b"NCZSECTN");
    out.extend_from_slice(&(nca.sections.len() as u64).to_le_bytes());
    for (s, key, counter) in &nca.sections {
        out.extend_from_slice(&s.offset.to_le_bytes());
        out.extend_from_slice(&s.size.to_le_bytes());
        out.extend_from_slice(&s.crypto_type.to_le_bytes());
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(key);
        out.extend_from_slice(counter);
    }
    out
}

/// An NCZ in solid mode: one zstd stream of everything after 0x4000.
pub fn ncz_solid(nca: &Nca) -> Vec<u8> {
    let mut out = ncz_head(nca);
    out.extend(zstd::bulk::compress(&nca.plain[0x4000..], 3).unwrap_or_default());
    out
}

/// An NCZ in block mode with blocks of `2^exponent` bytes; a block that does not
/// shrink is stored raw, as the format says.
pub fn ncz_block(nca: &Nca, exponent: u8) -> Vec<u8> {
    let mut out = ncz_head(nca);
    let stream = &nca.plain[0x4000..];
    let blocks: Vec<Vec<u8>> = stream
        .chunks(1 << exponent)
        .map(|chunk| match zstd::bulk::compress(chunk, 3) {
            Ok(c) if c.len() < chunk.len() => c,
            _ => chunk.to_vec(),
        })
        .collect();
    out.extend_from_slice(b"NCZBLOCK");
    out.extend_from_slice(&[2, 1, 0, exponent]);
    out.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
    out.extend_from_slice(&(stream.len() as u64).to_le_bytes());
    for b in &blocks {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    }
    for b in &blocks {
        out.extend_from_slice(b);
    }
    out
}

/// A named file to put in a container.
pub type File = (String, Vec<u8>);

/// A PFS0 holding these files, in this order.
pub fn pfs0(files: &[File]) -> Vec<u8> {
    let mut strings = Vec::new();
    let mut name_offsets = Vec::new();
    for (name, _) in files {
        name_offsets.push(strings.len() as u32);
        strings.extend_from_slice(name.as_bytes());
        strings.push(0);
    }
    // Pad so that the data area starts on a 0x20 boundary, as packers do.
    while !(0x10 + 0x18 * files.len() + strings.len()).is_multiple_of(0x20) {
        strings.push(0);
    }
    let mut out = b"PFS0".to_vec();
    out.extend_from_slice(&(files.len() as u32).to_le_bytes());
    out.extend_from_slice(&(strings.len() as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let mut offset = 0u64;
    for ((_, data), name_at) in files.iter().zip(&name_offsets) {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&name_at.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        offset += data.len() as u64;
    }
    out.extend_from_slice(&strings);
    for (_, data) in files {
        out.extend_from_slice(data);
    }
    out
}

/// An HFS0 holding these files (hashes left at zero: nothing here checks them).
pub fn hfs0(files: &[File]) -> Vec<u8> {
    let mut strings = Vec::new();
    let mut out = b"HFS0".to_vec();
    out.extend_from_slice(&(files.len() as u32).to_le_bytes());
    let names_len: usize = files.iter().map(|(n, _)| n.len() + 1).sum();
    out.extend_from_slice(&(names_len as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let mut offset = 0u64;
    for (name, data) in files {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&(strings.len() as u32).to_le_bytes());
        out.extend_from_slice(&[0; 4 + 8 + 32]);
        strings.extend_from_slice(name.as_bytes());
        strings.push(0);
        offset += data.len() as u64;
    }
    out.extend_from_slice(&strings);
    for (_, data) in files {
        out.extend_from_slice(data);
    }
    out
}

/// A cartridge image: header, root HFS0 at 0xF000, the partitions after it.
pub fn xci(partitions: &[(&str, Vec<File>)]) -> Vec<u8> {
    let parts: Vec<File> = partitions
        .iter()
        .map(|(name, files)| (name.to_string(), hfs0(files)))
        .collect();
    let root = hfs0(&parts);
    let root_header_size = root.len() - parts.iter().map(|(_, p)| p.len()).sum::<usize>();
    let mut out = vec![0u8; 0xF000];
    out[0x100..0x104].copy_from_slice(b"HEAD");
    out[0x130..0x138].copy_from_slice(&0xF000u64.to_le_bytes());
    out[0x138..0x140].copy_from_slice(&(root_header_size as u64).to_le_bytes());
    out[0x140..0x160].copy_from_slice(&Sha256::digest(&root[..root_header_size]));
    out.extend_from_slice(&root);
    out
}

/// A ticket named after its rights ID (title ID + key generation).
pub fn ticket(rng: &mut impl Rng, title_id: u64) -> (String, Vec<u8>) {
    let mut body = vec![0u8; 0x2C0];
    rng.fill_bytes(&mut body);
    (format!("{title_id:016x}{:016x}.tik", 0u64), body)
}
