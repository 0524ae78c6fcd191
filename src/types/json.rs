//! `json`: JSON text kept exactly as the client wrote it (PostgreSQL's json type), checked
//! on input; and the JSON text that json_build_object and json_build_array write.
//!
//! The check is PostgreSQL's grammar (RFC 8259: objects, arrays, strings with their
//! escapes, numbers, true, false, null; duplicate keys allowed) run without recursion, so
//! deep nesting costs a vector, not the stack. A failure is 22P02 as in PostgreSQL.

use crate::error::{Error, Result};

/// Nesting deeper than this is refused (PostgreSQL's limit comes from its stack depth).
const DEPTH_MAX: usize = 10_000;

fn invalid(detail: &str) -> Error {
    Error::new("22P02", "invalid input syntax for type json").with_detail(detail.to_string())
}

/// Checks that `text` is one JSON value (surrounded by whitespace at most).
pub fn validate(text: &str) -> Result<()> {
    let b = text.as_bytes();
    let mut i = 0;
    // What each open container expects next.
    #[derive(Clone, Copy, PartialEq)]
    enum Open {
        Array,
        Object,
    }
    let mut stack: Vec<Open> = Vec::new();
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b'\r') {
            *i += 1;
        }
    };
    loop {
        // A value.
        skip_ws(&mut i);
        let Some(&c) = b.get(i) else {
            return Err(invalid("The input string ended unexpectedly."));
        };
        match c {
            b'{' | b'[' => {
                if stack.len() >= DEPTH_MAX {
                    return Err(Error::new("54001", "stack depth limit exceeded"));
                }
                i += 1;
                skip_ws(&mut i);
                let close = if c == b'{' { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    i += 1;
                } else {
                    stack.push(if c == b'{' { Open::Object } else { Open::Array });
                    if c == b'{' {
                        i = key(b, i)?;
                    }
                    continue;
                }
            }
            b'"' => i = string(b, i)?,
            b'-' | b'0'..=b'9' => i = number(b, i)?,
            b't' if b[i..].starts_with(b"true") => i += 4,
            b'f' if b[i..].starts_with(b"false") => i += 5,
            b'n' if b[i..].starts_with(b"null") => i += 4,
            _ => return Err(invalid("Token is invalid.")),
        }
        // After a value: close containers, or a comma for the next member.
        loop {
            skip_ws(&mut i);
            let Some(open) = stack.last().copied() else {
                return if i == b.len() {
                    Ok(())
                } else {
                    Err(invalid("Expected end of input, but found more."))
                };
            };
            match (b.get(i), open) {
                (Some(b','), Open::Array) => {
                    i += 1;
                    break;
                }
                (Some(b','), Open::Object) => {
                    i = key(b, i + 1)?;
                    break;
                }
                (Some(b']'), Open::Array) | (Some(b'}'), Open::Object) => {
                    i += 1;
                    stack.pop();
                }
                (None, _) => return Err(invalid("The input string ended unexpectedly.")),
                _ => return Err(invalid("Expected \",\" or a closing bracket.")),
            }
        }
    }
}

/// An object member's key and its colon, from `i`; returns where its value starts.
fn key(b: &[u8], mut i: usize) -> Result<usize> {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    if b.get(i) != Some(&b'"') {
        return Err(invalid("Expected string."));
    }
    i = string(b, i)?;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    if b.get(i) != Some(&b':') {
        return Err(invalid("Expected \":\"."));
    }
    Ok(i + 1)
}

/// A string starting at the quote at `i`; returns the index after its closing quote.
fn string(b: &[u8], mut i: usize) -> Result<usize> {
    i += 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => return Ok(i + 1),
            b'\\' => match b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') => {
                    let hex = b
                        .get(i + 2..i + 6)
                        .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
                    if hex.is_none() {
                        return Err(invalid(
                            "\"\\u\" must be followed by four hexadecimal digits.",
                        ));
                    }
                    i += 6;
                }
                _ => return Err(invalid("Escape sequence is invalid.")),
            },
            0..=0x1f => return Err(invalid("Character with value 0x00-0x1f must be escaped.")),
            _ => i += 1,
        }
    }
    Err(invalid("The input string ended unexpectedly."))
}

/// A number starting at `i`; returns the index after it.
fn number(b: &[u8], mut i: usize) -> Result<usize> {
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if b[i] == b'-' {
        i += 1;
    }
    if b.get(i) == Some(&b'0') {
        i += 1;
    } else if !digits(&mut i) {
        return Err(invalid("Token is invalid."));
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return Err(invalid("Token is invalid."));
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return Err(invalid("Token is invalid."));
        }
    }
    if b.get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        return Err(invalid("Token is invalid."));
    }
    Ok(i)
}

