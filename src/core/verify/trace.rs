//! The trace cross-check (docs/verification.md#traces): a race report is not rerun; its frames are compared with the
//! files the PR changes (a path-suffix match: frames carry the runner's checkout prefix). With
//! `verify.trace: required`, a report that names none of them does not count.

use crate::core::classify::diff::FileChange;
use crate::core::config::TraceRule;
use crate::core::evidence::trace::names_file;
use crate::core::evidence::{EvidenceKind, EvidenceVerdict, Problem};

/// Most changed files named in a note.
const MAX_NAMED: usize = 3;

/// Adds the cross-check to each trace's detail and, under `required`, drops the traces that
/// name no changed file (with a problem saying so). The verdict's `satisfied` follows.
pub fn cross_check(evidence: &mut EvidenceVerdict, files: &[FileChange], rule: TraceRule) {
    let mut dropped = Vec::new();
    for (i, e) in evidence.evidence.iter_mut().enumerate() {
        if e.kind != EvidenceKind::Trace || e.rule == "trace.artifact" {
            continue;
        }
        let named: Vec<&str> = files
            .iter()
            .filter(|f| e.files.iter().any(|ff| names_file(ff, &f.path)))
            .map(|f| f.path.as_str())
            .take(MAX_NAMED)
            .collect();
        if named.is_empty() {
            e.detail
                .push_str("; its frames name no file this PR changes");
            if rule == TraceRule::Required {
                dropped.push(i);
            }
        } else {
            let list: Vec<String> = named.iter().map(|p| format!("`{p}`")).collect();
            e.detail.push_str(&format!(
                "; its frames name {}, changed by this PR",
                list.join(", ")
            ));
        }
    }
    for i in dropped.into_iter().rev() {
        let e = evidence.evidence.remove(i);
        evidence
            .problems
            .push(Problem::trace_names_no_changed_file(&e.detail).at(e.line));
    }
    evidence.satisfied = !evidence.evidence.is_empty();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::classify::diff::FileStatus;
    use crate::core::evidence::check_body;

    const RACE: &str = "```\nWARNING: DATA RACE\nWrite at 0x01 by goroutine 7:\n  example.com/acme/services/pool.(*Pool).Return()\n      /home/runner/work/acme/acme/services/pool/pool.go:85 +0x2f6\nPrevious read at 0x01 by goroutine 8:\n  example.com/acme/services/pool.(*Pool).Checkout()\n      /home/runner/work/acme/acme/services/pool/pool.go:41 +0x44\n```\n";

    fn changed(path: &str) -> Vec<FileChange> {
        vec![FileChange {
            path: path.into(),
            previous_path: None,
            status: FileStatus::Modified,
            patch: None,
        }]
    }

    #[test]
    fn a_report_naming_a_changed_file_says_so_and_counts() {
        let mut v = check_body(RACE, None);
        cross_check(
            &mut v,
            &changed("services/pool/pool.go"),
            TraceRule::Required,
        );
        assert!(v.satisfied);
        assert!(
            v.evidence[0]
                .detail
                .contains("`services/pool/pool.go`, changed by this PR"),
            "{}",
            v.evidence[0].detail
        );
    }

    #[test]
    fn a_report_naming_none_is_noted_and_under_required_does_not_count() {
        let mut v = check_body(RACE, None);
        cross_check(
            &mut v,
            &changed("services/ledger/ledger.go"),
            TraceRule::Advisory,
        );
        assert!(v.satisfied);
        assert!(
            v.evidence[0]
                .detail
                .contains("name no file this PR changes")
        );
        let mut v = check_body(RACE, None);
        cross_check(
            &mut v,
            &changed("services/ledger/ledger.go"),
            TraceRule::Required,
        );
        assert!(!v.satisfied);
        assert!(
            v.problems
                .iter()
                .any(|p| p.code == "trace-names-no-changed-file"),
            "{:?}",
            v.problems
        );
    }
}
