//! Binding CREATE DATABASE and DROP DATABASE (`session::databases` carries them out).
//!
//! sqlparser reads neither as PostgreSQL writes them, so `sql::parse` hands their text
//! (after the two keywords) here:
//!
//! ```text
//! CREATE DATABASE name [ [WITH] option [=] value … ]
//!   option: OWNER | TEMPLATE | ENCODING | STRATEGY | LOCALE | LC_COLLATE | LC_CTYPE
//!         | ICU_LOCALE | LOCALE_PROVIDER | COLLATION_VERSION | TABLESPACE
//!         | ALLOW_CONNECTIONS | CONNECTION LIMIT | IS_TEMPLATE | OID
//! DROP DATABASE [IF EXISTS] name [ [WITH] ( FORCE [, …] ) ]
//! ALTER DATABASE … (see [`bind_alter`])
//! ```
//!
//! kiln's databases are UTF8 with the C collation, kept in memory: an encoding or a
//! locale other than those is refused (0A000) rather than silently ignored; options
//! about files (STRATEGY, TABLESPACE pg_default) are accepted and change nothing.

use sqlparser::tokenizer::Token;

use super::privileges::Words;
use super::*;
use crate::plan::{AlterDatabase, DatabaseChange, RoleSpec};

/// An option's value: a word, a string or a number, as written (DEFAULT is None).
fn value(w: &mut Words) -> Result<Option<String>> {
    w.take_token(&Token::Eq);
    if w.take(&["DEFAULT"]) {
        return Ok(None);
    }
    match w.peek().cloned() {
        Some(Token::SingleQuotedString(s)) => {
            w.take_token(&Token::SingleQuotedString(s.clone()));
            Ok(Some(s))
        }
        Some(Token::Number(n, l)) => {
            w.take_token(&Token::Number(n.clone(), l));
            Ok(Some(n))
        }
        Some(Token::Minus) => {
            w.take_token(&Token::Minus);
            match w.peek().cloned() {
                Some(Token::Number(n, l)) => {
                    w.take_token(&Token::Number(n.clone(), l));
                    Ok(Some(format!("-{n}")))
                }
                _ => Err(w.unexpected()),
            }
        }
        Some(Token::Word(_)) => w.ident().map(Some),
        _ => Err(w.unexpected()),
    }
}

fn boolean(option: &str, v: Option<String>) -> Result<Option<bool>> {
    let Some(v) = v else { return Ok(None) };
    match v.to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" | "t" | "y" => Ok(Some(true)),
        "false" | "off" | "no" | "0" | "f" | "n" => Ok(Some(false)),
        _ => Err(Error::syntax(format!("{option} requires a Boolean value"))),
    }
}

