//! The json and jsonb operators: `->`, `->>`, `#>`, `#>>` (json and jsonb), and jsonb's
//! `@>`, `<@`, `?`, `?|`, `?&`, `||`, `-`, `#-`, typed as PostgreSQL resolves them (an
//! untyped literal on the right of `->` is a key, of `#>` a text[] path).

use super::*;
use crate::sql::expr::PathFn;

const TEXT_ARRAY: SqlType = SqlType::new(DataType::Array(crate::types::TEXT_ARRAY));

impl Binder<'_> {
    /// The json operator `op` over `l` and `r`, if it is one (else the operands back).
    pub(super) fn bind_json_operator(
        &mut self,
        op: &A::BinaryOperator,
        l: Expr,
        r: Expr,
    ) -> Result<std::result::Result<Expr, (Expr, Expr)>> {
        use A::BinaryOperator as O;
        use DataType as D;
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        let jsonb = SqlType::new(D::Jsonb);
        let is_json = |t: D| matches!(t, D::Json | D::Jsonb);
        let call = |func: Func, args: Vec<Expr>, ty: SqlType| Expr::Func { func, args, ty };
        let no_operator = |sym: &str| {
            Error::undefined_function(format!(
                "operator does not exist: {} {sym} {}",
                lt.name(),
                rt.name()
            ))
            .with_hint("No operator matches the given name and argument types. You might need to add explicit type casts.")
        };
        Ok(Ok(match op {
            O::Arrow | O::LongArrow if is_json(lt) => {
                let json = lt == D::Json;
                let text = matches!(op, O::LongArrow);
                let ty = if text { TEXT } else { SqlType::new(lt) };
                if matches!(rt, D::Int2 | D::Int4) {
                    let r = self.coerce(r, INT4)?;
                    call(Func::JsonIndex { json, text }, vec![l, r], ty)
                } else if rt.is_string() {
                    let r = self.coerce(r, TEXT)?;
                    call(Func::JsonField { json, text }, vec![l, r], ty)
                } else {
                    return Err(no_operator(if text { "->>" } else { "->" }));
                }
            }
            O::HashArrow | O::HashLongArrow if is_json(lt) => {
                let json = lt == D::Json;
                let text = matches!(op, O::HashLongArrow);
                if !(rt == D::Unknown || rt == TEXT_ARRAY.ty) {
                    return Err(no_operator(if text { "#>>" } else { "#>" }));
                }
                let r = self.coerce(r, TEXT_ARRAY)?;
                let ty = if text { TEXT } else { SqlType::new(lt) };
                call(Func::JsonPath { json, text }, vec![l, r], ty)
            }
            O::AtArrow | O::ArrowAt if lt == D::Jsonb || rt == D::Jsonb => {
                let fits = |t: D| matches!(t, D::Jsonb | D::Unknown);
                if !fits(lt) || !fits(rt) {
                    return Err(no_operator(if matches!(op, O::AtArrow) {
                        "@>"
                    } else {
                        "<@"
                    }));
                }
                let l = self.coerce(l, jsonb)?;
                let r = self.coerce(r, jsonb)?;
                let func = if matches!(op, O::AtArrow) {
                    Func::JsonbContains
                } else {
                    Func::JsonbContained
                };
                call(func, vec![l, r], BOOL)
            }
            // `@?` is jsonb's alone; `@@` is also text search's.
            O::AtQuestion | O::AtAt
                if matches!(op, O::AtQuestion) || lt == D::Jsonb || rt == D::JsonPath =>
            {
                let sym = if matches!(op, O::AtQuestion) {
                    "@?"
                } else {
                    "@@"
                };
                if !matches!(lt, D::Jsonb | D::Unknown) || !matches!(rt, D::JsonPath | D::Unknown) {
                    return Err(no_operator(sym));
                }
                let l = self.coerce(l, jsonb)?;
                let r = self.coerce(r, SqlType::new(D::JsonPath))?;
                let kind = if matches!(op, O::AtQuestion) {
                    PathFn::Exists
                } else {
                    PathFn::Match
                };
                call(
                    Func::JsonbPathFn { kind, op: true },
                    vec![l, r, empty_vars(), Expr::literal_bool(true)],
                    BOOL,
                )
            }
            O::Question if lt == D::Jsonb => {
                if !rt.is_string() {
                    return Err(no_operator("?"));
                }
                let r = self.coerce(r, TEXT)?;
                call(Func::JsonbExists, vec![l, r], BOOL)
            }
            O::QuestionPipe | O::QuestionAnd if lt == D::Jsonb => {
                if !(rt == D::Unknown || rt == TEXT_ARRAY.ty) {
                    return Err(no_operator(if matches!(op, O::QuestionPipe) {
                        "?|"
                    } else {
                        "?&"
                    }));
                }
                let r = self.coerce(r, TEXT_ARRAY)?;
                let func = if matches!(op, O::QuestionPipe) {
                    Func::JsonbExistsAny
                } else {
                    Func::JsonbExistsAll
                };
                call(func, vec![l, r], BOOL)
            }
            O::StringConcat
                if (lt == D::Jsonb || rt == D::Jsonb)
                    && matches!(lt, D::Jsonb | D::Unknown)
                    && matches!(rt, D::Jsonb | D::Unknown) =>
            {
                let l = self.coerce(l, jsonb)?;
                let r = self.coerce(r, jsonb)?;
                call(Func::JsonbConcat, vec![l, r], jsonb)
            }
            O::Minus if lt == D::Jsonb => {
                if matches!(rt, D::Int2 | D::Int4) {
                    let r = self.coerce(r, INT4)?;
                    call(Func::JsonbDeleteIndex, vec![l, r], jsonb)
                } else if rt.is_string() {
                    let r = self.coerce(r, TEXT)?;
                    call(Func::JsonbDelete, vec![l, r], jsonb)
                } else if rt == TEXT_ARRAY.ty {
                    call(Func::JsonbDeleteKeys, vec![l, r], jsonb)
                } else {
                    return Err(no_operator("-"));
                }
            }
            O::HashMinus if lt == D::Jsonb => {
                if !(rt == D::Unknown || rt == TEXT_ARRAY.ty) {
                    return Err(no_operator("#-"));
                }
                let r = self.coerce(r, TEXT_ARRAY)?;
                call(Func::JsonbDeletePath, vec![l, r], jsonb)
            }
            // jsonb's operators do not exist for json.
            O::AtArrow
            | O::ArrowAt
            | O::Question
            | O::QuestionPipe
            | O::QuestionAnd
            | O::Minus
            | O::HashMinus
                if lt == D::Json =>
            {
                return Err(no_operator(&op.to_string()));
            }
            _ => return Ok(Err((l, r))),
        }))
    }
}

