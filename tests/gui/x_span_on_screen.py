"""Run under a real X server (see test_real_x.py): click chips with the X mouse at a window
width and zoom, and read the source pane back from the screen (what a reviewer sees, not a
re-render): whether the cited span's rows carry the highlight colour there. Prints JSON.

    python -m tests.gui.x_span_on_screen CASE WIDTH ZOOM CHIP [CHIP ...]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from tests.gui.helpers import (
    centre_chip,
    opened_on_screen,
    screen_grab,
    settle,
    span_rows,
    window_settings,
)


def main() -> None:
    case, width, zoom = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    chips = [int(a) for a in sys.argv[4:]]
    app = QApplication([])
    from citeview.gui.readback import view_state

    settings = window_settings(Path(tempfile.mkdtemp()), "x")
    win = opened_on_screen(app, case, settings, size=(width, 800))
    win.source.zoom(zoom)
    settle(app, 0.5)
    results = []
    for index in chips:
        answer = win.answer
        centre_chip(win, index)
        settle(app, 0.2)
        centre = answer.viewport().mapToGlobal(answer.chip_center(index))
        subprocess.run(["xdotool", "mousemove", str(centre.x()), str(centre.y()), "click", "1"],
                       check=True)
        # The click lands through the X server: wait for it (and a source's lines to go in),
        # then for the frame to reach the screen.
        end = time.monotonic() + 10
        while (win.active != index or win.source.is_loading()) and time.monotonic() < end:
            settle(app, 0.02)
        settle(app, 0.25)
        text = win.source.text_view()
        top, bottom, height, row_height = span_rows(win)
        image = screen_grab(text.viewport())
        x = text.viewport().width() - 2
        colour = text.roles.highlight.rgb()
        rows = [y for y in range(int(top) + 2, int(bottom) - 1) if 0 <= y < height]
        lit = [y for y in rows if image.pixel(x, y) == colour]
        state = view_state(win)
        results.append({"chip": index, "active": win.active, "lines": [state["first_line"],
                        state["last_line"]], "top": top, "bottom": bottom, "height": height,
                        "rows": len(rows), "lit": len(lit), "row_height": row_height,
                        "span_in_view": state["span_in_view"]})
    print(json.dumps(results))
    win.close()


if __name__ == "__main__":
    main()