/// CREATE DATABASE's text after the keywords (`create`) or DROP DATABASE's.
pub(super) fn bind(text: &str, create: bool) -> Result<BoundStatement> {
    let mut w = Words::new(text)?;
    if !create {
        let if_exists = w.take(&["IF", "EXISTS"]);
        let name = w.ident()?;
        let mut force = false;
        let with = w.take(&["WITH"]);
        if w.take_token(&Token::LParen) {
            loop {
                if w.take(&["FORCE"]) {
                    force = true;
                } else {
                    return Err(w.unexpected());
                }
                if !w.take_token(&Token::Comma) {
                    break;
                }
            }
            if !w.take_token(&Token::RParen) {
                return Err(w.unexpected());
            }
        } else if with {
            return Err(w.unexpected());
        }
        w.end()?;
        return Ok(BoundStatement::Database(DatabaseChange::Drop {
            name,
            if_exists,
            force,
        }));
    }
    let name = w.ident()?;
    w.take(&["WITH"]);
    let (mut owner, mut template) = (None, None);
    let (mut is_template, mut allow_connections, mut connection_limit) = (None, None, None);
    let mut seen: Vec<String> = Vec::new();
    while !matches!(w.peek(), None | Some(Token::SemiColon)) {
        let option = if w.take(&["CONNECTION", "LIMIT"]) {
            "connection_limit".to_string()
        } else {
            w.ident()?
        };
        if seen.contains(&option) {
            return Err(Error::syntax("conflicting or redundant options"));
        }
        seen.push(option.clone());
        let v = value(&mut w)?;
        match option.as_str() {
            "owner" => {
                owner = v.map(|name| match name.as_str() {
                    "current_user" | "current_role" => RoleSpec::CurrentUser,
                    "session_user" => RoleSpec::SessionUser,
                    _ => RoleSpec::Name(name),
                })
            }
            "template" => template = v,
            "encoding" => {
                if let Some(e) = v {
                    let e = e.to_ascii_uppercase().replace(['-', '_'], "");
                    if e != "UTF8" && e != "UNICODE" && e != "6" {
                        return Err(Error::feature_not_supported(format!(
                            "encoding \"{e}\" (kiln's databases are UTF8)"
                        )));
                    }
                }
            }
            "locale" | "lc_collate" | "lc_ctype" => {
                if let Some(l) = v
                    && !matches!(l.as_str(), "C" | "POSIX" | "C.UTF-8" | "C.utf8" | "")
                {
                    return Err(Error::feature_not_supported(format!(
                        "locale \"{l}\" (kiln's databases use the C collation)"
                    )));
                }
            }
            "locale_provider" => {
                if let Some(p) = v
                    && !p.eq_ignore_ascii_case("libc")
                {
                    return Err(Error::feature_not_supported(format!(
                        "locale provider \"{p}\""
                    )));
                }
            }
            "icu_locale" | "collation_version" | "oid" => {
                return Err(Error::feature_not_supported(format!(
                    "CREATE DATABASE option {}",
                    option.to_uppercase()
                )));
            }
            "strategy" => {
                if let Some(s) = v {
                    let s = s.to_ascii_lowercase();
                    if s != "wal_log" && s != "file_copy" {
                        return Err(Error::new(
                            "22023",
                            format!("invalid create database strategy \"{s}\""),
                        )
                        .with_hint("Valid strategies are \"wal_log\" and \"file_copy\"."));
                    }
                }
            }
            "tablespace" => {
                if let Some(t) = v
                    && t != "pg_default"
                {
                    return Err(Error::new(
                        "42704",
                        format!("tablespace \"{t}\" does not exist"),
                    ));
                }
            }
            "allow_connections" => allow_connections = boolean("allow_connections", v)?,
            "is_template" => is_template = boolean("is_template", v)?,
            "connection_limit" => connection_limit = Some(limit(v)?),
            _ => {
                return Err(Error::syntax(format!("option \"{option}\" not recognized")));
            }
        }
    }
    Ok(BoundStatement::Database(DatabaseChange::Create {
        name,
        owner,
        template,
        is_template,
        allow_connections,
        connection_limit,
    }))
}

/// ALTER DATABASE's text after the keywords:
///
/// ```text
/// ALTER DATABASE name [WITH] { ALLOW_CONNECTIONS b | CONNECTION LIMIT n | IS_TEMPLATE b } …
/// ALTER DATABASE name RENAME TO new | OWNER TO role
/// ALTER DATABASE name SET setting { TO | = } { value [, …] | DEFAULT } | RESET { setting | ALL }
/// ALTER DATABASE name SET TABLESPACE pg_default | REFRESH COLLATION VERSION
/// ```
pub(super) fn bind_alter(text: &str) -> Result<BoundStatement> {
    let mut w = Words::new(text)?;
    let name = w.ident()?;
    let action = if w.take(&["RENAME", "TO"]) {
        AlterDatabase::Rename(w.ident()?)
    } else if w.take(&["OWNER", "TO"]) {
        AlterDatabase::Owner(w.role_spec()?)
    } else if w.take(&["SET", "TABLESPACE"]) {
        let t = w.ident()?;
        if t != "pg_default" {
            return Err(Error::new(
                "42704",
                format!("tablespace \"{t}\" does not exist"),
            ));
        }
        AlterDatabase::NoOp
    } else if w.take(&["REFRESH", "COLLATION", "VERSION"]) {
        AlterDatabase::NoOp
    } else if w.is("RESET") || w.is("SET") {
        match set_or_reset(&mut w)? {
            SettingChange::Set(name, value) => AlterDatabase::Set(name, value),
            SettingChange::ResetAll => AlterDatabase::ResetAll,
        }
    } else {
        w.take(&["WITH"]);
        let (mut is_template, mut allow_connections, mut connection_limit) = (None, None, None);
        while !matches!(w.peek(), None | Some(Token::SemiColon)) {
            let option = if w.take(&["CONNECTION", "LIMIT"]) {
                "connection_limit".to_string()
            } else {
                w.ident()?
            };
            let v = value(&mut w)?;
            match option.as_str() {
                "allow_connections" => allow_connections = boolean("allow_connections", v)?,
                "is_template" => is_template = boolean("is_template", v)?,
                "connection_limit" => connection_limit = Some(limit(v)?),
                _ => return Err(Error::syntax(format!("option \"{option}\" not recognized"))),
            }
        }
        if is_template.is_none() && allow_connections.is_none() && connection_limit.is_none() {
            return Err(w.unexpected());
        }
        AlterDatabase::Options {
            is_template,
            allow_connections,
            connection_limit,
        }
    };
    w.end()?;
    Ok(BoundStatement::Database(DatabaseChange::Alter {
        name,
        action,
    }))
}

