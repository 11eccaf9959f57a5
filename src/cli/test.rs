//! `repro-gate test [...] -- CMD [ARGS…]` (README.md#offline-commands-json-on-stdout-messages-on-stderr, docs/history.md#quarantine-that-holds-in-ci): runs a CI test command, records its results
//! and excuses the failures of quarantined tests only. The decision is `core::ci::excuse`.

use std::io::Write as _;
use std::process::ExitCode;

use crate::ci::{command, reports, upload};
use crate::core::ci::env::{CiRun, detect};
use crate::core::ci::excuse::{FileState, Observed, decide};
use crate::core::ci::{junit_out, summary};
use crate::core::failures::{Format, parse_results};
use crate::core::reliability::{self, ReliabilityFile};

#[derive(Debug, clap::Args)]
#[command(trailing_var_arg = true)]
pub struct TestArgs {
    /// The reliability file, read before the command runs (a run cannot rewrite its own tiers).
    #[arg(
        long,
        env = "REPRO_GATE_RELIABILITY_FILE",
        default_value = ".ci/test-reliability.yaml"
    )]
    pub reliability: String,
    /// Read the reliability file as the merge base of HEAD and this ref has it (`origin/REF`
    /// first), never as the change has it: a PR cannot quarantine its own failing test.
    /// Default: `$GITHUB_BASE_REF` (set on a pull request's run).
    #[arg(long, value_name = "REF")]
    pub tiers_from: Option<String>,
    /// Report files the command writes (JUnit XML, go test -json, …), read after it ends;
    /// repeatable.
    #[arg(long = "report", value_name = "GLOB")]
    pub reports: Vec<String>,
    /// The format of the command's output.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
    /// The repro-gate service (or its `/api/v1/results` route) to record the results at.
    #[arg(long, env = "REPRO_GATE_UPLOAD_URL", value_name = "URL")]
    pub upload: Option<String>,
    /// The environment variable holding the repository's upload token.
    #[arg(long, value_name = "NAME", default_value = "REPRO_GATE_UPLOAD_TOKEN")]
    pub token_env: String,
    /// Also write the results as JUnit XML here (for an artifact, or `history import`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
    /// The run's repository (default: the CI's variables).
    #[arg(long)]
    pub repo: Option<String>,
    #[arg(long)]
    pub sha: Option<String>,
    #[arg(long)]
    pub branch: Option<String>,
    /// The run id (default: the CI's; in a matrix, give each job its own).
    #[arg(long)]
    pub run: Option<String>,
    #[arg(long)]
    pub attempt: Option<i64>,
    /// The command and its arguments, after `--`.
    #[arg(required = true, num_args = 1.., value_name = "CMD")]
    pub command: Vec<String>,
}

/// The reliability file as the decision reads it.
enum File {
    Read(ReliabilityFile),
    Missing,
    Invalid(String),
}

fn read_file(path: &str) -> File {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return File::Missing,
        Ok(m) if m.len() > reliability::MAX_BYTES as u64 => {
            return File::Invalid(format!(
                "{path} is larger than {} bytes",
                reliability::MAX_BYTES
            ));
        }
        _ => {}
    }
    match std::fs::read(path) {
        Ok(bytes) => match reliability::parse(&String::from_utf8_lossy(&bytes)) {
            Ok(f) => File::Read(f),
            Err(e) => File::Invalid(format!("{path}: {e}")),
        },
        Err(e) => File::Invalid(format!("{path}: {e}")),
    }
}

/// Runs git here; its stdout, or its stderr's first line as the error.
fn git(args: &[&str]) -> Result<Vec<u8>, String> {
    let o = std::process::Command::new("git")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if o.status.success() {
        return Ok(o.stdout);
    }
    let err = String::from_utf8_lossy(&o.stderr);
    Err(summary::plain(err.lines().next().unwrap_or("git failed")))
}

