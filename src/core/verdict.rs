//! The gate's decision: classification + evidence + overrides and exemptions → conclusion.

use serde::Serialize;

use super::classify::Classification;
use super::config::{ConfigError, VerifyMode};
use super::evidence::EvidenceVerdict;
use super::verify::{self, Verdict as VerifyVerdict};

/// What a waiver lets through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WaiverKind {
    /// `/repro override`: one head SHA.
    Override,
    /// `/repro not-concurrency`: the whole PR, later pushes too.
    Exemption,
}

impl WaiverKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WaiverKind::Override => "override",
            WaiverKind::Exemption => "exemption",
        }
    }

    pub fn parse(s: &str) -> Option<WaiverKind> {
        match s {
            "override" => Some(WaiverKind::Override),
            "exemption" => Some(WaiverKind::Exemption),
            _ => None,
        }
    }
}

/// The waivers that bear on a PR at one head SHA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applicable {
    /// The latest override of this head SHA.
    pub override_: Option<Waiver>,
    /// The latest exemption of the PR.
    pub exemption: Option<Waiver>,
    /// Overrides of earlier head SHAs (shown, not applied: a push is evaluated afresh).
    pub earlier_overrides: Vec<Waiver>,
}

/// Which of a PR's waivers (oldest first) apply at `head_sha`.
pub fn applicable(waivers: &[Waiver], head_sha: &str) -> Applicable {
    let for_head = |w: &&Waiver| w.head_sha.as_deref() == Some(head_sha);
    Applicable {
        exemption: waivers
            .iter()
            .rev()
            .find(|w| w.kind == WaiverKind::Exemption)
            .cloned(),
        override_: waivers
            .iter()
            .rev()
            .filter(|w| w.kind == WaiverKind::Override)
            .find(for_head)
            .cloned(),
        earlier_overrides: waivers
            .iter()
            .filter(|w| w.kind == WaiverKind::Override && !for_head(w))
            .cloned()
            .collect(),
    }
}

/// Where an override posted at some time lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OverrideTarget {
    /// The head the commenter saw, still the head.
    Head(String),
    /// The head moved after the comment: overriding now would pass a commit nobody looked at.
    Moved { seen: String, now: String },
}

/// Binds an override to the head SHA the PR had when the comment was posted: `heads` are the
/// SHAs the PR had with when each was first seen, `live_head` the head now. Without a record
/// from before the comment there is nothing to compare with, and the live head is used.
pub fn override_target(
    live_head: &str,
    comment_ms: Option<i64>,
    heads: &[(String, i64)],
) -> OverrideTarget {
    let Some(at) = comment_ms else {
        return OverrideTarget::Head(live_head.to_string());
    };
    // A head first seen at the very moment of the comment counts as after it (conservative).
    let seen = heads
        .iter()
        .filter(|(_, t)| *t < at)
        .max_by_key(|(_, t)| *t)
        .map(|(sha, _)| sha.as_str());
    match seen {
        Some(sha) if sha != live_head => OverrideTarget::Moved {
            seen: sha.to_string(),
            now: live_head.to_string(),
        },
        _ => OverrideTarget::Head(live_head.to_string()),
    }
}

/// A maintainer's `/repro override` for one head SHA, or `/repro not-concurrency` for the PR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Waiver {
    pub kind: WaiverKind,
    pub by: String,
    pub reason: String,
    /// RFC 3339.
    pub at: String,
    pub head_sha: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Conclusion {
    Success,
    Failure,
    /// A person has to act first (a fork's PR waits for a writer's `/repro verify`).
    ActionRequired,
    /// No conclusion yet: the check run is `in_progress` (the reproduction is being run).
    Pending,
}

impl Conclusion {
    pub fn as_str(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::ActionRequired => "action_required",
            Conclusion::Pending => "in_progress",
        }
    }
}

/// Why the gate decided what it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    NotConcurrency,
    Evidence,
    Overridden,
    Exempted,
    MissingEvidence,
    /// The reproduction was run: it fails on the merge base and passes on the head.
    Verified,
    /// The reproduction was run (or could not be) and did not hold.
    VerificationFailed,
    /// The reproduction is being run.
    Verifying,
    /// A fork's reproduction waits for a writer's `/repro verify`.
    AwaitingWriter,
    /// The PR lowers a test's tier and no maintainer approved it for this head SHA
    /// (`/repro approve-tiers`).
    TiersUnapproved,
}

