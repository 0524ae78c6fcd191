//! uuid and bytea: their text forms, PostgreSQL's `uuid_in`/`uuid_out` and
//! `byteain`/`byteaout`.
//!
//! Both are stored as their raw bytes in a text vector (`exec::vector::TextVec`): a
//! uuid's 16 bytes, a bytea's bytes. Byte order is each type's order (PostgreSQL
//! compares uuids with `memcmp` and byteas by `memcmp` then length), so comparison,
//! sorting, hashing and index keys work on the bytes as they do on text under the C
//! collation. Only the edges differ: reading text in, and writing it out — a uuid
//! as `8-4-4-4-12` lower-case hex, a bytea as `\x` and hex, or under
//! `bytea_output = 'escape'` as its printable bytes with the others in octal.

use crate::error::{Error, Result};

/// `uuid_in`: 32 hex digits, optionally in braces, with a hyphen allowed after any
/// group of four (PostgreSQL's string_to_uuid); nothing else, not even blanks.
pub fn parse_uuid(text: &str) -> Result<[u8; 16]> {
    let bad = || Error::invalid_text("uuid", text);
    let b = text.as_bytes();
    let mut at = 0;
    let braces = b.first() == Some(&b'{');
    if braces {
        at = 1;
    }
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        let (Some(&hi), Some(&lo)) = (b.get(at), b.get(at + 1)) else {
            return Err(bad());
        };
        let (Some(hi), Some(lo)) = (hex_digit(hi), hex_digit(lo)) else {
            return Err(bad());
        };
        *byte = hi << 4 | lo;
        at += 2;
        if b.get(at) == Some(&b'-') && i % 2 == 1 && i < 15 {
            at += 1;
        }
    }
    if braces {
        if b.get(at) != Some(&b'}') {
            return Err(bad());
        }
        at += 1;
    }
    if at != b.len() {
        return Err(bad());
    }
    Ok(out)
}

/// `uuid_out`: `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
pub fn write_uuid(out: &mut Vec<u8>, u: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (i, &b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push(b'-');
        }
        out.push(HEX[(b >> 4) as usize]);
        out.push(HEX[(b & 15) as usize]);
    }
}

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// `byteain`: `\x` (lower case only) and hex digits (pairs, blanks between pairs
/// allowed), or the
/// escape format (bytes as written, `\\` for a backslash, `\ooo` octal).
pub fn parse_bytea(text: &str) -> Result<Vec<u8>> {
    let b = text.as_bytes();
    if b.len() >= 2 && b[0] == b'\\' && b[1] == b'x' {
        return decode_hex(&b[2..]);
    }
    parse_escape(text)
}

/// The escape format alone (`decode(…, 'escape')`): bytes as written, `\\` for a
/// backslash, `\ooo` octal.
pub fn parse_escape(text: &str) -> Result<Vec<u8>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
            continue;
        }
        let octal = |k: usize, max: u8| b.get(i + k).filter(|&&c| (b'0'..=max).contains(&c));
        match (octal(1, b'3'), octal(2, b'7'), octal(3, b'7')) {
            (Some(&a), Some(&c), Some(&d)) => {
                out.push(((a - b'0') << 6) | ((c - b'0') << 3) | (d - b'0'));
                i += 4;
            }
            _ => return Err(Error::new("22P02", "invalid input syntax for type bytea")),
        }
    }
    Ok(out)
}

/// Hex digits in pairs, blanks allowed between pairs (PostgreSQL's hex_decode).
pub fn decode_hex(b: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(b.len() / 2);
    let mut i = 0;
    while i < b.len() {
        if matches!(b[i], b' ' | b'\n' | b'\t' | b'\r') {
            i += 1;
            continue;
        }
        let hi = hex_digit(b[i]).ok_or_else(|| invalid_hex_digit(&b[i..]))?;
        let Some(&next) = b.get(i + 1) else {
            return Err(Error::new(
                "22023",
                "invalid hexadecimal data: odd number of digits",
            ));
        };
        let lo = hex_digit(next).ok_or_else(|| invalid_hex_digit(&b[i + 1..]))?;
        out.push(hi << 4 | lo);
        i += 2;
    }
    Ok(out)
}

fn invalid_hex_digit(rest: &[u8]) -> Error {
    let c = std::str::from_utf8(rest)
        .ok()
        .and_then(|s| s.chars().next())
        .map_or_else(|| "?".to_string(), |c| c.to_string());
    Error::new("22023", format!("invalid hexadecimal digit: \"{c}\""))
}

/// `byteaout`: hex (`\x…`) or, `escape`, printable ASCII as is, a backslash doubled,
/// every other byte as `\ooo`.
pub fn write_bytea(out: &mut Vec<u8>, b: &[u8], escape: bool) {
    if !escape {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        out.reserve(2 + 2 * b.len());
        out.extend_from_slice(b"\\x");
        for &c in b {
            out.push(HEX[(c >> 4) as usize]);
            out.push(HEX[(c & 15) as usize]);
        }
        return;
    }
    for &c in b {
        match c {
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x20..=0x7e => out.push(c),
            _ => {
                out.push(b'\\');
                out.push(b'0' + (c >> 6));
                out.push(b'0' + ((c >> 3) & 7));
                out.push(b'0' + (c & 7));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_forms() {
        let canonical = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
        let want = parse_uuid(canonical).unwrap();
        for form in [
            "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
            "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
        ] {
            assert_eq!(parse_uuid(form).unwrap(), want, "{form}");
        }
        for bad in [
            "",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
            " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
            "a0eeb-c99-9c0b-4ef8-bb6d-6bb9bd380a11",
        ] {
            assert!(parse_uuid(bad).is_err(), "{bad}");
        }
        let mut out = Vec::new();
        write_uuid(&mut out, &want);
        assert_eq!(out, canonical.as_bytes());
    }

    #[test]
    fn bytea_forms() {
        assert_eq!(parse_bytea("\\xDEad be").unwrap(), vec![0xde, 0xad, 0xbe]);
        assert!(parse_bytea("\\xabc").is_err());
        assert!(parse_bytea("\\xag").is_err());
        assert_eq!(parse_bytea("a\\\\b\\001").unwrap(), b"a\\b\x01".to_vec());
        assert!(parse_bytea("\\9").is_err());
        assert!(parse_bytea("\\").is_err());
        let mut out = Vec::new();
        write_bytea(&mut out, b"a\\\x01\xff", true);
        assert_eq!(out, b"a\\\\\\001\\377".to_vec());
        out.clear();
        write_bytea(&mut out, b"\x01\xff", false);
        assert_eq!(out, b"\\x01ff".to_vec());
    }
}
