//! Privileges: PostgreSQL's access control lists (`aclitem[]`) and the rules that read
//! and change them.
//!
//! An object (table, view, sequence, the schema, the database) has an owner and an ACL.
//! `None` stands for PostgreSQL's NULL ACL: the object's default rights
//! ([`default_acl`]: everything for the owner, plus what PUBLIC gets by default). Each
//! [`AclItem`] says that `grantor` gave `grantee` (0: PUBLIC) some privileges, some of
//! them with the grant option. The first GRANT or REVOKE makes the default explicit
//! and edits it, as PostgreSQL's `merge_acl_with_grant` does, so the text forms
//! (`relacl`, `\dp`) are PostgreSQL's.
//!
//! Checks ([`Acl::mask`]): a superuser has every privilege; otherwise a role has what
//! the items grant to it, to PUBLIC and to the roles whose privileges it inherits
//! (membership, `auth::Roles::has_privs_of`). Owners may grant everything the object
//! supports — grant options come with ownership — but their own privileges are only
//! what the ACL says (an owner may revoke its own SELECT).
//!
//! The grantor of a GRANT is the owner when a superuser or the owner's role grants
//! (PostgreSQL's `select_best_grantor`), else the granting role itself, which must hold
//! the grant option: one that holds none gets 42501 if it has no privilege at all,
//! else a warning that nothing was granted.

use std::fmt::Write as _;
use std::sync::Arc;

use super::TableEntry;

/// A privilege a statement needs on a relation, checked before it runs (PostgreSQL's
/// `ExecCheckPermissions`): as the session's current role, or inside a view as the
/// view's owner (`as_role`).
#[derive(Clone, Debug)]
pub struct Access {
    pub table: Arc<TableEntry>,
    pub privs: Privs,
    pub as_role: Option<u32>,
}

/// PUBLIC as a grantee.
pub const PUBLIC: u32 = 0;

/// A set of privileges, PostgreSQL's bit order (`ACL_INSERT` … `ACL_CONNECT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Privs(pub u16);

impl Privs {
    pub const INSERT: Privs = Privs(1 << 0);
    pub const SELECT: Privs = Privs(1 << 1);
    pub const UPDATE: Privs = Privs(1 << 2);
    pub const DELETE: Privs = Privs(1 << 3);
    pub const TRUNCATE: Privs = Privs(1 << 4);
    pub const REFERENCES: Privs = Privs(1 << 5);
    pub const TRIGGER: Privs = Privs(1 << 6);
    pub const EXECUTE: Privs = Privs(1 << 7);
    pub const USAGE: Privs = Privs(1 << 8);
    pub const CREATE: Privs = Privs(1 << 9);
    pub const TEMPORARY: Privs = Privs(1 << 10);
    pub const CONNECT: Privs = Privs(1 << 11);
    pub const NONE: Privs = Privs(0);

    pub fn contains(self, other: Privs) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn intersects(self, other: Privs) -> bool {
        self.0 & other.0 != 0
    }
    pub fn minus(self, other: Privs) -> Privs {
        Privs(self.0 & !other.0)
    }
}

impl std::ops::BitOr for Privs {
    type Output = Privs;
    fn bitor(self, o: Privs) -> Privs {
        Privs(self.0 | o.0)
    }
}

impl std::ops::BitAnd for Privs {
    type Output = Privs;
    fn bitand(self, o: Privs) -> Privs {
        Privs(self.0 & o.0)
    }
}

/// The letters of `aclitem`'s text form, one per bit.
const LETTERS: &[u8] = b"arwdDxtXUCTc";

/// The names GRANT takes, with their bits.
const NAMES: &[(&str, Privs)] = &[
    ("INSERT", Privs::INSERT),
    ("SELECT", Privs::SELECT),
    ("UPDATE", Privs::UPDATE),
    ("DELETE", Privs::DELETE),
    ("TRUNCATE", Privs::TRUNCATE),
    ("REFERENCES", Privs::REFERENCES),
    ("TRIGGER", Privs::TRIGGER),
    ("EXECUTE", Privs::EXECUTE),
    ("USAGE", Privs::USAGE),
    ("CREATE", Privs::CREATE),
    ("TEMPORARY", Privs::TEMPORARY),
    ("TEMP", Privs::TEMPORARY),
    ("CONNECT", Privs::CONNECT),
];

