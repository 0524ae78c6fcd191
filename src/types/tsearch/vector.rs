//! The `tsvector` type: text input and output (PostgreSQL's `tsvectorin` /
//! `tsvectorout` and the tsvector parser), the binary wire format (`tsvectorsend` /
//! `tsvectorrecv`), kiln's order-preserving storage encoding (the order of
//! `tsvector_cmp`), `to_tsvector`'s final assembly step (`make_tsvector`), and the
//! functions over tsvectors: `setweight`, `strip`, `||`, `ts_delete`, `ts_filter`,
//! `tsvector_to_array`, `array_to_tsvector`, `unnest` and `length`.

use std::cmp::Ordering;

use super::{Lexeme, MAX_NUM_POS, MAX_POS, ParsedWord, TsError, TsVector, pos_of, weight_of};

/// Longest lexeme tsvector input accepts, in bytes (PostgreSQL 15's MAXSTRLEN is
/// 2^11 - 1, and a word must be shorter than that).
const MAX_WORD_LEN: usize = (1 << 11) - 2;
/// Largest total size of the lexeme and position area (MAXSTRPOS).
const MAX_STR_POS: usize = (1 << 20) - 1;
/// `to_tsvector` keeps one position fewer than tsvector input does.
const MAX_PARSED_POS: usize = MAX_NUM_POS - 1;

const SYNTAX_ERROR: &str = "42601";
const PROGRAM_LIMIT_EXCEEDED: &str = "54000";
const INTERNAL_ERROR: &str = "XX000";
const NULL_VALUE_NOT_ALLOWED: &str = "22004";
const ZERO_LENGTH_CHARACTER_STRING: &str = "2200F";
const INVALID_PARAMETER_VALUE: &str = "22023";
const PROTOCOL_VIOLATION: &str = "08P01";
const CHARACTER_NOT_IN_REPERTOIRE: &str = "22021";

fn string_too_long(bytes: usize) -> TsError {
    TsError::new(
        PROGRAM_LIMIT_EXCEEDED,
        format!("string is too long for tsvector ({bytes} bytes, max {MAX_STR_POS} bytes)"),
    )
}

fn with_weight(p: u16, weight: u8) -> u16 {
    (p & MAX_POS) | ((weight as u16 & 3) << 14)
}

/// Bytes of the lexeme-and-position area PostgreSQL lays out for `lexemes`: each
/// word, then (when it has positions) padding to an even offset, a 2-byte count and
/// 2 bytes per position.
fn data_len<'a>(lexemes: impl IntoIterator<Item = &'a Lexeme>) -> usize {
    let mut len = 0usize;
    for l in lexemes {
        len += l.word.len();
        if !l.positions.is_empty() {
            len = (len + 1) & !1;
            len += 2 + 2 * l.positions.len();
        }
    }
    len
}

/// PostgreSQL's `VARSIZE` of the on-disk value: varlena header, lexeme count, one
/// 4-byte `WordEntry` per lexeme, then the data area.
fn varsize(v: &TsVector) -> usize {
    8 + 4 * v.lexemes.len() + data_len(&v.lexemes)
}

// ---------------------------------------------------------------------------
// Text input

/// Whitespace as PostgreSQL's `t_isspace` sees it in a UTF-8 database: C `isspace`
/// for one-byte characters, glibc's `iswspace` for the others.
fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t'
            | '\n'
            | '\x0B'
            | '\x0C'
            | '\r'
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205F}'
            | '\u{3000}'
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    WaitWord,
    WaitEndWord,
    WaitNextChar,
    WaitEndComplex,
    WaitCharComplex,
    WaitPosInfo,
    InPosInfo,
    WaitPosDelim,
}

