//! A PR that changes `.ci/test-reliability.yaml` so that a test's failure counts for less
//! (quarantined or probation added, a tier lowered, the default tier lowered) waits for a
//! maintainer's `/repro approve-tiers` for that head SHA (docs/history.md#quarantine-that-holds-in-ci).
//! Pure: the two files in, the lowered tests and the summary's section out.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::markdown::md;
use super::reliability::{self, ReliabilityFile};
use super::tier::Tier;

/// The id shown for a lowered `policy.default_tier` (every unlisted test).
pub const DEFAULT_TIER_ID: &str = "policy.default_tier";

/// One test whose failure counts for less after the PR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lowered {
    pub id: String,
    /// The tier on the base (`None`: not listed there; the base's default tier applied).
    pub from: Option<Tier>,
    pub to: Tier,
}

/// What the PR does to the tiers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TierChanges {
    pub lowered: Vec<Lowered>,
    /// The PR's file does not parse: nothing can be compared, so it needs approval too.
    pub unreadable: Option<String>,
}

impl TierChanges {
    /// Something a maintainer has to approve.
    pub fn needs_approval(&self) -> bool {
        !self.lowered.is_empty() || self.unreadable.is_some()
    }
}

/// Compares the reliability file on the base (`None`: absent) with the PR's (`None`: deleted).
/// A test is lowered when its tier on the PR is below the tier it had on the base (the base's
/// default tier when it was not listed), or when an entry with `probation` or `quarantined` is
/// added. A base that does not parse counts as empty (the CLI reads nothing from it either).
pub fn compare(base: Option<&str>, head: Option<&str>) -> TierChanges {
    let empty = ReliabilityFile::default();
    let base_file = base
        .and_then(|t| reliability::parse(t).ok())
        .unwrap_or_else(|| empty.clone());
    let head_file = match head {
        None => return TierChanges::default(), // deleted: every test counts fully again
        Some(t) => match reliability::parse(t) {
            Ok(f) => f,
            Err(e) => {
                return TierChanges {
                    lowered: vec![],
                    unreadable: Some(e.message),
                };
            }
        },
    };
    let before: BTreeMap<&str, Tier> = base_file
        .tests
        .iter()
        .map(|t| (t.id.as_str(), t.tier))
        .collect();
    let mut lowered = Vec::new();
    if head_file.policy.default_tier > base_file.policy.default_tier {
        lowered.push(Lowered {
            id: DEFAULT_TIER_ID.into(),
            from: Some(base_file.policy.default_tier),
            to: head_file.policy.default_tier,
        });
    }
    let mut seen = std::collections::BTreeSet::new();
    for t in &head_file.tests {
        if !seen.insert(t.id.as_str()) {
            continue;
        }
        let from = before.get(t.id.as_str()).copied();
        let was = from.unwrap_or(base_file.policy.default_tier);
        let added_below_trusted = from.is_none() && t.tier != Tier::Trusted;
        if t.tier > was || added_below_trusted {
            lowered.push(Lowered {
                id: t.id.clone(),
                from,
                to: t.tier,
            });
        }
    }
    // A test the PR removes from the file falls to the PR's default tier.
    let listed: std::collections::BTreeSet<&str> =
        head_file.tests.iter().map(|t| t.id.as_str()).collect();
    for t in &base_file.tests {
        if !listed.contains(t.id.as_str())
            && head_file.policy.default_tier > t.tier
            && seen.insert(t.id.as_str())
        {
            lowered.push(Lowered {
                id: t.id.clone(),
                from: Some(t.tier),
                to: head_file.policy.default_tier,
            });
        }
    }
    TierChanges {
        lowered,
        unreadable: None,
    }
}

/// Rows listed in the summary before "and N more".
const MAX_SHOWN: usize = 30;

