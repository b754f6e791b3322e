//! A streaming JSON reader for the title data files. They come from a third party and
//! may be as large as a fetch allows (512 MiB), so what the import holds must not grow
//! with them: this reader reads a token at a time through a 64 KiB buffer, keeps a
//! string only up to a bound the caller gives (past it the rest of the string is read
//! and dropped), and passes over any value, however long or nested, holding nothing
//! but its depth. serde_json cannot do that: its reader holds a whole string (a key
//! too) before a visitor sees it, and a `Value` holds an array whole, so one field of
//! 64 MiB cost a gigabyte.
//!
//! What is passed over is checked for its structure (brackets, commas, colons,
//! literals), not for control characters inside its strings: nothing of it is kept.

use std::fmt;
use std::io::{ErrorKind, Read};

use crate::error::{Reason, Why};

/// Nesting deeper than this is no title data (theirs is three levels deep): the file
/// is refused, as serde_json refuses what it reads past 128.
pub const MAX_DEPTH: usize = 128;

const BUFFER: usize = 64 * 1024;
/// A number longer than this is passed over, as a string past its bound is.
const NUMBER_MAX: usize = 64;

/// Where the file broke and why; its text names the line and column, as serde_json's
/// did.
#[derive(Debug)]
pub struct JsonError {
    line: u64,
    column: u64,
    what: Why,
}

impl JsonError {
    /// What a person is told: the line and why (the column is the log's).
    pub fn why(&self) -> Why {
        Reason::Line(self.line.to_string()).then(self.what.clone())
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.what, self.line, self.column
        )
    }
}

impl std::error::Error for JsonError {}

pub type Result<T> = std::result::Result<T, JsonError>;

/// A value read where a short one is expected (a name, a date, a size).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scalar {
    Text(String),
    /// A number as it is written.
    Number(String),
    Bool(bool),
    Null,
    /// An array or an object, passed over.
    Composite,
    /// A string or a number longer than the bound, passed over.
    TooLong,
}

