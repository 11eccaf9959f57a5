//! `/repro` commands in a PR comment: at the start of a line, outside code blocks and block
//! quotes; several in one comment run in order.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Override {
        reason: String,
    },
    NotConcurrency {
        reason: String,
    },
    Recheck,
    /// Rerun one test alone on the branch and on the merge base (`runs` per side, or the
    /// config's `rerun.runs`).
    Rerun {
        test: String,
        runs: Option<u32>,
    },
    /// Run the verification (docs/verification.md) again for the current head (and start it for a fork).
    Verify,
    /// Approves the tiers this PR lowers in the reliability file, for the current head SHA.
    ApproveTiers,
    Help,
}

/// A line that starts with `/repro` but is not a valid command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub line: String,
    pub message: String,
}

pub const NAMES: &[&str] = &[
    "override",
    "not-concurrency",
    "recheck",
    "rerun",
    "verify",
    "approve-tiers",
    "help",
];

pub const USAGE: &str = "| command | who | what it does |
|---|---|---|
| `/repro override <reason>` | write, maintain or admin permission, or a configured maintainer | marks the check for the current commit as passed; recorded with who, when and why; the next push is evaluated afresh |
| `/repro not-concurrency <reason>` | same | removes the label and exempts the PR (later pushes too) |
| `/repro recheck` | anyone who can comment | evaluates the PR again |
| `/repro rerun <test> [n]` | same as override | reruns that one test alone n times (default 20, at most 100) on this PR's head and on its merge base, and compares the two failure rates |
| `/repro verify` | same as override | runs the description's reproduction again for the current commit: it must fail on the merge base (with this PR's test files) and pass here; starts it for a PR from a fork |
| `/repro approve-tiers` | same as override | approves, for the current commit, the tests this PR quarantines or lowers in the reliability file; without it the check cannot pass |
| `/repro help` | anyone | shows this table |";

impl Command {
    pub fn name(&self) -> &'static str {
        match self {
            Command::Override { .. } => "override",
            Command::NotConcurrency { .. } => "not-concurrency",
            Command::Recheck => "recheck",
            Command::Rerun { .. } => "rerun",
            Command::Verify => "verify",
            Command::ApproveTiers => "approve-tiers",
            Command::Help => "help",
        }
    }

    pub fn args(&self) -> &str {
        match self {
            Command::Override { reason } | Command::NotConcurrency { reason } => reason,
            Command::Rerun { test, .. } => test,
            _ => "",
        }
    }

    /// Needs write permission (or a maintainer listing).
    pub fn privileged(&self) -> bool {
        matches!(
            self,
            Command::Override { .. }
                | Command::NotConcurrency { .. }
                | Command::Rerun { .. }
                | Command::Verify
                | Command::ApproveTiers
        )
    }
}

/// Lines of a comment's text outside code and quotes.
fn plain_lines(body: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut code = 0usize;
    let mut quote = 0usize;
    for event in Parser::new(body) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => code += 1,
            Event::End(TagEnd::CodeBlock) => code = code.saturating_sub(1),
            Event::Start(Tag::BlockQuote(_)) => quote += 1,
            Event::End(TagEnd::BlockQuote(_)) => quote = quote.saturating_sub(1),
            Event::Text(t) if code == 0 && quote == 0 => current.push_str(&t),
            Event::Code(t) if code == 0 && quote == 0 => {
                // `/repro help` in backticks is a mention, not a command.
                current.push('`');
                current.push_str(&t);
                current.push('`');
            }
            Event::SoftBreak
            | Event::HardBreak
            | Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::Heading(_)) => {
                lines.push(std::mem::take(&mut current));
            }
            _ => {}
        }
    }
    lines.push(current);
    lines
}

