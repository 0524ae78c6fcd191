//! `to_char` for numbers: PostgreSQL's number templates (`formatting.c`, the NUM
//! half), in the C locale.
//!
//! The format is read into nodes (`9 0 . , D G S MI PL SG PR L RN TH V EEEE FM`,
//! anything else literal) while a description is gathered: digits before and after
//! the decimal point, where the first `0` is, which sign style is used
//! (`NUMDesc_prepare`, with its errors). The value is then printed to exactly the
//! format's digits (rounded; `#` fill when the integer part does not fit) and walked
//! alongside the nodes as `NUM_processor` walks them: leading blanks or zeros, the
//! sign where the style puts it, the decimal point, thousands separators only once a
//! digit is out, and fill mode dropping blanks and trailing zeros.

use super::Numeric;
use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Comma,
    Dec,
    Zero,
    Nine,
    B,
    C,
    D,
    E,
    Fm,
    G,
    L,
    Mi,
    Pl,
    Pr,
    RnUpper,
    RnLower,
    Sg,
    Sp,
    S,
    ThUpper,
    ThLower,
    V,
}

/// PostgreSQL's NUM_keywords, in its order (the first match wins).
const KEYWORDS: &[(&str, Key)] = &[
    (",", Key::Comma),
    (".", Key::Dec),
    ("0", Key::Zero),
    ("9", Key::Nine),
    ("B", Key::B),
    ("C", Key::C),
    ("D", Key::D),
    ("EEEE", Key::E),
    ("FM", Key::Fm),
    ("G", Key::G),
    ("L", Key::L),
    ("MI", Key::Mi),
    ("PL", Key::Pl),
    ("PR", Key::Pr),
    ("RN", Key::RnUpper),
    ("SG", Key::Sg),
    ("SP", Key::Sp),
    ("S", Key::S),
    ("TH", Key::ThUpper),
    ("V", Key::V),
    ("b", Key::B),
    ("c", Key::C),
    ("d", Key::D),
    ("eeee", Key::E),
    ("fm", Key::Fm),
    ("g", Key::G),
    ("l", Key::L),
    ("mi", Key::Mi),
    ("pl", Key::Pl),
    ("pr", Key::Pr),
    ("rn", Key::RnLower),
    ("sg", Key::Sg),
    ("sp", Key::Sp),
    ("s", Key::S),
    ("th", Key::ThLower),
    ("v", Key::V),
];

enum Node {
    Key(Key),
    Char(char),
}

#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum LSign {
    #[default]
    None,
    Pre,
    Post,
}

/// NUMDesc.
#[derive(Default)]
struct Desc {
    pre: i32,
    post: i32,
    lsign: LSign,
    pre_lsign_num: i32,
    multi: i32,
    zero_start: i32,
    zero_end: i32,
    decimal: bool,
    zero: bool,
    blank: bool,
    fillmode: bool,
    lsign_flag: bool,
    bracket: bool,
    minus: bool,
    plus: bool,
    roman: bool,
    multi_flag: bool,
    eeee: bool,
}

fn syntax(msg: &str) -> Error {
    Error::new("42601", msg.to_string())
}

/// Reads the format (parse_format with NUMDesc_prepare).
fn parse(format: &str) -> Result<(Vec<Node>, Desc)> {
    let mut nodes = Vec::new();
    let mut d = Desc::default();
    let mut rest = format;
    while !rest.is_empty() {
        if let Some((name, key)) = KEYWORDS.iter().find(|(k, _)| rest.starts_with(*k)) {
            rest = &rest[name.len()..];
            prepare(&mut d, *key)?;
            nodes.push(Node::Key(*key));
            continue;
        }
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        if c == '"' {
            let mut quoted = chars;
            loop {
                match quoted.next() {
                    None | Some('"') => break,
                    Some('\\') => {
                        let save = quoted.clone();
                        match quoted.next() {
                            Some(n) => nodes.push(Node::Char(n)),
                            None => {
                                quoted = save;
                                nodes.push(Node::Char('\\'));
                            }
                        }
                    }
                    Some(ch) => nodes.push(Node::Char(ch)),
                }
            }
            rest = quoted.as_str();
            continue;
        }
        if c == '\\' && rest[1..].starts_with('"') {
            nodes.push(Node::Char('"'));
            rest = &rest[2..];
            continue;
        }
        nodes.push(Node::Char(c));
        rest = chars.as_str();
    }
    Ok((nodes, d))
}

