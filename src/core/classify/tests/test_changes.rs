//! Test-only changes (`test_changes_count`), test files and tests inside source files.

use super::*;

/// A test file's patch: added (`+`) and removed (`-`) lines as given, the others context.
fn test_patch(path: &str, lines: &[&str]) -> FileChange {
    let mut patch = format!("@@ -1,{n} +1,{n} @@\n", n = lines.len());
    for l in lines {
        if !l.starts_with(['+', '-']) {
            patch.push(' ');
        }
        patch.push_str(l);
        patch.push('\n');
    }
    FileChange {
        path: path.into(),
        previous_path: None,
        status: FileStatus::Modified,
        patch: Some(patch),
    }
}

#[test]
fn a_test_only_change_counts_when_it_changes_existing_synchronization() {
    let sync = |f: FileChange| classify(&[f], &RepoConfig::default()).concurrency;
    // A plain flag of an existing test made atomic: tokens on lines that replace removed ones.
    assert!(sync(test_patch(
        "pool_test.go",
        &[
            "\tp := New(2)",
            "-\tvar stop bool",
            "+\tvar stop atomic.Bool",
            "\tvar wg sync.WaitGroup"
        ]
    )));
    // A lock put around existing reads: two added runs with existing lines between.
    assert!(sync(test_patch(
        "fake_test.go",
        &[
            "func (f *Fake) Get(k string) int {",
            "+\tf.mu.Lock()",
            "+\tdefer f.mu.Unlock()",
            "\treturn f.m[k]",
            "}"
        ]
    )));
    assert!(sync(test_patch(
        "fake_test.go",
        &[
            "func (f *Fake) Get(k string) int {",
            "+\tf.mu.RLock()",
            "\tv := f.m[k]",
            "+\tf.mu.RUnlock()",
            "\treturn v",
            "}"
        ]
    )));
    // Synchronization dropped: a token on a removed line.
    assert!(sync(test_patch(
        "pool_test.go",
        &["\tx := 1", "-\tmu.Lock()", "\ty := 2"]
    )));
    // A join added after the existing start: a small insertion inside an existing body.
    assert!(sync(test_patch(
        "tests/test_print.py",
        &[
            "    task1.start()",
            "    task2.start()",
            "+    task1.join()",
            "+    task2.join()",
            "",
            ""
        ]
    )));
    // A whole new test that spawns goroutines only adds a test.
    assert!(!sync(test_patch(
        "pool_test.go",
        &[
            "\t}",
            "}",
            "+",
            "+func TestMany(t *testing.T) {",
            "+\tvar wg sync.WaitGroup",
            "+\tfor i := 0; i < 8; i++ {",
            "+\t\twg.Add(1)",
            "+\t\tgo func() {",
            "+\t\t\tdefer wg.Done()",
            "+\t\t}()",
            "+\t}",
            "+\twg.Wait()",
            "+}",
        ]
    )));
    // Nor does a new method of a test class after the previous one closed.
    assert!(!sync(test_patch(
        "src/test/java/PoolTest.java",
        &[
            "    }",
            "+",
            "+    @Test",
            "+    void concurrent() throws Exception {",
            "+        var latch = new CountDownLatch(2);",
            "+    }",
            "}"
        ]
    )));
}

#[test]
fn a_test_line_that_keeps_its_primitive_changes_no_synchronization() {
    let sync = |f: FileChange| classify(&[f], &RepoConfig::default()).concurrency;
    // Only an argument changes beside the same spinlock: the statement, not its locking.
    assert!(!sync(test_patch(
        "absl/base/spinlock_test_common.cc",
        &[
            "  int num_threads = base_internal::NumCPUs() * 2;",
            "-  Helper::DeadlockTest(&stack_spinlock, base_internal::NumCPUs() * 2);",
            "+  Helper::DeadlockTest(&stack_spinlock, num_threads);",
            "}"
        ]
    )));
    // A different primitive on the same rule is a change: a lock made a read lock.
    assert!(sync(test_patch(
        "pool_test.go",
        &["	x := 1", "-	f.mu.Lock()", "+	f.mu.RLock()", "	y := 2"]
    )));
    // One of two removed locks kept: the other's removal still counts.
    assert!(sync(test_patch(
        "pool_test.go",
        &[
            "	x := 1",
            "-	f.mu.Lock()",
            "-	f.other.Lock()",
            "+	f.mu.Lock()",
            "	y := 2"
        ]
    )));
}

