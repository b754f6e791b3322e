//! Who is calling, and may they? Applied to every route but the public ones, before
//! the handler runs.
//!
//! - A presented key (header `X-Api-Key` first, then query `apikey`) selects the key's
//!   regime wherever the request comes from: unknown, malformed or revoked → 401; a
//!   valid key outside `/api/v1/` → 403; a read-only key on a state change → 403.
//! - Without a key, a live session cookie (see `accounts`) selects its account: an
//!   admin may do anything outside `/api/v1/`'s key regime, a viewer only looks (403
//!   on every change but its own sign-out, language and password).
//! - Without either, the loopback rule: a request from 127.0.0.0/8 or ::1, with no
//!   forwarding header and a loopback `Host`, gets full local access when the program
//!   at the other end runs as root, as the service's own user or as a user of
//!   `--local-access-users` (see `owner`; `--local-access any`: whoever runs it;
//!   `off` or `--no-local-access`: never). Anything else is 401.
//! - Wrong secrets (a key, a console password, a password at sign-in, a setup code)
//!   are limited per TCP peer address; a request that presents none costs nothing.
//!   Passwords and setup codes are not even looked at once the address is out of
//!   attempts (429 whatever they are); a valid key keeps working there, limited per
//!   key.
//! - State-changing requests that announce a foreign origin are 403 `cross_origin`.

pub(crate) mod owner;

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::sync::Mutex;

use rusqlite::Connection;

use super::ratelimit::Buckets;
use super::App;
use super::Req;
use crate::accounts;
use crate::config::{Config, LocalAccess};
use crate::consoles;
use crate::error::{Error, Kind, Msg};
use crate::keys;
use crate::store::users::User;

/// The caller, once authenticated.
#[derive(Debug, Clone)]
pub enum Principal {
    /// A keyless request from this machine, under the loopback rule.
    Local,
    /// An API key: its id and display prefix (for the access log).
    Key { id: i64, prefix: String },
    /// A signed-in account of the web interface.
    User(User),
    /// A console pulling from the shop, by its name.
    Console(String),
    /// Anyone pulling from a public shop without a console's password, known by its
    /// network (`client_net`): kept apart from every console, whatever it is named.
    Visitor(String),
    /// Nobody yet: the caller of a public route.
    Anonymous,
}

impl Principal {
    /// The console that called; a route whose access lets only consoles in never
    /// meets anyone else, and says so if it does.
    pub fn console(&self) -> Result<&str, Error> {
        match self {
            Principal::Console(name) => Ok(name),
            _ => Err(Error::new(
                crate::error::Kind::Unauthorized,
                Msg::ConsoleCredentialsRequired,
            )),
        }
    }

    /// May this caller change things outside the key regime (the web interface)?
    pub fn is_admin(&self) -> bool {
        match self {
            Principal::Local => true,
            Principal::User(u) => u.is_admin(),
            Principal::Key { .. }
            | Principal::Console(_)
            | Principal::Visitor(_)
            | Principal::Anonymous => false,
        }
    }

    /// What the access log says of the caller.
    pub fn log_name(&self) -> Option<String> {
        match self {
            Principal::Key { prefix, .. } => Some(prefix.clone()),
            Principal::User(u) => Some(format!("user:{}", u.name)),
            Principal::Console(name) => Some(format!("console:{name}")),
            Principal::Visitor(net) => Some(format!("visitor:{net}")),
            Principal::Local | Principal::Anonymous => None,
        }
    }
}

/// The rate limiters of the service.
pub struct Limits {
    pub keys: Buckets<i64>,
    pub failures: Buckets<IpAddr>,
    /// Sign-in attempts per peer address, failed or not: each costs an Argon2 hash.
    pub logins: Buckets<IpAddr>,
}

impl Limits {
    pub fn new(config: &Config) -> Limits {
        let per_minute = config.serve.auth_failures_per_minute as f64;
        Limits {
            keys: Buckets::new(config.serve.key_rate, config.serve.key_burst, 10_000),
            failures: Buckets::new(per_minute / 60.0, per_minute, 10_000),
            logins: Buckets::new(per_minute / 60.0, per_minute, 10_000),
        }
    }
}

