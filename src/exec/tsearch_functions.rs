//! Kernels of the full-text search functions and operators (`sql::expr::TsFn`): values
//! in and out of their stored forms, the work done by `types::tsearch`. Configurations
//! come from a regconfig argument or, without one, the session's
//! `default_text_search_config`; configurations kiln lacks are 0A000 here, at use.

use super::context::ExecContext;
use super::functions::eval_strict_rows;
use super::vector::Vector;
use crate::error::{Error, Result};
use crate::sql::expr::{Expr, TsFn, TsQueryKind};
use crate::types::array::View;
use crate::types::tsearch::dict::{Config, ConfigLexizer, Dictionary};
use crate::types::tsearch::{self, TsQuery, TsVector, matching, query, rank, vector};
use crate::types::{DataType, SqlType, Value};

pub fn eval(
    f: TsFn,
    args: &[Expr],
    vs: &[Vector],
    n: usize,
    ty: SqlType,
    ctx: &ExecContext,
) -> Result<Vector> {
    if f == TsFn::CurrentConfig {
        let c = session_config(ctx)?;
        return Ok(Vector::repeat(
            &Value::Int8(c.oid() as i64),
            DataType::RegConfig,
            n,
        ));
    }
    if f == TsFn::Match {
        return match_column(vs, n);
    }
    if let TsFn::Rank { cd, weights } = f {
        return rank_column(cd, weights, args, vs, n);
    }
    // The session's configuration, read once for the forms without one.
    let default = match f {
        TsFn::ToTsVector { config: false }
        | TsFn::ToTsQuery { config: false, .. }
        | TsFn::Headline { config: false }
        | TsFn::JsonToTsVector { config: false, .. }
        | TsFn::JsonHeadline { config: false } => Some(session_config(ctx)?),
        _ => None,
    };
    eval_strict_rows(args, vs, n, ty, |row| eval_row(f, row, default, ctx))
}

/// The configuration default_text_search_config names.
fn session_config(ctx: &ExecContext) -> Result<Config> {
    let name = ctx
        .settings
        .get("default_text_search_config")
        .map(|(_, v)| v.as_str())
        .unwrap_or("pg_catalog.english");
    let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
    match tsearch::dict::CONFIGS.iter().find(|c| c.1 == name) {
        Some(c) => config_of(c.0),
        None => Err(Error::undefined_object(format!(
            "text search configuration \"{name}\" does not exist"
        ))),
    }
}

/// The configuration of a regconfig oid.
fn config_of(oid: u32) -> Result<Config> {
    match Config::of_oid(oid) {
        Ok(Some(c)) => Ok(c),
        Err(name) => Err(Error::feature_not_supported(format!(
            "text search configuration \"{name}\" (kiln has no stemmer for it)"
        ))),
        Ok(None) => Err(Error::new(
            "XX000",
            format!("cache lookup failed for text search configuration {oid}"),
        )),
    }
}

fn tsvector_arg(v: &Value) -> TsVector {
    match v {
        Value::Raw(_, b) => tsearch::vector_of(b),
        _ => TsVector::default(),
    }
}

fn tsquery_arg(v: &Value) -> TsQuery {
    match v {
        Value::Raw(_, b) => tsearch::query_of(b),
        _ => TsQuery::default(),
    }
}

fn text_arg(v: &Value) -> &str {
    match v {
        Value::Text(s) => s,
        _ => "",
    }
}

fn out_vector(v: &TsVector) -> Value {
    Value::Raw(DataType::TsVector, vector::encode(v))
}

fn out_query(q: &TsQuery) -> Value {
    Value::Raw(DataType::TsQuery, query::encode(q))
}

/// The elements of a one-dimensional array argument (None for NULL elements).
fn array_elements(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => View::new(&a.bytes, a.elem).values(),
        _ => Vec::new(),
    }
}

