"""Damaged session files the fuzzer (fuzz/targets.py, session-file) found: each is a one-line
DamagedSession, never a UnicodeDecodeError, an IndexError or a KeyError from inside SQLite's
pages."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.core.datasets import ListDataset
from citeview.core.errors import InputError
from citeview.core.inputs import load_input
from citeview.session import SESSION_LOADERS, Session
from citeview.session.store import DamagedSession


def made(tmp_path: Path, dataset: ListDataset) -> Path:
    path = tmp_path / "s.citeview"
    Session.create(str(path), dataset).close()
    return path


def read_all(path: Path) -> None:
    ds = load_input(str(path), SESSION_LOADERS)
    try:
        for case in ds.iter_cases():
            assert case.answer
    finally:
        ds.close()


def test_schema_text_that_is_not_utf8(tmp_path: Path, dataset: ListDataset) -> None:
    path = made(tmp_path, dataset)
    data = path.read_bytes()
    at = data.index(b"CREATE INDEX annotations_case")
    path.write_bytes(data[:at + 2] + b"\x80" + data[at + 3:])
    with pytest.raises(DamagedSession, match="damaged session") as err:
        read_all(path)
    assert "\n" not in str(err.value)


def test_a_negative_schema_version(tmp_path: Path, dataset: ListDataset) -> None:
    path = made(tmp_path, dataset)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = -3")
    conn.close()
    with pytest.raises(DamagedSession, match=r"damaged session \(session version -3\)"):
        read_all(path)


def test_a_damaged_case_id_is_never_a_key_error(tmp_path: Path, dataset: ListDataset,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = made(tmp_path, dataset)
    data = path.read_bytes()
    name = b"transit-multi-turn"
    spots = [i for i in range(len(data)) if data.startswith(name, i)]
    assert len(spots) >= 2  # the row (id and data) and the id index
    outcomes = set()
    for at in spots:
        path.write_bytes(data[:at] + b"\x00" + data[at + 1:])
        try:
            read_all(path)
            outcomes.add("read")
        except InputError as err:
            assert "\n" not in str(err)
            outcomes.add(type(err).__name__)
        code = main(["export", str(path), "--format", "json"])
        out, err_text = capsys.readouterr()
        assert code in (0, 2) and (code == 0 or err_text.count("\n") == 1), err_text
        if code == 2:
            outcomes.add(err_text)
    # A listed case that cannot be found is damage (it was a KeyError, a traceback in export).
    assert "is listed but cannot be read" in " ".join(outcomes)


DAMAGED_V2 = Path(__file__).parent.parent / "data" / "sessions" / "damaged-v2.citeview"


@pytest.mark.parametrize("command", ["report", "export"])
def test_an_older_session_with_text_for_a_citation_number_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    """A schema-2 session (upgraded on open) whose annotation rows hold ``'abc'`` where the
    citation number belongs (made by ``tests/data/sessions/make_damaged_v2.py.txt``): the
    upgrade cannot place those verdicts, and says so in one line, not a traceback."""
    path = tmp_path / "old.citeview"
    path.write_bytes(DAMAGED_V2.read_bytes())
    out = tmp_path / "out"
    assert main([command, str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"citeview: error: {path}: damaged session (")
    assert "citation number is 'abc', not a number" in err
    assert not out.exists()


def test_a_failed_upgrade_leaves_the_older_session_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "old.citeview"
    path.write_bytes(DAMAGED_V2.read_bytes())
    with pytest.raises(DamagedSession, match="not a number"):
        Session.open(str(path), annotator="alice")  # writable: the upgrade is rolled back
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        assert [r[0] for r in conn.execute("SELECT number FROM annotations")] == ["abc"] * 3
    finally:
        conn.close()
