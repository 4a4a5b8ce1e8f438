"""A row written as one :class:`~citeview.session.protocol.RowChange`: the ``put_*`` and
``delete_*`` of every store are one :meth:`apply` each, so one mixin serves the file, memory,
server and outbox stores (each wrote these lines)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from citeview.core.corrections import Correction
from citeview.session.model import Annotation, CaseReview, Evidence
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


__all__ = ["OpId", "RowWrites"]