fn text_array(words: &[String]) -> Value {
    let values: Vec<Value> = words.iter().map(|w| Value::Text(w.clone())).collect();
    Value::Array(Box::new(crate::types::array::from_values(
        DataType::Text,
        &values,
    )))
}

/// The NOTICEs a configuration's parse raised (words too long to be indexed), sent on.
fn lexizer_notices(lexizer: &ConfigLexizer, ctx: &ExecContext) {
    for _ in lexizer.notices.borrow_mut().drain(..) {
        ctx.notice(
            Error::new("00000", "word is too long to be indexed")
                .with_detail("Words longer than 2047 characters are ignored."),
        );
    }
}

fn eval_row(f: TsFn, row: &[Value], default: Option<Config>, ctx: &ExecContext) -> Result<Value> {
    let config = |row: &[Value]| -> Result<(Config, usize)> {
        match default {
            Some(c) => Ok((c, 0)),
            None => match row.first() {
                Some(Value::Int8(o)) => Ok((config_of(*o as u32)?, 1)),
                _ => Err(Error::internal(
                    "a text search configuration that is not an oid",
                )),
            },
        }
    };
    Ok(match f {
        TsFn::ToTsVector { .. } => {
            let (c, at) = config(row)?;
            let lexizer = ConfigLexizer::new(c);
            let words = tsearch::Lexizer::parsetext(&lexizer, text_arg(&row[at]));
            lexizer_notices(&lexizer, ctx);
            out_vector(&vector::from_parsed(&words)?)
        }
        TsFn::ToTsQuery { kind, .. } => {
            let (c, at) = config(row)?;
            let lexizer = ConfigLexizer::new(c);
            let text = text_arg(&row[at]);
            let mut notices = Vec::new();
            let q = match kind {
                TsQueryKind::To => query::to_tsquery(&lexizer, text, &mut notices)?,
                TsQueryKind::Plain => query::plainto_tsquery(&lexizer, text, &mut notices)?,
                TsQueryKind::Phrase => query::phraseto_tsquery(&lexizer, text, &mut notices)?,
                TsQueryKind::Websearch => {
                    query::websearch_to_tsquery(&lexizer, text, &mut notices)?
                }
            };
            lexizer_notices(&lexizer, ctx);
            for n in notices {
                ctx.notice(Error::new("00000", n));
            }
            out_query(&q)
        }
        TsFn::Match => Value::Bool(matching::matches(
            &tsvector_arg(&row[0]),
            &tsquery_arg(&row[1]),
        )),
        TsFn::SetWeight => {
            let w = text_arg(&row[1]).chars().next().unwrap_or('\0');
            out_vector(&vector::setweight(&tsvector_arg(&row[0]), w)?)
        }
        TsFn::SetWeightFilter => {
            let w = text_arg(&row[1]).chars().next().unwrap_or('\0');
            let words = array_elements(&row[2]);
            let words: Vec<Option<&str>> = words.iter().map(value_str).collect();
            out_vector(&vector::setweight_by_filter(
                &tsvector_arg(&row[0]),
                w,
                &words,
            )?)
        }
        TsFn::Strip => out_vector(&vector::strip(&tsvector_arg(&row[0]))),
        TsFn::Length => Value::Int4(vector::length(&tsvector_arg(&row[0]))),
        TsFn::Concat => out_vector(&vector::concat(
            &tsvector_arg(&row[0]),
            &tsvector_arg(&row[1]),
        )?),
        TsFn::Delete => out_vector(&vector::delete(
            &tsvector_arg(&row[0]),
            &[Some(text_arg(&row[1]))],
        )),
        TsFn::DeleteArray => {
            let words = array_elements(&row[1]);
            let words: Vec<Option<&str>> = words.iter().map(value_str).collect();
            out_vector(&vector::delete(&tsvector_arg(&row[0]), &words))
        }
        TsFn::Filter => {
            let ws = array_elements(&row[1]);
            let ws: Vec<Option<char>> = ws
                .iter()
                .map(|w| value_str(w).map(|s| s.chars().next().unwrap_or('\0')))
                .collect();
            out_vector(&vector::filter(&tsvector_arg(&row[0]), &ws)?)
        }
        TsFn::ToArray => text_array(&vector::to_array(&tsvector_arg(&row[0]))),
        TsFn::FromArray => {
            let words = array_elements(&row[0]);
            let words: Vec<Option<&str>> = words.iter().map(value_str).collect();
            out_vector(&vector::from_array(&words)?)
        }
        TsFn::NumNode => Value::Int4(query::numnode(&tsquery_arg(&row[0]))),
        TsFn::QueryTree => Value::Text(query::querytree(&tsquery_arg(&row[0]))),
        TsFn::And => out_query(&query::and(&tsquery_arg(&row[0]), &tsquery_arg(&row[1]))),
        TsFn::Or => out_query(&query::or(&tsquery_arg(&row[0]), &tsquery_arg(&row[1]))),
        TsFn::Not => out_query(&query::not(&tsquery_arg(&row[0]))),
        TsFn::Phrase => {
            let distance = match row.get(2) {
                Some(Value::Int4(d)) => *d,
                _ => 1,
            };
            out_query(&query::phrase(
                &tsquery_arg(&row[0]),
                &tsquery_arg(&row[1]),
                distance,
            )?)
        }
        TsFn::Contains => Value::Bool(query::contains(
            &tsquery_arg(&row[0]),
            &tsquery_arg(&row[1]),
        )),
        // Evaluated a column at a time (`rank_column`).
        TsFn::Rank { .. } => Value::Null,
        TsFn::Lexize => {
            let Value::Int8(o) = row[0] else {
                return Err(Error::internal("a dictionary that is not an oid"));
            };
            let Some(dict) = Dictionary::all().find(|d| i64::from(d.oid()) == o) else {
                return Err(Error::new(
                    "XX000",
                    format!("cache lookup failed for text search dictionary {o}"),
                ));
            };
            match dict.lexize(text_arg(&row[1])) {
                Some(words) => text_array(&words),
                None => Value::Null,
            }
        }
        TsFn::QueryCompare(cmp) => {
            use crate::sql::expr::TsCmp as C;
            use std::cmp::Ordering as O;
            let o = query::compare(&tsquery_arg(&row[0]), &tsquery_arg(&row[1]));
            Value::Bool(match cmp {
                C::Eq => o == O::Equal,
                C::Ne => o != O::Equal,
                C::Lt => o == O::Less,
                C::Le => o != O::Greater,
                C::Gt => o == O::Greater,
                C::Ge => o != O::Less,
            })
        }
        TsFn::Headline { .. } => {
            let (c, at) = config(row)?;
            Value::Text(tsearch::headline::ts_headline(
                c,
                text_arg(&row[at]),
                &tsquery_arg(&row[at + 1]),
                row.get(at + 2).map(text_arg),
            )?)
        }
        TsFn::Rewrite => out_query(&tsearch::rewrite::ts_rewrite(
            &tsquery_arg(&row[0]),
            &tsquery_arg(&row[1]),
            &tsquery_arg(&row[2]),
        )?),
        TsFn::JsonToTsVector { json, filter, .. } => {
            use tsearch::jsondoc;
            let (c, at) = config(row)?;
            let flags = match (filter, row.get(at + 1)) {
                (true, Some(Value::Jsonb(f))) => jsondoc::parse_filter(f)?,
                _ => jsondoc::STRING,
            };
            let values = match (&row[at], json) {
                (Value::Text(doc), true) => jsondoc::json_values(doc, flags),
                (Value::Jsonb(doc), false) => jsondoc::jsonb_values(doc, flags),
                _ => return Err(Error::internal("a json document of the wrong kind")),
            };
            let lexizer = ConfigLexizer::new(c);
            let v = jsondoc::to_tsvector(&lexizer, &values)?;
            lexizer_notices(&lexizer, ctx);
            out_vector(&v)
        }
        TsFn::JsonHeadline { .. } => {
            let (c, at) = config(row)?;
            let Value::Jsonb(doc) = &row[at] else {
                return Err(Error::internal("ts_headline of a jsonb that is not one"));
            };
            Value::Jsonb(tsearch::jsondoc::headline_jsonb(
                c,
                doc,
                &tsquery_arg(&row[at + 1]),
                row.get(at + 2).map(text_arg),
            )?)
        }
        TsFn::CurrentConfig => Value::Null,
    })
}