impl Basis {
    /// The gate's outcome as the dashboard counts it, for a gated PR; `None` when the PR is not
    /// under the gate or no outcome is reached yet.
    pub fn outcome(self) -> Option<&'static str> {
        match self {
            Basis::Evidence => Some("evidence"),
            Basis::Verified => Some("verified"),
            Basis::Overridden => Some("overridden"),
            Basis::Exempted => Some("exempted"),
            Basis::MissingEvidence | Basis::VerificationFailed => Some("blocked"),
            Basis::NotConcurrency
            | Basis::Verifying
            | Basis::AwaitingWriter
            | Basis::TiersUnapproved => None,
        }
    }
}

/// Everything the decision is made from.
pub struct GateInput<'a> {
    pub classification: &'a Classification,
    /// The label is on the PR (a person may have added it: that brings the PR under the gate).
    pub labeled: bool,
    pub evidence: &'a EvidenceVerdict,
    /// An override for the current head SHA.
    pub override_: Option<&'a Waiver>,
    pub exemption: Option<&'a Waiver>,
    /// Overrides of earlier head SHAs, listed in the summary.
    pub earlier_overrides: &'a [Waiver],
    pub config_error: Option<&'a ConfigError>,
    pub label: &'a str,
    /// Where verification (docs/verification.md) stands for this head.
    pub verification: &'a verify::Status,
    pub verify_mode: VerifyMode,
    /// `verify.timeout_minutes`, for the summary.
    pub verify_timeout_minutes: u32,
    /// `rerun.workflow`, for the summary.
    pub workflow: &'a str,
    /// Which config file was used, for the summary.
    pub config_source: &'a super::config::ConfigSource,
    /// What the PR does to the tiers of the reliability file (`reliability_file`).
    pub tiers: &'a super::tier_changes::TierChanges,
    /// Who approved those tiers for this head SHA (`/repro approve-tiers`).
    pub tiers_approved_by: Option<&'a str>,
    /// `reliability_file`, for the summary.
    pub reliability_file: &'a str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub conclusion: Conclusion,
    pub basis: Basis,
    /// The PR is under the gate (touches concurrency code, or carries the label).
    pub gated: bool,
}

pub fn decide(input: &GateInput<'_>) -> Decision {
    let gated = input.classification.concurrency || input.labeled;
    let (conclusion, basis) = if input.exemption.is_some() {
        (Conclusion::Success, Basis::Exempted)
    } else if !gated {
        (Conclusion::Success, Basis::NotConcurrency)
    } else if input.override_.is_some() {
        (Conclusion::Success, Basis::Overridden)
    } else if let Some(d) = verified(input) {
        d
    } else if input.evidence.satisfied {
        (Conclusion::Success, Basis::Evidence)
    } else {
        (Conclusion::Failure, Basis::MissingEvidence)
    };
    // Lowered tiers wait for a maintainer whatever else passed (an override or an exemption
    // answers for the code, not for which tests' failures count); a failure stays a failure.
    let (conclusion, basis) = if input.tiers.needs_approval()
        && input.tiers_approved_by.is_none()
        && matches!(conclusion, Conclusion::Success | Conclusion::Pending)
    {
        (Conclusion::ActionRequired, Basis::TiersUnapproved)
    } else {
        (conclusion, basis)
    };
    Decision {
        conclusion,
        basis,
        gated,
    }
}

