//! Kernels for the built-in extensions' functions (`catalog::extension`): uuid-ossp's
//! generators, pgcrypto's digest / hmac / gen_random_bytes and pg_trgm's trigram
//! similarity, one row at a time (none of them is on a hot path today).
//!
//! ## pg_trgm
//!
//! As `trgm_op.c` computes them in a database of the C ctype (kiln's): a string's
//! words are its runs of ASCII letters and digits, lower-cased, each padded with two blanks before and one after; its
//! trigrams are every three consecutive characters of each padded word (PostgreSQL
//! hashes trigrams of multibyte characters, which the C ctype never puts in a word). Sets are
//! sorted by byte, comparing bytes as C's signed `char` does, and deduplicated.
//! similarity is |common| / |union|; word_similarity is the greatest similarity
//! between the first string's trigrams and a continuous extent of the second's
//! (`iterate_word_similarity`), strict_word_similarity the same with the extent's
//! ends at word bounds.

use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::sql::expr::ExtFn;
use crate::types::{DataType, Value, array};

/// One row of `kind` over its (non-NULL) arguments.
pub fn ext_row(kind: ExtFn, row: &[Value], ctx: &ExecContext) -> Result<Value> {
    use ExtFn as E;
    Ok(match kind {
        E::UuidV1 | E::UuidV1Mc => Value::Uuid(uuid_v1(ctx)?),
        E::UuidV4 => {
            let mut u = random::<16>()?;
            stamp_version(&mut u, 4);
            Value::Uuid(u)
        }
        E::UuidV3 | E::UuidV5 => {
            let (Value::Uuid(ns), name) = (&row[0], text_bytes(&row[1])) else {
                return Err(Error::internal("uuid_generate_v3/v5 without a uuid"));
            };
            let mut input = ns.to_vec();
            input.extend_from_slice(name);
            let mut u = [0u8; 16];
            if kind == E::UuidV3 {
                use md5::Digest;
                u.copy_from_slice(&md5::Md5::digest(&input));
                stamp_version(&mut u, 3);
            } else {
                u.copy_from_slice(&sha1_digest(&input)[..16]);
                stamp_version(&mut u, 5);
            }
            Value::Uuid(u)
        }
        E::UuidNil => Value::Uuid([0; 16]),
        E::UuidNsDns | E::UuidNsUrl | E::UuidNsOid | E::UuidNsX500 => {
            // RFC 4122's name spaces: 6ba7b81N-9dad-11d1-80b4-00c04fd430c8.
            let mut u = [
                0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4,
                0x30, 0xc8,
            ];
            u[3] = match kind {
                E::UuidNsDns => 0x10,
                E::UuidNsUrl => 0x11,
                E::UuidNsOid => 0x12,
                _ => 0x14,
            };
            Value::Uuid(u)
        }
        E::Digest => {
            let algo = Algorithm::named(text_str(&row[1]))?;
            Value::Bytes(algo.hash(text_bytes(&row[0])))
        }
        E::Hmac => {
            let algo = Algorithm::named(text_str(&row[2]))?;
            Value::Bytes(algo.hmac(text_bytes(&row[1]), text_bytes(&row[0])))
        }
        E::GenRandomBytes => {
            let Value::Int4(n) = row[0] else {
                return Err(Error::internal("gen_random_bytes without an integer"));
            };
            if !(1..=1024).contains(&n) {
                return Err(Error::new("39000", "Length not in range"));
            }
            let mut b = vec![0u8; n as usize];
            getrandom::fill(&mut b)
                .map_err(|_| Error::internal("could not generate random values"))?;
            Value::Bytes(b)
        }
        E::Similarity => Value::Float4(similarity(text_str(&row[0]), text_str(&row[1]))),
        E::WordSimilarity => {
            Value::Float4(word_similarity(text_str(&row[0]), text_str(&row[1]), false))
        }
        E::StrictWordSimilarity => {
            Value::Float4(word_similarity(text_str(&row[0]), text_str(&row[1]), true))
        }
        E::ShowTrgm => {
            let values: Vec<Value> = trigrams(text_str(&row[0]))
                .iter()
                .map(|t| Value::Text(trigram_text(t)))
                .collect();
            Value::Array(Box::new(array::from_values(DataType::Text, &values)))
        }
        E::ShowLimit => Value::Float4(threshold(ctx, SIMILARITY)),
        E::SetLimit => {
            let Value::Float4(limit) = row[0] else {
                return Err(Error::internal("set_limit without a real"));
            };
            let mut shown = Vec::new();
            crate::types::text::write_f32(&mut shown, limit, 1);
            let text = String::from_utf8_lossy(&shown).into_owned();
            if !(0.0..=1.0).contains(&limit) {
                return Err(Error::new(
                    "22023",
                    format!(
                        "{text} is outside the valid range for parameter \"{SIMILARITY}\" (0 .. 1)"
                    ),
                ));
            }
            if let Some(pending) = &ctx.set_configs {
                pending.lock().push((SIMILARITY.into(), text, false));
            }
            Value::Float4(limit)
        }
        E::SimilarOp => Value::Bool(
            similarity(text_str(&row[0]), text_str(&row[1])) >= threshold(ctx, SIMILARITY),
        ),
        E::WordSimilarOp => Value::Bool(
            word_similarity(text_str(&row[0]), text_str(&row[1]), false)
                >= threshold(ctx, WORD_SIMILARITY),
        ),
        E::StrictWordSimilarOp => Value::Bool(
            word_similarity(text_str(&row[0]), text_str(&row[1]), true)
                >= threshold(ctx, STRICT_WORD_SIMILARITY),
        ),
        E::Distance => Value::Float4(1.0 - similarity(text_str(&row[0]), text_str(&row[1]))),
        E::WordDistance => {
            Value::Float4(1.0 - word_similarity(text_str(&row[0]), text_str(&row[1]), false))
        }
        E::StrictWordDistance => {
            Value::Float4(1.0 - word_similarity(text_str(&row[0]), text_str(&row[1]), true))
        }
    })
}

