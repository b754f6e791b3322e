//! The NCA: its header (AES-128-XTS under `header_key`, with Nintendo's big-endian
//! sector tweak), the key that opens its sections (the key area, or a title key from
//! a ticket), and a reader of one section's clear bytes (AES-128-CTR).
//!
//! Layout as hactool's `nca.c` reads it: NCA3 encrypts the whole 0xC00-byte header
//! as sectors 0–5; NCA2 encrypts 0x000–0x3FF as sectors 0–1, then each 0x200-byte FS
//! header on its own as sector 0.

use std::io::{self, Read, Seek, SeekFrom};

use aes::cipher::{BlockDecrypt, KeyInit, KeyIvInit, StreamCipher};
use aes::Aes128;
use xts_mode::Xts128;

use crate::error::Reason;

use super::ProdKeys;
use crate::library::bytes;

/// The encrypted header's size: the header proper and four FS headers.
pub const HEADER_SIZE: usize = 0xC00;
const MEDIA: u64 = 0x200;

/// The content types of an NCA header (0x205).
pub const META: u8 = 1;
pub const CONTROL: u8 = 2;

/// Why a header did not open, before any name is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderError {
    NoHeaderKey,
    /// The decrypted magic is not `NCA3` or `NCA2`: other keys, or not an NCA.
    WrongKeys,
    Malformed(Reason),
}

/// A section as the header's table and its FS header describe it.
#[derive(Debug, Clone)]
pub struct NcaSection {
    /// Absolute offsets in the NCA.
    pub start: u64,
    pub end: u64,
    /// The decrypted FS header (0x200 bytes).
    pub fs: Vec<u8>,
}

impl NcaSection {
    pub fn fs_type(&self) -> u8 {
        self.fs.get(0x2).copied().unwrap_or(0)
    }

    pub fn hash_type(&self) -> u8 {
        self.fs.get(0x3).copied().unwrap_or(0)
    }

    /// 1 none, 2 XTS, 3 CTR, 4 BKTR (CTR with patches).
    pub fn crypto(&self) -> u8 {
        self.fs.get(0x4).copied().unwrap_or(0)
    }

    pub fn size(&self) -> u64 {
        self.end - self.start
    }
}

/// A decrypted NCA header: what identification needs.
#[derive(Debug, Clone)]
pub struct Header {
    pub content_type: u8,
    pub key_area_index: u8,
    pub program_id: u64,
    /// max(0x206, 0x220) − 1, floored at 0: the keys' revision it needs.
    pub key_revision: u8,
    /// Zero when the key area holds the section keys.
    pub rights_id: [u8; 16],
    /// Their FS headers are decrypted for Meta and Control NCAs only.
    pub sections: [Option<NcaSection>; 4],
    key_area: [u8; 0x40],
}

impl Header {
    pub fn uses_title_key(&self) -> bool {
        self.rights_id != [0; 16]
    }

    /// The CTR key from the key area (entry 2), or `None` when the key-area key of
    /// its revision is missing.
    pub fn key_area_ctr_key(&self, keys: &ProdKeys) -> Option<[u8; 16]> {
        let kek = keys.key_area_key(self.key_area_index, self.key_revision)?;
        let mut key = [0u8; 16];
        key.copy_from_slice(&self.key_area[0x20..0x30]);
        ecb_decrypt(&kek, &mut key);
        Some(key)
    }
}

/// AES-128-ECB decrypt of one block in place: key areas and title keys.
pub fn ecb_decrypt(key: &[u8; 16], block: &mut [u8; 16]) {
    Aes128::new(key.into()).decrypt_block(block.into());
}

/// The header is always `HEADER_SIZE` bytes here (checked before it is decrypted):
/// a field past it reads as 0, never a panic.
fn u64le(b: &[u8], at: usize) -> u64 {
    bytes::u64le(b, at).unwrap_or(0)
}

fn u32le(b: &[u8], at: usize) -> u32 {
    bytes::u32le(b, at).unwrap_or(0)
}

