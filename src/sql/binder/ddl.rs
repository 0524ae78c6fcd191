//! CREATE TABLE.

use super::*;

impl Binder<'_> {
    pub(super) fn bind_create_table(&mut self, ct: &A::CreateTable) -> Result<BoundStatement> {
        if ct.query.is_some() {
            return Err(Error::feature_not_supported("CREATE TABLE … AS"));
        }
        if !ct.constraints.is_empty() {
            return Err(Error::feature_not_supported("table constraints"));
        }
        let name = object_name(&ct.name)?;
        if ct.columns.is_empty() {
            return Err(Error::feature_not_supported("tables without columns"));
        }
        let mut columns: Vec<ColumnDef> = Vec::new();
        for c in &ct.columns {
            let cname = ident_name(&c.name);
            if columns.iter().any(|x| x.name == cname) {
                return Err(Error::new(
                    "42701",
                    format!("column \"{cname}\" specified more than once"),
                ));
            }
            let ty = type_from_ast(&c.data_type)?;
            let mut def = ColumnDef {
                name: cname,
                ty,
                not_null: false,
                default: None,
            };
            for opt in &c.options {
                match &opt.option {
                    A::ColumnOption::Null => def.not_null = false,
                    A::ColumnOption::NotNull => def.not_null = true,
                    A::ColumnOption::Default(e) => {
                        let b = self.bind_expr(e, &Scope::default())?;
                        if b.any(&|x| matches!(x, Expr::Column { .. })) {
                            return Err(Error::new(
                                "0A000",
                                "cannot use column reference in DEFAULT expression",
                            ));
                        }
                        def.default = Some(self.coerce_column(b, &def)?);
                    }
                    other => {
                        return Err(Error::feature_not_supported(format!(
                            "column option {other}"
                        )));
                    }
                }
            }
            columns.push(def);
        }
        Ok(BoundStatement::CreateTable {
            name,
            columns,
            if_not_exists: ct.if_not_exists,
        })
    }

    // ----- expressions ---------------------------------------------------------------
}
