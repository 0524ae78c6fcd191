//! NUMERIC: exact decimal arithmetic with PostgreSQL's scales, rounding and rendering.
//!
//! A value is a signed 128-bit mantissa and a decimal scale: `12.50` is `(1250, 2)`. The
//! scale is the *display scale* PostgreSQL keeps (`dscale`), so `1.50 + 1` prints `2.50`.
//! Results follow PostgreSQL's rules: `+`/`-` take the larger scale, `*` the sum of scales,
//! `/` the scale chosen by `select_div_scale` (at least 16 significant digits), rounding is
//! half away from zero. Mantissas are kept below 10^38; a result beyond that raises
//! `22003` ("value overflows numeric format") where PostgreSQL would still have digits to
//! spare — kiln's one departure, chosen so that NUMERIC sums run at integer speed.

use std::cmp::Ordering;

use crate::error::{Error, Result};

/// Mantissas stay strictly below this (38 decimal digits).
const MANTISSA_LIMIT: i128 = 100_000_000_000_000_000_000_000_000_000_000_000_000;
/// PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE.
pub const SCALE_MAX: u16 = 1000;
const MIN_SIG_DIGITS: i32 = 16;

#[derive(Clone, Copy, Debug, Default)]
pub struct Numeric {
    pub mantissa: i128,
    pub scale: u16,
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

fn overflow() -> Error {
    Error::numeric_out_of_range("value overflows numeric format")
}

impl Numeric {
    pub const ZERO: Numeric = Numeric {
        mantissa: 0,
        scale: 0,
    };

    pub fn new(mantissa: i128, scale: u16) -> Result<Numeric> {
        if mantissa.abs() >= MANTISSA_LIMIT {
            return Err(overflow());
        }
        Ok(Numeric { mantissa, scale })
    }

