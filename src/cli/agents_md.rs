//! `repro-gate agents-md [--config FILE]`: the block for AGENTS.md / CLAUDE.md, from the
//! repository's config: what a coding agent does before reasoning about a failing test, and
//! what the gate asks of a concurrency PR (docs/agents.md). Short and imperative.

use std::fmt::Write as _;
use std::process::ExitCode;

use crate::core::config::{RepoConfig, VerifyMode};
use crate::core::tier::Tier;

#[derive(Debug, clap::Args)]
pub struct AgentsMdArgs {
    /// A `.github/repro-gate.yml` (default: `.github/repro-gate.yml` of the working directory
    /// when present, else the defaults).
    #[arg(long, env = "REPRO_GATE_CONFIG")]
    pub config: Option<String>,
}

/// The block for the repository `config` describes.
pub fn block(config: &RepoConfig, reliability_file: &str) -> String {
    let runs = config.rerun.runs;
    let mut s = String::new();
    let _ = writeln!(s, "## Failing tests and concurrency changes (repro-gate)\n");
    let _ = writeln!(
        s,
        "Before reasoning about a failing test, look it up: `repro-gate lookup <test id>` (tiers from `{reliability_file}`)."
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "- **{}**: a failure is NOT evidence. Never change production code to make it pass; if your change touches what it covers, write a deterministic test instead.",
        Tier::Quarantined.as_str()
    );
    let _ = writeln!(
        s,
        "- **{}** (and tests not listed): rerun that one test in isolation, {runs} times on this branch and {runs} times on the merge base, before forming a hypothesis: `repro-gate rerun-local <test id> --runs {runs}`. The same rate on both sides means your change did not cause it (`not this change`: a finished task; file the ticket it prints).",
        Tier::Probation.as_str()
    );
    let _ = writeln!(
        s,
        "- **{}**: a failure is real evidence. Investigate it.",
        Tier::Trusted.as_str()
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "In CI, `repro-gate test -- <test command>` runs the suite and records every result; a build that failed only because of quarantined tests passes (their failures are still recorded), and any other failure, a build error or a crash keeps the command's status. Do not treat such a green build as evidence about a quarantined test."
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "A single green rerun never confirms a fix. Do not add retries, sleeps or locks for a race you have not reproduced."
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "A PR that touches concurrency code (it gets the `{}` label) needs a deterministic reproduction in its description, under `## Reproduction`, of one kind:",
        config.label
    );
    let _ = writeln!(
        s,
        "- `kind: seed`: the seed that drives the bad ordering, and the test it drives;"
    );
    let _ = writeln!(
        s,
        "- `kind: interleaving`: a test this PR adds that forces the ordering (a hook, barrier, sync point, failpoint, `loom`) and fails every time without the fix;"
    );
    let _ = writeln!(
        s,
        "- `kind: trace`: a race report showing both conflicting accesses, or a link to a recorded trace."
    );
    let _ = writeln!(s);
    match config.verify.mode {
        VerifyMode::Off => {}
        mode => {
            let _ = writeln!(
                s,
                "The gate runs a seed or interleaving claim itself ({} runs per side): it must fail on the merge base with your test files and pass on your head{}. Check it before you push: `repro-gate verify-local --body <description file>`.",
                config.verify.runs,
                if mode == VerifyMode::Required {
                    "; only then does the check pass"
                } else {
                    ""
                }
            );
            let _ = writeln!(s);
        }
    }
    let _ = writeln!(
        s,
        "\"Reran and it is green\", \"could not reproduce\" and a clean race-detector run are not evidence."
    );
    s
}

pub fn run(args: AgentsMdArgs) -> ExitCode {
    let config = match crate::local::config::checkout_config(
        std::path::Path::new("."),
        args.config.as_deref(),
    ) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let file = config.reliability_file.clone();
    print!("{}", block(&config, &file));
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_names_every_tier_kind_and_command() {
        let b = block(&RepoConfig::default(), ".ci/test-reliability.yaml").to_lowercase();
        for w in [
            "quarantined",
            "probation",
            "trusted",
            "not evidence",
            "in isolation",
            "real evidence",
            "seed",
            "interleaving",
            "trace",
            "repro-gate lookup",
            "rerun-local",
            "verify-local",
        ] {
            assert!(b.contains(w), "{w}");
        }
    }
}
