//! What a search text means. The API, the web interface and the CLI all search the
//! same way: the text is folded like the names (`identify::fold`) and split in words,
//! or read as a title-ID prefix. The search index (`name_index`) answers it.

use super::identify;
use crate::error::{Error, Msg};
use crate::words::GameKind;

/// What a search looks for: words that must all occur in the folded name, or a
/// title-ID prefix (upper-case hex).
#[derive(Default)]
pub struct SearchQuery {
    pub words: Vec<String>,
    pub id_prefix: Option<String>,
    /// Only games of this type (`BASE`…) and of this platform (the web interface's
    /// filters); with no words and no prefix, these alone select.
    pub kind: Option<GameKind>,
    pub platform: Option<String>,
    /// Only the files known to be damaged (the dashboard's card links there).
    pub damaged: bool,
    /// Only the files of this format (`nsp`, `nsz`, `xci`, `xcz`: their key's
    /// extension, in any case).
    pub format: Option<&'static str>,
}

/// The formats the file list can be filtered by.
pub const FORMATS: [&str; 4] = ["nsp", "nsz", "xci", "xcz"];

/// The format of a file by its key's extension, when it is one of [`FORMATS`].
pub fn format_of(key: &str) -> Option<&'static str> {
    let (_, ext) = key.rsplit_once('.')?;
    FORMATS.into_iter().find(|f| ext.eq_ignore_ascii_case(f))
}

/// Where a page lies in a list of `len` held in memory: past the end it is empty,
/// never out of bounds, whatever the numbers a client sent.
pub fn page_range(len: usize, limit: u64, offset: u64) -> std::ops::Range<usize> {
    let from = usize::try_from(offset).unwrap_or(usize::MAX).min(len);
    from..from
        .saturating_add(usize::try_from(limit).unwrap_or(usize::MAX))
        .min(len)
}

/// The longest search text, in bytes, and the most words in it: a name is a few
/// words, and each word is one more term for the search index to match.
pub const MAX_SEARCH_BYTES: usize = 256;
pub const MAX_SEARCH_WORDS: usize = 32;

/// `q` without the blank around it: what the API's schema calls blank (ECMAScript's
/// `\s`) plus NEL, which Rust's `trim` also removes. A q that is only blank is no q,
/// in the API and on the pages alike. Its length is checked before the trim: the
/// API (`openapi.json`) bounds the text sent, blank included.
pub fn trim_blank(q: &str) -> Result<&str, Error> {
    if q.len() > MAX_SEARCH_BYTES {
        return Err(Error::invalid(Msg::SearchTooLong {
            bytes: MAX_SEARCH_BYTES,
            words: MAX_SEARCH_WORDS,
        }));
    }
    Ok(q.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}'))
}

/// What a search text means: folded words that must all occur in a name, or a
/// title-ID prefix (4 to 16 hex digits). Past the bounds above it is a 400.
pub fn search_query(q: &str) -> Result<SearchQuery, Error> {
    let too_long = || {
        Error::invalid(Msg::SearchTooLong {
            bytes: MAX_SEARCH_BYTES,
            words: MAX_SEARCH_WORDS,
        })
    };
    if q.len() > MAX_SEARCH_BYTES {
        return Err(too_long());
    }
    // Control characters (NUL included) are never in a name: they separate words.
    let words: Vec<String> = identify::fold(q)
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    if words.len() > MAX_SEARCH_WORDS {
        return Err(too_long());
    }
    Ok(SearchQuery {
        words,
        id_prefix: (q.len() >= 4 && q.len() <= 16 && q.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| q.to_ascii_uppercase()),
        ..SearchQuery::default()
    })
}