/// Parses every command of a comment, in order.
pub fn parse(body: &str) -> Vec<Result<Command, Malformed>> {
    let mut out = Vec::new();
    for line in plain_lines(body) {
        let t = line.trim();
        let Some(rest) = t.strip_prefix("/repro") else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            continue; // `/reproduce`, `/repro-gate`: not ours
        }
        let rest = rest.trim();
        let (name, args) = match rest.split_once(char::is_whitespace) {
            Some((n, a)) => (n, a.trim()),
            None => (rest, ""),
        };
        let name_l = name.to_ascii_lowercase();
        let cmd = match name_l.as_str() {
            "override" | "not-concurrency" if args.is_empty() => Err(Malformed {
                line: t.to_string(),
                message: format!("`/repro {name_l}` needs a reason: `/repro {name_l} <reason>`."),
            }),
            "override" => Ok(Command::Override {
                reason: args.to_string(),
            }),
            "not-concurrency" => Ok(Command::NotConcurrency {
                reason: args.to_string(),
            }),
            "recheck" => Ok(Command::Recheck),
            "verify" => Ok(Command::Verify),
            "approve-tiers" => Ok(Command::ApproveTiers),
            "rerun" => rerun_args(args).map_err(|message| Malformed {
                line: t.to_string(),
                message,
            }),
            "help" | "" => Ok(Command::Help),
            other => Err(Malformed {
                line: t.to_string(),
                message: match suggest(other) {
                    Some(s) => {
                        format!("Unknown command `/repro {other}`. Did you mean `/repro {s}`?")
                    }
                    None => format!("Unknown command `/repro {other}`."),
                },
            }),
        };
        out.push(cmd);
    }
    out
}

/// Most commands of one comment acted on; the rest are named as ignored in the one reply.
pub const MAX_PER_COMMENT: usize = 10;

/// A comment's commands as they are acted on: repeats collapse to their first occurrence, at
/// most [`MAX_PER_COMMENT`] are kept, and the lines of the rest are returned to be named.
pub fn bound(
    parsed: Vec<Result<Command, Malformed>>,
) -> (Vec<Result<Command, Malformed>>, Vec<String>) {
    let mut kept: Vec<Result<Command, Malformed>> = Vec::new();
    let mut ignored = Vec::new();
    for c in parsed {
        if kept.contains(&c) {
            continue;
        }
        if kept.len() < MAX_PER_COMMENT {
            kept.push(c);
        } else {
            let line = match &c {
                Ok(cmd) => format!("/repro {} {}", cmd.name(), cmd.args())
                    .trim_end()
                    .to_string(),
                Err(m) => m.line.clone(),
            };
            if !ignored.contains(&line) {
                ignored.push(line);
            }
        }
    }
    (kept, ignored)
}

/// Ignored lines named in a reply before "and N more".
const MAX_IGNORED_SHOWN: usize = 10;

/// The part of the reply that names the commands not acted on.
pub fn ignored_reply(ignored: &[String]) -> String {
    let mut s = format!(
        "Only the first {MAX_PER_COMMENT} different commands of a comment are acted on; ignored:\n"
    );
    for line in ignored.iter().take(MAX_IGNORED_SHOWN) {
        let shown: String = line.chars().take(120).collect();
        s.push_str(&format!("- `{}`\n", shown.replace('`', "'")));
    }
    if ignored.len() > MAX_IGNORED_SHOWN {
        s.push_str(&format!(
            "- …and {} more\n",
            ignored.len() - MAX_IGNORED_SHOWN
        ));
    }
    s
}

/// One reply for a whole comment: each refusal or error in order, the commands table once if a
/// `/repro help` or a malformed command asked for it, and the commands ignored.
pub fn one_reply(messages: &[String], usage: bool, ignored: &[String]) -> Option<String> {
    let mut parts: Vec<String> = messages.to_vec();
    if usage {
        if messages.is_empty() {
            parts.push(help_reply());
        } else {
            parts.push(USAGE.to_string());
        }
    }
    if !ignored.is_empty() {
        parts.push(ignored_reply(ignored));
    }
    (!parts.is_empty()).then(|| parts.join("\n\n").trim_end().to_string())
}

/// Most runs per side a command may ask for.
pub const MAX_RERUN_RUNS: u32 = crate::core::config::MAX_RERUN_RUNS;

