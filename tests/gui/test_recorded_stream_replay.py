"""The Stream Replay plays a recorded provider stream as it arrived: each citation shows once its
event has arrived, every event is a step, and the final view is the answer pane's."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from citeview.gui.readback import is_settled
from citeview.gui.replay import QtStreamReplay

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")

STREAMS = Path(__file__).parent.parent / "data" / "streams"


@pytest.mark.parametrize(("name", "cited_at"), [("anthropic-messages.sse", 8),
                                                ("openai-responses.events.jsonl", 7),
                                                ("gemini-stream.sse", 2)])
def test_a_recorded_stream_replays_its_citations_as_their_events_arrive(
        qtbot, new_window, tmp_path: Path, name: str, cited_at: int) -> None:
    win = new_window(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert win.open_path(str(STREAMS / name))
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    dlg = win.case_actions.show_replay()
    assert dlg is not None and isinstance(dlg, QtStreamReplay)
    assert "recorded stream" in dlg.windowTitle()
    dlg.pause()
    dlg.restart()
    assert dlg.rendered.chip_count() == 0 and dlg.status.text().startswith("Event 0 of")
    total = dlg.frame.total  # type: ignore[union-attr]
    for step in range(1, total + 1):
        frame = dlg.step()
        # One step per event, whether or not it changes what is shown.
        assert frame.step == step  # type: ignore[union-attr]
        assert dlg.status.text().startswith(f"Event {step} of {total}")
        # The citation is a chip from its own event on, never before.
        assert dlg.rendered.chip_count() == (1 if step >= cited_at else 0), step
    assert frame.finished
    assert dlg.rendered_text() == win.answer.document().toPlainText()
    assert dlg.rendered.chip_count() == win.answer.chip_count() == 1
    assert dlg.rendered.chip_text(0) == win.answer.chip_text(0)
    dlg.close()


def test_recorded_timing_sets_the_wait_before_the_next_event(qtbot, new_window,
                                                             tmp_path: Path) -> None:
    win = new_window(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert win.open_path(str(STREAMS / "openai-responses.events.jsonl"))
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    dlg = win.case_actions.show_replay()
    assert dlg is not None
    dlg.pause()
    dlg.restart()
    dlg.step()
    dlg.play()  # restarts nothing: the stream is part way
    assert dlg.interval() == 100  # events 0.1 s apart in the log
    dlg.factor.setValue(4.0)
    assert dlg.interval() == 25
    qtbot.waitUntil(lambda: dlg.frame.finished, timeout=5000)
    assert not dlg.playing()
    dlg.close()
