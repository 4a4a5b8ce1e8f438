"""A big case's answer is drawn first (issue #24): its chips, placed by the marker parse, are
painted before the material is read, the source shown or the tables filled (a big case file's
answer even before the file is read whole). What follows keeps that answer (each chip taking
the look its citation turns out to have), and a chip clicked meanwhile ends with its span
highlighted and in view once the material is ready."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, Qt

from citeview.core.markers import DELIMITER, START, STOP
from citeview.gui import case_loader, opening
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled, view_state
from tests.gui.helpers import cite, scroll_to_chip, shown_window

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

LINES = 20_000  # a source this long makes the case a big one (read in phases)
CITATIONS = 600
MISSING = 41  # the 0-based chip whose citation names a source the material lacks


def line_text(k: int) -> str:
    return f"line {k} of the log about remote work"


def cited_line(i: int) -> int:
    return 1 + i * 31


def write_case(path: Path, answer_parts: list[str]) -> Path:
    body = "\n".join(f"[L{k}] {line_text(k)}" for k in range(1, LINES + 1))
    material = f"Citation Marker: {START}cite{DELIMITER}turn0file0{STOP}\nTitle: Log\n\n{body}"
    path.write_text(json.dumps({"id": "big", "tool_outputs": [material],
                                "answer": "".join(answer_parts)}, ensure_ascii=False),
                    encoding="utf-8")
    assert len(material) > case_loader.SMALL_CASE
    return path


@pytest.fixture
def big_case(tmp_path: Path) -> Path:
    """600 citations, ten a paragraph; citation MISSING names turn0file9 (not in the material)."""
    parts = []
    for i in range(CITATIONS):
        sid = "turn0file9" if i == MISSING else "turn0file0"
        parts.append(f"Claim {i + 1} about remote work{cite(sid, f'L{cited_line(i)}')}.")
        parts.append("\n\n" if i % 10 == 9 else " ")
    return write_case(tmp_path / "big.case.json", parts)


class FirstAnswerPaint(QObject):
    """What the window showed at the first paint of the answer pane holding ``chips`` chips."""

    def __init__(self, win: MainWindow, chips: int) -> None:
        super().__init__()
        self.win, self.chips = win, chips
        self.seen: dict[str, Any] | None = None
        win.answer.viewport().installEventFilter(self)

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # noqa: N802
        win = self.win
        if (ev.type() == QEvent.Type.Paint and self.seen is None
                and win.answer.placed_chips() == self.chips):
            self.seen = {"view": win.view, "source": win.source.shown_source_id(),
                         "rows": win.citations_model.rowCount(),
                         "labels": [win.answer.chip_text(i) for i in range(self.chips)]}
        return False


@pytest.fixture(params=["read first", "answer read ahead"])
def early(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether the case file counts as big enough to have its answer read ahead of the rest
    and drawn before the file is read whole (the test files are smaller than real ones)."""
    if request.param == "answer read ahead":
        monkeypatch.setattr(opening, "EARLY_ANSWER_BYTES", 0)
        return True
    return False


