use super::*;
use crate::core::classify::diff::parse_unified;

fn verdict(body: &str) -> EvidenceVerdict {
    check_body(body, None)
}

fn kinds(v: &EvidenceVerdict) -> Vec<EvidenceKind> {
    v.evidence.iter().map(|e| e.kind).collect()
}

fn codes(v: &EvidenceVerdict) -> Vec<String> {
    v.problems.iter().map(|p| p.code.clone()).collect()
}

const GO_RACE: &str = "```
==================
WARNING: DATA RACE
Write at 0x00c000138168 by goroutine 8:
  pool.(*Pool).checkout()
      /src/pool/pool.go:9 +0x39

Previous read at 0x00c000138168 by goroutine 7:
  pool.(*Pool).size()
      /src/pool/pool.go:12 +0x105

Goroutine 8 (running) created at:
  pool.TestPoolCheckout()
==================
--- FAIL: TestPoolCheckout (0.00s)
```";

#[test]
fn recommended_section_with_a_seed_is_evidence() {
    let body = "Fixes the checkout race.\n\n## Reproduction\nkind: seed            # seed | interleaving | trace\ntest: services/pool/integration::TestPoolCheckoutUnderLoad\nseed: 7311            # controls: goroutine scheduling\nbase: fails 100/100\nbranch: passes 100/100\n";
    let v = verdict(body);
    assert!(v.satisfied, "{v:?}");
    assert!(v.problems.is_empty(), "{v:?}");
    assert_eq!(v.evidence[0].kind, EvidenceKind::Seed);
    assert_eq!(
        v.evidence[0].test.as_deref(),
        Some("services/pool/integration::TestPoolCheckoutUnderLoad")
    );
    assert!(v.evidence[0].detail.contains("7311"));
}

#[test]
fn the_section_as_a_table_counts_too() {
    let body = "## Reproduction\n\n| field | value |\n|---|---|\n| kind | seed |\n| test | `pool::tests::checkout_race` |\n| seed | 0x5eed |\n";
    let v = verdict(body);
    assert!(v.satisfied, "{v:?}");
    assert_eq!(
        v.evidence[0].test.as_deref(),
        Some("pool::tests::checkout_race")
    );
}

#[test]
fn free_form_seeds_with_their_test_are_evidence() {
    let bodies = [
        "Reproduces with `go test -run '^TestPoolCheckout$' -seed 42 ./pool/`",
        "Run `cargo test pool::tests::checkout -- --seed 7311` to see it fail.",
        "`MADSIM_TEST_SEED=12345 cargo test sched::tests::race_on_close`",
        "QUICKCHECK_SEED=998877 cargo test prop_queue_linearizable",
        "Failing with seed: 0xdeadbeef in TestSchedulerFairness.",
        "proptest found it in test_queue_order:\n```\ncc 4f2a9c3c1d7e5b6a8f9e0d1c2b3a4958 # shrinks to ops = [Push(1), Pop]\n```",
        "In tests/test_pool.py::test_checkout:\n```\n@reproduce_failure('6.131.23', b'ACh/+AAAAAAAAA==')\n```",
        "test_pool.py::test_checkout fails with `@seed(31337)` every time.",
        "shuttle: `shuttle::replay(|| pool_race_test(), \"910102ccdedf9592aba2afd70104\")` in pool_race_test",
    ];
    for body in bodies {
        let v = verdict(body);
        assert!(
            v.evidence
                .iter()
                .any(|e| e.kind == EvidenceKind::Seed && e.test.is_some()),
            "{body}\n{v:?}"
        );
    }
}

#[test]
fn prose_that_looks_like_fields_is_not_a_seed_or_a_test() {
    // Database seeds, "Tests:" lines and capitalised words ending in IT are not evidence.
    let v = verdict(
        "Updates the seed: initial_users data.\n\nTests: ran locally\n\nRATE LIMIT raised for seed: 1234.",
    );
    assert!(!v.satisfied, "{v:?}");
    assert!(codes(&v).contains(&"no-test-named".to_string()), "{v:?}");
}

#[test]
fn a_seed_without_a_test_is_a_problem() {
    let v = verdict("I used seed: 7311 and the race shows up.");
    assert!(!v.satisfied);
    assert!(codes(&v).contains(&"no-test-named".to_string()), "{v:?}");
}

