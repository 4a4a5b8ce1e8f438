"""Benchmark the marker parser: extract, scan and strip, at N and 4N, against a regex baseline.

Run: python benchmarks/bench_markers.py [--runs 5]

Inputs (each at N and 4N):
  (a) an answer of ~2 MB with 20,000 citations (prose, single and multi-source, locators);
  (b) 16,000 unterminated markers (the reference rescans to the end for each: quadratic);
  (c) 100,000 stray STOP characters.
The baseline is a straightforward regex implementation of the guide's algorithm (its Python
helper), measured in the same run; it runs on (a) only, as on (b) it takes minutes.
Prints medians of user CPU time, MB/s, time(4N)/time(N) (linear is ~4) and the speed relative
to the baseline.
"""

from __future__ import annotations

import argparse
import gc
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import user_time  # noqa: E402

from citeview.core.markers import (  # noqa: E402
    DELIMITER,
    START,
    STOP,
    extract_citations,
    scan,
    strip_citations,
)


def baseline_extract(text: str, families: tuple[str, ...] = ("cite",)) -> list[dict]:
    """The guide's helper, as a team would write it from the guide."""
    family_pattern = "|".join(re.escape(f) for f in families)
    token_re = re.compile(
        rf"{START}(?P<family>{family_pattern}){DELIMITER}(?P<body>.*?){STOP}", re.DOTALL
    )
    out = []
    for m in token_re.finditer(text):
        parts = [p.strip() for p in m.group("body").split(DELIMITER)]
        parts = [p for p in parts if p]
        if not parts:
            continue
        locator = None
        if re.fullmatch(r"^L\d+(?:-L\d+)?$", parts[-1]):
            locator = parts.pop()
        if not parts or any(not re.fullmatch(r"^[A-Za-z0-9_-]+$", p) for p in parts):
            continue
        out.append({"raw": m.group(0), "family": m.group("family"), "source_ids": parts,
                    "locator": locator, "start": m.start(), "end": m.end()})
    return out


def answer_a(scale: int) -> str:
    prose = "The policy allows remote work up to three days a week, with approval beyond that. "
    pieces = []
    for i in range(20_000 * scale):
        if i % 3 == 0:
            loc = f"L{i % 50 + 1}-L{i % 50 + 4}"
            marker = f"{START}cite{DELIMITER}turn{i % 7}file{i % 11}{DELIMITER}{loc}{STOP}"
        elif i % 3 == 1:
            marker = f"{START}cite{DELIMITER}turn0search{i % 5}{DELIMITER}turn1news{i % 3}{STOP}"
        else:
            marker = f"{START}cite{DELIMITER}turn0file{i % 9}{STOP}"
        pieces.append(prose + marker + ("\n\n" if i % 4 == 3 else " "))
    return "".join(pieces)


def answer_b(scale: int) -> str:
    return f"Claim.{START}cite{DELIMITER}turn0file0 and more prose " * (16_000 * scale)


def answer_c(scale: int) -> str:
    return f"word{STOP} " * (100_000 * scale)


def _repeats(fn: Callable[[], object]) -> int:
    """Calls per sample so that a sample lasts >= 50 ms: the user-time clock may tick coarsely."""
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    return max(1, min(1000, round(0.05 / once))) if once > 0 else 1000


def _cpu_time(fn: Callable[[], object], repeat: int = 1) -> float:
    """User CPU time of one call (see _timing.py), averaged over ``repeat`` calls. As timeit
    does, the cyclic garbage collector is off while timing: its passes scale with everything
    alive in this process (both input sizes and their results), not with the work measured,
    and would blur the N-vs-4N ratios."""
    gc.collect()
    gc.disable()
    try:
        t0 = user_time()
        for _ in range(repeat):
            fn()
        return (user_time() - t0) / repeat
    finally:
        gc.enable()


def paired_medians(fn_n: Callable[[], object], fn_4n: Callable[[], object],
                   runs: int) -> tuple[float, float, float]:
    """Medians of N and 4N timed alternately, and the median of the ratios of each adjacent
    pair: a burst of load from elsewhere on the machine then falls on both sizes of a pair
    alike instead of skewing the ratio."""
    t_n: list[float] = []
    t_4n: list[float] = []
    rep_n, rep_4n = _repeats(fn_n), _repeats(fn_4n)
    for _ in range(runs):
        t_n.append(_cpu_time(fn_n, rep_n))
        t_4n.append(_cpu_time(fn_4n, rep_4n))
    ratios = [b / a for a, b in zip(t_n, t_4n, strict=True) if a > 0]
    return statistics.median(t_n), statistics.median(t_4n), statistics.median(ratios or [0.0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    runs = max(5, args.runs)
    print(f"medians of {runs} runs")
    print(f"{'input':<24}{'op':<10}{'N (s)':>10}{'4N (s)':>10}{'MB/s@4N':>10}{'4N/N':>8}")
    results: dict[tuple[str, str], float] = {}
    for name, make in (("a 20k citations", answer_a), ("b 16k unterminated", answer_b),
                       ("c 100k stray STOP", answer_c)):
        texts = {1: make(1), 4: make(4)}
        cits = {k: extract_citations(t) for k, t in texts.items()}
        ops: dict[str, Callable[[str, int], Callable[[], object]]] = {
            "extract": lambda t, k: lambda: extract_citations(t),
            "scan": lambda t, k: lambda: scan(t),
            "strip": lambda t, k, c=cits: lambda: strip_citations(t, c[k]),
        }
        if name.startswith("a"):
            ops["baseline"] = lambda t, k: lambda: baseline_extract(t)
        for op, factory in ops.items():
            t1, t4, ratio = paired_medians(factory(texts[1], 1), factory(texts[4], 4), runs)
            mb = len(texts[4].encode("utf-8")) / 1e6
            results[(name[0], op)] = t1
            print(f"{name:<24}{op:<10}{t1:>10.4f}{t4:>10.4f}{mb / t4:>10.1f}{ratio:>8.2f}")
        print(f"{'':<24}size N = {len(texts[1].encode('utf-8')) / 1e6:.2f} MB, "
              f"{len(cits[1])} citations")
    ext, base = results[("a", "extract")], results[("a", "baseline")]
    strip = results[("a", "strip")]
    print(f"(a) extract speed relative to the regex baseline: {base / ext:.2f}x "
          f"(>= 0.9 required)")
    print(f"(a) strip time as a share of extract time: {100 * strip / ext:.1f}% (< 10% required)")


if __name__ == "__main__":
    main()
