//! Every string a person reads on GitHub: the check run's title and summary, and the replies.
//! Pinned by insta snapshots.

use std::fmt::Write as _;

use super::classify::Classification;
use super::evidence::{EvidenceKind, TEMPLATE};
use super::markdown::md;
use super::verdict::{Basis, Conclusion, Decision, GateInput};

/// The check run's name.
pub const CHECK_NAME: &str = "repro-gate";
/// Reasons listed in a summary before "and N more".
const MAX_REASONS_SHOWN: usize = 15;

pub struct CheckText {
    pub title: String,
    pub summary: String,
}

fn kind_name(k: EvidenceKind) -> &'static str {
    match k {
        EvidenceKind::Seed => "seed",
        EvidenceKind::Interleaving => "interleaving",
        EvidenceKind::Trace => "trace",
    }
}

pub fn check_run(input: &GateInput<'_>, decision: &Decision) -> CheckText {
    let title = match decision.basis {
        Basis::NotConcurrency => "No concurrency code touched".to_string(),
        Basis::Evidence => "Deterministic reproduction found".to_string(),
        Basis::Overridden => "Overridden by a maintainer".to_string(),
        Basis::Exempted => "Exempted: not a concurrency change".to_string(),
        Basis::MissingEvidence => "Missing a deterministic reproduction".to_string(),
        Basis::Verified | Basis::Verifying
            if let Some(t) = super::verify::find_summary::title(input.verification) =>
        {
            t.to_string()
        }
        Basis::Verified => "Reproduction verified".to_string(),
        Basis::Verifying => "Verifying the reproduction".to_string(),
        Basis::AwaitingWriter => "Verification waits for a writer's /repro verify".to_string(),
        Basis::TiersUnapproved => {
            "Tiers lowered: waits for a maintainer's /repro approve-tiers".to_string()
        }
        Basis::VerificationFailed => match input.verification.outcome() {
            Some(o) => format!("Verification: {}", o.verdict.as_str()),
            None => "Verification failed".to_string(),
        },
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "**Verdict: {}** — {}.\n",
        match decision.conclusion {
            Conclusion::Pending => "in progress",
            Conclusion::ActionRequired => "action required",
            c => c.as_str(),
        },
        title.to_lowercase()
    );
    match decision.basis {
        Basis::Exempted => {
            if let Some(w) = input.exemption {
                let _ = writeln!(
                    s,
                    "@{} marked this PR as not a concurrency change on {}: \"{}\". Later pushes stay exempt.\n",
                    w.by,
                    w.at,
                    md(&w.reason)
                );
            }
        }
        Basis::Overridden => {
            if let Some(w) = input.override_ {
                let _ = writeln!(
                    s,
                    "@{} overrode the gate for this commit on {}: \"{}\". The next push is evaluated afresh.\n",
                    w.by,
                    w.at,
                    md(&w.reason)
                );
            }
        }
        Basis::NotConcurrency => {
            let _ = writeln!(
                s,
                "No added or removed line touches concurrency code, so no reproduction is needed.\n"
            );
        }
        _ => {}
    }
    s.push_str(&super::tier_changes::section(
        input.reliability_file,
        input.tiers,
        input.tiers_approved_by,
    ));
    if !input.evidence.evidence.is_empty() {
        let _ = writeln!(s, "### Evidence found\n");
        let _ = writeln!(s, "| kind | test | where and what |\n|---|---|---|");
        for e in &input.evidence.evidence {
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                kind_name(e.kind),
                e.test
                    .as_deref()
                    .map(|t| format!("`{}`", md(t)))
                    .unwrap_or_else(|| "—".into()),
                md(&e.detail)
            );
        }
        s.push('\n');
    }
    let show_problems = decision.gated && !matches!(decision.basis, Basis::Exempted);
    if show_problems && !input.evidence.problems.is_empty() {
        let _ = writeln!(
            s,
            "### {}\n",
            if input.evidence.satisfied {
                "Notes"
            } else {
                "What is missing"
            }
        );
        for p in &input.evidence.problems {
            let at = p.line.map(|l| format!(" (line {l})")).unwrap_or_default();
            let _ = writeln!(s, "- **`{}`**{at}: {}", p.code, p.message);
        }
        s.push('\n');
    }
    if decision.basis == Basis::MissingEvidence {
        let _ = writeln!(
            s,
            "### How to add it\n\nAdd this section to the PR description (then the check re-runs by itself), with one of the three kinds:\n\n```markdown\n{TEMPLATE}\n```\n"
        );
        let _ = writeln!(
            s,
            "- `kind: seed`: the seed that drives the bad ordering and the test it drives (`--seed N`, `SEED=…`, a simulator's command line with its seed and test file, proptest `cc …`, Hypothesis `@reproduce_failure`, a shuttle schedule). A `-test.shuffle` seed only orders tests and does not count; nor does a stress count (`-count=N`)."
        );
        let _ = writeln!(
            s,
            "- `kind: interleaving`: a test added by this PR that forces the ordering (hooks, channels, barriers, sync points, latches, yield injection, failpoints, `loom::model`, `testing/synctest`, jcstress) and fails every time before the change (`base: fails 100/100`)."
        );
        let _ = writeln!(
            s,
            "- `kind: trace`: a race report showing both conflicting accesses (Go race detector, ThreadSanitizer, Helgrind/DRD, Miri) or a link to the recorded trace file.\n"
        );
        let _ = writeln!(
            s,
            "\"Reran and it is green\", \"could not reproduce\" and a clean race-detector run are never evidence. A maintainer can override with `/repro override <reason>`, or exempt a PR that is not a concurrency change with `/repro not-concurrency <reason>`.\n"
        );
    }
    if decision.gated
        && decision.basis != Basis::Exempted
        && let Some(v) = super::verify::find_summary::section(
            input.verification,
            input.verify_mode,
            input.workflow,
            input.verify_timeout_minutes,
        )
    {
        s.push_str(v.trim_end());
        s.push_str("\n\n");
    }
    if decision.gated {
        reasons(&mut s, input.classification, input.labeled, input.label);
    }
    if !input.earlier_overrides.is_empty() {
        let _ = writeln!(s, "### Earlier overrides\n");
        for w in input.earlier_overrides {
            let _ = writeln!(
                s,
                "- `{}` by @{} on {}: \"{}\"",
                w.head_sha
                    .as_deref()
                    .map(|h| h.chars().take(7).collect::<String>())
                    .unwrap_or_else(|| "?".into()),
                w.by,
                w.at,
                md(&w.reason)
            );
        }
        s.push('\n');
    }
    if let Some(e) = input.config_error {
        let _ = writeln!(
            s,
            "### Configuration error\n\n`{}` could not be used, so the defaults apply:\n\n```\n{e}\n```\n",
            super::config::CONFIG_PATH
        );
    }
    let _ = writeln!(s, "Config: {}.\n", input.config_source.describe());
    if decision.gated && matches!(decision.basis, Basis::Evidence) {
        let _ = writeln!(
            s,
            "Reviewers: confirm the reproduction fails without the change."
        );
    }
    CheckText {
        title,
        summary: s.trim_end().to_string() + "\n",
    }
}

