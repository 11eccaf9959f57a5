//! The labelled dev set of real PR descriptions and diffs in `../shared/fixtures/real-prs/`, and
//! the short cases of each kind in `../shared/fixtures/kinds/`: `check-body` and `classify` over
//! every case, with accuracy, precision, recall and each miss printed (`cargo test real_prs --
//! --nocapture`). A dev set, not a target: the thresholds below guard against regressions.
//! Skipped, with a message, when the folders are absent.

use std::path::{Path, PathBuf};

use repro_gate::core::classify::classify;
use repro_gate::core::classify::diff::parse_unified;
use repro_gate::core::config::RepoConfig;
use repro_gate::core::evidence::{EvidenceKind, check_body};
use repro_gate::core::verify::to_run::runs_decide;

#[derive(serde::Deserialize)]
struct Manifest {
    cases: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    file: String,
    expect: bool,
    #[serde(default)]
    kind: Option<EvidenceKind>,
    #[serde(default = "yes")]
    critical: bool,
    #[serde(default)]
    diff: Option<String>,
    #[serde(default)]
    why: String,
}

fn yes() -> bool {
    true
}

/// Cases whose label disagrees with the documented rule (docs/rule.md), reported as misses and not failed on. None
/// now: the test-only lock fixes that once disagreed with `test_changes_count: false` are
/// counted by `sync`, the default since.
const RULE_OVER_LABEL: &[&str] = &[];

/// The set's first half (the cases the rules were first written against) and its second
/// (added later, scored before any tuning to them): each must meet the bar on its own.
fn half(file: &str, first_of_new: u32) -> usize {
    let n: u32 = file
        .split('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    usize::from(n >= first_of_new)
}

/// Scores of the old and the new half, each held to the bar.
fn check_halves(name: &str, halves: &[Score; 2]) {
    for (score, which) in halves.iter().zip(["old", "new"]) {
        let (accuracy, precision) = score.report(&format!("{name} ({which} cases)"));
        assert!(
            score.critical_errors.is_empty(),
            "{:#?}",
            score.critical_errors
        );
        assert!(
            accuracy >= 0.95 && precision >= 0.97,
            "{name}, {which} cases: accuracy {accuracy:.3}, precision {precision:.3}"
        );
    }
}

fn root() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/real-prs");
    dir.is_dir().then_some(dir)
}

fn manifest(dir: &Path) -> Manifest {
    let text = std::fs::read_to_string(dir.join("cases.yaml")).expect("cases.yaml");
    serde_saphyr::from_str(&text).expect("cases.yaml parses")
}

#[derive(Default)]
struct Score {
    tp: u32,
    fp: u32,
    tn: u32,
    fn_: u32,
    critical_errors: Vec<String>,
    misses: Vec<String>,
}

impl Score {
    fn add(&mut self, case: &Case, got: bool, right: bool) {
        match (case.expect, got) {
            (true, true) if right => self.tp += 1,
            (true, _) => self.fn_ += 1,
            (false, true) => self.fp += 1,
            (false, false) => self.tn += 1,
        }
        if !right {
            let line = format!(
                "{} (expect {}{}, critical {}): {}",
                case.file,
                case.expect,
                case.kind
                    .map(|k| format!("/{}", serde_json::to_string(&k).unwrap()))
                    .unwrap_or_default(),
                case.critical,
                case.why
            );
            if case.critical && !RULE_OVER_LABEL.contains(&case.file.as_str()) {
                self.critical_errors.push(line.clone());
            }
            self.misses.push(line);
        }
    }

    fn report(&self, name: &str) -> (f64, f64) {
        let total = (self.tp + self.fp + self.tn + self.fn_) as f64;
        let accuracy = (self.tp + self.tn) as f64 / total;
        let precision = if self.tp + self.fp == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        };
        let recall = if self.tp + self.fn_ == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fn_) as f64
        };
        eprintln!(
            "real-prs {name}: {total} cases, accuracy {accuracy:.3}, precision {precision:.3}, recall {recall:.3}, critical errors {}",
            self.critical_errors.len()
        );
        for m in &self.misses {
            eprintln!("  miss: {m}");
        }
        (accuracy, precision)
    }
}

