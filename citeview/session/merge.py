"""Merging two annotators' sessions, and adjudicating where they disagree.

:func:`merge_sessions` writes a new session holding both sessions' cases and both annotators'
verdicts side by side (annotations are keyed by annotator, so nothing is overwritten). A name
used in both sessions (or no name) is told apart by the session it came from, e.g.
``ana (A)`` and ``ana (B)``; the session's meta ``merged`` records the renaming. When a case's
answer differs between the two, the second session's annotations are re-attached to the first
one's answer (those that cannot be placed are kept, orphaned).

Adjudication: a final verdict is an annotation by the reserved annotator :data:`ADJUDICATED`
(the adjudicator's own name is kept in its ``extra``), written by an undoable edit
(:func:`adjudication_edit`, for the GUI's ``QUndoStack``). :func:`iter_disagreements` yields the
citations the annotators judged differently, in case and citation order, with the final verdict
if one was recorded. The report counts an adjudicated verdict in place of the others.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from citeview.core.errors import InputError
from citeview.session.edits import Edit
from citeview.session.errors import ReadOnlySession, SessionError
from citeview.session.interchange import (
    FORMAT,
    VERSION,
    annotation_json,
    correction_json,
    evidence_json,
    import_document,
    review_json,
)
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    citation_slots,
    now_iso,
    reattach,
)
from citeview.session.protocol import ReviewStore
from citeview.session.store import RowChange

ADJUDICATED = "(adjudicated)"
MERGE_META = "merged"


@dataclass(slots=True)
class MergeReport:
    """What :func:`merge_sessions` did: the annotator names each input got, the cases only one
    input had, the cases whose content differed (the first input's kept) and how many
    annotations of the second input could not be re-attached to a changed answer."""

    path: str
    renamed: list[dict[str, str]]
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)
    orphaned: int = 0


def _names(session: ReviewStore) -> set[str]:
    names = {a.annotator for a in session.iter_annotations()}
    names.update(r.annotator for r in session.reviews())
    names.update(e.annotator for e in session.evidence())
    names.update(c.annotator for c in session.corrections())
    return names


def _tags(a: ReviewStore, b: ReviewStore) -> tuple[str, str]:
    na, nb = a.name, b.name
    if na == nb:
        return "A", "B"
    return na, nb


def merge_sessions(a: ReviewStore, b: ReviewStore, path: str, *, overwrite: bool = False
                   ) -> tuple[ReviewStore, MergeReport]:
    """A new session at ``path`` holding ``a`` and ``b`` side by side (module docstring)."""
    if os.path.abspath(path) in (os.path.abspath(a.path), os.path.abspath(b.path)):
        raise InputError(f"{path}: the merged session must be a new file, not an input")
    names_a, names_b = _names(a), _names(b)
    tag_a, tag_b = _tags(a, b)
    shared = names_a & names_b

    def rename(name: str, tag: str) -> str:
        if name == ADJUDICATED and name not in shared:
            return name
        if not name:
            return tag
        return f"{name} ({tag})" if name in shared else name

    map_a = {n: rename(n, tag_a) for n in sorted(names_a)}
    map_b = {n: rename(n, tag_b) for n in sorted(names_b)}
    ids_a = a.case_ids()
    ids_b = b.case_ids()
    set_a, set_b = set(ids_a), set(ids_b)
    report = MergeReport(path, [map_a, map_b], [c for c in ids_a if c not in set_b],
                         [c for c in ids_b if c not in set_a])
    labels = list(dict.fromkeys([*a.labels, *b.labels]))
    meta: dict[str, Any] = {
        "name": Path(path).stem, "labels": labels, "blind": a.blind or b.blind,
        "families": list(a.families), "created": now_iso(),
        MERGE_META: {"from": [
            {"path": os.path.abspath(s.path), "name": s.name, "annotators": m}
            for s, m in ((a, map_a), (b, map_b))], "adjudicator": ADJUDICATED},
    }
    data_a = {cid: a.case_data(cid) for cid in ids_a}  # read once: copied, then compared
    cases = [*data_a.values(), *(b.case_data(cid) for cid in report.only_b)]
    reviews = [review_json(replace(r, annotator=map_a[r.annotator])) for r in a.reviews()]
    reviews += [review_json(replace(r, annotator=map_b[r.annotator])) for r in b.reviews()]
    anns = [annotation_json(replace(x, annotator=map_a[x.annotator]))
            for x in a.iter_annotations()]
    for cid in ids_b:
        theirs = [replace(x, annotator=map_b[x.annotator]) for x in b.annotations(cid)]
        if cid in set_a and data_a[cid] != b.case_data(cid):
            report.differing.append(cid)
            ours, other = a.get_case(cid), b.get_case(cid)
            if ours.answer != other.answer:
                moved = reattach(theirs, citation_slots(a.analysed(ours)))
                report.orphaned += len(moved.orphaned)
                theirs = [*moved.placed, *moved.orphaned]
        anns.extend(annotation_json(x) for x in theirs)
    # Issue 30: both reason lists, and both sides' evidence and corrections, renamed like the
    # verdicts (an id both have, from a common copy, gets its side's tag).
    meta["reasons"] = list(dict.fromkeys([*a.reasons, *b.reasons]))
    evidence: list[dict[str, Any]] = []
    corrections: list[dict[str, Any]] = []
    seen_ids: set[str] = set()
    for side, names, tag in ((a, map_a, tag_a), (b, map_b, tag_b)):
        for ev in side.evidence():
            ev_id = ev.id if ev.id not in seen_ids else f"{ev.id}-{tag}"
            seen_ids.add(ev_id)
            evidence.append(evidence_json(replace(ev, annotator=names[ev.annotator],
                                                  id=ev_id)))
        for corr in side.corrections():
            c_id = corr.id if corr.id not in seen_ids else f"{corr.id}-{tag}"
            seen_ids.add(c_id)
            corrections.append(correction_json(replace(corr, annotator=names[corr.annotator],
                                                       id=c_id)))
    doc = {"format": FORMAT, "version": VERSION, "meta": meta, "cases": cases,
           "reviews": reviews, "annotations": anns, "evidence": evidence,
           "corrections": corrections}
    return import_document(doc, path, overwrite=overwrite), report


def merged_annotators(session: ReviewStore) -> list[str]:
    """The annotators whose verdicts sit side by side (adjudication excluded), in input order
    for a merged session, else alphabetically."""
    info = session.meta.get(MERGE_META)
    names: list[str] = []
    if isinstance(info, dict):
        for part in info.get("from", []):
            if isinstance(part, dict) and isinstance(part.get("annotators"), dict):
                names.extend(str(v) for v in part["annotators"].values())
    if not names:
        names = sorted({x.annotator for x in session.iter_annotations()})
    return [n for n in dict.fromkeys(names) if n != ADJUDICATED]


@dataclass(slots=True)
class Disagreement:
    """A citation source the annotators judged differently: each one's annotation, and the
    adjudicated one if recorded."""

    key: AnnotationKey
    claim: str
    annotations: dict[str, Annotation]
    final: Annotation | None

    @property
    def verdicts(self) -> dict[str, str | None]:
        return {name: a.verdict for name, a in self.annotations.items()}


def iter_disagreements(session: ReviewStore, *, pending_only: bool = False
                       ) -> Iterator[Disagreement]:
    """Citation sources where at least two annotators gave different verdicts (both gave one),
    in case and citation order; ``pending_only`` skips those already adjudicated."""
    group: list[Annotation] = []
    for ann in session.iter_annotations(orphaned=False):
        if group and ann.key != group[0].key:
            found = _disagreement(group, pending_only)
            if found is not None:
                yield found
            group = []
        group.append(ann)
    if group:
        found = _disagreement(group, pending_only)
        if found is not None:
            yield found


def _disagreement(group: list[Annotation], pending_only: bool) -> Disagreement | None:
    final = next((a for a in group if a.annotator == ADJUDICATED), None)
    judged = {a.annotator: a for a in group if a.annotator != ADJUDICATED
              and a.verdict is not None}
    if len({a.verdict for a in judged.values()}) < 2:
        return None
    if pending_only and final is not None and final.verdict is not None:
        return None
    claim = next((a.claim for a in group if a.claim), "")
    return Disagreement(group[0].key, claim, judged, final)


def adjudication_edit(session: ReviewStore, key: AnnotationKey, verdict: str | None,
                      note: str = "", adjudicator: str | None = None) -> Edit:
    """An undoable edit recording (or, with no verdict and no note, removing) the final
    verdict of ``key``. ``adjudicator`` defaults to the session's annotator."""
    if session.readonly:
        raise ReadOnlySession(f"{session.path}: {session.message or 'opened read-only'}")
    if verdict is not None and verdict not in session.labels:
        raise SessionError(f"unknown verdict {verdict!r}; labels: {', '.join(session.labels)}")
    who = session.annotator if adjudicator is None else adjudicator
    old = session.annotation(key, ADJUDICATED)
    new: Annotation | None = None
    if verdict is not None or note:
        claim = old.claim if old is not None else next(
            (a.claim for a in session.annotations(key.case_id, orphaned=False)
             if a.key == key and a.claim), "")
        new = Annotation(key, ADJUDICATED, verdict, note, now_iso(), claim,
                         extra={"adjudicator": who} if who else {})
    change = RowChange("annotation", key.case_id, ADJUDICATED, key, False, new)
    before = replace(change, new=old)
    text = (f"Adjudicate {verdict}" if verdict is not None else "Clear adjudication")
    return Edit(session, f"{text} (citation {key.number}, {key.source_id})", [before], [change])


def adjudicate(session: ReviewStore, key: AnnotationKey, verdict: str | None, note: str = "",
               adjudicator: str | None = None) -> Edit:
    """Record a final verdict now; returns the done edit (to undo it)."""
    edit = adjudication_edit(session, key, verdict, note, adjudicator)
    edit.do()
    return edit
