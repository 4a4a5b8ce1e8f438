"""Review progress: how far the annotator is, which case comes next, which cases have problems.

:class:`ProgressTracker` keeps what the window shows about the session as a whole: each case's
review state and overall verdict, "cases done" and "citations judged" (counted a chunk per idle
tick, so a 10,000-case session never blocks the window), the next case not done, and which cases
have a citation with a problem (checked in idle ticks once a filter asks). It also fills a case's
view-model with this annotator's verdicts (:meth:`ProgressTracker.decorate`).

It reads the open :class:`~citeview.session.store.Session` and is told of its changes
(:meth:`ProgressTracker.on_change`); :attr:`ProgressTracker.changed` says when the numbers moved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.session.model import Annotation, ReviewState, case_citations
from citeview.session.store import Change, Session

if TYPE_CHECKING:
    from citeview.gui.state import CaseView

CHUNK = 200  # cases counted per idle tick (progress totals never block the window)
PROBLEM_CHUNK = 20  # cases checked for problems per idle tick


def progress_text(p: dict[str, int | bool], annotator: str = "", blind: bool = False) -> str:
    """The status bar's summary of :meth:`ProgressTracker.progress` ('' without a session)."""
    if not p:
        return ""
    more = "" if p["complete"] else "+"
    return (f"Cases done {p['cases_done']}/{p['cases']}  \u00b7  "
            f"Citations judged {p['judged']}/{p['citations']}{more}"
            + (f"  \u00b7  {annotator}" if annotator else "")
            + ("  \u00b7  BLIND" if blind else ""))


