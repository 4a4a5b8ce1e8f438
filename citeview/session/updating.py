"""A case brought up to date with its input, the same in every store: what its rows become when
its answer changed (:func:`moved_rows`), and which cases of an input are new or changed
(:func:`sync_cases`). The file, memory and server stores each wrote these steps; each now only
writes what they decide."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from citeview.core.analysis import AnalysedCase
from citeview.core.cases import Case
from citeview.core.corrections import Correction
from citeview.core.datasets import Dataset
from citeview.session.jsonio import dumps_json
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    Evidence,
    Reattached,
    citation_slots,
    reattach,
    reattach_marks,
)


class _Store(Protocol):
    """What these steps read and write of a store (a part of
    :class:`~citeview.session.protocol.ReviewStore`: the file store's mixins are one too)."""

    def analysed(self, case: str | Case) -> AnalysedCase: ...
    def annotations(self, case_id: str | None = None) -> list[Annotation]: ...
    def evidence(self, case_id: str | None = None, *,
                 key: AnnotationKey | None = None) -> list[Evidence]: ...
    def corrections(self, case_id: str | None = None) -> list[Correction]: ...
    def get_case(self, case_id: str) -> Case: ...
    def update_case(self, case: Case) -> Reattached: ...
    def add_cases(self, cases: Iterable[Case]) -> list[str]: ...


@dataclass(slots=True, frozen=True)
class MovedRows:
    """A changed case's rows in its new answer: annotations placed or orphaned, evidence and
    corrections moved (or kept as they were)."""

    annotations: Reattached
    evidence: list[Evidence]
    corrections: list[Correction]


def moved_rows(store: _Store, old: Case, case: Case) -> MovedRows:
    """Where the rows of ``old`` go in ``case`` (the same case, its answer changed)."""
    new_slots = citation_slots(store.analysed(case))
    placed = reattach(store.annotations(case.id), new_slots)
    marks, fixes = reattach_marks(store.evidence(case.id), store.corrections(case.id),
                                  citation_slots(store.analysed(old)), new_slots, old.answer,
                                  case.answer)
    return MovedRows(placed, marks, fixes)


def sync_cases(store: _Store, dataset: Dataset,
               stored: Callable[[str], str | None]) -> dict[str, Reattached]:
    """Bring ``store`` up to date with its input: new cases are copied in, changed ones updated
    (annotations re-attached); cases gone from the input stay. ``stored``: a case's stored JSON
    (None when the store has no such case). Returns the re-attachment of each case whose answer
    changed."""
    new: list[Case] = []
    changed: dict[str, Reattached] = {}
    for case in dataset.iter_cases():
        data = stored(case.id)
        if data is None:
            new.append(case)
        elif dumps_json(case.to_dict()) != data:
            answer_changed = store.get_case(case.id).answer != case.answer
            result = store.update_case(case)
            if answer_changed:
                changed[case.id] = result
    store.add_cases(new)
    return changed


__all__ = ["MovedRows", "moved_rows", "sync_cases"]