/// The reliability file at the merge base of HEAD and `base` (`origin/<base>`, else `<base>`).
fn read_base_file(path: &str, base: &str) -> (File, String) {
    if base.starts_with('-') || base.trim().is_empty() {
        return (
            File::Invalid(format!("{base:?} is not a branch or ref")),
            String::new(),
        );
    }
    let remote = format!("origin/{base}");
    let found = [remote.as_str(), base].into_iter().find_map(|r| {
        git(&["merge-base", "HEAD", r]).ok().map(|sha| {
            (
                r.to_string(),
                String::from_utf8_lossy(&sha).trim().to_string(),
            )
        })
    });
    let Some((r, sha)) = found.filter(|(_, sha)| !sha.is_empty()) else {
        return (
            File::Invalid(format!(
                "no merge base of HEAD and {remote} or {base} in this clone (fetch the base branch: `git fetch origin {base}`, or actions/checkout with fetch-depth: 0)"
            )),
            String::new(),
        );
    };
    let short = sha.get(..12).unwrap_or(&sha).to_string();
    let whence = format!("the merge base {short} of HEAD and {r}");
    if std::path::Path::new(path).is_absolute() {
        return (
            File::Invalid(format!(
                "{path} is absolute: give the reliability file's path inside the checkout"
            )),
            whence,
        );
    }
    let spec = format!("{sha}:./{path}");
    match git(&["cat-file", "-e", &spec]) {
        Err(_) => (File::Missing, whence),
        Ok(_) => match git(&["show", &spec]) {
            Ok(bytes) if bytes.len() > reliability::MAX_BYTES => (
                File::Invalid(format!(
                    "{path} at {short} is larger than {} bytes",
                    reliability::MAX_BYTES
                )),
                whence,
            ),
            Ok(bytes) => match reliability::parse(&String::from_utf8_lossy(&bytes)) {
                Ok(f) => (File::Read(f), whence),
                Err(e) => (File::Invalid(format!("{path} at {short}: {e}")), whence),
            },
            Err(e) => (File::Invalid(format!("{path} at {short}: {e}")), whence),
        },
    }
}

fn target(args: &TestArgs, ci: &CiRun) -> Result<upload::Target, String> {
    let mut missing = Vec::new();
    let mut pick = |flag: &Option<String>, found: &Option<String>, name: &'static str| {
        let v = flag.clone().or_else(|| found.clone());
        if v.is_none() {
            missing.push(name);
        }
        v.unwrap_or_default()
    };
    let t = upload::Target {
        repo: pick(&args.repo, &ci.repo, "repo"),
        sha: pick(&args.sha, &ci.sha, "sha"),
        branch: pick(&args.branch, &ci.branch, "branch"),
        run: pick(&args.run, &ci.run, "run"),
        attempt: args.attempt.or(ci.attempt).unwrap_or(1).max(1),
        url: ci.url.clone(),
        pr: ci.pr,
    };
    if missing.is_empty() {
        return Ok(t);
    }
    let flags: Vec<String> = missing.iter().map(|m| format!("--{m}")).collect();
    Err(format!(
        "not recorded: {} (no CI variables name them{}); give {}",
        missing.join(", "),
        ci.ci.map(|c| format!(" on {c}")).unwrap_or_default(),
        flags.join(", ")
    ))
}

