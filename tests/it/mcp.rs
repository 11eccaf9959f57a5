//! `repro-gate mcp` as an MCP client sees it: the binary spawned, JSON-RPC 2.0 over its pipes,
//! one message per line. initialize, tools/list with schemas, each tool called, progress
//! notifications during a run, a cancelled call that leaves no worktree, and exit 0 when stdin
//! closes. Only JSON-RPC is written to stdout.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::local::{BIN, first_line, kill, repo, repro_case, worktrees, write};

/// Long enough for a debug build on a busy 2-core machine; a deadline, never a pause.
const WAIT: Duration = Duration::from_secs(120);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: mpsc::Receiver<Result<Value, String>>,
    /// Messages read while waiting for another one.
    seen: Vec<Value>,
}

impl Client {
    fn spawn(dir: &Path) -> Client {
        let mut child = Command::new(BIN)
            .arg("mcp")
            .current_dir(dir)
            .env("RUST_LOG", "info")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn repro-gate mcp");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if line.trim().is_empty() {
                    continue;
                }
                let msg = serde_json::from_str::<Value>(&line).map_err(|_| line);
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let mut c = Client {
            child,
            stdin,
            rx,
            seen: Vec::new(),
        };
        let init = c.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "repro-gate-tests", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "repro-gate", "{init}");
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        assert!(init["result"]["protocolVersion"].is_string(), "{init}");
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    fn send(&mut self, msg: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{msg}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// The next message from the server; every line must be JSON-RPC.
    fn next(&mut self) -> Value {
        match self.rx.recv_timeout(WAIT) {
            Ok(Ok(v)) => {
                assert_eq!(v["jsonrpc"], "2.0", "not JSON-RPC: {v}");
                v
            }
            Ok(Err(line)) => panic!("a non-JSON-RPC line on stdout: {line}"),
            Err(e) => panic!("no message from the server: {e}"),
        }
    }

    /// Waits for the answer to `id`, keeping what else arrives in `seen`.
    fn answer(&mut self, id: u64) -> Value {
        if let Some(i) = self.seen.iter().position(|m| m["id"] == id) {
            return self.seen.remove(i);
        }
        loop {
            let m = self.next();
            if m["id"] == id && (m.get("result").is_some() || m.get("error").is_some()) {
                return m;
            }
            self.seen.push(m);
        }
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer(id)
    }

    fn call(&mut self, id: u64, tool: &str, args: Value) -> Value {
        let r = self.request(id, "tools/call", json!({"name": tool, "arguments": args}));
        r["result"].clone()
    }

    /// Sends the server `signal` (stdin left open) and returns its exit code.
    fn signal(self, signal: &str) -> Option<i32> {
        assert!(kill(signal, &self.child.id().to_string()));
        self.drain()
    }

    /// Closes stdin and returns the exit code.
    fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.drain()
    }

    /// Reads stdout until the server closes it (it exits), and returns the exit code.
    fn drain(mut self) -> Option<i32> {
        // Everything left on stdout must still be JSON-RPC.
        loop {
            match self.rx.recv_timeout(WAIT) {
                Ok(m) => assert!(m.is_ok(), "a non-JSON-RPC line on stdout: {m:?}"),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("the server did not exit after stdin closed");
                }
            }
        }
        self.child.wait().expect("wait").code()
    }
}

const RELIABILITY: &str = "policy:\n  default_tier: probation\ntests:\n  - id: services/pool/integration::TestPoolCheckoutUnderLoad\n    tier: quarantined\n    runs: 200\n    failures: 29\n    pass_rate: 0.855\n    ticket: PLAT-1182\n";

