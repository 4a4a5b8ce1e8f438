"""The session as one JSON document (``citeview export --format json`` / ``citeview import``).

Shape (JSON Schema: ``resources/schemas/session.schema.json``)::

    {"format": "citeview-session", "version": 2,
     "meta": {"name", "labels", "blind", "families", "created", "source", ...},
     "cases": [case JSON, ...],
     "reviews": [{"case_id", "annotator", "state", "verdict", "note", "timestamp", ...}],
     "annotations": [{"case_id", "number", "raw", "source_id", "annotator", "verdict", "note",
                      "timestamp", "claim", "recovered", "orphaned", ...}],
     ...}

Lossless: cases are stored as they were given, and keys this version does not know (at the top,
in meta, reviews and annotations) are kept and written back. Export streams, so a session of
100,000 annotations is written with bounded memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import IO, Any

from citeview.core.cases import Case
from citeview.core.corrections import Correction, CorrectionError
from citeview.core.errors import InputError
from citeview.core.files import (
    input_name,
    parse_json,
    read_text_file,
)
from citeview.resource_files import resource_path
from citeview.session.jsonio import dumps_json
from citeview.session.migrations import anchor_provider_annotations, renumber_annotations
from citeview.session.model import Annotation, AnnotationKey, CaseReview, Evidence, ReviewState
from citeview.session.protocol import ReviewStore
from citeview.session.records import (
    insert_annotation,
    insert_correction,
    insert_evidence,
    insert_review,
)
from citeview.session.store import DOCUMENT_EXTRA, KNOWN_META, Session

FORMAT = "citeview-session"
MAX_NUMBER = 2**62  # a citation number SQLite stores as an integer, with room to spare
# 2: citations numbered by the analysed case (version 1 numbered them without the material's ids,
# so a verdict after a degraded marker could sit under another number: renumbered on import).
VERSION = 2
ANNOTATION_KEYS = ("case_id", "number", "raw", "anchor", "source_id", "annotator", "verdict",
                   "note", "timestamp", "claim", "recovered", "orphaned", "reasons")
REVIEW_KEYS = ("case_id", "annotator", "state", "verdict", "note", "timestamp")
DOCUMENT_KEYS = ("format", "version", "meta", "cases", "reviews", "annotations", "evidence",
                 "corrections")


def schema() -> dict[str, Any]:
    """The JSON Schema of an exported session."""
    text = resource_path("schemas", "session.schema.json")
    data: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    return data


# --------------------------------------------------------------------------- export


def annotation_json(a: Annotation) -> dict[str, Any]:
    k = a.key
    d: dict[str, Any] = {
        # The anchor under its name in every export version (import also reads "anchor").
        "case_id": k.case_id, "number": k.number, "raw": k.anchor, "source_id": k.source_id,
        "annotator": a.annotator, "verdict": a.verdict, "note": a.note,
        "timestamp": a.timestamp, "claim": a.claim, "recovered": a.recovered,
        "orphaned": a.orphaned,
    }
    if a.reasons:
        d["reasons"] = list(a.reasons)
    d.update(a.extra)
    return d


def evidence_json(e: Evidence) -> dict[str, Any]:
    return {"case_id": e.case_id, **e.to_dict()}


def correction_json(c: Correction) -> dict[str, Any]:
    return {"case_id": c.case_id, **c.to_dict()}


def review_json(r: CaseReview) -> dict[str, Any]:
    d: dict[str, Any] = {"case_id": r.case_id, "annotator": r.annotator, "state": r.state.value,
                         "verdict": r.verdict, "note": r.note, "timestamp": r.timestamp}
    d.update(r.extra)
    return d


def export_document(session: ReviewStore) -> dict[str, Any]:
    """The whole session as a JSON-ready dict (in memory; :func:`write_json` streams)."""
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "meta": session.meta,
                           "cases": [session.case_data(cid) for cid in session.case_ids()],
                           "reviews": [review_json(r) for r in session.reviews()],
                           "annotations": [annotation_json(a)
                                           for a in session.iter_annotations()]}
    evidence, corrections = session.evidence(), session.corrections()
    if evidence:
        doc["evidence"] = [evidence_json(e) for e in evidence]
    if corrections:
        doc["corrections"] = [correction_json(c) for c in corrections]
    doc.update(session.document_extra)
    return doc


def write_json(session: ReviewStore, out: IO[str]) -> None:
    """Write the session as one JSON document, one case/row a line, streaming."""
    def items(name: str, rows: Iterable[object], last: bool = False) -> None:
        out.write(f" {json.dumps(name)}: [")
        sep = "\n  "
        for row in rows:
            out.write(sep + dumps_json(row))
            sep = ",\n  "
        out.write("\n ]" if sep != "\n  " else "]")
        out.write("\n" if last else ",\n")

    extra = session.document_extra
    out.write(f'{{\n "format": "{FORMAT}",\n "version": {VERSION},\n')
    out.write(f' "meta": {dumps_json(session.meta)},\n')
    items("cases", (session.case_data(cid) for cid in session.case_ids()))
    items("reviews", (review_json(r) for r in session.reviews()))
    evidence, corrections = session.evidence(), session.corrections()
    items("annotations", (annotation_json(a) for a in session.iter_annotations()),
          last=not (extra or evidence or corrections))
    if evidence:
        items("evidence", (evidence_json(e) for e in evidence),
              last=not (extra or corrections))
    if corrections:
        items("corrections", (correction_json(c) for c in corrections), last=not extra)
    for n, (key, value) in enumerate(extra.items(), 1):
        out.write(f" {dumps_json(key)}: {dumps_json(value)}" + ("\n" if n == len(extra) else ",\n"))
    out.write("}\n")


# --------------------------------------------------------------------------- import


def read_document(path: str) -> dict[str, Any]:
    """Parse and check an exported session (``-``: standard input); InputError names the
    first problem."""
    doc = parse_json(read_text_file(path), input_name(path))  # read once: a pipe works too
    try:
        validate_document(doc)
    except InputError as err:
        raise InputError(f"{input_name(path)}: {err}") from None
    assert isinstance(doc, dict)
    return doc


def _type(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", int: "a number",
            float: "a number", bool: "a boolean", type(None): "null"}.get(type(value),
                                                                            type(value).__name__)


def _want(cond: bool, where: str, what: str, value: object) -> None:
    if not cond:
        raise InputError(f"{where} must be {what}, not {_type(value)}")


def _text(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def validate_document(doc: object) -> None:
    """Check the document's shape (what the JSON Schema says, plus ids that must match)."""
    if not isinstance(doc, Mapping):
        raise InputError(f"not a citeview session export (a JSON document must be an object, "
                         f"not {_type(doc)})")
    if doc.get("format") != FORMAT:
        raise InputError(f"not a citeview session export (no \"format\": \"{FORMAT}\")")
    version = doc.get("version")
    _want(isinstance(version, int) and not isinstance(version, bool), "\"version\"",
          "a number", version)
    assert isinstance(version, int)
    if version > VERSION:
        raise InputError(f"made by a newer citeview (export version {version}, this one reads "
                         f"up to {VERSION})")
    meta = doc.get("meta", {})
    _want(isinstance(meta, Mapping), "\"meta\"", "an object", meta)
    labels = meta.get("labels")
    if labels is not None:
        _want(isinstance(labels, list) and bool(labels) and all(_text(x) and x for x in labels),
              "meta.labels", "a non-empty list of names", labels)
    for key, kind, check in (("blind", "a boolean", lambda v: isinstance(v, bool)),
                             ("name", "a string", _text), ("created", "a string", _text),
                             ("source", "a string", _text),
                             ("families", "a list of strings",
                              lambda v: isinstance(v, list) and all(_text(x) for x in v)),
                             ("reasons", "a list of distinct names",
                              lambda v: isinstance(v, list) and all(_text(x) and x for x in v)
                              and len(set(v)) == len(v))):
        if key in meta:
            _want(check(meta[key]), f"meta.{key}", kind, meta[key])
    for name in ("cases", "reviews", "annotations"):
        _want(isinstance(doc.get(name, []), list), f"\"{name}\"", "a list", doc.get(name))
    ids: set[str] = set()
    for n, item in enumerate(doc.get("cases", [])):
        try:
            case = Case.from_dict(item, f"case{n + 1}")
        except InputError as err:
            raise InputError(f"cases[{n}]: {err}") from None
        if not isinstance(item.get("id"), str):
            raise InputError(f"cases[{n}]: a case in a session needs an \"id\" string")
        if case.id in ids:
            raise InputError(f"cases[{n}]: duplicate case id {case.id!r}")
        ids.add(case.id)
    seen: set[tuple[str, ...]] = set()
    for n, r in enumerate(doc.get("reviews", [])):
        where = f"reviews[{n}]"
        _want(isinstance(r, Mapping), where, "an object", r)
        _check_row(r, where, ids, ("case_id", "annotator"), ("note", "timestamp"))
        state = r.get("state", ReviewState.NOT_STARTED.value)
        if not isinstance(state, str) or state not in {s.value for s in ReviewState}:
            raise InputError(f"{where}.state must be one of "
                             f"{', '.join(s.value for s in ReviewState)}, not {state!r}")
        rkey = (r["case_id"], r.get("annotator", ""))
        if rkey in seen:
            raise InputError(f"{where}: a second review of case {rkey[0]!r} by {rkey[1]!r}")
        seen.add(rkey)
    seen = set()
    for n, a in enumerate(doc.get("annotations", [])):
        where = f"annotations[{n}]"
        _want(isinstance(a, Mapping), where, "an object", a)
        _check_row(a, where, ids, ("case_id", "source_id", "annotator"),
                   ("note", "timestamp", "claim", "raw", "anchor"))
        if "raw" not in a and "anchor" not in a:
            raise InputError(f"{where}.raw must be a string (the citation's anchor), not "
                             "missing")
        number = a.get("number")
        _want(isinstance(number, int) and not isinstance(number, bool)
              and 1 <= number <= MAX_NUMBER,
              f"{where}.number", "a citation number (1, 2, ...)", number)
        for flag in ("recovered", "orphaned"):
            if flag in a:
                _want(isinstance(a[flag], bool), f"{where}.{flag}", "a boolean", a[flag])
        if not a.get("orphaned", False):
            akey = (a["case_id"], str(number), anchor_of(a), a["source_id"],
                    a.get("annotator", ""))
            if akey in seen:
                raise InputError(f"{where}: a second annotation of case {a['case_id']!r} "
                                 f"citation {number} source {a['source_id']!r}")
            seen.add(akey)
    _validate_extras(doc, ids)


