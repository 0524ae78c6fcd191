//! Full-text search over json and jsonb documents: `to_tsvector(json | jsonb)`,
//! `json(b)_to_tsvector(doc, filter)` and `ts_headline(jsonb, …)` (PostgreSQL's
//! `to_tsany.c` and `jsonfuncs.c`'s iterate / transform of string values).
//!
//! The document's values are visited in PostgreSQL's order — a jsonb's keys in its
//! stored order (by length, then bytes), a json's in the order written — each kind
//! taken only if the filter asks for it (strings by default; numbers as written for
//! json and as numeric prints them for jsonb, booleans as `true` / `false`, object keys;
//! never nulls). Each value is parsed on its own, positions running on from the one
//! before; after a value that gave any lexeme the position skips one, so that a phrase
//! never spans two values.

use super::dict::ConfigLexizer;
use super::{ParsedWord, TsError, TsQuery, TsVector};
use crate::types::{json, jsonb};

/// Which values a filter takes.
pub const STRING: u8 = 1;
pub const NUMERIC: u8 = 2;
pub const BOOLEAN: u8 = 4;
pub const KEY: u8 = 8;

const FLAG_HINT: &str =
    "Possible values are: \"string\", \"numeric\", \"boolean\", \"key\", and \"all\".";

/// A filter given as jsonb: an array of flag names, or one name.
pub fn parse_filter(filter: &[u8]) -> Result<u8, TsError> {
    let flag = |node: jsonb::Node| -> Result<u8, TsError> {
        let jsonb::Node::String(name) = node else {
            return Err(hinted("flag array element is not a string"));
        };
        Ok(match name.to_ascii_lowercase().as_str() {
            "string" => STRING,
            "numeric" => NUMERIC,
            "boolean" => BOOLEAN,
            "key" => KEY,
            "all" => STRING | NUMERIC | BOOLEAN | KEY,
            _ => return Err(hinted(format!("wrong flag in flag array: \"{name}\""))),
        })
    };
    match jsonb::view(filter) {
        jsonb::Node::Array(items) => {
            let mut flags = 0;
            for item in items.iter() {
                flags |= flag(jsonb::view(item))?;
            }
            Ok(flags)
        }
        jsonb::Node::Object(_) => Err(TsError::new(
            "22023",
            "wrong flag type, only arrays and scalars are allowed",
        )),
        scalar => flag(scalar),
    }
}

fn hinted(message: impl Into<String>) -> TsError {
    let mut e = TsError::new("22023", message);
    e.hint = Some(FLAG_HINT.to_string());
    e
}

