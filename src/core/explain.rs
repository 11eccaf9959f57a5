//! Explanations for people (`check-body --explain`, `classify --explain`): which rule fired
//! where, and which near-miss was refused and why, with line numbers. Pure text from verdicts.

use std::fmt::Write as _;

use super::classify::{FileNote, Treatment};
use super::evidence::EvidenceVerdict;

/// What `check-body` found, line by line.
pub fn evidence(v: &EvidenceVerdict) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}",
        if v.satisfied {
            "satisfied: the description holds a deterministic reproduction"
        } else {
            "not satisfied: no deterministic reproduction found"
        }
    );
    for e in &v.evidence {
        let at = e
            .line
            .map(|l| format!("line {l}"))
            .unwrap_or_else(|| "title".into());
        let test = e
            .test
            .as_deref()
            .map(|t| format!(" for {t}"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  counts   {at}: {} ({}){test}: {}",
            kind(e.kind),
            e.rule,
            e.detail
        );
    }
    for p in &v.problems {
        let at = p
            .line
            .map(|l| format!("line {l}"))
            .unwrap_or_else(|| "body".into());
        let _ = writeln!(s, "  refused  {at}: {}: {}", p.code, p.message);
    }
    s
}

fn kind(k: super::evidence::EvidenceKind) -> &'static str {
    match k {
        super::evidence::EvidenceKind::Seed => "seed",
        super::evidence::EvidenceKind::Interleaving => "interleaving",
        super::evidence::EvidenceKind::Trace => "trace",
    }
}

/// What `classify` did with each file.
pub fn classification(concurrency: bool, notes: &[FileNote]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}",
        if concurrency {
            "concurrency: the change touches concurrency code"
        } else {
            "not concurrency: no counted line touches concurrency code"
        }
    );
    for n in notes {
        match &n.treatment {
            Treatment::Counted(reasons) => {
                for r in reasons {
                    let at = r.line.map(|l| format!(":{l}")).unwrap_or_default();
                    let _ = writeln!(s, "  counts   {}{at}: {}: {}", r.file, r.rule, r.text);
                }
            }
            other => {
                let _ = writeln!(s, "  skipped  {}: {}", n.path, other.why());
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::classify::diff::parse_unified;
    use crate::core::classify::explain_files;
    use crate::core::config::RepoConfig;
    use crate::core::evidence::check_body;

    #[test]
    fn evidence_explanations_name_the_rule_and_the_line() {
        let v = check_body(
            "Fix.\n\nseed: -f tests/sim.toml -s 4242\n\n```\n-test.shuffle 99\n```\n",
            None,
        );
        let text = evidence(&v);
        assert!(text.starts_with("satisfied"), "{text}");
        assert!(
            text.contains("counts   line 3: seed (seed.command) for tests/sim.toml"),
            "{text}"
        );
        let v = check_body("Run with `go test -shuffle=77 ./...`", None);
        let text = evidence(&v);
        assert!(
            text.contains("refused  line 1: shuffle-seed-only"),
            "{text}"
        );
    }

    #[test]
    fn classification_explanations_say_why_files_were_skipped() {
        let files = parse_unified("diff --git a/pool.go b/pool.go\n--- a/pool.go\n+++ b/pool.go\n@@ -1,1 +1,2 @@\n x\n+\tp.mu.Lock()\ndiff --git a/docs/a.md b/docs/a.md\n--- a/docs/a.md\n+++ b/docs/a.md\n@@ -1,1 +1,2 @@\n x\n+lock\n").unwrap();
        let config = RepoConfig::default();
        let text = classification(true, &explain_files(&files, &config));
        assert!(text.contains("counts   pool.go:2: go.lock-call"), "{text}");
        assert!(
            text.contains("skipped  docs/a.md: ignored by the config"),
            "{text}"
        );
    }
}