def _validate_extras(doc: Mapping[str, Any], ids: set[str]) -> None:
    """Reasons of annotations, evidence and corrections (issue 30) are well formed."""
    for n, a in enumerate(doc.get("annotations", [])):
        if "reasons" in a:
            _want(isinstance(a["reasons"], list) and all(_text(r) for r in a["reasons"]),
                  f"annotations[{n}].reasons", "a list of strings", a["reasons"])
    for name, read in (("evidence", Evidence.from_dict), ("corrections", Correction.from_dict)):
        rows = doc.get(name, [])
        _want(isinstance(rows, list), name, "an array", rows)
        for n, row in enumerate(rows):
            where = f"{name}[{n}]"
            _want(isinstance(row, Mapping), where, "an object", row)
            _want(_text(row.get("case_id")), f"{where}.case_id", "a string", row.get("case_id"))
            if row["case_id"] not in ids:
                raise InputError(f"{where}: case {row['case_id']!r} is not among the cases")
            try:
                read(row["case_id"], dict(row))
            except (ValueError, CorrectionError) as err:
                raise InputError(f"{where}: {err}") from None


def anchor_of(row: Mapping[str, Any]) -> str:
    """An exported annotation's anchor: ``"anchor"``, or ``"raw"`` (its name in exports of
    every version; the only one before issue 21)."""
    found = row.get("anchor", row.get("raw"))
    return found if isinstance(found, str) else ""


