//! Bound expressions: typed, name-resolved, ready to evaluate a batch at a time.

use crate::types::{DataType, SqlType, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Concat,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq
        )
    }
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
            BinaryOp::Pow => "^",
            BinaryOp::Eq => "=",
            BinaryOp::NotEq => "<>",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::Concat => "||",
        }
    }
}

/// Scalar functions kiln implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Upper,
    Lower,
    Length,
    OctetLength,
    Abs,
    Round,
    Trunc,
    Ceil,
    Floor,
    Mod,
    Power,
    Sqrt,
    Ln,
    Exp,
    /// `log(x)` and `log10(x)`.
    Log10,
    /// `log(base, x)`, NUMERIC only.
    Log,
    Substr,
    Position,
    Replace,
    Btrim,
    Ltrim,
    Rtrim,
    Concat,
    Left,
    Repeat,
    /// chr(int): the character with that code point.
    Chr,
    /// ascii(text): the first character's code point.
    Ascii,
    Right,
    /// lpad(text, int [, fill]).
    Lpad,
    /// rpad(text, int [, fill]).
    Rpad,
    /// split_part(text, delimiter, n).
    SplitPart,
    Reverse,
    /// translate(text, from, to).
    Translate,
    StartsWith,
    Initcap,
    Md5,
    /// random(): volatile, never folded.
    Random,
    Coalesce,
    Nullif,
    Greatest,
    Least,
    Now,
    CurrentDate,
    Version,
    CurrentDatabase,
    CurrentUser,
    /// current_setting(name [, missing_ok]).
    CurrentSetting,
    /// EXTRACT(unit FROM x), args [unit, x]: numeric.
    Extract,
    /// date_part(unit, x): double precision.
    DatePart,
    /// date_trunc(unit, x [, zone]).
    DateTrunc,
    /// age(a, b).
    Age,
    /// `x AT TIME ZONE zone` / timezone(zone, x), args [zone, x].
    Timezone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AggCall {
    pub func: AggFunc,
    pub arg: Option<Expr>,
    pub distinct: bool,
    pub ty: SqlType,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Column `index` of the input batch.
    Column {
        index: usize,
        ty: SqlType,
        name: String,
    },
    Literal {
        value: Value,
        ty: SqlType,
    },
    /// Parameter `$index+1`, supplied at execution.
    Param {
        index: usize,
        ty: SqlType,
    },
    Negate {
        expr: Box<Expr>,
        ty: SqlType,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
        ty: SqlType,
    },
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// `IS [NOT] TRUE/FALSE`
    IsBool {
        expr: Box<Expr>,
        value: bool,
        negated: bool,
    },
    IsDistinct {
        left: Box<Expr>,
        right: Box<Expr>,
        negated: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
        case_insensitive: bool,
    },
    Case {
        whens: Vec<(Expr, Expr)>,
        else_result: Option<Box<Expr>>,
        ty: SqlType,
    },
    Cast {
        expr: Box<Expr>,
        to: SqlType,
        explicit: bool,
    },
    Func {
        func: Func,
        args: Vec<Expr>,
        ty: SqlType,
    },
    /// An aggregate's result while binding; replaced by a column reference before planning.
    Agg {
        index: usize,
        ty: SqlType,
    },
}

const BOOL: SqlType = SqlType::new(DataType::Bool);

impl Expr {
    pub fn ty(&self) -> SqlType {
        match self {
            Expr::Column { ty, .. }
            | Expr::Literal { ty, .. }
            | Expr::Param { ty, .. }
            | Expr::Negate { ty, .. }
            | Expr::Binary { ty, .. }
            | Expr::Case { ty, .. }
            | Expr::Func { ty, .. }
            | Expr::Agg { ty, .. } => *ty,
            Expr::Cast { to, .. } => *to,
            Expr::And(_)
            | Expr::Or(_)
            | Expr::Not(_)
            | Expr::IsNull { .. }
            | Expr::IsBool { .. }
            | Expr::IsDistinct { .. }
            | Expr::InList { .. }
            | Expr::Like { .. } => BOOL,
        }
    }

    pub fn literal(value: Value, ty: SqlType) -> Expr {
        Expr::Literal { value, ty }
    }

    pub fn is_constant(&self) -> bool {
        matches!(self, Expr::Literal { .. })
    }

    /// Calls `f` on every direct child.
    pub fn children_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            Expr::Column { .. } | Expr::Literal { .. } | Expr::Param { .. } | Expr::Agg { .. } => {}
            Expr::Negate { expr, .. }
            | Expr::Not(expr)
            | Expr::IsNull { expr, .. }
            | Expr::IsBool { expr, .. } => f(expr),
            Expr::Cast { expr, .. } => f(expr),
            Expr::Binary { left, right, .. } | Expr::IsDistinct { left, right, .. } => {
                f(left);
                f(right);
            }
            Expr::Like { expr, pattern, .. } => {
                f(expr);
                f(pattern);
            }
            Expr::And(list) | Expr::Or(list) => list.iter_mut().for_each(f),
            Expr::InList { expr, list, .. } => {
                f(expr);
                list.iter_mut().for_each(f);
            }
            Expr::Case {
                whens, else_result, ..
            } => {
                for (c, r) in whens {
                    f(c);
                    f(r);
                }
                if let Some(e) = else_result {
                    f(e);
                }
            }
            Expr::Func { args, .. } => args.iter_mut().for_each(f),
        }
    }

    /// Calls `f` on every direct child.
    pub fn children(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Expr::Column { .. } | Expr::Literal { .. } | Expr::Param { .. } | Expr::Agg { .. } => {}
            Expr::Negate { expr, .. }
            | Expr::Not(expr)
            | Expr::IsNull { expr, .. }
            | Expr::IsBool { expr, .. } => f(expr),
            Expr::Cast { expr, .. } => f(expr),
            Expr::Binary { left, right, .. } | Expr::IsDistinct { left, right, .. } => {
                f(left);
                f(right);
            }
            Expr::Like { expr, pattern, .. } => {
                f(expr);
                f(pattern);
            }
            Expr::And(list) | Expr::Or(list) => list.iter().for_each(f),
            Expr::InList { expr, list, .. } => {
                f(expr);
                list.iter().for_each(f);
            }
            Expr::Case {
                whens, else_result, ..
            } => {
                for (c, r) in whens {
                    f(c);
                    f(r);
                }
                if let Some(e) = else_result {
                    f(e);
                }
            }
            Expr::Func { args, .. } => args.iter().for_each(f),
        }
    }

    /// Whether any node satisfies `pred`.
    pub fn any(&self, pred: &dyn Fn(&Expr) -> bool) -> bool {
        if pred(self) {
            return true;
        }
        let mut found = false;
        self.children(&mut |c| {
            if !found && c.any(pred) {
                found = true;
            }
        });
        found
    }
}