/// A case's description judged (with its diff when it has one): whether it is satisfied, and
/// whether that is right (the verdict, and the kind of evidence when one is expected).
fn judge_body(dir: &Path, case: &Case) -> (bool, bool) {
    let body = std::fs::read_to_string(dir.join(&case.file)).expect("body file");
    let files = case.diff.as_ref().map(|d| {
        let text = std::fs::read_to_string(dir.join(d)).expect("diff file");
        parse_unified(&text).expect("diff parses")
    });
    let v = check_body(&body, files.as_deref());
    let right = v.satisfied == case.expect
        && (!case.expect
            || case
                .kind
                .is_none_or(|k| v.evidence.iter().any(|e| e.kind == k)));
    (v.satisfied, right)
}

#[test]
fn real_pr_descriptions_are_judged_like_a_reviewer_would() {
    let Some(dir) = root().map(|d| d.join("bodies")) else {
        eprintln!("skipped: ../shared/fixtures/real-prs is absent");
        return;
    };
    let mut score = Score::default();
    let mut halves = [Score::default(), Score::default()];
    for case in manifest(&dir).cases {
        let (got, right) = judge_body(&dir, &case);
        score.add(&case, got, right);
        halves[half(&case.file, 61)].add(&case, got, right);
    }
    let (accuracy, precision) = score.report("descriptions");
    check_halves("descriptions", &halves);
    assert!(
        score.critical_errors.is_empty(),
        "{:#?}",
        score.critical_errors
    );
    assert!(accuracy >= 0.95 && precision >= 0.97);
}

#[test]
fn real_diffs_are_classified_like_a_reviewer_would() {
    let Some(dir) = root().map(|d| d.join("diffs")) else {
        eprintln!("skipped: ../shared/fixtures/real-prs is absent");
        return;
    };
    let mut score = Score::default();
    let mut halves = [Score::default(), Score::default()];
    let config = RepoConfig::default();
    for case in manifest(&dir).cases {
        let text = std::fs::read_to_string(dir.join(&case.file)).expect("diff file");
        let files = parse_unified(&text).expect("diff parses");
        let got = classify(&files, &config).concurrency;
        score.add(&case, got, got == case.expect);
        halves[half(&case.file, 52)].add(&case, got, got == case.expect);
    }
    let (accuracy, precision) = score.report("diffs");
    check_halves("diffs", &halves);
    assert!(
        score.critical_errors.is_empty(),
        "{:#?}",
        score.critical_errors
    );
    assert!(accuracy >= 0.95 && precision >= 0.97);
}

/// `../shared/fixtures/kinds/`: one short case per kind of reproduction and of change, every
/// one critical.
fn kinds_root() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/kinds");
    dir.is_dir().then_some(dir)
}

/// Kinds the rules do not handle yet. A case listed here that comes out right fails the test
/// (take it off the list); one not listed that comes out wrong fails it too.
const KINDS_NOT_YET: &[&str] = &[];

fn check_kinds(name: &str, results: &[(String, bool, String)]) {
    let wrong: Vec<String> = results
        .iter()
        .filter(|(file, right, _)| !right && !KINDS_NOT_YET.contains(&file.as_str()))
        .map(|(file, _, why)| format!("{file}: {why}"))
        .collect();
    let fixed: Vec<&String> = results
        .iter()
        .filter(|(file, right, _)| *right && KINDS_NOT_YET.contains(&file.as_str()))
        .map(|(file, _, _)| file)
        .collect();
    let right = results.iter().filter(|(_, r, _)| *r).count();
    eprintln!("kinds {name}: {right} of {} right", results.len());
    assert!(wrong.is_empty(), "kinds {name} judged wrong: {wrong:#?}");
    assert!(
        fixed.is_empty(),
        "kinds {name} now right, take them off KINDS_NOT_YET: {fixed:?}"
    );
}

#[test]
fn each_kind_of_reproduction_is_judged_right() {
    let Some(dir) = kinds_root().map(|d| d.join("bodies")) else {
        eprintln!("skipped: ../shared/fixtures/kinds is absent");
        return;
    };
    let mut results = Vec::new();
    for case in manifest(&dir).cases {
        let (_, right) = judge_body(&dir, &case);
        results.push((case.file, right, case.why));
    }
    assert!(results.len() >= 8, "{} cases", results.len());
    check_kinds("descriptions", &results);
}

