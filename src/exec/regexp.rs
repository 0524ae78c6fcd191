//! PostgreSQL's regular-expression functions: regexp_match(es), regexp_replace,
//! regexp_split_to_array / _table, regexp_count / instr / like / substr, and
//! substring(… from pattern).
//!
//! Patterns are PostgreSQL's AREs rewritten for the regex crate
//! (`string_functions::are_source`), with the function's flags. What differs is which
//! substring a match is: PostgreSQL takes the leftmost match and then, for a greedy
//! RE (one whose first quantifier is greedy, or with a top-level `|`), the longest
//! one starting there, and the shortest for a non-greedy one; the regex crate takes
//! the first alternative that matches. So a match starts where the crate's does, a
//! greedy RE's end is found by an anchored longest-match search (regex-automata's
//! `MatchKind::All`), and capture groups are read from the crate's captures when its
//! match is that same span — when it is not (a pattern whose groups PostgreSQL would
//! assign by its own rules), the call answers 0A000 rather than guess.

use regex_automata::{Anchored, Input, MatchKind};

use super::string_functions::{REGEX_SIZE_MAX, are_source_for, regex_error};
use crate::error::{Error, Result};

/// A match's groups as byte spans, the whole match first (None: took no part).
pub type Groups = Vec<Option<(usize, usize)>>;

/// A compiled pattern with PostgreSQL's match semantics.
pub struct PgRegex {
    first: regex::Regex,
    /// All matches (MatchKind::All), for the longest or shortest one from a start.
    all: Option<regex_automata::meta::Regex>,
    greedy: bool,
    /// The pattern anchored at the haystack's end, to read groups for a given span,
    /// and the same with its alternatives reversed (None without alternation).
    ending: regex::Regex,
    ending_reversed: Option<regex::Regex>,
}

/// The flags of a regexp function call.
#[derive(Clone, Copy, Debug, Default)]
pub struct Flags {
    pub global: bool,
}

/// Parses `flags` into the embedded options PostgreSQL's flag letters mean, and
/// whether `g` was given.
pub fn parse_flags(flags: &str) -> Result<(String, Flags)> {
    let mut options = String::new();
    let mut f = Flags::default();
    for c in flags.chars() {
        match c {
            'g' => f.global = true,
            'i' | 'c' | 'n' | 'm' | 's' | 'p' | 'w' | 'x' | 't' | 'q' | 'e' | 'b' => {
                options.push(c)
            }
            _ => {
                return Err(Error::new(
                    "22023",
                    format!("invalid regular expression option: \"{c}\""),
                ));
            }
        }
    }
    Ok((options, f))
}

/// One element of a pattern, as far as greediness and alternation go.
enum Atom<'p> {
    /// A group's content (without its parentheses and `?:`-style prefix), whether it
    /// captures, its prefix, and the quantifier text after it.
    Group {
        body: &'p str,
        prefix: &'p str,
        quant: &'p str,
    },
    /// Anything else with its quantifier.
    Other { text: &'p str, quant: &'p str },
}

