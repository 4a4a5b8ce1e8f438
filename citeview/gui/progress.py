"""Review progress in the window: the session's counts shown, cases never counted counted in idle
ticks (a big session file: in a background process that stores each case's export rows in the
same pass, ``session/prefill.py``), which cases have problems.

The numbers themselves are the session's :class:`~citeview.session.progress.Progress` (kept
change by change from item counts stored per case, so opening a session counts nothing again).
:class:`ProgressTracker` adds what only the window needs: counting the cases whose counts are not
stored yet in short idle ticks (never more than :data:`TICK_SECONDS` at a time), the case list's
review column, which cases have a problem (checked once a filter asks), and filling a case's
view-model with this annotator's verdicts (:meth:`ProgressTracker.decorate`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from citeview.core.analysis import Analyser
from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.session import prefill
from citeview.session.events import (
    CaseChanged,
    CasesAdded,
    Change,
    ReviewChanged,
    SizesKnown,
)
from citeview.session.model import Annotation, AnnotationKey, ReviewState, annotation_key
from citeview.session.prefill import BackgroundFill
from citeview.session.progress import Progress, ProgressCounts
from citeview.session.protocol import ReviewStore
from citeview.session.store import Session

if TYPE_CHECKING:
    from citeview.gui.state import CaseView

# A session file of at least this many cases is counted in a background process that stores
# each case's export rows in the same pass (session/prefill.py): smaller ones are counted here.
BACKGROUND_MIN_CASES = prefill.BACKGROUND_MIN_CASES
POLL_MS = 100  # how often the window reads what the background process sent

TICK_SECONDS = 0.01  # work per idle tick while counting or checking: the window stays smooth
# Counting waits while the reviewer moves around (a case switch must not queue behind it), and
# stores what it counted this often (one transaction each).
IDLE_SECONDS = 0.5
SAVE_SECONDS = 1.0


def merged_text(counts: Sequence[tuple[str, ProgressCounts]]) -> str:
    """A merged session's progress, per annotator: ``ana 10/23 \u00b7 bo 12/23 judged``."""
    return " \u00b7 ".join(f"{name or '(no name)'} {c.judged}/{c.citations}"
                           for name, c in counts) + " judged"


def progress_text(p: dict[str, int | bool], annotator: str = "", blind: bool = False,
                  merged: str = "") -> str:
    """The status bar's summary of :meth:`ProgressTracker.progress` ('' without a session);
    a merged session's annotators' progress (``merged``) first."""
    if not p:
        return ""
    if merged:
        return merged + (" \u00b7 BLIND" if blind else "")
    more = "" if p["complete"] else "+"
    # Citations are counted case by case in the background: how far that count is, told.
    counting = ("" if p["complete"] or "counted" not in p
                else f" (counting: {p['counted']}/{p['cases']} cases)")
    return (f"Cases done {p['cases_done']}/{p['cases']} \u00b7 "
            f"Citations judged {p['judged']}/{p['citations']}{more}{counting}"
            + (f" \u00b7 {annotator}" if annotator else "")
            + (" \u00b7 BLIND" if blind else ""))