#[test]
fn each_kind_of_concurrency_change_is_classified_right() {
    let Some(dir) = kinds_root().map(|d| d.join("diffs")) else {
        eprintln!("skipped: ../shared/fixtures/kinds is absent");
        return;
    };
    let config = RepoConfig::default();
    let mut results = Vec::new();
    for case in manifest(&dir).cases {
        let text = std::fs::read_to_string(dir.join(&case.file)).expect("diff file");
        let files = parse_unified(&text).expect("diff parses");
        let got = classify(&files, &config).concurrency;
        results.push((case.file, got == case.expect, case.why));
    }
    assert!(results.len() >= 7, "{} cases", results.len());
    check_kinds("diffs", &results);
}

/// The project's own labelled cases (`tests/judgement/`, issue 44): real diffs and descriptions
/// from repositories the rules were not written against, scored like the set above, at the bar
/// the issue sets (accuracy 0.95, precision 0.98), every miss printed. A forcing test that comes
/// with its diff is decided by its runs, not its words (docs/verification.md): those cases are
/// scored apart, on whether the find round is handed a test file it runs.
fn judgement_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/judgement")
}

const JUDGEMENT_BAR: (f64, f64) = (0.95, 0.98);

#[test]
fn the_project_s_own_diffs_are_classified_at_the_bar() {
    let dir = judgement_root().join("diffs");
    let config = RepoConfig::default();
    let mut score = Score::default();
    let mut cases = 0;
    for name in ["cases.yaml", "cases-extra.yaml"] {
        if !dir.join(name).is_file() {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(name)).expect("manifest");
        let m: Manifest = serde_saphyr::from_str(&text).expect("manifest parses");
        for case in m.cases {
            let text = std::fs::read_to_string(dir.join(&case.file)).expect("diff file");
            let files = parse_unified(&text).expect("diff parses");
            let got = classify(&files, &config).concurrency;
            score.add(&case, got, got == case.expect);
            cases += 1;
        }
    }
    assert!(cases >= 90, "{cases} cases in tests/judgement/diffs");
    let (accuracy, precision) = score.report("judgement diffs");
    assert!(
        accuracy >= JUDGEMENT_BAR.0 && precision >= JUDGEMENT_BAR.1,
        "accuracy {accuracy:.3}, precision {precision:.3}: below the bar {JUDGEMENT_BAR:?}"
    );
}

/// Forcing tests with their diff the find round is handed today (a Go test file); the others
/// are a Cython `.pyx` test, an Erlang eunit file, a workspace member's `tests/` file and a
/// workspace member's `src/` test module, which the workflow does not run yet.
const FORCING_HANDED_FLOOR: u32 = 1;

#[test]
fn the_project_s_own_descriptions_are_judged_at_the_bar() {
    let dir = judgement_root().join("bodies");
    let mut score = Score::default();
    let cases = manifest(&dir).cases;
    assert!(
        cases.len() >= 53,
        "{} cases in tests/judgement/bodies",
        cases.len()
    );
    let (mut forcing, mut handed) = (0u32, 0u32);
    for case in cases {
        if case.expect && case.kind == Some(EvidenceKind::Interleaving) && case.diff.is_some() {
            let (_, right) = judge_body(&dir, &case);
            let text = std::fs::read_to_string(dir.join(case.diff.as_deref().unwrap_or_default()))
                .expect("diff file");
            let files = parse_unified(&text).expect("diff parses");
            forcing += 1;
            if right || runs_decide(&files).is_some() {
                handed += 1;
            } else {
                eprintln!("  not run: {} ({})", case.file, case.why);
            }
            continue;
        }
        let (got, right) = judge_body(&dir, &case);
        score.add(&case, got, right);
    }
    let (accuracy, precision) = score.report("judgement descriptions (the words decide)");
    eprintln!("forcing tests with their diff: {handed} of {forcing} handed to the runs");
    assert!(
        accuracy >= JUDGEMENT_BAR.0 && precision >= JUDGEMENT_BAR.1,
        "accuracy {accuracy:.3}, precision {precision:.3}: below the bar {JUDGEMENT_BAR:?}"
    );
    assert!(forcing >= 5, "{forcing} forcing-test cases");
    assert!(
        handed >= FORCING_HANDED_FLOOR,
        "{handed} of {forcing} forcing tests handed to the runs"
    );
}