fn reasons(s: &mut String, c: &Classification, labeled: bool, label: &str) {
    let _ = writeln!(s, "### Why this PR is under the gate\n");
    if labeled && !c.concurrency {
        let _ = writeln!(s, "- The PR carries the `{}` label.", md(label));
    }
    let counted: Vec<_> = c
        .reasons
        .iter()
        .filter(|r| r.rule != super::classify::RULE_NO_PATCH)
        .collect();
    for r in counted.iter().take(MAX_REASONS_SHOWN) {
        let line = r.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(
            s,
            "- `{}{}` — `{}`: `{}`",
            md(&r.file),
            line,
            r.rule,
            md(&r.text).replace('`', "'")
        );
    }
    if counted.len() > MAX_REASONS_SHOWN {
        let _ = writeln!(s, "- … and {} more", counted.len() - MAX_REASONS_SHOWN);
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::classify::Reason;
    use crate::core::config::ConfigError;
    use crate::core::evidence::check_body;
    use crate::core::verdict::{Waiver, WaiverKind, decide};

    fn classification() -> Classification {
        Classification {
            concurrency: true,
            reasons: vec![Reason {
                file: "pool/pool.go".into(),
                line: Some(41),
                rule: "go.goroutine".into(),
                text: "go p.refill()".into(),
            }],
        }
    }

    fn render(
        body: &str,
        concurrency: bool,
        o: Option<&Waiver>,
        e: Option<&Waiver>,
        cfg: Option<&ConfigError>,
    ) -> String {
        let c = if concurrency {
            classification()
        } else {
            Classification {
                concurrency: false,
                reasons: vec![],
            }
        };
        let ev = check_body(body, None);
        let earlier = [Waiver {
            kind: WaiverKind::Override,
            by: "lee".into(),
            reason: "release blocker".into(),
            at: "2026-11-01T09:00:00Z".into(),
            head_sha: Some("0123456789".into()),
        }];
        let input = GateInput {
            classification: &c,
            labeled: false,
            evidence: &ev,
            override_: o,
            exemption: e,
            earlier_overrides: if o.is_some() { &earlier } else { &[] },
            config_error: cfg,
            label: "concurrency",
            verification: &crate::core::verify::Status::Inapplicable,
            verify_mode: crate::core::config::VerifyMode::Required,
            verify_timeout_minutes: 60,
            workflow: "repro-gate-rerun.yml",
            config_source: &crate::core::config::ConfigSource::Defaults,
            tiers: &Default::default(),
            tiers_approved_by: None,
            reliability_file: ".ci/test-reliability.yaml",
        };
        let d = decide(&input);
        let t = check_run(&input, &d);
        format!("# {}\n\n{}", t.title, t.summary)
    }

    fn waiver() -> Waiver {
        Waiver {
            kind: WaiverKind::Override,
            by: "maya".into(),
            reason: "hotfix for the outage".into(),
            at: "2026-11-29T10:00:00Z".into(),
            head_sha: Some("abc".into()),
        }
    }

    #[test]
    fn summary_missing_evidence() {
        insta::assert_snapshot!(render(
            "I reran it and it is green now.",
            true,
            None,
            None,
            None
        ));
    }

    #[test]
    fn summary_evidence_found() {
        insta::assert_snapshot!(render(
            "## Reproduction\nkind: seed\ntest: pool::TestCheckout\nseed: 7311\n",
            true,
            None,
            None,
            None
        ));
    }

    #[test]
    fn summary_near_misses_say_what_would_count() {
        let body = "Race from CI:\n\n```\nWARNING: DATA RACE\nWrite at 0x01 by goroutine 8:\n  pool.checkout()\n```\n\nReproduced with `go test -run TestPool -shuffle=1712345678 -count=500 ./pool`.\n";
        insta::assert_snapshot!(render(body, true, None, None, None));
    }

    #[test]
    fn summary_not_concurrency() {
        insta::assert_snapshot!(render("", false, None, None, None));
    }

    #[test]
    fn summary_overridden() {
        insta::assert_snapshot!(render("", true, Some(&waiver()), None, None));
    }

    #[test]
    fn summary_exempted() {
        insta::assert_snapshot!(render("", true, None, Some(&waiver()), None));
    }

    #[test]
    fn summary_with_config_error() {
        let e = ConfigError {
            message: "unknown field `labels`".into(),
            line: Some(2),
            column: Some(1),
        };
        insta::assert_snapshot!(render("", true, None, None, Some(&e)));
    }
}