impl Scalar {
    /// The text of a string; `None` for anything else.
    pub fn text(self) -> Option<String> {
        match self {
            Scalar::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// A pull reader over `R`.
pub struct Reader<R> {
    input: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    /// The offset in the input of `buf[0]`, and of the start of the current line.
    base: u64,
    line_start: u64,
    line: u64,
}

impl<R: Read> Reader<R> {
    pub fn new(input: R) -> Reader<R> {
        Reader {
            input,
            buf: vec![0; BUFFER].into_boxed_slice(),
            pos: 0,
            end: 0,
            base: 0,
            line_start: 0,
            line: 1,
        }
    }

    /// The number of bytes read so far: how long a value was, told by the offsets
    /// before and after it.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn error(&self, what: impl Into<Why>) -> JsonError {
        JsonError {
            line: self.line,
            column: self.offset() - self.line_start + 1,
            what: what.into(),
        }
    }

    /// Make a byte available; `false` at the end of the input.
    fn fill(&mut self) -> Result<bool> {
        if self.pos < self.end {
            return Ok(true);
        }
        self.base += self.end as u64;
        self.pos = 0;
        self.end = 0;
        loop {
            match self.input.read(&mut self.buf) {
                Ok(n) => {
                    self.end = n;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => {
                    let why = Reason::ReadError.then(Reason::Text(e.to_string()));
                    return Err(self.error(why));
                }
            }
        }
    }

    /// The next byte, without taking it; an error at the end of the input.
    fn next_byte(&mut self) -> Result<u8> {
        if !self.fill()? {
            return Err(self.error(Reason::EndOfFile));
        }
        Ok(self.buf[self.pos])
    }

    /// The next byte that is not blank, without taking it; `None` at the end.
    pub fn peek(&mut self) -> Result<Option<u8>> {
        while self.fill()? {
            while self.pos < self.end {
                match self.buf[self.pos] {
                    b' ' | b'\t' | b'\r' => self.pos += 1,
                    b'\n' => {
                        self.pos += 1;
                        self.line += 1;
                        self.line_start = self.offset();
                    }
                    b => return Ok(Some(b)),
                }
            }
        }
        Ok(None)
    }

    fn peek_some(&mut self) -> Result<u8> {
        self.peek()?.ok_or_else(|| self.error(Reason::EndOfFile))
    }

    fn expect(&mut self, byte: u8) -> Result<()> {
        if self.peek_some()? != byte {
            let expected = format!("'{}'", byte as char);
            return Err(self.error(Reason::Expected(expected)));
        }
        self.pos += 1;
        Ok(())
    }

    /// Only blanks are left.
    pub fn end(&mut self) -> Result<()> {
        match self.peek()? {
            None => Ok(()),
            Some(_) => Err(self.error(Reason::TrailingCharacters)),
        }
    }

    /// The members of the object that comes next: `each` gets each key (`None` for a
    /// key longer than `key_max` bytes, passed over) and must read or skip its value.
    pub fn object(
        &mut self,
        key_max: usize,
        mut each: impl FnMut(&mut Self, Option<&str>) -> Result<()>,
    ) -> Result<()> {
        self.expect(b'{')?;
        let mut key = Vec::new();
        if self.peek_some()? == b'}' {
            self.pos += 1;
            return Ok(());
        }
        loop {
            let fits = self.string_into(Some(&mut key), key_max)?;
            let text = match fits {
                true => {
                    Some(std::str::from_utf8(&key).map_err(|_| self.error(Reason::InvalidUtf8))?)
                }
                false => None,
            };
            self.expect(b':')?;
            each(self, text)?;
            match self.peek_some()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.error(Reason::ExpectedCommaOrBrace)),
            }
        }
    }

    /// The elements of the array that comes next: `each` must read or skip each one.
    pub fn array(&mut self, mut each: impl FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.expect(b'[')?;
        if self.peek_some()? == b']' {
            self.pos += 1;
            return Ok(());
        }
        loop {
            each(self)?;
            match self.peek_some()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.error(Reason::ExpectedCommaOrBracket)),
            }
        }
    }

    /// The value that comes next, kept when it is a string or a number of at most
    /// `max` bytes.
    pub fn scalar(&mut self, max: usize) -> Result<Scalar> {
        Ok(match self.peek_some()? {
            b'"' => {
                let mut text = Vec::new();
                match self.string_into(Some(&mut text), max)? {
                    true => Scalar::Text(
                        String::from_utf8(text).map_err(|_| self.error(Reason::InvalidUtf8))?,
                    ),
                    false => Scalar::TooLong,
                }
            }
            b'-' | b'0'..=b'9' => {
                let mut digits = Vec::new();
                match self.number_into(&mut digits, max.min(NUMBER_MAX))? {
                    // Only ASCII was taken.
                    true => Scalar::Number(String::from_utf8(digits).unwrap_or_default()),
                    false => Scalar::TooLong,
                }
            }
            b'{' | b'[' => {
                self.skip()?;
                Scalar::Composite
            }
            _ => match self.literal()? {
                b't' => Scalar::Bool(true),
                b'f' => Scalar::Bool(false),
                _ => Scalar::Null,
            },
        })
    }

    /// `true`, `false` or `null`; returns its first letter.
    fn literal(&mut self) -> Result<u8> {
        let first = self.peek_some()?;
        let word: &[u8] = match first {
            b't' => b"true",
            b'f' => b"false",
            b'n' => b"null",
            _ => return Err(self.error(Reason::ExpectedValue)),
        };
        for &want in word {
            if self.next_byte()? != want {
                return Err(self.error(Reason::ExpectedValue));
            }
            self.pos += 1;
        }
        Ok(first)
    }

    /// A number's characters, into `out` when there are at most `max` of them;
    /// `false` when there were more (then `out` is left empty).
    fn number_into(&mut self, out: &mut Vec<u8>, max: usize) -> Result<bool> {
        out.clear();
        let mut fits = true;
        let mut any = false;
        while self.fill()? {
            let b = self.buf[self.pos];
            if !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                break;
            }
            any = true;
            self.pos += 1;
            if fits && out.len() < max {
                out.push(b);
            } else {
                fits = false;
                out.clear();
            }
        }
        if !any {
            return Err(self.error(Reason::ExpectedNumber));
        }
        Ok(fits)
    }

    /// The string that comes next, decoded into `out` when it has at most `max`
    /// bytes; `false` when it had more (then `out` is left empty). With no `out` the
    /// string is only passed over.
    fn string_into(&mut self, mut out: Option<&mut Vec<u8>>, max: usize) -> Result<bool> {
        self.expect(b'"')?;
        if let Some(o) = out.as_deref_mut() {
            o.clear();
        }
        let mut fits = true;
        loop {
            self.next_byte()?;
            let rest = &self.buf[self.pos..self.end];
            let Some(at) = memchr::memchr2(b'"', b'\\', rest) else {
                fits = keep(&mut out, rest, max, fits);
                self.pos = self.end;
                continue;
            };
            fits = keep(&mut out, &rest[..at], max, fits);
            self.pos += at + 1;
            if rest[at] == b'"' {
                if !fits {
                    if let Some(o) = out {
                        o.clear();
                    }
                }
                return Ok(fits);
            }
            let decoded = self.escape()?;
            let mut utf8 = [0; 4];
            fits = keep(
                &mut out,
                decoded.encode_utf8(&mut utf8).as_bytes(),
                max,
                fits,
            );
        }
    }

    /// The character of an escape whose `\` was taken.
    fn escape(&mut self) -> Result<char> {
        let b = self.next_byte()?;
        self.pos += 1;
        Ok(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(),
            _ => return Err(self.error(Reason::InvalidEscape)),
        })
    }

    /// `\uXXXX`, and the low half that must follow a high surrogate; a lone half is
    /// U+FFFD.
    fn unicode_escape(&mut self) -> Result<char> {
        let high = self.hex4()?;
        if !(0xD800..0xDC00).contains(&high) {
            return Ok(char::from_u32(high).unwrap_or('\u{FFFD}'));
        }
        if self.next_byte()? != b'\\' {
            return Ok('\u{FFFD}');
        }
        self.pos += 1;
        if self.next_byte()? != b'u' {
            return Err(self.error(Reason::InvalidEscape));
        }
        self.pos += 1;
        let low = self.hex4()?;
        if !(0xDC00..0xE000).contains(&low) {
            return Ok('\u{FFFD}');
        }
        Ok(
            char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                .unwrap_or('\u{FFFD}'),
        )
    }

    fn hex4(&mut self) -> Result<u32> {
        let mut n = 0;
        for _ in 0..4 {
            let b = self.next_byte()?;
            let digit = (b as char)
                .to_digit(16)
                .ok_or_else(|| self.error(Reason::InvalidEscape))?;
            n = n * 16 + digit;
            self.pos += 1;
        }
        Ok(n)
    }

    /// Pass over the value that comes next, whatever its size, holding only the
    /// brackets it is inside of (at most [`MAX_DEPTH`]).
    pub fn skip(&mut self) -> Result<()> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            self.skip_one(&mut open)?;
            // After a value: commas and closing brackets until the next value, or the
            // end of the outermost one.
            loop {
                let Some(&close) = open.last() else {
                    return Ok(());
                };
                match self.peek_some()? {
                    b',' => {
                        self.pos += 1;
                        if close == b'}' {
                            self.member_key()?;
                        }
                        break;
                    }
                    b if b == close => {
                        self.pos += 1;
                        open.pop();
                    }
                    _ => return Err(self.error(Reason::ExpectedCommaOrClosing)),
                }
            }
        }
    }

    /// One value, or the start of an array or object (pushed on `open`, and its
    /// first key taken); an empty one is passed over whole.
    fn skip_one(&mut self, open: &mut Vec<u8>) -> Result<()> {
        loop {
            let b = self.peek_some()?;
            let close = match b {
                b'"' => return self.string_into(None, 0).map(drop),
                b'-' | b'0'..=b'9' => return self.number_into(&mut Vec::new(), 0).map(drop),
                b'{' => b'}',
                b'[' => b']',
                _ => return self.literal().map(drop),
            };
            if open.len() >= MAX_DEPTH {
                return Err(self.error(Reason::NestedDeeper(MAX_DEPTH.to_string())));
            }
            self.pos += 1;
            if self.peek_some()? == close {
                self.pos += 1;
                return Ok(());
            }
            open.push(close);
            if close == b'}' {
                self.member_key()?;
            }
        }
    }

    /// A key passed over, and its colon.
    fn member_key(&mut self) -> Result<()> {
        self.string_into(None, 0)?;
        self.expect(b':')
    }
}

