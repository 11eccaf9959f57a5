//! Writing `.ci/test-reliability.yaml` from the history: the header (docs/history.md#the-reliability-file), the policy, and the
//! tests ordered by tier then id. Strings are written as double-quoted scalars (JSON escaping is
//! valid YAML), so people's notes come back byte for byte whatever they hold.

use std::fmt::Write as _;

use super::tiers::{Change, Decided, TestHistory, decide, pct};
use crate::core::reliability::{Policy, ReliabilityFile, TestEntry};
use crate::core::test_ids;

/// The header the generator writes.
pub const HEADER: &str = "# Generated nightly by repro-gate from CI history. Edit tier/notes by PR; never hand-edit stats.";

/// The new file and the tier changes (each with its reason).
#[derive(Clone, Debug, PartialEq)]
pub struct Built {
    pub file: ReliabilityFile,
    pub changes: Vec<Change>,
}

/// Tier changes proposed before: entry id → (the tier proposed, the test's run count then).
pub type Proposals = std::collections::HashMap<String, (crate::core::tier::Tier, u64)>;

/// Recomputes every test with history; tests of `existing` without history are kept as they
/// are. A test whose tier is one this service proposed counts its runs since that proposal
/// (hysteresis); without one, every recorded run counts.
pub fn build<'a>(
    existing: &ReliabilityFile,
    histories: impl IntoIterator<Item = TestHistory<'a>>,
    proposals: &Proposals,
) -> Built {
    let policy = &existing.policy;
    let by_id: std::collections::HashMap<&str, &TestEntry> =
        existing.tests.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut by_last: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for t in &existing.tests {
        if let Some(last) = test_ids::parts(&t.id).last() {
            by_last.entry(last).or_default().push(t.id.as_str());
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut tests = Vec::new();
    let mut changes = Vec::new();
    for h in histories {
        if h.window.total == 0 {
            // Skipped in every run: no result to decide a tier from (a listed test stays as
            // the file has it, below).
            continue;
        }
        let id = resolve(&by_id, &by_last, h.id).unwrap_or(h.id);
        if !seen.insert(id.to_string()) {
            continue;
        }
        let current = by_id.get(id).copied();
        let since_change = h.since_change.or_else(|| {
            let (tier, at) = proposals.get(id)?;
            (current.map(|e| e.tier) == Some(*tier)).then(|| h.window.total.saturating_sub(*at))
        });
        let h = TestHistory {
            id,
            since_change,
            ..h
        };
        let Decided { entry, change } = decide(policy, current, &h);
        tests.push(entry);
        changes.extend(change);
    }
    for t in &existing.tests {
        if !seen.contains(&t.id) {
            tests.push(t.clone());
        }
    }
    tests.sort_by(|a, b| a.tier.cmp(&b.tier).then_with(|| a.id.cmp(&b.id)));
    changes.sort_by(|a, b| a.id.cmp(&b.id));
    Built {
        file: ReliabilityFile {
            policy: policy.clone(),
            tests,
        },
        changes,
    }
}

/// The existing entry a recorded id belongs to: the same id, else an entry that names the
/// same test in another form (Go import paths carry the module prefix; `tests/bounded.rs::x`
/// is `bounded::x`): see [`test_ids::same_test`]. Entries are looked up by their last part, so
/// a history of thousands of tests stays linear.
fn resolve<'a>(
    by_id: &std::collections::HashMap<&'a str, &'a TestEntry>,
    by_last: &std::collections::HashMap<&'a str, Vec<&'a str>>,
    id: &str,
) -> Option<&'a str> {
    if let Some((k, _)) = by_id.get_key_value(id) {
        return Some(k);
    }
    let parts = test_ids::parts(id);
    by_last
        .get(parts.last()?)?
        .iter()
        .copied()
        .find(|entry| test_ids::same_test(entry, id))
}

fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A date or plain word that needs no quotes (`2026-05-14`); anything else is quoted.
fn scalar(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || c == '-') && s.len() == 10;
    if plain { s.to_string() } else { q(s) }
}

