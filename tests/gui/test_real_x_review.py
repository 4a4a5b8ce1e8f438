"""A new reviewer's first minutes in a real X server (Xvfb, keys through xdotool): the name box
comes before the first case and keeps out the verdict keys typed before it appeared."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import load_sample
from tests.gui.conftest import THREE
from tests.gui.xserver import App, xvfb

pytestmark = [pytest.mark.slow, pytest.mark.own_x]


def three_cases(path: Path) -> Path:
    path.write_text("".join(json.dumps(load_sample(f"{n}.case.json")) + "\n" for n in THREE),
                    encoding="utf-8")
    return path


def exported(session: Path) -> list[dict[str, object]]:
    out = subprocess.run([sys.executable, "-m", "citeview", "export", str(session),
                          "--format", "jsonl"], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_the_name_is_asked_before_the_first_case_and_early_verdict_keys_stay_out_of_it(
        tmp_path: Path) -> None:
    data = three_cases(tmp_path / "three.jsonl")
    with xvfb("1280x800") as display:
        app = App(display, tmp_path / "home", str(data))
        try:
            # A reviewer typing verdicts before anything shows: the keys go on until the box
            # is there (some reach the window while it starts, some the box as it appears).
            deadline = time.monotonic() + 30
            early = 0
            while not app.windows("Annotator"):
                assert time.monotonic() < deadline, "no name box"
                assert app.proc.poll() is None, app.proc.stdout.read()  # type: ignore[union-attr]
                app.key("1", count=False)
                early += 1
            assert early > 0
            assert not app.title().startswith(THREE[0])  # no case shown behind the box yet
            time.sleep(0.6)  # the reviewer reads the question
            app.type("qa")
            app.key("Return")
            app.wait(lambda: not app.windows("Annotator"), what="the box to close")
            app.wait(lambda: app.title().startswith(THREE[0]), what="the first case")
            time.sleep(0.8)
            app.key("1", "1")  # the first case's two citations: done, the next case opens
            app.wait(lambda: app.title().startswith(THREE[1]), what="the second case")
            time.sleep(0.5)
        finally:
            out = app.quit()
    assert "Traceback" not in out, out
    rows = exported(data.with_suffix(".citeview"))
    judged = [r for r in rows if r["verdict"]]
    # The name as typed (no verdict key in it), and only the verdicts given after it.
    assert {r["annotator"] for r in judged} == {"qa"}
    assert [(r["case_id"], r["verdict"]) for r in judged] == [(THREE[0], "supported")] * 2


@pytest.mark.parametrize("size", ["1024x640", "1280x800", "1920x1080"])
def test_verdicts_counts_and_progress_read_whole_at_common_screen_sizes(
        tmp_path: Path, size: str) -> None:
    """The window a new reviewer first sees, measured with the X server's fonts: every
    verdict and status whole, the status labels not cut, the case's question shown."""
    import os

    script = Path(__file__).with_name("x_measure_fit.py")
    root = Path(__file__).parent.parent.parent
    with xvfb(size) as display:
        env = {k: v for k, v in os.environ.items() if k != "XAUTHORITY"}
        env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", HOME=str(tmp_path),
                   XDG_CONFIG_HOME=str(tmp_path / ".config"),
                   CITEVIEW_DATA_DIR=str(tmp_path / "data"),
                   PYTHONPATH=os.pathsep.join([str(root), *sys.path]))
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert "partially supported" in seen["verdicts"] and "unsupported" in seen["verdicts"]
    assert seen["verdict_cut"] == [] and seen["status_cut"] == [], seen
    assert seen["counts"][1] and seen["progress"][1] and seen["session"][1], seen
    assert "qa reviewer" in seen["progress"][0]
    assert seen["question_shown"], seen
    assert seen["citation_rows"] >= 7, seen  # (five showed at 1024x640)
    # The first start fits the screen and, on a large one, uses most of it (it opened at
    # 1400x860 on 1920x1080, leaving a quarter of the screen empty).
    screen_w, screen_h = (int(n) for n in size.split("x"))
    width, height = seen["window"]
    assert width <= screen_w and height <= screen_h, seen
    assert width >= min(1400, screen_w) and width >= 0.85 * screen_w or screen_w < 1400, seen
    # The case list's question and the sources' titles get a fair part of their lists (at
    # 1024 px, usable: less).
    least = 0.3 if size == "1024x640" else 0.35
    assert seen["case_question_share"] >= least and seen["source_title_share"] >= least, seen


def test_a_window_saved_on_a_larger_screen_opens_inside_a_smaller_one(tmp_path: Path) -> None:
    """Saved at 1728x972 on a 1920x1080 monitor, the window opens on a 1024x640 screen inside
    it (restoreGeometry alone left it 1728 px wide, its right part and status bar off
    screen)."""
    import os

    from PySide6.QtCore import QByteArray

    root = Path(__file__).parent.parent.parent
    script = Path(__file__).with_name("x_saved_geometry.py")
    with xvfb("1920x1080") as big:  # the geometry as a 1920x1080 screen saves it
        env = {k: v for k, v in os.environ.items() if k != "XAUTHORITY"}
        env.update(DISPLAY=big, QT_QPA_PLATFORM="xcb", HOME=str(tmp_path),
                   PYTHONPATH=os.pathsep.join([str(root), *sys.path]))
        code = ("import sys; from PySide6.QtWidgets import QApplication, QMainWindow; "
                "a = QApplication([]); w = QMainWindow(); w.resize(1728, 972); w.move(96, 54); "
                "w.show(); [a.processEvents() for _ in range(20)]; "
                "sys.stdout.write(bytes(w.saveGeometry().toBase64()).decode())")
        saved = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                               text=True, timeout=60).stdout.strip()
    assert QByteArray.fromBase64(saved.encode()).size() > 0
    with xvfb("1024x640") as small:
        env["DISPLAY"] = small
        done = subprocess.run([sys.executable, str(script), saved], env=env,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    x, y, w, h = seen["window"]
    rx, ry, rw, rh = seen["room"]
    assert (rw, rh) == (1024, 640)
    assert rx <= x and ry <= y and x + w <= rx + rw and y + h <= ry + rh, seen
