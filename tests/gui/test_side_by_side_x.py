"""Side by side in a real X server: wheel scrolling both panes in turn, faster than they follow,
resizing and switching cases meanwhile, never crashes the window (it once did, re-entering the
raw pane's colouring from a scroll cascade)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.gui.conftest import reviewer_home
from tests.gui.test_side_by_side import long_case
from tests.gui.xserver import App, xvfb

pytestmark = [pytest.mark.slow, pytest.mark.own_x]


def test_scrolling_both_panes_resizing_and_switching_cases_in_x(tmp_path: Path) -> None:
    data = tmp_path / "long.jsonl"
    data.write_text("".join(json.dumps(long_case(bool(k % 2), f"long-{k}").to_dict(),
                                       ensure_ascii=False) + "\n" for k in range(3)),
                    encoding="utf-8")
    with xvfb("1024x640") as display:
        app = App(display, reviewer_home(tmp_path / "home"), str(data))
        try:
            app.wait(lambda: app.title().startswith("long-0"), what="the first case")
            time.sleep(0.5)
            app.click(400, 420)  # the answer: the window has the keyboard
            app.key("ctrl+shift+b")
            time.sleep(0.5)
            wid = app.windows()[-1]
            for round_ in range(6):
                # The rendered pane is left of the raw one (two thirds of the panes' room).
                for x, button in ((340, "5"), (600, "4"), (600, "5"), (340, "4")):
                    app.xdotool("mousemove", str(x), "300", "click", "--repeat", "12",
                                "--delay", "5", button)
                if round_ % 2:
                    app.xdotool("windowsize", wid, str(900 + 40 * round_), "600")
                    app.key("ctrl+Next", count=False)
                else:
                    app.key("ctrl+Prior", count=False)
                assert app.proc.poll() is None, app.proc.stdout.read()  # type: ignore[union-attr]
            app.key("Right", "Right", "Left", count=False)
            time.sleep(0.5)
            app.screenshot(tmp_path / "side-by-side.png")
            assert app.proc.poll() is None
        finally:
            out = app.quit()
        assert app.proc.returncode == 0, out
        assert "Traceback" not in out and "QWARN" not in out, out
