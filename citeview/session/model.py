"""The review model: citations numbered as the reviewer sees them, annotations and case reviews.

No Qt here: the GUI adapts these through callbacks (:mod:`citeview.session.store`) and pushes
:mod:`citeview.session.edits` commands on its ``QUndoStack``.

An annotation is a judgement of one source of one citation. Its key is (case id, citation
number, anchor, source id) plus the annotator, so several annotators' verdicts can sit side by
side in one session. Number and anchor come from the case's
:class:`~citeview.core.analysis.AnalysedCase` (the anchor is the raw marker text, or a span
descriptor for a citation without marker text: :func:`~citeview.core.analysis.citation_anchor`).
When a case's answer changes, :func:`reattach` places annotations again by anchor and claim
text; those it cannot place are kept, flagged orphaned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from citeview.core.analysis import (
    AnalysedCase,
    AnalysedCitation,
    AnalysisCache,
    analyse,
    numbering_policy,
    span_anchor_kind,
)
from citeview.core.cases import Case
from citeview.core.markers import DEFAULT_FAMILIES
from citeview.core.numbering import index_of
from citeview.session.errors import SessionError

DEFAULT_LABELS: tuple[str, ...] = ("supported", "partially supported", "unsupported",
                                   "cannot tell")


def rubric_labels(labels: Sequence[str]) -> list[str]:
    """``labels`` as a rubric (stripped): :class:`SessionError` unless distinct and non-empty.
    One rule for every store's ``set_labels``."""
    cleaned = [str(label).strip() for label in labels]
    if not cleaned or any(not label for label in cleaned) or len(set(cleaned)) != len(cleaned):
        raise SessionError("labels must be distinct non-empty names")
    return cleaned


class ReviewState(StrEnum):
    NOT_STARTED = "not started"
    IN_PROGRESS = "in progress"
    DONE = "done"


def now_iso() -> str:
    """UTC timestamp with milliseconds, e.g. ``2026-03-01T12:00:00.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True, frozen=True)
class AnnotationKey:
    """Which judgement: (case id, citation number from 1, anchor, source id).

    ``anchor`` is the citation's anchor (:func:`~citeview.core.analysis.citation_anchor`): its
    raw marker text, or ``KIND@START-END`` for a citation that has no marker text. (Export
    files, the JSON schema and the session table name it ``raw``.) Keys of a citation are made
    by :func:`annotation_key` only."""

    case_id: str
    number: int
    anchor: str
    source_id: str


def annotation_key(case_id: str, citation: AnalysedCitation, source_id: str) -> AnnotationKey:
    """The key of the judgement of ``source_id`` of ``citation`` (an analysed case's): its
    number and anchor. The one place a key is made from a citation (window, edits, tests)."""
    return AnnotationKey(case_id, citation.number, citation.anchor, source_id)


@dataclass(slots=True, frozen=True)
class Annotation:
    """A verdict and note on one source of one citation, by one annotator at one time.

    ``claim`` is the claim text when annotated (used to re-attach); ``orphaned`` is set when the
    answer changed and the citation could not be found again. ``extra`` keeps unknown keys of an
    imported session."""

    key: AnnotationKey
    annotator: str = ""
    verdict: str | None = None
    note: str = ""
    timestamp: str = ""
    claim: str = ""
    recovered: bool = False
    orphaned: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=True, hash=False)

    @property
    def case_id(self) -> str:
        return self.key.case_id

    @property
    def empty(self) -> bool:
        """No verdict and no note: nothing worth keeping."""
        return self.verdict is None and not self.note and not self.extra


@dataclass(slots=True, frozen=True)
class CaseReview:
    """One annotator's review of a whole case: state, overall verdict and note."""

    case_id: str
    annotator: str = ""
    state: ReviewState = ReviewState.NOT_STARTED
    verdict: str | None = None
    note: str = ""
    timestamp: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=True, hash=False)

    @property
    def empty(self) -> bool:
        return (self.state is ReviewState.NOT_STARTED and self.verdict is None and not self.note
                and not self.extra)


@dataclass(slots=True, frozen=True)
class CitationSlot:
    """A citation as the reviewer sees it: the analysed case's citation (numbered from 1 in
    reading order, recovered ones included and flagged, with its anchor and claim), not a copy.
    Each source id of it is judged separately."""

    analysed: AnalysedCitation

    @property
    def number(self) -> int:
        return self.analysed.number

    @property
    def anchor(self) -> str:
        return self.analysed.anchor

    @property
    def source_ids(self) -> tuple[str, ...]:
        return self.analysed.source_ids

    @property
    def locator(self) -> str | None:
        return self.analysed.citation.locator

    @property
    def start(self) -> int:
        return self.analysed.citation.start

    @property
    def end(self) -> int:
        return self.analysed.citation.end

    @property
    def claim_start(self) -> int:
        return self.analysed.claim[0]

    @property
    def claim_end(self) -> int:
        return self.analysed.claim[1]

    @property
    def claim(self) -> str:
        return self.analysed.claim_text

    @property
    def recovered(self) -> str | None:
        found = self.analysed.recovered
        return found.value if found is not None else None

    def keys(self, case_id: str) -> list[AnnotationKey]:
        return [annotation_key(case_id, self.analysed, sid) for sid in self.source_ids]


