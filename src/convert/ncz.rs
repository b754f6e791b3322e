//! NCZ → NCA, streaming (`docs/nsz.md` §2).
//!
//! The NCA is written as it is read: the first 0x4000 bytes verbatim, then the
//! plaintext stream (one zstd stream in solid mode, independent blocks in block mode),
//! with the CTR and CTR-Ex sections encrypted again on the way. Every byte written is
//! hashed, so the caller can check the content ID. Memory stays bounded whatever the
//! size: a chunk at a time in solid mode, a batch of blocks per core in block mode.

use std::io::{BufReader, Read, Seek, SeekFrom, Write};

use super::replace::{read_error, PartFail};
use crate::library::switchfs::nca::NcaCtr;
use aes::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use sha2::{Digest, Sha256};

use crate::error::Reason;
use crate::library::containers::{FormatError, Ncz, NczBody, NczSection};

const HEAD: u64 = 0x4000;
const CHUNK: usize = 1 << 20;
/// Decoded chunks waiting for the encrypt-and-hash stage in solid mode.
const DEPTH: usize = 4;
/// Blocks in flight per core in block mode.
const AHEAD: usize = 4;
/// Blocks larger than this are streamed one at a time instead of in parallel batches.
const MAX_PARALLEL_BLOCK: u64 = 4 << 20;

fn bad(why: Reason) -> FormatError {
    why.into()
}

/// A region of the NCA after 0x4000 and how to treat its bytes: encrypted again with
/// this key and counter (CTR, CTR-Ex), or written as it is.
#[derive(Clone)]
pub(crate) struct Region {
    end: u64,
    key: Option<([u8; 16], [u8; 16])>,
}

/// Encrypt `data`, which lies at `pos` in the NCA, with the keys of the regions it
/// covers. A pure function of its arguments, so any thread can do it.
pub(crate) fn encrypt(regions: &[Region], mut pos: u64, mut data: &mut [u8]) {
    let mut i = regions.partition_point(|r| r.end <= pos);
    while !data.is_empty() && i < regions.len() {
        let region = &regions[i];
        let take = ((region.end - pos) as usize).min(data.len());
        let (now, rest) = data.split_at_mut(take);
        if let Some((key, iv)) = &region.key {
            let mut cipher = NcaCtr::new(key.into(), iv.into());
            cipher.seek(pos);
            cipher.apply_keystream(now);
        }
        pos += take as u64;
        data = rest;
        i += 1;
    }
}

/// The size of the decompressed NCA: `max(0x4000, last.offset + last.size)` (`docs/nsz.md` §2).
pub fn nca_size(ncz: &Ncz) -> u64 {
    ncz.sections
        .last()
        .map_or(HEAD, |s| s.offset.saturating_add(s.size).max(HEAD))
}

/// Check the sections (sorted, contiguous, sane) and turn them into regions from
/// 0x4000 to the end, a plaintext gap prepended when the first starts later.
pub(crate) fn regions(sections: &[NczSection]) -> Result<Vec<Region>, FormatError> {
    let mut out = Vec::with_capacity(sections.len() + 1);
    if let Some(first) = sections.first() {
        if first.offset > HEAD {
            out.push(Region {
                end: first.offset,
                key: None,
            });
        }
    }
    for (i, s) in sections.iter().enumerate() {
        let end = s
            .offset
            .checked_add(s.size)
            .ok_or_else(|| bad(Reason::SectionOverflows))?;
        if let Some(next) = sections.get(i + 1) {
            if next.offset != end {
                return Err(bad(Reason::SectionsNotContiguous));
            }
        }
        if end <= HEAD {
            continue; // entirely inside the verbatim copy
        }
        let key = matches!(s.crypto_type, 3 | 4).then(|| {
            let mut iv = [0u8; 16];
            iv[..8].copy_from_slice(&s.counter[..8]);
            (s.key, iv)
        });
        out.push(Region { end, key });
    }
    Ok(out)
}

