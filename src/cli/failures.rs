//! `repro-gate failures --log FILE|- [--format …] [--reliability FILE]` and
//! `repro-gate reliability --file FILE`.

use std::io::BufReader;
use std::process::ExitCode;

use serde::Serialize;

use crate::core::failures::{self, FailedTest, Format};
use crate::core::reliability::{self, ReliabilityFile};
use crate::core::tier::Tier;

use super::input::print_json;
use crate::local::input::read_text;

#[derive(Debug, clap::Args)]
pub struct FailuresArgs {
    /// A CI log or test report; `-` reads stdin.
    #[arg(long, env = "REPRO_GATE_LOG")]
    pub log: String,
    /// The runner's output format.
    #[arg(long, value_enum, default_value_t = Format::Auto, env = "REPRO_GATE_LOG_FORMAT")]
    pub format: Format,
    /// A `.ci/test-reliability.yaml` giving each failing test its tier.
    #[arg(long, env = "REPRO_GATE_RELIABILITY")]
    pub reliability: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ReliabilityArgs {
    /// The `.ci/test-reliability.yaml` to validate.
    #[arg(long, env = "REPRO_GATE_RELIABILITY")]
    pub file: String,
}

#[derive(Serialize)]
struct Row {
    id: String,
    name: String,
    package: Option<String>,
    tier: Option<Tier>,
    /// Whether the reliability file lists the test (else its tier is the policy default).
    #[serde(skip_serializing_if = "Option::is_none")]
    listed: Option<bool>,
}

#[derive(Serialize)]
struct Output {
    failures: Vec<Row>,
    /// Failed, then passed on a retry.
    flaky: Vec<Row>,
}

fn rows(tests: Vec<FailedTest>, rel: Option<&ReliabilityFile>) -> Vec<Row> {
    tests
        .into_iter()
        .map(|t| {
            let entry = rel.and_then(|r| r.find(t.package.as_deref(), &t.name));
            Row {
                id: t.id(),
                tier: rel.map(|r| entry.map(|e| e.tier).unwrap_or(r.policy.default_tier)),
                listed: rel.map(|_| entry.is_some()),
                name: t.name,
                package: t.package,
            }
        })
        .collect()
}

pub fn run_failures(args: FailuresArgs) -> ExitCode {
    let result = (|| -> Result<(), String> {
        let rel = match &args.reliability {
            Some(p) => Some(
                reliability::parse(&read_text(p, "the reliability file")?)
                    .map_err(|e| format!("{p}: {e}"))?,
            ),
            None => None,
        };
        let report = if args.log == "-" {
            failures::parse(BufReader::new(std::io::stdin().lock()), args.format)
        } else {
            let f = std::fs::File::open(&args.log)
                .map_err(|e| format!("cannot read the log from {}: {e}", args.log))?;
            failures::parse(BufReader::with_capacity(1 << 16, f), args.format)
        }
        .map_err(|e| format!("cannot parse the log: {e}"))?;
        print_json(&Output {
            failures: rows(report.failed, rel.as_ref()),
            flaky: rows(report.flaky, rel.as_ref()),
        })
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
    }
}

pub fn run_reliability(args: ReliabilityArgs) -> ExitCode {
    let text = match read_text(&args.file, "the reliability file") {
        Ok(t) => t,
        Err(m) => {
            eprintln!("error: {m}");
            return ExitCode::from(1);
        }
    };
    match reliability::parse(&text) {
        Ok(file) => match print_json(&reliability::summarize(&file)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(m) => {
                eprintln!("error: {m}");
                ExitCode::from(1)
            }
        },
        Err(e) => {
            let _ = print_json(&serde_json::json!({ "valid": false, "error": e }));
            eprintln!("error: {}: {e}", args.file);
            ExitCode::from(1)
        }
    }
}
