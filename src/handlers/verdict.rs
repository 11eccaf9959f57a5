//! A verification session's verdict: the session row read as the gate shows it, and the
//! verdict recorded the first time there is one (the audit log, the metric, the session's
//! state). Both the retry protocol's session handling (when a run completes or the time is up)
//! and the verification's start (a refused dispatch) settle a session here.

use crate::core::evidence::EvidenceKind;
use crate::core::rerun::Side;
use crate::core::rerun::verdict::Count;
use crate::core::verify::{Claim, SessionView, SideState, Verdict};
use crate::store::{AuditRow, SessionRow};

use super::JobError;
use super::context::{Services, store_err};

/// The session as the gate shows it; `None` when the row is not a verification.
pub fn view_of(row: &SessionRow) -> Option<SessionView> {
    let v = row.verify.as_ref()?;
    let side = |which: Side| {
        let s = row.sides.iter().find(|s| s.side == which.as_str());
        match s {
            Some(s) if s.count.is_some() => {
                let (failures, runs) = s.count.unwrap_or_default();
                SideState::Done {
                    count: Count { failures, runs },
                    run_url: s.run_url.clone(),
                    detail: crate::core::verify::RunDetail {
                        how: s.how.clone(),
                        no_result: s.no_result_reason.clone(),
                    },
                }
            }
            Some(s) if s.dispatch_error.is_some() => SideState::NotStarted {
                reason: s.dispatch_error.clone().unwrap_or_default(),
            },
            Some(s) => SideState::Waiting {
                run_url: s.run_url.clone(),
            },
            None => SideState::NotStarted {
                reason: "the session has no such side".into(),
            },
        }
    };
    let sha = |which: Side| {
        row.sides
            .iter()
            .find(|s| s.side == which.as_str())
            .map(|s| s.sha.clone())
            .unwrap_or_default()
    };
    Some(SessionView {
        id: row.id.clone(),
        claim: Claim {
            kind: if v.claim_kind == "interleaving" {
                EvidenceKind::Interleaving
            } else {
                EvidenceKind::Seed
            },
            test: v.claim_test.clone(),
            seed: v.seed.clone(),
        },
        head_sha: sha(Side::Branch),
        base_sha: sha(Side::Base),
        runs: row.runs,
        tests: v.tests.clone(),
        branch: side(Side::Branch),
        base: side(Side::Base),
        timed_out: row.state == "timed_out",
        requested_by: (row.trigger_kind == "command").then(|| row.trigger_detail.clone()),
    })
}

fn count_text(side: &SideState) -> String {
    match side {
        SideState::Done { count, .. } => format!("{}/{}", count.failures, count.runs),
        SideState::Waiting { .. } => "no result".into(),
        SideState::NotStarted { .. } => "not started".into(),
    }
}

/// Records the session's verdict the first time there is one: the audit log, the metric, and
/// the session's state. Later calls (a retry, another replica, a late run) change nothing.
pub async fn settle(svc: &Services, row: &SessionRow) -> Result<(), JobError> {
    if row
        .verify
        .as_ref()
        .is_some_and(|v| v.claim_kind == crate::core::verify::find::KEY)
    {
        // A find round has no verdict of its own: the search's is recorded by `record`.
        return Ok(());
    }
    let Some(view) = view_of(row) else {
        return Ok(());
    };
    let Some(outcome) = view.outcome() else {
        return Ok(());
    };
    if !svc
        .store
        .set_verdict(&row.id, outcome.verdict.label())
        .await
        .map_err(store_err)?
    {
        return Ok(());
    }
    if row.state == "running" {
        svc.store
            .set_session_state(&row.id, "finished")
            .await
            .map_err(store_err)?;
    }
    metrics::counter!("repro_gate_verifications_total", "verdict" => outcome.verdict.label())
        .increment(1);
    let mut why = format!(
        "{}: merge base fails {}, head fails {}",
        outcome.verdict.as_str(),
        count_text(&view.base),
        count_text(&view.branch)
    );
    if let Some(r) = &outcome.reason {
        why.push_str("; ");
        why.push_str(r);
    }
    // The runs the verdict was read from: the ones each side is bound to, and no other.
    let bound = |which: Side| {
        row.sides
            .iter()
            .find(|s| s.side == which.as_str())
            .and_then(|s| s.run_id)
            .map_or_else(|| "none".to_string(), |id| id.to_string())
    };
    why.push_str(&format!(
        "; runs: merge base {}, head {}",
        bound(Side::Base),
        bound(Side::Branch)
    ));
    let claim = match (&view.claim.test, &view.claim.seed) {
        (Some(t), Some(s)) => format!("{t} seed {s}"),
        (Some(t), None) => t.clone(),
        (None, Some(s)) => format!("seed {s}"),
        (None, None) => String::new(),
    };
    let audit = AuditRow {
        at: String::new(),
        repository: row.repository.clone(),
        pr: i64::try_from(row.pr_number).unwrap_or(i64::MAX),
        head_sha: row.head_sha.clone(),
        actor: format!("{}[bot]", crate::core::render::CHECK_NAME),
        command: "verify-verdict".into(),
        args: claim,
        accepted: outcome.verdict == Verdict::Verified,
        why,
    };
    svc.store
        .add_audit(&audit, svc.clock.now_ms())
        .await
        .map_err(store_err)?;
    tracing::info!(session = %row.id, pr = row.pr_number, verdict = outcome.verdict.as_str(), "verification verdict");
    Ok(())
}

/// Records the verdict of a search among the PR's tests that found no candidate, once: on its
/// find session, in the audit log (`verify-verdict`, the runs it was read from) and the metric.
pub async fn record(
    svc: &Services,
    session: &str,
    outcome: &crate::core::verify::Outcome,
    what: &str,
) -> Result<(), JobError> {
    let Some(row) = svc.store.session(session).await.map_err(store_err)? else {
        return Ok(());
    };
    if !svc
        .store
        .set_verdict(&row.id, outcome.verdict.label())
        .await
        .map_err(store_err)?
    {
        return Ok(());
    }
    metrics::counter!("repro_gate_verifications_total", "verdict" => outcome.verdict.label())
        .increment(1);
    let run = |which: Side| {
        row.sides
            .iter()
            .find(|s| s.side == which.as_str())
            .and_then(|s| s.run_id)
            .map_or_else(|| "none".to_string(), |id| id.to_string())
    };
    let mut why = format!("{}: no candidate", outcome.verdict.as_str());
    if let Some(r) = &outcome.reason {
        why.push_str("; ");
        why.push_str(r);
    }
    why.push_str(&format!(
        "; runs: merge base {}, head {}",
        run(Side::Base),
        run(Side::Branch)
    ));
    let audit = AuditRow {
        at: String::new(),
        repository: row.repository.clone(),
        pr: i64::try_from(row.pr_number).unwrap_or(i64::MAX),
        head_sha: row.head_sha.clone(),
        actor: format!("{}[bot]", crate::core::render::CHECK_NAME),
        command: "verify-verdict".into(),
        args: what.into(),
        accepted: outcome.verdict == Verdict::Verified,
        why,
    };
    svc.store
        .add_audit(&audit, svc.clock.now_ms())
        .await
        .map_err(store_err)
}