/// Authenticate, rate-limit and check the origin of a request to a non-public route.
/// `own` marks the routes a viewer may still change (its own sign-out, language and
/// password).
pub fn authorize(app: &App, db: &Connection, req: &Req, own: bool) -> Result<Principal, Error> {
    let principal = authenticate(app, db, req)?;
    match &principal {
        Principal::Key { id, .. } => {
            // A key opens the public API and the metrics, nothing else.
            if !req.path.starts_with("/api/v1/") && req.path != "/metrics" {
                return Err(Error::forbidden(Msg::KeyOutOfScope));
            }
            app.limits.keys.take(id).map_err(Error::rate_limited)?;
        }
        Principal::User(u) if !u.is_admin() && !own && changes_state(req) => {
            return Err(Error::forbidden(Msg::ViewerReadOnly));
        }
        _ => {}
    }
    if changes_state(req) {
        check_origin(req)?;
    }
    Ok(principal)
}

/// Who may pull from the shop. An API key is refused (403: keys are the public API's
/// alone); a console's name and password (HTTP Basic) open it; without them the shop
/// is open only with `--shop-public`, and the caller is known by its address. A wrong
/// password costs the address a token of the failure limit, and an address out of
/// them has its passwords not even checked (429). With `--shop-public` nothing is
/// refused: a console's right password still names it (its share, its history), any
/// other is served as anyone and counts nothing (it opens nothing the shop does not
/// give anyone), so a console set up before, or since removed, keeps working and
/// does not use up its address's attempts.
pub fn authorize_shop(app: &App, db: &Connection, req: &Req) -> Result<Principal, Error> {
    if req.header("x-api-key").is_some() || req.query("apikey").is_some() {
        return Err(Error::forbidden(Msg::KeyNotForShop));
    }
    let public = app.config.serve.shop_public;
    let anyone = || {
        Principal::Visitor(
            client_ip(&app.config, req)
                .map(|ip| client_net(ip).to_string())
                .unwrap_or_else(|| "?".into()),
        )
    };
    let refused = || Error::new(Kind::Unauthorized, Msg::ShopCredentialsRequired);
    let Some((name, password)) = basic_credentials(req) else {
        // Nothing presented, nothing guessed: nothing counted.
        return if public { Ok(anyone()) } else { Err(refused()) };
    };
    let limited = check_failures(app, req);
    if public && limited.is_err() {
        return Ok(anyone());
    }
    limited?;
    if let Some(console) = console_of(app, db, req, (&name, &password))? {
        return Ok(console);
    }
    if public {
        return Ok(anyone());
    }
    count_failure(app, req)?;
    Err(refused())
}

/// Who may reach a console's own space (`Access::Console`: its save backups): a
/// console's name and password, always; `--shop-public`, API keys, sessions and the
/// loopback rule open none of it. Missing or wrong credentials are a 401 that asks
/// for them; wrong ones count as a failed sign-in, as in the shop.
pub fn authorize_console(app: &App, db: &Connection, req: &Req) -> Result<Principal, Error> {
    let refused = || Error::new(Kind::Unauthorized, Msg::ConsoleCredentialsRequired);
    let Some((name, password)) = basic_credentials(req) else {
        return Err(refused());
    };
    check_failures(app, req)?;
    if let Some(console) = console_of(app, db, req, (&name, &password))? {
        return Ok(console);
    }
    count_failure(app, req)?;
    Err(refused())
}

/// The console a name and password open, its request noted (from where, by which
/// program) for its page.
fn console_of(
    app: &App,
    db: &Connection,
    req: &Req,
    (name, password): (&str, &str),
) -> Result<Option<Principal>, Error> {
    let from = client_ip(&app.config, req).map_or_else(|| "?".into(), |ip| ip.to_string());
    let console = consoles::check(db, name, password, (&from, &client_name(req)))?;
    Ok(console.map(|c| Principal::Console(c.name)))
}

