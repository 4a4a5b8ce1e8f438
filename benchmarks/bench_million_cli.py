"""Benchmark: ``export``, ``report`` and ``agree`` of a million-case session (issue 26), beside
the baseline the issue names, measured in the same run.

    python benchmarks/bench_million_cli.py [--cases 1000000] [--jobs N] [--dir /tmp]

The dataset is ``benchmarks/million_data.py``'s (made once in ``--dir``, never in the
repository); session A is made from it, and verdicts are put on the citations of one case in
500 (B: a copy of A with other verdicts on some of them, for ``agree``). Each command runs in
a fresh child process (``citeview.cli.main`` in it, its pool workers its children). Reported per
command: wall time, CPU time (the child's and its workers', user + system), the peak RSS
(``ru_maxrss``) of the main process and of the largest worker, and the ratio to the baseline:

- baseline: reading every line of the dataset with ``json.loads`` and writing it back with
  ``json.dumps`` in one process (wall and CPU);
- ``citeview export A --format jsonl`` (target: <= 3x the baseline), then ``report --format
  json`` and ``agree A B --format json``.

Export reads the rows a session stores for each case. Both figures are printed: the export of A
with no rows stored (every case analysed, as the first export of a new session is; an export
stores nothing), then the background pass the window
runs once a session is made (:func:`citeview.session.prefill.prefill`: each case's export rows
and item counts in one analysis, a process per CPU; ``background pass``: its wall and CPU
time), then
the export that reads what it stored.

The machine may be shared: the wall ratio is the target's, the CPU ratio says what the code
itself costs. Each measured command's input files are read once just before it (into the page
cache), the baseline's too, so that disk reads decide neither side.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
BIG = {"CITEVIEW_MAX_INPUT": "64G"}  # the session is made from a file past the default limit


def _usage() -> dict[str, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
            "rss_mb": me.ru_maxrss / 1024, "worker_rss_mb": kids.ru_maxrss / 1024}


def child(argv: list[str]) -> None:
    """Run ``argv`` in this process (a citeview command, or ``baseline DATA OUT``) and print
    its figures as one JSON line."""
    start = time.perf_counter()
    if argv[0] == "baseline":
        with open(argv[1], encoding="utf-8") as src, open(argv[2], "w", encoding="utf-8") as out:
            for line in src:
                out.write(json.dumps(json.loads(line), ensure_ascii=False) + "\n")
        rc = 0
    else:
        from citeview.cli import main

        rc = main(argv)
    print(json.dumps({"rc": rc, "wall": time.perf_counter() - start, **_usage()}))


def measure(argv: list[str]) -> dict[str, Any]:
    got = subprocess.run([sys.executable, __file__, "--child", *argv], check=True,
                         capture_output=True, text=True, env={**os.environ, **BIG})
    figures: dict[str, Any] = json.loads(got.stdout.strip().splitlines()[-1])
    if figures["rc"] != 0:
        raise SystemExit(f"{argv}: exit {figures['rc']}: {got.stderr.strip()}")
    return figures


def make_sessions(data: Path, a: Path, b: Path, n: int) -> None:
    """A from ``data``; verdicts on the citations of every 500th case, B a copy of A with the
    verdicts of every other one of those cases changed."""
    script = f"""
import shutil
from citeview.core.inputs import load_input
from citeview.session import Annotation, Session, case_citations
from citeview.session.protocol import RowChange
LABELS = ("supported", "partially supported", "unsupported", "cannot tell")
def judge(path, who, shift):
    with Session.open(path, annotator=who) as s:
        changes = []
        for k, cid in enumerate(s.case_ids()[::500]):
            for slot in case_citations(s.get_case(cid)):
                for key in slot.keys(cid):
                    v = LABELS[(k + slot.number + (shift if k % 2 else 0)) % 4]
                    ann = Annotation(key, who, v, "", "2026-12-02T00:00:00.000Z", slot.claim)
                    changes.append(RowChange("annotation", cid, who, key, False, ann))
        s.apply(changes)
import os
if not os.path.exists({str(a)!r}):
    Session.create_file({str(a)!r}, load_input({str(data)!r}))
