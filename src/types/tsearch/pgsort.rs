//! PostgreSQL's own quicksort, reproduced step by step. It is not stable, and where
//! PostgreSQL sorts elements that compare equal but differ (a position's weights in
//! tsvector input, operands with and without `:*` in ts_rank, a rewritten query's
//! children), the order they end up in is visible in its answers; kiln sorts those
//! with exactly this algorithm so its answers are the same. Used by `vector`, `rank`
//! and `rewrite`.

use std::cmp::Ordering;

/// PostgreSQL's `qsort` (`sort_template.h`: Bentley–McIlroy quicksort with insertion
/// sort below 7 elements, median-of-three / ninther pivots and an early exit for sorted
/// input). It recurses into the smaller part only (depth at most log2 n).
pub(super) fn pg_qsort<T>(data: &mut [T], cmp: &dyn Fn(&T, &T) -> Ordering) {
    let mut lo = 0usize;
    let mut n = data.len();
    loop {
        let a = &mut data[lo..lo + n];
        if n < 7 {
            for m in 1..n {
                let mut l = m;
                while l > 0 && cmp(&a[l - 1], &a[l]) == Ordering::Greater {
                    a.swap(l, l - 1);
                    l -= 1;
                }
            }
            return;
        }
        if (1..n).all(|m| cmp(&a[m - 1], &a[m]) != Ordering::Greater) {
            return;
        }
        let med3 = |a: &[T], x: usize, y: usize, z: usize| {
            if cmp(&a[x], &a[y]) == Ordering::Less {
                if cmp(&a[y], &a[z]) == Ordering::Less {
                    y
                } else if cmp(&a[x], &a[z]) == Ordering::Less {
                    z
                } else {
                    x
                }
            } else if cmp(&a[y], &a[z]) == Ordering::Greater {
                y
            } else if cmp(&a[x], &a[z]) == Ordering::Less {
                x
            } else {
                z
            }
        };
        let mut pm = n / 2;
        if n > 7 {
            let mut pl = 0;
            let mut pn = n - 1;
            if n > 40 {
                let d = n / 8;
                pl = med3(a, pl, pl + d, pl + 2 * d);
                pm = med3(a, pm - d, pm, pm + d);
                pn = med3(a, pn - 2 * d, pn - d, pn);
            }
            pm = med3(a, pl, pm, pn);
        }
        a.swap(0, pm);
        let (mut pa, mut pb) = (1usize, 1usize);
        let (mut pc, mut pd) = (n - 1, n - 1);
        loop {
            while pb <= pc {
                match cmp(&a[pb], &a[0]) {
                    Ordering::Greater => break,
                    Ordering::Equal => {
                        a.swap(pa, pb);
                        pa += 1;
                    }
                    Ordering::Less => {}
                }
                pb += 1;
            }
            while pb <= pc {
                match cmp(&a[pc], &a[0]) {
                    Ordering::Less => break,
                    Ordering::Equal => {
                        a.swap(pc, pd);
                        pd -= 1;
                    }
                    Ordering::Greater => {}
                }
                pc -= 1;
            }
            if pb > pc {
                break;
            }
            a.swap(pb, pc);
            pb += 1;
            pc -= 1;
        }
        let d1 = pa.min(pb - pa);
        for i in 0..d1 {
            a.swap(i, pb - d1 + i);
        }
        let d1 = (pd - pc).min(n - pd - 1);
        for i in 0..d1 {
            a.swap(pb + i, n - d1 + i);
        }
        let d1 = pb - pa;
        let d2 = pd - pc;
        if d1 <= d2 {
            if d1 > 1 {
                pg_qsort(&mut a[..d1], cmp);
            }
            if d2 <= 1 {
                return;
            }
            lo += n - d2;
            n = d2;
        } else {
            if d2 > 1 {
                pg_qsort(&mut a[n - d2..], cmp);
            }
            if d1 <= 1 {
                return;
            }
            n = d1;
        }
    }
}