/// Splits `p` at its top-level `|` into branches of atoms (None: unbalanced).
fn branches(p: &str) -> Option<Vec<Vec<Atom<'_>>>> {
    let b = p.as_bytes();
    let mut out = vec![Vec::new()];
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let atom_end;
        let mut group: Option<(usize, usize, usize)> = None;
        match b[i] {
            b'|' => {
                out.push(Vec::new());
                i += 1;
                continue;
            }
            b'\\' => atom_end = (i + 2).min(b.len()),
            b'[' => {
                let mut j = i + 1;
                if j < b.len() && b[j] == b'^' {
                    j += 1;
                }
                if j < b.len() && b[j] == b']' {
                    j += 1;
                }
                while j < b.len() && b[j] != b']' {
                    if b[j] == b'[' && j + 1 < b.len() && matches!(b[j + 1], b':' | b'.' | b'=') {
                        let close = b[j + 1];
                        j += 2;
                        while j + 1 < b.len() && !(b[j] == close && b[j + 1] == b']') {
                            j += 1;
                        }
                        j += 1;
                    }
                    j += 1;
                }
                atom_end = (j + 1).min(b.len());
            }
            b'(' => {
                let mut depth = 0;
                let mut j = i;
                while j < b.len() {
                    match b[j] {
                        b'\\' => j += 1,
                        b'[' => {
                            // Skip a bracket expression inside the group.
                            j += 1;
                            if j < b.len() && b[j] == b'^' {
                                j += 1;
                            }
                            if j < b.len() && b[j] == b']' {
                                j += 1;
                            }
                            while j < b.len() && b[j] != b']' {
                                j += 1;
                            }
                        }
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j >= b.len() {
                    return None;
                }
                let mut body_start = i + 1;
                if p[body_start..].starts_with("?P<") || p[body_start..].starts_with("?<") {
                    // A named group: the body starts after the name.
                    body_start = p[body_start..].find('>').map_or(j, |k| body_start + k + 1);
                } else if b.get(body_start) == Some(&b'?') {
                    // `(?:`, `(?=`, `(?!`, `(?i)…`: the prefix up to `:` or the option end.
                    let mut k = body_start + 1;
                    while k < j && b[k].is_ascii_alphabetic() {
                        k += 1;
                    }
                    body_start = (k + 1).min(j);
                }
                group = Some((i, body_start, j));
                atom_end = j + 1;
            }
            _ => atom_end = i + p[i..].chars().next().map_or(1, char::len_utf8),
        }
        // The quantifier after the atom, with its lazy `?`.
        let mut q = atom_end;
        if q < b.len() && matches!(b[q], b'*' | b'+' | b'?' | b'{') {
            if b[q] == b'{' {
                while q < b.len() && b[q] != b'}' {
                    q += 1;
                }
            }
            q += 1;
            if q < b.len() && b[q] == b'?' {
                q += 1;
            }
        }
        let q = q.min(b.len());
        let quant = &p[atom_end.min(p.len())..q];
        out.last_mut()?.push(match group {
            Some((open, body_start, close)) => Atom::Group {
                body: &p[body_start..close],
                prefix: &p[open..body_start],
                quant,
            },
            None => Atom::Other {
                text: &p[start..atom_end.min(p.len())],
                quant,
            },
        });
        i = q;
    }
    Some(out)
}

/// PostgreSQL's greediness of an RE: `|` at its top makes it greedy; else its first
/// atom with a greediness decides (a quantifier's, or a group's content's); None
/// when no atom has one.
fn greediness(p: &str) -> Option<bool> {
    let parts = branches(p)?;
    if parts.len() > 1 {
        return Some(true);
    }
    for atom in parts.into_iter().flatten() {
        let quant = match &atom {
            Atom::Group { quant, .. } | Atom::Other { quant, .. } => *quant,
        };
        if !quant.is_empty() {
            return Some(!quant.ends_with('?') || quant == "?");
        }
        if let Atom::Group { body, .. } = atom
            && let Some(g) = greediness(body)
        {
            return Some(g);
        }
    }
    None
}

/// Whether PostgreSQL looks for the longest match (else the shortest).
fn is_greedy(p: &str) -> bool {
    greediness(p) != Some(false)
}

/// `p` with its capturing groups named `g1`, `g2`… in their order, so a variant
/// that reorders alternatives still reads them by their original numbers.
fn named_groups(p: &str) -> String {
    let b = p.as_bytes();
    let mut out = String::with_capacity(p.len() + 16);
    let mut n = 0;
    let mut i = 0;
    let mut in_bracket = false;
    while i < b.len() {
        let c = p[i..].chars().next().unwrap_or('\0');
        let len = c.len_utf8();
        if c == '\\' {
            let end = (i + 1 + p[i + 1..].chars().next().map_or(0, char::len_utf8)).min(p.len());
            out.push_str(&p[i..end]);
            i = end;
            continue;
        }
        if in_bracket {
            if c == ']' {
                in_bracket = false;
            }
        } else if c == '[' {
            in_bracket = true;
            out.push(c);
            i += 1;
            // A `]` first in a bracket expression is literal.
            if p[i..].starts_with('^') {
                out.push('^');
                i += 1;
            }
            if p[i..].starts_with(']') {
                out.push(']');
                i += 1;
            }
            continue;
        } else if c == '(' && !p[i + 1..].starts_with('?') {
            n += 1;
            out.push_str(&format!("(?P<g{n}>"));
            i += 1;
            continue;
        }
        out.push(c);
        i += len;
    }
    out
}

