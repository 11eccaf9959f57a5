#!/usr/bin/env python3
"""Memory and time the service spends on a hostile CI artifact (a load probe, not a test).

It reuses the conformance suite's fake GitHub and harness (`../shared/eval/accept.py`), so it runs
only where that folder is present; elsewhere it says so and exits 0.

    python3 benches/hostile_reports.py [--binary target/release/repro-gate] [--mib 100]

A `workflow_run` of the repository's main branch uploads one artifact: a JUnit report of `--mib`
MiB inflated (distinct failing test cases, each with a 4 KB failure text; deflated in the zip to
a few MiB), then one of twice that. For each size a fresh service reads the run into its history;
the probe prints the service's peak resident memory (VmHWM from /proc, before the delivery and at
the end) and the time from the delivery until the queue is empty, and the ratio of the two times
(linear reading doubles it).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

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


def peak_rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    m = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return int(m.group(1)) / 1024 if m else float("nan")


def jobs(svc, state: str) -> int:
    _, _, body = svc.get("/metrics", timeout=30)
    text = body.decode() if isinstance(body, bytes) else str(body)
    m = re.search(rf'^repro_gate_jobs{{state="{state}"}} (\d+)', text, re.M)
    return int(m.group(1)) if m else -1


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/repro-gate")
    ap.add_argument("--mib", type=int, default=100)
    args = ap.parse_args()
    if not (EVAL / "accept.py").is_file():
        print(f"skipped: {EVAL} is absent (this probe uses the conformance suite's fake GitHub)")
        return 0
    sys.path.insert(0, str(EVAL))
    import accept  # noqa: E402

    results: dict = {}
    sizes = [args.mib, 2 * args.mib]
    for mib in sizes:
        def probe(ctx, mib=mib):
            ctx.fresh_fake()
            cfg = 'history:\n  enabled: true\n  branches: [main]\n  artifacts: ["*junit*"]\n'
            repo = ctx.repo(files={".github/repro-gate.yml": cfg})
            report = hostile_junit(mib)
            run = ctx.fake.add_workflow_run(repo, ".github/workflows/ci.yml", name="CI", head_branch="main",
                                            head_sha=ctx.fake.branch_sha(repo, "main"), event="push",
                                            conclusion="failure", artifacts={"junit-results": {"report.xml": report}})
            svc = ctx.service()
            pid = svc.proc.pid
            ctx.settle()
            before = peak_rss_mib(pid)
            done_before = jobs(svc, "done")
            t0 = time.perf_counter()
            ctx.deliver("workflow_run", ctx.workflow_run_event("completed", repo, run["id"]))
            while True:
                if jobs(svc, "done") + max(jobs(svc, "dead"), 0) > done_before and jobs(svc, "queued") == 0 \
                        and jobs(svc, "running") == 0:
                    break
                if time.perf_counter() - t0 > 600:
                    raise accept.Failure("the run was not read within 600 s")
                time.sleep(0.05)
            results[mib] = (time.perf_counter() - t0, before, peak_rss_mib(pid), jobs(svc, "dead"))

        accept.scenario(f"hostile-report-{mib}", "probe")(probe)

    rc = accept.main(["--binary", args.binary, "--only", ",".join(f"hostile-report-{m}" for m in sizes),
                      "--rust-log", "info"])
    for mib in sizes:
        if mib not in results:
            print(f"{mib} MiB: no result")
            return 1
        took, before, peak, dead = results[mib]
        print(f"JUnit artifact of {mib} MiB inflated: read in {took:.1f} s; service peak RSS "
              f"{before:.1f} MiB before the delivery, {peak:.1f} MiB after" + (f"; {dead} job(s) dead" if dead else ""))
    a, b = results[sizes[0]][0], results[sizes[1]][0]
    print(f"time ratio {sizes[1]} MiB / {sizes[0]} MiB: {b / a:.2f} (linear: 2)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