fn num(x: f64) -> String {
    let s = format!("{x}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

/// The file as YAML text.
pub fn render(file: &ReliabilityFile) -> String {
    let p: &Policy = &file.policy;
    let mut s = String::new();
    let _ = writeln!(s, "# .ci/test-reliability.yaml\n{HEADER}");
    let _ = writeln!(s, "policy:");
    let _ = writeln!(s, "  window_runs: {}", p.window_runs);
    let _ = writeln!(s, "  flake_budget: {}", num(p.flake_budget));
    let _ = writeln!(s, "  promote_after_window: {}", p.promote_after_window);
    let _ = writeln!(s, "  default_tier: {}", p.default_tier);
    let _ = writeln!(s, "  min_runs: {}", p.min_runs);
    let _ = writeln!(s, "  recovery_budget: {}", num(p.recovery()));
    let _ = writeln!(s, "  broken_after: {}", p.broken_after);
    if file.tests.is_empty() {
        let _ = writeln!(s, "tests: []");
        return s;
    }
    let _ = writeln!(s, "tests:");
    for t in &file.tests {
        let _ = writeln!(s, "  - id: {}", q(&t.id));
        let _ = writeln!(s, "    tier: {}", t.tier);
        if t.pin == Some(true) {
            let _ = writeln!(s, "    pin: true");
        }
        if let Some(r) = t.runs {
            let _ = writeln!(s, "    runs: {r}");
        }
        if let Some(f) = t.failures {
            let _ = writeln!(s, "    failures: {f}");
        }
        if let Some(r) = t.pass_rate {
            let _ = writeln!(s, "    pass_rate: {r:.3}");
        }
        if let Some(d) = &t.first_flaky {
            let _ = writeln!(s, "    first_flaky: {}", scalar(d));
        }
        if let Some(d) = &t.last_failure {
            let _ = writeln!(s, "    last_failure: {}", scalar(d));
        }
        if t.broken == Some(true) {
            let _ = writeln!(s, "    broken: true");
        }
        if let Some(o) = &t.onset {
            let _ = writeln!(s, "    onset:");
            if let Some(lp) = &o.last_pass_sha {
                let _ = writeln!(s, "      last_pass_sha: {}", q(lp));
            }
            let _ = writeln!(s, "      first_fail_sha: {}", q(&o.first_fail_sha));
            let _ = writeln!(s, "      at: {}", q(&o.at));
        }
        for (key, v) in [
            ("owner", &t.owner),
            ("ticket", &t.ticket),
            ("note", &t.note),
        ] {
            if let Some(v) = v {
                let _ = writeln!(s, "    {key}: {}", q(v));
            }
        }
    }
    s
}

/// The tier changes as markdown lines (the pull request's body and `history build`'s stderr).
pub fn changes_text(changes: &[Change], markdown: bool) -> String {
    let mut s = String::new();
    for c in changes {
        if markdown {
            let _ = writeln!(
                s,
                "- {}: **{}** → **{}**: {}",
                crate::core::markdown::name(&c.id),
                c.from,
                c.to,
                c.reason
            );
        } else {
            let _ = writeln!(s, "{}: {} -> {}: {}", c.id, c.from, c.to, c.reason);
        }
    }
    s
}

/// The pull request's body.
pub fn pr_body(changes: &[Change], policy: &Policy) -> String {
    let mut s = String::from(
        "repro-gate recomputed `.ci/test-reliability.yaml` from CI history (runs on the default branch and the merge queue; outage runs left out).\n\n",
    );
    if changes.is_empty() {
        s.push_str("No tier changes: the statistics were refreshed.\n");
    } else {
        let _ = writeln!(s, "### Tier changes\n");
        s.push_str(&changes_text(changes, true));
    }
    let _ = writeln!(
        s,
        "\nThe rule: a test drops one tier when its last {} runs (at least {}) fail more than {} %; it climbs one tier only after a full window of {} runs since its last change at or below {} %. A test failing its last {} runs is marked `broken` (a real failure) and never quarantined. `pin: true` keeps a tier; owners, tickets and notes are yours.\n\nReview and merge by hand; repro-gate never merges this PR.",
        policy.window_runs,
        policy.min_runs,
        pct(policy.flake_budget),
        policy.window_runs,
        pct(policy.recovery()),
        policy.broken_after
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::history::window::{Counted, Window};
    use crate::core::reliability;
    use crate::core::tier::Tier;

    const EXISTING: &str = "policy:\n  window_runs: 200\n  flake_budget: 0.02\n  min_runs: 20\n  recovery_budget: 0.01\ntests:\n  - id: services/pool::TestA\n    tier: trusted\n    owner: pool\n    note: \"Retries hit a shared Redis: \\\"FLUSHDB\\\" in another job — see #412\"\n  - id: services/pool::TestB\n    tier: quarantined\n    note: |\n      Two lines.\n      Second: kept.\n  - id: services/pool::Gone\n    tier: probation\n    owner: x\n";

    /// The tier the built file gives the test whose id ends with `name`.
    fn tier_of(b: &Built, name: &str) -> Tier {
        b.file
            .tests
            .iter()
            .find(|t| t.id.ends_with(name))
            .map(|t| t.tier)
            .unwrap_or_else(|| panic!("{name} is not in the built file"))
    }

    fn win(fails: usize, runs: usize) -> Window {
        let mut w = Window::default();
        for i in 0..runs {
            w.push(
                if i < fails {
                    Counted::Fail
                } else {
                    Counted::Pass
                },
                "2026-11-30",
            );
        }
        w
    }

    #[test]
    fn the_written_file_parses_keeps_peoples_fields_and_round_trips() {
        let existing = reliability::parse(EXISTING).unwrap();
        let (a, b, c) = (win(10, 200), win(0, 200), win(0, 30));
        let built = build(
            &existing,
            [
                TestHistory {
                    id: "example.com/acme/services/pool::TestA",
                    window: &a,
                    since_change: None,
                },
                TestHistory {
                    id: "services/pool::TestB",
                    window: &b,
                    since_change: None,
                },
                TestHistory {
                    id: "services/pool::TestNew",
                    window: &c,
                    since_change: None,
                },
            ],
            &Proposals::new(),
        );
        let text = render(&built.file);
        assert!(text.starts_with("# .ci/test-reliability.yaml\n# Generated nightly"));
        let back = reliability::parse(&text).expect("the output parses");
        assert_eq!(back, built.file, "round trip");
        let a = back
            .tests
            .iter()
            .find(|t| t.id == "services/pool::TestA")
            .unwrap();
        assert_eq!(a.tier, Tier::Probation);
        assert_eq!(a.note, existing.tests[0].note);
        let b = back
            .tests
            .iter()
            .find(|t| t.id == "services/pool::TestB")
            .unwrap();
        assert_eq!(b.note.as_deref(), Some("Two lines.\nSecond: kept.\n"));
        assert_eq!(
            b.tier,
            Tier::Probation,
            "a full clean window climbs one tier"
        );
        // A test without history is kept as it is.
        assert!(back.tests.iter().any(|t| t.id == "services/pool::Gone"));
        // Ordered by tier, then id.
        let order: Vec<(Tier, &str)> = back.tests.iter().map(|t| (t.tier, t.id.as_str())).collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted);
        assert_eq!(built.changes.len(), 2);
        // Building again from the written file with the same history changes nothing more
        // than the tiers it already holds.
        assert_eq!(render(&build(&back, [], &Proposals::new()).file), text);
    }

    #[test]
    fn a_climb_counts_only_the_runs_since_the_change_this_service_proposed() {
        let existing = reliability::parse(EXISTING).unwrap();
        let clean = win(0, 300);
        let histories = || {
            [TestHistory {
                id: "services/pool::TestB",
                window: &clean,
                since_change: None,
            }]
        };
        // Quarantined by our proposal when it had 150 runs: 150 since, not a full window.
        let mut proposals = Proposals::new();
        proposals.insert("services/pool::TestB".into(), (Tier::Quarantined, 150));
        let b = build(&existing, histories(), &proposals);
        assert_eq!(tier_of(&b, "TestB"), Tier::Quarantined);
        // Proposed at 100 runs: 200 since, a full window: it climbs.
        proposals.insert("services/pool::TestB".into(), (Tier::Quarantined, 100));
        let b = build(&existing, histories(), &proposals);
        assert_eq!(tier_of(&b, "TestB"), Tier::Probation);
    }

    #[test]
    fn the_pr_body_names_each_change_with_its_reason() {
        let existing = reliability::parse(EXISTING).unwrap();
        let a = win(3, 30);
        let built = build(
            &existing,
            [TestHistory {
                id: "services/pool::TestA",
                window: &a,
                since_change: None,
            }],
            &Proposals::new(),
        );
        let body = pr_body(&built.changes, &existing.policy);
        let at = body.find("services/pool::TestA").unwrap();
        assert!(body[at..].starts_with("services/pool::TestA`: **trusted** → **probation**: 3 failures in the last 30 runs: 10.0 % > 2 %"), "{body}");
    }

    #[test]
    fn the_built_file_says_since_when_a_test_fails_and_lookup_reads_it() {
        let mut w =
            crate::core::history::window::failing_from(30, 25, 1_764_547_200_000, 86_400_000, None);
        let built = build(
            &ReliabilityFile::default(),
            [TestHistory {
                id: "svc::TestDrain",
                window: &w,
                since_change: None,
            }],
            &Proposals::new(),
        );
        let text = render(&built.file);
        let back = reliability::parse(&text).expect("the written file parses");
        let o = back.tests[0].onset.clone().expect("an onset");
        assert_eq!(o.last_pass_sha, Some(format!("{:040x}", 24)));
        assert_eq!(o.first_fail_sha, format!("{:040x}", 25));
        assert_eq!(o.at, "2025-12-26T00:00:00Z");
        let l = crate::local::lookup::lookup("svc::TestDrain", &text).expect("lookup");
        assert_eq!(l.onset, Some(o));
        // A test that passes again loses it at the next build.
        for i in 30..40i64 {
            w.push_run(Counted::Pass, "2026-12-01", &format!("{i:040x}"), i, None);
        }
        let built = build(
            &back,
            [TestHistory {
                id: "svc::TestDrain",
                window: &w,
                since_change: None,
            }],
            &Proposals::new(),
        );
        assert_eq!(built.file.tests[0].onset, None);
    }
}