/// `p` with the alternatives of every alternation reversed (a second opinion on
/// which way a group's alternation splits a match).
fn reversed_alternatives(p: &str) -> Option<String> {
    let parts = branches(p)?;
    let mut out = Vec::with_capacity(parts.len());
    for branch in parts.iter().rev() {
        let mut s = String::new();
        for atom in branch {
            match atom {
                Atom::Group {
                    body,
                    prefix,
                    quant,
                } => {
                    s.push_str(prefix);
                    s.push_str(&reversed_alternatives(body)?);
                    s.push(')');
                    s.push_str(quant);
                }
                Atom::Other { text, quant } => {
                    s.push_str(text);
                    s.push_str(quant);
                }
            }
        }
        out.push(s);
    }
    Some(out.join("|"))
}

impl PgRegex {
    /// `pattern` with the embedded options `options` (flag letters).
    pub fn new(pattern: &str, options: &str, icase: bool) -> Result<PgRegex> {
        let full = if options.is_empty() {
            pattern.to_string()
        } else {
            format!("(?{options}){pattern}")
        };
        let a = are_source_for(&full, icase)?;
        let first = regex::RegexBuilder::new(&a.source)
            .case_insensitive(a.icase)
            .multi_line(a.multi_line)
            .dot_matches_new_line(a.dot_newline)
            .ignore_whitespace(a.expanded)
            .size_limit(REGEX_SIZE_MAX)
            .build()
            .map_err(|e| regex_error(&e))?;
        let greedy = is_greedy(pattern);
        // (In expanded mode a `#` comment runs to the line's end: close it first.)
        let close = if a.expanded { "\n" } else { "" };
        let ending = regex::RegexBuilder::new(&format!("(?:{}{close})\\z", a.source))
            .case_insensitive(a.icase)
            .multi_line(a.multi_line)
            .dot_matches_new_line(a.dot_newline)
            .ignore_whitespace(a.expanded)
            .size_limit(REGEX_SIZE_MAX)
            .build()
            .map_err(|e| regex_error(&e))?;
        let ending_reversed = if a.literal || !pattern.contains('|') {
            None
        } else {
            reversed_alternatives(&named_groups(&a.source)).and_then(|r| {
                regex::RegexBuilder::new(&format!("(?:{r}{close})\\z"))
                    .case_insensitive(a.icase)
                    .multi_line(a.multi_line)
                    .dot_matches_new_line(a.dot_newline)
                    .ignore_whitespace(a.expanded)
                    .size_limit(REGEX_SIZE_MAX)
                    .build()
                    .ok()
            })
        };
        let all = if !a.literal {
            let syntax = regex_automata::util::syntax::Config::new()
                .case_insensitive(a.icase)
                .multi_line(a.multi_line)
                .dot_matches_new_line(a.dot_newline)
                .ignore_whitespace(a.expanded);
            let re = regex_automata::meta::Regex::builder()
                .syntax(syntax)
                .configure(
                    regex_automata::meta::Regex::config()
                        .match_kind(MatchKind::All)
                        .nfa_size_limit(Some(REGEX_SIZE_MAX)),
                )
                .build(&a.source)
                .map_err(|e| Error::new("2201B", format!("invalid regular expression: {e}")))?;
            Some(re)
        } else {
            None
        };
        Ok(PgRegex {
            first,
            all,
            greedy,
            ending,
            ending_reversed,
        })
    }

    pub fn is_match(&self, h: &str) -> bool {
        self.first.is_match(h)
    }

