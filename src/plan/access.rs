//! Access paths: whether a table scan reads through one of the table's indexes.
//!
//! A scan's filter is split into conjuncts; a conjunct `column = value` or `column IN
//! (values)`, where the value is fixed for the whole scan (a literal, a parameter, a
//! correlated subplan's outer value) and has the column's type, can be answered by an
//! index whose key starts with that column. Each index is scored by how many of its
//! leading key columns are matched (all of a unique index's columns: at most one row
//! per key); the best one wins, unless the statistics say the lookup would return more
//! than a fifth of the table, where reading everything is cheaper. The conjuncts the
//! lookup answers leave the filter; the rest are tested on the rows it finds.
//!
//! A key part that is an expression (`lower(name)`) is matched the same way, by a
//! condition's side having the expression's structure (column names aside).
//!
//! A range (`<`, `<=`, `>`, `>=`, BETWEEN) on the key column after the equality-pinned
//! ones makes a range lookup, used when the scan's estimate keeps at most a fifth of
//! the table.
//!
//! ORDER BY … LIMIT reads through an index whose key, after the columns equalities pin
//! to one value, starts with the sort keys in the same order (or all reversed, read
//! backwards), nulls placed alike: the walk goes in key order and stops once LIMIT +
//! OFFSET rows pass the other conditions ([`order_by_index`]). A range on the first
//! sort column bounds it (keyset pagination: `WHERE id > $1 ORDER BY id LIMIT n`).

use std::sync::Arc;

use crate::catalog::{IndexEntry, TableEntry};
use crate::plan::physical::IndexLookup;
use crate::sql::expr::{BinaryOp, Expr};
use crate::storage::index::KeyPart;
use crate::types::DataType;

/// Key tuples a lookup may expand an IN list to before reading the table is preferred.
const LOOKUP_TUPLES_MAX: usize = 1024;
/// A lookup expected to return more than this fraction of the rows is not used.
const SELECTIVITY_MAX: f64 = 0.2;

/// Whether `e` has one value for the whole scan.
fn fixed(e: &Expr) -> bool {
    match e {
        Expr::Literal { .. } | Expr::Param { .. } | Expr::OuterParam { .. } => true,
        Expr::Cast { expr, .. } | Expr::Negate { expr, .. } => fixed(expr),
        _ => false,
    }
}

/// What an index key part reads: a column of the table, or the index's expression
/// (matched against a condition's side by structure, column names aside).
enum Key {
    Column(usize),
    Expr(Expr),
}

impl Key {
    fn of(table: &TableEntry, entry: &IndexEntry, part: &KeyPart) -> Option<(Key, DataType)> {
        match part.expression() {
            None => Some((
                Key::Column(part.column),
                table.columns.get(part.column)?.ty.ty,
            )),
            Some(k) => {
                let e = entry.index.exprs.get(k)?;
                Some((Key::Expr(unnamed(e)), e.ty().ty))
            }
        }
    }

    /// Whether `e` is what this key reads (a text column read as varchar or the
    /// other way round is the column itself: same values, same order).
    fn is(&self, e: &Expr) -> bool {
        let e = match e {
            Expr::Cast { expr, to, .. }
                if to.typmod < 0
                    && matches!(to.ty, DataType::Text | DataType::Varchar)
                    && matches!(expr.ty().ty, DataType::Text | DataType::Varchar)
                    && matches!(**expr, Expr::Column { .. }) =>
            {
                expr.as_ref()
            }
            other => other,
        };
        match self {
            Key::Column(c) => matches!(e, Expr::Column { index, .. } if index == c),
            Key::Expr(x) => !matches!(e, Expr::Column { .. }) && unnamed(e) == *x,
        }
    }
}

/// The values conjunct `c` pins key `key` to, if it is `key = v` or `key IN (v, …)`
/// with values of the key's type.
fn pinned(c: &Expr, key: &Key, ty: DataType) -> Option<Vec<Expr>> {
    let is_column = |e: &Expr| key.is(e);
    let usable = |e: &Expr| fixed(e) && e.ty().ty == ty;
    match c {
        Expr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
            ..
        } => {
            if is_column(left) && usable(right) {
                Some(vec![(**right).clone()])
            } else if is_column(right) && usable(left) {
                Some(vec![(**left).clone()])
            } else {
                None
            }
        }
        Expr::InList {
            expr,
            list,
            negated: false,
        } if is_column(expr) && !list.is_empty() && list.iter().all(usable) => Some(list.clone()),
        _ => None,
    }
}

