//! Join key filters: a hash join's build keys, handed to the scan on its probe side.
//!
//! An inner, semi or right hash join drops every probe row whose key is not among the
//! build side's keys. When the build side is small next to the probe side, the join
//! publishes those keys once it has read them, and the scan that produces the probe
//! key column tests each visible row against them before anything else: rows that could
//! never join are dropped before the scan's own filter runs and before their other
//! columns are copied (DuckDB and DataFusion call this dynamic or runtime filtering).
//!
//! The filter travels down the operator tree when the join is built
//! ([`super::Operator::push_key_filter`]): through filters, column-forwarding
//! projections and the sides of other joins whose rows keep their values, to the scan;
//! an operator that cannot pass it on refuses, and the join then keeps no filter. The
//! join reads its build side before it pulls its first probe batch, so the keys are
//! known before the scan's first batch. A filter belongs to one execution of the plan
//! (it is made when the operators are built), so a plan that runs again — a correlated
//! subplan — starts with a fresh one.
//!
//! A scan judges each filter on its first few thousand rows and stops testing one that
//! keeps nearly all of them (every probe key has a match, so the test is pure cost).
//!
//! Only integer keys are filtered: as a bitmap over `[min, max]` when the keys are dense
//! enough, a hash set otherwise. NULL never joins, so a NULL key is always dropped.

use std::sync::OnceLock;

use hashbrown::HashSet;

use super::vector::{Data, Vector};

type Hasher = foldhash::fast::FixedState;

/// A bitmap filter may take this many bits per key, or [`BITMAP_BITS_FREE`] bits in
/// all, whichever is more (a bit test beats a hash probe even on a sparse bitmap).
const BITS_PER_KEY_MAX: u64 = 64;
const BITMAP_BITS_FREE: u64 = 1 << 20;

/// The build keys of one join, set once the build side has been read.
#[derive(Default)]
pub struct KeyFilter {
    keys: OnceLock<KeySet>,
}

pub enum KeySet {
    Bitmap { min: i64, bits: Vec<u64> },
    Hash(HashSet<i64, Hasher>),
}

impl KeyFilter {
    /// Publishes the build keys (`count` of them, distinct).
    pub fn publish(&self, keys: impl Iterator<Item = i64> + Clone, count: usize) {
        let (mut min, mut max) = (i64::MAX, i64::MIN);
        for k in keys.clone() {
            min = min.min(k);
            max = max.max(k);
        }
        let set = match max.checked_sub(min) {
            Some(span)
                if count > 0
                    && (span as u64)
                        < (count as u64)
                            .saturating_mul(BITS_PER_KEY_MAX)
                            .max(BITMAP_BITS_FREE) =>
            {
                let mut bits = vec![0u64; (span as u64 / 64 + 1) as usize];
                for k in keys {
                    let at = (k - min) as u64;
                    bits[(at / 64) as usize] |= 1 << (at % 64);
                }
                KeySet::Bitmap { min, bits }
            }
            _ if count == 0 => KeySet::Bitmap {
                min: 0,
                bits: Vec::new(),
            },
            _ => {
                let mut set = HashSet::with_capacity_and_hasher(count, Hasher::default());
                set.extend(keys);
                KeySet::Hash(set)
            }
        };
        let _ = self.keys.set(set);
    }

    /// Keeps the rows `rows` (offsets from `base` in `column`) whose key may join; does
    /// nothing until the keys are published.
    pub fn retain(&self, column: &Vector, base: usize, rows: &mut Vec<u32>) {
        let Some(set) = self.keys.get() else { return };
        let live = |r: u32| !column.is_null(base + r as usize);
        match &column.data {
            Data::I16(v) => rows.retain(|&r| live(r) && set.contains(v[base + r as usize] as i64)),
            Data::I32(v) => rows.retain(|&r| live(r) && set.contains(v[base + r as usize] as i64)),
            Data::I64(v) => rows.retain(|&r| live(r) && set.contains(v[base + r as usize])),
            _ => {}
        }
    }
}

impl KeySet {
    #[inline]
    fn contains(&self, k: i64) -> bool {
        match self {
            KeySet::Bitmap { min, bits } => {
                let Some(at) = k.checked_sub(*min) else {
                    return false;
                };
                if at < 0 {
                    return false;
                }
                let at = at as u64;
                bits.get((at / 64) as usize)
                    .is_some_and(|w| w & (1 << (at % 64)) != 0)
            }
            KeySet::Hash(set) => set.contains(&k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(f: &KeyFilter, values: Vec<i64>, nulls: Option<Vec<bool>>) -> Vec<u32> {
        let column = Vector {
            data: Data::I64(values.clone()),
            nulls,
        };
        let mut rows: Vec<u32> = (0..values.len() as u32).collect();
        f.retain(&column, 0, &mut rows);
        rows
    }

    #[test]
    fn dense_keys_use_a_bitmap_and_sparse_ones_a_hash_set() {
        let dense = KeyFilter::default();
        dense.publish([3i64, 5, 9].into_iter(), 3);
        assert!(matches!(dense.keys.get(), Some(KeySet::Bitmap { .. })));
        assert_eq!(
            kept(&dense, vec![1, 3, 4, 5, 9, 10, -3], None),
            vec![1, 3, 4]
        );

        let sparse = KeyFilter::default();
        sparse.publish([i64::MIN, 0, i64::MAX].into_iter(), 3);
        let wide = KeyFilter::default();
        wide.publish([0i64, 1 << 30].into_iter(), 2);
        assert!(matches!(wide.keys.get(), Some(KeySet::Hash(_))));
        assert_eq!(kept(&wide, vec![1 << 30, 1, 0], None), vec![0, 2]);
        assert!(matches!(sparse.keys.get(), Some(KeySet::Hash(_))));
        assert_eq!(
            kept(&sparse, vec![i64::MIN, 1, i64::MAX, 0], None),
            vec![0, 2, 3]
        );
    }

    #[test]
    fn nulls_never_pass_and_unpublished_filters_keep_everything() {
        let f = KeyFilter::default();
        assert_eq!(kept(&f, vec![1, 2], None), vec![0, 1]);
        f.publish([1i64, 2].into_iter(), 2);
        assert_eq!(kept(&f, vec![1, 2], Some(vec![true, false])), vec![1]);
        let empty = KeyFilter::default();
        empty.publish(std::iter::empty(), 0);
        assert!(kept(&empty, vec![0, 1], None).is_empty());
    }
}
