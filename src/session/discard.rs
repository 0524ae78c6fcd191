//! DISCARD and RESET ALL: what a connection pooler sends to hand a session to its next
//! client. DISCARD ALL closes cursors, deallocates prepared statements, resets every
//! setting to the session's start (startup parameters included, as PostgreSQL does),
//! releases session-level advisory locks and forgets currval/lastval; it is refused
//! inside a transaction block (25001). PLANS and TEMP have nothing to forget in kiln (no
//! plan cache, no temporary tables).

use super::{Outcome, Session, TxnStatus};
use crate::error::{Error, Result};
use crate::plan::Discard;
use crate::session::settings::REPORTED;

impl Session {
    /// At commit: LISTEN/UNLISTEN take effect, then the transaction's notifications go
    /// out (each distinct channel and payload once, in order).
    pub(super) fn commit_notifications(&mut self) {
        for (listen, channel) in std::mem::take(&mut self.pending_listen) {
            match (listen, channel) {
                (true, Some(c)) => self.db.notifier.listen(self.pid, &c),
                (true, None) => {}
                (false, c) => self.db.notifier.unlisten(self.pid, c.as_deref()),
            }
        }
        let notes = std::mem::take(&mut *self.pending_notify.lock());
        if notes.is_empty() {
            return;
        }
        let mut seen = std::collections::HashSet::with_capacity(notes.len());
        let distinct: Vec<(String, String)> = notes
            .into_iter()
            .filter(|n| seen.insert(n.clone()))
            .collect();
        self.db.notifier.publish(self.pid, &distinct);
    }

    /// Records the settings as they are now as the session's defaults (after startup).
    pub fn mark_session_defaults(&mut self) {
        self.settings.adopt_as_defaults();
        self.session_defaults = Some(self.settings.clone());
    }

    pub(super) fn discard(&mut self, what: Discard) -> Result<Outcome> {
        let tag = match what {
            Discard::All => {
                if matches!(self.status, TxnStatus::InBlock | TxnStatus::Failed) {
                    return Err(Error::new(
                        "25001",
                        "DISCARD ALL cannot run inside a transaction block",
                    ));
                }
                self.cursors.clear();
                self.prepared.clear();
                // SET SESSION AUTHORIZATION DEFAULT (which resets the role), RESET ALL.
                self.set_session_authorization(None)?;
                self.reset_settings();
                self.db.advisory.release(self.advisory_owner, true);
                self.sequences = Default::default();
                self.db.notifier.unlisten(self.pid, None);
                self.discard_temp();
                "DISCARD ALL"
            }
            Discard::Settings => {
                self.reset_settings();
                "RESET"
            }
            Discard::Plans => "DISCARD PLANS",
            Discard::Sequences => {
                self.sequences = Default::default();
                "DISCARD SEQUENCES"
            }
            Discard::Temp => {
                self.discard_temp();
                "DISCARD TEMP"
            }
        };
        Ok(Outcome::Done { tag: tag.into() })
    }

    /// Every setting back to the session's start; reported ones that change are sent.
    /// RESET ALL leaves SET ROLE and SET SESSION AUTHORIZATION alone (PostgreSQL's
    /// GUC_NO_RESET_ALL); DISCARD ALL resets them first.
    fn reset_settings(&mut self) {
        let Some(mut defaults) = self.session_defaults.clone() else {
            return;
        };
        for key in ["role", "is_superuser", "session_authorization"] {
            if let Some((_, v)) = self.settings.get(key) {
                defaults.set_server_value_owned(key, v.to_string());
            }
        }
        self.replace_settings(defaults);
    }

    /// Puts `new` in place of the settings (a reset, a rollback, SET LOCAL's end): the
    /// reported ones that change are sent, and the session user follows
    /// session_authorization.
    pub(super) fn replace_settings(&mut self, new: super::settings::Settings) {
        for name in REPORTED {
            let before = self.settings.get(name).map(|(_, v)| v.to_string());
            let after = new.get(name).map(|(_, v)| v.to_string());
            if before != after {
                self.changed_settings.push(name.to_string());
            }
        }
        self.settings = new;
        if let Some((_, user)) = self.settings.get("session_authorization") {
            self.user = user.to_string();
        }
    }

    /// Before a SET in the running transaction (PostgreSQL's GUC nesting): the
    /// settings as the transaction began are kept for ROLLBACK, and before the first
    /// SET LOCAL the settings COMMIT will keep. Returns whether to apply it: a local
    /// setting outside a transaction block has no effect (SET LOCAL warns).
    pub(super) fn before_set(&mut self, local: bool, warn: bool) -> bool {
        if !matches!(self.status, TxnStatus::InBlock) {
            if local && warn {
                self.notices.push((
                    "WARNING".into(),
                    "25P01".into(),
                    "SET LOCAL can only be used in transaction blocks".into(),
                ));
            }
            return !local;
        }
        if self.settings_stack.begin.is_none() {
            self.settings_stack.begin = Some(self.settings.clone());
        }
        if local && self.settings_stack.session.is_none() {
            self.settings_stack.session = Some(self.settings.clone());
        }
        true
    }

    /// After a SET that is not local, with SET LOCALs in the transaction: the
    /// settings COMMIT keeps take the new `keys` values too.
    pub(super) fn after_set(&mut self, local: bool, keys: &[&str]) {
        if local {
            return;
        }
        let Some(session) = self.settings_stack.session.as_mut() else {
            return;
        };
        for key in keys {
            if let Some((_, v)) = self.settings.get(key) {
                let v = v.to_string();
                if session.set(key, Some(&v)).is_err() {
                    session.set_server_value_owned(key, v);
                }
            }
        }
    }

    /// The transaction's end for its settings: COMMIT drops its SET LOCALs, ROLLBACK
    /// its SETs.
    pub(super) fn end_settings(&mut self, commit: bool) {
        let stack = std::mem::take(&mut self.settings_stack);
        let restore = if commit { stack.session } else { stack.begin };
        if let Some(mut s) = restore {
            self.settings.keep_placeholders(&mut s);
            self.replace_settings(s);
        }
    }
}
