//! Writing a file on a branch and proposing it by pull request (the history's nightly file).

use base64::Engine as _;
use http::Method;
use serde::Deserialize;
use serde_json::json;

use super::api::{decode, encode_file_path, encode_query};
use super::types::RepoName;
use super::{GitHub, GitHubError};

/// One file committed to a branch through the contents API.
#[derive(Clone, Copy, Debug)]
pub struct FileWrite<'a> {
    pub path: &'a str,
    pub branch: &'a str,
    pub content: &'a str,
    pub message: &'a str,
    /// The blob it replaces, when the file exists on the branch.
    pub blob_sha: Option<&'a str>,
}

/// An open pull request, as the publisher needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenPull {
    pub number: u64,
    pub title: String,
    pub body: String,
}

impl GitHub {
    /// `GET /repos/{o}/{r}/git/ref/heads/{branch}` → the branch's commit, `None` when missing.
    pub async fn branch_head(
        &self,
        inst: i64,
        repo: &RepoName,
        branch: &str,
    ) -> Result<Option<String>, GitHubError> {
        #[derive(Deserialize)]
        struct O {
            sha: String,
        }
        #[derive(Deserialize)]
        struct R {
            object: O,
        }
        let p = format!("/repos/{repo}/git/ref/heads/{}", encode_file_path(branch));
        match self.get_json::<R>(inst, &p).await {
            Ok(r) => Ok(Some(r.object.sha)),
            Err(GitHubError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Points `branch` at `sha`: creates it, or moves it there (forced).
    pub async fn set_branch(
        &self,
        inst: i64,
        repo: &RepoName,
        branch: &str,
        sha: &str,
        exists: bool,
    ) -> Result<(), GitHubError> {
        if exists {
            let p = format!("/repos/{repo}/git/refs/heads/{}", encode_file_path(branch));
            let body = json!({ "sha": sha, "force": true });
            self.write(inst, Method::PATCH, &p, Some(&body), true)
                .await
                .map(|_| ())
        } else {
            let p = format!("/repos/{repo}/git/refs");
            let body = json!({ "ref": format!("refs/heads/{branch}"), "sha": sha });
            match self.write(inst, Method::POST, &p, Some(&body), false).await {
                Ok(_) => Ok(()),
                // Created meanwhile (another replica): move it instead.
                Err(GitHubError::Unprocessable { .. }) => {
                    Box::pin(self.set_branch(inst, repo, branch, sha, true)).await
                }
                Err(e) => Err(e),
            }
        }
    }

    /// `PUT /repos/{o}/{r}/contents/{path}` on the write's branch.
    pub async fn put_file(
        &self,
        inst: i64,
        repo: &RepoName,
        file: &FileWrite<'_>,
    ) -> Result<(), GitHubError> {
        let mut body = json!({
            "message": file.message,
            "content": base64::engine::general_purpose::STANDARD.encode(file.content.as_bytes()),
            "branch": file.branch,
        });
        if let Some(sha) = file.blob_sha {
            body["sha"] = json!(sha);
        }
        let p = format!("/repos/{repo}/contents/{}", encode_file_path(file.path));
        self.write(inst, Method::PUT, &p, Some(&body), true)
            .await
            .map(|_| ())
    }

    /// The open pull request from `owner:head` into `base`, if any.
    pub async fn open_pull_from(
        &self,
        inst: i64,
        repo: &RepoName,
        head: &str,
        base: &str,
    ) -> Result<Option<OpenPull>, GitHubError> {
        #[derive(Deserialize)]
        struct B {
            #[serde(rename = "ref", default)]
            name: String,
        }
        #[derive(Deserialize)]
        struct P {
            number: u64,
            #[serde(default)]
            title: String,
            #[serde(default)]
            body: Option<String>,
            base: B,
        }
        let p = format!(
            "/repos/{repo}/pulls?state=open&head={}&per_page=100",
            encode_query(&format!("{}:{head}", repo.owner))
        );
        let list: Vec<P> = self.get_json(inst, &p).await?;
        Ok(list
            .into_iter()
            .find(|p| p.base.name == base)
            .map(|p| OpenPull {
                number: p.number,
                title: p.title,
                body: p.body.unwrap_or_default(),
            }))
    }

    /// `POST /repos/{o}/{r}/pulls` → the new PR's number.
    pub async fn create_pull(
        &self,
        inst: i64,
        repo: &RepoName,
        title: &str,
        head: &str,
        base: &str,
        body: &str,
    ) -> Result<u64, GitHubError> {
        #[derive(Deserialize)]
        struct N {
            number: u64,
        }
        let p = format!("/repos/{repo}/pulls");
        let b = json!({ "title": title, "head": head, "base": base, "body": body });
        match self.write(inst, Method::POST, &p, Some(&b), false).await? {
            Some(r) => Ok(decode::<N>(&p, &r)?.number),
            None => Ok(0),
        }
    }

    /// `PATCH /repos/{o}/{r}/pulls/{n}` (title and body).
    pub async fn update_pull(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
        title: &str,
        body: &str,
    ) -> Result<(), GitHubError> {
        let p = format!("/repos/{repo}/pulls/{number}");
        let b = json!({ "title": title, "body": body });
        self.write(inst, Method::PATCH, &p, Some(&b), true)
            .await
            .map(|_| ())
    }
}
