#!/usr/bin/env python3
"""/healthz latency while the service judges hostile pull requests (a load probe, not a test).

It reuses the conformance suite's fake GitHub and harness (`../shared/eval/accept.py`), so it runs
only where that folder is present; elsewhere it says so and exits 0.

    python3 benches/healthz_under_hostile_prs.py [--binary target/release/repro-gate] [--kib 64] [--prs 4]

Four PRs (by default) that touch concurrency code arrive at once, each with a description of
alternating `seed: N` / test-name lines (the shape that was super-linear before, 64 KiB by default:
GitHub's maximum), and each is re-checked five times with `/repro recheck`. While the service works,
/healthz is asked every 20 ms; the probe prints how long that took (p50, p99, max) and how long the
service took to finish every check run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

EVAL = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"


def hostile_body(kib: int) -> str:
    lines, size, i = [], 0, 0
    while size < kib * 1024:
        line = f"seed: {1000 + i}\n" if i % 2 == 0 else f"TestPoolCheckout{i}\n"
        lines.append(line)
        size += len(line)
        i += 1
    return "".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/repro-gate")
    ap.add_argument("--kib", type=int, default=64)
    ap.add_argument("--prs", type=int, default=4)
    ap.add_argument("--rechecks", type=int, default=5)
    args = ap.parse_args()
    if not (EVAL / "accept.py").is_file():
        print(f"skipped: {EVAL} is absent (this probe uses the conformance suite's fake GitHub)")
        return 0
    sys.path.insert(0, str(EVAL))
    import accept  # noqa: E402

    body = hostile_body(args.kib)
    result: dict = {}

    @accept.scenario("healthz-hostile", "probe")
    def probe(ctx):
        ctx.fresh_fake()
        repo = ctx.repo()
        prs = [ctx.pr(repo, n, body, accept.CONCURRENCY_FILES) for n in range(1, args.prs + 1)]
        svc = ctx.service()
        samples: list[float] = []
        stop = threading.Event()

        def ask():
            while not stop.is_set():
                t0 = time.perf_counter()
                st, _, _ = svc.get("/healthz", timeout=30)
                samples.append(time.perf_counter() - t0)
                if st != 200:
                    result["bad"] = st
                time.sleep(0.02)

        th = threading.Thread(target=ask, daemon=True)
        t0 = time.perf_counter()
        th.start()
        for n in range(1, args.prs + 1):
            ctx.deliver("pull_request", ctx.pr_event("opened", repo, n))
        for _ in range(args.rechecks):
            for n in range(1, args.prs + 1):
                c = ctx.fake.add_comment(repo, n, "alice", "/repro recheck")
                ctx.deliver("issue_comment", ctx.comment_event("created", repo, n, c))
        for pr in prs:
            ctx.wait_gate(repo, pr["head_sha"], ("failure", "success"), timeout=300)
        ctx.settle()
        result["elapsed"] = time.perf_counter() - t0
        stop.set()
        th.join()
        result["samples"] = samples

    rc = accept.main(["--binary", args.binary, "--only", "healthz-hostile", "--rust-log", "info"])
    s = sorted(result.get("samples") or [])
    if not s:
        print("no sample taken")
        return 1
    p99 = s[min(len(s) - 1, int(len(s) * 0.99))]
    print(f"{args.prs} PRs x {args.kib} KiB hostile bodies, {args.rechecks} rechecks each: "
          f"all check runs done and GitHub quiet for 2 s after {result['elapsed']:.1f} s; /healthz over {len(s)} asks: "
          f"p50 {statistics.median(s) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max {s[-1] * 1000:.1f} ms"
          + (f"; a non-200 answer: {result['bad']}" if "bad" in result else ""))
    return rc


if __name__ == "__main__":
    sys.exit(main())