const SIMILARITY: &str = "pg_trgm.similarity_threshold";
const WORD_SIMILARITY: &str = "pg_trgm.word_similarity_threshold";
const STRICT_WORD_SIMILARITY: &str = "pg_trgm.strict_word_similarity_threshold";

/// A pg_trgm threshold: the session's setting, else the extension's default.
fn threshold(ctx: &ExecContext, name: &str) -> f32 {
    let default = match name {
        SIMILARITY => 0.3,
        WORD_SIMILARITY => 0.6,
        _ => 0.5,
    };
    // set_limit earlier in this statement counts (the session applies it afterwards).
    let pending = ctx.set_configs.as_ref().and_then(|p| {
        p.lock()
            .iter()
            .rev()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v, _)| v.clone())
    });
    pending
        .or_else(|| ctx.settings.get(name).map(|(_, v)| v.clone()))
        .and_then(|v| v.trim().parse::<f32>().ok())
        .unwrap_or(default)
}

fn text_bytes(v: &Value) -> &[u8] {
    match v {
        Value::Text(s) => s.as_bytes(),
        Value::Bytes(b) => b,
        _ => &[],
    }
}

fn text_str(v: &Value) -> &str {
    match v {
        Value::Text(s) => s,
        _ => "",
    }
}

fn random<const N: usize>() -> Result<[u8; N]> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|_| Error::internal("could not generate random values"))?;
    Ok(b)
}

/// RFC 4122's version nibble and variant bits.
fn stamp_version(u: &mut [u8; 16], version: u8) {
    u[6] = (u[6] & 0x0f) | (version << 4);
    u[8] = (u[8] & 0x3f) | 0x80;
}

/// A version 1 uuid: 100-nanosecond ticks since 1582-10-15, a random clock sequence,
/// and a random node with the multicast bit set (uuid_generate_v1mc's; kiln does not
/// read the machine's MAC address for uuid_generate_v1 either).
fn uuid_v1(ctx: &ExecContext) -> Result<[u8; 16]> {
    let _ = ctx;
    let since_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| Error::internal("clock before 1970"))?;
    // 1582-10-15 to 1970-01-01: 12219292800 seconds.
    let ticks = (since_unix.as_nanos() / 100) as u64 + 12_219_292_800 * 10_000_000;
    let low = (ticks & 0xffff_ffff) as u32;
    let mid = ((ticks >> 32) & 0xffff) as u16;
    let high = ((ticks >> 48) & 0x0fff) as u16;
    let r = random::<8>()?;
    let mut u = [0u8; 16];
    u[..4].copy_from_slice(&low.to_be_bytes());
    u[4..6].copy_from_slice(&mid.to_be_bytes());
    u[6..8].copy_from_slice(&high.to_be_bytes());
    u[8..10].copy_from_slice(&r[..2]);
    u[10..].copy_from_slice(&r[2..]);
    u[10] |= 0x01;
    stamp_version(&mut u, 1);
    Ok(u)
}

