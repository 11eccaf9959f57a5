//! Scheduled work: a task submitted once per time slot, however many replicas run. The unique
//! key names the slot, so every replica may try and the queue keeps one.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{Queue, Task};
use crate::clock::Clock;

/// Submits `task` now (keyed by the minute, so replicas starting together run it once) and then
/// once per `every` slot until `stop`.
pub async fn periodically(
    queue: Queue,
    clock: Arc<dyn Clock>,
    task: Task,
    every: Duration,
    stop: CancellationToken,
) {
    let name = task.kind();
    let every_ms = i64::try_from(every.as_millis()).unwrap_or(i64::MAX).max(1);
    let start_key = format!("{name}@start:{}", clock.now_ms() / 60_000);
    submit(&queue, &task, start_key).await;
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
        let key = format!("{name}@{}", clock.now_ms() / every_ms);
        submit(&queue, &task, key).await;
    }
}

async fn submit(queue: &Queue, task: &Task, key: String) {
    match queue.submit(task, Some(key.clone()), Duration::ZERO).await {
        Ok(true) => tracing::debug!(key, "scheduled work queued"),
        Ok(false) => tracing::debug!(key, "scheduled work already queued by another replica"),
        Err(e) => tracing::warn!(key, error = %format!("{e:#}"), "could not queue scheduled work"),
    }
}