#[test]
fn lists_its_tools_and_answers_each_with_the_clis_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), &[(".ci/test-reliability.yaml", RELIABILITY)]);
    let mut c = Client::spawn(dir.path());
    let list = c.request(2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    for (name, required) in [
        ("lookup_test", &["test"][..]),
        ("check_description", &["body"]),
        ("classify_diff", &["diff"]),
        ("rerun_local", &["test"]),
        ("verify_local", &[]),
    ] {
        let t = tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} not listed: {list}"));
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        let req: Vec<&str> = t["inputSchema"]["required"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert_eq!(req, required, "{name}'s required arguments");
        assert!(!t["description"].as_str().unwrap_or("").is_empty());
    }

    let q = c.call(
        3,
        "lookup_test",
        json!({"test": "example.com/acme/services/pool/integration::TestPoolCheckoutUnderLoad"}),
    );
    assert_eq!(q["isError"], false, "{q}");
    let s = &q["structuredContent"];
    assert_eq!(s["tier"], "quarantined");
    assert_eq!(s["ticket"], "PLAT-1182");
    assert!(
        s["instruction"]
            .as_str()
            .unwrap_or("")
            .contains("NOT evidence")
    );
    let text: Value =
        serde_json::from_str(q["content"][0]["text"].as_str().expect("text")).expect("json");
    assert_eq!(&text, s, "the text content is the same JSON");

    let u = c.call(4, "lookup_test", json!({"test": "pkg::TestNew"}));
    assert_eq!(u["structuredContent"]["listed"], false);
    assert_eq!(u["structuredContent"]["tier"], "probation");

    let diff = "diff --git a/pool.go b/pool.go\n--- a/pool.go\n+++ b/pool.go\n@@ -1,2 +1,3 @@\n func Get() {\n+\tp.mu.Lock()\n }\n";
    let k = c.call(5, "classify_diff", json!({"diff": diff}));
    assert_eq!(k["structuredContent"]["concurrency"], true, "{k}");
    assert_eq!(k["structuredContent"]["reasons"][0]["file"], "pool.go");

    let body = "Fixes the lost wakeup. Reproduce with `go test -run TestLostWakeup -seed=8812 ./pool`: it fails every time before the fix.";
    let e = c.call(6, "check_description", json!({"body": body}));
    assert_eq!(e["structuredContent"]["satisfied"], true, "{e}");
    let n = c.call(7, "check_description", json!({"body": "Fixed a race."}));
    assert_eq!(n["structuredContent"]["satisfied"], false, "{n}");

    // Bad input is an error result with the reason, and the server goes on.
    let bad = c.call(
        8,
        "lookup_test",
        json!({"test": "x", "file": "missing.yaml"}),
    );
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(
        bad["structuredContent"]["error"]
            .as_str()
            .unwrap_or("")
            .contains("missing.yaml")
    );
    // A missing or mistyped argument is a result that says which, not a protocol error.
    for (id, args, says) in [
        (9, json!({}), "missing field `test`"),
        (11, json!({"test": 7}), "invalid type"),
    ] {
        let wrong = c.request(
            id,
            "tools/call",
            json!({"name": "lookup_test", "arguments": args}),
        );
        assert!(wrong.get("error").is_none(), "{wrong}");
        assert_eq!(wrong["result"]["isError"], true, "{wrong}");
        let error = wrong["result"]["structuredContent"]["error"]
            .as_str()
            .unwrap_or("");
        assert!(error.contains(says), "{wrong}");
    }
    let runs = c.request(
        12,
        "tools/call",
        json!({"name": "rerun_local", "arguments": {"test": "pkg::TestX", "runs": "many"}}),
    );
    assert_eq!(runs["result"]["isError"], true, "{runs}");
    // The file stays inside the checkout, is read no further than its limit, and its content
    // is never quoted back.
    let outside = tempfile::tempdir().expect("tmp");
    let secret = outside.path().join("secret.yaml");
    std::fs::write(&secret, "tests: the secret content\n").expect("write");
    let abs = secret.to_string_lossy().into_owned();
    let up = format!("../{}", abs.trim_start_matches('/'));
    for (id, file) in [(13, abs.as_str()), (14, up.as_str()), (15, "/dev/zero")] {
        let r = c.call(id, "lookup_test", json!({"test": "x", "file": file}));
        assert_eq!(r["isError"], true, "{file}: {r}");
        assert!(!r.to_string().contains("secret content"), "{file}: {r}");
    }
    // A file inside the checkout that is not a reliability file: named, with where it is
    // wrong, and its content not quoted.
    std::fs::write(
        dir.path().join("notes.yaml"),
        "tests: [the inner secret content\n",
    )
    .expect("write");
    let r = c.call(
        16,
        "lookup_test",
        json!({"test": "x", "file": "notes.yaml"}),
    );
    assert_eq!(r["isError"], true, "{r}");
    assert!(r.to_string().contains("notes.yaml"), "{r}");
    assert!(!r.to_string().contains("inner secret"), "{r}");
    let again = c.call(10, "lookup_test", json!({"test": "pkg::TestNew"}));
    assert_eq!(again["isError"], false);
    assert_eq!(c.close(), Some(0), "exit 0 when stdin closes");
}