fn value_str(v: &Value) -> Option<&str> {
    match v {
        Value::Text(s) => Some(s.as_str()),
        _ => None,
    }
}

/// unnest(tsvector)'s rows, column by column: lexemes, their positions (NULL when
/// stripped) and their weights' letters.
pub fn unnest_columns(v: &Value) -> Vec<Vec<Value>> {
    let mut columns = vec![Vec::new(), Vec::new(), Vec::new()];
    for (lexeme, positions, weights) in vector::unnest_rows(&tsvector_arg(v)) {
        columns[0].push(Value::Text(lexeme));
        columns[1].push(match positions {
            Some(p) => {
                let values: Vec<Value> = p.into_iter().map(Value::Int2).collect();
                Value::Array(Box::new(crate::types::array::from_values(
                    DataType::Int2,
                    &values,
                )))
            }
            None => Value::Null,
        });
        columns[2].push(match weights {
            Some(w) => text_array(&w),
            None => Value::Null,
        });
    }
    columns
}

/// `tsvector @@ tsquery` over a batch: each row's stored tsvector read in place, the
/// query prepared once for as long as the rows share it (a constant query: every row).
fn match_column(vs: &[Vector], n: usize) -> Result<Vector> {
    use super::vector::Data;
    let (Data::Text(docs), Data::Text(queries)) = (&vs[0].data, &vs[1].data) else {
        return Err(Error::internal("@@ over values that are not stored bytes"));
    };
    let mut out = Vector::with_capacity(DataType::Bool, n);
    let mut prepared: Option<(&[u8], matching::Prepared)> = None;
    let mut scratch = matching::Scratch::default();
    for i in 0..n {
        if vs[0].is_null(i) || vs[1].is_null(i) {
            out.push_null();
            continue;
        }
        let q = queries.get(i);
        if prepared.as_ref().is_none_or(|(b, _)| *b != q) {
            prepared = Some((q, matching::Prepared::new(&tsearch::query_of(q))));
        }
        let hit = prepared
            .as_ref()
            .is_some_and(|(_, p)| p.matches_stored(docs.get(i), &mut scratch));
        out.push_value(&Value::Bool(hit));
    }
    Ok(out)
}

