use super::*;
use crate::core::classify::diff::{FileStatus, parse_unified};

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
        // Zig, Erlang, Elixir, Rust wakers, C barriers, Python queues, names read by their
        // sub-words.
        (
            "pool.zig",
            "_ = @atomicRmw(u32, &self.count, .Add, 1, .monotonic);",
            "zig.atomic",
        ),
        (
            "pool.zig",
            "self.state.store(.running, .release);",
            "zig.atomic",
        ),
        (
            "pool.zig",
            "var pool: std.Thread.Pool = undefined;",
            "zig.thread",
        ),
        ("pool.zig", "self.mutex.lock();", "zig.lock-call"),
        (
            "pool.zig",
            "threadlocal var buf: [64]u8 = undefined;",
            "zig.thread",
        ),
        (
            "conn.erl",
            "Pid = spawn_link(fun() -> loop(S) end),",
            "erlang.spawn",
        ),
        ("conn.erl", "    Owner ! {tcp_closed, Sock},", "erlang.send"),
        (
            "conn.erl",
            "    gen_server:call(Pool, checkout),",
            "erlang.send",
        ),
        ("conn.erl", "    receive", "erlang.receive"),
        (
            "conn.erl",
            "    MRef = erlang:monitor(process, Owner),",
            "erlang.monitor",
        ),
        (
            "conn.erl",
            "        {'DOWN', MRef, process, _, _} -> ok",
            "erlang.monitor",
        ),
        (
            "conn.erl",
            "handle_call({checkout, Ref}, From, State) ->",
            "erlang.handler",
        ),
        (
            "producer.ex",
            "    ref = Process.monitor(pid)",
            "elixir.process",
        ),
        (
            "producer.ex",
            "  def handle_info({:DOWN, ref, :process, _, _}, state) do",
            "elixir.process",
        ),
        (
            "producer.ex",
            "    GenServer.call(server, :flush)",
            "elixir.otp",
        ),
        (
            "producer.ex",
            "  def handle_cast({:push, item}, state) do",
            "elixir.otp",
        ),
        (
            "producer.ex",
            "    task = Task.async(fn -> work() end)",
            "elixir.otp",
        ),
        (
            "producer.ex",
            "    send(parent, {:done, self()})",
            "elixir.process",
        ),
        (
            "waker.rs",
            "        self.waker.register(cx.waker());",
            "rust.waker",
        ),
        ("waker.rs", "        waker.wake_by_ref();", "rust.waker"),
        (
            "waker.rs",
            "    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {",
            "rust.waker",
        ),
        ("barrier.c", "    _mm_mfence();", "cfam.barrier"),
        (
            "barrier.c",
            "    InterlockedIncrement(&p->refs);",
            "cfam.barrier",
        ),
        (
            "pool.py",
            "self._pool = queue.LifoQueue(maxsize)",
            "python.queue",
        ),
        (
            "refs.c",
            "    PROJ_ATOMIC_ADD(&s->refs, 1);",
            "words.primitive",
        ),
        ("refs.c", "    proj_smp_mb();", "words.primitive"),
        ("Pool.kt", "    waiters.notifyWaiters()", "words.primitive"),
        ("pool.cc", "  if (mu_.tryLockShared()) {", "words.primitive"),
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
        // The newer languages' comments and strings, and sub-word look-alikes.
        ("pool.zig", "// self.mutex.lock();"),
        ("pool.zig", "    \\\\ @atomicRmw in a multi-line string"),
        ("pool.zig", "const msg = \"std.Thread.spawn\";"),
        ("conn.erl", "% Pid ! stop, receive ... end"),
        ("conn.erl", "    io:format(\"spawn(~p)~n\", [X]),"),
        ("conn.erl", "    X = $!,"),
        ("producer.ex", "  # GenServer.call(server, :flush)"),
        ("producer.ex", "    Logger.info(\"send(pid, msg)\")"),
        ("producer.ex", "    if Process.sleep(10) == :ok, do: :ok"),
        ("waker.rs", "let wake_time = clock.now();"),
        ("app.py", "with transaction.atomic():"),
        ("app.py", "acquire_file_lock(path)"),
        ("lock.c", "int lock_count = 0;"),
        ("s3.go", "cfg := globalBucketObjectLockSys.Get(bucket)"),
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
    let mut names: Vec<&str> = rules::all().map(|r| r.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len());
    assert!(names.iter().all(|n| n.contains('.')));
    // Every anchor list is non-empty, so every rule can be reached by the prefilter.
    assert!(rules::all().all(|r| !r.anchors.is_empty()));
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