/// pgcrypto's digest algorithms.
#[derive(Clone, Copy)]
enum Algorithm {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Algorithm {
    fn named(name: &str) -> Result<Algorithm> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "md5" => Algorithm::Md5,
            "sha1" => Algorithm::Sha1,
            "sha224" => Algorithm::Sha224,
            "sha256" => Algorithm::Sha256,
            "sha384" => Algorithm::Sha384,
            "sha512" => Algorithm::Sha512,
            _ => {
                return Err(Error::new(
                    "22023",
                    format!("Cannot use \"{name}\": No such hash algorithm"),
                ));
            }
        })
    }

    fn hash(self, data: &[u8]) -> Vec<u8> {
        use sha2::Digest as _;
        match self {
            Algorithm::Md5 => {
                use md5::Digest;
                md5::Md5::digest(data).to_vec()
            }
            Algorithm::Sha1 => sha1_digest(data).to_vec(),
            Algorithm::Sha224 => sha2::Sha224::digest(data).to_vec(),
            Algorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
            Algorithm::Sha384 => sha2::Sha384::digest(data).to_vec(),
            Algorithm::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }

    fn block_size(self) -> usize {
        match self {
            Algorithm::Sha384 | Algorithm::Sha512 => 128,
            _ => 64,
        }
    }

    /// RFC 2104: H((K ^ opad) || H((K ^ ipad) || m)), a key longer than a block
    /// hashed first.
    fn hmac(self, key: &[u8], data: &[u8]) -> Vec<u8> {
        let block = self.block_size();
        let mut k = if key.len() > block {
            self.hash(key)
        } else {
            key.to_vec()
        };
        k.resize(block, 0);
        let mut inner: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
        inner.extend_from_slice(data);
        let mut outer: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
        outer.extend_from_slice(&self.hash(&inner));
        self.hash(&outer)
    }
}

/// SHA-1 (FIPS 180-4): uuid v5 and pgcrypto's sha1 need it and nothing else in kiln
/// does, so it is written here rather than pulled in.
fn sha1_digest(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xefcd_ab89,
        0x98ba_dcfe,
        0x1032_5476,
        0xc3d2_e1f0,
    ];
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for chunk in msg.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in chunk.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5a82_7999),
                20..=39 => (b ^ c ^ d, 0x6ed9_eba1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc),
                _ => (b ^ c ^ d, 0xca62_c1d6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

// ---------------------------------------------------------------------------------
// pg_trgm.

type Trigram = [u8; 3];

/// A word's first trigram starts it, its last ends it (strict word similarity).
const BOUND_LEFT: u8 = 1;
const BOUND_RIGHT: u8 = 2;

/// Trigram order: bytes compared as signed chars, as CMPTRGM does.
fn cmp_trigram(a: &Trigram, b: &Trigram) -> std::cmp::Ordering {
    let s = |t: &Trigram| [t[0] as i8, t[1] as i8, t[2] as i8];
    s(a).cmp(&s(b))
}

/// Every trigram of `s`'s words in order (with repeats), and each one's word bounds.
fn trigrams_in_order(s: &str) -> (Vec<Trigram>, Vec<u8>) {
    let mut out = Vec::new();
    let mut bounds = Vec::new();
    let mut rest = s;
    // kiln's databases have the C ctype: words are ASCII letters and digits (any
    // other character separates them, as iswalnum says in that locale), lower-cased
    // in ASCII.
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphanumeric()) {
        let tail = &rest[start..];
        let end = tail
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tail.len());
        let word = tail[..end].to_ascii_lowercase();
        rest = &tail[end..];
        let padded: Vec<u8> = b"  "
            .iter()
            .chain(word.as_bytes())
            .chain(b" ")
            .copied()
            .collect();
        let first = out.len();
        for w in padded.windows(3) {
            out.push([w[0], w[1], w[2]]);
            bounds.push(0);
        }
        if out.len() > first {
            bounds[first] |= BOUND_LEFT;
            let last = out.len() - 1;
            bounds[last] |= BOUND_RIGHT;
        }
    }
    (out, bounds)
}

/// `s`'s trigram set, sorted and without repeats.
fn trigrams(s: &str) -> Vec<Trigram> {
    let (mut t, _) = trigrams_in_order(s);
    t.sort_by(cmp_trigram);
    t.dedup();
    t
}

/// show_trgm's text of one trigram.
fn trigram_text(t: &Trigram) -> String {
    let printable = |b: u8| b.is_ascii_alphanumeric() || b == b' ';
    if t.iter().all(|&b| printable(b)) {
        t.iter().map(|&b| b as char).collect()
    } else {
        format!(
            "0x{:x}",
            (u32::from(t[0]) << 16) | (u32::from(t[1]) << 8) | u32::from(t[2])
        )
    }
}

fn calc_similarity(count: usize, len1: usize, len2: usize) -> f32 {
    let union = len1 + len2 - count;
    if union == 0 {
        0.0
    } else {
        count as f32 / union as f32
    }
}

