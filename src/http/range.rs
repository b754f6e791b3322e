//! The one `Range` header form installers and consoles send: a single byte range.
//!
//! Of a list of ranges only the first is served (a 206 with its `Content-Range`, which
//! a client reads as the part it got). An invalid range (`bytes=5-2`, `bytes=x-y`) is
//! refused with a 416 rather than ignored: RFC 9110 §14.2 lets a server "ignore or
//! reject" it, and a refusal tells a buggy client at once instead of sending it a
//! whole game it did not ask for.

/// A range that no byte of the file satisfies: answered 416.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsatisfiable;

/// A single range of a `Range` header for a file of `size` bytes: `Ok(None)` when
/// there is no usable range (serve the whole file), `Err(Unsatisfiable)` when unsatisfiable.
pub fn parse_range(header: &str, size: u64) -> Result<Option<(u64, u64)>, Unsatisfiable> {
    let Some(spec) = header.trim().strip_prefix("bytes=") else {
        return Ok(None);
    };
    let first = spec.split(',').next().unwrap_or("").trim();
    let Some((a, b)) = first.split_once('-') else {
        return Ok(None);
    };
    let (start, end) = match (a.trim(), b.trim()) {
        ("", "") => return Ok(None),
        ("", n) => {
            let n: u64 = n.parse().map_err(|_| Unsatisfiable)?;
            if n == 0 || size == 0 {
                return Err(Unsatisfiable);
            }
            (size.saturating_sub(n), size - 1)
        }
        (a, "") => (
            a.parse().map_err(|_| Unsatisfiable)?,
            size.saturating_sub(1),
        ),
        (a, b) => {
            let (a, b): (u64, u64) = (
                a.parse().map_err(|_| Unsatisfiable)?,
                b.parse().map_err(|_| Unsatisfiable)?,
            );
            if b < a {
                return Err(Unsatisfiable);
            }
            (a, b.min(size.saturating_sub(1)))
        }
    };
    if start >= size {
        return Err(Unsatisfiable);
    }
    Ok(Some((start, end)))
}

/// How to answer a GET or HEAD of a `size`-byte file: the status, the first byte, the
/// length and the headers (`Accept-Ranges`, and `Content-Range` for a range).
pub struct Plan {
    pub status: u16,
    pub start: u64,
    pub len: u64,
    pub headers: Vec<(&'static str, String)>,
}

/// The plan for a request with this `Range` header (or none), or the 416 to answer.
pub fn plan(header: Option<&str>, size: u64) -> Result<Plan, super::Reply> {
    let range = match header.map(|h| parse_range(h, size)) {
        Some(Err(Unsatisfiable)) => {
            let mut reply = empty(416);
            reply
                .headers
                .push(("Content-Range", format!("bytes */{size}")));
            return Err(reply);
        }
        Some(Ok(r)) => r,
        None => None,
    };
    let (start, end) = range.unwrap_or((0, size.saturating_sub(1)));
    let len = if size == 0 { 0 } else { end - start + 1 };
    let mut headers = vec![("Accept-Ranges", "bytes".to_string())];
    if range.is_some() {
        headers.push(("Content-Range", format!("bytes {start}-{end}/{size}")));
    }
    let status = if range.is_some() { 206 } else { 200 };
    Ok(Plan {
        status,
        start,
        len,
        headers,
    })
}

/// A file's reply to `req`: 200, or 206 for its `Range` (416 past its end); the
/// headers alone for a HEAD; else the file streamed from the range's start.
pub fn file(
    req: &super::Req,
    mut file: std::fs::File,
    size: u64,
) -> Result<super::Reply, crate::error::Error> {
    use std::io::{Read, Seek, SeekFrom};
    let plan = match plan(req.header("range"), size) {
        Ok(plan) => plan,
        Err(refused) => return Ok(refused),
    };
    let mut reply = empty(plan.status);
    reply.headers = plan.headers;
    if req.method == "HEAD" {
        reply.status = 200;
        reply.headers.retain(|(n, _)| *n != "Content-Range");
        reply.stream = Some((Box::new(std::io::empty()), size));
        return Ok(reply);
    }
    file.seek(SeekFrom::Start(plan.start))?;
    reply.stream = Some((Box::new(file.take(plan.len)), plan.len));
    Ok(reply)
}

/// A reply without a body: the headers of a HEAD, a 416.
pub fn empty(status: u16) -> super::Reply {
    super::Reply::new(status, "application/octet-stream", Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("bytes=0-15", 100), Ok(Some((0, 15))));
        assert_eq!(parse_range("bytes=90-", 100), Ok(Some((90, 99))));
        assert_eq!(parse_range("bytes=-10", 100), Ok(Some((90, 99))));
        assert_eq!(parse_range("bytes=-1000", 100), Ok(Some((0, 99))));
        assert_eq!(parse_range("bytes=50-1000", 100), Ok(Some((50, 99))));
        assert_eq!(parse_range("bytes=100-", 100), Err(Unsatisfiable));
        assert_eq!(parse_range("bytes=5-2", 100), Err(Unsatisfiable));
        assert_eq!(parse_range("bytes=-0", 100), Err(Unsatisfiable));
        assert_eq!(parse_range("items=1-2", 100), Ok(None));
        assert_eq!(parse_range("bytes=x-y", 100), Err(Unsatisfiable));
    }
}
