//! COPY's options: the generic `(name value, …)` list as written, and their validation
//! into [`CopyOptions`] with PostgreSQL's checks and messages (its `ProcessCopyOptions`:
//! each option at most once, then the cross-checks in PostgreSQL's order).

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Csv,
    Binary,
}

impl Format {
    /// The overall format code of CopyInResponse / CopyOutResponse.
    pub fn wire_code(self) -> i8 {
        match self {
            Format::Binary => 1,
            _ => 0,
        }
    }
}

/// HEADER: none, a line to write or skip, or (COPY FROM) a line whose names must
/// match the columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    No,
    Yes,
    Match,
}

/// An option's argument as written.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionArg {
    /// Nothing after the name.
    None,
    /// A word, a quoted identifier or a string constant.
    Text(String),
    /// A number as written.
    Number(String),
    /// `*`.
    Star,
    /// `(name, …)`.
    List(Vec<String>),
}

/// One option of the generic list, with the 1-based character position of its name
/// in the statement (errors PostgreSQL places there carry it).
#[derive(Clone, Debug)]
pub struct RawOption {
    pub name: String,
    pub arg: OptionArg,
    pub position: Option<u32>,
}

/// FORCE_QUOTE: none, every column (`*`), or the named ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum ForceQuote {
    #[default]
    None,
    All,
    Columns(Vec<String>),
}

/// The validated options of one COPY.
#[derive(Clone, Debug)]
pub struct CopyOptions {
    pub format: Format,
    pub delimiter: u8,
    /// The text standing for NULL (`\N` in text format, empty in csv).
    pub null: String,
    pub header: Header,
    /// CSV only.
    pub quote: u8,
    /// CSV only; the quote character unless given.
    pub escape: u8,
    pub force_quote: ForceQuote,
    pub force_not_null: Vec<String>,
    pub force_null: Vec<String>,
    pub freeze: bool,
}

fn conflicting(o: &RawOption) -> Error {
    let e = Error::syntax("conflicting or redundant options");
    match o.position {
        Some(p) => e.with_position(p),
        None => e,
    }
}

/// PostgreSQL's defGetString: the argument as text, or "<name> requires a parameter".
fn arg_text(o: &RawOption) -> Result<String> {
    match &o.arg {
        OptionArg::None => Err(Error::syntax(format!("{} requires a parameter", o.name))),
        OptionArg::Text(s) | OptionArg::Number(s) => Ok(s.clone()),
        OptionArg::Star => Ok("*".into()),
        OptionArg::List(_) => Err(Error::syntax(format!("{} requires a parameter", o.name))),
    }
}

/// PostgreSQL's defGetBoolean (`header` adds "match").
fn arg_bool(o: &RawOption, what: &str) -> Result<Option<bool>> {
    let text = match &o.arg {
        OptionArg::None => return Ok(Some(true)),
        OptionArg::Number(n) if n == "0" => return Ok(Some(false)),
        OptionArg::Number(n) if n == "1" => return Ok(Some(true)),
        OptionArg::Number(_) | OptionArg::List(_) | OptionArg::Star => None,
        OptionArg::Text(s) => Some(s.to_ascii_lowercase()),
    };
    match text.as_deref() {
        Some("true" | "on") => Ok(Some(true)),
        Some("false" | "off") => Ok(Some(false)),
        _ => Err(Error::syntax(format!("{} requires a {what}", o.name))),
    }
}

fn column_list(o: &RawOption) -> Result<Vec<String>> {
    match &o.arg {
        OptionArg::List(cols) => Ok(cols.clone()),
        _ => {
            let e = Error::new(
                "22023",
                format!(
                    "argument to option \"{}\" must be a list of column names",
                    o.name
                ),
            );
            Err(match o.position {
                Some(p) => e.with_position(p),
                None => e,
            })
        }
    }
}