impl Binder<'_> {
    /// The json and jsonb scalar functions (`jsonb_typeof`, `jsonb_set`, `to_jsonb`…):
    /// None when `name` is not one of them.
    pub(super) fn bind_json_function(&mut self, name: &str, args: &[Expr]) -> Result<Option<Expr>> {
        use DataType as D;
        let types: Vec<D> = args.iter().map(|a| a.ty().ty).collect();
        let jsonb = SqlType::new(D::Jsonb);
        let json = SqlType::new(D::Json);
        let signature = types
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ");
        let not_found = || {
            Error::undefined_function(format!("function {name}({signature}) does not exist"))
                .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
        };
        // Whether argument `t` can be passed where `want` is declared.
        let fits = |t: D, want: D| t == want || t == D::Unknown || want == D::Text && t.is_string();
        let (func, params, result): (Func, Vec<SqlType>, SqlType) = match name {
            "jsonb_typeof" | "json_typeof" | "jsonb_array_length" | "json_array_length"
            | "jsonb_strip_nulls" | "json_strip_nulls" | "jsonb_pretty" => {
                let is_json = name.starts_with("json_");
                let doc = if is_json { json } else { jsonb };
                if types.len() != 1 || !fits(types[0], doc.ty) {
                    return Err(not_found());
                }
                let func = match name {
                    "jsonb_typeof" | "json_typeof" => Func::JsonTypeof { json: is_json },
                    "jsonb_array_length" | "json_array_length" => {
                        Func::JsonArrayLength { json: is_json }
                    }
                    "jsonb_pretty" => Func::JsonbPretty,
                    _ => Func::JsonStripNulls { json: is_json },
                };
                let result = match func {
                    Func::JsonTypeof { .. } | Func::JsonbPretty => TEXT,
                    Func::JsonArrayLength { .. } => INT4,
                    _ => doc,
                };
                (func, vec![doc], result)
            }
            "jsonb_build_object" | "jsonb_build_array" => {
                let structured =
                    |t: &D| t.is_array() || matches!(t, D::Record | D::Json | D::Jsonb);
                if name == "jsonb_build_object" && types.iter().step_by(2).any(structured) {
                    return Err(Error::invalid_parameter(
                        "key value must be scalar, not array, composite, or json",
                    ));
                }
                let params = types
                    .iter()
                    .map(|&t| {
                        if t == D::Unknown {
                            TEXT
                        } else {
                            SqlType::new(t)
                        }
                    })
                    .collect();
                let object = name == "jsonb_build_object";
                (Func::JsonbBuild { object }, params, jsonb)
            }
            "to_jsonb" | "to_json" => {
                if types.len() != 1 {
                    return Err(not_found());
                }
                if types[0] == D::Unknown {
                    return Err(Error::new(
                        "42P18",
                        "could not determine polymorphic type because input has type unknown",
                    ));
                }
                let arg = args[0].clone();
                return Ok(Some(to_json_call(arg, name == "to_json")));
            }
            "row_to_json" => {
                if !(1..=2).contains(&types.len())
                    || types.get(1).is_some_and(|&t| !fits(t, D::Bool))
                {
                    return Err(not_found());
                }
                if types[0] != D::Record {
                    return Err(not_found());
                }
                let pretty = match args.get(1) {
                    Some(p) => self.coerce(p.clone(), BOOL)?,
                    None => Expr::literal_bool(false),
                };
                let typmod = args[0].ty().typmod;
                return Ok(Some(Expr::Func {
                    func: Func::RowToJson,
                    args: vec![
                        args[0].clone(),
                        pretty,
                        Expr::literal(Value::Int4(typmod), INT4),
                    ],
                    ty: json,
                }));
            }
            "jsonb_set" | "jsonb_set_lax" | "jsonb_insert" => {
                let lax = name == "jsonb_set_lax";
                let max = if lax { 5 } else { 4 };
                let mut params = vec![jsonb, TEXT_ARRAY, jsonb, BOOL, TEXT];
                params.truncate(types.len());
                if !(3..=max).contains(&types.len())
                    || types.iter().zip(&params).any(|(&t, p)| !fits(t, p.ty))
                {
                    return Err(not_found());
                }
                let func = if name == "jsonb_insert" {
                    Func::JsonbInsert
                } else {
                    Func::JsonbSet { lax }
                };
                (func, params, jsonb)
            }
            "jsonb_object" | "json_object" => {
                if !(1..=2).contains(&types.len()) || types.iter().any(|&t| !fits(t, TEXT_ARRAY.ty))
                {
                    return Err(not_found());
                }
                let is_json = name == "json_object";
                let result = if is_json { json } else { jsonb };
                (
                    Func::JsonbObject { json: is_json },
                    vec![TEXT_ARRAY; types.len()],
                    result,
                )
            }
            "jsonb_path_exists"
            | "jsonb_path_match"
            | "jsonb_path_query_array"
            | "jsonb_path_query_first"
            | "jsonb_path_exists_tz"
            | "jsonb_path_match_tz"
            | "jsonb_path_query_array_tz"
            | "jsonb_path_query_first_tz" => {
                let kind = match name.trim_end_matches("_tz") {
                    "jsonb_path_exists" => PathFn::Exists,
                    "jsonb_path_match" => PathFn::Match,
                    "jsonb_path_query_array" => PathFn::QueryArray,
                    _ => PathFn::QueryFirst,
                };
                let args = self.path_function_args(name, args.to_vec())?;
                let ty = match kind {
                    PathFn::Exists | PathFn::Match => BOOL,
                    _ => jsonb,
                };
                return Ok(Some(Expr::Func {
                    func: Func::JsonbPathFn { kind, op: false },
                    args,
                    ty,
                }));
            }
            "jsonb_extract_path"
            | "jsonb_extract_path_text"
            | "json_extract_path"
            | "json_extract_path_text" => {
                let is_json = name.starts_with("json_");
                let doc = if is_json { json } else { jsonb };
                let text = name.ends_with("_text");
                // The path is VARIADIC: at least one step.
                if types.len() < 2
                    || !fits(types[0], doc.ty)
                    || types[1..].iter().any(|&t| !fits(t, D::Text))
                {
                    return Err(not_found());
                }
                let mut it = args.iter().cloned();
                let doc_arg = it.next().ok_or_else(not_found)?;
                let doc_arg = self.coerce(doc_arg, doc)?;
                let steps = it
                    .map(|a| self.coerce(a, TEXT))
                    .collect::<Result<Vec<_>>>()?;
                let path = Expr::Func {
                    func: Func::ArrayBuild,
                    args: steps,
                    ty: TEXT_ARRAY,
                };
                return Ok(Some(Expr::Func {
                    func: Func::JsonPath {
                        json: is_json,
                        text,
                    },
                    args: vec![doc_arg, path],
                    ty: if text { TEXT } else { doc },
                }));
            }
            _ => return Ok(None),
        };
        let args = args
            .iter()
            .cloned()
            .zip(params)
            .map(|(a, p)| {
                if a.ty().ty == p.ty {
                    Ok(a)
                } else {
                    self.coerce(a, p)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Expr::Func {
            func,
            args,
            ty: result,
        }))
    }
}

