//! Kernels for json and jsonb operators and functions (`types::jsonb` holds the binary
//! form; `types::json` walks json text as kept).
//!
//! The getters (`->`, `->>`, `#>`, `#>>`) run over the column's byte strings without a
//! value per row: a jsonb sub-value is a slice of its parent, copied out as it is. The
//! rest go row by row over `Value`s.

use super::context::ExecContext;
use super::vector::{Data, Vector};
use crate::error::{Error, Result};
use crate::plan::logical::SetFn;
use crate::sql::expr::{Expr, Func, PathFn};
use crate::types::jsonb::{self, Node};
use crate::types::{DataType, SqlType, Value, json};

/// Evaluates a json function over `n` rows of `args`, typed as the binder typed them.
pub fn eval(
    func: Func,
    args: &[Vector],
    types: &[DataType],
    n: usize,
    ctx: &ExecContext,
) -> Result<Vector> {
    match func {
        Func::JsonField { json: false, text } | Func::JsonIndex { json: false, text }
            if matches!(args[0].data, Data::Jsonb(_)) =>
        {
            jsonb_get(func, args, n, text)
        }
        _ => row_by_row(func, args, types, n, ctx),
    }
}

/// One step of a chain of jsonb getters with a constant key or index.
enum Step<'e> {
    Key(&'e [u8]),
    Index(i64),
}

/// `e` as a chain of jsonb getters (`->` by a constant key or index) over a jsonb base
/// expression: the base and the steps, outermost last. A plain jsonb expression is a
/// chain of no steps.
fn getter_chain(mut e: &Expr) -> Option<(&Expr, Vec<Step<'_>>)> {
    let mut steps = Vec::new();
    loop {
        match e {
            Expr::Func {
                func:
                    Func::JsonField {
                        json: false,
                        text: false,
                    },
                args,
                ..
            } => match args.as_slice() {
                [
                    inner,
                    Expr::Literal {
                        value: Value::Text(k),
                        ..
                    },
                ] => {
                    steps.push(Step::Key(k.as_bytes()));
                    e = inner;
                }
                _ => break,
            },
            Expr::Func {
                func:
                    Func::JsonIndex {
                        json: false,
                        text: false,
                    },
                args,
                ..
            } => match args.as_slice() {
                [
                    inner,
                    Expr::Literal {
                        value: Value::Int4(k),
                        ..
                    },
                ] => {
                    steps.push(Step::Index(*k as i64));
                    e = inner;
                }
                _ => break,
            },
            _ => break,
        }
    }
    if e.ty().ty != DataType::Jsonb {
        return None;
    }
    steps.reverse();
    Some((e, steps))
}

/// Where a chain of steps leads in `doc`.
fn walk<'a>(doc: &'a [u8], steps: &[Step]) -> Option<&'a [u8]> {
    let mut at = doc;
    for step in steps {
        at = match step {
            Step::Key(k) => match jsonb::view(at) {
                Node::Object(m) => m.find_bytes(k)?,
                _ => return None,
            },
            Step::Index(i) => array_element(at, *i)?,
        };
    }
    Some(at)
}