pub async fn run(args: TestArgs) -> anyhow::Result<ExitCode> {
    let base = args.tiers_from.clone().or_else(|| {
        std::env::var("GITHUB_BASE_REF")
            .ok()
            .filter(|r| !r.trim().is_empty())
    });
    let file = match &base {
        None => read_file(&args.reliability),
        Some(b) => {
            let (file, whence) = read_base_file(&args.reliability, b);
            if !whence.is_empty() {
                eprintln!(
                    "repro-gate test: the tiers are read from {} at {whence} (the base's, not the change's)",
                    args.reliability
                );
            }
            file
        }
    };
    match &file {
        File::Missing => eprintln!(
            "repro-gate test: no reliability file at {}{}: no failure will be excused",
            args.reliability,
            if base.is_some() {
                " on the merge base"
            } else {
                ""
            }
        ),
        File::Invalid(e) => eprintln!(
            "repro-gate test: the reliability file cannot be used ({e}): no failure will be excused"
        ),
        File::Read(_) => {}
    }
    let finished = match command::run(&args.command, None).await {
        Ok(f) => f,
        Err(e) => {
            eprintln!("repro-gate test: {e:#}");
            return Ok(ExitCode::from(127));
        }
    };
    let format = args.format;
    let patterns = args.reports.clone();
    // Parsing is CPU work on a log of any size: off the async threads.
    let (finished, merged, notes) = tokio::task::spawn_blocking(move || {
        let mut merged = reports::Merged::default();
        let mut notes = Vec::new();
        match command::read_spool(&finished).and_then(|r| parse_results(r, format)) {
            Ok(r) => merged.add(r),
            Err(e) => notes.push(format!("the output could not be read: {e}")),
        }
        match reports::find(&patterns) {
            Ok((files, missing)) => {
                notes.extend(missing);
                for f in files {
                    match reports::read(&f) {
                        Ok(r) => merged.add(r),
                        Err(e) => notes.push(format!("{e:#}")),
                    }
                }
            }
            Err(e) => notes.push(format!("{e:#}")),
        }
        (finished, merged, notes)
    })
    .await?;
    for n in &notes {
        eprintln!("repro-gate test: {n}");
    }
    let state = match &file {
        File::Read(f) => FileState::Read(f),
        File::Missing => FileState::Missing,
        File::Invalid(e) => FileState::Invalid(e),
    };
    let decision = decide(
        &Observed {
            ended: finished.ended,
            results: &merged.tests,
            dropped: merged.dropped,
            signs: &finished.signs,
            account: &finished.account,
        },
        state,
    );

    let mut recorded = Vec::new();
    let junit = (!merged.tests.is_empty()).then(|| junit_out::write(&merged.tests));
    if let Some(out) = &args.out {
        match &junit {
            Some(x) => match std::fs::write(out, x) {
                Ok(()) => recorded.push(format!("written to {out}")),
                Err(e) => eprintln!("repro-gate test: cannot write {out}: {e}"),
            },
            None => eprintln!("repro-gate test: no test result to write to {out}"),
        }
    }
    let env = |k: &str| std::env::var(k).ok();
    let ci = detect(&env);
    if let Some(base) = &args.upload {
        let token = std::env::var(&args.token_env)
            .ok()
            .filter(|t| !t.trim().is_empty());
        match (&junit, token, target(&args, &ci)) {
            (None, _, _) => eprintln!("repro-gate test: no test result to upload"),
            (_, None, _) => eprintln!(
                "repro-gate test: not recorded: ${} holds no upload token (repro-gate history token --repo O/R)",
                args.token_env
            ),
            (_, _, Err(e)) => eprintln!("repro-gate test: {e}"),
            (Some(x), Some(token), Ok(t)) => match upload::send(base, token.trim(), &t, x).await {
                Ok(answer) => recorded.push(format!(
                    "uploaded (run {} attempt {}): {}",
                    summary::plain(&t.run),
                    t.attempt,
                    summary::plain(&answer)
                )),
                Err(e) => eprintln!("repro-gate test: {}", summary::plain(&format!("{e:#}"))),
            },
        }
    }
    if ci.ci == Some("github-actions") {
        let mut out = std::io::stdout().lock();
        for line in summary::annotations(&decision) {
            let _ = writeln!(out, "{line}");
        }
        if let Some(path) = env("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
            let text = summary::step_summary(&decision, &recorded);
            let written = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&path)
                .and_then(|mut f| f.write_all(text.as_bytes()));
            if let Err(e) = written {
                eprintln!("repro-gate test: cannot write the job summary: {e}");
            }
        }
    }
    eprint!("{}", summary::terminal(&decision, &recorded));
    Ok(ExitCode::from(decision.exit.clamp(0, 255) as u8))
}