    /// The match at or after byte `at`: (start, end).
    pub fn find_at(&self, h: &str, at: usize) -> Option<(usize, usize)> {
        let m = self.first.find_at(h, at)?;
        let start = m.start();
        // From the leftmost start: the longest match for a greedy RE, the shortest for
        // a non-greedy one.
        let end = match &self.all {
            Some(re) => {
                let input = Input::new(h)
                    .range(start..)
                    .anchored(Anchored::Yes)
                    .earliest(!self.greedy);
                re.search(&input).map_or(m.end(), |l| l.end())
            }
            None => m.end(),
        };
        Some((start, end))
    }

    /// The match at or after `at` and its groups (byte spans; None for a group that
    /// took no part).
    pub fn captures_at(&self, h: &str, at: usize) -> Result<Option<Groups>> {
        let Some((start, end)) = self.find_at(h, at) else {
            return Ok(None);
        };
        let Some(caps) = self.first.captures_at(h, start) else {
            return Ok(None);
        };
        if caps.len() == 1 {
            return Ok(Some(vec![Some((start, end))]));
        }
        let spans = |c: &regex::Captures| -> Vec<Option<(usize, usize)>> {
            (0..c.len())
                .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                .collect()
        };
        let unsupported = || {
            Error::feature_not_supported(
                "capture groups whose split of the match depends on alternation preference",
            )
        };
        // The groups of the span PostgreSQL matched: the pattern forced to end there
        // (PostgreSQL prefers a group's longest alternative; when reversing the
        // alternatives' order changes how the match splits, kiln cannot tell).
        let groups = match self.ending.captures_at(&h[..end], start) {
            Some(c) if c.get(0).map(|m| (m.start(), m.end())) == Some((start, end)) => spans(&c),
            _ => return Err(unsupported()),
        };
        if let Some(rev) = &self.ending_reversed {
            let other: Option<Vec<Option<(usize, usize)>>> =
                rev.captures_at(&h[..end], start).map(|c| {
                    std::iter::once(c.get(0).map(|m| (m.start(), m.end())))
                        .chain(
                            (1..groups.len())
                                .map(|g| c.name(&format!("g{g}")).map(|m| (m.start(), m.end()))),
                        )
                        .collect()
                });
            if other.as_ref() != Some(&groups) {
                return Err(unsupported());
            }
        }
        Ok(Some(groups))
    }

    /// Capture groups, the whole match not counted.
    pub fn groups(&self) -> usize {
        self.first.captures_len() - 1
    }
}

/// Every match from `start` (byte offset), as PostgreSQL's setup_regexp_matches finds
/// them: after an empty match the search moves on a character; with
/// `ignore_degenerate`, empty matches at the string's ends or right after a match are
/// skipped (regexp_split).
pub fn all_matches(
    re: &PgRegex,
    h: &str,
    start: usize,
    global: bool,
    ignore_degenerate: bool,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = start;
    let mut prev_end: Option<usize> = None;
    while at <= h.len() {
        let Some((s, e)) = re.find_at(h, at) else {
            break;
        };
        let degenerate =
            s == e && (s == 0 || s == h.len() || prev_end == Some(s)) && ignore_degenerate;
        if !degenerate {
            out.push((s, e));
            prev_end = Some(e);
            if !global {
                break;
            }
        }
        at = if e > s {
            e
        } else {
            // Step over one character.
            match h[s..].chars().next() {
                Some(c) => s + c.len_utf8(),
                None => break,
            }
        };
    }
    out
}

/// regexp_replace's replacement text for one match: `\1`…`\9` groups, `\&` the
/// match, `\\` a backslash; any other backslash is kept.
pub fn expand_replacement(
    repl: &str,
    h: &str,
    groups: &[Option<(usize, usize)>],
    out: &mut String,
) {
    let mut chars = repl.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some(d @ '1'..='9') => {
                chars.next();
                let n = d as usize - '0' as usize;
                if let Some(Some((s, e))) = groups.get(n) {
                    out.push_str(&h[*s..*e]);
                }
            }
            Some('&') => {
                chars.next();
                if let Some(Some((s, e))) = groups.first() {
                    out.push_str(&h[*s..*e]);
                }
            }
            Some('\\') => {
                chars.next();
                out.push('\\');
            }
            _ => out.push('\\'),
        }
    }
}

