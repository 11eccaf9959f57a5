//! The test-reliability comment: one per PR, one section per failing check, each failing test
//! with its tier and the tier's instruction. Pure: rows in, markdown out.

use std::fmt::Write as _;

use super::failures::{FailedTest, Report};
use super::markdown::{fenced, md, name};
use super::reliability::ReliabilityFile;
use super::shell;
use super::tier::Tier;

/// Marks the one reliability comment of a PR.
pub const MARKER: &str = "<!-- repro-gate:test-reliability -->";
const SECTION_START: &str = "<!-- repro-gate:check ";
const SECTION_END: &str = "<!-- /repro-gate:check -->";

/// A failing test with what the reliability file says of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub id: String,
    pub name: String,
    pub package: Option<String>,
    pub tier: Tier,
    pub listed: bool,
    pub pass_rate: Option<f64>,
    pub runs: Option<u64>,
    pub failures: Option<u64>,
    pub owner: Option<String>,
    pub ticket: Option<String>,
    pub note: Option<String>,
    pub flaky: bool,
    /// Where its current failing period began on the tracked branches, as the file says.
    pub onset: Option<super::reliability::FileOnset>,
    /// The line pointing at a rerun session of this test (markdown), when one runs.
    pub session: Option<String>,
}

/// The rows of a failing check's section: each failing or flaky test with its entry, in the
/// tiers the config asks a comment for (quarantined always gets one: a failure there must be
/// called out as not evidence).
pub fn rows(report: &Report, file: &ReliabilityFile, comment_tiers: &[Tier]) -> Vec<Row> {
    let to_row = |t: &FailedTest, flaky: bool| Row {
        flaky,
        ..row_of(&t.id(), t.package.as_deref(), &t.name, file)
    };
    report
        .failed
        .iter()
        .map(|t| to_row(t, false))
        .chain(report.flaky.iter().map(|t| to_row(t, true)))
        .filter(|r| r.tier == Tier::Quarantined || comment_tiers.contains(&r.tier))
        .collect()
}

/// The command that reruns one test alone, 20 times, for its runner (guessed from its id), or
/// `None` when the name or package is not a plausible identifier for that runner: a name from a
/// log is data, and a command built from it would run whatever it carries. Every value in the
/// command is shell-quoted.
pub fn rerun_command(package: Option<&str>, name: &str) -> Option<String> {
    let pkg = package.unwrap_or("");
    let go_like =
        name.starts_with("Test") || name.starts_with("Fuzz") || name.starts_with("Example");
    if pkg.ends_with(".py") {
        if !(shell::file_path(pkg) && shell::pytest_name(name)) {
            return None;
        }
        return Some(format!(
            "for i in $(seq 20); do pytest -q -p no:randomly -p no:cacheprovider {} || echo FAILED; done",
            shell::quote(&format!("{pkg}::{name}"))
        ));
    }
    if [".js", ".ts", ".jsx", ".tsx", ".mjs", ".cjs"]
        .iter()
        .any(|e| pkg.ends_with(e))
    {
        if !(shell::file_path(pkg) && shell::printable_title(name)) {
            return None;
        }
        return Some(format!(
            "for i in $(seq 20); do npx jest --no-cache {} -t {} || echo FAILED; done",
            shell::quote(pkg),
            shell::quote(&format!("^{}$", shell::regex_escape(name)))
        ));
    }
    if go_like && !name.contains("::") {
        if !shell::go_test_name(name) || !(pkg.is_empty() || shell::go_package(pkg)) {
            return None;
        }
        let run = name
            .split('/')
            .map(|p| format!("^{}$", shell::regex_escape(p)))
            .collect::<Vec<_>>()
            .join("/");
        let target = if pkg.is_empty() { "./..." } else { pkg };
        return Some(format!(
            "go test -run {} -count=20 -race {}",
            shell::quote(&run),
            shell::quote(target)
        ));
    }
    if pkg.contains('.')
        && pkg.chars().next().is_some_and(char::is_lowercase)
        && !pkg.contains('/')
        && pkg.split('.').count() > 2
    {
        // A Java class (com.acme.PoolTest).
        let class = pkg.rsplit('.').next().unwrap_or(pkg);
        if !(shell::java_name(class) && shell::java_name(name)) {
            return None;
        }
        return Some(format!(
            "for i in $(seq 20); do mvn -q test {} -Dsurefire.rerunFailingTestsCount=0 || echo FAILED; done",
            shell::quote(&format!("-Dtest={class}#{name}"))
        ));
    }
    if !shell::rust_test_path(name) {
        return None;
    }
    Some(format!(
        "for i in $(seq 20); do cargo test {} -- --exact || echo FAILED; done",
        shell::quote(name)
    ))
}

