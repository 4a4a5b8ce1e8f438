"""A session file is data, never code (issue 31, item 2): a session whose schema holds anything
citeview did not create (a trigger, a view, a virtual table, an extra table or index) is refused
in one line before any statement of citeview's runs against it, on every path that opens one.
The files are made by ``make_hostile.py`` beside this test."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from make_hostile import HOSTILE, KEY, hostile_session, verdicts_of

from citeview.cli import main
from citeview.core.inputs import load_input
from citeview.session.loader import SESSION_LOADERS
from citeview.session.migrations import MIGRATIONS, SCHEMA_VERSION
from citeview.session.model import Annotation
from citeview.session.schema import ForeignSchema, expected_schema
from citeview.session.store import DamagedSession, Session

KINDS = sorted(HOSTILE)


verdicts = verdicts_of


def test_the_trigger_would_flip_a_verdict_if_run(tmp_path: Path) -> None:
    """What the refusal prevents: run by SQLite, the crafted trigger changes what is written."""
    path = hostile_session(tmp_path / "t.citeview", "trigger")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE annotations SET verdict = 'unsupported'")
    conn.commit()
    conn.close()
    assert verdicts(path) == [("ana", "supported")]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("readonly", [False, True])
def test_a_hostile_session_is_refused_on_open(kind: str, readonly: bool,
                                              tmp_path: Path) -> None:
    path = hostile_session(tmp_path / "h.citeview", kind)
    before = path.read_bytes()
    with pytest.raises(ForeignSchema) as err:
        Session.open(str(path), annotator="bo", readonly=readonly)
    text = str(err.value)
    assert "\n" not in text and "citeview did not create" in text
    assert kind.split()[-1] in text  # names what it found: trigger, view, table, index
    assert path.read_bytes() == before  # not even the lock row was written
    assert verdicts(path) == [("ana", "unsupported")]


def test_the_trigger_never_fires(tmp_path: Path) -> None:
    """A verdict cannot be given through citeview at all, so none is flipped: the file holds
    exactly what was written before the trigger was added."""
    path = hostile_session(tmp_path / "t.citeview", "trigger")
    with pytest.raises(ForeignSchema), Session.open(str(path), annotator="ana") as s:
        s.put_annotation(Annotation(KEY, "ana", "unsupported", "written"))
    assert verdicts(path) == [("ana", "unsupported")]


@pytest.mark.parametrize("kind", KINDS)
def test_the_session_loader_refuses_a_hostile_session(kind: str, tmp_path: Path) -> None:
    path = hostile_session(tmp_path / "h.citeview", kind)
    with pytest.raises(ForeignSchema):
        load_input(str(path), SESSION_LOADERS)
    renamed = tmp_path / "h.json"  # found by its content, whatever its name
    renamed.write_bytes(path.read_bytes())
    with pytest.raises(ForeignSchema):
        load_input(str(renamed), SESSION_LOADERS)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["export", "report", "agree-a", "agree-b", "merge-a",
                                     "merge-b", "resolve", "lint", "page", "import"])
def test_every_command_refuses_a_hostile_session(kind: str, command: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from make_hostile import good_session

    path = str(hostile_session(tmp_path / "h.citeview", kind))
    good = str(good_session(tmp_path / "g.citeview"))
    out = str(tmp_path / "out.citeview")
    argv = {"export": ["export", path], "report": ["report", "--format", "html", path],
            "agree-a": ["agree", path, good], "agree-b": ["agree", good, path],
            "merge-a": ["merge", path, good, "-o", out],
            "merge-b": ["merge", good, path, "-o", out],
            "resolve": ["resolve", path], "lint": ["lint", path],
            "page": ["page", path, "-o", str(tmp_path / "p.html")],
            "import": ["import", path, "-o", out]}[command]
    code = main(argv)
    out_text, err = capsys.readouterr()
    if command == "lint":  # lint reports an unreadable input as a finding (CV504), exit 1
        assert code == 1 and "CV504" in out_text and "citeview did not create" in out_text
        err = out_text.splitlines()[0] + "\n"
    else:
        assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert command == "import" or "citeview did not create" in err, err
    assert not Path(out).exists() and not (tmp_path / "p.html").exists()
    assert verdicts(Path(path)) == [("ana", "unsupported")]


def test_a_recursive_view_hangs_nothing(tmp_path: Path) -> None:
    """The view standing in for the lock table would run forever on the first read of it; the
    command ends at once (in a subprocess, so a regression fails instead of hanging)."""
    path = hostile_session(tmp_path / "v.citeview", "view")
    for argv in (["export", str(path)], ["report", str(path)]):
        done = subprocess.run([sys.executable, "-m", "citeview", *argv], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 2 and "view 'lock'" in done.stderr, done.stderr


def test_a_changed_table_is_refused_before_use(tmp_path: Path) -> None:
    """One of citeview's own tables defined otherwise (here with a CHECK that would reject
    every verdict but one) is not the session citeview made."""
    from make_hostile import good_session

    path = good_session(tmp_path / "c.citeview")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = replace(sql, 'extra TEXT NOT NULL DEFAULT ''{}''',"
                 " 'extra TEXT NOT NULL DEFAULT ''{}'' CHECK (verdict = ''supported'')') "
                 "WHERE name = 'annotations'")
    conn.close()
    with pytest.raises(DamagedSession, match="table 'annotations' is not as citeview made it"):
        Session.open(str(path))


def test_the_expected_schema_is_built_from_the_migrations() -> None:
    """A new migration is covered without writing its schema down twice: each version's
    schema is what its migrations make, and a session made now matches the newest one."""
    assert len(MIGRATIONS) == SCHEMA_VERSION
    names = {r[1] for r in expected_schema(SCHEMA_VERSION)}
    assert {"meta", "cases", "reviews", "annotations", "lock", "case_stats",
            "annotations_key", "annotations_case"} <= names
    assert expected_schema(0) == frozenset()
    assert "case_stats" not in {r[1] for r in expected_schema(1)}


def test_old_sessions_still_open(tmp_path: Path) -> None:
    """Sessions written by older citeview versions (fixtures made by their code) match the
    schema of their version and are upgraded as before."""
    import shutil

    data = Path(__file__).parent.parent / "data" / "sessions"
    for name in ("v010-window", "pre-wild"):
        dest = tmp_path / f"{name}.citeview"
        shutil.copyfile(data / f"{name}.citeview", dest)
        with Session.open(str(dest), readonly=True) as s:
            assert s.case_ids()
        with Session.open(str(dest)) as s:
            assert s.case_ids()


def test_a_newer_session_may_add_tables_but_no_code(tmp_path: Path) -> None:
    from make_hostile import good_session

    path = good_session(tmp_path / "n.citeview")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.execute("CREATE TABLE later (x)")
    conn.close()
    with Session.open(str(path)) as s:
        assert s.readonly
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TRIGGER t AFTER INSERT ON later BEGIN DELETE FROM annotations; END")
    conn.close()
    with pytest.raises(ForeignSchema, match="trigger 't'"):
        Session.open(str(path))


def test_connections_are_hardened(tmp_path: Path) -> None:
    from make_hostile import good_session

    path = good_session(tmp_path / "g.citeview")
    with Session.open(str(path)) as s:
        assert s.conn.execute("PRAGMA trusted_schema").fetchone()[0] == 0
