//! What `repro-gate test` tells people: a few lines on the terminal, the job summary's
//! markdown and one `::warning` per excused failure on GitHub Actions. Test names come from
//! logs: on the terminal their control characters are gone, in markdown they are code spans or
//! escaped text, in a workflow command their `%`, `:`, `,` and line breaks are encoded.

use std::fmt::Write as _;

use super::account::Unexplained;
use super::excuse::{Blocking, Decision, Excused, Problem, Standing, Stands};
use crate::core::markdown;

/// A name from a log, safe to print on a terminal.
pub fn plain(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(300)
        .collect()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn excused_tail(e: &Excused) -> String {
    let mut bits = vec!["quarantined".to_string()];
    if let Some(t) = &e.ticket {
        bits.push(format!("ticket {}", plain(t)));
    }
    if let Some(o) = &e.owner {
        bits.push(format!("owner {}", plain(o)));
    }
    bits.join(", ")
}

fn stands(b: &Blocking) -> String {
    match b.why {
        Stands::Tier(t) => format!("{}: its failure is evidence", t.as_str()),
        Stands::Unlisted => "not in the reliability file: its failure is evidence".into(),
        Stands::Broken => "marked broken: a real failure, never excused".into(),
    }
}

fn or_list(v: &[String]) -> String {
    match v {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// What a failing unit (or the status) leaves unexplained, in one line.
pub fn unaccounted(u: &Unexplained) -> String {
    match u {
        Unexplained::Status {
            exit,
            runners,
            expected,
        } => {
            let codes: Vec<String> = expected.iter().map(i32::to_string).collect();
            let who = if runners.is_empty() {
                "a test runner".to_string()
            } else {
                or_list(&runners.iter().map(|r| r.to_string()).collect::<Vec<_>>())
            };
            format!(
                "the command exited {exit}, but {who} exits {} when tests fail: something beyond its failed tests set the status (a second command in a script, a test process's own exit)",
                or_list(&codes)
            )
        }
        Unexplained::NoFailingTest { unit } => format!(
            "{} FAILed with no failing test of its own (TestMain or a test ending the process, a leak check, its build or setup): its failure is unexplained",
            plain(unit)
        ),
        Unexplained::Race { unit, line } => format!(
            "a data race reported outside any test in {} ({}): never excused",
            plain(unit),
            plain(line)
        ),
        Unexplained::ExitStatus { unit, status } => format!(
            "the test process of {} ended with exit status {status}, beyond its failed tests (a test or TestMain ending the process)",
            plain(unit)
        ),
        Unexplained::NeverReported { unit, tests, count } => {
            let names: Vec<String> = tests.iter().map(|t| plain(t)).collect();
            let more = count.saturating_sub(tests.len());
            format!(
                "in {}, {} started and never reported a result{}: the process ended under it",
                plain(unit),
                names.join(", "),
                if more > 0 {
                    format!(" (and {more} more)")
                } else {
                    String::new()
                }
            )
        }
        Unexplained::NoSummary => "pytest ended before its closing summary line: the process ended under a test (os._exit, a crash)".into(),
        Unexplained::Stopped { unit } => format!(
            "cargo stopped at the failing test binary {}: the test binaries after it did not run (give --no-fail-fast)",
            plain(unit)
        ),
        Unexplained::TooMany { units } => {
            format!("{units} more failing packages or binaries left unexplained")
        }
    }
}

/// One line per problem.
pub fn problem(p: &Problem) -> String {
    match p {
        Problem::Killed(n) => {
            format!("the command was ended by signal {n}: a crash is never excused")
        }
        Problem::Build(l) => format!("the build failed: {}", plain(l)),
        Problem::Crash(l) => format!(
            "a test process crashed (its other tests did not run): {}",
            plain(l)
        ),
        Problem::Hang(l) => format!(
            "a test process hung and was ended (its other tests did not run): {}",
            plain(l)
        ),
        Problem::Interrupted(l) => {
            format!("the test runner broke or was interrupted: {}", plain(l))
        }
        Problem::Unexplained(c) => {
            format!(
                "the command exited {c} and no test failure in its output or reports explains it"
            )
        }
        Problem::Unaccounted(u) => unaccounted(u),
        Problem::Truncated(n) => {
            format!("{n} tests were past what the parsers keep: their outcomes are unknown")
        }
        Problem::File(e) => format!(
            "the reliability file could not be read ({}): nothing is excused",
            plain(e)
        ),
    }
}

/// The terminal's summary (stderr, after the command's own output). `recorded` says where the
/// results went (`uploaded to …`, `written to …`), empty when nowhere.
pub fn terminal(d: &Decision, recorded: &[String]) -> String {
    let mut s = String::new();
    let where_ = if recorded.is_empty() {
        "not recorded (no --upload or --out)".to_string()
    } else {
        format!("recorded: {}", recorded.join("; "))
    };
    match d.standing {
        Standing::Passed => {
            let _ = writeln!(s, "repro-gate test: the command passed; results {where_}");
        }
        Standing::Excused => {
            let _ = writeln!(
                s,
                "repro-gate test: exit 0 (the command exited {}): only {} failed, and a quarantined test's failure is NOT evidence; it does not decide the build; results {where_}",
                d.command_exit,
                plural(d.excused.len(), "quarantined test", "quarantined tests"),
            );
            for e in &d.excused {
                let _ = writeln!(s, "  excused: {} ({})", plain(&e.test), excused_tail(e));
            }
        }
        Standing::Failed => {
            let _ = writeln!(
                s,
                "repro-gate test: exit {} (the command's own status): the failure stands; results {where_}",
                d.exit
            );
            for b in &d.blocking {
                let _ = writeln!(s, "  failed: {} ({})", plain(&b.test), stands(b));
            }
            for p in &d.problems {
                let _ = writeln!(s, "  {}", problem(p));
            }
            for e in &d.excused {
                let _ = writeln!(
                    s,
                    "  also failed, quarantined (would be excused alone): {} ({})",
                    plain(&e.test),
                    excused_tail(e)
                );
            }
        }
    }
    s
}

fn md_excused(e: &Excused) -> String {
    format!(
        "| {} | quarantined | {} | {} |",
        markdown::name(&e.test),
        e.ticket.as_deref().map(markdown::md).unwrap_or_default(),
        e.owner.as_deref().map(markdown::md).unwrap_or_default()
    )
}

/// The job summary (`$GITHUB_STEP_SUMMARY`), markdown.
pub fn step_summary(d: &Decision, recorded: &[String]) -> String {
    let mut s = String::new();
    let head = match d.standing {
        Standing::Passed => "✅ repro-gate test: the tests passed".to_string(),
        Standing::Excused => format!(
            "⚠️ repro-gate test: passed with {} excused",
            plural(
                d.excused.len(),
                "quarantined failure",
                "quarantined failures"
            )
        ),
        Standing::Failed => format!("❌ repro-gate test: the failure stands (exit {})", d.exit),
    };
    let _ = writeln!(s, "### {head}\n");
    if d.standing == Standing::Excused {
        let _ = writeln!(
            s,
            "The command exited {}. Every failing test is quarantined: **a quarantined test's failure is NOT evidence**; it is recorded in the history and does not decide the build.\n",
            d.command_exit
        );
    }
    if !d.blocking.is_empty() {
        let _ = writeln!(s, "| failed | why it stands |\n|---|---|");
        for b in &d.blocking {
            let _ = writeln!(
                s,
                "| {} | {} |",
                markdown::name(&b.test),
                markdown::md(&stands(b))
            );
        }
        s.push('\n');
    }
    for p in &d.problems {
        let _ = writeln!(s, "- {}", markdown::md(&problem(p)));
    }
    if !d.problems.is_empty() {
        s.push('\n');
    }
    if !d.excused.is_empty() {
        // Excused only when the build passed because of them; beside a failure that stands
        // nothing was excused, and the title must not say it was.
        let title = if d.standing == Standing::Excused {
            "quarantined, excused"
        } else {
            "also failed, quarantined (not excused: the failure stands)"
        };
        let _ = writeln!(s, "| {title} | tier | ticket | owner |\n|---|---|---|---|");
        for e in &d.excused {
            let _ = writeln!(s, "{}", md_excused(e));
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "{}",
        if recorded.is_empty() {
            "Results not recorded (no `--upload` or `--out`).".to_string()
        } else {
            format!("Results {}.", markdown::md(&recorded.join("; ")))
        }
    );
    s
}

/// A workflow command's data: `%`, CR and LF encoded.
fn command_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: also `:` and `,`.
fn command_property(s: &str) -> String {
    command_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One `::warning` line per excused failure (GitHub Actions annotations).
pub fn annotations(d: &Decision) -> Vec<String> {
    if d.standing != Standing::Excused {
        return Vec::new();
    }
    d.excused
        .iter()
        .map(|e| {
            let mut msg = format!(
                "{} failed and is quarantined: its failure is NOT evidence and does not fail the build (recorded in the history)",
                plain(&e.test)
            );
            if let Some(t) = &e.ticket {
                let _ = write!(msg, "; ticket {}", plain(t));
            }
            if let Some(o) = &e.owner {
                let _ = write!(msg, "; owner {}", plain(o));
            }
            format!(
                "::warning title={}::{}",
                command_property(&format!("Quarantined test failed: {}", plain(&e.test))),
                command_data(&msg)
            )
        })
        .collect()
}
