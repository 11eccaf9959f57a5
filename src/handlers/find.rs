//! Found in the PR's tests (docs/verification.md#found-in-the-prs-tests) around the pure core
//! (`core::verify::find`): where the search stands for a PR's head with no claim (read, no
//! writes), starting its find round and its candidates' verifications, reading a find run's
//! report into one result per test, and recording a verdict without a candidate once.

use crate::core::evidence::EvidenceKind;
use crate::core::verify::find::{self, FindView, SideResult};
use crate::core::verify::{self, Status};
use crate::store::SessionRow;

use super::JobError;
use super::context::{Services, store_err};
use super::rerun::{Start, Started, StartedBy, VerifyPlan};
use super::verdict::view_of;
use super::verify::Ask;

/// Where the search stands for a gated PR whose description names no runnable claim.
pub async fn status(svc: &Services, a: &Ask<'_>) -> Result<Status, JobError> {
    let v = &a.config.verify;
    let traced = a
        .evidence
        .evidence
        .iter()
        .any(|e| e.kind == EvidenceKind::Trace);
    if !v.discover || traced {
        return Ok(Status::Inapplicable);
    }
    // Test files laid over the merge base, and Rust sources whose test modules each side
    // runs in its own copy.
    let Ok(tests) = verify::test_files_for_base(a.files) else {
        return Ok(Status::Inapplicable);
    };
    // The diff's declared tests, read once: the sources to run and the round's table.
    let declared = find::declared_in_diff(a.files);
    let sources = find::sources_to_run(&declared);
    if tests.is_empty() && sources.is_empty() {
        return Ok(Status::Inapplicable);
    }
    let workflow = &a.config.rerun.workflow;
    let (_, inputs) = svc.workflow_inputs(a.inst, a.repo, workflow).await?;
    let Some(inputs) = inputs else {
        return Ok(Status::Inapplicable);
    };
    let takes_all = ["side", "tests_from", "tests"]
        .iter()
        .all(|n| inputs.iter().any(|i| i == n));
    if !takes_all || !svc.workflow_finds(a.inst, a.repo, workflow).await? {
        return Ok(Status::NoFindMode {
            workflow: workflow.clone(),
        });
    }
    let repo = a.repo.to_string();
    let row = svc
        .store
        .verify_session(&repo, a.pr.number, &a.pr.head_sha, find::KEY)
        .await
        .map_err(store_err)?;
    let Some((row, session)) = row.and_then(|r| view_of(&r).map(|s| (r, s))) else {
        // A fork's code runs on this repository's runners only once a writer asks.
        if a.pr.fork {
            return Ok(Status::FindAwaitingWriter { tests, sources });
        }
        return Ok(Status::ToFind { tests, sources });
    };
    let mut view = FindView::new(session, found_of(&row, &declared), v.discover_max);
    for c in &mut view.candidates {
        c.session = svc
            .store
            .verify_session(&repo, a.pr.number, &a.pr.head_sha, &c.claim.key())
            .await
            .map_err(store_err)?
            .as_ref()
            .and_then(view_of);
    }
    Ok(Status::Finding(Box::new(view)))
}

/// Each test of the find round, once both sides' results are in.
fn found_of(row: &SessionRow, declared: &[(String, bool)]) -> Option<Vec<verify::discover::Found>> {
    let side = |name: &str| -> Option<Vec<SideResult>> {
        let s = row.sides.iter().find(|s| s.side == name)?;
        s.count?;
        Some(
            s.found
                .as_deref()
                .and_then(|j| serde_json::from_str(j).ok())
                .unwrap_or_default(),
        )
    };
    let (head, base) = (side("branch")?, side("base")?);
    Some(find::combine(declared, &head, &base))
}

/// Starts the find round of the PR's head (one session per head: a retry carries it on).
/// `by`: the writer whose `/repro verify` started it (a fork's PR), else an automatic start.
/// Its candidates are then verified without asking again: the writer let this head's tests run.
pub async fn start(
    svc: &Services,
    a: &Ask<'_>,
    tests: &[String],
    sources: &[String],
    by: Option<&str>,
) -> Result<Started, JobError> {
    let (repo, pr) = (a.repo, a.pr);
    let session = super::verify::session_id(
        svc.github.session_key(),
        &format!("{repo}#{}:verify:{}:{}", pr.number, pr.head_sha, find::KEY),
    );
    let claim = find::claim_for("");
    let start = Start {
        inst: a.inst,
        repo,
        pr: pr.number,
        head_sha: &pr.head_sha,
        base_ref: &pr.base_ref,
        test: "",
        runs: 1,
        trigger: match by {
            Some(login) => StartedBy::Command(login),
            None => StartedBy::Auto(crate::core::tier::Standing::Unlisted),
        },
        session,
        timeout_minutes: a.config.verify.timeout_minutes,
        verify: Some(VerifyPlan {
            claim: &claim,
            tests,
            command: None,
            seed_env: &a.config.verify.seed_env,
            find: true,
            sources,
        }),
    };
    super::rerun::start(svc, a.config, start).await
}

/// Carries the search on: starts the candidates not started yet (all at once), and records a
/// verdict reached without a candidate (once: the audit log and the metric).
pub async fn advance(svc: &Services, a: &Ask<'_>, view: &FindView) -> Result<bool, JobError> {
    let mut started = false;
    for claim in view.to_start() {
        super::verify::start(svc, a, claim, &view.session.tests, None).await?;
        started = true;
    }
    if view.candidates.is_empty()
        && let Some(outcome) = view.outcome()
    {
        super::verdict::record(svc, &view.session.id, &outcome, "found in the PR's tests").await?;
    }
    Ok(started)
}
