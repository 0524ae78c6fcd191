//! Who may connect: roles with their password secrets, and the server's side of
//! PostgreSQL's SCRAM-SHA-256 (RFC 5802 / 7677, as PostgreSQL speaks it) and MD5
//! password exchanges.
//!
//! A password is never stored: a role keeps a SCRAM verifier (salt, iteration count,
//! StoredKey, ServerKey — what PostgreSQL 15's `pg_authid.rolpassword` holds under its
//! default `password_encryption = scram-sha-256`). `--auth trust` (the default,
//! loopback only) lets any user name in as a superuser, as before roles existed;
//! `scram-sha-256` and `md5` need a role with LOGIN and a password. Under `md5` a role
//! whose secret is a SCRAM verifier authenticates by SCRAM, as PostgreSQL 15 does (it
//! runs the MD5 exchange only for MD5 secrets, which kiln never stores), so both
//! methods run the same exchange. A name that is no role gets the same
//! exchange against a random verifier and fails the same way, so the answer does not
//! tell which names exist (PostgreSQL's mock authentication). The channel binding is
//! `n` or `y` (no `tls-server-end-point` yet); passwords are not SASLprep-normalized
//! (ASCII passwords, the common case, are unaffected).

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use hmac::{Hmac, KeyInit, Mac};
use parking_lot::RwLock;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// `--auth`: how clients prove who they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Trust,
    Scram,
    Md5,
}

impl Method {
    pub fn parse(s: &str) -> Option<Method> {
        match s {
            "trust" => Some(Method::Trust),
            "scram-sha-256" => Some(Method::Scram),
            "md5" => Some(Method::Md5),
            _ => None,
        }
    }
}

/// PostgreSQL's iteration count for new SCRAM verifiers.
const SCRAM_ITERATIONS: u32 = 4096;

#[derive(Clone, Debug)]
pub struct ScramVerifier {
    salt: Vec<u8>,
    iterations: u32,
    stored_key: [u8; 32],
    server_key: [u8; 32],
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().into()
}

/// PBKDF2-HMAC-SHA-256 with one 32-byte block (SCRAM's Hi()).
fn salted_password(password: &[u8], salt: &[u8], iterations: u32) -> [u8; 32] {
    let mut u = hmac(password, &[salt, &1u32.to_be_bytes()]);
    let mut out = u;
    for _ in 1..iterations {
        u = hmac(password, &[&u]);
        for (o, b) in out.iter_mut().zip(u) {
            *o ^= b;
        }
    }
    out
}

fn random_bytes(n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    // Without OS randomness, a time-and-counter fallback still differs per call.
    if getrandom::fill(&mut b).is_err() {
        use std::hash::{BuildHasher, Hasher};
        for (i, x) in b.iter_mut().enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            *x = h.finish() as u8;
        }
    }
    b
}

impl ScramVerifier {
    pub fn new(password: &str) -> ScramVerifier {
        ScramVerifier::with_salt(password, random_bytes(16), SCRAM_ITERATIONS)
    }

    fn with_salt(password: &str, salt: Vec<u8>, iterations: u32) -> ScramVerifier {
        let salted = salted_password(password.as_bytes(), &salt, iterations);
        let client_key = hmac(&salted, &[b"Client Key"]);
        ScramVerifier {
            stored_key: Sha256::digest(client_key).into(),
            server_key: hmac(&salted, &[b"Server Key"]),
            salt,
            iterations,
        }
    }
}

impl ScramVerifier {
    /// `(salt, iterations, stored key, server key)`: what the durable mode stores.
    pub fn parts(&self) -> (&[u8], u32, &[u8; 32], &[u8; 32]) {
        (
            &self.salt,
            self.iterations,
            &self.stored_key,
            &self.server_key,
        )
    }

    /// A verifier from [`ScramVerifier::parts`].
    pub fn from_parts(
        salt: Vec<u8>,
        iterations: u32,
        stored_key: [u8; 32],
        server_key: [u8; 32],
    ) -> ScramVerifier {
        ScramVerifier {
            salt,
            iterations,
            stored_key,
            server_key,
        }
    }
}

/// What a role's password becomes.
#[derive(Clone, Debug)]
pub struct Secret {
    pub scram: ScramVerifier,
}