#[test]
fn a_shuffle_seed_alone_explains_itself() {
    let v = verdict("Reproduced with `go test -run TestPool -shuffle=1699999 ./pool`");
    assert!(!v.satisfied);
    let p = v
        .problems
        .iter()
        .find(|p| p.code == "shuffle-seed-only")
        .expect("shuffle problem");
    assert!(p.message.contains("ORDER"), "{}", p.message);
    assert!(p.message.contains("goroutine scheduling"));
    // Beside a real scheduling seed it is fine.
    let v = verdict("`go test -run TestPool -test.shuffle 123 ./pool` with SCHED_SEED=77");
    assert!(v.satisfied, "{v:?}");
    assert!(!codes(&v).contains(&"shuffle-seed-only".to_string()));
}

#[test]
fn repetition_settings_are_not_seeds() {
    for body in [
        "Ran `go test -run TestPool -count=1000 ./pool` and it passes.",
        "GOMAXPROCS=1 go test -run TestPool ./pool",
    ] {
        let v = verdict(body);
        assert!(!v.satisfied, "{body}: {v:?}");
        assert!(
            codes(&v).contains(&"repetition-not-reproduction".into()),
            "{body}: {v:?}"
        );
    }
}

#[test]
fn complete_race_reports_are_trace_evidence() {
    let v = verdict(&format!("Race report from CI:\n\n{GO_RACE}"));
    assert_eq!(kinds(&v), [EvidenceKind::Trace]);
    assert!(v.evidence[0].detail.contains("goroutine 8"));
    assert_eq!(v.evidence[0].test.as_deref(), Some("TestPoolCheckout"));
}

#[test]
fn old_go_race_format_and_unrestorable_previous_stack_count() {
    let body = "```\nWARNING: DATA RACE\nRead by goroutine 5:\n  main.f()\n\nPrevious write by goroutine 4:\n  [failed to restore the stack]\n```";
    assert!(verdict(body).satisfied);
}

#[test]
fn a_report_with_one_access_is_a_problem() {
    let body =
        "```\nWARNING: DATA RACE\nWrite at 0x00c000138168 by goroutine 8:\n  pool.checkout()\n```";
    let v = verdict(body);
    assert!(!v.satisfied);
    assert!(codes(&v).contains(&"trace-incomplete".into()));
}

#[test]
fn tsan_helgrind_drd_and_miri_reports_count() {
    let tsan = "```\nWARNING: ThreadSanitizer: data race (pid=9337)\n  Write of size 4 at 0x7fe3c3075190 by thread T1:\n    #0 foo1() a.cc:9\n\n  Previous read of size 4 at 0x7fe3c3075190 by main thread:\n    #0 foo2() a.cc:20\n```";
    let helgrind = "```\n==1== Possible data race during read of size 4 at 0x601038 by thread #1\n==1== This conflicts with a previous write of size 4 by thread #2\n```";
    let drd = "```\n==2== Conflicting store by thread 3 at 0x0601068 size 4\n```";
    let miri = "```\nerror: Undefined Behavior: Data race detected between (1) non-atomic write on thread `unnamed-1` and (2) non-atomic read on thread `main` at alloc1\n```";
    for body in [tsan, helgrind, drd, miri] {
        let v = verdict(body);
        assert_eq!(kinds(&v), [EvidenceKind::Trace], "{body}");
    }
}

#[test]
fn trace_artifacts_count_but_ci_run_links_do_not() {
    for body in [
        "Trace: https://example.com/files/trace.out",
        "Perfetto capture attached: checkout.pftrace",
        "Artifact: https://github.com/acme/pool/actions/runs/123/artifacts/456",
        "rr pack at https://files.example.com/pool-rr.tar.gz",
    ] {
        assert!(verdict(body).satisfied, "{body}");
    }
    let v = verdict("See the red run: https://github.com/acme/pool/actions/runs/123/job/456");
    assert!(!v.satisfied);
    assert!(codes(&v).contains(&"ci-link-not-evidence".into()));
}

#[test]
fn interleaving_needs_a_test_in_the_diff() {
    let body = "TestCheckoutRace forces the bad interleaving with a barrier and fails 100/100 before this change.";
    let diff_with = parse_unified("diff --git a/pool_test.go b/pool_test.go\n--- a/pool_test.go\n+++ b/pool_test.go\n@@ -1,1 +1,3 @@\n package pool\n+func TestCheckoutRace(t *testing.T) {\n+\tready := make(chan struct{})\n").unwrap();
    let v = check_body(body, Some(&diff_with));
    assert_eq!(kinds(&v), [EvidenceKind::Interleaving], "{v:?}");
    assert_eq!(v.evidence[0].test.as_deref(), Some("TestCheckoutRace"));

    let diff_without = parse_unified("diff --git a/pool.go b/pool.go\n--- a/pool.go\n+++ b/pool.go\n@@ -1,1 +1,2 @@\n package pool\n+var x = 1\n").unwrap();
    let v = check_body(body, Some(&diff_without));
    assert!(!v.satisfied);
    assert!(codes(&v).contains(&"test-not-in-diff".into()), "{v:?}");
    // Without a diff the named test and its claim are taken at their word.
    assert!(check_body(body, None).satisfied);
}

