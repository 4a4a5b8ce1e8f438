"""A real X server for tests: Xvfb on a free display, citeview started on it as a user would,
real key presses and clicks sent with xdotool, screenshots with ImageMagick's ``import``.

Skipped where Xvfb or xdotool is missing (``.ci/run`` installs both). pytest-qt's key clicks go
straight to a widget and skip X's focus routing; these go through the X server.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

NEEDED = ("Xvfb", "xdotool")


def skip_without_x() -> None:
    missing = [tool for tool in NEEDED if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (Debian: xvfb, xdotool)")


def _free_display() -> int:
    """A display number no X server holds (lock files), away from the usual :0 and :99."""
    import random

    for n in random.sample(range(200, 1000), 800):
        if not os.path.exists(f"/tmp/.X{n}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{n}"):
            return n
    pytest.skip("no free X display number")


# How long one Xvfb may take to answer, and all attempts together: generous, as the machine
# may be busy (2 cores shared with other work); bounded, so a broken server fails the test.
ANSWER_TIMEOUT = 60.0
TOTAL_TIMEOUT = 150.0
ATTEMPTS = 4


def display_answers(display: str, timeout: float = 10.0) -> bool:
    """Whether the X server of ``display`` answers a client (``xdotool getdisplaygeometry``)."""
    env = {k: v for k, v in os.environ.items() if k != "XAUTHORITY"}
    try:
        return subprocess.run(["xdotool", "getdisplaygeometry"], env={**env, "DISPLAY": display},
                              capture_output=True, timeout=timeout).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def _start_xvfb(display: str, size: str, deadline: float) -> tuple[subprocess.Popen[bytes] | None,
                                                                       str]:
    """Xvfb on ``display``, once it is ready (``-displayfd``: it writes the display number
    when it listens) and a client's request is answered; ``(None, why)`` when it is not by
    ``deadline`` (the server is stopped)."""
    import select
    import tempfile

    log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally below)
    ready_r, ready_w = os.pipe()
    proc = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{size}x24", "-nolisten", "tcp",
                             "-ac", "-noreset", "-displayfd", str(ready_w)], pass_fds=(ready_w,),
                            stdout=subprocess.DEVNULL, stderr=log)
    os.close(ready_w)
    why = ""
    try:
        told = b""
        while proc.poll() is None and not told.strip() and time.monotonic() < deadline:
            readable, _, _ = select.select([ready_r], [], [], 0.2)
            if readable:
                chunk = os.read(ready_r, 64)
                if not chunk:
                    break  # it closed the pipe without saying: it is going down
                told += chunk
        # Only our own server's word counts: another server holding this number answers
        # the probe too, while ours is still on its way out.
        ours = told.strip() == display[1:].encode("ascii")
        while ours and proc.poll() is None and time.monotonic() < deadline:
            if display_answers(display, timeout=max(1.0, min(10.0, deadline - time.monotonic()))):
                return proc, ""
            time.sleep(0.1)
        if ours and proc.poll() is None:
            why = f"Xvfb {display} did not answer within {ANSWER_TIMEOUT:.0f} s"
        elif not told and proc.poll() is None:
            why = f"Xvfb {display} was not ready within {ANSWER_TIMEOUT:.0f} s"
        else:  # it went down (its display was taken, or it failed): say what it said
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
            log.seek(0)
            last = log.read().decode("utf-8", "replace").strip().splitlines()[-1:]
            why = f"Xvfb {display} exited ({proc.returncode}): {' '.join(last)}"
    finally:
        os.close(ready_r)
        log.close()
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    return None, why


@contextmanager
def xvfb(size: str = "1280x800") -> Iterator[str]:
    """A fresh Xvfb of our own; yields its DISPLAY (":N") only once a client's request there is
    answered (not after a fixed wait: on a busy machine the server may take long to start).
    A server that exits (another run took its display number at the same moment) or does not
    answer in time is stopped and another number tried; when none answers the test fails,
    saying why."""
    skip_without_x()
    end = time.monotonic() + TOTAL_TIMEOUT
    tried: list[str] = []
    proc: subprocess.Popen[bytes] | None = None
    for _attempt in range(ATTEMPTS):
        if time.monotonic() >= end:
            break
        display = f":{_free_display()}"
        proc, why = _start_xvfb(display, size, min(end, time.monotonic() + ANSWER_TIMEOUT))
        if proc is not None:
            break
        tried.append(why)
    if proc is None:
        pytest.fail("no Xvfb of our own answered: " + "; ".join(tried))
    try:
        yield display
    finally:
        proc.terminate()
        proc.wait(10)


class App:
    """citeview running on ``display`` with a fresh home (settings, data folder)."""

    def __init__(self, display: str, home: Path, *args: str) -> None:
        self.display = display
        # This server takes any client (-ac): an XAUTHORITY of another server is not asked for.
        base = {k: v for k, v in os.environ.items() if k != "XAUTHORITY"}
        self.env = {**base, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb",
                    "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                    "XDG_DATA_HOME": str(home / ".local" / "share"),
                    "CITEVIEW_DATA_DIR": str(home / "data"),
                    "PYTHONPATH": os.pathsep.join(sys.path)}
        self.proc = subprocess.Popen([sys.executable, "-m", "citeview", *args], env=self.env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.keys = 0  # key presses sent, as a reviewer would count them

    def xdotool(self, *args: str) -> str:
        out = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True,
                             timeout=20)
        return out.stdout.strip()

    def windows(self, name: str = "citeview") -> list[str]:
        return [w for w in self.xdotool("search", "--onlyvisible", "--name", name).split() if w]

    def title(self) -> str:
        wins = self.windows()
        return self.xdotool("getwindowname", wins[-1]) if wins else ""

    def wait(self, predicate, timeout: float = 20.0, what: str = "") -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"citeview exited: {self.proc.stdout.read()}")  # type: ignore[union-attr]
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; title {self.title()!r}")

    def key(self, *keys: str, count: bool = True) -> None:
        """Press keys (xdotool names, e.g. ``1``, ``ctrl+Return``), one press each."""
        self.xdotool("key", "--delay", "30", *keys)
        if count:
            self.keys += len(keys)

    def type(self, text: str) -> None:
        self.xdotool("type", "--delay", "30", text)
        self.keys += len(text)

    def click(self, x: int, y: int) -> None:
        self.xdotool("mousemove", str(x), str(y), "click", "1")

    def screenshot(self, path: Path) -> None:
        subprocess.run(["import", "-window", "root", str(path)], env=self.env, check=True,
                       timeout=30)

    def quit(self) -> str:
        """Quit with Ctrl+Q (killed if it hangs); what it printed."""
        if self.proc.poll() is None:
            self.key("ctrl+q", count=False)
        try:
            out, _ = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate(timeout=5)
        return out or ""