/// A reliability-file row for a test id (a lookup: no failure report behind it).
pub fn row_for(id: &str, file: &ReliabilityFile) -> Row {
    let (package, name) = crate::core::test_ids::split_id(id);
    row_of(id, package, name, file)
}

/// The row of a test (`id`, as `package` and `name`) from the file's entry, if it has one.
fn row_of(id: &str, package: Option<&str>, name: &str, file: &ReliabilityFile) -> Row {
    let entry = file.find(package, name);
    Row {
        id: entry
            .map(|e| e.id.clone())
            .unwrap_or_else(|| id.to_string()),
        name: name.to_string(),
        package: package.map(str::to_string),
        tier: entry.map(|e| e.tier).unwrap_or(file.policy.default_tier),
        listed: entry.is_some(),
        pass_rate: entry.and_then(|e| e.pass_rate),
        runs: entry.and_then(|e| e.runs),
        failures: entry.and_then(|e| e.failures),
        owner: entry.and_then(|e| e.owner.clone()),
        ticket: entry.and_then(|e| e.ticket.clone()),
        note: entry.and_then(|e| e.note.clone()),
        flaky: false,
        onset: entry.and_then(|e| e.onset.clone()),
        session: None,
    }
}

/// What a failure of the row's test asks of whoever reads it: the one wording of each tier's
/// instruction, for the reliability comment and for `lookup`.
pub fn instruction(row: &Row) -> String {
    match row.tier {
        Tier::Quarantined => "**Quarantined: this failure is NOT evidence.** Never change production code to make it pass. If your change touches what it covers, write a deterministic test for that instead.".to_string(),
        Tier::Trusted => "**Trusted: this failure is real evidence.** Investigate it.".to_string(),
        Tier::Probation => {
            let how = match rerun_command(row.package.as_deref(), &row.name) {
                Some(cmd) => format!("\n\n  {}", fenced("sh", &cmd).replace('\n', "\n  ")),
                None => " (no command is offered: the test's name is not a plain identifier, so it is shown as data only)".to_string(),
            };
            format!(
                "**{}: rerun it alone, in isolation, before forming a hypothesis**, 20 times on this branch and 20 times on the merge base:{how}\n\n  The same failure rate on both sides means this change did not cause it (\"not my bug\" is a finished task). Three failures in a row, or clearly more failures on the branch (for 20 runs: 0 on base vs 5 or more on the branch), means investigate.",
                if row.listed { "Probation" } else { "Not in the reliability file (probation)" },
            )
        }
    }
}

/// The line saying since when the test fails on the tracked branches: a failure that began
/// there before this change is not this change's.
pub fn onset_line(o: &super::reliability::FileOnset) -> String {
    let short = |s: &str| -> String { s.chars().take(7).collect() };
    let day: String = o.at.chars().take(10).collect();
    let since = match &o.last_pass_sha {
        Some(lp) => format!(
            "last passed at `{}`, first failed at `{}`",
            md(&short(lp)),
            md(&short(&o.first_fail_sha))
        ),
        None => format!(
            "failing since it first appeared, at `{}`",
            md(&short(&o.first_fail_sha))
        ),
    };
    format!(
        "Failing on the tracked branches since {} ({since}): the failure began there, before this run.",
        md(&day)
    )
}

