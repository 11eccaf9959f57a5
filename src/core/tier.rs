//! The tiers of `.ci/test-reliability.yaml`, and what each asks of the person or agent reading
//! a failure.

use serde::{Deserialize, Serialize};

/// How far a test's failure can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// A failure is real evidence.
    Trusted,
    /// Flaky at times: rerun it alone on both sides before forming a hypothesis.
    Probation,
    /// A failure is not evidence.
    Quarantined,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::Trusted, Tier::Probation, Tier::Quarantined];

    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Trusted => "trusted",
            Tier::Probation => "probation",
            Tier::Quarantined => "quarantined",
        }
    }

    /// The tier `as_str` names.
    pub fn named(name: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// One tier down (trusted → probation → quarantined).
    pub fn lower(self) -> Tier {
        match self {
            Tier::Trusted => Tier::Probation,
            Tier::Probation | Tier::Quarantined => Tier::Quarantined,
        }
    }

    /// One tier up (quarantined → probation → trusted).
    pub fn higher(self) -> Tier {
        match self {
            Tier::Quarantined => Tier::Probation,
            Tier::Probation | Tier::Trusted => Tier::Trusted,
        }
    }
}

impl std::fmt::Display for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tier, or a test the reliability file does not list (`rerun.auto` names both).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Standing {
    Trusted,
    Probation,
    Quarantined,
    Unlisted,
}

impl Standing {
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Trusted => "trusted",
            Standing::Probation => "probation",
            Standing::Quarantined => "quarantined",
            Standing::Unlisted => "unlisted",
        }
    }

    /// The standing `as_str` names; anything else is unlisted.
    pub fn named(name: &str) -> Standing {
        match name {
            "trusted" => Standing::Trusted,
            "probation" => Standing::Probation,
            "quarantined" => Standing::Quarantined,
            _ => Standing::Unlisted,
        }
    }

    /// A failing test's standing: its entry's tier, or unlisted.
    pub fn of(tier: Option<Tier>) -> Standing {
        match tier {
            Some(Tier::Trusted) => Standing::Trusted,
            Some(Tier::Probation) => Standing::Probation,
            Some(Tier::Quarantined) => Standing::Quarantined,
            None => Standing::Unlisted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_move_one_step_and_stop_at_the_ends() {
        assert_eq!(Tier::Trusted.lower(), Tier::Probation);
        assert_eq!(Tier::Probation.lower(), Tier::Quarantined);
        assert_eq!(Tier::Quarantined.lower(), Tier::Quarantined);
        assert_eq!(Tier::Quarantined.higher(), Tier::Probation);
        assert_eq!(Tier::Trusted.higher(), Tier::Trusted);
    }

    #[test]
    fn tiers_read_and_write_in_lowercase() {
        let t: Vec<Tier> =
            serde_json::from_str(r#"["trusted","probation","quarantined"]"#).unwrap();
        assert_eq!(t, Tier::ALL);
        assert!(serde_json::from_str::<Tier>(r#""flaky""#).is_err());
        assert_eq!(Standing::of(None), Standing::Unlisted);
        for t in Tier::ALL {
            assert_eq!(Tier::named(t.as_str()), Some(t));
        }
        assert_eq!(Tier::named("flaky"), None);
        for s in [
            Standing::Trusted,
            Standing::Probation,
            Standing::Quarantined,
            Standing::Unlisted,
        ] {
            assert_eq!(Standing::named(s.as_str()), s);
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.as_str())
            );
        }
    }
}
