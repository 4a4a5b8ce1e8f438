"""Reviewing in a real X server, keys sent through X (xdotool): one key per verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeview.core.analysis import analyse
from citeview.core.inputs import load_input
from citeview.core.policy import Policy
from tests.conftest import load_sample
from tests.gui.conftest import reviewer_home
from tests.gui.xserver import App, xvfb

# (timeout: the 100 random chips of a 200,000-line case took 94 s on a loaded machine)
pytestmark = [pytest.mark.slow, pytest.mark.own_x, pytest.mark.timeout(600)]

SAMPLES = ["handbook-line-level", "contract-block-level", "transit-multi-turn",
           "opinion-injected-context", "handbook-rule-breaking"]


def thirty_cases(path: Path) -> Path:
    """30 cases: multi-source citations (transit), problem cases (rule-breaking: unknown
    sources, bad ranges, recovered markers) and three with no citation at all."""
    lines = []
    for i in range(30):
        if i % 10 == 4:
            case = {"id": f"c{i:02d}-none", "question": "Anything?",
                    "answer": "No sources were needed for this one."}
        else:
            case = load_sample(f"{SAMPLES[i % len(SAMPLES)]}.case.json")
            case["id"] = f"c{i:02d}-{SAMPLES[i % len(SAMPLES)]}"
        lines.append(json.dumps(case))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_thirty_cases_reviewed_with_the_keyboard_alone_at_under_1_2_keys_per_verdict(
        tmp_path: Path) -> None:
    data = thirty_cases(tmp_path / "thirty.jsonl")
    items = {c.id: analyse(c, Policy()).items for c in load_input(str(data)).iter_cases()}
    verdicts = sum(items.values())
    assert verdicts > 60 and sum(1 for n in items.values() if n == 0) == 3
    with xvfb() as display:
        app = App(display, tmp_path / "home", str(data))
        try:
            # Fresh settings: the annotator's name is asked once, before the first case shows.
            app.wait(lambda: len(app.windows("Annotator")) > 0, what="the annotator prompt")
            time.sleep(0.6)
            app.type("qa")
            app.key("Return")
            app.wait(lambda: not app.windows("Annotator"), what="the prompt to close")
            app.wait(lambda: app.title().startswith("c00-"), what="the first case")
            time.sleep(1)  # a reviewer reads the first answer before the first key
            given = 0
            for case_id, n in items.items():
                app.wait(lambda cid=case_id: app.title().startswith(cid + " "),
                         what=f"case {case_id}")
                if n == 0:
                    app.key("ctrl+Return")  # nothing to judge: done, next
                    continue
                for _ in range(n):
                    app.key("1")
                    given += 1
        finally:
            app.wait(lambda: True)
            out = app.quit()
    assert "Traceback" not in out, out
    assert given == verdicts
    ratio = app.keys / verdicts
    assert ratio <= 1.2, f"{app.keys} keys for {verdicts} verdicts: {ratio:.2f}"
    # Every verdict stored and every case done, as the export and the report tell it.
    session = data.with_suffix(".citeview")
    rows = subprocess.run([sys.executable, "-m", "citeview", "export", str(session),
                           "--format", "jsonl"], capture_output=True, text=True, check=True)
    exported = [json.loads(line) for line in rows.stdout.splitlines()]
    judged = [r for r in exported if r["verdict"] == "supported" and r["annotator"] == "qa"]
    assert len(judged) == verdicts and all(r["status"] != "orphaned" for r in exported)
    report = subprocess.run([sys.executable, "-m", "citeview", "report", str(session),
                             "--format", "json"], capture_output=True, text=True, check=True)
    assert json.loads(report.stdout)["cases"]["done"] == 30


def chip_boxes(image_path: Path, width: int = 840, height: int = 640
               ) -> list[tuple[int, int, int, int]]:
    """Chips on screen, in reading order: connected areas of the chip colours (resolved
    background, active background) in a screenshot's answer area."""
    from collections import deque

    from PySide6.QtGui import QColor, QImage

    image = QImage(str(image_path))
    wanted = {QColor("#dbe7fb").rgb(), QColor("#1a4a9c").rgb()}
    hit = {(x, y) for y in range(min(height, image.height()))
           for x in range(min(width, image.width())) if image.pixel(x, y) in wanted}
    boxes = []
    while hit:
        todo = deque([hit.pop()])
        xs, ys = [], []
        while todo:
            x, y = todo.popleft()
            xs.append(x)
            ys.append(y)
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in hit:
                    hit.discard(n)
                    todo.append(n)
        if len(xs) > 40 and max(ys) - min(ys) >= 8:
            boxes.append((min(xs), min(ys), max(xs), max(ys)))
    boxes.sort(key=lambda b: (b[1] // 10, b[0]))
    return boxes


def test_a_chip_clicked_with_the_mouse_looks_as_when_reached_with_the_keyboard(
        tmp_path: Path, qapp) -> None:  # type: ignore[no-untyped-def]
    case = Path(__file__).parent.parent / "data" / "samples" / "transit-multi-turn.case.json"
    data = tmp_path / "transit.case.json"
    data.write_bytes(case.read_bytes())
    with xvfb("1280x800") as display:
        app = App(display, reviewer_home(tmp_path / "home"), str(data))
        try:
            app.wait(lambda: app.title().startswith("transit"), what="the case")
            time.sleep(1.5)
            app.screenshot(tmp_path / "start.png")
            boxes = chip_boxes(tmp_path / "start.png")
            assert len(boxes) == 4, boxes  # the answer's four chips
            x0, y0, x1, y1 = boxes[2]
            app.click((x0 + x1) // 2, (y0 + y1) // 2)  # the real mouse, on chip 3
            time.sleep(0.5)
            app.xdotool("mousemove", "1270", "790")  # then out of the way
            time.sleep(0.5)
            app.screenshot(tmp_path / "mouse.png")
            app.key("Left")  # chip 2, then back to chip 3 from the keyboard
            time.sleep(0.3)
            app.key("Right")
            time.sleep(0.7)
            app.screenshot(tmp_path / "keyboard.png")
        finally:
            app.quit()
    from PySide6.QtGui import QImage

    mouse, keyboard = QImage(str(tmp_path / "mouse.png")), QImage(str(tmp_path / "keyboard.png"))
    assert mouse == keyboard, f"the screens differ: {tmp_path}"
    dark = QImage(str(tmp_path / "mouse.png")).copy(x0, y0, x1 - x0 + 1, y1 - y0 + 1)
    from PySide6.QtGui import QColor

    fills = {dark.pixel(x, y) for x in range(dark.width()) for y in range(dark.height())}
    assert QColor("#1a4a9c").rgb() in fills  # the active chip's colour, not a blank box


def test_the_first_case_shows_on_every_start(tmp_path: Path) -> None:
    """Workers build the first case while the window starts: the Qt classes they use are made
    on the GUI thread first (two threads making one class's enums at once once failed the
    build, "type object 'QGradient' has no attribute 'Preset'", on 5 starts of 8)."""
    case = Path(__file__).parent.parent / "data" / "samples" / "transit-multi-turn.case.json"
    with xvfb() as display:
        for k in range(6):
            data = tmp_path / f"run{k}" / "transit.case.json"
            data.parent.mkdir()
            data.write_bytes(case.read_bytes())
            app = App(display, reviewer_home(tmp_path / f"home{k}"), str(data))
            try:
                app.wait(lambda a=app: a.title().startswith("transit"), what="the case")
                time.sleep(0.8)
                names = [app.xdotool("getwindowname", w) for w in app.windows()]
                assert len(names) == 1, names  # the window, no error dialog
            finally:
                app.quit()


def test_a_clicked_citations_span_shows_on_the_real_screen_whatever_the_width_and_zoom(
        tmp_path: Path) -> None:
    """Issue #24: with wrapped lines the highlight landed below the pane. Chips clicked with
    the X mouse; the source pane read back from the X server's screen."""
    from tests.gui.xserver import skip_without_x

    skip_without_x()
    marker = "\ue200cite\ue202turn0file0\ue201"
    long = " ".join(["the line goes on about the policy and its appendix"] * 6)
    material = f"Citation Marker: {marker}\nTitle: Wrapped\n\n" + "\n".join(
        f"[L{k}] line {k}: {long}" for k in range(1, 301))
    # A long source too (every fifth line wraps): its last lines, at the bottom of the pane.
    marker1 = "\ue200cite\ue202turn0file1\ue201"
    long_source = f"Citation Marker: {marker1}\nTitle: Long\n\n" + "\n".join(
        f"[L{k}] line {k}" + (f": {long}" if k % 5 == 0 else "") for k in range(1, 5001))
    cites = [("L300", 300, 300), ("L150-L151", 150, 151), ("L2", 2, 2), ("L40-L200", 40, 200),
             ("L4997-L5000", 4997, 5000), ("L5000", 5000, 5000)]
    answer = " ".join(f"Claim {loc}\ue200cite\ue202turn0file{0 if a <= 300 else 1}"
                      f"\ue202{loc}\ue201." for loc, a, _ in cites)
    case = tmp_path / "wrapped.case.json"
    case.write_text(json.dumps({"id": "wrapped", "answer": answer,
                                "tool_outputs": [material, long_source]}), encoding="utf-8")
    with xvfb("1920x1080") as display:
        env = {**{k: v for k, v in os.environ.items() if k != "XAUTHORITY"},
               "DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "HOME": str(tmp_path),
               "CITEVIEW_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": os.pathsep.join(sys.path)}
        # Each of the three widths at both zoom levels of the offscreen tests.
        for width in (1024, 1280, 1920):
            for zoom in (0, 3):
                check_spans_on_screen(env, case, width, zoom, cites)


def check_spans_on_screen(env: dict[str, str], case: Path, width: int, zoom: int,
                          cites: list[tuple[str, int, int]],
                          chips: list[int] | None = None) -> None:
    """Click chips ``chips`` of ``case`` (all, in order, when None) with the X mouse
    (``cites``: each one's locator, first and last line); each span whole on the X server's
    screen, its rows lit."""
    chips = list(range(len(cites))) if chips is None else chips
    run = subprocess.run(
        [sys.executable, "-m", "tests.gui.x_span_on_screen", str(case), str(width),
         str(zoom), *(str(i) for i in chips)], env=env,
        capture_output=True, text=True, timeout=600,
        cwd=Path(__file__).parent.parent.parent)
    assert run.returncode == 0, run.stdout + run.stderr
    for got, (loc, a, b) in zip(json.loads(run.stdout.splitlines()[-1]), cites,
                                strict=True):
        what = (width, zoom, loc, got)
        assert got["active"] == got["chip"], what  # the click landed on its chip
        assert got["lines"] == [f"L{a}", f"L{b}"], what
        assert got["span_in_view"] is True, what
        if got["bottom"] - got["top"] <= got["height"]:
            assert got["top"] > -1 and got["bottom"] < got["height"] + 1, what
        else:
            assert abs(got["top"]) < 1, what
        # The highlight colour on every row of the span the screen shows.
        assert got["rows"] > 0 and got["lit"] == got["rows"], what


def test_100_random_citations_of_10000_show_their_span_on_the_real_screen(
        tmp_path: Path) -> None:
    """Issue #24 on the X server: 100 random chips of a 10,000-citation answer over a
    200,000-line source (every fifth line wraps), clicked with the X mouse at the narrowest
    width zoomed in; each span read back from the screen."""
    from tests.gui.xserver import skip_without_x

    skip_without_x()
    import random

    long = " ".join(["and the line goes on about the policy and its appendix"] * 6)
    n_lines, n_cites = 200_000, 10_000
    body = "\n".join(f"[L{k}] line {k} of the log" + (f": {long}" if k % 5 == 0 else "")
                     for k in range(1, n_lines + 1))
    locs = []
    parts = []
    for i in range(n_cites):
        line = 1 + i * 19 if i < n_cites - 1 else n_lines - 1
        a, b = (line, line) if i % 3 else (line, min(line + 2, n_lines))
        if i == n_cites - 1:
            a, b = n_lines - 1, n_lines
        loc = f"L{a}" if a == b else f"L{a}-L{b}"
        locs.append((loc, a, b))
        parts.append(f"Claim {i + 1}\ue200cite\ue202turn0file0\ue202{loc}\ue201."
                     + ("\n\n" if i % 10 == 9 else " "))
    material = "Citation Marker: \ue200cite\ue202turn0file0\ue201\nTitle: Big\n\n" + body
    case = tmp_path / "big.case.json"
    case.write_text(json.dumps({"id": "big", "answer": "".join(parts),
                                "tool_outputs": [material]}), encoding="utf-8")
    rnd = random.Random(24)
    picks = [n_cites - 1] + rnd.sample(range(n_cites - 1), 99)
    with xvfb("1920x1080") as display:
        env = {**{k: v for k, v in os.environ.items() if k != "XAUTHORITY"},
               "DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "HOME": str(tmp_path),
               "CITEVIEW_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": os.pathsep.join(sys.path)}
        # (The narrowest width zoomed in, where most lines wrap: the whole width and zoom
        # matrix of these clicks runs offscreen, test_span_in_view.py; the suite's time.)
        check_spans_on_screen(env, case, 1024, 3, [locs[i] for i in picks], picks)
