//! Run-time settings (`SET`/`SHOW`/`RESET`) and the ones reported to clients.
//!
//! Only settings kiln honours are accepted with values it can honour; anything else is
//! `42704` (unknown) or `22023`/`0A000` (a value kiln does not implement) — never a
//! setting silently ignored in a way that changes results.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::types::datetime::{DateOrder, Zone, parse_offset_name};

/// Settings sent to the client as ParameterStatus at startup and whenever they change.
pub const REPORTED: &[&str] = &[
    "application_name",
    "client_encoding",
    "DateStyle",
    "default_transaction_read_only",
    "in_hot_standby",
    "integer_datetimes",
    "IntervalStyle",
    "is_superuser",
    "server_encoding",
    "server_version",
    "session_authorization",
    "standard_conforming_strings",
    "TimeZone",
];

pub const SERVER_VERSION: &str = "15.0";

fn defaults(user: &str) -> Vec<(&'static str, String)> {
    vec![
        ("application_name", String::new()),
        ("client_encoding", "UTF8".into()),
        ("DateStyle", "ISO, MDY".into()),
        ("default_transaction_isolation", "read committed".into()),
        ("default_transaction_read_only", "off".into()),
        // DEFERRABLE matters to PostgreSQL's SERIALIZABLE READ ONLY transactions only
        // (they wait for a safe snapshot); kiln keeps the setting, which changes nothing.
        ("default_transaction_deferrable", "off".into()),
        ("transaction_deferrable", "off".into()),
        ("extra_float_digits", "1".into()),
        ("in_hot_standby", "off".into()),
        ("integer_datetimes", "on".into()),
        ("IntervalStyle", "postgres".into()),
        ("is_superuser", "on".into()),
        ("lock_timeout", "0".into()),
        ("log_min_duration_statement", "-1".into()),
        ("deadlock_timeout", "1s".into()),
        ("max_identifier_length", "63".into()),
        ("max_index_keys", "32".into()),
        ("max_function_args", "100".into()),
        ("block_size", "8192".into()),
        (
            "max_connections",
            crate::DEFAULT_MAX_CONNECTIONS.to_string(),
        ),
        ("superuser_reserved_connections", "3".into()),
        ("ssl", "off".into()),
        ("search_path", "\"$user\", public".into()),
        ("server_encoding", "UTF8".into()),
        ("server_version", SERVER_VERSION.into()),
        ("server_version_num", "150000".into()),
        ("session_authorization", user.to_string()),
        ("standard_conforming_strings", "on".into()),
        ("escape_string_warning", "on".into()),
        ("statement_timeout", "0".into()),
        ("TimeZone", "UTC".into()),
        ("transaction_isolation", "read committed".into()),
        ("transaction_read_only", "off".into()),
        ("idle_in_transaction_session_timeout", "0".into()),
        ("client_min_messages", "notice".into()),
        ("bytea_output", "hex".into()),
        ("default_text_search_config", "pg_catalog.english".into()),
        // Locales: kiln formats as the C locale does (to_char's names, separators).
        ("lc_messages", "C.UTF-8".into()),
        ("lc_monetary", "C.UTF-8".into()),
        ("lc_numeric", "C.UTF-8".into()),
        ("lc_time", "C.UTF-8".into()),
        ("timezone_abbreviations", "Default".into()),
        ("row_security", "on".into()),
        ("role", "none".into()),
        ("synchronous_commit", "on".into()),
        ("work_mem", "4MB".into()),
        ("jit", "off".into()),
        // The planner switches PostgreSQL offers: accepted and shown so scripts tuned for
        // PostgreSQL run; kiln's planner does not consult them.
        ("enable_seqscan", "on".into()),
        ("enable_indexscan", "on".into()),
        ("enable_indexonlyscan", "on".into()),
        ("enable_bitmapscan", "on".into()),
        ("enable_hashjoin", "on".into()),
        ("enable_mergejoin", "on".into()),
        ("enable_nestloop", "on".into()),
        ("enable_hashagg", "on".into()),
        ("enable_sort", "on".into()),
        ("enable_material", "on".into()),
        ("kiln.max_query_memory", "4096".into()),
    ]
}