/// Which program sent a request, from its headers, for a console's page: CyberFoil
/// (its agent, with the version its Tinfoil-style headers carry), Tinfoil (those
/// headers alone), DBI, Sphaira, JKSV, rclone, else the agent's first word.
pub fn client_name(req: &Req) -> String {
    let clean = |s: &str| -> String { s.chars().filter(|c| !c.is_control()).collect() };
    let agent = clean(req.header("user-agent").unwrap_or("").trim());
    let lower = agent.to_ascii_lowercase();
    let version = req
        .header("version")
        .map(|v| format!(" {}", crate::text::cut(&clean(v.trim()), 16)))
        .unwrap_or_default();
    let known = [
        ("cyberfoil", "CyberFoil"),
        ("dbi", "DBI"),
        ("sphaira", "Sphaira"),
        ("jksv", "JKSV"),
        ("rclone", "rclone"),
        ("tinfoil", "Tinfoil"),
    ];
    if let Some((_, name)) = known.iter().find(|(k, _)| lower.contains(k)) {
        let version = if matches!(*name, "CyberFoil" | "Tinfoil") {
            version
        } else {
            String::new()
        };
        return format!("{name}{version}");
    }
    if req.header("theme").is_some() || req.header("uid").is_some() {
        return format!("Tinfoil{version}");
    }
    let first = agent.split_whitespace().next().unwrap_or("");
    crate::text::cut(first, 40).to_string()
}

/// The name and password of an `Authorization: Basic` header, if it holds a
/// well-formed pair.
pub fn basic_credentials(req: &Req) -> Option<(String, String)> {
    use base64ct::{Base64, Encoding};
    let value = req.header("authorization")?.trim();
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = Base64::decode_vec(encoded.trim()).ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (name, password) = text.split_once(':')?;
    Some((name.to_string(), password.to_string()))
}

/// The session token of the request's cookie, if it carries one.
pub fn session_cookie(req: &Req) -> Option<&str> {
    req.cookie(accounts::COOKIE)
}

/// The account of the request's session cookie, if it is live. A stale or forged
/// cookie is no error: the caller is simply not signed in.
pub fn session_user(db: &Connection, req: &Req) -> Result<Option<User>, Error> {
    match session_cookie(req) {
        Some(token) => accounts::session_user(db, token),
        None => Ok(None),
    }
}

/// The key's regime when a key is presented (a wrong one costs a token); else a live
/// session; else the loopback rule; else 401, at no cost: a session that has ended
/// is no guess (its token has 256 bits), nor is a request that presents nothing.
fn authenticate(app: &App, db: &Connection, req: &Req) -> Result<Principal, Error> {
    if let Some(secret) = req.header("x-api-key").or_else(|| req.query("apikey")) {
        let Some(k) = keys::check(db, secret)? else {
            return Err(failed_attempt(app, req));
        };
        if k.read_only && changes_state(req) {
            return Err(Error::forbidden(Msg::KeyReadOnly));
        }
        return Ok(Principal::Key {
            id: k.id,
            prefix: k.prefix,
        });
    }
    // The proxy's word before a session: it is who signs people in and out.
    if let Some(user) = proxy_user(app, db, req)? {
        return Ok(Principal::User(user));
    }
    if let Some(user) = session_user(db, req)? {
        return Ok(Principal::User(user));
    }
    if local_access(app, req) {
        return Ok(Principal::Local);
    }
    Err(Error::new(Kind::Unauthorized, Msg::ApiKeyRequired))
}

pub fn changes_state(req: &Req) -> bool {
    !matches!(req.method.as_str(), "GET" | "HEAD" | "OPTIONS")
}

/// A wrong secret costs the peer address one token: 401 while it has some, 429 once
/// it has none.
fn failed_attempt(app: &App, req: &Req) -> Error {
    match count_failure(app, req) {
        Ok(()) => Error::new(Kind::Unauthorized, Msg::ApiKeyRequired),
        Err(e) => e,
    }
}

/// Refuse (`rate_limited`) a caller whose network has no failed attempt left, taking
/// nothing: called before a password or a code is looked at, so that a limited
/// address is refused whatever it sends, the right secret too.
pub fn check_failures(app: &App, req: &Req) -> Result<(), Error> {
    match client_ip(&app.config, req) {
        Some(ip) => app
            .limits
            .failures
            .check(&client_net(ip))
            .map_err(Error::rate_limited),
        None => Ok(()),
    }
}

