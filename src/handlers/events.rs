//! The domain events the handlers act on, read from stored payloads (not octocrab's models).
//! A delivery's payload is parsed once, into [`Event`]; event and action names are enums.

use serde::Deserialize;

use crate::github::types::RepoName;

/// A stored webhook delivery, parsed.
#[derive(Debug)]
pub enum Event {
    PullRequest(PullRequestEvent),
    CheckRun(CheckRunEvent),
    CheckSuite(CheckSuiteEvent),
    MergeGroup(MergeGroupEvent),
    IssueComment(IssueCommentEvent),
    Installation(InstallationEvent),
    WorkflowRun(WorkflowRunEvent),
    /// An event this service does not act on.
    Other(String),
}

impl Event {
    /// Parses `payload` as the event GitHub named in `X-GitHub-Event`.
    pub fn parse(event: &str, payload: &[u8]) -> Result<Event, serde_json::Error> {
        Ok(match event {
            "pull_request" => Event::PullRequest(serde_json::from_slice(payload)?),
            "check_run" => Event::CheckRun(serde_json::from_slice(payload)?),
            "check_suite" => Event::CheckSuite(serde_json::from_slice(payload)?),
            "merge_group" => Event::MergeGroup(serde_json::from_slice(payload)?),
            "issue_comment" => Event::IssueComment(serde_json::from_slice(payload)?),
            "installation" | "installation_repositories" => {
                Event::Installation(serde_json::from_slice(payload)?)
            }
            "workflow_run" => Event::WorkflowRun(serde_json::from_slice(payload)?),
            other => Event::Other(other.to_string()),
        })
    }
}

/// `pull_request` actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PullRequestAction {
    Opened,
    Reopened,
    Synchronize,
    Edited,
    ReadyForReview,
    Labeled,
    Unlabeled,
    #[serde(other)]
    Other,
}

/// `check_run` actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckRunAction {
    Completed,
    RequestedAction,
    Rerequested,
    #[serde(other)]
    Other,
}

/// `check_suite`, `merge_group`, `issue_comment` and `installation` actions this service reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Rerequested,
    ChecksRequested,
    Created,
    Deleted,
    #[serde(other)]
    Other,
}

/// A check run's conclusion, as GitHub reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckConclusion {
    Success,
    Failure,
    TimedOut,
    Neutral,
    Cancelled,
    Skipped,
    ActionRequired,
    Stale,
    #[serde(other)]
    Other,
}

impl CheckConclusion {
    /// A failure worth reading the tests of.
    pub fn failed(self) -> bool {
        matches!(self, CheckConclusion::Failure | CheckConclusion::TimedOut)
    }
}

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
    #[serde(default)]
    pub default_branch: Option<String>,
}

/// `workflow_run` (completed): a CI run whose tests the history records, or one side of a rerun
/// session.
#[derive(Debug, Deserialize)]
pub struct WorkflowRunEvent {
    #[serde(default)]
    pub action: Option<String>,
    pub workflow_run: WorkflowRun,
    pub repository: Repository,
    #[serde(default)]
    pub installation: Option<Installation>,
}

#[derive(Debug, Deserialize)]
pub struct WorkflowRun {
    pub id: u64,
    #[serde(default)]
    pub run_attempt: Option<i64>,
    #[serde(default)]
    pub head_sha: String,
    #[serde(default)]
    pub head_branch: Option<String>,
    #[serde(default)]
    pub event: Option<String>,
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default)]
    pub display_title: Option<String>,
    #[serde(default)]
    pub html_url: Option<String>,
    /// The workflow file (`.github/workflows/x.yml`, sometimes with `@ref`).
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub actor: Option<Actor>,
    /// Where the run's code comes from: a fork PR's run names the fork.
    #[serde(default)]
    pub head_repository: Option<Repository>,
    #[serde(default)]
    pub created_at: Option<String>,
    /// The pull requests of the repository the run is for (empty for a fork's).
    #[serde(default)]
    pub pull_requests: Vec<RunPull>,
}

/// A pull request a run names.
#[derive(Debug, Deserialize)]
pub struct RunPull {
    pub number: i64,
}

/// Who started a run.
#[derive(Debug, Deserialize)]
pub struct Actor {
    pub login: String,
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
pub struct Sha {
    pub sha: String,
}

#[derive(Debug, Deserialize)]
pub struct PullRequestBody {
    pub number: u64,
    #[serde(default)]
    pub head: Option<Sha>,
    /// RFC 3339, GitHub's clock: a push updates it.
    #[serde(default)]
    pub updated_at: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct PullRequestEvent {
    pub action: PullRequestAction,
    pub number: Option<u64>,
    pub pull_request: PullRequestBody,
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
    pub conclusion: Option<CheckConclusion>,
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
    pub action: CheckRunAction,
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
    pub action: Action,
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
    pub action: Action,
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
    /// RFC 3339.
    #[serde(default)]
    pub created_at: Option<String>,
    pub user: Login,
    #[serde(default)]
    pub performed_via_github_app: Option<App>,
}

#[derive(Debug, Deserialize)]
pub struct IssueCommentEvent {
    pub action: Action,
    pub issue: IssueBody,
    pub comment: CommentBody,
    pub repository: Repository,
    pub installation: Option<Installation>,
}

#[derive(Debug, Deserialize)]
pub struct InstallationEvent {
    pub action: Action,
    pub installation: Installation,
}

/// Unix ms of an RFC 3339 time.
pub fn rfc3339_ms(t: Option<&str>) -> Option<i64> {
    t.and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.timestamp_millis())
}

impl Repository {
    pub fn name(&self) -> Option<RepoName> {
        RepoName::parse(&self.full_name)
    }
}
