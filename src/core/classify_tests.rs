use super::*;
use crate::core::diff::{FileStatus, parse_unified};

fn file(path: &str, added: &[&str], removed: &[&str]) -> FileChange {
    let mut patch = format!("@@ -1,{} +1,{} @@\n", removed.len() + 1, added.len() + 1);
    patch.push_str(" // context line\n");
    for r in removed {
        patch.push_str(&format!("-{r}\n"));
    }
    for a in added {
        patch.push_str(&format!("+{a}\n"));
    }
    FileChange {
        path: path.into(),
        previous_path: None,
        status: FileStatus::Modified,
        patch: Some(patch),
    }
}

fn rules_for(path: &str, line: &str) -> Vec<String> {
    let c = classify(&[file(path, &[line], &[])], &RepoConfig::default());
    c.reasons.into_iter().map(|r| r.rule).collect()
}

#[test]
fn positive_cases_per_language() {
    let cases: &[(&str, &str, &str)] = &[
        ("pool.go", "var mu sync.Mutex", "go.sync-mutex"),
        ("pool.go", "mu sync.RWMutex", "go.sync-mutex"),
        ("pool.go", "\tp.mu.Lock()", "go.lock-call"),
        ("pool.go", "defer p.mu.RUnlock()", "go.lock-call"),
        ("pool.go", "cond := sync.NewCond(&mu)", "go.sync-cond"),
        ("pool.go", "var wg sync.WaitGroup", "go.sync-waitgroup"),
        ("pool.go", "var once sync.Once", "go.sync-once"),
        ("pool.go", "import \"sync/atomic\"", "go.atomic"),
        ("pool.go", "atomic.AddInt64(&n, 1)", "go.atomic"),
        ("pool.go", "var n atomic.Int64", "go.atomic"),
        ("pool.go", "\tgo func() {", "go.goroutine"),
        ("pool.go", "go p.worker(ctx)", "go.goroutine"),
        ("pool.go", "done := make(chan struct{})", "go.channel"),
        ("pool.go", "v := <-results", "go.channel"),
        ("pool.go", "\tselect {", "go.select"),
        ("lib.rs", "let m = Arc::new(Mutex::new(0));", "rust.mutex"),
        ("lib.rs", "use std::sync::RwLock;", "rust.mutex"),
        ("lib.rs", "let cv = Condvar::new();", "rust.condvar"),
        ("lib.rs", "let b = Barrier::new(4);", "rust.barrier"),
        (
            "lib.rs",
            "static N: AtomicUsize = AtomicUsize::new(0);",
            "rust.atomic",
        ),
        ("lib.rs", "n.fetch_add(1, Ordering::SeqCst);", "rust.atomic"),
        (
            "lib.rs",
            "let h = thread::spawn(move || work());",
            "rust.thread-spawn",
        ),
        (
            "lib.rs",
            "tokio::spawn(async move { run().await });",
            "rust.async-spawn",
        ),
        ("lib.rs", "let sem = Semaphore::new(8);", "rust.async-sync"),
        ("lib.rs", "let (tx, rx) = mpsc::channel();", "rust.channel"),
        (
            "lib.rs",
            "let (s, r) = crossbeam_channel::unbounded();",
            "rust.channel",
        ),
        (
            "lib.rs",
            "unsafe impl Send for Pool {}",
            "rust.unsafe-send-sync",
        ),
        ("lib.rs", "tokio::select! {", "rust.async-select"),
        (
            "Pool.java",
            "public synchronized void put() {",
            "java.synchronized",
        ),
        (
            "Pool.java",
            "private volatile boolean closed;",
            "java.volatile",
        ),
        (
            "Pool.java",
            "import java.util.concurrent.ConcurrentHashMap;",
            "java.concurrent",
        ),
        (
            "Pool.java",
            "private final ReentrantLock lock = new ReentrantLock();",
            "java.concurrent",
        ),
        (
            "Pool.java",
            "ExecutorService ex = Executors.newFixedThreadPool(4);",
            "java.executor",
        ),
        (
            "Pool.java",
            "CompletableFuture.supplyAsync(() -> 1);",
            "java.completable-future",
        ),
        ("Pool.java", "lock.wait();", "java.wait-notify"),
        ("Pool.kt", "@Volatile var closed = false", "java.volatile"),
        ("Pool.kt", "scope.launch {", "kotlin.coroutines"),
        (
            "Pool.kt",
            "private val mutex = Mutex()",
            "kotlin.coroutines",
        ),
        ("pool.c", "pthread_mutex_lock(&m);", "c.pthread"),
        (
            "pool.cc",
            "std::lock_guard<std::mutex> g(mu_);",
            "cpp.mutex",
        ),
        ("pool.cpp", "std::atomic<int> n{0};", "cpp.atomic"),
        ("pool.cpp", "std::thread t(work);", "cpp.thread"),
        (
            "pool.hpp",
            "std::condition_variable cv_;",
            "cpp.condition-variable",
        ),
        ("Pool.cs", "lock (_gate) {", "csharp.lock"),
        (
            "Pool.cs",
            "Interlocked.Increment(ref _n);",
            "csharp.interlocked",
        ),
        ("Pool.cs", "await Task.Run(() => Work());", "csharp.task"),
        (
            "Pool.cs",
            "private readonly SemaphoreSlim _sem = new(4);",
            "csharp.sync-primitives",
        ),
        ("pool.py", "import threading", "python.threading"),
        ("pool.py", "lock = threading.Lock()", "python.threading"),
        (
            "pool.py",
            "from multiprocessing import Pool",
            "python.multiprocessing",
        ),
        (
            "pool.py",
            "with ThreadPoolExecutor(4) as ex:",
            "python.concurrent-futures",
        ),
        (
            "pool.py",
            "await asyncio.gather(a(), b())",
            "python.asyncio",
        ),
        (
            "pool.py",
            "task = asyncio.create_task(run())",
            "python.asyncio",
        ),
        ("pool.ts", "const w = new Worker('./w.js');", "js.worker"),
        (
            "pool.js",
            "const buf = new SharedArrayBuffer(1024);",
            "js.shared-memory",
        ),
        ("pool.js", "Atomics.add(view, 0, 1);", "js.shared-memory"),
    ];
    for (path, line, rule) in cases {
        let got = rules_for(path, line);
        assert!(
            got.iter().any(|r| r == rule),
            "{path}: {line:?} gave {got:?}, expected {rule}"
        );
    }
}