#[test]
fn rerun_local_sends_progress_and_gives_the_verdict() {
    let (_top, work) = repro_case("every5", "every5");
    let log = work.parent().expect("top").join("sides.log");
    let mut c = Client::spawn(&work);
    c.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "rerun_local", "_meta": {"progressToken": "p1"},
        "arguments": {"test": "pkg::TestFlaky", "runs": 10, "runner": "command",
                      "command": format!("sh t.sh {{test}} {}", log.display())}}}),
    );
    let r = c.answer(2);
    let progress: Vec<&Value> = c
        .seen
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 20, "one notification per run: {progress:?}");
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "p1")
    );
    assert_eq!(progress[19]["params"]["progress"], 20.0);
    assert_eq!(progress[19]["params"]["total"], 20.0);
    let s = &r["result"]["structuredContent"];
    assert_eq!(s["verdict"], "not this change", "{r}");
    assert_eq!(s["head"]["failures"], 2);
    assert_eq!(s["base"]["failures"], 2);
    assert!(
        s["ticket"]
            .as_str()
            .unwrap_or("")
            .contains("pkg::TestFlaky")
    );
    assert_eq!(worktrees(&work), 1, "no worktree left");
    assert_eq!(c.close(), Some(0));
}

#[test]
fn verify_local_runs_the_descriptions_claim() {
    let (_top, work) = repo(
        &[
            ("side.txt", "base\n"),
            ("fails.txt", "test\n"),
            ("code.txt", "old\n"),
        ],
        &[
            ("wake_test.go", "// forces the lost wakeup\n"),
            ("code.txt", "fixed\n"),
        ],
    );
    let mut c = Client::spawn(&work);
    let body = "Adds `TestLostWakeup`, which forces the interleaving with a barrier; it fails every time without the fix.";
    let r = c.call(
        2,
        "verify_local",
        json!({"body": body, "runs": 3, "runner": "command",
               "command": "sh t.sh {test} /dev/null"}),
    );
    let s = &r["structuredContent"];
    assert_eq!(s["verdict"], "verified", "{r}");
    assert_eq!(s["test"], "TestLostWakeup");
    assert_eq!(s["tests_laid_over"], json!(["wake_test.go"]));
    let none = c.call(3, "verify_local", json!({"runs": 3}));
    assert_eq!(none["isError"], true, "no claim: {none}");
    assert_eq!(worktrees(&work), 1);
    assert_eq!(c.close(), Some(0));
}

