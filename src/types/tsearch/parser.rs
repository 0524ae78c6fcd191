//! PostgreSQL's default text-search parser (`ts_parse('default', …)`, the tokenizer under
//! `to_tsvector`), PostgreSQL 15's `wparser_def.c` re-implemented for kiln.
//!
//! # What this module owns
//!
//! [`TokenKind`] (the 23 token types of `ts_token_type('default')`, with PostgreSQL's ids,
//! aliases and descriptions) and [`parse`], which splits a text into the exact token sequence
//! PostgreSQL 15 produces: words, hyphenated words followed by their parts, numbers, versions,
//! urls (the url, then its host, then its path), emails, hosts, file paths, XML tags and
//! entities, protocol heads and blank runs.
//!
//! # Design
//!
//! PostgreSQL's parser is a backtracking automaton and its output depends on every quirk of
//! it (which alternative wins, where a failed alternative resumes, which partial scans are
//! committed), so kiln runs the same automaton: each `State` has an ordered list of
//! `Rule`s (a character test, an action, a next state, the token kind an emitting rule
//! produces, and an optional hook). Actions:
//!
//! - *next*: consume the character, go to the next state;
//! - *push*: remember this frame and the rule, try the next state in a copy of the frame; when
//!   the copy fails (*pop*), the remembered frame resumes at the rule after the pushing one;
//! - *clear*: commit a pushed copy (drop the frame below it); *clear all*: drop every frame
//!   below; *merge*: fold the top frame's position into the one below;
//! - *emit*: the token ends here (its length is the frame's token length);
//! - *rerun*: evaluate the next state on the same character.
//!
//! Two rules call nested parsers: "is a host here" (an email's domain: one token of a fresh
//! parser that wants a host) and "is a url path here" (a run of RFC 3986 characters).
//! Hooks reproduce PostgreSQL's special actions: `<script>` / `<style>` switch the parser into
//! "ignore" mode until the closing tag; a url, once recognised, is re-read as host then path;
//! a hyphenated word, once emitted whole, is re-read as parts; `-1.2.3` emits the sign alone
//! and re-reads the version.
//!
//! PostgreSQL's automaton is quadratic on some inputs (e.g. `a_a_a_…`: every word re-scans
//! the whole host candidate) and recursive on others (`1a@1a@1a@…` nests one host parser per
//! `@`). Kiln keeps the output and bounds the work:
//!
//! - failed attempts are memoised: when a pushed frame fails, every configuration (state,
//!   position, flags) it evaluated from the start of its rule list is recorded as failing; a
//!   later evaluation of a recorded configuration fails at once. This is sound because such a
//!   configuration's outcome depends only on the text ahead and the flags, never on the frames
//!   below — except within the first 8 characters of a token (where `<script`/`<style`
//!   detection looks at the token's start) and in the few states that commit or rewind, which
//!   are never memoised;
//! - nested host parses are memoised by position and run from an explicit stack (no
//!   recursion), so deep inputs cannot overflow the call stack.
//!
//! Memory is linear in the input (frames, memo entries). Tokens are slices of the input.
//!
//! # Character classes
//!
//! ASCII is classified as in the C locale. For other characters PostgreSQL (with a UTF-8
//! database whose `LC_CTYPE` is not `C`/`POSIX`, here `C.UTF-8`) asks glibc's `iswalpha`,
//! `iswspace`, … and its own display-width table (zero-width characters and some spacing
//! combining marks do not break words). Rust's `char::is_alphabetic` differs from glibc on
//! hundreds of code points: glibc counts every non-ASCII decimal digit (`٣`, `０`, `१`, …) as
//! a letter, does not count some combining letters (U+0363..U+036F, …) and lags Rust's Unicode
//! version. So the non-ASCII classes are tables (`ALPHA`, `SPECIAL`, `SPACE`) taken from
//! the reference server (PostgreSQL 15.18, glibc 2.36 `C.UTF-8`) by probing every code point;
//! no non-ASCII character is a digit or hex digit there. Latin-1, Greek, Cyrillic, CJK letters
//! are letters either way.
//!
//! # Differences from PostgreSQL
//!
//! None known. A database whose `LC_CTYPE` is `C` would classify every non-ASCII character as
//! a letter; kiln always behaves like `C.UTF-8`. The quirks are kept on purpose, e.g. the text
//! `x <a '\y` yields only `x` and a blank (PostgreSQL's parser gives up at an unterminated
//! backslash-escaped tag attribute).

use std::collections::{HashMap, HashSet};

/// A token type of the default parser. The discriminants are kiln's order; [`TokenKind::id`]
/// is PostgreSQL's `tokid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TokenKind {
    AsciiWord = 1,
    Word = 2,
    NumWord = 3,
    AsciiHWord = 4,
    HWord = 5,
    NumHWord = 6,
    HWordAsciiPart = 7,
    HWordPart = 8,
    HWordNumPart = 9,
    Email = 10,
    Protocol = 11,
    Url = 12,
    Host = 13,
    UrlPath = 14,
    File = 15,
    SFloat = 16,
    Float = 17,
    Int = 18,
    UInt = 19,
    Version = 20,
    Tag = 21,
    Entity = 22,
    Blank = 23,
}

impl TokenKind {
    /// PostgreSQL's token type id (`tokid` of `ts_parse` / `ts_token_type`).
    pub fn id(self) -> i32 {
        match self {
            TokenKind::AsciiWord => 1,
            TokenKind::Word => 2,
            TokenKind::NumWord => 3,
            TokenKind::Email => 4,
            TokenKind::Url => 5,
            TokenKind::Host => 6,
            TokenKind::SFloat => 7,
            TokenKind::Version => 8,
            TokenKind::HWordNumPart => 9,
            TokenKind::HWordPart => 10,
            TokenKind::HWordAsciiPart => 11,
            TokenKind::Blank => 12,
            TokenKind::Tag => 13,
            TokenKind::Protocol => 14,
            TokenKind::NumHWord => 15,
            TokenKind::AsciiHWord => 16,
            TokenKind::HWord => 17,
            TokenKind::UrlPath => 18,
            TokenKind::File => 19,
            TokenKind::Float => 20,
            TokenKind::Int => 21,
            TokenKind::UInt => 22,
            TokenKind::Entity => 23,
        }
    }

    /// The alias `ts_token_type('default')` shows (used by text search configurations).
    pub fn alias(self) -> &'static str {
        match self {
            TokenKind::AsciiWord => "asciiword",
            TokenKind::Word => "word",
            TokenKind::NumWord => "numword",
            TokenKind::Email => "email",
            TokenKind::Url => "url",
            TokenKind::Host => "host",
            TokenKind::SFloat => "sfloat",
            TokenKind::Version => "version",
            TokenKind::HWordNumPart => "hword_numpart",
            TokenKind::HWordPart => "hword_part",
            TokenKind::HWordAsciiPart => "hword_asciipart",
            TokenKind::Blank => "blank",
            TokenKind::Tag => "tag",
            TokenKind::Protocol => "protocol",
            TokenKind::NumHWord => "numhword",
            TokenKind::AsciiHWord => "asciihword",
            TokenKind::HWord => "hword",
            TokenKind::UrlPath => "url_path",
            TokenKind::File => "file",
            TokenKind::Float => "float",
            TokenKind::Int => "int",
            TokenKind::UInt => "uint",
            TokenKind::Entity => "entity",
        }
    }

    /// The description column of `ts_token_type('default')`.
    pub fn description(self) -> &'static str {
        match self {
            TokenKind::AsciiWord => "Word, all ASCII",
            TokenKind::Word => "Word, all letters",
            TokenKind::NumWord => "Word, letters and digits",
            TokenKind::Email => "Email address",
            TokenKind::Url => "URL",
            TokenKind::Host => "Host",
            TokenKind::SFloat => "Scientific notation",
            TokenKind::Version => "Version number",
            TokenKind::HWordNumPart => "Hyphenated word part, letters and digits",
            TokenKind::HWordPart => "Hyphenated word part, all letters",
            TokenKind::HWordAsciiPart => "Hyphenated word part, all ASCII",
            TokenKind::Blank => "Space symbols",
            TokenKind::Tag => "XML tag",
            TokenKind::Protocol => "Protocol head",
            TokenKind::NumHWord => "Hyphenated word, letters and digits",
            TokenKind::AsciiHWord => "Hyphenated word, all ASCII",
            TokenKind::HWord => "Hyphenated word, all letters",
            TokenKind::UrlPath => "URL path",
            TokenKind::File => "File or path name",
            TokenKind::Float => "Decimal notation",
            TokenKind::Int => "Signed integer",
            TokenKind::UInt => "Unsigned integer",
            TokenKind::Entity => "XML entity",
        }
    }

    /// Every kind, in PostgreSQL id order (as `ts_token_type('default')` lists them).
    pub fn all() -> &'static [TokenKind] {
        &[
            TokenKind::AsciiWord,
            TokenKind::Word,
            TokenKind::NumWord,
            TokenKind::Email,
            TokenKind::Url,
            TokenKind::Host,
            TokenKind::SFloat,
            TokenKind::Version,
            TokenKind::HWordNumPart,
            TokenKind::HWordPart,
            TokenKind::HWordAsciiPart,
            TokenKind::Blank,
            TokenKind::Tag,
            TokenKind::Protocol,
            TokenKind::NumHWord,
            TokenKind::AsciiHWord,
            TokenKind::HWord,
            TokenKind::UrlPath,
            TokenKind::File,
            TokenKind::Float,
            TokenKind::Int,
            TokenKind::UInt,
            TokenKind::Entity,
        ]
    }
}

/// One token: its kind and its text (a slice of the parsed text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: TokenKind,
    pub text: &'a str,
}