/// The summary's section: each lowered test, and what lets the check pass. `approved_by`: the
/// maintainer who approved this head SHA.
pub fn section(path: &str, changes: &TierChanges, approved_by: Option<&str>) -> String {
    let mut s = String::new();
    if !changes.needs_approval() {
        return s;
    }
    let _ = writeln!(s, "### Tiers changed in `{}`\n", md(path));
    if let Some(e) = &changes.unreadable {
        let _ = writeln!(
            s,
            "This PR's `{}` does not parse ({}), so what it does to the tiers cannot be told.\n",
            md(path),
            md(e)
        );
    }
    if !changes.lowered.is_empty() {
        let _ = writeln!(
            s,
            "This PR makes these tests' failures count for less (a quarantined test's failure no longer fails `repro-gate test`):\n"
        );
        let _ = writeln!(s, "| test | on the base | in this PR |\n|---|---|---|");
        for l in changes.lowered.iter().take(MAX_SHOWN) {
            let _ = writeln!(
                s,
                "| `{}` | {} | {} |",
                md(&l.id),
                l.from.map_or("not listed", Tier::as_str),
                l.to
            );
        }
        if changes.lowered.len() > MAX_SHOWN {
            let _ = writeln!(s, "\n…and {} more.", changes.lowered.len() - MAX_SHOWN);
        }
        s.push('\n');
    }
    match approved_by {
        Some(by) => {
            let _ = writeln!(
                s,
                "@{} approved these tiers for this commit with `/repro approve-tiers`. A new push needs a new approval.\n",
                md(by)
            );
        }
        None => {
            let _ = writeln!(
                s,
                "The check cannot pass until a maintainer (write, maintain or admin permission) comments `/repro approve-tiers`; the approval holds for this commit only.\n"
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "policy:\n  default_tier: probation\ntests:\n  - id: a::TestTrusted\n    tier: trusted\n  - id: a::TestProbation\n    tier: probation\n  - id: a::TestQuarantined\n    tier: quarantined\n";

    fn ids(c: &TierChanges) -> Vec<(&str, Option<Tier>, Tier)> {
        c.lowered
            .iter()
            .map(|l| (l.id.as_str(), l.from, l.to))
            .collect()
    }

    #[test]
    fn every_lowering_is_named_and_nothing_else() {
        let head = BASE
            .replace(
                "TestTrusted\n    tier: trusted",
                "TestTrusted\n    tier: quarantined",
            )
            .replace(
                "TestProbation\n    tier: probation",
                "TestProbation\n    tier: quarantined",
            )
            .replace(
                "TestQuarantined\n    tier: quarantined",
                "TestQuarantined\n    tier: trusted",
            )
            + "  - id: b::TestNew\n    tier: quarantined\n  - id: b::TestNewTrusted\n    tier: trusted\n";
        let c = compare(Some(BASE), Some(&head));
        assert_eq!(
            ids(&c),
            vec![
                ("a::TestTrusted", Some(Tier::Trusted), Tier::Quarantined),
                ("a::TestProbation", Some(Tier::Probation), Tier::Quarantined),
                ("b::TestNew", None, Tier::Quarantined),
            ]
        );
        let one = BASE.replace(
            "TestTrusted\n    tier: trusted",
            "TestTrusted\n    tier: probation",
        );
        assert_eq!(
            ids(&compare(Some(BASE), Some(&one))),
            vec![("a::TestTrusted", Some(Tier::Trusted), Tier::Probation)]
        );
        // A new probation entry is named even where probation is the default.
        let added = format!("{BASE}  - id: c::TestP\n    tier: probation\n");
        assert_eq!(
            ids(&compare(Some(BASE), Some(&added))),
            vec![("c::TestP", None, Tier::Probation)]
        );
    }

    #[test]
    fn raising_a_tier_or_changing_stats_needs_nothing() {
        let head = BASE.replace(
            "TestQuarantined\n    tier: quarantined",
            "TestQuarantined\n    tier: probation\n    runs: 10",
        );
        let c = compare(Some(BASE), Some(&head));
        assert!(!c.needs_approval(), "{c:?}");
        assert_eq!(section(".ci/t.yaml", &c, None), "");
        assert!(!compare(Some(BASE), None).needs_approval());
        assert!(!compare(Some(BASE), Some(BASE)).needs_approval());
    }

    #[test]
    fn a_lowered_default_a_removed_entry_a_new_file_and_an_unreadable_one() {
        let head = BASE
            .replace("default_tier: probation", "default_tier: quarantined")
            .replace("  - id: a::TestTrusted\n    tier: trusted\n", "");
        let c = compare(Some(BASE), Some(&head));
        let got = ids(&c);
        assert_eq!(
            got,
            vec![
                (DEFAULT_TIER_ID, Some(Tier::Probation), Tier::Quarantined),
                ("a::TestTrusted", Some(Tier::Trusted), Tier::Quarantined),
            ]
        );
        // No file on the base: every quarantined or probation entry is new.
        let c = compare(None, Some(BASE));
        assert_eq!(c.lowered.len(), 2);
        let c = compare(Some(BASE), Some("tests: [: nope"));
        assert!(c.needs_approval() && c.unreadable.is_some());
    }

    #[test]
    fn the_section_names_each_test_and_the_command() {
        let head = BASE.replace(
            "TestProbation\n    tier: probation",
            "TestProbation\n    tier: quarantined",
        );
        let c = compare(Some(BASE), Some(&head));
        let s = section(".ci/test-reliability.yaml", &c, None);
        assert!(
            s.contains("| `a::TestProbation` | probation | quarantined |"),
            "{s}"
        );
        assert!(s.contains("`/repro approve-tiers`"), "{s}");
        let s = section(".ci/test-reliability.yaml", &c, Some("maint"));
        assert!(s.contains("@maint approved these tiers"), "{s}");
    }
}