/// `<test> [n]`: the test id (quotes or backticks around it are dropped) and an optional count.
fn rerun_args(args: &str) -> Result<Command, String> {
    let usage = "`/repro rerun <test> [n]`, e.g. `/repro rerun services/pool::TestCheckout 20`";
    let args = args.trim();
    if args.is_empty() {
        return Err(format!("`/repro rerun` needs the test to rerun: {usage}."));
    }
    let (test, runs) = match args.rsplit_once(char::is_whitespace) {
        Some((t, n)) if n.chars().all(|c| c.is_ascii_digit()) => {
            let n: u32 = n.parse().unwrap_or(u32::MAX);
            if n == 0 || n > MAX_RERUN_RUNS {
                return Err(format!(
                    "`/repro rerun` runs a test 1 to {MAX_RERUN_RUNS} times per side, not {n}: {usage}."
                ));
            }
            (t.trim(), Some(n))
        }
        _ => (args, None),
    };
    let test = test
        .trim_matches(|c| c == '`' || c == '"' || c == '\'')
        .trim();
    if test.is_empty() || test.len() > 300 || test.chars().any(char::is_control) {
        return Err(format!(
            "`/repro rerun` needs a test id of at most 300 characters: {usage}."
        ));
    }
    // The id reaches the rerun workflow as one argument of a runner: plain data only.
    crate::core::verify::claim::safe_test(test)
        .map_err(|why| format!("`/repro rerun` cannot run this test: {why}. {usage}."))?;
    Ok(Command::Rerun {
        test: test.to_string(),
        runs,
    })
}

/// The reply to a malformed command: what was wrong, and the commands.
pub fn malformed_reply(m: &Malformed) -> String {
    format!("{}\n\n{USAGE}", m.message)
}

/// The reply to `/repro help`.
pub fn help_reply() -> String {
    format!("repro-gate commands (first word of a line in a PR comment):\n\n{USAGE}")
}

/// The reply to a command its author may not use: who may.
pub fn refusal(actor: &str, command: &str, repo: &str, maintainers: &[String]) -> String {
    let who = if maintainers.is_empty() {
        String::new()
    } else {
        format!(
            ", or to be listed in `maintainers` ({})",
            maintainers.join(", ")
        )
    };
    format!(
        "@{actor} may not use `/repro {command}`: it needs write, maintain or admin permission on {repo}{who}."
    )
}

/// The reply when the PR's head moved between an override and its handling.
pub fn head_moved_reply(actor: &str, seen: &str, now: &str) -> String {
    let short = |s: &str| s.chars().take(7).collect::<String>();
    format!(
        "@{actor}: the PR's head moved from `{}` to `{}` after your comment, so the override was not applied: it would pass a commit you had not seen. Review `{}` and comment `/repro override <reason>` again to override it.",
        short(seen),
        short(now),
        short(now)
    )
}

/// The reply when the PR's head moved between an approval of its tiers and its handling.
pub fn tiers_head_moved_reply(actor: &str, seen: &str, now: &str) -> String {
    let short = |s: &str| s.chars().take(7).collect::<String>();
    format!(
        "@{actor}: the PR's head moved from `{}` to `{}` after your comment, so the tiers were not approved: the approval would cover a reliability file you had not seen. Review `{}` and comment `/repro approve-tiers` again.",
        short(seen),
        short(now),
        short(now)
    )
}