/// `'{}'::jsonb`, the path functions' default vars.
fn empty_vars() -> Expr {
    Expr::literal(
        Value::Jsonb(crate::types::jsonb::object(Vec::new())),
        SqlType::new(DataType::Jsonb),
    )
}

impl Binder<'_> {
    /// A jsonb_path_* function's arguments (target, path [, vars [, silent]]) as all
    /// four, typed; a missing vars is `{}` and a missing silent false.
    pub(super) fn path_function_args(&mut self, name: &str, args: Vec<Expr>) -> Result<Vec<Expr>> {
        use DataType as D;
        let want = [D::Jsonb, D::JsonPath, D::Jsonb, D::Bool];
        let fits = |t: D, w: D| t == w || t == D::Unknown;
        if !(2..=4).contains(&args.len()) || args.iter().zip(want).any(|(a, w)| !fits(a.ty().ty, w))
        {
            let signature = args
                .iter()
                .map(|a| a.ty().display_name())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(Error::undefined_function(format!(
                "function {name}({signature}) does not exist"
            ))
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts."));
        }
        let mut out = Vec::with_capacity(4);
        for (a, w) in args.into_iter().zip(want) {
            out.push(self.coerce(a, SqlType::new(w))?);
        }
        if out.len() < 3 {
            out.push(empty_vars());
        }
        if out.len() < 4 {
            out.push(Expr::literal_bool(false));
        }
        Ok(out)
    }
}

