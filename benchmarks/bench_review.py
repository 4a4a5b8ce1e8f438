"""Benchmark: export (csv, jsonl) and report (json, html) of a large review session.

Builds a session of 10,000 cases with 10 citations each and one verdict per citation (100,000
annotations), and a baseline session of 1,000 cases (10,000 annotations) the same way. Each
command runs in a child process (``citeview export|report``); wall time and the child's maximum
resident set size (``os.wait4`` rusage) are taken, median of ``--runs`` runs. Bounded memory
shows as a peak RSS of the large session close to the baseline's, while time grows ~10x.

    python benchmarks/bench_review.py [--cases 10000] [--baseline 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# citeview is imported in the children only: a child's peak RSS counts the memory of the
# parent it was forked from (Linux keeps it across exec), so the parent must stay small.

S, D, E = "\ue200", "\ue202", "\ue201"
_TEXT = ("employees may work remotely three days week manager approval portal requests respond "
         "business travel receipts hotel economy class flights reimbursed finance department "
         "notice contract renewal pricing addendum written policy appendix exception")
WORDS = _TEXT.split()
LABELS = ("supported", "partially supported", "unsupported", "cannot tell")


def make_case(i: int, n: int = 10) -> Any:
    """A case whose answer cites each of ``n`` sentences to one line of a labelled source."""
    rnd = random.Random(i)

    def sentence(k: int) -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(k)).capitalize() + "."
    lines = [sentence(12) for _ in range(n + 2)]
    material = (f"Citation Marker: {S}cite{D}turn0file0{E}\nTitle: Document {i}\n"
                f"URL: https://example.com/{i}\n\n"
                + "\n".join(f"[L{k + 1}] {line}" for k, line in enumerate(lines)))
    cited = [f"{sentence(9)}{S}cite{D}turn0file0{D}L{k + 1}{E}" for k in range(n)]
    answer = " ".join(cited[: n // 2]) + "\n\n" + " ".join(cited[n // 2 :]) + "\n"
    from citeview.core.cases import Case

    return Case(f"case-{i:05d}", answer, f"Question {i}?", [material])


def build(path: str, n_cases: int) -> int:
    from citeview.session.interchange import annotation_json, import_document
    from citeview.session.model import Annotation, AnnotationKey, case_citations

    cases = [make_case(i) for i in range(n_cases)]
    anns = []
    for c in cases:
        for slot in case_citations(c):
            key = AnnotationKey(c.id, slot.number, slot.raw, slot.source_ids[0])
            anns.append(annotation_json(Annotation(
                key, "bench", LABELS[(slot.number + len(c.id)) % 4], "",
                "2026-01-01T00:00:00.000Z", slot.claim)))
    doc = {"format": "citeview-session", "version": 1, "meta": {"name": Path(path).stem},
           "cases": [c.to_dict() for c in cases], "reviews": [], "annotations": anns}
    import_document(doc, path).close()
    return len(anns)


def run_child(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``citeview ARGS`` in a child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "citeview", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"citeview {' '.join(args)} failed: {err}")
    if proc.stderr:
        proc.stderr.close()
    rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return elapsed, rss


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--baseline", type=int, default=1_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build", nargs=2, metavar=("PATH", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.build:
        print(build(args.build[0], int(args.build[1])))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        sessions = {}
        for n in (args.baseline, args.cases):
            path = os.path.join(tmp, f"s{n}.citeview")
            t0 = time.perf_counter()
            n_ann = int(subprocess.run([sys.executable, __file__, "--build", path, str(n)],
                                       check=True, capture_output=True, text=True).stdout)
            print(f"built {n} cases, {n_ann} annotations in {time.perf_counter() - t0:.1f} s")
            sessions[n] = path
        ops = {
            "export csv": ["export", "{s}", "--format", "csv", "-o", "{o}"],
            "export jsonl": ["export", "{s}", "--format", "jsonl", "-o", "{o}"],
            "report json": ["report", "{s}", "--format", "json", "-o", "{o}"],
            "report html": ["report", "{s}", "--format", "html", "-o", "{o}"],
        }
        idle = [run_child(["export", sessions[args.baseline], "--format", "json", "-o",
                           os.path.join(tmp, "whole.json")]) for _ in range(3)]
        print(f"for scale, export --format json of {args.baseline} cases: "
              f"{statistics.median(t for t, _ in idle):.2f} s, "
              f"{statistics.median(r for _, r in idle):.0f} MB")
        print(f"workers: {min(4, os.cpu_count() or 1)} for sessions of 2,000 cases or more")
        print(f"{'command':<14}{'cases':>7}{'median s':>10}{'ms/case':>9}{'max RSS MB':>12}")
        for name, template in ops.items():
            results = {}
            for n, path in sessions.items():
                out = os.path.join(tmp, "out")
                argv = [a.format(s=path, o=out) for a in template]
                runs = [run_child(argv) for _ in range(args.runs)]
                t = statistics.median(r[0] for r in runs)
                rss = max(r[1] for r in runs)
                results[n] = (t, rss)
                print(f"{name:<14}{n:>7}{t:>10.2f}{1000 * t / n:>9.2f}{rss:>12.0f}")
            (tb, rb), (tl, rl) = results[args.baseline], results[args.cases]
            print(f"{'':<14}ratio {args.cases // args.baseline}x cases: time x{tl / tb:.1f}, "
                  f"peak RSS x{rl / rb:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
