"""Generate a large JSONL dataset for the million-case benchmarks (issue 26).

    python benchmarks/million_data.py OUT.jsonl [--cases 1000000] [--seed 26]

Each line is one case of about 1 KB in the markers format: an ``id``, a ``question``, one
``tool_outputs`` entry (one file with ``[L#]`` labelled lines) and an ``answer`` with three
citation markers (``U+E200 cite U+E202 turn0file0 U+E202 L1-L2 U+E201``). The output is
deterministic: the same N and seed give the same bytes, so runs on different branches compare.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

_WORDS = (
    "policy", "employee", "manager", "approval", "request", "remote", "travel", "receipt",
    "contract", "notice", "customer", "period", "renewal", "payment", "invoice", "refund",
    "service", "support", "account", "access", "security", "review", "quarter", "budget",
    "report", "audit", "record", "schedule", "leave", "holiday", "office",
)


def _sentence(rng: random.Random, words: int) -> str:
    picked = [rng.choice(_WORDS) for _ in range(words)]
    return " ".join(picked).capitalize() + "."


def _marker(start: int, end: int) -> str:
    span = f"L{start}" if start == end else f"L{start}-L{end}"
    return f"\ue200cite\ue202turn0file0\ue202{span}\ue201"


def make_case(i: int, seed: int = 26) -> dict[str, object]:
    """Case ``i`` of the dataset: the same (i, seed) always gives the same case."""
    rng = random.Random(seed * 1_000_003 + i)
    lines = [f"[L{n}] {_sentence(rng, rng.randint(7, 10))}" for n in range(1, 9)]
    source = (f"Citation Marker: \ue200cite\ue202turn0file0\ue201\nTitle: Document {i}\n"
              f"URL: https://docs.example/{i}\n\n" + "\n".join(lines))
    parts = []
    for _ in range(3):
        start = rng.randint(1, 7)
        end = min(8, start + rng.randint(0, 1))
        parts.append(_sentence(rng, rng.randint(8, 12)) + _marker(start, end))
    return {
        "id": f"case-{i:07d}",
        "question": _sentence(rng, 9).rstrip(".") + "?",
        "tool_outputs": [source],
        "answer": "\n\n".join(parts) + "\n",
    }


def iter_lines(n: int, seed: int = 26) -> Iterator[str]:
    """The N JSONL lines (each ending in a newline), in order."""
    for i in range(n):
        yield json.dumps(make_case(i, seed), ensure_ascii=False) + "\n"


def write_dataset(path: Path | str, n: int, seed: int = 26) -> Path:
    """Write N cases to ``path`` (JSONL, UTF-8) and return it."""
    out = Path(path)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        batch: list[str] = []
        for line in iter_lines(n, seed):
            batch.append(line)
            if len(batch) >= 10_000:
                fh.writelines(batch)
                batch.clear()
        fh.writelines(batch)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args(argv)
    write_dataset(args.out, args.cases, args.seed)
    size = args.out.stat().st_size
    print(f"{args.cases} cases, {size / 1e6:.1f} MB -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