#[test]
fn loom_and_synctest_in_the_diff_are_recognised() {
    let body = "## Reproduction\nkind: interleaving\ntest: pool::tests::loom_checkout\nbase: fails 100/100\n";
    let diff = parse_unified("diff --git a/src/pool.rs b/src/pool.rs\n--- a/src/pool.rs\n+++ b/src/pool.rs\n@@ -1,1 +1,4 @@\n mod x;\n+#[test]\n+fn loom_checkout() {\n+    loom::model(|| {\n").unwrap();
    let v = check_body(body, Some(&diff));
    assert_eq!(kinds(&v), [EvidenceKind::Interleaving], "{v:?}");
    assert!(v.evidence[0].detail.contains("interleaving") || v.evidence[0].detail.contains("loom"));
}

#[test]
fn an_interleaving_claim_without_determinism_is_a_problem() {
    let v = verdict("## Reproduction\nkind: interleaving\ntest: TestCheckoutRace\n");
    assert!(!v.satisfied, "{v:?}");
    assert!(codes(&v).contains(&"not-deterministic".into()), "{v:?}");
    // A rate is not determinism.
    let v = verdict("TestCheckoutRace uses a barrier and fails 3/20 on main.");
    assert!(!v.satisfied, "{v:?}");
}

#[test]
fn never_evidence_phrases_are_refused() {
    let cases = [
        (
            "Reran the job and it is green now.",
            "rerun-is-not-evidence",
        ),
        (
            "It works now, passes after a rerun.",
            "rerun-is-not-evidence",
        ),
        (
            "I could not reproduce this locally, but the lock fixes it.",
            "no-reproduction",
        ),
        (
            "The race detector was clean after the change.",
            "clean-race-detector",
        ),
        (
            "```\ngoroutine 41 [semacquire]:\nsync.runtime_Semacquire()\n```",
            "hang-dump-not-trace",
        ),
        (
            "```\npanic: test timed out after 10m0s\n```",
            "hang-dump-not-trace",
        ),
        (
            "```\nException in thread \"main\" java.lang.IllegalStateException\n\tat com.acme.Pool.get(Pool.java:42)\n```",
            "single-stack-not-trace",
        ),
    ];
    for (body, code) in cases {
        let v = verdict(body);
        assert!(!v.satisfied, "{body}");
        assert!(codes(&v).contains(&code.to_string()), "{body}: {v:?}");
    }
}

#[test]
fn html_comments_and_placeholders_never_count() {
    let body =
        "<!--\n## Reproduction\nkind: seed\ntest: pkg::TestPool\nseed: 7311\n-->\nNothing here.";
    assert!(!verdict(body).satisfied);
    let template = "## Reproduction\nkind: <seed | interleaving | trace>\ntest: <paste here>\nseed: <paste here>\n";
    let v = verdict(template);
    assert!(!v.satisfied, "{v:?}");
    assert!(codes(&v).contains(&"template-unfilled".into()), "{v:?}");
    let v = verdict("## Reproduction\nkind: seed\ntest: TODO\nseed: TODO\n");
    assert!(!v.satisfied, "{v:?}");
}

#[test]
fn fluent_reasoning_is_not_evidence() {
    let v = verdict(
        "The pool's checkout reads `size` without the lock while `refill` writes it, so two goroutines can interleave and double-allocate. Adding the mutex fixes it; I'm confident this is the race.",
    );
    assert!(!v.satisfied);
    assert_eq!(codes(&v), ["no-evidence"]);
    assert!(v.problems[0].message.contains("## Reproduction"));
}

#[test]
fn an_empty_body_is_not_satisfied() {
    let v = verdict("");
    assert!(!v.satisfied);
    assert_eq!(codes(&v), ["no-evidence"]);
}

proptest::proptest! {
    #[test]
    fn no_body_makes_the_parser_panic(body in "(?s).{0,600}") {
        let _ = check_body(&body, None);
    }

    #[test]
    fn markdown_shaped_bodies_never_panic(parts in proptest::collection::vec(proptest::sample::select(vec![
        "```", "~~~", "<!--", "-->", "<details>", "</details>", "> ", "| a | b |", "|---|---|",
        "## Reproduction", "seed: 1", "test: T", "WARNING: DATA RACE", "Previous write by goroutine 1:",
        "cc 0123456789abcdef0123", "\n", "\n\n", "    indented", "*", "`", "<", ">",
    ]), 0..60)) {
        let body: String = parts.concat();
        let _ = check_body(&body, None);
    }
}