/// The value C's `atoi` gives for the digits at the start of `s`: `strtol`
/// saturating at the 64-bit limit, then truncated to `int`.
fn c_atoi(s: &[u8]) -> i32 {
    let mut v: i64 = 0;
    for &b in s.iter().take_while(|b| b.is_ascii_digit()) {
        v = v.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    v as i32
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn syntax_error(&self) -> TsError {
        TsError::new(
            SYNTAX_ERROR,
            format!("syntax error in tsvector: \"{}\"", self.input),
        )
    }

    fn peek(&self) -> Option<char> {
        self.input[self.pos..].chars().next()
    }

    /// The next word and its positions, or `None` at the end of the input.
    fn next_token(&mut self) -> Result<Option<(String, Vec<u16>)>, TsError> {
        let mut state = State::WaitWord;
        let mut resume = State::WaitEndWord;
        let mut word = String::new();
        let mut positions: Vec<u16> = Vec::new();
        loop {
            let c = self.peek();
            match state {
                State::WaitWord => match c {
                    None => return Ok(None),
                    Some('\'') => state = State::WaitEndComplex,
                    Some('\\') => {
                        state = State::WaitNextChar;
                        resume = State::WaitEndWord;
                    }
                    Some(c) if !is_space(c) => {
                        word.push(c);
                        state = State::WaitEndWord;
                    }
                    Some(_) => {}
                },
                State::WaitNextChar => match c {
                    None => {
                        return Err(TsError::new(
                            SYNTAX_ERROR,
                            format!("there is no escaped character: \"{}\"", self.input),
                        ));
                    }
                    Some(c) => {
                        word.push(c);
                        state = resume;
                    }
                },
                State::WaitEndWord => match c {
                    Some('\\') => {
                        state = State::WaitNextChar;
                        resume = State::WaitEndWord;
                    }
                    None => {
                        if word.is_empty() {
                            return Err(self.syntax_error());
                        }
                        return Ok(Some((word, positions)));
                    }
                    Some(c) if is_space(c) => {
                        if word.is_empty() {
                            return Err(self.syntax_error());
                        }
                        return Ok(Some((word, positions)));
                    }
                    Some(':') => {
                        if word.is_empty() {
                            return Err(self.syntax_error());
                        }
                        state = State::InPosInfo;
                    }
                    Some(c) => word.push(c),
                },
                State::WaitEndComplex => match c {
                    Some('\'') => state = State::WaitCharComplex,
                    Some('\\') => {
                        state = State::WaitNextChar;
                        resume = State::WaitEndComplex;
                    }
                    None => return Err(self.syntax_error()),
                    Some(c) => word.push(c),
                },
                State::WaitCharComplex => match c {
                    Some('\'') => {
                        word.push('\'');
                        state = State::WaitEndComplex;
                    }
                    _ => {
                        if word.is_empty() {
                            return Err(self.syntax_error());
                        }
                        // Look at this character again for a position list.
                        state = State::WaitPosInfo;
                        continue;
                    }
                },
                State::WaitPosInfo => match c {
                    Some(':') => state = State::InPosInfo,
                    _ => return Ok(Some((word, positions))),
                },
                State::InPosInfo => match c {
                    Some(c) if c.is_ascii_digit() => {
                        let n = c_atoi(&self.input.as_bytes()[self.pos..]);
                        let limited = if n >= 1 << 14 { MAX_POS as i32 } else { n };
                        let p = (limited & MAX_POS as i32) as u16;
                        if p == 0 {
                            return Err(TsError::new(
                                SYNTAX_ERROR,
                                format!("wrong position info in tsvector: \"{}\"", self.input),
                            ));
                        }
                        positions.push(p);
                        state = State::WaitPosDelim;
                    }
                    _ => return Err(self.syntax_error()),
                },
                State::WaitPosDelim => {
                    let weight = match c {
                        Some(',') => {
                            state = State::InPosInfo;
                            None
                        }
                        Some('a' | 'A' | '*') => Some(3),
                        Some('b' | 'B') => Some(2),
                        Some('c' | 'C') => Some(1),
                        Some('d' | 'D') => Some(0),
                        None => return Ok(Some((word, positions))),
                        Some(c) if is_space(c) => return Ok(Some((word, positions))),
                        Some(c) if c.is_ascii_digit() => None,
                        Some(_) => return Err(self.syntax_error()),
                    };
                    if let (Some(w), Some(last)) = (weight, positions.last_mut()) {
                        if weight_of(*last) != 0 {
                            return Err(self.syntax_error());
                        }
                        *last = with_weight(*last, w);
                    }
                }
            }
            if let Some(c) = c {
                self.pos += c.len_utf8();
            }
        }
    }
}

/// Sorts positions and drops repeats (keeping the highest weight of a repeated
/// position), keeping at most [`MAX_NUM_POS`] and nothing after position
/// [`MAX_POS`] — tsvector input's `uniquePos`.
fn unique_positions(mut p: Vec<u16>) -> Vec<u16> {
    if p.len() <= 1 {
        return p;
    }
    super::pgsort::pg_qsort(&mut p, &|a: &u16, b: &u16| pos_of(*a).cmp(&pos_of(*b)));
    let mut out: Vec<u16> = Vec::with_capacity(p.len().min(MAX_NUM_POS));
    for x in p {
        match out.last_mut() {
            Some(last) if pos_of(x) == pos_of(*last) => {
                if weight_of(x) > weight_of(*last) {
                    *last = with_weight(*last, weight_of(x));
                }
            }
            Some(_) => {
                out.push(x);
                if out.len() >= MAX_NUM_POS || pos_of(x) == MAX_POS {
                    break;
                }
            }
            None => out.push(x),
        }
    }
    out
}

/// Sorts entries by word and merges repeated words (their positions pooled, then
/// [`unique_positions`]) — tsvector input's `uniqueentry`.
fn unique_entries(mut entries: Vec<Lexeme>) -> Vec<Lexeme> {
    if entries.len() > 1 {
        super::pgsort::pg_qsort(&mut entries, &|a: &Lexeme, b: &Lexeme| {
            a.word.as_bytes().cmp(b.word.as_bytes())
        });
    }
    let mut out: Vec<Lexeme> = Vec::with_capacity(entries.len());
    for e in entries {
        match out.last_mut() {
            Some(last) if last.word == e.word => last.positions.extend(e.positions),
            _ => out.push(e),
        }
    }
    for l in &mut out {
        l.positions = unique_positions(std::mem::take(&mut l.positions));
    }
    out
}

/// `tsvectorin`: parses a tsvector literal.
pub fn parse_tsvector(s: &str) -> Result<TsVector, TsError> {
    // A C string ends at its first NUL.
    let s = s.split('\0').next().unwrap_or("");
    let mut parser = Parser { input: s, pos: 0 };
    let mut entries = Vec::new();
    let mut total = 0usize;
    while let Some((word, positions)) = parser.next_token()? {
        if word.len() > MAX_WORD_LEN {
            return Err(TsError::new(
                PROGRAM_LIMIT_EXCEEDED,
                format!(
                    "word is too long ({} bytes, max {MAX_WORD_LEN} bytes)",
                    word.len()
                ),
            ));
        }
        if total > MAX_STR_POS {
            return Err(string_too_long(total));
        }
        total += word.len();
        entries.push(Lexeme { word, positions });
    }
    let lexemes = unique_entries(entries);
    let len = data_len(&lexemes);
    if len > MAX_STR_POS {
        return Err(string_too_long(len));
    }
    Ok(TsVector { lexemes })
}

// ---------------------------------------------------------------------------
// Text output

/// `tsvectorout`: appends the canonical text of `v` to `out`.
pub fn format_tsvector(v: &TsVector, out: &mut String) {
    for (i, l) in v.lexemes.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push('\'');
        for c in l.word.chars() {
            if c == '\'' || c == '\\' {
                out.push(c);
            }
            out.push(c);
        }
        out.push('\'');
        for (j, &p) in l.positions.iter().enumerate() {
            out.push(if j == 0 { ':' } else { ',' });
            out.push_str(&pos_of(p).to_string());
            match weight_of(p) {
                3 => out.push('A'),
                2 => out.push('B'),
                1 => out.push('C'),
                _ => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Storage encoding

/// Kiln's storage bytes for `v`. Comparing two encodings bytewise (then the shorter
/// first) orders them as PostgreSQL's `tsvector_cmp`: by on-disk size, then lexeme
/// count, then lexeme by lexeme — lexemes with positions first, the word, more
/// positions first, then each position (higher position first, then higher weight
/// first).
pub fn encode(v: &TsVector) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + varsize(v));
    out.extend_from_slice(&(varsize(v).min(u32::MAX as usize) as u32).to_be_bytes());
    out.extend_from_slice(&(v.lexemes.len().min(u32::MAX as usize) as u32).to_be_bytes());
    for l in &v.lexemes {
        out.push(if l.positions.is_empty() { 1 } else { 0 });
        // The word, self-delimiting and order-preserving: NUL escaped as 00 FF,
        // terminated by 00 00.
        for &b in l.word.as_bytes() {
            out.push(b);
            if b == 0 {
                out.push(0xFF);
            }
        }
        out.extend_from_slice(&[0, 0]);
        if !l.positions.is_empty() {
            let n = l.positions.len().min(u16::MAX as usize) as u16;
            out.extend_from_slice(&(u16::MAX - n).to_be_bytes());
            for &p in l.positions.iter().take(n as usize) {
                let key = ((MAX_POS - pos_of(p)) << 2) | (3 - weight_of(p) as u16);
                out.extend_from_slice(&key.to_be_bytes());
            }
        }
    }
    out
}

/// Inverse of [`encode`]; `None` for bytes `encode` cannot have produced.
pub fn decode(b: &[u8]) -> Option<TsVector> {
    let mut r = Reader { b, at: 0 };
    let size = r.u32()? as usize;
    let count = r.u32()? as usize;
    // Each lexeme takes at least three bytes.
    if count > b.len() / 3 {
        return None;
    }
    let mut lexemes = Vec::with_capacity(count);
    for _ in 0..count {
        let stripped = match r.u8()? {
            0 => false,
            1 => true,
            _ => return None,
        };
        let mut word = Vec::new();
        loop {
            match r.u8()? {
                0 => match r.u8()? {
                    0 => break,
                    0xFF => word.push(0),
                    _ => return None,
                },
                c => word.push(c),
            }
        }
        let word = String::from_utf8(word).ok()?;
        let mut positions = Vec::new();
        if !stripped {
            let n = u16::MAX - r.u16()?;
            if n == 0 {
                return None;
            }
            for _ in 0..n {
                let key = r.u16()?;
                let pos = MAX_POS.checked_sub(key >> 2)?;
                let weight = 3 - (key & 3);
                positions.push(pos | (weight << 14));
            }
        }
        lexemes.push(Lexeme { word, positions });
    }
    if r.at != b.len() {
        return None;
    }
    let v = TsVector { lexemes };
    if varsize(&v).min(u32::MAX as usize) != size {
        return None;
    }
    Some(v)
}

/// [`decode`] into `v`, reusing its lexemes' allocations (a scan decodes row after
/// row); false, with `v` unspecified, for bytes `encode` cannot have produced.
pub fn decode_into(b: &[u8], v: &mut TsVector) -> bool {
    decode_into_inner(b, v).is_some()
}

fn decode_into_inner(b: &[u8], v: &mut TsVector) -> Option<()> {
    let mut r = Reader { b, at: 0 };
    let size = r.u32()? as usize;
    let count = r.u32()? as usize;
    if count > b.len() / 3 {
        return None;
    }
    v.lexemes.truncate(count);
    v.lexemes.resize_with(count, Lexeme::default);
    for lx in v.lexemes.iter_mut() {
        let stripped = match r.u8()? {
            0 => false,
            1 => true,
            _ => return None,
        };
        let start = r.at;
        let len = b.get(start..)?.iter().position(|&c| c == 0)?;
        lx.word.clear();
        if b.get(start + len + 1) == Some(&0) {
            lx.word
                .push_str(std::str::from_utf8(&b[start..start + len]).ok()?);
            r.at = start + len + 2;
        } else {
            // An escaped NUL inside the word: the general reader.
            let mut word = Vec::new();
            loop {
                match r.u8()? {
                    0 => match r.u8()? {
                        0 => break,
                        0xFF => word.push(0),
                        _ => return None,
                    },
                    c => word.push(c),
                }
            }
            lx.word.push_str(std::str::from_utf8(&word).ok()?);
        }
        lx.positions.clear();
        if !stripped {
            let n = u16::MAX - r.u16()?;
            if n == 0 {
                return None;
            }
            for _ in 0..n {
                let key = r.u16()?;
                let pos = MAX_POS.checked_sub(key >> 2)?;
                let weight = 3 - (key & 3);
                lx.positions.push(pos | (weight << 14));
            }
        }
    }
    if r.at != b.len() || varsize(v).min(u32::MAX as usize) != size {
        return None;
    }
    Some(())
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        let s = self.take(2)?;
        Some(u16::from_be_bytes([s[0], s[1]]))
    }
    fn u32(&mut self) -> Option<u32> {
        let s = self.take(4)?;
        Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
}

// ---------------------------------------------------------------------------
// Binary wire format

/// `tsvectorsend`: lexeme count (int4), then per lexeme the word NUL-terminated,
/// the position count (int2) and the positions (int2 each, weight in the top bits).
pub fn send(v: &TsVector, out: &mut Vec<u8>) {
    out.extend_from_slice(&(v.lexemes.len() as u32).to_be_bytes());
    for l in &v.lexemes {
        out.extend_from_slice(l.word.as_bytes());
        out.push(0);
        out.extend_from_slice(&(l.positions.len() as u16).to_be_bytes());
        for &p in &l.positions {
            out.extend_from_slice(&p.to_be_bytes());
        }
    }
}

fn insufficient_data() -> TsError {
    TsError::new(PROTOCOL_VIOLATION, "insufficient data left in message")
}

/// `tsvectorrecv`. PostgreSQL sorts an out-of-order lexeme list but keeps repeated
/// words; kiln merges them as tsvector input does. Trailing bytes are left for the
/// caller to reject.
pub fn recv(b: &[u8]) -> Result<TsVector, TsError> {
    let mut r = Reader { b, at: 0 };
    let n = r.u32().ok_or_else(insufficient_data)? as i32;
    if n < 0 || n as usize > 0x3fff_ffff / 4 {
        return Err(TsError::new(INTERNAL_ERROR, "invalid size of tsvector"));
    }
    let mut lexemes: Vec<Lexeme> = Vec::new();
    let mut datalen = 0usize;
    let mut need_sort = false;
    for _ in 0..n {
        let rest = &b[r.at..];
        let Some(nul) = rest.iter().position(|&c| c == 0) else {
            return Err(TsError::new(
                PROTOCOL_VIOLATION,
                "invalid string in message",
            ));
        };
        let raw = &rest[..nul];
        r.at += nul + 1;
        let word = match std::str::from_utf8(raw) {
            Ok(w) => w.to_string(),
            Err(e) => return Err(invalid_utf8(&raw[e.valid_up_to()..])),
        };
        let npos = r.u16().ok_or_else(insufficient_data)?;
        if word.len() > MAX_WORD_LEN + 1 {
            return Err(TsError::new(
                INTERNAL_ERROR,
                "invalid tsvector: lexeme too long",
            ));
        }
        if datalen > MAX_STR_POS {
            return Err(TsError::new(
                INTERNAL_ERROR,
                "invalid tsvector: maximum total lexeme length exceeded",
            ));
        }
        if npos as usize > MAX_NUM_POS {
            return Err(TsError::new(
                INTERNAL_ERROR,
                "unexpected number of tsvector positions",
            ));
        }
        datalen += word.len();
        if let Some(prev) = lexemes.last()
            && word.as_bytes() <= prev.word.as_bytes()
        {
            need_sort = true;
        }
        let mut positions = Vec::with_capacity(npos as usize);
        for j in 0..npos as usize {
            let p = r.u16().ok_or_else(insufficient_data)?;
            if j > 0 && pos_of(p) <= pos_of(positions[j - 1]) {
                return Err(TsError::new(
                    INTERNAL_ERROR,
                    "position information is misordered",
                ));
            }
            positions.push(p);
        }
        if npos > 0 {
            datalen = ((datalen + 1) & !1) + (npos as usize + 1) * 4;
        }
        lexemes.push(Lexeme { word, positions });
    }
    if need_sort {
        lexemes = unique_entries(lexemes);
    }
    Ok(TsVector { lexemes })
}

fn invalid_utf8(bad: &[u8]) -> TsError {
    let width = match bad.first() {
        Some(b) if b & 0xE0 == 0xC0 => 2,
        Some(b) if b & 0xF0 == 0xE0 => 3,
        Some(b) if b & 0xF8 == 0xF0 => 4,
        _ => 1,
    };
    let shown: Vec<String> = bad
        .iter()
        .take(width)
        .map(|b| format!("0x{b:02x}"))
        .collect();
    TsError::new(
        CHARACTER_NOT_IN_REPERTOIRE,
        format!(
            "invalid byte sequence for encoding \"UTF8\": {}",
            shown.join(" ")
        ),
    )
}

// ---------------------------------------------------------------------------
// to_tsvector

/// `make_tsvector`: the tsvector of a configuration's parsed words. Positions are
/// clamped to [`MAX_POS`], each lexeme keeps its distinct positions in order, at most
/// 255 of them and none after [`MAX_POS`]; all weights are D.
pub fn from_parsed(words: &[ParsedWord]) -> Result<TsVector, TsError> {
    let mut sorted: Vec<(&str, u16)> = words
        .iter()
        .map(|w| (w.word.as_str(), w.pos.min(MAX_POS as u32) as u16))
        .collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()).then(a.1.cmp(&b.1)));
    let mut lexemes: Vec<Lexeme> = Vec::new();
    for (word, pos) in sorted {
        match lexemes.last_mut() {
            Some(last) if last.word == word => {
                let prev = last.positions.last().copied().unwrap_or(0);
                if last.positions.len() < MAX_PARSED_POS && prev != MAX_POS && prev != pos {
                    last.positions.push(pos);
                }
            }
            _ => lexemes.push(Lexeme {
                word: word.to_string(),
                positions: vec![pos],
            }),
        }
    }
    let len = data_len(&lexemes);
    if len > MAX_STR_POS {
        return Err(string_too_long(len));
    }
    Ok(TsVector { lexemes })
}

