//! Binding the built-in extensions' functions and operators (`catalog::extension`):
//! each name is found only when the database has its extension in a schema of the
//! search path, as in PostgreSQL, where the extension's script creates them in that
//! schema (without it: 42883).

use super::{BOOL, Binder, INT4, TEXT};
use crate::error::{Error, Result};
use crate::sql::expr::{Expr, ExtFn, Func};
use crate::types::{DataType, SqlType};

/// Every function name the built-in extensions add, with its extension. The pgcrypto
/// functions kiln lacks are listed so that they answer 0A000 once it is installed.
pub const EXTENSION_FUNCTIONS: &[(&str, &str)] = &[
    ("armor", "pgcrypto"),
    ("crypt", "pgcrypto"),
    ("dearmor", "pgcrypto"),
    ("decrypt", "pgcrypto"),
    ("decrypt_iv", "pgcrypto"),
    ("digest", "pgcrypto"),
    ("encrypt", "pgcrypto"),
    ("encrypt_iv", "pgcrypto"),
    ("gen_random_bytes", "pgcrypto"),
    ("gen_salt", "pgcrypto"),
    ("hmac", "pgcrypto"),
    ("pgp_armor_headers", "pgcrypto"),
    ("pgp_key_id", "pgcrypto"),
    ("pgp_pub_decrypt", "pgcrypto"),
    ("pgp_pub_decrypt_bytea", "pgcrypto"),
    ("pgp_pub_encrypt", "pgcrypto"),
    ("pgp_pub_encrypt_bytea", "pgcrypto"),
    ("pgp_sym_decrypt", "pgcrypto"),
    ("pgp_sym_decrypt_bytea", "pgcrypto"),
    ("pgp_sym_encrypt", "pgcrypto"),
    ("pgp_sym_encrypt_bytea", "pgcrypto"),
    ("set_limit", "pg_trgm"),
    ("show_limit", "pg_trgm"),
    ("show_trgm", "pg_trgm"),
    ("similarity", "pg_trgm"),
    ("similarity_dist", "pg_trgm"),
    ("similarity_op", "pg_trgm"),
    ("strict_word_similarity", "pg_trgm"),
    ("strict_word_similarity_dist_op", "pg_trgm"),
    ("strict_word_similarity_op", "pg_trgm"),
    ("uuid_generate_v1", "uuid-ossp"),
    ("uuid_generate_v1mc", "uuid-ossp"),
    ("uuid_generate_v3", "uuid-ossp"),
    ("uuid_generate_v4", "uuid-ossp"),
    ("uuid_generate_v5", "uuid-ossp"),
    ("uuid_nil", "uuid-ossp"),
    ("uuid_ns_dns", "uuid-ossp"),
    ("uuid_ns_oid", "uuid-ossp"),
    ("uuid_ns_url", "uuid-ossp"),
    ("uuid_ns_x500", "uuid-ossp"),
    ("word_similarity", "pg_trgm"),
    ("word_similarity_dist_op", "pg_trgm"),
    ("word_similarity_op", "pg_trgm"),
];

/// The extension that adds function `name`, if one does.
pub fn function_extension(name: &str) -> Option<&'static str> {
    EXTENSION_FUNCTIONS
        .binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .map(|i| EXTENSION_FUNCTIONS[i].1)
}

const UUID: SqlType = SqlType::new(DataType::Uuid);
const BYTEA: SqlType = SqlType::new(DataType::Bytea);
const FLOAT4: SqlType = SqlType::new(DataType::Float4);