/// Take one token of the failed-authentication limit from the caller's network (a
/// wrong secret); `rate_limited` once it has none.
pub fn count_failure(app: &App, req: &Req) -> Result<(), Error> {
    match client_ip(&app.config, req) {
        Some(ip) => app
            .limits
            .failures
            .take(&client_net(ip))
            .map_err(Error::rate_limited),
        None => Ok(()),
    }
}

/// The network a limit counts a client by: its IPv4 address (an IPv4-mapped IPv6
/// address is the same client), or its IPv6 /64, since one IPv6 host usually holds a
/// whole /64 and could otherwise change address at every attempt.
pub fn client_net(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
        v4 => v4,
    }
}

/// The peer is one of the proxies whose forwarding headers are believed
/// (`--trusted-proxy`).
pub fn from_trusted_proxy(config: &Config, req: &Req) -> bool {
    req.peer.is_some_and(|p| trusted(config, p.ip()))
}

/// Is this address in a trusted proxy's network? (An IPv4-mapped address counts as its
/// IPv4 address, as seen when listening on `[::]`.)
fn trusted(config: &Config, ip: IpAddr) -> bool {
    let ip = ip.to_canonical();
    config
        .serve
        .trusted_proxy
        .iter()
        .any(|net| net.contains(&ip))
}

/// The client's address, for the rate limits and the log: the peer's; through a
/// trusted proxy, the `X-Forwarded-For` address the first untrusted hop was seen
/// from, read from the right (each proxy appends the address it saw, so what is left
/// of an untrusted hop may be forged). Nobody else's `X-Forwarded-For` is read.
pub fn client_ip(config: &Config, req: &Req) -> Option<IpAddr> {
    let peer = req.peer?.ip();
    if !trusted(config, peer) {
        return Some(peer);
    }
    let hops: Vec<&str> = req
        .headers
        .iter()
        .filter(|(name, _)| name == "x-forwarded-for")
        .flat_map(|(_, value)| value.split(','))
        .collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        match hop.trim().parse::<IpAddr>() {
            Ok(ip) => client = ip,
            Err(_) => break,
        }
        if !trusted(config, client) {
            break;
        }
    }
    Some(client)
}

/// The account a trusted proxy signed in: the request came from one of them and
/// carries `--auth-header` (from anyone else the header means nothing). A proxy on
/// this machine is one program among others: from a loopback address the header
/// counts only when the program at the other end is one the loopback rule admits
/// (root's, the service's user's, `--local-access-users`'), so that another user's
/// `curl -H 'Remote-User: admin'` names no one.
fn proxy_user(app: &App, db: &Connection, req: &Req) -> Result<Option<User>, Error> {
    if !from_trusted_proxy(&app.config, req) {
        return Ok(None);
    }
    if peer_is_loopback(req) {
        let admitted = match &app.config.local_access {
            LocalAccess::Any => true,
            LocalAccess::Users(uids) => peer_admitted(app, req, uids),
            LocalAccess::Off => peer_admitted(app, req, &[]),
        };
        if !admitted {
            return Ok(None);
        }
    }
    let header = app.config.serve.auth_header.to_ascii_lowercase();
    let Some(name) = req.header(&header).map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    accounts::proxy_user(db, name, app.config.serve.auth_header_create, req.lang())
}

/// Does this keyless request get local access: the loopback rule, on (`--local-access`),
/// and a program at the other end that the rule admits (see `owner`)? Also what the
/// first-run page asks of a caller.
pub fn local_access(app: &App, req: &Req) -> bool {
    // Whatever its address, a trusted proxy speaks for others.
    if from_trusted_proxy(&app.config, req) {
        return false;
    }
    match &app.config.local_access {
        LocalAccess::Off => false,
        LocalAccess::Any => is_local(req),
        LocalAccess::Users(uids) => is_local(req) && peer_admitted(app, req, uids),
    }
}