/// The weights array of ts_rank / ts_rank_cd, checked.
fn rank_weights(w: &Value) -> Result<[f32; 4]> {
    if let Value::Array(a) = w
        && View::new(&a.bytes, a.elem).ndims() > 1
    {
        return Err(Error::new(
            "2202E",
            "array of weight must be one-dimensional",
        ));
    }
    let ws: Vec<Option<f32>> = array_elements(w)
        .iter()
        .map(|w| match w {
            Value::Float4(x) => Some(*x),
            _ => None,
        })
        .collect();
    Ok(rank::weights_from(&ws)?)
}

/// ts_rank / ts_rank_cd(weights, tsvector, tsquery, normalization) over a batch: each
/// row's tsvector decoded into reused space, the query and the weights read once for
/// as long as the rows share them.
fn rank_column(cd: bool, weighted: bool, args: &[Expr], vs: &[Vector], n: usize) -> Result<Vector> {
    use super::vector::Data;
    let at = usize::from(weighted);
    let (Data::Text(docs), Data::Text(queries)) = (&vs[at].data, &vs[at + 1].data) else {
        return Err(Error::internal(
            "ts_rank over values that are not stored bytes",
        ));
    };
    let types: Vec<DataType> = args.iter().map(|a| a.ty().ty).collect();
    let mut out = Vector::with_capacity(DataType::Float4, n);
    let mut query: Option<(&[u8], TsQuery, matching::Prepared)> = None;
    let mut weights: Option<(Value, [f32; 4])> = None;
    let mut v = TsVector::default();
    let mut scratch = matching::Scratch::default();
    for i in 0..n {
        if vs.iter().any(|c| c.is_null(i)) {
            out.push_null();
            continue;
        }
        let ws = if weighted {
            let w = vs[0].value(i, types[0]);
            if weights.as_ref().is_none_or(|(b, _)| *b != w) {
                let parsed = rank_weights(&w)?;
                weights = Some((w, parsed));
            }
            weights.as_ref().map_or(rank::DEFAULT_WEIGHTS, |w| w.1)
        } else {
            rank::DEFAULT_WEIGHTS
        };
        let q = queries.get(i);
        if query.as_ref().is_none_or(|(b, _, _)| *b != q) {
            let parsed = tsearch::query_of(q);
            let prepared = matching::Prepared::new(&parsed);
            query = Some((q, parsed, prepared));
        }
        let norm = match vs.get(at + 2).map(|c| c.value(i, types[at + 2])) {
            Some(Value::Int4(x)) => x,
            _ => 0,
        };
        let Some((_, q, prepared)) = &query else {
            return Err(Error::internal("ts_rank without its query"));
        };
        // Without normalization only the operands' lexemes count: read just those.
        let relevant = if norm == 0 {
            prepared.relevant_vector(docs.get(i), &mut scratch)
        } else {
            None
        };
        let doc = match relevant {
            Some(r) => r,
            None => {
                if !vector::decode_into(docs.get(i), &mut v) {
                    v = TsVector::default();
                }
                &v
            }
        };
        out.push_value(&Value::Float4(if cd {
            rank::ts_rank_cd(&ws, doc, q, norm)?
        } else {
            rank::ts_rank(&ws, doc, q, norm)?
        }));
    }
    Ok(out)
}

