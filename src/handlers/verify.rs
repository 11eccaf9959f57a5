//! Verified reproduction (docs/verification.md) around the pure core: where a PR's head stands (read, no
//! writes), starting its session (the retry protocol's sessions, with a claim), and recording
//! each verdict once: in the audit log and in `repro_gate_verifications_total`.

use crate::core::classify::diff::FileChange;
use crate::core::config::{RepoConfig, VerifyMode};
use crate::core::evidence::EvidenceVerdict;
use crate::core::rerun;
use crate::core::verify::{self, Claim, Status};
use crate::github::types::{PullRequest, RepoName};

use super::JobError;
use super::context::{Services, store_err};
use super::rerun::{Start, Started, StartedBy, VerifyPlan};
use super::verdict::view_of;

/// The inputs the workflow must declare for this claim (beyond a rerun's required ones, docs/rerun.md#installing-the-workflow).
/// `options` carries `rerun.args`, `rerun.env`, `verify.build` and `verify.seed_env` (a
/// workflow of an earlier version takes `seed_env` on its own).
fn needed_inputs(claim: &Claim, config: &RepoConfig, declared: &[String]) -> Vec<&'static str> {
    let mut need = vec!["side", "tests_from", "tests"];
    if claim.seed.is_some() {
        need.push("seed");
    }
    if config.verify.command.is_some() {
        need.push("command");
    }
    let legacy_seed_env = declared.iter().any(|d| d == "seed_env");
    if (!config.verify.seed_env.is_empty() && !legacy_seed_env)
        || !config.rerun.args.is_empty()
        || !config.rerun.env.is_empty()
        || (config.verify.command.is_some() && config.verify.build.is_some())
    {
        need.push("options");
    }
    need
}

/// What the gate needs to know about a PR's verification.
pub struct Ask<'a> {
    pub inst: i64,
    pub repo: &'a RepoName,
    pub pr: &'a PullRequest,
    pub config: &'a RepoConfig,
    pub evidence: &'a EvidenceVerdict,
    pub files: &'a [FileChange],
}

/// Where verification stands for the PR's head: reads the workflow (cached) and the store,
/// writes nothing. `gated`: the PR is under the gate and not waived. None: the description
/// names no claim, and the find round (handlers::find) says where verification stands.
pub async fn status(svc: &Services, a: &Ask<'_>, gated: bool) -> Result<Option<Status>, JobError> {
    let v = &a.config.verify;
    if v.mode == VerifyMode::Off || !gated {
        return Ok(Some(Status::Inapplicable));
    }
    let Some(claim) = verify::claim_of(a.evidence, v.command.is_some()) else {
        return Ok(None);
    };
    claim_status(svc, a, claim).await.map(Some)
}

/// `status` for a PR whose description names a claim.
async fn claim_status(
    svc: &Services,
    a: &Ask<'_>,
    claim: verify::Claim,
) -> Result<Status, JobError> {
    let workflow = &a.config.rerun.workflow;
    let (_, inputs) = svc.workflow_inputs(a.inst, a.repo, workflow).await?;
    let Some(inputs) = inputs else {
        return Ok(Status::NotInstalled {
            workflow: workflow.clone(),
        });
    };
    let missing: Vec<String> = needed_inputs(&claim, a.config, &inputs)
        .into_iter()
        .filter(|n| !inputs.iter().any(|i| i == n))
        .map(str::to_string)
        .collect();
    if !missing.is_empty() {
        return Ok(Status::Outdated {
            workflow: workflow.clone(),
            missing,
        });
    }
    let existing = svc
        .store
        .verify_session(
            &a.repo.to_string(),
            a.pr.number,
            &a.pr.head_sha,
            &claim.key(),
        )
        .await
        .map_err(store_err)?;
    if let Some(view) = existing.as_ref().and_then(view_of) {
        return Ok(Status::Session(Box::new(view)));
    }
    if let Err(reason) = claim.check() {
        return Ok(Status::Unrunnable { claim, reason });
    }
    let tests = match verify::test_files_for_base(a.files) {
        Ok(t) => t,
        Err(reason) => return Ok(Status::Unrunnable { claim, reason }),
    };
    if a.pr.fork {
        return Ok(Status::AwaitingWriter { claim });
    }
    Ok(Status::ToStart { claim, tests })
}

/// Starts a verification session of the PR's head for the claim. `by`: the writer whose
/// `/repro verify` asked (with that comment's id: the same comment retried is the same
/// session), else an automatic start (one per head and claim).
pub async fn start(
    svc: &Services,
    a: &Ask<'_>,
    claim: &Claim,
    tests: &[String],
    by: Option<(&str, u64)>,
) -> Result<Started, JobError> {
    let (repo, pr) = (a.repo, a.pr);
    let session = match by {
        Some((_, comment)) => session_id(
            svc.github.session_key(),
            &format!("{repo}#{}:verify:comment:{comment}", pr.number),
        ),
        None => session_id(
            svc.github.session_key(),
            &format!(
                "{repo}#{}:verify:{}:{}",
                pr.number,
                pr.head_sha,
                claim.key()
            ),
        ),
    };
    let test = claim.test_input();
    let start = Start {
        inst: a.inst,
        repo,
        pr: pr.number,
        head_sha: &pr.head_sha,
        base_ref: &pr.base_ref,
        test: &test,
        runs: a.config.verify.runs,
        trigger: match by {
            Some((login, _)) => StartedBy::Command(login),
            None => StartedBy::Auto(crate::core::tier::Standing::Unlisted),
        },
        session,
        timeout_minutes: a.config.verify.timeout_minutes,
        verify: Some(VerifyPlan {
            claim,
            tests,
            command: a.config.verify.command.as_deref(),
            seed_env: &a.config.verify.seed_env,
            find: false,
            sources: &[],
        }),
    };
    super::rerun::start(svc, a.config, start).await
}

/// A verification session id (`vf-…`, distinct from a rerun's `rr-…`).
pub(super) fn session_id(key: &[u8], seed: &str) -> String {
    let id = rerun::session_id(key, seed);
    format!("vf-{}", id.trim_start_matches("rr-"))
}
