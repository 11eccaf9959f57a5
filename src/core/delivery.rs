//! What intake needs to know about a webhook delivery, read from its payload without IO:
//! whether the service handles it, and which serial key its job runs under.

use serde::Deserialize;

/// Largest webhook body accepted (GitHub caps payloads at 25 MB).
pub const MAX_WEBHOOK_BYTES: usize = 25 * 1024 * 1024;

/// The few payload fields intake reads. Everything else is left to the job, which re-reads live
/// state from GitHub anyway.
#[derive(Debug, Default, Deserialize)]
pub struct Envelope {
    pub action: Option<String>,
    pub installation: Option<IdOnly>,
    pub repository: Option<RepoOnly>,
    pub number: Option<u64>,
    pub pull_request: Option<NumberOnly>,
    pub issue: Option<NumberOnly>,
    pub check_run: Option<CheckRunFields>,
    pub check_suite: Option<CheckRunFields>,
    pub merge_group: Option<MergeGroupFields>,
    pub workflow_run: Option<WorkflowRunFields>,
}

#[derive(Debug, Default, Deserialize)]
pub struct WorkflowRunFields {
    pub display_title: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct IdOnly {
    pub id: i64,
}

#[derive(Debug, Default, Deserialize)]
pub struct RepoOnly {
    pub full_name: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct NumberOnly {
    pub number: u64,
}

#[derive(Debug, Default, Deserialize)]
pub struct CheckRunFields {
    pub head_sha: Option<String>,
    #[serde(default)]
    pub pull_requests: Vec<NumberOnly>,
}

#[derive(Debug, Default, Deserialize)]
pub struct MergeGroupFields {
    pub head_sha: Option<String>,
}

/// Whether a delivery becomes a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Stored and queued under this serial key.
    Handle { serial_key: String },
    /// Answered `ignored`; nothing stored.
    Ignore,
}

/// Decides whether `event` with this payload is work for the service (docs/service.md#github-operations-rest-v3).
pub fn route(event: &str, envelope: &Envelope) -> Route {
    let action = envelope.action.as_deref().unwrap_or("");
    let handled = match event {
        "pull_request" => matches!(
            action,
            "opened"
                | "reopened"
                | "synchronize"
                | "edited"
                | "ready_for_review"
                | "labeled"
                | "unlabeled"
        ),
        "check_run" => matches!(action, "completed" | "requested_action" | "rerequested"),
        "check_suite" => action == "rerequested",
        "issue_comment" => action == "created",
        "merge_group" => action == "checks_requested",
        "installation" | "installation_repositories" => true,
        // A rerun session's run starting too: its link is shown while it runs.
        "workflow_run" => {
            action == "completed"
                || (matches!(action, "in_progress" | "requested")
                    && envelope
                        .workflow_run
                        .as_ref()
                        .and_then(|w| w.display_title.as_deref())
                        .and_then(super::rerun::parse_title)
                        .is_some())
        }
        _ => false,
    };
    if handled {
        Route::Handle {
            serial_key: serial_key(event, envelope),
        }
    } else {
        Route::Ignore
    }
}

/// The serial key of one pull request's jobs.
pub fn pr_serial_key(repo: &str, number: u64) -> String {
    format!("{repo}#{number}")
}

/// The serial key of a repository's history recording.
pub fn history_serial_key(repo: &str) -> String {
    format!("history:{repo}")
}

/// Jobs that touch the same pull request share a key, so they never run at once.
fn serial_key(event: &str, envelope: &Envelope) -> String {
    let repo = envelope
        .repository
        .as_ref()
        .map(|r| r.full_name.as_str())
        .unwrap_or("-");
    if event == "workflow_run" {
        // A rerun session's runs finish it one at a time; other runs go to the history.
        let session = envelope
            .workflow_run
            .as_ref()
            .and_then(|w| w.display_title.as_deref())
            .and_then(super::rerun::parse_title);
        return match session {
            Some((session, _)) => super::rerun::serial_key(session),
            None => history_serial_key(repo),
        };
    }
    let pr = envelope
        .pull_request
        .as_ref()
        .map(|p| p.number)
        .or(envelope.issue.as_ref().map(|i| i.number))
        .or_else(|| {
            envelope
                .check_run
                .as_ref()
                .or(envelope.check_suite.as_ref())
                .and_then(|c| c.pull_requests.first().map(|p| p.number))
        })
        .or(envelope.number);
    if let Some(n) = pr {
        return pr_serial_key(repo, n);
    }
    let sha = envelope
        .check_run
        .as_ref()
        .or(envelope.check_suite.as_ref())
        .and_then(|c| c.head_sha.as_deref())
        .or(envelope
            .merge_group
            .as_ref()
            .and_then(|m| m.head_sha.as_deref()));
    if let Some(sha) = sha {
        return format!("{repo}@{sha}");
    }
    match &envelope.installation {
        Some(i) => format!("installation:{}", i.id),
        None => format!("{event}:{repo}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(json: &str) -> Envelope {
        serde_json::from_str(json).expect("test payload parses")
    }

    #[test]
    fn pull_request_actions_in_the_contract_are_handled_under_the_pr_key() {
        for action in [
            "opened",
            "reopened",
            "synchronize",
            "edited",
            "ready_for_review",
            "labeled",
            "unlabeled",
        ] {
            let e = env(&format!(
                r#"{{"action":"{action}","number":7,"pull_request":{{"number":7}},"repository":{{"full_name":"o/r"}}}}"#
            ));
            assert_eq!(
                route("pull_request", &e),
                Route::Handle {
                    serial_key: "o/r#7".into()
                },
                "{action}"
            );
        }
    }

    #[test]
    fn closed_pull_requests_and_unknown_events_are_ignored() {
        let e = env(r#"{"action":"closed","pull_request":{"number":7}}"#);
        assert_eq!(route("pull_request", &e), Route::Ignore);
        assert_eq!(route("star", &Envelope::default()), Route::Ignore);
        let e = env(r#"{"action":"edited","issue":{"number":3}}"#);
        assert_eq!(route("issue_comment", &e), Route::Ignore);
    }

    #[test]
    fn a_comment_shares_the_key_of_its_pull_request() {
        let c =
            env(r#"{"action":"created","issue":{"number":7},"repository":{"full_name":"o/r"}}"#);
        let p = env(
            r#"{"action":"opened","pull_request":{"number":7},"repository":{"full_name":"o/r"}}"#,
        );
        assert_eq!(route("issue_comment", &c), route("pull_request", &p));
    }

    #[test]
    fn check_runs_without_a_pr_are_keyed_by_sha_and_installations_by_id() {
        let e = env(
            r#"{"action":"completed","check_run":{"head_sha":"abc","pull_requests":[]},"repository":{"full_name":"o/r"}}"#,
        );
        assert_eq!(
            route("check_run", &e),
            Route::Handle {
                serial_key: "o/r@abc".into()
            }
        );
        let e = env(r#"{"action":"created","installation":{"id":5}}"#);
        assert_eq!(
            route("installation", &e),
            Route::Handle {
                serial_key: "installation:5".into()
            }
        );
    }
}
