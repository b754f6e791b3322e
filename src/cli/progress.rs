//! The progress bar of a foreground task and the log share standard error. The bar is
//! redrawn in place (`\r`) without a newline, so a log line written meanwhile ran on
//! after it (`[....] 0/0 06:24:22 [INFO] task scan started`). Here both go through
//! one lock: a log line clears the bar's line, takes it, and the bar is drawn again
//! under it, as cargo and apt do.

use std::io::Write;
use std::sync::Mutex;

/// The bar on screen, if any: what a log line must draw again after itself.
static BAR: Mutex<Option<String>> = Mutex::new(None);

/// Draw `line` as the bar, in place of the previous one.
pub fn draw(line: &str) {
    let mut bar = BAR.lock().unwrap_or_else(|e| e.into_inner());
    let _ = write!(std::io::stderr(), "\r{line}\x1b[K");
    *bar = Some(line.to_string());
}

/// Leave the last bar as it is and go to the next line: nothing is drawn again.
pub fn finish() {
    let mut bar = BAR.lock().unwrap_or_else(|e| e.into_inner());
    if bar.take().is_some() {
        let _ = writeln!(std::io::stderr());
    }
}

/// The log's writer: standard error, a whole line at a time, each above the bar.
#[derive(Default)]
pub struct LogWriter {
    pending: Vec<u8>,
}

impl Write for LogWriter {
    /// The logger writes a record in pieces (time, level, text, newline): they are
    /// kept until the newline, so that the bar is never drawn inside a line.
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let bar = BAR.lock().unwrap_or_else(|e| e.into_inner());
            std::io::stderr().write_all(&above(bar.as_deref(), &line))?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// The bytes that put a log `line` (ending in a newline) on screen: as it is with no
/// bar; with one, over the bar's line (cleared first), and the bar again under it.
fn above(bar: Option<&str>, line: &[u8]) -> Vec<u8> {
    match bar {
        None => line.to_vec(),
        Some(bar) => [b"\r\x1b[K", line, bar.as_bytes()].concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a terminal shows of `bytes`, roughly: for each line, what follows its
    /// last carriage return, with the erase-to-end-of-line sequences dropped.
    fn screen(bytes: &[u8]) -> Vec<String> {
        String::from_utf8_lossy(bytes)
            .split('\n')
            .map(|l| {
                l.rsplit('\r')
                    .next()
                    .unwrap_or_default()
                    .replace("\x1b[K", "")
            })
            .collect()
    }

    #[test]
    fn a_log_line_goes_above_the_bar_which_is_drawn_again() {
        let bar = "[#####.....] 3/10 jeu.nsp";
        let mut out = format!("\r{bar}\x1b[K").into_bytes();
        out.extend(above(Some(bar), b"06:24:22 [INFO] task scan started\n"));
        assert_eq!(
            screen(&out),
            ["06:24:22 [INFO] task scan started", bar],
            "{out:?}"
        );
        assert_eq!(above(None, b"a line\n"), b"a line\n");
    }
}
