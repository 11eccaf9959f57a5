//! `repro-gate lookup TEST [--file FILE]`: a test's tier, stats and the tier's instruction from
//! the reliability file, worded exactly as the reliability comment words it (docs/agents.md). Exit 0 when
//! the test is listed, 1 when not (the default tier's instruction), 2 on bad input.

use std::process::ExitCode;

use crate::local::lookup::lookup;

use super::input::print_json;
use crate::local::input::read_text;

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