/// `e` with column names blanked: the same condition whatever the table is called.
fn unnamed(e: &Expr) -> Expr {
    let mut out = e.clone();
    fn walk(e: &mut Expr) {
        if let Expr::Column { name, .. } = e {
            name.clear();
        }
        e.children_mut(&mut walk);
    }
    walk(&mut out);
    out
}

/// A conjunct (by position) pinning one key column, and the values it allows.
type Pinned = (usize, Vec<Expr>);

/// A bound conjunct `c` puts on key `key`: `(value, inclusive, is_lower)`.
fn bound(c: &Expr, key: &Key, ty: DataType) -> Option<(Expr, bool, bool)> {
    let Expr::Binary {
        op, left, right, ..
    } = c
    else {
        return None;
    };
    let is_column = |e: &Expr| key.is(e);
    let usable = |e: &Expr| fixed(e) && e.ty().ty == ty;
    // column op value, or value op column (flipped).
    let (op, value) = if is_column(left) && usable(right) {
        (*op, (**right).clone())
    } else if is_column(right) && usable(left) {
        let flipped = match op {
            BinaryOp::Lt => BinaryOp::Gt,
            BinaryOp::LtEq => BinaryOp::GtEq,
            BinaryOp::Gt => BinaryOp::Lt,
            BinaryOp::GtEq => BinaryOp::LtEq,
            other => *other,
        };
        (flipped, (**left).clone())
    } else {
        return None;
    };
    match op {
        BinaryOp::Gt => Some((value, false, true)),
        BinaryOp::GtEq => Some((value, true, true)),
        BinaryOp::Lt => Some((value, false, false)),
        BinaryOp::LtEq => Some((value, true, false)),
        _ => None,
    }
}

/// The pattern of conjunct `c` if it is `key LIKE pattern` (case-sensitive, not
/// negated) over a text key, with a pattern fixed for the scan; and whether the
/// pattern is a literal `prefix%` that the prefix range answers exactly.
fn like_prefix(c: &Expr, key: &Key, ty: DataType) -> Option<(Expr, bool)> {
    let Expr::Like {
        expr,
        pattern,
        negated: false,
        case_insensitive: false,
    } = c
    else {
        return None;
    };
    if !matches!(ty, DataType::Text | DataType::Varchar) || !key.is(expr) || !fixed(pattern) {
        return None;
    }
    if !matches!(
        pattern.ty().ty,
        DataType::Text | DataType::Varchar | DataType::Unknown
    ) {
        return None;
    }
    let exact = match pattern.as_ref() {
        Expr::Literal {
            value: crate::types::Value::Text(p),
            ..
        } => {
            let prefix = like_literal_prefix(p);
            // Nothing to look up before a leading wildcard.
            if prefix.is_empty() {
                return None;
            }
            p.strip_suffix('%')
                .is_some_and(|body| !body.contains(['%', '_', '\\']))
        }
        _ => false,
    };
    Some(((**pattern).clone(), exact))
}

/// The literal text a LIKE pattern starts with, up to its first unescaped wildcard.
pub fn like_literal_prefix(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' | '_' => break,
            '\\' => match chars.next() {
                Some(n) => out.push(n),
                None => break,
            },
            other => out.push(other),
        }
    }
    out
}

