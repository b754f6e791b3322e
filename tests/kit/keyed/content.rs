//! What the NCAs hold and what travels beside them, from switchbrew's CNMT, NACP and
//! Ticket pages and nsz's `Fs/Cnmt.py`/`Fs/Ticket.py`: the CNMT of a Meta NCA, the
//! NACP of a Control NCA, a small valid JPEG icon, tickets and a certificate stand-in.

use sha2::{Digest, Sha256};

use super::keys::ecb_encrypt;

/// CNMT content record types.
pub const RECORD_PROGRAM: u8 = 1;
pub const RECORD_DATA: u8 = 2;
pub const RECORD_CONTROL: u8 = 3;

/// One NCA as its CNMT lists it: hashed as stored (encrypted).
pub fn content_record(nca: &[u8], record_type: u8) -> [u8; 0x38] {
    let mut r = [0u8; 0x38];
    let hash = Sha256::digest(nca);
    r[..0x20].copy_from_slice(&hash);
    r[0x20..0x30].copy_from_slice(&hash[..0x10]);
    r[0x30..0x36].copy_from_slice(&(nca.len() as u64).to_le_bytes()[..6]);
    r[0x36] = record_type;
    r
}

/// A packaged CNMT: the 0x20-byte header (title ID, version, type, extended header
/// size, content count), the extended header (application: patch ID; patch and add-on:
/// application ID first), the 0x38-byte content records, a 0x20-byte digest at the end.
pub fn cnmt(
    title_id: u64,
    version: u32,
    meta_type: u8,
    other_id: u64,
    records: &[[u8; 0x38]],
) -> Vec<u8> {
    let ext_len: u16 = if meta_type == 0x81 { 0x18 } else { 0x10 };
    let mut out = vec![0u8; 0x20];
    out[0..8].copy_from_slice(&title_id.to_le_bytes());
    out[8..12].copy_from_slice(&version.to_le_bytes());
    out[0xC] = meta_type;
    out[0xE..0x10].copy_from_slice(&ext_len.to_le_bytes());
    out[0x10..0x12].copy_from_slice(&(records.len() as u16).to_le_bytes());
    let mut ext = vec![0u8; ext_len as usize];
    ext[0..8].copy_from_slice(&other_id.to_le_bytes());
    out.extend_from_slice(&ext);
    for r in records {
        out.extend_from_slice(r);
    }
    let digest = Sha256::digest(&out);
    out.extend_from_slice(&digest);
    out
}

/// NACP languages, in entry order.
pub use ludotheque::testkit::LANGUAGES;

/// `control.nacp` (0x4000 bytes): for each (language index, name) an entry of name
/// (0x200) and publisher (0x100) at 0x300 × index, the supported-language bits at
/// 0x302C, the display version at 0x3060 (0x10 bytes, NUL-terminated). Names longer
/// than their field are cut, without a terminator when they fill it.
pub fn nacp(names: &[(u8, String)], publisher: &str, display_version: &str) -> Vec<u8> {
    let mut out = vec![0u8; 0x4000];
    let mut languages = 0u32;
    for (lang, name) in names {
        let at = 0x300 * (*lang as usize % 16);
        put(&mut out[at..at + 0x200], name);
        put(&mut out[at + 0x200..at + 0x300], publisher);
        languages |= 1 << (*lang % 16);
    }
    out[0x302C..0x3030].copy_from_slice(&languages.to_le_bytes());
    put(&mut out[0x3060..0x3070], display_version);
    out
}

fn put(field: &mut [u8], text: &str) {
    let n = text.len().min(field.len());
    field[..n].copy_from_slice(&text.as_bytes()[..n]);
}

