//! The console's download route, `/dl/{token}/{name}`: the bytes of the files of the
//! push under way, reachable only with that push's token and only while it runs. No
//! key and no session (the console has neither). HEAD, GET with one range (suffix and
//! open-ended ranges included; 416 when unsatisfiable), GET of the whole file, and the
//! installer's `DROP` (the session is over).

use std::io::{Read, Seek, SeekFrom, Take};
use std::sync::Arc;
use std::time::Instant;

use crate::device::{Session, Sessions};
use crate::error::{Error, Msg};
use crate::http::range;
use crate::http::{Ctx, Reply};

fn no_such_download() -> Error {
    Error::not_found(Msg::NoSuchDownload)
}

pub fn download(c: &Ctx) -> Result<Reply, Error> {
    let (token, name) = (c.param(0), c.param(1));
    let sessions = Arc::clone(&c.app.push);
    let mut guard = sessions.lock();
    let session = guard
        .as_mut()
        .filter(|s| !token.is_empty() && s.token == token)
        .ok_or_else(no_such_download)?;
    note_contact(session, c);
    if c.req.method == "DROP" {
        session.dropped = true;
        return Ok(empty(200, Vec::new()));
    }
    let index = session
        .files
        .iter()
        .position(|f| f.name == name)
        .ok_or_else(no_such_download)?;
    let file = &session.files[index];
    session.current = file.key.to_string();
    let (key, size) = (file.key.clone(), file.size);
    let plan = match range::plan(c.req.header("range"), size) {
        Ok(plan) => plan,
        Err(refused) => return Ok(refused),
    };
    if c.req.method == "HEAD" {
        drop(guard);
        let mut reply = empty(200, plan.headers);
        reply.stream = Some((Box::new(std::io::empty()), size));
        return Ok(reply);
    }
    // Never through a link out of the library, even one put there since the scan.
    let mut f = crate::library::safe::open_for_client(&c.app.config.folders(), &key)?;
    f.seek(SeekFrom::Start(plan.start))?;
    session.active += 1;
    drop(guard);
    let reader = Counting {
        inner: f.take(plan.len),
        sessions,
        token: token.to_string(),
        index,
        pos: plan.start,
    };
    let mut reply = empty(plan.status, plan.headers);
    reply.stream = Some((Box::new(reader), plan.len));
    Ok(reply)
}

/// The console was heard from: what the device page shows of it.
fn note_contact(session: &mut Session, c: &Ctx) {
    session.requests += 1;
    session.last_activity = Instant::now();
    session.first_contact.get_or_insert_with(crate::time::now);
    if let Some(agent) = c.req.header("user-agent") {
        session.client = Some(agent.chars().take(100).collect());
    }
}

fn empty(status: u16, headers: Vec<(&'static str, String)>) -> Reply {
    let mut reply = range::empty(status);
    reply.headers = headers;
    reply
}

/// Streams a file range and notes, as bytes go out, which ranges were served.
struct Counting {
    inner: Take<std::fs::File>,
    sessions: Arc<Sessions>,
    token: String,
    index: usize,
    pos: u64,
}

impl Read for Counting {
    /// Once the push is over (ended, cancelled, the service stopping), its downloads
    /// stop too: the token is valid only while the push runs.
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut guard = self.sessions.lock();
        let Some(s) = guard.as_mut().filter(|s| s.token == self.token) else {
            return Err(std::io::Error::other("the push is over"));
        };
        if n > 0 {
            s.files[self.index]
                .served
                .add(self.pos, self.pos + n as u64);
            s.last_activity = Instant::now();
            self.pos += n as u64;
        }
        Ok(n)
    }
}

impl Drop for Counting {
    fn drop(&mut self) {
        if let Some(s) = self
            .sessions
            .lock()
            .as_mut()
            .filter(|s| s.token == self.token)
        {
            s.active = s.active.saturating_sub(1);
        }
    }
}
