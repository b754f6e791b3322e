//! The command line's French for what goes wrong: an error, printed once (each
//! message's French is in `error::french`, shared with the web interface), and
//! clap's usage errors, which clap writes in English.

use std::io::Write;

use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::error::{Error, Kind};
use crate::text::printable;

/// The line printed for an error.
pub fn error_line(e: &Error) -> String {
    match e.kind {
        Kind::Internal => "erreur interne de ludotheque".into(),
        _ => format!("erreur : {}", e.msg.french()),
    }
}

/// Print an error once, on standard error: its French line, then its cause when it
/// has one (in the words of the system or library that failed, for whoever fixes
/// it). The log does not repeat it.
pub fn report(e: &Error) {
    let mut text = printable(&error_line(e)).into_owned();
    if let Some(cause) = &e.cause {
        text.push_str("\n  détail : ");
        text.push_str(&printable(cause));
    }
    // Nowhere left to say it when standard error is closed too.
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// A usage error in French, then exit 2 as clap does; `--help`, `--version` and a
/// command named without its subcommand (its help) are printed by clap, from the
/// French tree.
pub fn usage_error(e: clap::Error) -> ! {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    let mut text = format!("erreur : {}", printable(&sentence(&e)));
    if let Some(ContextValue::StyledStr(usage)) = e.get(ContextKind::Usage) {
        let usage = usage.to_string();
        let usage = usage.trim_start_matches("Usage:").trim();
        text.push_str(&format!("\n\nUtilisation : {usage}"));
    }
    text.push_str("\n\nPour en savoir plus : « --help ».");
    let _ = writeln!(std::io::stderr(), "{text}");
    std::process::exit(2)
}

/// What clap found wrong, in French.
fn sentence(e: &clap::Error) -> String {
    let one = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        _ => String::new(),
    };
    let (arg, value) = (one(ContextKind::InvalidArg), one(ContextKind::InvalidValue));
    let mut out = match e.kind() {
        ErrorKind::UnknownArgument => format!("argument inattendu « {arg} »"),
        ErrorKind::InvalidSubcommand => {
            format!(
                "commande inconnue « {} »",
                one(ContextKind::InvalidSubcommand)
            )
        }
        ErrorKind::InvalidValue if value.is_empty() => {
            format!("« {arg} » demande une valeur")
        }
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            format!("valeur « {value} » invalide pour « {arg} »")
        }
        ErrorKind::MissingRequiredArgument => format!("argument requis absent : {arg}"),
        ErrorKind::MissingSubcommand => format!(
            "« {} » demande une commande",
            one(ContextKind::InvalidSubcommand)
        ),
        ErrorKind::ArgumentConflict => match one(ContextKind::PriorArg) {
            prior if prior == arg => format!("« {arg} » ne peut être donné qu'une fois"),
            prior => format!("« {arg} » ne peut pas être donné avec « {prior} »"),
        },
        ErrorKind::TooManyValues => format!("valeur « {value} » en trop pour « {arg} »"),
        ErrorKind::WrongNumberOfValues | ErrorKind::TooFewValues => {
            format!("« {arg} » n'a pas le bon nombre de valeurs")
        }
        ErrorKind::NoEquals => format!("« {arg} » demande un signe = avant sa valeur"),
        ErrorKind::InvalidUtf8 => "un argument n'est pas de l'UTF-8 valide".into(),
        _ => "la ligne de commande n'est pas valide".into(),
    };
    out.push_str(&hints(e));
    out
}

/// The possible values or commands, and clap's suggestion, when it has them.
fn hints(e: &clap::Error) -> String {
    let list = |kind| match e.get(kind) {
        Some(ContextValue::Strings(v)) if !v.is_empty() => Some(v.join(", ")),
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let mut out = String::new();
    if let Some(values) = list(ContextKind::ValidValue) {
        out.push_str(&format!(" ; valeurs possibles : {values}"));
    }
    if let Some(commands) = list(ContextKind::ValidSubcommand) {
        out.push_str(&format!(" ; commandes : {commands}"));
    }
    let suggested = list(ContextKind::SuggestedArg).or(list(ContextKind::SuggestedSubcommand));
    if let Some(suggested) = suggested {
        out.push_str(&format!(" ; vouliez-vous dire « {suggested} » ?"));
    }
    if e.kind() == ErrorKind::ValueValidation {
        if let Some(source) = std::error::Error::source(e) {
            out.push_str(&format!(" ({source})"));
        }
    }
    out
}
