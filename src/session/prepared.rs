//! SQL PREPARE and EXECUTE: PREPARE binds its statement as the protocol's Parse does,
//! into the same namespace (so DEALLOCATE and Close reach both); EXECUTE evaluates its
//! arguments, casts them to the parameter types and runs the statement, answering with
//! its rows and command tag.

use super::*;

impl Session {
    pub(super) fn prepare_sql(
        &mut self,
        name: &str,
        statement: &Arc<Statement>,
        types: &[SqlType],
    ) -> Result<Outcome> {
        if self.prepared.contains_key(name) {
            return Err(Error::new(
                "42P05",
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        let declared: Vec<Option<SqlType>> = types.iter().map(|t| Some(*t)).collect();
        let sql = statement.to_string();
        let bound = self.bind(&sql, statement, &declared)?;
        self.prepared.insert(
            name.to_string(),
            Arc::new(Prepared {
                cached: true,
                ..bound
            }),
        );
        Ok(Outcome::Done {
            tag: "PREPARE".into(),
        })
    }

    pub(super) fn execute_sql(
        &mut self,
        name: &str,
        args: &[crate::sql::expr::Expr],
    ) -> Result<Outcome> {
        let Some(target) = self.prepared.get(name).cloned() else {
            return Err(Error::new(
                "26000",
                format!("prepared statement \"{name}\" does not exist"),
            ));
        };
        if args.len() != target.param_types.len() {
            return Err(Error::syntax(format!(
                "wrong number of parameters for prepared statement \"{name}\""
            ))
            .with_detail(format!(
                "Expected {} parameters but got {}.",
                target.param_types.len(),
                args.len()
            )));
        }
        let ctx = self.exec_context(self.writer);
        let one = Batch::new(Vec::new(), 1);
        let mut params = Vec::with_capacity(args.len());
        for (arg, ty) in args.iter().zip(&target.param_types) {
            let v = exec::expr::eval(arg, &one, &[0], &ctx)?.value(0, arg.ty().ty);
            params.push(crate::types::cast::cast_value(v, *ty, false, &ctx.fmt)?);
        }
        drop(ctx);
        self.execute(&target, params)
    }
}
