//! SET and RESET, and the names and values of settings (SHOW, bound in `mod.rs`,
//! reads them through these).

use super::*;
use crate::plan::{Isolation, TxnModes};

/// A setting's name: dotted parts joined (`kiln.max_query_memory`), not resolved as an
/// object name.
pub(super) fn setting_name(name: &A::ObjectName) -> String {
    name.0
        .iter()
        .map(|p| match p {
            A::ObjectNamePart::Identifier(i) => ident_name(i),
            A::ObjectNamePart::Function(f) => ident_name(&f.name),
        })
        .collect::<Vec<_>>()
        .join(".")
}

pub(super) fn setting_text(e: &A::Expr) -> Result<String> {
    Ok(match e {
        A::Expr::Value(v) => match &v.value {
            A::Value::SingleQuotedString(s) | A::Value::DoubleQuotedString(s) => s.clone(),
            A::Value::Number(n, _) => n.clone(),
            A::Value::Boolean(b) => {
                if *b {
                    "on".into()
                } else {
                    "off".into()
                }
            }
            other => other.to_string(),
        },
        A::Expr::Identifier(id) => ident_name(id),
        A::Expr::UnaryOp {
            op: A::UnaryOperator::Minus,
            expr,
        } => format!("-{}", setting_text(expr)?),
        other => other.to_string(),
    })
}

