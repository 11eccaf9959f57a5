//! Runs reported as MCP progress notifications (`notifications/progress`) when the request
//! carried a progress token; nothing otherwise.

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::mpsc;

use crate::local::Progress;

/// Hands each run to a task that notifies the client (the runs never wait on the client).
pub struct Notifier {
    tx: Option<mpsc::UnboundedSender<ProgressNotificationParam>>,
    token: Option<ProgressToken>,
}

/// The task sending the notifications: it ends once its `Notifier` is dropped and every
/// notification is sent, so awaiting it before answering keeps progress before the result.
pub type Sent = Option<tokio::task::JoinHandle<()>>;

impl Notifier {
    pub fn new(peer: Peer<RoleServer>, token: Option<ProgressToken>) -> (Notifier, Sent) {
        if token.is_none() {
            return (Notifier { tx: None, token }, None);
        }
        let (tx, mut rx) = mpsc::unbounded_channel::<ProgressNotificationParam>();
        let sent = tokio::spawn(async move {
            while let Some(p) = rx.recv().await {
                if peer.notify_progress(p).await.is_err() {
                    break;
                }
            }
        });
        (
            Notifier {
                tx: Some(tx),
                token,
            },
            Some(sent),
        )
    }
}

impl Progress for Notifier {
    fn ran(&self, done: u32, total: u32, side: &str, failed: Option<bool>) {
        let (Some(tx), Some(token)) = (&self.tx, &self.token) else {
            return;
        };
        let what = match failed {
            Some(true) => "failed",
            Some(false) => "passed",
            None => "no result",
        };
        let p = ProgressNotificationParam::new(token.clone(), f64::from(done))
            .with_total(f64::from(total))
            .with_message(format!("run {done}/{total}: {side} {what}"));
        let _ = tx.send(p);
    }
}
