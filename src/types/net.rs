//! The network types: `inet`, `cidr`, `macaddr`, `macaddr8` — their text forms,
//! stored forms and operators, as PostgreSQL's `network.c` and `mac.c` have them.
//!
//! An inet or cidr is stored as bytes whose byte order is PostgreSQL's order
//! (`network_cmp`: family, then the addresses' common prefix, then the mask length,
//! then the whole address), so sorting, hashing, keys and indexes need nothing new:
//!
//! ```text
//! family (4 | 6), address masked to its length, length, address
//! ```
//!
//! A MAC address is its 6 or 8 bytes.

use crate::error::{Error, Result};

/// A decoded inet / cidr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inet {
    pub v6: bool,
    pub bits: u8,
    pub addr: [u8; 16],
}

impl Inet {
    pub fn max_bits(&self) -> u8 {
        if self.v6 { 128 } else { 32 }
    }

    pub fn byte_len(&self) -> usize {
        if self.v6 { 16 } else { 4 }
    }

    fn bytes(&self) -> &[u8] {
        &self.addr[..self.byte_len()]
    }

    /// The stored form.
    pub fn encode(&self) -> Vec<u8> {
        let n = self.byte_len();
        let mut out = Vec::with_capacity(2 + 2 * n);
        out.push(if self.v6 { 6 } else { 4 });
        let masked = mask_bits(self.bytes(), self.bits);
        out.extend_from_slice(&masked);
        out.push(self.bits);
        out.extend_from_slice(self.bytes());
        out
    }

    pub fn decode(b: &[u8]) -> Inet {
        let v6 = b.first() == Some(&6);
        let n = if v6 { 16 } else { 4 };
        let bits = b.get(1 + n).copied().unwrap_or(0);
        let mut addr = [0u8; 16];
        if let Some(a) = b.get(2 + n..2 + 2 * n) {
            addr[..n].copy_from_slice(a);
        }
        Inet { v6, bits, addr }
    }
}

/// `addr` with the bits past `bits` cleared.
fn mask_bits(addr: &[u8], bits: u8) -> Vec<u8> {
    addr.iter()
        .enumerate()
        .map(|(i, &b)| {
            let start = i as u32 * 8;
            let keep = (bits as u32).saturating_sub(start).min(8);
            if keep == 0 {
                0
            } else {
                b & (0xFFu8 << (8 - keep))
            }
        })
        .collect()
}

/// Whether the bits past `bits` are all zero (a valid cidr).
fn host_bits_clear(addr: &[u8], bits: u8) -> bool {
    mask_bits(addr, bits) == addr
}

fn bad_input(type_name: &str, text: &str) -> Error {
    Error::new(
        "22P02",
        format!("invalid input syntax for type {type_name}: \"{text}\""),
    )
}

/// An IPv4 address: four dotted octets for inet; one to four for cidr (the rest
/// zero), with the classful default length when none is written.
fn parse_v4(s: &str, cidr: bool) -> Option<([u8; 16], usize)> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 4 || (!cidr && parts.len() != 4) {
        return None;
    }
    let mut addr = [0u8; 16];
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        addr[i] = p.parse::<u16>().ok().filter(|v| *v <= 255)? as u8;
    }
    Some((addr, parts.len()))
}

/// An IPv6 address (`::` compression, an IPv4 tail).
fn parse_v6(s: &str) -> Option<[u8; 16]> {
    let mut words: Vec<u16> = Vec::new();
    let mut gap: Option<usize> = None;
    let (head, tail) = match s.find("::") {
        Some(i) => (&s[..i], Some(&s[i + 2..])),
        None => (s, None),
    };
    let parse_part = |part: &str, words: &mut Vec<u16>, last: bool| -> Option<()> {
        if part.is_empty() {
            return Some(());
        }
        let groups: Vec<&str> = part.split(':').collect();
        for (i, g) in groups.iter().enumerate() {
            if last && i == groups.len() - 1 && g.contains('.') {
                let (v4, n) = parse_v4(g, false)?;
                if n != 4 {
                    return None;
                }
                words.push(u16::from_be_bytes([v4[0], v4[1]]));
                words.push(u16::from_be_bytes([v4[2], v4[3]]));
                continue;
            }
            if g.is_empty() || g.len() > 4 || !g.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            words.push(u16::from_str_radix(g, 16).ok()?);
        }
        Some(())
    };
    match tail {
        None => parse_part(head, &mut words, true)?,
        Some(t) => {
            if t.contains("::") {
                return None;
            }
            parse_part(head, &mut words, false)?;
            gap = Some(words.len());
            parse_part(t, &mut words, true)?;
        }
    }
    let words = match gap {
        Some(at) => {
            if words.len() > 7 {
                return None;
            }
            let mut full = words[..at].to_vec();
            full.extend(std::iter::repeat_n(0, 8 - words.len()));
            full.extend_from_slice(&words[at..]);
            full
        }
        None => words,
    };
    if words.len() != 8 {
        return None;
    }
    let mut addr = [0u8; 16];
    for (i, w) in words.iter().enumerate() {
        addr[2 * i..2 * i + 2].copy_from_slice(&w.to_be_bytes());
    }
    Some(addr)
}

