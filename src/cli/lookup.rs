//! `repro-gate lookup TEST [--file FILE]`: a test's tier, stats and the tier's instruction from
//! the reliability file, worded exactly as the reliability comment words it (§12). Exit 0 when
//! the test is listed, 1 when not (the default tier's instruction), 2 on bad input.

use std::process::ExitCode;

use serde::Serialize;

use crate::core::comment::{instruction, row_for};
use crate::core::reliability;

use super::input::{print_json, read_text};

#[derive(Debug, clap::Args)]
pub struct LookupArgs {
    /// The test id (`pkg/path::TestName`; a Go import path matches by path suffix).
    pub test: String,
    /// The reliability file.
    #[arg(
        long,
        env = "REPRO_GATE_RELIABILITY_FILE",
        default_value = ".ci/test-reliability.yaml"
    )]
    pub file: String,
}

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
        note: row.note,
    })
}

pub fn run(args: LookupArgs) -> ExitCode {
    let found = read_text(&args.file, "the reliability file").and_then(|t| lookup(&args.test, &t));
    match found {
        Ok(l) => {
            if let Err(e) = print_json(&l) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            if l.listed {
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "{} is not in {}: the default tier ({}) applies",
                    args.test, args.file, l.tier
                );
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
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
