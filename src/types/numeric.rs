//! NUMERIC: exact decimal arithmetic with PostgreSQL's scales, rounding, limits and rendering.
//!
//! A value is a signed mantissa and a decimal scale: `12.50` is `(1250, 2)`. The scale is the
//! *display scale* PostgreSQL keeps (`dscale`), so `1.50 + 1` prints `2.50`. Results follow
//! PostgreSQL's rules: `+`/`-` take the larger scale, `*` the sum of scales (rounded to
//! 16,383), `/` the scale chosen by `select_div_scale` (at least 16 significant digits, at
//! most 1,000); rounding is half away from zero. The limits are PostgreSQL's: up to 131,072
//! digits before the point and 16,383 after, beyond which `22003` "value overflows numeric
//! format".
//!
//! Two representations of one value set:
//! - `Small`: an `i128` mantissa below 10^38. Every value that fits is Small, so sums,
//!   comparisons and output of ordinary data run at integer speed and never allocate.
//! - `Big`: a `BigInt` mantissa (num-bigint) behind an `Arc`, for everything else.
//!
//! Each operation tries the `i128` path first and falls back to `BigInt` arithmetic only
//! when an intermediate would overflow. Every constructor normalises back to Small when
//! the mantissa fits, so a (mantissa, scale) pair has exactly one representation; equality
//! and hashing rely on that after stripping trailing fractional zeros (`1.0 = 1.00`).
//! Inputs are bounded by the limits before any `BigInt` is built, so no input can make
//! kiln allocate more than a few hundred kilobytes for one value.

use std::cmp::Ordering;
use std::sync::Arc;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

use crate::error::{Error, Result};

pub mod to_char;
mod transcendental;

/// Small mantissas stay strictly below this (38 decimal digits).
const SMALL_LIMIT: i128 = 100_000_000_000_000_000_000_000_000_000_000_000_000;
const SMALL_DIGITS_MAX: usize = 38;
/// PostgreSQL's NUMERIC_DSCALE_MAX: digits after the point.
pub const DSCALE_MAX: u16 = 16_383;
/// PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE: the most digits division chooses on its own.
pub const DISPLAY_SCALE_MAX: i32 = 1_000;
/// (NUMERIC_WEIGHT_MAX + 1) × DEC_DIGITS: digits before the point.
pub const INT_DIGITS_MAX: i64 = 131_072;
const MIN_SIG_DIGITS: i32 = 16;

#[derive(Clone, Debug)]
pub enum Numeric {
    /// `|mantissa| < 10^38`.
    Small { mantissa: i128, scale: u16 },
    /// A mantissa of 38 digits or more; never holds a value that fits `Small`.
    Big(Arc<BigNumeric>),
}

#[derive(Debug)]
pub struct BigNumeric {
    mantissa: BigInt,
    scale: u16,
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

fn pow10_big(n: u32) -> BigInt {
    BigInt::from(10u8).pow(n)
}

/// `m × 10^by`.
fn shift_big(m: &BigInt, by: u32) -> BigInt {
    if by == 0 {
        m.clone()
    } else {
        m * pow10_big(by)
    }
}

/// The small mantissa expressed at a larger scale, if it still fits an `i128`.
fn small_at(mantissa: i128, from: u16, to: u16) -> Option<i128> {
    debug_assert!(to >= from);
    pow10((to - from) as u32).and_then(|f| mantissa.checked_mul(f))
}

/// An upper bound on the decimal digits of `|m|`, exact within one.
fn digits_upper_bound(m: &BigInt) -> u64 {
    (m.bits() as f64 * std::f64::consts::LOG10_2) as u64 + 1
}

fn overflow() -> Error {
    Error::numeric_out_of_range("value overflows numeric format")
}

impl Numeric {
    pub const ZERO: Numeric = Numeric::Small {
        mantissa: 0,
        scale: 0,
    };

    /// A value from an `i128` mantissa, Small when it fits.
    pub fn new(mantissa: i128, scale: u16) -> Result<Numeric> {
        if scale > DSCALE_MAX {
            return Err(overflow());
        }
        if mantissa.unsigned_abs() < SMALL_LIMIT as u128 {
            Ok(Numeric::Small { mantissa, scale })
        } else {
            Numeric::from_big(BigInt::from(mantissa), scale as u32)
        }
    }

    /// A value from any mantissa: checks PostgreSQL's limits and picks the representation.
    fn from_big(mantissa: BigInt, scale: u32) -> Result<Numeric> {
        if scale > DSCALE_MAX as u32 {
            return Err(overflow());
        }
        if let Some(m) = mantissa.to_i128()
            && m.unsigned_abs() < SMALL_LIMIT as u128
        {
            return Ok(Numeric::Small {
                mantissa: m,
                scale: scale as u16,
            });
        }
        let digits_max = scale as u64 + INT_DIGITS_MAX as u64;
        if digits_upper_bound(&mantissa) > digits_max
            && mantissa.magnitude().to_str_radix(10).len() as u64 > digits_max
        {
            return Err(overflow());
        }
        Ok(Numeric::Big(Arc::new(BigNumeric {
            mantissa,
            scale: scale as u16,
        })))
    }

    pub fn from_i64(v: i64) -> Numeric {
        Numeric::Small {
            mantissa: v as i128,
            scale: 0,
        }
    }

    pub fn scale(&self) -> u16 {
        match self {
            Numeric::Small { scale, .. } => *scale,
            Numeric::Big(b) => b.scale,
        }
    }

    pub fn is_zero(&self) -> bool {
        matches!(self, Numeric::Small { mantissa: 0, .. })
    }

