"""The report streams (issue 31, item 6): a case's annotations are read from a live cursor and
only one row per citation source is kept, so memory does not grow with a case's annotations;
the numbers are those the grouped rows give (checked against that reference)."""

from __future__ import annotations

import sqlite3
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest
from _review_cases import session_a, session_b
from make_hostile import CASE, KEY, RAW

from citeview.core.cases import Case
from citeview.session.merge import ADJUDICATED, merge_sessions
from citeview.session.model import Annotation
from citeview.session.report import case_tally, summarize
from citeview.session.rows import ORPHANED, iter_case_rows
from citeview.session.store import Session


def reference_picks(session: Session, annotator: str | None = None) -> list[tuple]:
    """Every case's rows grouped by (citation, raw, source id), the counted row of each
    picked as the report defines it: what the report summed before it streamed."""
    out = []
    for cr in iter_case_rows(session, annotator=annotator, jobs=1):
        groups: dict[tuple, list] = {}
        for r in cr.rows:
            if r.status != ORPHANED:
                groups.setdefault((r.number, r.anchor, r.source_id), []).append(r)
        for rows in groups.values():
            adj = [r for r in rows if r.annotator == ADJUDICATED and r.verdict is not None]
            judged = [r for r in rows if r.verdict is not None]
            row = adj[0] if adj else max(judged, key=lambda r: r.timestamp) if judged \
                else rows[0]
            out.append((row.case_id, row.number, row.source_id, row.verdict, row.annotator,
                        row.note, row.source_kind, row.support))
    return out


def tally_picks(session: Session, annotator: str | None = None) -> list[tuple]:
    return [(r.case_id, r.number, r.source_id, r.verdict, r.annotator, r.note, r.source_kind,
             r.support)
            for cid in session.case_ids()
            for r in case_tally(session, cid, annotator=annotator).picks]


def test_the_streamed_picks_are_the_grouped_rows_picks(tmp_path: Path) -> None:
    with session_a(tmp_path) as a, session_b(tmp_path) as b:
        merged, _ = merge_sessions(a, b, str(tmp_path / "m.citeview"))
    with merged:
        key = next(x for x in merged.iter_annotations() if x.verdict is not None).key
        merged.put_annotation(Annotation(key, ADJUDICATED, "unsupported"))
        for s in (merged,):
            names = {x.annotator for x in s.iter_annotations()}
            for who in [None, *sorted(names)]:
                assert tally_picks(s, who) == reference_picks(s, who), who
        rep = summarize(merged, jobs=1)
        assert rep["verdicts"]["unsupported"] >= 1 and rep["session"]["annotators"]


def big_case_session(path: Path, n: int) -> Path:
    """One case whose one citation has ``n`` annotators' verdicts, and ``n`` orphans."""
    with Session.create(str(path), [CASE]) as s:
        s.put_annotation(Annotation(KEY, "ana", "unsupported"))
    conn = sqlite3.connect(path)
    conn.executemany(
        "INSERT INTO annotations (case_id, number, raw, source_id, annotator, verdict, "
        "timestamp, orphaned) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        ((KEY.case_id, 1, RAW, "f0", f"a{i}", "supported" if i % 3 else "unsupported",
          f"2026-01-01T00:00:{i % 60:02d}", 0) for i in range(n)))
    conn.executemany(
        "INSERT INTO annotations (case_id, number, raw, source_id, annotator, verdict, "
        "orphaned) VALUES (?, ?, ?, ?, ?, ?, 1)",
        ((KEY.case_id, 9, RAW, "gone", f"o{i}", "supported") for i in range(n)))
    conn.commit()
    conn.close()
    return path


def peak(path: Path) -> tuple[int, dict]:
    with Session.open(str(path), readonly=True) as s:
        tracemalloc.start()
        try:
            rep = summarize(s, jobs=1)
            return tracemalloc.get_traced_memory()[1], rep
        finally:
            tracemalloc.stop()


@pytest.mark.slow
def test_memory_does_not_grow_with_a_cases_annotations(tmp_path: Path) -> None:
    small, rep_small = peak(big_case_session(tmp_path / "s.citeview", 2_000))
    big, rep_big = peak(big_case_session(tmp_path / "b.citeview", 40_000))
    assert rep_big["citations"]["orphaned_annotations"] == 40_000
    assert rep_big["citations"]["sources"] == 1  # one row counted for the one source
    assert len(rep_big["session"]["annotators"]) == 80_001  # names are listed: kept
    # 20 x the annotations: the names (listed in the report) grow, the rows do not. Holding
    # every row cost ~1 KB an annotation (40 MB here); the names ~0.1 KB.
    assert big - small < 40_000 * 2 * 250, (small, big)
    assert Counter(rep_small["verdicts"]) != Counter()


def test_worker_processes_give_the_same_report(tmp_path: Path) -> None:
    """Cases tallied in worker processes (handed :func:`case_tally` by name) sum the same."""
    path = tmp_path / "many.citeview"
    cases = [Case(f"c{i}", CASE.answer, CASE.question, tool_outputs=list(CASE.tool_outputs))
             for i in range(150)]
    with Session.create(str(path), cases) as s:
        for i in range(0, 150, 3):
            s.put_annotation(Annotation(KEY.__class__(f"c{i}", 1, RAW, "f0"), f"a{i % 4}",
                                        "unsupported" if i % 2 else "supported"))
    with Session.open(str(path), readonly=True) as s:
        assert summarize(s, jobs=2) == summarize(s, jobs=1)