/// `ALTER ROLE | USER { role | ALL } [IN DATABASE db] SET … | RESET …` (the text after
/// ROLE or USER).
pub(super) fn bind_alter_role_set(text: &str) -> Result<BoundStatement> {
    let mut w = Words::new(text)?;
    let role = if w.take(&["ALL"]) {
        None
    } else {
        Some(w.ident()?)
    };
    let database = if w.take(&["IN", "DATABASE"]) {
        Some(w.ident()?)
    } else {
        None
    };
    let setting = match set_or_reset(&mut w)? {
        SettingChange::Set(name, value) => Some((name, value)),
        SettingChange::ResetAll => None,
    };
    w.end()?;
    Ok(BoundStatement::Role(crate::plan::RoleChange::SetConfig {
        role,
        database,
        setting,
    }))
}

/// What `SET setting …` / `RESET …` of ALTER DATABASE and ALTER ROLE changes.
pub(super) enum SettingChange {
    /// `SET name TO value` (None: `SET name TO DEFAULT` / `RESET name`).
    Set(String, Option<String>),
    ResetAll,
}

/// `SET setting { TO | = } { value [, …] | DEFAULT } | RESET { setting | ALL }`: a
/// list's items kept quoted where they need to be for search_path, as SET keeps them.
pub(super) fn set_or_reset(w: &mut Words) -> Result<SettingChange> {
    if w.take(&["RESET"]) {
        if w.take(&["ALL"]) {
            return Ok(SettingChange::ResetAll);
        }
        return Ok(SettingChange::Set(setting(w)?, None));
    }
    w.expect("SET")?;
    let setting = setting(w)?;
    if w.take(&["FROM", "CURRENT"]) {
        return Err(Error::feature_not_supported("SET … FROM CURRENT"));
    }
    if !w.take(&["TO"]) && !w.take_token(&Token::Eq) {
        return Err(w.unexpected());
    }
    if w.take(&["DEFAULT"]) {
        return Ok(SettingChange::Set(setting, None));
    }
    let list = setting.eq_ignore_ascii_case("search_path");
    let mut values = Vec::new();
    loop {
        match value(w)? {
            Some(v) if list => values.push(crate::catalog::system::quote_ident(&v)),
            Some(v) => values.push(v),
            None => return Err(w.unexpected()),
        }
        if !w.take_token(&Token::Comma) {
            break;
        }
    }
    Ok(SettingChange::Set(setting, Some(values.join(", "))))
}

/// A setting's name: a word, or `prefix.name`.
fn setting(w: &mut Words) -> Result<String> {
    let mut name = w.ident()?;
    while w.take_token(&Token::Period) {
        name = format!("{name}.{}", w.ident()?);
    }
    Ok(name)
}

/// CONNECTION LIMIT's value: -1 or more.
fn limit(v: Option<String>) -> Result<i32> {
    let n = match v {
        None => -1,
        Some(n) => n
            .parse::<i32>()
            .map_err(|_| Error::syntax("connection_limit requires an integer value".to_string()))?,
    };
    if n < -1 {
        return Err(Error::new(
            "22023",
            format!("invalid connection limit: {n}"),
        ));
    }
    Ok(n)
}
