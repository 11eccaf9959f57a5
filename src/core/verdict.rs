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
