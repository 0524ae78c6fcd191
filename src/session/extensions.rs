//! CREATE EXTENSION and DROP EXTENSION: records in the database's `pg_extension`
//! (`catalog::extension`), checked as PostgreSQL checks them.

use super::{Outcome, Session, Undo};
use crate::catalog::acl::Privs;
use crate::catalog::extension;
use crate::catalog::namespace::Creation;
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::plan::ExtensionChange;
use crate::session::privileges;
use crate::storage::mvcc::TxnId;

impl Session {
    pub(super) fn change_extension(
        &mut self,
        change: &ExtensionChange,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let catalog = self.db.catalog.clone();
        let (me, superuser) = self.identity();
        match change {
            ExtensionChange::Create {
                name,
                if_not_exists,
                schema,
                cascade: _,
            } => {
                let done = Outcome::Done {
                    tag: "CREATE EXTENSION".into(),
                };
                if catalog.extension(name, &ctx.snapshot).is_some() {
                    if *if_not_exists {
                        self.notices.push((
                            "NOTICE".into(),
                            "42710".into(),
                            format!("extension \"{name}\" already exists, skipping"),
                        ));
                        return Ok(done);
                    }
                    return Err(Error::new(
                        "42710",
                        format!("extension \"{name}\" already exists"),
                    ));
                }
                let Some(info) = extension::available(name) else {
                    return Err(Error::new(
                        "0A000",
                        format!("extension \"{name}\" is not available"),
                    )
                    .with_detail(format!(
                        "Could not open extension control file \
                         \"/usr/share/postgresql/15/extension/{name}.control\": \
                         No such file or directory."
                    ))
                    .with_hint(
                        "The extension must first be installed on the system where \
                         PostgreSQL is running.",
                    ));
                };
                if !info.implemented {
                    return Err(Error::feature_not_supported(format!(
                        "extension \"{name}\""
                    )));
                }
                // The ones kiln has are all trusted: CREATE on the database suffices.
                if !superuser && privileges::database_privs(&self.db, me, Privs::CREATE).is_empty()
                {
                    return Err(Error::new(
                        "42501",
                        format!("permission denied to create extension \"{name}\""),
                    )
                    .with_hint(
                        "Must have CREATE privilege on current database to create this \
                         extension.",
                    ));
                }
                let namespace = match schema {
                    Some(s) => match catalog.namespace(s, &ctx.snapshot) {
                        Some(ns) => ns.oid,
                        None => {
                            return Err(Error::new(
                                "3F000",
                                format!("schema \"{s}\" does not exist"),
                            ));
                        }
                    },
                    None => match ctx.search_path.creation {
                        Some(Creation::Namespace(oid)) => oid,
                        _ => {
                            return Err(Error::new(
                                "3F000",
                                "no schema has been selected to create in",
                            ));
                        }
                    },
                };
                let e = catalog.create_extension(info, me, namespace, txn, &ctx.snapshot)?;
                self.undo.push(Undo::CreateExtension(e));
                Ok(done)
            }
            ExtensionChange::Drop {
                names,
                if_exists,
                cascade,
            } => {
                let mut found = Vec::new();
                for name in names {
                    match catalog.extension(name, &ctx.snapshot) {
                        Some(e) => found.push(e),
                        None if *if_exists => self.notices.push((
                            "NOTICE".into(),
                            "00000".into(),
                            format!("extension \"{name}\" does not exist, skipping"),
                        )),
                        None => {
                            return Err(Error::new(
                                "42704",
                                format!("extension \"{name}\" does not exist"),
                            ));
                        }
                    }
                }
                for e in &found {
                    if !superuser && !privileges::owns(&self.db, me, e.owner) {
                        return Err(Error::new(
                            "42501",
                            format!("must be owner of extension {}", e.name),
                        ));
                    }
                }
                let dependents = dependents(&self.db, &found, ctx);
                if !dependents.is_empty() {
                    if *cascade {
                        return Err(Error::feature_not_supported(
                            "DROP EXTENSION … CASCADE with dependent objects",
                        ));
                    }
                    let message = match found.as_slice() {
                        [one] => format!(
                            "cannot drop extension {} because other objects depend on it",
                            one.name
                        ),
                        _ => "cannot drop desired object(s) because other objects depend on them"
                            .to_string(),
                    };
                    return Err(Error::new("2BP01", message)
                        .with_detail(dependents.join("\n"))
                        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
                }
                for e in found {
                    e.end(txn);
                    self.undo.push(Undo::DropExtension(e));
                }
                Ok(Outcome::Done {
                    tag: "DROP EXTENSION".into(),
                })
            }
        }
    }
}

/// What depends on the functions of `extensions` (column defaults, generated columns
/// and CHECK constraints), as PostgreSQL's DETAIL lines name them.
fn dependents(
    db: &crate::Database,
    extensions: &[std::sync::Arc<extension::Extension>],
    ctx: &ExecContext,
) -> Vec<String> {
    use crate::sql::expr::{Expr, Func};
    // The first call of one of the extensions' functions in `e`, as `name(types)`.
    fn call_in(e: &Expr, names: &[&str]) -> Option<String> {
        if let Expr::Func {
            func: Func::Ext(kind),
            args,
            ..
        } = e
            && names.contains(&kind.extension())
        {
            let info = crate::sql::functions::FUNCTIONS
                .iter()
                .find(|f| f.func == Func::Ext(*kind));
            let name = info.and_then(|f| f.names.first()).copied().unwrap_or("?");
            let types: Vec<String> = args.iter().map(|a| a.ty().display_name()).collect();
            return Some(format!("{name}({})", types.join(",")));
        }
        let mut found = None;
        e.children(&mut |c| {
            if found.is_none() {
                found = call_in(c, names);
            }
        });
        found
    }
    let names: Vec<&str> = extensions.iter().map(|e| e.name.as_str()).collect();
    let mut out = Vec::new();
    for t in db.catalog.visible_tables(&ctx.snapshot) {
        for c in &t.columns {
            if let Some(f) = c.default.as_ref().and_then(|d| call_in(d, &names)) {
                out.push(format!(
                    "default value for column {} of table {} depends on function {f}",
                    c.name, t.name
                ));
            }
            if let Some(f) = c.generated.as_ref().and_then(|d| call_in(d, &names)) {
                out.push(format!(
                    "column {} of table {} depends on function {f}",
                    c.name, t.name
                ));
            }
        }
        for check in &t.checks {
            if let Some(f) = call_in(&check.expr, &names) {
                out.push(format!(
                    "constraint {} on table {} depends on function {f}",
                    check.name, t.name
                ));
            }
        }
    }
    out
}
