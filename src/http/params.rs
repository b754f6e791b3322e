//! Query parameters of the public API, read as `docs/api.md` ("The public API") and
//! `openapi.json` say: a value that is not an integer (a word, empty, `1.5`, an overflow) means the
//! default; an integer out of bounds is clamped; neither is an error.

use crate::error::{Error, Msg};
use crate::http::Req;
use crate::words::GameKind;

pub const DEFAULT_LIMIT: u64 = 50;
pub const MAX_LIMIT: u64 = 200;

/// The page in effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub page: u64,
    pub limit: u64,
}

impl Paging {
    pub fn from_req(req: &Req) -> Paging {
        Paging {
            page: lenient(req.query("page"), 1, 1, u64::MAX),
            limit: lenient(req.query("limit"), DEFAULT_LIMIT, 1, MAX_LIMIT),
        }
    }

    pub fn offset(&self) -> u64 {
        (self.page - 1).saturating_mul(self.limit)
    }

    /// ceil(total / limit); 0 when there is nothing.
    pub fn pages(&self, total: u64) -> u64 {
        total.div_ceil(self.limit)
    }
}

fn lenient(value: Option<&str>, default: u64, min: u64, max: u64) -> u64 {
    match value.and_then(|v| v.parse::<i64>().ok()) {
        None => default,
        Some(n) if n < min as i64 => min,
        Some(n) => (n as u64).min(max),
    }
}

/// `type`, case-insensitive; an unknown value is a 400 that names the allowed ones.
pub fn game_type(req: &Req) -> Result<Option<GameKind>, Error> {
    match req.query("type") {
        None => Ok(None),
        Some(value) => GameKind::parse_loose(value)
            .map(Some)
            .ok_or_else(|| Error::invalid(Msg::BadGameType)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_integers() {
        assert_eq!(lenient(None, 50, 1, 200), 50);
        for word in ["abc", "", "1.5", "99999999999999999999", " 3", "0x10"] {
            assert_eq!(lenient(Some(word), 50, 1, 200), 50, "{word:?}");
        }
        assert_eq!(lenient(Some("0"), 50, 1, 200), 1);
        assert_eq!(lenient(Some("-7"), 50, 1, 200), 1);
        assert_eq!(lenient(Some("1000"), 50, 1, 200), 200);
        assert_eq!(lenient(Some("+20"), 50, 1, 200), 20);
        assert_eq!(
            lenient(Some("9223372036854775807"), 1, 1, u64::MAX),
            i64::MAX as u64
        );
    }

    #[test]
    fn pages_and_offsets_never_overflow() {
        let p = Paging {
            page: u64::MAX,
            limit: 200,
        };
        assert_eq!(p.offset(), u64::MAX);
        assert_eq!(Paging { page: 1, limit: 50 }.pages(0), 0);
        assert_eq!(Paging { page: 1, limit: 50 }.pages(101), 3);
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;

    /// Query strings built at random from what clients get wrong: the page in effect
    /// is always within the bounds, and nothing panics.
    #[test]
    fn random_queries_always_give_a_page_within_bounds() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        const PIECES: [&str; 20] = [
            "page",
            "limit",
            "type",
            "=",
            "&",
            "-1",
            "0",
            "1",
            "1.5",
            "200",
            "201",
            "99999999999999999999",
            "%00",
            "%FF",
            "+",
            "%2B5",
            "abc",
            "DLC",
            "%3D",
            " ",
        ];
        let mut rng = StdRng::seed_from_u64(11);
        for _ in 0..100_000 {
            let n = rng.random_range(0..12);
            let query: String = (0..n)
                .map(|_| PIECES[rng.random_range(0..PIECES.len())])
                .collect();
            let req = Req {
                method: "GET".into(),
                path: "/api/v1/library".into(),
                segments: Vec::new(),
                query: crate::http::request::parse_query(&query),
                raw_query: query.clone(),
                headers: Vec::new(),
                peer: None,
                connection: None,
                body: Vec::new(),
            };
            let p = Paging::from_req(&req);
            assert!(
                p.page >= 1 && (1..=MAX_LIMIT).contains(&p.limit),
                "{query:?}"
            );
            let _ = p.offset();
            let _ = p.pages(u64::MAX);
            let _ = game_type(&req);
        }
    }
}