#[test]
fn a_one_megabyte_hostile_body_is_handled() {
    // Repeated near-misses for every detector: the work stays linear in the input.
    let unit = "WARNING: DATA RACE\nseed: \n<!-- x\n```\n| a | b |\nTestX fails every time \n";
    let body = unit.repeat(1_000_000 / unit.len());
    let v = check_body(&body, None);
    assert!(!v.satisfied);
}

#[test]
fn real_tool_outputs_from_the_shared_fixtures() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
    if !root.is_dir() {
        eprintln!("skipped: ../shared/fixtures is absent");
        return;
    }
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect("fixture readable");
    let fence = |s: &str| format!("```\n{s}\n```\n");
    // Race reports: trace evidence.
    for f in [
        "test-output/go-race/go-junit-report-race-go-test-v.txt",
        "test-output/go-race/decred-dcrwallet-711-race-in-testing-pkg-travis-go1.8.txt",
        "test-output/tsan/fuzzmanager-simple-data-race-cpp.txt",
        "test-output/tsan/fuzzmanager-firefox-data-race-2.txt",
        "test-output/tsan/fuzzmanager-lock-order-inversion-deadlock.txt",
    ] {
        let v = check_body(&fence(&read(f)), None);
        assert!(
            v.evidence.iter().any(|e| e.kind == EvidenceKind::Trace),
            "{f}: {v:?}"
        );
    }
    // Not races: thread leaks, SEGVs.
    for f in [
        "test-output/tsan/fuzzmanager-thread-leak.txt",
        "test-output/tsan/fuzzmanager-tsan-segv.txt",
    ] {
        let v = check_body(&fence(&read(f)), None);
        assert!(!v.satisfied, "{f}: {v:?}");
    }
    // Seeds with their tests.
    let hypothesis = read(
        "repro-artifacts/hypothesis/docs-replaying-failures-print_blob-reproduce_failure-6.131.23.txt",
    );
    let v = check_body(
        &format!("In tests/test_floats.py::test_nan:\n{}", fence(&hypothesis)),
        None,
    );
    assert!(
        v.evidence.iter().any(|e| e.kind == EvidenceKind::Seed),
        "{v:?}"
    );
    let shuttle = read("repro-artifacts/shuttle/shuttle-lib-docs-failing-schedule-message.txt");
    let v = check_body(
        &format!("Test `pool::tests::shuttle_checkout`:\n{}", fence(&shuttle)),
        None,
    );
    assert!(
        v.evidence.iter().any(|e| e.kind == EvidenceKind::Seed),
        "{v:?}"
    );
    let cc =
        read("repro-artifacts/proptest/proptest-regressions-state-machine-strategy-cc-seeds.txt");
    let v = check_body(
        &format!(
            "Regression for strategy::test::state_machine:\n{}",
            fence(&cc)
        ),
        None,
    );
    assert!(
        v.evidence.iter().any(|e| e.kind == EvidenceKind::Seed),
        "{v:?}"
    );
    // A shuffle seed alone is not one.
    let shuffle = read("repro-artifacts/go-shuffle/gotestsum-standard-verbose-shuffle-seed.txt");
    let v = check_body(&fence(&shuffle), None);
    assert!(
        !v.evidence.iter().any(|e| e.kind == EvidenceKind::Seed),
        "{v:?}"
    );
    assert!(codes(&v).contains(&"shuffle-seed-only".into()), "{v:?}");
    // Hang dumps are not traces.
    for f in std::fs::read_dir(root.join("test-output/go-timeout"))
        .expect("dir")
        .flatten()
    {
        let text = std::fs::read_to_string(f.path()).expect("fixture");
        let v = check_body(&fence(&text), None);
        assert!(
            !v.evidence.iter().any(|e| e.kind == EvidenceKind::Trace),
            "{:?}: {v:?}",
            f.path()
        );
    }
}

// ---- race reports as people paste them (issue: real PR descriptions)

#[test]
fn a_race_report_pasted_unfenced_with_blank_lines_and_elided_frames_counts() {
    // Copied from a web log viewer: every line separated by a blank one, frames elided.
    let body = "Seen in CI with -race:\n\nWARNING: DATA RACE\n\nWrite at 0x00c0001e4010 by goroutine 31:\n\n  store.(*Cache).Put()\n\n      /src/store/cache.go:88 +0x1a4\n\n  ......\n\nPrevious read at 0x00c0001e4010 by goroutine 30:\n\n  store.(*Cache).Get()\n\n      /src/store/cache.go:61 +0x7c\n";
    let v = verdict(body);
    assert_eq!(kinds(&v), [EvidenceKind::Trace], "{v:?}");
    assert_eq!(v.evidence[0].line, Some(3), "found where the report starts");
}

