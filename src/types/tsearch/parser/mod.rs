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

mod classes;

use classes::*;

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
