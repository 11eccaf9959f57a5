//! The reproduction gate for one PR: read live state, classify, check the evidence, label,
//! and write the one `repro-gate` check run on the current head SHA.

use crate::core::classify::{Classification, classify};
use crate::core::config::{ConfigError, RepoConfig};
use crate::core::evidence::{EvidenceVerdict, check_pr};
use crate::core::render::{self, CHECK_NAME};
use crate::core::tier_changes::{self, TierChanges};
use crate::core::verdict::{
    Applicable, Conclusion, Decision, GateInput, Waiver, WaiverKind, applicable, decide,
};
use crate::core::verify;
use crate::github::GitHubError;
use crate::github::types::{CheckAction, CheckRunWrite, PullRequest, RepoName};
use crate::store::ms_to_rfc3339;

use super::JobError;
use super::context::{Services, gh, store_err};

/// Label colour and description when the label is created on first use.
const LABEL_COLOR: &str = "d93f0b";
const LABEL_DESCRIPTION: &str = "Touches concurrency code: needs a deterministic reproduction";

/// Everything the decision was made from.
pub struct Gate {
    pub pr: PullRequest,
    pub config: RepoConfig,
    pub config_error: Option<ConfigError>,
    pub classification: Classification,
    pub evidence: EvidenceVerdict,
    pub override_: Option<Waiver>,
    pub exemption: Option<Waiver>,
    pub earlier_overrides: Vec<Waiver>,
    pub labeled: bool,
    /// Where verification (docs/verification.md) stands for this head.
    pub verification: verify::Status,
    pub files: Vec<crate::core::classify::diff::FileChange>,
    /// What the PR does to the tiers of the reliability file.
    pub tiers: TierChanges,
    /// Who approved those tiers for this head SHA.
    pub tiers_approved_by: Option<String>,
}

impl Gate {
    pub fn input(&self) -> GateInput<'_> {
        GateInput {
            classification: &self.classification,
            labeled: self.labeled,
            evidence: &self.evidence,
            override_: self.override_.as_ref(),
            exemption: self.exemption.as_ref(),
            earlier_overrides: &self.earlier_overrides,
            config_error: self.config_error.as_ref(),
            label: &self.config.label,
            verification: &self.verification,
            verify_mode: self.config.verify.mode,
            verify_timeout_minutes: self.config.verify.timeout_minutes,
            workflow: &self.config.rerun.workflow,
            config_source: &self.config.source,
            tiers: &self.tiers,
            tiers_approved_by: self.tiers_approved_by.as_deref(),
            reliability_file: &self.config.reliability_file,
        }
    }

    pub fn decision(&self) -> Decision {
        decide(&self.input())
    }
}

/// Reads everything live and decides, writing nothing. `None` when the PR is gone or closed.
pub async fn assess(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    number: u64,
) -> Result<Option<Gate>, JobError> {
    assess_with(svc, inst, repo, number, None).await
}

