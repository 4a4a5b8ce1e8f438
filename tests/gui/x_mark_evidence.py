"""Run under a real X server (see test_real_x_review.py): with the X mouse, drag across a line
of the source and press E (evidence); with the X keyboard alone, select two lines and press L
(the citation's locator fixed). Prints what the window showed (JSON); the test reads the
session back through ``citeview export``.

pytest-qt's clicks go straight to a widget; these go through X's pointer grab, focus routing
and the shortcut map, where a read-only text pane that takes keyboard selection could have
eaten the keys."""

from __future__ import annotations

import json
import subprocess
import sys

from PySide6.QtCore import QPoint, QSettings
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from tests.gui.helpers import opened_on_screen, settle


def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, timeout=20)


def main() -> None:
    data, settings_path = sys.argv[1], sys.argv[2]
    app = QApplication([])
    from citeview.gui.review_session import ANNOTATOR_KEY

    settings = QSettings(settings_path, QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "qa")
    win = opened_on_screen(app, data, settings, size=(1280, 800), session=True)
    settle(app, 0.8)
    out: dict[str, object] = {"case": win.view.case.id if win.view else None}

    xdotool("key", "j")  # citation 2 (turn0file0 L2-L5)
    settle(app, 0.5)
    out["active"] = win.active
    source = win.source.shown_source()
    loaded = win.source.shown_prepared()
    assert source is not None and loaded is not None
    line4 = next(ln for ln in source.lines if ln.label == 4)
    text = win.source.text_view()

    def on_screen(offset: int) -> QPoint:
        c = QTextCursor(text.document())
        c.setPosition(loaded.dtext.to_qt(offset))
        r = text.cursorRect(c)
        return text.viewport().mapToGlobal(QPoint(r.left() + 1, r.center().y()))

    # The mouse: press at the line's first character, drag to its end, let go; then E.
    a, b = on_screen(line4.start), on_screen(line4.end)
    xdotool("mousemove", str(a.x()), str(a.y()), "mousedown", "1")
    settle(app, 0.2)
    xdotool("mousemove", str((a.x() + b.x()) // 2), str(b.y()))
    settle(app, 0.1)
    xdotool("mousemove", str(b.x()), str(b.y()))
    settle(app, 0.2)
    xdotool("mouseup", "1")
    settle(app, 0.3)
    out["selected"] = win.source.selected_span()
    out["line4"] = [line4.start, line4.end]
    out["focus"] = type(QApplication.focusWidget()).__name__
    xdotool("key", "e")
    settle(app, 0.5)
    out["evidence_shown"] = win.source.evidence_spans()

    # The keyboard alone: the caret to L4 (Ctrl+Home, Down until there), then Shift+Down
    # until the selection reaches L5 (a wrapped line takes a press per row), Shift+End.
    line5 = next(ln for ln in source.lines if ln.label == 5)
    trace: list[tuple[str, int]] = []

    def press(key: str) -> int:
        xdotool("key", key)
        settle(app, 0.15)
        trace.append((key, text.textCursor().position()))
        return trace[-1][1]

    press("ctrl+Home")
    while trace[-1][1] < line4.start and len(trace) < 20:
        press("Down")
    press("Home")
    while press("shift+Down") < line5.start and len(trace) < 30:
        pass
    press("shift+End")
    out["trace"] = trace
    out["selected_lines"] = win.source.selected_span()
    xdotool("key", "l")
    settle(app, 0.5)
    out["chip"] = win.answer.chip_text(1)
    print(json.dumps(out))
    win.close()
    settle(app, 0.3)


if __name__ == "__main__":
    main()