#[test]
fn a_test_s_shared_parts_are_test_files() {
    for path in [
        "absl/base/spinlock_test_common.cc",
        "net/http_test_util.h",
        "pkg/store/store_testutil.go",
        "internal/testutil/fake.go",
        "src/pool_test_helpers.rs",
    ] {
        assert!(crate::core::classify::lang::is_test_file(path), "{path}");
    }
    for path in [
        "src/latest.rs",
        "src/contest_util.go",
        "src/attest_helpers.py",
    ] {
        assert!(!crate::core::classify::lang::is_test_file(path), "{path}");
    }
}

#[test]
fn a_synchronized_wrapper_is_a_primitive_and_a_synced_folder_is_not() {
    let sync = |f: FileChange| classify(&[f], &RepoConfig::default()).concurrency;
    // An existing test's file system wrapped to serialize its access.
    assert!(sync(test_patch(
        "src/commonTest/kotlin/NetworkFetcherTest.kt",
        &[
            "        val loader = ImageLoader.Builder(context)",
            "-            .fileSystem(fileSystem)",
            "+            .fileSystem(SynchronizedFileSystem(fileSystem))",
            "            .build()"
        ]
    )));
    for line in [
        "val q = ThreadSafeQueue<Job>()",
        "List<Job> jobs = Collections.synchronizedList(new ArrayList<>());",
    ] {
        assert!(
            classify(&[file("src/Pool.kt", &[line], &[])], &RepoConfig::default()).concurrency,
            "{line}"
        );
    }
    for line in [
        "val view = SynchronizedScrollView(context)",
        "folder.markSynchronizedFolder(id)",
        "val synchronized_at = row.get(3)",
    ] {
        assert!(
            !classify(&[file("src/Ui.kt", &[line], &[])], &RepoConfig::default()).concurrency,
            "{line}"
        );
    }
}

#[test]
fn a_test_added_inside_a_source_file_is_judged_as_a_test() {
    let zig = FileChange {
        path: "src/buffer.zig".into(),
        previous_path: None,
        status: FileStatus::Modified,
        patch: Some(
            "@@ -164,3 +164,9 @@ pub const Pool = struct {\n     }\n };\n \n+test \"pool race\" {\n+    var t = try std.Thread.spawn(.{}, worker, .{&pool});\n+    std.atomic.spinLoopHint();\n+    t.join();\n+}\n+\n"
                .into(),
        ),
    };
    assert!(!classify(std::slice::from_ref(&zig), &RepoConfig::default()).concurrency);
    // Configured to count tests, it counts; and the same lines as code count.
    let count = RepoConfig {
        test_changes_count: crate::core::config::TestChanges::True,
        ..RepoConfig::default()
    };
    assert!(classify(std::slice::from_ref(&zig), &count).concurrency);
    let mut code = zig.clone();
    code.patch = zig
        .patch
        .as_ref()
        .map(|p| p.replace("+test \"pool race\" {", "+pub fn race() void {"));
    assert!(classify(&[code], &RepoConfig::default()).concurrency);
}

#[test]
fn test_only_changes_count_only_when_configured() {
    // A goroutine started inside an existing test adds concurrency; it does not change the
    // synchronization of what was there (`sync`, the default).
    let files = [file("pool_test.go", &["\tgo func() {"], &[])];
    assert!(!classify(&files, &RepoConfig::default()).concurrency);
    // Docs beside the test do not make it more than a test-only change.
    let with_docs = [files[0].clone(), file("docs/pool.md", &["lock"], &[])];
    assert!(!classify(&with_docs, &RepoConfig::default()).concurrency);
    let config = RepoConfig {
        test_changes_count: crate::core::config::TestChanges::True,
        ..RepoConfig::default()
    };
    assert!(classify(&files, &config).concurrency);
    // `false`: not even a change of existing synchronization.
    let removed_lock = [file("pool_test.go", &[], &["\tmu.Lock()"])];
    assert!(classify(&removed_lock, &RepoConfig::default()).concurrency);
    let never = RepoConfig {
        test_changes_count: crate::core::config::TestChanges::False,
        ..RepoConfig::default()
    };
    assert!(!classify(&removed_lock, &never).concurrency);
}

#[test]
fn a_code_change_with_its_concurrent_test_counts_the_test_too() {
    // The code change alone is plain; the test beside it takes a lock with a timeout.
    let files = [
        file("pool/cache.py", &["        deliver(result)"], &[]),
        file(
            "pool/tests/test_cache.py",
            &["        got = self._lock.acquire(timeout=timeout)"],
            &[],
        ),
    ];
    let c = classify(&files, &RepoConfig::default());
    assert!(c.concurrency);
    assert_eq!(c.reasons[0].file, "pool/tests/test_cache.py");
}
