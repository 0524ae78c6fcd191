//! Full-text search functions and operators in expressions (`types::tsearch`):
//! to_tsvector / to_tsquery and their kin, the tsvector and tsquery functions, and
//! `@@ || && !! <-> @> <@`, resolved as PostgreSQL resolves them — an untyped literal
//! beside a tsvector or tsquery takes the type the function or operator declares, a
//! configuration argument is a regconfig (a literal names one, resolved now).

use sqlparser::ast as A;

use super::{BOOL, Binder, INT4, TEXT};
use crate::error::{Error, Result};
use crate::sql::expr::{Expr, Func, TsFn, TsQueryKind};
use crate::types::{DataType, SqlType};

const TSVECTOR: SqlType = SqlType::new(DataType::TsVector);
const TSQUERY: SqlType = SqlType::new(DataType::TsQuery);
const REGCONFIG: SqlType = SqlType::new(DataType::RegConfig);
const FLOAT4: SqlType = SqlType::new(DataType::Float4);
const CHAR: SqlType = SqlType::new(DataType::Char);

fn array_of(t: DataType) -> SqlType {
    SqlType::new(DataType::array_of(t).unwrap_or(DataType::Text))
}

fn call(f: TsFn, args: Vec<Expr>, ty: SqlType) -> Expr {
    Expr::Func {
        func: Func::Ts(f),
        args,
        ty,
    }
}