impl Secret {
    pub fn new(password: &str) -> Secret {
        Secret {
            scram: ScramVerifier::new(password),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Role {
    /// pg_authid's oid: 10 for the superuser made at start (PostgreSQL's bootstrap
    /// superuser), [`Roles::next_oid`] for the others.
    pub oid: u32,
    pub name: String,
    pub superuser: bool,
    pub login: bool,
    /// CREATEDB: may create databases.
    pub createdb: bool,
    pub secret: Option<Secret>,
}

/// `GRANT role TO member` (pg_auth_members): `member` has `role`'s privileges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    pub role: u32,
    pub member: u32,
    pub grantor: u32,
    /// WITH ADMIN OPTION: the member may grant the role to others.
    pub admin: bool,
}

/// The roles of the database.
#[derive(Default)]
pub struct Roles {
    map: RwLock<HashMap<String, Role>>,
    next_oid: std::sync::atomic::AtomicU32,
    members: RwLock<Vec<Membership>>,
    /// ALTER ROLE … SET: defaults of a role's new sessions.
    settings: RwLock<Vec<RoleSetting>>,
}

/// (name, value) pairs, in the order they were set.
pub type Settings = Vec<(String, String)>;

/// `ALTER ROLE role [IN DATABASE db] SET name = value` (pg_db_role_setting): settings a
/// role's new sessions start with, in every database (`database` 0) or one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleSetting {
    /// 0: every role (ALTER ROLE ALL).
    pub role: u32,
    /// 0: every database.
    pub database: u32,
    /// (name, value) in the order set.
    pub settings: Vec<(String, String)>,
}

/// The bootstrap superuser's oid (PostgreSQL's BOOTSTRAP_SUPERUSERID).
pub const BOOTSTRAP_SUPERUSER_OID: u32 = 10;

impl Roles {
    /// An oid for a new role.
    pub fn next_oid(&self) -> u32 {
        // Role oids share no namespace with relations here; start where PostgreSQL's
        // user objects start.
        16384
            + self
                .next_oid
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
    /// Every role, by name.
    pub fn all(&self) -> Vec<Role> {
        let mut roles: Vec<Role> = self.map.read().values().cloned().collect();
        roles.sort_by(|a, b| a.name.cmp(&b.name));
        roles
    }
    /// The role with oid `oid`.
    pub fn by_oid(&self, oid: u32) -> Option<Role> {
        self.map.read().values().find(|r| r.oid == oid).cloned()
    }
    pub fn get(&self, name: &str) -> Option<Role> {
        self.map.read().get(name).cloned()
    }
    /// Puts back a role read from a checkpoint, keeping later oids past its own.
    pub fn restore(&self, role: Role) {
        let used = role.oid.saturating_sub(16384).saturating_add(1);
        self.next_oid
            .fetch_max(used, std::sync::atomic::Ordering::Relaxed);
        self.put(&role.name.clone(), Some(role));
    }

    /// Every membership, in the order granted.
    pub fn memberships(&self) -> Vec<Membership> {
        self.members.read().clone()
    }

    /// ALTER ROLE … SET's entries.
    pub fn settings(&self) -> Vec<RoleSetting> {
        self.settings.read().clone()
    }

    /// Replaces ALTER ROLE … SET's entries; returns what they were.
    pub fn set_settings(&self, s: Vec<RoleSetting>) -> Vec<RoleSetting> {
        std::mem::replace(&mut self.settings.write(), s)
    }

    /// The settings a session of role `role` in database `database` starts with: the
    /// ones for every role and database (applied before the database's own), and the
    /// role's, then the role's in that database (after them) — PostgreSQL's order of
    /// precedence.
    pub fn session_settings(&self, role: u32, database: u32) -> (Settings, Settings) {
        let all = self.settings.read();
        let of = |r: u32, d: u32| {
            all.iter()
                .find(|s| s.role == r && s.database == d)
                .map(|s| s.settings.clone())
                .unwrap_or_default()
        };
        let mut after = of(role, 0);
        after.extend(of(role, database));
        (of(0, 0), after)
    }

    /// Replaces the memberships; returns what they were.
    pub fn set_memberships(&self, m: Vec<Membership>) -> Vec<Membership> {
        std::mem::replace(&mut self.members.write(), m)
    }

    /// Whether `member` has the privileges of `role`: it is that role, a superuser, or
    /// a member of it, directly or through other roles (every role inherits).
    pub fn has_privs_of(&self, member: u32, role: u32) -> bool {
        if member == role || self.by_oid(member).is_some_and(|r| r.superuser) {
            return true;
        }
        self.is_member_of(member, role)
    }

    /// Whether `member` is `role` or a member of it (SET ROLE's test), not counting
    /// superuser status.
    pub fn is_member_of(&self, member: u32, role: u32) -> bool {
        let members = self.members.read();
        let mut seen = vec![member];
        let mut next = 0;
        while next < seen.len() {
            let r = seen[next];
            next += 1;
            if r == role {
                return true;
            }
            for m in members.iter().filter(|m| m.member == r) {
                if !seen.contains(&m.role) {
                    seen.push(m.role);
                }
            }
        }
        false
    }

    /// Sets (or with None removes) role `name`; returns what it was.
    pub fn put(&self, name: &str, role: Option<Role>) -> Option<Role> {
        let mut map = self.map.write();
        match role {
            Some(r) => map.insert(name.to_string(), r),
            None => map.remove(name),
        }
    }
}

/// The failure every password exchange ends in, whatever went wrong.
pub fn failed(user: &str) -> Error {
    Error::new(
        "28P01",
        format!("password authentication failed for user \"{user}\""),
    )
    .into_fatal()
}

/// The server's side of one SCRAM-SHA-256 exchange.
pub struct ScramExchange {
    verifier: ScramVerifier,
    /// Whether the user may log in with it (false: a mock exchange that must fail).
    valid: bool,
    client_first_bare: String,
    server_first: String,
    nonce: String,
    /// What the client-final-message's `c=` must be: base64 of the GS2 header and, with
    /// channel binding, the binding data.
    binding: String,
    /// SCRAM-SHA-256-PLUS: a wrong `c=` is a failed channel-binding check.
    plus: bool,
}

/// The channel binding a SCRAM exchange runs with.
#[derive(Clone, Copy)]
pub enum Binding<'a> {
    /// SCRAM-SHA-256 on a connection that offered nothing else.
    None,
    /// SCRAM-SHA-256 chosen where SCRAM-SHA-256-PLUS was offered too.
    Declined,
    /// SCRAM-SHA-256-PLUS with the server's `tls-server-end-point` data.
    Plus(&'a [u8]),
}

impl ScramExchange {
    /// Takes the client-first-message (`n,,n=,r=<nonce>`); returns the exchange and the
    /// server-first-message to send.
    pub fn start(
        role: Option<&Role>,
        client_first: &str,
        binding: Binding,
    ) -> Result<ScramExchange> {
        let malformed = || Error::protocol_violation("malformed SCRAM message").into_fatal();
        let malformed_because = |detail: &str| {
            Error::protocol_violation("malformed SCRAM message")
                .with_detail(detail.to_string())
                .into_fatal()
        };
        // The GS2 header: `n,` `y,` or `p=<type>,`, then the (empty) authorization
        // identity and its comma (PostgreSQL's read_client_first_message).
        let (flag, rest) = if let Some(r) = client_first.strip_prefix("p=") {
            let Binding::Plus(_) = binding else {
                return Err(malformed_because(
                    "The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.",
                ));
            };
            let (kind, rest) = r.split_once(',').ok_or_else(malformed)?;
            if kind != "tls-server-end-point" {
                return Err(Error::protocol_violation(format!(
                    "unsupported SCRAM channel-binding type \"{kind}\""
                ))
                .into_fatal());
            }
            (format!("p={kind},"), rest)
        } else {
            let (flag, rest) = match client_first.split_at_checked(2) {
                Some((f @ ("n," | "y,"), rest)) => (f, rest),
                _ => return Err(malformed()),
            };
            match binding {
                Binding::Plus(_) => {
                    return Err(malformed_because(
                        "The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data.",
                    ));
                }
                Binding::Declined if flag == "y," => {
                    return Err(Error::protocol_violation("SCRAM channel binding negotiation error")
                        .with_detail("The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding.".to_string())
                        .into_fatal());
                }
                _ => {}
            }
            (flag.to_string(), rest)
        };
        let (authzid, bare) = rest.split_once(',').ok_or_else(malformed)?;
        if !authzid.is_empty() {
            return Err(Error::new(
                "0A000",
                "client uses authorization identity, but it is not supported",
            )
            .into_fatal());
        }
        let mut header = format!("{flag},").into_bytes();
        if let Binding::Plus(data) = binding {
            header.extend_from_slice(data);
        }
        let binding_b64 = B64.encode(&header);
        let client_nonce = bare
            .split(',')
            .find_map(|a| a.strip_prefix("r="))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| (0x21..=0x7e).contains(&b) && b != b','))
            .ok_or_else(malformed)?;
        let (verifier, valid) = match role.and_then(|r| r.secret.as_ref().map(|s| (r, s))) {
            Some((r, s)) if r.login => (s.scram.clone(), true),
            _ => (ScramVerifier::new(&B64.encode(random_bytes(16))), false),
        };
        let nonce = format!("{client_nonce}{}", B64.encode(random_bytes(18)));
        let server_first = format!(
            "r={nonce},s={},i={}",
            B64.encode(&verifier.salt),
            verifier.iterations
        );
        Ok(ScramExchange {
            verifier,
            valid,
            client_first_bare: bare.to_string(),
            server_first,
            nonce,
            binding: binding_b64,
            plus: matches!(binding, Binding::Plus(_)),
        })
    }

