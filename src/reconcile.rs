//! Catching up: GitHub never redelivers a failed webhook by itself. On start and every
//! `REPRO_GATE_RECONCILE_MINUTES`, ask GitHub to redeliver the recent failed deliveries this
//! service has not stored, and evaluate open PRs whose `repro-gate` check run is missing for
//! their head SHA. Work per pass is bounded.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::core::render::CHECK_NAME;
use crate::handlers::{Services, evaluate_pr};

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
    pub evaluated: usize,
}

/// One catch-up pass.
pub async fn run_once(svc: &Services, limits: Limits) -> anyhow::Result<Pass> {
    let mut pass = Pass::default();
    let deliveries = svc.github.hook_deliveries(limits.delivery_pages).await?;
    let mut asked = std::collections::HashSet::new();
    // Newest first: a GUID whose newest attempt succeeded needs nothing.
    let mut settled = std::collections::HashSet::new();
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
        if svc.store.has_delivery(&d.guid).await? {
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
    'installations: for inst in svc.github.installations().await? {
        for repo in svc.github.installation_repositories(inst).await? {
            for (number, sha) in svc.github.open_pulls(inst, &repo).await? {
                if pass.evaluated >= limits.max_evaluations {
                    break 'installations;
                }
                if svc
                    .github
                    .find_check_run(inst, &repo, &sha, CHECK_NAME)
                    .await?
                    .is_some()
                {
                    continue;
                }
                match evaluate_pr(svc, inst, &repo, number).await {
                    Ok(()) => {
                        pass.evaluated += 1;
                        metrics::counter!("repro_gate_reconcile_evaluations_total").increment(1);
                    }
                    Err(e) => {
                        tracing::warn!(%repo, pr = number, error = %e, "catch-up evaluation failed")
                    }
                }
            }
        }
    }
    Ok(pass)
}

/// Runs a pass now and then every `every`, until `stop`.
pub async fn run_loop(svc: Services, every: Duration, stop: CancellationToken) {
    loop {
        match run_once(&svc, Limits::default()).await {
            Ok(p) => {
                metrics::counter!("repro_gate_reconcile_passes_total", "outcome" => "ok")
                    .increment(1);
                tracing::info!(
                    redelivered = p.redelivered,
                    evaluated = p.evaluated,
                    "catch-up pass done"
                );
            }
            Err(e) => {
                metrics::counter!("repro_gate_reconcile_passes_total", "outcome" => "error")
                    .increment(1);
                tracing::warn!(error = %format!("{e:#}"), "catch-up pass failed; will try again");
            }
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
    }
}