@pytest.fixture
def held_material(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The case's material is read only once the returned event is set (a slow disk, a big
    source): what the window shows meanwhile is what a user sees for those seconds."""
    gate = threading.Event()
    real = case_loader.first_phase

    def held(*args: Any, **kwargs: Any) -> case_loader.SourceFirst:
        gate.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(case_loader, "first_phase", held)
    yield gate
    gate.set()


def test_the_answer_with_its_chips_paints_before_the_source_and_the_tables(
        qtbot, tmp_path: Path, big_case: Path, held_material: threading.Event,
        early: bool) -> None:
    win = shown_window(qtbot, tmp_path)
    first = FirstAnswerPaint(win, CITATIONS)
    assert win.open_path(str(big_case))
    qtbot.waitUntil(lambda: first.seen is not None, timeout=30_000)
    seen = first.seen
    assert seen is not None
    assert seen["view"] is None and seen["source"] is None and seen["rows"] == 0
    assert seen["labels"] == [str(i + 1) for i in range(CITATIONS)]
    drawn = win.answer.document()
    held_material.set()
    qtbot.waitUntil(lambda: is_settled(win), timeout=60_000)
    # The same answer stays (not drawn again); the citation whose source is missing now
    # shows its problem, and every chip after it keeps its place and number.
    assert win.answer.document() is drawn
    assert win.citations_model.rowCount() == CITATIONS
    labels = [win.answer.chip_text(i) for i in range(CITATIONS)]
    assert labels[MISSING] == f"{MISSING + 1}!"
    assert [t for i, t in enumerate(labels) if i != MISSING] == [
        str(i + 1) for i in range(CITATIONS) if i != MISSING]
    assert win.answer.chip_format(MISSING).background() != win.answer.chip_format(0).background()
    state = view_state(win)
    assert (state["active_citation"], state["source_id"]) == (1, "turn0file0")
    assert state["highlighted_text"] == line_text(cited_line(0))


def test_a_chip_clicked_before_the_material_is_read_shows_its_span_once_it_is(
        qtbot, tmp_path: Path, big_case: Path, held_material: threading.Event,
        early: bool) -> None:
    win = shown_window(qtbot, tmp_path)
    assert win.open_path(str(big_case))
    qtbot.waitUntil(lambda: win.answer.placed_chips() == CITATIONS, timeout=30_000)
    assert win.view is None  # the material is not read yet
    chip = 437
    scroll_to_chip(qtbot, win, chip)
    pos = win.answer.chip_center(chip)
    assert pos is not None
    qtbot.mouseClick(win.answer.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    held_material.set()
    qtbot.waitUntil(lambda: is_settled(win), timeout=60_000)
    state = view_state(win)
    # The click is not lost: that citation, not the first, is the one shown.
    assert state["active_citation"] == chip + 1
    assert state["source_id"] == "turn0file0"
    assert state["first_line"] == state["last_line"] == f"L{cited_line(chip)}"
    assert state["highlighted_text"] == line_text(cited_line(chip))
    qtbot.waitUntil(lambda: win.source.span_in_view() is True, timeout=10_000)
    current = win.citations_proxy.mapToSource(win.citations_table.currentIndex())
    assert win.citations_model.row(current.row()).citation.number == chip + 1


def test_a_citation_only_the_analysis_recovers_gets_its_chip_when_the_case_is_built(
        qtbot, tmp_path: Path, early: bool) -> None:
    # A marker written as literal escapes (\ue200...) is not a marker to the marker parse;
    # the analysis recovers it: the answer drawn first had no chip for it, the built one has.
    literal = r"\ue200cite\ue202turn0file0\ue202L7\ue201"
    parts = [f"Claim {i + 1}{cite('turn0file0', f'L{cited_line(i)}')}. " for i in range(40)]
    parts.insert(20, f"A claim written by hand{literal}. ")
    path = write_case(tmp_path / "recovered.case.json", parts)
    win = shown_window(qtbot, tmp_path)
    assert win.open_path(str(path))
    qtbot.waitUntil(lambda: is_settled(win), timeout=60_000)
    assert win.answer.placed_chips() == 41
    labels = [win.answer.chip_text(i) for i in range(41)]
    assert labels[20] == "~21!"  # recovered ("~"), its diagnostic a problem ("!")
    assert labels[:20] == [str(i + 1) for i in range(20)]
    assert labels[21:] == [str(i + 1) for i in range(21, 41)]
    assert len(win.view.citations) == 41


def test_a_file_whose_answer_was_drawn_but_that_is_no_case_is_told_and_not_shown(
        qtbot, tmp_path: Path, big_case: Path, messages, monkeypatch: pytest.MonkeyPatch,
        ) -> None:
    monkeypatch.setattr(opening, "EARLY_ANSWER_BYTES", 0)
    # Its answer can be read ahead, but the file is no JSON (a value cut short at its end).
    text = big_case.read_text(encoding="utf-8")
    broken = tmp_path / "broken.case.json"
    broken.write_text(text[:-1] + ', "n": tru}', encoding="utf-8")
    win = shown_window(qtbot, tmp_path)
    assert win.open_path(str(big_case))  # a case shown before
    qtbot.waitUntil(lambda: is_settled(win), timeout=60_000)
    win.open_path(str(broken))
    qtbot.waitUntil(lambda: bool(messages.errors), timeout=30_000)
    assert "invalid JSON" in messages.errors[-1] and "broken.case.json" in messages.errors[-1]
    # The case shown before is shown again, whole; nothing of the broken file stays.
    qtbot.waitUntil(lambda: is_settled(win), timeout=60_000)
    assert win.state.path == str(big_case)
    assert win.answer.placed_chips() == CITATIONS and len(win.view.citations) == CITATIONS
    assert view_state(win)["source_id"] == "turn0file0"


def test_a_file_opened_while_a_big_one_is_read_is_the_one_shown(
        qtbot, tmp_path: Path, big_case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opening, "EARLY_ANSWER_BYTES", 0)
    small = tmp_path / "small.case.json"
    small.write_text(json.dumps({"id": "small", "answer": "One claim" + cite("turn0file0", "L1")
                                 + ".", "tool_outputs": [
        f"Citation Marker: {START}cite{DELIMITER}turn0file0{STOP}\n\n[L1] remote work"]},
        ensure_ascii=False), encoding="utf-8")
    win = shown_window(qtbot, tmp_path)
    assert win.open_path(str(big_case))  # its answer drawn; the file read after that paint
    assert win.answer.placed_chips() == CITATIONS
    assert win.open_path(str(small))  # asked for next: the big one is not opened over it
    qtbot.waitUntil(lambda: is_settled(win), timeout=60_000)
    qtbot.wait(300)
    assert win.state.path == str(small)
    assert win.view.case.id == "small" and win.answer.placed_chips() == 1
