"""The window reads the same analysed case as the session, export and lint: one numbering, one
scan and one material parse per case opened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from citeview.cli import main
from citeview.core.cases import Case
from citeview.gui.readback import is_settled
from tests.gui.helpers import window_settings

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")

S, D, T = "\ue200", "\ue202", "\ue201"
CTX = ('<doc id="doc1">\nThe river floods every spring.\n</doc>\n'
       '<doc id="doc2">\nThe bridge opened in 1931.\n</doc>')
CITEDOC1 = Case("c", f"Floods come each spring citedoc1. The bridge opened in 1931 "
                     f"{S}cite{D}doc2{T}.", "When?", context=CTX)


def settings(tmp_path: Path) -> QSettings:
    return window_settings(tmp_path, "ana")


def test_citedoc1_verdict_in_the_window_lands_on_its_citation_in_export_and_lint(
        qtbot, tmp_path: Path, new_window, messages, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.case.json"
    path.write_text(json.dumps(CITEDOC1.to_dict()), encoding="utf-8")
    win = new_window(settings(tmp_path))
    assert win.open_path(str(path)), messages.errors
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    assert [(c.number, c.citation.raw) for c in win.view.citations] == [
        (1, "citedoc1"), (2, f"{S}cite{D}doc2{T}")]
    win.navigator.activate_citation(1)
    qtbot.keyClick(win, Qt.Key.Key_1)  # supported, on the citation the window shows as 2
    assert win.view.citations[1].verdicts == ("supported",)
    win.close()
    session = str(tmp_path / "c.case.citeview")
    assert main(["export", session, "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["citation"], r["source_id"], r["status"], r["verdict"]) for r in rows] == [
        (1, "doc1", "whole-source", None), (2, "doc2", "whole-source", "supported")]
    assert main(["lint", str(path), "--format", "jsonl"]) == 1
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {(f["code"], f["citation"]) for f in found} >= {("CV107", 1)}


def test_opening_a_case_parses_its_material_once_and_scans_its_answer_once(
        qtbot, tmp_path: Path, new_window, messages, monkeypatch: pytest.MonkeyPatch) -> None:
    import citeview.core.analysis as analysis
    import citeview.gui.case_loader as case_loader

    path = tmp_path / "c.case.json"
    path.write_text(json.dumps(CITEDOC1.to_dict()), encoding="utf-8")
    calls = {"scan": 0, "case_material": 0}

    def counted(name: str, module=analysis):  # type: ignore[no-untyped-def]
        real = getattr(module, name)

        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            first = args[0]
            if first == CITEDOC1.answer or getattr(first, "answer", None) == CITEDOC1.answer:
                calls[name] += 1
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)

    for name in calls:
        counted(name)
    counted("case_material", case_loader)  # the window parses it for the first paint
    win = new_window(settings(tmp_path))
    assert win.open_path(str(path)), messages.errors
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    qtbot.waitUntil(lambda: win.progress.progress().get("complete"), timeout=5000)
    win.navigator.activate_citation(1)
    qtbot.keyClick(win, Qt.Key.Key_1)  # a verdict reads the same analysis
    assert win.view.diagnostics  # lint ran (on the same analysis)
    assert calls == {"scan": 1, "case_material": 1}
    assert win.progress_label.text().startswith("Cases done 0/1")
    assert "Citations judged 1/2" in win.progress_label.text()


class _FullDisk:
    """The session's connection on a full disk: every INSERT fails as SQLite says."""

    def __init__(self, conn) -> None:  # type: ignore[no-untyped-def]
        self._conn = conn

    def execute(self, sql, *args):  # type: ignore[no-untyped-def]
        import sqlite3

        if sql.lstrip().upper().startswith("INSERT"):
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self._conn, name)


def test_a_full_disk_in_the_window_is_shown_keeps_no_phantom_undo_and_keeps_earlier_work(
        qtbot, tmp_path: Path, new_window, messages) -> None:
    path = tmp_path / "c.case.json"
    path.write_text(json.dumps(CITEDOC1.to_dict()), encoding="utf-8")
    win = new_window(settings(tmp_path))
    assert win.open_path(str(path)), messages.errors
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    stack = win.review.undo_stack
    qtbot.keyClick(win, Qt.Key.Key_1)  # citation 1: supported, written
    assert stack.count() == 1
    session = win.review_session.session
    real = session.conn
    session.conn = _FullDisk(real)
    win.navigator.activate_citation(1)
    qtbot.keyClick(win, Qt.Key.Key_3)
    assert any("could not save" in e for e in messages.errors), messages.errors
    assert stack.count() == 1 and stack.index() == 1  # no phantom entry
    assert win.view.citations[1].verdicts == (None,)
    session.conn = real
    from citeview.session.model import AnnotationKey

    first = win.view.citations[0]
    stored = session.annotation(AnnotationKey("c", 1, first.citation.raw, "doc1"))
    assert stored is not None and stored.verdict == "supported"  # earlier work kept
    stack.undo()  # and still undoable
    assert session.annotation(AnnotationKey("c", 1, first.citation.raw, "doc1")) is None


@pytest.mark.parametrize("raw", [False, True])
def test_a_byte_order_mark_before_the_answer_and_the_source_shifts_nothing(
        qtbot, tmp_path: Path, new_window, messages, raw: bool) -> None:
    tool = ("\ufeffCitation Marker: turn0file0\nTitle: Notes\n[L1] The first cited line.\n"
            "[L2] The second line.")
    case = Case("bom", f"\ufeffThe first claim {S}cite{D}turn0file0{D}L1{T}. And the second "
                       f"{S}cite{D}turn0file0{D}L2{T}. A file {S}cite{D}notes{D}L2{T}.",
                tool_outputs=[tool],
                documents={"notes": "\ufeffA first file line.\nThe second file line."})
    path = tmp_path / "bom.case.json"
    path.write_text(json.dumps(case.to_dict()), encoding="utf-8")
    win = new_window(settings(tmp_path))
    assert win.open_path(str(path)), messages.errors
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    if raw:
        win.set_raw_mode(True)
    from citeview.gui.readback import view_state

    for n, line in ((0, "The first cited line."), (1, "The second line."),
                    (2, "The second file line.")):
        win.navigator.activate_citation(n)
        state = view_state(win)
        assert state["highlighted_text"].strip() == line, state
    win.navigator.activate_citation(0)
    assert view_state(win)["claim"].strip().lstrip("\ufeff\u2060").startswith("The first claim")