/// One check's section.
pub fn section(check: &str, sha: &str, rows: &[Row], file_error: Option<&str>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{SECTION_START}{} -->", section_key(check));
    let short: String = sha.chars().take(7).collect();
    let _ = writeln!(s, "### ❌ {} failed on `{short}`\n", name(check));
    if let Some(e) = file_error {
        let _ = writeln!(
            s,
            "> The reliability file could not be read ({}); tiers below are the default.\n",
            md(e)
        );
    }
    let _ = writeln!(
        s,
        "| test | tier | pass rate | runs | failures | owner | ticket | note |\n|---|---|---|---|---|---|---|---|"
    );
    for r in rows {
        let opt = |o: &Option<String>| o.as_deref().map(md).unwrap_or_else(|| "—".into());
        let _ = writeln!(
            s,
            "| {}{} | {} | {} | {} | {} | {} | {} | {} |",
            name(&r.id),
            if r.flaky {
                " (flaky: passed on retry)"
            } else {
                ""
            },
            r.tier,
            r.pass_rate
                .map(|p| format!("{:.1}%", p * 100.0))
                .unwrap_or_else(|| "—".into()),
            r.runs.map(|v| v.to_string()).unwrap_or_else(|| "—".into()),
            r.failures
                .map(|v| v.to_string())
                .unwrap_or_else(|| "—".into()),
            opt(&r.owner),
            opt(&r.ticket),
            opt(&r.note),
        );
    }
    s.push('\n');
    for r in rows {
        let _ = writeln!(s, "- {}: {}", name(&r.id), instruction(r));
        if let Some(o) = &r.onset {
            let _ = writeln!(s, "\n  {}", onset_line(o));
        }
        if let Some(p) = &r.session {
            let _ = writeln!(s, "\n  {p}");
        }
    }
    s.push('\n');
    s.push_str(SECTION_END);
    s
}

/// A section with a note that the job log was cut at `cap` bytes.
pub fn with_truncation_note(section: String, cap: usize) -> String {
    let note = format!(
        "> The job log is longer than {} MiB; only its first {} MiB were read, so failures after that point are not listed.\n\n",
        cap >> 20,
        cap >> 20
    );
    match section.find("| test | tier |") {
        Some(i) => format!("{}{note}{}", &section[..i], &section[i..]),
        None => section,
    }
}

/// A section saying the check passed on a newer commit.
pub fn passed_section(check: &str, sha: &str) -> String {
    let short: String = sha.chars().take(7).collect();
    format!(
        "{SECTION_START}{} -->\n### ✅ {} passed on `{short}`\n\nIt failed on an earlier commit; the failures listed before are no longer current.\n{SECTION_END}",
        section_key(check),
        name(check)
    )
}

/// The name a check's section is kept under, inside an HTML comment: escaped, and without
/// `--` (which would end the comment early).
fn section_key(check: &str) -> String {
    let mut key = md(check);
    while key.contains("--") {
        key = key.replace("--", "- -");
    }
    key
}

/// Whether an existing comment has a section for `check`.
pub fn has_section(body: &str, check: &str) -> bool {
    let key = section_key(check);
    sections(body).iter().any(|(n, _)| *n == key)
}

/// The section of quarantine issues filed for this PR's tests (a name no check has: it holds
/// markup a check name cannot).
pub const TICKETS_SECTION: &str = "<quarantine tickets>";

/// The section listing the quarantine issues filed for this PR's failing tests.
pub fn tickets_section(filed: &[(String, u64)]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{SECTION_START}{} -->", section_key(TICKETS_SECTION));
    let _ = writeln!(
        s,
        "### Quarantine tickets
"
    );
    for (test, n) in filed {
        let _ = writeln!(
            s,
            "- {}: filed as #{n} (`not this change`: flaky without this PR) <!-- repro-gate:filed:{n}:{} -->",
            name(test),
            hex::encode(test.as_bytes())
        );
    }
    s.push('\n');
    s.push_str(SECTION_END);
    s
}