/// ts_parse / ts_token_type rows, column by column, for the default parser (by name
/// `default` or oid 3722).
pub fn parser_columns(
    kind: crate::plan::logical::SetFn,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    use crate::plan::logical::SetFn;
    use tsearch::parser::{self, TokenKind};
    match args.first() {
        Some(Value::Text(name)) => {
            let n = name.strip_prefix("pg_catalog.").unwrap_or(name);
            if n != "default" {
                return Err(Error::undefined_object(format!(
                    "text search parser \"{name}\" does not exist"
                )));
            }
        }
        Some(Value::Int8(3722)) => {}
        Some(Value::Int8(o)) => {
            return Err(Error::new(
                "XX000",
                format!("cache lookup failed for text search parser {o}"),
            ));
        }
        _ => {
            return Err(Error::internal(
                "a text search parser that is no name or oid",
            ));
        }
    }
    Ok(match kind {
        SetFn::TsParse => {
            let doc = args.get(1).map_or("", text_arg);
            let mut ids = Vec::new();
            let mut tokens = Vec::new();
            for t in parser::parse(doc) {
                ids.push(Value::Int4(t.kind.id()));
                tokens.push(Value::Text(t.text.to_string()));
            }
            vec![ids, tokens]
        }
        _ => {
            let all: &[TokenKind] = TokenKind::all();
            vec![
                all.iter().map(|k| Value::Int4(k.id())).collect(),
                all.iter()
                    .map(|k| Value::Text(k.alias().to_string()))
                    .collect(),
                all.iter()
                    .map(|k| Value::Text(k.description().to_string()))
                    .collect(),
            ]
        }
    })
}