/// Decrypt and parse the first [`HEADER_SIZE`] bytes of an NCA of `len` bytes.
pub fn header(raw: &[u8], len: u64, keys: &ProdKeys) -> Result<Header, HeaderError> {
    decrypt(raw, len, keys, false)
}

/// [`header`] with every FS header decrypted, whatever the content type: what
/// compressing a Program or PublicData NCA needs (its sections' counters).
pub fn header_all(raw: &[u8], len: u64, keys: &ProdKeys) -> Result<Header, HeaderError> {
    decrypt(raw, len, keys, true)
}

fn decrypt(raw: &[u8], len: u64, keys: &ProdKeys, all: bool) -> Result<Header, HeaderError> {
    let key = keys.header_key.ok_or(HeaderError::NoHeaderKey)?;
    if raw.len() < HEADER_SIZE {
        return Err(HeaderError::Malformed(Reason::NcaShort));
    }
    let xts = Xts128::new(Aes128::new(key[..16].into()), Aes128::new(key[16..].into()));
    let tweak = |sector: u128| sector.to_be_bytes();
    let mut h = raw[..HEADER_SIZE].to_vec();
    xts.decrypt_area(&mut h[..0x400], 0x200, 0, tweak);
    // Only Meta and Control NCAs are opened: the FS headers of the others (most of a
    // file's NCAs) stay encrypted, which halves the work of a keyed scan.
    let open = all || matches!(h[0x205], META | CONTROL);
    match &h[0x200..0x204] {
        b"NCA3" if open => xts.decrypt_area(&mut h[0x400..], 0x200, 2, tweak),
        b"NCA2" if open => h[0x400..]
            .chunks_exact_mut(0x200)
            .for_each(|fs| xts.decrypt_sector(fs, tweak(0))),
        b"NCA3" | b"NCA2" => {}
        b"NCA0" => return Err(HeaderError::Malformed(Reason::Nca0)),
        _ => return Err(HeaderError::WrongKeys),
    }
    parse(&h, len)
}

fn parse(h: &[u8], len: u64) -> Result<Header, HeaderError> {
    let generation = h[0x206].max(h[0x220]);
    let mut sections: [Option<NcaSection>; 4] = Default::default();
    for (i, slot) in sections.iter_mut().enumerate() {
        let entry = 0x240 + 0x10 * i;
        let (start, end) = (
            u32le(h, entry) as u64 * MEDIA,
            u32le(h, entry + 4) as u64 * MEDIA,
        );
        if start == 0 && end == 0 {
            continue;
        }
        if start < HEADER_SIZE as u64 || end <= start || end > len {
            return Err(HeaderError::Malformed(Reason::SectionOutside));
        }
        let fs = h[0x400 + 0x200 * i..0x600 + 0x200 * i].to_vec();
        *slot = Some(NcaSection { start, end, fs });
    }
    let mut key_area = [0u8; 0x40];
    key_area.copy_from_slice(&h[0x300..0x340]);
    let mut rights_id = [0u8; 16];
    rights_id.copy_from_slice(&h[0x230..0x240]);
    Ok(Header {
        content_type: h[0x205],
        key_area_index: h[0x207],
        program_id: u64le(h, 0x210),
        key_revision: generation.saturating_sub(1),
        rights_id,
        sections,
        key_area,
    })
}

/// The title key of a ticket (`<rights ID>.tik`), decrypted with `titlekek`.
#[derive(Debug, PartialEq, Eq)]
pub enum TitleKey {
    Key([u8; 16]),
    /// Title-key type 1: encrypted for one console's account, not with `titlekek`.
    Personalized,
    MissingKek,
    Malformed,
}

