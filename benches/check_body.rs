//! `check-body` over hostile PR descriptions of 16, 64 and 256 KiB (GitHub allows 64 KiB; the
//! larger size shows the growth). Linear work means the time per KiB stays flat.
//!
//!     cargo bench --bench check_body
//!
//! Bodies: alternating `seed: N` / test-name lines (each seed once needed a rescan of the
//! body), a race-report near-miss repeated, thousands of trace files and links (each was once
//! compared with every one before it), and markdown soup (fences, comments, tables).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use repro_gate::core::evidence::check_body;

fn fill(unit: impl Fn(usize) -> String, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 256);
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(&unit(i));
        i += 1;
    }
    s
}

fn bodies(kib: usize) -> Vec<(&'static str, String)> {
    let bytes = kib * 1024;
    vec![
        (
            "seed-test-lines",
            fill(
                |i| format!("seed: {i}\nTestCase{i} fails every time with a barrier\n"),
                bytes,
            ),
        ),
        (
            "race-near-misses",
            fill(
                |i| {
                    format!(
                        "WARNING: DATA RACE\nWrite at 0x{i:x} by goroutine {i}:\n  pkg.f{i}()\n\n"
                    )
                },
                bytes,
            ),
        ),
        (
            // Seeds with no test anywhere: every one looks for its test.
            "seed-paragraphs-no-test",
            fill(|i| format!("seed: {i}\n\n"), bytes),
        ),
        (
            // Thousands of distinct trace files and links: each is kept once.
            "trace-names",
            fill(
                |i| format!("see trace-{i}.out and https://example.com/x/run{i}.pftrace\n"),
                bytes,
            ),
        ),
        (
            "markdown-soup",
            fill(
                |i| {
                    format!(
                        "```\n| a | b |\n<!-- x {i}\n-->\n> seed: <paste here>\n`TestX{i}` -count={i}\n```\n"
                    )
                },
                bytes,
            ),
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("check_body");
    group.sample_size(10);
    for kib in [16usize, 64, 256] {
        for (name, body) in bodies(kib) {
            group.throughput(Throughput::Bytes(body.len() as u64));
            group.bench_with_input(
                BenchmarkId::new(name, format!("{kib}KiB")),
                &body,
                |b, body| b.iter(|| check_body(body, None)),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