/// Vectorized forms of the common jsonb filters and getters, over the column's bytes
/// with no value per row and no intermediate vector: a getter chain
/// (`doc->'a'->'b'->>'c'`) walked at once, and `@>`, `<@`, `?` with a constant side.
/// None when the call has another shape.
pub fn fast_path(
    func: Func,
    args: &[Expr],
    batch: &crate::exec::vector::Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Option<Vector>> {
    let literal_jsonb = |e: &Expr| match e {
        Expr::Literal {
            value: Value::Jsonb(b),
            ..
        } => Some(b.clone()),
        _ => None,
    };
    // The document side, its constant other side, and the test.
    enum Test {
        Contains(Vec<u8>),
        Contained(Vec<u8>),
        Exists(String),
    }
    let (chain_expr, test) = match (func, args) {
        // `doc @> c` and `c <@ doc` test doc @> c; `c @> doc` and `doc <@ c` test
        // c @> doc.
        (Func::JsonbContains | Func::JsonbContained, [l, r]) => {
            let contains = func == Func::JsonbContains;
            match (literal_jsonb(l), literal_jsonb(r)) {
                (_, Some(c)) if contains => (l, Test::Contains(c)),
                (_, Some(c)) => (l, Test::Contained(c)),
                (Some(c), None) if contains => (r, Test::Contained(c)),
                (Some(c), None) => (r, Test::Contains(c)),
                (None, None) => return Ok(None),
            }
        }
        (
            Func::JsonbExists,
            [
                l,
                Expr::Literal {
                    value: Value::Text(k),
                    ..
                },
            ],
        ) => (l, Test::Exists(k.clone())),
        (Func::JsonField { json: false, text } | Func::JsonIndex { json: false, text }, [_, _]) => {
            // The whole call is the chain (its last step included).
            let call = Expr::Func {
                func: if matches!(func, Func::JsonField { .. }) {
                    Func::JsonField {
                        json: false,
                        text: false,
                    }
                } else {
                    Func::JsonIndex {
                        json: false,
                        text: false,
                    }
                },
                args: args.to_vec(),
                ty: SqlType::new(DataType::Jsonb),
            };
            let Some((base, steps)) = getter_chain(&call) else {
                return Ok(None);
            };
            // One step over a column is the plain getter's; chains of two or more
            // save their intermediate vectors.
            if steps.len() < 2 {
                return Ok(None);
            }
            let docs = super::expr::eval(base, batch, sel, ctx)?;
            let Data::Jsonb(t) = &docs.data else {
                return Ok(None);
            };
            let mut out = Vector::with_capacity(
                if text {
                    DataType::Text
                } else {
                    DataType::Jsonb
                },
                sel.len(),
            );
            for i in 0..sel.len() {
                let found = if docs.is_null(i) {
                    None
                } else {
                    walk(t.get(i), &steps)
                };
                push_found(&mut out, found, text);
            }
            return Ok(Some(out));
        }
        _ => return Ok(None),
    };
    let Some((base, steps)) = getter_chain(chain_expr) else {
        return Ok(None);
    };
    let docs = super::expr::eval(base, batch, sel, ctx)?;
    let Data::Jsonb(t) = &docs.data else {
        return Ok(None);
    };
    let n = sel.len();
    let mut values = Vec::with_capacity(n);
    let mut nulls: Option<Vec<bool>> = None;
    for i in 0..n {
        let found = if docs.is_null(i) {
            None
        } else {
            walk(t.get(i), &steps)
        };
        let Some(doc) = found else {
            values.push(false);
            nulls.get_or_insert_with(|| vec![false; n])[i] = true;
            continue;
        };
        values.push(match &test {
            Test::Contains(c) => jsonb::contains(doc, c),
            Test::Contained(c) => jsonb::contains(c, doc),
            Test::Exists(k) => exists(doc, k),
        });
    }
    let mut out = Vector::from_data(Data::Bool(values));
    out.nulls = nulls;
    Ok(Some(out))
}

/// `doc->…->>'k' = 'text'` (or `<>`, either way round) over the column's bytes: the
/// value the chain finds compared as `->>` would print it, without a text vector.
/// None when the comparison has another shape.
pub fn text_equals(
    op: crate::sql::expr::BinaryOp,
    left: &Expr,
    right: &Expr,
    batch: &crate::exec::vector::Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Option<Vector>> {
    let literal = |e: &Expr| match e {
        Expr::Literal {
            value: Value::Text(t),
            ty,
        } if ty.ty == DataType::Text => Some(t.clone()),
        _ => None,
    };
    let (getter, text) = match (literal(left), literal(right)) {
        (None, Some(t)) => (left, t),
        (Some(t), None) => (right, t),
        _ => return Ok(None),
    };
    let Expr::Func {
        func:
            func @ (Func::JsonField {
                json: false,
                text: true,
            }
            | Func::JsonIndex {
                json: false,
                text: true,
            }),
        args,
        ..
    } = getter
    else {
        return Ok(None);
    };
    let call = Expr::Func {
        func: if matches!(func, Func::JsonField { .. }) {
            Func::JsonField {
                json: false,
                text: false,
            }
        } else {
            Func::JsonIndex {
                json: false,
                text: false,
            }
        },
        args: args.clone(),
        ty: SqlType::new(DataType::Jsonb),
    };
    let Some((base, steps)) = getter_chain(&call) else {
        return Ok(None);
    };
    let docs = super::expr::eval(base, batch, sel, ctx)?;
    let Data::Jsonb(t) = &docs.data else {
        return Ok(None);
    };
    let n = sel.len();
    let want = text.as_bytes();
    let equal = op == crate::sql::expr::BinaryOp::Eq;
    let mut values = Vec::with_capacity(n);
    let mut nulls: Option<Vec<bool>> = None;
    let mut scratch = Vec::new();
    for i in 0..n {
        let found = if docs.is_null(i) {
            None
        } else {
            walk(t.get(i), &steps)
        };
        let same = match found {
            None => None,
            Some(v) => match v.first() {
                Some(&jsonb::NULL) => None,
                Some(&jsonb::STRING) => Some(jsonb_string_bytes(v) == want),
                _ => {
                    scratch.clear();
                    jsonb::write_text(v, &mut scratch);
                    Some(scratch == want)
                }
            },
        };
        match same {
            Some(s) => values.push(s == equal),
            None => {
                values.push(false);
                nulls.get_or_insert_with(|| vec![false; n])[i] = true;
            }
        }
    }
    let mut out = Vector::from_data(Data::Bool(values));
    out.nulls = nulls;
    Ok(Some(out))
}

/// A jsonb string node's bytes.
fn jsonb_string_bytes(v: &[u8]) -> &[u8] {
    let n = v
        .get(1..5)
        .and_then(|w| w.try_into().ok())
        .map_or(0, |w| u32::from_le_bytes(w) as usize);
    v.get(5..5 + n).unwrap_or(b"")
}

/// What a getter found, as the operator's result type: jsonb, or (`text`) a string
/// unquoted and anything else as its text (a JSON null is SQL NULL).
fn push_found(out: &mut Vector, found: Option<&[u8]>, text: bool) {
    match found {
        None => out.push_null(),
        Some(b) if !text => out.push_blob(b),
        Some(b) => match jsonb::view(b) {
            Node::Null => out.push_null(),
            Node::String(s) => out.push_blob(s.as_bytes()),
            _ => out.push_blob(jsonb::to_text(b).as_bytes()),
        },
    }
}

/// `jsonb -> key | index` and `->>`, over the column's bytes.
fn jsonb_get(func: Func, args: &[Vector], n: usize, text: bool) -> Result<Vector> {
    let Data::Jsonb(docs) = &args[0].data else {
        return Err(Error::internal("jsonb getter without jsonb"));
    };
    let mut out = Vector::with_capacity(
        if text {
            DataType::Text
        } else {
            DataType::Jsonb
        },
        n,
    );
    for i in 0..n {
        if args[0].is_null(i) || args[1].is_null(i) {
            out.push_null();
            continue;
        }
        let doc = docs.get(i);
        let found = match (func, &args[1].data) {
            (Func::JsonField { .. }, Data::Text(keys)) => object_field(doc, keys.get_str(i)),
            (Func::JsonIndex { .. }, Data::I32(ix)) => array_element(doc, ix[i] as i64),
            _ => None,
        };
        push_found(&mut out, found, text);
    }
    Ok(out)
}

fn object_field<'a>(doc: &'a [u8], key: &str) -> Option<&'a [u8]> {
    match jsonb::view(doc) {
        Node::Object(o) => o.find(key),
        _ => None,
    }
}

/// Element `k` (negative from the end). A top-level scalar reads as an array of
/// itself, as PostgreSQL stores it.
fn array_element(doc: &[u8], k: i64) -> Option<&[u8]> {
    match jsonb::view(doc) {
        Node::Array(a) => {
            let at = if k < 0 { a.len() as i64 + k } else { k };
            usize::try_from(at).ok().and_then(|at| a.get(at))
        }
        Node::Object(_) => None,
        _ => (k == 0 || k == -1).then_some(doc),
    }
}

/// `#>`: each path element a key (objects) or an index (arrays).
fn path<'a>(doc: &'a [u8], steps: &[Option<String>]) -> Option<&'a [u8]> {
    let mut at = doc;
    for step in steps {
        let step = step.as_deref()?;
        at = match jsonb::view(at) {
            Node::Object(o) => o.find(step)?,
            Node::Array(a) => {
                let k: i64 = step.trim().parse().ok()?;
                let k = if k < 0 { a.len() as i64 + k } else { k };
                a.get(usize::try_from(k).ok()?)?
            }
            _ => return None,
        };
    }
    Some(at)
}

