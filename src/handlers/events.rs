//! The domain events the handlers act on, read from stored payloads (not octocrab's models).

use serde::Deserialize;

use crate::github::types::RepoName;

#[derive(Debug, Deserialize)]
pub struct Installation {
    pub id: i64,
    #[serde(default)]
    pub account: Option<Login>,
}

#[derive(Debug, Deserialize)]
pub struct Login {
    pub login: String,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Repository {
    pub full_name: String,
}

#[derive(Debug, Deserialize)]
pub struct Number {
    pub number: u64,
}

#[derive(Debug, Default, Deserialize)]
pub struct Changes {
    #[serde(default)]
    pub body: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub title: Option<serde::de::IgnoredAny>,
}

#[derive(Debug, Deserialize)]
pub struct PullRequestEvent {
    pub action: String,
    pub number: Option<u64>,
    pub pull_request: Number,
    pub repository: Repository,
    pub installation: Option<Installation>,
    #[serde(default)]
    pub changes: Option<Changes>,
}

#[derive(Debug, Deserialize)]
pub struct App {
    pub id: u64,
}

#[derive(Debug, Deserialize)]
pub struct CheckRunBody {
    pub id: u64,
    #[serde(default)]
    pub name: String,
    pub head_sha: String,
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default)]
    pub app: Option<App>,
    #[serde(default)]
    pub pull_requests: Vec<Number>,
    #[serde(default)]
    pub details_url: Option<String>,
    #[serde(default)]
    pub output: Option<CheckOutput>,
}

#[derive(Debug, Default, Deserialize)]
pub struct CheckOutput {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct RequestedAction {
    pub identifier: String,
}

#[derive(Debug, Deserialize)]
pub struct CheckRunEvent {
    pub action: String,
    pub check_run: CheckRunBody,
    pub repository: Repository,
    pub installation: Option<Installation>,
    #[serde(default)]
    pub requested_action: Option<RequestedAction>,
}

#[derive(Debug, Deserialize)]
pub struct CheckSuiteBody {
    pub head_sha: String,
    #[serde(default)]
    pub app: Option<App>,
    #[serde(default)]
    pub pull_requests: Vec<Number>,
}

#[derive(Debug, Deserialize)]
pub struct CheckSuiteEvent {
    pub action: String,
    pub check_suite: CheckSuiteBody,
    pub repository: Repository,
    pub installation: Option<Installation>,
}

#[derive(Debug, Deserialize)]
pub struct MergeGroupBody {
    pub head_sha: String,
    pub head_ref: String,
}

#[derive(Debug, Deserialize)]
pub struct MergeGroupEvent {
    pub action: String,
    pub merge_group: MergeGroupBody,
    pub repository: Repository,
    pub installation: Option<Installation>,
}

#[derive(Debug, Deserialize)]
pub struct IssueBody {
    pub number: u64,
    #[serde(default)]
    pub pull_request: Option<serde::de::IgnoredAny>,
}

#[derive(Debug, Deserialize)]
pub struct CommentBody {
    pub id: u64,
    #[serde(default)]
    pub body: Option<String>,
    pub user: Login,
    #[serde(default)]
    pub performed_via_github_app: Option<App>,
}

#[derive(Debug, Deserialize)]
pub struct IssueCommentEvent {
    pub action: String,
    pub issue: IssueBody,
    pub comment: CommentBody,
    pub repository: Repository,
    pub installation: Option<Installation>,
}

#[derive(Debug, Deserialize)]
pub struct InstallationEvent {
    pub action: String,
    pub installation: Installation,
}

impl Repository {
    pub fn name(&self) -> Option<RepoName> {
        RepoName::parse(&self.full_name)
    }
}

/// PR numbers in a merge queue branch: `refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>`.
pub fn merge_group_prs(head_ref: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for part in head_ref.split('/') {
        let mut rest = part;
        while let Some(i) = rest.find("pr-") {
            rest = &rest[i + 3..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<u64>()
                && !out.contains(&n)
            {
                out.push(n);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_queue_refs_name_their_prs() {
        assert_eq!(
            merge_group_prs(
                "refs/heads/gh-readonly-queue/main/pr-42-ec26c3e57ca3a959ca5aad62de7213c562f8c821"
            ),
            [42]
        );
        assert_eq!(
            merge_group_prs("refs/heads/gh-readonly-queue/release/1.x/pr-7-abc"),
            [7]
        );
        assert!(merge_group_prs("refs/heads/main").is_empty());
    }
}
