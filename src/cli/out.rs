//! Standard output for the commands. A reader that stops reading (`ludotheque
//! completions bash | head -1`) closes the pipe; `println!` would then panic on the
//! next line ("failed printing to stdout"). Here that ends the output quietly and the
//! command finishes what it was doing, as if the rest had been read. SIGPIPE stays
//! ignored (Rust's default) for every command, not only `serve` whose clients close
//! sockets: the one-shot commands talk to networks too (`titles update`, webhooks).

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use crate::error::i18n::{Lang, M};
use crate::error::{Line, Msg};

/// Set once a write failed: nothing more is written.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Write `bytes` to standard output, or nothing once it is closed.
pub fn write(bytes: &[u8]) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
        CLOSED.store(true, Ordering::Relaxed);
        // A reader gone is normal; anything else (a full disk) is worth a line.
        if e.kind() != ErrorKind::BrokenPipe {
            log::warn!("standard output cannot be written ({e}); the rest is dropped");
        }
    }
}

/// One line of output.
pub fn line(text: &str) {
    write(format!("{text}\n").as_bytes());
}

/// The language the command line speaks, read once from the locale: the first of
/// `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and not empty (POSIX's order).
pub fn lang() -> Lang {
    static LANG: OnceLock<Lang> = OnceLock::new();
    *LANG.get_or_init(|| locale_lang(|name| std::env::var(name).ok()))
}

/// English when the locale names English (`en`, `en_GB.UTF-8`); French, the
/// product's language, for every other locale, `C` and none included: many a French
/// reader's machine says only `C.UTF-8`, while an English reader's names English.
pub fn locale_lang(var: impl Fn(&str) -> Option<String>) -> Lang {
    let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .into_iter()
        .filter_map(var)
        .find(|v| !v.is_empty())
        .unwrap_or_default();
    let language = locale.split(['_', '.', '@']).next().unwrap_or("");
    match language {
        "en" => Lang::En,
        _ => Lang::Fr,
    }
}

/// One line of the catalogue, in the command line's language.
pub fn tell(l: &Line) {
    line(&crate::text::printable(&lang().line(l)));
}

/// A message shared with the web pages (`Msg`), on its own line.
pub fn tell_msg(m: &Msg) {
    line(&crate::text::printable(&lang().msg(m)));
}

/// A label and its value's separator: " : " in French, ": " in English. A plain
/// space, not the web's no-break one, so that the lines stay easy to grep.
pub fn colon() -> &'static str {
    match lang() {
        Lang::Fr => " : ",
        Lang::En => ": ",
    }
}

/// `n` with its thousands grouped as the command line's language does.
pub fn number(n: u64) -> String {
    lang().grammar().number(n)
}

/// A word of the catalogue in the command line's language.
pub fn word(m: M) -> &'static str {
    m.get(lang())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_locale_picks_english_or_french() {
        let with = |vars: &'static [(&str, &str)]| {
            locale_lang(|name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            })
        };
        assert_eq!(with(&[]), Lang::Fr);
        assert_eq!(with(&[("LANG", "en_US.UTF-8")]), Lang::En);
        assert_eq!(with(&[("LANG", "C.UTF-8")]), Lang::Fr);
        assert_eq!(with(&[("LANG", "fr_FR.UTF-8")]), Lang::Fr);
        // LC_ALL wins, and an empty one is not set.
        assert_eq!(with(&[("LC_ALL", "fr_FR"), ("LANG", "en_GB")]), Lang::Fr);
        assert_eq!(with(&[("LC_ALL", ""), ("LANG", "en")]), Lang::En);
        assert_eq!(
            with(&[("LC_MESSAGES", "en@euro"), ("LANG", "fr")]),
            Lang::En
        );
        // "english" is no locale's language code.
        assert_eq!(with(&[("LANG", "eng")]), Lang::Fr);
    }
}
