//! Pull requests: the PR, its files, the PRs of a commit.

use serde::Deserialize;

use super::GitHub;
use super::GitHubError;
use super::api::UserJson;
use super::types::*;
use crate::core::classify::diff::{FileChange, FileStatus};

/// GitHub caps a PR's file list at 3,000 (30 pages of 100).
const MAX_FILE_PAGES: u32 = 30;

#[derive(Deserialize)]
struct LabelJson {
    name: String,
}

#[derive(Deserialize)]
struct RefJson {
    sha: String,
    #[serde(rename = "ref", default)]
    name: String,
    /// `null` when the head's fork was deleted; absent in some minimal payloads.
    #[serde(default, deserialize_with = "present")]
    repo: Option<Option<RefRepoJson>>,
}

/// A field that is there (`Some`, maybe `null`) or absent (`None`, through `default`).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct RefRepoJson {
    #[serde(default)]
    full_name: String,
}

/// Whether the head is from another repository than the base. A deleted head repository
/// (`null`) counts as a fork: nobody can say whose code it is.
fn is_fork(head: &RefJson, base: &RefJson) -> bool {
    match (&head.repo, &base.repo) {
        (Some(Some(h)), Some(Some(b))) => !h.full_name.eq_ignore_ascii_case(&b.full_name),
        (Some(None), Some(Some(_))) => true,
        _ => false,
    }
}

#[derive(Deserialize)]
struct PullJson {
    number: u64,
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: Option<String>,
    head: RefJson,
    base: RefJson,
    #[serde(default)]
    state: String,
    #[serde(default)]
    draft: bool,
    #[serde(default)]
    labels: Vec<LabelJson>,
    user: Option<UserJson>,
    #[serde(default)]
    updated_at: Option<String>,
}

impl From<PullJson> for PullRequest {
    fn from(p: PullJson) -> Self {
        let fork = is_fork(&p.head, &p.base);
        PullRequest {
            fork,
            number: p.number,
            title: p.title,
            body: p.body.unwrap_or_default(),
            head_sha: p.head.sha,
            base_ref: p.base.name,
            state: p.state,
            draft: p.draft,
            labels: p.labels.into_iter().map(|l| l.name).collect(),
            author: p.user.map(|u| u.login).unwrap_or_default(),
            updated_at_ms: p
                .updated_at
                .as_deref()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.timestamp_millis()),
        }
    }
}

/// The PR a `pull_request` webhook payload carries (the same fields as `GET …/pulls/{n}`);
/// `None` when it lacks any of them.
pub fn pull_from_payload(payload: &[u8]) -> Option<PullRequest> {
    #[derive(Deserialize)]
    struct Payload {
        pull_request: PullJson,
    }
    serde_json::from_slice::<Payload>(payload)
        .ok()
        .map(|p| p.pull_request.into())
}

#[derive(Deserialize)]
struct FileJson {
    filename: String,
    #[serde(default)]
    previous_filename: Option<String>,
    #[serde(default)]
    status: String,
    #[serde(default)]
    patch: Option<String>,
}

impl GitHub {
    /// `GET /repos/{o}/{r}/pulls/{n}`
    pub async fn pull_request(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
    ) -> Result<PullRequest, GitHubError> {
        let p: PullJson = self
            .get_json(inst, &format!("/repos/{repo}/pulls/{number}"))
            .await?;
        Ok(p.into())
    }

    /// `GET /repos/{o}/{r}/pulls/{n}/files`, every page (GitHub stops at 3,000 files).
    pub async fn pull_request_files(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
    ) -> Result<Vec<FileChange>, GitHubError> {
        let files: Vec<FileJson> = self
            .get_pages(
                inst,
                &format!("/repos/{repo}/pulls/{number}/files"),
                MAX_FILE_PAGES,
            )
            .await?;
        Ok(files
            .into_iter()
            .map(|f| FileChange {
                path: f.filename,
                previous_path: f.previous_filename,
                status: FileStatus::from_github(&f.status),
                patch: f.patch,
            })
            .collect())
    }

    /// `GET /repos/{o}/{r}/commits/{sha}/pulls`: the PRs whose head is this commit.
    pub async fn pulls_for_commit(
        &self,
        inst: i64,
        repo: &RepoName,
        sha: &str,
    ) -> Result<Vec<u64>, GitHubError> {
        #[derive(Deserialize)]
        struct N {
            number: u64,
        }
        let list: Vec<N> = self
            .get_pages(inst, &format!("/repos/{repo}/commits/{sha}/pulls"), 3)
            .await?;
        Ok(list.into_iter().map(|n| n.number).collect())
    }
}
