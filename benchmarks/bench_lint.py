"""Benchmark `citeview lint` on generated JSONL datasets: flat memory, and speed-up with --jobs.

Run: python benchmarks/bench_lint.py [--cases 10000] [--small 100] [--runs 5]

1. Memory: peak RSS of a `citeview lint` child process on a SMALL-case file and on a
   CASES-case file (same kind of cases). The linter streams its input, so the two peaks should
   be about the same (ratio near 1.0). Each peak is the ``ru_maxrss`` of
   ``resource.getrusage(RUSAGE_CHILDREN)`` measured in a fresh wrapper process, so the peaks of
   earlier runs do not carry over.
2. Speed: wall time of `citeview lint --jobs 1` and `--jobs 2` on the CASES-case file, median
   of RUNS runs each; --jobs 2 should be faster. That needs two free cores: as a baseline
   measured in the same runs (interleaved), a pure-CPU task is timed in one process and split
   over two, which shows how much parallel headroom the machine had meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
S, D, E = "\ue200", "\ue202", "\ue201"
_WRAPPER = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def M(*parts: str) -> str:
    return S + "cite" + "".join(D + p for p in parts) + E


def make_case(i: int) -> dict[str, object]:
    """A realistic case: a tool output with two line-level sources, a Markdown answer of a few
    paragraphs; every third case breaks some rules."""
    lines0 = "\n".join(f"[L{n}] Policy sentence {n} of case {i} about remote work and travel."
                       for n in range(1, 13))
    lines1 = "\n".join(f"[L{n}] Expense rule {n} for case {i}: receipts, hotels and flights."
                       for n in range(1, 9))
    tool = (f"Citation Marker: {M('turn0file0')}\nTitle: Handbook {i}\nURL: https://x.example/{i}"
            f"\n\n{lines0}\n\nCitation Marker: {M('turn0file1')}\nTitle: Expenses\n\n{lines1}\n")
    paras = [
        f"## Summary {i}",
        f"Employees may work remotely up to three days per week.{M('turn0file0', 'L1-L2')}",
        f"- Receipts are due within thirty days.{M('turn0file1', 'L4')}\n"
        f"- Hotels follow the city rate.{M('turn0file1', 'L3')}",
        f"Managers respond within five business days, and exceptions need approval in writing."
        f"{M('turn0file0', 'L5')}{M('turn0file1', 'L5')}",
    ]
    if i % 3 == 0:
        paras += [
            f"**Late receipts need approval {M('turn0file1', 'L9')}**",
            f"```\nflight >= 6h -> business{M('turn0file1', 'L2')}\n```{M('turn0file3')}",
            f"See turn0file1 for details{M('turn0file0', 'L7-L3')}.",
        ]
    return {"id": f"case-{i}", "question": "Summarize the rules.", "tool_outputs": [tool],
            "answer": "\n\n".join(paras) + "\n"}


def write_dataset(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps(make_case(i)) + "\n")


def lint_cmd(path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "citeview", "lint", str(path), "--no-config", *extra]


def peak_rss_kib(cmd: list[str]) -> int:
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *cmd], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    return int(out.stdout.strip())


def wall_time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                          check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"lint failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    return elapsed


_BURN = "s = 0\nfor i in range({n}): s += i * i\n"


def burn_time(parallel: bool, n: int = 6_000_000) -> float:
    """Wall time of two units of pure-CPU work, in one process or in two at once."""
    t0 = time.perf_counter()
    if parallel:
        procs = [subprocess.Popen([sys.executable, "-c", _BURN.format(n=n)]) for _ in range(2)]
        for p in procs:
            p.wait()
    else:
        subprocess.run([sys.executable, "-c", _BURN.format(n=2 * n)], check=True)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--small", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small, big = Path(tmp) / "small.jsonl", Path(tmp) / "big.jsonl"
        write_dataset(small, args.small)
        write_dataset(big, args.cases)
        mb = os.path.getsize(big) / 1e6
        print(f"datasets: {args.small} cases ({os.path.getsize(small) / 1e6:.2f} MB), "
              f"{args.cases} cases ({mb:.1f} MB); cpus: {os.cpu_count()}")

        rss_small = [peak_rss_kib(lint_cmd(small)) for _ in range(3)]
        rss_big = [peak_rss_kib(lint_cmd(big)) for _ in range(3)]
        rs, rb = statistics.median(rss_small), statistics.median(rss_big)
        print(f"peak RSS, --jobs 1, median of 3: {args.small} cases {rs / 1024:.1f} MiB, "
              f"{args.cases} cases {rb / 1024:.1f} MiB, ratio {rb / rs:.2f}")
        for fmt in ("json", "sarif"):
            r = peak_rss_kib(lint_cmd(big, "--format", fmt))
            print(f"peak RSS, --format {fmt}, {args.cases} cases: {r / 1024:.1f} MiB")
        rss_j2 = peak_rss_kib(lint_cmd(big, "--jobs", "2"))
        print(f"peak RSS, --jobs 2 (largest process), {args.cases} cases: "
              f"{rss_j2 / 1024:.1f} MiB")

        times: dict[int, list[float]] = {1: [], 2: []}
        burns: dict[bool, list[float]] = {False: [], True: []}
        load_before = os.getloadavg()[0]
        for _ in range(args.runs):  # interleaved, so load changes hit all alike
            for jobs in (1, 2):
                times[jobs].append(wall_time(lint_cmd(big, "--jobs", str(jobs))))
            for parallel in (False, True):
                burns[parallel].append(burn_time(parallel))
        t1, t2 = statistics.median(times[1]), statistics.median(times[2])
        b1, b2 = statistics.median(burns[False]), statistics.median(burns[True])
        print(f"load average before the timed runs: {load_before:.2f}, after: "
              f"{os.getloadavg()[0]:.2f} (on {os.cpu_count()} cpus)")
        print(f"baseline, pure-CPU work in 1 vs 2 processes, median of {args.runs}: "
              f"{b1:.2f} s vs {b2:.2f} s, speed-up {b1 / b2:.2f}x (the machine's headroom)")
        print(f"wall time, {args.cases} cases, median of {args.runs}: --jobs 1 {t1:.2f} s "
              f"({args.cases / t1:.0f} cases/s), --jobs 2 {t2:.2f} s "
              f"({args.cases / t2:.0f} cases/s), speed-up {t1 / t2:.2f}x")
        print("runs --jobs 1:", " ".join(f"{t:.2f}" for t in times[1]))
        print("runs --jobs 2:", " ".join(f"{t:.2f}" for t in times[2]))
        ok = rb / rs < 1.5 and t2 < t1
        print("RESULT:", "ok" if ok else "NOT MET",
              "(memory flat within 1.5x, --jobs 2 faster than --jobs 1)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
