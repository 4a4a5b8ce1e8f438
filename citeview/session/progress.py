"""One annotator's progress over a session, kept up to date change by change.

Progress is "cases done / cases" and "citations judged / citations" (a citation is judged once
each of its sources has a verdict from this annotator, "cannot tell" included). The citation
counts of a case come from its analysed case and are stored in the session the first time it is
analysed (:meth:`Session.record_sizes`), so progress never analyses every case again; cases
never analysed yet are listed by :meth:`Progress.missing` for a background count.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from citeview.core.numbering import FIRST_NUMBER, index_of
from citeview.session.events import (
    AnnotationChanged,
    CaseChanged,
    CasesAdded,
    Change,
    MetaChanged,
    ReviewChanged,
    SizesKnown,
)
from citeview.session.model import AnnotationKey, ReviewState
from citeview.session.protocol import ReviewStore


@dataclass(slots=True, frozen=True)
class ProgressCounts:
    cases_done: int
    cases: int
    judged: int  # citations every source of which has a verdict
    citations: int  # over the cases counted so far
    complete: bool  # every case counted

    def as_dict(self) -> dict[str, int | bool]:
        return {"cases_done": self.cases_done, "cases": self.cases, "judged": self.judged,
                "citations": self.citations, "complete": self.complete}


class Progress:
    """Counts for ``annotator`` (default: the session's), updated by :meth:`on_change` (the
    session's change callback) in time proportional to the case that changed."""

    def __init__(self, session: ReviewStore, annotator: str | None = None) -> None:
        self.session = session
        self.annotator = session.annotator if annotator is None else annotator
        self._ids: Sequence[str] = []
        self._states: dict[str, ReviewState] = {}
        self._judged: dict[str, dict[int, set[str]]] = {}
        self._judged_count: dict[str, int] = {}
        self._sizes: dict[str, tuple[int, ...]] = {}
        self._done = self._judged_total = self._total = 0
        self.reload()

    # -- loading ----------------------------------------------------------------------------

    def reload(self) -> None:
        """Read everything again (a session switched, or the annotator changed)."""
        s = self.session
        # The ids read a page at a time when asked (a million-case session reopens at once).
        self._ids = s.dataset().id_window()
        self._states = s.states(self.annotator)
        self._done = sum(1 for st in self._states.values() if st is ReviewState.DONE)
        self._judged = {}
        for a in s.iter_annotations(annotator=self.annotator, orphaned=False):
            if a.verdict:
                self._judged.setdefault(a.case_id, {}).setdefault(a.key.number, set()).add(
                    a.key.source_id)
        self._sizes = dict(s.sizes())
        self._recount_all()

    def _recount_all(self) -> None:
        self._judged_count = {cid: self._count(cid) for cid in self._sizes}
        self._total = sum(len(v) for v in self._sizes.values())
        self._judged_total = sum(self._judged_count.values())

    def _count(self, case_id: str) -> int:
        sizes = self._sizes.get(case_id, ())
        got = self._judged.get(case_id, {})
        return sum(1 for n, k in enumerate(sizes, FIRST_NUMBER)
                   if k and len(got.get(n, ())) >= k)

    def _set_case(self, case_id: str) -> None:
        old = self._judged_count.get(case_id, 0)
        new = self._count(case_id) if case_id in self._sizes else 0
        self._judged_total += new - old
        if case_id in self._sizes:
            self._judged_count[case_id] = new
        else:
            self._judged_count.pop(case_id, None)

    # -- keeping up -------------------------------------------------------------------------

    def on_change(self, change: Change) -> None:
        """Follow one committed change of the session."""
        if isinstance(change, AnnotationChanged) and change.key is not None:
            self._one_annotation(change.case_id, change.key)
        elif isinstance(change, AnnotationChanged):
            cid = change.case_id
            judged: dict[int, set[str]] = {}
            for a in self.session.iter_annotations(cid, annotator=self.annotator,
                                                   orphaned=False):
                if a.verdict:
                    judged.setdefault(a.key.number, set()).add(a.key.source_id)
            self._judged[cid] = judged
            self._set_case(cid)
        elif isinstance(change, ReviewChanged):
            cid = change.case_id
            was = self._states.get(cid) is ReviewState.DONE
            state = self.session.review(cid, self.annotator).state
            self._states[cid] = state
            self._done += int(state is ReviewState.DONE) - int(was)
        elif isinstance(change, CaseChanged):
            self._drop_sizes(change.case_id)
        elif isinstance(change, SizesKnown):
            cid = change.case_id
            sizes = self.session.sizes().get(cid)
            if sizes is not None and self._sizes.get(cid) != sizes:
                self._drop_sizes(cid)
                self._sizes[cid] = sizes
                self._total += len(sizes)
                self._set_case(cid)
        elif isinstance(change, CasesAdded | MetaChanged):
            self.reload()

    def _one_annotation(self, case_id: str, key: AnnotationKey) -> None:
        """One source's verdict changed: one row read, one citation counted again (a verdict
        key in a 10,000-citation case stays a few milliseconds)."""
        a = self.session.annotation(key, self.annotator)
        sources = self._judged.setdefault(case_id, {}).setdefault(key.number, set())
        sizes = self._sizes.get(case_id)
        at = index_of(key.number)
        k = sizes[at] if sizes is not None and 0 <= at < len(sizes) else 0
        before = bool(k) and len(sources) >= k
        if a is not None and a.verdict:
            sources.add(key.source_id)
        else:
            sources.discard(key.source_id)
        after = bool(k) and len(sources) >= k
        if sizes is not None and before != after:
            delta = int(after) - int(before)
            self._judged_count[case_id] = self._judged_count.get(case_id, 0) + delta
            self._judged_total += delta

    def _drop_sizes(self, case_id: str) -> None:
        old = self._sizes.pop(case_id, None)
        if old is not None:
            self._total -= len(old)
            self._set_case(case_id)

    def add_sizes(self, case_id: str, sizes: tuple[int, ...]) -> None:
        """A case was analysed: its citations' item counts (stored in the session too)."""
        self.session.record_sizes(case_id, sizes)  # notifies: on_change takes them
        if self._sizes.get(case_id) != sizes:  # not subscribed: take them here
            self.on_change(SizesKnown(case_id))

    def add_many(self, sizes: dict[str, tuple[int, ...]]) -> None:
        """:meth:`add_sizes` for many cases, stored in one transaction."""
        self.session.record_sizes_many(sizes)
        for cid in sizes:
            if self._sizes.get(cid) != sizes[cid]:
                self.on_change(SizesKnown(cid))

    def count_case(self, case_id: str) -> None:
        """Analyse one case (the session's numbering) and take its counts."""
        self.add_sizes(case_id, self.session.analysed(case_id).item_counts)

    # -- reading ----------------------------------------------------------------------------

    def counts(self) -> ProgressCounts:
        return ProgressCounts(self._done, len(self._ids), self._judged_total, self._total,
                              len(self._sizes) >= len(self._ids))

    def counted(self) -> int:
        """How many cases' item counts are known (the citations total covers those)."""
        return len(self._sizes)

    def missing(self) -> list[str]:
        """Cases whose counts are not known yet, in session order."""
        return list(self.iter_missing())

    def iter_missing(self) -> Iterator[str]:
        """:meth:`missing`, read as it is iterated (nothing when every case is counted)."""
        if len(self._sizes) >= len(self._ids):
            return
        for cid in self._ids:
            if cid not in self._sizes:
                yield cid

    def state(self, case_id: str) -> ReviewState:
        return self._states.get(case_id, ReviewState.NOT_STARTED)

    def judged_sources(self, case_id: str, number: int) -> frozenset[str]:
        """The source ids of citation ``number`` this annotator gave a verdict."""
        return frozenset(self._judged.get(case_id, {}).get(number, ()))

    def next_not_done(self, after: int) -> int | None:
        """Index of the first case after ``after`` (wrapping) that is not done, or None."""
        n = len(self._ids)
        for step in range(1, n + 1):
            i = (after + step) % n
            if self._states.get(self._ids[i]) is not ReviewState.DONE:
                return i
        return None

    def first_not_done(self) -> int | None:
        """Where to resume: the first case not done."""
        return self.next_not_done(-1) if self._ids else None