#[test]
fn project_lock_wrappers_count() {
    for (path, line, rule) in [
        (
            "db/version_set.cc",
            "  MutexLock l(&mutex_);",
            "cpp.lock-wrapper",
        ),
        (
            "db/version_set.cc",
            "  absl::MutexLock lock(&mu_);",
            "cpp.lock-wrapper",
        ),
        (
            "db/version_set.cc",
            "  ReaderMutexLock rl(&table_mu_);",
            "cpp.lock-wrapper",
        ),
        (
            "db/version_set.cc",
            "  SpinLockHolder h(&lock_);",
            "cpp.lock-wrapper",
        ),
        ("db/version_set.cc", "  mu_->Lock();", "cpp.lock-wrapper"),
        (
            "db/version_set.cc",
            "  mutex_.AssertHeld();",
            "cpp.lock-wrapper",
        ),
        (
            "db/version_set.cc",
            "  std::lock_guard<std::mutex> g(m);",
            "cpp.mutex",
        ),
        (
            "db/version_set.cc",
            "  std::scoped_lock both(a, b);",
            "cpp.mutex",
        ),
        (
            "src/arena.c",
            "\tarena_mutex_lock(tsdn, &arena->lock);",
            "cpp.mutex",
        ),
        (
            "src/arena.c",
            "\tmalloc_mutex_unlock(tsdn, &bin->lock);",
            "cpp.mutex",
        ),
        (
            "db/db_impl.h",
            "  VersionSet* const versions_ GUARDED_BY(mutex_);",
            "cpp.thread-annotations",
        ),
        (
            "absl/mutex.cc",
            "  ABSL_ANNOTATE_IGNORE_WRITES_BEGIN();",
            "cpp.thread-annotations",
        ),
        (
            "src/race.cc",
            "  __tsan_acquire(&flag);",
            "cpp.thread-annotations",
        ),
    ] {
        assert!(
            rules_for(path, line).contains(&rule.to_string()),
            "{line}: {:?}",
            rules_for(path, line)
        );
    }
}

#[test]
fn memory_orderings_alone_count() {
    let rust = file(
        "src/latch.rs",
        &["        self.state.store(SET, Ordering::Release);"],
        &["        self.state.store(SET, Ordering::Relaxed);"],
    );
    assert!(classify(&[rust], &RepoConfig::default()).concurrency);
    assert!(
        rules_for(
            "src/flag.cc",
            "  ready.store(true, std::memory_order_release);"
        )
        .contains(&"cpp.atomic".to_string())
    );
    assert!(
        rules_for("src/list.rs", "    let next = head.load_consume(guard);")
            .contains(&"rust.atomic".to_string())
    );
}

#[test]
fn removals_count_too_send_sync_and_volatile() {
    let send = file("src/conn.rs", &[], &["unsafe impl Send for Conn {}"]);
    assert!(classify(&[send], &RepoConfig::default()).concurrency);
    let volatile = file(
        "src/flag.c",
        &["static int done;"],
        &["static volatile int done;"],
    );
    assert!(classify(&[volatile], &RepoConfig::default()).concurrency);
    // The inline-assembly barrier is not a shared-memory `volatile`.
    let asm = file(
        "src/clock.h",
        &["  asm volatile(\"rdtsc\" : \"=a\"(lo), \"=d\"(hi));"],
        &[],
    );
    assert!(!classify(&[asm], &RepoConfig::default()).concurrency);
}