def _check_row(row: Mapping[str, Any], where: str, ids: set[str], required: tuple[str, ...],
               optional: tuple[str, ...]) -> None:
    for key in required:
        if key == "annotator" and key not in row:
            continue
        _want(_text(row.get(key)), f"{where}.{key}", "a string", row.get(key))
    for key in optional:
        if key in row:
            _want(_text(row[key]), f"{where}.{key}", "a string", row[key])
    verdict = row.get("verdict")
    if verdict is not None:
        _want(_text(verdict), f"{where}.verdict", "a string or null", verdict)
    if row["case_id"] not in ids:
        raise InputError(f"{where}: case {row['case_id']!r} is not among the cases")


def import_document(doc: Mapping[str, Any], path: str, *, annotator: str = "",
                    overwrite: bool = False) -> ReviewStore:
    """A new session at ``path`` holding everything in the (validated) document."""
    validate_document(doc)
    meta = dict(doc.get("meta", {}))
    extra = {k: v for k, v in doc.items() if k not in DOCUMENT_KEYS}
    if extra:
        meta[DOCUMENT_EXTRA] = extra
    rows = ((c["id"], dumps_json(c)) for c in doc.get("cases", []))

    def fill(conn: Any) -> None:
        for r in doc.get("reviews", []):
            insert_review(conn, CaseReview(
                r["case_id"], r.get("annotator", ""), ReviewState(r.get("state", "not started")),
                r.get("verdict"), r.get("note", ""), r.get("timestamp", ""),
                {k: v for k, v in r.items() if k not in REVIEW_KEYS}))
        for a in doc.get("annotations", []):
            insert_annotation(conn, Annotation(
                AnnotationKey(a["case_id"], a["number"], anchor_of(a), a["source_id"]),
                a.get("annotator", ""), a.get("verdict"), a.get("note", ""),
                a.get("timestamp", ""), a.get("claim", ""), a.get("recovered", False),
                a.get("orphaned", False),
                {k: v for k, v in a.items() if k not in ANNOTATION_KEYS},
                tuple(a.get("reasons", ()))))
        for e in doc.get("evidence", []):
            insert_evidence(conn, Evidence.from_dict(e["case_id"], e))
        for c in doc.get("corrections", []):
            insert_correction(conn, Correction.from_dict(c["case_id"], c))
        if doc.get("version", VERSION) < 2:
            renumber_annotations(conn)
        # An export of a session the window wrote before issue 21: its provider citations'
        # verdicts are keyed by "" (made at the latest version, no migration runs on it).
        anchor_provider_annotations(conn)

    return Session.create_from_rows(path, meta, rows, overwrite=overwrite,
                                   annotator=annotator, fill=fill)


__all__ = ["FORMAT", "VERSION", "export_document", "import_document", "read_document",
           "schema", "validate_document", "write_json", "KNOWN_META"]