    pub fn signum(&self) -> i32 {
        match self {
            Numeric::Small { mantissa, .. } => mantissa.signum() as i32,
            Numeric::Big(b) => {
                if b.mantissa.is_negative() {
                    -1
                } else {
                    1
                }
            }
        }
    }

    /// The mantissa and scale as a `BigInt` pair (the slow path's view of any value).
    fn wide(&self) -> (BigInt, u32) {
        match self {
            Numeric::Small { mantissa, scale } => (BigInt::from(*mantissa), *scale as u32),
            Numeric::Big(b) => (b.mantissa.clone(), b.scale as u32),
        }
    }

    /// Calls `f` with the ASCII decimal digits of `|mantissa|` (`"0"` for zero).
    fn with_digits<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        match self {
            Numeric::Small { mantissa, .. } => {
                let mut buf = itoa::Buffer::new();
                f(buf.format(mantissa.unsigned_abs()).as_bytes())
            }
            Numeric::Big(b) => f(b.mantissa.magnitude().to_str_radix(10).as_bytes()),
        }
    }

    /// Appends the decimal digits (values 0–9, not ASCII) of `|mantissa|`: the binary
    /// output format regroups them into base 10000.
    pub fn digit_values(&self, out: &mut Vec<u8>) {
        self.with_digits(|d| out.extend(d.iter().map(|b| b - b'0')));
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
        let body_start = i;
        let mut digits = 0usize;
        let mut frac_digits: i64 = 0;
        let mut seen_point = false;
        while i < bytes.len() {
            let c = bytes[i];
            if c.is_ascii_digit() {
                digits += 1;
                if seen_point {
                    frac_digits += 1;
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
        let body = &bytes[body_start..i];
        let mut exponent: i64 = 0;
        if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
            exponent = parse_exponent(&bytes[i + 1..]).ok_or_else(bad)?;
            // PostgreSQL: |exponent| ≥ INT_MAX / 2 overflows before anything is built.
            if exponent.abs() >= (i32::MAX / 2) as i64 {
                return Err(overflow());
            }
            i = bytes.len();
        }
        if i != bytes.len() {
            return Err(bad());
        }
        let scale = frac_digits - exponent;
        if digits <= SMALL_DIGITS_MAX {
            let mut m: i128 = 0;
            for &c in body {
                if c != b'.' {
                    m = m * 10 + (c - b'0') as i128;
                }
            }
            return Numeric::from_scaled_i128(if negative { -m } else { m }, scale);
        }
        let ascii: Vec<u8> = body.iter().copied().filter(|&c| c != b'.').collect();
        Numeric::from_ascii_digits(negative, &ascii, scale)
    }

    /// `m × 10^-scale` for any `scale` (negative multiplies).
    fn from_scaled_i128(m: i128, scale: i64) -> Result<Numeric> {
        if scale > DSCALE_MAX as i64 {
            return Err(overflow());
        }
        if scale >= 0 {
            return Numeric::new(m, scale as u16);
        }
        if m == 0 {
            return Ok(Numeric::ZERO);
        }
        let up = -scale;
        if let Some(x) = u32::try_from(up)
            .ok()
            .and_then(pow10)
            .and_then(|f| m.checked_mul(f))
        {
            return Numeric::new(x, 0);
        }
        let int_digits = itoa::Buffer::new().format(m.unsigned_abs()).len() as i64 + up;
        if int_digits > INT_DIGITS_MAX {
            return Err(overflow());
        }
        Numeric::from_big(shift_big(&BigInt::from(m), up as u32), 0)
    }

    /// The value of the ASCII digit string `digits × 10^-scale`, limits checked before the
    /// mantissa is built.
    pub fn from_ascii_digits(negative: bool, digits: &[u8], scale: i64) -> Result<Numeric> {
        if scale > DSCALE_MAX as i64 {
            return Err(overflow());
        }
        let Some(first) = digits.iter().position(|&d| d != b'0') else {
            return Numeric::new(0, scale.max(0) as u16);
        };
        let significant = &digits[first..];
        if significant.len() as i64 - scale > INT_DIGITS_MAX {
            return Err(overflow());
        }
        if significant.len() <= SMALL_DIGITS_MAX {
            let m = significant
                .iter()
                .fold(0i128, |m, &c| m * 10 + (c - b'0') as i128);
            return Numeric::from_scaled_i128(if negative { -m } else { m }, scale);
        }
        let mut m = BigInt::parse_bytes(significant, 10)
            .ok_or_else(|| Error::internal("numeric digits"))?;
        if negative {
            m = -m;
        }
        if scale >= 0 {
            Numeric::from_big(m, scale as u32)
        } else {
            Numeric::from_big(shift_big(&m, (-scale) as u32), 0)
        }
    }

    /// Appends PostgreSQL's text form (`-12.50`) to `out`.
    pub fn write_text(&self, out: &mut Vec<u8>) {
        if self.signum() < 0 {
            out.push(b'-');
        }
        let scale = self.scale() as usize;
        self.with_digits(|digits| {
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
        });
    }

    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        self.write_text(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    pub fn add(&self, other: &Numeric) -> Result<Numeric> {
        if let (
            Numeric::Small {
                mantissa: a,
                scale: sa,
            },
            Numeric::Small {
                mantissa: b,
                scale: sb,
            },
        ) = (self, other)
        {
            let scale = (*sa).max(*sb);
            if let (Some(a), Some(b)) = (small_at(*a, *sa, scale), small_at(*b, *sb, scale))
                && let Some(m) = a.checked_add(b)
            {
                return Numeric::new(m, scale);
            }
        }
        let ((a, sa), (b, sb)) = (self.wide(), other.wide());
        let scale = sa.max(sb);
        Numeric::from_big(shift_big(&a, scale - sa) + shift_big(&b, scale - sb), scale)
    }

    /// `self += other`, in place when both are Small at one scale (a SUM over a
    /// `numeric(p,s)` column) — the aggregate hot path.
    #[inline]
    pub fn add_assign(&mut self, other: &Numeric) -> Result<()> {
        if let (
            Numeric::Small {
                mantissa: a,
                scale: sa,
            },
            Numeric::Small {
                mantissa: b,
                scale: sb,
            },
        ) = (&mut *self, other)
            && *sa == *sb
            && let Some(m) = a.checked_add(*b)
            && m.unsigned_abs() < SMALL_LIMIT as u128
        {
            *a = m;
            return Ok(());
        }
        *self = self.add(other)?;
        Ok(())
    }

    pub fn sub(&self, other: &Numeric) -> Result<Numeric> {
        self.add(&other.neg())
    }

    pub fn neg(&self) -> Numeric {
        match self {
            Numeric::Small { mantissa, scale } => Numeric::Small {
                mantissa: -mantissa,
                scale: *scale,
            },
            Numeric::Big(b) => Numeric::Big(Arc::new(BigNumeric {
                mantissa: -&b.mantissa,
                scale: b.scale,
            })),
        }
    }

    pub fn abs(&self) -> Numeric {
        if self.signum() < 0 {
            self.neg()
        } else {
            self.clone()
        }
    }

    pub fn mul(&self, other: &Numeric) -> Result<Numeric> {
        let scale = self.scale() as u32 + other.scale() as u32;
        if let (Numeric::Small { mantissa: a, .. }, Numeric::Small { mantissa: b, .. }) =
            (self, other)
            && let Some(m) = a.checked_mul(*b)
        {
            if scale <= DSCALE_MAX as u32 {
                return Numeric::new(m, scale as u16);
            }
            // PostgreSQL computes the exact product, then rounds what cannot be stored.
            return rescale_big(&BigInt::from(m), scale, DSCALE_MAX as i32, true);
        }
        let ((a, _), (b, _)) = (self.wide(), other.wide());
        let m = a * b;
        if scale <= DSCALE_MAX as u32 {
            Numeric::from_big(m, scale)
        } else {
            rescale_big(&m, scale, DSCALE_MAX as i32, true)
        }
    }

    /// Base-10000 weight and leading digit, as PostgreSQL's NumericVar has them.
    fn weight_and_first_digit(&self) -> (i32, i128) {
        if self.is_zero() {
            return (0, 0);
        }
        let scale = self.scale() as i32;
        self.with_digits(|digits| {
            let exponent = digits.len() as i32 - 1 - scale;
            let weight = exponent.div_euclid(4);
            let group_len = (exponent.rem_euclid(4) + 1) as usize;
            let mut first: i128 = 0;
            for k in 0..group_len {
                first = first * 10 + digits.get(k).map_or(0, |d| (d - b'0') as i128);
            }
            (weight, first)
        })
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
            .max(self.scale() as i32)
            .max(other.scale() as i32)
            .max(0);
        rscale.min(DISPLAY_SCALE_MAX)
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
        let k = rscale - self.scale() as i32 + other.scale() as i32;
        if let (Numeric::Small { mantissa: a, .. }, Numeric::Small { mantissa: b, .. }) =
            (self, other)
            && let Some(q) = small_div(*a, *b, k)
        {
            return Numeric::new(q, rscale as u16);
        }
        let ((a, _), (b, _)) = (self.wide(), other.wide());
        let (num, den) = if k >= 0 {
            (shift_big(&a, k as u32), b)
        } else {
            (a, shift_big(&b, (-k) as u32))
        };
        Numeric::from_big(rounded_div_big(&num, &den), rscale as u32)
    }

    /// Modulo with the dividend's sign (`x - trunc(x / y) * y`), at the larger scale.
    pub fn rem(&self, other: &Numeric) -> Result<Numeric> {
        if other.is_zero() {
            return Err(Error::division_by_zero());
        }
        if let (
            Numeric::Small {
                mantissa: a,
                scale: sa,
            },
            Numeric::Small {
                mantissa: b,
                scale: sb,
            },
        ) = (self, other)
        {
            let scale = (*sa).max(*sb);
            if let (Some(a), Some(b)) = (small_at(*a, *sa, scale), small_at(*b, *sb, scale)) {
                return Numeric::new(a % b, scale);
            }
        }
        let ((a, sa), (b, sb)) = (self.wide(), other.wide());
        let scale = sa.max(sb);
        Numeric::from_big(shift_big(&a, scale - sa) % shift_big(&b, scale - sb), scale)
    }

    /// Rounds half away from zero to `scale` digits (negative rounds left of the point).
    pub fn round(&self, scale: i32) -> Result<Numeric> {
        self.rescale(scale, true)
    }

    /// Truncates toward zero to `scale` digits.
    pub fn trunc(&self, scale: i32) -> Result<Numeric> {
        self.rescale(scale, false)
    }

    fn rescale(&self, scale: i32, round: bool) -> Result<Numeric> {
        // PostgreSQL clamps the requested scale to what a numeric can hold.
        let scale = scale.clamp(-(INT_DIGITS_MAX as i32), DSCALE_MAX as i32);
        if let Numeric::Small { mantissa, scale: s } = *self {
            if scale >= s as i32 {
                if let Some(m) = small_at(mantissa, s, scale as u16) {
                    return Numeric::new(m, scale as u16);
                }
            } else {
                let drop = (s as i32 - scale) as u32;
                let q = match pow10(drop) {
                    Some(f) if round => rounded_div(mantissa, f),
                    Some(f) => mantissa / f,
                    // |mantissa| < 10^38 ≤ 10^(drop - 1): rounds and truncates to zero.
                    None => 0,
                };
                if scale >= 0 {
                    return Numeric::new(q, scale as u16);
                }
                if q == 0 {
                    return Ok(Numeric::ZERO);
                }
                if let Some(m) = pow10((-scale) as u32).and_then(|f| q.checked_mul(f)) {
                    return Numeric::new(m, 0);
                }
            }
        }
        let (m, s) = self.wide();
        rescale_big(&m, s, scale, round)
    }

    pub fn floor(&self) -> Result<Numeric> {
        self.integer_part(false)
    }

    pub fn ceil(&self) -> Result<Numeric> {
        self.integer_part(true)
    }

    fn integer_part(&self, up: bool) -> Result<Numeric> {
        if let Numeric::Small { mantissa, scale } = *self {
            // Past 10^38 the divisor exceeds any small mantissa: floor is 0 or -1.
            let f = pow10(scale as u32).unwrap_or(i128::MAX);
            let q = mantissa.div_euclid(f);
            let bump = up && mantissa.rem_euclid(f) != 0;
            return Numeric::new(if bump { q + 1 } else { q }, 0);
        }
        let (m, s) = self.wide();
        let f = pow10_big(s);
        let q = if up { m.div_ceil(&f) } else { m.div_floor(&f) };
        Numeric::from_big(q, 0)
    }

    /// The integer value, if this is an integer within `i64`.
    fn to_integer_i64(&self) -> Option<i64> {
        let whole = self.trunc(0).ok()?;
        if whole.cmp_value(self) != Ordering::Equal {
            return None;
        }
        match whole {
            Numeric::Small { mantissa, .. } => i64::try_from(mantissa).ok(),
            Numeric::Big(_) => None,
        }
    }

    /// An estimate of `log10(|self|)` (0 for zero), good to a few digits.
    fn log10_estimate(&self) -> f64 {
        if self.is_zero() {
            return 0.0;
        }
        let scale = self.scale() as f64;
        self.with_digits(|d| {
            let lead: f64 = std::str::from_utf8(&d[..d.len().min(17)])
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(1.0);
            lead.log10() + (d.len() - d.len().min(17)) as f64 - scale
        })
    }

    /// `self ^ exp`, PostgreSQL's `numeric ^ numeric`. An integer exponent within 32 bits
    /// (`power_var_int`): the result scale is at least 16 and the base's scale (at most
    /// 1,000), and the value is the exact power rounded to it (the product is carried at a
    /// working precision of that scale plus the result's integer digits plus 30 guard
    /// digits, so huge exponents of long bases stay bounded). Any other exponent goes
    /// through `exp(exp × ln self)` (transcendental.rs).
    pub fn power(&self, exp: &Numeric) -> Result<Numeric> {
        let invalid = |m: &str| Error::new("2201F", m.to_string());
        if self.is_zero() && exp.signum() < 0 {
            return Err(invalid("zero raised to a negative power is undefined"));
        }
        let Some(e) = exp.to_integer_i64().filter(|e| i32::try_from(*e).is_ok()) else {
            if self.is_zero() {
                return Numeric::new(0, MIN_SIG_DIGITS as u16);
            }
            let mut negative = false;
            if self.signum() < 0 {
                if exp.trunc(0)?.cmp_value(exp) != Ordering::Equal {
                    return Err(invalid(
                        "a negative number raised to a non-integer power yields a complex result",
                    ));
                }
                negative = !exp.rem(&Numeric::from_i64(2))?.is_zero();
            }
            return self.power_general(exp, negative);
        };
        let rscale = (MIN_SIG_DIGITS.max(self.scale() as i32)).min(DISPLAY_SCALE_MAX);
        if e == 0 {
            return Numeric::from_big(pow10_big(rscale as u32), rscale as u32);
        }
        if self.is_zero() {
            return Numeric::new(0, rscale as u16);
        }
        // Decimal weight of the result: overflow and underflow are known up front.
        let weight = e as f64 * self.log10_estimate();
        if weight > INT_DIGITS_MAX as f64 + 1.0 {
            return Err(overflow());
        }
        if weight + 1.0 < -(rscale as f64) {
            return Numeric::new(0, rscale as u16);
        }
        let working = (rscale as i64 + weight.max(0.0) as i64 + 30).max(30) as u64;
        let (base_m, base_s) = self.wide();
        // Square-and-multiply on (mantissa, scale), rounding each product to `working`
        // significant digits.
        let keep = |m: BigInt, s: i64| -> (BigInt, i64) {
            let digits = digits_upper_bound(&m);
            if digits <= working + 1 {
                return (m, s);
            }
            let drop = (digits - working) as u32;
            (rounded_div_big(&m, &pow10_big(drop)), s - drop as i64)
        };
        let mut result: (BigInt, i64) = (BigInt::from(1u8), 0);
        let mut square: (BigInt, i64) = (base_m, base_s as i64);
        let mut n = e.unsigned_abs();
        loop {
            if n & 1 == 1 {
                result = keep(&result.0 * &square.0, result.1 + square.1);
            }
            n >>= 1;
            if n == 0 {
                break;
            }
            square = keep(&square.0 * &square.0, square.1 * 2);
        }
        let (m, s) = result;
        let power = if s >= 0 {
            rescale_wide(&m, s as u64)?
        } else {
            Numeric::from_big(shift_big(&m, (-s) as u32), 0)?
        };
        if e > 0 {
            power.round(rscale)
        } else {
            Numeric::from_i64(1).div_to_scale(&power, rscale)
        }
    }

    /// PostgreSQL's `sqrt(numeric)`: at least 16 significant digits and the argument's
    /// scale (at most 1,000), correctly rounded.
    pub fn sqrt(&self) -> Result<Numeric> {
        if self.signum() < 0 {
            return Err(Error::new(
                "2201F",
                "cannot take square root of a negative number",
            ));
        }
        let (weight, _) = self.weight_and_first_digit();
        let sweight = (weight + 1) * 4 / 2 - 1;
        let rscale = (MIN_SIG_DIGITS - sweight)
            .max(self.scale() as i32)
            .clamp(0, DISPLAY_SCALE_MAX);
        // floor(sqrt(value) · 10^(rscale + 1)), then round on the extra digit.
        let (m, s) = self.wide();
        let e = 2 * (rscale as i64 + 1) - s as i64;
        let radicand = if e >= 0 {
            shift_big(&m, e as u32)
        } else {
            m / pow10_big((-e) as u32)
        };
        let root = radicand.sqrt();
        let rounded = (root + BigInt::from(5u8)) / BigInt::from(10u8);
        Numeric::from_big(rounded, rscale as u32)
    }

    /// The square root rounded to `rscale` digits (PostgreSQL's sqrt_var).
    pub fn sqrt_to_scale(&self, rscale: i32) -> Result<Numeric> {
        if self.signum() < 0 {
            return Err(Error::new(
                "2201F",
                "cannot take square root of a negative number",
            ));
        }
        let rscale = rscale.clamp(0, DISPLAY_SCALE_MAX);
        let (m, s) = self.wide();
        let e = 2 * (rscale as i64 + 1) - s as i64;
        let radicand = if e >= 0 {
            shift_big(&m, e as u32)
        } else {
            m / pow10_big((-e) as u32)
        };
        let root = radicand.sqrt();
        let rounded = (root + BigInt::from(5u8)) / BigInt::from(10u8);
        Numeric::from_big(rounded, rscale as u32)
    }

    /// Coerces to `numeric(precision, scale)`: round, then check the integer digits fit.
    pub fn apply_typmod(&self, precision: i32, scale: i32) -> Result<Numeric> {
        let rounded = self.round(scale)?;
        let int_digits_max = precision - scale;
        let digits_max = (int_digits_max + rounded.scale() as i32).max(0) as usize;
        let too_big = !rounded.is_zero() && rounded.with_digits(|d| d.len() > digits_max);
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

    /// Rounds to an integer (half away from zero) for casts to integer types; `None` when
    /// the result passes 38 digits (out of range for every integer type).
    pub fn to_i128_rounded(&self) -> Option<i128> {
        match self.round(0) {
            Ok(Numeric::Small { mantissa, .. }) => Some(mantissa),
            _ => None,
        }
    }

    /// PostgreSQL's numeric_float8: through the text form (correctly rounded), and an
    /// out-of-range error where strtod would overflow or underflow to zero.
    pub fn to_f64(&self) -> Result<f64> {
        let text = self.to_text();
        let v: f64 = text.parse().unwrap_or(0.0);
        if v.is_infinite() || (v == 0.0 && !self.is_zero()) {
            return Err(float_range(&text, "double precision"));
        }
        Ok(v)
    }

    /// PostgreSQL's numeric_float4, like `to_f64`.
    pub fn to_f32(&self) -> Result<f32> {
        let text = self.to_text();
        let v: f32 = text.parse().unwrap_or(0.0);
        if v.is_infinite() || (v == 0.0 && !self.is_zero()) {
            return Err(float_range(&text, "real"));
        }
        Ok(v)
    }

    /// PostgreSQL's float8 -> numeric: DBL_DIG (15) significant digits (`%.15g`).
    pub fn from_f64(v: f64) -> Result<Numeric> {
        Numeric::from_float(v, v.is_finite(), v.is_normal(), 15)
    }

    /// PostgreSQL's float4 -> numeric: FLT_DIG (6) significant digits (`%.6g`).
    pub fn from_f32(v: f32) -> Result<Numeric> {
        Numeric::from_float(v, v.is_finite(), v.is_normal(), 6)
    }

    /// `%.{digits}g` of a float as a numeric. Rounding ryu's shortest form gives those
    /// digits except on a midpoint (see `from_shortest`), where exact formatting
    /// decides. Subnormals carry fewer bits than the digits need, so they always take
    /// the exact path.
    fn from_float<F: ryu::Float + std::fmt::LowerExp>(
        v: F,
        finite: bool,
        normal: bool,
        digits: u32,
    ) -> Result<Numeric> {
        if !finite {
            return Err(Error::feature_not_supported(
                "NaN and Infinity for type numeric",
            ));
        }
        if normal
            && let Some(n) = Numeric::from_shortest(ryu::Buffer::new().format_finite(v), digits)
        {
            return n;
        }
        Numeric::from_float_exact(v, digits)
    }

    /// `%.{digits}g` by exact formatting: the slow path of `from_float`.
    fn from_float_exact(v: impl std::fmt::LowerExp, digits: u32) -> Result<Numeric> {
        let mut buf = StackText::default();
        let precision = digits.saturating_sub(1) as usize;
        let _ = std::fmt::Write::write_fmt(&mut buf, format_args!("{:.*e}", precision, v));
        Numeric::parse(buf.as_str())?.strip_fraction_zeros()
    }

    /// The float whose shortest round-trip form ryu printed (`4849.63`, `1e300`,
    /// `-1.5e-7`), rounded to `digits_max` significant digits as `%.*g` would round the
    /// exact binary value, without trailing fractional zeros (as `%g` prints them).
    /// Only for normal floats, and `digits_max` at most the type's DIG (15 for f64, 6
    /// for f32): then the decimal grid is coarser than the float's spacing.
    ///
    /// Rounding the shortest form gives the same digits as rounding the exact value,
    /// except when the shortest form sits exactly on a rounding midpoint (the digits past
    /// `digits_max` are a 5 and zeros): any midpoint strictly between the two would be a
    /// shorter or closer round-trip form than the one ryu chose. That case returns `None`
    /// and the caller formats exactly.
    fn from_shortest(text: &str, digits_max: u32) -> Option<Result<Numeric>> {
        let (negative, text) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (body, exp) = match text.split_once('e') {
            Some((b, e)) => (b, e.parse::<i64>().ok()?),
            None => (text, 0),
        };
        let mut mantissa: u64 = 0;
        let mut digits = 0;
        let mut frac: i64 = 0;
        let mut seen_point = false;
        for c in body.bytes() {
            match c {
                b'.' => seen_point = true,
                b'0'..=b'9' => {
                    if mantissa != 0 || c != b'0' {
                        digits += 1;
                    }
                    // Shortest forms have at most 17 digits (plus a `.0`); more would
                    // not fit the u64.
                    if digits > 19 {
                        return None;
                    }
                    mantissa = mantissa * 10 + (c - b'0') as u64;
                    frac += seen_point as i64;
                }
                _ => return None,
            }
        }
        let mut scale = frac - exp;
        if digits > digits_max {
            let drop = digits - digits_max;
            let unit = 10u64.pow(drop);
            let (q, r) = (mantissa / unit, mantissa % unit);
            if r * 2 == unit {
                return None;
            }
            mantissa = if r * 2 > unit { q + 1 } else { q };
            scale -= drop as i64;
        }
        while scale > 0 && mantissa.is_multiple_of(10) {
            mantissa /= 10;
            scale -= 1;
        }
        let m = mantissa as i128;
        Some(Numeric::from_scaled_i128(
            if negative { -m } else { m },
            scale,
        ))
    }

    /// Drops trailing fractional zeros: the canonical form of a value (float-to-numeric
    /// conversion also shows none).
    fn strip_fraction_zeros(&self) -> Result<Numeric> {
        match self {
            Numeric::Small { mantissa, scale } => {
                let (mut m, mut s) = (*mantissa, *scale);
                // 64-bit division where the mantissa allows (128-bit is a library call).
                if let Ok(mut m64) = i64::try_from(m) {
                    while s > 0 && m64 % 10 == 0 {
                        m64 /= 10;
                        s -= 1;
                    }
                    m = m64 as i128;
                }
                while s > 0 && m % 10 == 0 {
                    m /= 10;
                    s -= 1;
                }
                Ok(Numeric::Small {
                    mantissa: m,
                    scale: s,
                })
            }
            Numeric::Big(b) => {
                let zeros =
                    self.with_digits(|d| d.iter().rev().take_while(|&&c| c == b'0').count());
                let drop = zeros.min(b.scale as usize) as u32;
                if drop == 0 {
                    return Ok(self.clone());
                }
                Numeric::from_big(&b.mantissa / pow10_big(drop), b.scale as u32 - drop)
            }
        }
    }

    /// Appends a hash key: equal values (`1.0`, `1.00`) give equal bytes, and the key is
    /// self-delimiting so that several columns can be concatenated.
    pub fn write_key(&self, out: &mut Vec<u8>) {
        match self.strip_fraction_zeros().unwrap_or_else(|_| self.clone()) {
            Numeric::Small { mantissa, scale } => {
                out.push(0);
                out.extend_from_slice(&mantissa.to_le_bytes());
                out.extend_from_slice(&scale.to_le_bytes());
            }
            Numeric::Big(b) => {
                let bytes = b.mantissa.to_signed_bytes_le();
                out.push(1);
                out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                out.extend_from_slice(&bytes);
                out.extend_from_slice(&b.scale.to_le_bytes());
            }
        }
    }

    pub fn cmp_value(&self, other: &Numeric) -> Ordering {
        if let (
            Numeric::Small {
                mantissa: a,
                scale: sa,
            },
            Numeric::Small {
                mantissa: b,
                scale: sb,
            },
        ) = (self, other)
        {
            if sa == sb {
                return a.cmp(b);
            }
            let scale = (*sa).max(*sb);
            if let (Some(x), Some(y)) = (small_at(*a, *sa, scale), small_at(*b, *sb, scale)) {
                return x.cmp(&y);
            }
        }
        let by_sign = self.signum().cmp(&other.signum());
        if by_sign != Ordering::Equal {
            return by_sign;
        }
        let ((a, sa), (b, sb)) = (self.wide(), other.wide());
        let scale = sa.max(sb);
        shift_big(&a, scale - sa).cmp(&shift_big(&b, scale - sb))
    }
}

fn float_range(text: &str, type_name: &str) -> Error {
    Error::numeric_out_of_range(format!("\"{text}\" is out of range for type {type_name}"))
}

/// The exponent after `e`: an optional sign and digits, saturating (strtol's clamping).
fn parse_exponent(b: &[u8]) -> Option<i64> {
    let (negative, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = digits.iter().fold(0i64, |v, &c| {
        v.saturating_mul(10).saturating_add((c - b'0') as i64)
    });
    Some(if negative { -v } else { v })
}

/// `m × 10^-scale` as a value, rounding away digits past what a numeric can hold.
fn rescale_wide(m: &BigInt, scale: u64) -> Result<Numeric> {
    if scale <= DSCALE_MAX as u64 {
        return Numeric::from_big(m.clone(), scale as u32);
    }
    let drop = scale - DSCALE_MAX as u64;
    if drop > digits_upper_bound(m) {
        return Ok(Numeric::ZERO);
    }
    Numeric::from_big(
        rounded_div_big(m, &pow10_big(drop as u32)),
        DSCALE_MAX as u32,
    )
}

/// `m × 10^-scale` rounded (half away from zero) or truncated to `to` digits.
fn rescale_big(m: &BigInt, scale: u32, to: i32, round: bool) -> Result<Numeric> {
    if to >= scale as i32 {
        return Numeric::from_big(shift_big(m, (to - scale as i32) as u32), to as u32);
    }
    let drop = (scale as i64 - to as i64) as u32;
    let q = if digits_upper_bound(m) < drop as u64 {
        // |m| < 10^(drop - 1): the result rounds and truncates to zero.
        BigInt::zero()
    } else {
        let f = pow10_big(drop);
        if round { rounded_div_big(m, &f) } else { m / f }
    };
    if to >= 0 {
        Numeric::from_big(q, to as u32)
    } else if q.is_zero() {
        Ok(Numeric::ZERO)
    } else {
        Numeric::from_big(shift_big(&q, (-to) as u32), 0)
    }
}

/// `round(a × 10^k / b)` on the small path, `None` when an intermediate passes 128 bits
/// (in 256-bit intermediates first, before falling back to `BigInt`).
fn small_div(a: i128, b: i128, k: i32) -> Option<i128> {
    if k < 0 {
        let den = pow10((-k) as u32).and_then(|f| b.checked_mul(f))?;
        return Some(rounded_div(a, den));
    }
    if let Some(num) = pow10(k as u32).and_then(|f| a.checked_mul(f)) {
        return Some(rounded_div(num, b));
    }
    let q = wide_scaled_div(a.unsigned_abs(), k as u32, b.unsigned_abs())?;
    let q = i128::try_from(q).ok()?;
    Some(if (a < 0) != (b < 0) { -q } else { q })
}

/// Integer division rounded half away from zero.
fn rounded_div_big(num: &BigInt, den: &BigInt) -> BigInt {
    let (q, r) = num.div_rem(den);
    if (r.abs() << 1u32) >= den.abs() {
        if num.is_negative() != den.is_negative() {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
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
    // 64-bit division where the operands allow (128-bit is a library call).
    if let (Ok(n), Ok(d)) = (i64::try_from(num), i64::try_from(den))
        && n != i64::MIN
    {
        let (q, r) = (n / d, n % d);
        let q = if r.unsigned_abs() * 2 >= d.unsigned_abs() {
            if (n < 0) != (d < 0) { q - 1 } else { q + 1 }
        } else {
            q
        };
        return q as i128;
    }
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
        let mut key = Vec::new();
        self.write_key(&mut key);
        key.hash(state);
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

    #[test]
    fn past_38_digits_switches_to_bigint_and_back() {
        let big = n("99999999999999999999999999999999999999");
        let one = n("1");
        let sum = big.add(&one).unwrap();
        assert!(matches!(sum, Numeric::Big(_)));
        assert_eq!(sum.to_text(), "100000000000000000000000000000000000000");
        // Back under 10^38 the value is Small again: one representation per value.
        let back = sum.sub(&one).unwrap();
        assert!(matches!(back, Numeric::Small { .. }));
        assert_eq!(back, big);
        let mut acc = big.clone();
        acc.add_assign(&big).unwrap();
        assert_eq!(acc.to_text(), "199999999999999999999999999999999999998");
        // Product of two 50-digit numbers, exactly.
        let a = n("123456789012345678901234567890123456789012345678901234567890");
        let b = n("98765432109876543210987654321098765432109876543210");
        assert_eq!(
            a.mul(&b).unwrap().to_text(),
            "12193263113702179522618503273386678859451150739156241426605611949397448712086533622923332237463801111263526900"
        );
        assert_eq!(n("1e100").div(&n("3.0")).unwrap().to_text().len(), 102);
        assert_eq!(
            n("1e60")
                .add(&n("7"))
                .unwrap()
                .rem(&n("1e30").add(&n("3")).unwrap())
                .unwrap()
                .to_text(),
            "16"
        );
    }

    #[test]
    fn limits_are_postgres_limits() {
        assert!(Numeric::parse("1e131071").is_ok());
        assert_eq!(Numeric::parse("1e131072").unwrap_err().code, "22003");
        assert_eq!(n("1e-16383").scale(), 16383);
        assert_eq!(Numeric::parse("1e-16384").unwrap_err().code, "22003");
        assert_eq!(Numeric::parse("0e-20000").unwrap_err().code, "22003");
        assert_eq!(n("0e5000000").to_text(), "0");
        assert_eq!(
            Numeric::parse("1e99999999999999999999").unwrap_err().code,
            "22003"
        );
        assert_eq!(Numeric::parse("1e").unwrap_err().code, "22P02");
        assert_eq!(
            Numeric::parse(&"9".repeat(131073)).unwrap_err().code,
            "22003"
        );
        // The exact product is rounded to the 16,383 digits a numeric can keep.
        assert!(n("1e-10000").mul(&n("1e-10000")).unwrap().is_zero());
        assert_eq!(n("1e-10000").mul(&n("1e-10000")).unwrap().scale(), 16383);
        let huge = n("1e131071");
        assert_eq!(huge.mul(&n("10")).unwrap_err().code, "22003");
    }

    #[test]
    fn big_values_round_compare_and_convert() {
        assert_eq!(
            n("1e100").round(-99).unwrap().to_text(),
            format!("1{}", "0".repeat(100))
        );
        assert_eq!(
            n("1.99e100").trunc(-99).unwrap().to_text(),
            format!("19{}", "0".repeat(99))
        );
        assert!(n("1e100").round(-2500).unwrap().is_zero());
        assert_eq!(n("1.5").round(2500).unwrap().scale(), 2500);
        assert_eq!(
            n("1.5e100").ceil().unwrap().to_text(),
            format!("15{}", "0".repeat(99))
        );
        assert_eq!(n("-1.5e-100").floor().unwrap().to_text(), "-1");
        assert_eq!(n("-1.5e-100").ceil().unwrap().to_text(), "0");
        assert_eq!(n("1e50").cmp_value(&n("-1e60")), Ordering::Greater);
        assert_eq!(
            n("1e50").cmp_value(&n("1e50").add(&n("1e-50")).unwrap()),
            Ordering::Less
        );
        assert_eq!(
            n("1e40"),
            n("10000000000000000000000000000000000000000.000000")
        );
        let mut k1 = Vec::new();
        let mut k2 = Vec::new();
        n("1e40").write_key(&mut k1);
        n("10000000000000000000000000000000000000000.000000").write_key(&mut k2);
        assert_eq!(k1, k2);
        assert_eq!(n("1e300").to_f64().unwrap(), 1e300);
        assert_eq!(n("1e400").to_f64().unwrap_err().code, "22003");
        assert_eq!(n("1e-400").to_f64().unwrap_err().code, "22003");
        assert_eq!(n("1e50").to_f32().unwrap_err().code, "22003");
        assert_eq!(
            Numeric::from_f64(1e300).unwrap().to_text(),
            format!("1{}", "0".repeat(300))
        );
        assert_eq!(n("1e100").to_i128_rounded(), None);
        assert_eq!(
            n("123456789012345678901234567890123456789012.000000001").to_i128_rounded(),
            None
        );
        let many_zeros = n(&format!("7.{}", "0".repeat(60)));
        assert_eq!(many_zeros.to_i128_rounded(), Some(7));
        assert_eq!(
            n("1e100").apply_typmod(101, 0).unwrap().to_text().len(),
            101
        );
        assert_eq!(n("1e100").apply_typmod(100, 0).unwrap_err().code, "22003");
    }

    #[test]
    fn float_conversion_uses_15_and_6_significant_digits() {
        for (v, want) in [
            (4849.63, "4849.63"),
            (-0.001, "-0.001"),
            (1e300, &format!("1{}", "0".repeat(300))[..]),
            (1.5e-7, "0.00000015"),
            (0.1 + 0.2, "0.3"),
            (1.0 / 3.0, "0.333333333333333"),
            (123456789012345678.0, "123456789012346000"),
            // 16 and 17 digit shortest forms, rounded as %.15g rounds the exact value.
            (37.0 / 7.0 - 50.0, "-44.7142857142857"),
            (2.0 / 3.0, "0.666666666666667"),
            (0.1 + 0.7, "0.8"),
            // Shortest forms on a midpoint: the exact value decides (both ways).
            (1.000000000000005, "1.00000000000001"),
            (123.4567890123455, "123.456789012345"),
            (2.5, "2.5"),
            (100.0, "100"),
        ] {
            assert_eq!(Numeric::from_f64(v).unwrap().to_text(), want, "{v}");
        }
        assert_eq!(Numeric::from_f32(1.1f32).unwrap().to_text(), "1.1");
        assert_eq!(
            Numeric::from_f32(1.0f32 / 3.0).unwrap().to_text(),
            "0.333333"
        );
        assert_eq!(
            Numeric::from_f32(3.4e38).unwrap().to_text(),
            format!("34{}", "0".repeat(37))
        );
        assert_eq!(rounded_div(-25, 10), -3);
        assert_eq!(rounded_div(25, -10), -3);
        assert_eq!(rounded_div(24, 10), 2);
        assert_eq!(rounded_div(i64::MIN as i128, 10), -922337203685477581);
    }

    #[test]
    fn shortest_form_rounding_agrees_with_exact_formatting() {
        // A xorshift walk over bit patterns, plus the quotients the benchmarks produce.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut checked = 0;
        for i in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = if i % 2 == 0 {
                f64::from_bits(x)
            } else {
                ((i * 37) % 1000) as f64 / 7.0 - 50.0 + (x % 1000) as f64 * 1e-9
            };
            if !v.is_finite() {
                continue;
            }
            let fast = Numeric::from_f64(v).unwrap();
            let exact = Numeric::from_float_exact(v, 15).unwrap();
            assert_eq!(fast.to_text(), exact.to_text(), "{v:e}");
            let w = v as f32;
            if w.is_finite() && w != 0.0 {
                let fast = Numeric::from_f32(w).unwrap();
                let exact = Numeric::from_float_exact(w, 6).unwrap();
                assert_eq!(fast.to_text(), exact.to_text(), "{w:e}");
            }
            checked += 1;
        }
        assert!(checked > 100_000);
    }
}