/// The (test, issue) pairs a reliability comment's tickets section lists.
pub fn filed_tickets(body: &str) -> Vec<(String, u64)> {
    const TAG: &str = "<!-- repro-gate:filed:";
    let mut out = Vec::new();
    for line in body.lines() {
        let Some(at) = line.find(TAG) else { continue };
        let rest = &line[at + TAG.len()..];
        let Some(end) = rest.find(" -->") else {
            continue;
        };
        let Some((n, hexed)) = rest[..end].split_once(':') else {
            continue;
        };
        let (Ok(n), Ok(bytes)) = (n.parse::<u64>(), hex::decode(hexed)) else {
            continue;
        };
        if let Ok(test) = String::from_utf8(bytes) {
            out.push((test, n));
        }
    }
    out
}

/// The sections of an existing comment, by check name.
pub fn sections(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find(SECTION_START) {
        let after = &rest[start + SECTION_START.len()..];
        let Some(name_end) = after.find(" -->") else {
            break;
        };
        let name = after[..name_end].to_string();
        let Some(end) = rest[start..].find(SECTION_END) else {
            break;
        };
        let end = start + end + SECTION_END.len();
        out.push((name, rest[start..end].to_string()));
        rest = &rest[end..];
    }
    out
}

/// Replaces (or adds) one check's section and renders the whole comment.
pub fn compose(existing: Option<&str>, check: &str, new_section: String) -> String {
    let key = section_key(check);
    let mut secs = existing.map(sections).unwrap_or_default();
    match secs.iter_mut().find(|(n, _)| *n == key) {
        Some(slot) => slot.1 = new_section,
        None => secs.push((key, new_section)),
    }
    let mut s = format!(
        "{MARKER}\n## Test reliability\n\nBefore reasoning about a red build, check whether the failure is evidence at all (from `.ci/test-reliability.yaml` on the default branch).\n\n"
    );
    for (_, text) in secs {
        s.push_str(&text);
        s.push_str("\n\n");
    }
    s.trim_end().to_string() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filed_tickets_round_trip_through_their_section() {
        let filed = vec![("pkg::TestX".to_string(), 12), ("a`-->b".to_string(), 13)];
        let body = compose(None, TICKETS_SECTION, tickets_section(&filed));
        assert_eq!(filed_tickets(&body), filed);
        assert!(body.contains("filed as #12"));
        // A check's own section is untouched beside it.
        let with_check = compose(
            Some(&body),
            "ci / test",
            section("ci / test", "abc", &[], None),
        );
        assert_eq!(filed_tickets(&with_check), filed);
        assert!(has_section(&with_check, "ci / test"));
    }

    pub(super) fn row(tier: Tier, listed: bool) -> Row {
        Row {
            id: "services/pool/integration::TestPoolCheckoutUnderLoad".into(),
            name: "TestPoolCheckoutUnderLoad".into(),
            package: Some("example.com/acme/services/pool/integration".into()),
            tier,
            listed,
            pass_rate: Some(0.855),
            runs: Some(200),
            failures: Some(29),
            owner: Some("platform".into()),
            ticket: Some("PLAT-1182".into()),
            note: Some("Checkout deadline too tight for shared runners.".into()),
            flaky: false,
            onset: None,
            session: None,
        }
    }

    #[test]
    fn a_failure_that_began_on_the_tracked_branches_says_since_when() {
        let mut r = row(Tier::Probation, true);
        r.onset = Some(crate::core::reliability::FileOnset {
            last_pass_sha: Some("abc1234def5678abc1234def5678abc1234def56".into()),
            first_fail_sha: "0123456789abcdef0123456789abcdef01234567".into(),
            at: "2026-11-20T09:00:00Z".into(),
        });
        let s = section("ci / test", "f00dbeef", &[r.clone()], None);
        assert!(
            s.contains("Failing on the tracked branches since 2026-11-20 (last passed at `abc1234`, first failed at `0123456`)"),
            "{s}"
        );
        r.onset = None;
        assert!(!section("ci / test", "f00dbeef", &[r], None).contains("Failing on the tracked"));
    }

    #[test]
    fn a_test_with_a_rerun_session_points_at_it() {
        let mut r = row(Tier::Probation, false);
        r.session = Some(crate::core::rerun::comment::pointer(
            Some("#issuecomment-42"),
            "rr-0123456789ab",
        ));
        let s = section("ci / test", "0123456789abcdef", &[r], None);
        assert!(
            s.contains("[Rerun session `rr-0123456789ab`](<#issuecomment-42>): wait for its verdict; do not change code for this test until it says `this change makes it fail`."),
            "{s}"
        );
    }

    #[test]
    fn comment_with_every_tier() {
        let rows = vec![
            row(Tier::Quarantined, true),
            row(Tier::Probation, true),
            row(Tier::Trusted, true),
            row(Tier::Probation, false),
        ];
        let body = compose(
            None,
            "ci / test",
            section("ci / test", "0123456789abcdef", &rows, None),
        );
        insta::assert_snapshot!(body);
    }

    #[test]
    fn a_later_check_updates_its_own_section_only() {
        let first = compose(
            None,
            "unit",
            section("unit", "aaaaaaa1", &[row(Tier::Quarantined, true)], None),
        );
        let second = compose(
            Some(&first),
            "integration",
            section("integration", "aaaaaaa1", &[row(Tier::Trusted, true)], None),
        );
        assert_eq!(sections(&second).len(), 2);
        let third = compose(Some(&second), "unit", passed_section("unit", "bbbbbbb2"));
        let secs = sections(&third);
        assert_eq!(secs.len(), 2);
        assert!(secs[0].1.contains("passed on `bbbbbbb`"));
        assert!(secs[1].1.contains("integration"));
        assert!(third.starts_with(MARKER));
    }

    #[test]
    fn a_section_is_found_by_its_check_whatever_the_name_holds() {
        for check in ["ci / test", "unit_tests", "a -- b", "a---b", "[x] *y*"] {
            let body = compose(None, check, passed_section(check, "abcdef1"));
            assert!(has_section(&body, check), "{check}: {body}");
            assert!(!has_section(&body, "other"));
            let key = &sections(&body)[0].0;
            assert!(!key.contains("--"), "{check}: {key}");
        }
    }

    #[test]
    fn rerun_commands_per_runner() {
        let cmd = |p: &str, n: &str| rerun_command(Some(p), n).unwrap_or_default();
        assert_eq!(
            cmd("example.com/acme/services/pool", "TestX/case_1.5"),
            "go test -run '^TestX$/^case_1\\.5$' -count=20 -race 'example.com/acme/services/pool'"
        );
        assert!(cmd("tests/test_pool.py", "test_checkout").contains("pytest"));
        assert!(
            cmd("src/pool.test.ts", "checks out (slow)").contains("-t '^checks out \\(slow\\)$'")
        );
        assert!(cmd("com.acme.pool.PoolTest", "checkout").contains("'-Dtest=PoolTest#checkout'"));
        assert!(cmd("pool", "tests::checkout").contains("cargo test 'tests::checkout' -- --exact"));
    }

    #[test]
    fn hostile_names_from_logs_get_no_command_and_are_shown_as_data() {
        for (pkg, name) in [
            ("example.com/acme/inj", "TestInj/a';echo_pwned>canary;'"),
            ("example.com/acme/inj", "TestSub$(echo${IFS}pwned>canary)"),
            ("inj", "tests::a$(echo${IFS}pwned>canary)"),
            ("src/a.test.js", "x`touch canary`"),
            ("tests/test_a.py", "test_a;touch canary"),
            ("x;touch canary", "TestOk"),
        ] {
            assert_eq!(rerun_command(Some(pkg), name), None, "{pkg} {name}");
        }
        let mut row = super::tests::row(Tier::Probation, false);
        row.name = "TestInj/a';echo_pwned>canary;'".into();
        row.id = format!("x::{}", row.name);
        let text = section("ci", "abc", &[row], None);
        assert!(text.contains("no command is offered"), "{text}");
        assert!(
            !text.contains("`x::TestInj"),
            "the hostile id is not a code span: {text}"
        );
    }
}
