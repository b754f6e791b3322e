//! The pager of the web interface's long lists (`/library`, `/files`): first,
//! previous, the page numbers around the current one with gaps, next, last, and a
//! "go to page" form; and reading a page clamped to the list's end.
//!
//! The pages clamp (a page past the end shows the last, a page below 1 or not a
//! number the first) because a person followed a stale link or typed a number; the
//! public API does not (`/api/v1/` answers a page past the end with no items, as
//! `docs/api.md` says), so this lives here and not in `http::params`.

use maud::{html, Markup};

use super::view::{number, Viewer};
use crate::error::i18n::M;
use crate::error::Error;
use crate::http::params::{Paging, DEFAULT_LIMIT};

/// How many page numbers show on each side of the current one.
const AROUND: u64 = 2;

/// A list page's address and its query without `page`: what every link of the pager
/// and the "go to page" form keep.
pub struct Links {
    pub path: &'static str,
    /// Name and value, each only when it is not the default.
    pub params: Vec<(&'static str, String)>,
}

impl Links {
    pub fn new(path: &'static str, limit: u64) -> Links {
        let mut params = Vec::new();
        if limit != DEFAULT_LIMIT {
            params.push(("limit", limit.to_string()));
        }
        Links { path, params }
    }

    /// Keep `name=value` unless the value is empty.
    pub fn keep(&mut self, name: &'static str, value: &str) {
        if !value.is_empty() {
            self.params.push((name, value.to_string()));
        }
    }

    /// The list at `page`; the first page has no `page` parameter.
    pub fn url(&self, page: u64) -> String {
        self.url_with(page, None)
    }