fn prepare(d: &mut Desc, key: Key) -> Result<()> {
    if d.eeee && key != Key::E {
        return Err(syntax("\"EEEE\" must be the last pattern used"));
    }
    match key {
        Key::Nine => {
            if d.bracket {
                return Err(syntax("\"9\" must be ahead of \"PR\""));
            }
            if d.multi_flag {
                d.multi += 1;
            } else if d.decimal {
                d.post += 1;
            } else {
                d.pre += 1;
            }
        }
        Key::Zero => {
            if d.bracket {
                return Err(syntax("\"0\" must be ahead of \"PR\""));
            }
            if !d.zero && !d.decimal {
                d.zero = true;
                d.zero_start = d.pre + 1;
            }
            if !d.decimal {
                d.pre += 1;
            } else {
                d.post += 1;
            }
            d.zero_end = d.pre + d.post;
        }
        Key::B => {
            if d.pre == 0 && d.post == 0 && !d.zero {
                d.blank = true;
            }
        }
        Key::D | Key::Dec => {
            if d.decimal {
                return Err(syntax("multiple decimal points"));
            }
            if d.multi_flag {
                return Err(syntax("cannot use \"V\" and decimal point together"));
            }
            d.decimal = true;
        }
        Key::Fm => d.fillmode = true,
        Key::S => {
            if d.lsign_flag {
                return Err(syntax("cannot use \"S\" twice"));
            }
            if d.plus || d.minus || d.bracket {
                return Err(syntax(
                    "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together",
                ));
            }
            if !d.decimal {
                d.lsign = LSign::Pre;
                d.pre_lsign_num = d.pre;
                d.lsign_flag = true;
            } else if d.lsign == LSign::None {
                d.lsign = LSign::Post;
                d.lsign_flag = true;
            }
        }
        Key::Mi => {
            if d.lsign_flag {
                return Err(syntax("cannot use \"S\" and \"MI\" together"));
            }
            d.minus = true;
        }
        Key::Pl => {
            if d.lsign_flag {
                return Err(syntax("cannot use \"S\" and \"PL\" together"));
            }
            d.plus = true;
        }
        Key::Sg => {
            if d.lsign_flag {
                return Err(syntax("cannot use \"S\" and \"SG\" together"));
            }
            d.minus = true;
            d.plus = true;
        }
        Key::Pr => {
            if d.lsign_flag || d.plus || d.minus {
                return Err(syntax(
                    "cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together",
                ));
            }
            d.bracket = true;
        }
        Key::RnUpper | Key::RnLower => d.roman = true,
        Key::V => {
            if d.decimal {
                return Err(syntax("cannot use \"V\" and decimal point together"));
            }
            d.multi_flag = true;
        }
        Key::E => {
            if d.eeee {
                return Err(syntax("cannot use \"EEEE\" twice"));
            }
            if d.blank
                || d.fillmode
                || d.lsign_flag
                || d.bracket
                || d.minus
                || d.plus
                || d.roman
                || d.multi_flag
            {
                return Err(
                    syntax("\"EEEE\" is incompatible with other formats").with_detail(
                        "\"EEEE\" may only be used together with digit and decimal point patterns.",
                    ),
                );
            }
            d.eeee = true;
        }
        Key::Comma | Key::C | Key::G | Key::L | Key::Sp | Key::ThUpper | Key::ThLower => {}
    }
    Ok(())
}

/// A number to format.
pub enum NumValue<'a> {
    /// smallint and integer (EEEE through float8, as int4_to_char).
    Int4(i32),
    /// bigint (EEEE through numeric, as int8_to_char).
    Int8(i64),
    Float4(f32),
    Float8(f64),
    Numeric(&'a Numeric),
}

