"""Annotation and review rows of the session's SQLite tables, to and from the model.

Reading a row checks its columns' types: a wrong one is a ``ValueError`` (which the store's
reads report as a damaged session). Not :mod:`citeview.session.rows`, the rows of an export.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from citeview.core.corrections import Correction, CorrectionError
from citeview.session.jsonio import dumps_json
from citeview.session.model import Annotation, AnnotationKey, CaseReview, Evidence, ReviewState

ANNOTATION_FIELDS = ("case_id", "number", "raw", "source_id", "annotator", "verdict", "note",
                     "timestamp", "claim", "recovered", "orphaned", "extra", "reasons")
EVIDENCE_FIELDS = ("case_id", "number", "raw", "source_id", "annotator", "id", "start_offset",
                   "end_offset", "first_line", "last_line", "text", "timestamp")
CORRECTION_FIELDS = ("case_id", "data")
REVIEW_FIELDS = ("case_id", "annotator", "state", "verdict", "note", "timestamp", "extra")


def columns(fields: Sequence[str], table: str = "") -> str:
    """``fields`` as an SQL column list, each qualified by ``table`` (an alias) when given."""
    prefix = table + "." if table else ""
    return ", ".join(prefix + f for f in fields)


ANNOTATION_COLUMNS = columns(ANNOTATION_FIELDS)
REVIEW_COLUMNS = columns(REVIEW_FIELDS)


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is {type(value).__name__}, not text")
    return value


def _extra(value: object, what: str) -> dict[str, Any]:
    data = json.loads(_text(value, what))
    if not isinstance(data, dict):
        raise ValueError(f"{what} is not a JSON object")
    return data


def annotation_from_row(row: Sequence[Any]) -> Annotation:
    """The annotation of a row of :data:`ANNOTATION_FIELDS`."""
    number = row[1]
    if type(number) is not int or number < 1:
        raise ValueError(f"annotation of case {row[0]!r}: citation number {number!r} is not a "
                         "positive integer")
    verdict = row[5]
    if verdict is not None:
        _text(verdict, "a verdict")
    return Annotation(AnnotationKey(_text(row[0], "a case id"), number,
                                    _text(row[2], "an anchor"), _text(row[3], "a source id")),
                      _text(row[4], "an annotator"), verdict, _text(row[6], "a note"),
                      _text(row[7], "a timestamp"), _text(row[8], "a claim"), bool(row[9]),
                      bool(row[10]), _extra(row[11], "an annotation's extra"),
                      _reasons(row[12]))


def _reasons(value: object) -> tuple[str, ...]:
    data = json.loads(_text(value, "an annotation's reasons"))
    if not isinstance(data, list) or not all(isinstance(r, str) for r in data):
        raise ValueError("an annotation's reasons are not a list of names")
    return tuple(data)


def insert_annotation(conn: sqlite3.Connection, a: Annotation) -> None:
    """Write one annotation row (inside the caller's transaction)."""
    k = a.key
    conn.execute(
        f"INSERT INTO annotations ({ANNOTATION_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (k.case_id, k.number, k.anchor, k.source_id, a.annotator, a.verdict, a.note,
         a.timestamp, a.claim, int(a.recovered), int(a.orphaned), dumps_json(a.extra),
         dumps_json(list(a.reasons))))


def evidence_from_row(row: Sequence[Any]) -> Evidence:
    """The evidence of a row of :data:`EVIDENCE_FIELDS`."""
    ints = row[1], row[6], row[7], row[8], row[9]
    if any(type(v) is not int or v < 0 for v in ints) or row[6] > row[7]:
        raise ValueError(f"evidence of case {row[0]!r}: its number or offsets are not counts")
    return Evidence(AnnotationKey(_text(row[0], "a case id"), row[1], _text(row[2], "an anchor"),
                                  _text(row[3], "a source id")),
                    _text(row[4], "an annotator"), _text(row[5], "an evidence id"), row[6],
                    row[7], row[8], row[9], _text(row[10], "evidence text"),
                    _text(row[11], "a timestamp"))


def insert_evidence(conn: sqlite3.Connection, e: Evidence) -> None:
    k = e.key
    conn.execute(f"INSERT INTO evidence ({columns(EVIDENCE_FIELDS)}) "
                 "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                 (k.case_id, k.number, k.anchor, k.source_id, e.annotator, e.id, e.start, e.end,
                  e.first_line, e.last_line, e.text, e.timestamp))


def correction_from_row(row: Sequence[Any]) -> Correction:
    """The correction of a row of :data:`CORRECTION_FIELDS`."""
    try:
        return Correction.from_dict(_text(row[0], "a case id"),
                                    _extra(row[1], "a correction"))
    except CorrectionError as err:
        raise ValueError(str(err)) from None


def insert_correction(conn: sqlite3.Connection, c: Correction) -> None:
    conn.execute("INSERT INTO corrections (id, case_id, annotator, timestamp, data) "
                 "VALUES (?,?,?,?,?)",
                 (c.id, c.case_id, c.annotator, c.timestamp, dumps_json(c.to_dict())))


def review_from_row(row: Sequence[Any]) -> CaseReview:
    """The case review of a row of :data:`REVIEW_FIELDS`."""
    try:
        state = ReviewState(row[2])
    except ValueError:
        raise ValueError(f"review of case {row[0]!r}: unknown state {row[2]!r}") from None
    verdict = row[3]
    if verdict is not None:
        _text(verdict, "a case verdict")
    return CaseReview(_text(row[0], "a case id"), _text(row[1], "an annotator"), state, verdict,
                      _text(row[4], "a note"), _text(row[5], "a timestamp"),
                      _extra(row[6], "a review's extra"))


def select_review(conn: sqlite3.Connection, case_id: str, annotator: str) -> CaseReview | None:
    """The stored review of ``case_id`` by ``annotator``, if there is one."""
    row = conn.execute(f"SELECT {REVIEW_COLUMNS} FROM reviews WHERE case_id = ? AND annotator = ?",
                       (case_id, annotator)).fetchone()
    return review_from_row(row) if row else None


def insert_review(conn: sqlite3.Connection, r: CaseReview) -> None:
    """Write one review row (inside the caller's transaction)."""
    conn.execute(f"INSERT INTO reviews ({REVIEW_COLUMNS}) VALUES (?,?,?,?,?,?,?)",
                 (r.case_id, r.annotator, r.state.value, r.verdict, r.note, r.timestamp,
                  dumps_json(r.extra)))


__all__ = [
    "ANNOTATION_COLUMNS", "ANNOTATION_FIELDS", "CORRECTION_FIELDS", "EVIDENCE_FIELDS",
    "REVIEW_COLUMNS", "REVIEW_FIELDS", "annotation_from_row", "columns", "correction_from_row",
    "evidence_from_row", "insert_annotation", "insert_correction", "insert_evidence",
    "insert_review", "review_from_row", "select_review",
]
