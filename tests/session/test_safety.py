"""Data safety: no acknowledged annotation is lost when someone replaces a session in use, when
a writer was killed, when the disk is full; a damaged session says so in one line."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.core.cases import Case
from citeview.session import AnnotationKey, Session, SessionInUse
from citeview.session.interchange import export_document, import_document
from citeview.session.merge import merge_sessions
from citeview.session.model import Annotation
from citeview.session.store import DamagedSession, SessionWriteError

WRITER = Path(__file__).with_name("_crash_writer.py")
RAW = "\ue200cite\ue202f0\ue201"


def make(path: Path) -> str:
    Session.create(str(path), [Case("c", f"Claim.{RAW}")]).close()
    return str(path)


def start_writer(path: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, str(WRITER), path, "1"], stdout=subprocess.PIPE,
                             text=True, env=env)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


def acknowledged(child: subprocess.Popen[str], at_least: int) -> list[int]:
    assert child.stdout is not None
    got = []
    while len(got) < at_least:
        got.append(int(child.stdout.readline()))
    return got


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_replacing_a_session_open_in_another_process_is_refused_and_loses_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = make(tmp_path / "s.citeview")
    other = make(tmp_path / "other.citeview")
    with Session.open(other) as s:
        export = tmp_path / "x.json"
        export.write_text(json.dumps(export_document(s)), encoding="utf-8")
    child = start_writer(target)
    try:
        acknowledged(child, 20)
        # Through the API ...
        with pytest.raises(SessionInUse, match="nothing was replaced"):
            import_document(json.loads(export.read_text()), target, overwrite=True)
        with Session.open(other) as a, Session.open(other, readonly=True) as b, \
                pytest.raises(SessionInUse):
            merge_sessions(a, b, target, overwrite=True)
        with Session.open(other) as s, pytest.raises(SessionInUse):
            s.save_as(target)
        # ... and the command line: one line, exit 2.
        assert main(["import", str(export), "-o", target, "--force"]) == 2
        err = capsys.readouterr().err
        assert "open in another citeview" in err and len(err.strip().splitlines()) == 1
        more = acknowledged(child, 20)
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate()
    with Session.open(target) as s:
        assert s.integrity_check() == "ok"
        stored = {a.key.number for a in s.annotations("c", annotator="writer")}
    assert set(range(1, max(more) + 1)) <= stored  # every acknowledged write is there


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_replacing_after_a_killed_writer_leaves_no_foreign_wal(tmp_path: Path) -> None:
    target = make(tmp_path / "s.citeview")
    child = start_writer(target)
    acknowledged(child, 30)
    child.send_signal(signal.SIGKILL)
    child.communicate()
    assert os.path.exists(target + "-wal")  # the killed writer's log is still there
    other = make(tmp_path / "other.citeview")
    with Session.open(other) as s:
        doc = export_document(s)
    with import_document(doc, target, overwrite=True) as s:
        assert s.integrity_check() == "ok" and s.case_ids() == ["c"]
        assert s.annotations() == []


def test_a_damaged_session_after_an_unclean_close_is_reported_at_open(tmp_path: Path) -> None:
    path = make(tmp_path / "s.citeview")
    with Session.open(path) as s:
        for i in range(1, 400):
            s.put_annotation(Annotation(AnnotationKey("c", i, RAW, "f0"), "", "supported",
                                        "n" * 200))
        s.conn.execute("INSERT OR REPLACE INTO lock VALUES (1, 999999999, ?, 'dead', "
                       "'2026', '')", (os.uname().nodename,))
        s.closed = True  # leave as a killed process would: lock row in place
        s.conn.close()
    # Scribble over a page in the middle (not the header): a bit flip on disk.
    data = bytearray(Path(path).read_bytes())
    page = 4096
    data[page * 5:page * 5 + 64] = b"\xff" * 64
    Path(path).write_bytes(bytes(data))
    with pytest.raises(DamagedSession, match="damaged session"):
        Session.open(path)


def test_a_write_that_fails_raises_the_sessions_own_error_and_keeps_earlier_work(
        tmp_path: Path) -> None:
    path = make(tmp_path / "s.citeview")
    with Session.open(path) as s:
        first = Annotation(AnnotationKey("c", 1, RAW, "f0"), "", "supported")
        s.put_annotation(first)
        # A full disk: SQLite cannot grow the file beyond this many pages.
        pages = s.conn.execute("PRAGMA page_count").fetchone()[0]
        s.conn.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(SessionWriteError, match="not kept"):
            s.put_annotation(Annotation(AnnotationKey("c", 1, RAW, "f0"), "", "unsupported",
                                        "x" * 200_000))
        assert s.annotation(first.key).verdict == "supported"
    with Session.open(path) as s:
        assert s.annotation(first.key).verdict == "supported"


DAMAGE = [
    ("UPDATE annotations SET number = 'x'", "citation number"),
    ("UPDATE annotations SET number = 2.5", "citation number"),
    ("UPDATE annotations SET extra = '{not json'", "damaged session"),
    ("UPDATE reviews SET state = 'maybe'", "unknown state"),
    ("UPDATE meta SET value = '[1, 2]' WHERE key = 'labels'", "labels"),
    ("UPDATE meta SET value = '{bad' WHERE key = 'name'", "damaged session"),
    ("ALTER TABLE annotations RENAME COLUMN note TO remark", "damaged session"),
]


@pytest.mark.parametrize(("sql", "message"), DAMAGE)
@pytest.mark.parametrize("command", ["export", "report", "agree", "resolve"])
def test_damaged_rows_give_one_line_and_exit_2_in_every_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], sql: str, message: str,
        command: str) -> None:
    path = make(tmp_path / "s.citeview")
    with Session.open(path, annotator="ana") as s:
        s.put_annotation(Annotation(AnnotationKey("c", 1, RAW, "f0"), "ana", "supported"))
        from citeview.session.edits import set_case
        from citeview.session.model import ReviewState
        set_case(s, "c", state=ReviewState.DONE)
    conn = sqlite3.connect(path)
    conn.execute(sql)
    conn.commit()
    conn.close()
    argv = {"export": ["export", path, "--format", "jsonl"], "report": ["report", path],
            "agree": ["agree", path, path], "resolve": ["resolve", path]}[command]
    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    # Where the damaged rows are read, the command says so; elsewhere it works as usual.
    reads = {"export": ("annotations", "name"), "report": ("annotations", "reviews", "name"),
             "agree": ("annotations", "name"), "resolve": ("name",)}[command]
    if any(word in sql for word in reads):
        assert code == 2, err
        assert message in err and len(err.strip().splitlines()) == 1, err
    else:
        assert code in (0, 2), err
        if code == 2:
            assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(("change", "message"), [
    ({"reviews": [{"case_id": "c", "annotator": "x", "state": ["done"]}]}, "reviews[0].state"),
    ({"annotations": [{"case_id": "c", "number": 2**63, "raw": RAW, "source_id": "f0",
                       "verdict": "supported"}]}, "annotations[0].number"),
])
def test_importing_an_export_with_wrong_types_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object],
        message: str) -> None:
    with Session.open(make(tmp_path / "a.citeview")) as s:
        doc = export_document(s)
    doc.update(change)
    src = tmp_path / "x.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["import", str(src), "-o", str(tmp_path / "n.citeview")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "n.citeview").exists()


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "json"])
def test_export_to_stdout_of_a_row_damaged_half_way_prints_no_partial_document(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    """A pipe gets a whole document or nothing: the damaged row is found after good ones."""
    cases = [Case(f"c{k}", f"Claim.{RAW}") for k in range(30)]
    path = str(tmp_path / "s.citeview")
    Session.create(path, cases).close()
    with Session.open(path, annotator="ana") as s:
        for k in range(30):
            s.put_annotation(Annotation(AnnotationKey(f"c{k}", 1, RAW, "f0"), "ana", "supported"))
    conn = sqlite3.connect(path)
    conn.execute("UPDATE annotations SET number = 'x' WHERE case_id = 'c29'")
    conn.commit()
    conn.close()
    assert main(["export", path, "--format", fmt]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "citation number" in err and len(err.strip().splitlines()) == 1, err