#[test]
fn a_race_report_indented_or_quoted_counts() {
    let indented = "The report:\n\n    WARNING: DATA RACE\n    Read at 0x01 by goroutine 7:\n      q.(*Queue).Len()\n          /src/q/q.go:20 +0x3a\n\n    Previous write at 0x01 by goroutine 6:\n      q.(*Queue).Push()\n          /src/q/q.go:31 +0x88\n";
    let quoted = "> WARNING: DATA RACE\n> Read at 0x01 by goroutine 7:\n>   q.(*Queue).Len()\n>\n> Previous write at 0x01 by goroutine 6:\n>   q.(*Queue).Push()\n";
    for body in [indented, quoted] {
        assert_eq!(kinds(&verdict(body)), [EvidenceKind::Trace], "{body}");
    }
}

#[test]
fn tsan_reports_with_link_frames_an_atomic_second_access_and_no_header_count() {
    let body = "Here is what TSan printed:\n\n  Write of size 8 at 0x7b0c00001a60 by thread T4:\n    [#0](https://github.com/acme/db/blob/abc/src/log.cc#L77) Log::Append() src/log.cc:77\n    [#1](https://github.com/acme/db/blob/abc/src/db.cc#L12) DB::Put() src/db.cc:12\n\n  Previous atomic read of size 8 at 0x7b0c00001a60 by main thread:\n    [#0](https://github.com/acme/db/blob/abc/src/log.cc#L40) Log::Size() src/log.cc:40\n";
    assert_eq!(kinds(&verdict(body)), [EvidenceKind::Trace]);
    let atomic_write = "```\nWARNING: ThreadSanitizer: data race (pid=1)\n  Read of size 4 at 0x10 by thread T2:\n    #0 reader() r.c:5\n  Previous atomic write of size 4 at 0x10 by thread T1:\n    #0 writer() w.c:9\n```";
    assert_eq!(kinds(&verdict(atomic_write)), [EvidenceKind::Trace]);
}

#[test]
fn reports_the_parser_used_to_half_read_count() {
    let main_goroutine = "```\nWARNING: DATA RACE\nRead at 0x01 by goroutine 24:\n  log.(*Logger).Write()\n      /src/log/log.go:517 +0x27c\n\nPrevious write at 0x01 by main goroutine:\n  log.(*Logger).SetLevel()\n      /src/log/log.go:131 +0x98\n```";
    let old_format = "WARNING: DATA RACE\nWrite by goroutine 12:\n  bits.(*Set).Copy()\n      /src/bits/set.go:85 +0x2f6\n\nPrevious read by goroutine 9:\n  bits.(*Set).Has()\n      /src/bits/set.go:40 +0x133\n";
    let prefixed = "```\n2024-03-01T10:00:00.1Z WARNING: DATA RACE\n2024-03-01T10:00:00.1Z Write at 0x01 by goroutine 5:\n2024-03-01T10:00:00.1Z   p.f()\n2024-03-01T10:00:00.1Z Previous read at 0x01 by goroutine 4:\n2024-03-01T10:00:00.1Z   p.g()\n```";
    let numbered = "```\n7: Read of size 1 at 0x7f by thread T1:\n7:   #0 Net::stop() net.cc:253\n7:\n7: Previous write of size 1 at 0x7f by thread T2:\n7:   #0 Net::run() net.cc:1493\n```";
    for body in [main_goroutine, old_format, prefixed, numbered] {
        assert_eq!(kinds(&verdict(body)), [EvidenceKind::Trace], "{body}");
    }
}

#[test]
fn a_pasted_report_with_one_access_stays_refused_and_says_what_is_missing() {
    let body = "WARNING: DATA RACE\n\nWrite at 0x01 by goroutine 8:\n\n  pool.checkout()\n\n(the rest was cut off)";
    let v = verdict(body);
    assert!(!v.satisfied, "{v:?}");
    let p = v
        .problems
        .iter()
        .find(|p| p.code == "trace-incomplete")
        .expect("near-miss");
    assert!(p.message.contains("Previous read at"), "{}", p.message);
    assert_eq!(p.line, Some(1));
}

// ---- deterministic simulator seeds