/// A valid baseline JPEG of 256×256 grey pixels of this level (a few hundred bytes):
/// one component, quantisation all ones, the standard DC Huffman table, an AC table
/// holding only end-of-block, so every 8×8 block is its DC term and EOB.
pub fn jpeg(level: u8) -> Vec<u8> {
    const SIDE: u16 = 256;
    let mut out = vec![0xFF, 0xD8];
    out.extend_from_slice(&[
        0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
    ]);
    out.extend_from_slice(&[0xFF, 0xDB, 0, 67, 0]);
    out.extend_from_slice(&[1; 64]);
    let side = SIDE.to_be_bytes();
    out.extend_from_slice(&[
        0xFF, 0xC0, 0, 11, 8, side[0], side[1], side[0], side[1], 1, 1, 0x11, 0,
    ]);
    // Standard luminance DC table (ITU T.81 K.3): code lengths, then categories 0–11.
    out.extend_from_slice(&[
        0xFF, 0xC4, 0, 31, 0x00, 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0,
    ]);
    out.extend(0..12u8);
    out.extend_from_slice(&[
        0xFF, 0xC4, 0, 20, 0x10, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    out.extend_from_slice(&[0xFF, 0xDA, 0, 8, 1, 1, 0x00, 0, 63, 0]);
    let mut bits = BitWriter::default();
    // A flat block's DC coefficient is 8 × (level − 128); the others differ by 0.
    let dc = 8 * (level as i32 - 128);
    let blocks = (SIDE as usize / 8) * (SIDE as usize / 8);
    for i in 0..blocks {
        let diff = if i == 0 { dc } else { 0 };
        let category = 32 - diff.unsigned_abs().leading_zeros();
        let (code, len) = dc_code(category);
        bits.put(code, len);
        if category > 0 {
            let value = if diff < 0 { diff - 1 } else { diff };
            bits.put(value as u32 & ((1 << category) - 1), category);
        }
        bits.put(0, 1); // EOB: the AC table's only code
    }
    out.extend_from_slice(&bits.finish());
    out.extend_from_slice(&[0xFF, 0xD9]);
    out
}

/// The standard DC table's code for a category: "00" for 0, then 3-bit codes 010–110
/// for 1–5, then 1110, 11110, … for 6–11.
fn dc_code(category: u32) -> (u32, u32) {
    match category {
        0 => (0b00, 2),
        1..=5 => (category + 1, 3),
        c => (((1 << (c - 3)) - 1) << 1, c - 2),
    }
}

#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl BitWriter {
    fn put(&mut self, value: u32, len: u32) {
        for i in (0..len).rev() {
            self.acc = (self.acc << 1) | ((value >> i) & 1);
            self.n += 1;
            if self.n == 8 {
                self.byte();
            }
        }
    }

    fn byte(&mut self) {
        let b = self.acc as u8;
        self.out.push(b);
        if b == 0xFF {
            self.out.push(0); // byte stuffing
        }
        self.acc = 0;
        self.n = 0;
    }

    fn finish(mut self) -> Vec<u8> {
        while self.n != 0 {
            self.put(1, 1); // pad with ones
        }
        self.out
    }
}

/// The rights ID of a title: its ID (big-endian), seven zeros, the key generation.
pub fn rights_id(title_id: u64, key_generation: u8) -> [u8; 16] {
    let mut r = [0u8; 16];
    r[..8].copy_from_slice(&title_id.to_be_bytes());
    r[15] = key_generation;
    r
}

/// Whose a ticket is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TicketKind {
    /// Title-key type 0: the title key wrapped with `titlekek_XX`.
    Common,
    /// Title-key type 1: an RSA-2048 message for one console (made-up bytes here).
    Personalized,
}

/// A ticket as eShop NSPs carry them (0x2C0 bytes): signature type 0x10004
/// (RSA-2048 SHA-256) at 0, the signature, padding to 0x140; issuer at 0x140, title key
/// block at 0x180, format version 2 at 0x280, title-key type at 0x281, key generation
/// at 0x285, ticket ID 0x290, device ID 0x298, rights ID 0x2A0, account ID 0x2B0.
pub fn ticket(
    rights_id: [u8; 16],
    title_key: [u8; 16],
    titlekek: &[u8; 16],
    kind: TicketKind,
    seed: [u8; 32],
) -> Vec<u8> {
    let mut t = vec![0u8; 0x2C0];
    t[0..4].copy_from_slice(&0x10004u32.to_le_bytes());
    for (i, chunk) in t[4..0x104].chunks_mut(32).enumerate() {
        let mut h = Sha256::new();
        h.update(seed);
        h.update([i as u8]);
        chunk.copy_from_slice(&h.finalize());
    }
    let issuer = b"Root-CA00000003-XS00000020";
    t[0x140..0x140 + issuer.len()].copy_from_slice(issuer);
    match kind {
        TicketKind::Common => t[0x180..0x190].copy_from_slice(&ecb_encrypt(titlekek, &title_key)),
        TicketKind::Personalized => {
            for (i, chunk) in t[0x180..0x280].chunks_mut(32).enumerate() {
                let mut h = Sha256::new();
                h.update(seed);
                h.update([0x80 | i as u8]);
                chunk.copy_from_slice(&h.finalize());
            }
            t[0x298..0x2A0].copy_from_slice(&seed[..8]);
            t[0x2B0..0x2B4].copy_from_slice(&seed[8..12]);
        }
    }
    t[0x280] = 2;
    t[0x281] = if kind == TicketKind::Common { 0 } else { 1 };
    t[0x285] = rights_id[15];
    t[0x290..0x298].copy_from_slice(&seed[16..24]);
    t[0x2A0..0x2B0].copy_from_slice(&rights_id);
    t
}

/// The certificate chain file beside a ticket: its bytes are never read, so made-up.
pub fn cert(rights_id: [u8; 16]) -> Vec<u8> {
    let mut out = vec![0u8; 0x700];
    out[..4].copy_from_slice(&0x10003u32.to_le_bytes());
    out[0x10..0x20].copy_from_slice(&rights_id);
    out
}