class ProgressTracker(QObject):
    changed = Signal()  # progress() or a case's state or verdict changed
    problemsChecked = Signal()  # more cases were checked for problems (case_problem knows more)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session: ReviewStore | None = None
        self.counts: Progress | None = None
        self.merged: list[tuple[str, Progress]] = []  # a merged session's annotators
        # The case the window is building: its counts come with its view (not counted twice).
        self.showing: str | None = None
        # row -> case id, read on every paint of the cases list (a page at a time)
        self._ids: Sequence[str] = []
        self._case_verdicts: dict[str, str | None] = {}
        self._problems: dict[str, bool] = {}
        self._count_queue: Iterator[str] = iter(())  # cases to count, read as counted
        self._count_more = False
        self._problem_queue: list[int] = []
        self._problem_dataset: Dataset | None = None
        self._count_timer = QTimer(self)
        self._count_timer.setInterval(0)
        self._count_timer.timeout.connect(self._count_some)
        self._busy_at = 0.0  # when the reviewer last moved (counting waits a while after it)
        self._counted: dict[str, tuple[int, ...]] = {}  # counted, not stored yet
        self._saved_at = 0.0
        self._problem_timer = QTimer(self)
        self._problem_timer.setInterval(0)
        self._problem_timer.timeout.connect(self._check_some_cases)
        self._fill: BackgroundFill | None = None  # the background count, in its own process
        self._fill_timer = QTimer(self)
        self._fill_timer.setInterval(POLL_MS)
        self._fill_timer.timeout.connect(self._poll_fill)

    # ------------------------------------------------------------------ the session

    def show_case(self, case_id: str) -> None:
        """The window is building ``case_id``: its counts come with its view."""
        self.showing = case_id

    def start(self, session: ReviewStore | None) -> None:
        """Track ``session`` (None: nothing), starting over."""
        self._count_timer.stop()
        self._problem_timer.stop()
        self._stop_fill()
        self._problems = {}
        self.session = session
        if session is None:
            self.counts = None
            self._ids, self._case_verdicts = [], {}
            self.changed.emit()
            return
        self.recount()

    def _merge_counts(self) -> None:
        """A merged session: each merged annotator's progress beside this window's."""
        from citeview.session.merge import MERGE_META, merged_annotators

        s = self.session
        self.merged = []
        if s is not None and MERGE_META in s.meta:
            self.merged = [(name, Progress(s, name)) for name in merged_annotators(s)
                           if name != s.annotator]

    def merged_text(self) -> str:
        return merged_text([(n, p.counts()) for n, p in self.merged]) if self.merged else ""

    def recount(self) -> None:
        """Read the counts again (the annotator changed, or the session took in a changed
        input)."""
        s = self.session
        if s is None:
            return
        self.counts = Progress(s)
        self._merge_counts()
        self._ids = s.dataset().id_window()
        self._load_verdicts()
        self._start_counting()

    def on_change(self, change: Change) -> None:
        """A change committed to the session: update what it touched."""
        if self.session is None or self.counts is None:
            return
        self.counts.on_change(change)
        for _name, other in self.merged:
            other.on_change(change)
        if isinstance(change, ReviewChanged):
            # One case's review changed: read that one (all of them is 10,000 rows).
            self._case_verdicts[change.case_id] = self.session.review(change.case_id).verdict
        elif isinstance(change, CasesAdded):
            self._ids = self.session.dataset().id_window()
            self._start_counting()
        elif isinstance(change, CaseChanged):
            self._problems.pop(change.case_id, None)
            self._start_counting()
        self.changed.emit()

    # ------------------------------------------------------------------ state of the cases

    def _load_verdicts(self) -> None:
        s = self.session
        assert s is not None
        self._case_verdicts = {r.case_id: r.verdict for r in s.reviews()
                               if r.annotator == s.annotator}

    def state_text(self, i: int) -> str:
        """The review column of case row ``i``: its state and this annotator's verdict."""
        if self.counts is None or not 0 <= i < len(self._ids):
            return ""
        cid = self._ids[i]
        state = self.counts.state(cid)
        text = "" if state is ReviewState.NOT_STARTED else state.value
        verdict = self._case_verdicts.get(cid)
        return f"{text} \u00b7 {verdict}" if verdict else text

    def case_state(self, case_id: str) -> ReviewState:
        return self.counts.state(case_id) if self.counts is not None else ReviewState.NOT_STARTED

    def case_verdict(self, case_id: str) -> str | None:
        return self._case_verdicts.get(case_id)

    def next_undone(self, after: int) -> int | None:
        """The first case not done after case ``after`` (wrapping around); None when all are."""
        return self.counts.next_not_done(after) if self.counts is not None else None

    def decorate(self, view: CaseView, number: int | None = None) -> list[int]:
        """Fill ``view``'s citations (only citation ``number`` when given: one changed) with
        this annotator's verdicts and notes (and, outside blind mode, the others'); returns
        those whose chip changed."""
        s = self.session
        if s is None:
            return []
        if number is not None and not 0 < number <= len(view.citations):
            return []
        # Matched by the whole key (number and anchor), as export and report match them.
        mine: dict[AnnotationKey, Annotation] = {}
        others: dict[tuple[int, str], list[str]] = {}
        names = [n for n, _ in self.merged]
        theirs: dict[tuple[str, AnnotationKey], str] = {}
        for a in s.iter_annotations(view.case.id, orphaned=False, number=number):
            if a.annotator in names and a.verdict:
                theirs[(a.annotator, a.key)] = a.verdict
            if a.annotator == s.annotator:
                mine[a.key] = a
            elif a.verdict:
                note = f" \u2014 {' '.join(a.note.split())[:80]}" if a.note else ""
                who = a.annotator or "(no name)"
                others.setdefault((a.key.number, a.key.anchor), []).append(
                    f"{who}: {a.verdict} ({a.key.source_id}){note}")
        their_keys = {k for _, k in theirs}
        changed = []
        found = (view.analysed.citation(number)
                 if number is not None and view.analysed is not None else None)
        cited = (view.citations if number is None else
                 [view.citations[found.index]] if found is not None else [])
        for cv in cited:
            keys = [annotation_key(view.case.id, cv.analysed, sid)
                    for sid in cv.citation.source_ids]
            anns = [mine.get(k) for k in keys]
            said = others.get((cv.number, cv.analysed.anchor), [])
            if (not any(anns) and not said and not any(cv.verdicts)
                    and not any(cv.notes) and not cv.others and not cv.merged
                    and not any(k in their_keys for k in keys)):
                # Nothing recorded and nothing shown: the chip stays as it is (no chip
                # compared: 10,000 citations decorate at once).
                cv.set_judgements([None] * len(anns), [""] * len(anns))
                cv.reasons = ()
                continue
            before = cv.chip
            cv.set_judgements([a.verdict if a else None for a in anns],
                              [a.note if a else "" for a in anns], s.labels)
            cv.reasons = tuple(a.reasons if a else () for a in anns)
            cv.others = tuple(said)
            cv.merged = tuple((n, tuple(theirs.get((n, k)) for k in keys)) for n in names)
            if cv.chip != before:
                changed.append(cv.index)
        return changed

    # ------------------------------------------------------------------ counting

    def _start_counting(self) -> None:
        """Count the cases whose item counts the session does not hold yet (a session opened
        before has them all: nothing to do): a big session file by the background pass (which
        stores export rows too), anything else a few milliseconds per idle tick."""
        if self.counts is None:
            return
        self._counted = {}
        self._stop_fill()
        s = self.session
        if (isinstance(s, Session) and not s.readonly and len(s) >= BACKGROUND_MIN_CASES
                and self.counts.counted() < len(s)):
            # A big session file: counted in a process of its own, which stores each case's
            # export rows in the same pass (one analysis a case, none on this thread).
            try:
                self._fill = BackgroundFill(s.path)
            except OSError:
                self._fill = None  # no process to be had: counted here, as a small one is
            if self._fill is not None:
                self._count_queue, self._count_more = iter(()), False
                self._fill_timer.start()
                self.changed.emit()
                return
        self._count_queue = self.counts.iter_missing()
        self._count_more = True
        self._count_timer.start()
        self.changed.emit()

    def _stop_fill(self) -> None:
        self._fill_timer.stop()
        if self._fill is not None:
            self._fill.stop()
            self._fill = None

    def _poll_fill(self) -> None:
        """What the background process counted, taken into the progress (stored by it: here
        only remembered; a save each :data:`SAVE_SECONDS`)."""
        s, counts, fill = self.session, self.counts, self._fill
        if fill is None or s is None or counts is None or s.closed:
            self._stop_fill()
            self._counted = {}
            return
        found = self._counted
        found.update(fill.poll())
        now = time.perf_counter()
        if found and (fill.finished or now - self._saved_at >= SAVE_SECONDS):
            self._counted, self._saved_at = {}, now
            if isinstance(s, Session):  # (always: only a session file is counted so)
                s.sizes_stored(found)  # stored by the process: nothing written, nobody told
            for cid in found:
                counts.on_change(SizesKnown(cid))
            self.changed.emit()  # one repaint for the piece
        if fill.finished:
            self._stop_fill()
            if counts.counted() < len(s):
                # It stopped short (a failure, cases added meanwhile): the rest counted here.
                self._count_queue = counts.iter_missing()
                self._count_more = True
                self._count_timer.start()

    def busy(self) -> None:
        """The reviewer moved (a case is being shown): counting pauses for a while."""
        self._busy_at = time.perf_counter()
        if self._count_timer.isActive():
            self._count_timer.setInterval(int(IDLE_SECONDS * 1000))

    def _count_some(self) -> None:
        s, counts = self.session, self.counts
        if s is None or counts is None or s.closed:
            self._count_timer.stop()
            self._counted = {}
            return
        now = time.perf_counter()
        if now - self._busy_at < IDLE_SECONDS:
            self._count_timer.setInterval(int(IDLE_SECONDS * 1000))
            return
        self._count_timer.setInterval(0)
        analyser = s.analyser
        found = self._counted
        deadline = now + TICK_SECONDS
        while time.perf_counter() < deadline:
            cid = next(self._count_queue, None)
            if cid is None:
                self._count_more = False
                break
            if cid == self.showing:
                continue
            try:
                found[cid] = analyser.analysed_once(s.get_case(cid)).item_counts
            except InputError:
                found[cid] = ()  # unreadable: nothing to judge there
        if not self._count_more:
            self._count_timer.stop()
        if found and (not self._count_more or now - self._saved_at >= SAVE_SECONDS):
            self._counted, self._saved_at = {}, now
            counts.add_many(found)
            self.changed.emit()

    def progress(self) -> dict[str, int | bool]:
        """Cases done / total and citations judged / total (all sources of a citation have
        this annotator's verdict); ``complete`` once every case was counted."""
        if self.counts is None:
            return {}
        found = self.counts.counts().as_dict()
        found["counted"] = self.counts.counted()  # the background count, told as it goes
        return found

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
        self._ids = self._ids or ids
        self._problem_dataset = dataset
        self._problem_queue = [i for i in reversed(range(len(ids))) if ids[i] not in
                               self._problems]
        self._problem_timer.start()

    def _check_some_cases(self) -> None:
        ds = self._problem_dataset
        if ds is None:
            self._problem_timer.stop()
            return
        ids = ds.case_ids()
        analyser = self.session.analyser if self.session is not None else Analyser()
        deadline = time.perf_counter() + TICK_SECONDS
        while self._problem_queue and time.perf_counter() < deadline:
            i = self._problem_queue.pop()
            try:
                analysed = analyser.analysed_once(ds.get(i))
                analysed.lint  # noqa: B018 -- lint errors make a problem too: computed now
                self._problems[ids[i]] = any(analysed.problem(c.number)
                                             for c in analysed.citations)
            except InputError:  # an unreadable case is a problem to look at
                self._problems[ids[i]] = True
        if not self._problem_queue:
            self._problem_timer.stop()
        self.problemsChecked.emit()


__all__ = ["ProgressTracker", "progress_text"]