/// The index lookup for a scan of `table` with (lowered) `filter`, if one pays.
/// `estimated` is the planner's row estimate for the scan.
pub fn choose_index(table: &Arc<TableEntry>, filter: &Expr, estimated: f64) -> Option<IndexLookup> {
    if table.indexes.is_empty() {
        return None;
    }
    let conjuncts = filter.clone().conjuncts();
    let mut best: Option<(usize, usize, Vec<Pinned>, Vec<usize>)> = None;
    for (k, entry) in table.indexes.iter().enumerate() {
        // A partial index answers only a scan whose filter includes its WHERE.
        if let Some(p) = &entry.index.predicate {
            let p = unnamed(p);
            if !conjuncts.iter().any(|c| unnamed(c) == p) {
                continue;
            }
        }
        let mut matched: Vec<Pinned> = Vec::new();
        let mut tuples = 1usize;
        for part in &entry.index.parts {
            let Some((key, ty)) = Key::of(table, entry, part) else {
                break;
            };
            let Some((ci, values)) = conjuncts
                .iter()
                .enumerate()
                .find_map(|(i, c)| pinned(c, &key, ty).map(|v| (i, v)))
            else {
                break;
            };
            tuples = tuples.saturating_mul(values.len());
            if tuples > LOOKUP_TUPLES_MAX {
                break;
            }
            matched.push((ci, values));
        }
        // A range on the next key column (only after single-valued equalities), or
        // a LIKE prefix on it.
        let mut range_conds: Vec<usize> = Vec::new();
        if tuples == 1
            && let Some(part) = entry.index.parts.get(matched.len())
            && let Some((key, ty)) = Key::of(table, entry, part)
        {
            for (i, c) in conjuncts.iter().enumerate() {
                if bound(c, &key, ty).is_some() {
                    range_conds.push(i);
                }
            }
            if range_conds.is_empty()
                && let Some(i) = conjuncts
                    .iter()
                    .position(|c| like_prefix(c, &key, ty).is_some())
            {
                range_conds.push(i);
            }
        }
        if matched.is_empty() && range_conds.is_empty() {
            continue;
        }
        let whole_unique = entry.index.unique && matched.len() == entry.index.parts.len();
        let score = matched.len() * 2
            + usize::from(!range_conds.is_empty())
            + usize::from(whole_unique) * 1000;
        if best.as_ref().is_none_or(|(s, _, _, _)| score > *s) {
            best = Some((score, k, matched, range_conds));
        }
    }
    let (_, k, matched, range_conds) = best?;
    let entry = table.indexes[k].clone();
    let tuples: usize = matched.iter().map(|(_, v)| v.len()).product();
    let stats = table.stats();
    if !range_conds.is_empty() {
        // A range: worth it when the scan as a whole keeps few rows.
        if stats.rows > 1000.0 && estimated > SELECTIVITY_MAX * stats.rows {
            return None;
        }
    } else if !(entry.index.unique && matched.len() == entry.index.parts.len()) {
        // Expected rows: the table over the leading column's distinct values, per
        // tuple (an expression's are not known: taken as a column's of ten rows each).
        let lead = entry.index.parts[0].column;
        let ndv = match entry.index.parts[0].table_column() {
            Some(_) => stats.columns.get(lead).map_or(1.0, |c| c.ndv.max(1.0)),
            None => (stats.rows / 10.0).max(1.0),
        };
        if stats.rows > 1000.0 && tuples as f64 / ndv > SELECTIVITY_MAX {
            return None;
        }
    }
    // The range's tightest bounds (several conjuncts may bound one side: each is kept
    // as a condition the rows are tested on, the first of each side bounds the lookup).
    // The conjuncts that bound the lookup (the rest are tested on the rows).
    let mut bounding: Vec<usize> = Vec::new();
    let range = if range_conds.is_empty() {
        None
    } else {
        let part = entry.index.parts[matched.len()];
        let (key, ty) = Key::of(table, &entry, &part)?;
        let mut r = crate::plan::physical::KeyRange {
            lower: None,
            upper: None,
            prefix: None,
        };
        for &i in &range_conds {
            if let Some((v, inclusive, is_lower)) = bound(&conjuncts[i], &key, ty) {
                let side = if is_lower { &mut r.lower } else { &mut r.upper };
                if side.is_none() {
                    *side = Some((v, inclusive));
                    bounding.push(i);
                }
            } else if let Some((pattern, exact)) = like_prefix(&conjuncts[i], &key, ty) {
                r.prefix = Some(pattern);
                // Only `'abc%'` is answered by the range alone; other patterns are
                // tested on the rows it finds.
                if exact {
                    bounding.push(i);
                }
            }
        }
        Some(r)
    };
    // Every combination of the matched columns' values.
    let mut keys: Vec<Vec<Expr>> = vec![Vec::new()];
    for (_, values) in &matched {
        keys = keys
            .iter()
            .flat_map(|prefix| {
                values.iter().map(move |v| {
                    let mut t = prefix.clone();
                    t.push(v.clone());
                    t
                })
            })
            .collect();
    }
    let used: Vec<usize> = matched.iter().map(|(ci, _)| *ci).collect();
    let mut conds = Vec::new();
    let mut rest = Vec::new();
    for (i, c) in conjuncts.into_iter().enumerate() {
        if used.contains(&i) || bounding.contains(&i) {
            conds.push(c);
        } else {
            rest.push(c);
        }
    }
    Some(IndexLookup {
        index: entry,
        keys,
        range,
        conds,
        residual: Expr::and_all(rest),
        order: None,
    })
}