/// Roman numerals for 1..=3999, else fifteen `#`.
fn roman(n: i64) -> String {
    if !(1..=3999).contains(&n) {
        return "#".repeat(15);
    }
    const ONES: [&str; 9] = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"];
    const TENS: [&str; 9] = ["X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"];
    const HUNDREDS: [&str; 9] = ["C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"];
    let mut out = "M".repeat((n / 1000) as usize);
    for (digit, table) in [
        ((n / 100) % 10, &HUNDREDS),
        ((n / 10) % 10, &TENS),
        (n % 10, &ONES),
    ] {
        if digit > 0 {
            out.push_str(table[(digit - 1) as usize]);
        }
    }
    out
}

/// `%+.*e` of C, the leading `+` swapped for a space.
fn sci_f64(v: f64, post: usize) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let s = format!("{v:.post$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if mant.starts_with('-') { "" } else { " " };
    format!(
        "{sign}{mant}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.unsigned_abs()
    )
}

/// numeric_out_sci: the exact value with one digit before the point, rounded to
/// `post` digits as numeric rounds (PostgreSQL keeps the exponent when rounding
/// reaches 10: `10.00e+00`).
fn sci_numeric(n: &Numeric, post: i32) -> Result<String> {
    let sign = if n.signum() < 0 { "-" } else { " " };
    let text = n.abs().to_text();
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let digits = format!("{int}{frac}");
    let Some(lead) = digits.bytes().position(|b| b != b'0') else {
        let frac = if post > 0 {
            format!(".{}", "0".repeat(post as usize))
        } else {
            String::new()
        };
        return Ok(format!(" 0{frac}e+00"));
    };
    let exp = int.len() as i32 - 1 - lead as i32;
    let significand = format!("{}.{}", &digits[lead..lead + 1], &digits[lead + 1..]);
    let rounded = Numeric::parse(&significand)?.round(post)?;
    Ok(format!(
        "{sign}{}e{}{:02}",
        rounded.to_text(),
        if exp < 0 { '-' } else { '+' },
        exp.unsigned_abs()
    ))
}