/// Encoding names PostgreSQL knows, normalized as its `pg_char_to_encoding` compares
/// them (lower case, letters and digits only).
const ENCODINGS: &[&str] = &[
    "abc",
    "alt",
    "big5",
    "euccn",
    "eucjis2004",
    "eucjp",
    "euckr",
    "euctw",
    "gb18030",
    "gbk",
    "iso88591",
    "iso885910",
    "iso885913",
    "iso885914",
    "iso885915",
    "iso885916",
    "iso88592",
    "iso88593",
    "iso88594",
    "iso88595",
    "iso88596",
    "iso88597",
    "iso88598",
    "iso88599",
    "johab",
    "koi8",
    "koi8r",
    "koi8u",
    "latin1",
    "latin10",
    "latin2",
    "latin3",
    "latin4",
    "latin5",
    "latin6",
    "latin7",
    "latin8",
    "latin9",
    "mskanji",
    "muleinternal",
    "shiftjis",
    "shiftjis2004",
    "sjis",
    "sqlascii",
    "tcvn",
    "tcvn5712",
    "uhc",
    "unicode",
    "utf8",
    "vscii",
    "win",
    "win1250",
    "win1251",
    "win1252",
    "win1253",
    "win1254",
    "win1255",
    "win1256",
    "win1257",
    "win1258",
    "win866",
    "win874",
    "win932",
    "win936",
    "win949",
    "win950",
    "windows1250",
    "windows1251",
    "windows1252",
    "windows1253",
    "windows1254",
    "windows1255",
    "windows1256",
    "windows1257",
    "windows1258",
    "windows866",
    "windows874",
    "windows932",
    "windows936",
    "windows949",
    "windows950",
];

fn check_encoding(o: &RawOption) -> Result<()> {
    let name = arg_text(o)?;
    let norm: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if !ENCODINGS.contains(&norm.as_str()) {
        let e = Error::new(
            "22023",
            format!(
                "argument to option \"{}\" must be a valid encoding name",
                o.name
            ),
        );
        return Err(match o.position {
            Some(p) => e.with_position(p),
            None => e,
        });
    }
    if !matches!(norm.as_str(), "utf8" | "unicode" | "sqlascii") {
        return Err(Error::feature_not_supported(format!(
            "COPY with ENCODING '{name}' (kiln's data is UTF8)"
        )));
    }
    Ok(())
}

