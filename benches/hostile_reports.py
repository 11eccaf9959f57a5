#!/usr/bin/env python3
"""Memory and time the service spends on hostile CI reports (a load probe, not a test).

It reuses the conformance suite's fake GitHub and harness (`../shared/eval/accept.py`), so it runs
only where that folder is present; elsewhere it says so and exits 0.

    python3 benches/hostile_reports.py [--binary target/release/repro-gate] [--mib 100] [--only junit-upload,...]

Each shape is sent at `--mib` MiB and at twice that, each time to a fresh service:
- `junit-upload`: a gzip upload (`POST /api/v1/results`, the repository's token) inflating to JUnit
  of distinct failing test cases, each with a 4 KB failure text;
- `go-upload`: the same as `go test -v` output in the default format (`--- FAIL:` lines);
- `line-upload`: a gzip upload of one line without a newline;
- `junit-fork-artifact`: the JUnit report as an artifact of a fork PR's run (no token needed);
- `attrs-fork-artifact`: test cases of 20,000 attributes each, as a fork PR's artifact.
The probe prints the service's peak resident memory (VmHWM from /proc, before the report and at
the end) and the time from sending the report until it was read (the upload's answer; for an
artifact, the queue empty again), and the ratio of the two times (linear reading doubles it).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import re
import sqlite3
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

EVAL = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"


def hostile_junit(mib: int) -> bytes:
    msg = "x" * 4000
    head = '<?xml version="1.0"?>\n<testsuite name="s">\n'
    cases, size, n = [head], len(head), 0
    while size < mib << 20:
        case = (f'<testcase classname="pkg{n % 7}" name="TestCase{n}"><failure message="boom">{msg}'
                f"</failure></testcase>\n")
        cases.append(case)
        size += len(case)
        n += 1
    cases.append("</testsuite>\n")
    return "".join(cases).encode()


def hostile_go(mib: int) -> bytes:
    lines, size, n = [], 0, 0
    while size < mib << 20:
        line = f"--- FAIL: TestGo{n} (0.00s)\n"
        lines.append(line)
        size += len(line)
        n += 1
    return "".join(lines).encode()


def one_line(mib: int) -> bytes:
    return b"a" * (mib << 20)


def many_attributes(mib: int) -> bytes:
    attrs = " ".join(f'a{i}="x"' for i in range(20_000))
    head = '<?xml version="1.0"?>\n<testsuite name="s">\n'
    cases, size, n = [head], len(head), 0
    while size < mib << 20:
        case = f'<testcase name="TestAttrs{n}" {attrs}><failure/></testcase>\n'
        cases.append(case)
        size += len(case)
        n += 1
    cases.append("</testsuite>\n")
    return "".join(cases).encode()


# name -> (report maker, how it is sent, upload format)
SHAPES = {
    "junit-upload": (hostile_junit, "upload", "junit"),
    "go-upload": (hostile_go, "upload", None),
    "line-upload": (one_line, "upload", None),
    "junit-fork-artifact": (hostile_junit, "fork", None),
    "attrs-fork-artifact": (many_attributes, "fork", None),
}


def peak_rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    m = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return int(m.group(1)) / 1024 if m else float("nan")


def jobs(svc, state: str) -> int:
    """Jobs in `state`, read from the service's SQLite file (read-only): /metrics caches its counts
    for ten seconds, which would time the cache rather than the read."""
    path = svc.db_url.removeprefix("sqlite://").split("?")[0]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as db:
        return db.execute("SELECT COUNT(*) FROM jobs WHERE state = ?", (state,)).fetchone()[0]


def busy_ms(svc, after_id: int) -> float:
    """Milliseconds from the first job after `after_id` being queued to the last one finishing."""
    path = svc.db_url.removeprefix("sqlite://").split("?")[0]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as db:
        a, b = db.execute("SELECT MIN(created_at_ms), MAX(updated_at_ms) FROM jobs WHERE id > ?",
                          (after_id,)).fetchone()
    return float(b - a) if a is not None and b is not None else float("nan")


def last_job(svc) -> int:
    path = svc.db_url.removeprefix("sqlite://").split("?")[0]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as db:
        return db.execute("SELECT COALESCE(MAX(id), 0) FROM jobs").fetchone()[0]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/repro-gate")
    ap.add_argument("--mib", type=int, default=100)
    ap.add_argument("--only", default=",".join(SHAPES))
    args = ap.parse_args()
    if not (EVAL / "accept.py").is_file():
        print(f"skipped: {EVAL} is absent (this probe uses the conformance suite's fake GitHub)")
        return 0
    sys.path.insert(0, str(EVAL))
    import accept  # noqa: E402

    results: dict = {}
    sizes = [args.mib, 2 * args.mib]
    names = []
    for shape in args.only.split(","):
        make, how, fmt = SHAPES[shape]
        for mib in sizes:
            def probe(ctx, shape=shape, mib=mib, make=make, how=how, fmt=fmt):
                ctx.fresh_fake()
                cfg = 'history:\n  enabled: true\n  branches: [main]\n  artifacts: ["*junit*"]\n'
                repo = ctx.repo(files={".github/repro-gate.yml": cfg})
                report = make(mib)
                svc = ctx.service()
                pid = svc.proc.pid
                if how == "upload":
                    token, _ = accept.history_token(ctx, accept.history_env(ctx, svc.db_url), repo)
                    body = gzip.compress(report, 1)
                    q = {"repo": repo, "sha": hashlib.sha1(shape.encode()).hexdigest(), "branch": "main",
                         "run": "1", "attempt": "1"}
                    if fmt:
                        q["format"] = fmt
                    h = {"Authorization": f"Bearer {token}", "Content-Encoding": "gzip",
                         "Content-Type": "application/octet-stream"}
                    ctx.settle()
                    before = peak_rss_mib(pid)
                    t0 = time.perf_counter()
                    st, _, raw = accept.http_call("POST", svc.url + "/api/v1/results?" + urlencode(q), body=body,
                                                  headers=h, timeout=600)
                    took = time.perf_counter() - t0
                    outcome = f"{st} {raw.decode('utf-8', 'replace')[:120]}"
                else:
                    fork = accept.fork_of(ctx, repo)
                    run = ctx.fake.add_workflow_run(repo, ".github/workflows/ci.yml", name="CI",
                                                    head_branch="fix", head_sha=hashlib.sha1(shape.encode()).hexdigest(),
                                                    event="pull_request", conclusion="failure", actor="mallory",
                                                    head_repo=fork, artifacts={"junit-results": {"report.xml": report}})
                    ctx.settle()
                    before = peak_rss_mib(pid)
                    done_before = jobs(svc, "done") + jobs(svc, "dead")
                    first = last_job(svc)
                    t0 = time.perf_counter()
                    ctx.deliver("workflow_run", ctx.workflow_run_event("completed", repo, run["id"], sender="mallory"))
                    while not (jobs(svc, "done") + jobs(svc, "dead") > done_before and jobs(svc, "queued") == 0
                               and jobs(svc, "running") == 0):
                        if time.perf_counter() - t0 > 600:
                            raise accept.Failure("the run was not read within 600 s")
                        time.sleep(0.05)
                    took = busy_ms(svc, first) / 1000
                    said = [ln for ln in svc.log_text().splitlines() if "workflow_run" in ln and "catch_up" not in ln]
                    outcome = f"{jobs(svc, 'dead')} dead job(s); {said[-1] if said else 'no workflow_run job logged'}"
                results[(shape, mib)] = (took, before, peak_rss_mib(pid), outcome)

            name = f"hostile-{shape}-{mib}"
            names.append(name)
            accept.scenario(name, "probe")(probe)

    rc = accept.main(["--binary", args.binary, "--only", ",".join(names), "--rust-log", "info"])
    print(f"{'shape':<22} {'MiB':>5} {'time s':>8} {'RSS before':>11} {'peak RSS':>9}  outcome")
    for shape in args.only.split(","):
        for mib in sizes:
            if (shape, mib) not in results:
                print(f"{shape:<22} {mib:>5}  no result")
                continue
            took, before, peak, outcome = results[(shape, mib)]
            print(f"{shape:<22} {mib:>5} {took:>8.2f} {before:>11.1f} {peak:>9.1f}  {accept.one_line(outcome, 400)}")
        if all((shape, m) in results for m in sizes):
            a, b = results[(shape, sizes[0])][0], results[(shape, sizes[1])][0]
            print(f"{shape:<22} time ratio x2 input: {b / a:.2f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
