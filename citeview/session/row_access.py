"""What every store reads and writes the same way, over its own few primitives: a row written
as one :class:`~citeview.session.protocol.RowChange` (the ``put_*`` and ``delete_*`` are one
``apply`` each: :class:`RowWrites`), and the annotation lists read through
``iter_annotations`` (:class:`RowReads`). Mixins for the file, memory, server and outbox stores
(each wrote these lines)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence

from citeview.core.corrections import Correction
from citeview.session.model import Annotation, AnnotationKey, CaseReview, Evidence
from citeview.session.protocol import RowChange

OpId = str | uuid.UUID | None


def _op(op_id: OpId) -> str | None:
    return None if op_id is None else str(op_id)


class RowWrites:
    """``put_annotation``, ``put_review``, ``put_evidence``, ``delete_evidence``,
    ``put_correction`` and ``delete_correction``, each in its own transaction (the store's
    ``apply``). ``op_id``: the write's id, for a store on a server (kept once however often it
    is sent); a file or memory store has no use for it."""

    def apply(self, changes: Sequence[RowChange]) -> None:
        raise NotImplementedError

    def put_annotation(self, ann: Annotation, op_id: OpId = None) -> None:
        """Store ``ann`` (replacing the one at its key and annotator). An empty annotation (no
        verdict, no note) is deleted instead."""
        self.apply([RowChange("annotation", ann.case_id, ann.annotator, ann.key, ann.orphaned,
                              None if ann.empty else ann, op_id=_op(op_id))])

    def put_review(self, review: CaseReview, op_id: OpId = None) -> None:
        """Store a case review (an empty one is deleted)."""
        self.apply([RowChange("review", review.case_id, review.annotator, None, False,
                              None if review.empty else review, op_id=_op(op_id))])

    def put_evidence(self, evidence: Evidence, op_id: OpId = None) -> None:
        self.apply([RowChange("evidence", evidence.case_id, evidence.annotator, evidence.key,
                              False, evidence, evidence.id, _op(op_id))])

    def delete_evidence(self, evidence: Evidence, op_id: OpId = None) -> None:
        self.apply([RowChange("evidence", evidence.case_id, evidence.annotator, evidence.key,
                              False, None, evidence.id, _op(op_id))])

    def put_correction(self, correction: Correction, op_id: OpId = None) -> None:
        self.apply([RowChange("correction", correction.case_id, correction.annotator, None,
                              False, correction, correction.id, _op(op_id))])

    def delete_correction(self, correction: Correction, op_id: OpId = None) -> None:
        self.apply([RowChange("correction", correction.case_id, correction.annotator, None,
                              False, None, correction.id, _op(op_id))])


class RowReads:
    """``annotations`` and ``orphans`` (lists of ``iter_annotations``) and
    ``annotation_row``; the store gives ``iter_annotations`` and ``annotation``."""

    def iter_annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                         orphaned: bool | None = None,
                         number: int | None = None) -> Iterator[Annotation]:
        raise NotImplementedError

    def annotation(self, key: AnnotationKey, annotator: str | None = None) -> Annotation | None:
        raise NotImplementedError

    def annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                    orphaned: bool | None = None) -> list[Annotation]:
        """Annotations (all annotators unless one is named), in case then citation order."""
        return list(self.iter_annotations(case_id, annotator=annotator, orphaned=orphaned))

    def orphans(self, case_id: str | None = None) -> list[Annotation]:
        """Annotations whose citation was not found again after the answer changed."""
        return self.annotations(case_id, orphaned=True)

    def annotation_row(self, change: RowChange) -> Annotation | None:
        """The annotation row ``change`` (an annotation's) would replace: the placed one at its
        key, or the first orphan there."""
        assert change.key is not None
        if change.orphaned:
            found = [a for a in self.iter_annotations(change.case_id, annotator=change.annotator,
                                                      orphaned=True) if a.key == change.key]
            return found[0] if found else None
        return self.annotation(change.key, change.annotator)


__all__ = ["OpId", "RowReads", "RowWrites"]
