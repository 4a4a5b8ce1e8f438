"""Garbage collection for batch work: a command holding millions of live objects (a response
of 300,000 citations, a million export rows passing through) spends up to half its time in
the cycle collector's young-generation passes, which find next to nothing there (citeview's
data are trees, not cycles). Commands and pool workers collect in larger steps instead."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: Objects allocated between young collections (CPython's default is 700), then as usual.
BATCH_THRESHOLDS = (50_000, 20, 100)


def collect_less() -> None:
    """Collect in :data:`BATCH_THRESHOLDS` steps from now on (a worker process's setting)."""
    gc.set_threshold(*BATCH_THRESHOLDS)


@contextlib.contextmanager
def collecting_less() -> Iterator[None]:
    """:func:`collect_less` for the duration, the previous thresholds restored after."""
    before = gc.get_threshold()
    collect_less()
    try:
        yield
    finally:
        gc.set_threshold(*before)


__all__ = ["BATCH_THRESHOLDS", "collect_less", "collecting_less"]
