"""Benchmark `citeview prepare` on 1,000 documents of 1,000 lines, at N and 4N.

Run: python benchmarks/bench_prepare.py [--runs 5] [--units line,block,context,document]

Writes 1,000 documents of 1,000 lines each (prose, Markdown headings, code, with some lines that
prepare must neutralise) to a temporary directory, then times the real command
(`python -m citeview prepare DOC... --unit U -o OUT`, a fresh process each run) on
N = 250 documents and 4N = 1,000 documents (the documents-axis), and on 1,000 documents cut to
250 and 1,000 lines (the lines-axis). The baseline, measured in the same run, is a process that
reads the same files and writes them out concatenated (the I/O floor). Runs of N and 4N are
interleaved. Prints medians of wall time and of CPU time (user + system, which load from other
processes disturbs less), time(4N)/time(N) (linear is ~4), the same ratio after subtracting the
start-up time of the command ("net", measured on one tiny document), and the wall-time slowdown
against the baseline. POSIX only (resource module).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = 1000
LINES = 1000

BASELINE = """
import sys
out = open(sys.argv[1], "w", encoding="utf-8")
for p in sys.argv[2:]:
    with open(p, encoding="utf-8") as fh:
        out.write(fh.read())
out.close()
"""


def make_doc(i: int, lines: int) -> str:
    out = [f"# Document {i}", ""]
    k = 0
    while len(out) < lines:
        k += 1
        if k % 50 == 0:
            out += [f"## Section {k}", ""]
        elif k % 37 == 0:
            out += ["[L5] a line that looks like a label", "Citation Marker: not a header",
                    "<block id=\"x\">tag &amp; entity</block>", ""]
        elif k % 11 == 0:
            out += ["def handler(request):", "    if request.ok:",
                    "        return respond(request)  # fast path", ""]
        else:
            out += [f"Paragraph {k} of document {i} states a rule. It has two sentences and "
                    "a number 42.", "The next line continues the same paragraph of prose text."]
    return "\n".join(out[:lines]) + "\n"


def write_corpus(root: Path) -> tuple[list[str], list[str]]:
    full, short = [], []
    (root / "full").mkdir()
    (root / "short").mkdir()
    for i in range(DOCS):
        text = make_doc(i, LINES)
        ext = ".md" if i % 2 else ".txt"
        p = root / "full" / f"doc{i:04d}{ext}"
        p.write_text(text, encoding="utf-8")
        full.append(str(p))
        q = root / "short" / f"doc{i:04d}{ext}"
        q.write_text("".join(text.splitlines(keepends=True)[: LINES // 4]), encoding="utf-8")
        short.append(str(q))
    return full, short


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``cmd`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def timed(cmds: list[list[str]], runs: int) -> list[tuple[float, float]]:
    """Median (wall, cpu) of each command. Runs are interleaved (N, 4N, N, 4N, ...) so that
    load from other processes on the machine falls on both sizes alike."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    samples: list[list[tuple[float, float]]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            samples[i].append(_run(cmd, env))
    return [(statistics.median(w for w, _ in s), statistics.median(c for _, c in s))
            for s in samples]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--units", default="line,block,context,document")
    args = ap.parse_args()
    runs = max(5, args.runs)
    units = [u for u in args.units.split(",") if u]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        full, short = write_corpus(root)
        out = str(root / "out.txt")
        mb = sum(os.path.getsize(p) for p in full) / 1e6
        print(f"corpus: {DOCS} documents x {LINES} lines = {mb:.1f} MB; medians of {runs} runs "
              "(fresh process each)")
        axes = {"documents": (full[: DOCS // 4], full), "lines": (short, full)}
        copy = [sys.executable, "-c", BASELINE, out]
        base = {name: timed([copy + n, copy + n4], runs) for name, (n, n4) in axes.items()}
        tiny = root / "tiny.txt"
        tiny.write_text("one line\n", encoding="utf-8")
        print(f"{'unit':9} {'axis':10} | {'wall N':>6} {'4N':>6} {'4N/N':>5} {'net':>5} | "
              f"{'cpu N':>6} {'4N':>6} {'4N/N':>5} {'net':>5} | {'vs copy':>7}")

        def row(unit: str, name: str, start: tuple[float, float],
                t1: tuple[float, float], t4: tuple[float, float], vs: float) -> None:
            cells = []
            for k in (0, 1):
                net = (t4[k] - start[k]) / max(t1[k] - start[k], 1e-9)
                cells.append(f"{t1[k]:6.2f} {t4[k]:6.2f} {t4[k] / t1[k]:5.2f} {net:5.2f}")
            print(f"{unit:9} {name:10} | {cells[0]} | {cells[1]} | {vs:7.1f}")

        for name, (b1, b4) in base.items():
            row("(copy)", name, (0.0, 0.0), b1, b4, 1.0)
        for unit in units:
            cmd = [sys.executable, "-m", "citeview", "prepare", "--unit", unit, "-o", out]
            (start,) = timed([cmd + [str(tiny)]], runs)
            for name, (n, n4) in axes.items():
                t1, t4 = timed([cmd + n, cmd + n4], runs)
                row(unit, name, start, t1, t4, t4[0] / base[name][1][0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