    /// The list at `page` with one parameter changed (a column's sort).
    pub fn url_with(&self, page: u64, change: Option<(&str, &str)>) -> String {
        let mut parts: Vec<String> = self
            .params
            .iter()
            .filter(|(n, _)| change.is_none_or(|(c, _)| c != *n))
            .map(|(n, v)| format!("{n}={}", super::view::query_value(v)))
            .collect();
        if let Some((name, value)) = change {
            parts.push(format!("{name}={}", super::view::query_value(value)));
        }
        if page > 1 {
            parts.push(format!("page={page}"));
        }
        match parts.is_empty() {
            true => self.path.to_string(),
            false => format!("{}?{}", self.path, parts.join("&")),
        }
    }
}

/// The page numbers to show for page `current` of `pages`: the first, the last and
/// those within `AROUND` of the current one, `None` where numbers are left out (a gap
/// never hides a single page: that page shows instead).
pub fn window(current: u64, pages: u64) -> Vec<Option<u64>> {
    if pages == 0 {
        return Vec::new();
    }
    let current = current.clamp(1, pages);
    let mut from = current.saturating_sub(AROUND).max(1);
    let mut to = current.saturating_add(AROUND).min(pages);
    if from == 3 {
        from = 2;
    }
    if pages - to == 2 {
        to = pages - 1;
    }
    let mut out = Vec::new();
    if from > 1 {
        out.push(Some(1));
        if from > 2 {
            out.push(None);
        }
    }
    out.extend((from..=to).map(Some));
    if to < pages {
        if to + 1 < pages {
            out.push(None);
        }
        out.push(Some(pages));
    }
    out
}

/// The pager, when there is more than one page.
pub fn pager(v: &Viewer, links: &Links, page: u64, pages: u64) -> Markup {
    // First and last go on phones (the numbers 1 and the last are there); previous
    // and next keep their arrow, their word read by screen readers only.
    let edge = |n: u64, rel: Option<&str>, class: &str, arrow: &str, word: M| {
        let before = matches!(rel, Some("prev")) || class == "first";
        html! { li class=(class) { a href=(links.url(n)) rel=[rel] {
            @if before { span aria-hidden="true" { (arrow) } " " }
            span.word { (v.t(word)) }
            @if !before { " " span aria-hidden="true" { (arrow) } }
        } } }
    };
    html! {
        @if pages > 1 {
            nav.pager aria-label=(v.t(M::Pages)) {
                ul {
                    @if page > 1 {
                        (edge(1, None, "first", "«", M::FirstPage))
                        (edge(page - 1, Some("prev"), "step", "‹", M::Previous))
                    }
                    @for n in window(page, pages) {
                        @match n {
                            None => li.gap aria-hidden="true" { "…" },
                            Some(n) if n == page => li { span.current aria-current="page" { (number(v, n)) } },
                            Some(n) => li.far[n.abs_diff(page) > 1 && n != 1 && n != pages] {
                                a href=(links.url(n)) aria-label={ (v.t(M::PageOf)) " " (number(v, n)) } { (number(v, n)) }
                            },
                        }
                    }
                    @if page < pages {
                        (edge(page + 1, Some("next"), "step", "›", M::Next))
                        (edge(pages, None, "last", "»", M::LastPage))
                    }
                }
                (goto(v, links, page, pages))
            }
        }
    }
}

/// "Page 3 of 800", and a form that goes to another page (GET, with the list's
/// query kept in hidden fields).
fn goto(v: &Viewer, links: &Links, page: u64, pages: u64) -> Markup {
    html! {
        form.goto method="get" action=(links.path) {
            @for (name, value) in &links.params { input type="hidden" name=(name) value=(value); }
            span.of data-page=(page) data-pages=(pages) { (v.t(M::PageOf)) " " (number(v, page)) " " (v.t(M::Of)) " " (number(v, pages)) }
            label {
                span.visually-hidden { (v.t(M::GoToPage)) }
                input type="number" name="page" min="1" max=(pages) value=(page) inputmode="numeric" required;
            }
            button.secondary type="submit" { (v.t(M::Go)) }
        }
    }
}

/// One page of a list whose length the read tells: `fetch(limit, offset)` returns the
/// list's length and that slice. The page is clamped to the last one (a second read
/// when it was past the end); with `reverse`, the list is read from its end (the
/// caller turns the slice round). Returns the page shown, the length, the slice.
pub fn read<R>(
    paging: Paging,
    reverse: bool,
    mut fetch: impl FnMut(u64, u64) -> Result<(u64, R), Error>,
) -> Result<(u64, u64, R), Error> {
    let (total, first) = fetch(paging.limit, paging.offset())?;
    let page = paging.page.min(paging.pages(total).max(1));
    if page == paging.page && !reverse {
        return Ok((page, total, first));
    }
    let start = (page - 1) * paging.limit;
    let end = (start + paging.limit).min(total);
    let (limit, offset) = match reverse {
        true => (end.saturating_sub(start), total - end),
        false => (paging.limit, start),
    };
    let (total, rows) = fetch(limit, offset)?;
    Ok((page, total, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(current: u64, pages: u64) -> String {
        window(current, pages)
            .iter()
            .map(|n| n.map_or("…".to_string(), |n| n.to_string()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn the_window_shows_the_ends_and_the_neighbours_with_gaps() {
        assert_eq!(shown(1, 1), "1");
        assert_eq!(shown(1, 5), "1 2 3 4 5");
        assert_eq!(shown(1, 800), "1 2 3 … 800");
        assert_eq!(shown(9, 800), "1 … 7 8 9 10 11 … 800");
        assert_eq!(shown(4, 800), "1 2 3 4 5 6 … 800");
        assert_eq!(shown(5, 800), "1 2 3 4 5 6 7 … 800");
        assert_eq!(shown(800, 800), "1 … 798 799 800");
        assert_eq!(shown(797, 800), "1 … 795 796 797 798 799 800");
        // Thousands of pages are counted, not walked.
        assert_eq!(shown(u64::MAX / 2, u64::MAX).split(' ').count(), 9);
    }

    /// A list of `len` numbers read through `read`, as a page does.
    fn page_of(len: u64, page: u64, limit: u64, reverse: bool) -> (u64, Vec<u64>) {
        let list: Vec<u64> = (1..=len).collect();
        let mut reads = 0;
        let (page, total, mut rows) = read(Paging { page, limit }, reverse, |limit, offset| {
            reads += 1;
            let r = crate::library::search::page_range(list.len(), limit, offset);
            Ok((len, list[r].to_vec()))
        })
        .unwrap();
        assert_eq!(total, len);
        assert!(reads <= 2);
        if reverse {
            rows.reverse();
        }
        (page, rows)
    }

    #[test]
    fn a_page_past_the_end_is_the_last_and_reverse_reads_from_the_end() {
        assert_eq!(page_of(12, 2, 5, false), (2, vec![6, 7, 8, 9, 10]));
        assert_eq!(page_of(12, 9999, 5, false), (3, vec![11, 12]));
        assert_eq!(page_of(12, 1, 5, true), (1, vec![12, 11, 10, 9, 8]));
        assert_eq!(page_of(12, 3, 5, true), (3, vec![2, 1]));
        assert_eq!(page_of(12, 70, 5, true), (3, vec![2, 1]));
        assert_eq!(page_of(0, 4, 5, true), (1, vec![]));
        assert_eq!(page_of(0, 1, 5, false), (1, vec![]));
    }

    #[test]
    fn links_keep_the_query_and_leave_out_page_one() {
        let mut l = Links::new("/files", 50);
        assert_eq!(l.url(1), "/files");
        l.keep("q", "a b&c");
        l.keep("type", "");
        assert_eq!(l.url(2), "/files?q=a%20b%26c&page=2");
        let mut l = Links::new("/library", 5);
        l.keep("sort", "size");
        assert_eq!(l.url(1), "/library?limit=5&sort=size");
        assert_eq!(
            l.url_with(1, Some(("sort", "name-desc"))),
            "/library?limit=5&sort=name-desc"
        );
    }
}
