"""Sessions the window wrote before issue 21 keep every verdict on its citation.

``tests/data/sessions/provider-window.citeview`` was made by that window through its key path
(``make_provider_window.py.txt``): a verdict on every source of every citation of three
provider cases (Anthropic, OpenAI Responses, Gemini) and one marker case, key ((k - 1) % 4) + 1
on citation k. The window keyed a provider citation by its empty marker text, so export and
report showed those verdicts orphaned; opening the session re-attaches them (migration 4).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from citeview.session import Session
from citeview.session.interchange import export_document, import_document
from citeview.session.migrations import SCHEMA_VERSION, user_version
from citeview.session.model import DEFAULT_LABELS
from citeview.session.rows import iter_rows
from tests.session._identity import Expected, check_rows, check_session_outputs

FIXTURE = Path(__file__).parent.parent / "data" / "sessions" / "provider-window.citeview"
# What the script pressed: (case id, citation number, source id), in order.
GIVEN = [("anthropic-char", 1, "doc0"), ("anthropic-char", 2, "doc1"),
         ("resp_demo02", 1, "file-RefundPolicy01"), ("resp_demo02", 2, "file-Shipping02"),
         ("provider-window#3", 1, "chunk0"), ("provider-window#3", 2, "chunk1"),
         ("provider-window#3", 2, "chunk0"), ("provider-window#3", 3, "chunk2"),
         ("handbook-line-level", 1, "turn0file0"), ("handbook-line-level", 2, "turn0file0")]
EXPECTED: Expected = {g: DEFAULT_LABELS[(g[1] - 1) % 4] for g in GIVEN}


def stored_keys(path: Path) -> list[tuple[str, int, str, str]]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute("SELECT case_id, number, raw, source_id FROM annotations"))
    finally:
        conn.close()


def test_the_fixture_holds_what_the_old_window_wrote(tmp_path: Path) -> None:
    # (So the tests below start from the damage the issue describes.)
    conn = sqlite3.connect(FIXTURE)
    try:
        assert user_version(conn) == 3
    finally:
        conn.close()
    keys = stored_keys(FIXTURE)
    assert len(keys) == len(GIVEN)
    assert sum(1 for k in keys if k[2] == "") == 8  # every provider citation's verdict


def test_opening_re_attaches_every_verdict_to_its_citation(tmp_path: Path) -> None:
    path = tmp_path / "provider-window.citeview"
    shutil.copyfile(FIXTURE, path)
    with Session.open(str(path)) as s:
        assert s.orphans() == []
        anns = s.annotations()
        assert {(a.key.case_id, a.key.number, a.key.source_id): a.verdict
                for a in anns} == EXPECTED
        for a in anns:
            c = s.analysed(a.key.case_id).citation(a.key.number)
            assert c is not None and c.anchor == a.key.anchor != ""
            assert a.annotator == "alice" and a.timestamp  # nothing else changed
    conn = sqlite3.connect(path)
    try:
        assert user_version(conn) == SCHEMA_VERSION
    finally:
        conn.close()
    check_session_outputs(str(path), EXPECTED, tmp_path / "out")


def test_read_only_opening_shows_them_attached_and_leaves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "provider-window.citeview"
    shutil.copyfile(FIXTURE, path)
    with Session.open(str(path), readonly=True) as s:
        assert s.readonly and s.orphans() == []
        rows = list(iter_rows(s, jobs=1))
    assert [r for r in rows if r.status == "orphaned"] == []
    assert {(r.case_id, r.number, r.source_id): r.verdict for r in rows if r.verdict} == EXPECTED
    assert stored_keys(path) == stored_keys(FIXTURE)


def test_an_export_of_the_old_session_is_attached_on_import(tmp_path: Path) -> None:
    # An export written by the old citeview (the fixture read without migrating) keys the
    # provider verdicts by "": importing it places them on their citations.
    old = tmp_path / "old.citeview"
    shutil.copyfile(FIXTURE, old)
    with Session.open(str(old), readonly=True) as s:
        doc = export_document(s)
    for a in doc["annotations"]:
        if a["case_id"] != "handbook-line-level":
            a["raw"] = ""
    with import_document(doc, str(tmp_path / "new.citeview")) as s:
        assert s.orphans() == []
        assert all(a.key.anchor for a in s.annotations())
    check_rows(str(tmp_path / "new.citeview"), EXPECTED, tmp_path)


def test_a_verdict_whose_place_is_taken_is_kept_not_merged(tmp_path: Path) -> None:
    # The same annotator judged the citation twice: once through the old window (keyed by "")
    # and once with its real key (e.g. imported). Both verdicts stay; the old one is shown
    # orphaned, as before, never dropped or written over.
    path = tmp_path / "provider-window.citeview"
    shutil.copyfile(FIXTURE, path)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO annotations (case_id, number, raw, source_id, annotator, verdict) "
                 "VALUES ('anthropic-char', 1, 'char_location@60-60', 'doc0', 'alice', "
                 "'cannot tell')")
    conn.commit()
    conn.close()
    with Session.open(str(path)) as s:
        mine = [(a.key.anchor, a.verdict) for a in s.annotations("anthropic-char")
                if a.key.number == 1]
        rows = [r for r in iter_rows(s, jobs=1) if r.case_id == "anthropic-char"]
    assert sorted(mine) == [("", "supported"), ("char_location@60-60", "cannot tell")]
    assert [(r.number, r.status, r.verdict) for r in rows if r.verdict] == [
        (1, "ok", "cannot tell"), (2, "ok", "partially supported"),
        (1, "orphaned", "supported")]
