//! Accounts and API keys from the command line.

use std::io::IsTerminal;

use super::open_store;
use super::out::{colon, lang, tell, word};
use crate::args::{ApikeyCommand, ConsoleCommand, GlobalArgs, UserCommand};
use crate::error::i18n::M;
use crate::error::{Error, Line, Msg};
use crate::store::{api_keys, users};
use crate::words::Role;
use crate::{accounts, consoles, keys, time};

pub fn apikey(global: &GlobalArgs, command: &ApikeyCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        ApikeyCommand::Create { name, read_only } => {
            let new = keys::create(&conn, name, *read_only)?;
            tell(&Line::KeyCreated {
                name: new.key.name,
                id: new.key.id,
                read_only: *read_only,
            });
            say!();
            say!("    {}", new.secret);
            say!();
            tell(&Line::KeyShownOnce);
        }
        ApikeyCommand::List => list_keys(&api_keys::list(&conn)?),
        ApikeyCommand::Revoke { id } => {
            let Some(key) = api_keys::get(&conn, *id)? else {
                return Err(Error::not_found(Msg::NoApiKey { id: id.to_string() }));
            };
            let (name, id, prefix) = (key.name, *id, key.prefix);
            match api_keys::revoke(&conn, id, time::now())? {
                true => tell(&Line::KeyRevoked { name, id, prefix }),
                false => tell(&Line::KeyWasRevoked { name, id }),
            }
        }
    }
    Ok(())
}

/// `apikey list`: one line per key, revoked ones included.
fn list_keys(keys: &[api_keys::ApiKey]) {
    if keys.is_empty() {
        tell(&Line::NoApiKey);
    }
    for (i, k) in keys.iter().enumerate() {
        if i == 0 {
            let [id, name, prefix, access, created, used, state] = [
                M::ColId,
                M::ColName,
                M::ColPrefix,
                M::ColAccess,
                M::ColCreatedKey,
                M::ColLastUsed,
                M::ColState,
            ]
            .map(word);
            say!("{id:<4} {name:<24} {prefix:<9} {access:<14} {created:<25} {used:<25} {state}");
        }
        let state = match k.revoked_at {
            Some(t) => lang().line(&Line::RevokedOn {
                date: time::local(t),
            }),
            None => word(M::KeyActive).to_string(),
        };
        say!(
            "{:<4} {:<24} {:<9} {:<14} {:<25} {:<25} {state}",
            k.id,
            k.name,
            k.prefix,
            access(k.read_only),
            time::local(k.created_at),
            used(k.last_used_at),
        );
    }
}

/// A key's access, in words.
fn access(read_only: bool) -> &'static str {
    word(if read_only {
        M::KeyReadOnly
    } else {
        M::KeyFull
    })
}

/// When a key or a console was last used, or "never".
fn used(at: Option<i64>) -> String {
    at.map(time::local)
        .unwrap_or_else(|| word(M::Never).to_string())
}

pub fn user_command(global: &GlobalArgs, command: &UserCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        UserCommand::Add { name, admin } => {
            let password = read_password()?;
            let role = if *admin { Role::Admin } else { Role::Viewer };
            accounts::add_in(&conn, name, &password, role, lang())?;
            tell(&Line::AccountCreated {
                name: name.clone(),
                role: word(M::of_role(role)).to_string(),
            });
        }
        UserCommand::Passwd { name } => {
            if users::by_name(&conn, name)?.is_none() {
                return Err(Error::not_found(Msg::NoAccount { name: name.clone() }));
            }
            let password = read_password()?;
            let ended = accounts::set_password(&conn, name, &password)?;
            tell(&Line::PasswordChanged {
                name: name.clone(),
                ended: ended as u64,
            });
        }
        UserCommand::Delete { name } => {
            if !users::delete(&conn, name)? {
                return Err(Error::not_found(Msg::NoAccount { name: name.clone() }));
            }
            tell(&Line::AccountDeleted { name: name.clone() });
        }
        UserCommand::List => {
            let list = users::list(&conn)?;
            if list.is_empty() {
                tell(&Line::NoAccount);
            }
            for (i, u) in list.iter().enumerate() {
                if i == 0 {
                    let [name, role, language, created] =
                        [M::ColName, M::ColRole, M::ColLanguage, M::ColCreated].map(word);
                    say!("{name:<24} {role:<14} {language:<8} {created}");
                }
                say!(
                    "{:<24} {:<14} {:<8} {}",
                    u.name,
                    word(M::of_role(u.role)),
                    u.lang.as_str(),
                    time::local(u.created_at)
                );
            }
        }
    }
    Ok(())
}

/// A new password: asked twice on a terminal (without echo), or the first line of
/// standard input when it is not a terminal (for scripts).
fn read_password() -> Result<String, Error> {
    use std::io::BufRead;
    let failed = |e: std::io::Error| {
        Error::invalid(Msg::PasswordUnreadable {
            reason: e.to_string(),
        })
    };
    if std::io::stdin().is_terminal() {
        let prompt = |m: M| format!("{}{}", word(m), colon());
        let first = rpassword::prompt_password(prompt(M::Password)).map_err(failed)?;
        let again = rpassword::prompt_password(prompt(M::Again)).map_err(failed)?;
        if first != again {
            return Err(Error::invalid(Msg::PasswordsDiffer));
        }
        return Ok(first);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(failed)?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

pub fn console_command(global: &GlobalArgs, command: &ConsoleCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        ConsoleCommand::Add { name } => {
            let (console, password) = consoles::add(&conn, name)?;
            tell(&Line::ConsoleAdded {
                name: console.name.clone(),
            });
            let [user, pass] = [M::ColUser, M::ColPassword].map(word);
            say!();
            say!("    {user:<12} {}", console.name);
            say!("    {pass:<12} {password}");
            say!();
            tell(&Line::ConsolePasswordOnce);
        }
        ConsoleCommand::List => {
            let all = crate::store::consoles::list(&conn)?;
            if all.is_empty() {
                tell(&Line::NoConsole);
            }
            for (i, c) in all.iter().enumerate() {
                if i == 0 {
                    let [name, added, used] = [M::ColName, M::ColAdded, M::ColLastUsed].map(word);
                    say!("{name:<24} {added:<25} {used}");
                }
                let added = time::local(c.created_at);
                say!("{:<24} {added:<25} {}", c.name, used(c.last_used_at));
            }
        }
        ConsoleCommand::Remove { name } => {
            consoles::remove(&conn, name)?;
            tell(&Line::ConsoleRemoved { name: name.clone() });
        }
    }
    Ok(())
}