/// Reads a DateStyle value (PostgreSQL's check_datestyle): an output style and a
/// field order, each optional (an omitted one keeps its current value). Only the ISO
/// output style exists in kiln; the other styles are 0A000.
fn parse_datestyle(value: &str, current: DateOrder) -> Result<DateOrder> {
    let invalid = |detail: String| {
        Error::new(
            "22023",
            format!("invalid value for parameter \"DateStyle\": \"{value}\""),
        )
        .with_detail(detail)
    };
    let mut style: Option<&str> = None;
    let mut order: Option<DateOrder> = None;
    let mut conflict = false;
    for token in value.split(',').map(str::trim) {
        let lower = token.to_ascii_lowercase();
        let (new_style, new_order) = match lower.as_str() {
            "iso" => (Some("ISO"), None),
            "sql" => (Some("SQL"), None),
            "german" => (Some("German"), None),
            s if s.starts_with("postgres") => (Some("Postgres"), None),
            "ymd" => (None, Some(DateOrder::Ymd)),
            s if s == "dmy" || s.starts_with("euro") => (None, Some(DateOrder::Dmy)),
            s if s == "mdy" || s == "us" || s.starts_with("noneuro") => {
                (None, Some(DateOrder::Mdy))
            }
            "default" => (Some("ISO"), Some(DateOrder::Mdy)),
            _ => return Err(invalid(format!("Unrecognized key word: \"{token}\"."))),
        };
        if let Some(st) = new_style {
            conflict |= style.is_some_and(|old| old != st);
            style = Some(st);
        }
        if let Some(o) = new_order {
            conflict |= order.is_some_and(|old| old != o);
            order = Some(o);
        }
    }
    if conflict {
        return Err(invalid("Conflicting \"datestyle\" specifications.".into()));
    }
    match style {
        None | Some("ISO") => Ok(order.unwrap_or(current)),
        Some(other) => Err(Error::feature_not_supported(format!(
            "DateStyle output style \"{other}\""
        ))),
    }
}

fn date_order_name(order: DateOrder) -> &'static str {
    match order {
        DateOrder::Mdy => "MDY",
        DateOrder::Dmy => "DMY",
        DateOrder::Ymd => "YMD",
    }
}

/// Settings by lower-case name: (display name, value).
pub type SettingValues = BTreeMap<String, (String, String)>;

#[derive(Clone, Debug)]
pub struct Settings {
    /// Lower-case name → (display name, value); shared with running statements
    /// (`current_setting`), copied on write.
    values: Arc<SettingValues>,
    defaults: BTreeMap<String, String>,
    pub zone: Zone,
    /// DateStyle's field order for ambiguous date input.
    pub date_order: DateOrder,
    pub extra_float_digits: i32,
    pub statement_timeout: Option<Duration>,
    /// log_min_duration_statement: statements that take at least this long are logged.
    pub log_min_duration: Option<Duration>,
    pub lock_timeout: Option<Duration>,
    /// How long a lock wait lasts before it looks for a deadlock.
    pub deadlock_timeout: Duration,
    /// How long a session may sit idle inside a transaction block.
    pub idle_in_transaction_timeout: Option<Duration>,
    /// `kiln.max_query_memory` (MB), in bytes: working memory one statement may hold.
    pub query_memory_max: usize,
    /// standard_conforming_strings: off makes backslashes escapes in '…' literals.
    pub standard_strings: bool,
    /// escape_string_warning: such a backslash warns (22P06).
    pub escape_warning: bool,
    /// search_path, read.
    pub search_path: Arc<Vec<crate::catalog::namespace::PathItem>>,
    /// bytea_output = 'escape' (else hex).
    pub bytea_escape: bool,
}

impl Settings {
    pub fn new(user: &str) -> Settings {
        let mut s = Settings {
            values: Arc::new(BTreeMap::new()),
            defaults: BTreeMap::new(),
            zone: Zone::Fixed(0),
            date_order: DateOrder::Mdy,
            extra_float_digits: 1,
            statement_timeout: None,
            log_min_duration: None,
            lock_timeout: None,
            deadlock_timeout: Duration::from_secs(1),
            idle_in_transaction_timeout: None,
            query_memory_max: 4096 << 20,
            bytea_escape: false,
            standard_strings: true,
            escape_warning: true,
            search_path: Arc::new(vec![
                crate::catalog::namespace::PathItem::User,
                crate::catalog::namespace::PathItem::Schema("public".into()),
            ]),
        };
        for (k, v) in defaults(user) {
            Arc::make_mut(&mut s.values).insert(k.to_lowercase(), (k.to_string(), v.clone()));
            s.defaults.insert(k.to_lowercase(), v);
        }
        s
    }