/// Writes the decompressed NCA into `out`, encrypting on the way and hashing.
struct Sink<'a, W: Write> {
    out: &'a mut W,
    regions: Vec<Region>,
    pos: u64,
    end: u64,
    hash: Sha256,
    on_write: &'a mut dyn FnMut(u64) -> std::io::Result<()>,
}

impl<W: Write> Sink<'_, W> {
    /// Take plaintext stream bytes (never past `remaining`).
    fn put(&mut self, data: &mut [u8]) -> Result<(), PartFail> {
        encrypt(&self.regions, self.pos, data);
        self.put_encrypted(data)
    }

    /// Take bytes already encrypted (block mode encrypts on the decoding threads).
    fn put_encrypted(&mut self, data: &[u8]) -> Result<(), PartFail> {
        self.hash.update(data);
        self.out.write_all(data).map_err(PartFail::Write)?;
        (self.on_write)(data.len() as u64).map_err(PartFail::Write)?;
        self.pos += data.len() as u64;
        Ok(())
    }

    fn remaining(&self) -> u64 {
        self.end - self.pos
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
) -> Result<[u8; 32], PartFail> {
    let size = nca_size(ncz);
    let mut sink = Sink {
        out,
        regions: regions(&ncz.sections)?,
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
        .map_err(PartFail::Write)?;
    (sink.on_write)(head_len as u64).map_err(PartFail::Write)?;
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
                return Err(bad(Reason::BlockHeaderSize).into());
            }
            blocks(input, *exponent, sizes, *offset, &mut sink)?;
        }
    }
    if sink.remaining() > 0 {
        return Err(bad(Reason::StreamTooShort).into());
    }
    Ok(sink.hash.finalize().into())
}

/// Solid mode: one zstd stream, decoded on its own thread while this one encrypts,
/// hashes and hands the bytes to the writer: the three stages run at once.
fn solid<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    offset: u64,
    limit: u64,
    sink: &mut Sink<W>,
) -> Result<(), PartFail> {
    input.seek(SeekFrom::Start(offset)).map_err(read_error)?;
    let total = sink.remaining();
    let (full, decoded) = crossbeam_channel::bounded(DEPTH);
    let (give_back, spare) = crossbeam_channel::bounded(DEPTH + 2);
    std::thread::scope(|s| {
        let decoder = move || {
            let result = decode_solid(input, limit - offset, total, &full, &spare);
            if let Err(e) = result {
                let _ = full.send(Err(e));
            }
        };
        named("convert-decode", s, decoder)?;
        // Until the decoder hangs up: then `remaining` tells whether it was short.
        for chunk in decoded {
            let mut chunk: Vec<u8> = chunk?;
            sink.put(&mut chunk)?;
            let _ = give_back.try_send(chunk);
        }
        Ok(())
    })
}

/// Decode up to `total` bytes of the stream in chunks sent over `full`, reusing the
/// buffers that come back over `spare`. Stops early when the receiver is gone.
fn decode_solid<R: Read>(
    input: &mut R,
    len: u64,
    total: u64,
    full: &crossbeam_channel::Sender<Result<Vec<u8>, FormatError>>,
    spare: &crossbeam_channel::Receiver<Vec<u8>>,
) -> Result<(), FormatError> {
    let compressed = BufReader::with_capacity(CHUNK, input.take(len));
    let mut decoder = zstd::stream::read::Decoder::with_buffer(compressed)
        .map_err(|_| bad(Reason::ZstdUnopened))?;
    let mut left = total;
    while left > 0 {
        let mut buf = spare.try_recv().unwrap_or_default();
        buf.resize(left.min(CHUNK as u64) as usize, 0);
        let mut n = 0;
        // Fill the chunk: fewer, larger hand-offs.
        while n < buf.len() {
            match decoder.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(_) => return Err(bad(Reason::ZstdCorrupt)),
            }
        }
        buf.truncate(n);
        left -= n as u64;
        if n == 0 || full.send(Ok(buf)).is_err() {
            return Ok(()); // too short (reported by the caller), or the writer stopped
        }
    }
    let mut probe = [0u8; 1];
    if matches!(decoder.read(&mut probe), Ok(1)) {
        log::warn!("convert: the zstd stream holds data past the end of the NCA (ignored)");
    }
    Ok(())
}