class ProgressTracker(QObject):
    changed = Signal()  # progress() or a case's state or verdict changed
    problemsChecked = Signal()  # more cases were checked for problems (case_problem knows more)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session: Session | None = None
        self._ids: list[str] = []  # row -> case id, read on every paint of the cases list
        self._states: dict[str, ReviewState] = {}
        self._case_verdicts: dict[str, str | None] = {}
        self._totals: dict[str, list[int]] = {}  # case id -> sources per citation
        self._judged: dict[str, dict[int, set[str]]] = {}  # case id -> number -> judged sids
        self._problems: dict[str, bool] = {}
        self._count_queue: list[str] = []
        self._problem_queue: list[int] = []
        self._problem_dataset: Dataset | None = None
        self._count_timer = QTimer(self)
        self._count_timer.setInterval(0)
        self._count_timer.timeout.connect(self._count_some)
        self._problem_timer = QTimer(self)
        self._problem_timer.setInterval(0)
        self._problem_timer.timeout.connect(self._check_some_cases)

    # ------------------------------------------------------------------ the session

    def start(self, session: Session | None) -> None:
        """Track ``session`` (None: nothing), starting over."""
        self._count_timer.stop()
        self._problem_timer.stop()
        self._totals, self._judged, self._problems = {}, {}, {}
        self.session = session
        if session is None:
            self._ids, self._states, self._case_verdicts = [], {}, {}
            self.changed.emit()
            return
        self._ids = session.case_ids()
        self._load_states()
        self._start_counting()

    def recount(self) -> None:
        """Count again (the annotator changed, or the session took in a changed input)."""
        if self.session is None:
            return
        self._ids = self.session.case_ids()
        self._totals = {}
        self._load_states()
        self._start_counting()

    def on_change(self, change: Change) -> None:
        """A change committed to the session: update what it touched."""
        if self.session is None:
            return
        if change.kind == "review":
            self._load_states()
        elif change.kind == "annotation" and change.case_id is not None:
            self._recount_case(change.case_id)
        self.changed.emit()

    # ------------------------------------------------------------------ state of the cases

    def _load_states(self) -> None:
        s = self.session
        assert s is not None
        self._states = s.states()
        self._case_verdicts = {r.case_id: r.verdict for r in s.reviews()
                               if r.annotator == s.annotator}

    def state_text(self, i: int) -> str:
        """The review column of case row ``i``: its state and this annotator's verdict."""
        if self.session is None or not 0 <= i < len(self._ids):
            return ""
        cid = self._ids[i]
        state = self._states.get(cid, ReviewState.NOT_STARTED)
        text = "" if state is ReviewState.NOT_STARTED else state.value
        verdict = self._case_verdicts.get(cid)
        return f"{text} \u00b7 {verdict}" if verdict else text

    def case_state(self, case_id: str) -> ReviewState:
        return self._states.get(case_id, ReviewState.NOT_STARTED)

    def case_verdict(self, case_id: str) -> str | None:
        return self._case_verdicts.get(case_id)

    def next_undone(self, after: int) -> int | None:
        """The first case not done after case ``after`` (wrapping around); None when all are."""
        if self.session is None:
            return None
        ids = self.session.case_ids()
        n = len(ids)
        for step in range(1, n + 1):
            i = (after + step) % n
            if self._states.get(ids[i]) is not ReviewState.DONE:
                return i
        return None

    def decorate(self, view: CaseView) -> list[int]:
        """Fill ``view``'s citations with this annotator's verdicts and notes (and, outside
        blind mode, the others'); returns those whose chip changed."""
        s = self.session
        if s is None:
            return []
        mine: dict[tuple[int, str], Annotation] = {}
        others: dict[int, list[str]] = {}
        for a in s.iter_annotations(view.case.id, orphaned=False):
            if a.annotator == s.annotator:
                mine[(a.key.number, a.key.source_id)] = a
            elif a.verdict:
                note = f" \u2014 {' '.join(a.note.split())[:80]}" if a.note else ""
                who = a.annotator or "(no name)"
                others.setdefault(a.key.number, []).append(
                    f"{who}: {a.verdict} ({a.key.source_id}){note}")
        changed = []
        for cv in view.citations:
            before = cv.chip
            anns = [mine.get((cv.number, sid)) for sid in cv.citation.source_ids]
            cv.set_judgements([a.verdict if a else None for a in anns],
                              [a.note if a else "" for a in anns])
            cv.others = tuple(others.get(cv.number, []))
            if cv.chip != before:
                changed.append(cv.index)
        self._totals[view.case.id] = [len(cv.citation.source_ids) for cv in view.citations]
        self._judged[view.case.id] = {
            n: {sid for (num, sid), a in mine.items() if num == n and a.verdict}
            for n in {num for num, _ in mine}}
        self.changed.emit()
        return changed

    # ------------------------------------------------------------------ counting

    def _start_counting(self) -> None:
        """Totals for "citations judged / total" over the whole session, a chunk per idle tick
        (a 10,000-case session keeps the window responsive)."""
        s = self.session
        assert s is not None
        self._judged = {}
        for a in s.iter_annotations(annotator=s.annotator, orphaned=False):
            if a.verdict:
                self._judged.setdefault(a.case_id, {}).setdefault(a.key.number, set()).add(
                    a.key.source_id)
        self._count_queue = list(reversed(s.case_ids()))
        self._count_timer.start()
        self.changed.emit()

    def _case_totals(self, case_id: str) -> list[int]:
        s = self.session
        assert s is not None
        try:
            case = s.get_case(case_id)
        except InputError:
            return []
        return [len(slot.source_ids) for slot in case_citations(case, s.families)]

    def _count_some(self) -> None:
        if self.session is None:
            self._count_timer.stop()
            return
        for _ in range(CHUNK):
            if not self._count_queue:
                self._count_timer.stop()
                break
            cid = self._count_queue.pop()
            if cid not in self._totals:
                self._totals[cid] = self._case_totals(cid)
        self.changed.emit()

    def _recount_case(self, case_id: str) -> None:
        s = self.session
        assert s is not None
        judged: dict[int, set[str]] = {}
        for a in s.iter_annotations(case_id, annotator=s.annotator, orphaned=False):
            if a.verdict:
                judged.setdefault(a.key.number, set()).add(a.key.source_id)
        self._judged[case_id] = judged

    def progress(self) -> dict[str, int | bool]:
        """Cases done / total and citations judged / total (all sources of a citation have
        this annotator's verdict); ``complete`` once every case was counted."""
        s = self.session
        if s is None:
            return {}
        ids = s.case_ids()
        done = sum(1 for cid in ids if self._states.get(cid) is ReviewState.DONE)
        total = judged = 0
        for cid, sizes in self._totals.items():
            total += len(sizes)
            got = self._judged.get(cid, {})
            judged += sum(1 for n, k in enumerate(sizes, 1) if k and len(got.get(n, ())) >= k)
        return {"cases_done": done, "cases": len(ids), "judged": judged, "citations": total,
                "complete": len(self._totals) >= len(ids)}

    # ------------------------------------------------------------------ problems

    def case_problem(self, i: int) -> bool | None:
        """Whether case ``i`` has a citation with a problem (unresolved, recovered, lint
        error); None until checked (checking runs in idle ticks once asked for)."""
        return self._problems.get(self._ids[i]) if 0 <= i < len(self._ids) else None

    def check_problems(self, dataset: Dataset | None) -> None:
        """Check the cases of ``dataset`` not checked yet, a few per idle tick."""
        if dataset is None:
            return
        ids = dataset.case_ids()
        self._problem_dataset = dataset
        self._problem_queue = [i for i in reversed(range(len(ids))) if ids[i] not in
                               self._problems]
        self._problem_timer.start()

    def _check_some_cases(self) -> None:
        from citeview.gui.state import build_case_view

        ds = self._problem_dataset
        if ds is None:
            self._problem_timer.stop()
            return
        ids = ds.case_ids()
        for _ in range(PROBLEM_CHUNK):
            if not self._problem_queue:
                self._problem_timer.stop()
                break
            i = self._problem_queue.pop()
            try:
                view = build_case_view(ds.get(i), with_lint=True, render=False)
                self._problems[ids[i]] = any(c.problem for c in view.citations)
            except InputError:  # an unreadable case is a problem to look at
                self._problems[ids[i]] = True
        self.problemsChecked.emit()


__all__ = ["ProgressTracker", "progress_text"]