/// to_json(`e`) (`json`) or to_jsonb(`e`): a record with named fields passes their
/// names on as its typmod.
pub(super) fn to_json_call(e: Expr, json: bool) -> Expr {
    let ty = e.ty();
    let mut args = vec![e];
    if ty.ty == DataType::Record && ty.typmod >= 0 {
        args.push(Expr::literal(Value::Int4(ty.typmod), INT4));
    }
    Expr::Func {
        func: Func::ToJson { json },
        args,
        ty: SqlType::new(if json {
            DataType::Json
        } else {
            DataType::Jsonb
        }),
    }
}

impl Binder<'_> {
    /// The one document argument of json set function `kind`, as its type.
    pub(super) fn set_fn_args(
        &mut self,
        kind: crate::plan::logical::SetFn,
        bound: Vec<Expr>,
    ) -> Result<Vec<Expr>> {
        use crate::plan::logical::SetFn as J;
        if kind == J::PathQuery {
            return self.path_function_args(kind.name(), bound);
        }
        if matches!(kind, J::RegexpMatches | J::RegexpSplit) {
            return self.regexp_text_args(kind.name(), bound, 2, 3);
        }
        if kind == J::TsUnnest {
            return Ok(bound);
        }
        if matches!(kind, J::TsParse | J::TsTokenType) {
            return self.ts_parser_args(kind, bound);
        }
        let json = matches!(
            kind,
            J::Each { json: true, .. }
                | J::ObjectKeys { json: true }
                | J::ArrayElements { json: true, .. }
        );
        let doc = SqlType::new(if json {
            DataType::Json
        } else {
            DataType::Jsonb
        });
        let signature = bound
            .iter()
            .map(|b| b.ty().display_name())
            .collect::<Vec<_>>()
            .join(", ");
        match <[Expr; 1]>::try_from(bound) {
            Ok([arg]) if arg.ty().ty == doc.ty || arg.ty().ty == DataType::Unknown => {
                Ok(vec![self.coerce(arg, doc)?])
            }
            _ => Err(Error::undefined_function(format!(
                "function {}({signature}) does not exist",
                kind.name()
            ))
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")),
        }
    }
}