/// to_char(number, format).
pub fn to_char(value: NumValue, format: &str) -> Result<String> {
    if format.is_empty() {
        return Ok(String::new());
    }
    let (nodes, mut d) = parse(format)?;
    let mut out_pre_spaces = 0i32;
    let mut sign = '+';
    let number: String;
    if d.roman {
        let int = match &value {
            NumValue::Int4(v) => *v as i64,
            NumValue::Int8(v) => i32::try_from(*v).map(i64::from).unwrap_or(i32::MAX as i64),
            NumValue::Float4(f) => {
                let r = f.round_ties_even();
                if r.is_finite() && r >= i32::MIN as f32 && r < -(i32::MIN as f32) {
                    r as i64
                } else {
                    i32::MAX as i64
                }
            }
            NumValue::Float8(f) => {
                let r = f.round_ties_even();
                if r.is_finite() && r >= i32::MIN as f64 && r < -(i32::MIN as f64) {
                    r as i64
                } else {
                    i32::MAX as i64
                }
            }
            NumValue::Numeric(n) => n
                .to_i128_rounded()
                .and_then(|v| i32::try_from(v).ok())
                .unwrap_or(i32::MAX) as i64,
        };
        number = roman(int);
    } else if d.eeee {
        let post = d.post.max(0) as usize;
        let nan = |d: &Desc| {
            let mut s = "#".repeat((d.pre + d.post + 6) as usize).into_bytes();
            s[0] = b' ';
            if let Some(b) = s.get_mut((d.pre + 1) as usize) {
                *b = b'.';
            }
            String::from_utf8(s).unwrap_or_default()
        };
        number = match &value {
            NumValue::Int4(v) => sci_f64(*v as f64, post),
            NumValue::Int8(v) => sci_numeric(&Numeric::from_i64(*v), d.post)?,
            NumValue::Float4(f) if !f.is_finite() => nan(&d),
            NumValue::Float8(f) if !f.is_finite() => nan(&d),
            NumValue::Float4(f) => sci_f64(*f as f64, post),
            NumValue::Float8(f) => sci_f64(*f, post),
            NumValue::Numeric(n) => sci_numeric(n, d.post)?,
        };
        // EEEE prints the number as is.
        return Ok(number);
    } else {
        let multi = if d.multi_flag { d.multi } else { 0 };
        let orgnum: String = match &value {
            NumValue::Int4(v) => {
                let scaled = if multi > 0 {
                    v.wrapping_mul(10i32.wrapping_pow(multi as u32))
                } else {
                    *v
                };
                let mut s = scaled.to_string();
                if d.post > 0 {
                    s.push('.');
                    s.push_str(&"0".repeat(d.post as usize));
                }
                s
            }
            NumValue::Int8(v) => {
                let scaled = if multi > 0 {
                    let factor = 10i64.checked_pow(multi as u32).unwrap_or(i64::MAX);
                    v.checked_mul(factor)
                        .ok_or_else(|| Error::numeric_out_of_range("bigint out of range"))?
                } else {
                    *v
                };
                let mut s = scaled.to_string();
                if d.post > 0 {
                    s.push('.');
                    s.push_str(&"0".repeat(d.post as usize));
                }
                s
            }
            NumValue::Float4(f) => {
                let v = if multi > 0 {
                    *f * 10f32.powi(multi)
                } else {
                    *f
                };
                float_text(v as f64, &mut d, 6)
            }
            NumValue::Float8(f) => {
                let v = if multi > 0 {
                    *f * 10f64.powi(multi)
                } else {
                    *f
                };
                float_text(v, &mut d, 15)
            }
            // (An infinity overflows every format below.)
            NumValue::Numeric(n) => {
                let scaled = if multi > 0 {
                    n.mul(&Numeric::from_i64(10).power(&Numeric::from_i64(multi as i64))?)?
                } else {
                    (*n).clone()
                };
                scaled.round(d.post)?.to_text()
            }
        };
        if multi > 0 {
            d.pre += multi;
        }
        let digits = match orgnum.strip_prefix('-') {
            Some(rest) => {
                sign = '-';
                rest.to_string()
            }
            None => orgnum,
        };
        let pre_len = digits.find('.').unwrap_or(digits.len()) as i32;
        if pre_len < d.pre {
            out_pre_spaces = d.pre - pre_len;
            number = digits;
        } else if pre_len > d.pre {
            let mut s = "#".repeat((d.pre + d.post + 1) as usize).into_bytes();
            s[d.pre as usize] = b'.';
            number = String::from_utf8(s).unwrap_or_default();
        } else {
            number = digits;
        }
    }
    Ok(process(
        &nodes,
        &mut d,
        number.as_bytes(),
        out_pre_spaces,
        sign,
    ))
}

/// `%.*f` for a float, with the digits after the point cut to what the type holds
/// (FLT_DIG / DBL_DIG).
fn float_text(v: f64, d: &mut Desc, digits_max: i32) -> String {
    if v.is_infinite() {
        let digits = "9".repeat(d.pre.max(0) as usize + 1);
        return if v < 0.0 {
            format!("-{digits}")
        } else {
            digits
        };
    }
    let whole = format!("{:.0}", v.abs());
    let pre_len = whole.len() as i32;
    if pre_len >= digits_max {
        d.post = 0;
    } else if pre_len + d.post > digits_max {
        d.post = digits_max - pre_len;
    }
    format!("{:.*}", d.post.max(0) as usize, v)
}

/// The processor's state (NUMProc), for to_char.
struct Proc<'a> {
    sign: char,
    sign_wrote: bool,
    num_count: i32,
    num_in: bool,
    num_curr: i32,
    out_pre_spaces: i32,
    number: &'a [u8],
    number_p: usize,
    last_relevant: Option<usize>,
    out: Vec<u8>,
}