/// [`assess`], with the PR a fresh webhook payload carries standing in for reading it.
pub async fn assess_with(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    number: u64,
    given: Option<PullRequest>,
) -> Result<Option<Gate>, JobError> {
    let pr = match given {
        Some(pr) => pr,
        None => match svc.github.pull_request(inst, repo, number).await {
            Ok(pr) => pr,
            Err(GitHubError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(gh(e)),
        },
    };
    let (config, config_error) = svc.repo_config(inst, repo).await?;
    let files = svc
        .github
        .pull_request_files(inst, repo, number)
        .await
        .map_err(gh)?;
    // Judgement is CPU work over text anyone can write: off the async threads.
    let (classification, evidence, config, files) = {
        let (title, body) = (pr.title.clone(), pr.body.clone());
        tokio::task::spawn_blocking(move || {
            let classification = classify(&files, &config);
            let mut evidence = check_pr(Some(&title), &body, Some(&files));
            verify::trace::cross_check(&mut evidence, &files, config.verify.trace);
            (classification, evidence, config, files)
        })
        .await
        .map_err(|e| JobError::Transient(anyhow::anyhow!("judging the PR: {e}")))?
    };
    let waivers = svc
        .store
        .waivers(&repo.to_string(), number as i64)
        .await
        .map_err(store_err)?;
    let recorded: Vec<Waiver> = waivers
        .iter()
        .filter_map(|w| {
            Some(Waiver {
                kind: WaiverKind::parse(&w.kind)?,
                by: w.by_login.clone(),
                reason: w.reason.clone(),
                at: ms_to_rfc3339(w.at_ms),
                head_sha: w.head_sha.clone(),
            })
        })
        .collect();
    let Applicable {
        override_,
        exemption,
        earlier_overrides,
    } = applicable(&recorded, &pr.head_sha);
    let labeled = pr.labels.iter().any(|l| l == &config.label);
    let tiers = tier_changes_of(svc, inst, repo, &pr, &config, &files).await?;
    let tiers_approved_by = if tiers.needs_approval() {
        svc.store
            .tier_approval(&repo.to_string(), number as i64, &pr.head_sha)
            .await
            .map_err(store_err)?
    } else {
        None
    };
    let mut gate = Gate {
        pr,
        config,
        config_error,
        classification,
        evidence,
        override_,
        exemption,
        earlier_overrides,
        labeled,
        verification: verify::Status::Inapplicable,
        files,
        tiers,
        tiers_approved_by,
    };
    let waived = gate.override_.is_some() || gate.exemption.is_some();
    let gated = (gate.classification.concurrency || gate.labeled) && !waived;
    gate.verification = match super::verify::status(svc, &gate.ask(inst, repo), gated).await? {
        Some(status) => status,
        None => super::find::status(svc, &gate.ask(inst, repo)).await?,
    };
    Ok(Some(gate))
}

/// What the PR does to the tiers: nothing unless its diff touches the reliability file; then
/// the file on the merge base (the tiers `repro-gate test` reads on a PR) against the head's.
async fn tier_changes_of(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    pr: &PullRequest,
    config: &RepoConfig,
    files: &[crate::core::classify::diff::FileChange],
) -> Result<TierChanges, JobError> {
    let path = config.reliability_file.as_str();
    let touched = files
        .iter()
        .any(|f| f.path == path || f.previous_path.as_deref() == Some(path));
    if !touched {
        return Ok(TierChanges::default());
    }
    let base = match svc
        .github
        .merge_base(inst, repo, &pr.base_ref, &pr.head_sha)
        .await
    {
        Ok(sha) => sha,
        Err(GitHubError::NotFound { .. }) => pr.base_ref.clone(),
        Err(e) => return Err(gh(e)),
    };
    let base_text = svc
        .github
        .file_at(inst, repo, path, &base)
        .await
        .map_err(gh)?
        .map(|(t, _)| t);
    let head_text = svc
        .github
        .file_at(inst, repo, path, &pr.head_sha)
        .await
        .map_err(gh)?
        .map(|(t, _)| t);
    tokio::task::spawn_blocking(move || {
        tier_changes::compare(base_text.as_deref(), head_text.as_deref())
    })
    .await
    .map_err(|e| JobError::Transient(anyhow::anyhow!("comparing the tiers: {e}")))
}

impl Gate {
    /// What verification reads of this gate.
    pub fn ask<'a>(&'a self, inst: i64, repo: &'a RepoName) -> super::verify::Ask<'a> {
        super::verify::Ask {
            inst,
            repo,
            pr: &self.pr,
            config: &self.config,
            evidence: &self.evidence,
            files: &self.files,
        }
    }

    /// Starts the verification the gate calls for (once per head and claim; `by`: a writer's
    /// `/repro verify`), then reads where it stands.
    pub async fn start_verification(
        &mut self,
        svc: &Services,
        inst: i64,
        repo: &RepoName,
        claim: &verify::Claim,
        tests: &[String],
        by: Option<(&str, u64)>,
    ) -> Result<(), JobError> {
        let started = super::verify::start(svc, &self.ask(inst, repo), claim, tests, by).await?;
        self.verification = match started {
            super::rerun::Started::NoWorkflow(_) => verify::Status::NotInstalled {
                workflow: self.config.rerun.workflow.clone(),
            },
            super::rerun::Started::New(id) | super::rerun::Started::Existing(id) => svc
                .store
                .session(&id)
                .await
                .map_err(store_err)?
                .as_ref()
                .and_then(super::verdict::view_of)
                .map(|v| verify::Status::Session(Box::new(v)))
                .unwrap_or(verify::Status::Inapplicable),
        };
        Ok(())
    }
}

/// Evaluates a PR (read live) and writes its label and check run.
pub async fn evaluate(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    number: u64,
) -> Result<(), JobError> {
    evaluate_with(svc, inst, repo, number, None).await
}

/// [`evaluate`], with the PR of a fresh webhook payload (`None`: read it live).
pub async fn evaluate_with(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    number: u64,
    given: Option<PullRequest>,
) -> Result<(), JobError> {
    let Some(mut gate) = assess_with(svc, inst, repo, number, given).await? else {
        tracing::info!(pr = number, "pull request not found; nothing to evaluate");
        return Ok(());
    };
    if gate.pr.state != "open" {
        tracing::info!(pr = number, state = %gate.pr.state, "pull request not open; not evaluated");
        return Ok(());
    }
    svc.store
        .record_head(
            &repo.to_string(),
            number as i64,
            &gate.pr.head_sha,
            gate.pr.updated_at_ms.unwrap_or_else(|| svc.clock.now_ms()),
        )
        .await
        .map_err(store_err)?;
    match gate.verification.clone() {
        verify::Status::ToStart { claim, tests } => {
            gate.start_verification(svc, inst, repo, &claim, &tests, None)
                .await?;
        }
        verify::Status::ToFind { tests, sources } => {
            super::find::start(svc, &gate.ask(inst, repo), &tests, &sources, None).await?;
            gate.verification = super::find::status(svc, &gate.ask(inst, repo)).await?;
            if let verify::Status::Finding(view) = &gate.verification {
                super::find::advance(svc, &gate.ask(inst, repo), view).await?;
            }
        }
        verify::Status::Finding(view) => {
            let started = super::find::advance(svc, &gate.ask(inst, repo), &view).await?;
            if started {
                gate.verification = super::find::status(svc, &gate.ask(inst, repo)).await?;
            }
        }
        _ => {}
    }
    write(svc, inst, repo, &gate).await
}

/// Writes the gate's label and check run.
pub async fn write(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    gate: &Gate,
) -> Result<(), JobError> {
    let number = gate.pr.number;
    let decision = gate.decision();
    // The label is added when the code touches concurrency; it is never removed by the bot.
    if gate.classification.concurrency && !gate.labeled && gate.exemption.is_none() {
        let label = gate.config.label.as_str();
        if !svc.label_exists(inst, repo, label).await? {
            svc.github
                .create_label(inst, repo, label, LABEL_COLOR, LABEL_DESCRIPTION)
                .await
                .map_err(gh)?;
            svc.label_created(repo, label);
        }
        svc.github
            .add_labels(inst, repo, number, &[label])
            .await
            .map_err(gh)?;
    }
    let text = render::check_run(&gate.input(), &decision);
    let run = gate_check_run(
        &gate.pr.head_sha,
        decision.conclusion,
        text.title,
        text.summary,
    );
    svc.write_check_run(inst, repo, &run).await?;
    if let Some(outcome) = decision.basis.outcome() {
        let now = svc.clock.now_ms();
        svc.store
            .record_gate_outcome(
                &repo.to_string(),
                number as i64,
                &gate.pr.head_sha,
                outcome,
                now,
            )
            .await
            .map_err(JobError::Transient)?;
    }
    tracing::info!(pr = number, head_sha = %gate.pr.head_sha, conclusion = decision.conclusion.as_str(), basis = ?decision.basis, "gate evaluated");
    Ok(())
}

/// The `repro-gate` check run for a SHA, with its Re-check button (`in_progress` while the
/// conclusion is pending).
pub fn gate_check_run(
    head_sha: &str,
    conclusion: Conclusion,
    title: String,
    summary: String,
) -> CheckRunWrite {
    CheckRunWrite {
        name: CHECK_NAME.into(),
        head_sha: head_sha.to_string(),
        conclusion: (conclusion != Conclusion::Pending).then(|| conclusion.as_str().to_string()),
        title,
        summary,
        text: None,
        actions: vec![recheck_action()],
    }
}

fn recheck_action() -> CheckAction {
    CheckAction {
        label: "Re-check".into(),
        description: "Evaluate the PR description again".into(),
        identifier: "recheck".into(),
    }
}
