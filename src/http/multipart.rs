//! A `multipart/form-data` body (RFC 7578) read as it arrives: small fields are
//! kept in memory, a file field is copied to a writer as its bytes come, so an upload
//! of a gigabyte costs a buffer, never its size. Only what uploads need: a part's
//! name and file name, its data up to the next boundary.
//!
//! No crate does this without an async runtime (`multer` needs one; `multipart` is
//! unmaintained since 2021 and pulls a dozen crates), and the format is one
//! delimiter search, so it is written here.

use std::io::{Read, Write};

use memchr::memmem;

use crate::error::{Error, Msg};

/// How much a part's headers may hold.
const MAX_HEAD: usize = 8 * 1024;
const BUFFER: usize = 64 * 1024;

/// One part's headers: the form field's name and, for a file, its file name.
#[derive(Debug, Default)]
pub struct PartHead {
    pub name: String,
    pub filename: Option<String>,
}

pub struct Multipart<'a> {
    body: &'a mut dyn Read,
    /// `\r\n--BOUNDARY`: what ends a part. The body's first delimiter has no line
    /// break before it: the buffer starts with one of its own.
    delimiter: Vec<u8>,
    /// Its searcher, built once (building one costs more than a 64 KiB search).
    finder: memmem::Finder<'static>,
    /// A fixed buffer: the bytes not yet handled are `buf[start..end]`.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The body ended (its closing delimiter was read).
    closed: bool,
    /// Inside a part's data (its headers read, its delimiter not yet).
    in_part: bool,
}

fn bad() -> Error {
    Error::invalid(Msg::NotMultipart)
}

/// The boundary of a `multipart/form-data` content type.
pub fn boundary(content_type: &str) -> Option<String> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (k, v) = p.split_once('=')?;
        let v = v.trim().trim_matches('"');
        (k.trim().eq_ignore_ascii_case("boundary") && !v.is_empty() && v.len() <= 70)
            .then(|| v.to_string())
    })
}

impl<'a> Multipart<'a> {
    pub fn new(boundary: &str, body: &'a mut dyn Read) -> Self {
        Multipart {
            body,
            delimiter: format!("\r\n--{boundary}").into_bytes(),
            finder: memmem::Finder::new(format!("\r\n--{boundary}").as_bytes()).into_owned(),
            buf: {
                let mut buf = vec![0; BUFFER];
                buf[..2].copy_from_slice(b"\r\n");
                buf
            },
            start: 0,
            end: 2,
            closed: false,
            in_part: true,
        }
    }

