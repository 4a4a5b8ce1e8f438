"""Checks that each verdict of a session is on its citation's row in everything a user reads
back from the command line: CSV, JSON and JSONL exports, ``report``, and a JSON export imported
again (issue 21: one citation identity)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from citeview.cli import main
from citeview.session import Session

# (case id, citation number, source id) -> verdict
Expected = dict[tuple[str, int, str], str]


def _rows(path: Path, fmt: str) -> list[dict[str, str]]:
    text = path.read_text(encoding="utf-8-sig")
    if fmt == "csv":
        return list(csv.DictReader(text.splitlines()))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def check_rows(session: str, expected: Expected, out: Path) -> None:
    """CSV and JSONL exports: each verdict on its citation's row (and nowhere else), every row
    on a citation of the answer (none orphaned), every row carrying its citation's anchor."""
    out.mkdir(parents=True, exist_ok=True)
    with Session.open(session, readonly=True) as s:
        anchors = {(cid, c.number): c.anchor for cid in s.case_ids()
                   for c in s.analysed(cid).citations}
    for fmt in ("csv", "jsonl"):
        target = out / f"rows.{fmt}"
        assert main(["export", session, "--format", fmt, "-o", str(target)]) == 0
        rows = _rows(target, fmt)
        assert [r for r in rows if r["status"] == "orphaned"] == [], fmt
        got = {(r["case_id"], int(r["citation"]), r["source_id"]): r["verdict"]
               for r in rows if r["verdict"]}
        assert got == expected, fmt
        assert all(r["raw"] == anchors[(r["case_id"], int(r["citation"]))] for r in rows), fmt


def check_session_outputs(session: str, expected: Expected, out: Path) -> None:
    """:func:`check_rows`, the JSON export (each annotation keyed by its citation's number and
    anchor, none orphaned), ``report`` (every verdict counted, none orphaned) and a JSON export
    imported again (the same rows)."""
    check_rows(session, expected, out)
    doc_path = out / "session.json"
    assert main(["export", session, "--format", "json", "-o", str(doc_path)]) == 0
    doc = json.loads(doc_path.read_text(encoding="utf-8"))
    with Session.open(session, readonly=True) as s:
        for a in doc["annotations"]:
            found = s.analysed(a["case_id"]).citation(a["number"])
            assert found is not None and found.anchor == a["raw"], a
            assert a["source_id"] in found.source_ids and not a["orphaned"], a
    assert {(a["case_id"], a["number"], a["source_id"]): a["verdict"]
            for a in doc["annotations"] if a["verdict"]} == expected
    report_path = out / "report.json"
    assert main(["report", session, "--format", "json", "-o", str(report_path)]) == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["citations"]["orphaned_annotations"] == 0
    assert report["citations"]["with_verdict"] == len(expected)
    again = out / "imported.citeview"
    assert main(["import", str(doc_path), "-o", str(again)]) == 0
    check_rows(str(again), expected, out)