#[test]
fn sigterm_mid_run_stops_the_runs_removes_the_worktrees_and_exits_zero() {
    let (top, work) = repo(
        &[("side.txt", "base\n"), ("fails.txt", "none\n")],
        &[("side.txt", "head\n")],
    );
    // The first run passes at once; every later one writes its pid and blocks for ten minutes.
    let mark = top.path().join("first-run-done");
    let pids = top.path().join("blocked-pids");
    let cmd = format!(
        "if test -e {m}; then echo $$ >> {p}; exec sleep 600; fi; touch {m}",
        m = mark.display(),
        p = pids.display()
    );
    let mut c = Client::spawn(&work);
    c.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "rerun_local", "_meta": {"progressToken": 7},
        "arguments": {"test": "pkg::TestSlow", "runs": 5, "runner": "command", "command": cmd}}}),
    );
    // The blocked run's pid is the signal that it runs (polled with a deadline).
    let run_pid = first_line(&pids, WAIT);
    assert_eq!(worktrees(&work), 3, "both worktrees exist while it runs");
    assert_eq!(c.signal("-TERM"), Some(0), "SIGTERM is a clean stop");
    assert_eq!(worktrees(&work), 1, "no worktree left after SIGTERM");
    let alive = kill("-0", &run_pid);
    assert!(!alive, "the run's process {run_pid} is still running");
}

#[test]
fn closing_stdin_mid_run_stops_the_runs_and_removes_the_worktrees_at_once() {
    let (top, work) = repo(
        &[("side.txt", "base\n"), ("fails.txt", "none\n")],
        &[("side.txt", "head\n")],
    );
    let mark = top.path().join("first-run-done");
    let pids = top.path().join("blocked-pids");
    let cmd = format!(
        "if test -e {m}; then echo $$ >> {p}; exec sleep 600; fi; touch {m}",
        m = mark.display(),
        p = pids.display()
    );
    let mut c = Client::spawn(&work);
    c.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "rerun_local", "_meta": {"progressToken": 7},
        "arguments": {"test": "pkg::TestSlow", "runs": 5, "runner": "command", "command": cmd}}}),
    );
    let run_pid = first_line(&pids, WAIT);
    assert_eq!(worktrees(&work), 3, "both worktrees exist while it runs");
    // The official Python SDK closes stdin, then sends SIGTERM 2 s later and SIGKILL 2 s after
    // that: the cleanup must be over, and the server gone, before the SIGTERM would come (the
    // SDK's in-flight drain alone would take 5 s).
    let closed = std::time::Instant::now();
    assert_eq!(c.close(), Some(0), "exit 0 when stdin closes");
    let took = closed.elapsed();
    assert!(
        took < std::time::Duration::from_secs(2),
        "the server took {took:?} to clean up and exit after stdin closed"
    );
    assert_eq!(worktrees(&work), 1, "no worktree left once it exited");
    assert!(
        !kill("-0", &run_pid),
        "the run's process {run_pid} is still running"
    );
}

#[test]
fn a_cancelled_call_stops_its_runs_and_leaves_no_worktree() {
    let (top, work) = repo(
        &[("side.txt", "base\n"), ("fails.txt", "none\n")],
        &[("side.txt", "head\n")],
    );
    // The first run passes at once; every later run would block for ten minutes.
    let mark = top.path().join("first-run-done");
    let cmd = format!(
        "test -e {m} && exec sleep 600; touch {m}",
        m = mark.display()
    );
    let mut c = Client::spawn(&work);
    c.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "rerun_local", "_meta": {"progressToken": 7},
        "arguments": {"test": "pkg::TestSlow", "runs": 5, "runner": "command", "command": cmd}}}),
    );
    // The first run's notification says the runs are under way (an explicit signal).
    loop {
        let m = c.next();
        if m["method"] == "notifications/progress" {
            break;
        }
        assert!(
            m.get("id").is_none(),
            "answered before it was cancelled: {m}"
        );
    }
    assert_eq!(worktrees(&work), 3, "both worktrees exist while it runs");
    c.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 2, "reason": "the user stopped it"}}),
    );
    // The server goes on answering, and exits once stdin closes: the ten-minute run was
    // stopped (the exit waits for the cancelled work to clean up).
    let ping = c.request(3, "ping", json!({}));
    assert!(ping.get("result").is_some(), "{ping}");
    assert_eq!(c.close(), Some(0));
    assert_eq!(
        worktrees(&work),
        1,
        "no worktree left after the cancelled call"
    );
}