/// A character position (1-based) as a byte offset; past the end gives the length.
pub fn char_to_byte(h: &str, pos: usize) -> usize {
    h.char_indices()
        .nth(pos.saturating_sub(1))
        .map_or(h.len(), |(b, _)| b)
}

/// A byte offset as a character position (1-based).
pub fn byte_to_char(h: &str, b: usize) -> usize {
    h[..b].chars().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_match_spans() {
        let re = |p: &str| PgRegex::new(p, "", false).expect("compiles");
        assert_eq!(re("a|ab|abc").find_at("abcd", 0), Some((0, 3)));
        assert_eq!(re("a+?").find_at("aaa", 0), Some((0, 1)));
        assert_eq!(re("x*").find_at("abc", 0), Some((0, 0)));
        assert_eq!(re("b|bc").find_at("abcd", 0), Some((1, 3)));
        assert!(is_greedy("a|b+?"));
        assert!(!is_greedy("a.*?c"));
        assert!(is_greedy("[*?]+"));
    }
}

use std::cell::RefCell;
use std::rc::Rc;

use crate::plan::logical::SetFn;
use crate::sql::expr::RegexpFn;
use crate::types::{DataType, Value, array};

thread_local! {
    static LAST_REGEX: RefCell<Option<(String, String, Rc<PgRegex>)>> = const { RefCell::new(None) };
}

/// The compiled pattern, the last one a thread used kept.
fn compiled(pattern: &str, options: &str) -> Result<Rc<PgRegex>> {
    LAST_REGEX.with(|cell| {
        if let Some((p, o, re)) = &*cell.borrow()
            && p == pattern
            && o == options
        {
            return Ok(re.clone());
        }
        let re = Rc::new(PgRegex::new(pattern, options, false)?);
        *cell.borrow_mut() = Some((pattern.to_string(), options.to_string(), re.clone()));
        Ok(re)
    })
}

fn text(v: &Value) -> Result<&str> {
    match v {
        Value::Text(s) => Ok(s),
        _ => Err(Error::internal("regexp function expected text")),
    }
}

fn int(v: &Value) -> Result<i32> {
    match v {
        Value::Int4(x) => Ok(*x),
        _ => Err(Error::internal("regexp function expected an integer")),
    }
}

fn no_global(name: &str) -> Error {
    Error::new(
        "22023",
        format!("{name} does not support the \"global\" option"),
    )
    .with_hint(if name == "regexp_match()" {
        "Use the regexp_matches function instead."
    } else {
        "Use the regexp_replace function instead."
    })
}

fn bad_parameter(name: &str, v: i32) -> Error {
    Error::new(
        "22023",
        format!("invalid value for parameter \"{name}\": {v}"),
    )
}

/// The flags argument (empty when absent), its `g` refused for `name`.
fn flags_without_global(flags: Option<&Value>, name: &str) -> Result<String> {
    let (options, f) = parse_flags(flags.map(text).transpose()?.unwrap_or(""))?;
    if f.global {
        return Err(no_global(name));
    }
    Ok(options)
}

/// The text of a match's groups as a text[] (the whole match without groups).
fn match_array(re: &PgRegex, h: &str, groups: &[Option<(usize, usize)>]) -> Value {
    let values: Vec<Value> = if re.groups() == 0 {
        groups
            .first()
            .map(|g| vec![g.map_or(Value::Null, |(s, e)| Value::Text(h[s..e].to_string()))])
            .unwrap_or_default()
    } else {
        groups[1..]
            .iter()
            .map(|g| g.map_or(Value::Null, |(s, e)| Value::Text(h[s..e].to_string())))
            .collect()
    };
    Value::Array(Box::new(array::from_values(DataType::Text, &values)))
}