/// The privilege named `name` (any case), as GRANT and has_*_privilege spell it.
pub fn privilege_named(name: &str) -> Option<Privs> {
    NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, p)| *p)
}

/// The name of one privilege bit.
pub fn privilege_name(p: Privs) -> &'static str {
    NAMES
        .iter()
        .find(|(_, q)| *q == p)
        .map_or("UNKNOWN", |(n, _)| n)
}

/// What kind of object an ACL belongs to: which privileges it supports and how its
/// messages name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Table,
    View,
    Sequence,
    Schema,
    Database,
}

impl ObjectKind {
    /// Every privilege the kind supports (`ALL`).
    pub fn all(self) -> Privs {
        match self {
            ObjectKind::Table | ObjectKind::View => Privs(0x7f),
            ObjectKind::Sequence => Privs::SELECT | Privs::UPDATE | Privs::USAGE,
            ObjectKind::Schema => Privs::USAGE | Privs::CREATE,
            ObjectKind::Database => Privs::CREATE | Privs::TEMPORARY | Privs::CONNECT,
        }
    }

    /// The word in "permission denied for …" and "must be owner of …".
    pub fn noun(self) -> &'static str {
        match self {
            ObjectKind::Table => "table",
            ObjectKind::View => "view",
            ObjectKind::Sequence => "sequence",
            ObjectKind::Schema => "schema",
            ObjectKind::Database => "database",
        }
    }

    /// The word in "invalid privilege type X for …" (a view's privileges are a
    /// table's).
    pub fn grant_noun(self) -> &'static str {
        match self {
            ObjectKind::View => "table",
            k => k.noun(),
        }
    }
}

/// One `aclitem`: `grantee=privs/grantor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AclItem {
    pub grantee: u32,
    pub grantor: u32,
    pub privs: Privs,
    /// The privileges `grantee` may grant on (a subset of `privs`).
    pub grant_options: Privs,
}

/// An explicit ACL, in PostgreSQL's item order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Acl(pub Vec<AclItem>);

/// The database owner's pseudo-role (PostgreSQL 15's owner of schema public).
pub const PG_DATABASE_OWNER: u32 = 6171;

/// What a NULL ACL means for an object of `kind` owned by `owner` (PostgreSQL's
/// `acldefault`).
pub fn default_acl(kind: ObjectKind, owner: u32) -> Acl {
    let mut items = vec![AclItem {
        grantee: owner,
        grantor: owner,
        privs: kind.all(),
        grant_options: Privs::NONE,
    }];
    if kind == ObjectKind::Database {
        items.push(AclItem {
            grantee: PUBLIC,
            grantor: owner,
            privs: Privs::TEMPORARY | Privs::CONNECT,
            grant_options: Privs::NONE,
        });
    }
    Acl(items)
}

/// Schema public's ACL in a new PostgreSQL 15 database: its owner (pg_database_owner)
/// may use it and create in it; PUBLIC may only use it.
pub fn public_schema_acl() -> Acl {
    Acl(vec![
        AclItem {
            grantee: PG_DATABASE_OWNER,
            grantor: PG_DATABASE_OWNER,
            privs: Privs::USAGE | Privs::CREATE,
            grant_options: Privs::NONE,
        },
        AclItem {
            grantee: PUBLIC,
            grantor: PG_DATABASE_OWNER,
            privs: Privs::USAGE,
            grant_options: Privs::NONE,
        },
    ])
}

impl Acl {
    /// The privileges among `wanted` that `role` holds, given `inherits(r)`: whether
    /// `role` has the privileges of role `r` (itself included). Grant options are
    /// asked as `wanted` shifted into [`Acl::mask_options`].
    pub fn mask(&self, wanted: Privs, inherits: &dyn Fn(u32) -> bool) -> Privs {
        let mut have = Privs::NONE;
        for item in &self.0 {
            if item.grantee == PUBLIC || inherits(item.grantee) {
                have = have | (item.privs & wanted);
                if have.contains(wanted) {
                    break;
                }
            }
        }
        have
    }

    /// The grant options among `wanted` that `role` holds (see [`Acl::mask`]).
    pub fn mask_options(&self, wanted: Privs, inherits: &dyn Fn(u32) -> bool) -> Privs {
        let mut have = Privs::NONE;
        for item in &self.0 {
            if item.grantee == PUBLIC || inherits(item.grantee) {
                have = have | (item.grant_options & wanted);
            }
        }
        have
    }