/// Block mode: one thread reads the compressed blocks, a thread per core decodes and
/// encrypts them, and this one hashes and writes them in order. At most [`AHEAD`]
/// blocks per core are in flight, so memory stays bounded.
fn blocks<R: Read + Seek + Send, W: Write>(
    input: &mut R,
    exponent: u8,
    sizes: &[u32],
    offset: u64,
    sink: &mut Sink<W>,
) -> Result<(), PartFail> {
    let block = 1u64 << exponent;
    let total = sink.remaining();
    let expected = move |i: usize| -> u64 {
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
    let ahead = cores * AHEAD;
    let (jobs, todo) = crossbeam_channel::bounded::<(usize, Vec<u8>)>(ahead);
    let (finished, done) = crossbeam_channel::bounded::<Decoded>(ahead);
    let (credit, credits) = crossbeam_channel::bounded::<()>(ahead);
    (0..ahead).for_each(|_| _ = credit.send(()));
    // Blocks written come back to the decoders: no fresh, zeroed megabyte per block.
    let (give_back, spare) = crossbeam_channel::bounded::<Vec<u8>>(ahead + cores);
    let (regions, start) = (&sink.regions.clone(), sink.pos);
    std::thread::scope(|s| {
        let reader_done = finished.clone();
        let reader = move || read_blocks(input, sizes, &expected, &credits, &jobs, &reader_done);
        named("convert-read", s, reader)?;
        for _ in 0..cores {
            let (todo, finished, spare) = (todo.clone(), finished.clone(), spare.clone());
            let decoder = move || {
                // One zstd context per thread, reused for every block (zstd's advice).
                let mut context = zstd::bulk::Decompressor::new().ok();
                for (i, data) in todo {
                    let at = start + i as u64 * block;
                    // A decoder that panicked would leave its block missing and the
                    // writer waiting for it: it becomes that block's error instead.
                    let ready = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let out = spare.try_recv().unwrap_or_default();
                        let mut plain = decode_block((data, expected(i)), &mut context, out)?;
                        encrypt(regions, at, &mut plain);
                        Ok(plain)
                    }))
                    .unwrap_or_else(|_| Err(bad(Reason::DecoderFailed)));
                    if finished.send((i, ready)).is_err() {
                        return;
                    }
                }
            };
            named("convert-decode", s, decoder)?;
        }
        drop((todo, finished, spare));
        write_in_order(sizes.len(), done, (credit, give_back), sink)
    })
}

/// A block decoded (and encrypted), or why not, with its number.
type Decoded = (usize, Result<Vec<u8>, FormatError>);

/// Start a thread of the pipeline, named so that `top -H` tells the stages apart.
pub(crate) fn named<'s, 'e>(
    name: &str,
    scope: &'s std::thread::Scope<'s, 'e>,
    work: impl FnOnce() + Send + 's,
) -> Result<(), PartFail> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn_scoped(scope, work)
        .map(drop)
        .map_err(PartFail::Write)
}

/// Take the decoded blocks as they finish and write them in their order, giving a
/// credit back to the reader for each one written, and its buffer to the decoders.
fn write_in_order<W: Write>(
    count: usize,
    done: crossbeam_channel::Receiver<Decoded>,
    (credit, give_back): (
        crossbeam_channel::Sender<()>,
        crossbeam_channel::Sender<Vec<u8>>,
    ),
    sink: &mut Sink<W>,
) -> Result<(), PartFail> {
    let mut waiting = std::collections::BTreeMap::new();
    let mut next = 0;
    while next < count {
        let (i, block) = done.recv().map_err(|_| bad(Reason::DecoderFailed))?;
        waiting.insert(i, block);
        while let Some(block) = waiting.remove(&next) {
            let block = block?;
            sink.put_encrypted(&block)?;
            let _ = give_back.try_send(block);
            let _ = credit.send(());
            next += 1;
        }
    }
    Ok(())
}

