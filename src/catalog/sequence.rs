//! Sequences: named counters that hand out numbers outside any transaction.
//!
//! As in PostgreSQL, `nextval` is not transactional — a number handed out is never handed
//! out again, even if the transaction that took it rolls back — so a sequence's state is
//! one mutex-guarded pair `(last_value, is_called)` shared by every session, while the
//! sequence's *existence* is versioned like a table's (a sequence is a relation in the
//! catalog: CREATE and DROP commit or roll back). `currval` and `lastval` read what
//! this session's own calls returned ([`SessionSequences`]).

use std::collections::HashMap;

use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::types::DataType;

/// What CREATE SEQUENCE (or SERIAL, or an identity column) fixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceOptions {
    /// smallint, integer or bigint.
    pub ty: DataType,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub start: i64,
    pub cache: i64,
    pub cycle: bool,
}

/// Options as written; what is left out takes PostgreSQL's default.
#[derive(Clone, Debug, Default)]
pub struct SequenceSpec {
    pub ty: Option<DataType>,
    pub increment: Option<i64>,
    /// `Some(None)`: NO MINVALUE.
    pub min: Option<Option<i64>>,
    pub max: Option<Option<i64>>,
    pub start: Option<i64>,
    pub cache: Option<i64>,
    pub cycle: Option<bool>,
}

