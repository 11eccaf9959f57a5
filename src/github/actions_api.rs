//! GitHub Actions: a run's artifacts and jobs (the history reads them), workflow dispatches and
//! the merge base (the retry protocol starts with them). Every list is bounded.

use http::Method;
use serde::Deserialize;
use serde_json::json;

use super::api::{decode, encode_path};
use super::types::{RepoName, Truncated};
use super::{As, GitHub, GitHubError};

/// The run a dispatch started, as GitHub answered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchedRun {
    pub id: u64,
    pub html_url: Option<String>,
}

/// An artifact of a run.
#[derive(Clone, Debug, Deserialize)]
pub struct Artifact {
    pub id: u64,
    pub name: String,
    #[serde(default)]
    pub expired: bool,
    #[serde(default)]
    pub size_in_bytes: u64,
}

/// A job of a run.
#[derive(Clone, Debug, Deserialize)]
pub struct RunJob {
    pub id: u64,
    #[serde(default)]
    pub name: String,
}

impl GitHub {
    /// `GET /repos/{o}/{r}/actions/runs/{id}/artifacts` (the first 100).
    pub async fn run_artifacts(
        &self,
        inst: i64,
        repo: &RepoName,
        run: u64,
    ) -> Result<Vec<Artifact>, GitHubError> {
        #[derive(Deserialize)]
        struct L {
            #[serde(default)]
            artifacts: Vec<Artifact>,
        }
        let p = format!("/repos/{repo}/actions/runs/{run}/artifacts?per_page=100");
        let l: L = self.get_json(inst, &p).await?;
        Ok(l.artifacts)
    }

    /// `GET /repos/{o}/{r}/actions/runs/{id}/jobs` (the latest attempt, the first 100).
    pub async fn run_jobs(
        &self,
        inst: i64,
        repo: &RepoName,
        run: u64,
    ) -> Result<Vec<RunJob>, GitHubError> {
        #[derive(Deserialize)]
        struct L {
            #[serde(default)]
            jobs: Vec<RunJob>,
        }
        let p = format!("/repos/{repo}/actions/runs/{run}/jobs?per_page=100");
        let l: L = self.get_json(inst, &p).await?;
        Ok(l.jobs)
    }

    /// `GET /repos/{o}/{r}/actions/artifacts/{id}/zip`: a 302 to a pre-signed URL; the zip is
    /// streamed to `sink`, at most `cap` bytes.
    pub async fn download_artifact(
        &self,
        inst: i64,
        repo: &RepoName,
        artifact: u64,
        cap: usize,
        sink: &tokio::sync::mpsc::Sender<bytes::Bytes>,
    ) -> Result<Truncated, GitHubError> {
        let path = format!("/repos/{repo}/actions/artifacts/{artifact}/zip");
        self.download_redirected(inst, &path, cap, std::time::Duration::from_secs(300), sink)
            .await
    }

    /// `GET /repos/{o}/{r}/compare/{base}...{head}` → the merge base's SHA.
    pub async fn merge_base(
        &self,
        inst: i64,
        repo: &RepoName,
        base: &str,
        head: &str,
    ) -> Result<String, GitHubError> {
        #[derive(Deserialize)]
        struct C {
            sha: String,
        }
        #[derive(Deserialize)]
        struct Cmp {
            merge_base_commit: C,
        }
        let p = format!(
            "/repos/{repo}/compare/{}...{}",
            encode_path(base),
            encode_path(head)
        );
        let c: Cmp = self.get_json(inst, &p).await?;
        Ok(c.merge_base_commit.sha)
    }

    /// `POST /repos/{o}/{r}/actions/workflows/{file}/dispatches` on `git_ref` with `inputs`,
    /// asking for the run it starts (`return_run_details`): its id and link, or `None` where
    /// GitHub answers 204 without them (older GitHub Enterprise Server). Not retried blindly
    /// (a dispatch is not idempotent).
    pub async fn dispatch_workflow(
        &self,
        inst: i64,
        repo: &RepoName,
        workflow: &str,
        git_ref: &str,
        inputs: &serde_json::Value,
    ) -> Result<Option<DispatchedRun>, GitHubError> {
        let body = json!({ "ref": git_ref, "inputs": inputs, "return_run_details": true });
        let p = format!(
            "/repos/{repo}/actions/workflows/{}/dispatches",
            encode_path(workflow)
        );
        let Some(resp) = self
            .write(inst, Method::POST, &p, Some(&body), false)
            .await?
        else {
            return Ok(None);
        };
        if resp.body.is_empty() || resp.status == http::StatusCode::NO_CONTENT {
            return Ok(None);
        }
        #[derive(Deserialize)]
        struct D {
            workflow_run_id: Option<u64>,
            html_url: Option<String>,
        }
        let d: D = decode(&p, &resp)?;
        Ok(d.workflow_run_id.map(|id| DispatchedRun {
            id,
            html_url: d.html_url,
        }))
    }

    /// The installation of a repository (`GET /repos/{o}/{r}/installation`, as the App).
    pub async fn repo_installation(&self, repo: &RepoName) -> Result<i64, GitHubError> {
        #[derive(Deserialize)]
        struct I {
            id: i64,
        }
        let p = format!("/repos/{repo}/installation");
        let resp = self.raw(As::App, Method::GET, &p, None, true).await?;
        Ok(decode::<I>(&p, &resp)?.id)
    }

    /// A workflow file's text on `git_ref` (`.github/workflows/{file}`), when it exists.
    pub async fn workflow_text(
        &self,
        inst: i64,
        repo: &RepoName,
        file: &str,
        git_ref: &str,
    ) -> Result<Option<String>, GitHubError> {
        let path = format!(".github/workflows/{file}");
        Ok(self
            .file_at(inst, repo, &path, git_ref)
            .await?
            .map(|(t, _)| t))
    }
}
