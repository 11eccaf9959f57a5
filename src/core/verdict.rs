//! The gate's decision: classification + evidence + overrides and exemptions → conclusion.

use serde::Serialize;

use super::classify::Classification;
use super::config::ConfigError;
use super::evidence::EvidenceVerdict;

/// A maintainer's `/repro override` for one head SHA, or `/repro not-concurrency` for the PR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Waiver {
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