/// similarity(a, b).
fn similarity(a: &str, b: &str) -> f32 {
    let (ta, tb) = (trigrams(a), trigrams(b));
    if ta.is_empty() || tb.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut count) = (0, 0, 0);
    while i < ta.len() && j < tb.len() {
        match cmp_trigram(&ta[i], &tb[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                count += 1;
                i += 1;
                j += 1;
            }
        }
    }
    calc_similarity(count, ta.len(), tb.len())
}

/// word_similarity(a, b), or strict_word_similarity (`strict`): calc_word_similarity.
fn word_similarity(a: &str, b: &str, strict: bool) -> f32 {
    let (t1, _) = trigrams_in_order(a);
    let (t2, bounds) = trigrams_in_order(b);
    if t1.is_empty() || t2.is_empty() {
        return 0.0;
    }
    // Both strings' trigrams, sorted (the first string's before the second's at equal
    // trigrams), numbered by distinct trigram: `found` marks those of the first string,
    // `index2` gives each of the second string's trigrams its number.
    let mut all: Vec<(Trigram, i64)> = t1.iter().map(|t| (*t, -1)).collect();
    all.extend(t2.iter().enumerate().map(|(i, t)| (*t, i as i64)));
    all.sort_by(|x, y| cmp_trigram(&x.0, &y.0).then(x.1.cmp(&y.1)));
    let mut index2 = vec![0usize; t2.len()];
    let mut found = vec![false; all.len()];
    let (mut ulen1, mut j) = (0usize, 0usize);
    for i in 0..all.len() {
        if i > 0 && all[i - 1].0 != all[i].0 {
            if found[j] {
                ulen1 += 1;
            }
            j += 1;
        }
        if all[i].1 >= 0 {
            index2[all[i].1 as usize] = j;
        } else {
            found[j] = true;
        }
    }
    if found[j] {
        ulen1 += 1;
    }
    iterate_word_similarity(&index2, &found, ulen1, all.len(), strict, &bounds)
}

/// iterate_word_similarity: the best extent of the second string's trigrams.
fn iterate_word_similarity(
    index2: &[usize],
    found: &[bool],
    ulen1: usize,
    len: usize,
    strict: bool,
    bounds: &[u8],
) -> f32 {
    let mut lastpos: Vec<i64> = vec![-1; len];
    let mut lower: i64 = if strict { 0 } else { -1 };
    let (mut ulen2, mut count) = (0usize, 0usize);
    let mut best = 0f32;
    for i in 0..index2.len() {
        let t = index2[i];
        if lower >= 0 || found[t] {
            if lastpos[t] < 0 {
                ulen2 += 1;
                if found[t] {
                    count += 1;
                }
            }
            lastpos[t] = i as i64;
        }
        let upper_here = if strict {
            bounds[i] & BOUND_RIGHT != 0
        } else {
            found[t]
        };
        if !upper_here {
            continue;
        }
        let upper = i as i64;
        if lower == -1 {
            lower = upper;
            ulen2 = 1;
        }
        let mut current = calc_similarity(count, ulen1, ulen2);
        let (mut tmp_count, mut tmp_ulen2) = (count, ulen2);
        let prev_lower = lower;
        let mut tmp_lower = lower;
        while tmp_lower <= upper {
            let at = tmp_lower as usize;
            if !strict || bounds[at] & BOUND_LEFT != 0 {
                let s = calc_similarity(tmp_count, ulen1, tmp_ulen2);
                if s > current {
                    current = s;
                    ulen2 = tmp_ulen2;
                    lower = tmp_lower;
                    count = tmp_count;
                }
            }
            let tt = index2[at];
            if lastpos[tt] == tmp_lower {
                tmp_ulen2 = tmp_ulen2.saturating_sub(1);
                if found[tt] {
                    tmp_count = tmp_count.saturating_sub(1);
                }
            }
            tmp_lower += 1;
        }
        best = best.max(current);
        for p in prev_lower..lower {
            let tt = index2[p as usize];
            if lastpos[tt] == p {
                lastpos[tt] = -1;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_known_answers() {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(
            hex(&sha1_digest(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(&sha1_digest(b"")),
            "da39a3ee5e6b4b0d3255bfef95601890afd80709"
        );
        // Two blocks of padding.
        assert_eq!(
            hex(&sha1_digest(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
    }

    #[test]
    fn trigram_similarities_are_pg_trgm_s() {
        assert_eq!(similarity("word", "two words"), 4.0 / 11.0);
        assert_eq!(word_similarity("word", "two words", false), 0.8);
        assert_eq!(word_similarity("word", "two words", true), 4.0 / 7.0);
        assert_eq!(similarity("", "abc"), 0.0);
        let shown: Vec<String> = trigrams("cat").iter().map(trigram_text).collect();
        assert_eq!(shown, ["  c", " ca", "at ", "cat"]);
    }
}