#[test]
fn simulator_command_lines_with_their_seed_are_seed_evidence() {
    for body in [
        // A simulator run: the seed beside the test file it runs.
        "Found by simulation:\nseed: -f tests/slow/RestoreCorrectness.toml -s 90817263 -b on\nCommit: 1a2b3c4",
        "To reproduce: `./sim -r simulation -f tests/fast/KillRegion.toml -s 55443322`",
        // madsim / turmoil / shuttle style seeds on the command that runs the simulation.
        "MADSIM_TEST_SEED=4242 cargo test -p cluster --test sim partition_heals",
        "SEED=1234567 cargo run -p chaos_sim -- --steps 100000",
        "cargo test -p raft --test turmoil_partition -- --seed 998877",
    ] {
        let v = verdict(body);
        assert!(
            v.evidence
                .iter()
                .any(|e| e.kind == EvidenceKind::Seed && e.test.is_some()),
            "{body}: {v:?}"
        );
    }
    let v = verdict("seed: -f tests/slow/RestoreCorrectness.toml -s 90817263 -b on");
    assert_eq!(
        v.evidence[0].test.as_deref(),
        Some("tests/slow/RestoreCorrectness.toml")
    );
    assert_eq!(v.evidence[0].rule, "seed.command");
}

#[test]
fn a_seed_in_the_title_goes_with_the_command_in_the_body() {
    let v = check_pr(
        Some("sim: fix lost wakeup found with seed 8675309"),
        "Run it:\n\n    cargo run -p netsim -- --replay\n",
        None,
    );
    assert!(v.satisfied, "{v:?}");
    assert_eq!(v.evidence[0].test.as_deref(), Some("netsim"));
}

#[test]
fn a_shuffle_seed_never_counts_even_beside_other_numbers_or_copied_into_a_seed_field() {
    let v = verdict("Repro: `go test -shuffle 1712345678 -count=20 -parallel 8 ./pool/...`");
    assert!(!v.satisfied, "{v:?}");
    assert!(codes(&v).contains(&"shuffle-seed-only".into()), "{v:?}");
    // The number `-test.shuffle` printed, pasted as a seed: it still fixes test order only.
    let copied = "```\n-test.shuffle 1712345678\n--- FAIL: TestPool (0.01s)\n```\n\n## Reproduction\nkind: seed\ntest: pool::TestPool\nseed: 1712345678\n";
    let v = verdict(copied);
    assert!(!v.satisfied, "{v:?}");
    assert!(codes(&v).contains(&"shuffle-seed-only".into()), "{v:?}");
}

#[test]
fn a_short_seed_flag_without_what_it_runs_is_not_a_seed() {
    let v = verdict("I ran the binary with -s 12345 and it crashed.");
    assert!(
        !v.evidence.iter().any(|e| e.kind == EvidenceKind::Seed),
        "{v:?}"
    );
}

// ---- interleavings in C++ and Java projects, and tests of other shapes

fn diff_adding(path: &str, lines: &[&str]) -> Vec<FileChange> {
    let mut text = format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,{} @@\n ctx\n",
        lines.len() + 1
    );
    for l in lines {
        text.push_str(&format!("+{l}\n"));
    }
    parse_unified(&text).unwrap()
}

#[test]
fn a_cpp_sync_point_test_said_to_fail_deterministically_is_an_interleaving() {
    let body = "Fix a lost flush when compaction races with a memtable switch.\n\nThe new test `DBFlushTest.FlushRacesSwitch` uses `SyncPoint::LoadDependency` to order the two background jobs; it fails deterministically before this change.";
    let diff = diff_adding(
        "db/db_flush_test.cc",
        &[
            "TEST_F(DBFlushTest, FlushRacesSwitch) {",
            "  SyncPoint::GetInstance()->LoadDependency({{\"A\", \"B\"}});",
        ],
    );
    let v = check_body(body, Some(&diff));
    assert_eq!(kinds(&v), [EvidenceKind::Interleaving], "{v:?}");
    assert_eq!(
        v.evidence[0].test.as_deref(),
        Some("DBFlushTest.FlushRacesSwitch")
    );
}

#[test]
fn a_java_latch_test_that_fails_without_the_fix_is_an_interleaving() {
    let body = "Adds `RegistryTest#concurrentRemoveKeepsEntry`, which holds the remover on a CountDownLatch until the reader has looked the entry up. Without the fix the test fails with a NullPointerException.";
    let diff = diff_adding(
        "src/test/java/com/acme/RegistryTest.java",
        &[
            "  @Test",
            "  void concurrentRemoveKeepsEntry() throws Exception {",
        ],
    );
    let v = check_body(body, Some(&diff));
    assert_eq!(kinds(&v), [EvidenceKind::Interleaving], "{v:?}");
}