shutil.copyfile({str(a)!r}, {str(b)!r})
judge({str(a)!r}, "ana", 0)
judge({str(b)!r}, "bo", 1)
"""
    subprocess.run([sys.executable, "-c", script], check=True, env={**os.environ, **BIG})


def warm(*paths: Path) -> None:
    """Read ``paths`` once (into the page cache) before a measured command, so that neither side
    of a ratio pays for disk reads the other did not (this machine's memory reclaim evicts
    files that were read a minute before: a baseline once took 39.8 s of wall time for 23.2 s
    of CPU)."""
    for path in paths:
        with open(path, "rb") as fh:
            while fh.read(1 << 23):
                pass


def clear(a: Path) -> None:
    """Forget every stored row and item count of A (a session as it is once made)."""
    import sqlite3

    conn = sqlite3.connect(a)
    with conn:
        conn.execute("DELETE FROM case_rows")
        conn.execute("DELETE FROM case_stats")
    conn.close()


def fill(a: Path) -> dict[str, Any]:
    """The background pass over A (what the window runs once a session is made) in a child
    process; its figures."""
    script = f"""
import json, resource, time
from citeview.session.prefill import prefill
t0 = time.perf_counter()
n = prefill({str(a)!r}, jobs=None)
me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
print(json.dumps({{"stored": n, "wall": time.perf_counter() - t0,
                  "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime}}))
"""
    got = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                         text=True, env={**os.environ, **BIG})
    figures: dict[str, Any] = json.loads(got.stdout.strip().splitlines()[-1])
    return figures


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, default=None,
                        help="--jobs of export and report (default: theirs)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp"),
                        help="where the dataset, the sessions and the outputs go")
    parser.add_argument("--skip", nargs="*", default=[], choices=["report", "agree"])
    parser.add_argument("--first", action="store_true",
                        help="(kept for old command lines: the export before any row is "
                             "stored is always measured)")
    args = parser.parse_args()
    from million_data import write_dataset

    n = args.cases
    data = args.dir / f"citeview-million-{n}.jsonl"
    a, b = (args.dir / f"citeview-million-{n}.{x}.citeview" for x in "ab")
    args.dir.mkdir(parents=True, exist_ok=True)
    if not data.exists():
        write_dataset(data, n)
    if not b.exists():  # (an A without B: made, not yet judged)
        start = time.perf_counter()
        make_sessions(data, a, b, n)
        print(f"sessions made ({n} cases): {time.perf_counter() - start:.0f} s", flush=True)
    jobs = [] if args.jobs is None else ["--jobs", str(args.jobs)]
    out = args.dir / f"citeview-million-{n}.out"
    warm(data)
    base = measure(["baseline", str(data), str(out)])
    print(f"baseline json.loads + json.dumps of {n} cases: wall {base['wall']:.1f} s, "
          f"CPU {base['cpu']:.1f} s, peak RSS {base['rss_mb']:.0f} MB", flush=True)
    export = ["export", str(a), "--format", "jsonl", *jobs, "-o", str(out)]
    runs: list[tuple[str, list[str], float | None]] = [
        ("clear", [], None), ("export --format jsonl, no rows stored", export, 3.0),
        ("clear", [], None), ("fill", [], None),
        ("export --format jsonl, after the background pass", export, 3.0)]
    if "report" not in args.skip:
        runs.append(("report --format json", ["report", str(a), "--format", "json", *jobs,
                                              "-o", str(out)], None))
    if "agree" not in args.skip:
        runs.append(("agree --format json", ["agree", str(a), str(b), "--format", "json",
                                             "-o", str(out)], None))
    for name, argv, target in runs:
        if name == "clear":
            clear(a)
            continue
        if name == "fill":
            got = fill(a)
            print(f"background pass (rows and counts of {got['stored']} cases, a process per "
                  f"CPU, as the window runs it once a session is made): wall {got['wall']:.1f} s "
                  f"({got['wall'] / base['wall']:.1f}x baseline), CPU {got['cpu']:.1f} s "
                  f"({got['cpu'] / base['cpu']:.1f}x)", flush=True)
            continue
        if name.startswith("agree"):
            warm(a, b)
        else:
            warm(a)
        got = measure(argv)
        wall, cpu = got["wall"] / base["wall"], got["cpu"] / base["cpu"]
        verdict = "" if target is None else (
            f" | target <= {target:g}x: {'met' if wall <= target else 'NOT met'}")
        print(f"{name} ({n} cases{', --jobs ' + str(args.jobs) if jobs else ''}): "
              f"wall {got['wall']:.1f} s ({wall:.1f}x baseline), CPU {got['cpu']:.1f} s "
              f"({cpu:.1f}x), peak RSS {got['rss_mb']:.0f} MB, largest worker "
              f"{got['worker_rss_mb']:.0f} MB{verdict}", flush=True)
    out.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