/// Under `verify.mode: required`, a verification decides: only `verified` passes. Under
/// `advisory` (or with nothing to verify) the text decides.
fn verified(input: &GateInput<'_>) -> Option<(Conclusion, Basis)> {
    if input.verify_mode != VerifyMode::Required || !input.verification.decides() {
        return None;
    }
    Some(match (input.verification, input.verification.outcome()) {
        (verify::Status::AwaitingWriter { .. } | verify::Status::FindAwaitingWriter { .. }, _) => {
            (Conclusion::ActionRequired, Basis::AwaitingWriter)
        }
        (_, None) => (Conclusion::Pending, Basis::Verifying),
        (_, Some(o)) if o.verdict == VerifyVerdict::Verified => {
            (Conclusion::Success, Basis::Verified)
        }
        (_, Some(_)) => (Conclusion::Failure, Basis::VerificationFailed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::evidence::check_body;

    fn classification(c: bool) -> Classification {
        Classification {
            concurrency: c,
            reasons: vec![],
        }
    }

    fn waiver() -> Waiver {
        Waiver {
            kind: WaiverKind::Override,
            by: "maya".into(),
            reason: "hotfix".into(),
            at: "2026-11-29T10:00:00Z".into(),
            head_sha: Some("abc".into()),
        }
    }

    fn run(c: bool, labeled: bool, body: &str, o: Option<&Waiver>, e: Option<&Waiver>) -> Decision {
        let cl = classification(c);
        let ev = check_body(body, None);
        decide(&GateInput {
            classification: &cl,
            labeled,
            evidence: &ev,
            override_: o,
            exemption: e,
            earlier_overrides: &[],
            config_error: None,
            label: "concurrency",
            verification: &verify::Status::Inapplicable,
            verify_mode: VerifyMode::Required,
            verify_timeout_minutes: 60,
            workflow: "repro-gate-rerun.yml",
            config_source: &crate::core::config::ConfigSource::Defaults,
            tiers: &Default::default(),
            tiers_approved_by: None,
            reliability_file: ".ci/test-reliability.yaml",
        })
    }

    fn with_verification(
        status: &verify::Status,
        mode: VerifyMode,
        o: Option<&Waiver>,
    ) -> Decision {
        let cl = classification(true);
        let ev = check_body(
            "## Reproduction\nkind: seed\ntest: p::TestX\nseed: 1\n",
            None,
        );
        decide(&GateInput {
            classification: &cl,
            labeled: false,
            evidence: &ev,
            override_: o,
            exemption: None,
            earlier_overrides: &[],
            config_error: None,
            label: "concurrency",
            verification: status,
            verify_mode: mode,
            verify_timeout_minutes: 60,
            workflow: "repro-gate-rerun.yml",
            config_source: &crate::core::config::ConfigSource::Defaults,
            tiers: &Default::default(),
            tiers_approved_by: None,
            reliability_file: ".ci/test-reliability.yaml",
        })
    }

    #[test]
    fn under_required_only_a_verified_reproduction_passes() {
        use crate::core::evidence::EvidenceKind;
        use crate::core::rerun::verdict::Count;
        use crate::core::verify::{Claim, SessionView, SideState, Status};
        let claim = Claim {
            kind: EvidenceKind::Seed,
            test: Some("p::TestX".into()),
            seed: Some("1".into()),
        };
        let session = |base: u32, head: Option<u32>| {
            Status::Session(Box::new(SessionView {
                id: "vf-1".into(),
                claim: claim.clone(),
                head_sha: "h".into(),
                base_sha: "b".into(),
                runs: 20,
                tests: vec![],
                base: SideState::Done {
                    count: Count {
                        failures: base,
                        runs: 20,
                    },
                    run_url: None,
                    detail: Default::default(),
                },
                branch: match head {
                    Some(f) => SideState::Done {
                        count: Count {
                            failures: f,
                            runs: 20,
                        },
                        run_url: None,
                        detail: Default::default(),
                    },
                    None => SideState::Waiting { run_url: None },
                },
                timed_out: false,
                requested_by: None,
            }))
        };
        let req = VerifyMode::Required;
        let d = |st: &Status, m| {
            let d = with_verification(st, m, None);
            (d.conclusion, d.basis)
        };
        assert_eq!(
            d(&session(20, Some(0)), req),
            (Conclusion::Success, Basis::Verified)
        );
        assert_eq!(
            d(&session(0, Some(0)), req),
            (Conclusion::Failure, Basis::VerificationFailed)
        );
        assert_eq!(
            d(&session(20, None), req),
            (Conclusion::Pending, Basis::Verifying)
        );
        assert_eq!(
            d(
                &Status::ToStart {
                    claim: claim.clone(),
                    tests: vec![]
                },
                req
            ),
            (Conclusion::Pending, Basis::Verifying)
        );
        assert_eq!(
            d(
                &Status::AwaitingWriter {
                    claim: claim.clone()
                },
                req
            ),
            (Conclusion::ActionRequired, Basis::AwaitingWriter)
        );
        let fork_find = Status::FindAwaitingWriter {
            tests: vec!["pool/wake_test.go".into()],
            sources: vec![],
        };
        assert_eq!(
            d(&fork_find, req),
            (Conclusion::ActionRequired, Basis::AwaitingWriter)
        );
        assert_eq!(
            d(&fork_find, VerifyMode::Advisory),
            (Conclusion::Success, Basis::Evidence)
        );
        assert_eq!(
            d(
                &Status::Unrunnable {
                    claim: claim.clone(),
                    reason: "x".into()
                },
                req
            ),
            (Conclusion::Failure, Basis::VerificationFailed)
        );
        // Nothing to run: the text decides.
        assert_eq!(
            d(
                &Status::NotInstalled {
                    workflow: "w.yml".into()
                },
                req
            ),
            (Conclusion::Success, Basis::Evidence)
        );
        // Advisory: the text decides whatever the runs say.
        for st in [
            session(0, Some(0)),
            session(20, None),
            Status::AwaitingWriter {
                claim: claim.clone(),
            },
        ] {
            assert_eq!(
                d(&st, VerifyMode::Advisory),
                (Conclusion::Success, Basis::Evidence)
            );
        }
        // An override still applies.
        let w = waiver();
        assert_eq!(
            with_verification(&session(0, Some(0)), req, Some(&w)).basis,
            Basis::Overridden
        );
    }

    #[test]
    fn the_latest_override_of_this_head_and_the_latest_exemption_apply() {
        let w = |kind, sha: Option<&str>, by: &str| Waiver {
            kind,
            by: by.into(),
            reason: "r".into(),
            at: "2026-11-29T10:00:00Z".into(),
            head_sha: sha.map(str::to_string),
        };
        let all = [
            w(WaiverKind::Override, Some("old"), "ann"),
            w(WaiverKind::Override, Some("new"), "bob"),
            w(WaiverKind::Override, Some("new"), "cy"),
        ];
        let a = applicable(&all, "new");
        assert_eq!(a.override_.map(|o| o.by).as_deref(), Some("cy"));
        assert_eq!(a.earlier_overrides.len(), 1);
        assert!(a.exemption.is_none());
        let a = applicable(&all, "newer");
        assert!(a.override_.is_none(), "a push is evaluated afresh");
        assert_eq!(a.earlier_overrides.len(), 3);
        let with_exemption = [all[0].clone(), w(WaiverKind::Exemption, None, "maint")];
        assert_eq!(
            applicable(&with_exemption, "any")
                .exemption
                .map(|e| e.by)
                .as_deref(),
            Some("maint")
        );
    }

    #[test]
    fn an_override_is_bound_to_the_head_seen_when_it_was_posted() {
        let heads = vec![("aaa".to_string(), 100), ("bbb".to_string(), 500)];
        // Posted at 300, when the head was aaa; bbb was pushed at 500, before the job ran.
        assert_eq!(
            override_target("bbb", Some(300), &heads),
            OverrideTarget::Moved {
                seen: "aaa".into(),
                now: "bbb".into()
            }
        );
        assert_eq!(
            override_target("bbb", Some(600), &heads),
            OverrideTarget::Head("bbb".into())
        );
        // Nothing known from before the comment, or no time: the live head.
        assert_eq!(
            override_target("bbb", Some(50), &heads),
            OverrideTarget::Head("bbb".into())
        );
        assert_eq!(
            override_target("bbb", None, &[]),
            OverrideTarget::Head("bbb".into())
        );
    }

    #[test]
    fn lowered_tiers_wait_for_an_approval_of_this_head() {
        use crate::core::tier::Tier;
        use crate::core::tier_changes::{Lowered, TierChanges};
        let tiers = TierChanges {
            lowered: vec![Lowered {
                id: "p::TestX".into(),
                from: Some(Tier::Probation),
                to: Tier::Quarantined,
            }],
            unreadable: None,
        };
        let cl = classification(false);
        let ev = check_body("", None);
        let w = waiver();
        let d = |approved: Option<&str>, c: &Classification, e: Option<&Waiver>| {
            decide(&GateInput {
                classification: c,
                labeled: false,
                evidence: &ev,
                override_: None,
                exemption: e,
                earlier_overrides: &[],
                config_error: None,
                label: "concurrency",
                verification: &verify::Status::Inapplicable,
                verify_mode: VerifyMode::Required,
                verify_timeout_minutes: 60,
                workflow: "repro-gate-rerun.yml",
                config_source: &crate::core::config::ConfigSource::Defaults,
                tiers: &tiers,
                tiers_approved_by: approved,
                reliability_file: ".ci/test-reliability.yaml",
            })
        };
        let not = d(None, &cl, None);
        assert_eq!(
            (not.conclusion, not.basis),
            (Conclusion::ActionRequired, Basis::TiersUnapproved),
            "a non-concurrency PR too"
        );
        assert_eq!(
            d(None, &cl, Some(&w)).basis,
            Basis::TiersUnapproved,
            "an exemption does not approve tiers"
        );
        assert_eq!(d(Some("maint"), &cl, None).conclusion, Conclusion::Success);
        // A failure stays a failure (the tiers are named in its summary too).
        let gated = classification(true);
        assert_eq!(d(None, &gated, None).basis, Basis::MissingEvidence);
    }

    #[test]
    fn decisions() {
        let w = waiver();
        let seed = "## Reproduction\nkind: seed\ntest: p::TestX\nseed: 1\n";
        assert_eq!(
            run(false, false, "", None, None).basis,
            Basis::NotConcurrency
        );
        assert_eq!(
            run(true, false, "", None, None).conclusion,
            Conclusion::Failure
        );
        assert_eq!(
            run(false, true, "", None, None).conclusion,
            Conclusion::Failure,
            "a person's label gates the PR"
        );
        assert_eq!(run(true, false, seed, None, None).basis, Basis::Evidence);
        assert_eq!(
            run(true, false, "", Some(&w), None).basis,
            Basis::Overridden
        );
        assert_eq!(run(true, true, "", None, Some(&w)).basis, Basis::Exempted);
    }
}
