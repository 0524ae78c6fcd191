//! LISTEN / NOTIFY: channels, who listens on them, and each session's queue of
//! notifications not yet sent to its client.
//!
//! As in PostgreSQL: LISTEN and UNLISTEN take effect when their transaction commits,
//! NOTIFY is delivered when its transaction commits (duplicates within a transaction
//! folded, a rollback sends nothing), a session listening on a channel also hears its
//! own notifications, and a client gets its notifications (NotificationResponse) when
//! its session is not in a transaction block: just before ReadyForQuery, or while it
//! waits idle — the connection polls its queue every `IDLE_POLL` then (only sessions
//! that listen poll).

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use parking_lot::Mutex;

/// How often an idle listening session looks for notifications.
pub const IDLE_POLL: Duration = Duration::from_millis(20);
/// PostgreSQL's limit on a payload (bytes).
pub const PAYLOAD_MAX: usize = 7999;
/// Notifications a session's queue holds at most before the oldest are dropped (a
/// client that never reads must not grow the server without bound).
const QUEUE_MAX: usize = 100_000;

/// A transaction's NOTIFYs (channel, payload), shared by its session and its
/// statements (pg_notify), sent at commit.
pub type PendingNotifies = std::sync::Arc<Mutex<Vec<(String, String)>>>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// The notifying session's process id.
    pub pid: i32,
    pub channel: String,
    pub payload: String,
}

#[derive(Default)]
struct Inner {
    channels: HashMap<String, HashSet<i32>>,
    queues: HashMap<i32, VecDeque<Notification>>,
}

#[derive(Default)]
pub struct Notifier {
    inner: Mutex<Inner>,
}

impl Notifier {
    pub fn listen(&self, pid: i32, channel: &str) {
        let mut inner = self.inner.lock();
        inner
            .channels
            .entry(channel.to_string())
            .or_default()
            .insert(pid);
        inner.queues.entry(pid).or_default();
    }

    /// UNLISTEN channel, or every channel (None).
    pub fn unlisten(&self, pid: i32, channel: Option<&str>) {
        let mut inner = self.inner.lock();
        match channel {
            Some(c) => {
                if let Some(set) = inner.channels.get_mut(c) {
                    set.remove(&pid);
                    if set.is_empty() {
                        inner.channels.remove(c);
                    }
                }
            }
            None => inner.channels.retain(|_, set| {
                set.remove(&pid);
                !set.is_empty()
            }),
        }
    }

    /// A committed transaction's notifications, to every session listening.
    pub fn publish(&self, from: i32, notes: &[(String, String)]) {
        let mut inner = self.inner.lock();
        for (channel, payload) in notes {
            let Some(listeners) = inner.channels.get(channel).cloned() else {
                continue;
            };
            for pid in listeners {
                let queue = inner.queues.entry(pid).or_default();
                if queue.len() >= QUEUE_MAX {
                    queue.pop_front();
                }
                queue.push_back(Notification {
                    pid: from,
                    channel: channel.clone(),
                    payload: payload.clone(),
                });
            }
        }
    }

    /// The notifications waiting for session `pid`.
    pub fn take(&self, pid: i32) -> Vec<Notification> {
        let mut inner = self.inner.lock();
        match inner.queues.get_mut(&pid) {
            Some(q) if !q.is_empty() => q.drain(..).collect(),
            _ => Vec::new(),
        }
    }

    /// Whether session `pid` listens on any channel (or has notifications waiting).
    pub fn is_listening(&self, pid: i32) -> bool {
        let inner = self.inner.lock();
        inner.queues.get(&pid).is_some_and(|q| !q.is_empty())
            || inner.channels.values().any(|set| set.contains(&pid))
    }

    /// Session `pid` ended.
    pub fn forget(&self, pid: i32) {
        self.unlisten(pid, None);
        self.inner.lock().queues.remove(&pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listeners_hear_their_channels_only() {
        let n = Notifier::default();
        n.listen(1, "a");
        n.listen(2, "b");
        n.publish(3, &[("a".into(), "x".into()), ("c".into(), "y".into())]);
        assert_eq!(
            n.take(1),
            vec![Notification {
                pid: 3,
                channel: "a".into(),
                payload: "x".into()
            }]
        );
        assert!(n.take(2).is_empty());
        n.unlisten(1, None);
        n.publish(3, &[("a".into(), "z".into())]);
        assert!(n.take(1).is_empty());
        assert!(n.is_listening(2));
        n.forget(2);
        assert!(!n.is_listening(2));
    }
}