/// Validates `raw` for a COPY FROM (`is_from`) or COPY TO, as PostgreSQL 15 does.
pub fn process(raw: &[RawOption], is_from: bool) -> Result<CopyOptions> {
    let mut format: Option<Format> = None;
    let mut freeze: Option<bool> = None;
    let mut delimiter: Option<String> = None;
    let mut null: Option<String> = None;
    let mut header: Option<Header> = None;
    let mut quote: Option<String> = None;
    let mut escape: Option<String> = None;
    let mut force_quote: Option<ForceQuote> = None;
    let mut force_not_null: Option<Vec<String>> = None;
    let mut force_null: Option<Vec<String>> = None;
    let mut encoding = false;
    for o in raw {
        match o.name.as_str() {
            "format" => {
                if format.is_some() {
                    return Err(conflicting(o));
                }
                let f = arg_text(o)?;
                format = Some(match f.as_str() {
                    "text" => Format::Text,
                    "csv" => Format::Csv,
                    "binary" => Format::Binary,
                    _ => {
                        let e = Error::new("22023", format!("COPY format \"{f}\" not recognized"));
                        return Err(match o.position {
                            Some(p) => e.with_position(p),
                            None => e,
                        });
                    }
                });
            }
            "freeze" => {
                if freeze.is_some() {
                    return Err(conflicting(o));
                }
                freeze = arg_bool(o, "Boolean value")?;
            }
            "delimiter" => {
                if delimiter.is_some() {
                    return Err(conflicting(o));
                }
                delimiter = Some(arg_text(o)?);
            }
            "null" => {
                if null.is_some() {
                    return Err(conflicting(o));
                }
                null = Some(arg_text(o)?);
            }
            "header" => {
                if header.is_some() {
                    return Err(conflicting(o));
                }
                let is_match =
                    matches!(&o.arg, OptionArg::Text(s) if s.eq_ignore_ascii_case("match"));
                header = Some(if is_match {
                    if !is_from {
                        return Err(Error::new(
                            "0A000",
                            "cannot use \"match\" with HEADER in COPY TO",
                        ));
                    }
                    Header::Match
                } else {
                    match arg_bool(o, "Boolean value or \"match\"")? {
                        Some(true) => Header::Yes,
                        _ => Header::No,
                    }
                });
            }
            "quote" => {
                if quote.is_some() {
                    return Err(conflicting(o));
                }
                quote = Some(arg_text(o)?);
            }
            "escape" => {
                if escape.is_some() {
                    return Err(conflicting(o));
                }
                escape = Some(arg_text(o)?);
            }
            "force_quote" => {
                if force_quote.is_some() {
                    return Err(conflicting(o));
                }
                force_quote = Some(match &o.arg {
                    OptionArg::Star => ForceQuote::All,
                    _ => ForceQuote::Columns(column_list(o)?),
                });
            }
            "force_not_null" => {
                if force_not_null.is_some() {
                    return Err(conflicting(o));
                }
                force_not_null = Some(column_list(o)?);
            }
            "force_null" => {
                if force_null.is_some() {
                    return Err(conflicting(o));
                }
                force_null = Some(column_list(o)?);
            }
            "encoding" => {
                if encoding {
                    return Err(conflicting(o));
                }
                encoding = true;
                check_encoding(o)?;
            }
            other => {
                let e = Error::syntax(format!("option \"{other}\" not recognized"));
                return Err(match o.position {
                    Some(p) => e.with_position(p),
                    None => e,
                });
            }
        }
    }
    let format = format.unwrap_or(Format::Text);
    let csv = format == Format::Csv;
    let binary = format == Format::Binary;
    if binary && delimiter.is_some() {
        return Err(Error::syntax("cannot specify DELIMITER in BINARY mode"));
    }
    if binary && null.is_some() {
        return Err(Error::syntax("cannot specify NULL in BINARY mode"));
    }
    let delimiter = delimiter.unwrap_or_else(|| if csv { ",".into() } else { "\t".into() });
    let null = null.unwrap_or_else(|| if csv { String::new() } else { "\\N".into() });
    let quote_given = quote.is_some();
    let escape_given = escape.is_some();
    let quote = quote.unwrap_or_else(|| "\"".into());
    let escape = escape.unwrap_or_else(|| quote.clone());
    let unsupported = |m: &str| Err(Error::new("0A000", m));
    let invalid = |m: String| Err(Error::new("22023", m));
    if delimiter.len() != 1 {
        return unsupported("COPY delimiter must be a single one-byte character");
    }
    let delim = delimiter.as_bytes()[0];
    if delim == b'\n' || delim == b'\r' {
        return invalid("COPY delimiter cannot be newline or carriage return".into());
    }
    if null.contains(['\r', '\n']) {
        return invalid("COPY null representation cannot use newline or carriage return".into());
    }
    if !csv && b"\\.abcdefghijklmnopqrstuvwxyz0123456789".contains(&delim) {
        return invalid(format!("COPY delimiter cannot be \"{delimiter}\""));
    }
    let header = header.unwrap_or(Header::No);
    if binary && header != Header::No {
        return unsupported("cannot specify HEADER in BINARY mode");
    }
    if !csv && quote_given {
        return unsupported("COPY quote available only in CSV mode");
    }
    if csv && quote.len() != 1 {
        return unsupported("COPY quote must be a single one-byte character");
    }
    if csv && delim == quote.as_bytes()[0] {
        return invalid("COPY delimiter and quote must be different".into());
    }
    if !csv && escape_given {
        return unsupported("COPY escape available only in CSV mode");
    }
    if csv && escape.len() != 1 {
        return unsupported("COPY escape must be a single one-byte character");
    }
    if !csv && force_quote.is_some() {
        return unsupported("COPY force quote available only in CSV mode");
    }
    if force_quote.is_some() && is_from {
        return unsupported("COPY force quote only available using COPY TO");
    }
    if !csv && force_not_null.is_some() {
        return unsupported("COPY force not null available only in CSV mode");
    }
    if force_not_null.is_some() && !is_from {
        return unsupported("COPY force not null only available using COPY FROM");
    }
    if !csv && force_null.is_some() {
        return unsupported("COPY force null available only in CSV mode");
    }
    if force_null.is_some() && !is_from {
        return unsupported("COPY force null only available using COPY FROM");
    }
    if null.as_bytes().contains(&delim) {
        return unsupported("COPY delimiter must not appear in the NULL specification");
    }
    if csv && null.as_bytes().contains(&quote.as_bytes()[0]) {
        return unsupported("CSV quote character must not appear in the NULL specification");
    }
    Ok(CopyOptions {
        format,
        delimiter: delim,
        null,
        header,
        quote: quote.as_bytes().first().copied().unwrap_or(b'"'),
        escape: escape.as_bytes().first().copied().unwrap_or(b'"'),
        force_quote: force_quote.unwrap_or_default(),
        force_not_null: force_not_null.unwrap_or_default(),
        force_null: force_null.unwrap_or_default(),
        freeze: freeze.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(name: &str, arg: OptionArg) -> RawOption {
        RawOption {
            name: name.into(),
            arg,
            position: None,
        }
    }

    fn text(s: &str) -> OptionArg {
        OptionArg::Text(s.into())
    }

    #[test]
    fn defaults_follow_the_format() {
        let o = process(&[], true).unwrap();
        assert_eq!(
            (o.format, o.delimiter, o.null.as_str()),
            (Format::Text, b'\t', "\\N")
        );
        let o = process(&[opt("format", text("csv"))], false).unwrap();
        assert_eq!(
            (o.delimiter, o.null.as_str(), o.quote, o.escape),
            (b',', "", b'"', b'"')
        );
        let o = process(
            &[opt("format", text("csv")), opt("quote", text("'"))],
            false,
        )
        .unwrap();
        assert_eq!(o.escape, b'\'');
    }

    #[test]
    fn postgres_checks_in_postgres_order() {
        let err = |opts: &[RawOption], from: bool| {
            let e = process(opts, from).unwrap_err();
            format!("{} {}", e.code, e.message)
        };
        assert_eq!(
            err(
                &[opt("format", text("csv")), opt("format", text("text"))],
                true
            ),
            "42601 conflicting or redundant options"
        );
        assert_eq!(
            err(&[opt("delimiter", text("ab"))], true),
            "0A000 COPY delimiter must be a single one-byte character"
        );
        assert_eq!(
            err(&[opt("delimiter", text("a"))], true),
            "22023 COPY delimiter cannot be \"a\""
        );
        assert_eq!(
            err(
                &[opt("format", text("binary")), opt("null", text("x"))],
                true
            ),
            "42601 cannot specify NULL in BINARY mode"
        );
        assert_eq!(
            err(&[opt("quote", text("\""))], true),
            "0A000 COPY quote available only in CSV mode"
        );
        assert_eq!(
            err(
                &[
                    opt("format", text("csv")),
                    opt("force_quote", OptionArg::Star)
                ],
                true
            ),
            "0A000 COPY force quote only available using COPY TO"
        );
        assert_eq!(
            err(
                &[
                    opt("format", text("csv")),
                    opt("force_not_null", OptionArg::Star)
                ],
                true
            ),
            "22023 argument to option \"force_not_null\" must be a list of column names"
        );
        assert_eq!(
            err(&[opt("header", OptionArg::Number("2".into()))], true),
            "42601 header requires a Boolean value or \"match\""
        );
        assert_eq!(
            err(&[opt("header", text("match"))], false),
            "0A000 cannot use \"match\" with HEADER in COPY TO"
        );
        assert_eq!(
            err(&[opt("null", text("a\tb"))], true),
            "0A000 COPY delimiter must not appear in the NULL specification"
        );
        assert_eq!(
            err(&[opt("bogus", OptionArg::None)], true),
            "42601 option \"bogus\" not recognized"
        );
        assert_eq!(
            err(&[opt("format", OptionArg::None)], true),
            "42601 format requires a parameter"
        );
    }
}