#[test]
fn negative_cases_identifier_traps_comments_and_strings() {
    let cases: &[(&str, &str)] = &[
        ("clock.go", "now := p.clock.Now()"),
        ("chain.go", "b := NewBlock(h)"),
        ("chain.go", "var hdr BlockHeader"),
        ("paths.go", "lockfile_path := filepath.Join(dir, \"x\")"),
        ("game.py", "unlocked_achievements = []"),
        ("game.py", "deadline = clock()"),
        ("block.rs", "let header = BlockHeader::default();"),
        ("block.rs", "fn unlock_screen() {}"),
        ("a.go", "// we hold sync.Mutex here"),
        ("a.go", "log.Print(\"go func() { <-ch }\")"),
        ("a.rs", "/// Uses a Mutex internally"),
        ("a.rs", "let s = \"thread::spawn\";"),
        ("a.py", "# threading.Lock() would be nicer"),
        ("a.py", "msg = 'asyncio.gather'"),
        ("A.java", "// synchronized (this)"),
        ("A.java", "String s = \"volatile\";"),
        ("a.go", "goto retry"),
        ("a.go", "gopher := \"go\""),
        ("A.cs", "var block = Block(x);"),
        ("a.ts", "const worker = createWorkerName();"),
        ("a.js", "const lockfile = 'package-lock.json';"),
        ("a.cpp", "int lock_count = 0;"),
    ];
    for (path, line) in cases {
        let got = rules_for(path, line);
        assert!(got.is_empty(), "{path}: {line:?} gave {got:?}");
    }
}

#[test]
fn context_lines_never_count_and_removed_locks_do() {
    let patch = "@@ -1,3 +1,3 @@\n \tp.mu.Lock()\n-\tx := 1\n+\tx := 2\n \tp.mu.Unlock()\n";
    let f = FileChange {
        path: "pool.go".into(),
        previous_path: None,
        status: FileStatus::Modified,
        patch: Some(patch.into()),
    };
    assert!(!classify(&[f], &RepoConfig::default()).concurrency);

    let c = classify(
        &[file("pool.go", &[], &["\tp.mu.Lock()"])],
        &RepoConfig::default(),
    );
    assert!(c.concurrency);
    assert_eq!(c.reasons[0].line, Some(2));
    assert_eq!(c.reasons[0].text, "p.mu.Lock()");
}

#[test]
fn multi_line_comments_in_the_patch_are_followed() {
    let c = classify(
        &[file(
            "a.rs",
            &["/*", "let m = Mutex::new(0);", "*/", "let x = 1;"],
            &[],
        )],
        &RepoConfig::default(),
    );
    assert!(!c.concurrency, "{:?}", c.reasons);
    let c = classify(
        &[file(
            "a.py",
            &[
                "def f():",
                "    \"\"\"Start a threading.Thread.",
                "    \"\"\"",
                "    return 1",
            ],
            &[],
        )],
        &RepoConfig::default(),
    );
    assert!(!c.concurrency, "{:?}", c.reasons);
}