/// Read the title key out of a ticket's bytes (the first 0x2C0 are enough).
pub fn title_key(ticket: &[u8], revision: u8, keys: &ProdKeys) -> TitleKey {
    // The signature block's size depends on its type (0x10000-0x10005): the ticket
    // data follows it. RSA-2048 with SHA-256 (0x10004) is what tickets use.
    // A ticket shorter than its signature type is malformed, not a crash.
    let Some(skip) = bytes::u32le(ticket, 0).and_then(signature_size) else {
        return TitleKey::Malformed;
    };
    let data = match ticket.get(skip..skip + 0x180) {
        Some(d) => d,
        None => return TitleKey::Malformed,
    };
    // In the data: issuer 0x40, title key block 0x100, format version, then the
    // title-key type (0x141 of the data, 0x281 of a 0x10004 ticket).
    if data[0x141] == 1 {
        return TitleKey::Personalized;
    }
    let Some(kek) = keys.titlekek(revision) else {
        return TitleKey::MissingKek;
    };
    let mut key = [0u8; 16];
    key.copy_from_slice(&data[0x40..0x50]);
    ecb_decrypt(&kek, &mut key);
    TitleKey::Key(key)
}

/// Bytes from a ticket's start to its data: the signature type, the signature and
/// its padding to 0x40.
fn signature_size(kind: u32) -> Option<usize> {
    Some(
        4 + match kind {
            0x10000 | 0x10003 => 0x200 + 0x3C,
            0x10001 | 0x10004 => 0x100 + 0x3C,
            0x10002 | 0x10005 => 0x3C + 0x40,
            _ => return None,
        },
    )
}

/// The clear bytes of one section as a `Read + Seek` whose position 0 is the
/// section's start. CTR sections are decrypted on the fly; position past the
/// section's end reads as end of file.
pub struct SectionReader<'a, R> {
    inner: &'a mut R,
    /// Absolute offset of the NCA in its container.
    nca_base: u64,
    start: u64,
    size: u64,
    pos: u64,
    /// The CTR key and the counter's high half; `None` for a clear section.
    ctr: Option<([u8; 16], [u8; 8])>,
}

impl<'a, R: Read + Seek> SectionReader<'a, R> {
    /// `key` is the section's CTR key; a section stored clear needs none.
    pub fn new(
        inner: &'a mut R,
        nca_base: u64,
        section: &NcaSection,
        key: Option<[u8; 16]>,
    ) -> Self {
        let mut high: [u8; 8] = bytes::array(&section.fs, 0x140).unwrap_or_default();
        high.reverse();
        SectionReader {
            inner,
            nca_base,
            start: section.start,
            size: section.size(),
            pos: 0,
            ctr: key.map(|k| (k, high)),
        }
    }

    pub fn size(&self) -> u64 {
        self.size
    }
}

/// AES-128-CTR as an NCA section uses it: the section's 8-byte counter, then the
/// 16-byte block's index in the NCA as a 64-bit big-endian counter (nsz's
/// `Counter.new(64, prefix=…)`); an NCA never holds 2⁶⁴ blocks, so it never wraps.
pub type NcaCtr = ctr::Ctr64BE<Aes128>;

impl<R: Read + Seek> Read for SectionReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.size.saturating_sub(self.pos);
        let want = (buf.len() as u64).min(left) as usize;
        if want == 0 {
            return Ok(0);
        }
        let at = self.start + self.pos; // offset in the NCA
        let Some((key, high)) = self.ctr else {
            self.inner.seek(SeekFrom::Start(self.nca_base + at))?;
            self.inner.read_exact(&mut buf[..want])?;
            self.pos += want as u64;
            return Ok(want);
        };
        // CTR works on 16-byte blocks: read from the block boundary.
        let skew = (at % 16) as usize;
        let mut block = vec![0u8; skew + want];
        self.inner
            .seek(SeekFrom::Start(self.nca_base + at - skew as u64))?;
        self.inner.read_exact(&mut block)?;
        let mut iv = [0u8; 16];
        iv[..8].copy_from_slice(&high);
        iv[8..].copy_from_slice(&((at - skew as u64) >> 4).to_be_bytes());
        NcaCtr::new(&key.into(), &iv.into()).apply_keystream(&mut block);
        buf[..want].copy_from_slice(&block[skew..]);
        self.pos += want as u64;
        Ok(want)
    }
}

impl<R: Read + Seek> Seek for SectionReader<'_, R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => self.size.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        Ok(self.pos)
    }
}
