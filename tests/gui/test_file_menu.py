"""File menu: Export and the report through the commands' own code, Save Session As, the Notes
column and the filters by status, lint code and note."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QUrl

from citeview.gui.filters import Filter, FilterKind
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled
from citeview.gui.review_session import ANNOTATOR_KEY
from citeview.gui.tables import KEY_ROLE, CitationsModel
from tests.conftest import load_sample

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")


@pytest.fixture
def win(qtbot, new_window, tmp_path, dataset, messages) -> MainWindow:  # type: ignore[no-untyped-def]
    s = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    s.setValue(ANNOTATOR_KEY, "ana")
    w = new_window(s)
    assert w.open_path(str(dataset)), messages.errors
    qtbot.waitUntil(lambda: is_settled(w) and w.active is not None
                    and w.review_session.session is not None, timeout=5000)
    return w


def menu_texts(menu) -> list[str]:  # type: ignore[no-untyped-def]
    return [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]


def cli(*args: str) -> bytes:
    return subprocess.run([sys.executable, "-m", "citeview", *args], capture_output=True,
                          check=True).stdout


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_file_export_writes_what_citeview_export_writes(qtbot, win, tmp_path, fmt) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(win, Qt.Key.Key_1)  # a verdict, so the rows hold one
    asked = []
    out = tmp_path / f"out.{fmt}"
    win.menus.exporter.ask_path = lambda title, start, pattern: asked.append(start) or str(out)
    from citeview.gui.exports import FORMATS

    action = next(a for a in win.menus.export_menu.actions() if a.text() == FORMATS[fmt][0])
    action.trigger()
    session = win.review_session.session.path
    assert asked and asked[0].startswith(session[:-len(".citeview")])
    assert out.read_bytes() == cli("export", session, "--format", fmt)
    if fmt == "jsonl":
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert any(r["verdict"] == "supported" and r["annotator"] == "ana" for r in rows)


def test_the_report_opens_in_the_browser_as_citeview_report_writes_it(win) -> None:  # type: ignore[no-untyped-def]
    opened: list[QUrl] = []
    win.menus.exporter.open_url = lambda url: opened.append(url) or True
    win.menus.report_action.trigger()
    assert len(opened) == 1 and opened[0].isLocalFile()
    page = Path(opened[0].toLocalFile())
    assert page.suffix == ".html"
    session = win.review_session.session.path
    assert page.read_bytes() == cli("report", session, "--format", "html")


def test_save_as_says_it_saves_the_session(qtbot, win, tmp_path, messages) -> None:  # type: ignore[no-untyped-def]
    assert win.menus.save_as_action.text().replace("&", "") == "Save Session As\u2026"
    copy = tmp_path / "copy.citeview"
    win.review_session.save_as(str(copy))
    assert copy.exists() and win.review_session.session.path == str(copy)
    assert any("Session saved as" in t and str(copy) in t for t in messages.texts)
    win.review_session.attach(None)  # no review: it saves the case shown
    assert win.menus.save_as_action.text().replace("&", "") == "Save Case As\u2026"
    assert not win.menus.report_action.isEnabled()


def shown(win: MainWindow) -> list[int]:
    proxy = win.citations_proxy
    keys = [proxy.index(r, 0).data(KEY_ROLE) for r in range(proxy.rowCount())]
    return [k[1] + 1 for k in keys if k[0] == "citation"]


def test_a_note_shows_in_the_notes_column_and_has_a_note_filters_by_it(qtbot, win) -> None:  # type: ignore[no-untyped-def]
    model = win.citations_model
    assert model.headerData(CitationsModel.NOTE_COLUMN, Qt.Orientation.Horizontal) == "Note"
    win.review.prompt_note = lambda title, prompt, text: "L4 says five"
    win.navigator.activate_citation(1)
    qtbot.keyClick(win, Qt.Key.Key_N)
    row = model.row_of_citation(1)
    assert model.index(row, CitationsModel.NOTE_COLUMN).data() == "L4 says five"
    win.filters.set_citations_filter(FilterKind.NOTE)
    assert shown(win) == [2]
    assert win.filters.citations_box.currentText() == "Has a note"


def test_filters_by_status_and_by_lint_code(qtbot, new_window, tmp_path, messages) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "rules.jsonl"
    path.write_text(json.dumps(load_sample("handbook-rule-breaking.case.json")) + "\n",
                    encoding="utf-8")
    s = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    s.setValue(ANNOTATOR_KEY, "ana")
    w = new_window(s)
    assert w.open_path(str(path)), messages.errors
    qtbot.waitUntil(lambda: is_settled(w) and w.active is not None, timeout=5000)
    box = w.filters.citations_box
    offered = [box.itemText(i) for i in range(box.count())]
    view = w.view
    bad = next(st for c in view.citations for st in c.statuses if st not in ("ok",))
    assert f"Status: {bad}" in offered
    w.filters.set_citations_filter(Filter(FilterKind.STATUS, bad))
    expected = [c.number for c in view.citations if bad in c.statuses]
    assert shown(w) == expected and 0 < len(expected) < len(view.citations)
    code = next(d.code for c in view.citations for d in c.diagnostics)
    assert f"Lint: {code}" in offered
    w.filters.set_citations_filter(Filter(FilterKind.CODE, code))
    expected = [c.number for c in view.citations if any(d.code == code for d in c.diagnostics)]
    assert shown(w) == expected and expected
    assert box.currentText() == f"Lint: {code}"


def test_has_a_note_lists_the_cases_with_a_note(qtbot, win) -> None:  # type: ignore[no-untyped-def]
    win.review.prompt_note = lambda title, prompt, text: "check the date"
    win.loader.show_case(1)
    qtbot.waitUntil(lambda: is_settled(win) and win.view is not None
                    and win.view.case.id == "contract-block-level", timeout=5000)
    win.filters.set_cases_filter(FilterKind.NOTE)
    cases = win.cases_proxy
    assert cases.rowCount() == 0
    win.review.edit_case_note()  # Shift+N: a note on the whole case
    ids = [cases.index(r, 1).data() for r in range(cases.rowCount())]
    assert ids == ["contract-block-level"]


def test_has_a_note_follows_notes_written_and_cleared(qtbot, win) -> None:  # type: ignore[no-untyped-def]
    win.loader.show_case(1)
    qtbot.waitUntil(lambda: is_settled(win) and win.view is not None
                    and win.view.case.id == "contract-block-level", timeout=5000)
    win.filters.set_cases_filter(FilterKind.NOTE)
    cases = win.cases_proxy

    def listed() -> list[str]:
        return [cases.index(r, 1).data() for r in range(cases.rowCount())]

    win.review.prompt_note = lambda title, prompt, text: "which page?"
    win.review.edit_note()  # N: a note on the selected citation
    assert listed() == ["contract-block-level"]
    win.review.set_case_verdict("supported")  # no note changed: still listed
    assert listed() == ["contract-block-level"]
    win.review.prompt_note = lambda title, prompt, text: ""
    win.review.edit_note()  # the note cleared: the case leaves the list
    assert listed() == []
    win.review.undo_stack.undo()  # and comes back with it
    assert listed() == ["contract-block-level"]