    /// GRANT: `privs` (with the grant option when `with_option`) from `grantor` to
    /// `grantee`, merged into the item the pair already has.
    pub fn grant(&mut self, grantee: u32, grantor: u32, privs: Privs, with_option: bool) {
        let options = if with_option { privs } else { Privs::NONE };
        match self
            .0
            .iter_mut()
            .find(|i| i.grantee == grantee && i.grantor == grantor)
        {
            Some(item) => {
                item.privs = item.privs | privs;
                item.grant_options = item.grant_options | options;
            }
            None => self.0.push(AclItem {
                grantee,
                grantor,
                privs,
                grant_options: options,
            }),
        }
    }

    /// REVOKE: takes `privs` (only their grant options when `option_only`) that
    /// `grantor` gave `grantee`; an item left with nothing goes. Returns the grant
    /// options taken away (what grants made on their strength depend on).
    pub fn revoke(&mut self, grantee: u32, grantor: u32, privs: Privs, option_only: bool) -> Privs {
        let mut lost = Privs::NONE;
        for item in &mut self.0 {
            if item.grantee == grantee && item.grantor == grantor {
                lost = item.grant_options & privs;
                item.grant_options = item.grant_options.minus(privs);
                if !option_only {
                    item.privs = item.privs.minus(privs);
                }
            }
        }
        self.0.retain(|i| !i.privs.is_empty());
        lost
    }

    /// Grants `grantee` made on the strength of grant options among `privs`.
    pub fn granted_by(&self, grantor: u32, privs: Privs) -> Vec<AclItem> {
        self.0
            .iter()
            .filter(|i| i.grantor == grantor && i.grantee != grantor && i.privs.intersects(privs))
            .copied()
            .collect()
    }

    /// ALTER … OWNER TO: the old owner's place (as grantee and grantor) goes to the new
    /// one, items that then coincide merged (PostgreSQL's `aclnewowner`).
    pub fn new_owner(&self, old: u32, new: u32) -> Acl {
        let mut out = Acl::default();
        for item in &self.0 {
            let swap = |r: u32| if r == old { new } else { r };
            let (grantee, grantor) = (swap(item.grantee), swap(item.grantor));
            out.grant(grantee, grantor, item.privs, false);
            if !item.grant_options.is_empty() {
                out.grant(grantee, grantor, item.grant_options, true);
            }
        }
        out
    }

    /// The items in PostgreSQL's `aclitemsort` order: grantee, grantor, privileges.
    pub fn sort(&mut self) {
        self.0
            .sort_by_key(|i| (i.grantee, i.grantor, i.grant_options.0, i.privs.0));
    }

    /// Whether an item names role `r` as grantee or grantor.
    pub fn mentions(&self, r: u32) -> bool {
        self.0.iter().any(|i| i.grantee == r || i.grantor == r)
    }

    /// The items without any that name role `r` (DROP OWNED).
    pub fn without(&self, r: u32) -> Acl {
        Acl(self
            .0
            .iter()
            .filter(|i| i.grantee != r && i.grantor != r)
            .copied()
            .collect())
    }

    /// The items' text forms, `aclitemout`'s (`name(r)`: a role's name by oid).
    pub fn texts(&self, name: &dyn Fn(u32) -> String) -> Vec<String> {
        self.0.iter().map(|i| item_text(i, name)).collect()
    }
}

/// ALTER DEFAULT PRIVILEGES: the ACL relations of `kind` made by `role` start with
/// (pg_default_acl). A global entry replaces [`default_acl`]; an `in_schema` one
/// (schema public) adds its items to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultAcl {
    pub role: u32,
    pub in_schema: bool,
    /// Table (tables and views) or Sequence.
    pub kind: ObjectKind,
    pub acl: Acl,
}

/// The ACL a new relation of `kind` owned by `owner` gets: None when it is the
/// default (PostgreSQL's `get_user_default_acl`).
pub fn initial_acl(defaults: &[DefaultAcl], kind: ObjectKind, owner: u32) -> Option<Acl> {
    let kind = if kind == ObjectKind::View {
        ObjectKind::Table
    } else {
        kind
    };
    let find = |in_schema: bool| {
        defaults
            .iter()
            .find(|d| d.role == owner && d.kind == kind && d.in_schema == in_schema)
    };
    let (global, schema) = (find(false), find(true));
    if global.is_none() && schema.is_none() {
        return None;
    }
    let mut acl = global.map_or_else(|| default_acl(kind, owner), |g| g.acl.clone());
    for item in schema.iter().flat_map(|s| &s.acl.0) {
        acl.grant(item.grantee, item.grantor, item.privs, false);
        if !item.grant_options.is_empty() {
            acl.grant(item.grantee, item.grantor, item.grant_options, true);
        }
    }
    // PostgreSQL compares (and keeps) the merged list sorted; an empty one means the
    // default (its aclmerge gives NULL).
    acl.sort();
    let mut default = default_acl(kind, owner);
    default.sort();
    (!acl.0.is_empty() && acl != default).then_some(acl)
}