impl Binder<'_> {
    /// A text-search function: None when `name` with these arguments is not one.
    pub(super) fn bind_ts_function(&mut self, name: &str, args: &[Expr]) -> Result<Option<Expr>> {
        let no_function = |args: &[Expr]| {
            let types: Vec<String> = args.iter().map(|a| a.ty().display_name()).collect();
            Error::undefined_function(format!(
                "function {name}({}) does not exist",
                types.join(", ")
            ))
            .with_hint(
                "No function matches the given name and argument types. You might need to add explicit type casts.",
            )
        };
        let ty = |i: usize| args.get(i).map(|a| a.ty().ty);
        let query_kind = match name {
            "to_tsquery" => Some(TsQueryKind::To),
            "plainto_tsquery" => Some(TsQueryKind::Plain),
            "phraseto_tsquery" => Some(TsQueryKind::Phrase),
            "websearch_to_tsquery" => Some(TsQueryKind::Websearch),
            _ => None,
        };
        let is_json = |t: DataType| matches!(t, DataType::Json | DataType::Jsonb);
        let filtered = matches!(name, "json_to_tsvector" | "jsonb_to_tsvector");
        if (name == "to_tsvector" && args.iter().any(|a| is_json(a.ty().ty))) || filtered {
            // ([config,] document [, filter]).
            let with_filter = usize::from(filtered);
            let config = args.len() == 2 + with_filter;
            if args.len() != 1 + with_filter + usize::from(config) {
                return Err(no_function(args));
            }
            let doc_at = usize::from(config);
            let doc_ty = match (name, args[doc_at].ty().ty) {
                ("json_to_tsvector", DataType::Json | DataType::Unknown) => DataType::Json,
                ("jsonb_to_tsvector", DataType::Jsonb | DataType::Unknown) => DataType::Jsonb,
                ("to_tsvector", t @ (DataType::Json | DataType::Jsonb)) => t,
                _ => return Err(no_function(args)),
            };
            let mut bound = Vec::with_capacity(3);
            if config {
                if !matches!(
                    args[0].ty().ty,
                    DataType::Unknown | DataType::RegConfig | DataType::Oid
                ) {
                    return Err(no_function(args));
                }
                bound.push(self.coerce(args[0].clone(), REGCONFIG)?);
            }
            bound.push(self.coerce(args[doc_at].clone(), SqlType::new(doc_ty))?);
            if filtered {
                let f = args[doc_at + 1].clone();
                if !matches!(f.ty().ty, DataType::Jsonb | DataType::Unknown) {
                    return Err(no_function(args));
                }
                bound.push(self.coerce(f, SqlType::new(DataType::Jsonb))?);
            }
            let f = TsFn::JsonToTsVector {
                config,
                json: doc_ty == DataType::Json,
                filter: filtered,
            };
            return Ok(Some(call(f, bound, TSVECTOR)));
        }
        if name == "to_tsvector" || query_kind.is_some() {
            if args
                .iter()
                .any(|a| matches!(a.ty().ty, DataType::Json | DataType::Jsonb))
            {
                return Err(Error::feature_not_supported(format!(
                    "{name} of json or jsonb"
                )));
            }
            let result = if query_kind.is_some() {
                TSQUERY
            } else {
                TSVECTOR
            };
            let (config, text) = match args {
                [text] => (None, text),
                [config, text] => (Some(config), text),
                _ => return Err(no_function(args)),
            };
            let mut bound = Vec::with_capacity(2);
            if let Some(c) = config {
                if !matches!(
                    c.ty().ty,
                    DataType::Unknown | DataType::RegConfig | DataType::Oid
                ) {
                    return Err(no_function(args));
                }
                bound.push(self.coerce(c.clone(), REGCONFIG)?);
            }
            if !text.ty().ty.is_string() {
                return Err(no_function(args));
            }
            bound.push(self.coerce(text.clone(), TEXT)?);
            let config = config.is_some();
            let f = match query_kind {
                Some(kind) => TsFn::ToTsQuery { kind, config },
                None => TsFn::ToTsVector { config },
            };
            return Ok(Some(call(f, bound, result)));
        }
        // The functions over tsvector and tsquery, by their declared parameters.
        let (f, params, result): (TsFn, Vec<SqlType>, SqlType) = match (name, args.len()) {
            ("setweight", 2) => (TsFn::SetWeight, vec![TSVECTOR, CHAR], TSVECTOR),
            ("setweight", 3) => (
                TsFn::SetWeightFilter,
                vec![TSVECTOR, CHAR, array_of(DataType::Text)],
                TSVECTOR,
            ),
            ("strip", 1) => (TsFn::Strip, vec![TSVECTOR], TSVECTOR),
            ("length", 1) if ty(0) == Some(DataType::TsVector) => {
                (TsFn::Length, vec![TSVECTOR], INT4)
            }
            ("ts_delete", 2) if ty(1).is_some_and(|t| t.is_array()) => (
                TsFn::DeleteArray,
                vec![TSVECTOR, array_of(DataType::Text)],
                TSVECTOR,
            ),
            ("ts_delete", 2) => (TsFn::Delete, vec![TSVECTOR, TEXT], TSVECTOR),
            ("ts_filter", 2) => (
                TsFn::Filter,
                vec![TSVECTOR, array_of(DataType::Char)],
                TSVECTOR,
            ),
            ("tsvector_to_array", 1) => (TsFn::ToArray, vec![TSVECTOR], array_of(DataType::Text)),
            ("array_to_tsvector", 1) => (TsFn::FromArray, vec![array_of(DataType::Text)], TSVECTOR),
            ("numnode", 1) => (TsFn::NumNode, vec![TSQUERY], INT4),
            ("querytree", 1) => (TsFn::QueryTree, vec![TSQUERY], TEXT),
            ("tsquery_phrase", 2) => (TsFn::Phrase, vec![TSQUERY, TSQUERY], TSQUERY),
            ("tsquery_phrase", 3) => (TsFn::Phrase, vec![TSQUERY, TSQUERY, INT4], TSQUERY),
            ("ts_lexize", 2) => (
                TsFn::Lexize,
                vec![SqlType::new(DataType::RegDictionary), TEXT],
                array_of(DataType::Text),
            ),
            ("get_current_ts_config", 0) => (TsFn::CurrentConfig, vec![], REGCONFIG),
            ("ts_rewrite", 3) => (TsFn::Rewrite, vec![TSQUERY, TSQUERY, TSQUERY], TSQUERY),
            // ([config,] document, query [, options]): a text or a jsonb document.
            ("ts_headline", 2..=4) if !args.iter().any(|a| a.ty().ty == DataType::Json) => {
                let config =
                    args.len() == 4 || (args.len() == 3 && args[1].ty().ty != DataType::TsQuery);
                let jsonb = args[usize::from(config)].ty().ty == DataType::Jsonb;
                let mut params = Vec::with_capacity(4);
                if config {
                    if !matches!(
                        args[0].ty().ty,
                        DataType::Unknown | DataType::RegConfig | DataType::Oid
                    ) {
                        return Err(no_function(args));
                    }
                    params.push(REGCONFIG);
                }
                let doc = if jsonb {
                    SqlType::new(DataType::Jsonb)
                } else {
                    TEXT
                };
                params.extend([doc, TSQUERY, TEXT]);
                let mut bound = Vec::with_capacity(4);
                for (a, p) in args.iter().zip(&params) {
                    bound.push(self.ts_arg(a.clone(), *p, || no_function(args))?);
                }
                let f = if jsonb {
                    TsFn::JsonHeadline { config }
                } else {
                    TsFn::Headline { config }
                };
                return Ok(Some(call(f, bound, doc)));
            }
            ("ts_rank" | "ts_rank_cd", 2..=4) => {
                return self.bind_rank(name == "ts_rank_cd", args).map(Some);
            }
            (
                "ts_headline"
                | "ts_stat"
                | "ts_rewrite"
                | "ts_debug"
                | "tsvector_update_trigger"
                | "tsvector_update_trigger_column",
                _,
            ) => {
                return Err(Error::feature_not_supported(format!(
                    "text search function {name}"
                )));
            }
            _ => return Ok(None),
        };
        let mut bound = Vec::with_capacity(args.len());
        for (a, p) in args.iter().zip(&params) {
            bound.push(self.ts_arg(a.clone(), *p, || no_function(args))?);
        }
        Ok(Some(call(f, bound, result)))
    }

    /// An argument of declared type `to`: that type, a type that casts to it implicitly,
    /// or an untyped literal.
    fn ts_arg(&mut self, a: Expr, to: SqlType, err: impl Fn() -> Error) -> Result<Expr> {
        let t = a.ty().ty;
        let fits = t == to.ty
            || t == DataType::Unknown
            || crate::types::cast::is_implicit(t, to.ty)
            || (to.ty == DataType::Text && t.is_string())
            || (to.ty.is_array() && t.is_array() && t.elem().is_some_and(|e| e.is_string()));
        if !fits {
            return Err(err());
        }
        self.coerce(a, to)
    }

    /// ts_rank / ts_rank_cd: ([weights real[],] tsvector, tsquery [, normalization int]),
    /// bound as written (the kernel fills PostgreSQL's defaults in, and the call prints
    /// back as it was given).
    fn bind_rank(&mut self, cd: bool, args: &[Expr]) -> Result<Expr> {
        let name = if cd { "ts_rank_cd" } else { "ts_rank" };
        let err = || {
            let types: Vec<String> = args.iter().map(|a| a.ty().display_name()).collect();
            Error::undefined_function(format!(
                "function {name}({}) does not exist",
                types.join(", ")
            ))
        };
        // The weights come first when given: an array, or an untyped literal before a
        // tsvector (four arguments always have them).
        let weighted = args.len() == 4
            || args.first().is_some_and(|a| a.ty().ty.is_array())
            || (args.len() == 3 && args[1].ty().ty == DataType::TsVector);
        let (weights, rest) = if weighted {
            (Some(args[0].clone()), &args[1..])
        } else {
            (None, args)
        };
        if !(2..=3).contains(&rest.len()) {
            return Err(err());
        }
        let mut bound = Vec::with_capacity(4);
        if let Some(w) = &weights {
            bound.push(self.ts_arg(w.clone(), array_of(DataType::Float4), err)?);
        }
        bound.push(self.ts_arg(rest[0].clone(), TSVECTOR, err)?);
        bound.push(self.ts_arg(rest[1].clone(), TSQUERY, err)?);
        if let Some(n) = rest.get(2) {
            bound.push(self.ts_arg(n.clone(), INT4, err)?);
        }
        let f = TsFn::Rank {
            cd,
            weights: weights.is_some(),
        };
        Ok(call(f, bound, FLOAT4))
    }

    /// A text-search operator: None when `op` over these operands is none of theirs
    /// (comparisons go the usual way, over the stored bytes).
    pub(super) fn bind_ts_operator(
        &mut self,
        op: &A::BinaryOperator,
        l: Expr,
        r: Expr,
    ) -> Result<Option<Expr>> {
        use DataType as D;
        let sym = op.to_string();
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        let no_op = || super::expr::no_operator(lt, &sym, rt);
        let text = |t: D| t.is_string();
        Ok(Some(match sym.as_str() {
            "@@" | "@@@" => match (lt, rt) {
                (D::TsVector, D::TsQuery | D::Unknown) => {
                    let l = self.coerce(l, TSVECTOR)?;
                    let r = self.coerce(r, TSQUERY)?;
                    call(TsFn::Match, vec![l, r], BOOL)
                }
                (D::TsQuery, D::TsVector | D::Unknown) => {
                    let l = self.coerce(l, TSQUERY)?;
                    let r = self.coerce(r, TSVECTOR)?;
                    call(TsFn::Match, vec![r, l], BOOL)
                }
                // text @@ tsquery: to_tsvector(text) @@ query.
                (l_t, D::TsQuery) if text(l_t) => {
                    let l = self.coerce(l, TEXT)?;
                    let v = call(TsFn::ToTsVector { config: false }, vec![l], TSVECTOR);
                    call(TsFn::Match, vec![v, r], BOOL)
                }
                // text @@ text: to_tsvector(a) @@ plainto_tsquery(b).
                (l_t, r_t) if text(l_t) && text(r_t) => {
                    let l = self.coerce(l, TEXT)?;
                    let r = self.coerce(r, TEXT)?;
                    let v = call(TsFn::ToTsVector { config: false }, vec![l], TSVECTOR);
                    let q = call(
                        TsFn::ToTsQuery {
                            kind: TsQueryKind::Plain,
                            config: false,
                        },
                        vec![r],
                        TSQUERY,
                    );
                    call(TsFn::Match, vec![v, q], BOOL)
                }
                _ => return Err(no_op()),
            },
            "||" if lt == D::TsVector || rt == D::TsVector => {
                if !matches!(lt, D::TsVector | D::Unknown)
                    || !matches!(rt, D::TsVector | D::Unknown)
                {
                    return Ok(None);
                }
                let l = self.coerce(l, TSVECTOR)?;
                let r = self.coerce(r, TSVECTOR)?;
                call(TsFn::Concat, vec![l, r], TSVECTOR)
            }
            "=" | "<>" | "!=" | "<" | "<=" | ">" | ">="
                if matches!(
                    (lt, rt),
                    (D::TsQuery, D::TsQuery | D::Unknown) | (D::Unknown, D::TsQuery)
                ) =>
            {
                use crate::sql::expr::TsCmp as C;
                let cmp = match sym.as_str() {
                    "=" => C::Eq,
                    "<>" | "!=" => C::Ne,
                    "<" => C::Lt,
                    "<=" => C::Le,
                    ">" => C::Gt,
                    _ => C::Ge,
                };
                let l = self.coerce(l, TSQUERY)?;
                let r = self.coerce(r, TSQUERY)?;
                call(TsFn::QueryCompare(cmp), vec![l, r], BOOL)
            }
            "||" | "&&" | "<->" | "@>" | "<@" if lt == D::TsQuery || rt == D::TsQuery => {
                if !matches!(lt, D::TsQuery | D::Unknown) || !matches!(rt, D::TsQuery | D::Unknown)
                {
                    return Ok(None);
                }
                let l = self.coerce(l, TSQUERY)?;
                let r = self.coerce(r, TSQUERY)?;
                match sym.as_str() {
                    "||" => call(TsFn::Or, vec![l, r], TSQUERY),
                    "&&" => call(TsFn::And, vec![l, r], TSQUERY),
                    "<->" => call(TsFn::Phrase, vec![l, r], TSQUERY),
                    "@>" => call(TsFn::Contains, vec![l, r], BOOL),
                    _ => call(TsFn::Contains, vec![r, l], BOOL),
                }
            }
            _ => return Ok(None),
        }))
    }

    /// ts_parse(parser, document) / ts_token_type(parser): the parser by name (text) or
    /// oid, the document as text.
    pub(super) fn ts_parser_args(
        &mut self,
        kind: crate::plan::logical::SetFn,
        bound: Vec<Expr>,
    ) -> Result<Vec<Expr>> {
        let arity = if kind == crate::plan::logical::SetFn::TsParse {
            2
        } else {
            1
        };
        let name = kind.name();
        if bound.len() != arity {
            let types: Vec<String> = bound.iter().map(|a| a.ty().display_name()).collect();
            return Err(Error::undefined_function(format!(
                "function {name}({}) does not exist",
                types.join(", ")
            )));
        }
        let mut out = Vec::with_capacity(arity);
        for (i, a) in bound.into_iter().enumerate() {
            let t = a.ty().ty;
            let to = if i == 0 && (t.is_integer() || t.is_oid()) {
                SqlType::new(DataType::Oid)
            } else {
                TEXT
            };
            if to == TEXT && !t.is_string() {
                return Err(Error::undefined_function(format!(
                    "function {name} does not exist"
                )));
            }
            out.push(self.coerce(a, to)?);
        }
        Ok(out)
    }

    /// `!! tsquery`.
    pub(super) fn bind_ts_not(&mut self, e: Expr) -> Result<Expr> {
        let t = e.ty().ty;
        if !matches!(t, DataType::TsQuery | DataType::Unknown) {
            return Err(Error::undefined_function(format!(
                "operator does not exist: !! {}",
                t.name()
            )));
        }
        let e = self.coerce(e, TSQUERY)?;
        Ok(call(TsFn::Not, vec![e], TSQUERY))
    }
}