/// Append `bytes` to `out` while the string still fits in `max`; returns whether it
/// does.
fn keep(out: &mut Option<&mut Vec<u8>>, bytes: &[u8], max: usize, fits: bool) -> bool {
    let Some(out) = out.as_deref_mut() else {
        return false;
    };
    if !fits || out.len() + bytes.len() > max {
        out.clear();
        return false;
    }
    out.extend_from_slice(bytes);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(text: &str) -> Reader<&[u8]> {
        Reader::new(text.as_bytes())
    }

    #[test]
    fn strings_are_decoded_or_passed_over_past_their_bound() {
        let mut r = reader(r#" "a\"b\\c\/\n\u00e9\ud83d\ude00" "0123456789" "\u0041" "#);
        assert_eq!(r.scalar(100).unwrap(), Scalar::Text("a\"b\\c/\né😀".into()));
        assert_eq!(r.scalar(9).unwrap(), Scalar::TooLong);
        assert_eq!(r.scalar(1).unwrap(), Scalar::Text("A".into()));
        r.end().unwrap();
        // A string whose bytes span many buffers, kept and passed over.
        let long = format!("\"{}\"", "x".repeat(3 * BUFFER + 7));
        assert_eq!(
            Reader::new(long.as_bytes()).scalar(10).unwrap(),
            Scalar::TooLong
        );
        let kept = Reader::new(long.as_bytes()).scalar(4 * BUFFER).unwrap();
        assert_eq!(kept.text().unwrap().len(), 3 * BUFFER + 7);
    }

    #[test]
    fn numbers_literals_and_composites() {
        let mut r = reader("[12, -3.5e2, true, false, null, {\"a\": [1, {}]}, []]");
        let mut got = Vec::new();
        r.array(|r| {
            got.push(r.scalar(64)?);
            Ok(())
        })
        .unwrap();
        assert_eq!(
            got,
            [
                Scalar::Number("12".into()),
                Scalar::Number("-3.5e2".into()),
                Scalar::Bool(true),
                Scalar::Bool(false),
                Scalar::Null,
                Scalar::Composite,
                Scalar::Composite,
            ]
        );
    }

    #[test]
    fn objects_give_their_keys_and_long_keys_are_none() {
        let json = r#"{"id": 1, "a_rather_long_key": {"x": [1, 2, {"y": "z"}]}, "n": "v"}"#;
        let mut keys = Vec::new();
        let mut r = reader(json);
        r.object(8, |r, key| {
            keys.push(key.map(str::to_string));
            r.skip()
        })
        .unwrap();
        r.end().unwrap();
        assert_eq!(keys, [Some("id".into()), None, Some("n".into())]);
    }

    #[test]
    fn what_is_malformed_is_named_with_its_line() {
        for (bad, said) in [
            ("{\"a\": 1,\n \"b\" 2}", "expected ':' at line 2"),
            ("[1, 2", "the file ends too early"),
            ("[1 2]", "expected ',' or a closing bracket"),
            ("{\"a\": [1, 2}", "expected ',' or a closing bracket"),
            ("{\"a\": tru}", "expected a value"),
            ("\"\\x\"", "invalid escape"),
            ("[] x", "trailing characters"),
        ] {
            let mut r = reader(bad);
            let got = r.skip().and_then(|()| r.end()).unwrap_err().to_string();
            assert!(got.contains(said), "{bad:?}: {got}");
        }
        // A person is told the line and why, in either language.
        let e = reader("{\"a\": 1,\n \"b\" 2}").skip().unwrap_err();
        assert_eq!(e.why().english(), "line 2: expected ':'");
        assert_eq!(e.why().french(), "ligne 2\u{a0}: ':' était attendu");
        let e = reader("{\"a\": 1 \"b\": 2}").skip().unwrap_err();
        assert_eq!(
            e.why().french(),
            "ligne 1\u{a0}: ',' ou un crochet fermant était attendu"
        );
        let mut r = reader("{\"a\": 1 \"b\": 2}");
        let e = r.object(8, |r, _| r.skip()).unwrap_err();
        assert_eq!(e.why().french(), "ligne 1\u{a0}: ',' ou '}' était attendu");
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let err = reader(&deep).skip().unwrap_err().to_string();
        assert!(err.contains("nested deeper"), "{err}");
        let fits = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        reader(&fits).skip().unwrap();
    }

    #[test]
    fn offsets_tell_how_long_a_value_was() {
        let mut r = reader(r#"  [1, [2, 3], "four"]  "#);
        r.peek().unwrap();
        let start = r.offset();
        r.skip().unwrap();
        assert_eq!(r.offset() - start, 19);
    }
}