// ---------------------------------------------------------------------------
// Functions

fn weight_code(weight: char) -> Option<u8> {
    match weight {
        'A' | 'a' => Some(3),
        'B' | 'b' => Some(2),
        'C' | 'c' => Some(1),
        'D' | 'd' => Some(0),
        _ => None,
    }
}

/// The byte a `"char"` holds for `c`: the character itself when ASCII, else the
/// first byte of its UTF-8 form (as casting text to `"char"` does).
fn char_byte(c: char) -> u8 {
    let mut buf = [0u8; 4];
    c.encode_utf8(&mut buf).as_bytes()[0]
}

fn set_all(l: &mut Lexeme, w: u8) {
    for p in &mut l.positions {
        *p = with_weight(*p, w);
    }
}

/// `setweight(tsvector, "char")`.
pub fn setweight(v: &TsVector, weight: char) -> Result<TsVector, TsError> {
    let w = weight_code(weight).ok_or_else(|| {
        TsError::new(
            INTERNAL_ERROR,
            format!("unrecognized weight: {}", char_byte(weight) as i8),
        )
    })?;
    let mut out = v.clone();
    for l in &mut out.lexemes {
        set_all(l, w);
    }
    Ok(out)
}

fn find(v: &TsVector, word: &str) -> Option<usize> {
    v.lexemes
        .binary_search_by(|l| l.word.as_bytes().cmp(word.as_bytes()))
        .ok()
}

