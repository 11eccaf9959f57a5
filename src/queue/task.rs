//! The kinds of work the queue holds besides webhook deliveries, with their arguments. A task is
//! stored as its kind and its JSON; the worker reads it back into this enum once.

use serde::{Deserialize, Serialize};

use crate::core::delivery::{history_serial_key, pr_serial_key};

/// Typed work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Task {
    /// Evaluate one PR's gate from live state (the catch-up pass finds PRs missing a check).
    EvaluatePr {
        installation: i64,
        repo: String,
        number: u64,
    },
    /// One catch-up pass: ask GitHub to redeliver failed webhooks this service never stored, and
    /// enqueue an evaluation for each open PR whose head has no `repro-gate` check run.
    CatchUp,
    /// A rerun session's time is up (queued when it starts, to run at its timeout).
    RerunTimeout { session: String },
    /// File (or update) the quarantine issue of a `not this change` session's test. One test's
    /// tickets share a serial key: two sessions finishing at once never both open an issue.
    QuarantineTicket {
        installation: i64,
        repo: String,
        test: String,
        session: String,
    },
    /// Find the repositories whose `history.schedule` came due and queue their publish.
    HistorySchedule,
    /// Recompute and propose one repository's reliability file, for the schedule slot `due_ms`.
    HistoryPublish {
        installation: i64,
        repo: String,
        due_ms: i64,
    },
}

impl Task {
    /// The stored kind (also the `event` label of the job's metrics).
    pub fn kind(&self) -> &'static str {
        match self {
            Task::EvaluatePr { .. } => "evaluate_pr",
            Task::CatchUp => "catch_up",
            Task::RerunTimeout { .. } => "rerun_timeout",
            Task::QuarantineTicket { .. } => "quarantine_ticket",
            Task::HistorySchedule => "history_schedule",
            Task::HistoryPublish { .. } => "history_publish",
        }
    }

    /// The installation whose work this is (0: the App's own), so claims are fair across
    /// installations (docs/service.md#the-job-queue).
    pub fn lane(&self) -> i64 {
        match self {
            Task::EvaluatePr { installation, .. }
            | Task::QuarantineTicket { installation, .. }
            | Task::HistoryPublish { installation, .. } => *installation,
            Task::CatchUp | Task::RerunTimeout { .. } | Task::HistorySchedule => 0,
        }
    }

    /// Jobs with one key never run at once. A PR's tasks share the key of its webhooks.
    pub fn serial_key(&self) -> String {
        match self {
            Task::EvaluatePr { repo, number, .. } => pr_serial_key(repo, *number),
            Task::CatchUp => "catch-up".into(),
            Task::RerunTimeout { session } => crate::core::rerun::serial_key(session),
            Task::QuarantineTicket { repo, test, .. } => {
                crate::core::rerun::tickets::serial_key(repo, test)
            }
            Task::HistorySchedule => "history-schedule".into(),
            Task::HistoryPublish { repo, .. } => history_serial_key(repo),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_round_trip_through_their_json() {
        for t in [
            Task::EvaluatePr {
                installation: 7,
                repo: "o/r".into(),
                number: 3,
            },
            Task::CatchUp,
            Task::RerunTimeout {
                session: "rr-1".into(),
            },
            Task::QuarantineTicket {
                installation: 7,
                repo: "o/r".into(),
                test: "p::T".into(),
                session: "rr-1".into(),
            },
            Task::HistorySchedule,
            Task::HistoryPublish {
                installation: 7,
                repo: "o/r".into(),
                due_ms: 1,
            },
        ] {
            let json = serde_json::to_string(&t).unwrap();
            assert!(json.contains(t.kind()), "{json}");
            assert_eq!(serde_json::from_str::<Task>(&json).unwrap(), t);
        }
    }

    #[test]
    fn a_prs_task_shares_the_serial_key_of_its_webhooks() {
        let t = Task::EvaluatePr {
            installation: 7,
            repo: "o/r".into(),
            number: 3,
        };
        assert_eq!(t.serial_key(), "o/r#3");
    }
}
