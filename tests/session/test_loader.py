"""Sessions as an input: load_input opens them when given the session loader; importing the
session package registers nothing (whether a session loads never depends on import history)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeview.core.datasets import ListDataset
from citeview.core.errors import InputError
from citeview.core.inputs import DEFAULT_LOADERS, load_input
from citeview.session import SESSION_LOADER, SESSION_LOADERS, Session


def test_importing_the_session_package_registers_nothing() -> None:
    assert SESSION_LOADER not in list(DEFAULT_LOADERS) and list(SESSION_LOADERS) == [
        SESSION_LOADER]


def test_load_input_opens_a_session_read_only(tmp_path: Path, dataset: ListDataset) -> None:
    path = str(tmp_path / "s.citeview")
    Session.create(path, dataset).close()
    for loaded in (load_input(path, SESSION_LOADERS),
                   load_input(path, loaders=[SESSION_LOADER])):
        assert loaded.kind == "session" and loaded.case_ids() == dataset.case_ids()
        assert loaded.session.readonly
        again = loaded.reload()
        assert again.kind == "session" and len(again) == len(dataset)
        again.close()
        loaded.close()
    with pytest.raises(InputError, match="open it with citeview.session"):
        load_input(path, loaders=[])


def test_an_sqlite_file_that_is_no_session(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "other.db"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(InputError, match="an SQLite database, but not a citeview session"):
        load_input(str(path), SESSION_LOADERS)
