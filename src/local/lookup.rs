//! A test looked up in the checkout's reliability file: its tier, stats and the tier's
//! instruction, worded exactly as the reliability comment words it. `repro-gate lookup` prints
//! it; the MCP tool `lookup_test` returns it.

use serde::Serialize;

use crate::core::comment::{instruction, row_for};
use crate::core::reliability;

/// What `lookup` prints (the MCP tool `lookup_test` returns the same).
#[derive(Debug, Serialize)]
pub struct Lookup {
    pub test: String,
    pub listed: bool,
    pub tier: String,
    pub runs: Option<u64>,
    pub failures: Option<u64>,
    pub pass_rate: Option<f64>,
    pub owner: Option<String>,
    pub ticket: Option<String>,
    pub note: Option<String>,
    /// Where its current failing period began on the tracked branches, when the file says.
    pub onset: Option<reliability::FileOnset>,
    pub instruction: String,
    /// What `repro-gate test` does with its failure in CI.
    pub in_ci: String,
}

/// Looks a test up in the file's text.
pub fn lookup(test: &str, text: &str) -> Result<Lookup, String> {
    let file = reliability::parse(text).map_err(|e| format!("the reliability file: {e}"))?;
    let row = row_for(test, &file);
    let broken = file
        .find(row.package.as_deref(), &row.name)
        .is_some_and(|e| e.broken == Some(true));
    Ok(Lookup {
        in_ci: crate::core::ci::excuse::in_ci(row.listed, row.tier, broken).to_string(),
        instruction: instruction(&row),
        test: row.id,
        listed: row.listed,
        tier: row.tier.as_str().to_string(),
        runs: row.runs,
        failures: row.failures,
        pass_rate: row.pass_rate,
        owner: row.owner,
        ticket: row.ticket,
        note: row.note.clone(),
        onset: row.onset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "policy:\n  default_tier: probation\ntests:\n  - id: services/pool/integration::TestPoolCheckoutUnderLoad\n    tier: quarantined\n    runs: 200\n    failures: 29\n    pass_rate: 0.855\n    ticket: PLAT-1182\n  - id: services/pool/unit::TestAcquire\n    tier: trusted\n";

    #[test]
    fn each_tier_gets_the_comments_own_instruction() {
        let q = lookup(
            "example.com/acme/services/pool/integration::TestPoolCheckoutUnderLoad",
            FILE,
        )
        .unwrap();
        assert!(
            q.listed && q.tier == "quarantined" && q.pass_rate == Some(0.855),
            "{q:?}"
        );
        assert!(q.instruction.contains("NOT evidence"), "{}", q.instruction);
        assert_eq!(
            q.test,
            "services/pool/integration::TestPoolCheckoutUnderLoad"
        );
        let t = lookup("services/pool/unit::TestAcquire", FILE).unwrap();
        assert!(t.instruction.contains("real evidence"));
        let u = lookup("services/none::TestNew", FILE).unwrap();
        assert!(
            !u.listed && u.tier == "probation" && u.instruction.contains("in isolation"),
            "{u:?}"
        );
        assert!(lookup("x", "tests: [").is_err());
    }
}
