"""Test configuration shared by the whole suite.

Qt runs offscreen (set before any Qt import); pytest-qt's qt_api and failing on Qt log warnings
are set in pyproject.toml.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from citeview.core.cases import Case

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Tests do not time things: Hypothesis's 200 ms deadline per example failed property tests
# on a loaded 2-core machine (CI, other work) while every example held.
settings.register_profile("citeview", deadline=None)
settings.load_profile("citeview")

# Tests never read or write the user's own settings, sessions or caches: QSettings and
# QStandardPaths follow the XDG variables, citeview's data folder follows CITEVIEW_DATA_DIR.
_HOME = Path(tempfile.mkdtemp(prefix="citeview-tests-"))
atexit.register(shutil.rmtree, _HOME, True)
for _var, _sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"),
                   ("XDG_CACHE_HOME", "cache"), ("CITEVIEW_DATA_DIR", "citeview-data")):
    os.environ[_var] = str(_HOME / _sub)

DATA = Path(__file__).parent / "data"
SAMPLES = DATA / "samples"


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES


def load_sample(name: str) -> dict:
    """The JSON of ``tests/data/samples/<name>`` (a copy of the shared samples)."""
    return json.loads((SAMPLES / name).read_text(encoding="utf-8"))


#: The source tree's demo (``resource_path`` may resolve to another checkout's resources).
DEMO = Path(__file__).parent.parent / "resources" / "demo" / "demo.jsonl"


def demo_case(case_id: str) -> Case:
    """Case ``case_id`` of the source tree's demo."""
    from citeview.core.inputs import load_input

    ds = load_input(str(DEMO))
    try:
        return next(c for c in ds.iter_cases() if c.id == case_id)
    finally:
        ds.close()


# --------------------------------------------------------------------------- real pipes


def _feed(fd: int, data: bytes) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError:  # the reader went away (an input refused before its end)
        pass
    finally:
        os.close(fd)


@pytest.fixture
def pipe_of() -> Iterator[Callable[[bytes], str]]:
    """``pipe_of(data)``: a ``/dev/fd/N`` path that reads ``data`` once through a real pipe,
    written by a thread as the reader reads (what ``<(cat file)`` gives a command)."""
    import threading

    made: list[tuple[int, threading.Thread]] = []

    def make(data: bytes) -> str:
        r, w = os.pipe()
        thread = threading.Thread(target=_feed, args=(w, data), daemon=True)
        thread.start()
        made.append((r, thread))
        return f"/dev/fd/{r}"

    yield make
    for r, thread in made:
        os.close(r)
        thread.join(10)


@pytest.fixture
def fifo_of(tmp_path: Path) -> Iterator[Callable[[bytes], str]]:
    """``fifo_of(data)``: a named pipe (``mkfifo``) that a thread writes ``data`` into once a
    reader opens it."""
    import threading

    made: list[tuple[str, threading.Thread]] = []

    def write(path: str, data: bytes) -> None:
        _feed(os.open(path, os.O_WRONLY), data)

    def make(data: bytes) -> str:
        path = str(tmp_path / f"fifo{len(made)}")
        os.mkfifo(path)
        thread = threading.Thread(target=write, args=(path, data), daemon=True)
        thread.start()
        made.append((path, thread))
        return path

    yield make
    for path, thread in made:
        if thread.is_alive():  # never opened by the reader: let the writer through
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            thread.join(0.2)
            os.close(fd)
        thread.join(10)


# --------------------------------------------------------------------------- PostgreSQL


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[object]:
    """One throwaway PostgreSQL cluster for the whole run (tests/pg_cluster.py); skipped when
    PostgreSQL or psycopg is missing, a failure with ``CITEVIEW_REQUIRE_POSTGRES=1``."""
    from tests.pg_cluster import missing, remove_cluster, start_cluster, unavailable

    why = unavailable()
    if why is not None:
        missing(why)
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        remove_cluster(cluster)


@pytest.fixture
def pg(pg_cluster: object) -> Iterator[object]:
    """The cluster, with every project dropped after the test (roles are kept: cluster-wide)."""
    yield pg_cluster
    import psycopg

    with psycopg.connect(pg_cluster.conninfo(), autocommit=True) as conn:  # type: ignore[attr-defined]
        if conn.execute("SELECT to_regclass('citeview.projects')").fetchone()[0]:  # type: ignore[index]
            conn.execute("DELETE FROM citeview.projects")
