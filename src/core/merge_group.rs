//! The merge queue's verdict: a merge group's head passes only when every PR in it passes the
//! gate now. Pure: the group's ref and each PR's verdict in, the check run's text out.

use super::markdown::md;
use super::verdict::Conclusion;

/// PR numbers in a merge queue branch: `refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>`.
pub fn group_prs(head_ref: &str) -> Vec<u64> {
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

/// One PR of the group, as the gate sees it now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Member {
    Passes,
    Fails {
        title: String,
    },
    /// Not found (deleted, or not a PR of this repository).
    Missing,
}

/// The group's check run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupVerdict {
    pub conclusion: Conclusion,
    pub title: String,
    pub summary: String,
}

pub fn verdict(head_ref: &str, members: &[(u64, Member)]) -> GroupVerdict {
    if members.is_empty() {
        return GroupVerdict {
            conclusion: Conclusion::Failure,
            title: "No pull request found in the merge group".into(),
            summary: format!("Could not read a PR number from `{}`.", md(head_ref)),
        };
    }
    let failing: Vec<String> = members
        .iter()
        .filter_map(|(n, m)| match m {
            Member::Passes => None,
            Member::Fails { title } => Some(format!("#{n} ({})", md(title))),
            Member::Missing => Some(format!("#{n} (not found)")),
        })
        .collect();
    if failing.is_empty() {
        let all: Vec<String> = members.iter().map(|(n, _)| format!("#{n}")).collect();
        return GroupVerdict {
            conclusion: Conclusion::Success,
            title: "Every PR in the group passes the gate".into(),
            summary: format!("Checked: {}.", all.join(", ")),
        };
    }
    GroupVerdict {
        conclusion: Conclusion::Failure,
        title: format!("Blocked by {}", failing.join(", ")),
        summary: format!(
            "These PRs do not pass the reproduction gate now: {}. Add a reproduction to their descriptions, or have a maintainer override.",
            failing.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_queue_refs_name_their_prs() {
        assert_eq!(
            group_prs(
                "refs/heads/gh-readonly-queue/main/pr-42-ec26c3e57ca3a959ca5aad62de7213c562f8c821"
            ),
            [42]
        );
        assert_eq!(
            group_prs("refs/heads/gh-readonly-queue/release/1.x/pr-7-abc"),
            [7]
        );
        assert!(group_prs("refs/heads/main").is_empty());
    }

    #[test]
    fn a_group_passes_only_when_every_pr_does() {
        let ok = verdict("q/pr-1-a", &[(1, Member::Passes)]);
        assert_eq!(ok.conclusion, Conclusion::Success);
        let bad = verdict(
            "q/pr-1-a",
            &[
                (1, Member::Passes),
                (
                    2,
                    Member::Fails {
                        title: "Fix | pool".into(),
                    },
                ),
                (3, Member::Missing),
            ],
        );
        assert_eq!(bad.conclusion, Conclusion::Failure);
        insta::assert_snapshot!(format!("{}\n\n{}", bad.title, bad.summary));
        assert_eq!(verdict("main", &[]).conclusion, Conclusion::Failure);
    }
}