    /// Read more of the body into the buffer; false at its end. What is handled
    /// is dropped only when the buffer is full, so a client sending a byte at a time
    /// costs a byte's work each time. The buffer holds more than a part's headers
    /// and a delimiter, so there is always room once the handled bytes are gone.
    fn fill(&mut self) -> Result<bool, Error> {
        if self.end == self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let n = loop {
            match self.body.read(&mut self.buf[self.end..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        self.end += n;
        Ok(n > 0)
    }

    fn window(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Copy the rest of the current part's data to `out`; how many bytes. The
    /// preamble before the first part is such a "part", written nowhere.
    fn copy_data(&mut self, out: &mut dyn Write) -> Result<u64, Error> {
        let mut copied = 0u64;
        loop {
            let window = self.window();
            if let Some(at) = self.finder.find(window) {
                out.write_all(&window[..at])?;
                copied += at as u64;
                self.start += at + self.delimiter.len();
                self.in_part = false;
                return Ok(copied);
            }
            // Everything but what could be the start of a delimiter goes out.
            let safe = window.len().saturating_sub(self.delimiter.len() - 1);
            out.write_all(&window[..safe])?;
            copied += safe as u64;
            self.start += safe;
            if !self.fill()? {
                return Err(bad());
            }
        }
    }

    /// At least `n` bytes past `start`, or the body ended.
    fn want(&mut self, n: usize) -> Result<(), Error> {
        while self.end - self.start < n {
            if !self.fill()? {
                return Err(bad());
            }
        }
        Ok(())
    }

    /// The next part's headers (the current part's unread data is passed over), or
    /// `None` after the last one.
    pub fn next_part(&mut self) -> Result<Option<PartHead>, Error> {
        if self.in_part {
            self.copy_data(&mut std::io::sink())?;
        }
        if self.closed {
            return Ok(None);
        }
        self.want(2)?;
        if &self.window()[..2] == b"--" {
            self.closed = true;
            return Ok(None);
        }
        // Headers end at an empty line.
        let end = loop {
            if let Some(at) = memmem::find(self.window(), b"\r\n\r\n") {
                break self.start + at;
            }
            if self.end - self.start > MAX_HEAD || !self.fill()? {
                return Err(bad());
            }
        };
        let head = String::from_utf8_lossy(&self.buf[self.start..end]).into_owned();
        self.start = end + 4;
        self.in_part = true;
        Ok(Some(parse_head(&head)))
    }

    /// The current part's data to `out`.
    pub fn copy_to(&mut self, out: &mut dyn Write) -> Result<u64, Error> {
        self.copy_data(out)
    }

    /// The current part's data as text, at most `max` bytes (more is an error).
    pub fn text(&mut self, max: usize) -> Result<String, Error> {
        let mut out = Capped(Vec::new(), max);
        let copied = self.copy_data(&mut out);
        if out.0.len() == max + 1 {
            return Err(Error::invalid(Msg::FormFieldTooLong { max }));
        }
        copied?;
        Ok(String::from_utf8_lossy(&out.0).into_owned())
    }
}

/// A `Vec` that refuses to grow past its cap.
struct Capped(Vec<u8>, usize);

impl Write for Capped {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + b.len() > self.1 {
            // One byte past the cap marks why the copy stopped (`Multipart::text`).
            self.0.resize(self.1 + 1, 0);
            return Err(std::io::Error::other("a form field is too long"));
        }
        self.0.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The name and file name of a part's `Content-Disposition`.
fn parse_head(head: &str) -> PartHead {
    let mut part = PartHead::default();
    for line in head.split("\r\n") {
        let Some((field, value)) = line.split_once(':') else {
            continue;
        };
        if !field.trim().eq_ignore_ascii_case("content-disposition") {
            continue;
        }
        for param in value.split(';').skip(1) {
            let Some((k, v)) = param.split_once('=') else {
                continue;
            };
            let v = v.trim().trim_matches('"').to_string();
            match k.trim().to_ascii_lowercase().as_str() {
                "name" => part.name = v,
                "filename" => part.filename = Some(v),
                _ => {}
            }
        }
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(parts: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
        let mut b = b"preamble\r\n".to_vec();
        for (name, file, data) in parts {
            b.extend_from_slice(b"--XyZ\r\nContent-Disposition: form-data; name=\"");
            b.extend_from_slice(name.as_bytes());
            b.push(b'"');
            if let Some(f) = file {
                b.extend_from_slice(format!("; filename=\"{f}\"").as_bytes());
            }
            b.extend_from_slice(b"\r\nContent-Type: application/octet-stream\r\n\r\n");
            b.extend_from_slice(data);
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(b"--XyZ--\r\n");
        b
    }

    /// A reader that gives one byte at a time: every split of the delimiter is met.
    struct Drip<'a>(&'a [u8]);
    impl Read for Drip<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            match self.0.split_first() {
                Some((b, rest)) if !out.is_empty() => {
                    out[0] = *b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn fields_and_a_file_come_out_whole_however_the_bytes_arrive() {
        let file: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let mut data = file.clone();
        // Bytes that look like the start of a delimiter stay data.
        data.extend_from_slice(b"\r\n--XyY-not-quite\r\n--Xy");
        let b = body(&[
            ("title_id", None, b"0100ABCD12340000"),
            ("file", Some("a.zip"), &data),
            ("note", None, b"boss"),
        ]);
        for drip in [false, true] {
            let mut whole: &[u8] = &b;
            let mut dripping = Drip(&b);
            let reader: &mut dyn Read = if drip { &mut dripping } else { &mut whole };
            let mut m = Multipart::new("XyZ", reader);
            let mut seen = Vec::new();
            while let Some(part) = m.next_part().unwrap() {
                if part.filename.is_some() {
                    let mut out = Vec::new();
                    m.copy_to(&mut out).unwrap();
                    assert_eq!(out, data);
                    seen.push(format!("{}:file", part.name));
                } else {
                    seen.push(format!("{}={}", part.name, m.text(100).unwrap()));
                }
            }
            assert_eq!(
                seen,
                ["title_id=0100ABCD12340000", "file:file", "note=boss"]
            );
        }
    }

    #[test]
    fn a_cut_body_or_a_long_field_is_an_error() {
        let b = body(&[("note", None, b"x")]);
        let cut = &b[..b.len() - 12];
        let mut r: &[u8] = cut;
        let mut m = Multipart::new("XyZ", &mut r);
        assert!(m.next_part().unwrap().is_some());
        assert!(m.text(100).is_err());
        let mut r: &[u8] = &b;
        let mut m = Multipart::new("XyZ", &mut r);
        m.next_part().unwrap();
        assert!(m.text(0).is_err());
    }

    #[test]
    fn the_boundary_is_read_from_the_content_type() {
        assert_eq!(
            boundary("multipart/form-data; boundary=------abc").as_deref(),
            Some("------abc")
        );
        assert_eq!(
            boundary("Multipart/Form-Data;boundary=\"q r\"").as_deref(),
            Some("q r")
        );
        assert_eq!(boundary("application/json"), None);
        assert_eq!(boundary("multipart/form-data"), None);
    }
}