fn process(nodes: &[Node], d: &mut Desc, number: &[u8], out_pre_spaces: i32, sign: char) -> String {
    if d.zero_start > 0 {
        d.zero_start -= 1;
    }
    let mut np = Proc {
        sign,
        sign_wrote: false,
        num_count: 0,
        num_in: false,
        num_curr: 0,
        out_pre_spaces,
        number,
        number_p: 0,
        last_relevant: None,
        out: Vec::with_capacity(nodes.len() * 2),
    };
    if d.roman {
        d.lsign = LSign::None;
        d.pre_lsign_num = 0;
        d.post = 0;
        d.pre = 0;
        np.out_pre_spaces = 0;
        np.sign = '\0';
        let fill = d.fillmode;
        *d = Desc {
            fillmode: fill,
            roman: true,
            ..Desc::default()
        };
    }
    if d.plus || d.minus {
        np.sign_wrote = !d.plus || d.minus;
    } else {
        if np.sign != '-' && d.fillmode {
            d.bracket = false;
        }
        np.sign_wrote = np.sign == '+' && d.fillmode && !d.lsign_flag;
        if d.lsign == LSign::Pre && d.pre == d.pre_lsign_num {
            d.lsign = LSign::Post;
        }
    }
    np.num_count = d.post + d.pre - 1;
    if d.fillmode && d.decimal {
        np.last_relevant = last_relevant_decnum(number);
        if let Some(lr) = np.last_relevant
            && d.zero_end > np.out_pre_spaces
        {
            let last_zero =
                ((number.len() as i32 - 1).min(d.zero_end - np.out_pre_spaces)) as usize;
            if lr < last_zero {
                np.last_relevant = Some(last_zero);
            }
        }
    }
    if !np.sign_wrote && np.out_pre_spaces == 0 {
        np.num_count += 1;
    }
    for node in nodes {
        let key = match node {
            Node::Char(c) => {
                let mut buf = [0u8; 4];
                np.out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                continue;
            }
            Node::Key(k) => *k,
        };
        match key {
            Key::Nine | Key::Zero | Key::Dec | Key::D => numpart(&mut np, d, key),
            Key::Comma | Key::G => {
                if !np.num_in {
                    if !d.fillmode {
                        np.out.push(b' ');
                    }
                } else {
                    np.out.push(b',');
                }
            }
            Key::L => np.out.push(b' '),
            Key::RnUpper | Key::RnLower => {
                let r = std::str::from_utf8(&np.number[np.number_p..]).unwrap_or("");
                let r = if key == Key::RnLower {
                    r.to_ascii_lowercase()
                } else {
                    r.to_string()
                };
                if d.fillmode {
                    np.out.extend_from_slice(r.as_bytes());
                } else {
                    np.out.extend_from_slice(format!("{r:>15}").as_bytes());
                }
            }
            Key::ThUpper | Key::ThLower => {
                if d.roman || np.number.first() == Some(&b'#') || np.sign == '-' || d.decimal {
                    continue;
                }
                let suffix = ordinal(np.number, key == Key::ThUpper);
                np.out.extend_from_slice(suffix.as_bytes());
            }
            Key::Mi => {
                if np.sign == '-' {
                    np.out.push(b'-');
                } else if !d.fillmode {
                    np.out.push(b' ');
                }
            }
            Key::Pl => {
                if np.sign == '+' {
                    np.out.push(b'+');
                } else if !d.fillmode {
                    np.out.push(b' ');
                }
            }
            Key::Sg => np.out.push(np.sign as u8),
            _ => {}
        }
    }
    // A NUL written into the output ends it, as in PostgreSQL's C string.
    if let Some(end) = np.out.iter().position(|&b| b == 0) {
        np.out.truncate(end);
    }
    String::from_utf8_lossy(&np.out).into_owned()
}

fn ordinal(num: &[u8], upper: bool) -> &'static str {
    let last = match num.last() {
        Some(_) if num.len() > 1 && num[num.len() - 2] == b'1' => b'0',
        Some(&c) => c,
        None => b'0',
    };
    match (last, upper) {
        (b'1', true) => "ST",
        (b'1', false) => "st",
        (b'2', true) => "ND",
        (b'2', false) => "nd",
        (b'3', true) => "RD",
        (b'3', false) => "rd",
        (_, true) => "TH",
        (_, false) => "th",
    }
}

/// The position of the last digit after the point that is not 0 (the point itself
/// when all are), or None without a point.
fn last_relevant_decnum(num: &[u8]) -> Option<usize> {
    let dot = num.iter().position(|&b| b == b'.')?;
    let mut result = dot;
    for (i, &b) in num.iter().enumerate().skip(dot + 1) {
        if b != b'0' {
            result = i;
        }
    }
    Some(result)
}

