#!/usr/bin/env python3
"""Real concurrency fixes through `repro-gate verify-local`, as a user runs it.

Each case of `../shared/fixtures/real-fixes/cases.yaml` and of the project's own
`tests/real-fixes/*.yaml` (a public repository, the fix's commit, its merge base, the test, the
verdict a reviewer expects) is checked out fresh from a local
clone, HEAD at the fix and a branch at the base, and `verify-local --test T --base <base>` runs
with the product's own runner (the case's `config:` becomes the `--config` file). It prints one
row per case: id, expected, got, time, and the reason the verdict gives.

`--no-claim` runs `verify-local` without `--test`, as an agent that only wrote the test does:
once per fix (cases sharing repository, fix and base are one fix), expecting the reproduction to
be found among the tests the fix adds or changes. The expected test is that of the fix's case
expecting `verified`; a fix with none (a new API whose tests cannot build on the base) expects
its case's own verdict (`could not run`).

`--cost` is the verdict-cost benchmark (docs/verification.md#a-verdicts-cost): the cases whose
merge base hangs, with their claim, at `--runs` (the product's default is 20) and `--timeout`
(300, the product's default `rerun.run_timeout_seconds`, unless the case sets one). Its table
has each side's build and runs' wall time from the JSON (`build_seconds`, `run_seconds`), the
base against the bound the design aims at (twice the head plus one 30 s floor), counted on the
runs alone and on whole sides, and the whole verdict's wall time. A binary whose JSON has
neither (before they were reported) shows the verdict's wall time only.

    python3 benches/real_fixes.py --binary target/release/repro-gate --mirror /work/.mirror --cost --runs 20 --timeout 300

Clones: `--mirror DIR` holds `owner+name/repo` (the search tool's fetch) or `owner/name` git
directories. A case whose clone is absent is skipped with a message; so is a runner whose tool
is missing (pytest, go). Exit 0 when every case that ran got its expected verdict.

    cargo build --release
    python3 benches/real_fixes.py --binary target/release/repro-gate --mirror /work/.mirror --runs 3
    python3 benches/real_fixes.py --binary target/release/repro-gate --mirror /work/.mirror --runs 3 --no-claim
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import yaml


def clone_of(mirror, repo):
    owner, name = repo.split("/", 1)
    for cand in (
        os.path.join(mirror, f"{owner}+{name}", "repo"),
        os.path.join(mirror, owner, name),
        os.path.join(mirror, f"{owner}+{name}"),
    ):
        if os.path.isdir(cand):
            return cand
    return None


def have(tool):
    return shutil.which(tool) is not None


def runner_ready(runner):
    if runner == "pytest":
        ok = subprocess.run(
            [sys.executable, "-c", "import pytest"], capture_output=True
        ).returncode == 0
        return ok, "pytest is not installed"
    if runner == "go":
        return have("go"), "go is not installed"
    if runner in ("cargo", "nextest"):
        return have("cargo"), "cargo is not installed"
    return True, ""


def run_case(case, args):
    clone = clone_of(args.mirror, case["repo"])
    if clone is None:
        return None, f"no clone of {case['repo']} under {args.mirror}"
    ok, why = runner_ready(case.get("runner", "auto"))
    if not ok:
        return None, why
    work = tempfile.mkdtemp(prefix=f"real-fix-{case['id']}-")
    try:
        checkout = os.path.join(work, "repo")
        git = lambda *a, **kw: subprocess.run(
            ["git", *a], check=True, capture_output=True, text=True, **kw
        )
        git("clone", "-q", "--no-checkout", clone, checkout)
        git("-C", checkout, "checkout", "-q", case["fix"])
        git("-C", checkout, "branch", "-f", "repro-base", case["base"])
        cmd = [args.binary, "verify-local"]
        if not args.no_claim:
            cmd += ["--test", case["test"]]
        cmd += [
            "--base",
            "repro-base",
            "--runs",
            str(max(case.get("runs", 0), args.runs)),
            "--runner",
            case.get("runner", "auto"),
            "--timeout",
            str(case.get("timeout", args.timeout)),
        ]
        if case.get("config"):
            cfg = os.path.join(work, "repro-gate.yml")
            with open(cfg, "w") as f:
                yaml.safe_dump(case["config"], f)
            cmd += ["--config", cfg]
        start = time.monotonic()
        p = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True)
        took = time.monotonic() - start
        try:
            out = json.loads(p.stdout.strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError):
            return {
                "got": f"no JSON (exit {p.returncode})",
                "found": "",
                "time": took,
                "why": p.stderr.strip().splitlines()[-1:] or [""],
            }, None
        head, base = out.get("head") or {}, out.get("base") or {}
        return {
            "got": out.get("verdict", "?"),
            "found": out.get("test") or "",
            "time": took,
            "why": out.get("reason") or out.get("error") or "",
            "head_s": head.get("run_seconds"),
            "base_s": base.get("run_seconds"),
            "head_build_s": head.get("build_seconds"),
            "base_build_s": base.get("build_seconds"),
            "runs": (head.get("runs"), base.get("runs")),
            "limits": " then ".join(
                x for x in (base.get("limit"), base.get("after_hang_limit")) if x
            ),
            "how": base.get("how") or "",
        }, None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def one_per_fix(cases):
    """One case per (repository, fix, base): the one expecting `verified` when there is one."""
    fixes = {}
    for c in cases:
        key = (c["repo"], c["fix"], c["base"])
        kept = fixes.get(key)
        if kept is None or (c["expected"] == "verified" and kept["expected"] != "verified"):
            fixes[key] = c
    return list(fixes.values())


def same_test(found, expected):
    """The found id names the expected test (runners spell ids differently: `bounded::x`,
    `tests/bounded.rs::x`, `x`): the last `::`-separated part agrees."""
    last = lambda t: t.replace("/", "::").split("::")[-1]
    return bool(found) and last(found) == last(expected)


def cost(cases, args):
    """The verdict-cost table: each hung-base case's verdict, both sides' build and run times,
    and the base against the bound, counted two ways: runs only (2x the head's runs + 30 s)
    and whole sides (2x the head's build and runs + 30 s)."""
    floor = 30.0
    print(
        "| case | runs | verdict | head: build + runs | base: build + runs "
        "| base runs vs 2x head runs + 30 s | base side vs 2x head side + 30 s | base limits | verdict's wall time |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    wrong = 0
    fmt = lambda x: "-" if x is None else f"{x:.1f} s"

    def against(got, bound):
        if got is None or bound is None:
            return "-"
        return f"{got:.1f} s of {bound:.1f} s ({'within' if got <= bound else 'OVER'})"

    for case in cases:
        if args.only and case["id"] not in args.only.split(","):
            continue
        r, skipped = run_case(case, args)
        if skipped:
            print(f"skipped {case['id']}: {skipped}", file=sys.stderr)
            continue
        wrong += r["got"] != case["expected"]
        h, b = r.get("head_s"), r.get("base_s")
        hb, bb = r.get("head_build_s"), r.get("base_build_s")
        runs_bound = None if h is None else 2 * h + floor
        side = lambda x, y: None if x is None or y is None else x + y
        side_bound = None if side(h, hb) is None else 2 * side(h, hb) + floor
        runs = "/".join("-" if x is None else str(x) for x in r.get("runs", (None, None)))
        print(
            f"| {case['id']} | {runs} | {r['got']} | {fmt(hb)} + {fmt(h)} | {fmt(bb)} + {fmt(b)} "
            f"| {against(b, runs_bound)} | {against(side(b, bb), side_bound)} "
            f"| {r.get('limits') or '-'} | {r['time']:.0f} s |",
            flush=True,
        )
    return 1 if wrong else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(here, "..", "target", "release", "repro-gate"))
    ap.add_argument("--mirror", default=os.path.join(here, "..", "..", ".mirror"))
    ap.add_argument(
        "--cases",
        action="append",
        help="a cases file (repeatable); default: the shared cases and tests/real-fixes/*.yaml",
    )
    ap.add_argument("--runs", type=int, default=3, help="runs per side (default 3; a case's own runs: is a floor)")
    ap.add_argument("--timeout", type=int, default=None, help="one run's time limit, seconds (default 60; 300 with --cost)")
    ap.add_argument("--only", default="", help="comma-separated case ids")
    ap.add_argument(
        "--no-claim",
        action="store_true",
        help="no --test: the reproduction is found among the fix's own tests (one row per fix)",
    )
    ap.add_argument(
        "--cost",
        action="store_true",
        help="the verdict-cost benchmark: the cases whose base hangs, each side's run time and the bound",
    )
    args = ap.parse_args()
    if args.timeout is None:
        args.timeout = 300 if args.cost else 60
    files = args.cases or [
        os.path.join(here, "..", "..", "shared", "fixtures", "real-fixes", "cases.yaml"),
        *sorted(glob.glob(os.path.join(here, "..", "tests", "real-fixes", "*.yaml"))),
    ]
    cases = []
    for path in files:
        if not os.path.exists(path):
            print(f"skipped {path}: it is absent", file=sys.stderr)
            continue
        with open(path) as f:
            cases += yaml.safe_load(f)["cases"]
    if args.no_claim:
        cases = one_per_fix(cases)
    if args.cost:
        cases = [c for c in cases if c.get("base_behaviour") == "hangs"]
        return cost(cases, args)
    only = {c for c in args.only.split(",") if c}
    rows, wrong = [], 0
    for case in cases:
        if only and case["id"] not in only:
            continue
        result, skipped = run_case(case, args)
        if skipped:
            print(f"skipped {case['id']}: {skipped}", file=sys.stderr)
            continue
        right = result["got"] == case["expected"]
        if args.no_claim and case["expected"] == "verified":
            right = right and same_test(result["found"], case["test"])
        wrong += not right
        why = result["why"] if isinstance(result["why"], str) else " ".join(result["why"])
        rows.append((case["id"], case["expected"], result["got"], result["time"], right, why, result["found"]))
        print(
            f"{'ok  ' if right else 'MISS'} {case['id']}: expected {case['expected']!r}, "
            f"got {result['got']!r} ({result['found'] or 'no test'}) in {result['time']:.0f} s  {why[:160]}",
            file=sys.stderr,
            flush=True,
        )
    if args.no_claim:
        print("| fix | expected | found test | got | time |")
        print("|---|---|---|---|---|")
    else:
        print("| case | expected | got | time |")
        print("|---|---|---|---|")
    for cid, exp, got, took, right, _, found in rows:
        mark = "" if right else " (MISS)"
        if args.no_claim:
            print(f"| {cid} | {exp} | {found or '-'} | {got}{mark} | {took:.0f} s |")
        else:
            print(f"| {cid} | {exp} | {got}{mark} | {took:.0f} s |")
    print(f"{len(rows) - wrong} of {len(rows)} as expected")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
