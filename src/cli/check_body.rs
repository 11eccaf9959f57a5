//! `repro-gate check-body --body FILE|- [--diff FILE] [--config FILE]`

use std::process::ExitCode;

use crate::core::classify::diff;
use crate::core::evidence::check_body;
use crate::core::verify::to_run;

use super::classify::load_config;
use super::input::print_json;
use crate::local::input::read_text;

#[derive(Debug, clap::Args)]
pub struct CheckBodyArgs {
    /// The PR description (markdown); `-` reads stdin.
    #[arg(long, env = "REPRO_GATE_BODY")]
    pub body: String,
    /// The PR's unified diff: a test named as the forcing test must be added by it.
    #[arg(long, env = "REPRO_GATE_DIFF")]
    pub diff: Option<String>,
    /// A `.github/repro-gate.yml` (checked for validity).
    #[arg(long, env = "REPRO_GATE_CONFIG")]
    pub config: Option<String>,
    /// Also print, for people (on stderr), which rule counted and which near-miss was
    /// refused, with line numbers.
    #[arg(long)]
    pub explain: bool,
}

pub fn run(args: CheckBodyArgs) -> ExitCode {
    match run_inner(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: CheckBodyArgs) -> Result<bool, String> {
    if args.body == "-" && args.diff.as_deref() == Some("-") {
        return Err("--body and --diff cannot both read stdin".into());
    }
    load_config(args.config.as_deref())?;
    let body = read_text(&args.body, "the body")?;
    let files = match &args.diff {
        Some(d) => {
            let text = read_text(d, "the diff")?;
            Some(diff::parse_unified(&text).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    let verdict = check_body(&body, files.as_deref());
    let runs_decide = files
        .as_deref()
        .filter(|_| !verdict.satisfied)
        .and_then(to_run::runs_decide);
    print_json(&Answer {
        verdict: &verdict,
        runs_decide: runs_decide.as_ref(),
    })?;
    if args.explain {
        eprint!("{}", crate::core::explain::evidence(&verdict));
        if let Some(r) = &runs_decide {
            eprintln!("  runs     {}", r.message);
        }
    }
    Ok(verdict.satisfied)
}

/// check-body's answer: the verdict on the words, and, for a diff whose tests the App's find
/// round would run (docs/verification.md, "Found in the PR's tests"), which ones.
#[derive(serde::Serialize)]
struct Answer<'a> {
    #[serde(flatten)]
    verdict: &'a crate::core::evidence::EvidenceVerdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    runs_decide: Option<&'a to_run::RunsDecide>,
}
