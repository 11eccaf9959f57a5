//! `repro-gate classify --diff FILE|- [--config FILE]`

use std::process::ExitCode;

use crate::core::classify::classify;
use crate::core::classify::diff;
use crate::core::config;

use super::input::print_json;
use crate::local::input::read_text;

#[derive(Debug, clap::Args)]
pub struct ClassifyArgs {
    /// A unified diff (`git diff`, `.patch`); `-` reads stdin.
    #[arg(long, env = "REPRO_GATE_DIFF")]
    pub diff: String,
    /// A `.github/repro-gate.yml` to apply (default: the built-in defaults).
    #[arg(long, env = "REPRO_GATE_CONFIG")]
    pub config: Option<String>,
    /// Also print, for people (on stderr), which rule fired on which line and why each file
    /// that did not count was skipped.
    #[arg(long)]
    pub explain: bool,
}

pub fn run(args: ClassifyArgs) -> ExitCode {
    match run_inner(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: ClassifyArgs) -> Result<(), String> {
    let config = load_config(args.config.as_deref())?;
    let text = read_text(&args.diff, "the diff")?;
    let files = diff::parse_unified(&text).map_err(|e| e.to_string())?;
    let verdict = classify(&files, &config);
    print_json(&verdict)?;
    if args.explain {
        let notes = crate::core::classify::explain_files(&files, &config);
        eprint!(
            "{}",
            crate::core::explain::classification(verdict.concurrency, &notes)
        );
    }
    Ok(())
}

/// Reads and strictly parses a config file given on the command line; errors are bad input.
pub fn load_config(path: Option<&str>) -> Result<config::RepoConfig, String> {
    match path {
        None => Ok(config::RepoConfig::default()),
        Some(p) => {
            let text = read_text(p, "the config")?;
            config::parse(&text).map_err(|e| e.to_string())
        }
    }
}