#[test]
fn more_lock_shapes_count() {
    for (path, line, rule) in [
        (
            "src/mvcc.rs",
            "        match self.write_set.try_lock() {",
            "rust.lock-call",
        ),
        ("src/mvcc.rs", "            .write()", "rust.lock-call"),
        ("store/db.go", "\tdb.RLock()", "go.lock-call"),
        ("zapcore/lazy.go", "\td.initOnce()", "go.once-call"),
        (
            "zapcore/lazy.go",
            "\tonce.Do(func() { load() })",
            "go.once-call",
        ),
        (
            "pool/cache.py",
            "        got = self._lock.acquire(timeout=timeout)",
            "python.sync-call",
        ),
        (
            "pool/cache.py",
            "    done = threading.Event()",
            "python.threading",
        ),
        (
            "pool/cache.py",
            "    os.register_at_fork(after_in_child=reset)",
            "python.sync-call",
        ),
        (
            "pool/cache.py",
            "            worker.join(timeout=1.0)",
            "python.sync-call",
        ),
    ] {
        assert!(
            rules_for(path, line).contains(&rule.to_string()),
            "{line}: {:?}",
            rules_for(path, line)
        );
    }
    // io::Write::write and Read::read take a buffer: not locks; a block is not a lock.
    assert!(rules_for("src/out.rs", "    out.write(&buf)?;").is_empty());
    assert!(rules_for("ui/view.py", "    block.set(value)").is_empty());
    assert!(rules_for("ui/view.py", "    clock.wait(5)").is_empty());
}

#[test]
fn a_condvar_deep_in_a_large_diff_counts() {
    // Lifetimes, char literals and raw strings before it must not derail the lexer.
    let mut added: Vec<String> = (0..3000)
        .map(|i| {
            format!(
                "fn f{i}<'a>(x: &'a str) -> &'a str {{ let c = '\"'; let s = r#\"q \"x\"\"#; x }}"
            )
        })
        .collect();
    added.push("    let cv = Condvar::new();".to_string());
    let refs: Vec<&str> = added.iter().map(String::as_str).collect();
    let c = classify(&[file("src/big.rs", &refs, &[])], &RepoConfig::default());
    assert!(c.concurrency);
    assert_eq!(c.reasons[0].rule, "rust.condvar");
}

#[test]
fn a_hunk_that_starts_inside_a_python_docstring_is_read_as_code_after_it() {
    let patch = "@@ -300,3 +300,6 @@ def start_soon(\n     \"\"\"\n     CACHE.start(fn)\n+\n+if hasattr(os, \"register_at_fork\"):\n+    os.register_at_fork(after_in_child=clear)\n";
    let f = FileChange {
        path: "src/cache.py".into(),
        previous_path: None,
        status: FileStatus::Modified,
        patch: Some(patch.into()),
    };
    assert!(classify(&[f], &RepoConfig::default()).concurrency);
}

#[test]
fn the_repository_s_primitives_count_in_changed_code_only() {
    let config = RepoConfig {
        primitives: vec!["GIT_REFCOUNT_*".into(), "StatCounter".into()],
        ..RepoConfig::default()
    };
    let counted = |line: &str| {
        classify(&[file("src/diff.c", &[line], &[])], &config)
            .reasons
            .into_iter()
            .map(|r| r.rule)
            .collect::<Vec<_>>()
    };
    assert_eq!(counted("\tGIT_REFCOUNT_INC(diff);"), ["config.primitives"]);
    assert_eq!(counted("\tStatCounter hits;"), ["config.primitives"]);
    // A longer name that only starts like a declared one is another name.
    assert!(counted("\tStatCounterView v;").is_empty());
    assert!(counted("\t/* GIT_REFCOUNT_INC(diff); */").is_empty());
    // Without the block, the same line is not concurrency code.
    let plain = classify(
        &[file("src/diff.c", &["\tGIT_REFCOUNT_INC(diff);"], &[])],
        &RepoConfig::default(),
    );
    assert!(!plain.concurrency);
}

mod test_changes;
