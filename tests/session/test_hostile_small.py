"""Smaller hostile cases (issue 31, item 6): a lone surrogate in a note or an annotator's name is
a SessionError; what a SIGKILLed session build leaves is cleaned on the next one in its folder;
temporary files have the final mode from their creation."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from make_hostile import KEY, good_session, verdicts_of

from citeview.cli import main
from citeview.commands._atomic import write_stream_atomically
from citeview.session.errors import DamagedSession, SessionError
from citeview.session.files import STALE_AFTER, clean_stale_temps
from citeview.session.model import Annotation
from citeview.session.store import Session


@pytest.mark.parametrize("ann", [Annotation(KEY, "ana", "supported", "a \ud800 note"),
                                 Annotation(KEY, "b\udc00b", "supported")])
def test_a_lone_surrogate_is_a_session_error(tmp_path: Path, ann: Annotation) -> None:
    path = good_session(tmp_path / "s.citeview")
    with Session.open(str(path), annotator="ana") as s:
        with pytest.raises(SessionError, match=r"lone surrogate \(U\+D[8C]00\)") as err:
            s.put_annotation(ann)
        assert not isinstance(err.value, DamagedSession) and "\n" not in str(err.value)
        with pytest.raises(SessionError, match="lone surrogate") as err:
            s.annotation(KEY, "b\udc00b")
        assert not isinstance(err.value, DamagedSession)
        assert s.annotation(KEY, "ana").verdict == "unsupported"  # still usable
    assert verdicts_of(path) == [("ana", "unsupported")]


KILLED_BUILD = """
import os, signal, sqlite3, sys
conn = sqlite3.connect(sys.argv[1] + f".tmp-{os.getpid()}", isolation_level=None)
conn.execute("PRAGMA journal_mode = WAL")
conn.execute("CREATE TABLE t (x)")
conn.execute("BEGIN")
conn.execute("INSERT INTO t VALUES (1)")
print(os.getpid(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def killed_build(target: Path) -> list[Path]:
    """What a process SIGKILLed while building ``target`` leaves: NAME.tmp-PID, -wal, -shm."""
    proc = subprocess.run([sys.executable, "-c", KILLED_BUILD, str(target)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL
    pid = int(proc.stdout)
    left = sorted(target.parent.glob(f"{target.name}.tmp-{pid}*"))
    assert {p.name.removeprefix(f"{target.name}.tmp-{pid}") for p in left} == {"", "-wal", "-shm"}
    return left


def age(paths: list[Path], seconds: float) -> None:
    for p in paths:
        t = time.time() - seconds
        os.utime(p, (t, t))


def test_a_killed_imports_leftovers_are_cleaned_by_the_next_import(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = good_session(tmp_path / "s.citeview")
    exported = tmp_path / "e.json"
    assert main(["export", str(session), "-o", str(exported)]) == 0
    left = killed_build(tmp_path / "I.citeview")
    age(left, STALE_AFTER + 5)
    assert main(["import", str(exported), "-o", str(tmp_path / "J.citeview")]) == 0
    assert not any(p.exists() for p in left)
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_only_stale_leftovers_of_dead_processes_are_removed(tmp_path: Path) -> None:
    dead = killed_build(tmp_path / "a.citeview")
    recent = killed_build(tmp_path / "b.citeview")
    age(dead, STALE_AFTER + 5)
    live = tmp_path / f"c.citeview.tmp-{os.getppid()}"  # our parent runs
    sqlite3.connect(live).execute("CREATE TABLE t (x)").connection.close()
    other = tmp_path / "notes.tmp-1234567"  # not a database: not ours to remove
    other.write_text("keep me", encoding="utf-8")
    age([live, other], STALE_AFTER + 5)
    removed = clean_stale_temps(str(tmp_path))
    assert sorted(removed) == sorted(p.name for p in dead)
    assert all(p.exists() for p in [*recent, live, other])


def test_an_atomic_writes_temporary_file_has_the_final_mode_from_creation(
        tmp_path: Path) -> None:
    target = tmp_path / "secret.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o600)
    modes = []

    def fill(fd: int) -> None:
        modes.append(stat.S_IMODE(os.fstat(fd).st_mode))  # before the first byte
        os.write(fd, b"new")

    old = os.umask(0o022)
    try:
        write_stream_atomically(str(target), fill)
        assert modes == [0o600] and stat.S_IMODE(target.stat().st_mode) == 0o600
        target.chmod(0o664)  # more than the umask gives: kept exactly
        write_stream_atomically(str(target), fill)
        assert modes[-1] == 0o664 and stat.S_IMODE(target.stat().st_mode) == 0o664
        write_stream_atomically(str(tmp_path / "new.json"), fill)  # a new file: the umask's
        assert modes[-1] == 0o644
    finally:
        os.umask(old)


def test_a_replaced_sessions_copy_has_its_mode_while_built(tmp_path: Path) -> None:
    path = good_session(tmp_path / "s.citeview")
    path.chmod(0o600)
    seen = []

    def fill(conn: sqlite3.Connection) -> None:
        for p in tmp_path.iterdir():
            if ".tmp-" in p.name:
                seen.append((p.name.rsplit("-", 1)[-1], stat.S_IMODE(p.stat().st_mode)))

    old = os.umask(0o022)
    try:
        Session.make_file(str(path), {"name": "x"}, [("c", "{}")], overwrite=True, fill=fill)
    finally:
        os.umask(old)
    assert seen and all(mode == 0o600 for _, mode in seen), seen
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_sigkilled_import_is_cleaned_up_by_the_next_one(tmp_path: Path) -> None:
    """The real thing: ``citeview import -o I.citeview`` killed while it builds the session."""
    from make_hostile import CASE

    from citeview.core.cases import Case

    cases = [Case(f"c{i}", CASE.answer, CASE.question, tool_outputs=list(CASE.tool_outputs))
             for i in range(20_000)]
    with Session.create(str(tmp_path / "big.citeview"), cases):
        pass
    exported = tmp_path / "big.json"
    assert main(["export", str(tmp_path / "big.citeview"), "-o", str(exported)]) == 0
    proc = subprocess.Popen([sys.executable, "-m", "citeview", "import", str(exported), "-o",
                             str(tmp_path / "I.citeview")])
    try:
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob("I.citeview.tmp-*-wal")):
            assert proc.poll() is None and time.monotonic() < deadline, "import ended first"
            time.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    left = sorted(tmp_path.glob("I.citeview.tmp-*"))
    assert left and not (tmp_path / "I.citeview").exists()
    age(left, STALE_AFTER + 5)
    assert main(["import", str(exported), "-o", str(tmp_path / "J.citeview")]) == 0
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]