/// Read the compressed blocks in order, each once a credit allows it, and hand them to
/// the decoders; a block that cannot be read goes straight to the writer as an error.
fn read_blocks<R: Read>(
    input: &mut R,
    sizes: &[u32],
    expected: &dyn Fn(usize) -> u64,
    credits: &crossbeam_channel::Receiver<()>,
    jobs: &crossbeam_channel::Sender<(usize, Vec<u8>)>,
    failed: &crossbeam_channel::Sender<Decoded>,
) {
    for (i, &size) in sizes.iter().enumerate() {
        let sent = match read_block(input, size as u64, expected(i)) {
            Ok(data) => credits.recv().is_ok() && jobs.send((i, data)).is_ok(),
            Err(e) => {
                let _ = failed.send((i, Err(e)));
                false
            }
        };
        if !sent {
            return;
        }
    }
}

/// One compressed block of `size` bytes, whose data is `want` bytes.
fn read_block<R: Read>(input: &mut R, size: u64, want: u64) -> Result<Vec<u8>, FormatError> {
    if size > want {
        return Err(bad(Reason::BlockLarger));
    }
    let mut buf = vec![0u8; size as usize];
    input.read_exact(&mut buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => bad(Reason::Truncated),
        _ => bad(Reason::ReadFailed),
    })?;
    Ok(buf)
}

/// Blocks too large to hold in memory: each is streamed, one after the other.
fn large_blocks<R: Read + Seek, W: Write>(
    input: &mut R,
    mut offset: u64,
    sizes: &[u32],
    expected: &dyn Fn(usize) -> u64,
    sink: &mut Sink<W>,
) -> Result<(), PartFail> {
    let mut buf = vec![0u8; CHUNK];
    for (i, &size) in sizes.iter().enumerate() {
        let (size, want) = (size as u64, expected(i));
        if size > want {
            return Err(bad(Reason::BlockLarger).into());
        }
        // Seek to each block: a decoder may stop short of its block's last byte.
        input.seek(SeekFrom::Start(offset)).map_err(read_error)?;
        offset += size;
        let mut reader: Box<dyn Read + '_> = if size == want {
            Box::new((&mut *input).take(size))
        } else {
            Box::new(
                zstd::stream::read::Decoder::new((&mut *input).take(size))
                    .map_err(|_| bad(Reason::ZstdBlockCorrupt))?,
            )
        };
        let mut left = want;
        while left > 0 {
            let n = reader
                .read(&mut buf[..left.min(CHUNK as u64) as usize])
                .map_err(|_| bad(Reason::ZstdBlockCorrupt))?;
            if n == 0 {
                return Err(bad(Reason::ZstdBlockSize).into());
            }
            sink.put(&mut buf[..n])?;
            left -= n as u64;
        }
        drop(reader);
    }
    Ok(())
}

/// One block: stored raw when its compressed size is its size, else one zstd frame
/// that must decompress to exactly that size, into `out` (a spent block's buffer: its
/// old bytes are all overwritten, since exactly `want` must come out).
fn decode_block(
    (data, want): (Vec<u8>, u64),
    context: &mut Option<zstd::bulk::Decompressor<'static>>,
    mut out: Vec<u8>,
) -> Result<Vec<u8>, FormatError> {
    if data.len() as u64 == want {
        return Ok(data);
    }
    out.resize(want as usize, 0);
    let context = context
        .as_mut()
        .ok_or_else(|| bad(Reason::ZstdBlockCorrupt))?;
    let n = context
        .decompress_to_buffer(&data, &mut out[..])
        .map_err(|_| bad(Reason::ZstdBlockCorrupt))?;
    if n as u64 != want {
        return Err(bad(Reason::ZstdBlockSize));
    }
    Ok(out)
}