#[test]
fn yield_injection_and_exhaustive_yield_sweeps_count_when_said_to_fail_deterministically() {
    let yield_injection = "Regression test\n---\n`test_commit_order_holds_across_restart` pins the second commit with a yield injector at the validation point.\n\nIt reproduces the bug deterministically before this fix.";
    let sweep = "The new test `test_reset_at_every_io_boundary` sweeps every IO yield point of the commit and resets the statement there; without the fix it panics at the first boundary, deterministically.";
    for (body, name) in [
        (yield_injection, "test_commit_order_holds_across_restart"),
        (sweep, "test_reset_at_every_io_boundary"),
    ] {
        let diff = diff_adding(
            "core/tests/commit.rs",
            &["#[test]", &format!("fn {name}() {{")],
        );
        let v = check_body(body, Some(&diff));
        assert_eq!(kinds(&v), [EvidenceKind::Interleaving], "{body}: {v:?}");
    }
}

#[test]
fn a_scripted_multi_exec_ordering_counts_and_a_hack_that_usually_passes_does_not() {
    let multi = "The test `test_expire_and_set_in_one_loop` runs SET and the lazy expire inside MULTI/EXEC so both land in one event loop; it fails every time before the change.";
    let diff = diff_adding(
        "tests/unit/tracking.rs",
        &["#[test]", "fn test_expire_and_set_in_one_loop() {"],
    );
    assert_eq!(
        kinds(&check_body(multi, Some(&diff))),
        [EvidenceKind::Interleaving]
    );
    let hack = "The new `test_cross_pool` would usually still pass before; the race only shows with a manual yield injection hack.";
    let diff = diff_adding(
        "tests/cross_pool.rs",
        &["#[test]", "fn test_cross_pool() {"],
    );
    assert!(!check_body(hack, Some(&diff)).satisfied);
}

#[test]
fn a_failure_without_the_fix_is_not_determinism_without_a_forcing_mechanism() {
    let body = "Adds `test_reconnect_after_close`; without the fix the test fails.";
    let diff = diff_adding(
        "tests/net.rs",
        &["#[test]", "fn test_reconnect_after_close() {"],
    );
    let v = check_body(body, Some(&diff));
    assert!(!v.satisfied, "{v:?}");
}

#[test]
fn a_loom_model_in_the_diff_is_the_forcing_mechanism() {
    let body = "`queue::tests::loom_push_pop` fails every time before this change.";
    let diff = diff_adding(
        "src/queue.rs",
        &[
            "    #[test]",
            "    fn loom_push_pop() {",
            "        loom::model(|| {",
        ],
    );
    let v = check_body(body, Some(&diff));
    assert_eq!(kinds(&v), [EvidenceKind::Interleaving], "{v:?}");
    assert!(v.evidence[0].detail.contains("loom"), "{v:?}");
}

#[test]
fn a_64_kib_hostile_body_is_judged_in_linear_time() {
    // Alternating seed and test-name lines: once quadratic (every seed rescanned the body).
    let mut body = String::new();
    let mut i = 0;
    while body.len() < 64 * 1024 {
        body.push_str(&format!(
            "seed: {i}\nTestCase{i} fails every time with a barrier\n"
        ));
        i += 1;
    }
    let v = check_body(&body, None);
    assert!(v.satisfied);
    assert!(v.evidence.len() <= 25 && v.problems.len() <= 25);
}

#[test]
fn claims_about_the_code_after_the_change_are_not_failures_before_it() {
    for body in [
        "Adds `TestDrainClosed` using a channel. On the 10 trials I made to reproduce the original problem after this change, I get 100% test success.",
        "`TestDrainClosed` uses a channel; I was unable to reproduce the failure deterministically.",
    ] {
        let v = verdict(body);
        assert!(!v.satisfied, "{body}: {v:?}");
    }
    // Before and after in one sentence is still a claim about before.
    let v = verdict(
        "`TestDrainClosed` forces the close with a channel: it fails every time before this change and passes after the change.",
    );
    assert!(v.satisfied, "{v:?}");
}

#[test]
fn a_quoted_tab_indented_report_still_counts_and_a_commented_one_never() {
    let report = "\t=== RUN   TestX\n\t==================\n\tWARNING: DATA RACE\n\tWrite at 0x01 by goroutine 9:\n\t  pkg.f()\n\t      /x/a.go:3\n\tPrevious read at 0x01 by goroutine 10:\n\t  pkg.g()\n\t      /x/a.go:9\n\t==================\n";
    let quoted: String = report.lines().map(|l| format!("> {l}\n")).collect();
    assert!(check_body(&format!("Race:\n\n{report}"), None).satisfied);
    assert!(check_body(&format!("Race:\n\n{quoted}"), None).satisfied);
    let hidden = format!("Fix.\n\n<!-- paste a report like:\n{report}-->\n");
    assert!(!check_body(&hidden, None).satisfied);
}