    /// The values as they are at the end of startup (the database's ALTER DATABASE …
    /// SET defaults, then the client's startup options) become what RESET returns to,
    /// as PostgreSQL's reset values.
    pub fn adopt_as_defaults(&mut self) {
        for (key, (_, value)) in self.values.iter() {
            if let Some(d) = self.defaults.get_mut(key) {
                d.clone_from(value);
            }
        }
    }

    /// ALTER DATABASE / ROLE … SET: the setting's name as PostgreSQL keeps it
    /// (TimeZone), once `value` (None: a RESET) is checked as SET would check it.
    pub fn checked_default(name: &str, value: Option<&str>) -> Result<String> {
        let mut scratch = Settings::new("");
        match value {
            Some(v) => {
                scratch.set(name, Some(v))?;
                Ok(scratch
                    .get(name)
                    .map_or_else(|| name.to_ascii_lowercase(), |(d, _)| d.to_string()))
            }
            None => Ok(name.to_ascii_lowercase()),
        }
    }

    /// Sets (a value of None: removes) `name` in a list of ALTER DATABASE / ROLE
    /// defaults: an existing entry keeps its place, as in pg_db_role_setting.
    pub fn put_default(list: &mut Vec<(String, String)>, name: &str, value: Option<&str>) {
        match (
            list.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)),
            value,
        ) {
            (Some(i), Some(v)) => list[i] = (name.to_string(), v.to_string()),
            (Some(i), None) => {
                list.remove(i);
            }
            (None, Some(v)) => list.push((name.to_string(), v.to_string())),
            (None, None) => {}
        }
    }

    /// Every setting, shared (a running statement's view for `current_setting`).
    pub fn shared(&self) -> Arc<SettingValues> {
        self.values.clone()
    }

    /// Sets a value the server decides (not settable by SQL): max_connections.
    /// Custom (dotted) parameters set here and missing from `other` are added to it with
    /// an empty value: PostgreSQL keeps a placeholder once one was set, whatever undid
    /// its value.
    pub fn keep_placeholders(&self, other: &mut Settings) {
        for (key, (display, _)) in self.values.iter() {
            if key.contains('.') && !other.values.contains_key(key) {
                Arc::make_mut(&mut other.values)
                    .insert(key.clone(), (display.clone(), String::new()));
            }
        }
    }

    /// [`Settings::set_server_value`] for a name known only at run time.
    pub fn set_server_value_owned(&mut self, name: &str, value: String) {
        Arc::make_mut(&mut self.values).insert(name.to_lowercase(), (name.to_string(), value));
    }

    pub fn set_server_value(&mut self, name: &'static str, value: String) {
        Arc::make_mut(&mut self.values).insert(name.to_lowercase(), (name.to_string(), value));
    }

    /// The display name and value of a setting.
    pub fn get(&self, name: &str) -> Option<(&str, &str)> {
        self.values
            .get(&name.to_lowercase())
            .map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Sets `name`, validating the value. Returns the display name if it is reported.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Option<String>> {
        let key = name.to_lowercase();
        let key = match key.as_str() {
            "time zone" | "time_zone" => "timezone".to_string(),
            "transaction isolation level" => "transaction_isolation".to_string(),
            _ => key,
        };
        let Some((display, _)) = self.values.get(&key).cloned() else {
            if key.contains('.') {
                let v = value.unwrap_or("").to_string();
                Arc::make_mut(&mut self.values).insert(key.clone(), (key.clone(), v));
                return Ok(None);
            }
            return Err(Error::undefined_object(format!(
                "unrecognized configuration parameter \"{name}\""
            )));
        };
        let value = match value {
            // Drivers may send a startup value quoted (asyncpg: client_encoding 'utf-8').
            Some(v) if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') => {
                v[1..v.len() - 1].to_string()
            }
            Some(v) => v.to_string(),
            None => self.defaults.get(&key).cloned().unwrap_or_default(),
        };
        let invalid = || {
            Error::invalid_parameter(format!(
                "invalid value for parameter \"{display}\": \"{value}\""
            ))
        };
        let stored = match key.as_str() {
            "client_encoding" => match value.to_uppercase().replace(['-', '_'], "").as_str() {
                "UTF8" | "UNICODE" => "UTF8".to_string(),
                // No conversion, as PostgreSQL does for SQL_ASCII: input is still
                // checked as UTF-8, output goes out as stored (psql sends this from a
                // terminal in the C locale).
                "SQLASCII" => "SQL_ASCII".to_string(),
                _ => {
                    return Err(Error::feature_not_supported(format!(
                        "client_encoding \"{value}\" (only UTF8)"
                    )));
                }
            },
            "datestyle" => {
                let order = parse_datestyle(&value, self.date_order)?;
                self.date_order = order;
                format!("ISO, {}", date_order_name(order))
            }
            "timezone" => {
                // A bare number is hours east of UTC (SQL standard); a signed string is a
                // POSIX zone, whose sign counts hours *west* of UTC.
                let zone = if value.eq_ignore_ascii_case("local")
                    || value.eq_ignore_ascii_case("default")
                {
                    Some(Zone::Fixed(0))
                } else if let Ok(hours) = value.parse::<f64>() {
                    (hours.abs() <= 15.0).then(|| Zone::Fixed((hours * 3600.0).round() as i32))
                } else if value.starts_with(['+', '-']) {
                    parse_offset_name(&value).map(|east| Zone::Fixed(-east))
                } else {
                    Zone::parse(&value)
                };
                let Some(zone) = zone else {
                    return Err(Error::invalid_parameter(format!(
                        "invalid value for parameter \"TimeZone\": \"{value}\""
                    )));
                };
                self.zone = zone;
                value.clone()
            }
            "extra_float_digits" => {
                let n: i32 = value.trim().parse().map_err(|_| invalid())?;
                if !(-15..=3).contains(&n) {
                    return Err(Error::invalid_parameter(format!(
                        "{n} is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)"
                    )));
                }
                self.extra_float_digits = n;
                n.to_string()
            }
            "log_min_duration_statement" => {
                // -1 turns it off; 0 logs every statement.
                if value.trim() == "-1" {
                    self.log_min_duration = None;
                    "-1".into()
                } else {
                    let ms = parse_duration_ms(&value).ok_or_else(invalid)?;
                    self.log_min_duration = Some(Duration::from_millis(ms));
                    if ms == 0 { "0".into() } else { format_ms(ms) }
                }
            }
            "deadlock_timeout" => {
                let ms = parse_duration_ms(&value).ok_or_else(invalid)?;
                if ms == 0 {
                    return Err(Error::invalid_parameter(
                        "0 ms is outside the valid range for parameter \"deadlock_timeout\" (1 .. 2147483647)",
                    ));
                }
                self.deadlock_timeout = Duration::from_millis(ms);
                format_ms(ms)
            }
            "statement_timeout" | "lock_timeout" | "idle_in_transaction_session_timeout" => {
                let ms = parse_duration_ms(&value).ok_or_else(invalid)?;
                let d = (ms > 0).then(|| Duration::from_millis(ms));
                match key.as_str() {
                    "statement_timeout" => self.statement_timeout = d,
                    "lock_timeout" => self.lock_timeout = d,
                    _ => self.idle_in_transaction_timeout = d,
                }
                if ms == 0 { "0".into() } else { format_ms(ms) }
            }
            "kiln.max_query_memory" => {
                let mb: usize = value.trim().parse().map_err(|_| invalid())?;
                if !(1..=1 << 20).contains(&mb) {
                    return Err(invalid());
                }
                self.query_memory_max = mb << 20;
                mb.to_string()
            }
            "lc_messages" | "lc_monetary" | "lc_numeric" | "lc_time" => match value.as_str() {
                "C" | "POSIX" | "C.UTF-8" | "C.utf8" => value.clone(),
                "" => "C.UTF-8".into(),
                _ => {
                    return Err(Error::feature_not_supported(format!(
                        "{display} \"{value}\" (kiln formats as the C locale only)"
                    )));
                }
            },
            "default_text_search_config" => {
                let v = value.trim();
                let name = v
                    .strip_prefix("pg_catalog.")
                    .unwrap_or(v)
                    .to_ascii_lowercase();
                if !crate::types::tsearch::dict::CONFIGS
                    .iter()
                    .any(|c| c.1 == name)
                {
                    return Err(Error::invalid_parameter(format!(
                        "invalid value for parameter \"default_text_search_config\": \"{value}\""
                    )));
                }
                format!("pg_catalog.{name}")
            }
            "bytea_output" => match value.trim().to_ascii_lowercase().as_str() {
                "hex" => {
                    self.bytea_escape = false;
                    "hex".into()
                }
                "escape" => {
                    self.bytea_escape = true;
                    "escape".into()
                }
                _ => {
                    return Err(Error::invalid_parameter(format!(
                        "invalid value for parameter \"bytea_output\": \"{value}\""
                    ))
                    .with_hint("Available values: escape, hex."));
                }
            },
            "intervalstyle" => {
                if !value.eq_ignore_ascii_case("postgres") {
                    return Err(Error::feature_not_supported(format!(
                        "IntervalStyle \"{value}\""
                    )));
                }
                "postgres".into()
            }
            "transaction_isolation" | "default_transaction_isolation" => {
                let v = value.to_lowercase();
                match v.as_str() {
                    "read committed" | "repeatable read" | "serializable" => v,
                    // PostgreSQL runs READ UNCOMMITTED as READ COMMITTED.
                    "read uncommitted" => v,
                    _ => return Err(invalid()),
                }
            }
            "transaction_read_only" | "default_transaction_read_only" => {
                match value.to_lowercase().as_str() {
                    "on" | "true" | "yes" | "1" => "on".into(),
                    "off" | "false" | "no" | "0" => "off".into(),
                    _ => return Err(invalid()),
                }
            }
            "search_path" => {
                let Some(items) = crate::catalog::namespace::parse_path(&value) else {
                    return Err(Error::invalid_parameter(format!(
                        "invalid value for parameter \"search_path\": \"{value}\""
                    ))
                    .with_detail("List syntax is invalid."));
                };
                self.search_path = Arc::new(items);
                value.clone()
            }
            k if k.starts_with("enable_") || k == "jit" => {
                let on = crate::types::text::parse_bool(&value).map_err(|_| {
                    Error::invalid_parameter(format!(
                        "parameter \"{display}\" requires a Boolean value"
                    ))
                })?;
                if on { "on" } else { "off" }.into()
            }
            "standard_conforming_strings" | "escape_string_warning" => {
                let on = crate::types::text::parse_bool(&value).map_err(|_| {
                    Error::invalid_parameter(format!(
                        "parameter \"{display}\" requires a Boolean value"
                    ))
                })?;
                if key == "standard_conforming_strings" {
                    self.standard_strings = on;
                } else {
                    self.escape_warning = on;
                }
                if on { "on" } else { "off" }.into()
            }
            "max_connections" | "superuser_reserved_connections" | "ssl" => {
                return Err(Error::new(
                    "55P02",
                    format!(
                        "parameter \"{display}\" cannot be changed without restarting the server"
                    ),
                ));
            }
            "server_version"
            | "server_version_num"
            | "server_encoding"
            | "integer_datetimes"
            | "max_identifier_length"
            | "max_index_keys"
            | "max_function_args"
            | "block_size"
            | "is_superuser"
            | "in_hot_standby" => {
                return Err(Error::new(
                    "55P02",
                    format!("parameter \"{display}\" cannot be changed"),
                ));
            }
            _ => value.clone(),
        };
        Arc::make_mut(&mut self.values).insert(key.clone(), (display.clone(), stored));
        Ok(REPORTED
            .iter()
            .any(|r| r.eq_ignore_ascii_case(&display))
            .then_some(display))
    }
}

/// Parses `500`, `500ms`, `5s`, `2min`, `1h` into milliseconds.
fn parse_duration_ms(v: &str) -> Option<u64> {
    let v = v.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n: u64 = num.parse().ok()?;
    let factor = match unit.trim() {
        "" | "ms" => 1,
        "s" => 1000,
        "min" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    n.checked_mul(factor)
}

fn format_ms(ms: u64) -> String {
    if ms.is_multiple_of(60_000) {
        format!("{}min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_timeout_accepts_units() -> Result<()> {
        let mut s = Settings::new("u");
        s.set("statement_timeout", Some("5s"))?;
        assert_eq!(s.statement_timeout, Some(Duration::from_secs(5)));
        assert_eq!(s.get("statement_timeout").map(|(_, v)| v), Some("5s"));
        assert!(s.set("statement_timeout", Some("abc")).is_err());
        assert_eq!(
            s.set("no_such_thing", Some("1")).err().map(|e| e.code),
            Some("42704")
        );
        Ok(())
    }
}
