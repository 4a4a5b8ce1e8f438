"""Edits a reviewer can undo: command objects with ``do``/``undo`` (``redo`` = ``do``).

The GUI wraps each in a ``QUndoCommand`` and pushes it on a ``QUndoStack`` (which calls
``redo``). An edit records the rows it replaces when it is made and writes old or new rows in
one committed transaction, so undo restores verdicts, notes, annotators and timestamps exactly.
Setting a verdict or note on a case not yet started marks it in progress in the same edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from citeview.core.analysis import AnalysedCitation
from citeview.session.errors import ReadOnlySession, SessionError
from citeview.session.model import (
    Annotation,
    AnnotationKey,
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


def annotation_edit(session: ReviewStore, key: AnnotationKey, *, verdict: object = _KEEP,
                    note: object = _KEEP, claim: str | None = None, recovered: bool = False,
                    annotator: str | None = None) -> Edit:
    """An edit setting the verdict and/or note of the annotation at ``key`` (``None`` verdict
    clears it). The claim text (stored to re-attach the annotation if the answer changes) and
    the recovered flag are taken from the case unless given."""
    who = session.annotator if annotator is None else annotator
    if verdict is not _KEEP and verdict is not None and verdict not in session.labels:
        raise SessionError(f"unknown verdict {verdict!r}; labels: {', '.join(session.labels)}")
    if note is not _KEEP and not isinstance(note, str):
        raise SessionError("a note must be text")
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
        annotator=who, timestamp=stamp,
        claim=old.claim if claim is None else claim,
    )
    what = "verdict" if verdict is not _KEEP else "note"
    if what == "verdict":
        text = f"Set verdict {verdict}" if verdict is not None else "Clear verdict"
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
