"""Sessions written by citeview 0.1.0 keep every verdict on the citation it was given to.

The fixtures in ``tests/data/sessions`` were made by the 0.1.0 code (commit 427806e, script
``make_v010.py.txt`` beside them): ``v010-window`` with verdicts given the way the 0.1.0 window
numbered citations (a degraded marker naming a known id counted), ``v010-api`` the way the 0.1.0
session numbered them (it did not count it). 0.1.0's own export showed the window's verdict on
the citation after ``citedoc1`` as an orphan beside an unjudged citation.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from citeview.session import Session
from citeview.session.interchange import export_document, import_document
from citeview.session.migrations import SCHEMA_VERSION, user_version
from citeview.session.rows import ORPHANED, iter_rows

DATA = Path(__file__).parent.parent / "data" / "sessions"
DOC2 = "\ue200cite\ue202doc2\ue201"


def copy(tmp_path: Path, name: str) -> str:
    dest = tmp_path / f"{name}.citeview"
    shutil.copyfile(DATA / f"{name}.citeview", dest)
    return str(dest)


def judged(session: Session) -> dict[tuple[str, int, str, str], tuple[str | None, str]]:
    """(case, citation, source, annotator) -> (verdict, note) of every judged export row."""
    out = {}
    for r in iter_rows(session, jobs=1):
        assert r.status != ORPHANED, f"orphaned row {r}"
        if r.verdict is not None or r.note:
            out[(r.case_id, r.number, r.source_id, r.annotator)] = (r.verdict, r.note)
    return out


WINDOW = {
    ("degraded", 1, "doc1", "alice"): ("unsupported", ""),
    ("degraded", 2, "doc2", "alice"): ("supported", "checked the year"),
    ("unterminated", 1, "doc1", "alice"): ("supported", ""),
    ("unterminated", 2, "doc2", "alice"): ("partially supported", ""),
    ("unterminated", 2, "doc2", "bob"): ("supported", ""),
    ("unterminated", 3, "doc3", "alice"): ("supported", ""),
    ("unterminated", 3, "doc2", "alice"): ("unsupported", ""),
    ("plain", 1, "doc2", "alice"): ("supported", ""),
    ("plain", 2, "doc3", "alice"): ("cannot tell", ""),
    ("lines", 1, "turn0file0", "alice"): ("cannot tell", ""),
    ("lines", 2, "turn0file0", "alice"): ("supported", ""),
    ("lines", 3, "turn0file0", "alice"): ("unsupported", ""),
}
# Given through 0.1.0's API: "degraded"'s doc2 citation was number 1 there (citedoc1 not
# counted); it is number 2 now, as in the window.
API = {
    ("degraded", 2, "doc2", "alice"): ("supported", ""),
    ("unterminated", 2, "doc2", "alice"): ("partially supported", ""),
    ("unterminated", 3, "doc3", "alice"): ("supported", ""),
    ("lines", 1, "turn0file0", "alice"): ("supported", ""),
}


@pytest.mark.parametrize(("name", "expected"), [("v010-window", WINDOW), ("v010-api", API)])
def test_a_010_session_opened_for_writing_is_upgraded_with_every_verdict_in_place(
        tmp_path: Path, name: str, expected: dict[tuple[str, int, str, str], tuple[str, str]]
) -> None:
    path = copy(tmp_path, name)
    with Session.open(path, annotator="alice") as s:
        assert user_version(s.conn) == SCHEMA_VERSION
        assert judged(s) == expected
        assert s.integrity_check() == "ok"
        # The keys point at the citations the analysed case numbers: raw marker, source, claim.
        for a in s.annotations():
            c = s.analysed(a.case_id).citation(a.key.number)
            assert c is not None and c.anchor == a.key.anchor and a.key.source_id in c.source_ids
            assert a.recovered == (c.recovered is not None)
    with Session.open(path) as again:  # upgrading is done once; reopening changes nothing
        assert judged(again) == expected


@pytest.mark.parametrize(("name", "expected"), [("v010-window", WINDOW), ("v010-api", API)])
def test_a_010_session_opened_read_only_reads_upgraded_and_is_not_touched(
        tmp_path: Path, name: str, expected: dict[tuple[str, int, str, str], tuple[str, str]]
) -> None:
    path = copy(tmp_path, name)
    before = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    with Session.open(path, readonly=True) as s:
        assert judged(s) == expected
    assert hashlib.sha256(Path(path).read_bytes()).hexdigest() == before
    with Session.open(path, readonly=True) as s:
        assert user_version(s.conn) == SCHEMA_VERSION  # the copy in memory, not the file


def test_a_version_1_export_is_renumbered_on_import(tmp_path: Path) -> None:
    # An export written by 0.1.0 of the API-numbered session: doc2 of "degraded" is number 1.
    path = copy(tmp_path, "v010-api")
    with Session.open(path, readonly=True) as s:
        doc = export_document(s)
    doc["version"] = 1
    for a in doc["annotations"]:
        if a["case_id"] == "degraded":
            assert a["number"] == 2
            a["number"] = 1  # as 0.1.0 wrote it
    with import_document(json.loads(json.dumps(doc)), str(tmp_path / "in.citeview")) as s:
        assert judged(s) == API


def test_the_citedoc1_verdict_lands_on_its_citation_in_window_session_export_and_lint(
        tmp_path: Path) -> None:
    # The example: "citedoc1" lost its special characters; a real marker for doc2
    # follows. Window, session, export rows and lint all number doc2's citation 2.
    from citeview.core.cases import Case
    from citeview.core.lint import lint
    from citeview.gui.state import build_case_view
    from citeview.session.edits import set_verdict

    ctx = ('<doc id="doc1">\nThe river floods every spring.\n</doc>\n'
           '<doc id="doc2">\nThe bridge opened in 1931.\n</doc>')
    case = Case("c", f"Floods come each spring citedoc1. The bridge opened in 1931 {DOC2}.",
                context=ctx)
    with Session.create(str(tmp_path / "c.citeview"), [case], annotator="alice") as s:
        view = build_case_view(s.get_case("c"), s.families, render=False)
        window = [(c.number, c.citation.raw) for c in view.citations]
        assert window == [(1, "citedoc1"), (2, DOC2)]
        # The window gives a verdict to the citation it shows as 2.
        cv = view.citations[1]
        from citeview.session.model import AnnotationKey
        set_verdict(s, AnnotationKey("c", cv.number, cv.citation.raw, "doc2"), "supported")
        rows = [(r.number, r.source_id, r.status, r.verdict) for r in iter_rows(s, jobs=1)]
        assert rows == [(1, "doc1", "whole-source", None), (2, "doc2", "whole-source",
                                                              "supported")]
        analysed = s.analysed("c")
        numbers = {d.code: analysed.citation_number(d) for d in lint(case)}
        assert numbers["CV107"] == 1  # the degraded marker is citation 1 in lint's output too