    pub fn from_i64(v: i64) -> Numeric {
        Numeric {
            mantissa: v as i128,
            scale: 0,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    pub fn signum(&self) -> i32 {
        self.mantissa.signum() as i32
    }

    /// The mantissa expressed at a larger scale.
    fn mantissa_at(&self, scale: u16) -> Result<i128> {
        debug_assert!(scale >= self.scale);
        let factor = pow10((scale - self.scale) as u32).ok_or_else(overflow)?;
        self.mantissa.checked_mul(factor).ok_or_else(overflow)
    }

    pub fn parse(text: &str) -> Result<Numeric> {
        let bad = || Error::invalid_text("numeric", text);
        let s = text.trim_matches(|c: char| c.is_ascii_whitespace());
        let lower = s.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "nan" | "infinity" | "+infinity" | "-infinity" | "inf" | "+inf" | "-inf"
        ) {
            return Err(Error::feature_not_supported(
                "NaN and Infinity for type numeric",
            ));
        }
        let bytes = s.as_bytes();
        let mut i = 0;
        let negative = match bytes.first() {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let mut mantissa: i128 = 0;
        let mut scale: i32 = 0;
        let mut digits = 0usize;
        let mut seen_point = false;
        let mut significant = 0usize;
        while i < bytes.len() {
            let c = bytes[i];
            if c.is_ascii_digit() {
                digits += 1;
                if mantissa != 0 || c != b'0' {
                    significant += 1;
                }
                if significant > 38 {
                    return Err(overflow());
                }
                mantissa = mantissa * 10 + (c - b'0') as i128;
                if seen_point {
                    scale += 1;
                }
            } else if c == b'.' && !seen_point {
                seen_point = true;
            } else if c == b'_' && i > 0 && bytes[i - 1].is_ascii_digit() {
                // PostgreSQL 16 accepts digit separators; 15 does not.
                return Err(bad());
            } else {
                break;
            }
            i += 1;
        }
        if digits == 0 {
            return Err(bad());
        }
        if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
            i += 1;
            let exp_text = &s[i..];
            let exp: i32 = exp_text.parse().map_err(|_| bad())?;
            if exp.abs() > 1000 {
                return Err(overflow());
            }
            scale -= exp;
            i = bytes.len();
        }
        if i != bytes.len() {
            return Err(bad());
        }
        if scale < 0 {
            let factor = pow10((-scale) as u32).ok_or_else(overflow)?;
            mantissa = mantissa.checked_mul(factor).ok_or_else(overflow)?;
            scale = 0;
        }
        if scale > SCALE_MAX as i32 {
            return Err(overflow());
        }
        if negative {
            mantissa = -mantissa;
        }
        Numeric::new(mantissa, scale as u16)
    }

    /// Appends PostgreSQL's text form (`-12.50`) to `out`.
    pub fn write_text(&self, out: &mut Vec<u8>) {
        if self.mantissa < 0 {
            out.push(b'-');
        }
        let mut buf = itoa::Buffer::new();
        let digits = buf.format(self.mantissa.unsigned_abs()).as_bytes();
        let scale = self.scale as usize;
        if scale == 0 {
            out.extend_from_slice(digits);
        } else if digits.len() > scale {
            let split = digits.len() - scale;
            out.extend_from_slice(&digits[..split]);
            out.push(b'.');
            out.extend_from_slice(&digits[split..]);
        } else {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', scale - digits.len()));
            out.extend_from_slice(digits);
        }
    }

    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        self.write_text(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    pub fn add(&self, other: &Numeric) -> Result<Numeric> {
        let scale = self.scale.max(other.scale);
        let m = self
            .mantissa_at(scale)?
            .checked_add(other.mantissa_at(scale)?)
            .ok_or_else(overflow)?;
        Numeric::new(m, scale)
    }

    pub fn sub(&self, other: &Numeric) -> Result<Numeric> {
        self.add(&other.neg())
    }

    pub fn neg(&self) -> Numeric {
        Numeric {
            mantissa: -self.mantissa,
            scale: self.scale,
        }
    }

    pub fn abs(&self) -> Numeric {
        Numeric {
            mantissa: self.mantissa.abs(),
            scale: self.scale,
        }
    }

    pub fn mul(&self, other: &Numeric) -> Result<Numeric> {
        let scale = self.scale as u32 + other.scale as u32;
        let m = self
            .mantissa
            .checked_mul(other.mantissa)
            .ok_or_else(overflow)?;
        if scale > SCALE_MAX as u32 {
            let reduced = Numeric {
                mantissa: m,
                scale: scale.min(u16::MAX as u32) as u16,
            };
            return reduced.round(SCALE_MAX as i32);
        }
        Numeric::new(m, scale as u16)
    }

    /// Base-10000 weight and leading digit, as PostgreSQL's NumericVar has them.
    fn weight_and_first_digit(&self) -> (i32, i128) {
        if self.mantissa == 0 {
            return (0, 0);
        }
        let mut buf = itoa::Buffer::new();
        let digits = buf.format(self.mantissa.unsigned_abs()).as_bytes();
        let exponent = digits.len() as i32 - 1 - self.scale as i32;
        let weight = exponent.div_euclid(4);
        let group_len = (exponent.rem_euclid(4) + 1) as usize;
        let mut first: i128 = 0;
        for k in 0..group_len {
            first = first * 10 + digits.get(k).map_or(0, |d| (d - b'0') as i128);
        }
        (weight, first)
    }

    /// PostgreSQL's `select_div_scale`.
    pub fn division_scale(&self, other: &Numeric) -> i32 {
        let (w1, f1) = self.weight_and_first_digit();
        let (w2, f2) = other.weight_and_first_digit();
        let mut qweight = w1 - w2;
        if f1 <= f2 {
            qweight -= 1;
        }
        let rscale = (MIN_SIG_DIGITS - qweight * 4)
            .max(self.scale as i32)
            .max(other.scale as i32)
            .max(0);
        rscale.min(SCALE_MAX as i32)
    }

    pub fn div(&self, other: &Numeric) -> Result<Numeric> {
        if other.is_zero() {
            return Err(Error::division_by_zero());
        }
        let rscale = self.division_scale(other);
        self.div_to_scale(other, rscale)
    }

    /// `self / other` rounded (half away from zero) to `rscale` digits.
    pub fn div_to_scale(&self, other: &Numeric, rscale: i32) -> Result<Numeric> {
        if other.is_zero() {
            return Err(Error::division_by_zero());
        }
        let k = rscale - self.scale as i32 + other.scale as i32;
        let (num, den) = if k >= 0 {
            let scaled = pow10(k as u32).and_then(|f| self.mantissa.checked_mul(f));
            match scaled {
                Some(n) => (n, other.mantissa),
                None => {
                    // The scaled dividend needs more than 128 bits although the quotient
                    // may not: divide with 256-bit intermediates.
                    let q = wide_scaled_div(
                        self.mantissa.unsigned_abs(),
                        k as u32,
                        other.mantissa.unsigned_abs(),
                    )
                    .ok_or_else(overflow)?;
                    let q = i128::try_from(q).map_err(|_| overflow())?;
                    let negative = (self.mantissa < 0) != (other.mantissa < 0);
                    return Numeric::new(if negative { -q } else { q }, rscale as u16);
                }
            }
        } else {
            let f = pow10((-k) as u32).ok_or_else(overflow)?;
            (
                self.mantissa,
                other.mantissa.checked_mul(f).ok_or_else(overflow)?,
            )
        };
        let q = rounded_div(num, den);
        Numeric::new(q, rscale as u16)
    }

    /// Truncating division to an integer (`div`), and modulo with the dividend's sign.
    pub fn rem(&self, other: &Numeric) -> Result<Numeric> {
        if other.is_zero() {
            return Err(Error::division_by_zero());
        }
        let scale = self.scale.max(other.scale);
        let a = self.mantissa_at(scale)?;
        let b = other.mantissa_at(scale)?;
        Numeric::new(a % b, scale)
    }

    /// Rounds half away from zero to `scale` digits (negative rounds left of the point).
    pub fn round(&self, scale: i32) -> Result<Numeric> {
        let scale = scale.min(SCALE_MAX as i32);
        if scale >= self.scale as i32 {
            let m = self.mantissa_at(scale as u16)?;
            return Numeric::new(m, scale as u16);
        }
        let drop = (self.scale as i32 - scale) as u32;
        let m = match pow10(drop) {
            Some(f) => rounded_div(self.mantissa, f),
            None => 0,
        };
        if scale >= 0 {
            Numeric::new(m, scale as u16)
        } else {
            let back = pow10((-scale) as u32).ok_or_else(overflow)?;
            Numeric::new(m.checked_mul(back).ok_or_else(overflow)?, 0)
        }
    }

    /// Truncates toward zero to `scale` digits.
    pub fn trunc(&self, scale: i32) -> Result<Numeric> {
        let scale = scale.min(SCALE_MAX as i32);
        if scale >= self.scale as i32 {
            let m = self.mantissa_at(scale as u16)?;
            return Numeric::new(m, scale as u16);
        }
        let drop = (self.scale as i32 - scale) as u32;
        let m = match pow10(drop) {
            Some(f) => self.mantissa / f,
            None => 0,
        };
        if scale >= 0 {
            Numeric::new(m, scale as u16)
        } else {
            let back = pow10((-scale) as u32).ok_or_else(overflow)?;
            Numeric::new(m.checked_mul(back).ok_or_else(overflow)?, 0)
        }
    }

    pub fn floor(&self) -> Numeric {
        let f = pow10(self.scale as u32).unwrap_or(i128::MAX);
        Numeric {
            mantissa: self.mantissa.div_euclid(f),
            scale: 0,
        }
    }

    pub fn ceil(&self) -> Numeric {
        let f = pow10(self.scale as u32).unwrap_or(i128::MAX);
        let q = self.mantissa.div_euclid(f);
        let m = if self.mantissa.rem_euclid(f) != 0 {
            q + 1
        } else {
            q
        };
        Numeric {
            mantissa: m,
            scale: 0,
        }
    }

    /// Coerces to `numeric(precision, scale)`: round, then check the integer digits fit.
    pub fn apply_typmod(&self, precision: i32, scale: i32) -> Result<Numeric> {
        let rounded = self.round(scale)?;
        let int_digits_max = precision - scale;
        let limit = pow10((int_digits_max + scale).max(0) as u32);
        let too_big = match limit {
            Some(l) => rounded.mantissa.abs() >= l,
            None => false,
        };
        if too_big {
            let detail = if int_digits_max > 0 {
                format!(
                    "A field with precision {precision}, scale {scale} must round to an absolute value less than 10^{int_digits_max}."
                )
            } else {
                format!(
                    "A field with precision {precision}, scale {scale} must round to an absolute value less than 1."
                )
            };
            return Err(Error::numeric_out_of_range("numeric field overflow").with_detail(detail));
        }
        Ok(rounded)
    }

    /// Rounds to an integer (half away from zero) for casts to integer types.
    pub fn to_i128_rounded(&self) -> i128 {
        match pow10(self.scale as u32) {
            Some(f) => rounded_div(self.mantissa, f),
            None => 0,
        }
    }

    pub fn to_f64(&self) -> f64 {
        // Through text gives correctly rounded results, as PostgreSQL's numeric_float8 does.
        self.to_text().parse().unwrap_or(0.0)
    }

    pub fn from_f64(v: f64) -> Result<Numeric> {
        if !v.is_finite() {
            return Err(Error::feature_not_supported(
                "NaN and Infinity for type numeric",
            ));
        }
        // PostgreSQL converts with DBL_DIG (15) significant digits (`%.15g`).
        let mut buf = StackText::default();
        let _ = std::fmt::Write::write_fmt(&mut buf, format_args!("{:.*e}", 14, v));
        Numeric::parse(buf.as_str()).map(|n| n.normalize_scale_to_display())
    }

    pub fn from_f32(v: f32) -> Result<Numeric> {
        if !v.is_finite() {
            return Err(Error::feature_not_supported(
                "NaN and Infinity for type numeric",
            ));
        }
        let mut buf = StackText::default();
        let _ = std::fmt::Write::write_fmt(&mut buf, format_args!("{:.*e}", 5, v));
        Numeric::parse(buf.as_str()).map(|n| n.normalize_scale_to_display())
    }

    /// Drops trailing fractional zeros (float-to-numeric conversion shows none).
    fn normalize_scale_to_display(self) -> Numeric {
        let mut n = self;
        while n.scale > 0 && n.mantissa % 10 == 0 {
            n.mantissa /= 10;
            n.scale -= 1;
        }
        n
    }

    /// A canonical form for hashing: equal values give equal keys.
    pub fn canonical(&self) -> (i128, u16) {
        let n = self.normalize_scale_to_display();
        (n.mantissa, n.scale)
    }

    pub fn cmp_value(&self, other: &Numeric) -> Ordering {
        if self.scale == other.scale {
            return self.mantissa.cmp(&other.mantissa);
        }
        let scale = self.scale.max(other.scale);
        match (self.mantissa_at(scale), other.mantissa_at(scale)) {
            (Ok(a), Ok(b)) => a.cmp(&b),
            // Scaling overflowed: that side's magnitude is the larger one.
            (Err(_), _) => self.mantissa.signum().cmp(&0),
            (_, Err(_)) => 0.cmp(&other.mantissa.signum()),
        }
    }
}

/// A formatting target on the stack, so per-row conversions do not allocate.
struct StackText {
    buf: [u8; 64],
    len: usize,
}

impl Default for StackText {
    fn default() -> StackText {
        StackText {
            buf: [0; 64],
            len: 0,
        }
    }
}

impl StackText {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `round(a × 10^k / b)` (half away from zero) with 256-bit intermediates; `None` if the
/// scaled dividend passes 256 bits or the quotient passes 128. `b` is below 10^38 < 2^127,
/// so the running remainder shifted left still fits in a `u128`.
fn wide_scaled_div(a: u128, k: u32, b: u128) -> Option<u128> {
    if b == 0 {
        return None;
    }
    let mut n = [a as u64, (a >> 64) as u64, 0u64, 0u64];
    for _ in 0..k {
        let mut carry: u128 = 0;
        for limb in n.iter_mut() {
            let v = (*limb as u128) * 10 + carry;
            *limb = v as u64;
            carry = v >> 64;
        }
        if carry != 0 {
            return None;
        }
    }
    let mut q = [0u64; 4];
    let mut r: u128 = 0;
    for bit in (0..256).rev() {
        let (limb, off) = (bit / 64, bit % 64);
        r = (r << 1) | ((n[limb] >> off) & 1) as u128;
        if r >= b {
            r -= b;
            q[limb] |= 1 << off;
        }
    }
    if q[2] != 0 || q[3] != 0 {
        return None;
    }
    let quotient = (q[0] as u128) | ((q[1] as u128) << 64);
    // 2r >= b, without overflowing.
    if r >= b - r {
        quotient.checked_add(1)
    } else {
        Some(quotient)
    }
}

/// Integer division rounded half away from zero.
fn rounded_div(num: i128, den: i128) -> i128 {
    let q = num / den;
    let r = num % den;
    if r.unsigned_abs() * 2 >= den.unsigned_abs() {
        if (num < 0) != (den < 0) { q - 1 } else { q + 1 }
    } else {
        q
    }
}

impl PartialEq for Numeric {
    fn eq(&self, other: &Numeric) -> bool {
        self.cmp_value(other) == Ordering::Equal
    }
}
impl Eq for Numeric {}
impl PartialOrd for Numeric {
    fn partial_cmp(&self, other: &Numeric) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Numeric {
    fn cmp(&self, other: &Numeric) -> Ordering {
        self.cmp_value(other)
    }
}
impl std::hash::Hash for Numeric {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.canonical().hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Numeric {
        Numeric::parse(s).unwrap()
    }

    #[test]
    fn parse_and_print_keep_display_scale() {
        assert_eq!(n("10.50").to_text(), "10.50");
        assert_eq!(n("-0.05").to_text(), "-0.05");
        assert_eq!(n("1e3").to_text(), "1000");
        assert_eq!(n("1.5e-3").to_text(), "0.0015");
        assert_eq!(n(" 7 ").to_text(), "7");
        assert!(Numeric::parse("1.2.3").is_err());
        assert!(Numeric::parse("").is_err());
    }

    #[test]
    fn division_scale_matches_postgres() {
        // SELECT 1::numeric / 3  → 0.33333333333333333333
        assert_eq!(
            n("1").div(&n("3")).unwrap().to_text(),
            "0.33333333333333333333"
        );
        // SELECT 25017259::numeric / 5000 → 5003.4518000000000000
        assert_eq!(
            n("25017259").div(&n("5000")).unwrap().to_text(),
            "5003.4518000000000000"
        );
        // SELECT 10::numeric / 4 → 2.5000000000000000
        assert_eq!(
            n("10").div(&n("4")).unwrap().to_text(),
            "2.5000000000000000"
        );
        // SELECT 2::numeric / 3 → 0.66666666666666666667
        assert_eq!(
            n("2").div(&n("3")).unwrap().to_text(),
            "0.66666666666666666667"
        );
    }

    #[test]
    fn division_survives_wide_intermediates() {
        // SELECT 1e3 / (7 / 123456.789) → 17636684.142857142857244584642561 in PostgreSQL.
        let inner = n("7").div(&n("123456.789")).unwrap();
        assert_eq!(
            n("1e3").div(&inner).unwrap().to_text(),
            "17636684.142857142857244584642561"
        );
        assert_eq!(
            wide_scaled_div(1, 37, 3),
            Some(3333333333333333333333333333333333333)
        );
        assert_eq!(wide_scaled_div(1, 40, 3), None);
        assert_eq!(wide_scaled_div(5, 0, 10), Some(1));
        assert_eq!(wide_scaled_div(2, 0, 3), Some(1));
        assert_eq!(wide_scaled_div(1, 80, 1), None);
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(n("2.5").round(0).unwrap().to_text(), "3");
        assert_eq!(n("-2.5").round(0).unwrap().to_text(), "-3");
        assert_eq!(n("1.245").round(2).unwrap().to_text(), "1.25");
        assert_eq!(n("1234.5").round(-2).unwrap().to_text(), "1200");
        assert_eq!(n("-1.7").trunc(0).unwrap().to_text(), "-1");
    }

    #[test]
    fn typmod_overflow_is_an_error() {
        assert_eq!(n("123.456").apply_typmod(5, 2).unwrap().to_text(), "123.46");
        let err = n("1234.5").apply_typmod(5, 2).unwrap_err();
        assert_eq!(err.code, "22003");
    }
}
