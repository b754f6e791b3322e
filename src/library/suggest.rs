//! "Did you mean": when a search finds nothing, the nearest spelling of its words
//! among the library's names ("zelad" → "zelda"), offered as a link, as Jellyfin and
//! the search engines do.
//!
//! Bounded work: the names are not compared one by one. Their distinct folded words
//! (the vocabulary, about 20,000 for 100,000 files) are gathered once per index, on
//! the first search that needs it, with how many names hold each. A word of the
//! search that occurs in no name is compared with the vocabulary's words of nearly
//! its length only, by an edit distance that stops as soon as it passes the bound
//! (1 edit for words up to 4 letters, 2 beyond): at most 20,000 × 32 × 5 cell
//! updates per word, a few milliseconds, and only for a search that found nothing.
//! At most `MAX_FIXED` words are corrected.

use std::collections::HashMap;

/// The most words of one search corrected.
const MAX_FIXED: usize = 4;
/// Words shorter than this are never corrected (too many near neighbours).
const MIN_LEN: usize = 3;

/// The library's distinct folded words, with how many names hold each.
pub struct Vocabulary {
    words: Vec<(Vec<char>, u32)>,
}

impl Vocabulary {
    /// Every word of the names (split where the search splits a text, and on
    /// punctuation, which a name holds but a search word rarely ends with).
    pub fn of<'a>(names: impl Iterator<Item = &'a str>) -> Vocabulary {
        let mut counts: HashMap<&str, u32> = HashMap::new();
        for name in names {
            for w in name.split(|c: char| !c.is_alphanumeric()) {
                if w.chars().count() >= MIN_LEN {
                    *counts.entry(w).or_default() += 1;
                }
            }
        }
        let mut words: Vec<(Vec<char>, u32)> = counts
            .into_iter()
            .map(|(w, n)| (w.chars().collect(), n))
            .collect();
        // A stable order, so that equals always give the same answer.
        words.sort_unstable();
        Vocabulary { words }
    }

    /// The nearest word within the bound, the most common among equals.
    fn nearest(&self, word: &str) -> Option<String> {
        let w: Vec<char> = word.chars().collect();
        if w.len() < MIN_LEN {
            return None;
        }
        let bound = if w.len() <= 4 { 1 } else { 2 };
        let mut best: Option<(usize, u32, &[char])> = None;
        for (candidate, count) in &self.words {
            if candidate.len().abs_diff(w.len()) > bound {
                continue;
            }
            let Some(d) = distance_within(&w, candidate, bound) else {
                continue;
            };
            let better = best.is_none_or(|(bd, bc, _)| d < bd || (d == bd && *count > bc));
            if d > 0 && better {
                best = Some((d, *count, candidate));
            }
        }
        best.map(|(_, _, c)| c.iter().collect())
    }
}

/// What a suggestion asks of the names it corrects against (the search index,
/// `name_index::NameIndex`, answers): a trait, so that this file needs nothing of the
/// index's layout and the index can keep its vocabulary beside it.
pub trait Words {
    /// The names' distinct words.
    fn vocabulary(&self) -> &Vocabulary;
    /// Whether some name holds this word.
    fn holds_word(&self, word: &str) -> bool;
    /// Whether some name holds all these words.
    fn holds_all(&self, words: &[String]) -> bool;
}

/// The search text with its words that occur in no name replaced by their nearest
/// spelling, when that finds something; `None` otherwise.
pub fn suggest(index: &impl Words, words: &[String]) -> Option<String> {
    // A title ID (or its start) is no misspelt word.
    if let [only] = words {
        if only.len() >= 4 && only.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
    }
    let vocabulary = index.vocabulary();
    let mut fixed = 0;
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        let found = index.holds_word(w);
        match (found, fixed < MAX_FIXED) {
            (false, true) => {
                out.push(vocabulary.nearest(w)?);
                fixed += 1;
            }
            (false, false) => return None,
            (true, _) => out.push(w.clone()),
        }
    }
    (fixed > 0 && index.holds_all(&out)).then(|| out.join(" "))
}

/// The Levenshtein distance of `a` and `b` when it is at most `bound`, else `None`:
/// one row at a time, given up as soon as a whole row is past the bound.
fn distance_within(a: &[char], b: &[char], bound: usize) -> Option<usize> {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        row[0] = i + 1;
        let mut least = row[0];
        for (j, cb) in b.iter().enumerate() {
            let swap = prev[j] + usize::from(ca != cb);
            row[j + 1] = swap.min(prev[j + 1] + 1).min(row[j] + 1);
            least = least.min(row[j + 1]);
        }
        if least > bound {
            return None;
        }
        std::mem::swap(&mut prev, &mut row);
    }
    (prev[b.len()] <= bound).then_some(prev[b.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn the_distance_is_levenshtein_within_its_bound() {
        for (a, b, d) in [
            ("zelda", "zelad", Some(2)),
            ("zelda", "zeld", Some(1)),
            ("kart", "kart", Some(0)),
            ("potions", "potion", Some(1)),
            ("odyssey", "odysey", Some(1)),
            ("zephyr", "moonlit", None),
        ] {
            assert_eq!(distance_within(&chars(a), &chars(b), 2), d, "{a} {b}");
        }
        assert_eq!(distance_within(&chars("zelda"), &chars("zelad"), 1), None);
    }

    #[test]
    fn the_nearest_word_is_the_closest_then_the_most_common() {
        let v = Vocabulary::of(
            [
                "the legend of zephyr",
                "zephyr trials",
                "moonlit odyssey",
                "zepher",
            ]
            .into_iter(),
        );
        assert_eq!(v.nearest("zephir").as_deref(), Some("zephyr"));
        assert_eq!(v.nearest("odysey").as_deref(), Some("odyssey"));
        assert_eq!(v.nearest("xyzzy"), None);
        assert_eq!(v.nearest("ab"), None);
    }
}