fn type_range(ty: DataType) -> (i64, i64) {
    match ty {
        DataType::Int2 => (i16::MIN as i64, i16::MAX as i64),
        DataType::Int4 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

fn type_name(ty: DataType) -> &'static str {
    match ty {
        DataType::Int2 => "smallint",
        DataType::Int4 => "integer",
        _ => "bigint",
    }
}

impl SequenceSpec {
    /// The options, with defaults filled in and checked as PostgreSQL's
    /// init_params does (`22023` for each inconsistency).
    pub fn resolve(&self) -> Result<SequenceOptions> {
        let bad = |m: String| Error::new("22023", m);
        let ty = self.ty.unwrap_or(DataType::Int8);
        if !matches!(ty, DataType::Int2 | DataType::Int4 | DataType::Int8) {
            return Err(bad(
                "sequence type must be smallint, integer, or bigint".into()
            ));
        }
        let increment = self.increment.unwrap_or(1);
        if increment == 0 {
            return Err(bad("INCREMENT must not be zero".into()));
        }
        let (lo, hi) = type_range(ty);
        let max = match self.max {
            Some(Some(m)) => m,
            _ if increment > 0 => hi,
            _ => -1,
        };
        let min = match self.min {
            Some(Some(m)) => m,
            _ if increment > 0 => 1,
            _ => lo,
        };
        for (what, v) in [("MAXVALUE", max), ("MINVALUE", min)] {
            if v < lo || v > hi {
                return Err(bad(format!(
                    "{what} ({v}) is out of range for sequence data type {}",
                    type_name(ty)
                )));
            }
        }
        if min >= max {
            return Err(bad(format!(
                "MINVALUE ({min}) must be less than MAXVALUE ({max})"
            )));
        }
        let start = self.start.unwrap_or(if increment > 0 { min } else { max });
        if start < min {
            return Err(bad(format!(
                "START value ({start}) cannot be less than MINVALUE ({min})"
            )));
        }
        if start > max {
            return Err(bad(format!(
                "START value ({start}) cannot be greater than MAXVALUE ({max})"
            )));
        }
        let cache = self.cache.unwrap_or(1);
        if cache <= 0 {
            return Err(bad(format!("CACHE ({cache}) must be greater than zero")));
        }
        Ok(SequenceOptions {
            ty,
            increment,
            min,
            max,
            start,
            cache,
            cycle: self.cycle.unwrap_or(false),
        })
    }
}

#[derive(Debug)]
struct State {
    options: SequenceOptions,
    last: i64,
    is_called: bool,
    /// In the durable mode: the value the redo log already promises (PostgreSQL logs
    /// 32 values ahead, so 31 of 32 nextval calls write nothing). None: not logged.
    logged_until: Option<i64>,
}

/// Values a logged sequence record covers ahead (PostgreSQL's SEQ_LOG_VALS).
const LOG_AHEAD: i64 = 32;

/// A sequence's counter. Its options sit under the same lock as its value, so ALTER
/// SEQUENCE changes them while other sessions draw numbers.
#[derive(Debug)]
pub struct Sequence {
    state: Mutex<State>,
}

/// A sequence as it stood, for putting it back when an ALTER SEQUENCE rolls back.
#[derive(Clone, Debug)]
pub struct SequenceImage {
    pub options: SequenceOptions,
    pub last: i64,
    pub is_called: bool,
}

impl Sequence {
    pub fn new(options: SequenceOptions) -> Sequence {
        let last = options.start;
        Sequence {
            state: Mutex::new(State {
                options,
                last,
                is_called: false,
                logged_until: None,
            }),
        }
    }

    pub fn options(&self) -> SequenceOptions {
        self.state.lock().options.clone()
    }

    /// The last value and whether nextval has returned it (pg_sequences).
    pub fn peek(&self) -> (i64, bool) {
        let s = self.state.lock();
        (s.last, s.is_called)
    }

    /// The next value (`name` is for the error past the end).
    pub fn nextval(&self, name: &str) -> Result<i64> {
        let mut s = self.state.lock();
        if !s.is_called {
            s.is_called = true;
            return Ok(s.last);
        }
        let o = &s.options;
        let next = s.last.checked_add(o.increment);
        let next = match next {
            Some(v) if v >= o.min && v <= o.max => v,
            _ if o.cycle => {
                if o.increment > 0 {
                    o.min
                } else {
                    o.max
                }
            }
            _ => {
                let (which, bound) = if o.increment > 0 {
                    ("maximum", o.max)
                } else {
                    ("minimum", o.min)
                };
                return Err(Error::new(
                    "2200H",
                    format!("nextval: reached {which} value of sequence \"{name}\" ({bound})"),
                ));
            }
        };
        s.last = next;
        Ok(next)
    }

    /// ALTER SEQUENCE: `changes` over the current options, checked as PostgreSQL's
    /// init_params does; `restart` (`Some(None)`: to the start value) sets the next
    /// value. Returns the sequence as it was.
    pub fn alter(
        &self,
        changes: &SequenceSpec,
        restart: Option<Option<i64>>,
    ) -> Result<SequenceImage> {
        let mut s = self.state.lock();
        let before = SequenceImage {
            options: s.options.clone(),
            last: s.last,
            is_called: s.is_called,
        };
        let old = &s.options;
        let ty = changes.ty.unwrap_or(old.ty);
        // A new type moves a bound that was the old type's limit to the new type's.
        let (old_lo, old_hi) = type_range(old.ty);
        let keep = |v: i64, limit: i64| {
            if ty != old.ty && v == limit {
                None
            } else {
                Some(v)
            }
        };
        let spec = SequenceSpec {
            ty: Some(ty),
            increment: Some(changes.increment.unwrap_or(old.increment)),
            min: Some(changes.min.unwrap_or_else(|| keep(old.min, old_lo))),
            max: Some(changes.max.unwrap_or_else(|| keep(old.max, old_hi))),
            start: Some(changes.start.unwrap_or(old.start)),
            cache: Some(changes.cache.unwrap_or(old.cache)),
            cycle: Some(changes.cycle.unwrap_or(old.cycle)),
        };
        // A start left as it was may fall outside new bounds: PostgreSQL checks it
        // all the same.
        let options = spec.resolve()?;
        let (last, is_called) = match restart {
            Some(at) => (at.unwrap_or(options.start), false),
            None => (s.last, s.is_called),
        };
        if last < options.min {
            return Err(Error::new(
                "22023",
                format!(
                    "RESTART value ({last}) cannot be less than MINVALUE ({})",
                    options.min
                ),
            ));
        }
        if last > options.max {
            return Err(Error::new(
                "22023",
                format!(
                    "RESTART value ({last}) cannot be greater than MAXVALUE ({})",
                    options.max
                ),
            ));
        }
        *s = State {
            options,
            last,
            is_called,
            logged_until: None,
        };
        Ok(before)
    }

    /// Puts back what [`Sequence::alter`] returned.
    pub fn restore(&self, image: SequenceImage) {
        *self.state.lock() = State {
            options: image.options,
            last: image.last,
            is_called: image.is_called,
            logged_until: None,
        };
    }

    /// setval: the next nextval returns `value` (is_called false) or the one after it.
    pub fn setval(&self, name: &str, value: i64, is_called: bool) -> Result<i64> {
        let mut s = self.state.lock();
        let o = &s.options;
        if value < o.min || value > o.max {
            return Err(Error::new(
                "22003",
                format!(
                    "setval: value {value} is out of bounds for sequence \"{name}\" ({}..{})",
                    o.min, o.max
                ),
            ));
        }
        s.last = value;
        s.is_called = is_called;
        s.logged_until = None;
        Ok(value)
    }

    /// What the redo log must record now, if anything (durable mode): after a setval
    /// (`exact`) or for a cycling sequence the state itself; after nextval, once the
    /// value has passed what the log promised, a state [`LOG_AHEAD`] values on — so a
    /// crash skips at most that many values, never repeats one (PostgreSQL's rule).
    pub fn log_point(&self, exact: bool) -> Option<(i64, bool)> {
        let mut s = self.state.lock();
        if exact || s.options.cycle || !s.is_called {
            s.logged_until = None;
            return Some((s.last, s.is_called));
        }
        let up = s.options.increment > 0;
        let passed = s
            .logged_until
            .is_none_or(|m| if up { s.last > m } else { s.last < m });
        if !passed {
            return None;
        }
        let ahead = s
            .last
            .saturating_add(s.options.increment.saturating_mul(LOG_AHEAD - 1))
            .clamp(s.options.min, s.options.max);
        s.logged_until = Some(ahead);
        Some((ahead, true))
    }

    /// The state a checkpoint may keep while the server runs on: what the log
    /// promised, when that is ahead of the last value.
    pub fn durable_state(&self) -> (i64, bool) {
        let s = self.state.lock();
        match s.logged_until {
            Some(m) => (m, true),
            None => (s.last, s.is_called),
        }
    }

    /// `(last_value, is_called)`.
    pub fn state(&self) -> (i64, bool) {
        let s = self.state.lock();
        (s.last, s.is_called)
    }
}

/// What this session's nextval calls returned: for currval and lastval.
#[derive(Debug, Default)]
pub struct SessionSequences {
    /// By sequence oid.
    pub current: HashMap<u32, i64>,
    /// The last sequence used and its value.
    pub last: Option<(u32, String, i64)>,
}

/// Parses a relation name as `regclass` input does: an unquoted name folds to lower
/// case, a quoted one keeps its case; `schema.name` gives the schema.
pub fn parse_relation_name(text: &str) -> Result<(Option<String>, String)> {
    let parts = relation_name_parts(text)?;
    match parts.as_slice() {
        [name] => Ok((None, name.clone())),
        [schema, name] => Ok((Some(schema.clone()), name.clone())),
        _ => Err(Error::new(
            "42601",
            format!("improper relation name (too many dotted names): {text}"),
        )),
    }
}

/// The dotted parts of a relation name as regclass input reads them (unquoted parts
/// folded to lower case).
pub fn relation_name_parts(text: &str) -> Result<Vec<String>> {
    let mut parts: Vec<String> = Vec::new();
    let mut chars = text.trim().chars().peekable();
    loop {
        let mut part = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        part.push('"');
                    }
                    Some('"') => break,
                    Some(c) => part.push(c),
                    None => return Err(Error::new("42602", "invalid name syntax")),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == '.' {
                    break;
                }
                part.extend(c.to_lowercase());
                chars.next();
            }
        }
        if part.is_empty() {
            return Err(Error::new("42602", "invalid name syntax"));
        }
        parts.push(part);
        match chars.next() {
            Some('.') => continue,
            None => break,
            Some(_) => return Err(Error::new("42602", "invalid name syntax")),
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_cycles_and_stops_at_the_end() {
        let spec = SequenceSpec {
            ty: Some(DataType::Int2),
            increment: Some(-2),
            max: Some(Some(10)),
            min: Some(Some(5)),
            cycle: Some(true),
            ..Default::default()
        };
        let s = Sequence::new(spec.resolve().unwrap());
        let got: Vec<i64> = (0..5).map(|_| s.nextval("s").unwrap()).collect();
        assert_eq!(got, vec![10, 8, 6, 10, 8]);
        let capped = Sequence::new(
            SequenceSpec {
                max: Some(Some(2)),
                ..Default::default()
            }
            .resolve()
            .unwrap(),
        );
        assert_eq!(capped.nextval("c").unwrap(), 1);
        assert_eq!(capped.nextval("c").unwrap(), 2);
        assert_eq!(capped.nextval("c").map_err(|e| e.code), Err("2200H"));
        assert_eq!(
            capped.setval("c", 5, true).map_err(|e| e.code),
            Err("22003")
        );
        capped.setval("c", 1, false).unwrap();
        assert_eq!(capped.nextval("c").unwrap(), 1);
    }

    #[test]
    fn names_parse_like_regclass() {
        assert_eq!(parse_relation_name("Foo").unwrap(), (None, "foo".into()));
        assert_eq!(
            parse_relation_name("\"Foo\"").unwrap(),
            (None, "Foo".into())
        );
        assert_eq!(
            parse_relation_name("public.s").unwrap(),
            (Some("public".into()), "s".into())
        );
        assert!(parse_relation_name("a.b.c").is_err());
    }
}
