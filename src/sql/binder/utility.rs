//! SET, SHOW, RESET and the names and values of settings.

use super::*;

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
        A::Expr::Identifier(id) => id.value.clone(),
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
                } else {
                    Some(
                        values
                            .iter()
                            .map(setting_text)
                            .collect::<Result<Vec<_>>>()?
                            .join(", "),
                    )
                };
                Ok(BoundStatement::Set { name, value, local })
            }
            A::Set::SetTimeZone { local, value } => Ok(BoundStatement::Set {
                name: "timezone".into(),
                value: Some(setting_text(value)?),
                local: *local,
            }),
            A::Set::SetNames { charset_name, .. } => Ok(BoundStatement::Set {
                name: "client_encoding".into(),
                value: Some(charset_name.value.clone()),
                local: false,
            }),
            A::Set::SetTransaction { modes, .. } => {
                for mode in modes {
                    if let A::TransactionMode::IsolationLevel(level) = mode
                        && !matches!(level, A::TransactionIsolationLevel::ReadCommitted)
                    {
                        return Err(Error::feature_not_supported(format!(
                            "isolation level {level}"
                        )));
                    }
                }
                Ok(BoundStatement::NoOp { tag: "SET".into() })
            }
            other => Err(Error::feature_not_supported(format!("statement {other}"))),
        }
    }
}
