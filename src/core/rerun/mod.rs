//! The retry protocol (docs/rerun.md), pure: sessions and their run titles, the statistics of two rerun
//! counts, the verdict, and the comment that says it.

pub mod comment;
pub mod stats;
pub mod tickets;
pub mod verdict;

use serde::{Deserialize, Serialize};

use crate::core::test_ids;

/// Which commit a side of a session reruns the test on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The PR's head.
    Branch,
    /// The merge base of the PR's head and its base branch.
    Base,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::Branch, Side::Base];

    pub fn as_str(self) -> &'static str {
        match self {
            Side::Branch => "branch",
            Side::Base => "base",
        }
    }

    pub fn parse(s: &str) -> Option<Side> {
        match s {
            "branch" => Some(Side::Branch),
            "base" => Some(Side::Base),
            _ => None,
        }
    }
}

/// What every rerun run's title starts with.
pub const TITLE_PREFIX: &str = "repro-gate rerun ";

/// A session id: 1 to 64 ASCII letters, digits, `-` or `_` (it travels in a run title, a
/// workflow input and an HTML comment).
pub fn valid_session(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A session id from a stable seed (the command's comment, or the test and head of an automatic
/// start), keyed by the server's secret: the same trigger retried gives the same session, and
/// nobody without the key can tell the id (and so the runs' titles) in advance.
pub fn session_id(key: &[u8], seed: &str) -> String {
    use hmac::{Hmac, KeyInit as _, Mac as _};
    let mut mac = match Hmac::<sha2::Sha256>::new_from_slice(key) {
        Ok(m) => m,
        // HMAC takes keys of any length; this is never reached.
        Err(_) => return format!("rr-{}", hex::encode(&sha2_digest(key, seed)[..10])),
    };
    mac.update(seed.as_bytes());
    let tag = mac.finalize().into_bytes();
    format!("rr-{}", hex::encode(&tag[..10]))
}

fn sha2_digest(key: &[u8], seed: &str) -> Vec<u8> {
    use sha2::Digest as _;
    let mut h = sha2::Sha256::new();
    h.update(key);
    h.update(seed.as_bytes());
    h.finalize().to_vec()
}

/// The workflow's `options` input: the maintainers' `rerun.args`, `rerun.env`,
/// `rerun.run_timeout_seconds`, and for a verification `verify.build`, `verify.seed_env` and
/// the find round's `find_sources` (Rust sources whose test modules each side runs in its own
/// copy) (JSON, passed to the workflow's shell as data).
pub fn options_input(
    config: &crate::core::config::RepoConfig,
    verify: bool,
    find_sources: &[String],
) -> String {
    let mut o = serde_json::json!({
        "run_timeout_seconds": config.rerun.run_timeout_seconds,
    });
    if !config.rerun.args.is_empty() {
        o["args"] = serde_json::json!(config.rerun.args);
    }
    if !config.rerun.env.is_empty() {
        o["env"] = serde_json::json!(config.rerun.env);
    }
    if verify {
        if let (Some(b), Some(_)) = (&config.verify.build, &config.verify.command) {
            o["build"] = serde_json::json!(b);
        }
        if !config.verify.seed_env.is_empty() {
            o["seed_env"] = serde_json::json!(config.verify.seed_env);
        }
        if !find_sources.is_empty() {
            o["find_sources"] = serde_json::json!(find_sources);
        }
    }
    o.to_string()
}

/// The run title the workflow gives each side (`run-name`).
pub fn title(session: &str, side: Side) -> String {
    format!("{TITLE_PREFIX}{session} {}", side.as_str())
}

/// The session and side of a run titled `repro-gate rerun <session> <side>`.
pub fn parse_title(title: &str) -> Option<(&str, Side)> {
    let rest = title.trim().strip_prefix(TITLE_PREFIX)?;
    let mut words = rest.split_whitespace();
    let session = words.next()?;
    let side = Side::parse(words.next()?)?;
    (valid_session(session) && words.next().is_none()).then_some((session, side))
}

/// A session's jobs (its runs' completions and its timeout) run one at a time.
pub fn serial_key(session: &str) -> String {
    format!("rerun:{session}")
}

/// The marker of a session's one comment.
pub fn marker(session: &str) -> String {
    format!("<!-- repro-gate:rerun:{session} -->")
}

/// Failures and runs of the session's test among a run's results (every id that is the test:
/// see [`test_ids::same_test`]).
pub fn count_of(test: &str, results: &[crate::core::failures::TestResult]) -> verdict::Count {
    let mut count = verdict::Count::default();
    for r in results
        .iter()
        .filter(|r| test_ids::same_test(test, &r.test.id()))
    {
        count.failures += r.failures;
        count.runs += r.failures + r.passes;
    }
    count
}

/// The inputs a workflow's `workflow_dispatch` trigger declares, read from its YAML by
/// indentation (a workflow file is block YAML; this needs no full parse). `None` when the file
/// has no `workflow_dispatch` trigger.
pub fn dispatch_inputs(workflow: &str) -> Option<Vec<String>> {
    fn indent(l: &str) -> usize {
        l.len() - l.trim_start().len()
    }
    fn key(l: &str) -> Option<&str> {
        let t = l.trim();
        let k = t
            .strip_suffix(':')
            .or_else(|| t.split_once(": ").map(|(k, _)| k))?;
        let k = k.trim_matches(|c| c == '"' || c == '\'');
        (!k.is_empty() && !k.starts_with('#') && !k.starts_with('-')).then_some(k)
    }
    let lines: Vec<&str> = workflow
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let at = lines.iter().position(|l| {
        let t = l.trim();
        t == "workflow_dispatch:"
            || t.starts_with("workflow_dispatch: ")
            || t == "on: workflow_dispatch"
            || (t.starts_with("on: [") && t.contains("workflow_dispatch"))
            || t == "- workflow_dispatch"
    })?;
    let base = indent(lines[at]);
    let mut inputs = Vec::new();
    let mut i = at + 1;
    while i < lines.len() && indent(lines[i]) > base {
        if key(lines[i]) == Some("inputs") {
            let level = indent(lines[i]);
            let mut child: Option<usize> = None;
            i += 1;
            while i < lines.len() && indent(lines[i]) > level {
                let d = indent(lines[i]);
                if child.is_none() {
                    child = Some(d);
                }
                if Some(d) == child
                    && let Some(k) = key(lines[i])
                {
                    inputs.push(k.to_string());
                }
                i += 1;
            }
            break;
        }
        i += 1;
    }
    Some(inputs)
}

/// Seeds a runner printed (`seed: 42`, `--seed=42`, `SEED=0x5eed`, `random seed 42`,
/// Hypothesis' `@seed(…)`), distinct, at most `max`, each at most 64 characters. Linear.
pub fn seeds_in(text: &str, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if out.len() >= max {
            break;
        }
        let lower = line.to_ascii_lowercase();
        let mut from = 0;
        while let Some(i) = lower[from..].find("seed") {
            let at = from + i + 4;
            from = at;
            let rest = &line[at..];
            let value: String = rest
                .trim_start_matches(|c: char| c.is_ascii_alphabetic() && c != 'x')
                .trim_start_matches([' ', '=', ':', '(', '"', '\''])
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(64)
                .collect();
            let numeric = value.starts_with("0x") && value.len() > 2
                || (!value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()));
            if numeric && !out.contains(&value) {
                out.push(value);
                if out.len() >= max {
                    break;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_round_trip_and_nothing_else_parses() {
        let t = title("rr-0a1b2c", Side::Base);
        assert_eq!(t, "repro-gate rerun rr-0a1b2c base");
        assert_eq!(parse_title(&t), Some(("rr-0a1b2c", Side::Base)));
        assert_eq!(
            parse_title("repro-gate rerun s1 branch"),
            Some(("s1", Side::Branch))
        );
        for bad in [
            "CI",
            "repro-gate rerun",
            "repro-gate rerun s1",
            "repro-gate rerun s1 head",
            "repro-gate rerun s1 base extra",
            "repro-gate rerun $(x) base",
            "repro-gate rerun <!--x--> branch",
        ] {
            assert_eq!(parse_title(bad), None, "{bad}");
        }
    }

    #[test]
    fn session_ids_are_stable_valid_and_keyed() {
        let a = session_id(b"k", "o/r#1:comment:99");
        assert_eq!(a, session_id(b"k", "o/r#1:comment:99"));
        assert_ne!(a, session_id(b"k", "o/r#1:comment:100"));
        // Without the server's key the id cannot be told from the trigger.
        assert_ne!(a, session_id(b"other", "o/r#1:comment:99"));
        assert!(valid_session(&a) && a.len() == 23, "{a}");
        assert!(!valid_session("") && !valid_session("a b") && !valid_session(&"x".repeat(65)));
    }

    #[test]
    fn a_workflows_dispatch_inputs_are_read() {
        let wf = "name: x\non:\n  workflow_dispatch:\n    inputs:\n      sha:\n        required: true\n      test:\n        type: string\n      runs:\n        type: number\n      session: {required: true}\n      side:\n        required: false\n  push:\njobs:\n  a:\n    runs-on: x\n";
        assert_eq!(
            dispatch_inputs(wf).unwrap(),
            ["sha", "test", "runs", "session", "side"]
        );
        assert_eq!(
            dispatch_inputs("on:\n  workflow_dispatch:\njobs: {}\n").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(dispatch_inputs("on: [push]\n"), None);
        assert_eq!(
            dispatch_inputs(include_str!("../../../deploy/repro-gate-rerun.yml")).unwrap(),
            [
                "sha",
                "test",
                "runs",
                "session",
                "side",
                "tests_from",
                "tests",
                "seed",
                "command",
                "options"
            ]
        );
    }

    #[test]
    fn printed_seeds_are_collected_once() {
        let log = "random seed: 1234\n--seed=99 and SEED=0x5eed\nseed 1234 again\nseedless line\nHypothesis: @seed(424242)\n";
        assert_eq!(seeds_in(log, 10), ["1234", "99", "0x5eed", "424242"]);
        assert_eq!(seeds_in(log, 2), ["1234", "99"]);
        assert!(seeds_in("no seeds; seeding done; seed: abc", 10).is_empty());
    }
}