/// `setweight(tsvector, "char", text[])`: reweights the listed lexemes; NULL
/// elements are skipped (as PostgreSQL 15 does).
pub fn setweight_by_filter(
    v: &TsVector,
    weight: char,
    lexemes: &[Option<&str>],
) -> Result<TsVector, TsError> {
    let w = weight_code(weight)
        .ok_or_else(|| TsError::new(INTERNAL_ERROR, format!("unrecognized weight: {weight}")))?;
    let mut out = v.clone();
    for word in lexemes.iter().flatten() {
        if let Some(i) = find(&out, word) {
            set_all(&mut out.lexemes[i], w);
        }
    }
    Ok(out)
}

/// `strip(tsvector)`: drops every position.
pub fn strip(v: &TsVector) -> TsVector {
    TsVector {
        lexemes: v
            .lexemes
            .iter()
            .map(|l| Lexeme {
                word: l.word.clone(),
                positions: Vec::new(),
            })
            .collect(),
    }
}

/// Appends `src`'s positions shifted by `maxpos` to `dest`, stopping at
/// [`MAX_NUM_POS`] positions or once [`MAX_POS`] is reached (`add_pos`).
fn add_shifted(dest: &mut Vec<u16>, src: &[u16], maxpos: u16) {
    for &p in src {
        if dest.len() >= MAX_NUM_POS || dest.last().is_some_and(|&l| pos_of(l) == MAX_POS) {
            break;
        }
        let shifted = (pos_of(p) as u32 + maxpos as u32).min(MAX_POS as u32) as u16;
        dest.push(with_weight(shifted, weight_of(p)));
    }
}

