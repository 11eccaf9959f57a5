//! Catching up: GitHub never redelivers a failed webhook by itself. A catch-up pass (a job,
//! scheduled on start and every `REPRO_GATE_RECONCILE_MINUTES`, once per slot across replicas)
//! asks GitHub to redeliver the recent failed deliveries this service has not stored, and
//! enqueues an evaluation for each open PR whose head has no `repro-gate` check run. It never
//! evaluates a PR itself: evaluations are jobs under the PR's serial key, so one cannot race a
//! delivery of the same PR. Work per pass is bounded.

use std::collections::HashSet;
use std::time::Duration;

use crate::core::render::CHECK_NAME;
use crate::queue::Task;

use super::JobError;
use super::context::{Services, gh, store_err};

/// Bounds on one pass.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub delivery_pages: u32,
    pub max_redeliveries: usize,
    pub max_evaluations: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            delivery_pages: 5,
            max_redeliveries: 100,
            max_evaluations: 200,
        }
    }
}

/// What one pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pass {
    pub redelivered: usize,
    /// Evaluations enqueued.
    pub queued: usize,
}

/// The catch-up job.
pub async fn run(svc: &Services) -> Result<(), JobError> {
    let pass = run_once(svc, Limits::default()).await?;
    metrics::counter!("repro_gate_reconcile_passes_total", "outcome" => "ok").increment(1);
    tracing::info!(
        redelivered = pass.redelivered,
        evaluations_queued = pass.queued,
        "catch-up pass done"
    );
    Ok(())
}

/// One pass.
pub async fn run_once(svc: &Services, limits: Limits) -> Result<Pass, JobError> {
    let mut pass = Pass::default();
    let deliveries = svc
        .github
        .hook_deliveries(limits.delivery_pages)
        .await
        .map_err(gh)?;
    let mut asked = HashSet::new();
    // Newest first: a GUID whose newest attempt succeeded needs nothing.
    let mut settled = HashSet::new();
    for d in &deliveries {
        if pass.redelivered >= limits.max_redeliveries {
            break;
        }
        if !d.failed() {
            settled.insert(d.guid.clone());
            continue;
        }
        if settled.contains(&d.guid) || !asked.insert(d.guid.clone()) {
            continue;
        }
        if svc.store.has_delivery(&d.guid).await.map_err(store_err)? {
            continue;
        }
        match svc.github.redeliver(d.id).await {
            Ok(()) => {
                pass.redelivered += 1;
                metrics::counter!("repro_gate_reconcile_redeliveries_total").increment(1);
                tracing::info!(guid = %d.guid, event = %d.event, "asked GitHub to redeliver a failed delivery");
            }
            Err(e) => tracing::warn!(guid = %d.guid, error = %e, "redelivery request failed"),
        }
    }
    // One key per pass and minute: a retried pass does not queue the same evaluation twice.
    let slot = svc.clock.now_ms() / 60_000;
    'installations: for inst in svc.github.installations().await.map_err(gh)? {
        for repo in svc
            .github
            .installation_repositories(inst)
            .await
            .map_err(gh)?
        {
            for (number, sha) in svc.github.open_pulls(inst, &repo).await.map_err(gh)? {
                if pass.queued >= limits.max_evaluations {
                    break 'installations;
                }
                if svc
                    .github
                    .find_check_run(inst, &repo, &sha, CHECK_NAME)
                    .await
                    .map_err(gh)?
                    .is_some()
                {
                    continue;
                }
                let task = Task::EvaluatePr {
                    installation: inst,
                    repo: repo.to_string(),
                    number,
                };
                let key = format!("catch-up:{repo}#{number}@{sha}@{slot}");
                if svc
                    .queue
                    .submit(&task, Some(key), Duration::ZERO)
                    .await
                    .map_err(store_err)?
                {
                    pass.queued += 1;
                    metrics::counter!("repro_gate_reconcile_evaluations_total").increment(1);
                }
            }
        }
    }
    Ok(pass)
}
