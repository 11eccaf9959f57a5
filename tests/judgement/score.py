#!/usr/bin/env python3
"""Scores a repro-gate binary on a labelled set of real diffs and descriptions, as a user would
run it: `classify --diff` on every case of `diffs/cases.yaml` (and `cases-extra.yaml`), and
`check-body --body [--diff]` on every case of `bodies/cases.yaml`. Prints accuracy, precision and
recall, per language too, and every miss. Any binary works, so a release of an older commit
scores the same cases ("before") as the current one ("after").

    python3 tests/judgement/score.py --binary target/release/repro-gate [--dir tests/judgement]
"""

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict

try:
    import yaml
except ImportError:  # pragma: no cover
    yaml = None


def load(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if yaml is not None:
        return (yaml.safe_load(text) or {}).get("cases", [])
    # The manifests' own simple shape, without PyYAML.
    cases, cur = [], None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("- file:"):
            cur = {"file": s.split(":", 1)[1].strip()}
            cases.append(cur)
        elif cur is not None and ":" in s and not s.startswith("#"):
            k, v = s.split(":", 1)
            v = v.split(" #", 1)[0].strip().strip('"')
            cur[k.strip()] = {"true": True, "false": False}.get(v, v)
    return cases


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        sys.exit(f"not JSON from {' '.join(cmd)} (exit {p.returncode}): {p.stderr[:400]}")


class Score:
    def __init__(self):
        self.tp = self.fp = self.tn = self.fn = 0
        self.misses = []

    def add(self, expect, got, right, line):
        if expect and got and right:
            self.tp += 1
        elif expect:
            self.fn += 1
        elif got:
            self.fp += 1
        else:
            self.tn += 1
        if not right:
            self.misses.append(line)

    def figures(self):
        n = self.tp + self.fp + self.tn + self.fn
        acc = (self.tp + self.tn) / n if n else 1.0
        prec = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        rec = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        return n, acc, prec, rec


def report(name, score, by_lang):
    n, acc, prec, rec = score.figures()
    print(f"{name}: {n} cases, accuracy {acc:.3f}, precision {prec:.3f}, recall {rec:.3f}")
    for lang in sorted(by_lang):
        ln, la, lp, lr = by_lang[lang].figures()
        print(f"  {lang:8} {ln:3} cases, accuracy {la:.3f}, precision {lp:.3f}, recall {lr:.3f}")
    for m in score.misses:
        print(f"  miss: {m}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()

    diffs = os.path.join(a.dir, "diffs")
    score, by_lang = Score(), defaultdict(Score)
    for manifest in ("cases.yaml", "cases-extra.yaml"):
        for c in load(os.path.join(diffs, manifest)):
            out = run([a.binary, "classify", "--diff", os.path.join(diffs, c["file"])])
            got = bool(out.get("concurrency"))
            expect = bool(c["expect"])
            line = f"{c['file']} (expect {expect}): {c.get('why', '')}"
            score.add(expect, got, got == expect, line)
            by_lang[c.get("lang", "?")].add(expect, got, got == expect, line)
    report("diffs", score, by_lang)

    bodies = os.path.join(a.dir, "bodies")
    score, by_lang = Score(), defaultdict(Score)
    # A forcing test that comes with its diff is decided by running it (docs/verification.md),
    # not by its words: scored apart, right when the words hold it or check-body names test files
    # (or Rust sources) of the diff that the App's find round runs.
    forcing = Score()
    for c in load(os.path.join(bodies, "cases.yaml")):
        cmd = [a.binary, "check-body", "--body", os.path.join(bodies, c["file"])]
        if c.get("diff"):
            cmd += ["--diff", os.path.join(bodies, c["diff"])]
        out = run(cmd)
        got = bool(out.get("satisfied"))
        expect = bool(c["expect"])
        kinds = {e.get("kind") for e in out.get("evidence", [])}
        right = got == expect and (not expect or not c.get("kind") or c["kind"] in kinds)
        line = f"{c['file']} (expect {expect}/{c.get('kind', '-')}): {c.get('why', '')}"
        if expect and c.get("kind") == "interleaving" and c.get("diff"):
            rd = out.get("runs_decide") or {}
            handed = bool(rd.get("test_files") or rd.get("sources"))
            forcing.add(True, right or handed, right or handed, line)
            continue
        score.add(expect, got, right, line)
        by_lang[c.get("lang", "?")].add(expect, got, right, line)
    report("descriptions (the words decide)", score, by_lang)
    n, acc, _, _ = forcing.figures()
    print(f"forcing tests with their diff (the runs decide): {n} cases, "
          f"{forcing.tp} held by the words or handed to the find round")
    for m in forcing.misses:
        print(f"  not run: {m}")


if __name__ == "__main__":
    main()
