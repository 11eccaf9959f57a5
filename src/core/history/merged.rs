//! Tier changes as merged: what moved between two blobs of the default branch's reliability
//! file (a test not listed has the file's default tier). These are the changes people made
//! (or accepted); the history's open proposals are apart.

use std::collections::HashMap;

/// A test whose tier moved from one file to the next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moved {
    pub test: String,
    pub from: String,
    pub to: String,
}

/// One blob's tiers: its default tier and its listed tests' tiers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tiers {
    pub default_tier: String,
    pub listed: HashMap<String, String>,
}

impl Tiers {
    fn of(&self, test: &str) -> &str {
        self.listed
            .get(test)
            .map_or(self.default_tier.as_str(), String::as_str)
    }
}

/// Every test listed in either blob whose tier differs, by id.
pub fn moves(old: &Tiers, new: &Tiers) -> Vec<Moved> {
    let mut out: Vec<Moved> = old
        .listed
        .keys()
        .chain(new.listed.keys().filter(|t| !old.listed.contains_key(*t)))
        .filter(|t| old.of(t) != new.of(t))
        .map(|t| Moved {
            test: t.clone(),
            from: old.of(t).to_string(),
            to: new.of(t).to_string(),
        })
        .collect();
    out.sort_by(|a, b| a.test.cmp(&b.test));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiers(default_tier: &str, listed: &[(&str, &str)]) -> Tiers {
        Tiers {
            default_tier: default_tier.into(),
            listed: listed
                .iter()
                .map(|(t, x)| (t.to_string(), x.to_string()))
                .collect(),
        }
    }

    #[test]
    fn a_changed_an_added_and_a_removed_entry_move() {
        let old = tiers(
            "probation",
            &[("a", "trusted"), ("b", "probation"), ("c", "quarantined")],
        );
        let new = tiers(
            "probation",
            &[("a", "probation"), ("b", "probation"), ("d", "quarantined")],
        );
        let m = moves(&old, &new);
        let got: Vec<(&str, &str, &str)> = m
            .iter()
            .map(|x| (x.test.as_str(), x.from.as_str(), x.to.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("a", "trusted", "probation"),
                ("c", "quarantined", "probation"),
                ("d", "probation", "quarantined")
            ]
        );
    }

    #[test]
    fn listing_a_test_at_the_default_tier_is_no_move() {
        let old = tiers("probation", &[]);
        let new = tiers("probation", &[("a", "probation")]);
        assert!(moves(&old, &new).is_empty());
        assert!(moves(&new, &new).is_empty());
    }

    #[test]
    fn a_new_default_tier_moves_the_unlisted_tests_only_where_listed() {
        let old = tiers("probation", &[("a", "trusted")]);
        let new = tiers("trusted", &[("b", "quarantined")]);
        let m = moves(&old, &new);
        assert_eq!(m.len(), 1, "{m:?}: a stays trusted; b moves");
        assert_eq!(m[0].test, "b");
    }
}