    pub fn server_first(&self) -> &str {
        &self.server_first
    }

    /// Checks the client-final-message (`c=…,r=…,p=<proof>`); returns the
    /// server-final-message (`v=<signature>`), or the failure.
    pub fn finish(&self, client_final: &str, user: &str) -> Result<String> {
        let malformed = || Error::protocol_violation("malformed SCRAM message").into_fatal();
        let (without_proof, proof) = client_final.rsplit_once(",p=").ok_or_else(malformed)?;
        let nonce = without_proof
            .split(',')
            .find_map(|a| a.strip_prefix("r="))
            .ok_or_else(malformed)?;
        let binding = without_proof
            .split(',')
            .find_map(|a| a.strip_prefix("c="))
            .ok_or_else(malformed)?;
        // The GS2 header again ("biws" is base64 of "n,,"), with the channel's binding
        // data under SCRAM-SHA-256-PLUS.
        if binding != self.binding {
            if self.plus {
                return Err(
                    Error::protocol_violation("SCRAM channel binding check failed").into_fatal(),
                );
            }
            return Err(failed(user));
        }
        if nonce != self.nonce {
            return Err(failed(user));
        }
        let proof = B64.decode(proof).map_err(|_| malformed())?;
        if proof.len() != 32 {
            return Err(failed(user));
        }
        let auth_message = format!(
            "{},{},{}",
            self.client_first_bare, self.server_first, without_proof
        );
        let signature = hmac(&self.verifier.stored_key, &[auth_message.as_bytes()]);
        let client_key: Vec<u8> = proof.iter().zip(signature).map(|(p, s)| p ^ s).collect();
        let stored: [u8; 32] = Sha256::digest(&client_key).into();
        if !self.valid || stored != self.verifier.stored_key {
            return Err(failed(user));
        }
        let server_signature = hmac(&self.verifier.server_key, &[auth_message.as_bytes()]);
        Ok(format!("v={}", B64.encode(server_signature)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677's SCRAM-SHA-256 example: user "user", password "pencil".
    #[test]
    fn the_rfc_7677_exchange_verifies() {
        let salt = B64.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
        let verifier = ScramVerifier::with_salt("pencil", salt, 4096);
        let role = Role {
            oid: 16384,
            name: "user".into(),
            superuser: false,
            login: true,
            createdb: false,
            secret: Some(Secret { scram: verifier }),
        };
        let mut ex = ScramExchange::start(
            Some(&role),
            "n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
            Binding::None,
        )
        .unwrap();
        // The RFC's server nonce, in place of a random one.
        ex.nonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0".into();
        ex.server_first = format!("r={},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", ex.nonce);
        let server_final = ex
            .finish(
                "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
                "user",
            )
            .unwrap();
        assert_eq!(
            server_final,
            "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
        );
        let wrong = ex.finish(
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
            "user",
        );
        assert_eq!(wrong.unwrap_err().code, "28P01");
    }

    /// SCRAM-SHA-256-PLUS: the client-final-message must carry the channel's binding
    /// data; the same exchange with another channel's data fails the check (08P01).
    #[test]
    fn channel_binding_is_checked() {
        let role = Role {
            oid: 16384,
            name: "u".into(),
            superuser: false,
            login: true,
            createdb: false,
            secret: Some(Secret {
                scram: ScramVerifier::with_salt("pw", b"salty salt".to_vec(), 4096),
            }),
        };
        let end_point = [7u8; 32];
        let first = "p=tls-server-end-point,,n=,r=clientnonce";
        let finish = |data: &[u8]| {
            let ex = ScramExchange::start(Some(&role), first, Binding::Plus(&end_point)).unwrap();
            let mut header = b"p=tls-server-end-point,,".to_vec();
            header.extend_from_slice(data);
            let without_proof = format!("c={},r={}", B64.encode(&header), ex.nonce);
            let auth_message = format!("n=,r=clientnonce,{},{without_proof}", ex.server_first);
            let salted = salted_password(b"pw", b"salty salt", 4096);
            let client_key = hmac(&salted, &[b"Client Key"]);
            let stored: [u8; 32] = Sha256::digest(client_key).into();
            let signature = hmac(&stored, &[auth_message.as_bytes()]);
            let proof: Vec<u8> = client_key
                .iter()
                .zip(signature)
                .map(|(k, s)| k ^ s)
                .collect();
            ex.finish(&format!("{without_proof},p={}", B64.encode(proof)), "u")
        };
        assert!(finish(&end_point).is_ok());
        assert_eq!(finish(&[8u8; 32]).unwrap_err().code, "08P01");
        // A client that saw the PLUS offer but claims the server has no binding.
        let e = ScramExchange::start(Some(&role), "y,,n=,r=x", Binding::Declined).err();
        assert_eq!(e.map(|e| e.code), Some("08P01"));
        // Binding data under plain SCRAM-SHA-256.
        let e = ScramExchange::start(Some(&role), first, Binding::None).err();
        assert_eq!(e.map(|e| e.code), Some("08P01"));
    }
}
