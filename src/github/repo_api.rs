//! A repository's settings and files: default branch, file contents (conditional), a user's
//! permission, team membership.

use base64::Engine as _;
use http::Method;
use serde::Deserialize;

use super::api::{decode, encode_file_path, encode_path, encode_query};
use super::types::*;
use super::{As, GitHub, GitHubError};

impl GitHub {
    /// `GET /repos/{o}/{r}` → the default branch.
    pub async fn default_branch(&self, inst: i64, repo: &RepoName) -> Result<String, GitHubError> {
        #[derive(Deserialize)]
        struct R {
            default_branch: String,
        }
        let r: R = self.get_json(inst, &format!("/repos/{repo}")).await?;
        Ok(r.default_branch)
    }

    /// `GET /repos/{o}/{r}/contents/{path}?ref=…` → (text, blob sha); `None` on 404.
    pub async fn file_at(
        &self,
        inst: i64,
        repo: &RepoName,
        path: &str,
        git_ref: &str,
    ) -> Result<Option<(String, String)>, GitHubError> {
        match self
            .file_at_if_changed(inst, repo, path, git_ref, None)
            .await?
        {
            FileRead::Found { text, sha, .. } => Ok(Some((text, sha))),
            FileRead::Missing | FileRead::NotModified => Ok(None),
        }
    }

    /// The same read, conditional on `etag` (`If-None-Match`): GitHub answers 304, which costs
    /// no rate limit, when the file has not changed.
    pub async fn file_at_if_changed(
        &self,
        inst: i64,
        repo: &RepoName,
        path: &str,
        git_ref: &str,
        etag: Option<&str>,
    ) -> Result<FileRead, GitHubError> {
        #[derive(Deserialize)]
        struct C {
            #[serde(default)]
            content: String,
            #[serde(default)]
            encoding: String,
            sha: String,
        }
        let p = format!(
            "/repos/{repo}/contents/{}?ref={}",
            encode_file_path(path),
            encode_query(git_ref)
        );
        let mut headers = http::HeaderMap::new();
        if let Some(tag) = etag.and_then(|e| http::HeaderValue::from_str(e).ok()) {
            headers.insert(http::header::IF_NONE_MATCH, tag);
        }
        let resp = match self
            .raw_with(
                As::Installation(inst),
                Method::GET,
                &p,
                None,
                true,
                Some(&headers),
            )
            .await
        {
            Ok(r) => r,
            Err(GitHubError::NotFound { .. }) => return Ok(FileRead::Missing),
            Err(e) => return Err(e),
        };
        if resp.status == http::StatusCode::NOT_MODIFIED {
            return Ok(FileRead::NotModified);
        }
        let etag = resp
            .headers
            .get(http::header::ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let c: C = decode(&p, &resp)?;
        let text = if c.encoding == "base64" {
            let clean: String = c.content.split_whitespace().collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(clean)
                .map_err(|e| GitHubError::Decode {
                    path: p.clone(),
                    message: e.to_string(),
                })?;
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            c.content
        };
        Ok(FileRead::Found {
            text,
            sha: c.sha,
            etag,
        })
    }

    /// `GET /repos/{o}/{r}/collaborators/{user}/permission`, read into our own type (octocrab's
    /// model rejects GitHub's `write` and `read`).
    pub async fn permission(
        &self,
        inst: i64,
        repo: &RepoName,
        user: &str,
    ) -> Result<Permission, GitHubError> {
        #[derive(Deserialize)]
        struct P {
            #[serde(default)]
            permission: String,
            #[serde(default)]
            role_name: Option<String>,
        }
        match self
            .get_json::<P>(
                inst,
                &format!(
                    "/repos/{repo}/collaborators/{}/permission",
                    encode_path(user)
                ),
            )
            .await
        {
            Ok(p) => Ok(Permission {
                permission: p.permission,
                role_name: p.role_name,
            }),
            Err(GitHubError::NotFound { .. }) => Ok(Permission {
                permission: "none".into(),
                role_name: None,
            }),
            Err(e) => Err(e),
        }
    }

    /// `GET /orgs/{org}/teams/{slug}/memberships/{user}`: an active member?
    pub async fn is_team_member(
        &self,
        inst: i64,
        org: &str,
        team: &str,
        user: &str,
    ) -> Result<bool, GitHubError> {
        #[derive(Deserialize)]
        struct M {
            state: String,
        }
        match self
            .get_json::<M>(
                inst,
                &format!(
                    "/orgs/{}/teams/{}/memberships/{}",
                    encode_path(org),
                    encode_path(team),
                    encode_path(user)
                ),
            )
            .await
        {
            Ok(m) => Ok(m.state == "active"),
            Err(GitHubError::NotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// The newest commit that changed a file on a branch: who set what it says, and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCommit {
    pub sha: String,
    /// The committer's date (a merge's time), Unix ms.
    pub at_ms: Option<i64>,
    /// The GitHub login of its author, when GitHub knows it.
    pub author: Option<String>,
}

impl GitHub {
    /// `GET /repos/{o}/{r}/commits?path=&sha=&per_page=1`: the newest commit of `branch` that
    /// touched `path`, or `None` when there is none.
    pub async fn last_commit_touching(
        &self,
        inst: i64,
        repo: &RepoName,
        path: &str,
        branch: &str,
    ) -> Result<Option<FileCommit>, GitHubError> {
        #[derive(Deserialize)]
        struct Who {
            #[serde(default)]
            date: Option<String>,
        }
        #[derive(Deserialize)]
        struct Inner {
            #[serde(default)]
            committer: Option<Who>,
        }
        #[derive(Deserialize)]
        struct Login {
            login: String,
        }
        #[derive(Deserialize)]
        struct C {
            sha: String,
            commit: Inner,
            #[serde(default)]
            author: Option<Login>,
        }
        let p = format!(
            "/repos/{repo}/commits?path={}&sha={}&per_page=1",
            super::api::encode_query(path),
            super::api::encode_query(branch)
        );
        let list: Vec<C> = self.get_json(inst, &p).await?;
        Ok(list.into_iter().next().map(|c| FileCommit {
            at_ms: c
                .commit
                .committer
                .and_then(|w| w.date)
                .and_then(|d| chrono::DateTime::parse_from_rfc3339(&d).ok())
                .map(|d| d.timestamp_millis()),
            author: c.author.map(|a| a.login),
            sha: c.sha,
        }))
    }
}