/// NUM_numpart_to_char.
fn numpart(np: &mut Proc, d: &Desc, id: Key) {
    if d.roman {
        return;
    }
    np.num_in = false;
    let cur = |np: &Proc| np.number.get(np.number_p).copied().unwrap_or(0);
    let predec_space =
        |np: &Proc| !d.zero && np.number_p == 0 && np.number.first() == Some(&b'0') && d.post != 0;
    let last_is_dot = |np: &Proc| {
        np.last_relevant
            .is_some_and(|i| np.number.get(i) == Some(&b'.'))
    };
    if !np.sign_wrote
        && (np.num_curr >= np.out_pre_spaces || (d.zero && d.zero_start == np.num_curr))
        && (!predec_space(np) || last_is_dot(np))
    {
        if d.lsign_flag {
            if d.lsign == LSign::Pre {
                np.out.push(if np.sign == '-' { b'-' } else { b'+' });
                np.sign_wrote = true;
            }
        } else if d.bracket {
            np.out.push(if np.sign == '+' { b' ' } else { b'<' });
            np.sign_wrote = true;
        } else if np.sign == '+' {
            if !d.fillmode {
                np.out.push(b' ');
            }
            np.sign_wrote = true;
        } else if np.sign == '-' {
            np.out.push(b'-');
            np.sign_wrote = true;
        }
    }
    if matches!(id, Key::Nine | Key::Zero | Key::D | Key::Dec) {
        if np.num_curr < np.out_pre_spaces && (d.zero_start > np.num_curr || !d.zero) {
            if !d.fillmode {
                np.out.push(b' ');
            }
        } else if d.zero && np.num_curr < np.out_pre_spaces && d.zero_start <= np.num_curr {
            np.out.push(b'0');
            np.num_in = true;
        } else {
            if cur(np) == b'.' {
                if !last_is_dot(np) || d.fillmode {
                    np.out.push(b'.');
                }
            } else if np.last_relevant.is_some_and(|lr| np.number_p > lr) && id != Key::Zero {
            } else if predec_space(np) {
                if !d.fillmode {
                    np.out.push(b' ');
                } else if last_is_dot(np) {
                    np.out.push(b'0');
                }
            } else {
                // Past the number's end PostgreSQL writes its terminating NUL, which
                // ends the output there (`process` cuts at it).
                np.out
                    .push(np.number.get(np.number_p).copied().unwrap_or(0));
                np.num_in = true;
            }
            if np.number_p < np.number.len() {
                np.number_p += 1;
            }
        }
        let mut end = np.num_count
            + if np.out_pre_spaces != 0 { 1 } else { 0 }
            + if d.decimal { 1 } else { 0 };
        if np.last_relevant.is_some_and(|lr| lr == np.number_p) {
            end = np.num_curr;
        }
        if np.num_curr + 1 == end {
            if np.sign_wrote && d.bracket {
                np.out.push(if np.sign == '+' { b' ' } else { b'>' });
            } else if d.lsign_flag && d.lsign == LSign::Post {
                np.out.push(if np.sign == '-' { b'-' } else { b'+' });
            }
        }
    }
    np.num_curr += 1;
}