/// A sort key over a scan's columns, as [`order_by_index`] takes it.
#[derive(Clone, Copy, Debug)]
pub struct OrderKey {
    pub column: usize,
    pub desc: bool,
    pub nulls_first: bool,
}

/// The index walk that yields a scan of `table` (with lowered `filter`, if any) in
/// `keys` order, for a consumer needing `count` rows; None when no index gives that
/// order, or when conditions the index does not answer are left and the scan is
/// expected to keep under 5% of the table (`estimated` rows): the walk could read
/// most of it to find a few.
///
/// With `non_null` the walk covers only non-NULL keys (min/max), so where the index
/// puts its NULLs does not matter.
pub fn order_by_index(
    table: &Arc<TableEntry>,
    filter: Option<&Expr>,
    keys: &[OrderKey],
    count: Expr,
    estimated: f64,
    non_null: bool,
) -> Option<IndexLookup> {
    if keys.is_empty() || table.indexes.is_empty() {
        return None;
    }
    let conjuncts = filter.map_or_else(Vec::new, |f| f.clone().conjuncts());
    let stats = table.stats();
    'indexes: for entry in &table.indexes {
        if let Some(p) = &entry.index.predicate {
            let p = unnamed(p);
            if !conjuncts.iter().any(|c| unnamed(c) == p) {
                continue;
            }
        }
        let parts = &entry.index.parts;
        // Leading columns pinned to one value each.
        let mut pinned_values: Vec<(usize, Expr)> = Vec::new();
        for part in parts {
            let Some((key, ty)) = Key::of(table, entry, part) else {
                break;
            };
            let found = conjuncts.iter().enumerate().find_map(|(i, c)| {
                pinned(c, &key, ty)
                    .filter(|v| v.len() == 1)
                    .map(|mut v| (i, v.remove(0)))
            });
            match found {
                Some(p) => pinned_values.push(p),
                None => break,
            }
        }
        let pinned_columns: Vec<usize> = parts[..pinned_values.len()]
            .iter()
            .map(|p| p.column)
            .collect();
        // The sort keys not pinned must follow the index from there.
        let mut next = pinned_values.len();
        let mut reverse = None;
        for k in keys {
            if pinned_columns.contains(&k.column) {
                continue;
            }
            let Some(part) = parts.get(next) else {
                continue 'indexes;
            };
            let r = k.desc != part.desc;
            if part.column != k.column
                || (!non_null && k.nulls_first != (part.nulls_first != r))
                || reverse.is_some_and(|x| x != r)
            {
                continue 'indexes;
            }
            reverse = Some(r);
            next += 1;
        }
        let Some(reverse) = reverse else {
            continue;
        };
        // A range on the first ordering column.
        let first = parts[pinned_values.len()];
        let Some((first_key, ty)) = Key::of(table, entry, &first) else {
            continue;
        };
        let mut range = crate::plan::physical::KeyRange {
            lower: None,
            upper: None,
            prefix: None,
        };
        let mut used: Vec<usize> = pinned_values.iter().map(|(i, _)| *i).collect();
        for (i, c) in conjuncts.iter().enumerate() {
            if let Some((v, inclusive, is_lower)) = bound(c, &first_key, ty) {
                let side = if is_lower {
                    &mut range.lower
                } else {
                    &mut range.upper
                };
                if side.is_none() {
                    *side = Some((v, inclusive));
                    used.push(i);
                }
            }
        }
        let mut conds = Vec::new();
        let mut rest = Vec::new();
        for (i, c) in conjuncts.iter().enumerate() {
            if used.contains(&i) {
                conds.push(c.clone());
            } else {
                rest.push(c.clone());
            }
        }
        if !rest.is_empty() && stats.rows > 1000.0 && estimated < 0.05 * stats.rows {
            continue;
        }
        let range = (non_null || range.lower.is_some() || range.upper.is_some()).then_some(range);
        return Some(IndexLookup {
            index: entry.clone(),
            keys: vec![pinned_values.into_iter().map(|(_, v)| v).collect()],
            range,
            conds,
            residual: Expr::and_all(rest),
            order: Some(crate::plan::physical::IndexOrder { reverse, count }),
        });
    }
    None
}