/// The tokens of `text`, in order, exactly as PostgreSQL 15's `ts_parse('default', text)`
/// returns them.
pub fn parse(text: &str) -> Vec<Token<'_>> {
    let mut engine = Engine::new(text);
    let mut main = Scan::new(0, false);
    let mut out = Vec::new();
    while let Some((kind, start, len)) = engine.next_token(&mut main) {
        // Token bounds always fall on character boundaries; `get` keeps this panic-free.
        if let Some(text) = text.get(start..start + len) {
            out.push(Token { kind, text });
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Character class tables
// ---------------------------------------------------------------------------------------------

/// Non-ASCII characters glibc's C.UTF-8 `iswalpha` accepts (also its `iswalnum`).
/// Inclusive ranges, flattened: `[first, last, first, last, ...]`, sorted.
const ALPHA: [u32; 1514] = [
    0xaa, 0xaa, 0xb5, 0xb5, 0xba, 0xba, 0xc0, 0xd6, 0xd8, 0xf6, 0xf8, 0x2c1, 0x2c6, 0x2d1, 0x2e0,
    0x2e4, 0x2ec, 0x2ec, 0x2ee, 0x2ee, 0x345, 0x345, 0x370, 0x374, 0x376, 0x377, 0x37a, 0x37d,
    0x37f, 0x37f, 0x386, 0x386, 0x388, 0x38a, 0x38c, 0x38c, 0x38e, 0x3a1, 0x3a3, 0x3f5, 0x3f7,
    0x481, 0x48a, 0x52f, 0x531, 0x556, 0x559, 0x559, 0x560, 0x588, 0x5b0, 0x5bd, 0x5bf, 0x5bf,
    0x5c1, 0x5c2, 0x5c4, 0x5c5, 0x5c7, 0x5c7, 0x5d0, 0x5ea, 0x5ef, 0x5f2, 0x610, 0x61a, 0x620,
    0x657, 0x659, 0x669, 0x66e, 0x6d3, 0x6d5, 0x6dc, 0x6e1, 0x6e8, 0x6ed, 0x6fc, 0x6ff, 0x6ff,
    0x710, 0x73f, 0x74d, 0x7b1, 0x7c0, 0x7ea, 0x7f4, 0x7f5, 0x7fa, 0x7fa, 0x800, 0x817, 0x81a,
    0x82c, 0x840, 0x858, 0x860, 0x86a, 0x870, 0x887, 0x889, 0x88e, 0x8a0, 0x8c9, 0x8d4, 0x8df,
    0x8e3, 0x8e9, 0x8f0, 0x93b, 0x93d, 0x94c, 0x94e, 0x950, 0x955, 0x963, 0x966, 0x96f, 0x971,
    0x983, 0x985, 0x98c, 0x98f, 0x990, 0x993, 0x9a8, 0x9aa, 0x9b0, 0x9b2, 0x9b2, 0x9b6, 0x9b9,
    0x9bd, 0x9c4, 0x9c7, 0x9c8, 0x9cb, 0x9cc, 0x9ce, 0x9ce, 0x9d7, 0x9d7, 0x9dc, 0x9dd, 0x9df,
    0x9e3, 0x9e6, 0x9f1, 0x9fc, 0x9fc, 0xa01, 0xa03, 0xa05, 0xa0a, 0xa0f, 0xa10, 0xa13, 0xa28,
    0xa2a, 0xa30, 0xa32, 0xa33, 0xa35, 0xa36, 0xa38, 0xa39, 0xa3e, 0xa42, 0xa47, 0xa48, 0xa4b,
    0xa4c, 0xa51, 0xa51, 0xa59, 0xa5c, 0xa5e, 0xa5e, 0xa66, 0xa75, 0xa81, 0xa83, 0xa85, 0xa8d,
    0xa8f, 0xa91, 0xa93, 0xaa8, 0xaaa, 0xab0, 0xab2, 0xab3, 0xab5, 0xab9, 0xabd, 0xac5, 0xac7,
    0xac9, 0xacb, 0xacc, 0xad0, 0xad0, 0xae0, 0xae3, 0xae6, 0xaef, 0xaf9, 0xafc, 0xb01, 0xb03,
    0xb05, 0xb0c, 0xb0f, 0xb10, 0xb13, 0xb28, 0xb2a, 0xb30, 0xb32, 0xb33, 0xb35, 0xb39, 0xb3d,
    0xb44, 0xb47, 0xb48, 0xb4b, 0xb4c, 0xb56, 0xb57, 0xb5c, 0xb5d, 0xb5f, 0xb63, 0xb66, 0xb6f,
    0xb71, 0xb71, 0xb82, 0xb83, 0xb85, 0xb8a, 0xb8e, 0xb90, 0xb92, 0xb95, 0xb99, 0xb9a, 0xb9c,
    0xb9c, 0xb9e, 0xb9f, 0xba3, 0xba4, 0xba8, 0xbaa, 0xbae, 0xbb9, 0xbbe, 0xbc2, 0xbc6, 0xbc8,
    0xbca, 0xbcc, 0xbd0, 0xbd0, 0xbd7, 0xbd7, 0xbe6, 0xbef, 0xc00, 0xc03, 0xc05, 0xc0c, 0xc0e,
    0xc10, 0xc12, 0xc28, 0xc2a, 0xc39, 0xc3d, 0xc44, 0xc46, 0xc48, 0xc4a, 0xc4c, 0xc55, 0xc56,
    0xc58, 0xc5a, 0xc5d, 0xc5d, 0xc60, 0xc63, 0xc66, 0xc6f, 0xc80, 0xc83, 0xc85, 0xc8c, 0xc8e,
    0xc90, 0xc92, 0xca8, 0xcaa, 0xcb3, 0xcb5, 0xcb9, 0xcbd, 0xcc4, 0xcc6, 0xcc8, 0xcca, 0xccc,
    0xcd5, 0xcd6, 0xcdd, 0xcde, 0xce0, 0xce3, 0xce6, 0xcef, 0xcf1, 0xcf2, 0xd00, 0xd0c, 0xd0e,
    0xd10, 0xd12, 0xd3a, 0xd3d, 0xd44, 0xd46, 0xd48, 0xd4a, 0xd4c, 0xd4e, 0xd4e, 0xd54, 0xd57,
    0xd5f, 0xd63, 0xd66, 0xd6f, 0xd7a, 0xd7f, 0xd81, 0xd83, 0xd85, 0xd96, 0xd9a, 0xdb1, 0xdb3,
    0xdbb, 0xdbd, 0xdbd, 0xdc0, 0xdc6, 0xdcf, 0xdd4, 0xdd6, 0xdd6, 0xdd8, 0xddf, 0xde6, 0xdef,
    0xdf2, 0xdf3, 0xe01, 0xe3a, 0xe40, 0xe46, 0xe4d, 0xe4d, 0xe50, 0xe59, 0xe81, 0xe82, 0xe84,
    0xe84, 0xe86, 0xe8a, 0xe8c, 0xea3, 0xea5, 0xea5, 0xea7, 0xeb9, 0xebb, 0xebd, 0xec0, 0xec4,
    0xec6, 0xec6, 0xecd, 0xecd, 0xed0, 0xed9, 0xedc, 0xedf, 0xf00, 0xf00, 0xf20, 0xf29, 0xf40,
    0xf47, 0xf49, 0xf6c, 0xf71, 0xf81, 0xf88, 0xf97, 0xf99, 0xfbc, 0x1000, 0x1036, 0x1038, 0x1038,
    0x103b, 0x1049, 0x1050, 0x109d, 0x10a0, 0x10c5, 0x10c7, 0x10c7, 0x10cd, 0x10cd, 0x10d0, 0x10fa,
    0x10fc, 0x1248, 0x124a, 0x124d, 0x1250, 0x1256, 0x1258, 0x1258, 0x125a, 0x125d, 0x1260, 0x1288,
    0x128a, 0x128d, 0x1290, 0x12b0, 0x12b2, 0x12b5, 0x12b8, 0x12be, 0x12c0, 0x12c0, 0x12c2, 0x12c5,
    0x12c8, 0x12d6, 0x12d8, 0x1310, 0x1312, 0x1315, 0x1318, 0x135a, 0x1380, 0x138f, 0x13a0, 0x13f5,
    0x13f8, 0x13fd, 0x1401, 0x166c, 0x166f, 0x167f, 0x1681, 0x169a, 0x16a0, 0x16ea, 0x16ee, 0x16f8,
    0x1700, 0x1713, 0x171f, 0x1733, 0x1740, 0x1753, 0x1760, 0x176c, 0x176e, 0x1770, 0x1772, 0x1773,
    0x1780, 0x17b3, 0x17b6, 0x17c8, 0x17d7, 0x17d7, 0x17dc, 0x17dc, 0x17e0, 0x17e9, 0x1810, 0x1819,
    0x1820, 0x1878, 0x1880, 0x18aa, 0x18b0, 0x18f5, 0x1900, 0x191e, 0x1920, 0x192b, 0x1930, 0x1938,
    0x1946, 0x196d, 0x1970, 0x1974, 0x1980, 0x19ab, 0x19b0, 0x19c9, 0x19d0, 0x19d9, 0x1a00, 0x1a1b,
    0x1a20, 0x1a5e, 0x1a61, 0x1a74, 0x1a80, 0x1a89, 0x1a90, 0x1a99, 0x1aa7, 0x1aa7, 0x1abf, 0x1ac0,
    0x1acc, 0x1ace, 0x1b00, 0x1b33, 0x1b35, 0x1b43, 0x1b45, 0x1b4c, 0x1b50, 0x1b59, 0x1b80, 0x1ba9,
    0x1bac, 0x1be5, 0x1be7, 0x1bf1, 0x1c00, 0x1c36, 0x1c40, 0x1c49, 0x1c4d, 0x1c7d, 0x1c80, 0x1c88,
    0x1c90, 0x1cba, 0x1cbd, 0x1cbf, 0x1ce9, 0x1cec, 0x1cee, 0x1cf3, 0x1cf5, 0x1cf6, 0x1cfa, 0x1cfa,
    0x1d00, 0x1dbf, 0x1de7, 0x1df4, 0x1e00, 0x1f15, 0x1f18, 0x1f1d, 0x1f20, 0x1f45, 0x1f48, 0x1f4d,
    0x1f50, 0x1f57, 0x1f59, 0x1f59, 0x1f5b, 0x1f5b, 0x1f5d, 0x1f5d, 0x1f5f, 0x1f7d, 0x1f80, 0x1fb4,
    0x1fb6, 0x1fbc, 0x1fbe, 0x1fbe, 0x1fc2, 0x1fc4, 0x1fc6, 0x1fcc, 0x1fd0, 0x1fd3, 0x1fd6, 0x1fdb,
    0x1fe0, 0x1fec, 0x1ff2, 0x1ff4, 0x1ff6, 0x1ffc, 0x2071, 0x2071, 0x207f, 0x207f, 0x2090, 0x209c,
    0x2102, 0x2102, 0x2107, 0x2107, 0x210a, 0x2113, 0x2115, 0x2115, 0x2119, 0x211d, 0x2124, 0x2124,
    0x2126, 0x2126, 0x2128, 0x2128, 0x212a, 0x212d, 0x212f, 0x2139, 0x213c, 0x213f, 0x2145, 0x2149,
    0x214e, 0x214e, 0x2160, 0x2188, 0x24b6, 0x24e9, 0x2c00, 0x2ce4, 0x2ceb, 0x2cee, 0x2cf2, 0x2cf3,
    0x2d00, 0x2d25, 0x2d27, 0x2d27, 0x2d2d, 0x2d2d, 0x2d30, 0x2d67, 0x2d6f, 0x2d6f, 0x2d80, 0x2d96,
    0x2da0, 0x2da6, 0x2da8, 0x2dae, 0x2db0, 0x2db6, 0x2db8, 0x2dbe, 0x2dc0, 0x2dc6, 0x2dc8, 0x2dce,
    0x2dd0, 0x2dd6, 0x2dd8, 0x2dde, 0x2de0, 0x2dff, 0x2e2f, 0x2e2f, 0x3005, 0x3007, 0x3021, 0x3029,
    0x3031, 0x3035, 0x3038, 0x303c, 0x3041, 0x3096, 0x309d, 0x309f, 0x30a1, 0x30fa, 0x30fc, 0x30ff,
    0x3105, 0x312f, 0x3131, 0x318e, 0x31a0, 0x31bf, 0x31f0, 0x31ff, 0x3400, 0x4dbf, 0x4e00, 0xa48c,
    0xa4d0, 0xa4fd, 0xa500, 0xa60c, 0xa610, 0xa62b, 0xa640, 0xa66e, 0xa674, 0xa67b, 0xa67f, 0xa6ef,
    0xa717, 0xa71f, 0xa722, 0xa788, 0xa78b, 0xa7ca, 0xa7d0, 0xa7d1, 0xa7d3, 0xa7d3, 0xa7d5, 0xa7d9,
    0xa7f2, 0xa805, 0xa807, 0xa827, 0xa840, 0xa873, 0xa880, 0xa8c3, 0xa8c5, 0xa8c5, 0xa8d0, 0xa8d9,
    0xa8f2, 0xa8f7, 0xa8fb, 0xa8fb, 0xa8fd, 0xa92a, 0xa930, 0xa952, 0xa960, 0xa97c, 0xa980, 0xa9b2,
    0xa9b4, 0xa9bf, 0xa9cf, 0xa9d9, 0xa9e0, 0xa9fe, 0xaa00, 0xaa36, 0xaa40, 0xaa4d, 0xaa50, 0xaa59,
    0xaa60, 0xaa76, 0xaa7a, 0xaabe, 0xaac0, 0xaac0, 0xaac2, 0xaac2, 0xaadb, 0xaadd, 0xaae0, 0xaaef,
    0xaaf2, 0xaaf5, 0xab01, 0xab06, 0xab09, 0xab0e, 0xab11, 0xab16, 0xab20, 0xab26, 0xab28, 0xab2e,
    0xab30, 0xab5a, 0xab5c, 0xab69, 0xab70, 0xabea, 0xabf0, 0xabf9, 0xac00, 0xd7a3, 0xd7b0, 0xd7c6,
    0xd7cb, 0xd7fb, 0xf900, 0xfa6d, 0xfa70, 0xfad9, 0xfb00, 0xfb06, 0xfb13, 0xfb17, 0xfb1d, 0xfb28,
    0xfb2a, 0xfb36, 0xfb38, 0xfb3c, 0xfb3e, 0xfb3e, 0xfb40, 0xfb41, 0xfb43, 0xfb44, 0xfb46, 0xfbb1,
    0xfbd3, 0xfd3d, 0xfd50, 0xfd8f, 0xfd92, 0xfdc7, 0xfdf0, 0xfdfb, 0xfe70, 0xfe74, 0xfe76, 0xfefc,
    0xff10, 0xff19, 0xff21, 0xff3a, 0xff41, 0xff5a, 0xff66, 0xffbe, 0xffc2, 0xffc7, 0xffca, 0xffcf,
    0xffd2, 0xffd7, 0xffda, 0xffdc, 0x10000, 0x1000b, 0x1000d, 0x10026, 0x10028, 0x1003a, 0x1003c,
    0x1003d, 0x1003f, 0x1004d, 0x10050, 0x1005d, 0x10080, 0x100fa, 0x10140, 0x10174, 0x10280,
    0x1029c, 0x102a0, 0x102d0, 0x10300, 0x1031f, 0x1032d, 0x1034a, 0x10350, 0x1037a, 0x10380,
    0x1039d, 0x103a0, 0x103c3, 0x103c8, 0x103cf, 0x103d1, 0x103d5, 0x10400, 0x1049d, 0x104a0,
    0x104a9, 0x104b0, 0x104d3, 0x104d8, 0x104fb, 0x10500, 0x10527, 0x10530, 0x10563, 0x10570,
    0x1057a, 0x1057c, 0x1058a, 0x1058c, 0x10592, 0x10594, 0x10595, 0x10597, 0x105a1, 0x105a3,
    0x105b1, 0x105b3, 0x105b9, 0x105bb, 0x105bc, 0x10600, 0x10736, 0x10740, 0x10755, 0x10760,
    0x10767, 0x10780, 0x10785, 0x10787, 0x107b0, 0x107b2, 0x107ba, 0x10800, 0x10805, 0x10808,
    0x10808, 0x1080a, 0x10835, 0x10837, 0x10838, 0x1083c, 0x1083c, 0x1083f, 0x10855, 0x10860,
    0x10876, 0x10880, 0x1089e, 0x108e0, 0x108f2, 0x108f4, 0x108f5, 0x10900, 0x10915, 0x10920,
    0x10939, 0x10980, 0x109b7, 0x109be, 0x109bf, 0x10a00, 0x10a03, 0x10a05, 0x10a06, 0x10a0c,
    0x10a13, 0x10a15, 0x10a17, 0x10a19, 0x10a35, 0x10a60, 0x10a7c, 0x10a80, 0x10a9c, 0x10ac0,
    0x10ac7, 0x10ac9, 0x10ae4, 0x10b00, 0x10b35, 0x10b40, 0x10b55, 0x10b60, 0x10b72, 0x10b80,
    0x10b91, 0x10c00, 0x10c48, 0x10c80, 0x10cb2, 0x10cc0, 0x10cf2, 0x10d00, 0x10d27, 0x10d30,
    0x10d39, 0x10e80, 0x10ea9, 0x10eab, 0x10eac, 0x10eb0, 0x10eb1, 0x10f00, 0x10f1c, 0x10f27,
    0x10f27, 0x10f30, 0x10f45, 0x10f70, 0x10f81, 0x10fb0, 0x10fc4, 0x10fe0, 0x10ff6, 0x11000,
    0x11045, 0x11066, 0x1106f, 0x11071, 0x11075, 0x11082, 0x110b8, 0x110c2, 0x110c2, 0x110d0,
    0x110e8, 0x110f0, 0x110f9, 0x11100, 0x11132, 0x11136, 0x1113f, 0x11144, 0x11147, 0x11150,
    0x11172, 0x11176, 0x11176, 0x11180, 0x111bf, 0x111c1, 0x111c4, 0x111ce, 0x111da, 0x111dc,
    0x111dc, 0x11200, 0x11211, 0x11213, 0x11234, 0x11237, 0x11237, 0x1123e, 0x1123e, 0x11280,
    0x11286, 0x11288, 0x11288, 0x1128a, 0x1128d, 0x1128f, 0x1129d, 0x1129f, 0x112a8, 0x112b0,
    0x112e8, 0x112f0, 0x112f9, 0x11300, 0x11303, 0x11305, 0x1130c, 0x1130f, 0x11310, 0x11313,
    0x11328, 0x1132a, 0x11330, 0x11332, 0x11333, 0x11335, 0x11339, 0x1133d, 0x11344, 0x11347,
    0x11348, 0x1134b, 0x1134c, 0x11350, 0x11350, 0x11357, 0x11357, 0x1135d, 0x11363, 0x11400,
    0x11441, 0x11443, 0x11445, 0x11447, 0x1144a, 0x11450, 0x11459, 0x1145f, 0x11461, 0x11480,
    0x114c1, 0x114c4, 0x114c5, 0x114c7, 0x114c7, 0x114d0, 0x114d9, 0x11580, 0x115b5, 0x115b8,
    0x115be, 0x115d8, 0x115dd, 0x11600, 0x1163e, 0x11640, 0x11640, 0x11644, 0x11644, 0x11650,
    0x11659, 0x11680, 0x116b5, 0x116b8, 0x116b8, 0x116c0, 0x116c9, 0x11700, 0x1171a, 0x1171d,
    0x1172a, 0x11730, 0x11739, 0x11740, 0x11746, 0x11800, 0x11838, 0x118a0, 0x118e9, 0x118ff,
    0x11906, 0x11909, 0x11909, 0x1190c, 0x11913, 0x11915, 0x11916, 0x11918, 0x11935, 0x11937,
    0x11938, 0x1193b, 0x1193c, 0x1193f, 0x11942, 0x11950, 0x11959, 0x119a0, 0x119a7, 0x119aa,
    0x119d7, 0x119da, 0x119df, 0x119e1, 0x119e1, 0x119e3, 0x119e4, 0x11a00, 0x11a32, 0x11a35,
    0x11a3e, 0x11a50, 0x11a97, 0x11a9d, 0x11a9d, 0x11ab0, 0x11af8, 0x11c00, 0x11c08, 0x11c0a,
    0x11c36, 0x11c38, 0x11c3e, 0x11c40, 0x11c40, 0x11c50, 0x11c59, 0x11c72, 0x11c8f, 0x11c92,
    0x11ca7, 0x11ca9, 0x11cb6, 0x11d00, 0x11d06, 0x11d08, 0x11d09, 0x11d0b, 0x11d36, 0x11d3a,
    0x11d3a, 0x11d3c, 0x11d3d, 0x11d3f, 0x11d41, 0x11d43, 0x11d43, 0x11d46, 0x11d47, 0x11d50,
    0x11d59, 0x11d60, 0x11d65, 0x11d67, 0x11d68, 0x11d6a, 0x11d8e, 0x11d90, 0x11d91, 0x11d93,
    0x11d96, 0x11d98, 0x11d98, 0x11da0, 0x11da9, 0x11ee0, 0x11ef6, 0x11fb0, 0x11fb0, 0x12000,
    0x12399, 0x12400, 0x1246e, 0x12480, 0x12543, 0x12f90, 0x12ff0, 0x13000, 0x1342e, 0x14400,
    0x14646, 0x16800, 0x16a38, 0x16a40, 0x16a5e, 0x16a60, 0x16a69, 0x16a70, 0x16abe, 0x16ac0,
    0x16ac9, 0x16ad0, 0x16aed, 0x16b00, 0x16b2f, 0x16b40, 0x16b43, 0x16b50, 0x16b59, 0x16b63,
    0x16b77, 0x16b7d, 0x16b8f, 0x16e40, 0x16e7f, 0x16f00, 0x16f4a, 0x16f4f, 0x16f87, 0x16f8f,
    0x16f9f, 0x16fe0, 0x16fe1, 0x16fe3, 0x16fe3, 0x16ff0, 0x16ff1, 0x17000, 0x187f7, 0x18800,
    0x18cd5, 0x18d00, 0x18d08, 0x1aff0, 0x1aff3, 0x1aff5, 0x1affb, 0x1affd, 0x1affe, 0x1b000,
    0x1b122, 0x1b150, 0x1b152, 0x1b164, 0x1b167, 0x1b170, 0x1b2fb, 0x1bc00, 0x1bc6a, 0x1bc70,
    0x1bc7c, 0x1bc80, 0x1bc88, 0x1bc90, 0x1bc99, 0x1bc9e, 0x1bc9e, 0x1d400, 0x1d454, 0x1d456,
    0x1d49c, 0x1d49e, 0x1d49f, 0x1d4a2, 0x1d4a2, 0x1d4a5, 0x1d4a6, 0x1d4a9, 0x1d4ac, 0x1d4ae,
    0x1d4b9, 0x1d4bb, 0x1d4bb, 0x1d4bd, 0x1d4c3, 0x1d4c5, 0x1d505, 0x1d507, 0x1d50a, 0x1d50d,
    0x1d514, 0x1d516, 0x1d51c, 0x1d51e, 0x1d539, 0x1d53b, 0x1d53e, 0x1d540, 0x1d544, 0x1d546,
    0x1d546, 0x1d54a, 0x1d550, 0x1d552, 0x1d6a5, 0x1d6a8, 0x1d6c0, 0x1d6c2, 0x1d6da, 0x1d6dc,
    0x1d6fa, 0x1d6fc, 0x1d714, 0x1d716, 0x1d734, 0x1d736, 0x1d74e, 0x1d750, 0x1d76e, 0x1d770,
    0x1d788, 0x1d78a, 0x1d7a8, 0x1d7aa, 0x1d7c2, 0x1d7c4, 0x1d7cb, 0x1d7ce, 0x1d7ff, 0x1df00,
    0x1df1e, 0x1e000, 0x1e006, 0x1e008, 0x1e018, 0x1e01b, 0x1e021, 0x1e023, 0x1e024, 0x1e026,
    0x1e02a, 0x1e100, 0x1e12c, 0x1e137, 0x1e13d, 0x1e140, 0x1e149, 0x1e14e, 0x1e14e, 0x1e290,
    0x1e2ad, 0x1e2c0, 0x1e2eb, 0x1e2f0, 0x1e2f9, 0x1e7e0, 0x1e7e6, 0x1e7e8, 0x1e7eb, 0x1e7ed,
    0x1e7ee, 0x1e7f0, 0x1e7fe, 0x1e800, 0x1e8c4, 0x1e900, 0x1e943, 0x1e947, 0x1e947, 0x1e94b,
    0x1e94b, 0x1e950, 0x1e959, 0x1ee00, 0x1ee03, 0x1ee05, 0x1ee1f, 0x1ee21, 0x1ee22, 0x1ee24,
    0x1ee24, 0x1ee27, 0x1ee27, 0x1ee29, 0x1ee32, 0x1ee34, 0x1ee37, 0x1ee39, 0x1ee39, 0x1ee3b,
    0x1ee3b, 0x1ee42, 0x1ee42, 0x1ee47, 0x1ee47, 0x1ee49, 0x1ee49, 0x1ee4b, 0x1ee4b, 0x1ee4d,
    0x1ee4f, 0x1ee51, 0x1ee52, 0x1ee54, 0x1ee54, 0x1ee57, 0x1ee57, 0x1ee59, 0x1ee59, 0x1ee5b,
    0x1ee5b, 0x1ee5d, 0x1ee5d, 0x1ee5f, 0x1ee5f, 0x1ee61, 0x1ee62, 0x1ee64, 0x1ee64, 0x1ee67,
    0x1ee6a, 0x1ee6c, 0x1ee72, 0x1ee74, 0x1ee77, 0x1ee79, 0x1ee7c, 0x1ee7e, 0x1ee7e, 0x1ee80,
    0x1ee89, 0x1ee8b, 0x1ee9b, 0x1eea1, 0x1eea3, 0x1eea5, 0x1eea9, 0x1eeab, 0x1eebb, 0x1f130,
    0x1f149, 0x1f150, 0x1f169, 0x1f170, 0x1f189, 0x1fbf0, 0x1fbf9, 0x20000, 0x2a6df, 0x2a700,
    0x2b738, 0x2b740, 0x2b81d, 0x2b820, 0x2cea1, 0x2ceb0, 0x2ebe0, 0x2f800, 0x2fa1d, 0x30000,
    0x3134a,
];

/// Non-ASCII, non-alphabetic characters PostgreSQL treats as word-internal (zero display width, or a spacing combining mark of its list).
/// Inclusive ranges, flattened: `[first, last, first, last, ...]`, sorted.
const SPECIAL: [u32; 352] = [
    0x300, 0x344, 0x346, 0x36f, 0x483, 0x489, 0x591, 0x5af, 0x658, 0x658, 0x6df, 0x6e0, 0x6ea,
    0x6ec, 0x740, 0x74a, 0x7eb, 0x7f3, 0x7fd, 0x7fd, 0x818, 0x819, 0x82d, 0x82d, 0x859, 0x85b,
    0x898, 0x89f, 0x8ca, 0x8d3, 0x8e0, 0x8e1, 0x8ea, 0x8ef, 0x93c, 0x93c, 0x94d, 0x94d, 0x951,
    0x954, 0x9bc, 0x9bc, 0x9cd, 0x9cd, 0x9fe, 0xa00, 0xa3c, 0xa3c, 0xa43, 0xa46, 0xa49, 0xa4a,
    0xa4d, 0xa50, 0xabc, 0xabc, 0xac6, 0xac6, 0xacd, 0xacd, 0xafd, 0xb00, 0xb3c, 0xb3c, 0xb4d,
    0xb55, 0xbcd, 0xbcd, 0xc04, 0xc04, 0xc3c, 0xc3c, 0xc49, 0xc49, 0xc4d, 0xc54, 0xcbc, 0xcbc,
    0xccd, 0xccd, 0xd3b, 0xd3c, 0xd4d, 0xd4d, 0xdca, 0xdca, 0xdd5, 0xdd5, 0xe47, 0xe4c, 0xe4e,
    0xe4e, 0xeba, 0xeba, 0xec8, 0xecc, 0xf18, 0xf19, 0xf35, 0xf35, 0xf37, 0xf37, 0xf39, 0xf39,
    0xf3e, 0xf3f, 0xf82, 0xf84, 0xf86, 0xf87, 0xf98, 0xf98, 0xfc6, 0xfc6, 0x1037, 0x1037, 0x1039,
    0x103a, 0x135d, 0x135f, 0x1714, 0x1714, 0x17b4, 0x17b5, 0x17c9, 0x17d3, 0x17dd, 0x17dd, 0x180b,
    0x180d, 0x180f, 0x180f, 0x1939, 0x193b, 0x1a5f, 0x1a60, 0x1a75, 0x1a7f, 0x1ab0, 0x1abe, 0x1ac1,
    0x1acb, 0x1acf, 0x1aff, 0x1b34, 0x1b34, 0x1b44, 0x1b44, 0x1b6b, 0x1b73, 0x1baa, 0x1bab, 0x1be6,
    0x1be6, 0x1c37, 0x1c37, 0x1cd0, 0x1cd2, 0x1cd4, 0x1ce0, 0x1ce2, 0x1ce8, 0x1ced, 0x1ced, 0x1cf4,
    0x1cf4, 0x1cf8, 0x1cf9, 0x1dc0, 0x1de6, 0x1df5, 0x1dff, 0x20d0, 0x20f0, 0x2cef, 0x2cf1, 0x2d7f,
    0x2d7f, 0x302a, 0x302d, 0x3099, 0x309a, 0xa66f, 0xa672, 0xa67c, 0xa67d, 0xa6f0, 0xa6f1, 0xa806,
    0xa806, 0xa82c, 0xa82c, 0xa8c4, 0xa8c4, 0xa8e0, 0xa8f1, 0xa92b, 0xa92d, 0xa953, 0xa953, 0xa9b3,
    0xa9b3, 0xaabf, 0xaabf, 0xaac1, 0xaac1, 0xaaf6, 0xaaf6, 0xabed, 0xabed, 0xfe00, 0xfe0f, 0xfe20,
    0xfe2f, 0x101fd, 0x101fd, 0x102e0, 0x102e0, 0x10a04, 0x10a04, 0x10a07, 0x10a0b, 0x10a38,
    0x10a3f, 0x10ae5, 0x10ae6, 0x10f46, 0x10f50, 0x10f82, 0x10f85, 0x11046, 0x11046, 0x11070,
    0x11070, 0x1107f, 0x11081, 0x110b9, 0x110ba, 0x11133, 0x11134, 0x11173, 0x11173, 0x111c9,
    0x111cc, 0x11236, 0x11236, 0x112e9, 0x112ea, 0x1133b, 0x1133c, 0x11366, 0x11374, 0x11442,
    0x11442, 0x11446, 0x11446, 0x1145e, 0x1145e, 0x114c2, 0x114c3, 0x115bf, 0x115c0, 0x1163f,
    0x1163f, 0x116b7, 0x116b7, 0x1172b, 0x1172b, 0x11839, 0x1183a, 0x1193e, 0x1193e, 0x11943,
    0x11943, 0x119d8, 0x119d9, 0x119e0, 0x119e0, 0x11a33, 0x11a34, 0x11a47, 0x11a47, 0x11a98,
    0x11a99, 0x11c37, 0x11c37, 0x11c3f, 0x11c3f, 0x11d37, 0x11d39, 0x11d3b, 0x11d3b, 0x11d3e,
    0x11d3e, 0x11d42, 0x11d42, 0x11d44, 0x11d45, 0x11d97, 0x11d97, 0x16af0, 0x16af4, 0x16b30,
    0x16b36, 0x16fe4, 0x16fe4, 0x1bc9d, 0x1bc9d, 0x1cf00, 0x1cf46, 0x1d167, 0x1d169, 0x1d17b,
    0x1d182, 0x1d185, 0x1d18b, 0x1d1aa, 0x1d1ad, 0x1d242, 0x1d244, 0x1da00, 0x1da36, 0x1da3b,
    0x1da6c, 0x1da75, 0x1da75, 0x1da84, 0x1da84, 0x1da9b, 0x1daaf, 0x1e007, 0x1e007, 0x1e019,
    0x1e01a, 0x1e022, 0x1e022, 0x1e025, 0x1e025, 0x1e130, 0x1e136, 0x1e2ae, 0x1e2ae, 0x1e2ec,
    0x1e2ef, 0x1e8d0, 0x1e8d6, 0x1e944, 0x1e946, 0x1e948, 0x1e94a, 0xe0100, 0xe01ef,
];

/// Non-ASCII characters glibc's C.UTF-8 `iswspace` accepts.
/// Inclusive ranges, flattened: `[first, last, first, last, ...]`, sorted.
const SPACE: [u32; 12] = [
    0x1680, 0x1680, 0x2000, 0x2006, 0x2008, 0x200a, 0x2028, 0x2029, 0x205f, 0x205f, 0x3000, 0x3000,
];

// ---------------------------------------------------------------------------------------------
// Character classes
// ---------------------------------------------------------------------------------------------

const C_ALPHA: u8 = 1;
const C_DIGIT: u8 = 2;
const C_SPECIAL: u8 = 4;
const C_SPACE: u8 = 8;
const C_XDIGIT: u8 = 16;
const C_ASCII_LETTER: u8 = 32;

/// Whether `c` lies in one of the flattened inclusive ranges of `table`.
fn in_table(table: &[u32], c: u32) -> bool {
    let pairs = table.len() / 2;
    let (mut lo, mut hi) = (0, pairs);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if table[2 * mid + 1] < c {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo < pairs && table[2 * lo] <= c
}

/// The class bits of the character at the parser's position (`None`: end of text).
fn classify(ch: Option<char>) -> u8 {
    let Some(c) = ch else {
        // PostgreSQL asks the display width of the terminating NUL, which is zero: at the end
        // of the text "special" holds (no rule depends on it there).
        return C_SPECIAL;
    };
    if c.is_ascii() {
        let mut bits = 0;
        if c.is_ascii_alphabetic() {
            bits |= C_ALPHA | C_ASCII_LETTER;
        }
        if c.is_ascii_digit() {
            bits |= C_DIGIT;
        }
        if c.is_ascii_hexdigit() {
            bits |= C_XDIGIT;
        }
        if matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r') {
            bits |= C_SPACE;
        }
        return bits;
    }
    let u = c as u32;
    let mut bits = 0;
    if in_table(&ALPHA, u) {
        bits |= C_ALPHA;
    } else if in_table(&SPECIAL, u) {
        bits |= C_SPECIAL;
    }
    if in_table(&SPACE, u) {
        bits |= C_SPACE;
    }
    bits
}

/// RFC 3986 characters allowed in a url path: ASCII graphic characters except `"`, `<`, `>`,
/// `\`, `^`, the backquote, `{`, `|` and `}`.
fn is_url_char(ch: Option<char>) -> bool {
    match ch {
        Some(c) if ('\x21'..='\x7e').contains(&c) => {
            !matches!(c, '"' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}')
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// The automaton
// ---------------------------------------------------------------------------------------------

/// Parser states (named after what has been read so far).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum State {
    Base,
    NumWord,
    AsciiWord,
    Word,
    UnsignedInt,
    SignedIntFirst,
    SignedInt,
    Space,
    UDecimalFirst,
    UDecimal,
    DecimalFirst,
    Decimal,
    VerVersion,
    SVerVersion,
    VersionFirst,
    Version,
    MantissaFirst,
    MantissaSign,
    Mantissa,
    EntityFirst,
    Entity,
    EntityNumFirst,
    EntityNum,
    EntityHexNumFirst,
    EntityHexNum,
    EntityEnd,
    TagFirst,
    XmlBegin,
    TagCloseFirst,
    TagName,
    TagBeginEnd,
    Tag,
    TagQuote1,
    TagQuote2,
    TagBackslash,
    TagEnd,
    CommentFirst,
    CommentLast,
    Comment,
    CloseCommentFirst,
    CloseCommentLast,
    CommentEnd,
    HostFirstDomain,
    HostDomainSecond,
    HostDomain,
    PortFirst,
    Port,
    HostFirstAN,
    Host,
    Email,
    FileFirst,
    FileTwiddle,
    PathFirst,
    PathFirstFirst,
    PathSecond,
    File,
    FileNext,
    UrlPathStart,
    UrlPath,
    FullUrl,
    ProtocolFirst,
    ProtocolSecond,
    ProtocolEnd,
    HyphenAsciiWordFirst,
    HyphenAsciiWord,
    HyphenWordFirst,
    HyphenWord,
    HyphenNumWordFirst,
    HyphenNumWord,
    HyphenDigitLookahead,
    ParseHyphen,
    ParseHyphenHyphen,
    HyphenWordPart,
    HyphenAsciiWordPart,
    HyphenNumWordPart,
    HyphenUnsignedInt,
}

impl State {
    /// Whether a failure seen from this state may be memoised: the state neither commits
    /// (clears the frame below), merges, nor rewinds to the token start.
    fn memoisable(self) -> bool {
        !matches!(
            self,
            State::Base
                | State::SignedIntFirst
                | State::UDecimalFirst
                | State::DecimalFirst
                | State::VersionFirst
                | State::MantissaFirst
                | State::MantissaSign
                | State::FileNext
                | State::HyphenUnsignedInt
                | State::EntityEnd
                | State::PathSecond
                | State::ParseHyphenHyphen
                | State::TagBackslash
                | State::VerVersion
                | State::SVerVersion
        )
    }
}

/// The character test of a rule.
#[derive(Clone, Copy, Debug)]
enum Test {
    Eof,
    Is(u8),
    Ignoring,
    AsciiLetter,
    Alpha,
    Digit,
    Alnum,
    NotAlnum,
    Special,
    Space,
    XDigit,
    /// A host was wanted (consumes the wish).
    StopHost,
    /// A host starts here (consumes it).
    HostAhead,
    UrlChar,
    /// A url path starts here (consumes it).
    UrlPathAhead,
    Always,
}

/// Extra work a rule does before its action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hook {
    None,
    /// Tag name read: `<script`/`<style` start ignoring, `</script`/`</style` stop.
    Tags,
    /// Url read: rewind, and have the next tokens be its host then its path.
    FullUrl,
    /// Hyphenated word read: rewind to re-read its parts.
    Hyphen,
    /// `-1.2.3`: rewind and restart the token.
    SignedVersion,
}

const NEXT: u8 = 0;
const EMIT: u8 = 1;
const POP: u8 = 2;
const PUSH: u8 = 4;
const RERUN: u8 = 8;
const CLEAR: u8 = 16;
const MERGE: u8 = 32;
const CLEAR_ALL: u8 = 64;

#[derive(Clone, Copy, Debug)]
struct Rule {
    test: Test,
    action: u8,
    to: Option<State>,
    kind: Option<TokenKind>,
    hook: Hook,
}

const fn rule(test: Test, action: u8, to: Option<State>, kind: Option<TokenKind>) -> Rule {
    Rule {
        test,
        action,
        to,
        kind,
        hook: Hook::None,
    }
}

/// Consume and go to `to`.
const fn go(test: Test, to: State) -> Rule {
    rule(test, NEXT, Some(to), None)
}

/// Consume and stay.
const fn stay(test: Test) -> Rule {
    rule(test, NEXT, None, None)
}

/// Try `to` in a copy of the frame.
const fn push(test: Test, to: State) -> Rule {
    rule(test, PUSH, Some(to), None)
}

/// Fail this frame.
const fn pop(test: Test) -> Rule {
    rule(test, POP, None, None)
}

/// Commit this frame over the one below and go to `to`.
const fn commit(test: Test, to: State) -> Rule {
    rule(test, CLEAR, Some(to), None)
}

/// Emit a token of `kind`, then continue in `to`.
const fn emit(test: Test, kind: TokenKind, to: State) -> Rule {
    rule(test, EMIT, Some(to), Some(kind))
}

/// Emit and drop every frame below.
const fn emit_all(test: Test, kind: TokenKind, to: State) -> Rule {
    rule(test, EMIT | CLEAR_ALL, Some(to), Some(kind))
}

/// Emit and drop the frame below.
const fn emit_commit(test: Test, kind: TokenKind, to: State) -> Rule {
    rule(test, EMIT | CLEAR, Some(to), Some(kind))
}

/// Evaluate `to` on the same character.
const fn rerun(test: Test, to: State) -> Rule {
    rule(test, RERUN, Some(to), None)
}

const fn hooked(mut r: Rule, hook: Hook) -> Rule {
    r.hook = hook;
    r
}

use Test::{
    Alnum, Alpha, Always, AsciiLetter, Digit, Eof, HostAhead, Ignoring, Is, NotAlnum, Space,
    Special, StopHost, UrlChar, UrlPathAhead, XDigit,
};
use TokenKind as K;

const BASE: &[Rule] = &[
    stay(Eof),
    push(Is(b'<'), State::TagFirst),
    go(Ignoring, State::Space),
    go(AsciiLetter, State::AsciiWord),
    go(Alpha, State::Word),
    go(Digit, State::UnsignedInt),
    push(Is(b'-'), State::SignedIntFirst),
    push(Is(b'+'), State::SignedIntFirst),
    push(Is(b'&'), State::EntityFirst),
    push(Is(b'~'), State::FileTwiddle),
    push(Is(b'/'), State::FileFirst),
    push(Is(b'.'), State::PathFirstFirst),
    go(Always, State::Space),
];

const NUM_WORD: &[Rule] = &[
    emit(Eof, K::NumWord, State::Base),
    go(Alnum, State::NumWord),
    go(Special, State::NumWord),
    push(Is(b'@'), State::Email),
    push(Is(b'/'), State::FileFirst),
    push(Is(b'.'), State::FileNext),
    push(Is(b'-'), State::HyphenNumWordFirst),
    emit(Always, K::NumWord, State::Base),
];

const ASCII_WORD: &[Rule] = &[
    emit(Eof, K::AsciiWord, State::Base),
    stay(AsciiLetter),
    push(Is(b'.'), State::HostFirstDomain),
    push(Is(b'.'), State::FileNext),
    push(Is(b'-'), State::HostFirstAN),
    push(Is(b'-'), State::HyphenAsciiWordFirst),
    push(Is(b'_'), State::HostFirstAN),
    push(Is(b'@'), State::Email),
    push(Is(b':'), State::ProtocolFirst),
    push(Is(b'/'), State::FileFirst),
    push(Digit, State::Host),
    go(Digit, State::NumWord),
    go(Alpha, State::Word),
    go(Special, State::Word),
    emit(Always, K::AsciiWord, State::Base),
];

const WORD: &[Rule] = &[
    emit(Eof, K::Word, State::Base),
    stay(Alpha),
    stay(Special),
    go(Digit, State::NumWord),
    push(Is(b'-'), State::HyphenWordFirst),
    emit(Always, K::Word, State::Base),
];

const UNSIGNED_INT: &[Rule] = &[
    emit(Eof, K::UInt, State::Base),
    stay(Digit),
    push(Is(b'.'), State::HostFirstDomain),
    push(Is(b'.'), State::UDecimalFirst),
    push(Is(b'e'), State::MantissaFirst),
    push(Is(b'E'), State::MantissaFirst),
    push(Is(b'-'), State::HostFirstAN),
    push(Is(b'_'), State::HostFirstAN),
    push(Is(b'@'), State::Email),
    push(AsciiLetter, State::Host),
    go(Alpha, State::NumWord),
    go(Special, State::NumWord),
    push(Is(b'/'), State::FileFirst),
    emit(Always, K::UInt, State::Base),
];

const SIGNED_INT_FIRST: &[Rule] = &[pop(Eof), commit(Digit, State::SignedInt), pop(Always)];

const SIGNED_INT: &[Rule] = &[
    emit(Eof, K::Int, State::Base),
    stay(Digit),
    push(Is(b'.'), State::DecimalFirst),
    push(Is(b'e'), State::MantissaFirst),
    push(Is(b'E'), State::MantissaFirst),
    emit(Always, K::Int, State::Base),
];

const SPACE_RUN: &[Rule] = &[
    emit(Eof, K::Blank, State::Base),
    emit(Is(b'<'), K::Blank, State::Base),
    stay(Ignoring),
    emit(Is(b'-'), K::Blank, State::Base),
    emit(Is(b'+'), K::Blank, State::Base),
    emit(Is(b'&'), K::Blank, State::Base),
    emit(Is(b'/'), K::Blank, State::Base),
    go(NotAlnum, State::Space),
    emit(Always, K::Blank, State::Base),
];

const U_DECIMAL_FIRST: &[Rule] = &[pop(Eof), commit(Digit, State::UDecimal), pop(Always)];

const U_DECIMAL: &[Rule] = &[
    emit(Eof, K::Float, State::Base),
    go(Digit, State::UDecimal),
    push(Is(b'.'), State::VersionFirst),
    push(Is(b'e'), State::MantissaFirst),
    push(Is(b'E'), State::MantissaFirst),
    emit(Always, K::Float, State::Base),
];

const DECIMAL_FIRST: &[Rule] = &[pop(Eof), commit(Digit, State::Decimal), pop(Always)];

const DECIMAL: &[Rule] = &[
    emit(Eof, K::Float, State::Base),
    go(Digit, State::Decimal),
    push(Is(b'.'), State::VerVersion),
    push(Is(b'e'), State::MantissaFirst),
    push(Is(b'E'), State::MantissaFirst),
    emit(Always, K::Float, State::Base),
];

const VER_VERSION: &[Rule] = &[
    pop(Eof),
    hooked(rerun(Digit, State::SVerVersion), Hook::SignedVersion),
    pop(Always),
];

const S_VER_VERSION: &[Rule] = &[
    pop(Eof),
    emit_all(Digit, K::Blank, State::UnsignedInt),
    stay(Always),
];

const VERSION_FIRST: &[Rule] = &[pop(Eof), commit(Digit, State::Version), pop(Always)];

const VERSION: &[Rule] = &[
    emit(Eof, K::Version, State::Base),
    go(Digit, State::Version),
    push(Is(b'.'), State::VersionFirst),
    emit(Always, K::Version, State::Base),
];

const MANTISSA_FIRST: &[Rule] = &[
    pop(Eof),
    commit(Digit, State::Mantissa),
    go(Is(b'+'), State::MantissaSign),
    go(Is(b'-'), State::MantissaSign),
    pop(Always),
];

const MANTISSA_SIGN: &[Rule] = &[pop(Eof), commit(Digit, State::Mantissa), pop(Always)];

const MANTISSA: &[Rule] = &[
    emit(Eof, K::SFloat, State::Base),
    go(Digit, State::Mantissa),
    emit(Always, K::SFloat, State::Base),
];

const ENTITY_FIRST: &[Rule] = &[
    pop(Eof),
    go(Is(b'#'), State::EntityNumFirst),
    go(AsciiLetter, State::Entity),
    go(Is(b':'), State::Entity),
    go(Is(b'_'), State::Entity),
    pop(Always),
];

const ENTITY: &[Rule] = &[
    pop(Eof),
    go(Alnum, State::Entity),
    go(Is(b':'), State::Entity),
    go(Is(b'_'), State::Entity),
    go(Is(b'.'), State::Entity),
    go(Is(b'-'), State::Entity),
    go(Is(b';'), State::EntityEnd),
    pop(Always),
];

const ENTITY_NUM_FIRST: &[Rule] = &[
    pop(Eof),
    go(Is(b'x'), State::EntityHexNumFirst),
    go(Is(b'X'), State::EntityHexNumFirst),
    go(Digit, State::EntityNum),
    pop(Always),
];

const ENTITY_HEX_NUM_FIRST: &[Rule] = &[pop(Eof), go(XDigit, State::EntityHexNum), pop(Always)];

const ENTITY_NUM: &[Rule] = &[
    pop(Eof),
    go(Digit, State::EntityNum),
    go(Is(b';'), State::EntityEnd),
    pop(Always),
];

const ENTITY_HEX_NUM: &[Rule] = &[
    pop(Eof),
    go(XDigit, State::EntityHexNum),
    go(Is(b';'), State::EntityEnd),
    pop(Always),
];

const ENTITY_END: &[Rule] = &[emit_commit(Always, K::Entity, State::Base)];

const TAG_FIRST: &[Rule] = &[
    pop(Eof),
    push(Is(b'/'), State::TagCloseFirst),
    push(Is(b'!'), State::CommentFirst),
    push(Is(b'?'), State::XmlBegin),
    push(AsciiLetter, State::TagName),
    push(Is(b':'), State::TagName),
    push(Is(b'_'), State::TagName),
    pop(Always),
];

const XML_BEGIN: &[Rule] = &[pop(Eof), go(Is(b'x'), State::Tag), pop(Always)];

const TAG_CLOSE_FIRST: &[Rule] = &[pop(Eof), go(AsciiLetter, State::TagName), pop(Always)];

const TAG_NAME: &[Rule] = &[
    pop(Eof),
    go(Is(b'/'), State::TagBeginEnd),
    hooked(go(Is(b'>'), State::TagEnd), Hook::Tags),
    hooked(go(Space, State::Tag), Hook::Tags),
    stay(Alnum),
    stay(Is(b':')),
    stay(Is(b'_')),
    stay(Is(b'.')),
    stay(Is(b'-')),
    pop(Always),
];

const TAG_BEGIN_END: &[Rule] = &[pop(Eof), go(Is(b'>'), State::TagEnd), pop(Always)];

const TAG: &[Rule] = &[
    pop(Eof),
    hooked(go(Is(b'>'), State::TagEnd), Hook::Tags),
    go(Is(b'\''), State::TagQuote1),
    go(Is(b'"'), State::TagQuote2),
    stay(AsciiLetter),
    stay(Digit),
    stay(Is(b'=')),
    stay(Is(b'-')),
    stay(Is(b'_')),
    stay(Is(b'#')),
    stay(Is(b'/')),
    stay(Is(b':')),
    stay(Is(b'.')),
    stay(Is(b'&')),
    stay(Is(b'?')),
    stay(Is(b'%')),
    stay(Is(b'~')),
    hooked(stay(Space), Hook::Tags),
    pop(Always),
];

const TAG_QUOTE1: &[Rule] = &[
    pop(Eof),
    push(Is(b'\\'), State::TagBackslash),
    go(Is(b'\''), State::Tag),
    go(Always, State::TagQuote1),
];

const TAG_QUOTE2: &[Rule] = &[
    pop(Eof),
    push(Is(b'\\'), State::TagBackslash),
    go(Is(b'"'), State::Tag),
    go(Always, State::TagQuote2),
];

const TAG_BACKSLASH: &[Rule] = &[pop(Eof), rule(Always, MERGE, None, None)];

const TAG_END: &[Rule] = &[emit_all(Always, K::Tag, State::Base)];

const COMMENT_FIRST: &[Rule] = &[
    pop(Eof),
    go(Is(b'-'), State::CommentLast),
    go(Is(b'D'), State::Tag),
    go(Is(b'd'), State::Tag),
    pop(Always),
];

const COMMENT_LAST: &[Rule] = &[pop(Eof), go(Is(b'-'), State::Comment), pop(Always)];

const COMMENT: &[Rule] = &[
    pop(Eof),
    go(Is(b'-'), State::CloseCommentFirst),
    stay(Always),
];

const CLOSE_COMMENT_FIRST: &[Rule] = &[
    pop(Eof),
    go(Is(b'-'), State::CloseCommentLast),
    go(Always, State::Comment),
];

const CLOSE_COMMENT_LAST: &[Rule] = &[
    pop(Eof),
    stay(Is(b'-')),
    go(Is(b'>'), State::CommentEnd),
    go(Always, State::Comment),
];

const COMMENT_END: &[Rule] = &[emit_all(Always, K::Tag, State::Base)];

const HOST_FIRST_DOMAIN: &[Rule] = &[
    pop(Eof),
    go(AsciiLetter, State::HostDomainSecond),
    go(Digit, State::Host),
    pop(Always),
];

const HOST_DOMAIN_SECOND: &[Rule] = &[
    pop(Eof),
    go(AsciiLetter, State::HostDomain),
    push(Digit, State::Host),
    push(Is(b'-'), State::HostFirstAN),
    push(Is(b'_'), State::HostFirstAN),
    push(Is(b'.'), State::HostFirstDomain),
    push(Is(b'@'), State::Email),
    pop(Always),
];

const HOST_DOMAIN: &[Rule] = &[
    emit_all(Eof, K::Host, State::Base),
    go(AsciiLetter, State::HostDomain),
    push(Digit, State::Host),
    push(Is(b':'), State::PortFirst),
    push(Is(b'-'), State::HostFirstAN),
    push(Is(b'_'), State::HostFirstAN),
    push(Is(b'.'), State::HostFirstDomain),
    push(Is(b'@'), State::Email),
    pop(Digit),
    emit_all(StopHost, K::Host, State::UrlPathStart),
    push(Is(b'/'), State::FullUrl),
    emit_all(Always, K::Host, State::Base),
];

const PORT_FIRST: &[Rule] = &[pop(Eof), go(Digit, State::Port), pop(Always)];

const PORT: &[Rule] = &[
    emit_all(Eof, K::Host, State::Base),
    go(Digit, State::Port),
    emit_all(StopHost, K::Host, State::UrlPathStart),
    push(Is(b'/'), State::FullUrl),
    emit_all(Always, K::Host, State::Base),
];

const HOST_FIRST_AN: &[Rule] = &[
    pop(Eof),
    go(Digit, State::Host),
    go(AsciiLetter, State::Host),
    pop(Always),
];

const HOST: &[Rule] = &[
    pop(Eof),
    go(Digit, State::Host),
    go(AsciiLetter, State::Host),
    push(Is(b'@'), State::Email),
    push(Is(b'.'), State::HostFirstDomain),
    push(Is(b'-'), State::HostFirstAN),
    push(Is(b'_'), State::HostFirstAN),
    pop(Always),
];

const EMAIL: &[Rule] = &[
    pop(StopHost),
    emit_all(HostAhead, K::Email, State::Base),
    pop(Always),
];

const FILE_FIRST: &[Rule] = &[
    pop(Eof),
    go(AsciiLetter, State::File),
    go(Digit, State::File),
    go(Is(b'.'), State::PathFirst),
    go(Is(b'_'), State::File),
    push(Is(b'~'), State::FileTwiddle),
    pop(Always),
];

const FILE_TWIDDLE: &[Rule] = &[
    pop(Eof),
    go(AsciiLetter, State::File),
    go(Digit, State::File),
    go(Is(b'_'), State::File),
    go(Is(b'/'), State::FileFirst),
    pop(Always),
];

const PATH_FIRST: &[Rule] = &[
    pop(Eof),
    go(AsciiLetter, State::File),
    go(Digit, State::File),
    go(Is(b'_'), State::File),
    go(Is(b'.'), State::PathSecond),
    go(Is(b'/'), State::FileFirst),
    pop(Always),
];

const PATH_FIRST_FIRST: &[Rule] = &[
    pop(Eof),
    go(Is(b'.'), State::PathSecond),
    go(Is(b'/'), State::FileFirst),
    pop(Always),
];

const PATH_SECOND: &[Rule] = &[
    emit_commit(Eof, K::File, State::Base),
    push(Is(b'/'), State::FileFirst),
    emit_commit(Is(b'/'), K::File, State::Base),
    emit_commit(Space, K::File, State::Base),
    pop(Always),
];

const FILE: &[Rule] = &[
    emit(Eof, K::File, State::Base),
    go(AsciiLetter, State::File),
    go(Digit, State::File),
    push(Is(b'.'), State::FileNext),
    go(Is(b'_'), State::File),
    go(Is(b'-'), State::File),
    push(Is(b'/'), State::FileFirst),
    emit(Always, K::File, State::Base),
];

const FILE_NEXT: &[Rule] = &[
    pop(Eof),
    commit(AsciiLetter, State::File),
    commit(Digit, State::File),
    commit(Is(b'_'), State::File),
    pop(Always),
];

const URL_PATH_START: &[Rule] = &[go(Always, State::UrlPath)];

const URL_PATH: &[Rule] = &[
    emit(Eof, K::UrlPath, State::Base),
    go(UrlChar, State::UrlPath),
    emit(Always, K::UrlPath, State::Base),
];

const FULL_URL: &[Rule] = &[
    pop(Eof),
    hooked(emit_all(UrlPathAhead, K::Url, State::Base), Hook::FullUrl),
    pop(Always),
];

const PROTOCOL_FIRST: &[Rule] = &[pop(Eof), go(Is(b'/'), State::ProtocolSecond), pop(Always)];

const PROTOCOL_SECOND: &[Rule] = &[pop(Eof), go(Is(b'/'), State::ProtocolEnd), pop(Always)];

const PROTOCOL_END: &[Rule] = &[emit_all(Always, K::Protocol, State::Base)];

const HYPHEN_ASCII_WORD_FIRST: &[Rule] = &[
    pop(Eof),
    go(AsciiLetter, State::HyphenAsciiWord),
    go(Alpha, State::HyphenWord),
    go(Digit, State::HyphenDigitLookahead),
    pop(Always),
];

const HYPHEN_ASCII_WORD: &[Rule] = &[
    hooked(
        emit_all(Eof, K::AsciiHWord, State::ParseHyphen),
        Hook::Hyphen,
    ),
    go(AsciiLetter, State::HyphenAsciiWord),
    go(Alpha, State::HyphenWord),
    go(Special, State::HyphenWord),
    go(Digit, State::HyphenNumWord),
    push(Is(b'-'), State::HyphenAsciiWordFirst),
    hooked(
        emit_all(Always, K::AsciiHWord, State::ParseHyphen),
        Hook::Hyphen,
    ),
];

const HYPHEN_WORD_FIRST: &[Rule] = &[
    pop(Eof),
    go(Alpha, State::HyphenWord),
    go(Digit, State::HyphenDigitLookahead),
    pop(Always),
];

const HYPHEN_WORD: &[Rule] = &[
    hooked(emit_all(Eof, K::HWord, State::ParseHyphen), Hook::Hyphen),
    go(Alpha, State::HyphenWord),
    go(Special, State::HyphenWord),
    go(Digit, State::HyphenNumWord),
    push(Is(b'-'), State::HyphenWordFirst),
    hooked(emit_all(Always, K::HWord, State::ParseHyphen), Hook::Hyphen),
];

const HYPHEN_NUM_WORD_FIRST: &[Rule] = &[
    pop(Eof),
    go(Alpha, State::HyphenNumWord),
    go(Digit, State::HyphenDigitLookahead),
    pop(Always),
];

const HYPHEN_NUM_WORD: &[Rule] = &[
    hooked(emit_all(Eof, K::NumHWord, State::ParseHyphen), Hook::Hyphen),
    go(Alnum, State::HyphenNumWord),
    go(Special, State::HyphenNumWord),
    push(Is(b'-'), State::HyphenNumWordFirst),
    hooked(
        emit_all(Always, K::NumHWord, State::ParseHyphen),
        Hook::Hyphen,
    ),
];

const HYPHEN_DIGIT_LOOKAHEAD: &[Rule] = &[
    pop(Eof),
    go(Digit, State::HyphenDigitLookahead),
    go(Alpha, State::HyphenNumWord),
    go(Special, State::HyphenNumWord),
    pop(Always),
];

const PARSE_HYPHEN: &[Rule] = &[
    rerun(Eof, State::Base),
    go(AsciiLetter, State::HyphenAsciiWordPart),
    go(Alpha, State::HyphenWordPart),
    push(Digit, State::HyphenUnsignedInt),
    push(Is(b'-'), State::ParseHyphenHyphen),
    rerun(Always, State::Base),
];

const PARSE_HYPHEN_HYPHEN: &[Rule] = &[
    pop(Eof),
    emit_commit(Alnum, K::Blank, State::ParseHyphen),
    emit_commit(Special, K::Blank, State::ParseHyphen),
    pop(Always),
];

const HYPHEN_WORD_PART: &[Rule] = &[
    emit(Eof, K::HWordPart, State::Base),
    go(Alpha, State::HyphenWordPart),
    go(Special, State::HyphenWordPart),
    go(Digit, State::HyphenNumWordPart),
    emit(Always, K::HWordPart, State::ParseHyphen),
];

const HYPHEN_ASCII_WORD_PART: &[Rule] = &[
    emit(Eof, K::HWordAsciiPart, State::Base),
    go(AsciiLetter, State::HyphenAsciiWordPart),
    go(Alpha, State::HyphenWordPart),
    go(Special, State::HyphenWordPart),
    go(Digit, State::HyphenNumWordPart),
    emit(Always, K::HWordAsciiPart, State::ParseHyphen),
];

const HYPHEN_NUM_WORD_PART: &[Rule] = &[
    emit(Eof, K::HWordNumPart, State::Base),
    go(Alnum, State::HyphenNumWordPart),
    go(Special, State::HyphenNumWordPart),
    emit(Always, K::HWordNumPart, State::ParseHyphen),
];

const HYPHEN_UNSIGNED_INT: &[Rule] = &[
    pop(Eof),
    stay(Digit),
    commit(Alpha, State::HyphenNumWordPart),
    commit(Special, State::HyphenNumWordPart),
    pop(Always),
];

fn rules(state: State) -> &'static [Rule] {
    match state {
        State::Base => BASE,
        State::NumWord => NUM_WORD,
        State::AsciiWord => ASCII_WORD,
        State::Word => WORD,
        State::UnsignedInt => UNSIGNED_INT,
        State::SignedIntFirst => SIGNED_INT_FIRST,
        State::SignedInt => SIGNED_INT,
        State::Space => SPACE_RUN,
        State::UDecimalFirst => U_DECIMAL_FIRST,
        State::UDecimal => U_DECIMAL,
        State::DecimalFirst => DECIMAL_FIRST,
        State::Decimal => DECIMAL,
        State::VerVersion => VER_VERSION,
        State::SVerVersion => S_VER_VERSION,
        State::VersionFirst => VERSION_FIRST,
        State::Version => VERSION,
        State::MantissaFirst => MANTISSA_FIRST,
        State::MantissaSign => MANTISSA_SIGN,
        State::Mantissa => MANTISSA,
        State::EntityFirst => ENTITY_FIRST,
        State::Entity => ENTITY,
        State::EntityNumFirst => ENTITY_NUM_FIRST,
        State::EntityNum => ENTITY_NUM,
        State::EntityHexNumFirst => ENTITY_HEX_NUM_FIRST,
        State::EntityHexNum => ENTITY_HEX_NUM,
        State::EntityEnd => ENTITY_END,
        State::TagFirst => TAG_FIRST,
        State::XmlBegin => XML_BEGIN,
        State::TagCloseFirst => TAG_CLOSE_FIRST,
        State::TagName => TAG_NAME,
        State::TagBeginEnd => TAG_BEGIN_END,
        State::Tag => TAG,
        State::TagQuote1 => TAG_QUOTE1,
        State::TagQuote2 => TAG_QUOTE2,
        State::TagBackslash => TAG_BACKSLASH,
        State::TagEnd => TAG_END,
        State::CommentFirst => COMMENT_FIRST,
        State::CommentLast => COMMENT_LAST,
        State::Comment => COMMENT,
        State::CloseCommentFirst => CLOSE_COMMENT_FIRST,
        State::CloseCommentLast => CLOSE_COMMENT_LAST,
        State::CommentEnd => COMMENT_END,
        State::HostFirstDomain => HOST_FIRST_DOMAIN,
        State::HostDomainSecond => HOST_DOMAIN_SECOND,
        State::HostDomain => HOST_DOMAIN,
        State::PortFirst => PORT_FIRST,
        State::Port => PORT,
        State::HostFirstAN => HOST_FIRST_AN,
        State::Host => HOST,
        State::Email => EMAIL,
        State::FileFirst => FILE_FIRST,
        State::FileTwiddle => FILE_TWIDDLE,
        State::PathFirst => PATH_FIRST,
        State::PathFirstFirst => PATH_FIRST_FIRST,
        State::PathSecond => PATH_SECOND,
        State::File => FILE,
        State::FileNext => FILE_NEXT,
        State::UrlPathStart => URL_PATH_START,
        State::UrlPath => URL_PATH,
        State::FullUrl => FULL_URL,
        State::ProtocolFirst => PROTOCOL_FIRST,
        State::ProtocolSecond => PROTOCOL_SECOND,
        State::ProtocolEnd => PROTOCOL_END,
        State::HyphenAsciiWordFirst => HYPHEN_ASCII_WORD_FIRST,
        State::HyphenAsciiWord => HYPHEN_ASCII_WORD,
        State::HyphenWordFirst => HYPHEN_WORD_FIRST,
        State::HyphenWord => HYPHEN_WORD,
        State::HyphenNumWordFirst => HYPHEN_NUM_WORD_FIRST,
        State::HyphenNumWord => HYPHEN_NUM_WORD,
        State::HyphenDigitLookahead => HYPHEN_DIGIT_LOOKAHEAD,
        State::ParseHyphen => PARSE_HYPHEN,
        State::ParseHyphenHyphen => PARSE_HYPHEN_HYPHEN,
        State::HyphenWordPart => HYPHEN_WORD_PART,
        State::HyphenAsciiWordPart => HYPHEN_ASCII_WORD_PART,
        State::HyphenNumWordPart => HYPHEN_NUM_WORD_PART,
        State::HyphenUnsignedInt => HYPHEN_UNSIGNED_INT,
    }
}

// ---------------------------------------------------------------------------------------------
// Running the automaton
// ---------------------------------------------------------------------------------------------

/// One frame of the backtracking stack.
#[derive(Clone, Copy, Debug)]
struct Frame {
    state: State,
    /// Byte position of the character under examination.
    pos: usize,
    /// Length of the token so far, in bytes and in characters.
    len_bytes: usize,
    len_chars: usize,
    /// The rule that pushed the frame above; evaluation resumes after it when that one fails.
    resume: Option<usize>,
    /// Start of this frame's entries in [`Scan::pending`].
    pending_from: usize,
}

/// One parser over the text: the main one, or a nested "is there a host here" one.
struct Scan {
    origin: usize,
    frames: Vec<Frame>,
    ignoring: bool,
    want_host: bool,
    token_start: usize,
    in_token: bool,
    /// Memo keys of the configurations evaluated by live frames since their creation; they
    /// become known failures when their frame fails.
    pending: Vec<u64>,
}

impl Scan {
    fn new(origin: usize, want_host: bool) -> Scan {
        Scan {
            origin,
            frames: vec![Frame {
                state: State::Base,
                pos: origin,
                len_bytes: 0,
                len_chars: 0,
                resume: None,
                pending_from: 0,
            }],
            ignoring: false,
            want_host,
            token_start: origin,
            in_token: false,
            pending: Vec::new(),
        }
    }

    fn flag_bits(&self) -> u64 {
        u64::from(self.ignoring) << 1 | u64::from(self.want_host)
    }
}

/// Outcome of a rule's test.
enum Outcome {
    No,
    Yes,
    /// Matched, consuming a nested token of this many bytes and characters.
    Consumed(usize, usize),
    /// The answer needs a nested host parse at this position first.
    NeedHost(usize),
}

enum Step {
    /// A token (kind, byte start, byte length), or the end of parsing.
    Done(Option<(TokenKind, usize, usize)>),
    NeedHost(usize),
}

/// Frames deeper than this many characters into their token may be memoised.
const MEMO_MIN_CHARS: usize = 8;

struct Engine<'a> {
    text: &'a str,
    /// Configurations (see [`memo_key`]) known to make their frame fail.
    failing: HashSet<u64>,
    /// Nested host parses: position → host length in bytes and characters.
    hosts: HashMap<usize, Option<(usize, usize)>>,
}

fn memo_key(state: State, pos: usize, flags: u64) -> u64 {
    (pos as u64) << 9 | (state as u64) << 2 | flags
}

impl<'a> Engine<'a> {
    fn new(text: &'a str) -> Engine<'a> {
        Engine {
            text,
            failing: HashSet::new(),
            hosts: HashMap::new(),
        }
    }

    fn char_at(&self, pos: usize) -> Option<char> {
        self.text.get(pos..).and_then(|rest| rest.chars().next())
    }

    /// The next token of `main`, running nested host parses (from an explicit stack) as
    /// they are needed.
    fn next_token(&mut self, main: &mut Scan) -> Option<(TokenKind, usize, usize)> {
        let mut nested: Vec<Scan> = Vec::new();
        loop {
            let step = match nested.last_mut() {
                Some(scan) => self.step(scan),
                None => self.step(main),
            };
            match step {
                Step::NeedHost(at) => nested.push(Scan::new(at, true)),
                Step::Done(token) => {
                    let Some(scan) = nested.pop() else {
                        return token;
                    };
                    let host = match token {
                        Some((TokenKind::Host, start, len)) => {
                            let chars = self
                                .text
                                .get(start..start + len)
                                .map_or(0, |t| t.chars().count());
                            Some((len, chars))
                        }
                        _ => None,
                    };
                    self.hosts.insert(scan.origin, host);
                }
            }
        }
    }

    fn test(
        &self,
        scan: &mut Scan,
        test: Test,
        ch: Option<char>,
        class: u8,
        pos: usize,
    ) -> Outcome {
        let yes = |b: bool| if b { Outcome::Yes } else { Outcome::No };
        match test {
            Test::Eof => yes(ch.is_none()),
            Test::Is(b) => yes(ch == Some(b as char)),
            Test::Ignoring => yes(scan.ignoring),
            Test::AsciiLetter => yes(class & C_ASCII_LETTER != 0),
            Test::Alpha => yes(class & C_ALPHA != 0),
            Test::Digit => yes(class & C_DIGIT != 0),
            Test::Alnum => yes(class & (C_ALPHA | C_DIGIT) != 0),
            Test::NotAlnum => yes(class & (C_ALPHA | C_DIGIT) == 0),
            Test::Special => yes(class & C_SPECIAL != 0),
            Test::Space => yes(class & C_SPACE != 0),
            Test::XDigit => yes(class & C_XDIGIT != 0),
            Test::StopHost => {
                let wanted = scan.want_host;
                scan.want_host = false;
                yes(wanted)
            }
            Test::HostAhead => {
                if pos >= self.text.len() {
                    return Outcome::No;
                }
                match self.hosts.get(&pos) {
                    Some(Some((bytes, chars))) => Outcome::Consumed(*bytes, *chars),
                    Some(None) => Outcome::No,
                    None => Outcome::NeedHost(pos),
                }
            }
            Test::UrlChar => yes(is_url_char(ch)),
            Test::UrlPathAhead => {
                let len = self
                    .text
                    .as_bytes()
                    .get(pos..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|&&b| is_url_char(Some(b as char)))
                    .count();
                if len == 0 {
                    Outcome::No
                } else {
                    Outcome::Consumed(len, len)
                }
            }
            Test::Always => Outcome::Yes,
        }
    }

    /// Drops the top frame as failed, recording the configurations it evaluated.
    fn fail_top(&mut self, scan: &mut Scan) {
        let Some(top) = scan.frames.pop() else {
            return;
        };
        let flags = scan.flag_bits();
        if top.pending_from < scan.pending.len() {
            for &key in &scan.pending[top.pending_from..] {
                if key & 3 == flags {
                    self.failing.insert(key);
                }
            }
            scan.pending.truncate(top.pending_from);
        }
    }

    /// Runs `scan` until it emits a token, ends, or needs a nested host parse (in which case
    /// it can be resumed by calling `step` again once the host is known).
    fn step(&mut self, scan: &mut Scan) -> Step {
        let end = self.text.len();
        if !scan.in_token {
            let Some(top) = scan.frames.last_mut() else {
                return Step::Done(None);
            };
            if top.pos >= end {
                return Step::Done(None);
            }
            scan.token_start = top.pos;
            top.resume = None;
            scan.in_token = true;
        }
        loop {
            let Some(&top) = scan.frames.last() else {
                scan.in_token = false;
                return Step::Done(None);
            };
            let ch = self.char_at(top.pos);
            let class = classify(ch);
            let list = rules(top.state);
            let fresh = top.resume.is_none();
            let first = top.resume.map_or(0, |i| i + 1);
            let memoisable = fresh
                && scan.frames.len() >= 2
                && top.len_chars > MEMO_MIN_CHARS
                && top.state.memoisable();
            let key = memo_key(top.state, top.pos, scan.flag_bits());

            let mut chosen = None;
            if memoisable && self.failing.contains(&key) {
                chosen = Some((usize::MAX, pop(Always), (0, 0)));
            } else {
                for (i, r) in list.iter().enumerate().skip(first) {
                    match self.test(scan, r.test, ch, class, top.pos) {
                        Outcome::No => continue,
                        Outcome::Yes => chosen = Some((i, *r, (0, 0))),
                        Outcome::Consumed(b, c) => chosen = Some((i, *r, (b, c))),
                        Outcome::NeedHost(at) => return Step::NeedHost(at),
                    }
                    break;
                }
                if memoisable {
                    scan.pending.push(key);
                }
            }
            let Some((index, rule, (adv_bytes, adv_chars))) = chosen else {
                // Every rule list ends with an unconditional rule; stop safely regardless.
                scan.in_token = false;
                return Step::Done(None);
            };
            if let Some(top) = scan.frames.last_mut() {
                top.resume = None;
                top.pos += adv_bytes;
                top.len_bytes += adv_bytes;
                top.len_chars += adv_chars;
            }

            self.apply_hook(scan, rule.hook);

            let mut token = None;
            if rule.action & EMIT != 0
                && let (Some(top), Some(kind)) = (scan.frames.last_mut(), rule.kind)
            {
                token = Some((kind, scan.token_start, top.len_bytes));
                top.len_bytes = 0;
                top.len_chars = 0;
            }

            if rule.action & POP != 0 {
                self.fail_top(scan);
            } else if rule.action & PUSH != 0 {
                let pending_from = scan.pending.len();
                if let Some(top) = scan.frames.last_mut() {
                    top.resume = Some(index);
                    let mut child = *top;
                    child.resume = None;
                    child.pending_from = pending_from;
                    scan.frames.push(child);
                }
            } else if rule.action & CLEAR != 0 {
                let n = scan.frames.len();
                if n >= 2 {
                    let below = scan.frames.remove(n - 2);
                    let top = &mut scan.frames[n - 2];
                    top.pending_from = top.pending_from.min(below.pending_from);
                }
            } else if rule.action & CLEAR_ALL != 0 {
                let n = scan.frames.len();
                scan.frames.drain(..n.saturating_sub(1));
            } else if rule.action & MERGE != 0 {
                let n = scan.frames.len();
                if n >= 2 {
                    let child = scan.frames.remove(n - 1);
                    let below = &mut scan.frames[n - 2];
                    below.pos = child.pos;
                    below.len_bytes = child.len_bytes;
                    below.len_chars = child.len_chars;
                }
            }

            let Some(top) = scan.frames.last_mut() else {
                scan.in_token = false;
                return Step::Done(None);
            };
            if let Some(to) = rule.to {
                top.state = to;
            }

            if token.is_some() {
                top.pending_from = 0;
                scan.pending.clear();
                scan.in_token = false;
                return Step::Done(token);
            }
            if top.pos >= end && rule.action & RERUN == 0 {
                // PostgreSQL's parser stops here, token or not.
                scan.in_token = false;
                return Step::Done(None);
            }
            if rule.action & (RERUN | POP) != 0 {
                continue;
            }
            if let Some(c) = self.char_at(top.pos) {
                top.pos += c.len_utf8();
                top.len_bytes += c.len_utf8();
                top.len_chars += 1;
            }
        }
    }

    fn apply_hook(&self, scan: &mut Scan, hook: Hook) {
        let Some(top) = scan.frames.last_mut() else {
            return;
        };
        match hook {
            Hook::None => {}
            Hook::Tags => {
                let token = self.text.as_bytes().get(scan.token_start..).unwrap_or(&[]);
                let starts = |p: &str| {
                    token.len() >= p.len() && token[..p.len()].eq_ignore_ascii_case(p.as_bytes())
                };
                match top.len_chars {
                    8 if starts("</script") => scan.ignoring = false,
                    7 if starts("</style") => scan.ignoring = false,
                    7 if starts("<script") => scan.ignoring = true,
                    6 if starts("<style") => scan.ignoring = true,
                    _ => {}
                }
            }
            Hook::FullUrl => {
                scan.want_host = true;
                top.pos = top.pos.saturating_sub(top.len_bytes);
            }
            Hook::Hyphen => {
                top.pos = top.pos.saturating_sub(top.len_bytes);
            }
            Hook::SignedVersion => {
                top.pos = top.pos.saturating_sub(top.len_bytes);
                top.len_bytes = 0;
                top.len_chars = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (PostgreSQL tokid, token) pairs of `parse(text)`.
    fn ids(text: &str) -> Vec<(i32, &str)> {
        parse(text).iter().map(|t| (t.kind.id(), t.text)).collect()
    }

    #[test]
    fn asciiword_blank() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("The quick  brown fox."),
            vec![
                (1, "The"),
                (12, " "),
                (1, "quick"),
                (12, "  "),
                (1, "brown"),
                (12, " "),
                (1, "fox"),
                (12, ".")
            ]
        );
    }

    #[test]
    fn word() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("Café naïve ÜBER"),
            vec![(2, "Café"), (12, " "), (2, "naïve"), (12, " "), (2, "ÜBER")]
        );
    }

    #[test]
    fn numword() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("abc123 123abc a1b2"),
            vec![
                (3, "abc123"),
                (12, " "),
                (3, "123abc"),
                (12, " "),
                (3, "a1b2")
            ]
        );
    }

    #[test]
    fn asciihword_parts() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("state-of-the-art"),
            vec![
                (16, "state-of-the-art"),
                (11, "state"),
                (12, "-"),
                (11, "of"),
                (12, "-"),
                (11, "the"),
                (12, "-"),
                (11, "art")
            ]
        );
    }

    #[test]
    fn hword_parts() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("über-cool naïve-café"),
            vec![
                (17, "über-cool"),
                (10, "über"),
                (12, "-"),
                (11, "cool"),
                (12, " "),
                (17, "naïve-café"),
                (10, "naïve"),
                (12, "-"),
                (10, "café")
            ]
        );
    }

    #[test]
    fn numhword_parts() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("abc-123-def a1-b2 foo-bar-1.2.3"),
            vec![
                (1, "abc"),
                (21, "-123"),
                (12, "-"),
                (1, "def"),
                (12, " "),
                (15, "a1-b2"),
                (9, "a1"),
                (12, "-"),
                (9, "b2"),
                (12, " "),
                (16, "foo-bar"),
                (11, "foo"),
                (12, "-"),
                (11, "bar"),
                (12, "-"),
                (8, "1.2.3")
            ]
        );
    }

    #[test]
    fn email() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("john.doe@example.com, jane_doe@mail.example.org"),
            vec![
                (4, "john.doe@example.com"),
                (12, ", "),
                (4, "jane_doe@mail.example.org")
            ]
        );
    }

    #[test]
    fn protocol_url_host_path() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("ftp://ftp.example.com:21/pub/file.tar.gz"),
            vec![
                (14, "ftp://"),
                (5, "ftp.example.com:21/pub/file.tar.gz"),
                (6, "ftp.example.com:21"),
                (18, "/pub/file.tar.gz")
            ]
        );
    }

    #[test]
    fn url_query() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("foo-bar http://x.com/a?b=1"),
            vec![
                (16, "foo-bar"),
                (11, "foo"),
                (12, "-"),
                (11, "bar"),
                (12, " "),
                (14, "http://"),
                (5, "x.com/a?b=1"),
                (6, "x.com"),
                (18, "/a?b=1")
            ]
        );
    }

    #[test]
    fn host() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("www.example.com postgresql.org:5432"),
            vec![
                (6, "www.example.com"),
                (12, " "),
                (6, "postgresql.org:5432")
            ]
        );
    }

    #[test]
    fn file() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("/usr/local/bin ~/.bashrc ../src/main.rs a.txt"),
            vec![
                (19, "/usr/local/bin"),
                (12, " ~"),
                (19, "/.bashrc"),
                (12, " .."),
                (19, "/src/main.rs"),
                (12, " "),
                (6, "a.txt")
            ]
        );
    }

    #[test]
    fn sfloat() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("-1.5e10 1e5 2E-3"),
            vec![
                (7, "-1.5e10"),
                (12, " "),
                (7, "1e5"),
                (12, " "),
                (7, "2E-3")
            ]
        );
    }

    #[test]
    fn float() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("3.14 -2.5 .5"),
            vec![(20, "3.14"), (12, " "), (20, "-2.5"), (12, " ."), (22, "5")]
        );
    }

    #[test]
    fn int_uint() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("-42 +7 42 - 3"),
            vec![
                (21, "-42"),
                (12, " "),
                (21, "+7"),
                (12, " "),
                (22, "42"),
                (12, " "),
                (12, "- "),
                (22, "3")
            ]
        );
    }

    #[test]
    fn version() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("v1.2.3 8.3.1 -1.2.3"),
            vec![
                (19, "v1.2.3"),
                (12, " "),
                (8, "8.3.1"),
                (12, " "),
                (12, "-"),
                (8, "1.2.3")
            ]
        );
    }

    #[test]
    fn tag() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("<p class=\"x\">Hello</p><br/> <!-- c --> <?xml version='1.0'?>"),
            vec![
                (13, "<p class=\"x\">"),
                (1, "Hello"),
                (13, "</p>"),
                (13, "<br/>"),
                (12, " "),
                (13, "<!-- c -->"),
                (12, " "),
                (13, "<?xml version='1.0'?>")
            ]
        );
    }

    #[test]
    fn entity() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("&amp; &#x41; &#65; &bogus"),
            vec![
                (23, "&amp;"),
                (12, " "),
                (23, "&#x41;"),
                (12, " "),
                (23, "&#65;"),
                (12, " "),
                (12, "&"),
                (1, "bogus")
            ]
        );
    }

    #[test]
    fn script_ignored() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("<script>var x = 1 < 2;</script> y <STYLE>p{}</style>z"),
            vec![
                (13, "<script>"),
                (12, "var x = 1 "),
                (12, "< 2;"),
                (13, "</script>"),
                (12, " "),
                (1, "y"),
                (12, " "),
                (13, "<STYLE>"),
                (12, "p{}"),
                (13, "</style>"),
                (1, "z")
            ]
        );
    }

    #[test]
    fn unterminated_escape_stops() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(ids("x <a '\\y"), vec![(1, "x"), (12, " ")]);
    }

    #[test]
    fn non_ascii_digits_are_letters() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("٣٤ ０１ x٣"),
            vec![(2, "٣٤"), (12, " "), (2, "０１"), (12, " "), (2, "x٣")]
        );
    }

    #[test]
    fn scripts() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("中文字符 Ελληνικά Русский"),
            vec![
                (2, "中文字符"),
                (12, " "),
                (2, "Ελληνικά"),
                (12, " "),
                (2, "Русский")
            ]
        );
    }

    #[test]
    fn combining_mark() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("a\u{301}b e\u{301}-x"),
            vec![
                (2, "a\u{301}b"),
                (12, " "),
                (17, "e\u{301}-x"),
                (10, "e\u{301}"),
                (12, "-"),
                (11, "x")
            ]
        );
    }

    #[test]
    fn unicode_space_in_tag() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("<a\u{3000}b> <a\u{a0}b>"),
            vec![
                (13, "<a\u{3000}b>"),
                (12, " "),
                (12, "<"),
                (1, "a"),
                (12, "\u{a0}"),
                (1, "b"),
                (12, ">")
            ]
        );
    }

    #[test]
    fn nested_email() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("1a@1a@1a@b.cd"),
            vec![(3, "1a"), (12, "@"), (3, "1a"), (12, "@"), (4, "1a@b.cd")]
        );
    }

    #[test]
    fn punctuation_runs() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(
            ids("--- ... /// @@@ <<< ;;; a--b"),
            vec![
                (12, "-"),
                (12, "-"),
                (12, "- ... "),
                (12, "/"),
                (12, "/"),
                (12, "/ @@@ "),
                (12, "<"),
                (12, "<"),
                (12, "< ;;; "),
                (1, "a"),
                (12, "-"),
                (12, "-"),
                (1, "b")
            ]
        );
    }

    #[test]
    fn empty() {
        // Expected: PostgreSQL 15's ts_parse('default', ...).
        assert_eq!(ids(""), vec![]);
    }

    #[test]
    fn token_types_match_ts_token_type() {
        // Expected: PostgreSQL 15's ts_token_type('default').
        let expected: Vec<(i32, &str, &str)> = vec![
            (1, "asciiword", "Word, all ASCII"),
            (2, "word", "Word, all letters"),
            (3, "numword", "Word, letters and digits"),
            (4, "email", "Email address"),
            (5, "url", "URL"),
            (6, "host", "Host"),
            (7, "sfloat", "Scientific notation"),
            (8, "version", "Version number"),
            (
                9,
                "hword_numpart",
                "Hyphenated word part, letters and digits",
            ),
            (10, "hword_part", "Hyphenated word part, all letters"),
            (11, "hword_asciipart", "Hyphenated word part, all ASCII"),
            (12, "blank", "Space symbols"),
            (13, "tag", "XML tag"),
            (14, "protocol", "Protocol head"),
            (15, "numhword", "Hyphenated word, letters and digits"),
            (16, "asciihword", "Hyphenated word, all ASCII"),
            (17, "hword", "Hyphenated word, all letters"),
            (18, "url_path", "URL path"),
            (19, "file", "File or path name"),
            (20, "float", "Decimal notation"),
            (21, "int", "Signed integer"),
            (22, "uint", "Unsigned integer"),
            (23, "entity", "XML entity"),
        ];
        let got: Vec<(i32, &str, &str)> = TokenKind::all()
            .iter()
            .map(|k| (k.id(), k.alias(), k.description()))
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn every_kind_is_produced() {
        let text =
            "ab ж a1 x@y.com http://a.com/p b.org -1e5 1.2.3 a1-b ab-ж a-b 1 -1 /a/b 1.5 <b> &amp;";
        let mut seen: Vec<TokenKind> = parse(text).iter().map(|t| t.kind).collect();
        seen.sort_by_key(|k| k.id());
        seen.dedup();
        assert_eq!(seen, TokenKind::all());
    }

    #[test]
    fn adversarial_inputs_finish() {
        // Inputs on which PostgreSQL's automaton is quadratic or deeply recursive.
        for unit in [
            "a_", "<!--", "1a@", "a-", "-", "<", ".", "/", "@", "<a '", "a.b-", "ж-", "a@b.",
        ] {
            let text = unit.repeat(20_000);
            let tokens = parse(&text);
            assert!(!tokens.is_empty(), "{unit}");
            for t in &tokens {
                let start = t.text.as_ptr() as usize - text.as_ptr() as usize;
                assert!(start + t.text.len() <= text.len());
            }
        }
    }
}