#[test]
fn lock_files_vendored_generated_and_docs_never_count() {
    let config = RepoConfig {
        paths: vec!["**".into()],
        ..RepoConfig::default()
    };
    for path in [
        "Cargo.lock",
        "go.sum",
        "web/package-lock.json",
        "vendor/x/pool.go",
        "api/pool.pb.go",
        "docs/locks.md",
        "README.md",
    ] {
        let c = classify(&[file(path, &["var mu sync.Mutex"], &[])], &config);
        assert!(!c.concurrency, "{path}");
    }
    let generated = FileChange {
        path: "mock_pool.go".into(),
        previous_path: None,
        status: FileStatus::Added,
        patch: Some(
            "@@ -0,0 +1,2 @@\n+// Code generated by mockgen. DO NOT EDIT.\n+var mu sync.Mutex\n"
                .into(),
        ),
    };
    assert!(!classify(&[generated], &RepoConfig::default()).concurrency);
}

#[test]
fn test_only_changes_count_only_when_configured() {
    let files = [file("pool_test.go", &["\tgo func() {"], &[])];
    assert!(!classify(&files, &RepoConfig::default()).concurrency);
    let config = RepoConfig {
        test_changes_count: true,
        ..RepoConfig::default()
    };
    assert!(classify(&files, &config).concurrency);
}

#[test]
fn config_globs_always_count_and_ignore_never() {
    let config = RepoConfig {
        paths: vec!["internal/sched/**".into()],
        ignore: vec!["legacy/**".into()],
        ..RepoConfig::default()
    };
    let c = classify(
        &[file("internal/sched/queue.go", &["x := 1"], &[])],
        &config,
    );
    assert!(c.concurrency);
    assert_eq!(c.reasons[0].rule, RULE_CONFIG_PATHS);
    let c = classify(
        &[file("legacy/pool.go", &["var mu sync.Mutex"], &[])],
        &config,
    );
    assert!(!c.concurrency);
    // The default ignore covers docs/.
    let c = classify(
        &[file("docs/example.go", &["var mu sync.Mutex"], &[])],
        &RepoConfig::default(),
    );
    assert!(!c.concurrency);
}

#[test]
fn files_without_a_patch_are_judged_by_path_and_named() {
    let mk = |p: &str| FileChange {
        path: p.into(),
        previous_path: None,
        status: FileStatus::Modified,
        patch: None,
    };
    let c = classify(
        &[mk("internal/pool/mutex_table.go")],
        &RepoConfig::default(),
    );
    assert!(c.concurrency);
    assert_eq!(c.reasons[0].rule, RULE_PATH_NAME);
    let c = classify(
        &[mk("internal/render/huge_table.go")],
        &RepoConfig::default(),
    );
    assert!(!c.concurrency);
    assert_eq!(c.reasons[0].rule, RULE_NO_PATCH);
    assert_eq!(c.reasons[0].file, "internal/render/huge_table.go");
    // Binary files in a unified diff come through as patchless files.
    let d = "diff --git a/img/lock.png b/img/lock.png\nBinary files a/img/lock.png and b/img/lock.png differ\n";
    let c = classify(&parse_unified(d).unwrap(), &RepoConfig::default());
    assert!(!c.concurrency);
}

#[test]
fn reasons_carry_file_line_rule_and_text() {
    let d = "diff --git a/pool.go b/pool.go\n--- a/pool.go\n+++ b/pool.go\n@@ -40,2 +40,3 @@\n \tx := 1\n+\tgo p.refill()\n \treturn\n";
    let c = classify(&parse_unified(d).unwrap(), &RepoConfig::default());
    assert_eq!(
        c.reasons,
        [Reason {
            file: "pool.go".into(),
            line: Some(41),
            rule: "go.goroutine".into(),
            text: "go p.refill()".into()
        }]
    );
}

#[test]
fn every_rule_name_is_stable_and_unique() {
    let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len());
    assert!(names.iter().all(|n| n.contains('.')));
    // Every anchor list is non-empty, so every rule can be reached by the prefilter.
    assert!(RULES.iter().all(|r| !r.anchors.is_empty()));
    let _ = engine();
}

proptest::proptest! {
    #[test]
    fn no_input_makes_the_classifier_panic(path in "[a-z_/.]{0,30}", patch in "(?s).{0,400}") {
        let f = FileChange { path, previous_path: None, status: FileStatus::Modified, patch: Some(patch.clone()) };
        let _ = classify(&[f], &RepoConfig::default());
        let _ = parse_unified(&patch);
    }

    #[test]
    fn hunk_shaped_input_never_panics(lines in proptest::collection::vec("[-+ ][^\n]{0,60}", 0..40), lang in proptest::sample::select(vec!["a.go", "a.rs", "a.py", "A.java", "a.cpp", "A.cs", "a.ts", "A.kt"])) {
        let patch = format!("@@ -1,5 +1,5 @@\n{}\n", lines.join("\n"));
        let f = FileChange { path: lang.into(), previous_path: None, status: FileStatus::Modified, patch: Some(patch) };
        let _ = classify(&[f], &RepoConfig::default());
    }
}
