//! The forms one test goes by (`../shared/fixtures/kinds/test-ids.yaml`): the gate's test ids,
//! the verifier's selection, the history's merge and `lookup` agree that each row is one test
//! and that two rows are two. Skipped, with a message, when the folder is absent; the
//! project's own forms are in `src/core/test_ids.rs`.

use std::path::PathBuf;

use repro_gate::core::history::file::{Proposals, build};
use repro_gate::core::history::tiers::TestHistory;
use repro_gate::core::history::window::{Counted, Window};
use repro_gate::core::reliability;
use repro_gate::core::test_ids::{declared_words, same_test};

#[derive(serde::Deserialize)]
struct Row {
    framework: String,
    names: Vec<String>,
    declared: String,
}

#[derive(serde::Deserialize)]
struct Rows {
    tests: Vec<Row>,
}

fn rows() -> Option<Vec<Row>> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/kinds/test-ids.yaml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} is absent", path.display());
        return None;
    };
    let rows: Rows = serde_saphyr::from_str(&text).expect("test-ids.yaml parses");
    Some(rows.tests)
}

#[test]
fn each_row_is_one_test_and_two_rows_are_two() {
    let Some(rows) = rows() else { return };
    for (i, row) in rows.iter().enumerate() {
        for a in &row.names {
            for b in &row.names {
                assert!(same_test(a, b), "{}: {a:?} and {b:?}", row.framework);
            }
            for word in declared_words(a) {
                assert!(
                    row.declared.contains(word),
                    "{}: {a:?} is declared by {:?}",
                    row.framework,
                    row.declared
                );
            }
            for (j, other) in rows.iter().enumerate() {
                for b in other.names.iter().filter(|_| i != j) {
                    assert!(!same_test(a, b), "{a:?} ({}) is not {b:?}", row.framework);
                }
            }
        }
    }
}

/// A reliability file that lists each test in one form: `lookup` finds its entry under every
/// other form, and a history recorded under another form updates that entry (no second one).
#[test]
fn lookup_and_the_history_find_a_listed_test_under_each_of_its_names() {
    let Some(rows) = rows() else { return };
    for row in &rows {
        for listed in &row.names {
            let text = format!(
                "policy:\n  default_tier: probation\ntests:\n  - id: {}\n    tier: quarantined\n    runs: 100\n    failures: 9\n",
                serde_json::to_string(listed).expect("a string")
            );
            for asked in &row.names {
                let found = repro_gate::local::lookup::lookup(asked, &text).expect("lookup");
                assert!(
                    found.listed && found.tier == "quarantined" && found.test == *listed,
                    "{}: {asked:?} listed as {listed:?}: {found:?}",
                    row.framework
                );
                let existing = reliability::parse(&text).expect("parses");
                let mut window = Window::default();
                for _ in 0..60 {
                    window.push(Counted::Pass, "2026-12-01");
                }
                let built = build(
                    &existing,
                    [TestHistory {
                        id: asked,
                        window: &window,
                        since_change: None,
                    }],
                    &Proposals::new(),
                );
                let ids: Vec<&str> = built.file.tests.iter().map(|t| t.id.as_str()).collect();
                assert_eq!(
                    ids,
                    [listed.as_str()],
                    "{}: the history of {asked:?} is the entry {listed:?}",
                    row.framework
                );
            }
        }
    }
}
