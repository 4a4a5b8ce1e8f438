"""Benchmark `citeview prepare` on 1,000 documents of 1,000 lines, at N and 4N.

Run: python benchmarks/bench_prepare.py [--runs 5] [--units line,block,context,document]

Writes 1,000 documents of 1,000 lines each (prose, Markdown headings, code, with some lines that
prepare must neutralise) to a temporary directory, then times the real command
(`python -m citeview prepare DOC... --unit U -o OUT`, a fresh process each run) on
N = 250 documents and 4N = 1,000 documents (the documents-axis), and on 1,000 documents cut to
250 and 1,000 lines (the lines-axis). The baseline, measured in the same run, is a process that
reads the same files and writes them out concatenated (the I/O floor). Prints medians,
time(4N)/time(N) (linear is ~4), the same ratio after subtracting the start-up time of the
command (measured on one tiny document), and the slowdown against the baseline.
"""

from __future__ import annotations

import argparse
import os
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


def timed(cmd: list[str], runs: int) -> float:
    times = []
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


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
        base = {name: (timed([sys.executable, "-c", BASELINE, out, *n], runs),
                       timed([sys.executable, "-c", BASELINE, out, *n4], runs))
                for name, (n, n4) in axes.items()}
        tiny = root / "tiny.txt"
        tiny.write_text("one line\n", encoding="utf-8")
        print(f"{'unit':9} {'axis':10} {'start s':>7} {'N s':>7} {'4N s':>7} {'4N/N':>6} "
              f"{'net 4N/N':>8} {'vs copy':>8}")
        for name, (b1, b4) in base.items():
            print(f"{'(copy)':9} {name:10} {'':7} {b1:7.2f} {b4:7.2f} {b4 / b1:6.2f} {'':8} "
                  f"{1.0:8.1f}")
        for unit in units:
            cmd = [sys.executable, "-m", "citeview", "prepare", "--unit", unit, "-o", out]
            start = timed(cmd + [str(tiny)], runs)
            for name, (n, n4) in axes.items():
                t1 = timed(cmd + n, runs)
                t4 = timed(cmd + n4, runs)
                net = (t4 - start) / max(t1 - start, 1e-9)
                print(f"{unit:9} {name:10} {start:7.2f} {t1:7.2f} {t4:7.2f} {t4 / t1:6.2f} "
                      f"{net:8.2f} {t4 / base[name][1]:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
