"""Annotations and case reviews of a SQLite session: read, written in one transaction per edit
(:class:`~citeview.session.protocol.RowChange`), and re-attached when a case's answer changes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

from citeview.core.cases import Case
from citeview.core.corrections import Correction, ordered
from citeview.core.datasets import Dataset
from citeview.session.errors import (
    reading,
)
from citeview.session.events import (
    CaseChanged,
)
from citeview.session.jsonio import dumps_json as _dumps
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    CaseReview,
    Evidence,
    Reattached,
    ReviewState,
    ReviewTally,
)
from citeview.session.protocol import Row, RowChange, check_row, row_event
from citeview.session.records import (
    ANNOTATION_COLUMNS,
    ANNOTATION_FIELDS,
    CORRECTION_FIELDS,
    EVIDENCE_FIELDS,
    REVIEW_FIELDS,
    annotation_from_row,
    columns,
    correction_from_row,
    evidence_from_row,
    insert_annotation,
    insert_correction,
    insert_evidence,
    insert_review,
    review_from_row,
    select_review,
)
from citeview.session.row_access import RowReads, RowWrites
from citeview.session.rowfilter import RowFilter
from citeview.session.store_stats import SessionStats
from citeview.session.updating import moved_rows, sync_cases


class SessionAnnotations(SessionStats, RowWrites, RowReads):
    """Annotations, reviews, and cases brought up to date (annotations re-attached)."""

    def update_case(self, case: Case) -> Reattached:
        """Replace a case's content (e.g. the input changed). When the answer changed, its
        annotations are re-attached; those that cannot be placed are kept, flagged orphaned."""
        old = self.get_case(case.id)
        data = _dumps(case.to_dict())
        if old.answer == case.answer:
            result = Reattached(self.annotations(case.id), [])
            if data != _dumps(old.to_dict()):
                def put(conn: sqlite3.Connection) -> None:
                    conn.execute("UPDATE cases SET data = ? WHERE id = ?", (data, case.id))
                    conn.execute("DELETE FROM case_rows WHERE case_id = ?", (case.id,))
                self._write(put)
        else:
            moved = moved_rows(self, old, case)
            result = moved.annotations

            def run(conn: sqlite3.Connection) -> None:
                conn.execute("UPDATE cases SET data = ? WHERE id = ?", (data, case.id))
                conn.execute("DELETE FROM annotations WHERE case_id = ?", (case.id,))
                conn.execute("DELETE FROM case_stats WHERE case_id = ?", (case.id,))
                conn.execute("DELETE FROM case_rows WHERE case_id = ?", (case.id,))
                for ann in [*result.placed, *result.orphaned]:
                    insert_annotation(conn, ann)
                conn.execute("DELETE FROM evidence WHERE case_id = ?", (case.id,))
                conn.execute("DELETE FROM corrections WHERE case_id = ?", (case.id,))
                for ev in moved.evidence:
                    insert_evidence(conn, ev)
                for fix in moved.corrections:
                    insert_correction(conn, fix)
            self._write(run)
            if self._sizes is not None:
                self._sizes.pop(case.id, None)
            self._pending_sizes.pop(case.id, None)  # counts of the old answer: never written
        self._case_cache.pop(case.id, None)
        self._notify(CaseChanged(case.id))
        return result

    def sync_from(self, dataset: Dataset) -> dict[str, Reattached]:
        """Bring the session up to date with its input: new cases are copied in, changed ones
        updated (annotations re-attached); cases gone from the input stay. Returns the
        re-attachment of each case whose answer changed."""
        stored = dict(self.conn.execute("SELECT id, data FROM cases"))
        return sync_cases(self, dataset, stored.get)


    # ------------------------------------------------------------------ annotations

    @reading
    def annotation(self, key: AnnotationKey, annotator: str | None = None) -> Annotation | None:
        """The (placed) annotation at ``key`` by ``annotator`` (default: this session's)."""
        who = self.annotator if annotator is None else annotator
        row = self.conn.execute(
            f"SELECT {ANNOTATION_COLUMNS} FROM annotations WHERE case_id = ? AND number = ? "
            "AND raw = ? "
            "AND source_id = ? AND annotator = ? AND orphaned = 0",
            (key.case_id, key.number, key.anchor, key.source_id, who)).fetchone()
        return annotation_from_row(row) if row else None

    @reading
    def iter_annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                         orphaned: bool | None = None,
                         number: int | None = None) -> Iterator[Annotation]:
        """Annotations in case then citation order; ``number``: of that citation only (with a
        ``case_id``)."""
        where, args = RowFilter(case_id, annotator, number, orphaned).sql("a")
        sql = (f"SELECT {columns(ANNOTATION_FIELDS, 'a')} FROM annotations a "
               "JOIN cases c ON c.id = a.case_id" + where
               + " ORDER BY c.pos, a.number, a.source_id, a.annotator, a.rowid")
        # A live cursor: export streams 100,000 rows without holding them all.
        for row in self.conn.execute(sql, args):
            yield annotation_from_row(row)

    @reading
    def review(self, case_id: str, annotator: str | None = None) -> CaseReview:
        """The case review by ``annotator`` (default: this session's); not started if none."""
        who = self.annotator if annotator is None else annotator
        return select_review(self.conn, case_id, who) or CaseReview(case_id, who)

    @reading
    def reviews(self, case_id: str | None = None) -> list[CaseReview]:
        # The reviews first (CROSS JOIN keeps that order): SQLite otherwise walked every
        # case looking for reviews (0.3 s per 200,000 cases with none).
        where, args = RowFilter(case_id).sql("r")
        sql = (f"SELECT {columns(REVIEW_FIELDS, 'r')} FROM reviews r "
               "CROSS JOIN cases c ON c.id = r.case_id" + where + " ORDER BY c.pos, r.annotator")
        return [review_from_row(r) for r in self.conn.execute(sql, args)]

    @reading
    def states(self, annotator: str | None = None) -> dict[str, ReviewState]:
        """Review state of every case that has one, for ``annotator``."""
        who = self.annotator if annotator is None else annotator
        return {cid: ReviewState(state) for cid, state in self.conn.execute(
            "SELECT case_id, state FROM reviews WHERE annotator = ?", (who,))}

    @reading
    def annotator_progress(self) -> dict[str, ReviewTally]:
        """Per annotator: cases done and in progress (reviews of the session's cases), one
        grouped query."""
        return {str(who): ReviewTally(int(done), int(started)) for who, done, started in
                self.conn.execute(
                    "SELECT r.annotator, sum(r.state = ?), sum(r.state = ?) FROM reviews r "
                    "CROSS JOIN cases c ON c.id = r.case_id WHERE r.annotator <> '' "
                    "GROUP BY r.annotator", (ReviewState.DONE.value,
                                             ReviewState.IN_PROGRESS.value))}

    @reading
    def first_not_done(self, annotator: str | None = None) -> int | None:
        """Index of the first case not done by ``annotator`` (where to resume): one query
        that walks the cases in order until one is not done (each review found by its key),
        then counts the cases before it; no list of every case or state is read."""
        who = self.annotator if annotator is None else annotator
        row = self.conn.execute(
            "SELECT c.pos FROM cases c WHERE NOT EXISTS (SELECT 1 FROM reviews r WHERE "
            "r.case_id = c.id AND r.annotator = ? AND r.state = ?) ORDER BY c.pos LIMIT 1",
            (who, ReviewState.DONE.value)).fetchone()
        if row is None:
            return None
        before = self.conn.execute("SELECT count(*) FROM cases WHERE pos < ?", row).fetchone()
        return int(before[0])

    # ------------------------------------------------------------------ evidence, corrections

    @reading
    def evidence(self, case_id: str | None = None, *, key: AnnotationKey | None = None,
                 annotator: str | None = None) -> list[Evidence]:
        """Evidence spans (of one citation source with ``key``), in case, citation, source
        and offset order."""
        where, args = RowFilter(case_id, annotator, key=key).sql("e")
        sql = (f"SELECT {columns(EVIDENCE_FIELDS, 'e')} FROM evidence e "
               "JOIN cases c ON c.id = e.case_id" + where
               + " ORDER BY c.pos, e.number, e.source_id, e.start_offset, e.end_offset, "
               "e.annotator, e.id")
        return [evidence_from_row(row) for row in self.conn.execute(sql, args)]

    @reading
    def corrections(self, case_id: str | None = None, *,
                    annotator: str | None = None) -> list[Correction]:
        """Corrections in case order, each case's in the order they apply."""
        where, args = RowFilter(case_id, annotator).sql("k")
        sql = (f"SELECT {columns(CORRECTION_FIELDS, 'k')}, c.pos FROM corrections k "
               "JOIN cases c ON c.id = k.case_id" + where)
        rows = [(row[2], correction_from_row(row)) for row in self.conn.execute(sql, args)]
        by_pos: dict[int, list[Correction]] = {}
        for pos, corr in rows:
            by_pos.setdefault(pos, []).append(corr)
        return [c for pos in sorted(by_pos) for c in ordered(by_pos[pos])]

    @reading
    def current_row(self, change: RowChange) -> Row | None:
        if change.kind == "evidence":
            row = self.conn.execute(
                f"SELECT {columns(EVIDENCE_FIELDS)} FROM evidence WHERE id = ? AND case_id = ?",
                (change.ident, change.case_id)).fetchone()
            return evidence_from_row(row) if row else None
        if change.kind == "correction":
            row = self.conn.execute(
                f"SELECT {columns(CORRECTION_FIELDS)} FROM corrections WHERE id = ? AND "
                "case_id = ?", (change.ident, change.case_id)).fetchone()
            return correction_from_row(row) if row else None
        if change.kind == "annotation":
            return self.annotation_row(change)
        return select_review(self.conn, change.case_id, change.annotator)

    def apply(self, changes: Sequence[RowChange]) -> None:
        """Write row changes in ONE transaction, committed before returning; then notify."""
        for ch in changes:
            check_row(ch)

        def run(conn: sqlite3.Connection) -> None:
            for ch in changes:
                if ch.kind == "evidence":
                    conn.execute("DELETE FROM evidence WHERE id = ? AND case_id = ?",
                                 (ch.ident, ch.case_id))
                    if isinstance(ch.new, Evidence):
                        insert_evidence(conn, ch.new)
                elif ch.kind == "correction":
                    conn.execute("DELETE FROM corrections WHERE id = ? AND case_id = ?",
                                 (ch.ident, ch.case_id))
                    if isinstance(ch.new, Correction):
                        insert_correction(conn, ch.new)
                elif ch.kind == "annotation":
                    assert ch.key is not None
                    k = ch.key
                    conn.execute(
                        "DELETE FROM annotations WHERE rowid IN (SELECT rowid FROM annotations "
                        "WHERE case_id = ? AND number = ? AND raw = ? AND source_id = ? AND "
                        "annotator = ? AND orphaned = ? LIMIT 1)",
                        (k.case_id, k.number, k.anchor, k.source_id, ch.annotator,
                         int(ch.orphaned)))
                    if isinstance(ch.new, Annotation):
                        insert_annotation(conn, ch.new)
                else:
                    conn.execute("DELETE FROM reviews WHERE case_id = ? AND annotator = ?",
                                 (ch.case_id, ch.annotator))
                    if isinstance(ch.new, CaseReview):
                        insert_review(conn, ch.new)
        self._write(run)
        self._notify(*[row_event(ch) for ch in changes])

