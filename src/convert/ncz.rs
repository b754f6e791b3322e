//! NCZ → NCA, streaming (`docs/nsz.md` §2).
//!
//! The NCA is written as it is read: the first 0x4000 bytes verbatim, then the
//! plaintext stream (one zstd stream in solid mode, independent blocks in block mode),
//! with the CTR and CTR-Ex sections encrypted again on the way. Every byte written is
//! hashed, so the caller can check the content ID. Memory stays bounded whatever the
//! size: a chunk at a time in solid mode, a batch of blocks per core in block mode.

use std::io::{BufReader, Read, Seek, SeekFrom, Write};

use aes::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use sha2::{Digest, Sha256};

use crate::library::containers::{FormatError, Ncz, NczBody, NczSection};

type Aes128Ctr = ctr::Ctr64BE<aes::Aes128>;

const HEAD: u64 = 0x4000;
const CHUNK: usize = 1 << 20;
/// Blocks larger than this are streamed one at a time instead of in parallel batches.
const MAX_PARALLEL_BLOCK: u64 = 4 << 20;

fn bad(msg: impl Into<String>) -> FormatError {
    FormatError(msg.into())
}

/// A region of the NCA after 0x4000 and how to treat its bytes.
struct Region {
    end: u64,
    cipher: Option<Aes128Ctr>,
}

/// The size of the decompressed NCA: `max(0x4000, last.offset + last.size)` (`docs/nsz.md` §2).
pub fn nca_size(ncz: &Ncz) -> u64 {
    ncz.sections
        .last()
        .map_or(HEAD, |s| s.offset.saturating_add(s.size).max(HEAD))
}

/// Check the sections (sorted, contiguous, sane) and turn them into regions from
/// 0x4000 to the end, a plaintext gap prepended when the first starts later.
fn regions(sections: &[NczSection]) -> Result<Vec<Region>, FormatError> {
    let mut out = Vec::with_capacity(sections.len() + 1);
    if let Some(first) = sections.first() {
        if first.offset > HEAD {
            out.push(Region {
                end: first.offset,
                cipher: None,
            });
        }
    }
    for (i, s) in sections.iter().enumerate() {
        let end = s
            .offset
            .checked_add(s.size)
            .ok_or_else(|| bad("a section's end overflows"))?;
        if let Some(next) = sections.get(i + 1) {
            if next.offset != end {
                return Err(bad(
                    "the sections overlap or leave a gap (not sorted and contiguous)",
                ));
            }
        }
        if end <= HEAD {
            continue; // entirely inside the verbatim copy
        }
        let cipher = matches!(s.crypto_type, 3 | 4).then(|| {
            let mut iv = [0u8; 16];
            iv[..8].copy_from_slice(&s.counter[..8]);
            Aes128Ctr::new(&s.key.into(), &iv.into())
        });
        out.push(Region { end, cipher });
    }
    Ok(out)
}

/// Writes the decompressed NCA into `out`, encrypting on the way and hashing.
struct Sink<'a, W: Write> {
    out: &'a mut W,
    regions: Vec<Region>,
    current: usize,
    pos: u64,
    end: u64,
    hash: Sha256,
    on_write: &'a mut dyn FnMut(u64) -> std::io::Result<()>,
}

impl<W: Write> Sink<'_, W> {
    /// Take plaintext stream bytes; returns an error once the NCA is complete and more
    /// is offered (the caller stops at `remaining`).
    fn put(&mut self, mut data: &mut [u8]) -> Result<(), ConvertFail> {
        while !data.is_empty() {
            let region = &mut self.regions[self.current];
            let take = ((region.end - self.pos) as usize).min(data.len());
            let (now, rest) = data.split_at_mut(take);
            if let Some(cipher) = region.cipher.as_mut() {
                cipher.seek(self.pos);
                cipher.apply_keystream(now);
            }
            self.hash.update(&*now);
            self.out.write_all(now).map_err(ConvertFail::Write)?;
            (self.on_write)(take as u64).map_err(ConvertFail::Write)?;
            self.pos += take as u64;
            if self.pos == region.end && self.current + 1 < self.regions.len() {
                self.current += 1;
            }
            data = rest;
        }
        Ok(())
    }

    fn remaining(&self) -> u64 {
        self.end - self.pos
    }
}

