"""Run citeview's fuzz targets for a set time.

    python fuzz/run.py                      # every target, 60 seconds in all
    python fuzz/run.py inputs commands --seconds 600
    python fuzz/run.py --list

Each target runs Hypothesis in batches until its share of the time is spent; the first failure
is printed (shrunk to a small example, with the seed that reproduces it) and the run exits 1.
``--db DIR`` keeps failing examples in a Hypothesis database so the next run tries them first.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis.database import DirectoryBasedExampleDatabase  # noqa: E402

from fuzz.targets import TARGETS, Target  # noqa: E402


def run_target(target: Target, seconds: float, batch: int, db: str | None,
               first_seed: int | None) -> int:
    """Examples run until ``seconds`` have passed; raises on the first failure."""
    end = time.monotonic() + seconds
    runs = 0
    n = 0
    while time.monotonic() < end:
        config = settings(max_examples=batch, deadline=None, database=(
            DirectoryBasedExampleDatabase(db) if db else None),
            suppress_health_check=list(HealthCheck), print_blob=True,
            phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])
        test = config(given(target.strategy)(target.check))
        if first_seed is not None:
            test = seed(first_seed + n)(test)
        test()
        runs += batch
        n += 1
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", metavar="TARGET",
                        help=f"targets to run (default: all): {', '.join(TARGETS)}")
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="time for the whole run, shared by the targets (default 60)")
    parser.add_argument("--batch", type=int, default=100,
                        help="examples per Hypothesis run (default 100)")
    parser.add_argument("--seed", type=int, default=None, help="reproduce a run")
    parser.add_argument("--db", metavar="DIR", default=None,
                        help="a Hypothesis example database (failures are replayed first)")
    parser.add_argument("--list", action="store_true", help="list the targets")
    args = parser.parse_args(argv)
    if args.list:
        for t in TARGETS.values():
            print(f"{t.name:16} {t.about}")
        return 0
    names = args.targets or list(TARGETS)
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        parser.error(f"unknown target {unknown[0]!r} (targets: {', '.join(TARGETS)})")
    share = args.seconds / len(names)
    for name in names:
        start = time.monotonic()
        try:
            runs = run_target(TARGETS[name], share, args.batch, args.db, args.seed)
        except Exception:  # noqa: BLE001 - report the failure, whatever it is, and stop
            import traceback

            traceback.print_exc()
            print(f"{name}: FAILED (see the falsifying example above)", file=sys.stderr)
            return 1
        print(f"{name}: ok, about {runs} examples in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
