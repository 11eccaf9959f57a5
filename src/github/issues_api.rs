//! Issue endpoints a PR shares: labels, comments, reactions.

use http::Method;
use serde::Deserialize;
use serde_json::json;

use super::api::{AppJson, UserJson, decode, encode_path};
use super::types::*;
use super::{As, GitHub, GitHubError};

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
                let bot = is_bot(u.kind.as_deref(), &u.login);
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

    /// This App's comment holding `marker`, if there is one. Only the App's own comment counts:
    /// anyone can paste the marker into theirs.
    pub async fn own_comment(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
        marker: &str,
    ) -> Result<Option<Comment>, GitHubError> {
        let app = self.app_id();
        Ok(self
            .comments(inst, repo, number)
            .await?
            .into_iter()
            .find(|c| c.is_by_app(app) && c.body.contains(marker)))
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
        match self.own_comment(inst, repo, number, marker).await? {
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
}

/// An issue as the quarantine tickets need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub number: u64,
    pub state: String,
    pub body: String,
    /// The App that opened it (`performed_via_github_app`).
    pub via_app: Option<u64>,
}

#[derive(Deserialize)]
struct IssueJson {
    number: u64,
    #[serde(default)]
    state: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    performed_via_github_app: Option<AppJson>,
    #[serde(default)]
    pull_request: Option<serde_json::Value>,
}

impl From<IssueJson> for Issue {
    fn from(i: IssueJson) -> Self {
        Issue {
            number: i.number,
            state: i.state,
            body: i.body.unwrap_or_default(),
            via_app: i.performed_via_github_app.map(|a| a.id),
        }
    }
}

/// Most pages of a label's open issues read when looking for a ticket.
const MAX_ISSUE_PAGES: u32 = 10;

impl GitHub {
    /// `GET /repos/{o}/{r}/issues/{n}`; `None` when it is gone.
    pub async fn issue(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
    ) -> Result<Option<Issue>, GitHubError> {
        match self
            .get_json::<IssueJson>(inst, &format!("/repos/{repo}/issues/{number}"))
            .await
        {
            Ok(i) => Ok(Some(i.into())),
            Err(GitHubError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `GET /repos/{o}/{r}/issues?state=open&labels=…`: open issues (not PRs) with the label.
    pub async fn open_issues_labeled(
        &self,
        inst: i64,
        repo: &RepoName,
        label: &str,
    ) -> Result<Vec<Issue>, GitHubError> {
        let list: Vec<IssueJson> = self
            .get_pages(
                inst,
                &format!(
                    "/repos/{repo}/issues?state=open&labels={}",
                    super::api::encode_query(label)
                ),
                MAX_ISSUE_PAGES,
            )
            .await?;
        Ok(list
            .into_iter()
            .filter(|i| i.pull_request.is_none())
            .map(Issue::from)
            .collect())
    }

    /// `POST /repos/{o}/{r}/issues`: its number.
    pub async fn create_issue(
        &self,
        inst: i64,
        repo: &RepoName,
        title: &str,
        body: &str,
        labels: &[&str],
    ) -> Result<u64, GitHubError> {
        let b = json!({ "title": title, "body": body, "labels": labels });
        match self
            .write(
                inst,
                Method::POST,
                &format!("/repos/{repo}/issues"),
                Some(&b),
                false,
            )
            .await?
        {
            Some(r) => Ok(decode::<IssueJson>("issue", &r)?.number),
            None => Ok(0),
        }
    }

    /// `PATCH /repos/{o}/{r}/issues/{n}` with a new body.
    pub async fn update_issue_body(
        &self,
        inst: i64,
        repo: &RepoName,
        number: u64,
        body: &str,
    ) -> Result<(), GitHubError> {
        let b = json!({ "body": body });
        self.write(
            inst,
            Method::PATCH,
            &format!("/repos/{repo}/issues/{number}"),
            Some(&b),
            true,
        )
        .await
        .map(|_| ())
    }
}