impl Binder<'_> {
    pub(super) fn bind_set(&mut self, set: &A::Set) -> Result<BoundStatement> {
        match set {
            A::Set::SingleAssignment {
                scope,
                variable,
                values,
                ..
            } => {
                let name = setting_name(variable);
                let local = matches!(scope, Some(A::ContextModifier::Local));
                let value = if values.len() == 1 && is_default_keyword(&values[0]) {
                    None
                } else if name.eq_ignore_ascii_case("search_path") {
                    // A list of names (PostgreSQL's GUC_LIST_QUOTE): each item, a name or
                    // a string, kept quoted where it needs to be.
                    Some(
                        values
                            .iter()
                            .map(|v| {
                                let item = match v {
                                    A::Expr::Identifier(id) => ident_name(id),
                                    other => setting_text(other)?,
                                };
                                Ok(crate::catalog::system::quote_ident(&item))
                            })
                            .collect::<Result<Vec<_>>>()?
                            .join(", "),
                    )
                } else {
                    Some(
                        values
                            .iter()
                            .map(setting_text)
                            .collect::<Result<Vec<_>>>()?
                            .join(", "),
                    )
                };
                if name == "kiln.checkpoint" {
                    if value.as_deref().is_some_and(|v| !v.trim().is_empty()) {
                        return Err(Error::syntax(format!(
                            "syntax error at or near \"{}\"",
                            value
                                .as_deref()
                                .unwrap_or("")
                                .split_whitespace()
                                .next()
                                .unwrap_or("")
                        )));
                    }
                    return Ok(BoundStatement::Checkpoint);
                }
                if name == "kiln.fetch" || name == "kiln.move" {
                    return self.bind_fetch(value.as_deref().unwrap_or(""), name == "kiln.move");
                }
                if name == "kiln.copy" {
                    return self.bind_copy(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.grant" || name == "kiln.revoke" {
                    return self.bind_grant(value.as_deref().unwrap_or(""), name == "kiln.grant");
                }
                if name == "kiln.create_database" || name == "kiln.drop_database" {
                    return super::databases::bind(
                        value.as_deref().unwrap_or(""),
                        name == "kiln.create_database",
                    );
                }
                if name == "kiln.alter_role_set" {
                    return super::databases::bind_alter_role_set(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.set_schema" {
                    return self.bind_set_schema(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.create_schema" {
                    return self.bind_create_schema_elements(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.alter_database" {
                    return super::databases::bind_alter(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.reassign" {
                    return self.bind_reassign_owned(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.alter_view_owner" {
                    let rest = value.as_deref().unwrap_or("");
                    return self
                        .relation_owner_to(rest, RelKind::View)?
                        .ok_or_else(|| Error::syntax("syntax error at or near \"VIEW\""));
                }
                if name == "kiln.default_privileges" {
                    return self.bind_default_privileges(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.drop_owned" {
                    return self.bind_drop_owned(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.alter_sequence" {
                    return self.bind_alter_sequence(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.alter_constraint" {
                    return self.bind_alter_constraint(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.alter_domain" {
                    return self.bind_alter_domain(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.alter_index" {
                    return self.bind_alter_index(value.as_deref().unwrap_or(""));
                }
                if name == "kiln.alter_view_rename" {
                    return self.bind_alter_view_rename(value.as_deref().unwrap_or(""));
                }
                Ok(BoundStatement::Set { name, value, local })
            }
            A::Set::SetTimeZone { local, value } => Ok(BoundStatement::Set {
                name: "timezone".into(),
                value: Some(setting_text(value)?),
                local: *local,
            }),
            // SET SESSION AUTHORIZATION name | DEFAULT (checked as it runs).
            A::Set::SetSessionAuthorization(p) => Ok(BoundStatement::Set {
                name: "session_authorization".into(),
                value: match &p.kind {
                    A::SetSessionAuthorizationParamKind::Default => None,
                    A::SetSessionAuthorizationParamKind::User(name) => Some(ident_name(name)),
                },
                local: matches!(p.scope, A::ContextModifier::Local),
            }),
            // SET ROLE name | NONE: the "role" setting (checked as it runs).
            A::Set::SetRole {
                context_modifier,
                role_name,
            } => Ok(BoundStatement::Set {
                name: "role".into(),
                value: Some(role_name.as_ref().map_or("none".into(), ident_name)),
                local: matches!(context_modifier, Some(A::ContextModifier::Local)),
            }),
            A::Set::SetNames { charset_name, .. } => Ok(BoundStatement::Set {
                name: "client_encoding".into(),
                value: Some(charset_name.value.clone()),
                local: false,
            }),
            A::Set::SetTransaction {
                modes,
                snapshot,
                session,
            } => {
                if snapshot.is_some() {
                    return Err(Error::feature_not_supported("SET TRANSACTION SNAPSHOT"));
                }
                let m = transaction_modes(modes)?;
                if *session {
                    // SET SESSION CHARACTERISTICS AS TRANSACTION: the defaults.
                    if let Some(ro) = m.read_only {
                        return Ok(BoundStatement::Set {
                            name: "default_transaction_read_only".into(),
                            value: Some(if ro { "on" } else { "off" }.into()),
                            local: false,
                        });
                    }
                    return Ok(BoundStatement::Set {
                        name: "default_transaction_isolation".into(),
                        value: m.isolation.map(|i| i.name().to_string()),
                        local: false,
                    });
                }
                Ok(BoundStatement::Transaction(TransactionOp::SetModes(m)))
            }
            other => Err(Error::feature_not_supported(format!("statement {other}"))),
        }
    }

    /// `EXPLAIN [ANALYZE] [(option, …)] query`.
    pub(super) fn bind_explain(
        &mut self,
        analyze: bool,
        statement: &A::Statement,
        format: Option<&A::AnalyzeFormatKind>,
        options: Option<&[A::UtilityOption]>,
    ) -> Result<BoundStatement> {
        use crate::plan::explain::{ExplainFormat, ExplainOptions};
        let mut analyze = analyze;
        let mut opts = ExplainOptions {
            format: ExplainFormat::Text,
            costs: true,
        };
        let format_of = |f: &A::AnalyzeFormat| match f {
            A::AnalyzeFormat::TEXT => Ok(ExplainFormat::Text),
            A::AnalyzeFormat::JSON => Ok(ExplainFormat::Json),
            other => Err(Error::feature_not_supported(format!(
                "EXPLAIN format {other}"
            ))),
        };
        if let Some(A::AnalyzeFormatKind::Keyword(f) | A::AnalyzeFormatKind::Assignment(f)) = format
        {
            opts.format = format_of(f)?;
        }
        for o in options.unwrap_or(&[]) {
            let name = ident_name(&o.name);
            let flag = match &o.arg {
                None => true,
                Some(e) => match setting_text(e)?.to_lowercase().as_str() {
                    "true" | "on" | "1" => true,
                    "false" | "off" | "0" => false,
                    other => {
                        if name == "format" {
                            opts.format = match other {
                                "text" => ExplainFormat::Text,
                                "json" => ExplainFormat::Json,
                                _ => {
                                    return Err(Error::feature_not_supported(format!(
                                        "EXPLAIN format {other}"
                                    )));
                                }
                            };
                            continue;
                        }
                        return Err(Error::syntax(format!("{name} requires a Boolean value")));
                    }
                },
            };
            match name.as_str() {
                "analyze" => analyze = flag,
                "costs" => opts.costs = flag,
                "verbose" | "buffers" | "timing" | "summary" | "settings" | "wal" => {}
                other => {
                    return Err(Error::syntax(format!(
                        "unrecognized EXPLAIN option \"{other}\""
                    )));
                }
            }
        }
        let A::Statement::Query(q) = statement else {
            return Err(Error::feature_not_supported("EXPLAIN of this statement"));
        };
        let (plan, _) = self.bind_query(q)?;
        let plan = self.finish_plan(plan)?;
        Ok(BoundStatement::Explain {
            plan,
            analyze,
            options: opts,
        })
    }
}

/// BEGIN's or SET TRANSACTION's modes.
pub(super) fn transaction_modes(modes: &[A::TransactionMode]) -> Result<TxnModes> {
    let mut out = TxnModes::default();
    for mode in modes {
        match mode {
            A::TransactionMode::IsolationLevel(level) => {
                out.isolation = Some(match level {
                    A::TransactionIsolationLevel::ReadUncommitted
                    | A::TransactionIsolationLevel::ReadCommitted => Isolation::ReadCommitted,
                    A::TransactionIsolationLevel::RepeatableRead => Isolation::RepeatableRead,
                    A::TransactionIsolationLevel::Serializable => Isolation::Serializable,
                    other => {
                        return Err(Error::feature_not_supported(format!(
                            "isolation level {other}"
                        )));
                    }
                })
            }
            A::TransactionMode::AccessMode(A::TransactionAccessMode::ReadOnly) => {
                out.read_only = Some(true)
            }
            A::TransactionMode::AccessMode(A::TransactionAccessMode::ReadWrite) => {
                out.read_only = Some(false)
            }
        }
    }
    Ok(out)
}
