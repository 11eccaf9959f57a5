//! The file out (docs/history.md): recompute a repository's reliability file and, when it differs from the
//! default branch's, push it to one branch and open (or update) one pull request. Nothing is
//! written when the branch and the pull request already say it; nothing is ever merged.

use serde::Serialize;

use crate::core::config::{self, CONFIG_PATH, RepoConfig};
use crate::core::history::file::{pr_body, render};
use crate::core::history::tiers::Change;
use crate::core::reliability::{self, ReliabilityFile};
use crate::github::git_api::FileWrite;
use crate::github::types::RepoName;
use crate::github::{GitHub, GitHubError};
use crate::store::Store;

/// The one branch the file is proposed on.
pub const BRANCH: &str = "repro-gate/test-reliability";
/// The pull request's title.
pub const TITLE: &str = "repro-gate: update the test reliability tiers from CI history";
const COMMIT_MESSAGE: &str = "Update the test reliability tiers from CI history (repro-gate)";

/// What one publish did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// `history.enabled: false`.
    Disabled,
    /// The recomputed file is the default branch's.
    Unchanged,
    /// The branch and the pull request already hold it.
    UpToDate,
    /// The branch was written (and the pull request opened or updated, when configured).
    Published,
}

/// One tier change, for machines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangeOut {
    pub id: String,
    pub from: String,
    pub to: String,
    pub reason: String,
}

impl From<&Change> for ChangeOut {
    fn from(c: &Change) -> Self {
        ChangeOut {
            id: c.id.clone(),
            from: c.from.to_string(),
            to: c.to.to_string(),
            reason: c.reason.clone(),
        }
    }
}

/// The JSON `history publish` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Published {
    pub repository: String,
    pub status: Status,
    pub file: String,
    pub tests: usize,
    pub changes: Vec<ChangeOut>,
    /// The branch written (or already holding the file).
    pub branch: Option<String>,
    pub branch_written: bool,
    pub pull_request: Option<u64>,
    /// `created`, `updated` or `unchanged`.
    pub pull_request_action: Option<&'static str>,
}

/// Why publishing failed.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error(transparent)]
    GitHub(#[from] GitHubError),
    #[error("the reliability file on the default branch cannot be used: {0}")]
    Existing(String),
    #[error(transparent)]
    Store(#[from] anyhow::Error),
}

/// Recomputes and proposes `repo`'s reliability file.
pub async fn publish(
    gh: &GitHub,
    store: &Store,
    inst: i64,
    repo: &RepoName,
) -> Result<Published, PublishError> {
    let default = gh.default_branch(inst, repo).await?;
    let config = read_config(gh, inst, repo, &default).await?;
    let path = config.reliability_file.clone();
    let mut out = Published {
        repository: repo.to_string(),
        status: Status::Disabled,
        file: path.clone(),
        tests: 0,
        changes: Vec::new(),
        branch: None,
        branch_written: false,
        pull_request: None,
        pull_request_action: None,
    };
    if !config.history.enabled {
        return Ok(out);
    }
    let on_default = gh.file_at(inst, repo, &path, &default).await?;
    let existing = match &on_default {
        Some((text, _)) => {
            reliability::parse(text).map_err(|e| PublishError::Existing(e.to_string()))?
        }
        None => ReliabilityFile::default(),
    };
    let built = super::build_from_store(store, &repo.to_string(), &existing).await?;
    let text = render(&built.file);
    out.tests = built.file.tests.len();
    out.changes = built.changes.iter().map(ChangeOut::from).collect();
    if on_default.as_ref().map(|(t, _)| t.as_str()) == Some(text.as_str()) {
        out.status = Status::Unchanged;
        return Ok(out);
    }
    let body = pr_body(&built.changes, &built.file.policy);
    out.branch = Some(BRANCH.to_string());

    let branch_head = gh.branch_head(inst, repo, BRANCH).await?;
    let on_branch = match &branch_head {
        Some(_) => gh.file_at(inst, repo, &path, BRANCH).await?,
        None => None,
    };
    if on_branch.as_ref().map(|(t, _)| t.as_str()) != Some(text.as_str()) {
        // The branch starts again from the default branch's head: the PR's diff is this one
        // file, whatever was proposed before.
        let base_head =
            gh.branch_head(inst, repo, &default)
                .await?
                .ok_or_else(|| GitHubError::NotFound {
                    method: "GET".into(),
                    path: format!("/repos/{repo}/git/ref/heads/{default}"),
                })?;
        gh.set_branch(inst, repo, BRANCH, &base_head, branch_head.is_some())
            .await?;
        let blob = on_default.as_ref().map(|(_, sha)| sha.as_str());
        let file = FileWrite {
            path: &path,
            branch: BRANCH,
            content: &text,
            message: COMMIT_MESSAGE,
            blob_sha: blob,
        };
        gh.put_file(inst, repo, &file).await?;
        out.branch_written = true;
    }
    if config.history.pull_request {
        match gh.open_pull_from(inst, repo, BRANCH, &default).await? {
            Some(pr) => {
                out.pull_request = Some(pr.number);
                if pr.body.trim() != body.trim() || pr.title != TITLE {
                    gh.update_pull(inst, repo, pr.number, TITLE, &body).await?;
                    out.pull_request_action = Some("updated");
                } else {
                    out.pull_request_action = Some("unchanged");
                }
            }
            None => {
                let n = gh
                    .create_pull(inst, repo, TITLE, BRANCH, &default, &body)
                    .await?;
                out.pull_request = Some(n);
                out.pull_request_action = Some("created");
            }
        }
    }
    let wrote = out.branch_written || out.pull_request_action.is_some_and(|a| a != "unchanged");
    out.status = if wrote {
        Status::Published
    } else {
        Status::UpToDate
    };
    super::remember_changes(store, &repo.to_string(), &built).await?;
    let now = chrono::Utc::now().timestamp_millis();
    if wrote {
        let changes: Vec<(String, String)> = built
            .changes
            .iter()
            .map(|c| (c.id.clone(), c.to.as_str().to_string()))
            .collect();
        store
            .log_tier_changes(&repo.to_string(), &changes, now)
            .await?;
    }
    if let Some(n) = out.pull_request {
        store
            .set_reliability_pull(&repo.to_string(), n as i64, now)
            .await?;
    }
    Ok(out)
}

/// The repository's config from its default branch (the defaults when missing or invalid).
async fn read_config(
    gh: &GitHub,
    inst: i64,
    repo: &RepoName,
    default: &str,
) -> Result<RepoConfig, GitHubError> {
    let text = gh.file_at(inst, repo, CONFIG_PATH, default).await?;
    let (config, error) = config::load(text.as_ref().map(|(t, _)| t.as_str()));
    if let Some(e) = error {
        tracing::warn!(repo = %repo, error = %e, "invalid config: the defaults apply");
    }
    Ok(config)
}