/// inet_in / cidr_in.
pub fn parse(text: &str, cidr: bool) -> Result<Inet> {
    let type_name = if cidr { "cidr" } else { "inet" };
    let bad = || bad_input(type_name, text);
    // (inet does not trim blanks.)
    let s = text;
    let (addr_text, bits_text) = match s.split_once('/') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let v6 = addr_text.contains(':');
    // inet takes a short IPv4 form only with a length (`10/8`); cidr always.
    let (addr, octets) = if v6 {
        (parse_v6(addr_text).ok_or_else(bad)?, 16)
    } else {
        parse_v4(addr_text, cidr || bits_text.is_some()).ok_or_else(bad)?
    };
    let max = if v6 { 128 } else { 32 };
    let bits: u8 = match bits_text {
        Some(b) => {
            if b.is_empty() || b.len() > 3 || !b.bytes().all(|c| c.is_ascii_digit()) {
                return Err(bad());
            }
            let v: u16 = b.parse().map_err(|_| bad())?;
            if v > max {
                return Err(bad());
            }
            v as u8
        }
        None if cidr && !v6 => {
            // The classful length, widened to the octets written.
            let first = addr[0];
            let mut bits = if first >= 240 {
                32
            } else if first >= 224 {
                8
            } else if first >= 192 {
                24
            } else if first >= 128 {
                16
            } else {
                8
            };
            if bits < octets as u16 * 8 {
                bits = octets as u16 * 8;
            }
            if bits == 8 && first == 224 {
                bits = 4;
            }
            bits as u8
        }
        None => max as u8,
    };
    let inet = Inet { v6, bits, addr };
    if cidr && !host_bits_clear(inet.bytes(), bits) {
        return Err(
            Error::new("22P02", format!("invalid cidr value: \"{text}\""))
                .with_detail("Value has bits set to right of mask."),
        );
    }
    Ok(inet)
}

