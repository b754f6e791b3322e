//! A running task in words: who started it, how far it has gone, how long is left.
//! The words are `M`'s and the sentences with values `Msg`'s; this module only puts
//! them together from a job's status.

use super::view::{count, number, size, Viewer};
use crate::error::i18n::M;
use crate::error::Msg;
use crate::words::StartedBy;

/// Who started a task, from the job status's `started_by`.
pub fn started_by(v: &Viewer, by: &StartedBy) -> String {
    let word = match by {
        StartedBy::User(name) => return v.msg(&Msg::StartedByUser { name: name.clone() }),
        StartedBy::Key(name) => return v.msg(&Msg::StartedByKey { name: name.clone() }),
        StartedBy::Cli => M::StartedFromCli,
        StartedBy::Startup => M::StartedAtStartup,
        StartedBy::Watch => M::StartedByWatch,
        StartedBy::Schedule => M::StartedBySchedule,
        StartedBy::Keys => M::StartedByKeys,
        StartedBy::Local => M::StartedHere,
    };
    v.t(word).to_string()
}

/// How far a running task has gone: sizes, speed and time left for bytes; counts and
/// time left for files. `elapsed` is the time since it started, in seconds.
pub fn progress(v: &Viewer, bytes: bool, done: u64, total: u64, elapsed: u64) -> String {
    let mut out = if bytes {
        let (d, t) = (size(v, done), size(v, total));
        format!("{d} {} {t}", v.t(M::Of))
    } else {
        let files = count(v, total, M::FileWord, M::FilesWord);
        format!("{} / {files}", number(v, done))
    };
    // Too early, the rate says nothing.
    if elapsed >= 2 && done > 0 {
        if bytes {
            out += &format!(" · {}/s", size(v, done / elapsed));
        }
        let left = (total.saturating_sub(done) as u128 * elapsed as u128 / done as u128) as u64;
        if total > done {
            out += &format!(" · {}", v.msg(&Msg::TimeLeft { secs: left }));
        }
    }
    out
}

/// "Première analyse en cours (12 705 / 40 000)".
pub fn first_scan(v: &Viewer, done: u64, total: u64) -> String {
    v.msg(&Msg::FirstScan { done, total })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::i18n::Lang;

    fn viewer(lang: Lang) -> Viewer {
        Viewer {
            lang,
            name: None,
            admin: true,
        }
    }

    #[test]
    fn progress_says_sizes_speed_and_time_left() {
        let fr = viewer(Lang::Fr);
        let p = progress(&fr, true, 300_000_000, 900_000_000, 10);
        assert_eq!(p, "300,0 Mo sur 900,0 Mo · 30,0 Mo/s · encore 20 s environ");
        let en = viewer(Lang::En);
        assert_eq!(progress(&en, false, 1, 4000, 0), "1 / 4,000 files");
        assert_eq!(
            progress(&en, false, 1, 4000, 5),
            "1 / 4,000 files · about 5 h 33 min left"
        );
        assert_eq!(
            first_scan(&fr, 12_705, 40_000),
            "Première analyse en cours (12\u{202f}705 / 40\u{202f}000)"
        );
        assert_eq!(
            started_by(&en, &StartedBy::Key("ci".into())),
            "started by the API key “ci”"
        );
        assert_eq!(
            started_by(&fr, &StartedBy::Schedule),
            "lancée par la mise à jour programmée"
        );
        assert_eq!(
            started_by(&en, &StartedBy::Keys),
            "started by new console keys"
        );
        assert_eq!(
            en.say(&Msg::PushEmpty),
            "The push list is empty; nothing was offered."
        );
        assert!(fr.say(&Msg::PushEmpty).starts_with("La liste d'envoi"));
    }
}
