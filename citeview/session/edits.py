"""Edits a reviewer can undo: command objects with ``do``/``undo`` (``redo`` = ``do``).

The GUI wraps each in a ``QUndoCommand`` and pushes it on a ``QUndoStack`` (which calls
``redo``). An edit records the rows it replaces when it is made and writes old or new rows in
one committed transaction, so undo restores verdicts, notes, annotators and timestamps exactly.
Setting a verdict, note, reason, evidence or correction on a case not yet started marks it in
progress in the same edit.

Issue 30's gestures, each one edit made here and pushed by the GUI (nothing is written until
``do``/``redo``):

- evidence: :func:`evidence_edit` (the source pane's selection: code points in the source's
  text, and its [L#] lines) on the active citation's source key; :func:`remove_evidence_edit`.
- reasons: :func:`annotation_edit` with ``reasons=`` (the picker's toggled tuple, names from
  ``session.reasons``); :func:`toggle_reason` works out the tuple for one number key.
- corrections of the active citation (an :class:`AnalysedCitation` of the shown case):
  :func:`relocate_edit` (a new ``locator`` like ``"L9-L10"``; for a provider citation, a
  ``target`` span in the source's text), :func:`change_source_edit`,
  :func:`remove_citation_edit`; of the answer: :func:`add_citation_edit` (a claim span in the
  answer without a citation, and the source and lines picked in the source pane);
  :func:`reword_edit` (a prose span of the answer, outside markers, and its new text: a claim's
  wording fixed); :func:`remove_correction_edit` takes one back for good. The corrected answer is
  :func:`citeview.core.corrections.apply_corrections` of ``session.corrections(case_id)``.

Reading back (views): ``session.evidence(key=...)`` for the second highlight colour of the
active citation's source (offsets in ``Source.text``; convert to UTF-16 in ``gui/offsets.py``),
``session.annotation(key).reasons`` for the picker's ticks, ``session.corrections(case_id,
annotator=session.annotator)`` for the corrections of the case shown; redraw on
:class:`~citeview.session.events.EvidenceChanged` / ``CorrectionChanged`` (undo sends them
too). A selection becomes [L#] labels with
:func:`citeview.core.corrections.lines_of_span` and a locator with ``locator_of``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from citeview.core.analysis import AnalysedCitation
from citeview.core.corrections import (
    Correction,
    CorrectionError,
    CorrectionKind,
    reword_problem,
)
from citeview.session.errors import ReadOnlySession, SessionError
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    Evidence,
    ReviewState,
    now_iso,
)
from citeview.session.protocol import ReviewStore
from citeview.session.store import RowChange

_KEEP = object()


@dataclass(slots=True)
class Edit:
    """One undoable change: ``before`` and ``after`` hold the same rows, old and new."""

    session: ReviewStore
    text: str
    before: list[RowChange] = field(default_factory=list)
    after: list[RowChange] = field(default_factory=list)

    def do(self) -> None:
        self.session.apply(self.after)

    redo = do

    def undo(self) -> None:
        self.session.apply(self.before)


def _row(session: ReviewStore, change: RowChange) -> RowChange:
    """``change`` with the row currently stored in its place (for undo)."""
    return replace(change, new=session.current_row(change))


def _make(session: ReviewStore, text: str, changes: Sequence[RowChange]) -> Edit:
    if session.readonly:
        raise ReadOnlySession(f"{session.path}: {session.message or 'opened read-only'}")
    return Edit(session, text, [_row(session, c) for c in changes], list(changes))


def _started(session: ReviewStore, case_id: str, annotator: str, stamp: str) -> list[RowChange]:
    review = session.review(case_id, annotator)
    if review.state is not ReviewState.NOT_STARTED:
        return []
    new = replace(review, state=ReviewState.IN_PROGRESS, timestamp=stamp)
    return [RowChange("review", case_id, annotator, None, False, new)]


def _slot(session: ReviewStore, key: AnnotationKey) -> AnalysedCitation | None:
    """The citation ``key`` points at in the case as analysed, if it is there."""
    found = session.analysed(key.case_id).citation(key.number)
    if found is not None and found.anchor == key.anchor and key.source_id in found.source_ids:
        return found
    return None


def combine(text: str, *edits: Edit) -> Edit:
    """One undoable edit made of several, applied in order in one transaction (e.g. the verdict
    that completes a case and the "done" mark it brings: one undo takes back both)."""
    if not edits:
        raise ValueError("nothing to combine")
    before = [row for e in reversed(edits) for row in e.before]
    after = [row for e in edits for row in e.after]
    return Edit(edits[0].session, text, before, after)


def toggle_reason(reasons: Sequence[str], reason: str) -> tuple[str, ...]:
    """``reasons`` with ``reason`` added at the end, or taken out when it is there (the
    picker's number key)."""
    if reason in reasons:
        return tuple(r for r in reasons if r != reason)
    return (*reasons, reason)


def annotation_edit(session: ReviewStore, key: AnnotationKey, *, verdict: object = _KEEP,
                    note: object = _KEEP, claim: str | None = None, recovered: bool = False,
                    annotator: str | None = None, reasons: object = _KEEP) -> Edit:
    """An edit setting the verdict, note and/or reasons of the annotation at ``key`` (``None``
    verdict clears it; ``reasons``: a sequence of names from ``session.reasons``, in the order
    picked). The claim text (stored to re-attach the annotation if the answer changes) and
    the recovered flag are taken from the case unless given."""
    who = session.annotator if annotator is None else annotator
    if verdict is not _KEEP and verdict is not None and verdict not in session.labels:
        raise SessionError(f"unknown verdict {verdict!r}; labels: {', '.join(session.labels)}")
    if note is not _KEEP and not isinstance(note, str):
        raise SessionError("a note must be text")
    if reasons is not _KEEP:
        if isinstance(reasons, str) or not isinstance(reasons, Sequence):
            raise SessionError("reasons must be a list of names")
        unknown = [r for r in reasons if r not in session.reasons]
        if unknown:
            raise SessionError(f"unknown reason {unknown[0]!r}; reasons: "
                               f"{', '.join(session.reasons)}")
        reasons = tuple(dict.fromkeys(reasons))
    old = session.annotation(key, who)
    if old is None:
        slot = _slot(session, key)
        if claim is None and slot is not None:
            claim, recovered = slot.claim_text, slot.recovered is not None
        old = Annotation(key, who, claim=claim or "", recovered=recovered)
    stamp = now_iso()
    new = replace(
        old,
        verdict=old.verdict if verdict is _KEEP else verdict,  # type: ignore[arg-type]
        note=old.note if note is _KEEP else note,  # type: ignore[arg-type]
        reasons=old.reasons if reasons is _KEEP else reasons,  # type: ignore[arg-type]
        annotator=who, timestamp=stamp,
        claim=old.claim if claim is None else claim,
    )
    if verdict is not _KEEP:
        text = f"Set verdict {verdict}" if verdict is not None else "Clear verdict"
    elif reasons is not _KEEP:
        text = "Set reasons" if new.reasons else "Clear reasons"
    else:
        text = "Edit note"
    changes = [RowChange("annotation", key.case_id, who, key, False,
                         None if new.empty else new)]
    if not new.empty:
        changes += _started(session, key.case_id, who, stamp)
    return _make(session, f"{text} (citation {key.number}, {key.source_id})", changes)


def review_edit(session: ReviewStore, case_id: str, *, state: ReviewState | None = None,
                verdict: object = _KEEP, note: object = _KEEP,
                annotator: str | None = None) -> Edit:
    """An edit of a case review: state, overall verdict and/or note."""
    who = session.annotator if annotator is None else annotator
    if verdict is not _KEEP and verdict is not None and verdict not in session.labels:
        raise SessionError(f"unknown verdict {verdict!r}; labels: {', '.join(session.labels)}")
    old = session.review(case_id, who)
    new_state = state if state is not None else old.state
    if state is None and old.state is ReviewState.NOT_STARTED and (
            verdict is not _KEEP or note is not _KEEP):
        new_state = ReviewState.IN_PROGRESS
    new = replace(
        old, state=new_state,
        verdict=old.verdict if verdict is _KEEP else verdict,  # type: ignore[arg-type]
        note=old.note if note is _KEEP else note,  # type: ignore[arg-type]
        timestamp=now_iso(),
    )
    text = (f"Mark case {new_state.value}" if state is not None
            else "Set case verdict" if verdict is not _KEEP else "Edit case note")
    return _make(session, text, [RowChange("review", case_id, who, None, False,
                                           None if new.empty else new)])


def set_verdict(session: ReviewStore, key: AnnotationKey, verdict: str | None,
                claim: str | None = None) -> Edit:
    """Set (or clear) a verdict now; returns the done edit (to undo it)."""
    edit = annotation_edit(session, key, verdict=verdict, claim=claim)
    edit.do()
    return edit


def set_note(session: ReviewStore, key: AnnotationKey, note: str, claim: str | None = None) -> Edit:
    edit = annotation_edit(session, key, note=note, claim=claim)
    edit.do()
    return edit


def set_case(session: ReviewStore, case_id: str, *, state: ReviewState | None = None,
             verdict: object = _KEEP, note: object = _KEEP) -> Edit:
    edit = review_edit(session, case_id, state=state, verdict=verdict, note=note)
    edit.do()
    return edit


# ---------------------------------------------------------------------- evidence (issue 30)


_last_ns = 0


def new_id() -> str:
    """A fresh row id for evidence or a correction: the time it was made (nanoseconds, never
    the same twice in a process) then random, so ids sort in the order rows were made, which is
    the order corrections apply in when two share a millisecond timestamp."""
    global _last_ns
    _last_ns = max(time.time_ns(), _last_ns + 1)
    return f"{_last_ns:016x}{uuid.uuid4().hex[:16]}"


def evidence_edit(session: ReviewStore, key: AnnotationKey, start: int, end: int, *,
                  first_line: int = 0, last_line: int = 0, text: str = "",
                  annotator: str | None = None) -> Edit:
    """An edit adding evidence to the source at ``key`` of a citation: ``start``/``end`` in
    code points of the source's text as the source pane shows it, its [L#] lines, the text."""
    who = session.annotator if annotator is None else annotator
    if not 0 <= start < end:
        raise SessionError("select the text that supports the claim first")
    if first_line > last_line:
        first_line, last_line = last_line, first_line
    stamp = now_iso()
    ev = Evidence(key, who, new_id(), start, end, first_line, last_line, text, stamp)
    changes = [RowChange("evidence", key.case_id, who, key, False, ev, ev.id),
               *_started(session, key.case_id, who, stamp)]
    lines = f" {ev.lines}" if ev.lines else ""
    return _make(session, f"Mark evidence{lines} (citation {key.number}, {key.source_id})",
                 changes)


def remove_evidence_edit(session: ReviewStore, evidence: Evidence) -> Edit:
    """An edit removing one evidence span."""
    lines = f" {evidence.lines}" if evidence.lines else ""
    return _make(session, f"Remove evidence{lines} (citation {evidence.key.number})",
                 [RowChange("evidence", evidence.case_id, evidence.annotator, evidence.key,
                            False, None, evidence.id)])


# ---------------------------------------------------------------------- corrections (issue 30)


def correction_edit(session: ReviewStore, correction: Correction, text: str = "") -> Edit:
    """An edit storing ``correction`` (a new one, or replacing the one with its id)."""
    try:
        correction.check()
    except CorrectionError as err:
        raise SessionError(str(err)) from None
    changes = [RowChange("correction", correction.case_id, correction.annotator, None, False,
                         correction, correction.id),
               *_started(session, correction.case_id, correction.annotator,
                         correction.timestamp or now_iso())]
    return _make(session, text or f"Correct citation ({correction.kind.value})", changes)


def remove_correction_edit(session: ReviewStore, correction: Correction) -> Edit:
    """An edit taking back one correction."""
    return _make(session, f"Take back correction ({correction.kind.value})",
                 [RowChange("correction", correction.case_id, correction.annotator, None, False,
                            None, correction.id)])


def _correction(session: ReviewStore, case_id: str, kind: CorrectionKind,
                citation: AnalysedCitation | None, annotator: str | None, *,
                source_id: str = "", old_source_id: str = "", locator: str | None = None,
                target: tuple[int, int] | None = None,
                claim: tuple[int, int] | None = None, text: str = "") -> Correction:
    who = session.annotator if annotator is None else annotator
    number, anchor = (citation.number, citation.anchor) if citation is not None else (0, "")
    return Correction(new_id(), case_id, who, kind, number, anchor, source_id, old_source_id,
                      locator, target, claim, timestamp=now_iso(), text=text)


def relocate_edit(session: ReviewStore, case_id: str, citation: AnalysedCitation, *,
                  locator: str | None = None, target: tuple[int, int] | None = None,
                  source_id: str = "", annotator: str | None = None) -> Edit:
    """Change the lines ``citation`` cites: ``locator`` (``L9-L10``; None: the whole source),
    or for a citation without marker text (a provider's) its ``target`` span in the source's
    text; ``source_id``: only that one of its sources."""
    corr = _correction(session, case_id, CorrectionKind.RELOCATE, citation, annotator,
                       source_id=source_id, locator=locator, target=target)
    where = locator or (f"{target[0]}-{target[1]}" if target else "whole source")
    return correction_edit(session, corr, f"Cite {where} (citation {citation.number})")


def change_source_edit(session: ReviewStore, case_id: str, citation: AnalysedCitation,
                       source_id: str, *, old_source_id: str = "", locator: str | None = None,
                       target: tuple[int, int] | None = None,
                       annotator: str | None = None) -> Edit:
    """Make ``citation`` cite ``source_id`` (with ``locator`` or ``target``) instead of
    ``old_source_id`` ("" = its first source)."""
    corr = _correction(session, case_id, CorrectionKind.CHANGE_SOURCE, citation, annotator,
                       source_id=source_id, old_source_id=old_source_id, locator=locator,
                       target=target)
    return correction_edit(session, corr, f"Cite {source_id} (citation {citation.number})")


def remove_citation_edit(session: ReviewStore, case_id: str, citation: AnalysedCitation, *,
                         annotator: str | None = None) -> Edit:
    """Say ``citation`` should not be there."""
    corr = _correction(session, case_id, CorrectionKind.REMOVE, citation, annotator)
    return correction_edit(session, corr, f"Remove citation {citation.number}")


def add_citation_edit(session: ReviewStore, case_id: str, claim: tuple[int, int],
                      source_id: str, *, locator: str | None = None,
                      target: tuple[int, int] | None = None,
                      annotator: str | None = None) -> Edit:
    """Say the claim at ``claim`` (code points in the answer) needs a citation of
    ``source_id`` (``locator`` lines, or a provider case's ``target`` span)."""
    if not 0 <= claim[0] < claim[1]:
        raise SessionError("select the claim in the answer first")
    corr = _correction(session, case_id, CorrectionKind.ADD, None, annotator,
                       source_id=source_id, locator=locator, target=target, claim=claim)
    return correction_edit(session, corr, f"Add a citation of {source_id}")


def reword_edit(session: ReviewStore, case_id: str, span: tuple[int, int], text: str, *,
                replacing: Correction | None = None, annotator: str | None = None) -> Edit:
    """Say the answer's prose at ``span`` (code points in the answer, outside every marker)
    should read ``text``; ``replacing``: an earlier reword of the same span, whose row this
    one takes the place of (undo brings it back). :class:`SessionError` (one line) for a span
    that is empty or cuts through a citation's marker."""
    if not 0 <= span[0] < span[1]:
        raise SessionError("select the words to reword in the answer first")
    corr = _correction(session, case_id, CorrectionKind.REWORD, None, annotator, claim=span,
                       text=text)
    if replacing is not None:
        corr = replace(corr, id=replacing.id)
    problem = reword_problem(session.analysed(case_id), corr)
    if problem is not None:
        raise SessionError(f"cannot reword: {problem}")
    for other in session.corrections(case_id, annotator=corr.annotator):
        if (other.kind is CorrectionKind.REWORD and other.claim is not None
                and other.id != corr.id and other.claim != span
                and other.claim[0] < span[1] and span[0] < other.claim[1]):
            raise SessionError("cannot reword: the words overlap ones you reworded before "
                               "(select those whole to edit that reword)")
    return correction_edit(session, corr, "Reword the answer")