#[test]
fn seeds_that_reproduce_nothing_are_not_evidence() {
    for body in [
        // A sweep over many seeds that all passed.
        "Fixes the pool race.\n\nRan `go test -run TestPoolCheckout -seed 1..500 ./pool` and all seeds pass now.",
        "Stress: for seed in $(seq 1 50); do cargo test sched::race -- --seed $seed; done (50 different seeds, all green)",
        // The seed of a passing run.
        "Fix the lock ordering in the cache.\n\nWith `--seed 8812` the test TestCacheEvict passes.",
        // A data-generation seed for a failure that has nothing to do with scheduling.
        "Fix the CSV parser on empty quoted fields.\n\nThe fuzzer found it: `cargo test parse::fuzz_roundtrip -- --seed 4242` generated the input.",
        "Add a corpus generator.\n\nThe generator produces corpora from a seed.\n\n    go test -run TestBidiResolve ./bidi -seed 1337",
    ] {
        let v = verdict(body);
        assert!(!v.satisfied, "{body}\n{v:#?}");
        // A loop variable is no seed value at all; every other case names why.
        assert!(
            body.contains("$seed") || codes(&v).iter().any(|c| c == "seed-reproduces-nothing"),
            "{body}\n{:?}",
            codes(&v)
        );
    }
}

#[test]
fn a_seed_that_fails_stays_evidence_beside_words_of_passing() {
    for body in [
        "Fix the pool race.\n\n`go test -run TestPoolCheckout -seed 7311 ./pool` fails every time before this change and passes after.",
        "## Reproduction\nkind: seed\ntest: pool::TestPoolCheckout\nseed: 7311\nbase: fails 100/100\nbranch: passes 100/100",
        "Swept seeds 1..500 on the base: seed 37 fails. `go test -run TestPoolCheckout -seed 37 ./pool` fails 20/20 before the fix.",
    ] {
        let v = verdict(body);
        assert!(v.satisfied, "{body}\n{v:#?}");
    }
}

#[test]
fn a_seed_written_across_a_line_break_is_read_as_one_sentence() {
    let one = "Fix the commit wait.\n\nCI runs the suite at seeds 1..30, and at seed 4 `failpoint_commit_test_v3` fails every run.\n";
    let v = verdict(one);
    assert!(
        v.evidence.iter().any(|e| e.seed.as_deref() == Some("4")),
        "{v:?}"
    );
    // Reflowed at every word boundary near the seed, the verdict is the same.
    let words: Vec<&str> = one.lines().nth(2).unwrap_or_default().split(' ').collect();
    for cut in 1..words.len() {
        let body = format!(
            "Fix the commit wait.\n\n{}\n{}\n",
            words[..cut].join(" "),
            words[cut..].join(" ")
        );
        let r = verdict(&body);
        assert!(
            r.evidence.iter().any(|e| e.seed.as_deref() == Some("4")),
            "cut after {:?}: {r:?}",
            words[cut - 1]
        );
    }
    // A list item below is not the sentence's end.
    let listed = "Seeds:\n\nat seed\n- 4 fails\n";
    assert!(!verdict(listed).evidence.iter().any(|e| e.seed.is_some()));
}

#[test]
fn a_seed_run_in_a_loop_until_it_fails_is_not_evidence() {
    let looped = [
        "for i in (seq 1 10)\n  mix test --seed 856757 test/peers_test.exs\n  if test $status -eq 2\n    break\n  end\nend",
        "for i in $(seq 100); do\n  go test -run TestPeers -seed 856757 ./peers\ndone",
        "while true; do\n  go test -run TestPeers -seed 856757 ./peers || break\ndone",
        "$ until cargo test peers -- --seed 856757; do :; done",
    ];
    for block in looped {
        let body = format!("Fix the flaky leader test.\n\n```console\n{block}\n```\n");
        let v = verdict(&body);
        assert!(!v.satisfied, "{block}: {v:?}");
        assert!(
            codes(&v).iter().any(|c| c == "seed-reproduces-nothing"),
            "{block}: {v:?}"
        );
    }
    // The same command once is a seed and its test.
    let once = "Fix the flaky leader test.\n\n```console\ngo test -run TestPeers -seed 856757 ./peers\n```\nIt fails every run with that seed.\n";
    assert!(verdict(once).satisfied, "{:?}", verdict(once));
}
