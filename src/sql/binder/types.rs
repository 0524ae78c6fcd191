//! User-defined types in statements (`catalog::types`): type names that are enums,
//! CREATE TYPE … AS ENUM, ALTER TYPE and DROP TYPE, and what an enum's values do in
//! expressions — labels checked as constants are bound, comparisons and sorting by
//! the labels' places in their type.

use sqlparser::ast as A;

use super::schemas::split_in;
use super::{BOOL, Binder, FLOAT4, TEXT};
use crate::error::{Error, Result};
use crate::plan::{BoundStatement, TypeChange};
use crate::sql::expr::{BinaryOp, Expr, Func};
use crate::types::{DataType, SqlType, Value, type_from_ast};

impl Binder<'_> {
    /// A type named in a statement: a built-in one, else an enum of the catalog.
    pub(super) fn resolve_type(&self, dt: &A::DataType) -> Result<SqlType> {
        let err = match type_from_ast(dt) {
            Ok(t) => return Ok(t),
            Err(e) if e.code == "42704" => e,
            Err(e) => return Err(e),
        };
        match dt {
            A::DataType::Custom(name, mods) if mods.is_empty() => {
                match self.user_type_named(name)? {
                    Some(t) => Ok(match &t.domain {
                        Some(d) => SqlType {
                            domain: t.oid,
                            ..d.base
                        },
                        None => SqlType::new(DataType::Enum(t.oid)),
                    }),
                    None => Err(err),
                }
            }
            A::DataType::Array(
                A::ArrayElemTypeDef::SquareBracket(inner, _)
                | A::ArrayElemTypeDef::Qualified(inner, _),
            ) => match self.resolve_type(inner) {
                Ok(t) if t.domain != 0 => Err(Error::feature_not_supported("arrays of domains")),
                Ok(SqlType {
                    ty: DataType::Enum(oid),
                    ..
                }) => DataType::array_of(DataType::Enum(oid))
                    .map(SqlType::new)
                    .ok_or_else(|| Error::feature_not_supported("arrays of this many enum types")),
                _ => Err(err),
            },
            _ => Err(err),
        }
    }

    /// The user-defined type `name` names (its schema, else the first along the path).
    pub(super) fn user_type_named(
        &self,
        name: &A::ObjectName,
    ) -> Result<Option<std::sync::Arc<crate::catalog::types::UserType>>> {
        let (schema, bare) = split_in(name, self.database.as_deref())?;
        let search: Vec<u32> = match schema {
            Some(s) => match self.namespace_named(&s)? {
                Some(ns) => vec![ns],
                None => {
                    return Err(Error::new(
                        "3F000",
                        format!("schema \"{s}\" does not exist"),
                    ));
                }
            },
            None => self.search_path.search.clone(),
        };
        Ok(search
            .into_iter()
            .find_map(|ns| self.catalog.user_type_named(ns, &bare, &self.snapshot)))
    }

    /// A user-defined type's name as regtype prints it: qualified with its schema when
    /// the search path would not find it.
    pub(super) fn user_type_display(&self, oid: u32) -> String {
        let Some(t) = self.catalog.user_type(oid, &self.snapshot) else {
            return DataType::Enum(oid).name().to_string();
        };
        let quote = crate::catalog::system::quote_ident;
        let found = self
            .search_path
            .search
            .iter()
            .find_map(|&ns| self.catalog.user_type_named(ns, &t.name, &self.snapshot));
        match found {
            Some(f) if f.oid == t.oid => quote(&t.name),
            _ => {
                let schema = self
                    .catalog
                    .namespace_by_oid(t.namespace, &self.snapshot)
                    .map_or_else(String::new, |n| n.name.clone());
                format!("{}.{}", quote(&schema), quote(&t.name))
            }
        }
    }

    fn enum_type(&self, oid: u32) -> Result<std::sync::Arc<crate::catalog::types::UserType>> {
        self.catalog
            .user_type(oid, &self.snapshot)
            .ok_or_else(|| Error::new("42704", format!("type with OID {oid} does not exist")))
    }

    /// A value of the domain `to` (its base type's value, checked by the domain's
    /// constraints when it runs).
    pub(super) fn coerce_to_domain(
        &mut self,
        e: Expr,
        to: SqlType,
        explicit: bool,
    ) -> Result<Expr> {
        let base = self.coerce_with(e, to.base(), explicit)?;
        Ok(Expr::Func {
            func: Func::DomainCheck(to.domain),
            args: vec![base],
            ty: to,
        })
    }

    /// A string or text array made an array of enum `oid`: a constant's labels are
    /// checked now, anything else's when it runs.
    pub(super) fn coerce_to_enum_array(
        &mut self,
        e: Expr,
        to: SqlType,
        oid: u32,
        explicit: bool,
    ) -> Result<Expr> {
        let text_array = SqlType::new(DataType::Array(crate::types::TEXT_ARRAY));
        let from = e.ty().ty;
        let ok_source = from.is_string()
            || from == text_array.ty
            || matches!(
                e,
                Expr::Literal {
                    value: Value::Null,
                    ..
                }
            );
        if !ok_source {
            return Err(Error::new(
                "42846",
                format!(
                    "cannot cast type {} to {}",
                    e.ty().display_name(),
                    to.display_name()
                ),
            ));
        }
        let text = self.coerce_with(e, text_array, explicit)?;
        if let Expr::Literal { value, .. } = &text {
            let t = self.enum_type(oid)?;
            return match value {
                Value::Null => Ok(Expr::Literal {
                    value: Value::Null,
                    ty: to,
                }),
                Value::Array(a) => {
                    for v in crate::types::array::View::new(&a.bytes, a.elem).values() {
                        if let Value::Text(s) = &v {
                            if t.position(s).is_none() {
                                return Err(t.bad_label(s));
                            }
                            crate::catalog::types::check_committed(&t, s, self.snapshot.own)?;
                        }
                    }
                    Ok(Expr::Literal {
                        value: Value::Array(Box::new(crate::types::array::Array {
                            elem: DataType::Enum(oid),
                            bytes: a.bytes.clone(),
                        })),
                        ty: to,
                    })
                }
                _ => Err(Error::internal(
                    "a text array constant that is not an array",
                )),
            };
        }
        Ok(Expr::Func {
            func: Func::EnumIn(oid),
            args: vec![text],
            ty: to,
        })
    }

    /// A string (or NULL) made a value of enum `oid`: a constant is checked now, as
    /// PostgreSQL's parser does; anything else when it runs.
    pub(super) fn coerce_to_enum(&mut self, e: Expr, to: SqlType, explicit: bool) -> Result<Expr> {
        let DataType::Enum(oid) = to.ty else {
            return Err(Error::internal("not an enum"));
        };
        match &e {
            Expr::Literal {
                value: Value::Null, ..
            } => {
                return Ok(Expr::Literal {
                    value: Value::Null,
                    ty: to,
                });
            }
            Expr::Literal {
                value: Value::Text(s),
                ..
            } => {
                let t = self.enum_type(oid)?;
                if t.position(s).is_none() {
                    return Err(t.bad_label(s));
                }
                crate::catalog::types::check_committed(&t, s, self.snapshot.own)?;
                return Ok(Expr::Literal {
                    value: Value::Text(s.clone()),
                    ty: to,
                });
            }
            _ => {}
        }
        let text = self.coerce_with(e, TEXT, explicit)?;
        Ok(Expr::Func {
            func: Func::EnumIn(oid),
            args: vec![text],
            ty: to,
        })
    }

    /// A comparison or `||` with an enum operand: None when neither side is one.
    /// Both sides must be the one enum type (an untyped literal takes it); equality
    /// compares labels, order their places.
    pub(super) fn bind_enum_binary(
        &mut self,
        op: BinaryOp,
        l: Expr,
        r: Expr,
    ) -> Result<std::result::Result<Expr, (Expr, Expr)>> {
        let (lt, rt) = (l.ty(), r.ty());
        // Arrays of enums compare equal by labels; their order (by the labels' places,
        // element by element) is not built.
        let enum_array =
            |t: DataType| matches!(t, DataType::Array(e) if matches!(*e, DataType::Enum(_)));
        if (enum_array(lt.ty) || enum_array(rt.ty))
            && matches!(
                op,
                BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq
            )
        {
            return Err(Error::feature_not_supported("ordering arrays of enums"));
        }
        let enum_ty = match (lt.ty, rt.ty) {
            (DataType::Enum(_), _) => lt,
            (_, DataType::Enum(_)) => rt,
            _ => return Ok(Err((l, r))),
        };
        if op == BinaryOp::Concat {
            // anynonarray || text: the enum's label.
            let as_text = |e: Expr| -> Expr {
                if matches!(e.ty().ty, DataType::Enum(_)) {
                    enum_out(e)
                } else {
                    e
                }
            };
            return Ok(Err((as_text(l), as_text(r))));
        }
        let DataType::Enum(oid) = enum_ty.ty else {
            return Ok(Err((l, r)));
        };
        let compare = matches!(
            op,
            BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq
        );
        let fits = |t: DataType| t == enum_ty.ty || t == DataType::Unknown;
        if !compare || !fits(lt.ty) || !fits(rt.ty) {
            return Err(super::expr::no_operator(lt.ty, op.symbol(), rt.ty));
        }
        let l = self.coerce_to_enum_if_needed(l, enum_ty)?;
        let r = self.coerce_to_enum_if_needed(r, enum_ty)?;
        let (l, r) = if matches!(op, BinaryOp::Eq | BinaryOp::NotEq) {
            (enum_out(l), enum_out(r))
        } else {
            (enum_position(l, oid), enum_position(r, oid))
        };
        Ok(Ok(Expr::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
            ty: BOOL,
        }))
    }

    fn coerce_to_enum_if_needed(&mut self, e: Expr, to: SqlType) -> Result<Expr> {
        if e.ty().ty == to.ty {
            Ok(e)
        } else {
            self.coerce_to_enum(e, to, false)
        }
    }

    /// CREATE TYPE name AS ENUM (…).
    pub(super) fn bind_create_type(
        &mut self,
        name: &A::ObjectName,
        representation: Option<&A::UserDefinedTypeRepresentation>,
    ) -> Result<BoundStatement> {
        let labels = match representation {
            Some(A::UserDefinedTypeRepresentation::Enum { labels }) => {
                labels.iter().map(|l| l.value.clone()).collect()
            }
            Some(A::UserDefinedTypeRepresentation::Composite { .. }) => {
                return Err(Error::feature_not_supported("composite types"));
            }
            Some(A::UserDefinedTypeRepresentation::Range { .. }) => {
                return Err(Error::feature_not_supported("range types"));
            }
            _ => return Err(Error::feature_not_supported("CREATE TYPE of a base type")),
        };
        let rel = self.creation_name(name, false)?;
        Ok(BoundStatement::UserType(TypeChange::CreateEnum {
            namespace: rel.ns,
            name: rel.name,
            labels,
        }))
    }

    /// CREATE DOMAIN name AS type [DEFAULT …] [NOT NULL] [CONSTRAINT name] CHECK (…) ….
    /// (NOT NULL arrives as a CHECK of `sql::parse::DOMAIN_NOT_NULL`'s name.)
    pub(super) fn bind_create_domain(&mut self, cd: &A::CreateDomain) -> Result<BoundStatement> {
        use crate::catalog::types::{DomainCheck, DomainDef};
        // kiln compares strings as the C collation does: that one (by any of its
        // names) is accepted, any other is 0A000.
        if let Some(c) = &cd.collation
            && !matches!(c.value.as_str(), "C" | "POSIX" | "default" | "ucs_basic")
        {
            return Err(Error::feature_not_supported(format!(
                "CREATE DOMAIN … COLLATE \"{}\"",
                c.value
            )));
        }
        let rel = self.creation_name(&cd.name, false)?;
        let base = self.resolve_type(&cd.data_type)?;
        // Over another domain: its base type, and its constraints apply first.
        let parent = (base.domain != 0).then_some(base.domain);
        let base = base.base();
        let column = crate::catalog::ColumnDef {
            name: "value".into(),
            ty: base,
            not_null: false,
            default: None,
            identity: None,
            generated: None,
        };
        let default = match &cd.default {
            Some(e) => {
                let scope = super::scope::Scope::default();
                let bound = self.bind_expr(e, &scope)?;
                let bound = self.coerce_assign_domain(bound, base)?;
                Some((e.to_string(), bound))
            }
            None => None,
        };
        let mut not_null = false;
        let mut checks: Vec<DomainCheck> = Vec::new();
        for c in &cd.constraints {
            let A::TableConstraint::Check(check) = c else {
                return Err(Error::feature_not_supported(format!(
                    "domain constraint {c}"
                )));
            };
            let name = check.name.as_ref().map(super::ident_name);
            if name.as_deref() == Some(crate::sql::parse::DOMAIN_NOT_NULL) {
                not_null = true;
                continue;
            }
            let (expr, _) = self.bind_check("", std::slice::from_ref(&column), &check.expr)?;
            let name = name.unwrap_or_else(|| {
                let base = format!("{}_check", rel.name);
                (0..)
                    .map(|k| {
                        if k == 0 {
                            base.clone()
                        } else {
                            format!("{base}{k}")
                        }
                    })
                    .find(|n| checks.iter().all(|c| &c.name != n))
                    .unwrap_or(base)
            });
            checks.push(DomainCheck {
                name,
                sql: check.expr.to_string(),
                expr,
                validated: true,
            });
        }
        Ok(BoundStatement::UserType(TypeChange::CreateDomain {
            namespace: rel.ns,
            name: rel.name,
            def: std::sync::Arc::new(DomainDef {
                base,
                parent,
                not_null,
                default,
                checks,
            }),
        }))
    }

    /// ALTER DOMAIN name action (the text after ALTER DOMAIN, which sqlparser does not
    /// read).
    pub(super) fn bind_alter_domain(&mut self, rest: &str) -> Result<BoundStatement> {
        use crate::plan::DomainAction as D;
        use sqlparser::tokenizer::Token;
        let mut w = super::privileges::Words::new(rest)?;
        let first = w.ident()?;
        let name = if w.take_token(&Token::Period) {
            let second = w.ident()?;
            A::ObjectName::from(vec![A::Ident::new(first), A::Ident::new(second)])
        } else {
            A::ObjectName::from(vec![A::Ident::new(first)])
        };
        let Some(t) = self.user_type_named(&name)? else {
            return Err(Error::new(
                "42704",
                format!("type \"{name}\" does not exist"),
            ));
        };
        let Some(d) = t.domain.clone() else {
            return Err(Error::new("42809", format!("{} is not a domain", t.name)));
        };
        // The text after the keyword `after` standing as a word (an expression).
        let tail = |after: &str| -> String {
            let lower = rest.to_ascii_lowercase();
            let bytes = lower.as_bytes();
            let word_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'"';
            let mut from = 0;
            while let Some(p) = lower[from..].find(after).map(|p| p + from) {
                let end = p + after.len();
                let before_ok = p == 0 || !word_char(bytes[p - 1]);
                let after_ok = end >= bytes.len() || !word_char(bytes[end]);
                if before_ok && after_ok {
                    return rest[end..].trim().to_string();
                }
                from = end;
            }
            String::new()
        };
        let column = crate::catalog::ColumnDef {
            name: "value".into(),
            ty: d.base,
            not_null: false,
            default: None,
            identity: None,
            generated: None,
        };
        let action = if w.take(&["SET", "DEFAULT"]) {
            let sql = tail("default");
            let e = crate::sql::parse::expression(&sql)?;
            let bound = self.bind_expr(&e, &super::scope::Scope::default())?;
            D::Default(Some((sql, self.coerce_assign_domain(bound, d.base)?)))
        } else if w.take(&["DROP", "DEFAULT"]) {
            w.end()?;
            D::Default(None)
        } else if w.take(&["SET", "NOT", "NULL"]) {
            w.end()?;
            D::NotNull(true)
        } else if w.take(&["DROP", "NOT", "NULL"]) {
            w.end()?;
            D::NotNull(false)
        } else if w.take(&["ADD"]) {
            let name = if w.take(&["CONSTRAINT"]) {
                Some(w.ident()?)
            } else {
                None
            };
            if !w.is("CHECK") {
                return Err(Error::feature_not_supported(
                    "ALTER DOMAIN … ADD of a constraint other than CHECK",
                ));
            }
            let mut sql = tail("check");
            let validate = !sql.to_ascii_lowercase().ends_with("not valid");
            if !validate {
                sql.truncate(sql.len() - "not valid".len());
                sql = sql.trim().to_string();
            }
            let e = crate::sql::parse::expression(&sql)?;
            let (expr, _) = self.bind_check("", std::slice::from_ref(&column), &e)?;
            let sql = sql
                .strip_prefix('(')
                .and_then(|s| s.strip_suffix(')'))
                .map_or(sql.clone(), |s| s.trim().to_string());
            D::AddCheck {
                name,
                sql,
                expr,
                validate,
            }
        } else if w.take(&["DROP", "CONSTRAINT"]) {
            let if_exists = w.take(&["IF", "EXISTS"]);
            let name = w.ident()?;
            w.take(&["RESTRICT"]);
            w.take(&["CASCADE"]);
            w.end()?;
            D::DropConstraint { name, if_exists }
        } else if w.take(&["RENAME", "CONSTRAINT"]) {
            let from = w.ident()?;
            w.expect("TO")?;
            let to = w.ident()?;
            w.end()?;
            D::RenameConstraint { from, to }
        } else if w.take(&["VALIDATE", "CONSTRAINT"]) {
            let name = w.ident()?;
            w.end()?;
            D::ValidateConstraint(name)
        } else if w.take(&["RENAME", "TO"]) {
            let to = w.ident()?;
            w.end()?;
            D::Rename(to)
        } else if w.take(&["SET", "SCHEMA"]) {
            return Err(Error::feature_not_supported("ALTER DOMAIN … SET SCHEMA"));
        } else if w.take(&["OWNER", "TO"]) {
            return Err(Error::feature_not_supported("ALTER DOMAIN … OWNER TO"));
        } else {
            return Err(match w.peek() {
                Some(Token::Word(x)) => Error::feature_not_supported(format!(
                    "ALTER DOMAIN … {}",
                    x.value.to_uppercase()
                )),
                _ => w.unexpected(),
            });
        };
        Ok(BoundStatement::UserType(TypeChange::AlterDomain {
            oid: t.oid,
            action,
        }))
    }

    /// A domain's DEFAULT as a value of its base type.
    fn coerce_assign_domain(&mut self, e: Expr, base: SqlType) -> Result<Expr> {
        let from = e.ty().ty;
        if from == base.ty
            || from == DataType::Unknown
            || crate::types::cast::is_assignable(from, base.ty)
        {
            self.coerce(e, base)
        } else {
            Err(Error::new(
                "42804",
                format!(
                    "column \"value\" is of type {} but default expression is of type {}",
                    base.display_name(),
                    e.ty().display_name()
                ),
            ))
        }
    }

    /// ALTER TYPE name ADD VALUE / RENAME VALUE / RENAME TO.
    pub(super) fn bind_alter_type(&mut self, at: &A::AlterType) -> Result<BoundStatement> {
        let Some(t) = self.user_type_named(&at.name)? else {
            return Err(Error::new(
                "42704",
                format!("type \"{}\" does not exist", at.name),
            ));
        };
        let change = match &at.operation {
            A::AlterTypeOperation::AddValue(add) => TypeChange::AddValue {
                oid: t.oid,
                label: add.value.value.clone(),
                if_not_exists: add.if_not_exists,
                neighbour: add.position.as_ref().map(|p| match p {
                    A::AlterTypeAddValuePosition::Before(n) => (n.value.clone(), true),
                    A::AlterTypeAddValuePosition::After(n) => (n.value.clone(), false),
                }),
            },
            A::AlterTypeOperation::RenameValue(rv) => TypeChange::RenameValue {
                oid: t.oid,
                from: rv.from.value.clone(),
                to: rv.to.value.clone(),
            },
            A::AlterTypeOperation::Rename(r) => TypeChange::Rename {
                oid: t.oid,
                to: super::ident_name(&r.new_name),
            },
        };
        Ok(BoundStatement::UserType(change))
    }

    /// DROP TYPE [IF EXISTS] name, … [CASCADE].
    pub(super) fn bind_drop_type(
        &mut self,
        names: &[A::ObjectName],
        if_exists: bool,
        cascade: bool,
        domain: bool,
    ) -> Result<BoundStatement> {
        let mut found = Vec::new();
        for name in names {
            let t = match self.user_type_named(name) {
                Ok(t) => t,
                Err(e) if e.code == "3F000" && if_exists => None,
                Err(e) => return Err(e),
            };
            match t {
                Some(t) if domain && t.domain.is_none() => {
                    return Err(Error::new(
                        "42809",
                        format!("\"{}\" is not a domain", t.name),
                    ));
                }
                Some(t) => found.push((name.to_string(), Some(t.oid))),
                None if if_exists => found.push((name.to_string(), None)),
                None => {
                    // A built-in type's name: PostgreSQL's 2BP01 for system types.
                    if type_from_ast(&A::DataType::Custom(name.clone(), vec![])).is_ok() {
                        return Err(Error::new(
                            "2BP01",
                            format!(
                                "cannot drop type {name} because it is required by the database system"
                            ),
                        ));
                    }
                    return Err(Error::new(
                        "42704",
                        format!("type \"{name}\" does not exist"),
                    ));
                }
            }
        }
        Ok(BoundStatement::UserType(TypeChange::Drop {
            types: found,
            cascade,
            domain,
        }))
    }

    /// enum_first / enum_last / enum_range of an enum-typed argument, read from the
    /// catalog now (they depend on the type alone).
    pub(super) fn bind_enum_function(&mut self, name: &str, args: &[Expr]) -> Result<Option<Expr>> {
        if !matches!(name, "enum_first" | "enum_last" | "enum_range") {
            return Ok(None);
        }
        let oid = match args
            .iter()
            .map(|a| a.ty().ty)
            .find(|t| matches!(t, DataType::Enum(_)))
        {
            Some(DataType::Enum(oid)) => oid,
            _ => return Ok(None),
        };
        if name == "enum_range" {
            return self.bind_enum_range(oid, args).map(Some);
        }
        let t = self.enum_type(oid)?;
        let label = if name == "enum_first" {
            t.labels.first()
        } else {
            t.labels.last()
        };
        let Some(label) = label else {
            return Err(Error::new(
                "55000",
                format!("enum {} contains no values", t.name),
            ));
        };
        crate::catalog::types::check_committed(&t, &label.label, self.snapshot.own)?;
        Ok(Some(Expr::Literal {
            value: Value::Text(label.label.clone()),
            ty: SqlType::new(DataType::Enum(oid)),
        }))
    }

    /// enum_range(e) and enum_range(low, high) (NULL: open) over constants: the type's
    /// labels in order, between the bounds.
    fn bind_enum_range(&mut self, oid: u32, args: &[Expr]) -> Result<Expr> {
        let ty = SqlType::new(DataType::Enum(oid));
        let mut bounds = Vec::with_capacity(args.len());
        for a in args {
            let a = if a.ty().ty == DataType::Unknown {
                self.coerce(a.clone(), ty)?
            } else {
                a.clone()
            };
            if a.ty().ty != ty.ty {
                return Err(Error::undefined_function(format!(
                    "function enum_range({}) does not exist",
                    args.iter()
                        .map(|a| a.ty().display_name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            match a {
                Expr::Literal { value, .. } => bounds.push(value),
                _ => {
                    return Err(Error::feature_not_supported(
                        "enum_range of a value not known before the query runs",
                    ));
                }
            }
        }
        let t = self.enum_type(oid)?;
        let place = |v: &Value| match v {
            Value::Text(s) => t.position(s),
            _ => None,
        };
        let (low, high) = match bounds.as_slice() {
            [_] => (None, None),
            [a, b] => (place(a), place(b)),
            _ => {
                return Err(Error::undefined_function(
                    "function enum_range does not exist",
                ));
            }
        };
        let mut values = Vec::new();
        for l in &t.labels {
            if low.is_some_and(|p| l.sortorder < p) || high.is_some_and(|p| l.sortorder > p) {
                continue;
            }
            crate::catalog::types::check_committed(&t, &l.label, self.snapshot.own)?;
            values.push(Value::Text(l.label.clone()));
        }
        let array_ty = DataType::array_of(ty.ty)
            .ok_or_else(|| Error::feature_not_supported("arrays of this many enum types"))?;
        Ok(Expr::Literal {
            value: Value::Array(Box::new(crate::types::array::from_values(ty.ty, &values))),
            ty: SqlType::new(array_ty),
        })
    }

    /// An ORDER BY or window key: an enum sorts by its labels' places.
    pub(super) fn sort_key_of(&self, e: Expr) -> Expr {
        match e.ty().ty {
            DataType::Enum(oid) => enum_position(e, oid),
            _ => e,
        }
    }
}

/// An enum value's label as text.
pub(super) fn enum_out(e: Expr) -> Expr {
    Expr::Func {
        func: Func::EnumOut,
        args: vec![e],
        ty: TEXT,
    }
}

/// The label at a place of enum `oid` (min / max / GREATEST / LEAST of places).
pub(super) fn enum_label_at(e: Expr, oid: u32) -> Expr {
    Expr::Func {
        func: Func::EnumLabelAt(oid),
        args: vec![e],
        ty: SqlType::new(DataType::Enum(oid)),
    }
}

/// An enum value's place in its type's order.
pub(super) fn enum_position(e: Expr, oid: u32) -> Expr {
    Expr::Func {
        func: Func::EnumPosition(oid),
        args: vec![e],
        ty: FLOAT4,
    }
}
