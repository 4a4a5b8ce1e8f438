"""Sessions of every earlier schema version open with every verdict in place after issue 30's
migration (version 5: reasons, evidence, corrections). ``v4-demo.citeview`` was made by the
version-4 code (``tests/data/sessions/make_v4.py.txt``) together with its own JSON export,
which the upgraded session must match verdict for verdict."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from citeview.core.corrections import CorrectionKind, apply_corrections
from citeview.session import edits
from citeview.session.interchange import annotation_json, review_json
from citeview.session.migrations import SCHEMA_VERSION, user_version
from citeview.session.store import Session

DATA = Path(__file__).resolve().parents[1] / "data" / "sessions"
FIXTURES = {"v010-api.citeview": 1, "v010-window.citeview": 1, "pre-wild.citeview": 2,
            "provider-window.citeview": 3, "v4-demo.citeview": 4, "v5-demo.citeview": 5}


def _verdicts(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute(
            "SELECT case_id, source_id, annotator, verdict, note FROM annotations"))
    finally:
        conn.close()


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_every_earlier_version_opens_with_every_verdict_in_place(name: str,
                                                                 tmp_path: Path) -> None:
    path = tmp_path / name
    shutil.copy(DATA / name, path)
    conn = sqlite3.connect(path)
    assert user_version(conn) == FIXTURES[name]  # the fixture is of the version it says
    conn.close()
    before = _verdicts(path)
    assert before  # a fixture with verdicts to lose
    with Session.open(str(path), annotator="ana") as s:
        assert user_version(s.conn) == SCHEMA_VERSION
        after = sorted((a.case_id, a.key.source_id, a.annotator, a.verdict, a.note)
                       for a in s.iter_annotations())
        assert after == before
        if FIXTURES[name] < 5:  # (version 5 has them: see the test below)
            assert all(a.reasons == () for a in s.iter_annotations())
            assert s.evidence() == [] and s.corrections() == []
        # The new kinds are usable at once on the upgraded file.
        first = next(a for a in s.iter_annotations(annotator="ana") if not a.orphaned) \
            if any(a.annotator == "ana" and not a.orphaned for a in s.iter_annotations()) \
            else None
        had = len(s.evidence(key=first.key)) if first is not None else 0
        if first is not None:
            edits.annotation_edit(s, first.key, reasons=[s.reasons[0]]).do()
            edits.evidence_edit(s, first.key, 0, 1, text="x").do()
    with Session.open(str(path), readonly=True) as again:
        if first is not None:
            got = again.annotation(first.key, "ana")
            assert got is not None and got.verdict == first.verdict
            assert got.reasons == (again.reasons[0],)
            assert len(again.evidence(key=first.key)) == had + 1


def test_the_version_4_session_reads_as_its_own_export(tmp_path: Path) -> None:
    path = tmp_path / "v4.citeview"
    shutil.copy(DATA / "v4-demo.citeview", path)
    doc = json.loads((DATA / "v4-demo.export.json").read_text(encoding="utf-8"))
    with Session.open(str(path), readonly=True) as s:  # upgraded in memory, file untouched
        assert [annotation_json(a) for a in s.iter_annotations()] == doc["annotations"]
        assert [review_json(r) for r in s.reviews()] == doc["reviews"]
    conn = sqlite3.connect(path)
    assert user_version(conn) == 4
    conn.close()


def test_an_upgraded_session_takes_corrections_and_exports_them(tmp_path: Path) -> None:
    path = tmp_path / "v4.citeview"
    shutil.copy(DATA / "v4-demo.citeview", path)
    with Session.open(str(path), annotator="ana") as s:
        cit = s.analysed("demo-file").citations[0]
        edits.relocate_edit(s, "demo-file", cit, locator="L8-L10").do()
        made = s.corrections("demo-file")
        assert [c.kind for c in made] == [CorrectionKind.RELOCATE]
        result = apply_corrections(s.analysed("demo-file"), made)
        assert result.citations[0] == (("deploy_py",), "L8-L10")


def test_the_version_5_session_reads_as_its_own_export_reasons_evidence_and_corrections(
        tmp_path: Path) -> None:
    """Made by the version-5 code (``make_v5.py.txt``), before issue 26 stored export rows:
    every verdict, reason, evidence span and correction as its own export wrote them, read
    through the upgrade, and the corrected answers the same."""
    from citeview.session.interchange import write_json

    path = tmp_path / "v5.citeview"
    shutil.copy(DATA / "v5-demo.citeview", path)
    doc = json.loads((DATA / "v5-demo.export.json").read_text(encoding="utf-8"))
    assert any(a.get("reasons") for a in doc["annotations"]) and doc["evidence"]
    assert doc["corrections"]
    with Session.open(str(path), annotator="ana") as s:  # upgraded on the file
        assert user_version(s.conn) == SCHEMA_VERSION
        import io

        buf = io.StringIO()
        write_json(s, buf)
    now = json.loads(buf.getvalue())
    for what in ("annotations", "reviews", "evidence", "corrections"):
        assert now[what] == doc[what], what
