"""The real-X fixture (``tests/gui/xserver.py``) hands a test its display only once the display
answers, on a busy machine too, tries another display number when one is taken, and fails
saying why when no server answers."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.gui import xserver
from tests.gui.xserver import skip_without_x, xvfb

pytestmark = pytest.mark.own_x


def geometry(display: str) -> subprocess.CompletedProcess[str]:
    """One request to the display, no retry."""
    env = {k: v for k, v in os.environ.items() if k != "XAUTHORITY"}
    return subprocess.run(["xdotool", "getdisplaygeometry"], env={**env, "DISPLAY": display},
                          capture_output=True, text=True, timeout=30)


@contextmanager
def busy(n: int = 2) -> Iterator[None]:
    """``n`` processes burning a CPU each (the machine has 2 cores shared with other work)."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in burners:
            p.kill()
        for p in burners:
            p.wait(10)


def test_the_display_answers_before_the_test_body_runs_beside_busy_processes() -> None:
    skip_without_x()
    with busy(2):
        for size in ("1024x640", "1280x800"):
            with xvfb(size) as display:
                answer = geometry(display)  # the first thing the body does: no waiting
                assert answer.returncode == 0, answer.stderr
                assert answer.stdout.split() == size.split("x")


def test_a_display_number_already_taken_is_given_up_for_another(
        monkeypatch: pytest.MonkeyPatch) -> None:
    skip_without_x()
    with xvfb("640x480") as taken:
        numbers = iter([int(taken[1:]), xserver._free_display()])
        monkeypatch.setattr(xserver, "_free_display", lambda: next(numbers))
        with xvfb("800x600") as display:
            assert display != taken
            answer = geometry(display)
            assert answer.returncode == 0 and answer.stdout.split() == ["800", "600"]


def test_a_display_that_never_answers_fails_the_test_saying_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    skip_without_x()
    monkeypatch.setattr(xserver, "display_answers", lambda display, timeout=10.0: False)
    monkeypatch.setattr(xserver, "ANSWER_TIMEOUT", 1.0)
    monkeypatch.setattr(xserver, "ATTEMPTS", 2)
    with pytest.raises(pytest.fail.Exception, match="no Xvfb of our own answered: Xvfb :\\d+ "
                       "did not answer within 1 s; Xvfb :\\d+ did not answer"), xvfb("640x480"):
        raise AssertionError("the body ran without an answering display")