/// setup_regexp_matches: the matches (with groups) PostgreSQL finds from byte
/// `start`, degenerate ones dropped for splitting.
fn matches_from(
    re: &PgRegex,
    h: &str,
    start: usize,
    global: bool,
    ignore_degenerate: bool,
    need_groups: bool,
) -> Result<Vec<Groups>> {
    let mut out = Vec::new();
    let mut search = start;
    let mut prev_end = start.min(h.len());
    // A search is started at most once per character (and at the end).
    while search <= h.len() {
        let groups = if need_groups {
            re.captures_at(h, search)?
        } else {
            re.find_at(h, search).map(|m| vec![Some(m)])
        };
        let Some(groups) = groups else {
            break;
        };
        let Some((s, e)) = groups.first().copied().flatten() else {
            break;
        };
        if !ignore_degenerate || (s < h.len() && e > prev_end) {
            out.push(groups);
        }
        prev_end = e;
        if !global {
            break;
        }
        search = e;
        if s == e {
            match h[e..].chars().next() {
                Some(c) => search += c.len_utf8(),
                None => break,
            }
        }
    }
    Ok(out)
}

/// regexp_matches and regexp_split_to_table: their rows.
pub fn set_rows(kind: SetFn, args: &[Value]) -> Result<Vec<Value>> {
    let h = text(&args[0])?;
    let pattern = text(&args[1])?;
    let flags = args.get(2).map(text).transpose()?.unwrap_or("");
    let (options, f) = parse_flags(flags)?;
    if kind == SetFn::RegexpSplit && f.global {
        return Err(no_global("regexp_split_to_table()"));
    }
    let re = compiled(pattern, &options)?;
    Ok(match kind {
        SetFn::RegexpMatches => matches_from(&re, h, 0, f.global, false, re.groups() > 0)?
            .iter()
            .map(|g| match_array(&re, h, g))
            .collect(),
        _ => split(&re, h)?.into_iter().map(Value::Text).collect(),
    })
}

/// regexp_split: the text between the non-degenerate matches.
fn split(re: &PgRegex, h: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut from = 0;
    for g in matches_from(re, h, 0, true, true, false)? {
        if let Some((s, e)) = g.first().copied().flatten() {
            out.push(h[from..s].to_string());
            from = e;
        }
    }
    out.push(h[from..].to_string());
    Ok(out)
}

/// SIMILAR TO's pattern as a POSIX regular expression (similar_escape_internal):
/// `%` is `.*`, `_` is `.`, `(` a non-capturing group, `\ . ^ $` literal, the escape
/// character quotes the next one, and escape-double-quotes split the pattern into
/// the three parts of substring(… similar …).
pub fn similar_to_regex(pattern: &str, escape: Option<&str>) -> Result<String> {
    let esc: Option<char> = match escape {
        None => Some('\\'),
        Some("") => None,
        Some(e) => {
            let mut cs = e.chars();
            let c = cs.next();
            if cs.next().is_some() {
                return Err(Error::new("22025", "invalid escape string")
                    .with_hint("Escape string must be empty or one character."));
            }
            c
        }
    };
    let mut out = String::from("^(?:");
    let (mut after_escape, mut in_class, mut quotes) = (false, false, 0);
    for c in pattern.chars() {
        if after_escape {
            if c == '"' && !in_class {
                match quotes {
                    0 => out.push_str("){1,1}?("),
                    1 => out.push_str("){1,1}(?:"),
                    _ => {
                        return Err(Error::new(
                            "2200C",
                            "SQL regular expression may not contain more than two escape-double-quote separators",
                        ));
                    }
                }
                quotes += 1;
            } else {
                out.push('\\');
                out.push(c);
            }
            after_escape = false;
        } else if Some(c) == esc {
            after_escape = true;
        } else if in_class {
            if c == '\\' {
                out.push('\\');
            }
            out.push(c);
            if c == ']' {
                in_class = false;
            }
        } else if c == '[' {
            out.push(c);
            in_class = true;
        } else if c == '%' {
            out.push_str(".*");
        } else if c == '_' {
            out.push('.');
        } else if c == '(' {
            out.push_str("(?:");
        } else if matches!(c, '\\' | '.' | '^' | '$') {
            out.push('\\');
            out.push(c);
        } else {
            out.push(c);
        }
    }
    out.push_str(")$");
    Ok(out)
}

