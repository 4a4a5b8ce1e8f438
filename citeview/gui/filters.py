"""Filters: which citations the table lists (and J/K visit), which cases the list shows.

A filter is a :class:`Filter`: a :class:`FilterKind`, plus the label for a verdict filter. The
two boxes sit in the headers of the citations table and the cases list; their choices follow the
session's rubric (one "Verdict: ..." per label).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox

from citeview.core.diagnostics import Severity
from citeview.gui.state import CitationView
from citeview.gui.tables import IssueRow
from citeview.session.events import (
    AnnotationChanged,
    CaseChanged,
    Change,
    CorrectionChanged,
    EvidenceChanged,
    ReviewChanged,
    SizesKnown,
)
from citeview.session.model import ReviewState

if TYPE_CHECKING:
    from citeview.gui.progress import ProgressTracker
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.tables import FilterProxy
    from citeview.gui.window_state import WindowState


class FilterKind(Enum):
    ALL = "all"
    NOT_JUDGED = "not judged"  # citations without this annotator's verdict
    NOT_DONE = "not done"  # cases
    DONE = "done"  # cases
    PROBLEMS = "problems"  # citations with a problem; cases with such a citation
    VERDICT = "verdict"  # citations (cases) with this verdict: Filter.label
    NOTE = "note"  # citations with a note of this annotator's
    STATUS = "status"  # citations resolved with this status (one of a source's): Filter.label
    CODE = "code"  # citations (and findings) with this lint code: Filter.label


_PREFIX = {FilterKind.VERDICT: "Verdict", FilterKind.STATUS: "Status", FilterKind.CODE: "Lint"}


@dataclass(frozen=True, slots=True)
class Filter:
    kind: FilterKind
    label: str = ""  # the verdict, status or lint code of a VERDICT, STATUS, CODE filter

    @classmethod
    def verdict(cls, label: str) -> Filter:
        return cls(FilterKind.VERDICT, label)

    @property
    def text(self) -> str:
        """What the filter box says."""
        prefix = _PREFIX.get(self.kind)
        return f"{prefix}: {self.label}" if prefix else ""


CITATION_FILTERS = (("All citations", FilterKind.ALL), ("Not yet judged", FilterKind.NOT_JUDGED),
                    ("Problems only", FilterKind.PROBLEMS), ("Has a note", FilterKind.NOTE))
CASE_FILTERS = (("All cases", FilterKind.ALL), ("Not done", FilterKind.NOT_DONE),
                ("Done", FilterKind.DONE), ("Problems only", FilterKind.PROBLEMS),
                ("Has a note", FilterKind.NOTE))
_ALL = Filter(FilterKind.ALL)


class Filters(QObject):
    """The two filter boxes and the row predicates they set on the window's tables."""

    def __init__(self, state: WindowState, citations_proxy: FilterProxy,
                 cases_proxy: FilterProxy, progress: ProgressTracker,
                 review_session: ReviewSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.citations_proxy, self.cases_proxy = citations_proxy, cases_proxy
        self.progress = progress
        self.review_session = review_session
        self.citations_box = QComboBox()
        self.citations_box.setObjectName("citations-filter")
        self.citations_box.setToolTip("Which citations the table lists (and J/K visit)")
        self.citations_box.currentIndexChanged.connect(lambda _i: self.apply_citations())
        self.cases_box = QComboBox()
        self.cases_box.setObjectName("cases-filter")
        self.cases_box.setToolTip("Which cases the list shows")
        self.cases_box.currentIndexChanged.connect(lambda _i: self.apply_cases())
        self._labels: tuple[str, ...] = ()
        self._case_choices: tuple[Filter, ...] = ()  # the shown case's statuses and codes
        self._noted: set[str] | None = None  # cases "Has a note" lists, while it is chosen

    def fill(self, labels: Sequence[str]) -> None:
        """Filter choices: all, not yet judged / not done / done, problems only, has a note,
        and one per verdict label (the citations' box adds the shown case's statuses and lint
        codes: :meth:`fill_case`); back to showing everything."""
        self._labels = tuple(labels)
        self._case_choices = ()
        for box, first in ((self.citations_box, CITATION_FILTERS),
                           (self.cases_box, CASE_FILTERS)):
            box.blockSignals(True)
            box.clear()
            for text, kind in first:
                box.addItem(text, Filter(kind))
            for label in labels:
                f = Filter.verdict(label)
                box.addItem(f.text, f)
            box.blockSignals(False)
        self.apply_citations()
        self.apply_cases()

    def fill_case(self) -> None:
        """The citations' box offers the statuses and lint codes of the case shown (codes not
        in blind mode), after the fixed choices; the chosen filter stays chosen (offered while
        chosen, so J/K through the next cases keep it)."""
        view = self.state.view
        found: list[Filter] = []
        if view is not None:
            statuses = dict.fromkeys(s for c in view.citations for s in c.statuses)
            found += [Filter(FilterKind.STATUS, s) for s in statuses]
            if not self.state.blind:
                codes = sorted({d.code for d in view.diagnostics}
                               | {d.code for c in view.citations for d in c.diagnostics})
                found += [Filter(FilterKind.CODE, code) for code in codes]
        chosen = self.citations_filter()
        if chosen.kind in (FilterKind.STATUS, FilterKind.CODE) and chosen not in found:
            found.append(chosen)
        if tuple(found) == self._case_choices:
            return
        self._case_choices = tuple(found)
        box = self.citations_box
        box.blockSignals(True)
        fixed = len(CITATION_FILTERS) + len(self._labels)
        while box.count() > fixed:
            box.removeItem(box.count() - 1)
        for f in found:
            box.addItem(f.text, f)
        _choose(box, chosen)
        box.blockSignals(False)

    def set_citations_filter(self, f: Filter | FilterKind) -> None:
        _choose(self.citations_box, f)

    def set_cases_filter(self, f: Filter | FilterKind) -> None:
        _choose(self.cases_box, f)

    def citations_filter(self) -> Filter:
        f = self.citations_box.currentData()
        return f if isinstance(f, Filter) else _ALL

    def cases_filter(self) -> Filter:
        f = self.cases_box.currentData()
        return f if isinstance(f, Filter) else _ALL

    def wants(self, cv: CitationView) -> bool:
        """Whether the citations table lists ``cv`` (J/K visit only those)."""
        pred = self.citations_proxy.row_filter
        return pred is None or bool(pred(IssueRow(cv)))

    def apply_citations(self) -> None:
        f = self.citations_filter()
        blind = self.state.blind

        def accept(row: IssueRow) -> bool:
            c = row.citation
            if c is None:  # a diagnostic no citation explains
                d = row.diagnostic
                if blind or d is None:
                    return False
                return f.kind is FilterKind.ALL or (
                    f.kind is FilterKind.PROBLEMS and d.severity is Severity.ERROR) or (
                    f.kind is FilterKind.CODE and d.code == f.label)
            if f.kind is FilterKind.NOT_JUDGED:
                return not c.verdict
            if f.kind is FilterKind.PROBLEMS:
                return bool(c.problem)
            if f.kind is FilterKind.VERDICT:
                return f.label in c.verdicts
            if f.kind is FilterKind.NOTE:
                return any(c.notes)
            if f.kind is FilterKind.STATUS:
                return f.label in c.statuses
            if f.kind is FilterKind.CODE:
                return not blind and any(d.code == f.label for d in c.diagnostics)
            return True

        self.citations_proxy.set_row_filter(
            None if f.kind is FilterKind.ALL and not blind else accept)

    def apply_cases(self) -> None:
        f = self.cases_filter()
        progress = self.progress
        if f.kind is FilterKind.PROBLEMS:
            progress.check_problems(self.state.dataset)

        self._noted = self._noted_cases() if f.kind is FilterKind.NOTE else None
        noted = self._noted if self._noted is not None else set()

        def accept(row: tuple[int, str]) -> bool:
            i, cid = row
            if f.kind is FilterKind.NOTE:
                return cid in noted
            done = progress.case_state(cid) is ReviewState.DONE
            if f.kind is FilterKind.NOT_DONE:
                return not done
            if f.kind is FilterKind.DONE:
                return done
            if f.kind is FilterKind.PROBLEMS:
                return bool(progress.case_problem(i))
            if f.kind is FilterKind.VERDICT:
                return progress.case_verdict(cid) == f.label
            return True

        self.cases_proxy.set_row_filter(None if f.kind is FilterKind.ALL else accept)


    def session_changed(self, change: Change) -> None:
        """A change committed: while "Has a note" lists the cases, the notes of the case it
        changed are read again (every case's after a change to the session as a whole)."""
        noted = self._noted
        if self.cases_filter().kind is not FilterKind.NOTE or noted is None:
            return
        if isinstance(change, (EvidenceChanged, CorrectionChanged, SizesKnown)):
            return  # no note changed
        if not isinstance(change, (AnnotationChanged, ReviewChanged, CaseChanged)):
            self.apply_cases()
            return
        cid = change.case_id
        if self._has_note(cid) != (cid in noted):
            noted.symmetric_difference_update((cid,))
            self.cases_proxy.invalidate_rows()

    def _has_note(self, case_id: str) -> bool:
        """Whether ``case_id`` has a note of this annotator's (see :meth:`_noted_cases`)."""
        s = self.review_session.session
        if s is None:
            return False
        me = s.annotator
        return bool(s.review(case_id, me).note) or any(
            a.note for a in s.iter_annotations(case_id, annotator=me))

    def _noted_cases(self) -> set[str]:
        """Cases with a note of this annotator's: on the case, or on one of its citations
        (read when the filter is chosen, and again after a note changes)."""
        s = self.review_session.session
        if s is None:
            return set()
        me = s.annotator
        noted = {a.key.case_id for a in s.iter_annotations(annotator=me) if a.note}
        noted |= {r.case_id for r in s.reviews() if r.note and r.annotator == me}
        return noted


def _choose(box: QComboBox, f: Filter | FilterKind) -> None:
    """Select ``f`` in ``box`` (the first choice, all, when it is not offered)."""
    wanted = f if isinstance(f, Filter) else Filter(f)
    index = next((i for i in range(box.count()) if box.itemData(i) == wanted), 0)
    box.setCurrentIndex(index)


__all__ = ["CASE_FILTERS", "CITATION_FILTERS", "Filter", "FilterKind", "Filters"]
