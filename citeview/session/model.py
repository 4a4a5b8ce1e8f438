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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, NamedTuple

from citeview.core.analysis import (
    AnalysedCase,
    AnalysedCitation,
    AnalysisCache,
    analyse,
    numbering_policy,
    span_anchor_kind,
)
from citeview.core.cases import Case
from citeview.core.corrections import ORPHANED_CLAIM, Correction
from citeview.core.markers import DEFAULT_FAMILIES
from citeview.core.numbering import index_of
from citeview.session.errors import SessionError

DEFAULT_LABELS: tuple[str, ...] = ("supported", "partially supported", "unsupported",
                                   "cannot tell")


# Why a citation fails, offered by the reason picker (number keys 1, 2, ... in this order); a
# session's own list is its meta "reasons" (:func:`rubric_reasons`).
DEFAULT_REASONS: tuple[str, ...] = (
    "wrong source", "right source, wrong lines", "number or date differs",
    "inference the source does not make", "outdated source", "claim needed no citation")


def rubric_reasons(reasons: Sequence[str]) -> list[str]:
    """``reasons`` as a session's reason list (stripped): :class:`SessionError` unless distinct
    and non-empty names (the list itself may be empty: no reasons asked for)."""
    cleaned = [str(reason).strip() for reason in reasons]
    if any(not reason for reason in cleaned) or len(set(cleaned)) != len(cleaned):
        raise SessionError("reasons must be distinct non-empty names")
    return cleaned


def stored_reasons(value: object) -> tuple[str, ...] | None:
    """A session's reason list as its meta holds it (``value``: the meta's "reasons", None when
    unset: the defaults); None when it is not a list of names (the store reports damage)."""
    if value is None:
        return DEFAULT_REASONS
    if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
        return None
    return tuple(value)


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


def index_not_done(ids: Iterable[str], states: Mapping[str, ReviewState]) -> int | None:
    """Index in ``ids`` of the first case ``states`` does not have done (where to resume)."""
    return next((i for i, cid in enumerate(ids) if states.get(cid) is not ReviewState.DONE),
                None)


class ReviewTally(NamedTuple):
    """One annotator's cases by review state: what a team's progress shows of them."""

    done: int
    in_progress: int


