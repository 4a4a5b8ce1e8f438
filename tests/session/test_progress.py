"""Progress kept change by change from stored counts, never by analysing every case again."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeview.core.cases import Case
from citeview.session import Session
from citeview.session.edits import set_case, set_verdict
from citeview.session.model import ReviewState, case_citations
from citeview.session.progress import Progress

S, D, T = "\ue200", "\ue202", "\ue201"
CTX = '<doc id="a">\nAlpha.\n</doc>\n<doc id="b">\nBeta.\n</doc>'


def cases() -> list[Case]:
    return [
        Case("one", f"Alpha {S}cite{D}a{T}. Both {S}cite{D}a{D}b{T}.", context=CTX),
        Case("two", f"Beta {S}cite{D}b{T}.", context=CTX),
        Case("none", "No citations at all.", context=CTX),
    ]


def test_counts_follow_verdicts_done_marks_and_are_stored_for_the_next_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "p.citeview")
    with Session.create(path, cases(), annotator="ana") as s:
        p = Progress(s)
        s.subscribe(p.on_change)
        assert p.counts().as_dict() == {"cases_done": 0, "cases": 3, "judged": 0,
                                        "citations": 0, "complete": False}
        assert p.missing() == ["one", "two", "none"]
        for cid in p.missing():
            p.count_case(cid)
        assert p.counts().citations == 3 and p.counts().complete
        k1, k2 = (slot.keys("one") for slot in case_citations(s.get_case("one")))
        set_verdict(s, k1[0], "cannot tell")  # any verdict counts
        set_verdict(s, k2[0], "supported")  # one of two sources: not judged yet
        assert p.counts().judged == 1
        set_verdict(s, k2[1], "unsupported")
        assert p.counts().judged == 2
        set_case(s, "one", state=ReviewState.DONE)
        assert p.counts().cases_done == 1
        assert p.next_not_done(0) == 1 and p.first_not_done() == 1

    # Reopened: the counts are read back; no case is analysed again.
    import citeview.core.analysis as analysis

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a case was analysed again")
    monkeypatch.setattr(analysis, "_analyse", refuse)
    with Session.open(path, annotator="ana") as s:
        p = Progress(s)
        assert p.counts().as_dict() == {"cases_done": 1, "cases": 3, "judged": 2,
                                        "citations": 3, "complete": True}


def test_a_changed_answer_drops_that_case_count_only(tmp_path: Path) -> None:
    with Session.create(str(tmp_path / "p.citeview"), cases(), annotator="ana") as s:
        p = Progress(s)
        s.subscribe(p.on_change)
        for cid in p.missing():
            p.count_case(cid)
        old = s.get_case("two")
        s.update_case(Case("two", old.answer + f" More {S}cite{D}a{T}.", context=CTX))
        assert p.missing() == ["two"] and p.counts().citations == 2
        p.count_case("two")
        assert p.counts().citations == 4


def test_a_case_analysed_anywhere_counts_without_asking_progress(tmp_path: Path) -> None:
    with Session.create(str(tmp_path / "p.citeview"), cases(), annotator="ana") as s:
        p = Progress(s)
        s.subscribe(p.on_change)
        s.analysed("one")  # e.g. the window showed it
        assert p.missing() == ["two", "none"] and p.counts().citations == 2


def test_counts_of_a_case_shown_are_written_later_and_never_stale(tmp_path: Path) -> None:
    path = str(tmp_path / "p.citeview")
    with Session.create(path, cases(), annotator="ana") as s:
        s.analysed("one")  # shown: counted in memory, no write of its own
        assert s.conn.execute("SELECT count(*) FROM case_stats").fetchone()[0] == 0
        s.analysed("two")
        old = s.get_case("two")
        s.update_case(Case("two", old.answer + f" More {S}cite{D}a{T}.", context=CTX))
    with Session.open(path) as s:  # written on close; the changed case's old counts are not
        assert s.sizes() == {"one": (1, 2)}
