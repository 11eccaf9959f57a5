//! The nightly file (docs/history.md): a scheduling pass finds each repository whose `history.schedule`
//! came due since its last publish and queues one publish job for that slot (a unique key: once
//! per repository and slot, however many replicas run the pass).

use crate::core::config;
use crate::github::types::RepoName;
use crate::history::publish::{PublishError, publish as publish_file};
use crate::queue::Task;

use super::JobError;
use super::context::{Services, gh, store_err};

/// Most repositories one pass looks at.
const MAX_REPOSITORIES: usize = 5_000;

/// When a schedule is next due after `after_ms` (UTC), if it ever is.
pub fn next_due(schedule: &str, after_ms: i64) -> Option<i64> {
    let cron = config::cron(schedule).ok()?;
    let after = chrono::DateTime::from_timestamp_millis(after_ms)?;
    cron.find_next_occurrence(&after, false)
        .ok()
        .map(|t| t.timestamp_millis())
}

pub async fn schedule(svc: &Services) -> Result<(), JobError> {
    let now = svc.clock.now_ms();
    let repos = svc.store.history_repositories().await.map_err(store_err)?;
    let mut queued = 0;
    for (name, inst) in repos.into_iter().take(MAX_REPOSITORIES) {
        let Some(repo) = RepoName::parse(&name) else {
            continue;
        };
        let inst = match inst {
            Some(i) => i,
            // Recorded by uploads or imports only: the App's installation is asked for (and
            // remembered for an hour: this pass runs every few minutes).
            None => match svc.installation_of(&repo).await {
                Ok(i) => i,
                Err(e) => {
                    tracing::debug!(repo = %repo, error = %e, "no installation for a repository with history");
                    continue;
                }
            },
        };
        let Some(last) = svc.store.last_publish(&name).await.map_err(store_err)? else {
            // First sight: the first publish is at the next slot, not now.
            svc.store
                .set_last_publish(&name, now)
                .await
                .map_err(store_err)?;
            continue;
        };
        let (cfg, _) = match svc.repo_config(inst, &repo).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(repo = %repo, error = %e, "config unreadable; publish skipped this pass");
                continue;
            }
        };
        if !cfg.history.enabled {
            continue;
        }
        let Some(due) = next_due(&cfg.history.schedule, last) else {
            continue;
        };
        if due > now {
            continue;
        }
        let fresh = svc
            .queue
            .submit(
                &Task::HistoryPublish {
                    installation: inst,
                    repo: name.clone(),
                    due_ms: due,
                },
                Some(format!("history-publish:{name}@{due}")),
                std::time::Duration::ZERO,
            )
            .await
            .map_err(store_err)?;
        queued += usize::from(fresh);
    }
    tracing::debug!(queued, "history schedule pass done");
    Ok(())
}

pub async fn publish(svc: &Services, inst: i64, name: &str, due_ms: i64) -> Result<(), JobError> {
    let repo = RepoName::parse(name).ok_or_else(|| {
        JobError::Permanent(anyhow::anyhow!(
            "repository name {name:?} is not owner/name"
        ))
    })?;
    match publish_file(&svc.github, &svc.store, inst, &repo).await {
        Ok(out) => {
            tracing::info!(repo = %repo, status = ?out.status, changes = out.changes.len(), pull_request = ?out.pull_request, "reliability file published")
        }
        Err(PublishError::GitHub(e)) => return Err(gh(e)),
        Err(PublishError::Store(e)) => return Err(store_err(e)),
        // The file on the default branch does not parse: nothing to build on until a person
        // mends it, so this slot is done (a retry would fail the same way).
        Err(e @ PublishError::Existing(_)) => {
            tracing::warn!(repo = %repo, error = %e, "the reliability file was not recomputed")
        }
    }
    svc.store
        .set_last_publish(name, svc.clock.now_ms().max(due_ms))
        .await
        .map_err(store_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_slot_of_a_schedule() {
        // 2026-12-01T02:00:00Z → the 03:00 slot the same day.
        let t = chrono::DateTime::parse_from_rfc3339("2026-12-01T02:00:00Z")
            .unwrap()
            .timestamp_millis();
        let due = next_due("0 3 * * *", t).unwrap();
        assert_eq!(due - t, 3_600_000);
        // Exactly at a slot: the next one.
        assert_eq!(next_due("0 3 * * *", due).unwrap() - due, 24 * 3_600_000);
        assert_eq!(next_due("not cron", t), None);
    }
}
