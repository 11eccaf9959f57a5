//! The gate's decision: classification + evidence + overrides and exemptions → conclusion.

use serde::Serialize;

use super::classify::Classification;
use super::config::ConfigError;
use super::evidence::EvidenceVerdict;

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
}

impl Conclusion {
    pub fn as_str(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
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
    } else if input.evidence.satisfied {
        (Conclusion::Success, Basis::Evidence)
    } else {
        (Conclusion::Failure, Basis::MissingEvidence)
    };
    Decision {
        conclusion,
        basis,
        gated,
    }
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
        })
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
