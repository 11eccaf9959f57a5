//! The kinds of work the queue holds besides webhook deliveries, with their arguments. A task is
//! stored as its kind and its JSON; the worker reads it back into this enum once.

use serde::{Deserialize, Serialize};

use crate::core::delivery::pr_serial_key;

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
}

impl Task {
    /// The stored kind (also the `event` label of the job's metrics).
    pub fn kind(&self) -> &'static str {
        match self {
            Task::EvaluatePr { .. } => "evaluate_pr",
            Task::CatchUp => "catch_up",
        }
    }

    /// Jobs with one key never run at once. A PR's tasks share the key of its webhooks.
    pub fn serial_key(&self) -> String {
        match self {
            Task::EvaluatePr { repo, number, .. } => pr_serial_key(repo, *number),
            Task::CatchUp => "catch-up".into(),
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
