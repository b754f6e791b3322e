//! Standard output for the commands. A reader that stops reading (`ludotheque
//! completions bash | head -1`) closes the pipe; `println!` would then panic on the
//! next line ("failed printing to stdout"). Here that ends the output quietly and the
//! command finishes what it was doing, as if the rest had been read. SIGPIPE stays
//! ignored (Rust's default) for every command, not only `serve` whose clients close
//! sockets: the one-shot commands talk to networks too (`titles update`, webhooks).

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

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
