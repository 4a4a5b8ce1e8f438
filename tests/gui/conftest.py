"""Fixtures for widget tests: a shown source pane and the samples resolved by the real core."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.cases import Case
from citeview.core.markers import scan
from citeview.core.material import Material, case_material
from citeview.core.resolution import Resolution, resolve
from tests.conftest import load_sample

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def resolved_sample(name: str) -> tuple[Case, Material, list[Resolution]]:
    """A sample case, its material and its citations resolved, in reading order."""
    data = json.loads((SAMPLES / name).read_text(encoding="utf-8"))
    case = Case.from_dict(data, name)
    material = case_material(case)
    citations = scan(case.answer, known_ids=[s.id for s in material.sources]).citations
    return case, material, resolve(citations, material)


@pytest.fixture(autouse=True)
def _sessions_stay_out_of_the_repo(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """Opening a file keeps a review session beside it: for inputs inside the repository (the
    shared samples, the demo) put it in a temporary data folder instead."""
    from citeview.session import location as location_mod

    data = tmp_path / "user-data"
    monkeypatch.setenv("CITEVIEW_DATA_DIR", str(data))
    real = location_mod.session_location
    repo = Path(__file__).resolve().parent.parent.parent

    def location(input_path: str) -> tuple[str, str]:
        p = Path(input_path).resolve()
        if p.is_relative_to(repo):
            return str(data / "sessions" / (p.stem + ".citeview")), "in the user data folder"
        return real(input_path)

    monkeypatch.setattr(location_mod, "session_location", location)



# Three cases: 2, 2 and 4 citations (the second of the last cites two sources).
THREE = ("handbook-line-level", "contract-block-level", "transit-multi-turn")


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """The three cases in a JSONL file (their session goes beside it)."""
    path = tmp_path / "three.jsonl"
    path.write_text("".join(json.dumps(load_sample(f"{n}.case.json")) + "\n" for n in THREE),
                    encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _nobody_answers_dialogs(monkeypatch):  # type: ignore[no-untyped-def]
    """On a real X server (the xcb run of .ci/run) an error dialog would wait for a person:
    the window tells errors in the status bar instead, as it does offscreen. Tests that answer
    a dialog replace the prompt they expect."""
    from citeview.gui import dialogs

    monkeypatch.setattr(dialogs, "can_ask", lambda: False)


@pytest.fixture
def messages():  # type: ignore[no-untyped-def]
    """What the window told the user (status messages and errors) during the test."""
    from citeview.gui.readback import MessageLog

    with MessageLog() as log:
        yield log


#: The implementations of the session interface the review tests run against (test_review.py
#: and test_advance.py ask for ``session_backend`` with these as parameters).
BACKENDS = ("sqlite", "memory")


def backend_named(name: str):  # type: ignore[no-untyped-def]
    """A fresh session backend: the SQLite files, or sessions kept in memory."""
    from citeview.session.memory import MemoryBackend
    from citeview.session.store import SQLITE

    return SQLITE if name == "sqlite" else MemoryBackend()


@pytest.fixture
def session_backend():  # type: ignore[no-untyped-def]
    """Where the window keeps review sessions: SQLite files unless a test module asks for
    every implementation (see :data:`BACKENDS`)."""
    return backend_named("sqlite")


@pytest.fixture
def new_window(qtbot, session_backend):  # type: ignore[no-untyped-def]
    """Make a main window with the given settings, shown at 1300x800 (offscreen: errors are
    status messages, never dialogs), keeping its sessions in ``session_backend``."""
    from citeview.gui.main_window import MainWindow

    def make(settings):  # type: ignore[no-untyped-def]
        win = MainWindow(settings=settings, sessions=session_backend)
        qtbot.addWidget(win)
        win.resize(1300, 800)
        win.show()
        qtbot.waitExposed(win)
        # On a real X server (the xcb run of .ci/run) a window gets the keyboard once it is
        # active; the review keys are window shortcuts.
        win.activateWindow()
        qtbot.waitUntil(win.isActiveWindow, timeout=3000)
        return win

    return make


@pytest.fixture
def source_view(qtbot):  # type: ignore[no-untyped-def]
    from citeview.gui.source_view import QtSourceView

    view = QtSourceView()
    qtbot.addWidget(view)
    view.resize(640, 420)
    view.show()
    qtbot.waitExposed(view)
    return view


def reviewer_home(home: Path, name: str = "qa") -> Path:
    """A fresh home (for :class:`tests.gui.xserver.App`) whose settings already hold an
    annotator's name: citeview asks a new reviewer's name before the first case shows, and a
    test about something else must not wait behind that box."""
    folder = home / ".config" / "citeview"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "citeview.conf").write_text(f"[review]\nannotator={name}\n", encoding="utf-8")
    return home
