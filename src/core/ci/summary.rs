//! What `repro-gate test` tells people: a few lines on the terminal, the job summary's
//! markdown and one `::warning` per excused failure on GitHub Actions. Test names come from
//! logs: on the terminal their control characters are gone, in markdown they are code spans or
//! escaped text, in a workflow command their `%`, `:`, `,` and line breaks are encoded.

use std::fmt::Write as _;

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
