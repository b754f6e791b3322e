//! The command line's French: the error line (each message's French is in
//! `error::french`, shared with the web interface), and the words of the task slot.

use crate::error::{Error, Kind};

/// The line printed for an error.
pub fn error_line(e: &Error) -> String {
    match e.kind {
        Kind::Internal => "erreur interne : le détail est dans le journal ci-dessus.".into(),
        _ => format!("erreur : {}", e.msg.french()),
    }
}