impl Binder<'_> {
    /// Whether extension `name` is installed in a schema of the search path (its
    /// functions and operators live there).
    fn extension_visible(&self, name: &str) -> bool {
        self.catalog
            .extension(name, &self.snapshot)
            .is_some_and(|e| self.search_path.search.contains(&e.namespace))
    }

    /// A built-in extension's function: None when `name` is none of theirs, or its
    /// extension is not installed, or no signature takes these arguments.
    pub(super) fn bind_extension_function(
        &mut self,
        name: &str,
        args: &[Expr],
    ) -> Result<Option<Expr>> {
        use DataType as D;
        use ExtFn as E;
        let Some(extension) = function_extension(name) else {
            return Ok(None);
        };
        if !self.extension_visible(extension) {
            return Ok(None);
        }
        let types: Vec<D> = args.iter().map(|a| a.ty().ty).collect();
        let text_array = SqlType::new(D::Array(crate::types::TEXT_ARRAY));
        let (kind, params, ty): (E, Vec<SqlType>, SqlType) = match (name, types.as_slice()) {
            ("uuid_generate_v1", []) => (E::UuidV1, vec![], UUID),
            ("uuid_generate_v1mc", []) => (E::UuidV1Mc, vec![], UUID),
            ("uuid_generate_v4", []) => (E::UuidV4, vec![], UUID),
            ("uuid_generate_v3", [_, _]) => (E::UuidV3, vec![UUID, TEXT], UUID),
            ("uuid_generate_v5", [_, _]) => (E::UuidV5, vec![UUID, TEXT], UUID),
            ("uuid_nil", []) => (E::UuidNil, vec![], UUID),
            ("uuid_ns_dns", []) => (E::UuidNsDns, vec![], UUID),
            ("uuid_ns_url", []) => (E::UuidNsUrl, vec![], UUID),
            ("uuid_ns_oid", []) => (E::UuidNsOid, vec![], UUID),
            ("uuid_ns_x500", []) => (E::UuidNsX500, vec![], UUID),
            ("digest", [D::Bytea, _]) => (E::Digest, vec![BYTEA, TEXT], BYTEA),
            ("digest", [_, _]) => (E::Digest, vec![TEXT, TEXT], BYTEA),
            ("hmac", [D::Bytea, _, _]) => (E::Hmac, vec![BYTEA, BYTEA, TEXT], BYTEA),
            ("hmac", [_, _, _]) => (E::Hmac, vec![TEXT, TEXT, TEXT], BYTEA),
            ("gen_random_bytes", [_]) => (E::GenRandomBytes, vec![INT4], BYTEA),
            ("similarity" | "similarity_op" | "similarity_dist", [_, _])
            | ("word_similarity" | "word_similarity_op" | "word_similarity_dist_op", [_, _])
            | (
                "strict_word_similarity"
                | "strict_word_similarity_op"
                | "strict_word_similarity_dist_op",
                [_, _],
            ) => {
                let (kind, ty) = match name {
                    "similarity" => (E::Similarity, FLOAT4),
                    "similarity_op" => (E::SimilarOp, BOOL),
                    "similarity_dist" => (E::Distance, FLOAT4),
                    "word_similarity" => (E::WordSimilarity, FLOAT4),
                    "word_similarity_op" => (E::WordSimilarOp, BOOL),
                    "word_similarity_dist_op" => (E::WordDistance, FLOAT4),
                    "strict_word_similarity" => (E::StrictWordSimilarity, FLOAT4),
                    "strict_word_similarity_op" => (E::StrictWordSimilarOp, BOOL),
                    _ => (E::StrictWordDistance, FLOAT4),
                };
                (kind, vec![TEXT, TEXT], ty)
            }
            ("show_trgm", [_]) => (E::ShowTrgm, vec![TEXT], text_array),
            ("show_limit", []) => (E::ShowLimit, vec![], FLOAT4),
            ("set_limit", [_]) => (E::SetLimit, vec![FLOAT4], FLOAT4),
            (_, _) if extension == "pgcrypto" && !matches!(name, "digest" | "hmac") => {
                return Err(Error::feature_not_supported(format!("function {name}")));
            }
            _ => return Ok(None),
        };
        let mut bound = Vec::with_capacity(args.len());
        for (a, p) in args.iter().cloned().zip(params) {
            bound.push(self.coerce(a, p)?);
        }
        Ok(Some(Expr::Func {
            func: Func::Ext(kind),
            args: bound,
            ty,
        }))
    }

    /// pg_trgm's operators over text (`% <% %> <<% %>> <-> <<-> <->> <<<-> <->>>`):
    /// None unless pg_trgm is installed and both sides are strings.
    pub(super) fn bind_trigram_operator(
        &mut self,
        sym: &str,
        l: &Expr,
        r: &Expr,
    ) -> Result<Option<Expr>> {
        use ExtFn as E;
        let (kind, swap, ty) = match sym {
            "%" => (E::SimilarOp, false, BOOL),
            "<%" => (E::WordSimilarOp, false, BOOL),
            "%>" => (E::WordSimilarOp, true, BOOL),
            "<<%" => (E::StrictWordSimilarOp, false, BOOL),
            "%>>" => (E::StrictWordSimilarOp, true, BOOL),
            "<->" => (E::Distance, false, FLOAT4),
            "<<->" => (E::WordDistance, false, FLOAT4),
            "<->>" => (E::WordDistance, true, FLOAT4),
            "<<<->" => (E::StrictWordDistance, false, FLOAT4),
            "<->>>" => (E::StrictWordDistance, true, FLOAT4),
            _ => return Ok(None),
        };
        let stringy = |e: &Expr| {
            matches!(
                e.ty().ty,
                DataType::Text
                    | DataType::Varchar
                    | DataType::Bpchar
                    | DataType::Name
                    | DataType::Unknown
            )
        };
        if !stringy(l) || !stringy(r) || !self.extension_visible("pg_trgm") {
            return Ok(None);
        }
        let l = self.coerce(l.clone(), TEXT)?;
        let r = self.coerce(r.clone(), TEXT)?;
        let args = if swap { vec![r, l] } else { vec![l, r] };
        Ok(Some(Expr::Func {
            func: Func::Ext(kind),
            args,
            ty,
        }))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn extension_functions_are_sorted_and_known() {
        let list = super::EXTENSION_FUNCTIONS;
        assert!(list.windows(2).all(|w| w[0].0 < w[1].0));
        for (_, ext) in list {
            assert!(crate::catalog::extension::available(ext).is_some(), "{ext}");
        }
    }
}