/// One item as PostgreSQL prints it: `grantee=privs/grantor`, a `*` after each
/// privilege held with the grant option, PUBLIC as an empty grantee.
pub fn item_text(item: &AclItem, name: &dyn Fn(u32) -> String) -> String {
    let mut s = String::new();
    if item.grantee != PUBLIC {
        put_id(&mut s, &name(item.grantee));
    }
    s.push('=');
    for (bit, &letter) in LETTERS.iter().enumerate() {
        let p = Privs(1 << bit);
        if item.privs.contains(p) {
            s.push(letter as char);
            if item.grant_options.contains(p) {
                s.push('*');
            }
        }
    }
    s.push('/');
    put_id(&mut s, &name(item.grantor));
    s
}

/// A role name in an aclitem: double-quoted unless it is letters, digits and `_`.
fn put_id(s: &mut String, name: &str) {
    if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        s.push_str(name);
    } else {
        s.push('"');
        for c in name.chars() {
            if c == '"' {
                s.push('"');
            }
            s.push(c);
        }
        s.push('"');
    }
}

/// `privs` as GRANT spells them, for the statements a checkpoint writes.
pub fn privilege_list(privs: Privs) -> String {
    let mut out = String::new();
    for bit in 0..LETTERS.len() {
        let p = Privs(1 << bit);
        if privs.contains(p) {
            if !out.is_empty() {
                out.push_str(", ");
            }
            let _ = write!(out, "{}", privilege_name(p));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(r: u32) -> String {
        match r {
            10 => "postgres".into(),
            20 => "alice".into(),
            30 => "Bob x".into(),
            _ => r.to_string(),
        }
    }

    #[test]
    fn grants_print_as_postgres_prints_them() {
        let mut acl = default_acl(ObjectKind::Table, 10);
        acl.grant(20, 10, Privs::SELECT | Privs::INSERT, false);
        acl.grant(30, 10, ObjectKind::Table.all(), true);
        acl.grant(PUBLIC, 10, Privs::UPDATE, false);
        assert_eq!(
            acl.texts(&names),
            [
                "postgres=arwdDxt/postgres",
                "alice=ar/postgres",
                "\"Bob x\"=a*r*w*d*D*x*t*/postgres",
                "=w/postgres"
            ]
        );
        acl.revoke(20, 10, Privs::SELECT, false);
        acl.revoke(10, 10, ObjectKind::Table.all(), false);
        assert_eq!(acl.texts(&names)[0], "alice=a/postgres");
        assert_eq!(acl.0.len(), 3);
    }

    #[test]
    fn masks_count_public_and_inherited_roles() {
        let mut acl = default_acl(ObjectKind::Table, 10);
        acl.grant(PUBLIC, 10, Privs::UPDATE, false);
        acl.grant(30, 10, Privs::SELECT, true);
        let alice = |r: u32| r == 20;
        let alice_in_bob = |r: u32| r == 20 || r == 30;
        assert_eq!(
            acl.mask(Privs::SELECT | Privs::UPDATE, &alice),
            Privs::UPDATE
        );
        assert_eq!(
            acl.mask(Privs::SELECT | Privs::UPDATE, &alice_in_bob),
            Privs::SELECT | Privs::UPDATE
        );
        assert_eq!(
            acl.mask_options(Privs::SELECT, &alice_in_bob),
            Privs::SELECT
        );
        assert_eq!(acl.mask_options(Privs::SELECT, &alice), Privs::NONE);
    }

    #[test]
    fn a_new_owner_takes_the_old_owners_items() {
        let mut acl = default_acl(ObjectKind::Table, 10);
        acl.grant(20, 10, Privs::SELECT, false);
        let moved = acl.new_owner(10, 20);
        assert_eq!(moved.texts(&names), ["alice=arwdDxt/alice"]);
    }
}
