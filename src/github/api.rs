//! The operations the features need, each one REST endpoint (see the README's table).

use base64::Engine as _;
use http::Method;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use super::transport::Response;
use super::types::*;
use super::{As, GitHub, GitHubError};
use crate::core::diff::{FileChange, FileStatus};

/// GitHub caps a PR's file list at 3,000 (30 pages of 100).
const MAX_FILE_PAGES: u32 = 30;
const PER_PAGE: u32 = 100;

pub(super) fn decode<T: DeserializeOwned>(path: &str, resp: &Response) -> Result<T, GitHubError> {
    serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
        path: path.to_string(),
        message: e.to_string(),
    })
}

#[derive(Deserialize)]
struct UserJson {
    login: String,
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct LabelJson {
    name: String,
}

#[derive(Deserialize)]
struct RefJson {
    sha: String,
    #[serde(rename = "ref", default)]
    name: String,
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
        PullRequest {
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

#[derive(Deserialize)]
struct AppJson {
    id: u64,
}

#[derive(Deserialize)]
struct OutputJson {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct CheckRunJson {
    id: u64,
    name: String,
    head_sha: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
    #[serde(default)]
    app: Option<AppJson>,
    #[serde(default)]
    output: Option<OutputJson>,
}

impl From<CheckRunJson> for CheckRun {
    fn from(c: CheckRunJson) -> Self {
        CheckRun {
            id: c.id,
            name: c.name,
            head_sha: c.head_sha,
            status: c.status,
            conclusion: c.conclusion,
            app_id: c.app.map(|a| a.id),
            title: c.output.as_ref().and_then(|o| o.title.clone()),
            summary: c.output.as_ref().and_then(|o| o.summary.clone()),
            text: c.output.and_then(|o| o.text),
        }
    }
}

#[derive(Deserialize)]
struct CommentJson {
    id: u64,
    #[serde(default)]
    body: Option<String>,
    user: Option<UserJson>,
    #[serde(default)]
    performed_via_github_app: Option<AppJson>,
    #[serde(default)]
    created_at: Option<String>,
}

impl From<CommentJson> for Comment {
    fn from(c: CommentJson) -> Self {
        let (author, bot) = match c.user {
            Some(u) => {
                let bot = u.kind.as_deref() == Some("Bot") || u.login.ends_with("[bot]");
                (u.login, bot)
            }
            None => (String::new(), false),
        };
        Comment {
            id: c.id,
            body: c.body.unwrap_or_default(),
            author,
            author_is_bot: bot,
            via_app: c.performed_via_github_app.map(|a| a.id),
            created_at: c.created_at,
        }
    }
}

impl GitHub {
    pub(super) async fn get_json<T: DeserializeOwned>(
        &self,
        inst: i64,
        path: &str,
    ) -> Result<T, GitHubError> {
        let resp = self
            .raw(As::Installation(inst), Method::GET, path, None, true)
            .await?;
        decode(path, &resp)
    }

    /// GET every page of a list (`per_page=100&page=N`), up to `max_pages`.
    pub(super) async fn get_pages<T: DeserializeOwned>(
        &self,
        inst: i64,
        path: &str,
        max_pages: u32,
    ) -> Result<Vec<T>, GitHubError> {
        let sep = if path.contains('?') { '&' } else { '?' };
        let mut all = Vec::new();
        for page in 1..=max_pages {
            let p = format!("{path}{sep}per_page={PER_PAGE}&page={page}");
            let items: Vec<T> = self.get_json(inst, &p).await?;
            let n = items.len();
            all.extend(items);
            if n < PER_PAGE as usize {
                break;
            }
        }
        Ok(all)
    }

    /// `GET /repos/{o}/{r}` → the default branch.
    pub async fn default_branch(&self, inst: i64, repo: &RepoName) -> Result<String, GitHubError> {
        #[derive(Deserialize)]
        struct R {
            default_branch: String,
        }
        let r: R = self.get_json(inst, &format!("/repos/{repo}")).await?;
        Ok(r.default_branch)
    }

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

    /// `POST /repos/{o}/{r}/issues/{n}/labels` (adding a label twice is harmless).
    pub async fn add_labels(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
        labels: &[&str],
    ) -> Result<(), GitHubError> {
        let body = json!({ "labels": labels });
        self.write(
            inst,
            Method::POST,
            &format!("/repos/{repo}/issues/{number}/labels"),
            Some(&body),
            true,
        )
        .await
        .map(|_| ())
    }

    /// `DELETE /repos/{o}/{r}/issues/{n}/labels/{name}`; already gone is fine.
    pub async fn remove_label(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
        label: &str,
    ) -> Result<(), GitHubError> {
        let path = format!(
            "/repos/{repo}/issues/{number}/labels/{}",
            encode_path(label)
        );
        match self.write(inst, Method::DELETE, &path, None, true).await {
            Ok(_) | Err(GitHubError::NotFound { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `POST /repos/{o}/{r}/labels`; an existing label (422) is fine.
    pub async fn create_label(
        &self,
        inst: i64,
        repo: &RepoName,
        name: &str,
        color: &str,
        description: &str,
    ) -> Result<(), GitHubError> {
        let body = json!({ "name": name, "color": color, "description": description });
        match self
            .write(
                inst,
                Method::POST,
                &format!("/repos/{repo}/labels"),
                Some(&body),
                false,
            )
            .await
        {
            Ok(_) | Err(GitHubError::Unprocessable { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `GET /repos/{o}/{r}/labels/{name}`: does the label exist?
    pub async fn label_exists(
        &self,
        inst: i64,
        repo: &RepoName,
        name: &str,
    ) -> Result<bool, GitHubError> {
        let path = format!("/repos/{repo}/labels/{}", encode_path(name));
        match self
            .raw(As::Installation(inst), Method::GET, &path, None, true)
            .await
        {
            Ok(_) => Ok(true),
            Err(GitHubError::NotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// `GET /repos/{o}/{r}/commits/{sha}/check-runs?check_name=…&app_id=…`: this App's run.
    pub async fn find_check_run(
        &self,
        inst: i64,
        repo: &RepoName,
        sha: &str,
        name: &str,
    ) -> Result<Option<CheckRun>, GitHubError> {
        #[derive(Deserialize)]
        struct L {
            check_runs: Vec<CheckRunJson>,
        }
        let p = format!(
            "/repos/{repo}/commits/{sha}/check-runs?check_name={}&app_id={}&filter=latest&per_page=100",
            encode_query(name),
            self.app_id()
        );
        let l: L = self.get_json(inst, &p).await?;
        let app = self.app_id();
        Ok(l.check_runs
            .into_iter()
            .map(CheckRun::from)
            .find(|c| c.name == name && c.app_id.is_none_or(|a| a == app)))
    }

    /// Finds this App's check run for the SHA and updates it, or creates it: one per SHA.
    pub async fn upsert_check_run(
        &self,
        inst: i64,
        repo: &RepoName,
        run: &CheckRunWrite,
    ) -> Result<u64, GitHubError> {
        let existing = self
            .find_check_run(inst, repo, &run.head_sha, &run.name)
            .await?;
        let mut output = json!({
            "title": run.title,
            "summary": fit_check_text(&run.summary),
        });
        if let Some(t) = &run.text {
            output["text"] = json!(fit_check_text(t));
        }
        let actions: Vec<&CheckAction> = run.actions.iter().take(3).collect();
        let mut body = json!({
            "name": run.name,
            "status": "completed",
            "conclusion": run.conclusion,
            "completed_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "output": output,
            "actions": actions,
        });
        match existing {
            // Already showing this verdict: a write would change nothing.
            Some(c) if c.shows(run) => Ok(c.id),
            Some(c) => {
                self.write(
                    inst,
                    Method::PATCH,
                    &format!("/repos/{repo}/check-runs/{}", c.id),
                    Some(&body),
                    true,
                )
                .await?;
                Ok(c.id)
            }
            None => {
                body["head_sha"] = json!(run.head_sha);
                let resp = self
                    .write(
                        inst,
                        Method::POST,
                        &format!("/repos/{repo}/check-runs"),
                        Some(&body),
                        false,
                    )
                    .await?;
                match resp {
                    Some(r) => Ok(decode::<CheckRunJson>("check-runs", &r)?.id),
                    None => Ok(0),
                }
            }
        }
    }

    /// `GET /repos/{o}/{r}/check-runs/{id}/annotations`, every page.
    pub async fn annotations(
        &self,
        inst: i64,
        repo: &RepoName,
        check_run: u64,
    ) -> Result<Vec<Annotation>, GitHubError> {
        #[derive(Deserialize)]
        struct A {
            #[serde(default)]
            path: String,
            #[serde(default)]
            title: Option<String>,
            #[serde(default)]
            message: Option<String>,
            #[serde(default)]
            raw_details: Option<String>,
            #[serde(default)]
            annotation_level: Option<String>,
        }
        let list: Vec<A> = self
            .get_pages(
                inst,
                &format!("/repos/{repo}/check-runs/{check_run}/annotations"),
                30,
            )
            .await?;
        Ok(list
            .into_iter()
            .map(|a| Annotation {
                path: a.path,
                title: a.title,
                message: a.message.unwrap_or_default(),
                raw_details: a.raw_details,
                level: a.annotation_level.unwrap_or_default(),
            })
            .collect())
    }

    /// `GET /repos/{o}/{r}/actions/jobs/{id}/logs`: GitHub answers 302 to a pre-signed URL,
    /// fetched without the token (it may be another host). The log is streamed to `sink` in
    /// chunks, at most `cap` bytes; the answer says whether the log was longer.
    pub async fn job_log(
        &self,
        inst: i64,
        repo: &RepoName,
        job: u64,
        cap: usize,
        sink: &tokio::sync::mpsc::Sender<bytes::Bytes>,
    ) -> Result<Truncated, GitHubError> {
        let path = format!("/repos/{repo}/actions/jobs/{job}/logs");
        self.download_redirected(inst, &path, cap, std::time::Duration::from_secs(120), sink)
            .await
    }

    /// A download GitHub answers with a 302 to a pre-signed URL (fetched without the token: it
    /// may be another host), streamed to `sink`, at most `cap` bytes.
    pub(super) async fn download_redirected(
        &self,
        inst: i64,
        path: &str,
        cap: usize,
        timeout: std::time::Duration,
        sink: &tokio::sync::mpsc::Sender<bytes::Bytes>,
    ) -> Result<Truncated, GitHubError> {
        let resp = self
            .raw(As::Installation(inst), Method::GET, path, None, true)
            .await?;
        if !resp.status.is_redirection() {
            let cut = resp.body.len() > cap;
            let _ = sink.send(resp.body.slice(..resp.body.len().min(cap))).await;
            return Ok(Truncated(cut));
        }
        let location = resp
            .headers
            .get(http::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| GitHubError::Decode {
                path: path.to_string(),
                message: "302 without a Location".into(),
            })?
            .to_string();
        super::download::stream(&location, cap, timeout, sink)
            .await
            .map(Truncated)
    }

    /// `GET /repos/{o}/{r}/issues/{n}/comments`, every page.
    pub async fn comments(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
    ) -> Result<Vec<Comment>, GitHubError> {
        let list: Vec<CommentJson> = self
            .get_pages(inst, &format!("/repos/{repo}/issues/{number}/comments"), 30)
            .await?;
        Ok(list.into_iter().map(Comment::from).collect())
    }

    /// `POST /repos/{o}/{r}/issues/{n}/comments`
    pub async fn create_comment(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
        body: &str,
    ) -> Result<u64, GitHubError> {
        let b = json!({ "body": body });
        match self
            .write(
                inst,
                Method::POST,
                &format!("/repos/{repo}/issues/{number}/comments"),
                Some(&b),
                false,
            )
            .await?
        {
            Some(r) => Ok(decode::<CommentJson>("comment", &r)?.id),
            None => Ok(0),
        }
    }

    /// `PATCH /repos/{o}/{r}/issues/comments/{id}`
    pub async fn update_comment(
        &self,
        inst: i64,
        repo: &RepoName,
        id: u64,
        body: &str,
    ) -> Result<(), GitHubError> {
        let b = json!({ "body": body });
        self.write(
            inst,
            Method::PATCH,
            &format!("/repos/{repo}/issues/comments/{id}"),
            Some(&b),
            true,
        )
        .await
        .map(|_| ())
    }

    /// Updates the comment holding `marker`, or creates it: one per PR.
    pub async fn upsert_marked_comment(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
        marker: &str,
        body: &str,
    ) -> Result<u64, GitHubError> {
        // Only this App's own comment counts: anyone can paste the marker into theirs.
        let app = self.app_id();
        let existing = self
            .comments(inst, repo, number)
            .await?
            .into_iter()
            .find(|c| c.is_by_app(app) && c.body.contains(marker));
        match existing {
            Some(c) => {
                if c.body != body {
                    self.update_comment(inst, repo, c.id, body).await?;
                }
                Ok(c.id)
            }
            None => self.create_comment(inst, repo, number, body).await,
        }
    }

    /// `POST /repos/{o}/{r}/issues/comments/{id}/reactions`
    pub async fn react(
        &self,
        inst: i64,
        repo: &RepoName,
        comment: u64,
        content: &str,
    ) -> Result<(), GitHubError> {
        let b = json!({ "content": content });
        self.write(
            inst,
            Method::POST,
            &format!("/repos/{repo}/issues/comments/{comment}/reactions"),
            Some(&b),
            true,
        )
        .await
        .map(|_| ())
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

pub(super) fn encode_path(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub(super) fn encode_query(s: &str) -> String {
    encode_path(s)
}

/// A repository file path for a URL: each segment encoded, the slashes kept.
pub(super) fn encode_file_path(path: &str) -> String {
    path.split('/')
        .map(encode_path)
        .collect::<Vec<_>>()
        .join("/")
}