fn write_v6(out: &mut String, addr: &[u8]) {
    let words: Vec<u16> = (0..8)
        .map(|i| u16::from_be_bytes([addr[2 * i], addr[2 * i + 1]]))
        .collect();
    // The longest run of two or more zero words becomes `::`.
    let (mut best, mut best_len) = (None, 0);
    let mut i = 0;
    while i < 8 {
        if words[i] == 0 {
            let start = i;
            while i < 8 && words[i] == 0 {
                i += 1;
            }
            if i - start > best_len && i - start >= 2 {
                best = Some(start);
                best_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    // An IPv4-mapped or -compatible address keeps its dotted tail.
    let v4_tail = best == Some(0) && (best_len == 6 || (best_len == 5 && words[5] == 0xffff));
    let mut i = 0;
    while i < 8 {
        if Some(i) == best {
            out.push_str(if i == 0 { "::" } else { ":" });
            i += best_len;
            if v4_tail {
                if best_len == 5 {
                    out.push_str("ffff:");
                }
                out.push_str(&format!(
                    "{}.{}.{}.{}",
                    addr[12], addr[13], addr[14], addr[15]
                ));
                return;
            }
            continue;
        }
        out.push_str(&format!("{:x}", words[i]));
        if i < 7 {
            out.push(':');
        }
        i += 1;
    }
}

/// The address without its length (`host`).
pub fn host_text(n: &Inet) -> String {
    let mut out = String::new();
    if n.v6 {
        write_v6(&mut out, n.bytes());
    } else {
        out.push_str(&format!(
            "{}.{}.{}.{}",
            n.addr[0], n.addr[1], n.addr[2], n.addr[3]
        ));
    }
    out
}

/// inet_out (`cidr`: cidr_out, which always shows the length).
pub fn to_text(n: &Inet, cidr: bool) -> String {
    let mut out = host_text(n);
    if cidr || n.bits != n.max_bits() {
        out.push_str(&format!("/{}", n.bits));
    }
    out
}

/// abbrev(cidr): only the octets the length covers.
pub fn cidr_abbrev(n: &Inet) -> String {
    if n.v6 {
        // The 16-bit words the length covers (all zero: `::`).
        let words = (n.bits as usize).div_ceil(16);
        if words == 0 || words == 8 {
            return to_text(n, true);
        }
        let shown: Vec<String> = (0..words)
            .map(|i| {
                format!(
                    "{:x}",
                    u16::from_be_bytes([n.addr[2 * i], n.addr[2 * i + 1]])
                )
            })
            .collect();
        if shown.iter().all(|w| w == "0") {
            return format!("::/{}", n.bits);
        }
        return format!("{}/{}", shown.join(":"), n.bits);
    }
    let octets = (n.bits as usize).div_ceil(8).max(1);
    let parts: Vec<String> = n.addr[..octets].iter().map(|b| b.to_string()).collect();
    format!("{}/{}", parts.join("."), n.bits)
}

/// inet_send: family (2 IPv4, 3 IPv6), length, is-cidr, address size, address.
pub fn send(n: &Inet, cidr: bool, out: &mut Vec<u8>) {
    out.push(if n.v6 { 3 } else { 2 });
    out.push(n.bits);
    out.push(cidr as u8);
    out.push(n.byte_len() as u8);
    out.extend_from_slice(n.bytes());
}

/// inet_recv.
pub fn recv(b: &[u8], cidr: bool) -> Result<Inet> {
    let bad = || Error::new("22P03", "invalid address family in external \"inet\" value");
    let (&family, rest) = b.split_first().ok_or_else(bad)?;
    let v6 = match family {
        2 => false,
        3 => true,
        _ => return Err(bad()),
    };
    let [bits, _is_cidr, nb, addr @ ..] = rest else {
        return Err(bad());
    };
    let n = if v6 { 16 } else { 4 };
    if *bits as usize > n * 8 {
        return Err(Error::new(
            "22P03",
            "invalid bits in external \"inet\" value",
        ));
    }
    if *nb as usize != n || addr.len() != n {
        return Err(Error::new(
            "22P03",
            "invalid length in external \"inet\" value",
        ));
    }
    let mut a = [0u8; 16];
    a[..n].copy_from_slice(addr);
    let inet = Inet {
        v6,
        bits: *bits,
        addr: a,
    };
    if cidr && !host_bits_clear(inet.bytes(), inet.bits) {
        return Err(Error::new("22P03", "invalid external \"cidr\" value")
            .with_detail("Value has bits set to right of mask."));
    }
    Ok(inet)
}

/// network(inet): the address masked, as a cidr.
pub fn network(n: &Inet) -> Inet {
    let mut addr = [0u8; 16];
    addr[..n.byte_len()].copy_from_slice(&mask_bits(n.bytes(), n.bits));
    Inet { addr, ..*n }
}

/// broadcast(inet): the host bits set.
pub fn broadcast(n: &Inet) -> Inet {
    let mut addr = n.addr;
    for (i, b) in addr[..n.byte_len()].iter_mut().enumerate() {
        let start = i as u32 * 8;
        let keep = (n.bits as u32).saturating_sub(start).min(8);
        let host = if keep >= 8 { 0 } else { 0xFFu8 >> keep };
        *b |= host;
    }
    Inet { addr, ..*n }
}

/// netmask / hostmask: the mask as an address of full length.
pub fn mask(n: &Inet, host: bool) -> Inet {
    let mut addr = [0u8; 16];
    for (i, b) in addr[..n.byte_len()].iter_mut().enumerate() {
        let start = i as u32 * 8;
        let keep = (n.bits as u32).saturating_sub(start).min(8);
        let net = if keep == 0 { 0 } else { 0xFFu8 << (8 - keep) };
        *b = if host { !net } else { net };
    }
    Inet {
        v6: n.v6,
        bits: n.max_bits(),
        addr,
    }
}

/// The first `bits` bits of two addresses equal.
fn prefix_equal(a: &Inet, b: &Inet, bits: u8) -> bool {
    mask_bits(a.bytes(), bits) == mask_bits(b.bytes(), bits)
}

/// `a << b` (strict) / `a <<= b`: a is within network b.
pub fn within(a: &Inet, b: &Inet, or_equal: bool) -> bool {
    a.v6 == b.v6
        && if or_equal {
            a.bits >= b.bits
        } else {
            a.bits > b.bits
        }
        && prefix_equal(a, b, b.bits)
}

/// `a && b`: either contains the other.
pub fn overlaps(a: &Inet, b: &Inet) -> bool {
    a.v6 == b.v6 && prefix_equal(a, b, a.bits.min(b.bits))
}

/// inet_merge: the smallest network holding both.
pub fn merge(a: &Inet, b: &Inet) -> Result<Inet> {
    if a.v6 != b.v6 {
        return Err(Error::new(
            "22023",
            "cannot merge addresses from different families",
        ));
    }
    let mut bits = a.bits.min(b.bits);
    while bits > 0 && !prefix_equal(a, b, bits) {
        bits -= 1;
    }
    let mut addr = [0u8; 16];
    addr[..a.byte_len()].copy_from_slice(&mask_bits(a.bytes(), bits));
    Ok(Inet {
        v6: a.v6,
        bits,
        addr,
    })
}

/// set_masklen: -1 is the full length; for a cidr the host bits are cleared.
pub fn set_masklen(n: &Inet, len: i32, cidr: bool) -> Result<Inet> {
    let max = n.max_bits() as i32;
    let len = if len == -1 { max } else { len };
    if !(0..=max).contains(&len) {
        return Err(Error::new("22023", format!("invalid mask length: {len}")));
    }
    let mut out = Inet {
        bits: len as u8,
        ..*n
    };
    if cidr {
        out = network(&out);
    }
    Ok(out)
}

/// The address as a big-endian number (for + and -).
fn as_u128(n: &Inet) -> u128 {
    n.bytes()
        .iter()
        .fold(0u128, |acc, &b| (acc << 8) | b as u128)
}

fn from_u128(n: &Inet, v: u128) -> Inet {
    let mut addr = [0u8; 16];
    let len = n.byte_len();
    for i in 0..len {
        addr[len - 1 - i] = (v >> (8 * i)) as u8;
    }
    Inet { addr, ..*n }
}

/// inet + bigint (and - bigint): "result is out of range" past the family's ends.
pub fn add(n: &Inet, delta: i64) -> Result<Inet> {
    let out = || Error::new("22003", "result is out of range");
    let base = as_u128(n);
    let v = if delta >= 0 {
        base.checked_add(delta as u128).ok_or_else(out)?
    } else {
        base.checked_sub(delta.unsigned_abs() as u128)
            .ok_or_else(out)?
    };
    if !n.v6 && v > u32::MAX as u128 {
        return Err(out());
    }
    Ok(from_u128(n, v))
}

/// inet - inet.
pub fn subtract(a: &Inet, b: &Inet) -> Result<i64> {
    if a.v6 != b.v6 {
        return Err(Error::new(
            "22023",
            "cannot subtract inet values of different sizes",
        ));
    }
    let d = as_u128(a) as i128 - as_u128(b) as i128;
    i64::try_from(d).map_err(|_| Error::new("22003", "result is out of range"))
}

/// `~`, `&`, `|`.
pub fn not(n: &Inet) -> Inet {
    let mut addr = n.addr;
    for b in &mut addr[..n.byte_len()] {
        *b = !*b;
    }
    Inet { addr, ..*n }
}

pub fn bitwise(a: &Inet, b: &Inet, and: bool) -> Result<Inet> {
    if a.v6 != b.v6 {
        return Err(Error::new(
            "22023",
            format!(
                "cannot {} inet values of different sizes",
                if and { "AND" } else { "OR" }
            ),
        ));
    }
    let mut addr = [0u8; 16];
    for (i, out) in addr[..a.byte_len()].iter_mut().enumerate() {
        *out = if and {
            a.addr[i] & b.addr[i]
        } else {
            a.addr[i] | b.addr[i]
        };
    }
    Ok(Inet {
        v6: a.v6,
        bits: a.bits.max(b.bits),
        addr,
    })
}

// ---------------------------------------------------------------------------
// MAC addresses

/// macaddr_in: the six forms PostgreSQL reads.
pub fn parse_mac(text: &str) -> Result<[u8; 6]> {
    let bad = || bad_input("macaddr", text);
    let s = text.trim_matches(|c: char| c.is_ascii_whitespace());
    // Each group is read as %x reads it (any number of hex digits); a value past
    // 0xff is an octet error, not a syntax error.
    let octet_error = || {
        Error::new(
            "22003",
            format!("invalid octet value in \"macaddr\" value: \"{text}\""),
        )
    };
    let hex = |g: &str| -> Option<u32> {
        if g.is_empty() || g.len() > 8 || !g.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(g, 16).ok()
    };
    let from_groups = |groups: &[&str]| -> Option<std::result::Result<[u8; 6], ()>> {
        let mut out = [0u8; 6];
        for (i, g) in groups.iter().enumerate() {
            let v = hex(g)?;
            if v > 255 {
                return Some(Err(()));
            }
            out[i] = v as u8;
        }
        Some(Ok(out))
    };
    let finish = |r: Option<std::result::Result<[u8; 6], ()>>| -> Result<[u8; 6]> {
        match r {
            Some(Ok(v)) => Ok(v),
            Some(Err(())) => Err(octet_error()),
            None => Err(bad()),
        }
    };
    fn split_pairs(s: &str) -> Option<Vec<&str>> {
        if !s.len().is_multiple_of(2) || !s.is_ascii() {
            return None;
        }
        Some((0..s.len() / 2).map(|i| &s[2 * i..2 * i + 2]).collect())
    }
    for sep in [':', '-'] {
        let g: Vec<&str> = s.split(sep).collect();
        if g.len() == 6 {
            return finish(from_groups(&g));
        }
        if g.len() == 2 && g[0].len() == 6 && g[1].len() == 6 {
            let mut pairs = split_pairs(g[0]).ok_or_else(bad)?;
            pairs.extend(split_pairs(g[1]).ok_or_else(bad)?);
            return finish(from_groups(&pairs));
        }
        if g.len() == 3 && g.iter().all(|x| x.len() == 4) && sep == '-' {
            let pairs: Vec<&str> = g
                .iter()
                .flat_map(|x| split_pairs(x).unwrap_or_default())
                .collect();
            return finish(from_groups(&pairs));
        }
    }
    let g: Vec<&str> = s.split('.').collect();
    if g.len() == 3 && g.iter().all(|x| x.len() == 4) {
        let pairs: Vec<&str> = g
            .iter()
            .flat_map(|x| split_pairs(x).unwrap_or_default())
            .collect();
        return finish(from_groups(&pairs));
    }
    if s.len() == 12 {
        let pairs = split_pairs(s).ok_or_else(bad)?;
        return finish(from_groups(&pairs));
    }
    Err(bad())
}

/// macaddr8_in: 6 or 8 bytes in hex pairs, separated by `:`, `-` or `.` (or not);
/// a 6-byte address gets ff:fe in its middle.
pub fn parse_mac8(text: &str) -> Result<[u8; 8]> {
    let bad = || bad_input("macaddr8", text);
    let s = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let mut bytes = Vec::with_capacity(8);
    let b = s.as_bytes();
    let mut i = 0;
    let mut sep: Option<u8> = None;
    while i < b.len() {
        if bytes.len() == 8 {
            return Err(bad());
        }
        let hi = b.get(i).filter(|c| c.is_ascii_hexdigit()).ok_or_else(bad)?;
        let lo = b
            .get(i + 1)
            .filter(|c| c.is_ascii_hexdigit())
            .ok_or_else(bad)?;
        let v = u8::from_str_radix(std::str::from_utf8(&[*hi, *lo]).map_err(|_| bad())?, 16)
            .map_err(|_| bad())?;
        bytes.push(v);
        i += 2;
        if i < b.len() && matches!(b[i], b':' | b'-' | b'.') {
            match sep {
                Some(s) if s != b[i] => return Err(bad()),
                _ => sep = Some(b[i]),
            }
            i += 1;
            if i == b.len() {
                return Err(bad());
            }
        }
    }
    match bytes.len() {
        6 => Ok([
            bytes[0], bytes[1], bytes[2], 0xff, 0xfe, bytes[3], bytes[4], bytes[5],
        ]),
        8 => {
            let mut out = [0u8; 8];
            out.copy_from_slice(&bytes);
            Ok(out)
        }
        _ => Err(bad()),
    }
}

pub fn mac_text(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inet_text_and_order() {
        let t = |s: &str| to_text(&parse(s, false).expect("inet"), false);
        assert_eq!(t("192.168.1.5/24"), "192.168.1.5/24");
        assert_eq!(t("10.0.0.1"), "10.0.0.1");
        assert_eq!(
            t("2001:0db8:0000:0000:0000:0000:0000:0001/64"),
            "2001:db8::1/64"
        );
        assert_eq!(t("::ffff:1.2.3.4"), "::ffff:1.2.3.4");
        let c = |s: &str| to_text(&parse(s, true).expect("cidr"), true);
        assert_eq!(c("10"), "10.0.0.0/8");
        assert_eq!(c("128.1"), "128.1.0.0/16");
        assert!(parse("192.168.1.5/24", true).is_err());
        let k = |s: &str| parse(s, false).expect("inet").encode();
        assert!(k("10.0.0.0/8") < k("10.0.0.0/16"));
        assert!(k("10.0.0.0/16") < k("10.0.0.1"));
        assert!(k("255.0.0.0/8") < k("::1"));
    }
}
