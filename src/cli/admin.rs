//! Accounts and API keys from the command line.

use std::io::IsTerminal;

use super::open_store;
use crate::args::{ApikeyCommand, ConsoleCommand, GlobalArgs, UserCommand};
use crate::error::counts::count;
use crate::error::{Error, Msg};
use crate::store::{api_keys, users};
use crate::words::Role;
use crate::{accounts, consoles, keys, time};

pub fn apikey(global: &GlobalArgs, command: &ApikeyCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        ApikeyCommand::Create { name, read_only } => {
            let new = keys::create(&conn, name, *read_only)?;
            let access = if *read_only {
                "lecture seule"
            } else {
                "complet"
            };
            say!(
                "Clé d'API créée : {} (id {}, accès {access})",
                new.key.name,
                new.key.id
            );
            say!();
            say!("    {}", new.secret);
            say!();
            say!(
                "Cette clé n'est conservée que sous forme d'empreinte (SHA-256) : elle ne \
                 pourra plus jamais être affichée. Copiez-la maintenant."
            );
        }
        ApikeyCommand::List => list_keys(&api_keys::list(&conn)?),
        ApikeyCommand::Revoke { id } => {
            let Some(key) = api_keys::get(&conn, *id)? else {
                return Err(Error::not_found(Msg::NoApiKey { id: id.to_string() }));
            };
            if api_keys::revoke(&conn, *id, time::now())? {
                say!(
                    "Clé d'API révoquée : {} (id {id}, {})",
                    key.name,
                    key.prefix
                );
            } else {
                say!("La clé d'API {} (id {id}) était déjà révoquée.", key.name);
            }
        }
    }
    Ok(())
}

/// `apikey list`: one line per key, revoked ones included.
fn list_keys(keys: &[api_keys::ApiKey]) {
    if keys.is_empty() {
        say!("Aucune clé d'API.");
    }
    for (i, k) in keys.iter().enumerate() {
        if i == 0 {
            say!(
                "{:<4} {:<24} {:<9} {:<14} {:<21} {:<21} ÉTAT",
                "ID",
                "NOM",
                "PRÉFIXE",
                "ACCÈS",
                "CRÉÉE",
                "DERNIÈRE UTILISATION"
            );
        }
        say!(
            "{:<4} {:<24} {:<9} {:<14} {:<21} {:<21} {}",
            k.id,
            k.name,
            k.prefix,
            if k.read_only {
                "lecture seule"
            } else {
                "complet"
            },
            time::local(k.created_at),
            k.last_used_at
                .map(time::local)
                .unwrap_or_else(|| "jamais".into()),
            match k.revoked_at {
                Some(t) => format!("révoquée le {}", time::local(t)),
                None => "active".into(),
            }
        );
    }
}

pub fn user_command(global: &GlobalArgs, command: &UserCommand) -> Result<(), Error> {
    let conn = open_store(global)?;
    match command {
        UserCommand::Add { name, admin } => {
            let password = read_password()?;
            let role = if *admin { Role::Admin } else { Role::Viewer };
            accounts::add(&conn, name, &password, role)?;
            let role = if *admin { "administrateur" } else { "lecteur" };
            say!("Compte créé : {name} ({role})");
        }
        UserCommand::Passwd { name } => {
            if users::by_name(&conn, name)?.is_none() {
                return Err(Error::not_found(Msg::NoAccount { name: name.clone() }));
            }
            let password = read_password()?;
            let ended = accounts::set_password(&conn, name, &password)?;
            let ended = count(ended as u64, "session fermée", "sessions fermées");
            say!("Mot de passe changé pour {name} ; {ended}.");
        }
        UserCommand::Delete { name } => {
            if !users::delete(&conn, name)? {
                return Err(Error::not_found(Msg::NoAccount { name: name.clone() }));
            }
            say!("Compte supprimé : {name}");
        }
        UserCommand::List => {
            let list = users::list(&conn)?;
            if list.is_empty() {
                say!("Aucun compte.");
            }
            for (i, u) in list.iter().enumerate() {
                if i == 0 {
                    say!("{:<24} {:<7} {:<6} CRÉÉ", "NOM", "RÔLE", "LANGUE");
                }
                say!(
                    "{:<24} {:<7} {:<6} {}",
                    u.name,
                    u.role.as_str(),
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
        let first = rpassword::prompt_password("Mot de passe : ").map_err(failed)?;
        let again = rpassword::prompt_password("Encore une fois : ").map_err(failed)?;
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
            say!("Console ajoutée : {}", console.name);
            say!();
            say!("    utilisateur  {}", console.name);
            say!("    mot de passe {password}");
            say!();
            say!(
                "Saisissez-les dans l'installateur de la console (la page Consoles explique où, \
                 installateur par installateur). Ce mot de passe n'est conservé que sous forme \
                 d'empreinte : il ne pourra plus être affiché. Copiez-le maintenant."
            );
        }
        ConsoleCommand::List => {
            let all = crate::store::consoles::list(&conn)?;
            if all.is_empty() {
                say!("Aucune console : « ludotheque console add NOM » en ajoute une.");
            }
            for (i, c) in all.iter().enumerate() {
                if i == 0 {
                    say!("{:<24} {:<21} DERNIÈRE UTILISATION", "NOM", "AJOUTÉE");
                }
                say!(
                    "{:<24} {:<21} {}",
                    c.name,
                    time::local(c.created_at),
                    c.last_used_at
                        .map(time::local)
                        .unwrap_or_else(|| "jamais".into())
                );
            }
        }
        ConsoleCommand::Remove { name } => {
            consoles::remove(&conn, name)?;
            say!("Console retirée : {name} (son mot de passe ne fonctionne plus).");
        }
    }
    Ok(())
}