def tally_reviews(reviews: Iterable[CaseReview]) -> dict[str, ReviewTally]:
    """Per annotator of ``reviews`` (a review without one is nobody's): cases done and in
    progress; an annotator with only reviews not started counts (0, 0)."""
    found: dict[str, ReviewTally] = {}
    for r in reviews:
        if r.annotator:
            done, started = found.get(r.annotator, (0, 0))
            found[r.annotator] = ReviewTally(done + (r.state is ReviewState.DONE),
                                             started + (r.state is ReviewState.IN_PROGRESS))
    return found


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
    imported session. ``reasons`` are why it fails (names from the session's reason list, in
    the order picked; several per verdict)."""

    key: AnnotationKey
    annotator: str = ""
    verdict: str | None = None
    note: str = ""
    timestamp: str = ""
    claim: str = ""
    recovered: bool = False
    orphaned: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=True, hash=False)
    reasons: tuple[str, ...] = ()

    @property
    def case_id(self) -> str:
        return self.key.case_id

    @property
    def empty(self) -> bool:
        """No verdict, no note and no reason: nothing worth keeping."""
        return self.verdict is None and not self.note and not self.extra and not self.reasons


@dataclass(slots=True, frozen=True)
class Evidence:
    """A span of a cited source that a reviewer marked as where the support really is, for
    one source of one citation (``key``, as an annotation's), by one annotator. Several per
    source; each is its own row (``id``), removed on its own.

    ``start``/``end`` are code points in the source's citable text as the source pane shows it
    (:attr:`citeview.core.material.Source.text`); ``first_line``/``last_line`` the [L#] labels
    of the lines it touches (0 when the source has no line labels); ``text`` is the marked text
    (kept so an export reads without the case)."""

    key: AnnotationKey
    annotator: str
    id: str
    start: int
    end: int
    first_line: int = 0
    last_line: int = 0
    text: str = ""
    timestamp: str = ""

    @property
    def case_id(self) -> str:
        return self.key.case_id

    @property
    def lines(self) -> str:
        """The line range as a locator (``L9`` or ``L9-L10``), "" without line labels."""
        if self.first_line <= 0:
            return ""
        if self.first_line == self.last_line:
            return f"L{self.first_line}"
        return f"L{self.first_line}-L{self.last_line}"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "number": self.key.number, "raw": self.key.anchor,
                "source_id": self.key.source_id, "annotator": self.annotator,
                "start": self.start, "end": self.end, "first_line": self.first_line,
                "last_line": self.last_line, "text": self.text, "timestamp": self.timestamp}

    @classmethod
    def from_dict(cls, case_id: str, data: dict[str, Any]) -> Evidence:
        """The evidence of an export row (:meth:`to_dict`); ``ValueError`` when malformed."""
        ints = [data.get(k, 0) for k in ("number", "start", "end", "first_line", "last_line")]
        texts = [data.get(k, "") for k in ("id", "raw", "source_id", "annotator", "text",
                                           "timestamp")]
        if (any(type(v) is not int or v < 0 for v in ints)
                or any(not isinstance(v, str) for v in texts) or ints[1] > ints[2]
                or ints[0] < 1 or not texts[0]):
            raise ValueError(f"case {case_id!r}: malformed evidence {str(data)[:80]}")
        return cls(AnnotationKey(case_id, ints[0], texts[1], texts[2]), texts[3], texts[0],
                   ints[1], ints[2], ints[3], ints[4], texts[4], texts[5])


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


def reattach_marks(evidence: Sequence[Evidence], corrections: Sequence[Correction],
                   old: Sequence[CitationSlot], new: Sequence[CitationSlot], old_answer: str,
                   new_answer: str) -> tuple[list[Evidence], list[Correction]]:
    """Evidence and corrections (:class:`~citeview.core.corrections.Correction`) of a case
    whose answer changed, moved to their citations in the new answer as :func:`reattach`
    moves verdicts (same anchor, source and claim); an added citation's claim span follows
    its text. What cannot be placed is kept as it was (never dropped)."""
    by_number = {s.number: s for s in old}

    def placed(key: AnnotationKey, tag: str) -> AnnotationKey | None:
        slot = by_number.get(key.number)
        if slot is None or slot.anchor != key.anchor:
            return None
        probe = Annotation(key, tag, claim=slot.claim)
        moved = reattach([probe], new)
        return moved.placed[0].key if moved.placed else None

    out_ev = []
    for ev in evidence:
        key = placed(ev.key, "\0" + ev.id)
        out_ev.append(replace(ev, key=key) if key is not None else ev)
    out_corr = []
    for corr in corrections:
        if corr.number:
            slot = by_number.get(corr.number)
            sid = slot.source_ids[0] if slot is not None and slot.source_ids else ""
            key = placed(AnnotationKey(corr.case_id, corr.number, corr.anchor, sid),
                         "\0" + corr.id)
            out_corr.append(replace(corr, number=key.number, anchor=key.anchor)
                            if key is not None else corr)
        elif corr.claim is not None:
            if corr.extra.get(ORPHANED_CLAIM):  # its claim text, kept from when it was placed
                text = str(corr.extra.get("claim_text", ""))
            else:
                text = old_answer[corr.claim[0]:corr.claim[1]]
            at = new_answer.find(text) if text else -1
            if at >= 0:
                rest = {k: v for k, v in corr.extra.items()
                        if k not in (ORPHANED_CLAIM, "claim_text")}
                out_corr.append(replace(corr, claim=(at, at + len(text)), extra=rest))
            else:  # kept, flagged (exported as an orphaned row), with the text to find later
                out_corr.append(replace(corr, extra={**corr.extra, ORPHANED_CLAIM: True,
                                                     "claim_text": text}))
        else:
            out_corr.append(corr)
    return out_ev, out_corr


def prefix_forms(prefix: str) -> list[str]:
    """The forms of a typed id prefix a store looks up in its ordered ids (as typed, lower,
    upper, capitalised): Go to Case ignores the case of letters as far as an index can."""
    return list(dict.fromkeys([prefix, prefix.lower(), prefix.upper(), prefix.capitalize()]))