/// to_number(text, format): the number the text spells, read against the format as
/// NUM_processor reads it (one digit per `9` / `0`, signs where the format allows,
/// separators skipped), then typed numeric(pre + post, post) and scaled down by `V`.
/// None for an empty format.
pub fn to_number(input: &str, format: &str) -> Result<Option<Numeric>> {
    if format.is_empty() {
        return Ok(None);
    }
    let (nodes, d) = parse(format)?;
    if d.roman {
        return Err(Error::new("0A000", "\"RN\" not supported for input"));
    }
    if d.eeee {
        return Err(Error::new("0A000", "\"EEEE\" not supported for input"));
    }
    let inp = input.as_bytes();
    let mut at = 0usize;
    let mut sign = b' ';
    let mut digits: Vec<u8> = Vec::new();
    let (mut read_pre, mut read_post, mut read_dec) = (0, 0, false);
    let data_char = |b: u8| b"0123456789.,+-".contains(&b);
    let eat_non_data = |at: &mut usize, n: usize| {
        for _ in 0..n {
            match inp.get(*at) {
                None => break,
                Some(&b) if data_char(b) => break,
                Some(_) => *at += char_len_at(inp, *at),
            }
        }
    };
    for node in &nodes {
        if at >= inp.len() {
            break;
        }
        let key = match node {
            Node::Char(_) => {
                at += char_len_at(inp, at);
                continue;
            }
            Node::Key(k) => *k,
        };
        match key {
            Key::Nine | Key::Zero | Key::Dec | Key::D => {
                // NUM_numpart_from_char; whatever it does, the processor then moves
                // past one character.
                'part: {
                    if inp.get(at) == Some(&b' ') {
                        at += 1;
                    }
                    if at >= inp.len() {
                        break 'part;
                    }
                    if sign == b' '
                        && matches!(key, Key::Nine | Key::Zero)
                        && read_pre + read_post == 0
                    {
                        let c = inp[at];
                        if c == b'-' || (d.bracket && c == b'<') {
                            sign = b'-';
                            at += 1;
                        } else if c == b'+' {
                            sign = b'+';
                            at += 1;
                        }
                    }
                    if at >= inp.len() {
                        break 'part;
                    }
                    let mut isread = false;
                    let c = inp[at];
                    if c.is_ascii_digit() {
                        if read_dec && read_post == d.post {
                            break 'part;
                        }
                        digits.push(c);
                        if read_dec {
                            read_post += 1;
                        } else {
                            read_pre += 1;
                        }
                        isread = true;
                    } else if d.decimal && !read_dec && c == b'.' {
                        digits.push(b'.');
                        read_dec = true;
                        isread = true;
                    }
                    if sign == b' ' && read_pre + read_post > 0 {
                        if d.lsign_flag
                            && isread
                            && at + 1 < inp.len()
                            && !inp[at + 1].is_ascii_digit()
                        {
                            if matches!(inp[at + 1], b'-' | b'+') {
                                sign = inp[at + 1];
                                at += 1;
                            }
                        } else if !isread
                            && !d.lsign_flag
                            && (d.plus || d.minus)
                            && (c == b'-' || c == b'+')
                        {
                            sign = c;
                        }
                    }
                }
                at += 1;
            }
            Key::Comma => {
                if d.fillmode {
                    continue;
                }
                if inp.get(at) == Some(&b',') {
                    at += 1;
                }
            }
            Key::G => {
                if d.fillmode {
                    continue;
                }
                if inp.get(at) == Some(&b',') {
                    at += 1;
                }
            }
            Key::L => eat_non_data(&mut at, 1),
            Key::ThUpper | Key::ThLower => eat_non_data(&mut at, 2),
            Key::Mi | Key::Pl | Key::Sg => {
                let c = inp[at];
                let takes = match key {
                    Key::Mi => c == b'-',
                    Key::Pl => c == b'+',
                    _ => c == b'-' || c == b'+',
                };
                if takes {
                    sign = c;
                    at += 1;
                } else {
                    eat_non_data(&mut at, 1);
                }
            }
            _ => {}
        }
    }
    if digits.last() == Some(&b'.') {
        digits.pop();
    }
    let mut text = String::new();
    if sign == b'-' {
        text.push('-');
    }
    text.push_str(std::str::from_utf8(&digits).unwrap_or(""));
    if digits.is_empty() {
        return Err(Error::new(
            "22P02",
            format!(
                "invalid input syntax for type numeric: \"{}\"",
                if sign == b'-' { "-" } else { " " }
            ),
        ));
    }
    let n = Numeric::parse(&text)?;
    let precision = d.pre + d.multi + read_post;
    let n = n.apply_typmod(precision.max(1), read_post)?;
    Ok(Some(if d.multi_flag && d.multi > 0 {
        n.mul(&Numeric::from_i64(10).power(&Numeric::from_i64(-(d.multi as i64)))?)?
    } else {
        n
    }))
}

fn char_len_at(s: &[u8], at: usize) -> usize {
    match s.get(at) {
        None => 0,
        Some(&b) if b < 0x80 => 1,
        Some(&b) if b >= 0xF0 => 4,
        Some(&b) if b >= 0xE0 => 3,
        Some(_) => 2,
    }
}
