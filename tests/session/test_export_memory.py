"""Export and report stream: what they hold does not grow with the session's case count (a
million-case session exports in the memory a few hundred cases take; issue 26)."""

from __future__ import annotations

import gc
import io
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from _review_cases import case

from citeview.session import Session, report, rows
from citeview.session.report import summarize
from citeview.session.rows import write_csv, write_jsonl


class Sink(io.TextIOBase):
    """An output that keeps nothing (a file on a disk, as far as memory goes)."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, s: str) -> int:
        self.chars += len(s)
        return len(s)


def _session(tmp: Path, n: int) -> Path:
    path = tmp / f"s{n}.citeview"
    base = [case(c) for c in ("c1", "c2", "c3")]
    Session.create(str(path), [replace(base[k % 3], id=f"case-{k:06d}")
                               for k in range(n)]).close()
    return path


def _collected(fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gc.collect()
        return fn(*args, **kwargs)
    return wrapper


def _peak(path: Path, work: Callable[[Session], object]) -> int:
    with Session.open(str(path), readonly=True) as s:
        # What lives before the export is no export's: frozen, the collection after each case
        # walks only what the export made (a whole test process's heap took 0.3 s a case).
        gc.collect()
        gc.freeze()
        tracemalloc.start()
        try:
            work(s)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            gc.unfreeze()


@pytest.mark.parametrize("work", [
    lambda s: write_jsonl(s, Sink(), jobs=1),
    lambda s: write_csv(s, Sink(), jobs=1),
    lambda s: summarize(s, jobs=1),
], ids=["jsonl", "csv", "report"])
def test_peak_memory_does_not_grow_with_the_case_count(tmp_path: Path,
                                                       work: Callable[[Session], object],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Ids are read a page at a time (4,096 in use): a small page here, so that what is held
    # is seen at the sizes a test can afford.
    monkeypatch.setattr(rows, "_ID_PAGE", 5)
    # An analysis is left to the cycle collector: collected after every case, so the peak is
    # what export holds, not how late the collector runs.
    for module, name in ((rows, "analysed_once"), (report, "analysed_once")):
        monkeypatch.setattr(module, name, _collected(getattr(module, name)))
    small, big = _session(tmp_path, 20), _session(tmp_path, 80)
    _peak(_session(tmp_path, 3), work)  # warm: compiled patterns and imports are no session's
    a, b = _peak(small, work), _peak(big, work)
    # 60 cases more: the peak may differ by what one case's analysis holds and what sqlite3
    # keeps of the statements run (its per-connection cache, a few KB), no more (cases, ids,
    # item counts or rows kept per case added 360 KB here before export streamed).
    assert b - a < 20_000, (a, b)


def test_agreement_holds_neither_sessions_case_ids(tmp_path: Path) -> None:
    from citeview.session import Annotation, case_citations
    from citeview.session.agree import compare

    def peak(n: int) -> int:
        paths = []
        for who, verdict in (("ana", "supported"), ("bo", "unsupported")):
            folder = tmp_path / f"{who}{n}"
            folder.mkdir()
            paths.append(_session(folder, n))
            with Session.open(str(paths[-1]), annotator=who) as s:
                slot = case_citations(s.get_case("case-000001"))[0]
                s.put_annotation(Annotation(slot.keys("case-000001")[0], who, verdict, "",
                                            "2026-01-01T00:00:00.000Z", slot.claim))
        with (Session.open(str(paths[0]), readonly=True) as x,
              Session.open(str(paths[1]), readonly=True) as y):
            tracemalloc.start()
            try:
                ag = compare(x, y)
                got = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        assert (ag.shared_cases, len(ag.pairs), len(ag.disagreements)) == (n, 1, 1)
        return got

    peak(3)  # warm
    small, big = peak(50), peak(400)
    # 350 cases more in each session: ids listed, or kept in sets, would add 350 times theirs.
    assert big - small < 10_000, (small, big)
