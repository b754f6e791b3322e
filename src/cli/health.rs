//! `ludotheque health`: the container's probe. A `FROM scratch` image has no curl, so
//! the binary asks the service's `/api/v1/health` itself and answers with its exit
//! status, 0 healthy and 1 not. It runs every few seconds beside the service: it opens
//! no data folder (it would take the service's lock, or make a folder where none
//! should be) and prints nothing unless asked.

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use crate::args::HealthArgs;
use crate::error::{Error, Kind, Line, Msg};
use crate::outbound::{Addresses, Cancel, Client, Rules};

/// The health answer is `{"status":"ok"}`; more than this is not it.
const MAX_ANSWER: u64 = 4096;

/// Ask the service; `Ok` when it answered 2xx with `{"status": "ok"}`.
pub fn health(args: &HealthArgs) -> Result<(), Error> {
    let base = base_url(args)?;
    let rules = Rules {
        total: Duration::from_secs(args.timeout_secs),
        // The owner names the service, on this machine or another of theirs.
        addresses: Addresses::Any,
    };
    let client = Client::new(rules, Cancel::default());
    let answer = client
        .get(
            &format!("{base}/api/v1/health"),
            &[("accept", "application/json")],
        )
        .map_err(|f| unhealthy(Msg::HealthUnreachable { url: base.clone() }).with_cause(f))?;
    if !(200..300).contains(&answer.status) {
        return Err(unhealthy(Msg::Unhealthy {
            url: base,
            status: answer.status,
        }));
    }
    let mut body = Vec::new();
    let read = answer.into_body().take(MAX_ANSWER).read_to_end(&mut body);
    let ok = read.is_ok()
        && serde_json::from_slice::<serde_json::Value>(&body)
            .is_ok_and(|v| v["status"].as_str() == Some("ok"));
    if !ok {
        return Err(unhealthy(Msg::HealthNotOk { url: base }));
    }
    if args.verbose {
        super::out::tell(&Line::Healthy { url: base });
    }
    Ok(())
}

fn unhealthy(msg: Msg) -> Error {
    Error::new(Kind::Unavailable, msg)
}

/// `--url` without its trailing slashes, or the address `serve` listens on.
fn base_url(args: &HealthArgs) -> Result<String, Error> {
    match &args.url {
        Some(url) => {
            let url = url.trim_end_matches('/');
            let scheme = url.starts_with("http://") || url.starts_with("https://");
            if !scheme || url.contains(['?', '#']) || url.contains(char::is_whitespace) {
                return Err(Error::invalid(Msg::BadHealthUrl));
            }
            Ok(url.to_string())
        }
        None => from_listen(&args.listen),
    }
}

/// The URL of a service listening on `listen`: an address of every interface
/// (`0.0.0.0`, `::`) is asked on loopback, of the same family; port 0 cannot be
/// asked (the service picked a port nobody else knows). A name and a port
/// (`localhost:8080`), which `serve` binds too, is asked as it is.
pub fn from_listen(listen: &str) -> Result<String, Error> {
    match listen.parse::<SocketAddr>() {
        Ok(addr) if addr.port() == 0 => Err(Error::invalid(Msg::HealthPortZero)),
        Ok(mut addr) => {
            if addr.ip().is_unspecified() {
                addr.set_ip(match addr.ip() {
                    IpAddr::V4(_) => Ipv4Addr::LOCALHOST.into(),
                    IpAddr::V6(_) => Ipv6Addr::LOCALHOST.into(),
                });
            }
            Ok(format!("http://{addr}"))
        }
        Err(_) if listen.ends_with(":0") => Err(Error::invalid(Msg::HealthPortZero)),
        Err(_) => Ok(format!("http://{listen}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_interface_is_asked_on_loopback() {
        let url = |l: &str| from_listen(l).unwrap();
        assert_eq!(url("0.0.0.0:8080"), "http://127.0.0.1:8080");
        assert_eq!(url("[::]:8080"), "http://[::1]:8080");
        assert_eq!(url("192.168.1.5:9000"), "http://192.168.1.5:9000");
        assert_eq!(url("localhost:8080"), "http://localhost:8080");
        assert!(from_listen("0.0.0.0:0").is_err());
        assert!(from_listen("localhost:0").is_err());
    }
}