/// The closest command name within an edit distance of 3.
pub fn suggest(word: &str) -> Option<&'static str> {
    NAMES
        .iter()
        .map(|n| (levenshtein(word, n), *n))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, n)| n)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().take(64).enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_at_line_start_in_order() {
        let got = parse("Thanks!\n/repro override hotfix for the outage\n/repro recheck\n");
        assert_eq!(
            got,
            vec![
                Ok(Command::Override {
                    reason: "hotfix for the outage".into()
                }),
                Ok(Command::Recheck)
            ]
        );
        assert_eq!(
            parse("/repro not-concurrency only renames a field"),
            vec![Ok(Command::NotConcurrency {
                reason: "only renames a field".into()
            })]
        );
        assert_eq!(parse("/repro help"), vec![Ok(Command::Help)]);
        assert_eq!(
            parse("/repro approve-tiers"),
            vec![Ok(Command::ApproveTiers)]
        );
        assert!(Command::ApproveTiers.privileged());
        assert!(help_reply().contains("/repro approve-tiers"));
    }

    #[test]
    fn rerun_refuses_a_test_id_a_runner_would_read_as_an_option() {
        for bad in [
            "/repro rerun services/x::--logfile=/tmp/x",
            "/repro rerun -run=.*",
            "/repro rerun `TestX;id`",
        ] {
            let got = parse(bad);
            assert!(
                matches!(got.as_slice(), [Err(m)] if m.message.contains("cannot run this test")),
                "{bad}: {got:?}"
            );
        }
    }

    #[test]
    fn rerun_takes_a_test_and_an_optional_count() {
        assert_eq!(
            parse("/repro rerun services/billing/integration::TestInvoiceRetryIdempotent 20"),
            vec![Ok(Command::Rerun {
                test: "services/billing/integration::TestInvoiceRetryIdempotent".into(),
                runs: Some(20)
            })]
        );
        assert_eq!(
            parse("/repro rerun `pkg::TestA`"),
            vec![Ok(Command::Rerun {
                test: "pkg::TestA".into(),
                runs: None
            })]
        );
        // A jest name with spaces keeps them.
        assert_eq!(
            parse("/repro rerun cart › adds an item 5"),
            vec![Ok(Command::Rerun {
                test: "cart › adds an item".into(),
                runs: Some(5)
            })]
        );
        assert!(
            Command::Rerun {
                test: "x".into(),
                runs: None
            }
            .privileged()
        );
        for bad in [
            "/repro rerun",
            "/repro rerun pkg::T 0",
            "/repro rerun pkg::T 101",
            "/repro rerun ``",
        ] {
            let got = parse(bad);
            assert!(matches!(got.as_slice(), [Err(_)]), "{bad}: {got:?}");
        }
    }

    #[test]
    fn code_blocks_quotes_and_mid_line_mentions_are_not_commands() {
        assert!(parse("```\n/repro override x\n```").is_empty());
        assert!(parse("> /repro override x").is_empty());
        assert!(parse("you can type /repro override x").is_empty());
        assert!(parse("    /repro override x").is_empty());
        assert!(parse("`/repro help` shows the commands").is_empty());
        assert!(parse("/reproduce this").is_empty());
    }

    #[test]
    fn replies_say_what_was_wrong_and_who_may() {
        let r = refusal("bob", "override", "acme/pool", &["acme/captains".into()]);
        assert_eq!(
            r,
            "@bob may not use `/repro override`: it needs write, maintain or admin permission on acme/pool, or to be listed in `maintainers` (acme/captains)."
        );
        assert!(!refusal("bob", "override", "acme/pool", &[]).contains("maintainers"));
        assert!(help_reply().contains("/repro not-concurrency"));
        assert!(help_reply().contains("/repro rerun <test> [n]"));
        let m = Malformed {
            line: "/repro override".into(),
            message: "needs a reason".into(),
        };
        assert!(malformed_reply(&m).starts_with("needs a reason\n\n| command |"));
    }

    #[test]
    fn missing_reasons_and_unknown_commands_explain_themselves() {
        let got = parse("/repro override");
        assert!(matches!(&got[0], Err(m) if m.message.contains("needs a reason")));
        let got = parse("/repro overide because");
        assert!(matches!(&got[0], Err(m) if m.message.contains("Did you mean `/repro override`")));
        let got = parse("/repro frobnicate");
        assert!(matches!(&got[0], Err(m) if !m.message.contains("Did you mean")));
    }

    #[test]
    fn a_comment_is_bounded_and_repeats_collapse() {
        let body = "/repro recheck\n".repeat(200);
        let (kept, ignored) = bound(parse(&body));
        assert_eq!(kept, vec![Ok(Command::Recheck)]);
        assert!(ignored.is_empty());
        let body: String = (0..30)
            .map(|i| format!("/repro frob{i}\n"))
            .collect::<String>()
            + "/repro help\n";
        let (kept, ignored) = bound(parse(&body));
        assert_eq!(kept.len(), MAX_PER_COMMENT);
        assert_eq!(ignored.len(), 21);
        assert_eq!(ignored[0], "/repro frob10");
        assert_eq!(ignored[20], "/repro help");
        let r = one_reply(&["a".into()], true, &ignored).unwrap_or_default();
        assert!(r.starts_with("a\n\n| command |"), "{r}");
        assert!(
            r.contains("`/repro frob10`") && r.contains("…and 11 more"),
            "{r}"
        );
        assert_eq!(one_reply(&[], true, &[]), Some(help_reply()));
        assert_eq!(
            one_reply(&["x".into()], true, &[]),
            Some(malformed_reply(&Malformed {
                line: String::new(),
                message: "x".into()
            }))
        );
        assert_eq!(one_reply(&[], false, &[]), None);
    }

    proptest::proptest! {
        #[test]
        fn no_comment_makes_the_parser_panic(body in "(?s).{0,300}") {
            let _ = parse(&body);
        }
    }
}
