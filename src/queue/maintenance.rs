//! Keeping the queue healthy: this process's heartbeat, releasing the jobs of processes that
//! died, and pruning old rows.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::store::Store;

/// A name for this process, unique across restarts and hosts.
pub fn replica_id() -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "repro-gate".into());
    format!(
        "{host}-{}-{:08x}",
        std::process::id(),
        rand::random::<u32>()
    )
}

/// What the maintenance loop does and how often.
#[derive(Clone)]
pub struct Maintenance {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub replica: String,
    /// How often this process beats.
    pub beat: Duration,
    /// A replica silent this long is dead and its running jobs are released (Postgres).
    pub dead_after: Duration,
    /// Done jobs and stored deliveries older than this are deleted.
    pub retention: Duration,
    /// How often pruning runs.
    pub prune_every: Duration,
}

impl Maintenance {
    /// Start-up: record this process, then release whatever dead processes held. On SQLite
    /// that is every running job (one process by definition), so work claimed by a killed
    /// process runs again at once instead of when its lease ends.
    pub async fn start(&self) -> anyhow::Result<usize> {
        let now = self.clock.now_ms();
        self.store.heartbeat(&self.replica, now).await?;
        let released = self
            .store
            .release_orphans(&self.replica, now, ms(self.dead_after))
            .await?;
        if released > 0 {
            tracing::warn!(
                released,
                "jobs held by a process that is gone were released and will run again"
            );
        }
        Ok(released)
    }

    /// Beats, releases and prunes until `stop`; then forgets this process.
    pub async fn run(self, stop: CancellationToken) {
        let mut last_prune: Option<i64> = None;
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = tokio::time::sleep(self.beat) => {}
            }
            let now = self.clock.now_ms();
            if let Err(e) = self.store.heartbeat(&self.replica, now).await {
                tracing::warn!(error = %format!("{e:#}"), "heartbeat failed");
                continue;
            }
            match self
                .store
                .release_orphans(&self.replica, now, ms(self.dead_after))
                .await
            {
                Ok(0) => {}
                Ok(n) => tracing::warn!(
                    released = n,
                    "a replica stopped beating; its running jobs were released"
                ),
                Err(e) => {
                    tracing::warn!(error = %format!("{e:#}"), "releasing dead replicas' jobs failed")
                }
            }
            if last_prune.is_none_or(|t| now - t >= ms(self.prune_every)) {
                last_prune = Some(now);
                match self.store.prune(now - ms(self.retention)).await {
                    Ok((0, 0)) => {}
                    Ok((jobs, deliveries)) => {
                        tracing::info!(jobs, deliveries, "pruned done jobs and old deliveries")
                    }
                    Err(e) => tracing::warn!(error = %format!("{e:#}"), "pruning failed"),
                }
            }
        }
    }

    /// A clean stop: other replicas need not wait for this one's beat to lapse.
    pub async fn stop(&self) {
        if let Err(e) = self.store.forget_replica(&self.replica).await {
            tracing::warn!(error = %format!("{e:#}"), "could not remove this replica's row");
        }
    }
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX / 4)
}
