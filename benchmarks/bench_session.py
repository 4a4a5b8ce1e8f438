"""Benchmark: opening a large dataset, and annotation writes to a session.

    python benchmarks/bench_session.py [--cases 10000] [--writes 100000] [--runs 5]

1. A JSONL dataset of N cases (the sample cases repeated with new ids) is opened with
   ``load_input`` and its ids listed; median of ``--runs`` runs, beside a baseline measured in the
   same run: reading the file and ``json.loads`` of every line. Target: < 2 s for 10,000 cases.
2. A session is created from it (cases copied in), then ``--writes`` annotations are written one
   transaction each (``Session.put_annotation``: committed, WAL, synchronous=FULL). Reported:
   median / p95 / max per write, beside a baseline of a bare one-row INSERT per transaction with
   the same pragmas. Target: median < 10 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from citeview.core.inputs import load_input
from citeview.session.model import Annotation, AnnotationKey
from citeview.session.store import Session

SAMPLES = Path(__file__).resolve().parent.parent / "tests" / "data" / "samples"


def make_dataset(path: Path, n: int) -> None:
    lines = [json.loads(x) for x in
             (SAMPLES / "policies.dataset.jsonl").read_text(encoding="utf-8").splitlines() if x]
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            case = dict(lines[i % len(lines)])
            case["id"] = f"case-{i:06d}"
            fh.write(json.dumps(case, ensure_ascii=False) + "\n")


def median_time(fn: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_open(path: Path, runs: int) -> None:
    def baseline() -> None:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                json.loads(line)

    def open_and_list() -> None:
        ds = load_input(str(path))
        ids = ds.case_ids()
        ds.get(len(ids) - 1)

    base = median_time(baseline, runs)
    ours = median_time(open_and_list, runs)
    n = len(load_input(str(path)))
    size = path.stat().st_size / 1e6
    print(f"open+list {n} cases ({size:.1f} MB): median {ours * 1000:.0f} ms over {runs} runs "
          f"(target < 2000 ms) | baseline json.loads of every line {base * 1000:.0f} ms "
          f"| ratio {ours / base:.2f}")


def bench_writes(path: Path, tmp: Path, writes: int) -> None:
    start = time.perf_counter()
    session = Session.create(str(tmp / "bench.citeview"), load_input(str(path)), annotator="b")
    print(f"session created with {len(session)} cases copied in: "
          f"{(time.perf_counter() - start) * 1000:.0f} ms")
    ids = session.case_ids()
    raw = "\ue200cite\ue202turn0file0\ue202L1\ue201"
    per = max(1, -(-writes // len(ids)))
    times = []
    perf = time.perf_counter
    for i in range(writes):
        key = AnnotationKey(ids[i // per], i % per + 1, raw, "turn0file0")
        ann = Annotation(key, "b", "supported", f"note {i}", "2026-01-01T00:00:00.000Z")
        t = perf()
        session.put_annotation(ann)
        times.append(perf() - t)
    assert session.integrity_check() == "ok"
    session.close()

    conn = sqlite3.connect(str(tmp / "base.db"), isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, note TEXT)")
    base = []
    for i in range(min(writes, 20000)):
        t = perf()
        conn.execute("INSERT INTO t (note) VALUES (?)", (f"note {i}",))
        base.append(perf() - t)
    conn.close()
    times.sort()
    med = statistics.median(times) * 1000
    base_med = statistics.median(base) * 1000
    print(f"{writes} annotation writes, one transaction each: median {med:.3f} ms, "
          f"p95 {times[int(len(times) * 0.95)] * 1000:.3f} ms, max {times[-1] * 1000:.1f} ms, "
          f"total {sum(times):.1f} s (target median < 10 ms) | baseline bare INSERT median "
          f"{base_med:.3f} ms | ratio {med / base_med:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        path = tmp / "bench.jsonl"
        make_dataset(path, args.cases)
        print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, "
              f"{os.cpu_count()} cpus")
        bench_open(path, args.runs)
        bench_writes(path, tmp, args.writes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