/// Why a conversion failed: the input (safe to show) or the output (disk full...).
#[derive(Debug)]
pub enum ConvertFail {
    Input(FormatError),
    Write(std::io::Error),
}

impl From<FormatError> for ConvertFail {
    fn from(e: FormatError) -> Self {
        ConvertFail::Input(e)
    }
}

/// Decompress the NCZ whose header is `ncz`, lying in the input up to `limit`, into
/// `out`. Returns the SHA-256 of the NCA written.
pub fn decompress<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    ncz: &Ncz,
    limit: u64,
    out: &mut W,
    on_write: &mut dyn FnMut(u64) -> std::io::Result<()>,
) -> Result<[u8; 32], ConvertFail> {
    let size = nca_size(ncz);
    let mut sink = Sink {
        out,
        regions: regions(&ncz.sections)?,
        current: 0,
        pos: 0,
        end: size,
        hash: Sha256::new(),
        on_write,
    };
    let mut head = vec![0u8; HEAD as usize];
    input.seek(SeekFrom::Start(ncz.base)).map_err(read_error)?;
    input.read_exact(&mut head).map_err(read_error)?;
    let head_len = size.min(HEAD) as usize;
    sink.hash.update(&head[..head_len]);
    sink.out
        .write_all(&head[..head_len])
        .map_err(ConvertFail::Write)?;
    (sink.on_write)(head_len as u64).map_err(ConvertFail::Write)?;
    sink.pos = HEAD;
    if sink.regions.is_empty() || size <= HEAD {
        return Ok(sink.hash.finalize().into());
    }
    match &ncz.body {
        NczBody::Solid { offset } => solid(input, *offset, limit, &mut sink)?,
        NczBody::Block {
            exponent,
            decompressed,
            sizes,
            offset,
        } => {
            if *decompressed != size - HEAD {
                return Err(bad("the block header's size does not match the sections").into());
            }
            blocks(input, *exponent, sizes, *offset, &mut sink)?;
        }
    }
    if sink.remaining() > 0 {
        return Err(bad("the compressed stream is too short for the sections it declares").into());
    }
    Ok(sink.hash.finalize().into())
}

fn read_error(e: std::io::Error) -> ConvertFail {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => bad("the file is truncated").into(),
        _ => bad("the file could not be read").into(),
    }
}

fn solid<R: Read + Seek, W: Write>(
    input: &mut R,
    offset: u64,
    limit: u64,
    sink: &mut Sink<W>,
) -> Result<(), ConvertFail> {
    input.seek(SeekFrom::Start(offset)).map_err(read_error)?;
    let compressed = BufReader::with_capacity(CHUNK, input.take(limit - offset));
    let mut decoder = zstd::stream::read::Decoder::with_buffer(compressed)
        .map_err(|_| bad("the zstd stream cannot be opened"))?;
    let mut buf = vec![0u8; CHUNK];
    while sink.remaining() > 0 {
        let want = (sink.remaining() as usize).min(CHUNK);
        let n = decoder
            .read(&mut buf[..want])
            .map_err(|_| bad("the zstd stream is corrupt"))?;
        if n == 0 {
            break; // too short: reported by the caller
        }
        sink.put(&mut buf[..n])?;
    }
    let mut probe = [0u8; 1];
    if matches!(decoder.read(&mut probe), Ok(1)) {
        log::warn!("convert: the zstd stream holds data past the end of the NCA (ignored)");
    }
    Ok(())
}