impl Binder<'_> {
    /// jsonb_to_record(set) / json_to_record(set) in FROM: the columns are the alias's
    /// column definition list; their names reach the executor as a text[] argument.
    pub(super) fn bind_json_to_record(
        &mut self,
        json: bool,
        set: bool,
        bound: Vec<Expr>,
        alias: Option<&A::TableAlias>,
        ordinality: bool,
    ) -> Result<(crate::plan::logical::LogicalPlan, super::scope::Scope)> {
        let func = crate::plan::logical::TableFunc::JsonRecord { json, set };
        let doc = SqlType::new(if json {
            DataType::Json
        } else {
            DataType::Jsonb
        });
        let signature = bound
            .iter()
            .map(|b| b.ty().display_name())
            .collect::<Vec<_>>()
            .join(", ");
        let arg = match <[Expr; 1]>::try_from(bound) {
            Ok([arg]) if arg.ty().ty == doc.ty || arg.ty().ty == DataType::Unknown => {
                self.coerce(arg, doc)?
            }
            _ => {
                return Err(Error::undefined_function(format!(
                    "function {}({signature}) does not exist",
                    func.name()
                ))
                .with_hint("No function matches the given name and argument types. You might need to add explicit type casts."));
            }
        };
        let defs = alias.map(|a| a.columns.as_slice()).unwrap_or(&[]);
        if defs.is_empty() || defs.iter().any(|c| c.data_type.is_none()) {
            return Err(Error::syntax(
                "a column definition list is required for functions returning \"record\"",
            ));
        }
        let mut types = Vec::with_capacity(defs.len());
        let mut names = Vec::with_capacity(defs.len());
        for c in defs {
            let Some(dt) = &c.data_type else { continue };
            types.push(self.resolve_type(dt)?);
            names.push(ident_name(&c.name));
        }
        let keys = Expr::Func {
            func: Func::ArrayBuild,
            args: names
                .iter()
                .map(|n| Expr::literal(Value::Text(n.clone()), TEXT))
                .collect(),
            ty: TEXT_ARRAY,
        };
        self.table_function_named(func, vec![arg, keys], types, Some(names), alias, ordinality)
    }
}