/// Is the program at the other end of this loopback connection run by root, by the
/// service's own user, or by one of `uids`? Not when its owner cannot be read.
fn peer_admitted(app: &App, req: &Req, uids: &[u32]) -> bool {
    let listen = app.listening.addr();
    let owner = req
        .peer
        .and_then(|peer| owner::connection_peer_uid(req.connection, peer, listen));
    // SAFETY: geteuid cannot fail and touches no memory of ours.
    let me = unsafe { libc::geteuid() };
    let admitted = owner.is_some_and(|uid| uid == 0 || uid == me || uids.contains(&uid));
    if !admitted {
        note_refusal(owner);
    }
    admitted
}

/// Say once per owner why a loopback request got no local access: an admin whose
/// curl runs as another user learns why it gets 401, and a proxy's traffic does not
/// fill the log.
fn note_refusal(owner: Option<u32>) {
    static SAID: Mutex<BTreeSet<Option<u32>>> = Mutex::new(BTreeSet::new());
    let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
    if said.len() >= 64 || !said.insert(owner) {
        return;
    }
    match owner {
        Some(uid) => log::info!(
            "a keyless request from a program of uid {uid} on this machine gets no local \
             access: only root's, the service's own user's and --local-access-users' do \
             (--local-access any gives it to every program of this machine)"
        ),
        None => log::info!(
            "a keyless request from this machine gets no local access: the kernel does not \
             say who owns its socket (sock_diag, /proc/net/tcp), or its program is gone \
             (--local-access any gives it to every program of this machine)"
        ),
    }
}

/// The loopback rule (`docs/security.md`, §3), as the request shows it: a loopback
/// peer, no forwarding header, a loopback `Host`.
pub fn is_local(req: &Req) -> bool {
    let peer_local = peer_is_loopback(req);
    let forwarded = req.headers.iter().any(|(name, _)| {
        name == "forwarded" || name == "x-real-ip" || name.starts_with("x-forwarded-")
    });
    let host_local = req
        .header("host")
        .is_some_and(|h| is_loopback_host(host_only(h)));
    peer_local && !forwarded && host_local
}

/// The peer is this machine: 127.0.0.0/8, ::1, or their IPv4-mapped form.
fn peer_is_loopback(req: &Req) -> bool {
    req.peer.is_some_and(|p| match p.ip() {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    })
}

/// `host[:port]` → `host` (IPv6 literals keep their brackets).
pub fn host_only(authority: &str) -> &str {
    if authority.starts_with('[') {
        authority.split_inclusive(']').next().unwrap_or(authority)
    } else {
        authority.split(':').next().unwrap_or(authority)
    }
}

pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    host.eq_ignore_ascii_case("localhost")
        || host == "[::1]"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Refuse a state change that announces a foreign origin. A request with neither
/// `Origin` nor `Sec-Fetch-Site` (curl, a script) is accepted.
pub fn check_origin(req: &Req) -> Result<(), Error> {
    if let Some(site) = req.header("sec-fetch-site") {
        if site.eq_ignore_ascii_case("cross-site") || site.eq_ignore_ascii_case("same-site") {
            return Err(Error::new(Kind::CrossOrigin, Msg::CrossOrigin));
        }
    }
    if let Some(origin) = req.header("origin") {
        let authority = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("");
        let host = req.header("host").unwrap_or("");
        if authority.is_empty() || !authority.eq_ignore_ascii_case(host) {
            return Err(Error::new(Kind::CrossOrigin, Msg::CrossOrigin));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_count_ipv6_clients_by_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff:1:2:3".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_net(a), client_net(b));
        assert_ne!(client_net(a), client_net(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(client_net(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
        assert_ne!(
            client_net("192.0.2.7".parse().unwrap()),
            client_net("192.0.2.8".parse().unwrap())
        );
    }

    #[test]
    fn loopback_hosts() {
        for h in ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "LOCALHOST"] {
            assert!(is_loopback_host(host_only(h)), "{h}");
        }
        for h in ["example.org", "192.168.1.2", "localhost.evil.com", ""] {
            assert!(!is_loopback_host(host_only(h)), "{h}");
        }
        assert_eq!(host_only("[::1]:8080"), "[::1]");
        assert_eq!(host_only("localhost:8080"), "localhost");
    }
}
