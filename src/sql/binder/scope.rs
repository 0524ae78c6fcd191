//! Name scopes: the columns a FROM clause makes visible and how a (qualified) name
//! resolves to one of them.

use super::*;

#[derive(Clone, Debug)]
pub(super) struct ScopeColumn {
    pub(super) qualifier: Option<String>,
    pub(super) name: String,
    pub(super) ty: SqlType,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Scope {
    pub(super) columns: Vec<ScopeColumn>,
}

impl Scope {
    pub(super) fn resolve(&self, qualifier: Option<&str>, name: &str) -> Result<(usize, SqlType)> {
        let mut found = None;
        for (i, c) in self.columns.iter().enumerate() {
            if c.name == name && (qualifier.is_none() || c.qualifier.as_deref() == qualifier) {
                if found.is_some() {
                    return Err(Error::ambiguous_column(name));
                }
                found = Some((i, c.ty));
            }
        }
        match found {
            Some(f) => Ok(f),
            None => match qualifier {
                Some(q)
                    if !self
                        .columns
                        .iter()
                        .any(|c| c.qualifier.as_deref() == Some(q)) =>
                {
                    Err(Error::new(
                        "42P01",
                        format!("missing FROM-clause entry for table \"{q}\""),
                    ))
                }
                // PostgreSQL quotes a bare name but not a qualified one.
                Some(q) => Err(Error::new(
                    "42703",
                    format!("column {q}.{name} does not exist"),
                )),
                None => Err(Error::undefined_column(name)),
            },
        }
    }
}