def case_citations(case: Case, families: Sequence[str] = DEFAULT_FAMILIES, *,
                   cache: AnalysisCache | None = None) -> list[CitationSlot]:
    """The citations of ``case``'s answer, numbered as its analysed case numbers them."""
    return citation_slots(analyse(case, numbering_policy(families), cache=cache))


def citation_slots(analysed: AnalysedCase) -> list[CitationSlot]:
    """The numbered citations of an analysed case, as the session keys them."""
    return [CitationSlot(c) for c in analysed.citations]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@dataclass(slots=True)
class Reattached:
    """Result of :func:`reattach`: annotations placed (possibly renumbered) and orphans."""

    placed: list[Annotation]
    orphaned: list[Annotation]


def reattach(annotations: Iterable[Annotation], slots: Sequence[CitationSlot], *,
             same_answer: bool = False) -> Reattached:
    """Place ``annotations`` on the citations of a changed answer (or of a renumbered one).

    An annotation stays where its number, anchor and claim still match; otherwise it moves
    to the nearest citation with the same anchor, the same source id and the same claim
    text (whitespace-insensitive). With ``same_answer`` (the text is unchanged, only the
    numbering moved, as after an upgrade) the claim need not match: the nearest citation with
    the same anchor and source id takes it. A citation without marker text (a provider's,
    anchored by its span, which moves with the text before it) also goes to the nearest one of
    the same kind, source id and claim text. Any other is returned orphaned (never dropped).
    Orphans that are already orphaned are re-tried, so an answer changed back re-attaches
    them."""
    by_anchor: dict[str, list[CitationSlot]] = {}
    by_kind: dict[str, list[CitationSlot]] = {}  # citations without marker text, by kind
    for each in slots:
        by_anchor.setdefault(each.anchor, []).append(each)
        kind = None if each.analysed.has_marker else span_anchor_kind(each.anchor)
        if kind is not None:
            by_kind.setdefault(kind, []).append(each)
    taken: set[tuple[int, str, str]] = set()
    placed: list[Annotation] = []
    orphans: list[Annotation] = []
    pending = sorted(annotations, key=lambda a: (a.orphaned, a.key.number))
    # Exact matches first, so a moved annotation never takes the place of one that stayed.
    rest: list[Annotation] = []
    for ann in pending:
        k = ann.key
        at = index_of(k.number)
        slot: CitationSlot | None = slots[at] if 0 <= at < len(slots) else None
        if (slot is not None and slot.anchor == k.anchor and k.source_id in slot.source_ids
                and _norm(slot.claim) == _norm(ann.claim)
                and (k.number, k.source_id, ann.annotator) not in taken):
            taken.add((k.number, k.source_id, ann.annotator))
            placed.append(replace(ann, orphaned=False, claim=slot.claim))
        else:
            rest.append(ann)
    for ann in rest:
        k = ann.key
        claim = _norm(ann.claim)
        candidates = [s for s in by_anchor.get(k.anchor, ())
                      if k.source_id in s.source_ids and _norm(s.claim) == claim
                      and (s.number, k.source_id, ann.annotator) not in taken]
        if not candidates and same_answer:
            candidates = [s for s in by_anchor.get(k.anchor, ())
                          if k.source_id in s.source_ids
                          and (s.number, k.source_id, ann.annotator) not in taken]
        kind = span_anchor_kind(k.anchor) if not candidates else None
        if kind is not None:
            # A provider's citation: its anchor is its span, which moved with the text before
            # it; the same kind of citation of the same source with the same claim is it.
            candidates = [s for s in by_kind.get(kind, ())
                          if k.source_id in s.source_ids and _norm(s.claim) == claim
                          and (s.number, k.source_id, ann.annotator) not in taken]
        if candidates:
            best = min(candidates, key=lambda s: (abs(s.number - k.number), s.number))
            taken.add((best.number, k.source_id, ann.annotator))
            placed.append(replace(ann, key=annotation_key(k.case_id, best.analysed, k.source_id),
                                  orphaned=False,
                                  claim=best.claim, recovered=best.recovered is not None))
        else:
            orphans.append(replace(ann, orphaned=True))
    return Reattached(placed, orphans)


def prefix_forms(prefix: str) -> list[str]:
    """The forms of a typed id prefix a store looks up in its ordered ids (as typed, lower,
    upper, capitalised): Go to Case ignores the case of letters as far as an index can."""
    return list(dict.fromkeys([prefix, prefix.lower(), prefix.upper(), prefix.capitalize()]))