/// The same walk over json text.
fn json_path<'a>(doc: &'a str, steps: &[Option<String>]) -> Option<&'a str> {
    let mut at = doc;
    for step in steps {
        let step = step.as_deref()?;
        at = match json::type_name(at) {
            "object" => json::field(at, step)?,
            "array" => json::element(at, step.trim().parse().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// A text[] argument's elements.
fn text_array(v: &Value) -> Vec<Option<String>> {
    match v {
        Value::Array(a) => crate::types::array::View::new(&a.bytes, a.elem)
            .values()
            .into_iter()
            .map(|e| match e {
                Value::Text(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn jsonb_of(v: &Value) -> &[u8] {
    match v {
        Value::Jsonb(b) => b,
        _ => &[jsonb::NULL],
    }
}

/// Functions that take NULL arguments (the rest are NULL on any NULL).
fn takes_nulls(func: Func) -> bool {
    matches!(func, Func::JsonbBuild { .. } | Func::JsonbSet { lax: true })
}

fn row_by_row(
    func: Func,
    args: &[Vector],
    types: &[DataType],
    n: usize,
    ctx: &ExecContext,
) -> Result<Vector> {
    let result = result_type(func);
    let mut out = Vector::with_capacity(result, n);
    let mut row: Vec<Value> = Vec::with_capacity(args.len());
    for i in 0..n {
        row.clear();
        row.extend(args.iter().zip(types).map(|(a, &t)| a.value(i, t)));
        if !takes_nulls(func) && row.iter().any(Value::is_null) {
            out.push_null();
            continue;
        }
        let found = match func {
            Func::JsonbBuild { object } => Found::Jsonb(build(object, &row, types, ctx)?),
            Func::ToJson { json } => match (&row[0], row.get(1).and_then(Value::as_i64)) {
                (Value::Record(r), Some(typmod)) => {
                    let mut s = String::new();
                    let names = crate::types::record::shape(typmod as i32);
                    super::functions::json_record(r, names, &ctx.fmt, &mut s);
                    if json {
                        Found::Text(s)
                    } else {
                        Found::Jsonb(jsonb::parse(&s)?)
                    }
                }
                (v, _) if !json => Found::Jsonb(to_jsonb(v, types[0], ctx)?),
                (v, _) => {
                    let mut s = String::new();
                    super::functions::json_value(v, types[0], &ctx.fmt, &mut s);
                    Found::Text(s)
                }
            },
            Func::RowToJson => {
                let pretty = matches!(row.get(1), Some(Value::Bool(true)));
                let names = row
                    .get(2)
                    .and_then(Value::as_i64)
                    .and_then(|t| crate::types::record::shape(t as i32));
                let mut s = String::new();
                match &row[0] {
                    Value::Record(r) if pretty => s = pretty_fields(r, names, ctx),
                    Value::Record(r) => super::functions::json_record(r, names, &ctx.fmt, &mut s),
                    v => super::functions::json_value(v, types[0], &ctx.fmt, &mut s),
                }
                Found::Text(s)
            }
            _ => eval_row(func, &row)?,
        };
        match found {
            Found::Null => out.push_null(),
            Found::Jsonb(b) => push_found(&mut out, Some(&b), false),
            Found::Text(t) => out.push_blob(t.as_bytes()),
            Found::Value(v) => out.push_value(&v),
        }
    }
    Ok(out)
}

/// row_to_json(…, true): each field after the first on a line of its own.
fn pretty_fields(r: &[u8], names: Option<&[(&str, DataType)]>, ctx: &ExecContext) -> String {
    let mut s = String::from("{");
    for (k, (t, v)) in crate::types::record::values(r).into_iter().enumerate() {
        if k > 0 {
            s.push_str(",\n ");
        }
        match names.and_then(|n| n.get(k)) {
            Some((name, _)) => json::quote(name, &mut s),
            None => json::quote(&format!("f{}", k + 1), &mut s),
        }
        s.push(':');
        super::functions::json_value(&v, t, &ctx.fmt, &mut s);
    }
    s.push('}');
    s
}

/// One row's answer.
enum Found {
    Null,
    Jsonb(Vec<u8>),
    Text(String),
    Value(Value),
}

fn result_type(func: Func) -> DataType {
    match func {
        Func::JsonField { json, text }
        | Func::JsonIndex { json, text }
        | Func::JsonPath { json, text } => {
            if text {
                DataType::Text
            } else if json {
                DataType::Json
            } else {
                DataType::Jsonb
            }
        }
        Func::JsonbContains
        | Func::JsonbContained
        | Func::JsonbExists
        | Func::JsonbExistsAny
        | Func::JsonbExistsAll
        | Func::JsonbPathFn {
            kind: PathFn::Exists | PathFn::Match,
            ..
        } => DataType::Bool,
        Func::JsonTypeof { .. } | Func::JsonbPretty => DataType::Text,
        Func::JsonArrayLength { .. } => DataType::Int4,
        Func::ToJson { json: true }
        | Func::RowToJson
        | Func::JsonStripNulls { json: true }
        | Func::JsonbObject { json: true } => DataType::Json,
        _ => DataType::Jsonb,
    }
}

/// A value as jsonb (PostgreSQL's to_jsonb): through its json form.
pub fn to_jsonb(v: &Value, ty: DataType, ctx: &ExecContext) -> Result<Vec<u8>> {
    if let Value::Jsonb(b) = v {
        return Ok(b.clone());
    }
    let mut s = String::new();
    super::functions::json_value(v, ty, &ctx.fmt, &mut s);
    jsonb::parse(&s)
}

/// jsonb_build_object / jsonb_build_array over one row's arguments.
fn build(object: bool, row: &[Value], types: &[DataType], ctx: &ExecContext) -> Result<Vec<u8>> {
    if !object {
        let items = row
            .iter()
            .zip(types)
            .map(|(v, &t)| to_jsonb(v, t, ctx))
            .collect::<Result<Vec<_>>>()?;
        return Ok(jsonb::array(&items));
    }
    if !row.len().is_multiple_of(2) {
        return Err(Error::new(
            "22023",
            "argument list must have even number of elements",
        )
        .with_hint("The arguments of jsonb_build_object() must consist of alternating keys and values."));
    }
    let mut members = Vec::with_capacity(row.len() / 2);
    for (k, pair) in row.chunks(2).enumerate() {
        let key = match &pair[0] {
            Value::Null => {
                return Err(Error::new(
                    "22023",
                    format!("argument {}: key must not be null", 2 * k + 1),
                ));
            }
            v => crate::types::text::value_to_string(v, &ctx.fmt),
        };
        members.push((key, to_jsonb(&pair[1], types[2 * k + 1], ctx)?));
    }
    Ok(jsonb::object(members))
}

/// A json text getter's answer: the value's text, or (`text`) a string unquoted.
fn json_found(found: Option<&str>, text: bool) -> Found {
    match found {
        None => Found::Null,
        Some(v) if !text => Found::Text(json::trimmed(v).to_string()),
        Some(v) => match json::type_name(v) {
            "null" => Found::Null,
            "string" => Found::Text(json::unquote(json::trimmed(v))),
            _ => Found::Text(json::trimmed(v).to_string()),
        },
    }
}

fn text_found(found: Option<&[u8]>, text: bool) -> Found {
    match (found, text) {
        (None, _) => Found::Null,
        (Some(b), false) => Found::Jsonb(b.to_vec()),
        (Some(b), true) => match jsonb::view(b) {
            Node::Null => Found::Null,
            Node::String(s) => Found::Text(s.to_string()),
            _ => Found::Text(jsonb::to_text(b)),
        },
    }
}

fn text_of(v: &Value) -> &str {
    match v {
        Value::Text(s) => s,
        _ => "",
    }
}

fn eval_row(func: Func, row: &[Value]) -> Result<Found> {
    Ok(match (func, row) {
        (Func::JsonField { json: true, text }, [doc, key]) => {
            json_found(json::field(text_of(doc), text_of(key)), text)
        }
        (Func::JsonIndex { json: true, text }, [doc, k]) => {
            json_found(json::element(text_of(doc), k.as_i64().unwrap_or(0)), text)
        }
        (Func::JsonPath { json: true, text }, [doc, p]) => {
            json_found(json_path(text_of(doc), &text_array(p)), text)
        }
        (Func::JsonField { json: false, text }, [doc, key]) => {
            text_found(object_field(jsonb_of(doc), text_of(key)), text)
        }
        (Func::JsonIndex { json: false, text }, [doc, k]) => {
            text_found(array_element(jsonb_of(doc), k.as_i64().unwrap_or(0)), text)
        }
        (Func::JsonPath { json: false, text }, [doc, p]) => {
            text_found(path(jsonb_of(doc), &text_array(p)), text)
        }
        (Func::JsonbContains, [a, b]) => {
            Found::Value(Value::Bool(jsonb::contains(jsonb_of(a), jsonb_of(b))))
        }
        (Func::JsonbContained, [a, b]) => {
            Found::Value(Value::Bool(jsonb::contains(jsonb_of(b), jsonb_of(a))))
        }
        (Func::JsonbExists, [doc, key]) => {
            Found::Value(Value::Bool(exists(jsonb_of(doc), text_of(key))))
        }
        (Func::JsonbExistsAny | Func::JsonbExistsAll, [doc, keys]) => {
            let keys = text_array(keys);
            let doc = jsonb_of(doc);
            let mut hits = keys.iter().flatten().map(|k| exists(doc, k));
            Found::Value(Value::Bool(if func == Func::JsonbExistsAny {
                hits.any(|h| h)
            } else {
                hits.all(|h| h)
            }))
        }
        (Func::JsonbPathFn { kind, .. }, [doc, path, vars, silent]) => {
            let (doc, vars) = (jsonb_of(doc), jsonb_of(vars));
            let path = text_of(path);
            let silent = matches!(silent, Value::Bool(true));
            let truth = |b: Option<bool>| b.map_or(Found::Null, |b| Found::Value(Value::Bool(b)));
            match kind {
                PathFn::Exists => truth(super::jsonpath::exists(doc, path, vars, silent)?),
                PathFn::Match => truth(super::jsonpath::matches(doc, path, vars, silent)?),
                PathFn::QueryArray => Found::Jsonb(jsonb::array(&super::jsonpath::query(
                    doc, path, vars, silent,
                )?)),
                PathFn::QueryFirst => {
                    match super::jsonpath::query(doc, path, vars, silent)?
                        .into_iter()
                        .next()
                    {
                        Some(v) => Found::Jsonb(v),
                        None => Found::Null,
                    }
                }
            }
        }
        (Func::JsonbConcat, [a, b]) => Found::Jsonb(concat(jsonb_of(a), jsonb_of(b))),
        (Func::JsonbDelete, [doc, key]) => Found::Jsonb(delete_keys(
            jsonb_of(doc),
            &[Some(text_of(key).to_string())],
        )?),
        (Func::JsonbDeleteKeys, [doc, keys]) => {
            Found::Jsonb(delete_keys(jsonb_of(doc), &text_array(keys))?)
        }
        (Func::JsonbDeleteIndex, [doc, k]) => {
            Found::Jsonb(delete_index(jsonb_of(doc), k.as_i64().unwrap_or(0))?)
        }
        (Func::JsonbDeletePath, [doc, p]) => {
            Found::Jsonb(delete_path(jsonb_of(doc), &text_array(p))?)
        }
        (Func::JsonTypeof { json: false }, [doc]) => {
            Found::Text(jsonb::type_name(jsonb_of(doc)).into())
        }
        (Func::JsonTypeof { json: true }, [doc]) => {
            Found::Text(json::type_name(text_of(doc)).into())
        }
        (Func::JsonArrayLength { json: false }, [doc]) => match jsonb::view(jsonb_of(doc)) {
            Node::Array(a) => Found::Value(Value::Int4(a.len() as i32)),
            Node::Object(_) => {
                return Err(Error::new(
                    "22023",
                    "cannot get array length of a non-array",
                ));
            }
            _ => return Err(Error::new("22023", "cannot get array length of a scalar")),
        },
        (Func::JsonArrayLength { json: true }, [doc]) => match json::array_items(text_of(doc)) {
            Some(items) => Found::Value(Value::Int4(items.len() as i32)),
            None if json::type_name(text_of(doc)) == "object" => {
                return Err(Error::new(
                    "22023",
                    "cannot get array length of a non-array",
                ));
            }
            None => return Err(Error::new("22023", "cannot get array length of a scalar")),
        },
        (Func::JsonStripNulls { json: false }, [doc]) => Found::Jsonb(strip_nulls(jsonb_of(doc))),
        (Func::JsonStripNulls { json: true }, [doc]) => {
            Found::Text(strip_json_nulls(json::trimmed(text_of(doc))))
        }
        (Func::JsonbPretty, [doc]) => {
            let mut out = Vec::new();
            jsonb::write_pretty(jsonb_of(doc), 0, &mut out);
            Found::Text(String::from_utf8(out).unwrap_or_default())
        }
        (Func::JsonbSet { lax: false }, [doc, p, new, rest @ ..]) => {
            let create = !matches!(rest.first(), Some(Value::Bool(false)));
            Found::Jsonb(set_path(
                jsonb_of(doc),
                &text_array(p),
                jsonb_of(new),
                create,
                Insert::Replace,
            )?)
        }
        (Func::JsonbSet { lax: true }, [doc, p, new, rest @ ..]) => {
            if doc.is_null() || p.is_null() {
                return Ok(Found::Null);
            }
            let create = !matches!(rest.first(), Some(Value::Bool(false)));
            match (new, rest.get(1)) {
                (Value::Null, treatment) => {
                    let mode = match treatment {
                        None => "use_json_null".to_string(),
                        Some(Value::Text(t)) => t.clone(),
                        Some(_) => {
                            return Err(Error::new(
                                "22004",
                                "null_value_treatment must be \"delete_key\", \"return_target\", \"use_json_null\", or \"raise_exception\"",
                            ));
                        }
                    };
                    match mode.as_str() {
                        "use_json_null" => Found::Jsonb(set_path(
                            jsonb_of(doc),
                            &text_array(p),
                            &[jsonb::NULL],
                            create,
                            Insert::Replace,
                        )?),
                        "delete_key" => Found::Jsonb(delete_path(jsonb_of(doc), &text_array(p))?),
                        "return_target" => Found::Jsonb(jsonb_of(doc).to_vec()),
                        "raise_exception" => {
                            return Err(Error::new(
                                "22004",
                                "JSON value must not be null",
                            )
                            .with_detail("Exception was raised because null_value_treatment is \"raise_exception\".")
                            .with_hint("To avoid, either change the null_value_treatment argument or ensure that an SQL NULL is not passed."));
                        }
                        _ => {
                            return Err(Error::new(
                                "22023",
                                "null_value_treatment must be \"delete_key\", \"return_target\", \"use_json_null\", or \"raise_exception\"",
                            ));
                        }
                    }
                }
                _ => Found::Jsonb(set_path(
                    jsonb_of(doc),
                    &text_array(p),
                    jsonb_of(new),
                    create,
                    Insert::Replace,
                )?),
            }
        }
        (Func::JsonbInsert, [doc, p, new, rest @ ..]) => {
            let after = matches!(rest.first(), Some(Value::Bool(true)));
            let how = if after { Insert::After } else { Insert::Before };
            Found::Jsonb(set_path(
                jsonb_of(doc),
                &text_array(p),
                jsonb_of(new),
                true,
                how,
            )?)
        }
        (Func::JsonbObject { json }, [keys, rest @ ..]) => {
            let pairs = object_pairs(&text_array(keys), rest.first().map(text_array))?;
            if json {
                let mut s = String::from("{");
                for (k, (key, v)) in pairs.iter().enumerate() {
                    if k > 0 {
                        s.push_str(", ");
                    }
                    json::quote(key, &mut s);
                    s.push_str(" : ");
                    match v {
                        Some(v) => json::quote(v, &mut s),
                        None => s.push_str("null"),
                    }
                }
                s.push('}');
                Found::Text(s)
            } else {
                Found::Jsonb(jsonb::object(
                    pairs
                        .into_iter()
                        .map(|(k, v)| (k, v.map_or_else(jsonb::null, |v| jsonb::string(&v))))
                        .collect(),
                ))
            }
        }
        _ => {
            return Err(Error::internal(format!(
                "{func:?} called with unexpected arguments"
            )));
        }
    })
}

/// `?`: a top-level key, or a string element of a top-level array (or the string a
/// top-level scalar is).
fn exists(doc: &[u8], key: &str) -> bool {
    match jsonb::view(doc) {
        Node::Object(o) => o.find(key).is_some(),
        Node::Array(a) => a
            .iter()
            .any(|e| matches!(jsonb::view(e), Node::String(s) if s == key)),
        Node::String(s) => s == key,
        _ => false,
    }
}

/// `||`: objects merged (the right side's keys win), arrays concatenated, a scalar
/// or object on one side taken as a one-element array.
fn concat(a: &[u8], b: &[u8]) -> Vec<u8> {
    match (jsonb::view(a), jsonb::view(b)) {
        (Node::Object(x), Node::Object(y)) => {
            let members: Vec<(String, Vec<u8>)> = x
                .iter()
                .chain(y.iter())
                .map(|(k, v)| (k.to_string(), v.to_vec()))
                .collect();
            jsonb::object(members)
        }
        (x, y) => {
            let items = |node: Node, bytes: &[u8]| -> Vec<Vec<u8>> {
                match node {
                    Node::Array(e) => e.iter().map(<[u8]>::to_vec).collect(),
                    _ => vec![bytes.to_vec()],
                }
            };
            let mut all = items(x, a);
            all.extend(items(y, b));
            jsonb::array(&all)
        }
    }
}

fn cannot_delete_from_scalar() -> Error {
    Error::new("22023", "cannot delete from scalar")
}

/// `- text` / `- text[]`: members of those keys gone, or string elements equal to one.
fn delete_keys(doc: &[u8], keys: &[Option<String>]) -> Result<Vec<u8>> {
    let gone = |k: &str| keys.iter().flatten().any(|x| x == k);
    match jsonb::view(doc) {
        Node::Object(o) => Ok(jsonb::object(
            o.iter()
                .filter(|(k, _)| !gone(k))
                .map(|(k, v)| (k.to_string(), v.to_vec()))
                .collect(),
        )),
        Node::Array(a) => Ok(jsonb::array(
            &a.iter()
                .filter(|e| !matches!(jsonb::view(e), Node::String(s) if gone(s)))
                .map(<[u8]>::to_vec)
                .collect::<Vec<_>>(),
        )),
        _ => Err(cannot_delete_from_scalar()),
    }
}

/// `- int`: an array's element gone (negative from the end).
fn delete_index(doc: &[u8], k: i64) -> Result<Vec<u8>> {
    match jsonb::view(doc) {
        Node::Array(a) => {
            let at = if k < 0 { a.len() as i64 + k } else { k };
            Ok(jsonb::array(
                &a.iter()
                    .enumerate()
                    .filter(|(i, _)| *i as i64 != at)
                    .map(|(_, e)| e.to_vec())
                    .collect::<Vec<_>>(),
            ))
        }
        Node::Object(_) => Err(Error::new(
            "22023",
            "cannot delete from object using integer index",
        )),
        _ => Err(cannot_delete_from_scalar()),
    }
}

/// `#-`: the value at the path gone (an empty path, or one that leads nowhere, leaves
/// the value as it is).
fn delete_path(doc: &[u8], steps: &[Option<String>]) -> Result<Vec<u8>> {
    match jsonb::view(doc) {
        Node::Object(_) | Node::Array(_) => delete_path_at(doc, steps, 1),
        _ => Err(Error::new("22023", "cannot delete path in scalar")),
    }
}

/// `#-` below the top: `position` numbers `steps[0]` in the whole path; a scalar the
/// path runs into stays as it is.
fn delete_path_at(doc: &[u8], steps: &[Option<String>], position: usize) -> Result<Vec<u8>> {
    let Some((first, rest)) = steps.split_first() else {
        return Ok(doc.to_vec());
    };
    let node = jsonb::view(doc);
    if !matches!(node, Node::Object(_) | Node::Array(_)) {
        return Ok(doc.to_vec());
    }
    let Some(step) = first.as_deref() else {
        return Err(Error::new(
            "22004",
            format!("path element at position {position} is null"),
        ));
    };
    match node {
        Node::Object(o) => {
            let mut members = Vec::with_capacity(o.len());
            for (k, v) in o.iter() {
                if k == step {
                    if rest.is_empty() {
                        continue;
                    }
                    members.push((k.to_string(), delete_path_at(v, rest, position + 1)?));
                } else {
                    members.push((k.to_string(), v.to_vec()));
                }
            }
            Ok(jsonb::object(members))
        }
        Node::Array(a) => {
            let Ok(k) = step.trim().parse::<i64>() else {
                return Err(Error::new(
                    "22P02",
                    format!("path element at position {position} is not an integer: \"{step}\""),
                ));
            };
            let at = if k < 0 { a.len() as i64 + k } else { k };
            let mut items = Vec::with_capacity(a.len());
            for (i, e) in a.iter().enumerate() {
                if i as i64 == at {
                    if rest.is_empty() {
                        continue;
                    }
                    items.push(delete_path_at(e, rest, position + 1)?);
                } else {
                    items.push(e.to_vec());
                }
            }
            Ok(jsonb::array(&items))
        }
        _ => Ok(doc.to_vec()),
    }
}

/// jsonb_strip_nulls: members whose value is null gone, at every depth (array
/// elements stay).
fn strip_nulls(doc: &[u8]) -> Vec<u8> {
    match jsonb::view(doc) {
        Node::Object(o) => jsonb::object(
            o.iter()
                .filter(|(_, v)| !matches!(jsonb::view(v), Node::Null))
                .map(|(k, v)| (k.to_string(), strip_nulls(v)))
                .collect(),
        ),
        Node::Array(a) => jsonb::array(&a.iter().map(strip_nulls).collect::<Vec<_>>()),
        _ => doc.to_vec(),
    }
}

/// json_strip_nulls over json text: the text rebuilt without null members (its
/// other spacing kept as PostgreSQL's json writer leaves it: none).
fn strip_json_nulls(text: &str) -> String {
    match json::type_name(text) {
        "object" => {
            let members = json::object_members(text).unwrap_or_default();
            let kept: Vec<String> = members
                .into_iter()
                .filter(|(_, v)| json::type_name(v) != "null")
                .map(|(k, v)| {
                    let mut s = String::new();
                    json::quote(&k, &mut s);
                    s.push(':');
                    s.push_str(&strip_json_nulls(json::trimmed(v)));
                    s
                })
                .collect();
            format!("{{{}}}", kept.join(","))
        }
        "array" => {
            let items: Vec<String> = json::array_items(text)
                .unwrap_or_default()
                .into_iter()
                .map(|v| strip_json_nulls(json::trimmed(v)))
                .collect();
            format!("[{}]", items.join(","))
        }
        _ => text.to_string(),
    }
}

/// jsonb_object's key/value pairs: one array of alternating keys and values, or two
/// arrays of keys and values.
fn object_pairs(
    first: &[Option<String>],
    second: Option<Vec<Option<String>>>,
) -> Result<Vec<(String, Option<String>)>> {
    let null_key = || Error::new("22004", "null value not allowed for object key");
    match second {
        None => {
            if !first.len().is_multiple_of(2) {
                return Err(Error::new(
                    "2202E",
                    "array must have even number of elements",
                ));
            }
            first
                .chunks(2)
                .map(|p| Ok((p[0].clone().ok_or_else(null_key)?, p[1].clone())))
                .collect()
        }
        Some(values) => {
            if values.len() != first.len() {
                return Err(Error::new("2202E", "mismatched array dimensions"));
            }
            first
                .iter()
                .zip(values)
                .map(|(k, v)| Ok((k.clone().ok_or_else(null_key)?, v)))
                .collect()
        }
    }
}

/// Where jsonb_set / jsonb_insert put the new value at the end of the path.
#[derive(Clone, Copy, PartialEq)]
enum Insert {
    Replace,
    Before,
    After,
}

/// jsonb_set and jsonb_insert: `new` at `steps` (keys into objects, indexes into
/// arrays — past either end appends or prepends), creating the last step when
/// `create`; a path through something missing leaves the document as it is.
fn set_path(
    doc: &[u8],
    steps: &[Option<String>],
    new: &[u8],
    create: bool,
    how: Insert,
) -> Result<Vec<u8>> {
    if !matches!(jsonb::view(doc), Node::Object(_) | Node::Array(_)) {
        return Err(Error::new("22023", "cannot set path in scalar"));
    }
    if steps.is_empty() {
        return Ok(doc.to_vec());
    }
    set_at(doc, steps, 0, new, create, how)
}

fn set_at(
    doc: &[u8],
    steps: &[Option<String>],
    level: usize,
    new: &[u8],
    create: bool,
    how: Insert,
) -> Result<Vec<u8>> {
    let Some(step) = steps.get(level) else {
        return Ok(new.to_vec());
    };
    let Some(step) = step.as_deref() else {
        return Err(Error::new(
            "22004",
            format!("path element at position {} is null", level + 1),
        ));
    };
    let last = level + 1 == steps.len();
    match jsonb::view(doc) {
        Node::Object(o) => {
            let mut members: Vec<(String, Vec<u8>)> = Vec::with_capacity(o.len() + 1);
            let mut found = false;
            for (k, v) in o.iter() {
                if k == step {
                    found = true;
                    if last && how != Insert::Replace {
                        return Err(Error::new("22023", "cannot replace existing key")
                            .with_hint("Try using the function jsonb_set to replace key value."));
                    }
                    members.push((
                        k.to_string(),
                        set_at(v, steps, level + 1, new, create, how)?,
                    ));
                } else {
                    members.push((k.to_string(), v.to_vec()));
                }
            }
            if !found && last && (create || how != Insert::Replace) {
                members.push((step.to_string(), new.to_vec()));
            }
            Ok(jsonb::object(members))
        }
        Node::Array(a) => {
            let Ok(k) = step.trim().parse::<i64>() else {
                return Err(Error::new(
                    "22P02",
                    format!(
                        "path element at position {} is not an integer: \"{step}\"",
                        level + 1
                    ),
                ));
            };
            let len = a.len() as i64;
            let at = if k < 0 { len + k } else { k };
            let mut items: Vec<Vec<u8>> = a.iter().map(<[u8]>::to_vec).collect();
            if at >= 0 && at < len {
                let at = at as usize;
                if last {
                    match how {
                        Insert::Replace => items[at] = new.to_vec(),
                        Insert::Before => items.insert(at, new.to_vec()),
                        Insert::After => items.insert(at + 1, new.to_vec()),
                    }
                } else {
                    items[at] = set_at(&items[at], steps, level + 1, new, create, how)?;
                }
            } else if last && (create || how != Insert::Replace) {
                // Past the end appends, before the start prepends.
                if at < 0 {
                    items.insert(0, new.to_vec());
                } else {
                    items.push(new.to_vec());
                }
            }
            Ok(jsonb::array(&items))
        }
        _ => Err(Error::new("22023", "cannot set path in scalar")),
    }
}

/// The rows of json set-returning function `kind` over document `doc`, column by column
/// (jsonb_each: keys, then values); no rows for NULL.
pub fn set_rows(kind: SetFn, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let width = kind.columns().len();
    let mut columns: Vec<Vec<Value>> = vec![Vec::new(); width];
    let doc = args.first().unwrap_or(&Value::Null);
    if args.iter().any(Value::is_null) {
        return Ok(columns);
    }
    if matches!(kind, SetFn::RegexpMatches | SetFn::RegexpSplit) {
        columns[0] = super::regexp::set_rows(kind, args)?;
        return Ok(columns);
    }
    if kind == SetFn::TsUnnest {
        return Ok(super::tsearch_functions::unnest_columns(doc));
    }
    if matches!(kind, SetFn::TsParse | SetFn::TsTokenType) {
        return super::tsearch_functions::parser_columns(kind, args);
    }
    if kind == SetFn::PathQuery {
        let [doc, path, vars, silent] = args else {
            return Err(Error::internal("jsonb_path_query takes four arguments"));
        };
        let silent = matches!(silent, Value::Bool(true));
        let items = super::jsonpath::query(jsonb_of(doc), text_of(path), jsonb_of(vars), silent)?;
        columns[0] = items.into_iter().map(Value::Jsonb).collect();
        return Ok(columns);
    }
    let name = kind.name();
    let err = |m: String| Error::new("22023", m);
    // A jsonb value as the function's value column: jsonb, or (`text`) its text with a
    // string unquoted and null as SQL NULL.
    let jsonb_value = |b: &[u8], text: bool| -> Value {
        if !text {
            return Value::Jsonb(b.to_vec());
        }
        match jsonb::view(b) {
            Node::Null => Value::Null,
            Node::String(s) => Value::Text(s.into()),
            _ => Value::Text(jsonb::to_text(b)),
        }
    };
    let json_value = |t: &str, text: bool| -> Value {
        let t = json::trimmed(t);
        if !text {
            return Value::Text(t.into());
        }
        match json::type_name(t) {
            "null" => Value::Null,
            "string" => Value::Text(json::unquote(t)),
            _ => Value::Text(t.into()),
        }
    };
    match (kind, doc) {
        (SetFn::Each { json: false, text }, Value::Jsonb(b)) => match jsonb::view(b) {
            Node::Object(o) => {
                for (k, v) in o.iter() {
                    columns[0].push(Value::Text(k.into()));
                    columns[1].push(jsonb_value(v, text));
                }
            }
            _ => return Err(err(format!("cannot call {name} on a non-object"))),
        },
        (SetFn::Each { json: true, text }, Value::Text(t)) => match json::object_members(t) {
            Some(members) => {
                for (k, v) in members {
                    columns[0].push(Value::Text(k));
                    columns[1].push(json_value(v, text));
                }
            }
            None if json::type_name(t) == "array" => {
                return Err(err("cannot deconstruct an array as an object".into()));
            }
            None => return Err(err("cannot deconstruct a scalar".into())),
        },
        (SetFn::ObjectKeys { json: false }, Value::Jsonb(b)) => match jsonb::view(b) {
            Node::Object(o) => columns[0].extend(o.iter().map(|(k, _)| Value::Text(k.into()))),
            Node::Array(_) => return Err(err(format!("cannot call {name} on an array"))),
            _ => return Err(err(format!("cannot call {name} on a scalar"))),
        },
        (SetFn::ObjectKeys { json: true }, Value::Text(t)) => match json::object_members(t) {
            Some(members) => columns[0].extend(members.into_iter().map(|(k, _)| Value::Text(k))),
            None if json::type_name(t) == "array" => {
                return Err(err(format!("cannot call {name} on an array")));
            }
            None => return Err(err(format!("cannot call {name} on a scalar"))),
        },
        (SetFn::ArrayElements { json: false, text }, Value::Jsonb(b)) => match jsonb::view(b) {
            Node::Array(a) => columns[0].extend(a.iter().map(|e| jsonb_value(e, text))),
            Node::Object(_) => return Err(err("cannot extract elements from an object".into())),
            _ => return Err(err("cannot extract elements from a scalar".into())),
        },
        (SetFn::ArrayElements { json: true, text }, Value::Text(t)) => match json::array_items(t) {
            Some(items) => columns[0].extend(items.into_iter().map(|e| json_value(e, text))),
            None if json::type_name(t) == "object" => {
                return Err(err(format!("cannot call {name} on a non-array")));
            }
            None => return Err(err(format!("cannot call {name} on a scalar"))),
        },
        _ => return Err(Error::internal(format!("{name} over a mistyped document"))),
    }
    Ok(columns)
}

/// jsonb_to_record(set) / json_to_record(set) (`name`) over `doc`: one row per object
/// (one object, or with `set` an array of them), column `k` the value under `keys[k]`
/// read as `types[k]`. Column by column, as [`set_rows`]. json documents are read as
/// written (a text column gets a nested value's own text).
pub fn record_rows(
    name: &str,
    set: bool,
    doc: &Value,
    keys: &[String],
    types: &[SqlType],
    ctx: &ExecContext,
) -> Result<Vec<Vec<Value>>> {
    let mut columns: Vec<Vec<Value>> = vec![Vec::new(); types.len()];
    let jsonb_named = name.starts_with("jsonb");
    let not_array = |kind: &str| {
        let what = if jsonb_named { "a non-array" } else { kind };
        Error::new("22023", format!("cannot call {name} on {what}"))
    };
    let not_objects = || {
        Error::new(
            "22023",
            format!("argument of {name} must be an array of objects"),
        )
    };
    let not_object =
        |kind: &str| Error::new("22023", format!("cannot call populate_composite on {kind}"));
    match doc {
        Value::Null if set => {}
        Value::Null => columns.iter_mut().for_each(|c| c.push(Value::Null)),
        Value::Jsonb(b) => {
            let objects: Vec<&[u8]> = match (set, jsonb::view(b)) {
                (false, _) => vec![b.as_slice()],
                (true, Node::Array(a)) => a.iter().collect(),
                (true, Node::Object(_)) => return Err(not_array("an object")),
                (true, _) => return Err(not_array("a scalar")),
            };
            for object in objects {
                let o = match jsonb::view(object) {
                    Node::Object(o) => o,
                    _ if set => return Err(not_objects()),
                    Node::Array(_) => return Err(not_object("an array")),
                    _ => return Err(not_object("a scalar")),
                };
                for ((column, key), ty) in columns.iter_mut().zip(keys).zip(types) {
                    column.push(match o.find(key) {
                        Some(v) => populate(v, *ty, ctx)?,
                        None => Value::Null,
                    });
                }
            }
        }
        Value::Text(t) => {
            let objects: Vec<&str> = match (set, json::array_items(t)) {
                (false, _) => vec![t.as_str()],
                (true, Some(items)) => items,
                (true, None) if json::type_name(t) == "object" => {
                    return Err(not_array("an object"));
                }
                (true, None) => return Err(not_array("a scalar")),
            };
            for object in objects {
                let Some(members) = json::object_members(object) else {
                    if set {
                        return Err(not_objects());
                    }
                    return Err(not_object(if json::type_name(object) == "array" {
                        "an array"
                    } else {
                        "a scalar"
                    }));
                };
                for ((column, key), ty) in columns.iter_mut().zip(keys).zip(types) {
                    let found = members
                        .iter()
                        .rev()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| json::trimmed(v));
                    column.push(match found {
                        None => Value::Null,
                        Some(v) => populate_json(v, *ty, ctx)?,
                    });
                }
            }
        }
        _ => return Err(Error::internal(format!("{name} over a mistyped document"))),
    }
    Ok(columns)
}

/// [`populate`] of a value of a json document, as written: a json or text column
/// takes a nested value's own text.
fn populate_json(v: &str, ty: SqlType, ctx: &ExecContext) -> Result<Value> {
    let raw = match (json::type_name(v), ty.ty) {
        ("null", _) => return Ok(Value::Null),
        (_, DataType::Json) => true,
        ("object" | "array", t) => t.is_string(),
        _ => false,
    };
    if !raw {
        return populate(&jsonb::parse(v)?, ty, ctx);
    }
    let value = Value::Text(v.into());
    if ty.typmod >= 0 {
        return crate::types::cast::cast_value(value, ty, false, &ctx.fmt);
    }
    Ok(value)
}

/// A json value read as a column of type `ty` (PostgreSQL's populate_record_field):
/// null is NULL, json and jsonb take it as it is, an array type takes a json array
/// element by element, anything else reads a string's contents or the value's text.
fn populate(v: &[u8], ty: SqlType, ctx: &ExecContext) -> Result<Value> {
    let value = match (jsonb::view(v), ty.ty) {
        (Node::Null, _) => return Ok(Value::Null),
        (_, DataType::Jsonb) => Value::Jsonb(v.to_vec()),
        (_, DataType::Json) => Value::Text(jsonb::to_text(v)),
        (Node::Array(_), DataType::Array(elem)) => {
            let mut dims = Vec::new();
            let mut at = v;
            while let Node::Array(a) = jsonb::view(at) {
                dims.push(crate::types::array::Dim {
                    len: a.len() as i32,
                    lbound: 1,
                });
                match a.iter().next() {
                    Some(first) => at = first,
                    None => break,
                }
            }
            if dims.len() > crate::types::array::MAX_DIMS {
                return Err(Error::new(
                    "54000",
                    "number of array dimensions exceeds the maximum allowed",
                ));
            }
            let mut values = Vec::new();
            flatten(v, &dims, &mut values, *elem, ctx)?;
            if values.is_empty() {
                dims.clear();
            }
            let mut bytes = Vec::new();
            let mut b = crate::types::array::Builder::new(&mut bytes, &dims);
            for e in &values {
                b.push(e);
            }
            Value::Array(Box::new(crate::types::array::Array { elem: *elem, bytes }))
        }
        (Node::String(s), _) => crate::types::text::parse_value(s, ty.ty, &ctx.fmt)?,
        _ => crate::types::text::parse_value(&jsonb::to_text(v), ty.ty, &ctx.fmt)?,
    };
    if ty.typmod >= 0 {
        return crate::types::cast::cast_value(value, ty, false, &ctx.fmt);
    }
    Ok(value)
}

/// The leaves of json array `v` shaped as `dims` (rectangular), read as `elem`.
fn flatten(
    v: &[u8],
    dims: &[crate::types::array::Dim],
    out: &mut Vec<Value>,
    elem: DataType,
    ctx: &ExecContext,
) -> Result<()> {
    let malformed = || {
        Error::new("22P02", "malformed JSON array")
            .with_detail("Multidimensional arrays must have sub-arrays with matching dimensions.")
    };
    let Some((d, inner)) = dims.split_first() else {
        out.push(populate(v, SqlType::new(elem), ctx)?);
        return Ok(());
    };
    let Node::Array(a) = jsonb::view(v) else {
        return Err(malformed());
    };
    if a.len() as i32 != d.len {
        return Err(malformed());
    }
    for e in a.iter() {
        flatten(e, inner, out, elem, ctx)?;
    }
    Ok(())
}
