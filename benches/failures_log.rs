//! Failing-test parser throughput on generated CI job logs (Actions timestamps, `go test -v`
//! with a few failures among many passes), run through the release binary as a child process
//! so its peak RSS can be read. Two sizes show that memory does not grow with the log.
//!
//!     cargo bench --bench failures_log
//!     FAILURES_LOG_MB=100,1000 cargo bench --bench failures_log

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::Instant;

fn write_log(path: &std::path::Path, mb: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create log"));
    let target = mb * 1024 * 1024;
    let mut written = 0usize;
    let mut i = 0u64;
    while written < target {
        let pkg = format!("example.com/acme/services/mod{}", i % 50);
        let mut chunk = String::new();
        for t in 0..20 {
            chunk.push_str(&format!(
                "2026-11-29T10:00:00.{:07}Z === RUN   TestCase{i}_{t}\n",
                i % 10_000_000
            ));
            chunk.push_str(&format!("2026-11-29T10:00:00.{:07}Z     case_test.go:42: checking value {t} against the expected output of the fixture\n", i % 10_000_000));
            if t == 7 && i.is_multiple_of(97) {
                chunk.push_str(&format!(
                    "2026-11-29T10:00:00.{:07}Z --- FAIL: TestCase{i}_{t} (0.01s)\n",
                    i % 10_000_000
                ));
            } else {
                chunk.push_str(&format!(
                    "2026-11-29T10:00:00.{:07}Z --- PASS: TestCase{i}_{t} (0.00s)\n",
                    i % 10_000_000
                ));
            }
        }
        chunk.push_str(&format!(
            "2026-11-29T10:00:01.0000000Z ok  \t{pkg}\t0.210s\n"
        ));
        f.write_all(chunk.as_bytes()).expect("write");
        written += chunk.len();
        i += 1;
    }
    f.flush().expect("flush");
}

fn peak_rss_kb(status: &str) -> Option<u64> {
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("failures_log: run with `cargo bench --bench failures_log`");
        return;
    }
    let sizes: Vec<usize> = std::env::var("FAILURES_LOG_MB")
        .unwrap_or_else(|_| "10,100".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    for mb in sizes {
        let path = dir.path().join(format!("log-{mb}.txt"));
        write_log(&path, mb);
        let bytes = std::fs::metadata(&path).expect("log").len();
        // Warm the page cache so the figure is parsing, not disk.
        let _ = std::fs::read(&path);
        let start = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_repro-gate"))
            .args(["failures", "--log"])
            .arg(&path)
            .stdout(Stdio::piped())
            .spawn()
            .expect("run repro-gate failures");
        let pid = child.id();
        // Drain stdout on a thread so a large answer never blocks the child on a full pipe.
        let mut stdout = child.stdout.take().expect("piped stdout");
        let reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut stdout, &mut buf).map(|_| buf)
        });
        // VmHWM only grows: the last sample before exit is the peak.
        let mut hwm = 0;
        loop {
            if let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
                hwm = hwm.max(peak_rss_kb(&s).unwrap_or(0));
            }
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) => std::thread::sleep(std::time::Duration::from_millis(5)),
                Err(e) => panic!("waiting: {e}"),
            }
        }
        let stdout = reader.join().expect("reader").expect("stdout");
        let elapsed = start.elapsed().as_secs_f64();
        let found: serde_json::Value = serde_json::from_slice(&stdout).expect("json");
        println!(
            "failures_log: {} MB in {:.2}s = {:.0} MB/s, {} failing tests found, peak RSS {:.1} MB",
            bytes / (1024 * 1024),
            elapsed,
            bytes as f64 / (1024.0 * 1024.0) / elapsed,
            found["failures"].as_array().map_or(0, |a| a.len()),
            hwm as f64 / 1024.0
        );
    }
}