/// The values of a jsonb document the filter takes, in PostgreSQL's order.
pub fn jsonb_values(doc: &[u8], filter: u8) -> Vec<String> {
    enum Item<'a> {
        Node(&'a [u8]),
        Key(&'a str),
    }
    let mut out = Vec::new();
    let mut stack = vec![Item::Node(doc)];
    while let Some(item) = stack.pop() {
        let node = match item {
            Item::Key(k) => {
                out.push(k.to_string());
                continue;
            }
            Item::Node(n) => n,
        };
        match jsonb::view(node) {
            jsonb::Node::Null => {}
            jsonb::Node::Bool(b) if filter & BOOLEAN != 0 => {
                out.push(if b { "true" } else { "false" }.to_string());
            }
            jsonb::Node::Number(n) if filter & NUMERIC != 0 => out.push(n.to_string()),
            jsonb::Node::String(s) if filter & STRING != 0 => out.push(s.to_string()),
            jsonb::Node::Array(items) => {
                let items: Vec<&[u8]> = items.iter().collect();
                stack.extend(items.into_iter().rev().map(Item::Node));
            }
            jsonb::Node::Object(members) => {
                let members: Vec<(&str, &[u8])> = members.iter().collect();
                for (key, value) in members.into_iter().rev() {
                    stack.push(Item::Node(value));
                    if filter & KEY != 0 {
                        stack.push(Item::Key(key));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The values of a json document (its text, already valid) the filter takes, in the
/// order written.
pub fn json_values(doc: &str, filter: u8) -> Vec<String> {
    enum Item<'a> {
        Value(&'a str),
        Key(String),
    }
    let mut out = Vec::new();
    let mut stack = vec![Item::Value(doc)];
    while let Some(item) = stack.pop() {
        let text = match item {
            Item::Key(k) => {
                out.push(k);
                continue;
            }
            Item::Value(t) => json::trimmed(t),
        };
        match json::type_name(text) {
            "object" => {
                let members = json::object_members(text).unwrap_or_default();
                for (key, value) in members.into_iter().rev() {
                    stack.push(Item::Value(value));
                    if filter & KEY != 0 {
                        stack.push(Item::Key(key));
                    }
                }
            }
            "array" => {
                let items = json::array_items(text).unwrap_or_default();
                stack.extend(items.into_iter().rev().map(Item::Value));
            }
            "string" if filter & STRING != 0 => out.push(json::unquote(text)),
            "number" if filter & NUMERIC != 0 => out.push(text.to_string()),
            "boolean" if filter & BOOLEAN != 0 => out.push(text.to_string()),
            _ => {}
        }
    }
    out
}

/// The tsvector of a document's values (to_tsvector of json / jsonb).
pub fn to_tsvector(lexizer: &ConfigLexizer, values: &[String]) -> Result<TsVector, TsError> {
    let mut words: Vec<ParsedWord> = Vec::new();
    let mut pos: u32 = 0;
    for v in values {
        let before = words.len();
        pos = lexizer.parsetext_from(v, pos, &mut words);
        if words.len() > before {
            pos = pos.saturating_add(1);
        }
    }
    super::vector::from_parsed(&words)
}

/// ts_headline of a jsonb document: every string value headlined on its own.
pub fn headline_jsonb(
    config: super::dict::Config,
    doc: &[u8],
    query: &TsQuery,
    options: Option<&str>,
) -> Result<Vec<u8>, TsError> {
    // Rebuilt bottom-up with an explicit stack: (node, built children so far).
    enum Frame<'a> {
        Array(Vec<&'a [u8]>, Vec<Vec<u8>>),
        Object(Vec<(&'a str, &'a [u8])>, Vec<(String, Vec<u8>)>),
    }
    let mut frames: Vec<Frame> = Vec::new();
    let mut pending: Option<&[u8]> = Some(doc);
    loop {
        // Descend into the pending node, or produce its value.
        let mut done: Option<Vec<u8>> = None;
        if let Some(node) = pending.take() {
            match jsonb::view(node) {
                jsonb::Node::String(s) => {
                    done = Some(jsonb::string(&super::headline::ts_headline(
                        config, s, query, options,
                    )?));
                }
                jsonb::Node::Array(items) => {
                    frames.push(Frame::Array(items.iter().collect(), Vec::new()));
                }
                jsonb::Node::Object(members) => {
                    frames.push(Frame::Object(members.iter().collect(), Vec::new()));
                }
                _ => done = Some(node.to_vec()),
            }
        }
        if let Some(value) = done {
            match frames.last_mut() {
                None => return Ok(value),
                Some(Frame::Array(_, built)) => built.push(value),
                Some(Frame::Object(members, built)) => {
                    let key = members.get(built.len()).map_or("", |m| m.0).to_string();
                    built.push((key, value));
                }
            }
        }
        // The next child of the innermost frame, or close it.
        match frames.last() {
            None => return Ok(jsonb::null()),
            Some(Frame::Array(items, built)) if built.len() < items.len() => {
                pending = Some(items[built.len()]);
            }
            Some(Frame::Object(members, built)) if built.len() < members.len() => {
                pending = Some(members[built.len()].1);
            }
            Some(_) => {
                let value = match frames.pop() {
                    Some(Frame::Array(_, built)) => jsonb::array(&built),
                    Some(Frame::Object(_, built)) => jsonb::object(built),
                    None => jsonb::null(),
                };
                match frames.last_mut() {
                    None => return Ok(value),
                    Some(Frame::Array(_, built)) => built.push(value),
                    Some(Frame::Object(members, built)) => {
                        let key = members.get(built.len()).map_or("", |m| m.0).to_string();
                        built.push((key, value));
                    }
                }
                // Loop back to pick the next child.
                continue;
            }
        }
    }
}