/// `tsvector || tsvector`: `b`'s positions are shifted past `a`'s largest position;
/// a lexeme in both keeps `a`'s positions followed by `b`'s.
pub fn concat(a: &TsVector, b: &TsVector) -> Result<TsVector, TsError> {
    let maxpos = a
        .lexemes
        .iter()
        .flat_map(|l| l.positions.iter().map(|&p| pos_of(p)))
        .max()
        .unwrap_or(0);
    let shifted = |l: &Lexeme| {
        let mut positions = Vec::new();
        add_shifted(&mut positions, &l.positions, maxpos);
        Lexeme {
            word: l.word.clone(),
            positions,
        }
    };
    let mut out = Vec::with_capacity(a.lexemes.len() + b.lexemes.len());
    let (mut i, mut j) = (0, 0);
    while i < a.lexemes.len() && j < b.lexemes.len() {
        let (x, y) = (&a.lexemes[i], &b.lexemes[j]);
        match x.word.as_bytes().cmp(y.word.as_bytes()) {
            Ordering::Less => {
                out.push(x.clone());
                i += 1;
            }
            Ordering::Greater => {
                out.push(shifted(y));
                j += 1;
            }
            Ordering::Equal => {
                let mut merged = x.clone();
                add_shifted(&mut merged.positions, &y.positions, maxpos);
                out.push(merged);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend(a.lexemes[i..].iter().cloned());
    out.extend(b.lexemes[j..].iter().map(shifted));
    let len = data_len(&out);
    if len > MAX_STR_POS {
        return Err(string_too_long(len));
    }
    Ok(TsVector { lexemes: out })
}

/// `ts_delete(tsvector, text)` and `ts_delete(tsvector, text[])`: NULL elements are
/// skipped (as PostgreSQL 15 does).
pub fn delete(v: &TsVector, lexemes: &[Option<&str>]) -> TsVector {
    let mut drop = vec![false; v.lexemes.len()];
    for word in lexemes.iter().flatten() {
        if let Some(i) = find(v, word) {
            drop[i] = true;
        }
    }
    TsVector {
        lexemes: v
            .lexemes
            .iter()
            .zip(drop)
            .filter(|(_, d)| !d)
            .map(|(l, _)| l.clone())
            .collect(),
    }
}

/// `ts_filter(tsvector, "char"[])`: keeps the positions of the given weights and the
/// lexemes left with any.
pub fn filter(v: &TsVector, weights: &[Option<char>]) -> Result<TsVector, TsError> {
    let mut mask = 0u8;
    for w in weights {
        let Some(w) = *w else {
            return Err(TsError::new(
                NULL_VALUE_NOT_ALLOWED,
                "weight array may not contain nulls",
            ));
        };
        let code = weight_code(w).ok_or_else(|| {
            TsError::new(
                INVALID_PARAMETER_VALUE,
                format!("unrecognized weight: \"{w}\""),
            )
        })?;
        mask |= 1 << code;
    }
    let lexemes = v
        .lexemes
        .iter()
        .filter_map(|l| {
            let positions: Vec<u16> = l
                .positions
                .iter()
                .copied()
                .filter(|&p| mask & (1 << weight_of(p)) != 0)
                .collect();
            (!positions.is_empty()).then(|| Lexeme {
                word: l.word.clone(),
                positions,
            })
        })
        .collect();
    Ok(TsVector { lexemes })
}

/// `tsvector_to_array(tsvector)`.
pub fn to_array(v: &TsVector) -> Vec<String> {
    v.lexemes.iter().map(|l| l.word.clone()).collect()
}

/// `array_to_tsvector(text[])`: a tsvector of the given words, without positions.
pub fn from_array(words: &[Option<&str>]) -> Result<TsVector, TsError> {
    let mut list = Vec::with_capacity(words.len());
    for w in words {
        match w {
            None => {
                return Err(TsError::new(
                    NULL_VALUE_NOT_ALLOWED,
                    "lexeme array may not contain nulls",
                ));
            }
            Some("") => {
                return Err(TsError::new(
                    ZERO_LENGTH_CHARACTER_STRING,
                    "lexeme array may not contain empty strings",
                ));
            }
            Some(w) => list.push(*w),
        }
    }
    list.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    list.dedup();
    Ok(TsVector {
        lexemes: list
            .into_iter()
            .map(|w| Lexeme {
                word: w.to_string(),
                positions: Vec::new(),
            })
            .collect(),
    })
}

/// One row of `unnest(tsvector)`: lexeme, positions, weights.
pub type UnnestRow = (String, Option<Vec<i16>>, Option<Vec<String>>);

/// `unnest(tsvector)`: per lexeme the word, its positions and their weights
/// (`'A'`..`'D'`); both NULL for a lexeme without positions.
pub fn unnest_rows(v: &TsVector) -> Vec<UnnestRow> {
    v.lexemes
        .iter()
        .map(|l| {
            if l.positions.is_empty() {
                (l.word.clone(), None, None)
            } else {
                let pos = l.positions.iter().map(|&p| pos_of(p) as i16).collect();
                let weights = l
                    .positions
                    .iter()
                    .map(|&p| char::from(b'D' - weight_of(p)).to_string())
                    .collect();
                (l.word.clone(), Some(pos), Some(weights))
            }
        })
        .collect()
}

/// `length(tsvector)`: the number of lexemes.
pub fn length(v: &TsVector) -> i32 {
    v.lexemes.len().min(i32::MAX as usize) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expectations below were taken from PostgreSQL 15.18 (UTF8, C.UTF-8).

    fn text(v: &TsVector) -> String {
        let mut s = String::new();
        format_tsvector(v, &mut s);
        s
    }

    fn round(s: &str) -> String {
        match parse_tsvector(s) {
            Ok(v) => text(&v),
            Err(e) => format!("{} {}", e.code, e.message),
        }
    }

    fn tv(s: &str) -> TsVector {
        parse_tsvector(s).unwrap()
    }

    #[test]
    fn input_output() {
        let cases = [
            ("", ""),
            (" ", ""),
            ("1 2", "'1' '2'"),
            ("'1 2'", "'1 2'"),
            (r"'1 \'2' ' 3' 4 ", "' 3' '1 ''2' '4'"),
            (
                r"'\\as' ab\c ab\\c AB\\\c ab\\\\c",
                r"'AB\\c' '\\as' 'ab\\\\c' 'ab\\c' 'abc'",
            ),
            ("'w':4A,3B,2C,1D,5 a:8", "'a':8 'w':1,2C,3B,4A,5"),
            ("'a':1 'b' c'd'e", "'a':1 'b' 'c''d''e'"),
            (r"a'b 'c\\d' e\\ f\\' ", r"'a''b' 'c\\d' 'e\\' 'f\\'''"),
            ("'a'b", "'a' 'b'"),
            (r"'a'\b", "'a' 'b'"),
            ("a'b:1", "'a''b':1"),
            (":1", "':1'"),
            ("a:1 :2", "':2' 'a':1"),
            ("a:1*", "'a':1A"),
            ("a:1DA", "'a':1A"),
            ("a:1A2", "'a':1A"),
            ("a:16383,16384A", "'a':16383A"),
            ("a:1,16383,16384A", "'a':1,16383"),
            ("a:4294967297", "'a':1"),
            ("a:99999999999999999999999", "'a':16383"),
            ("a\u{3000}b\u{2007}c\u{a0}d", "'a' 'b\u{2007}c\u{a0}d'"),
            ("a\x0bb\x1cc", "'a' 'b\x1cc'"),
            ("b:3 a:2 b:1A a", "'a':2 'b':1A,3"),
            (
                "'b':3C,5C,14*,65535C,20a\t'b':34328d,16384,2,22736A,17483*",
                "'b':2,3C,5C,14A,20A,16383A",
            ),
            (
                "a:16380A,16381B,16382C,16383D,16384A,16385B,16386C,16380D,16381A,16382B,\
                 16383C,16384D,16385A,16386B,16380C,16381D,16382A,16383B,16384C,16385D",
                "'a':16380A,16381A,16382A,16383B",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(round(input), want, "input {input:?}");
        }
        let many: Vec<String> = (1..=300).rev().map(|i| i.to_string()).collect();
        let v = tv(&format!("a:{}", many.join(",")));
        assert_eq!(v.lexemes[0].positions.len(), 256);
        assert_eq!(v.lexemes[0].positions[255], 256);
    }

    #[test]
    fn input_errors() {
        let syntax = |s: &str| format!("42601 syntax error in tsvector: \"{s}\"");
        for s in [
            "a:-1",
            "a:1AB",
            "a:1,",
            "a: 1",
            "''''",
            "a:1x",
            "a:1,2,3:4",
            "'abc",
            "a:١",
        ] {
            let input = if s == "''''" { "''" } else { s };
            assert_eq!(round(input), syntax(input));
        }
        assert_eq!(
            round("a:0"),
            "42601 wrong position info in tsvector: \"a:0\""
        );
        assert_eq!(
            round("a:2147483648"),
            "42601 wrong position info in tsvector: \"a:2147483648\""
        );
        assert_eq!(round("a\\"), "42601 there is no escaped character: \"a\\\"");
        let long = "x".repeat(2047);
        assert_eq!(
            round(&long),
            "54000 word is too long (2047 bytes, max 2046 bytes)"
        );
        assert_eq!(
            parse_tsvector(&"x".repeat(2046)).unwrap().lexemes[0]
                .word
                .len(),
            2046
        );
        // The length error comes when the word is complete, after its positions.
        assert_eq!(
            round(&format!("{long} y:0")),
            "54000 word is too long (2047 bytes, max 2046 bytes)"
        );
        let dup = vec!["a".repeat(1000); 1100].join(" ");
        assert_eq!(
            round(&dup),
            "54000 string is too long for tsvector (1049000 bytes, max 1048575 bytes)"
        );
    }

    #[test]
    fn huge_inputs_do_not_panic() {
        let big = "ab:1,2,3A ".repeat(200_000);
        assert_eq!(parse_tsvector(&big).unwrap().lexemes.len(), 1);
        let _ = parse_tsvector(&"'".repeat(1 << 20));
        let _ = parse_tsvector(&format!("a:{}", "9".repeat(1 << 20)));
        let _ = parse_tsvector(&"\\".repeat(1 << 20));
        let _ = parse_tsvector("a\0:0");
    }

    #[test]
    fn functions() {
        let t = |v: Result<TsVector, TsError>| text(&v.unwrap());
        assert_eq!(
            t(concat(&tv("a:3A b:2a"), &tv("ba:1234 a:1B"))),
            "'a':3A,4B 'b':2A 'ba':1237"
        );
        assert_eq!(
            t(concat(&tv("a:1 b:2"), &tv("a:3C b c:1,2A"))),
            "'a':1,5C 'b':2 'c':3,4A"
        );
        assert_eq!(
            t(concat(&tv("a b"), &tv("a:3C b c:1,2A"))),
            "'a':3C 'b' 'c':1,2A"
        );
        assert_eq!(
            t(concat(&tv("a:16383 b:2"), &tv("a:3C b c:1,2A"))),
            "'a':16383 'b':2 'c':16383"
        );
        assert_eq!(t(setweight(&tv("a:1 b:2C c"), 'b')), "'a':1B 'b':2B 'c'");
        let e = setweight(&tv("a:1"), 'x').unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("XX000", "unrecognized weight: 120")
        );
        assert_eq!(
            setweight(&tv("a:1"), 'é').unwrap_err().message,
            "unrecognized weight: -61"
        );
        assert_eq!(
            t(setweight_by_filter(
                &tv("a:1 b:2 c"),
                'b',
                &[Some("a"), Some("c"), None, Some("zz")]
            )),
            "'a':1B 'b':2 'c'"
        );
        assert_eq!(
            setweight_by_filter(&tv("a:1"), 'x', &[])
                .unwrap_err()
                .message,
            "unrecognized weight: x"
        );
        assert_eq!(text(&delete(&tv("a:1 b:2 c"), &[Some("b")])), "'a':1 'c'");
        assert_eq!(text(&delete(&tv("a:1 b"), &[Some("a"), None])), "'b'");
        assert_eq!(text(&strip(&tv("a:1 b:2A c"))), "'a' 'b' 'c'");
        assert_eq!(
            t(filter(&tv("a:1A,2 b:2 c:3C"), &[Some('a'), Some('c')])),
            "'a':1A 'c':3C"
        );
        let e = filter(&tv("a:1A"), &[Some('a'), None]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("22004", "weight array may not contain nulls")
        );
        let e = filter(&tv("a:1A"), &[Some('a'), Some('x')]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("22023", "unrecognized weight: \"x\"")
        );
        assert_eq!(to_array(&tv("b:1 a c")), ["a", "b", "c"]);
        assert_eq!(t(from_array(&[Some("b"), Some("a"), Some("b")])), "'a' 'b'");
        let e = from_array(&[Some(""), None]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("2200F", "lexeme array may not contain empty strings")
        );
        let e = from_array(&[Some("a"), None]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("22004", "lexeme array may not contain nulls")
        );
        assert_eq!(
            unnest_rows(&tv("a:1A,2 b c:3C")),
            vec![
                (
                    "a".into(),
                    Some(vec![1, 2]),
                    Some(vec!["A".into(), "D".into()])
                ),
                ("b".into(), None, None),
                ("c".into(), Some(vec![3]), Some(vec!["C".into()])),
            ]
        );
        assert_eq!(length(&tv("a b:1 c")), 3);
    }

    fn parsed(words: &[&str]) -> Vec<ParsedWord> {
        words
            .iter()
            .enumerate()
            .map(|(i, w)| ParsedWord {
                word: w.to_string(),
                pos: i as u32 + 1,
                nvariant: 1,
            })
            .collect()
    }

    #[test]
    fn to_tsvector_assembly() {
        let v = from_parsed(&parsed(&["b", "a", "b", "c", "a", "a"])).unwrap();
        assert_eq!(text(&v), "'a':2,5,6 'b':1,3 'c':4");
        // to_tsvector keeps 255 positions, not 256.
        let v = from_parsed(&parsed(&["a"; 300])).unwrap();
        assert_eq!(v.lexemes[0].positions.len(), 255);
        let mut words = parsed(&["b"; 16390]);
        words.push(ParsedWord {
            word: "a".into(),
            pos: 16391,
            nvariant: 1,
        });
        let v = from_parsed(&words).unwrap();
        assert_eq!(text(&v).split(' ').next(), Some("'a':16383"));
        assert_eq!(from_parsed(&[]).unwrap(), TsVector::default());
    }

    #[test]
    fn encode_order_matches_postgres() {
        // PostgreSQL's `ORDER BY v` of these values.
        let pg_order = [
            "", "a", "b", "aa", "ab", "ba", "é", "abc", "a:3", "a:2", "a:1A", "a:1C", "a:1",
            "ab:1", "b:16383", "b:1", "zz:1", "a b", "a:2,3", "a:1B,2", "a:1,3", "a:1,2", "a b:1",
            "a:1 b", "ab:1 b", "a:1 ab:1", "c:1 d:1",
        ];
        let mut shuffled: Vec<&str> = pg_order.to_vec();
        shuffled.reverse();
        shuffled.swap(3, 17);
        let mut keyed: Vec<(Vec<u8>, &str)> =
            shuffled.iter().map(|s| (encode(&tv(s)), *s)).collect();
        keyed.sort();
        let got: Vec<&str> = keyed.iter().map(|k| k.1).collect();
        assert_eq!(got, pg_order);
        assert_eq!(encode(&tv("b:1 a")), encode(&tv("a b:1")));
    }

    #[test]
    fn encode_decode_and_wire_round_trip() {
        for s in ["", "a", "a:1A,2,3B 'b c':16383C d", "'\\\\x''':7 é:1"] {
            let v = tv(s);
            assert_eq!(decode(&encode(&v)), Some(v.clone()));
            let mut b = Vec::new();
            send(&v, &mut b);
            assert_eq!(recv(&b), Ok(v));
        }
        let mut b = Vec::new();
        send(&tv("a:1,2A 'b'"), &mut b);
        assert_eq!(b, [0, 0, 0, 2, b'a', 0, 0, 2, 0, 1, 0xC0, 2, b'b', 0, 0, 0]);
    }

    #[test]
    fn recv_validation() {
        let err = |b: &[u8]| recv(b).map(|v| text(&v)).unwrap_err().message;
        assert_eq!(err(&[0, 0]), "insufficient data left in message");
        assert_eq!(err(&[0xff, 0xff, 0xff, 0xff]), "invalid size of tsvector");
        assert_eq!(err(&[0, 0, 0, 1, b'a']), "invalid string in message");
        assert_eq!(
            err(&[0, 0, 0, 1, b'a', 0, 0, 2, 0, 2, 0, 1]),
            "position information is misordered"
        );
        assert_eq!(
            err(&[0, 0, 0, 1, b'a', 0, 1, 1]),
            "unexpected number of tsvector positions"
        );
        assert_eq!(
            err(&[0, 0, 0, 1, 0xc3, 0x28, 0, 0, 0]),
            "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28"
        );
        // Out-of-order lexemes are sorted.
        let v = recv(&[0, 0, 0, 2, b'b', 0, 0, 0, b'a', 0, 0, 1, 0, 3]).unwrap();
        assert_eq!(text(&v), "'a':3 'b'");
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let base = encode(&tv("a:1A,2 bb:3 c"));
        let mut wire = Vec::new();
        send(&tv("a:1A,2 bb:3 c"), &mut wire);
        for _ in 0..20_000 {
            for src in [&base, &wire] {
                let mut b = src.clone();
                for _ in 0..(next() % 4) {
                    let i = (next() as usize) % b.len();
                    match next() % 3 {
                        0 => b[i] = next() as u8,
                        1 => b.truncate(i),
                        _ => b.insert(i, next() as u8),
                    }
                    if b.is_empty() {
                        break;
                    }
                }
                if let Some(v) = decode(&b) {
                    assert_eq!(encode(&v), b);
                }
                let _ = recv(&b);
            }
        }
    }
}