/// The scalar regexp functions, one row.
pub fn eval_row(kind: RegexpFn, row: &[Value]) -> Result<Value> {
    match kind {
        RegexpFn::Match => {
            let h = text(&row[0])?;
            let options = flags_without_global(row.get(2), "regexp_match()")?;
            let re = compiled(text(&row[1])?, &options)?;
            let found = if re.groups() > 0 {
                re.captures_at(h, 0)?
            } else {
                re.find_at(h, 0).map(|m| vec![Some(m)])
            };
            Ok(match found {
                Some(g) => match_array(&re, h, &g),
                None => Value::Null,
            })
        }
        RegexpFn::Replace => replace(row),
        RegexpFn::SplitToArray => {
            let h = text(&row[0])?;
            let options = flags_without_global(row.get(2), "regexp_split_to_array()")?;
            let re = compiled(text(&row[1])?, &options)?;
            let pieces: Vec<Value> = split(&re, h)?.into_iter().map(Value::Text).collect();
            Ok(Value::Array(Box::new(array::from_values(
                DataType::Text,
                &pieces,
            ))))
        }
        RegexpFn::Like => {
            let options = flags_without_global(row.get(2), "regexp_like()")?;
            let re = compiled(text(&row[1])?, &options)?;
            Ok(Value::Bool(re.is_match(text(&row[0])?)))
        }
        RegexpFn::Count => {
            let start = row.get(2).map(int).transpose()?.unwrap_or(1);
            if start <= 0 {
                return Err(bad_parameter("start", start));
            }
            let options = flags_without_global(row.get(3), "regexp_count()")?;
            let re = compiled(text(&row[1])?, &options)?;
            let h = text(&row[0])?;
            let from = char_to_byte(h, start as usize);
            let tail = &h[from..];
            Ok(Value::Int4(
                matches_from(&re, tail, 0, true, false, false)?.len() as i32,
            ))
        }
        RegexpFn::Instr => {
            let h = text(&row[0])?;
            let start = row.get(2).map(int).transpose()?.unwrap_or(1);
            let n = row.get(3).map(int).transpose()?.unwrap_or(1);
            let endoption = row.get(4).map(int).transpose()?.unwrap_or(0);
            let subexpr = row.get(6).map(int).transpose()?.unwrap_or(0);
            if start <= 0 {
                return Err(bad_parameter("start", start));
            }
            if n <= 0 {
                return Err(bad_parameter("n", n));
            }
            if endoption != 0 && endoption != 1 {
                return Err(bad_parameter("endoption", endoption));
            }
            if subexpr < 0 {
                return Err(bad_parameter("subexpr", subexpr));
            }
            let options = flags_without_global(row.get(5), "regexp_instr()")?;
            let re = compiled(text(&row[1])?, &options)?;
            let from = char_to_byte(h, start as usize);
            let tail = &h[from..];
            let found = matches_from(&re, tail, 0, true, false, subexpr > 0)?;
            let Some(g) = found.get(n as usize - 1) else {
                return Ok(Value::Int4(0));
            };
            let Some(span) = g.get(subexpr as usize) else {
                return Ok(Value::Int4(0));
            };
            Ok(Value::Int4(match span {
                Some((s, e)) => {
                    let at = if endoption == 1 { *e } else { *s };
                    (byte_to_char(tail, at) - 1 + start as usize) as i32
                }
                None => 0,
            }))
        }
        RegexpFn::Substr => {
            let h = text(&row[0])?;
            let start = row.get(2).map(int).transpose()?.unwrap_or(1);
            let n = row.get(3).map(int).transpose()?.unwrap_or(1);
            let subexpr = row.get(5).map(int).transpose()?.unwrap_or(0);
            if start <= 0 {
                return Err(bad_parameter("start", start));
            }
            if n <= 0 {
                return Err(bad_parameter("n", n));
            }
            if subexpr < 0 {
                return Err(bad_parameter("subexpr", subexpr));
            }
            let options = flags_without_global(row.get(4), "regexp_substr()")?;
            let re = compiled(text(&row[1])?, &options)?;
            let tail = &h[char_to_byte(h, start as usize)..];
            let found = matches_from(&re, tail, 0, true, false, subexpr > 0)?;
            Ok(
                match found
                    .get(n as usize - 1)
                    .and_then(|g| g.get(subexpr as usize).copied().flatten())
                {
                    Some((s, e)) => Value::Text(tail[s..e].to_string()),
                    None => Value::Null,
                },
            )
        }
        RegexpFn::Substring => {
            let h = text(&row[0])?;
            let re = compiled(text(&row[1])?, "")?;
            substring_of(&re, h)
        }
        RegexpFn::SimilarSubstring => {
            let h = text(&row[0])?;
            let pattern = similar_to_regex(text(&row[1])?, Some(text(&row[2])?))?;
            let re = compiled(&pattern, "")?;
            substring_of(&re, h)
        }
        RegexpFn::SimilarTo { escape } => {
            let h = text(&row[0])?;
            let esc = if escape { Some(text(&row[2])?) } else { None };
            let pattern = similar_to_regex(text(&row[1])?, esc)?;
            let re = compiled(&pattern, "")?;
            Ok(Value::Bool(re.is_match(h)))
        }
    }
}

