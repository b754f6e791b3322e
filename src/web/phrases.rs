//! The interface's sentences that hold numbers or names, in both languages: counts
//! with their plural and thousands separators, who started a task, how far it has
//! gone, how long is left. `i18n` holds the fixed words; a sentence with parameters
//! lives here, where the grammar of each language can be written out.

use super::i18n::Lang;
use super::view::Viewer;
use crate::error::Msg;
use crate::numbers;
use crate::words::StartedBy;

/// A number with the reader's thousands separator: "12 705", "12,705".
pub fn num(v: &Viewer, n: u64) -> String {
    match v.lang {
        Lang::Fr => numbers::group(n, numbers::FR_GROUP),
        Lang::En => numbers::group(n, ','),
    }
}

/// A count and its noun: French takes the singular for 0 and 1, English for 1 only.
/// `nouns` is (French singular, French plural, English singular, English plural).
pub fn count(v: &Viewer, n: u64, nouns: (&str, &str, &str, &str)) -> String {
    let noun = match v.lang {
        Lang::Fr if n < 2 => nouns.0,
        Lang::Fr => nouns.1,
        Lang::En if n == 1 => nouns.2,
        Lang::En => nouns.3,
    };
    format!("{} {noun}", num(v, n))
}

pub const FILES: (&str, &str, &str, &str) = ("fichier", "fichiers", "file", "files");
pub const DAMAGED_FILES: (&str, &str, &str, &str) = (
    "fichier endommagé",
    "fichiers endommagés",
    "damaged file",
    "damaged files",
);

/// A message (an error's, a task's) in the reader's language, as a sentence.
pub fn say(v: &Viewer, m: &Msg) -> String {
    let text = match v.lang {
        Lang::Fr => m.french(),
        Lang::En => m.english(),
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text,
    }
}

/// Who started a task, from the job status's `started_by`.
pub fn started_by(v: &Viewer, by: &StartedBy) -> String {
    let fr = v.lang == Lang::Fr;
    match (by, fr) {
        (StartedBy::User(name), true) => format!("lancée par {name}"),
        (StartedBy::User(name), false) => format!("started by {name}"),
        (StartedBy::Key(name), true) => format!("lancée par la clé d'API « {name} »"),
        (StartedBy::Key(name), false) => format!("started by the API key “{name}”"),
        (StartedBy::Cli, true) => "lancée en ligne de commande".into(),
        (StartedBy::Cli, false) => "started from the command line".into(),
        (StartedBy::Startup, true) => "lancée au démarrage du service".into(),
        (StartedBy::Startup, false) => "started when the service started".into(),
        (StartedBy::Watch, true) => "lancée par un changement dans la bibliothèque".into(),
        (StartedBy::Watch, false) => "started by a change in the library".into(),
        (StartedBy::Schedule, true) => "lancée par la mise à jour programmée".into(),
        (StartedBy::Schedule, false) => "started by the scheduled refresh".into(),
        (StartedBy::Keys, true) => "lancée par de nouvelles clés de la console".into(),
        (StartedBy::Keys, false) => "started by new console keys".into(),
        (StartedBy::Local, true) => "lancée depuis cette machine".into(),
        (StartedBy::Local, false) => "started from this machine".into(),
    }
}

/// A duration for people: "45 s", "3 min 20 s", "2 h 05 min".
pub fn duration(secs: u64) -> String {
    match secs {
        0..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min {:02} s", secs / 60, secs % 60),
        _ => format!("{} h {:02} min", secs / 3600, secs % 3600 / 60),
    }
}

/// How far a running task has gone: sizes, speed and time left for bytes; counts and
/// time left for files. `elapsed` is the time since it started, in seconds.
pub fn progress(v: &Viewer, bytes: bool, done: u64, total: u64, elapsed: u64) -> String {
    let fr = v.lang == Lang::Fr;
    let mut out = if bytes {
        let of = if fr { "sur" } else { "of" };
        let (d, t) = (super::view::size(v, done), super::view::size(v, total));
        format!("{d} {of} {t}")
    } else {
        format!("{} / {}", num(v, done), count(v, total, FILES))
    };
    // Too early, the rate says nothing.
    if elapsed >= 2 && done > 0 {
        if bytes {
            out += &format!(" · {}/s", super::view::size(v, done / elapsed));
        }
        let left = (total.saturating_sub(done) as u128 * elapsed as u128 / done as u128) as u64;
        if total > done {
            let left = duration(left);
            out += &if fr {
                format!(" · encore {left} environ")
            } else {
                format!(" · about {left} left")
            };
        }
    }
    out
}

/// "Premier scan en cours (12 705 / 40 000)".
pub fn first_scan(v: &Viewer, done: u64, total: u64) -> String {
    match v.lang {
        Lang::Fr => format!(
            "Premier scan en cours ({} / {})",
            num(v, done),
            num(v, total)
        ),
        Lang::En => format!(
            "First scan under way ({} / {})",
            num(v, done),
            num(v, total)
        ),
    }
}

/// A scan's note on a file (`library::probe` writes it in English, for the API), in
/// the reader's language.
pub fn note(v: &Viewer, note: &str) -> String {
    match v.lang {
        Lang::En => note.to_string(),
        Lang::Fr => crate::error::french_detail(note),
    }
}

/// A label and its value's separator: "Dernier résultat : " or "Last result: ".
pub fn colon(v: &Viewer) -> &'static str {
    match v.lang {
        Lang::Fr => "\u{a0}: ",
        Lang::En => ": ",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn viewer(lang: Lang) -> Viewer {
        Viewer {
            lang,
            name: None,
            admin: true,
        }
    }

    #[test]
    fn counts_take_the_plural_each_language_wants() {
        let (fr, en) = (viewer(Lang::Fr), viewer(Lang::En));
        assert_eq!(count(&fr, 0, FILES), "0 fichier");
        assert_eq!(count(&fr, 1, FILES), "1 fichier");
        assert_eq!(count(&fr, 12_705, FILES), "12\u{202f}705 fichiers");
        assert_eq!(count(&en, 0, FILES), "0 files");
        assert_eq!(count(&en, 1, FILES), "1 file");
        assert_eq!(count(&en, 12_705, FILES), "12,705 files");
    }

    #[test]
    fn progress_says_sizes_speed_and_time_left() {
        let fr = viewer(Lang::Fr);
        let p = progress(&fr, true, 300_000_000, 900_000_000, 10);
        assert_eq!(p, "300,0 Mo sur 900,0 Mo · 30,0 Mo/s · encore 20 s environ");
        let en = viewer(Lang::En);
        assert_eq!(progress(&en, false, 1, 4000, 0), "1 / 4,000 files");
        assert_eq!(duration(200), "3 min 20 s");
        assert_eq!(duration(7500), "2 h 05 min");
        assert_eq!(
            say(&en, &Msg::PushEmpty),
            "The push list is empty; nothing was offered."
        );
        assert!(say(&fr, &Msg::PushEmpty).starts_with("La liste d'envoi"));
        let n = note(
            &fr,
            "the container could not be read: no PFS0 header where one is expected",
        );
        assert_eq!(
            n,
            "le conteneur est illisible\u{a0}: pas d'en-tête PFS0 là où il en faut un"
        );
    }
}
