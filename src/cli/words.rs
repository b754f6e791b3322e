//! What goes wrong, as the command line says it: an error, printed once, and
//! clap's usage errors, said as lines of the catalogue (`error::Line`) in the
//! command line's language (`out::lang`).

use std::io::Write;

use clap::error::{ContextKind, ContextValue, ErrorKind};

use super::out::lang;
use crate::error::{Error, Kind, Line};
use crate::text::printable;

/// The line printed for an error.
pub fn error_line(e: &Error) -> String {
    lang().line(&match e.kind {
        Kind::Internal => Line::InternalError,
        _ => Line::Error {
            message: lang().msg(&e.msg),
        },
    })
}

/// Print an error once, on standard error: its line, then its cause when it has
/// one (in the words of the system or library that failed, for whoever fixes it).
/// The log does not repeat it.
pub fn report(e: &Error) {
    let mut text = printable(&error_line(e)).into_owned();
    if let Some(cause) = &e.cause {
        let cause = printable(cause).into_owned();
        text.push_str("\n  ");
        text.push_str(&lang().line(&Line::Cause { cause }));
    }
    // Nowhere left to say it when standard error is closed too.
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// A usage error in the command line's language, then exit 2 as clap does;
/// `--help`, `--version` and a command named without its subcommand (its help) are
/// printed by clap, from the tree in that language.
pub fn usage_error(e: clap::Error) -> ! {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    let message = printable(&sentence(&e)).into_owned();
    let mut text = lang().line(&Line::Error { message });
    if let Some(ContextValue::StyledStr(usage)) = e.get(ContextKind::Usage) {
        let usage = usage.to_string();
        let usage = usage.trim_start_matches("Usage:").trim().to_string();
        text.push_str("\n\n");
        text.push_str(&lang().line(&Line::Usage { usage }));
    }
    text.push_str("\n\n");
    text.push_str(&lang().line(&Line::UsageMore));
    let _ = writeln!(std::io::stderr(), "{text}");
    std::process::exit(2)
}

/// What clap found wrong, as a message.
fn sentence(e: &clap::Error) -> String {
    let one = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        _ => String::new(),
    };
    let (arg, value) = (one(ContextKind::InvalidArg), one(ContextKind::InvalidValue));
    let msg = match e.kind() {
        ErrorKind::UnknownArgument => Line::UsageUnknownArgument { arg },
        ErrorKind::InvalidSubcommand => Line::UsageUnknownCommand {
            name: one(ContextKind::InvalidSubcommand),
        },
        ErrorKind::InvalidValue if value.is_empty() => Line::UsageNeedsValue { arg },
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => Line::UsageBadValue { arg, value },
        ErrorKind::MissingRequiredArgument => Line::UsageMissing { arg },
        ErrorKind::MissingSubcommand => Line::UsageNeedsCommand {
            name: one(ContextKind::InvalidSubcommand),
        },
        ErrorKind::ArgumentConflict => match one(ContextKind::PriorArg) {
            prior if prior == arg => Line::UsageOnce { arg },
            prior => Line::UsageConflict { arg, prior },
        },
        ErrorKind::TooManyValues => Line::UsageExtraValue { arg, value },
        ErrorKind::WrongNumberOfValues | ErrorKind::TooFewValues => Line::UsageValueCount { arg },
        ErrorKind::NoEquals => Line::UsageNoEquals { arg },
        ErrorKind::InvalidUtf8 => Line::UsageNotUtf8,
        _ => Line::UsageInvalid,
    };
    let mut out = lang().line(&msg);
    for hint in hints(e) {
        out.push_str(&lang().line(&hint));
    }
    out
}

/// The possible values or commands, and clap's suggestion, when it has them.
fn hints(e: &clap::Error) -> Vec<Line> {
    let list = |kind| match e.get(kind) {
        Some(ContextValue::Strings(v)) if !v.is_empty() => Some(v.join(", ")),
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let mut out = Vec::new();
    if let Some(values) = list(ContextKind::ValidValue) {
        out.push(Line::UsageValues { values });
    }
    if let Some(commands) = list(ContextKind::ValidSubcommand) {
        out.push(Line::UsageCommands { commands });
    }
    let suggested = list(ContextKind::SuggestedArg).or(list(ContextKind::SuggestedSubcommand));
    if let Some(suggested) = suggested {
        out.push(Line::UsageDidYouMean { suggested });
    }
    if e.kind() == ErrorKind::ValueValidation {
        if let Some(source) = std::error::Error::source(e) {
            // clap's validator's own words (a number out of range), in English.
            out.push(Line::UsageWhy {
                why: source.to_string(),
            });
        }
    }
    out
}
