//! Row keys for hashing: equal SQL values encode to equal bytes.
//!
//! Used by hash aggregation (GROUP BY), DISTINCT and COUNT(DISTINCT). NULLs encode as
//! one marker byte (they group together, as SQL's GROUP BY and DISTINCT require);
//! numerics, floats and intervals encode a canonical form so that `1.0 = 1.00`,
//! `-0 = 0` and `'1 day' = '24 hours'` fall into one group, as in PostgreSQL.

use super::vector::{Data, Vector};

/// Appends the key bytes of row `i` of `v` to `out`.
#[inline]
pub fn encode(v: &Vector, i: usize, out: &mut Vec<u8>) {
    if v.is_null(i) {
        out.push(0);
        return;
    }
    out.push(1);
    match &v.data {
        Data::Bool(x) => out.push(x[i] as u8),
        Data::I16(x) => out.extend_from_slice(&(x[i] as i64).to_le_bytes()),
        Data::I32(x) => out.extend_from_slice(&(x[i] as i64).to_le_bytes()),
        Data::I64(x) => out.extend_from_slice(&x[i].to_le_bytes()),
        Data::F32(x) => out.extend_from_slice(&canonical_f64(x[i] as f64).to_le_bytes()),
        Data::F64(x) => out.extend_from_slice(&canonical_f64(x[i]).to_le_bytes()),
        Data::Num(x) => x[i].write_key(out),
        Data::Text(t) => {
            let b = t.get(i);
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
        Data::Interval(x) => out.extend_from_slice(&x[i].sort_key().to_le_bytes()),
        Data::Array(a) => crate::types::array::write_key(a.blobs.get(i), a.elem, out),
        Data::Record(t) => crate::types::record::write_key(t.get(i), out),
        Data::Jsonb(t) => crate::types::jsonb::write_key(t.get(i), out),
    }
}

fn canonical_f64(v: f64) -> u64 {
    if v == 0.0 {
        0
    } else if v.is_nan() {
        f64::NAN.to_bits()
    } else {
        v.to_bits()
    }
}