// Walking json text (already checked: the operators on json read the text as kept).

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The index after the value starting at `i` (nested values skipped by counting
/// brackets outside strings: no recursion).
fn skip_value(b: &[u8], i: usize) -> usize {
    let mut i = skip_ws(b, i);
    let mut depth = 0usize;
    loop {
        let Some(&c) = b.get(i) else { return i };
        match c {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => {
                while i < b.len()
                    && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                {
                    i += 1;
                }
            }
        }
        if depth == 0 {
            return i;
        }
        // Inside a container: members and separators go by until it closes.
        while i < b.len() && matches!(b[i], b',' | b':' | b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
    }
}

/// The value `text` holds, trimmed of the whitespace around it.
pub fn trimmed(text: &str) -> &str {
    text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
}

/// The members of the object `text` is, as (raw key text with quotes, value text).
fn members(text: &str) -> Vec<(&str, &str)> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    let mut out = Vec::new();
    if b.get(i) != Some(&b'{') {
        return out;
    }
    i = skip_ws(b, i + 1);
    while i < b.len() && b[i] != b'}' {
        let key_end = skip_value(b, i);
        let key = &text[i..key_end];
        let v = skip_ws(b, skip_ws(b, key_end) + 1);
        let v_end = skip_value(b, v);
        out.push((key, &text[v..v_end]));
        i = skip_ws(b, v_end);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    out
}

/// The elements of the array `text` is.
fn elements(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    let mut out = Vec::new();
    if b.get(i) != Some(&b'[') {
        return out;
    }
    i = skip_ws(b, i + 1);
    while i < b.len() && b[i] != b']' {
        let end = skip_value(b, i);
        out.push(&text[i..end]);
        i = skip_ws(b, end);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    out
}

/// A JSON string literal's text, unescaped.
pub fn unquote(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 1;
    let end = b.len().saturating_sub(1);
    while i < end {
        match b[i] {
            b'\\' => {
                let e = b.get(i + 1).copied().unwrap_or(b'\\');
                i += 2;
                match e {
                    b'b' => out.push('\u{8}'),
                    b'f' => out.push('\u{c}'),
                    b'n' => out.push('\n'),
                    b'r' => out.push('\r'),
                    b't' => out.push('\t'),
                    b'u' => {
                        let code = |at: usize| {
                            s.get(at..at + 4)
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .unwrap_or(0xFFFD)
                        };
                        let c = code(i);
                        i += 4;
                        if (0xD800..0xDC00).contains(&c) && s.get(i..i + 2) == Some("\\u") {
                            let low = code(i + 2);
                            i += 6;
                            let full =
                                0x10000 + ((c - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                            out.push(char::from_u32(full).unwrap_or('\u{FFFD}'));
                        } else {
                            out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        }
                    }
                    other => out.push(other as char),
                }
            }
            _ => {
                let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

/// `json -> 'key'`: the last member of that name (as PostgreSQL's json walk finds).
pub fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    members(text)
        .into_iter()
        .rfind(|(k, _)| unquote(k) == key)
        .map(|(_, v)| v)
}

/// `json -> n`: element `n`, negative from the end.
pub fn element(text: &str, n: i64) -> Option<&str> {
    let items = elements(text);
    let at = if n < 0 { items.len() as i64 + n } else { n };
    usize::try_from(at).ok().and_then(|k| items.get(k).copied())
}

/// json_typeof.
pub fn type_name(text: &str) -> &'static str {
    match trimmed(text).as_bytes().first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// The element texts of a json array (None when `text` is no array).
pub fn array_items(text: &str) -> Option<Vec<&str>> {
    (type_name(text) == "array").then(|| elements(text))
}

/// The (key, value text) members of a json object (None when `text` is no object).
pub fn object_members(text: &str) -> Option<Vec<(String, &str)>> {
    (type_name(text) == "object").then(|| {
        members(text)
            .into_iter()
            .map(|(k, v)| (unquote(k), v))
            .collect()
    })
}

/// `s` as a JSON string literal (PostgreSQL's escape_json).
pub fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgresql_accepts_these_and_refuses_those() {
        for ok in [
            "1",
            " -0.5e+10 ",
            "\"a\\u00e9\\n\"",
            "[]",
            "{}",
            "[1, [2, {\"a\": [null, true, false]}]]",
            "{\"a\": 1, \"a\": 2}",
            "\"\\ud800\"",
        ] {
            assert!(validate(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "01",
            "1.",
            ".5",
            "-",
            "[1,]",
            "{\"a\" 1}",
            "{a: 1}",
            "[1 2]",
            "tru",
            "nul",
            "\"\\x\"",
            "\"open",
            "[",
            "{\"a\": 1,}",
            "1 2",
            "\"\u{1}\"",
            "1e",
            "+1",
            "NaN",
        ] {
            assert_eq!(
                validate(bad).err().map(|e| e.code),
                Some("22P02"),
                "{bad:?}"
            );
        }
        // Deep nesting is refused without exhausting the stack.
        let deep = "[".repeat(20_000) + &"]".repeat(20_000);
        assert!(validate(&deep).is_err());
        let ok_deep = "[".repeat(5_000) + &"]".repeat(5_000);
        assert!(validate(&ok_deep).is_ok());
    }

    #[test]
    fn strings_are_quoted_as_postgresql_escapes_them() {
        let mut s = String::new();
        quote("a\"b\\c\n\u{1}é", &mut s);
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001é\"");
    }
}