/// Block mode: batches of blocks decompressed on every core, written in order.
fn blocks<R: Read + Seek, W: Write>(
    input: &mut R,
    exponent: u8,
    sizes: &[u32],
    offset: u64,
    sink: &mut Sink<W>,
) -> Result<(), ConvertFail> {
    let block = 1u64 << exponent;
    let total = sink.remaining();
    let expected = |i: usize| -> u64 {
        if i + 1 == sizes.len() && !total.is_multiple_of(block) {
            total % block
        } else {
            block
        }
    };
    input.seek(SeekFrom::Start(offset)).map_err(read_error)?;
    if block > MAX_PARALLEL_BLOCK {
        return large_blocks(input, offset, sizes, &expected, sink);
    }
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let batch = cores * 4;
    // Pipelined: the next batch decodes on other threads while this one is
    // encrypted, hashed and written here.
    let mut next = 0;
    let read_batch =
        |input: &mut R, next: &mut usize| -> Result<Vec<(Vec<u8>, u64)>, ConvertFail> {
            let n = batch.min(sizes.len() - *next);
            let mut compressed = Vec::with_capacity(n);
            for (j, &size) in sizes.iter().enumerate().skip(*next).take(n) {
                let (size, want) = (size as u64, expected(j));
                if size > want {
                    return Err(bad("a compressed block is larger than its data (corrupt)").into());
                }
                let mut buf = vec![0u8; size as usize];
                input.read_exact(&mut buf).map_err(read_error)?;
                compressed.push((buf, want));
            }
            *next += n;
            Ok(compressed)
        };
    let mut pending = spawn_batch(read_batch(input, &mut next)?);
    while !pending.is_empty() {
        let ready = join_batch(pending)?;
        pending = if next < sizes.len() {
            spawn_batch(read_batch(input, &mut next)?)
        } else {
            Vec::new()
        };
        for mut plain in ready {
            sink.put(&mut plain)?;
        }
    }
    Ok(())
}

/// Blocks too large to hold in memory: each is streamed, one after the other.
fn large_blocks<R: Read + Seek, W: Write>(
    input: &mut R,
    mut offset: u64,
    sizes: &[u32],
    expected: &dyn Fn(usize) -> u64,
    sink: &mut Sink<W>,
) -> Result<(), ConvertFail> {
    let mut buf = vec![0u8; CHUNK];
    for (i, &size) in sizes.iter().enumerate() {
        let (size, want) = (size as u64, expected(i));
        if size > want {
            return Err(bad("a compressed block is larger than its data (corrupt)").into());
        }
        // Seek to each block: a decoder may stop short of its block's last byte.
        input.seek(SeekFrom::Start(offset)).map_err(read_error)?;
        offset += size;
        let mut reader: Box<dyn Read + '_> = if size == want {
            Box::new((&mut *input).take(size))
        } else {
            Box::new(
                zstd::stream::read::Decoder::new((&mut *input).take(size))
                    .map_err(|_| bad("a zstd block is corrupt"))?,
            )
        };
        let mut left = want;
        while left > 0 {
            let n = reader
                .read(&mut buf[..(left as usize).min(CHUNK)])
                .map_err(|_| bad("a zstd block is corrupt"))?;
            if n == 0 {
                return Err(bad("a zstd block decompressed to the wrong size").into());
            }
            sink.put(&mut buf[..n])?;
            left -= n as u64;
        }
        drop(reader);
    }
    Ok(())
}

type Decoding = std::thread::JoinHandle<Result<Vec<u8>, FormatError>>;

/// Start decoding each block of a batch on its own thread.
fn spawn_batch(blocks: Vec<(Vec<u8>, u64)>) -> Vec<Decoding> {
    blocks
        .into_iter()
        .map(|b| std::thread::spawn(move || decode_block(b)))
        .collect()
}

fn join_batch(handles: Vec<Decoding>) -> Result<Vec<Vec<u8>>, ConvertFail> {
    handles
        .into_iter()
        .map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(bad("a block decoder failed")))
                .map_err(ConvertFail::from)
        })
        .collect()
}

/// One block: stored raw when its compressed size is its size, else one zstd frame
/// that must decompress to exactly that size.
fn decode_block((data, want): (Vec<u8>, u64)) -> Result<Vec<u8>, FormatError> {
    if data.len() as u64 == want {
        return Ok(data);
    }
    let mut out = vec![0u8; want as usize];
    let n = zstd::bulk::Decompressor::new()
        .and_then(|mut d| d.decompress_to_buffer(&data, &mut out[..]))
        .map_err(|_| bad("a zstd block is corrupt"))?;
    if n as u64 != want {
        return Err(bad("a zstd block decompressed to the wrong size"));
    }
    Ok(out)
}
