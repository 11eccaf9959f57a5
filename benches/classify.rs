//! Classifier throughput on a generated multi-language diff of at least 50 MB.
//!
//!     cargo bench --bench classify
//!
//! Criterion reports the time per pass and the throughput in bytes of diff text per second
//! (one core: the classifier is single-threaded).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use repro_gate::core::classify::{Classifier, diff::parse_unified};
use repro_gate::core::config::RepoConfig;

const TARGET_BYTES: usize = 50 * 1024 * 1024;

/// Realistic lines per language: mostly ordinary code, comments and strings, a few
/// concurrency lines, and identifier traps.
fn lines(lang: &str) -> &'static [&'static str] {
    match lang {
        "go" => &[
            "\tif err != nil {",
            "\t\treturn nil, fmt.Errorf(\"loading %s: %w\", name, err)",
            "\tfor i, item := range items {",
            "\t// refresh the block header before the clock ticks",
            "\tp.mu.Lock()",
            "\tresult = append(result, transform(item, opts))",
            "\tgo p.refill(ctx)",
            "\tlog.Printf(\"took %v\", time.Since(start))",
        ],
        "rs" => &[
            "    let value = map.get(&key).cloned().unwrap_or_default();",
            "    /// Returns the block header for the given height.",
            "    let guard = self.state.lock().await;",
            "    for (i, chunk) in data.chunks(1024).enumerate() {",
            "    tracing::debug!(len = buf.len(), \"read frame\");",
            "    let counter = Arc::new(AtomicUsize::new(0));",
            "        out.push_str(&format!(\"{i}: {chunk:?}\"));",
            "    }",
        ],
        "py" => &[
            "    def handle(self, request):",
            "        result = self.compute(request.payload)  # cached",
            "        with self._lock:",
            "        return {\"status\": \"ok\", \"items\": items}",
            "        for idx, value in enumerate(values):",
            "        unlocked_achievements.append(name)",
        ],
        "java" => &[
            "    public List<String> names() {",
            "        return items.stream().map(Item::name).collect(Collectors.toList());",
            "    private volatile boolean closed;",
            "        // synchronized access is not needed here",
            "        if (value == null) { throw new IllegalArgumentException(\"value\"); }",
        ],
        _ => &[
            "  const result = items.map((x) => x * 2).filter(Boolean);",
            "  // spawn a worker later",
            "  if (!response.ok) { throw new Error(`failed: ${response.status}`); }",
            "  export function render(props) { return h('div', props); }",
        ],
    }
}

fn generate() -> String {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` does not: a smoke size then.
    let target = if std::env::args().any(|a| a == "--bench") {
        TARGET_BYTES
    } else {
        1024 * 1024
    };
    let langs = ["go", "rs", "py", "java", "ts"];
    let mut out = String::with_capacity(target + 4096);
    let mut n = 0usize;
    while out.len() < target {
        let lang = langs[n % langs.len()];
        let path = format!("src/module{}/file{}.{lang}", n % 97, n);
        out.push_str(&format!(
            "diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        ));
        for h in 0..4 {
            out.push_str(&format!("@@ -{0},30 +{0},30 @@\n", 10 + h * 100));
            for (i, l) in lines(lang).iter().cycle().take(30).enumerate() {
                let prefix = match (i + n) % 5 {
                    0 => '+',
                    1 => '-',
                    _ => ' ',
                };
                out.push(prefix);
                out.push_str(l);
                out.push('\n');
            }
        }
        n += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let text = generate();
    let config = RepoConfig::default();
    let classifier = Classifier::new(&config);
    let mut group = c.benchmark_group("classify");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.bench_function("parse_and_classify_50MB", |b| {
        // File by file, so the cap on reported reasons never cuts the scan short: every line
        // of the 50 MB is lexed and prefiltered.
        b.iter(|| {
            let files = parse_unified(&text).expect("generated diff parses");
            files
                .chunks(1)
                .filter(|f| classifier.classify(f).concurrency)
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
