#!/usr/bin/env python3
"""Time to verdict: many PRs opened at once against a slow GitHub (a load probe, not a test).

It reuses the conformance suite's fake GitHub and harness (`../shared/eval/accept.py`), so it runs
only where that folder is present; elsewhere it says so and exits 0.

    python3 benches/time_to_verdict.py [--binary target/release/repro-gate] [--prs 200]
        [--latency-ms 50] [--fail-pct 0] [--postgres] [--replicas 2] [--mixed 10]

Every request the fake GitHub answers waits `--latency-ms` first (a real API's round trip);
`--fail-pct` of repository requests answer 502 instead. The PRs (each changing concurrency code,
with no evidence: a failing check) are delivered as fast as intake takes them; the probe prints,
from each delivery to the write of that PR's check run: p50, p99 and max, and the GitHub
requests made in all and per PR. `--postgres` runs `--replicas` services on one PostgreSQL
database (the deliveries alternate between them); else one service on SQLite.

`--mixed K`: after the burst of `--prs` PRs in one installation (A) is delivered, one PR in each of K
other installations (B, C, ...), each its own account and repository; the probe prints the time to
verdict of those K PRs (p50, p99) beside the burst's own, which is what fair queues are for
(docs/service.md#the-job-queue).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

EVAL = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/repro-gate")
    ap.add_argument("--prs", type=int, default=200)
    ap.add_argument("--latency-ms", type=float, default=50.0)
    ap.add_argument("--fail-pct", type=float, default=0.0)
    ap.add_argument("--postgres", action="store_true")
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--mixed", type=int, default=0)
    args = ap.parse_args()
    if not (EVAL / "accept.py").is_file():
        print(f"skipped: {EVAL} is absent (this probe uses the conformance suite's fake GitHub)")
        return 0
    sys.path.insert(0, str(EVAL))
    import accept  # noqa: E402
    import fake_github  # noqa: E402

    answer = fake_github.FakeGitHub._api

    def slow(self, req):
        if not req.path.startswith("/_control"):
            time.sleep(args.latency_ms / 1000.0)
        return answer(self, req)

    fake_github.FakeGitHub._api = slow
    result: dict = {}

    @accept.scenario("time-to-verdict", "probe")
    def probe(ctx):
        pg = None
        if args.postgres:
            pg = accept.Postgres(ctx)
            pg.start()
            url = pg.createdb("repro_gate")
        try:
            ctx.fresh_fake()
            repo = ctx.repo()
            if args.postgres:
                svcs = [ctx.service(db_url=url, label=f"replica-{i}") for i in range(args.replicas)]
            else:
                svcs = [ctx.service()]
            ctx.settle()
            prs = [ctx.pr(repo, n, accept.NO_EVIDENCE_BODY, accept.CONCURRENCY_FILES)
                   for n in range(1, args.prs + 1)]
            if args.fail_pct > 0:
                ctx.fake.set_faults({"rules": [{"probability": args.fail_pct / 100.0, "kinds": ["502"],
                                                "seed": 1, "sticky": False}]})
            seq = ctx.fake.log_seq()
            sent = {}
            for pr in prs:
                sent[pr["head_sha"]] = time.time()
                ctx.deliver("pull_request", ctx.pr_event("opened", repo, pr["number"]),
                            svc=svcs[pr["number"] % len(svcs)])
            others = []
            for k in range(args.mixed):
                iid, account = 40000 + k, f"tenant{k}"
                ctx.fake.add_installation(iid, account=account)
                other = f"{account}/app"
                ctx.fake.add_repo(other, installation_id=iid, default_branch="main", files={"main": {}},
                                  collaborators={"alice": "write"})
                opr = ctx.pr(other, 1, accept.NO_EVIDENCE_BODY, accept.CONCURRENCY_FILES)
                event = ctx.pr_event("opened", other, 1)
                event["installation"] = {"id": iid}
                event.pop("organization", None)
                others.append((other, opr["head_sha"], event))
            for other, sha, event in others:
                sent[sha] = time.time()
                ctx.deliver("pull_request", event, svc=svcs[0])
            for pr in prs:
                ctx.wait_gate(repo, pr["head_sha"], ("failure", "success"), timeout=600)
            for other, sha, _ in others:
                ctx.wait_gate(other, sha, ("failure", "success"), timeout=600)
            ctx.settle()
            log = [e for e in ctx.fake.requests() if e["seq"] > seq]
            written = {}
            for e in log:
                if e["method"] in ("POST", "PATCH") and "/check-runs" in e["path"] and e["status"] < 300:
                    sha = (e.get("body") or {}).get("head_sha")
                    if sha is None:
                        # A PATCH names its run, not its SHA.
                        continue
                    written.setdefault(sha, e["ts"])
            other_shas = {sha for _, sha, _ in others}
            result["ttv"] = sorted(written[s] - sent[s] for s in sent if s in written and s not in other_shas)
            result["others"] = sorted(written[s] - sent[s] for s in other_shas if s in written)
            result["requests"] = len([e for e in log if not e["path"].startswith("/_control")])
            result["faulted"] = len([e for e in log if e["status"] == 502])
        finally:
            if pg is not None:
                pg.stop()

    rc = accept.main(["--binary", args.binary, "--only", "time-to-verdict", "--rust-log", "info"])
    t = result.get("ttv") or []
    if not t:
        print("no verdict measured")
        return 1
    def pct(xs, q):
        return xs[min(len(xs) - 1, int(len(xs) * q))]

    p99 = pct(t, 0.99)
    where = f"PostgreSQL, {args.replicas} replicas" if args.postgres else "SQLite, 1 service"
    print(f"{args.prs} PRs opened at once, GitHub answering after {args.latency_ms:.0f} ms"
          f"{f', {args.fail_pct:g} % 502s' if args.fail_pct else ''} ({where}): "
          f"delivery to check-run write p50 {statistics.median(t):.2f} s, p99 {p99:.2f} s, max {t[-1]:.2f} s "
          f"({len(t)} of {args.prs} measured); {result['requests']} GitHub requests "
          f"({result['requests'] / args.prs:.1f} per PR, {result['faulted']} answered 502)")
    if args.mixed:
        o = result.get("others") or []
        if len(o) < args.mixed:
            print(f"only {len(o)} of the {args.mixed} other installations' PRs got a check")
            return 1
        print(f"{args.mixed} PRs of other installations, delivered after the burst: "
              f"p50 {statistics.median(o):.2f} s, p99 {pct(o, 0.99):.2f} s, max {o[-1]:.2f} s")
    return rc


if __name__ == "__main__":
    sys.exit(main())