/// textregexsubstr: the first group's text when the pattern has groups, else the
/// match; NULL without a match (or when that group took no part).
fn substring_of(re: &PgRegex, h: &str) -> Result<Value> {
    let found = if re.groups() > 0 {
        re.captures_at(h, 0)?
    } else {
        re.find_at(h, 0).map(|m| vec![Some(m)])
    };
    let Some(g) = found else {
        return Ok(Value::Null);
    };
    let pick = if re.groups() > 0 { 1 } else { 0 };
    Ok(match g.get(pick).copied().flatten() {
        Some((s, e)) => Value::Text(h[s..e].to_string()),
        None => Value::Null,
    })
}

/// regexp_replace(source, pattern, replacement [, start [, N]] [, flags]).
fn replace(row: &[Value]) -> Result<Value> {
    let h = text(&row[0])?;
    let pattern = text(&row[1])?;
    let repl = text(&row[2])?;
    // (source, pattern, replacement, flags) or (…, start [, N [, flags]]).
    let (start, n_arg, flags) = match row.get(3) {
        Some(Value::Text(f)) => (1, None, f.as_str()),
        Some(v) => (
            int(v)?,
            row.get(4).map(int).transpose()?,
            row.get(5).map(text).transpose()?.unwrap_or(""),
        ),
        None => (1, None, ""),
    };
    if start <= 0 {
        return Err(bad_parameter("start", start));
    }
    if let Some(n) = n_arg
        && n < 0
    {
        return Err(bad_parameter("n", n));
    }
    let (options, f) = parse_flags(flags)?;
    let n = n_arg.unwrap_or(if f.global { 0 } else { 1 });
    let re = compiled(pattern, &options)?;
    let mut out = String::with_capacity(h.len());
    let mut data_pos = 0;
    let mut search = char_to_byte(h, start as usize);
    if start as usize > h.chars().count() + 1 {
        return Ok(Value::Text(h.to_string()));
    }
    let mut count = 0;
    // Groups only when the replacement refers to them.
    let need_groups = repl
        .as_bytes()
        .windows(2)
        .any(|w| w[0] == b'\\' && w[1].is_ascii_digit() && w[1] != b'0');
    while search <= h.len() {
        let groups = if need_groups {
            re.captures_at(h, search)?
        } else {
            re.find_at(h, search).map(|m| vec![Some(m)])
        };
        let Some(groups) = groups else {
            break;
        };
        let Some((s, e)) = groups.first().copied().flatten() else {
            break;
        };
        count += 1;
        if n > 0 && count < n {
            search = e;
            if s == e {
                match h[e..].chars().next() {
                    Some(c) => search += c.len_utf8(),
                    None => break,
                }
            }
            continue;
        }
        out.push_str(&h[data_pos..s]);
        expand_replacement(repl, h, &groups, &mut out);
        data_pos = e;
        if n > 0 {
            break;
        }
        search = e;
        if s == e {
            match h[e..].chars().next() {
                Some(c) => search += c.len_utf8(),
                None => break,
            }
        }
    }
    out.push_str(&h[data_pos..]);
    Ok(Value::Text(out))
}
